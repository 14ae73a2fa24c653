/* stats.h: summaries of timing samples and the Mann-Whitney U test that
 * regress uses to tell a real slowdown from noise. */
#ifndef FGO_STATS_H
#define FGO_STATS_H

#include <stddef.h>

/* Median of n values (n > 0); x is not modified. */
double stats_median(const double *x, size_t n);
double stats_min(const double *x, size_t n);
double stats_max(const double *x, size_t n);
double stats_mean(const double *x, size_t n);
/* Sample standard deviation (n - 1); 0 for n < 2. */
double stats_stddev(const double *x, size_t n);

/* Two-sided Mann-Whitney U test of x against y. *u is U of x (number of
 * pairs with x > y, ties counting 1/2). p: exact distribution when both
 * samples are small (n_x + n_y <= 40 and no ties), else the normal
 * approximation with tie correction and continuity correction. Returns 0,
 * or -1 when a sample is empty. */
int stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, double *u,
		       double *p);

#endif
