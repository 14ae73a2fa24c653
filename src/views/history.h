/* history.h: the history behind `fgobench history`: one problem's median
 * fused time night by night (one night = one stored sweep of the same spec
 * on the same machine), for one configuration or for each night's fastest,
 * with the change points of that series (changepoint.h) and the revision
 * range of each step. Never reads argv or writes stdout (cmd_history.c
 * does), so tests drive it through struct history_query. */
#ifndef FGO_HISTORY_H
#define FGO_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "views/changepoint.h"

struct history_query {
	const char *db;          /* the store */
	const char *algorithm;   /* required */
	long m, n, k;            /* required: the global problem */
	int world;               /* 0: the one world size stored (an error when several) */
	const char *dtype;       /* NULL: the one dtype stored (an error when several) */
	const char *config;      /* NULL or "best": each night's fastest configuration; else a
				    canonical key (config_key) or a tile text as `best` prints it
				    (its csv's full text or its table's brief one) */
	const char *spec;        /* NULL: the spec of the newest matching sweep; else a spec
				    name or a prefix of a spec hash */
	const char *host;        /* NULL: the host of the newest matching sweep; else only
				    the sweeps run on this host (a store merged from several
				    machines holds each one's nights) */
	double threshold_pct;    /* steps smaller than this (percent) are not listed */
	double penalty;          /* of the fit; <= 0: changepoint_default_penalty */
};

/* Threshold 5 % (as regress), default penalty, best configuration. */
void history_query_defaults(struct history_query *q);

/* One night: the median of the fused samples of the configuration followed. */
struct history_night {
	int64_t sweep_id, run_id;
	char tag[96];              /* the sweep's tag ("" when untagged) */
	char started[32];          /* the sweep's start, UTC ISO-8601 */
	char revision[48];         /* fgobench git revision of the sweep */
	char key[FGO_KEY_MAX];     /* the configuration measured (each night's best may differ) */
	struct fgo_config cfg;
	size_t samples;            /* fused samples (1 when only the median was stored) */
	double median, q1, q3;     /* of those samples, ms */
	double min, max;
	double low, high;          /* box-plot whiskers: the most extreme samples within
				      1.5 IQR of the quartiles (outliers lie beyond) */
	double spread;             /* uncertainty of the median (IQR-based standard error), ms */
	double level;              /* the fitted level, ms */
	int step;                  /* 1 when a listed step starts at this night */
};

struct history {
	struct history_night *nights; /* oldest first */
	size_t count;
	char spec_hash[40], spec_name[96], host[128];
	int world;
	char dtype[8];
	struct cp_step *steps;     /* the fit's steps with |change| above the threshold, by night */
	size_t nsteps;
	size_t boundaries;         /* every boundary of the fit, listed or not */
	double noise, penalty;     /* what the fit used (changepoint.h) */
	int skipped;               /* sweeps of the spec without an ok run to follow */
};

/* Loads and fits. FGO_OK; FGO_EUSAGE with a message for an unreadable
 * store, nothing stored for the problem, an ambiguous world or dtype, an
 * unknown spec or configuration; FGO_EFAIL when SQLite fails. h is always
 * safe to pass to history_free. */
int history_load(const struct history_query *q, struct history *h, char *err, size_t len);

void history_free(struct history *h);

/* Draws h with gnuplot (plots/history.gp) into dir (which exists):
 * DIR/BASE.dat, .gp, .png and .svg with BASE
 * "history_wW_ALGO_DTYPE_MxNxK_CONFIG" (CONFIG "best" or the tile text made
 * safe for a file name); the PNG's path goes to png. FGO_OK, or FGO_EFAIL
 * with err (no gnuplot, a file could not be written). */
int history_plot(const struct history *h, const struct history_query *q, const char *dir,
		 char *png, size_t png_len, char *err, size_t len);

/* Quartile q (0..1) of x (n > 0), linear between order statistics; x is
 * sorted in place. */
double history_quantile_sorted(double *x, size_t n, double q);

#endif
