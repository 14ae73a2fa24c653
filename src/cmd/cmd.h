/* cmd.h: the subcommands, one cmd_*.c file each (git's builtin/ style), and
 * the few helpers they share for option parsing and usage.
 *
 * Checklist for adding a command:
 *   1. int cmd_NAME(int argc, char **argv) in src/cmd/cmd_NAME.c; argv[0] is
 *      "NAME"; the return value is the exit status (0, 1, 2).
 *   2. its usage text as `const char cmd_NAME_usage[]` (declared below), the
 *      first lines "usage: fgobench NAME ..." being the synopsis;
 *   3. one entry in commands[] in src/main.c (sorted), with FGO_NEEDS_MPI when it
 *      runs kernels (main then initialises and finalises MPI around it);
 *   4. man/fgobench-NAME.1 whose SYNOPSIS is the same text (tests check it);
 *   5. tests under tests/unit or tests/e2e.
 *
 * Conventions: `--help` / `-h` prints the usage text to stdout and returns 0;
 * a bad option prints "fgobench NAME: what is wrong" and the synopsis to
 * stderr and returns FGO_EUSAGE (2). Results go to stdout (so they pipe),
 * messages to stderr. */
#ifndef FGO_CMD_H
#define FGO_CMD_H

#include <stdio.h>

#include "config.h"
#include "spec/spec.h"
#include "views/table.h"

#define FGO_NEEDS_MPI 1u

int cmd_best(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_regress(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
/* The ranks `run` needs (its --world), input errors said: main.c's launch. */
int cmd_run_ranks(int argc, char **argv, int *np);
int cmd_show(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
/* The ranks `sweep` needs (its spec's largest world; 0 for --dry-run and
 * --help), input errors said: main.c's launch (launch/launch.h). */
int cmd_sweep_ranks(int argc, char **argv, int *np);
int cmd_tune(int argc, char **argv);
/* The ranks `tune` needs (its --world), input errors said: main.c's launch. */
int cmd_tune_ranks(int argc, char **argv, int *np);

extern const char cmd_best_usage[];
extern const char cmd_calibrate_usage[];
extern const char cmd_compile_usage[];
extern const char cmd_history_usage[];
extern const char cmd_info_usage[];
extern const char cmd_list_usage[];
extern const char cmd_merge_usage[];
extern const char cmd_plot_usage[];
extern const char cmd_regress_usage[];
extern const char cmd_report_usage[];
extern const char cmd_run_usage[];
extern const char cmd_show_usage[];
extern const char cmd_sweep_usage[];
extern const char cmd_tune_usage[];

/* calibrate's fit (calibrate_fit.c): the stated link (link_bw > 0) into
 * the store of db, then the cost model of every core fitted to the runs of
 * machine (NULL: this host) and backend, stored under source and printed.
 * FGO_OK, or the store's error (said). */
int calibrate_fit_models(const char *db, const char *backend, const char *machine, double link_bw,
			 const char *source);

/* show's printer (cmd_show.c), for `show` and for `run` to show the run
 * it stored: run id of the store at db in format; wide: the table with
 * every field on one line each and the stored numbers as they are; brief:
 * only the fields a run's result is read by, and a line naming `show`.
 * FGO_OK, FGO_EUSAGE (no such run, said) or FGO_EFAIL. */
int show_run(const char *db, long id, enum fgo_format format, int wide, int brief);

/* 1 when argv holds -h or --help (anywhere). */
int cmd_wants_help(int argc, char **argv);

/* Prints the usage text to stdout with, after its synopsis and a blank
 * line, where its manual is: "The manual: man -l PATH" for the page found
 * beside the binary (cmd_manual_path), else `man fgobench-NAME` after make
 * install; returns 0 (for `return cmd_help(...)`). */
int cmd_help(const char *usage);

/* The absolute path of man/fgobench-NAME.1 beside this binary (a checkout:
 * ./man, or ../../man for build/cuda/fgobench; an install: ../share/man/man1)
 * into out; 0, or -1 when there is none. For `fgobench help NAME`, which can
 * show it with `man -l`. */
int cmd_manual_path(const char *name, char *out, size_t len);

/* `fgobench help NAME`: the man page beside the binary shown by `man -l`
 * (no shell; man pages it on a terminal), else, without man or a page,
 * the usage text as cmd_help prints it. Returns 0. */
int cmd_manual(const char *name, const char *usage);

/* Prints "fgobench CMD: <message>" and the synopsis part of usage (the lines
 * before the first empty line) to stderr; returns FGO_EUSAGE. A message
 * "unknown option \"OPT\"", "unexpected argument \"-OPT\"" or "missing
 * value for \"OPT\"" (OPT not an option of the command) gets the
 * option of usage (and of the configuration flags, where usage names
 * "FLAGS]") OPT is likely a typo of: " (did you mean \"--m\"?)". */
int cmd_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The registered name of the algorithm text means (algo_resolve: any case,
 * - for _, the field's short names); NULL after "fgobench CMD:
 * unknown algorithm ..." (or "ambiguous algorithm ...", with the names) when
 * it means none or several. */
const char *cmd_algorithm(const char *cmd, const char *text);
/* The same for a filter (best, plot, history --algorithm): a name it does
 * not know is taken as given after that message (a shared store may hold
 * another fgobench's names), a user kernel's ("user:NAME") without one;
 * NULL only for a family's name. */
const char *cmd_algorithm_filter(const char *cmd, const char *text);

/* Parses text as an integer in [min, max] for option opt; on failure prints
 * "fgobench CMD: OPT expects an integer between MIN and MAX, got \"TEXT\""
 * and returns FGO_EUSAGE. */
int cmd_parse_long(const char *cmd, const char *opt, const char *text, long min, long max,
		   long *out);
int cmd_parse_int(const char *cmd, const char *opt, const char *text, int min, int max,
		  int *out);
/* A byte count: "1048576", "512M", "4G" (k, M, G: powers of 1024, an
 * optional "B" or "iB"), above 0 and at most 1e15; else the same kind of
 * message and FGO_EUSAGE. */
int cmd_parse_bytes(const char *cmd, const char *opt, const char *text, size_t *out);
/* Same for a finite number in [min, max]. */
/* --config VALUE of run and sweep: "table" or "auto" into *pick (enum
 * fgo_pick); FGO_OK, or FGO_EUSAGE with the message printed. */
int cmd_parse_pick(const char *cmd, const char *value, int *pick);

int cmd_parse_double(const char *cmd, const char *opt, const char *text, double min,
		     double max, double *out);

/* Matches option name at argv[*i], given as "NAME VALUE" or "NAME=VALUE":
 * returns 1 with *value set (and *i moved past a separate value), 0 when
 * argv[*i] is not name, FGO_EUSAGE after "fgobench CMD: missing value for
 * NAME" when no value follows. */
int cmd_option(const char *cmd, int argc, char **argv, int *i, const char *name,
	       const char **value);

/* Which of the n option names in opts argv[*i] is (via cmd_option), with
 * its value: the index, -1 when it is none of them, -2 when its value is
 * missing (a message was printed). */
int cmd_match_option(const char *cmd, int argc, char **argv, int *i, const char *const *opts,
		     int n, const char **value);

/* "mpirun -np RANKS fgobench ARGV..." as it was typed (argv from the
 * subcommand's name on), cut at len, for a stored sweep's command line. */
void cmd_command_line(int argc, char **argv, int ranks, char *out, size_t len);

/* The store path: opt when given, else $FGOBENCH_DB, else "fgobench.db". */
const char *cmd_db_path(const char *opt);

/* Flushes stdout and reports a write error (a closed pipe, a full disk):
 * returns rc, or FGO_EFAIL when stdout could not be written. */
int cmd_finish_stdout(int rc);

/* Configuration flags shared by `run` and `sweep` (for datasets), parsed the
 * same way: -m -n -k (or --m --n --k) --algorithm (read by cmd_algorithm)
 * --datatype --world --BLK_M --BLK_N --BLK_K
 * --num_stages --num_warps --mma --gsize_m --gemm_sms --comm_sms --comm_blk_m
 * --comm_blk_n --split_k --deterministic --cluster. If argv[*i] is one of them, consumes it and its value,
 * stores into cfg, marks it in set and returns 1; returns 0 when argv[*i] is
 * not a config flag; FGO_EUSAGE (after a message) on a bad value. */
int cmd_config_flag(const char *cmd, int argc, char **argv, int *i, struct fgo_config *cfg,
		    struct fgo_config_mask *set);

/* The help text for those flags (one line each), for the usage texts. */
extern const char cmd_config_flags_help[];

#endif
