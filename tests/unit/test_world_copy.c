/* test_world_copy.c: the Stream-K forms' comm CTAs (src/tune/world_copy.c
 * and their place in the multi-GPU fit): the copy model recovers known
 * coefficients of synthetic comm-only times over shapes, tiles and
 * comm_sms, exactly; with few runs only one CTA's rate is fitted; a family
 * without comm CTAs has no copy time; model_nnls_box holds a coefficient
 * at its lower bound; a fit of runs whose link side is their copy time
 * recovers the factor on it with the GEMM's held >= 1; their wait is one
 * output tile's (it moves with the tile and the per-rank K, not with M),
 * recovered from runs at M >= 1024 and right at M = 128; world_rank ranks
 * configurations stored at another W at q's. Table of cases, one line
 * each. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "model.h"
#include "testlib.h"
#include "world_fixture.h"
#include "tune/predict_world.h"
#include "tune/world_copy.h"
#include "tune/world_rank.h"

static struct fgo_config sk(const char *algo, int w, long m, long n, long k, int bm, int bn,
			    int comm)
{
	struct fgo_config c;
	config_defaults(&c);
	snprintf(c.algorithm, sizeof c.algorithm, "%s", algo);
	c.dtype = FGO_BF16;
	c.mma = FGO_MMA_WGMMA;
	c.world = w;
	c.m = m;
	c.n = n;
	c.k = k;
	c.blk_m = bm;
	c.blk_n = bn;
	c.blk_k = 64;
	c.gemm_sms = 132 - comm;
	c.comm_sms = comm;
	return c;
}

/* the truth: 12 us, a 370 GB/s link, 10 GB/s a CTA, 1.5 us a tile */
static const double truth[WORLD_COPY_TERMS] = { 12, 1 / 370e6, 1 / 10e6, 1.5e-3 };

/* synthetic comm-only times of algo at W over 4 shapes x 3 tiles x 3 comm_sms */
static size_t grid(const char *algo, int w, struct fgo_config *cfg, double *ms)
{
	static const long mm[] = { 128, 1024, 4096, 8192 };
	static const int tile[][2] = { { 64, 128 }, { 128, 128 }, { 128, 256 } }, comm[] = { 4, 8, 16 };
	struct world_copy t = { .fitted = 1 };
	size_t n = 0;
	memcpy(t.coef, truth, sizeof truth);
	for (int s = 0; s < 4; s++)
		for (int b = 0; b < 3; b++)
			for (int c = 0; c < 3; c++) {
				cfg[n] = sk(algo, w, mm[s], 4096, 14336, tile[b][0], tile[b][1], comm[c]);
				ms[n] = world_copy_ms(&t, &cfg[n]);
				n++;
			}
	return n;
}

static void check_copy_model(void)
{
	struct fgo_config cfg[64];
	double ms[64];
	struct world_copy f;
	size_t n = grid("sk_all_scatter", 2, cfg, ms);
	T_CHECK("copy-1.1", ms[0] > 12e-3 && ms[0] < ms[n - 3], "%g ms at M=128 c4, %g at M=8192 c4",
		ms[0], ms[n - 3]);
	/* the time falls as 1 / comm_sms where the CTAs, not the link, decide */
	T_CHECK("copy-1.2", ms[n - 3] > 3 * ms[n - 1], "c4 %g ms, c16 %g ms", ms[n - 3], ms[n - 1]);
	int rc = world_copy_fit(cfg, ms, n, &f);
	T_CHECK("copy-2.1", rc == FGO_OK && f.fitted && f.runs == n && f.rms_rel_err < 1e-6,
		"rc %d fitted %d runs %zu rms %g", rc, f.fitted, f.runs, f.rms_rel_err);
	for (int t = 0; t < WORLD_COPY_TERMS; t++) {
		char id[32];
		snprintf(id, sizeof id, "copy-2.%d", 2 + t);
		T_CHECK(id, fabs(f.coef[t] / truth[t] - 1) < 1e-3, "term %d: %g against %g", t, f.coef[t],
			truth[t]);
	}
	/* a held-out configuration, read back */
	struct fgo_config q = sk("sk_all_scatter", 2, 2048, 4096, 14336, 128, 128, 8);
	struct world_copy t = { .fitted = 1 };
	memcpy(t.coef, truth, sizeof truth);
	T_NEAR("copy-2.6", world_copy_ms(&f, &q), world_copy_ms(&t, &q), 1e-6 * world_copy_ms(&t, &q));
	/* three runs: one CTA's rate alone, the others 0 */
	rc = world_copy_fit(cfg, ms, 3, &f);
	T_CHECK("copy-3.1", rc == FGO_OK && f.fitted && f.coef[WC_CTA] > 0 && f.coef[WC_LAT] == 0 &&
		f.coef[WC_LINK] == 0 && f.coef[WC_TILE] == 0,
		"fitted %d coef %g %g %g %g", f.fitted, f.coef[0], f.coef[1], f.coef[2], f.coef[3]);
	/* none: not fitted, no time */
	rc = world_copy_fit(cfg, ms, 0, &f);
	T_CHECK("copy-3.2", rc == FGO_OK && !f.fitted && world_copy_ms(&f, &q) == 0, "fitted %d",
		f.fitted);
}

/* Issue 33: extrapolating in W. sk_all_reduce's comm CTAs pull a tile
 * from each of the W - 1 peers at once, so a CTA's share is one peer's
 * bytes; from W = 3 on its all-reduce is two-shot (SCHED_SK_TWO_SHOT), a
 * link carrying 2 x M x N / W (area of the peer's tiles and of its own)
 * where one-shot's carried M x N: at W = 4 the egress is 3 x M x N / 2,
 * 1.5x W = 2's, a CTA's share M x N / 2, half of it (one-shot's would be
 * 3x and 1x). sk_all_scatter's push, their share the whole egress (all
 * three columns x 1.5: 3 peers of N/4 against 1 of N/2). */
static void check_peers(void)
{
	struct fgo_config r2 = sk("sk_all_reduce", 2, 4096, 4096, 14336, 128, 128, 16), r4 = r2;
	struct fgo_config s2 = sk("sk_all_scatter", 2, 4096, 4096, 14336, 128, 128, 16), s4 = s2;
	r4.world = s4.world = 4;
	double a[WORLD_COPY_TERMS], b[WORLD_COPY_TERMS];
	T_CHECK("peers-1.1", world_copy_pulls(&r2) && !world_copy_pulls(&s2), "pulls %d %d",
		world_copy_pulls(&r2), world_copy_pulls(&s2));
	world_copy_columns(&r2, a);
	world_copy_columns(&r4, b);
	T_NEAR("peers-1.2", b[WC_LINK] / a[WC_LINK], 1.5, 1e-12);
	T_NEAR("peers-1.3", b[WC_CTA] / a[WC_CTA], 0.5, 1e-12);
	T_NEAR("peers-1.4", b[WC_TILE] / a[WC_TILE], 0.5, 1e-12);
	world_copy_columns(&s2, a);
	world_copy_columns(&s4, b);
	T_NEAR("peers-1.5", b[WC_LINK] / a[WC_LINK], 1.5, 1e-12);
	T_NEAR("peers-1.6", b[WC_CTA] / a[WC_CTA], 1.5, 1e-12);
	T_NEAR("peers-1.7", b[WC_TILE] / a[WC_TILE], 1.5, 1e-12);
	/* a model: 10 GB/s a CTA, a 370 GB/s link */
	struct world_copy m = { .fitted = 1, .coef = { 0, 1 / 370e6, 1 / 10e6, 0 } };
	double e2 = 4096.0 * 4096 * 2, w2 = world_copy_ms(&m, &r2), w4 = world_copy_ms(&m, &r4);
	T_NEAR("peers-2.1", w2, e2 / 370e6 + e2 / 16 / 10e6, 1e-9 * w2);
	T_NEAR("peers-2.2", w4, 1.5 * e2 / 370e6 + 0.5 * e2 / 16 / 10e6, 1e-9 * w4);
	/* not a copy family: no pulling */
	struct fgo_config g = sk("all_reduce_one_shot", 4, 4096, 4096, 14336, 128, 128, 0);
	T_CHECK("peers-3.1", !world_copy_pulls(&g), "all_reduce_one_shot");
}

static void check_families(void)
{
	struct fgo_config c = sk("sk_all_reduce", 2, 1024, 4096, 14336, 128, 128, 8);
	double x[WORLD_COPY_TERMS];
	T_CHECK("family-1.1", world_copy_family(&c) && world_copy_columns(&c, x), "sk_all_reduce");
	/* one-shot at W = 2 sends M x N, two-shot at W = 4 (W - 1) x 2 M N / W: 1.5x */
	struct fgo_config c4 = c;
	c4.world = 4;
	double x4[WORLD_COPY_TERMS];
	world_copy_columns(&c4, x4);
	T_NEAR("family-1.2", x4[WC_LINK] / x[WC_LINK], 1.5, 1e-12);
	struct fgo_config a = sk("all_scatter", 2, 1024, 4096, 14336, 128, 128, 0);
	T_CHECK("family-1.3", !world_copy_family(&a) && !world_copy_columns(&a, x), "all_scatter");
	/* the exposed part of a Stream-K form is a share of the shorter side */
	T_EQ_INT("family-1.4", world_units(&c), 1);
}

static void check_box(void)
{
	/* y = 0.8 x0 + 5 x1: the bound 1 on the first holds it there */
	double x[8 * 2], y[8], c[2], lo[2] = { 1, 0 };
	for (int i = 0; i < 8; i++) {
		x[2 * i] = 1 + i;
		x[2 * i + 1] = 1;
		y[i] = 0.8 * x[2 * i] + 5;
	}
	int rc = model_nnls(x, y, 8, 2, NULL, 0, c);
	T_CHECK("box-1.1", rc == FGO_OK && fabs(c[0] - 0.8) < 1e-6 && fabs(c[1] - 5) < 1e-6, "%g %g",
		c[0], c[1]);
	rc = model_nnls_box(x, y, 8, 2, NULL, 0, lo, c);
	T_CHECK("box-1.2", rc == FGO_OK && c[0] == 1 && c[1] > 0 && c[1] < 5, "%g %g", c[0], c[1]);
}

/* Runs of sk_all_scatter whose link side is their comm-only time: the
 * fit recovers the factor on it, its GEMM factor held at 1 or more */
static void check_fit(void)
{
	struct fgo_config cfg[64];
	double ms[64];
	size_t n = grid("sk_all_scatter", 2, cfg, ms);
	const double c[WORLD_TERMS] = { 1.0, 1.1, 0.2, 6, 0 };
	struct world_obs o[64];
	for (size_t i = 0; i < n; i++) {
		/* the GEMM near the copy at the middle shapes: both sides seen */
		double g = 2e-3 * (double)cfg[i].m / 128 * (1 + 0.1 * (double)(i % 3));
		world_obs_of(&cfg[i], g, world_units(&cfg[i]), &o[i]);
		o[i].comm_ms = o[i].copy_ms = ms[i];
		o[i].ms = world_time(&o[i], c);
	}
	double def[WORLD_TERMS];
	struct world_fit f;
	world_coef_default(370, 3000, def);
	int rc = world_fit(o, n, def, &f);
	T_CHECK("fit-1.1", rc == FGO_OK && f.rms_rel_err < 1e-3, "rc %d rms %g", rc, f.rms_rel_err);
	T_CHECK("fit-1.2", fabs(f.coef[WT_LINK] - 1.1) < 1e-3 && f.coef[WT_GEMM] >= 1,
		"link x%g gemm x%g", f.coef[WT_LINK], f.coef[WT_GEMM]);
	/* the GEMM's factor below 1 in the runs: held at 1 */
	const double fast[WORLD_TERMS] = { 0.8, 1.1, 0.2, 6, 0 };
	for (size_t i = 0; i < n; i++)
		o[i].ms = world_time(&o[i], fast);
	rc = world_fit(o, n, def, &f);
	T_CHECK("fit-1.3", rc == FGO_OK && f.coef[WT_GEMM] == 1, "gemm x%g", f.coef[WT_GEMM]);
}

/* The Stream-K forms' wait is one output tile's MACs (predict_world.h):
 * 1 us for a 128 x 128 x 8192 tile; the same at every M; 1 us for the
 * families without comm CTAs. Fitted to runs at M >= 1024 only, it is
 * right at M = 128, where a fixed wait fitted there was 26 us too much */
static void check_wait(void)
{
	struct world_obs o, big[64];
	struct fgo_config c = sk("sk_all_reduce", 2, 128, 4096, 14336, 128, 256, 16);
	world_obs_of(&c, 0.05, world_units(&c), &o);
	/* sk_all_reduce splits K: 128 x 256 x 7168 = 1.75 of the reference */
	T_NEAR("wait-1.1", world_wait_basis(&o), 1.75e-3, 1e-12);
	c = sk("sk_all_reduce", 2, 1024, 4096, 14336, 64, 128, 16);
	world_obs_of(&c, 0.05, world_units(&c), &o);
	T_NEAR("wait-1.2", world_wait_basis(&o), 0.4375e-3, 1e-12);
	c = sk("sk_all_scatter", 2, 8192, 4096, 14336, 128, 128, 4); /* K whole */
	world_obs_of(&c, 0.05, world_units(&c), &o);
	T_NEAR("wait-1.3", world_wait_basis(&o), 1.75e-3, 1e-12);
	c = sk("all_scatter", 2, 128, 4096, 14336, 128, 256, 0);
	world_obs_of(&c, 0.05, world_units(&c), &o);
	T_CHECK("wait-1.4", o.wait_basis == 0 && world_wait_basis(&o) == 1e-3, "basis %g",
		world_wait_basis(&o));
	/* runs at M >= 1024 (grid's last 27), a wait of 26 us a reference tile,
	 * the partial sums read at 2000 GB/s (no faster than the memory's
	 * 3000: a fit keeps c_reduce at or above the ceiling's) */
	struct fgo_config cfg[64];
	double ms[64];
	size_t n = grid("sk_all_reduce", 2, cfg, ms), k = 0;
	const double truth[WORLD_TERMS] = { 1.0, 1.05, 0.05, 26, 1 / 2000.0 };
	for (size_t i = 0; i < n; i++) {
		if (cfg[i].m < 1024)
			continue;
		double g = 2e-3 * (double)cfg[i].m / 128 * (1 + 0.1 * (double)(i % 3));
		world_obs_of(&cfg[i], g, world_units(&cfg[i]), &big[k]);
		big[k].comm_ms = big[k].copy_ms = ms[i];
		big[k].ms = world_time(&big[k], truth);
		k++;
	}
	double def[WORLD_TERMS];
	struct world_fit f;
	world_coef_default(370, 3000, def);
	int rc = world_fit(big, k, def, &f);
	T_CHECK("wait-1.5", rc == FGO_OK && (f.fitted & (1u << WT_WAIT)) &&
		fabs(f.coef[WT_WAIT] - 26) < 1e-2, "rc %d wait %g us", rc, f.coef[WT_WAIT]);
	/* at M = 128 each tile's wait, exactly: 64 x 128 pays a quarter of 128 x 256 */
	int ok = 1;
	for (size_t i = 0; i < n; i++) {
		if (cfg[i].m != 128)
			continue;
		world_obs_of(&cfg[i], 2e-3, world_units(&cfg[i]), &o);
		o.copy_ms = ms[i];
		ok &= fabs(world_time(&o, f.coef) / world_time(&o, truth) - 1) < 1e-3;
	}
	T_CHECK("wait-1.6", ok, "a tile's wait at M = 128 off");
}

/* Configurations stored at W=2 only, ranked at W=4: each at W=4, its
 * copy time the W=2 model's at W=4's bytes */
static void check_rank_other_world(void)
{
	struct world_gemm_model gm;
	world_fixture_gemm_model(&gm);
	struct fgo_config cfg[64];
	double ms[64];
	size_t n = grid("sk_all_scatter", 2, cfg, ms);
	const double c[WORLD_TERMS] = { 1.0, 1.0, 0.1, 5, 0 };
	struct world_run runs[64];
	for (size_t i = 0; i < n; i++) {
		struct world_obs o;
		runs[i].cfg = cfg[i];
		runs[i].gemm_ms = world_gemm_model_ms(&gm, &cfg[i]);
		runs[i].comm_ms = ms[i];
		world_obs_of(&cfg[i], runs[i].gemm_ms, world_units(&cfg[i]), &o);
		o.copy_ms = ms[i];
		runs[i].ms = world_time(&o, c);
	}
	struct fgo_config q = sk("sk_all_scatter", 4, 4096, 8192, 14336, 16, 16, 1);
	struct world_cand *cand = NULL;
	size_t nc = 0;
	int rc = world_rank(runs, n, &q, &gm, c, NULL, &cand, &nc);
	T_CHECK("other-w-1.1", rc == FGO_OK && nc == 9, "rc %d, %zu ranked", rc, nc);
	int all_w4 = 1, copy_ok = 1;
	struct world_copy t = { .fitted = 1 };
	memcpy(t.coef, truth, sizeof truth);
	for (size_t i = 0; i < nc; i++) {
		all_w4 &= cand[i].cfg.world == 4;
		copy_ok &= fabs(cand[i].copy_ms / world_copy_ms(&t, &cand[i].cfg) - 1) < 1e-3;
	}
	T_CHECK("other-w-1.2", all_w4 && copy_ok, "every candidate at W=4 (%d), copy from the model (%d)",
		all_w4, copy_ok);
	/* the most comm CTAs on the largest tile first: the copy decides */
	T_CHECK("other-w-1.3", nc && cand[0].cfg.comm_sms == 16 && cand[0].cfg.blk_n == 256,
		"first c%d %dx%d", nc ? cand[0].cfg.comm_sms : 0, nc ? cand[0].cfg.blk_m : 0,
		nc ? cand[0].cfg.blk_n : 0);
	free(cand);
}

int main(void)
{
	check_copy_model();
	check_families();
	check_peers();
	check_box();
	check_fit();
	check_wait();
	check_rank_other_world();
	T_DONE();
}
