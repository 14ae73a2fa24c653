/* test_stats.c: the sample summaries and the Mann-Whitney U test of stats.h
 * against values computed by hand (the exact p-values enumerate every
 * assignment of ranks; the tied ones follow the normal approximation with
 * tie and continuity correction). */
#include <stdlib.h>

#include "fgo.h"
#include "stats.h"
#include "testlib.h"

/* Relative closeness, for p-values spanning many orders of magnitude. */
#define T_REL(id, got, want, rel)                                                          \
	T_CHECK(id, fabs((double)(got) - (double)(want)) <= (rel) * fabs((double)(want)),     \
		"expected %.12g (rel %g), got %.12g", (double)(want), (double)(rel), (double)(got))

static void check_summaries(void)
{
	static const double odd[] = { 5, 1, 4, 2, 3 };
	static const double even[] = { 8, 2, 6, 4 };
	static const double one[] = { 7.25 };
	T_NEAR("median-odd", stats_median(odd, 5), 3, 0);
	T_NEAR("median-even", stats_median(even, 4), 5, 0); /* (4 + 6) / 2 */
	T_NEAR("median-one", stats_median(one, 1), 7.25, 0);
	double two[] = { 3.5, 1.5 };
	T_NEAR("median-two", stats_median(two, 2), 2.5, 0);

	/* Unsorted input with repeats and negatives, and it stays as it was. */
	double x[] = { 9.5, -1, 3, 3, 100, 0.25, 7 };
	double copy[FGO_ARRAY_SIZE(x)];
	memcpy(copy, x, sizeof x);
	T_NEAR("median-unsorted", stats_median(x, FGO_ARRAY_SIZE(x)), 3, 0);
	T_CHECK("median-input-unchanged", memcmp(x, copy, sizeof x) == 0,
		"stats_median reordered its input");
	double y[] = { 10, 0.5, 2, 8, -4, 6 }; /* sorted: -4 0.5 2 6 8 10 -> (2 + 6) / 2 */
	T_NEAR("median-unsorted-even", stats_median(y, FGO_ARRAY_SIZE(y)), 4, 0);
	T_CHECK("median-empty-nan", isnan(stats_median(x, 0)), "median of nothing is not NaN");

	T_NEAR("min", stats_min(x, FGO_ARRAY_SIZE(x)), -1, 0);
	T_NEAR("max", stats_max(x, FGO_ARRAY_SIZE(x)), 100, 0);
	T_NEAR("min-first", stats_min(y, FGO_ARRAY_SIZE(y)), -4, 0);
	T_NEAR("max-first", stats_max(y, FGO_ARRAY_SIZE(y)), 10, 0);
	T_NEAR("mean", stats_mean(x, FGO_ARRAY_SIZE(x)), 121.75 / 7, 1e-12);

	/* The classic: mean 5, sum of squares 32, sample variance 32/7. */
	static const double g[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	T_NEAR("mean-known", stats_mean(g, 8), 5, 1e-15);
	T_NEAR("stddev-known", stats_stddev(g, 8), sqrt(32.0 / 7.0), 1e-12);
	T_NEAR("stddev-one", stats_stddev(g, 1), 0, 0);
	T_NEAR("stddev-constant", stats_stddev(one, 1), 0, 0);
	/* Large offset, tiny spread: two-pass keeps the digits. */
	double t[] = { 1e9 + 1, 1e9 + 2, 1e9 + 3 };
	T_NEAR("stddev-offset", stats_stddev(t, 3), 1, 1e-9);
	double c[] = { 4.5, 4.5, 4.5, 4.5 };
	T_NEAR("stddev-zero", stats_stddev(c, 4), 0, 0);
}

static void check_exact(void)
{
	double u = -1, p = -1;
	static const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
	T_EQ_INT("mw-3v3-rc", stats_mann_whitney(a, 3, b, 3, &u, &p), 0);
	T_NEAR("mw-3v3-u", u, 0, 0);
	T_NEAR("mw-3v3-p", p, 0.1, 1e-12); /* 2 * 1/C(6,3) */
	stats_mann_whitney(b, 3, a, 3, &u, &p);
	T_NEAR("mw-3v3-reversed-u", u, 9, 0);
	T_NEAR("mw-3v3-reversed-p", p, 0.1, 1e-12);

	static const double c[] = { 1, 2, 3, 4, 5 }, d[] = { 6, 7, 8, 9, 10 };
	stats_mann_whitney(c, 5, d, 5, &u, &p);
	T_NEAR("mw-5v5-u", u, 0, 0);
	T_NEAR("mw-5v5-p", p, 2.0 / 252.0, 1e-15);

	/* Interleaved, unequal sizes: U = 6, P(U <= 6) = 13/126 -> p = 26/63. */
	static const double e[] = { 1.1, 3.2, 5.3, 7.4 }, f[] = { 2, 4, 6, 8, 9 };
	stats_mann_whitney(e, 4, f, 5, &u, &p);
	T_NEAR("mw-4v5-u", u, 6, 0);
	T_NEAR("mw-4v5-p", p, 26.0 / 63.0, 1e-12);

	/* Unsorted input; U = 10 of 12 -> p = 8/35. */
	static const double g[] = { 30, 10, 40, 20 }, h[] = { 25, 1, 2 };
	stats_mann_whitney(g, 4, h, 3, &u, &p);
	T_NEAR("mw-4v3-u", u, 10, 0);
	T_NEAR("mw-4v3-p", p, 8.0 / 35.0, 1e-12);

	/* U at the centre of its distribution: p is capped at 1. */
	static const double i[] = { 3, 7, 1, 9, 4 }, j[] = { 2, 8, 5 };
	stats_mann_whitney(i, 5, j, 3, &u, &p);
	T_NEAR("mw-centre-u", u, 7, 0);
	T_NEAR("mw-centre-p", p, 1, 1e-12);

	/* One against one: the only two orders, p = 1. */
	static const double k1[] = { 1 }, k2[] = { 2 };
	stats_mann_whitney(k1, 1, k2, 1, &u, &p);
	T_NEAR("mw-1v1-p", p, 1, 0);

	/* 20 + 20 = 40 is still exact: p = 2 / C(40, 20). */
	double x[21], y[21];
	for (int n = 0; n < 21; n++) {
		x[n] = n;
		y[n] = 100 + n;
	}
	stats_mann_whitney(x, 20, y, 20, &u, &p);
	T_NEAR("mw-20v20-u", u, 0, 0);
	T_REL("mw-20v20-exact-p", p, 1.4508889103849688e-11, 1e-9);
	/* 20 + 21 = 41 goes to the normal approximation: z = 209.5 / sqrt(1470). */
	stats_mann_whitney(x, 20, y, 21, &u, &p);
	T_NEAR("mw-20v21-u", u, 0, 0);
	T_REL("mw-20v21-normal-p", p, 4.650395086620366e-08, 1e-6);
}

static void check_normal_and_ties(void)
{
	double u = -1, p = -1;
	/* Ties: U = 2.5, tie term 30, var = 16/12 (9 - 30/56), d = 5. */
	static const double a[] = { 1, 2, 2, 3 }, b[] = { 2, 3, 4, 5 };
	T_EQ_INT("mw-ties-rc", stats_mann_whitney(a, 4, b, 4, &u, &p), 0);
	T_NEAR("mw-ties-u", u, 2.5, 0);
	T_REL("mw-ties-p", p, 0.13665824773814753, 1e-9);
	double u2, p2;
	stats_mann_whitney(b, 4, a, 4, &u2, &p2);
	T_NEAR("mw-ties-u-reversed", u2, 16 - 2.5, 0);
	T_NEAR("mw-ties-symmetric", p2, p, 1e-15);

	static const double c[] = { 1.5, 2, 2, 7, 9, 9, 9 }, d[] = { 3, 3, 4, 8, 9, 10 };
	stats_mann_whitney(c, 7, d, 6, &u, &p);
	T_NEAR("mw-ties2-u", u, 16.5, 0);
	T_REL("mw-ties2-p", p, 0.5611816828593706, 1e-9);

	/* Identical samples: no evidence of a difference. */
	static const double s[] = { 1, 2, 3, 4, 5 };
	stats_mann_whitney(s, 5, s, 5, &u, &p);
	T_NEAR("mw-identical-u", u, 12.5, 0);
	T_NEAR("mw-identical-p", p, 1, 1e-12);
	static const double one[] = { 4.25, 4.25, 4.25 };
	stats_mann_whitney(one, 3, one, 3, &u, &p);
	T_NEAR("mw-all-equal-u", u, 4.5, 0);
	T_NEAR("mw-all-equal-p", p, 1, 0);

	/* Large shifted samples (30 each, overlap 25..29 tied). */
	double x[30], y[30];
	for (int i = 0; i < 30; i++) {
		x[i] = i;
		y[i] = i + 25;
	}
	stats_mann_whitney(x, 30, y, 30, &u, &p);
	T_NEAR("mw-30v30-u", u, 12.5, 0);
	T_CHECK("mw-30v30-p-small", p < 1e-6 && p > 0, "p = %g, want (0, 1e-6)", p);
	T_REL("mw-30v30-p", p, 1.0384657790343376e-10, 1e-6);
	double py;
	stats_mann_whitney(y, 30, x, 30, &u, &py);
	T_NEAR("mw-30v30-u-reversed", u, 900 - 12.5, 0);
	T_NEAR("mw-30v30-symmetric", py, p, 1e-20);

	/* Symmetry across many deterministic samples of both kinds. */
	long bad = 0;
	unsigned state = 12345;
	for (int trial = 0; trial < 200; trial++) {
		double xs[25], ys[25];
		int nx = 1 + trial % 24, ny = 1 + (trial * 7) % 25;
		for (int q = 0; q < nx; q++) {
			state = state * 1103515245u + 12345u;
			xs[q] = (double)((state >> 16) % (trial % 2 ? 10 : 100000));
		}
		for (int q = 0; q < ny; q++) {
			state = state * 1103515245u + 12345u;
			ys[q] = (double)((state >> 16) % (trial % 2 ? 10 : 100000)) + (trial % 3);
		}
		double ua, pa, ub, pb;
		if (stats_mann_whitney(xs, (size_t)nx, ys, (size_t)ny, &ua, &pa) ||
		    stats_mann_whitney(ys, (size_t)ny, xs, (size_t)nx, &ub, &pb) ||
		    fabs(pa - pb) > 1e-12 * (pa > pb ? pa : pb) || fabs(ua + ub - nx * ny) > 1e-9 ||
		    pa < 0 || pa > 1)
			bad++;
	}
	T_EQ_INT("mw-symmetry-200", bad, 0);
}

static void check_empty(void)
{
	static const double a[] = { 1, 2 };
	double u = 42, p = 42;
	T_EQ_INT("mw-empty-x", stats_mann_whitney(a, 0, a, 2, &u, &p), -1);
	T_EQ_INT("mw-empty-y", stats_mann_whitney(a, 2, a, 0, &u, &p), -1);
	T_EQ_INT("mw-empty-both", stats_mann_whitney(a, 0, a, 0, &u, &p), -1);
}

int main(void)
{
	check_summaries();
	check_exact();
	check_normal_and_ties();
	check_empty();
	T_DONE();
}
