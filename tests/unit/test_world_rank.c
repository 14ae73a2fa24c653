/* test_world_rank.c: a fused family's configurations ranked at a shape
 * with no runs (src/tune/world_rank.c): synthetic runs made with a known
 * per-rank GEMM model, known multi-GPU coefficients and a known factor
 * per configuration (its GEMM's and its fused time's) are predicted
 * exactly at a held-out shape, in the right order; a configuration
 * measured only far away is not ranked while others were measured near;
 * a tile the shape refuses is left out; the corrections weigh the nearest
 * shapes most, are held within [1/4, 4] and leave the shape itself out.
 * Table of cases, one line each. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "testlib.h"
#include "world_fixture.h"
#include "tune/world_rank.h"

static struct fgo_config cfg_of(long m, int blk_m, int blk_n, int stages)
{
	struct fgo_config c = world_fixture_cfg("all_scatter", m);
	c.blk_m = blk_m;
	c.blk_n = blk_n;
	c.num_stages = stages;
	return c;
}

/* one configuration: its tile, its true factors, the M it ran at */
struct truth {
	int blk_m, blk_n, stages;
	double k_gemm, k_fused;
	long ms[4];
};

/* A synthetic run of cfg: the model's GEMM x k_gemm, world_time around it x k_fused. */
static struct world_run run_of(const struct world_gemm_model *gm, const double *c,
			       struct fgo_config cfg, double k_gemm, double k_fused)
{
	struct world_run r;
	struct world_obs o;
	memset(&r, 0, sizeof r);
	r.cfg = cfg;
	r.gemm_ms = world_gemm_model_ms(gm, &cfg) * k_gemm;
	world_obs_of(&cfg, r.gemm_ms, world_units(&cfg), &o);
	r.ms = world_time(&o, c) * k_fused;
	return r;
}

/* The one candidate's fused time at q over what the model says there
 * (its GEMM uncorrected): the correction k_fused it was given. */
static double ranked_factor(const struct world_run *runs, size_t n, const struct fgo_config *q,
			    const struct world_gemm_model *gm, const double *c)
{
	struct world_cand *cand = NULL;
	size_t nc = 0;
	double k = NAN;
	if (world_rank(runs, n, q, gm, c, NULL, &cand, &nc) == FGO_OK && nc == 1) {
		struct world_run at = run_of(gm, c, cand[0].cfg, 1, 1);
		k = cand[0].fused_ms / at.ms;
	}
	free(cand);
	return k;
}

int main(void)
{
	struct world_gemm_model gm;
	world_fixture_gemm_model(&gm);
	const double c[WORLD_TERMS] = { 1.05, 1 / 150.0, 2.0, 4, 0 };
	static const struct truth tr[] = {
		{ 64, 64, 6, 1.30, 1.02, { 64, 128, 512, 1024 } },
		{ 128, 128, 4, 0.95, 1.08, { 64, 128, 512, 1024 } },
		{ 128, 256, 3, 1.10, 0.97, { 64, 128, 512, 1024 } },
		/* looks fastest, measured only at M = 16384: another regime */
		{ 64, 128, 4, 0.30, 0.50, { 16384, 16384, 16384, 16384 } },
	};
	struct world_run runs[16];
	size_t n = 0;
	for (size_t t = 0; t < 4; t++)
		for (int s = 0; s < 4; s++) {
			struct world_run *r = &runs[n++];
			struct world_obs o;
			r->cfg = cfg_of(tr[t].ms[s], tr[t].blk_m, tr[t].blk_n, tr[t].stages);
			r->gemm_ms = world_gemm_model_ms(&gm, &r->cfg) * tr[t].k_gemm;
			world_obs_of(&r->cfg, r->gemm_ms, world_units(&r->cfg), &o);
			r->ms = world_time(&o, c) * tr[t].k_fused;
		}
	T_CHECK("model-1.1", runs[0].gemm_ms > 0 && runs[0].ms > runs[0].gemm_ms, "gemm %g fused %g",
		runs[0].gemm_ms, runs[0].ms);

	/* held out: M = 256, between the measured shapes */
	struct fgo_config q = cfg_of(256, 16, 16, 4);
	struct world_cand *cand = NULL;
	size_t nc = 0;
	int rc = world_rank(runs, n, &q, &gm, c, NULL, &cand, &nc);
	T_CHECK("rank-1.1", rc == FGO_OK && nc == 3, "rc %d, %zu ranked (the far one left out)", rc, nc);
	double want[3], worst = 0;
	for (size_t t = 0; t < 3; t++) {
		struct fgo_config at = cfg_of(256, tr[t].blk_m, tr[t].blk_n, tr[t].stages);
		struct world_obs o;
		double g = world_gemm_model_ms(&gm, &at) * tr[t].k_gemm;
		world_obs_of(&at, g, world_units(&at), &o);
		want[t] = world_time(&o, c) * tr[t].k_fused;
	}
	for (size_t i = 0; i < nc; i++)
		for (size_t t = 0; t < 3; t++)
			if (cand[i].cfg.blk_m == tr[t].blk_m && cand[i].cfg.blk_n == tr[t].blk_n)
				worst = fmax(worst, fabs(cand[i].fused_ms / want[t] - 1));
	T_CHECK("rank-1.2", nc == 3 && worst < 1e-9, "worst relative error %g", worst);
	int sorted = 1;
	for (size_t i = 1; i < nc; i++)
		sorted &= cand[i].fused_ms >= cand[i - 1].fused_ms;
	T_CHECK("rank-1.3", sorted && cand && cand[0].own && cand[0].cfg.m == 256,
		"sorted %d own %d m %ld", sorted, cand ? cand[0].own : -1, cand ? cand[0].cfg.m : 0);
	free(cand);

	/* near M = 16384 only the far configuration has runs: it is ranked,
	 * and its own factors make it first */
	q = cfg_of(16384 * 2, 16, 16, 4);
	rc = world_rank(runs, n, &q, &gm, c, NULL, &cand, &nc);
	T_CHECK("rank-2.1", rc == FGO_OK && nc == 1 && cand[0].cfg.blk_n == 128 && cand[0].own,
		"rc %d, %zu ranked, first %dx%d", rc, nc, nc ? cand[0].cfg.blk_m : 0,
		nc ? cand[0].cfg.blk_n : 0);
	free(cand);

	/* M = 32: the 128-row tiles are refused by nothing, but N = 32 would
	 * refuse 256-column ones: a shape that refuses a tile drops it */
	q = cfg_of(256, 16, 16, 4);
	q.n = 128;
	rc = world_rank(runs, n, &q, &gm, c, NULL, &cand, &nc);
	int refused = 1;
	for (size_t i = 0; i < nc; i++)
		refused &= cand[i].cfg.blk_n <= 128;
	T_CHECK("rank-3.1", rc == FGO_OK && refused, "rc %d, %zu ranked", rc, nc);
	free(cand);

	/* no runs: nothing ranked, not an error */
	rc = world_rank(runs, 0, &q, &gm, c, NULL, &cand, &nc);
	T_CHECK("rank-4.1", rc == FGO_OK && nc == 0 && cand == NULL, "rc %d, %zu", rc, nc);
	/* rank-5: the corrections weigh the nearest shapes most, weight
	 * 1 / (0.5 + d)^2 with d the log2 distance of the shapes: fused 1.2x
	 * the model at M = 128 (d = 1, weight 1/2.25) and 0.9x at M = 1024
	 * (d = 2, 1/6.25) make 256's exp((ln 1.2 / 2.25 + ln 0.9 / 6.25) /
	 * (1/2.25 + 1/6.25)) = 1.112011 */
	struct world_run few[3];
	few[0] = run_of(&gm, c, cfg_of(128, 64, 64, 6), 1, 1.2);
	few[1] = run_of(&gm, c, cfg_of(1024, 64, 64, 6), 1, 0.9);
	q = cfg_of(256, 16, 16, 4);
	T_NEAR("rank-5.1 nearer shapes weigh more", ranked_factor(few, 2, &q, &gm, c), 1.112011, 1e-6);
	/* rank-6: a correction is held within [1/4, 4]: 6x at both shapes */
	few[0] = run_of(&gm, c, cfg_of(128, 64, 64, 6), 1, 6);
	few[1] = run_of(&gm, c, cfg_of(512, 64, 64, 6), 1, 6);
	T_NEAR("rank-6.1 clamped at 4x", ranked_factor(few, 2, &q, &gm, c), 4, 1e-9);
	few[0] = run_of(&gm, c, cfg_of(128, 64, 64, 6), 1, 0.1);
	few[1] = run_of(&gm, c, cfg_of(512, 64, 64, 6), 1, 0.1);
	T_NEAR("rank-6.2 and at 1/4", ranked_factor(few, 2, &q, &gm, c), 0.25, 1e-9);
	/* rank-7: runs at the shape itself are not its neighbours (3x there,
	 * left out); at the same M and N with twice the K they are (1.5x, d =
	 * 1), beside M = 1024 (1x, d = 2): exp(ln 1.5 / 2.25 / (1/2.25 +
	 * 1/6.25)) = 1.347345 */
	few[0] = run_of(&gm, c, cfg_of(256, 64, 64, 6), 1, 3);
	struct fgo_config twice_k = cfg_of(256, 64, 64, 6);
	twice_k.k *= 2;
	few[1] = run_of(&gm, c, twice_k, 1, 1.5);
	few[2] = run_of(&gm, c, cfg_of(1024, 64, 64, 6), 1, 1);
	T_NEAR("rank-7.1 the shape itself left out, another K kept",
	       ranked_factor(few, 3, &q, &gm, c), 1.347345, 1e-6);
	T_DONE();
}
