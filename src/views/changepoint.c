/* changepoint.c: the penalised piecewise-constant fit of changepoint.h.
 * Optimal partitioning: best[t] is the least cost of the nights before t,
 * over every split, with the cost of a segment its weighted squared error
 * around its weighted mean (from prefix sums, so O(1) per segment) and the
 * penalty added once per segment after the first. */
#include "views/changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

double changepoint_default_penalty(size_t n)
{
	return 3.0 * log((double)(n > 1 ? n : 1)) + 3.0;
}

void changepoint_free(struct cp_fit *fit)
{
	free(fit->level);
	free(fit->steps);
	memset(fit, 0, sizeof *fit);
}

/* The night-to-night scatter: 1.4826 * median |y[i+1] - y[i]| / sqrt 2
 * (the MAD of a difference of two normal values, scaled to one value's
 * sigma); 0 for fewer than three nights, where it says nothing. */
static double neighbour_noise(const double *y, size_t n)
{
	if (n < 3)
		return 0;
	double *d = malloc((n - 1) * sizeof *d);
	if (!d)
		return 0;
	for (size_t i = 0; i + 1 < n; i++)
		d[i] = fabs(y[i + 1] - y[i]);
	double mad = stats_median(d, n - 1);
	free(d);
	return 1.4826 * mad / sqrt(2.0);
}

/* Sums over nights [0, t) for the segment costs, y centred on ref so the
 * squares stay small. */
struct sums {
	double *w, *wy, *wyy; /* n + 1 each */
};

static double segment_cost(const struct sums *s, size_t from, size_t to)
{
	double w = s->w[to] - s->w[from];
	double wy = s->wy[to] - s->wy[from];
	double c = s->wyy[to] - s->wyy[from] - wy * wy / w;
	return c > 0 ? c : 0; /* rounding can leave -epsilon for a flat segment */
}

static double segment_mean(const struct sums *s, size_t from, size_t to)
{
	return (s->wy[to] - s->wy[from]) / (s->w[to] - s->w[from]);
}

int changepoint_fit(const double *y, const double *spread, size_t n, double penalty,
		    struct cp_fit *fit)
{
	memset(fit, 0, sizeof *fit);
	fit->penalty = penalty > 0 ? penalty : changepoint_default_penalty(n);
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(y[i]))
			return -1;

	double *mag = malloc(n * sizeof *mag);
	struct sums s = { calloc(n + 1, sizeof(double)), calloc(n + 1, sizeof(double)),
			  calloc(n + 1, sizeof(double)) };
	double *best = malloc((n + 1) * sizeof *best);
	size_t *start = malloc((n + 1) * sizeof *start);
	fit->level = malloc(n * sizeof *fit->level);
	fit->steps = malloc(n * sizeof *fit->steps);
	int rc = -1;
	if (!mag || !s.w || !s.wy || !s.wyy || !best || !start || !fit->level || !fit->steps)
		goto out;

	for (size_t i = 0; i < n; i++)
		mag[i] = fabs(y[i]);
	double ref = stats_median(y, n);
	double tiny = 1e-6 * stats_median(mag, n);
	if (!(tiny > 0))
		tiny = 1e-12;
	fit->noise = neighbour_noise(y, n);
	for (size_t i = 0; i < n; i++) {
		double sp = spread && spread[i] > 0 ? spread[i] : 0;
		double w = 1.0 / (sp * sp + fit->noise * fit->noise + tiny * tiny);
		double c = y[i] - ref;
		s.w[i + 1] = s.w[i] + w;
		s.wy[i + 1] = s.wy[i] + w * c;
		s.wyy[i + 1] = s.wyy[i] + w * c * c;
	}

	/* best[t]: least cost of nights [0, t); start[t]: where its last segment begins */
	best[0] = -fit->penalty;
	for (size_t t = 1; t <= n; t++) {
		best[t] = INFINITY;
		for (size_t f = 0; f < t; f++) {
			double c = best[f] + fit->penalty + segment_cost(&s, f, t);
			if (c < best[t]) {
				best[t] = c;
				start[t] = f;
			}
		}
	}

	/* Walk the segments back from the end; each start but the first is a
	 * boundary. Walking backwards meets them last first: fill the steps
	 * from the end of the array, then move them to its front. */
	size_t nb = 0;
	for (size_t t = n; t > 0; t = start[t]) {
		double level = ref + segment_mean(&s, start[t], t);
		for (size_t i = start[t]; i < t; i++)
			fit->level[i] = level;
		if (start[t] > 0)
			fit->steps[n - 1 - nb++].at = start[t];
	}
	memmove(fit->steps, fit->steps + (n - nb), nb * sizeof *fit->steps);
	fit->nsteps = nb;
	for (size_t j = 0; j < nb; j++) {
		struct cp_step *st = &fit->steps[j];
		st->before = fit->level[st->at - 1];
		st->after = fit->level[st->at];
		st->change_pct = st->before != 0 ? (st->after - st->before) / st->before * 100.0 : 0;
	}
	rc = 0;
out:
	free(mag);
	free(s.w);
	free(s.wy);
	free(s.wyy);
	free(best);
	free(start);
	if (rc != 0)
		changepoint_free(fit);
	return rc;
}
