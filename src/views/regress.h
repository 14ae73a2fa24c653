/* regress.h: the comparison behind `fgobench regress`: the ok runs of two
 * sides (a sweep id or a tag, possibly in two store files) matched by
 * configuration, each pair judged by its change of median and a Mann-Whitney
 * U test of the per-iteration samples; JUnit output for CI.
 *
 * The working code never reads argv or writes stdout (cmd_regress.c does),
 * so tests drive it through struct fgo_regress_opts. */
#ifndef FGO_REGRESS_H
#define FGO_REGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

struct fgo_regress_opts {
	const char *db;          /* store holding the head side (and the base, unless base_db) */
	const char *base_db;     /* store holding the base side (NULL: db) */
	const char *base, *head; /* a sweep id (all digits, existing) or a tag */
	double threshold_pct;    /* smallest change (percent of the base median) that counts */
	double alpha;            /* largest p-value that counts as significant */
	int gate;                /* judge as the nightly gate (gate.h): a side is every
				    round (sweep) of its tag, the machine factor, the
				    control and the noise model decide */
	int history;             /* the gate's noise model: earlier nights read (default 10) */
	const char *host;        /* NULL: a side is one host's sweeps, refused when a tag ran
				    on several (a store merged from several machines); else
				    only the sweeps of this host (sweeps.host) */
};

/* Defaults: threshold 5 %, alpha 0.01, stores and sides unset. */
void regress_opts_defaults(struct fgo_regress_opts *o);

enum fgo_verdict {
	FGO_SAME = 0,        /* within the threshold, or not significant */
	FGO_REGRESSION,      /* head slower by more than the threshold, p < alpha */
	FGO_IMPROVEMENT,     /* head faster by more than the threshold, p < alpha */
};

const char *regress_verdict_name(enum fgo_verdict v); /* "same", "regression", "improvement" */

/* One configuration present on both sides. */
struct fgo_regress_pair {
	struct fgo_config cfg;        /* the configuration both runs share */
	char key[FGO_KEY_MAX];        /* its canonical key (config_key in the store) */
	int64_t base_run, head_run;   /* run ids, each in its own store */
	size_t base_n, head_n;        /* fused samples compared */
	double base_ms, head_ms;      /* medians of those samples */
	double change_pct;            /* (head - base) / base * 100; NaN when base is 0 */
	double p;                     /* two-sided Mann-Whitney p of head vs base samples */
	enum fgo_verdict verdict;
};

/* How the nightly gate (gate.h) saw the night; all zero unless opts.gate. */
struct fgo_regress_gate {
	int on;                 /* judged by the gate */
	int machine;            /* enum gate_machine (gate.h) */
	int removed;            /* the machine factor was taken out of every change */
	int relative;           /* judged on time over the control of the same round */
	double machine_pct;     /* median change over the configurations compared */
	double control_pct;     /* median change of the control (the vendor baseline); NAN: none */
	int moved;              /* configurations beyond the threshold in the machine's direction */
	double cross_pct;       /* spread of tonight's changes over configurations (NAN: too few) */
	int blind;              /* that spread is over twice the threshold: too noisy to judge,
				   no verdict given (every pair same) */
	double sees_pct;        /* the smallest change a typical configuration's noise (the
				   median of their noises) lets through tonight (NAN: unknown) */
	int history_pairs;      /* night-to-night changes in the noise model (most of any) */
	double alpha_each;      /* alpha / configurations compared (Bonferroni) */
	int regressions, improvements;
	int base_rounds, head_rounds; /* sweeps (rounds) on each side */
	int nights;             /* earlier nights read for the noise model */
};

struct fgo_regress_report {
	struct fgo_regress_pair *pairs; /* regressions first (largest change first),
					   then improvements (largest gain first),
					   then the rest in key order */
	size_t count;
	int regressions, improvements;
	int only_base, only_head;       /* configurations with ok runs on one side only */
	int base_runs, head_runs;       /* ok runs (one per configuration) on each side */
	struct fgo_regress_gate gate;   /* with opts.gate: the night's verdict */
};

/* Loads both sides and compares them. Returns FGO_OK (even with
 * regressions: see regress_exit_code), FGO_EUSAGE for an unreadable store,
 * an unknown side, or no configuration present on both sides, FGO_EFAIL
 * when SQLite fails; err then holds a one-line message. rep is always
 * safe to pass to regress_report_free. */
int regress_compare(const struct fgo_regress_opts *o, struct fgo_regress_report *rep,
		    char *err, size_t len);

void regress_report_free(struct fgo_regress_report *rep);

/* For gate_load.c: a side's text as a sweep id (*id > 0) or a tag with at
 * least one sweep (*id = 0), and the host whose sweeps make it into host
 * ("" for sweeps without one): want when not NULL (a side with no sweep
 * on it is refused), else the side's one host (a tag run on several hosts
 * is refused: name one with --host); FGO_EUSAGE with a message otherwise.
 * And the pairs put in the order of the report (regressions first). */
struct sqlite3;
int regress_side_resolve(struct sqlite3 *db, const char *path, const char *text,
			 const char *want, int64_t *id, char *host, size_t host_len, char *err,
			 size_t len);
void regress_sort_pairs(struct fgo_regress_report *rep);

/* The exit status the report calls for: 1 with any regression, else 0. */
int regress_exit_code(const struct fgo_regress_report *rep);

/* Writes the report as JUnit XML (one testsuite, one testcase per pair, a
 * failure for each regression) to a temporary file beside path, then
 * renames it over path, so a reader never sees half a file. */
int regress_write_junit(const struct fgo_regress_report *rep, const struct fgo_regress_opts *o,
			const char *path, char *err, size_t len);

/* The comparison as a table (regress, report): its column names, and one
 * pair's row (an unknown change is left empty). */
#define REGRESS_COLUMNS 12
extern const char *const regress_headers[REGRESS_COLUMNS];
struct fgo_table;
void regress_table_row(struct fgo_table *t, const struct fgo_regress_pair *p);

#endif
