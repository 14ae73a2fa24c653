/* test_coll_curve.c: the vendor collective's curve (src/tune/coll_curve.c):
 * exact at its points, linear in bytes between them (latency + bytes /
 * rate is read back exactly), below the first point its latency, past the last its
 * rate, each said extrapolated; another W's curve scaled by the bus
 * factor; the sizes calibrate measures; what the notes say; how much
 * faster the links move a collective's bytes at one W than at another
 * (coll_link_scale). */
#include <math.h>
#include <string.h>

#include "fgo.h"
#include "testlib.h"
#include "tune/coll_curve.h"

/* t = 20 us + bytes / 100 GB/s at 8 KiB x 16^i: a latency, then a rate */
static struct coll_curve curve(enum fgo_collective kind, int world)
{
	struct coll_curve c;
	memset(&c, 0, sizeof c);
	c.kind = kind;
	c.world = world;
	for (int i = 0; i < 5; i++) {
		c.bytes[i] = 8192.0 * pow(16, i);
		c.seconds[i] = 20e-6 + c.bytes[i] / 100e9;
	}
	c.n = 5;
	return c;
}

static void check_read(void)
{
	struct coll_curve c = curve(FGO_COLL_ALL_GATHER, 2);
	enum coll_reach reach;
	for (int i = 0; i < c.n; i++) {
		char id[32];
		snprintf(id, sizeof id, "curve-point-%d", i);
		double t = coll_curve_seconds(&c, c.bytes[i], &reach);
		T_CHECK(id, t == c.seconds[i] && reach == COLL_INSIDE, "%g s at %g bytes, reach %d", t,
			c.bytes[i], reach);
	}
	/* between two points: latency + bytes / rate read back exactly (a
	 * log-log chord would be 25% high here) */
	double mid = sqrt(c.bytes[2] * c.bytes[3]);
	T_NEAR("curve-affine-mid", coll_curve_seconds(&c, mid, &reach), 20e-6 + mid / 100e9, 1e-15);
	T_CHECK("curve-mid-inside", reach == COLL_INSIDE, "reach %d", reach);
	double b = 3.3e6;
	T_NEAR("curve-affine-any", coll_curve_seconds(&c, b, NULL), 20e-6 + b / 100e9, 1e-15);
	/* below the first point: its latency, extrapolated */
	T_CHECK("curve-below", coll_curve_seconds(&c, 100, &reach) == c.seconds[0] && reach == COLL_BELOW,
		"reach %d", reach);
	/* past the last: the last segment's rate, extrapolated (here 100 GB/s) */
	double big = 4 * c.bytes[4];
	T_NEAR("curve-above", coll_curve_seconds(&c, big, &reach), c.seconds[4] + (big - c.bytes[4]) / 100e9,
	       1e-12);
	T_CHECK("curve-above-reach", reach == COLL_ABOVE, "reach %d", reach);
	/* a last segment that does not rise: the last point's own rate */
	struct coll_curve flat = c;
	flat.seconds[4] = flat.seconds[3];
	T_NEAR("curve-above-flat", coll_curve_seconds(&flat, 2 * flat.bytes[4], NULL),
	       2 * flat.seconds[4], 1e-12);
	struct coll_curve none;
	memset(&none, 0, sizeof none);
	T_CHECK("curve-empty", isnan(coll_curve_seconds(&none, 1e6, NULL)), "a number");
	T_CHECK("curve-zero-bytes", isnan(coll_curve_seconds(&c, 0, NULL)), "a number");
}

static void check_estimate(void)
{
	struct coll_curve curves[3] = { curve(FGO_COLL_ALL_GATHER, 2), curve(FGO_COLL_ALL_REDUCE, 2),
					curve(FGO_COLL_ALL_REDUCE, 8) };
	curves[2].seconds[2] *= 3; /* W=8 slower */
	struct coll_estimate e;
	char text[256];
	coll_estimate(curves, 3, FGO_COLL_ALL_REDUCE, 8, curves[2].bytes[2], &e);
	T_CHECK("est-own-w", e.found && e.from_world == 8 && e.seconds == curves[2].seconds[2] &&
		e.reach == COLL_INSIDE, "from W=%d %g", e.from_world, e.seconds);
	coll_estimate_text(&e, FGO_COLL_ALL_REDUCE, 8, curves[2].bytes[2], text, sizeof text);
	T_EQ_STR("est-own-w-text", text, "the all_reduce curve at W=8 (2 MiB: interpolated)");
	/* W=4: nearer 2 than 8, scaled by 2 (3/4) / 2 (1/2) */
	coll_estimate(curves, 3, FGO_COLL_ALL_REDUCE, 4, curves[1].bytes[1], &e);
	T_CHECK("est-other-w", e.found && e.from_world == 2 && fabs(e.seconds - curves[1].seconds[1] * 1.5) < 1e-15,
		"from W=%d %g", e.from_world, e.seconds);
	coll_estimate_text(&e, FGO_COLL_ALL_REDUCE, 4, curves[1].bytes[1], text, sizeof text);
	T_EQ_STR("est-other-w-text", text,
		 "the all_reduce curve at W=2, scaled to W=4 (128 KiB: extrapolated: another W)");
	coll_estimate(curves, 3, FGO_COLL_ALL_GATHER, 2, 2 * curves[0].bytes[4], &e);
	coll_estimate_text(&e, FGO_COLL_ALL_GATHER, 2, 2 * curves[0].bytes[4], text, sizeof text);
	T_EQ_STR("est-above-text", text,
		 "the all_gather curve at W=2 (1 GiB: extrapolated, past its largest point, 512 MiB)");
	coll_estimate(curves, 3, FGO_COLL_REDUCE_SCATTER, 2, 1e6, &e);
	T_CHECK("est-none", !e.found, "found a reduce_scatter curve");
	coll_estimate_text(&e, FGO_COLL_REDUCE_SCATTER, 2, 1e6, text, sizeof text);
	T_EQ_STR("est-none-text", text, "no reduce_scatter curve: a ring at the link rate");
	T_NEAR("bus-all-reduce", coll_bus_factor(FGO_COLL_ALL_REDUCE, 4), 1.5, 1e-15);
	T_NEAR("bus-all-gather", coll_bus_factor(FGO_COLL_ALL_GATHER, 8), 0.875, 1e-15);
}

static void check_sizes(void)
{
	size_t s[8];
	int n = coll_curve_sizes((size_t)512 << 20, 16, 5, 64 * 2, s);
	T_CHECK("sizes-gpu", n == 5 && s[0] == 8192 && s[4] == ((size_t)512 << 20) && s[1] == 8192 * 16,
		"%d sizes, %zu .. %zu", n, s[0], s[n - 1]);
	/* W=3: every size a multiple of 64 x 3 */
	n = coll_curve_sizes((size_t)4 << 20, 8, 5, 64 * 3, s);
	int aligned = 1;
	for (int i = 0; i < n; i++)
		aligned &= s[i] % 192 == 0 && (i == 0 || s[i] > s[i - 1]);
	T_CHECK("sizes-aligned", n == 5 && aligned && s[0] == 960, "%d sizes, first %zu", n, s[0]);
	/* sizes under the alignment collapse to it, once */
	n = coll_curve_sizes(1024, 16, 5, 256, s);
	T_CHECK("sizes-collapse", n == 2 && s[0] == 256 && s[1] == 1024, "%d sizes", n);
}

/* A curve fitted to runs' baseline times: latency + bytes / rate
 * recovered, extended below the smallest size seen, said as fitted. */
static void check_fit(void)
{
	double b[12], t[12], lat, gbps, rms;
	struct coll_curve c;
	for (int i = 0; i < 12; i++) {
		b[i] = 65536.0 * (1 << i); /* 64 KiB .. 128 MiB */
		t[i] = 12e-6 + b[i] / 250e9;
	}
	int ok = coll_curve_fit(FGO_COLL_ALL_REDUCE, 2, b, t, 12, &c, &lat, &gbps, &rms);
	T_CHECK("fit-1.1", ok && fabs(lat / 12e-6 - 1) < 1e-6 && fabs(gbps / 250 - 1) < 1e-6 && rms < 1e-9,
		"ok %d latency %g rate %g rms %g", ok, lat, gbps, rms);
	T_CHECK("fit-1.2", c.fitted && c.n == COLL_FIT_POINTS && c.bytes[0] == COLL_FIT_FLOOR &&
		c.bytes[c.n - 1] == b[11] && c.kind == FGO_COLL_ALL_REDUCE && c.world == 2,
		"fitted %d n %d %g .. %g", c.fitted, c.n, c.bytes[0], c.bytes[c.n - 1]);
	/* read back between its points and past them: on the line */
	double at = coll_curve_seconds(&c, 3e6, NULL), line = 12e-6 + 3e6 / 250e9;
	T_CHECK("fit-1.3", fabs(at / line - 1) < 0.02, "%g s against %g", at, line);
	at = coll_curve_seconds(&c, 1e9, NULL);
	line = 12e-6 + 1e9 / 250e9;
	T_CHECK("fit-1.4", fabs(at / line - 1) < 1e-6, "%g s against %g", at, line);
	struct coll_estimate e;
	char text[160];
	coll_estimate(&c, 1, FGO_COLL_ALL_REDUCE, 2, 3e6, &e);
	coll_estimate_text(&e, FGO_COLL_ALL_REDUCE, 2, 3e6, text, sizeof text);
	T_EQ_STR("fit-1.5", text,
		 "the all_reduce curve fitted to the runs' baselines at W=2 (2.9 MiB: interpolated)");
	/* noise of +-10%: still near */
	for (int i = 0; i < 12; i++)
		t[i] *= i % 2 ? 1.1 : 0.9;
	ok = coll_curve_fit(FGO_COLL_ALL_REDUCE, 2, b, t, 12, &c, &lat, &gbps, &rms);
	T_CHECK("fit-2.1", ok && fabs(gbps / 250 - 1) < 0.15 && lat >= 0 && rms < 0.15,
		"ok %d latency %g rate %g rms %g", ok, lat, gbps, rms);
	/* too little to say a rate: two points, or one size */
	T_CHECK("fit-3.1", !coll_curve_fit(FGO_COLL_ALL_GATHER, 2, b, t, 2, &c, NULL, NULL, NULL), "fitted");
	double same[3] = { 1e6, 1e6, 1e6 };
	T_CHECK("fit-3.2", !coll_curve_fit(FGO_COLL_ALL_GATHER, 2, same, t, 3, &c, NULL, NULL, NULL),
		"fitted");
}

/* The bus bandwidth at W=4 over W=2 at the largest size both measured:
 * an all-gather whose W=4 curve runs 1.5x the rate (its bus factor 3/4
 * against 1/2 then says 2.25x); curves of another kind, fitted curves and
 * a missing W say 0. */
static void check_link_scale(void)
{
	struct coll_curve c[4] = { curve(FGO_COLL_ALL_GATHER, 2), curve(FGO_COLL_ALL_GATHER, 4),
				   curve(FGO_COLL_ALL_REDUCE, 4), curve(FGO_COLL_REDUCE_SCATTER, 2) };
	for (int i = 0; i < c[1].n; i++)
		c[1].seconds[i] /= 1.5;
	T_NEAR("link-scale-1", coll_link_scale(c, 4, FGO_COLL_ALL_GATHER, 4, 2), 1.5 * 0.75 / 0.5, 1e-9);
	T_NEAR("link-scale-2", coll_link_scale(c, 4, FGO_COLL_ALL_GATHER, 2, 4), 0.5 / (1.5 * 0.75), 1e-9);
	T_NEAR("link-scale-3", coll_link_scale(c, 4, FGO_COLL_ALL_REDUCE, 4, 2), 0, 0);
	T_NEAR("link-scale-4", coll_link_scale(c, 4, FGO_COLL_REDUCE_SCATTER, 4, 2), 0, 0);
	c[1].fitted = 1;
	T_NEAR("link-scale-5", coll_link_scale(c, 4, FGO_COLL_ALL_GATHER, 4, 2), 0, 0);
	/* the largest size both have: W=4 measured one size fewer */
	c[1].fitted = 0;
	c[1].n = 4;
	T_NEAR("link-scale-6", coll_link_scale(c, 4, FGO_COLL_ALL_GATHER, 4, 2), 1.5 * 0.75 / 0.5, 1e-9);
}

int main(void)
{
	check_fit();
	check_read();
	check_estimate();
	check_sizes();
	check_link_scale();
	T_DONE();
}
