/* report.h: the report behind `fgobench report`: one sweep's verdict
 * against an earlier run of the same spec (regress.h), its runs that did
 * not succeed and why, the best configuration of every problem per world
 * size, the roofline, overlap and heatmap plots (plot_kinds.h) and the
 * environment it ran in, written as DIR/index.md (and DIR/index.html).
 *
 * The working code never reads argv; it writes files, and the plot code it
 * reuses prints each image's path on stdout (as `fgobench plot` does). */
#ifndef FGO_REPORT_H
#define FGO_REPORT_H

#include <stddef.h>
#include <stdint.h>

struct report_opts {
	const char *db;           /* the store */
	int64_t sweep_id;         /* the sweep reported (0: by tag, else the newest sweep) */
	const char *tag;          /* the newest sweep with this tag (when sweep_id is 0) */
	const char *against;      /* NULL: no comparison; "auto": the newest earlier sweep of
				     the same spec hash and host; else a sweep id or a tag */
	const char *dir;          /* output directory (created when missing) */
	int html;                 /* also DIR/index.html */
	int plots;                /* draw the plots */
	double threshold_pct;     /* of the comparison (regress_opts_defaults) */
	double alpha;
	const char *junit;        /* also the comparison as JUnit XML (NULL: none) */
	int gate;                 /* judge as the nightly gate (regress --gate): the sweep's
				     whole tag against the previous night's (auto: the newest
				     earlier sweep of the spec and host with another tag) */
};

/* Defaults: the newest sweep, no comparison, dir "fgobench-out/report",
 * Markdown only, plots on, regress's threshold and alpha. */
void report_opts_defaults(struct report_opts *o);

struct report_result {
	int64_t sweep_id;          /* the sweep reported */
	char base[96];             /* what it was compared with ("" when nothing: none asked,
				      or auto found no earlier sweep) */
	int compared;              /* configurations compared */
	int regressions, improvements;
	int no_verdict;            /* the gate found the night too noisy to judge */
	int not_ok;                /* runs invalid, mismatched, failed, timed out or left started */
	int failed;                /* of those: mismatched, failed, timed out or left started */
	int plots;                 /* PNGs drawn */
	char md_path[4096];        /* DIR/index.md */
	char html_path[4096];      /* DIR/index.html ("" unless asked) */
};

/* Writes the report. FGO_OK (regressions or not: see result), FGO_EUSAGE
 * with a message for a store that cannot be read, an unknown sweep, tag or
 * comparison side, a directory that cannot be made; FGO_EFAIL when SQLite
 * or a write fails. A plot gnuplot cannot draw is a warning in the report,
 * not a failure. */
int report_write(const struct report_opts *o, struct report_result *r, char *err, size_t len);

#endif
