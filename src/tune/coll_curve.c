/* coll_curve.c: the vendor collective's curve, read between and beyond
 * its points (see coll_curve.h). */
#include "tune/coll_curve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "model.h"

double coll_curve_seconds(const struct coll_curve *c, double bytes, enum coll_reach *reach)
{
	enum coll_reach where = COLL_INSIDE;
	double t = NAN;
	if (c->n > 0 && bytes > 0) {
		int last = c->n - 1;
		if (bytes < c->bytes[0]) {
			/* a smaller call is no faster than the smallest timed: its
			 * time is the library's latency */
			where = COLL_BELOW;
			t = c->seconds[0];
		} else if (bytes > c->bytes[last]) {
			where = COLL_ABOVE;
			double rate = c->bytes[last] / c->seconds[last];
			if (last > 0 && c->seconds[last] > c->seconds[last - 1])
				rate = (c->bytes[last] - c->bytes[last - 1]) /
				       (c->seconds[last] - c->seconds[last - 1]);
			t = c->seconds[last] + (bytes - c->bytes[last]) / rate;
		} else {
			int i = 0;
			while (i < last && c->bytes[i + 1] <= bytes)
				i++;
			if (i == last || c->bytes[i] == bytes) {
				t = c->seconds[i];
			} else {
				/* linear in bytes: a collective's time is a latency plus
				 * bytes at a rate, which a straight line between two
				 * points reads back exactly; the log-log chord of calibrate's
				 * points 16x apart overshot it (on four H100s at 8 MiB 53 us
				 * for an all-gather of 42 us) */
				double f = (bytes - c->bytes[i]) / (c->bytes[i + 1] - c->bytes[i]);
				t = c->seconds[i] + f * (c->seconds[i + 1] - c->seconds[i]);
			}
		}
	}
	if (reach)
		*reach = where;
	return t;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

int coll_curve_sizes(size_t max_bytes, size_t step, int n, size_t align, size_t *out)
{
	int count = 0;
	double b = (double)max_bytes;
	if (align < 1)
		align = 1;
	for (int i = 0; i < n; i++, b /= (double)(step > 1 ? step : 2)) {
		size_t s = (size_t)b / align * align;
		if (s < align)
			s = align;
		int dup = 0;
		for (int j = 0; j < count; j++)
			dup |= out[j] == s;
		if (!dup)
			out[count++] = s;
	}
	qsort(out, (size_t)count, sizeof *out, cmp_size);
	return count;
}

double coll_bus_factor(enum fgo_collective kind, int world)
{
	double w = world > 1 ? world : 2;
	return (kind == FGO_COLL_ALL_REDUCE ? 2.0 : 1.0) * (w - 1) / w;
}

void coll_estimate(const struct coll_curve *curves, int n, enum fgo_collective kind, int world,
		   double bytes, struct coll_estimate *out)
{
	const struct coll_curve *best = NULL;
	memset(out, 0, sizeof *out);
	for (int i = 0; i < n; i++) {
		const struct coll_curve *c = &curves[i];
		if (c->kind != kind || c->n < 1)
			continue;
		int d = abs(c->world - world), bd = best ? abs(best->world - world) : 0;
		if (!best || d < bd || (d == bd && c->world < best->world))
			best = c;
	}
	if (!best)
		return;
	out->found = 1;
	out->fitted = best->fitted;
	out->hidden_s = best->hidden_s;
	out->hidden_from = best->hidden_from;
	out->from_world = best->world;
	out->lo = best->bytes[0];
	out->hi = best->bytes[best->n - 1];
	out->seconds = coll_curve_seconds(best, bytes, &out->reach);
	if (best->world != world)
		out->seconds *= coll_bus_factor(kind, world) / coll_bus_factor(kind, best->world);
}

/* bytes as people read them: 512 B, 64 KiB, 3.5 MiB, 1 GiB */
static void bytes_text(double b, char *out, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;
	while (b >= 1024 && u < 4) {
		b /= 1024;
		u++;
	}
	snprintf(out, len, "%.*f %s", b < 10 && b != floor(b) ? 1 : 0, b, unit[u]);
}

static void estimate_text(const struct coll_estimate *e, enum fgo_collective kind, int world,
			  double bytes, char *out, size_t len);

void coll_estimate_text(const struct coll_estimate *e, enum fgo_collective kind, int world,
			double bytes, char *out, size_t len)
{
	estimate_text(e, kind, world, bytes, out, len);
	size_t at = strlen(out);
	if (e->found && e->hidden_s > 0 && at < len)
		snprintf(out + at, len - at, ", less %.1f us the runs' baselines at W=%d hide",
			 e->hidden_s * 1e6, e->hidden_from);
}

static void estimate_text(const struct coll_estimate *e, enum fgo_collective kind, int world,
			  double bytes, char *out, size_t len)
{
	char at[64], edge[32], size[32];
	if (!e->found) {
		snprintf(out, len, "no %s curve: a ring at the link rate", fgo_collective_names[kind]);
		return;
	}
	if (e->from_world == world)
		snprintf(at, sizeof at, "%sat W=%d", e->fitted ? "fitted to the runs' baselines " : "",
			 world);
	else
		snprintf(at, sizeof at, "%sat W=%d, scaled to W=%d",
			 e->fitted ? "fitted to the runs' baselines " : "", e->from_world, world);
	bytes_text(bytes, size, sizeof size);
	if (e->reach == COLL_INSIDE) {
		snprintf(out, len, "the %s curve %s (%s: %s)", fgo_collective_names[kind], at, size,
			 e->from_world == world ? "interpolated" : "extrapolated: another W");
		return;
	}
	bytes_text(e->reach == COLL_BELOW ? e->lo : e->hi, edge, sizeof edge);
	snprintf(out, len, "the %s curve %s (%s: extrapolated, %s its %s point, %s)",
		 fgo_collective_names[kind], at, size, e->reach == COLL_BELOW ? "below" : "past",
		 e->reach == COLL_BELOW ? "smallest" : "largest", edge);
}

int coll_curve_fit(enum fgo_collective kind, int world, const double *bytes,
		   const double *seconds, size_t n, struct coll_curve *out, double *latency_s,
		   double *gbps, double *rms)
{
	double lo = INFINITY, hi = 0, coef[2], sq = 0;
	memset(out, 0, sizeof *out);
	if (n < 3)
		return 0;
	double *x = malloc(sizeof *x * 2 * n);
	if (!x)
		return 0;
	for (size_t i = 0; i < n; i++) {
		x[2 * i] = 1;        /* the latency, s */
		x[2 * i + 1] = bytes[i]; /* s per byte: 1 / the rate */
		lo = fmin(lo, bytes[i]);
		hi = fmax(hi, bytes[i]);
	}
	int ok = hi > lo && model_nnls(x, seconds, n, 2, NULL, 0, coef) == FGO_OK &&
		 coef[0] + coef[1] * hi > 0;
	free(x);
	if (!ok)
		return 0;
	for (size_t i = 0; i < n; i++) {
		double e = (coef[0] + coef[1] * bytes[i]) / seconds[i] - 1;
		sq += e * e;
	}
	out->kind = kind;
	out->world = world;
	out->fitted = 1;
	/* the line holds below the smallest size seen too (its latency is
	 * fitted), where a measured curve's first point would stand */
	lo = fmin(lo, COLL_FIT_FLOOR);
	out->n = COLL_FIT_POINTS;
	for (int p = 0; p < COLL_FIT_POINTS; p++) {
		double b = lo * pow(hi / lo, (double)p / (COLL_FIT_POINTS - 1));
		out->bytes[p] = b;
		out->seconds[p] = coef[0] + coef[1] * b;
	}
	if (latency_s)
		*latency_s = coef[0];
	if (gbps)
		*gbps = coef[1] > 0 ? 1 / coef[1] / 1e9 : 0;
	if (rms)
		*rms = sqrt(sq / (double)n);
	return 1;
}

/* The measured curve of kind at world, or NULL. */
static const struct coll_curve *measured_curve(const struct coll_curve *curves, int n,
					       enum fgo_collective kind, int world)
{
	for (int i = 0; i < n; i++)
		if (curves[i].kind == kind && curves[i].world == world && !curves[i].fitted &&
		    curves[i].n > 0)
			return &curves[i];
	return NULL;
}

double coll_link_scale(const struct coll_curve *curves, int n, enum fgo_collective kind, int world,
		       int from)
{
	const struct coll_curve *at = measured_curve(curves, n, kind, world);
	const struct coll_curve *base = measured_curve(curves, n, kind, from);
	if (!at || !base)
		return 0;
	double bytes = at->bytes[at->n - 1] < base->bytes[base->n - 1] ? at->bytes[at->n - 1]
									: base->bytes[base->n - 1];
	double s_at = coll_curve_seconds(at, bytes, NULL), s_base = coll_curve_seconds(base, bytes, NULL);
	if (!(s_at > 0) || !(s_base > 0))
		return 0;
	return (coll_bus_factor(kind, world) / s_at) / (coll_bus_factor(kind, from) / s_base);
}
