/* test_model.c: the cost model (src/tune/model.c). Its terms move the way
 * the hardware says (waves, padding, split-K's exchange, stages, the
 * link); a fit recovers known coefficients from synthetic runs made with
 * them, exactly and under noise; the prior holds a refit on few runs; bad
 * input is refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "testlib.h"
#include "model.h"

static struct model_machine h100(void)
{
	struct model_machine m = { { 60, 790, 790 }, 3000, 350, 132 };
	return m;
}

static struct fgo_config gemm(long m, long n, long k, int bm, int bn)
{
	struct fgo_config c;
	config_defaults(&c);
	snprintf(c.algorithm, sizeof c.algorithm, "gemm");
	c.dtype = FGO_BF16;
	c.world = 1;
	c.m = m;
	c.n = n;
	c.k = k;
	c.blk_m = bm;
	c.blk_n = bn;
	c.blk_k = 64;
	c.mma = FGO_MMA_WGMMA;
	c.num_warps = 8;
	c.num_stages = 4;
	return c;
}

static void check_terms(void)
{
	struct model_machine m = h100();
	double a[MODEL_TERMS], b[MODEL_TERMS];
	struct fgo_config c = gemm(4096, 4096, 4096, 128, 128);

	T_CHECK("terms-known", model_terms(&c, &m, a) == 1 && a[MT_LAUNCH] == 1, "launch %g", a[MT_LAUNCH]);
	/* 4096^2 / 128^2 = 1024 tiles over 132 SMs: 8 waves of 64 iterations */
	double want = 8.0 * 64 * 2.0 * 128 * 128 * 64 / (790e12 / 132) * 1e3;
	T_CHECK("terms-compute-waves", fabs(a[MT_COMPUTE] - want) < 1e-9 * want, "compute %g, want %g",
		a[MT_COMPUTE], want);
	T_CHECK("terms-units", fabs(a[MT_UNITS] - 8e-3) < 1e-12, "units %g", a[MT_UNITS]);
	/* one tile more than a whole wave costs a wave */
	c = gemm(128 * 133, 128, 4096, 128, 128);
	model_terms(&c, &m, a);
	c = gemm(128 * 132, 128, 4096, 128, 128);
	model_terms(&c, &m, b);
	T_CHECK("terms-wave-quantised", fabs(a[MT_COMPUTE] - 2 * b[MT_COMPUTE]) < 1e-12,
		"133 tiles %g, 132 tiles %g", a[MT_COMPUTE], b[MT_COMPUTE]);
	/* split-K: 8 tiles x 4 slices still one wave, a quarter of the
	 * iterations, and 3 partial tiles per tile through the exchange */
	c = gemm(128, 512, 8192, 64, 64);
	model_terms(&c, &m, a);
	c.split_k = 4;
	model_terms(&c, &m, b);
	T_CHECK("terms-split-compute", fabs(b[MT_COMPUTE] - a[MT_COMPUTE] / 4) < 1e-12,
		"split %g, whole %g", b[MT_COMPUTE], a[MT_COMPUTE]);
	T_CHECK("terms-split-exchange", a[MT_EXCHANGE] == 0 && b[MT_EXCHANGE] > 0 &&
		fabs(b[MT_EXCHANGE] - 2.0 * 16 * 3 * 64 * 64 * 4 / 3000e9 * 1e3) < 1e-12,
		"exchange %g (none without split: %g)", b[MT_EXCHANGE], a[MT_EXCHANGE]);
	/* a cluster of 2 along M: B's reuse term read once per two tile rows,
	 * A's the same; 3 tile rows in 2 cluster rows (a ghost) over 66
	 * clusters */
	{
		double a[MODEL_TERMS], b[MODEL_TERMS]; /* the checks after use the split's */
		c = gemm(3 * 128, 128 * 64, 4096, 128, 128);
		model_terms(&c, &m, a);
		c.cluster = 2;
		model_terms(&c, &m, b);
		const double elt_ms = 2.0 / 3000e9 * 1e3, a_part = 3.0 * 128 * 4096 * 64 * elt_ms;
		const double b_part = 4096.0 * 128 * 64 * elt_ms;
		T_CHECK("terms-cluster-reuse",
			fabs(a[MT_REUSE] - (a_part + 3 * b_part)) < 1e-12 &&
				fabs(b[MT_REUSE] - (a_part + 2 * b_part)) < 1e-12,
			"reuse %g without cluster (want %g), %g with (want %g)", a[MT_REUSE],
			a_part + 3 * b_part, b[MT_REUSE], a_part + 2 * b_part);
		/* 192 tiles: 2 waves of 132 CTAs; 128 cluster tiles on 66 clusters: 2 waves */
		T_CHECK("terms-cluster-units", fabs(a[MT_UNITS] - 2e-3) < 1e-12 && fabs(b[MT_UNITS] - 2e-3) < 1e-12,
			"units %g without cluster, %g with", a[MT_UNITS], b[MT_UNITS]);
	}
	/* a cluster of 4 holding a tile's 4 K slices: the same waves and
	 * iterations as split-K 4, nothing through memory */
	{
		double l2[MODEL_TERMS], dsm[MODEL_TERMS];
		c = gemm(1, 1024, 14336, 64, 64);
		c.split_k = 4;
		model_terms(&c, &m, l2);
		c.cluster = 4;
		model_terms(&c, &m, dsm);
		T_CHECK("terms-cluster-k", l2[MT_EXCHANGE] > 0 && dsm[MT_EXCHANGE] == 0 &&
			fabs(l2[MT_COMPUTE] - dsm[MT_COMPUTE]) < 1e-12 && fabs(l2[MT_UNITS] - dsm[MT_UNITS]) < 1e-12,
			"exchange %g -> %g, compute %g -> %g, units %g -> %g", l2[MT_EXCHANGE], dsm[MT_EXCHANGE],
			l2[MT_COMPUTE], dsm[MT_COMPUTE], l2[MT_UNITS], dsm[MT_UNITS]);
	}
	/* more stages, less stall; padding costs compute */
	c = gemm(128, 512, 8192, 64, 64);
	c.num_stages = 8;
	model_terms(&c, &m, b);
	T_CHECK("terms-stages", fabs(b[MT_STALL] - a[MT_STALL] / 2) < 1e-12, "8 stages %g, 4 %g",
		b[MT_STALL], a[MT_STALL]);
	struct model_machine one = m; /* one compute unit: every tile is on the busiest's path */
	one.cus = 1;
	c = gemm(64, 512, 8192, 64, 64);
	model_terms(&c, &one, a);
	c.m = 65; /* a second tile row, one row of it used */
	model_terms(&c, &one, b);
	T_CHECK("terms-padding", fabs(b[MT_COMPUTE] - 2 * a[MT_COMPUTE]) < 1e-12, "M=65 %g, M=64 %g",
		b[MT_COMPUTE], a[MT_COMPUTE]);
	/* Stream-K evens the busiest CTA's share: 133 tiles over 132 CTAs */
	c = gemm(128 * 133, 128, 4096, 128, 128);
	c.gemm_sms = 132;
	model_terms(&c, &m, b);
	c.gemm_sms = 0;
	model_terms(&c, &m, a);
	T_CHECK("terms-streamk-less-than-two-waves", b[MT_COMPUTE] < 0.55 * a[MT_COMPUTE] &&
		b[MT_EXCHANGE] > 0, "Stream-K %g, data-parallel %g, exchange %g", b[MT_COMPUTE],
		a[MT_COMPUTE], b[MT_EXCHANGE]);
	/* the link: nothing at W=1, the family's bytes at W=2 */
	c = gemm(4096, 4096, 4096, 128, 128);
	snprintf(c.algorithm, sizeof c.algorithm, "all_scatter");
	model_terms(&c, &m, a);
	c.world = 2;
	model_terms(&c, &m, b);
	T_CHECK("terms-comm", a[MT_COMM] == 0 && b[MT_COMM] > 0, "W=1 %g, W=2 %g", a[MT_COMM], b[MT_COMM]);
	snprintf(c.algorithm, sizeof c.algorithm, "no_such_family");
	T_CHECK("terms-unknown", model_terms(&c, &m, a) == 0 && a[MT_LAUNCH] == 0, "launch %g", a[MT_LAUNCH]);
	T_EQ_STR("core-wgmma", model_core(&c), "wgmma");
	c.dtype = FGO_FP32;
	T_EQ_STR("core-simt", model_core(&c), "simt");
	c.dtype = FGO_FP16;
	c.mma = 16;
	T_EQ_STR("core-mma16", model_core(&c), "mma16");
}

/* Synthetic runs: a spread of shapes, tiles, stages, splits, walks and
 * families, timed by known coefficients (times (1 + noise x u), u uniform
 * in [-1, 1]). Returns the count. */
static size_t synthetic(const double coef[MODEL_TERMS], double noise, double *x, double *ms,
			size_t cap)
{
	static const long ms_[] = { 1, 64, 512, 4096 }, ns_[] = { 512, 4096 }, ks_[] = { 4096, 14336 };
	static const int tiles[][2] = { { 64, 64 }, { 128, 128 }, { 128, 256 } };
	struct model_machine m = h100();
	size_t n = 0;
	unsigned long long r = 12345;
	for (size_t a = 0; a < 4; a++)
		for (size_t b = 0; b < 2; b++)
			for (size_t c = 0; c < 2; c++)
				for (size_t t = 0; t < 3; t++)
					for (int split = 1; split <= 8; split *= 2)
						for (int st = 2; st <= 6; st += 4)
							for (int w = 1; w <= 2 && n < cap; w++) {
								struct fgo_config cfg = gemm(ms_[a], ns_[b], ks_[c], tiles[t][0], tiles[t][1]);
								cfg.split_k = split;
								cfg.num_stages = st;
								if (w == 2) {
									snprintf(cfg.algorithm, sizeof cfg.algorithm, "all_reduce_one_shot");
									cfg.world = 2;
									cfg.split_k = 1;
									cfg.gemm_sms = split > 1 ? 66 * split / 4 : 0;
								}
								double *row = x + n * MODEL_TERMS;
								model_terms(&cfg, &m, row);
								r = r * 6364136223846793005ull + 1442695040888963407ull;
								double u = (double)(r >> 11) / 9007199254740992.0 * 2 - 1;
								ms[n] = model_time(row, coef) * (1 + noise * u);
								n++;
							}
	return n;
}

static void check_fit(void)
{
	enum { CAP = 1024 };
	static double x[CAP * MODEL_TERMS], ms[CAP];
	const double truth[MODEL_TERMS] = { 0.004, 1.3, 1.1, 0.08, 1.5, 0.6, 1.2, 1.4 };
	struct model_fit f;
	size_t n = synthetic(truth, 0, x, ms, CAP);
	T_CHECK("fit-runs", n >= 300, "%zu synthetic runs", n);
	int rc = model_fit(x, ms, n, NULL, 0, &f);
	double worst = 0;
	for (int j = 0; j < MODEL_TERMS; j++)
		worst = fmax(worst, fabs(f.coef[j] - truth[j]) / truth[j]);
	T_CHECK("fit-recovers-exact", rc == FGO_OK && worst < 1e-3 && f.rms_rel_err < 1e-4,
		"rc %d, worst coefficient off by %.2g, rms %.2g", rc, worst, f.rms_rel_err);

	/* 5% noise: predictions within a few percent, errors reported */
	n = synthetic(truth, 0.05, x, ms, CAP);
	rc = model_fit(x, ms, n, NULL, 0, &f);
	T_CHECK("fit-noisy", rc == FGO_OK && f.rms_rel_err < 0.04 && f.rms_rel_err > 0.01 &&
		f.max_rel_err < 0.08 && f.median_rel_err < f.rms_rel_err * 1.3,
		"rc %d, rms %.3g, median %.3g, max %.3g", rc, f.rms_rel_err, f.median_rel_err,
		f.max_rel_err);

	/* wrong coefficients fit worse than the truth (the errors are real) */
	struct model_fit e;
	double off[MODEL_TERMS];
	memcpy(off, truth, sizeof off);
	off[MT_COMPUTE] *= 1.5;
	model_errors(x, ms, n, off, &e);
	T_CHECK("fit-errors-measure", e.rms_rel_err > 2 * f.rms_rel_err, "off %.3g, fitted %.3g",
		e.rms_rel_err, f.rms_rel_err);

	/* a refit on 3 runs with the prior stays near the prior; without it,
	 * 3 runs cannot pin 8 coefficients */
	struct model_fit p;
	rc = model_fit(x, ms, 3, truth, 1.0, &p);
	worst = 0;
	for (int j = 0; j < MODEL_TERMS; j++)
		worst = fmax(worst, fabs(p.coef[j] - truth[j]) / truth[j]);
	T_CHECK("fit-prior-holds", rc == FGO_OK && worst < 0.2, "worst coefficient off by %.2g: %g %g %g %g %g %g %g %g", worst,
		p.coef[0], p.coef[1], p.coef[2], p.coef[3], p.coef[4], p.coef[5], p.coef[6], p.coef[7]);

	/* non-negative: times that fall with a term do not make it negative */
	double xs[4 * MODEL_TERMS] = { 0 }, ys[4];
	for (int i = 0; i < 4; i++) {
		xs[i * MODEL_TERMS + MT_LAUNCH] = 1;
		xs[i * MODEL_TERMS + MT_COMPUTE] = i + 1;
		ys[i] = 10.0 - i;
	}
	rc = model_fit(xs, ys, 4, NULL, 0, &p);
	T_CHECK("fit-non-negative", rc == FGO_OK && p.coef[MT_COMPUTE] == 0 && p.coef[MT_LAUNCH] > 0,
		"compute %g launch %g", p.coef[MT_COMPUTE], p.coef[MT_LAUNCH]);

	ms[0] = 0;
	T_CHECK("fit-refuses-zero-time", model_fit(x, ms, n, NULL, 0, &p) == FGO_EUSAGE, "accepted");
	T_CHECK("fit-refuses-empty", model_fit(x, ms, 0, NULL, 0, &p) == FGO_EUSAGE, "accepted");
}

int main(void)
{
	check_terms();
	check_fit();
	T_DONE();
}
