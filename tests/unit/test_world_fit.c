/* test_world_fit.c: the multi-GPU terms (src/tune/predict_world.c, second
 * half): a fit recovers known coefficients of synthetic runs made with
 * them (both sides of the max among the runs, a reduction, an exposed
 * tile and share, a fixed wait, the link's latency from comm-only runs of
 * every size), exactly and under noise; the reduction's reads no faster
 * than the memory's ceiling; a term the runs cannot
 * pin keeps the ceilings' coefficient and says so; the coefficients at
 * a W come from the fit at that W, else the nearest one (extrapolated),
 * else the ceilings; bad input is refused. Table of cases, one line each. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "testlib.h"
#include "tune/predict_world.h"

static struct fgo_config fam(const char *algo, int w, long m, long n, long k, int blk)
{
	struct fgo_config c;
	config_defaults(&c);
	snprintf(c.algorithm, sizeof c.algorithm, "%s", algo);
	c.dtype = FGO_BF16;
	c.world = w;
	c.m = m;
	c.n = n;
	c.k = k;
	c.blk_m = c.blk_n = blk;
	c.blk_k = 64;
	return c;
}

/* Synthetic runs of algo at W: shapes from decode to prefill and three
 * tiles; the GEMM at an efficiency that moves with the tile (so it is not
 * a function of the bytes), timed by truth times (1 + noise x u), u
 * uniform in [-1, 1]; comm-only times the true link side (its rate and
 * latency). */
static size_t synthetic(const char *algo, int w, const double truth[WORLD_TERMS], double noise,
			struct world_obs *o, size_t cap)
{
	static const long ms_[] = { 64, 256, 1024, 4096, 16384 }, ns_[] = { 2048, 8192 },
			  ks_[] = { 1024, 8192 };
	static const int tiles[] = { 64, 128, 256 };
	unsigned long long r = 4242;
	size_t n = 0;
	for (size_t a = 0; a < 5; a++)
		for (size_t b = 0; b < 2; b++)
			for (size_t c = 0; c < 2; c++)
				for (size_t t = 0; t < 3 && n < cap; t++) {
					struct fgo_config cfg = fam(algo, w, ms_[a], ns_[b], ks_[c], tiles[t]);
					double flops = 2.0 * cfg.m * cfg.n * cfg.k / w;
					double gemm = flops / (600e12 * (0.5 + 0.2 * (double)t)) * 1e3 + 0.004;
					if (!world_obs_of(&cfg, gemm, world_units(&cfg), &o[n]))
						continue;
					r = r * 6364136223846793005ull + 1442695040888963407ull;
					double u = (double)(r >> 11) / 9007199254740992.0 * 2 - 1;
					o[n].ms = world_time(&o[n], truth) * (1 + noise * u);
					o[n].comm_ms = world_link_ms(&o[n], truth);
					n++;
				}
	return n;
}

/* The largest relative difference of the pinned coefficients from truth. */
static double worst_off(const struct world_fit *f, const double truth[WORLD_TERMS])
{
	double worst = 0;
	for (int t = 0; t < WORLD_TERMS; t++)
		if (f->fitted & (1u << t))
			worst = fmax(worst, fabs(f->coef[t] - truth[t]) / truth[t]);
	return worst;
}

static void check_recovery(void)
{
	enum { CAP = 128 };
	static struct world_obs o[CAP];
	const struct {
		const char *id, *algo;
		int world;
		double truth[WORLD_TERMS];
		unsigned want_fitted; /* the terms the runs must pin */
	} cases[] = {
		/* one-shot all-reduce: every term, the link at 400 GB/s achieved
		 * after 4 us of latency, 25 us of waits, the reduction's reads
		 * at 900 GB/s, a tenth of the shorter side exposed */
		{ "fit-1.1", "all_reduce_one_shot", 4, { 1.15, 1 / 400.0, 0.7, 25, 1 / 900.0, 4, 0.1 },
		  0x7f },
		{ "fit-1.2", "reduce_scatter", 2, { 1.05, 1 / 150.0, 1.3, 8, 1 / 1500.0, 10, 0.3 }, 0x7f },
		/* all_scatter has no reduction: the term keeps the ceilings' */
		{ "fit-1.3", "all_scatter", 2, { 1.02, 1 / 90.0, 1.0, 12, 0, 11, 0.4 }, 0x6f },
		{ "fit-1.4", "all_gather_gemm_push", 8, { 1.2, 1 / 30.0, 2.0, 40, 0, 1, 0.05 }, 0x6f },
	};
	double def[WORLD_TERMS];
	world_coef_default(350, 3000, def);
	for (size_t i = 0; i < FGO_ARRAY_SIZE(cases); i++) {
		char id[32];
		struct world_fit f;
		size_t n = synthetic(cases[i].algo, cases[i].world, cases[i].truth, 0, o, CAP);
		int rc = world_fit(o, n, def, &f);
		size_t gemm_side = 0;
		for (size_t j = 0; j < n; j++)
			gemm_side += cases[i].truth[WT_GEMM] * o[j].gemm_ms >
				     world_link_ms(&o[j], cases[i].truth);
		snprintf(id, sizeof id, "%s-both-sides", cases[i].id);
		T_CHECK(id, gemm_side >= 4 && n - gemm_side >= 4, "%zu of %zu runs GEMM-bound", gemm_side, n);
		snprintf(id, sizeof id, "%s-exact", cases[i].id);
		T_CHECK(id, rc == FGO_OK && f.fitted == cases[i].want_fitted && worst_off(&f, cases[i].truth) < 1e-3 &&
			f.rms_rel_err < 1e-5,
			"%s W=%d: rc %d, fitted 0x%x, off %.2g, rms %.2g: %g %g %g %g %g %g %g",
			cases[i].algo, cases[i].world, rc, f.fitted, worst_off(&f, cases[i].truth),
			f.rms_rel_err, f.coef[0], f.coef[1], f.coef[2], f.coef[3], f.coef[4], f.coef[5],
			f.coef[6]);
		if (!(cases[i].want_fitted & (1u << WT_REDUCE))) {
			snprintf(id, sizeof id, "%s-unpinned-keeps-ceiling", cases[i].id);
			T_CHECK(id, f.coef[WT_REDUCE] == def[WT_REDUCE], "reduce %g, ceilings %g",
				f.coef[WT_REDUCE], def[WT_REDUCE]);
		}
		/* 3% noise: the link's rate within 8% (one-shot's egress and reads
		 * both grow with M x N: only its GEMM-bound runs tell them apart),
		 * the GEMM's factor (pinned by the fewer GEMM-bound runs) within
		 * 10%, the error said */
		n = synthetic(cases[i].algo, cases[i].world, cases[i].truth, 0.03, o, CAP);
		rc = world_fit(o, n, def, &f);
		snprintf(id, sizeof id, "%s-noisy", cases[i].id);
		T_CHECK(id, rc == FGO_OK && fabs(f.coef[WT_LINK] / cases[i].truth[WT_LINK] - 1) < 0.08 &&
			fabs(f.coef[WT_GEMM] / cases[i].truth[WT_GEMM] - 1) < 0.1 &&
			f.rms_rel_err > 0.005 && f.rms_rel_err < 0.03 && f.max_rel_err < 0.06,
			"link %g (truth %g), gemm %g, rms %.3g, max %.3g", f.coef[WT_LINK],
			cases[i].truth[WT_LINK], f.coef[WT_GEMM], f.rms_rel_err, f.max_rel_err);
	}
}

/* Every run GEMM-bound: the link cannot be pinned, keeps the ceiling,
 * and the errors still hold. */
static void check_one_side(void)
{
	struct world_obs o[12];
	double def[WORLD_TERMS], truth[WORLD_TERMS] = { 1.1, 1 / 100.0, 1.0, 5, 0 };
	struct world_fit f;
	world_coef_default(350, 3000, def);
	for (int i = 0; i < 12; i++) {
		struct fgo_config c = fam("all_scatter", 2, 4096, 4096, 4096, 128);
		world_obs_of(&c, 50.0 + 10 * i, 100 + i, &o[i]);
		o[i].ms = world_time(&o[i], truth);
	}
	int rc = world_fit(o, 12, def, &f);
	T_CHECK("side-1.1", rc == FGO_OK && !(f.fitted & (1u << WT_LINK)) && f.coef[WT_LINK] == def[WT_LINK] &&
		(f.fitted & (1u << WT_GEMM)) && fabs(f.coef[WT_GEMM] - 1.1) < 1e-3,
		"fitted 0x%x link %g gemm %g", f.fitted, f.coef[WT_LINK], f.coef[WT_GEMM]);
	/* with comm-only times the link takes their rate, where the fused runs
	 * allow it (each stayed on the GEMM side) */
	for (int i = 0; i < 12; i++)
		o[i].comm_ms = o[i].egress * 1e-6 / 300;
	rc = world_fit(o, 12, def, &f);
	T_CHECK("side-1.3", rc == FGO_OK && (f.fitted & (1u << WT_LINK)) &&
		fabs(f.coef[WT_LINK] * 300 - 1) < 1e-9,
		"fitted 0x%x link %g GB/s", f.fitted, 1 / f.coef[WT_LINK]);
	for (int i = 0; i < 12; i++)
		o[i].comm_ms = 0;
	rc = world_fit(o, 12, def, &f);
	struct world_errors e;
	world_errors_of(o, 12, f.coef, &e);
	T_CHECK("side-1.2", e.runs == 12 && e.rms_rel_err < 1e-3 && e.ratio_lo > 0.99 && e.ratio_hi < 1.01,
		"rms %g ratio %g-%g", e.rms_rel_err, e.ratio_lo, e.ratio_hi);
}

/* The link's latency: comm-only runs from a few KB to 100 MB take 12 us
 * plus their bytes at 330 GB/s (as all_scatter's on two H100s), the
 * fused runs all on the GEMM side, 5% over it: the fit recovers the rate
 * and the latency, not the rate that bytes alone would say (the small
 * runs' 12 us read as bytes: a link 2-20x slower), and the prediction
 * at a link-bound shape prices the link at them. */
static void check_latency(void)
{
	enum { N = 24 };
	struct world_obs o[N];
	double def[WORLD_TERMS], truth[WORLD_TERMS] = { 1.05, 1 / 330.0, 0, 2, 0, 12, 0 };
	struct world_fit f;
	world_coef_default(450, 3000, def);
	size_t n = 0;
	for (long m = 16; m <= 16384 && n < N; m *= 2)
		for (int t = 0; t < 2 && n < N; t++) {
			struct fgo_config c = fam("all_scatter", 2, m, 4096, 14336, 64 << t);
			double flops = 2.0 * c.m * c.n * c.k / 2;
			world_obs_of(&c, flops / 400e12 * 1e3 + 0.030 + 0.01 * t, world_units(&c), &o[n]);
			o[n].ms = world_time(&o[n], truth);
			o[n].comm_ms = world_link_ms(&o[n], truth);
			n++;
		}
	int rc = world_fit(o, n, def, &f);
	T_CHECK("latency-1.1", rc == FGO_OK && (f.fitted & (1u << WT_LATENCY)) &&
		fabs(f.coef[WT_LATENCY] / 12 - 1) < 1e-3 && fabs(f.coef[WT_LINK] * 330 - 1) < 1e-3,
		"fitted 0x%x latency %g us link %g GB/s", f.fitted, f.coef[WT_LATENCY],
		1 / f.coef[WT_LINK]);
	T_CHECK("latency-1.2", f.rms_rel_err < 1e-3 && fabs(f.coef[WT_GEMM] / 1.05 - 1) < 1e-3,
		"rms %g gemm %g", f.rms_rel_err, f.coef[WT_GEMM]);
	/* bytes alone at the median run's rate: far slower than the truth */
	double v[N];
	for (size_t i = 0; i < n; i++)
		v[i] = o[i].comm_ms / world_link_basis(&o[i]);
	double lo = v[0];
	for (size_t i = 1; i < n; i++)
		lo = fmin(lo, v[i]);
	T_CHECK("latency-1.3", lo * 330 > 1.02, "the largest run's bytes alone: %g GB/s", 1 / lo);
	/* a link-bound shape: the link at 330 GB/s after 12 us */
	struct fgo_config big = fam("all_scatter", 2, 16384, 65536, 1024, 128);
	struct world_inputs in = { .gemm_ms = 0.2, .units = world_units(&big), .coef = f.coef };
	struct world_prediction p;
	struct world_obs ob;
	world_obs_of(&big, 0.2, in.units, &ob);
	T_CHECK("latency-1.4", predict_world(&big, &in, &p) &&
		fabs(p.comm_ms - (0.012 + ob.egress * 1e-6 / 330)) < 1e-6 * p.comm_ms,
		"comm %g ms", p.comm_ms);
	/* the text names the latency with the terms fitted at W=2 */
	char text[256];
	struct world_coef r;
	f.world = 2;
	world_coef_at(&f, 1, 2, def, &r);
	world_coef_text(&r, 2, 1u << WT_REDUCE, text, sizeof text);
	T_CONTAINS("latency-1.5", text, "latency");
	T_CONTAINS("latency-1.6", text, "fitted at W=2");
}

/* The coefficients at W from fits at other W, and what the text says. */
static void check_resolve(void)
{
	double def[WORLD_TERMS];
	world_coef_default(350, 3000, def);
	struct world_fit fits[2] = {
		{ .world = 2, .coef = { 1.1, 0.01, 0.9, 10, 0.002 }, .fitted = 0x0f },
		{ .world = 8, .coef = { 1.3, 0.03, 1.5, 30, 0.004 }, .fitted = 0x03 },
	};
	struct world_coef r;
	char text[256];
	world_coef_at(fits, 2, 2, def, &r);
	T_CHECK("resolve-1.1", r.from[WT_GEMM] == 2 && r.c[WT_LINK] == 0.01 && r.from[WT_REDUCE] == 0 &&
		r.c[WT_REDUCE] == def[WT_REDUCE], "gemm from %d link %g reduce from %d",
		r.from[WT_GEMM], r.c[WT_LINK], r.from[WT_REDUCE]);
	world_coef_text(&r, 2, 0, text, sizeof text);
	T_EQ_STR("resolve-1.2", text, "gemm, link, tile, wait fitted at W=2; reduce from the ceilings (not fitted)");
	/* W=4: gemm and link nearer 2 than 8 (a tie goes to the smaller) */
	world_coef_at(fits, 2, 5, def, &r);
	T_CHECK("resolve-1.3", r.from[WT_GEMM] == 2 && r.c[WT_GEMM] == 1.1, "gemm from %d", r.from[WT_GEMM]);
	world_coef_at(fits, 2, 6, def, &r);
	T_CHECK("resolve-1.4", r.from[WT_LINK] == 8 && r.from[WT_TILE] == 2 && r.c[WT_TILE] == 0.9,
		"link from %d tile from %d", r.from[WT_LINK], r.from[WT_TILE]);
	world_coef_text(&r, 6, 1u << WT_REDUCE, text, sizeof text);
	T_EQ_STR("resolve-1.5", text, "tile, wait extrapolated from W=2; gemm, link extrapolated from W=8; no reduce term");
	world_coef_at(fits, 0, 4, def, &r);
	world_coef_text(&r, 4, 0, text, sizeof text);
	T_EQ_STR("resolve-1.6", text, "gemm, link, tile, wait, reduce from the ceilings (not fitted)");
}

/* The fitted formula with the ceilings' coefficients is predict_world's. */
static void check_default_is_predict_world(void)
{
	struct fgo_config c = fam("all_reduce_one_shot", 4, 4096, 8192, 14336, 128);
	struct world_inputs in = { 1.0, 350, 3000, 100, NULL, 0, 0 };
	struct world_prediction p;
	double def[WORLD_TERMS];
	world_coef_default(350, 3000, def);
	predict_world(&c, &in, &p);
	struct world_obs o;
	world_obs_of(&c, 1.0, 100, &o);
	T_NEAR("default-1.1", world_time(&o, def), p.fused_ms, 1e-12);
	/* fitted coefficients and a measured collective replace the ceilings' */
	double fit[WORLD_TERMS] = { 1.2, 1 / 50.0, 1, 20, 1 / 1000.0 };
	in.coef = fit;
	in.collective_ms = 0.5;
	in.link_gbps = 0; /* not needed once the link is fitted */
	T_CHECK("default-1.2", predict_world(&c, &in, &p) && fabs(p.fused_ms - world_time(&o, fit)) < 1e-12 &&
		fabs(p.baseline_ms - 1.5) < 1e-12, "fused %g baseline %g", p.fused_ms, p.baseline_ms);
	/* a link fitted at 0 is known (the runs saw no cost); a ceiling
	 * nobody measured is not */
	fit[WT_LINK] = 0;
	T_CHECK("default-1.3", predict_world(&c, &in, &p) && p.comm_ms == 0, "comm %g", p.comm_ms);
	in.coef = NULL;
	T_CHECK("default-1.4", !predict_world(&c, &in, &p), "a link of unknown rate was accepted");
}

static void check_refusals(void)
{
	struct world_obs o[2];
	struct world_fit f;
	double def[WORLD_TERMS];
	world_coef_default(350, 3000, def);
	struct fgo_config c = fam("all_scatter", 2, 256, 256, 256, 64);
	world_obs_of(&c, 0.1, 4, &o[0]);
	o[1] = o[0];
	o[0].ms = 0.2;
	o[1].ms = 0;
	T_CHECK("refuse-zero-time", world_fit(o, 2, def, &f) == FGO_EUSAGE, "accepted");
	o[1].ms = 0.2;
	o[1].gemm_ms = 0;
	T_CHECK("refuse-no-gemm", world_fit(o, 2, def, &f) == FGO_EUSAGE, "accepted");
	T_CHECK("refuse-empty", world_fit(o, 0, def, &f) == FGO_EUSAGE, "accepted");
	c = fam("gemm", 1, 256, 256, 256, 64);
	T_CHECK("obs-gemm-no-link", world_obs_of(&c, 0.1, 4, &o[0]) == 1 && o[0].egress == 0, "egress %g",
		o[0].egress);
	snprintf(c.algorithm, sizeof c.algorithm, "no_such");
	T_CHECK("obs-unknown", world_obs_of(&c, 0.1, 4, &o[0]) == 0, "accepted");
}

/* The reduction's reads no faster than memory: runs made with reads at
 * 9000 GB/s (faster than the ceiling's 3000) fit c_reduce at the ceiling,
 * pinned, the other terms moving to make up for it; where the memory's
 * rate is unknown (the ceiling 0) nothing bounds it and the truth is
 * recovered; a truth above the bound (900 GB/s) is recovered as it is. */
static void check_reduce_bound(void)
{
	enum { CAP = 128 };
	static struct world_obs o[CAP];
	const double truth[WORLD_TERMS] = { 1.05, 1 / 150.0, 1.3, 8, 1 / 9000.0, 10, 0.3 };
	double def[WORLD_TERMS], slow[WORLD_TERMS];
	struct world_fit f;
	world_coef_default(350, 3000, def);
	size_t n = synthetic("reduce_scatter", 2, truth, 0, o, CAP);
	int rc = world_fit(o, n, def, &f);
	T_CHECK("reduce-bound-1.1", rc == FGO_OK && (f.fitted & (1u << WT_REDUCE)) &&
		fabs(f.coef[WT_REDUCE] * 3000 - 1) < 1e-9 && f.rms_rel_err < 0.05,
		"fitted 0x%x reduce %g GB/s (ceiling 3000), rms %.3g", f.fitted,
		1 / f.coef[WT_REDUCE], f.rms_rel_err);
	world_coef_default(350, 0, def); /* memory rate unknown: no bound */
	rc = world_fit(o, n, def, &f);
	T_CHECK("reduce-bound-1.2", rc == FGO_OK && (f.fitted & (1u << WT_REDUCE)) &&
		fabs(f.coef[WT_REDUCE] * 9000 - 1) < 1e-3 && f.rms_rel_err < 1e-5,
		"fitted 0x%x reduce %g GB/s (truth 9000), rms %.3g", f.fitted,
		1 / f.coef[WT_REDUCE], f.rms_rel_err);
	memcpy(slow, truth, sizeof slow);
	slow[WT_REDUCE] = 1 / 900.0;
	world_coef_default(350, 3000, def);
	n = synthetic("all_reduce_one_shot", 2, slow, 0, o, CAP);
	rc = world_fit(o, n, def, &f);
	T_CHECK("reduce-bound-1.3", rc == FGO_OK && fabs(f.coef[WT_REDUCE] * 900 - 1) < 1e-3,
		"reduce %g GB/s (truth 900)", 1 / f.coef[WT_REDUCE]);
}

/* world_time term by term, on hand numbers (predict_world.h's formula):
 * max(g, l) + c_tile s / units + c_share s' + c_wait wait + c_reduce
 * reduced 1e-6, l = c_link x (egress 1e-6, or a Stream-K form's copy
 * time) + c_latency x 1 us (bytes at a rate only), s = min(g, the link
 * side without its latency), s' = s but 0 for a Stream-K form (its units
 * are 1: the tile term is its share) */
static void check_time_terms(void)
{
	const double c[WORLD_TERMS] = { [WT_GEMM] = 1, [WT_LINK] = 3, [WT_TILE] = 0.5,
					[WT_WAIT] = 0.1, [WT_REDUCE] = 0.5, [WT_LATENCY] = 2,
					[WT_SHARE] = 0.3 };
	struct world_obs o;
	memset(&o, 0, sizeof o);
	o.gemm_ms = 2;
	o.egress = 1e6;   /* 1 ms at c_link 1 */
	o.reduced = 2e6;  /* 2 ms at c_reduce 1 */
	o.units = 4;
	/* l = 3 x 1 + 2 x 0.001 = 3.002; s = 2: 3.002 + 0.5 x 2 / 4 + 0.3 x 2
	 * + 0.1 x 0.001 + 0.5 x 2 = 4.8521 */
	T_NEAR("time-1.1 bytes at a rate", world_time(&o, c), 4.8521, 1e-12);
	T_NEAR("time-1.2 its link side", world_link_ms(&o, c), 3.002, 1e-12);
	/* a Stream-K form: l = 3 x copy 1 = 3 (no latency); s = 2, units 1, no
	 * share, its own wait 0.002: 3 + 0.5 x 2 + 0.1 x 0.002 = 4.0002 */
	o.copy_ms = 1;
	o.units = 1;
	o.reduced = 0;
	o.wait_basis = 0.002;
	T_NEAR("time-1.3 a Stream-K form: no share term", world_time(&o, c), 4.0002, 1e-12);
	T_NEAR("time-1.4 its link side: the copy, no latency", world_link_ms(&o, c), 3, 1e-12);
}

int main(void)
{
	check_recovery();
	check_one_side();
	check_latency();
	check_reduce_bound();
	check_resolve();
	check_default_is_predict_world();
	check_refusals();
	check_time_terms();
	T_DONE();
}
