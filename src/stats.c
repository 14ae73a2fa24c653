/* stats.c: summaries of timing samples (median, min, max, mean, sample
 * standard deviation) and the two-sided Mann-Whitney U test regress uses
 * to tell a real slowdown from noise (see stats.h). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double stats_median(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	double *s = malloc(sizeof *s * n);
	if (!s)
		return NAN;
	memcpy(s, x, sizeof *s * n);
	qsort(s, n, sizeof *s, cmp_double);
	double med = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
	free(s);
	return med;
}

double stats_min(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	double v = x[0];
	for (size_t i = 1; i < n; i++)
		if (x[i] < v)
			v = x[i];
	return v;
}

double stats_max(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	double v = x[0];
	for (size_t i = 1; i < n; i++)
		if (x[i] > v)
			v = x[i];
	return v;
}

double stats_mean(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	return sum / (double)n;
}

double stats_stddev(const double *x, size_t n)
{
	if (n < 2)
		return 0;
	/* Two passes: subtracting the mean first keeps the squares small, which
	 * matters for timings that differ in the fifth digit. */
	double mean = stats_mean(x, n), ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	return sqrt(ss / (double)(n - 1));
}

/* Exact null distribution of U for sample sizes nx, ny without ties:
 * count(n, m, u) = count(n - 1, m, u - m) + count(n, m - 1, u), by whether
 * the largest of the n + m values is an x (it beats all m y's) or a y.
 * Returns the two-sided p for the observed u, or -1 when out of memory.
 * Counts stay below C(40, 20) < 2^53, so doubles hold them exactly. */
static double exact_p(size_t nx, size_t ny, double u)
{
	size_t umax = nx * ny, width = umax + 1;
	double *prev = calloc((ny + 1) * width, sizeof *prev);
	double *cur = calloc((ny + 1) * width, sizeof *cur);
	if (!prev || !cur) {
		free(prev);
		free(cur);
		return -1;
	}
	for (size_t m = 0; m <= ny; m++)
		prev[m * width] = 1; /* n = 0: U = 0 whatever m is */
	for (size_t n = 1; n <= nx; n++) {
		memset(cur, 0, sizeof *cur * (ny + 1) * width);
		cur[0] = 1; /* m = 0: U = 0 */
		for (size_t m = 1; m <= ny; m++)
			for (size_t v = 0; v <= n * m; v++)
				cur[m * width + v] = (v >= m ? prev[m * width + v - m] : 0) +
						     cur[(m - 1) * width + v];
		double *t = prev;
		prev = cur;
		cur = t;
	}
	const double *dist = prev + ny * width;
	double total = 0, below = 0, above = 0;
	for (size_t v = 0; v <= umax; v++) {
		total += dist[v];
		if ((double)v <= u)
			below += dist[v];
		if ((double)v >= u)
			above += dist[v];
	}
	free(prev);
	free(cur);
	double p = 2 * (below < above ? below : above) / total;
	return p < 1 ? p : 1;
}

struct mw_item {
	double v;
	int from_x;
};

static int cmp_item(const void *a, const void *b)
{
	return cmp_double(&((const struct mw_item *)a)->v, &((const struct mw_item *)b)->v);
}

int stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, double *u,
		       double *p)
{
	if (nx == 0 || ny == 0)
		return -1;
	size_t n = nx + ny;
	struct mw_item *all = malloc(sizeof *all * n);
	if (!all)
		return -1;
	for (size_t i = 0; i < nx; i++)
		all[i] = (struct mw_item){ x[i], 1 };
	for (size_t j = 0; j < ny; j++)
		all[nx + j] = (struct mw_item){ y[j], 0 };
	qsort(all, n, sizeof *all, cmp_item);

	/* Mid-ranks (1-based) of tied groups; rank sum of x gives U, the group
	 * sizes t give the tie correction sum(t^3 - t). */
	double rank_x = 0, ties = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && all[j + 1].v == all[i].v)
			j++;
		double t = (double)(j - i + 1), mid = 0.5 * (double)(i + j) + 1;
		for (size_t q = i; q <= j; q++)
			if (all[q].from_x)
				rank_x += mid;
		ties += t * t * t - t;
		i = j + 1;
	}
	free(all);

	double fx = (double)nx, fy = (double)ny, fn = (double)n;
	*u = rank_x - fx * (fx + 1) / 2;
	if (n <= 40 && ties == 0) {
		*p = exact_p(nx, ny, *u);
		if (*p >= 0)
			return 0;
	}
	double mu = fx * fy / 2;
	double var = fx * fy / 12 * ((fn + 1) - ties / (fn * (fn - 1)));
	double d = fabs(*u - mu) - 0.5;
	if (var <= 0 || d <= 0) {
		*p = 1;
		return 0;
	}
	double pn = erfc(d / sqrt(var) / sqrt(2.0));
	*p = pn < 1 ? pn : 1;
	return 0;
}
