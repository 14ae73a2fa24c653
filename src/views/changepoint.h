/* changepoint.h: change points in a series of nightly medians: the
 * piecewise-constant fit that minimises the weighted squared error plus a
 * penalty per extra segment (optimal partitioning, exact, O(n^2)), each
 * night weighted by the uncertainty of its median. Pure arithmetic: no
 * store, no output, so it is tested on synthetic series.
 *
 * Weights: night i counts with 1 / (spread_i^2 + noise^2 + tiny^2), where
 * spread_i is the caller's uncertainty of that night's median, noise is the
 * night-to-night scatter the series shows (a robust estimate from the
 * differences of neighbours: 1.4826 * median |y[i+1] - y[i]| / sqrt 2, which
 * one step barely moves), and tiny (1e-6 of the series' typical value) keeps
 * a noiseless series finite. The squared error is then in units of that
 * variance, so the penalty reads like a chi-square: a new segment must
 * explain more than `penalty` units of it. */
#ifndef FGO_CHANGEPOINT_H
#define FGO_CHANGEPOINT_H

#include <stddef.h>

/* One boundary of the fit: the level moves at night `at` (0-based; night
 * at - 1 is the last one at the old level). */
struct cp_step {
	size_t at;          /* first night at the new level */
	double before;      /* fitted level of the segment that ends at at - 1 */
	double after;       /* fitted level of the segment that starts at at */
	double change_pct;  /* (after - before) / before * 100; 0 when before is 0 */
};

struct cp_fit {
	double *level;         /* n values: the fitted level of each night */
	struct cp_step *steps; /* every boundary, in order of night */
	size_t nsteps;
	double noise;          /* the night-to-night scatter used in the weights */
	double penalty;        /* the penalty used */
};

/* The default penalty for n nights: 3 ln n + 3, stiffer than BIC's ln n
 * per parameter: on pure noise a short history (10 nights) then shows a
 * boundary about one time in fifteen, a long one (30+) about one in a
 * hundred, while a step of 3 sigma is still found every time. */
double changepoint_default_penalty(size_t n);

/* Fits y[0..n) (spread may be NULL: every night equally certain; a
 * negative or NaN spread counts as 0). penalty <= 0 means the default.
 * Returns 0, or -1 when out of memory or when y holds a value that is not
 * finite; fit is then empty. n == 0 gives an empty fit. Free with
 * changepoint_free. */
int changepoint_fit(const double *y, const double *spread, size_t n, double penalty,
		    struct cp_fit *fit);

void changepoint_free(struct cp_fit *fit);

#endif
