/* views.h: what the read-only commands (best, list, show, plot) share:
 * opening the store for reading with a clear message, and reading the
 * configuration columns of a runs row back into a struct fgo_config. */
#ifndef FGO_VIEWS_H
#define FGO_VIEWS_H

#include <sqlite3.h>
#include <stdio.h>

#include "config.h"
#include "store/store.h"

/* The 22 configuration columns of runs, in struct fgo_config order (a
 * user kernel's params and source hash last). */
#define VIEW_CONFIG_COLUMNS                                                               \
	"algorithm, dtype, world, m, n, k, blk_m, blk_n, blk_k, num_stages, num_warps, mma, " \
	"gsize_m, gemm_sms, comm_sms, comm_blk_m, comm_blk_n, split_k, deterministic, "      \
	"cluster, kernel_params, kernel_hash"
#define VIEW_CONFIG_NCOLS 22

/* Column col of st's row as text into out (len bytes; NULL reads as ""). */
void view_text(sqlite3_stmt *st, int col, char *out, size_t len);

/* Reads VIEW_CONFIG_COLUMNS starting at column col of st into cfg. */
void view_config(sqlite3_stmt *st, int col, struct fgo_config *cfg);

/* Opens the store at cmd_db_path(db_opt) for reading; on failure prints
 * "fgobench: <why>" and returns FGO_EUSAGE or FGO_EFAIL. */
int view_open(const char *db_opt, struct fgo_store **st);

/* Prepares sql on st's database; on failure prints the SQLite error. */
int view_prepare(struct fgo_store *st, const char *sql, sqlite3_stmt **out);

/* The problem of cfg as the six cells every result table starts with:
 * algorithm, dtype, world, M, N, K. */
struct fgo_table;
void view_problem_cells(struct fgo_table *t, const struct fgo_config *cfg);

/* The tunables of cfg in one short cell: "128x128x64 s2 w4 g8 sm0+0", plus
 * " mma32" and " c64x64" when those differ from the defaults; a user
 * kernel's are its own: its params ("BLOCK_M=64,BLOCK_N=32"). */
void view_tile_text(const struct fgo_config *cfg, char *out, size_t len);

/* The same, shorter, for a terminal: the tile, then only what differs from
 * config_defaults ("64x32x32", "32x32x32 s3 sm3+1"): stages sN, warps wN,
 * gsize_m gN, gemm_sms + comm_sms smG+C, then as view_tile_text. */
void view_tile_brief(const struct fgo_config *cfg, char *out, size_t len);

/* The filters of a view (best, list, plot): 0 or NULL where not given. */
struct view_filter {
	long m, n, k;
	int world;
	const char *algorithm, *dtype, *tag;
};

/* When a view found no ok run for f: why, into why (view_empty.c): an empty
 * store, else the first filter the store has nothing of (a tag or an
 * algorithm with "did you mean" for a stored one a letter or two off, a
 * size, world or dtype with the values stored), else that only the
 * filters together match nothing. path names the store. The caller says it
 * as an error and exits 2 (FGO_EUSAGE), as plot does. */
void view_why_empty(sqlite3 *db, const char *path, const struct view_filter *f, char *why,
		    size_t len);

/* " (did you mean \"TAG\"?)" naming the stored tag closest to tag (at most 2
 * edits, or a third of its length), or "" when none is. */
void view_tag_hint(sqlite3 *db, const char *tag, char *out, size_t len);

/* The line that reproduces a run of cfg: `fgobench run` with its flags; for
 * a user kernel (cfg->params set, manifest given) a sweep of spec with
 * --kernel manifest at the run's problem when spec is a file here, else
 * command_line (the stored command of its sweep or tune session) when
 * given, else that sweep with "SPEC" for the spec. */
void view_reproduce(const struct fgo_config *cfg, const char *spec, const char *manifest,
		    const char *command_line, char *out, size_t len);

/* lead, then text (shown as tables show cells: sink_terminal) broken at
 * spaces into lines of at most width columns, the lines after the first
 * indented by indent spaces (a word longer than a line stays whole). */
void view_print_wrapped(FILE *out, const char *lead, const char *text, int indent, int width);

/* A command line (a reproduce line) for a terminal of width columns: shown
 * as tables show cells (sink_terminal), broken at spaces into lines that
 * end in " \\" and go on indented, so a shell still reads one command when
 * it is pasted. A word longer than the width stays whole. */
void view_print_command(FILE *out, const char *line, int width);

/* The same after lead on the first line (best --reproduce's run id), the
 * lines that continue it indented 4 past the lead. */
void view_print_command_after(FILE *out, const char *lead, const char *line, int width);

#endif
