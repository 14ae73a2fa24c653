/* model.c: the cost model's terms and its fit (see model.h). */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "fgo.h"
#include "schedule.h"

const char *const model_term_names[MODEL_TERMS] = {
	"launch", "compute", "memory", "reuse", "units", "stall", "exchange", "comm",
};

void model_machine_fill(struct model_machine *m)
{
	for (int t = 0; t < 3; t++)
		if (!(m->peak_tflops[t] > 0))
			m->peak_tflops[t] = 100;
	if (!(m->mem_gbps > 0))
		m->mem_gbps = 1000;
	if (!(m->link_gbps > 0))
		m->link_gbps = 0;
	if (m->cus < 1)
		m->cus = 1;
}

const char *model_core(const struct fgo_config *cfg)
{
	if (cfg->dtype == FGO_FP32)
		return "simt";
	if (cfg->mma == FGO_MMA_WGMMA)
		return "wgmma";
	return cfg->mma == FGO_MMA_K32 ? "mma32" : "mma16";
}

/* What the busiest GEMM CTA does. */
struct busiest {
	double iters;  /* BLK_K iterations */
	double units;  /* tiles, slices or segments */
	double handed; /* partial tiles handed over through the exchange, all CTAs */
};

/* The Stream-K walk (gemm_sms > 0, no split; the hybrid, in the sk_*
 * families too): every CTA's segments, as the kernels and the CPU walk
 * them (kernels/schedule.h, as src/algos/kit.c's kit_walk_of makes it). */
static int walk_streamk(const struct fgo_config *cfg)
{
	return cfg->gemm_sms > 0 && cfg->split_k <= 1;
}

static void busiest_streamk(const struct fgo_config *cfg, long tiles, long k_iters,
			    struct busiest *b)
{
	struct sched_walk w = sched_walk_make(tiles, k_iters, cfg->gemm_sms, 1, 1, 0);
	for (int c = 0; c < w.ctas; c++) {
		struct sched_seg s;
		double iters = 0, units = 0;
		for (int more = sched_walk_first(&w, c, &s); more; more = sched_walk_next(&w, c, &s)) {
			iters += (double)(s.k1 - s.k0);
			units++;
			b->handed += s.role == SCHED_HAND_OVER;
		}
		if (iters > b->iters)
			b->iters = iters;
		if (units > b->units)
			b->units = units;
	}
}

int model_terms(const struct fgo_config *cfg, const struct model_machine *m,
		double x[MODEL_TERMS])
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	struct fgo_gemm_dims d;
	memset(x, 0, sizeof(double) * MODEL_TERMS);
	if (!algo || cfg->blk_m < 1 || cfg->blk_n < 1 || cfg->blk_k < 1)
		return 0;
	algo_gemm_dims(algo, cfg, &d);
	const struct sched_grid g = sched_grid_make(d.m, d.n, d.k, cfg->blk_m, cfg->blk_n, cfg->blk_k);
	const long tiles = (long)d.blocks * g.tiles;
	const int cus = m->cus > 0 ? m->cus : 1;
	const double elt = (double)dtype_size(cfg->dtype);
	const double tile_fp32 = (double)cfg->blk_m * cfg->blk_n * 4.0;
	struct busiest b = { 0, 0, 0 };
	const int cl = cfg->cluster > 1 ? cfg->cluster : 1;

	if (walk_streamk(cfg)) {
		busiest_streamk(cfg, tiles, g.k_iters, &b);
	} else {
		/* clusters walk cluster tiles (kernels/schedule.h), C tile rows
		 * each, ghosts included, over the whole clusters the SMs hold */
		int split = cfg->split_k > 1 ? cfg->split_k : 1;
		const int k_cluster = config_cluster_k(cfg); /* a cluster holds a tile's slices */
		double units = k_cluster ? (double)tiles
					 : (double)d.blocks * ceil((double)g.tiles_m / cl) * g.tiles_n * split;
		double waves = ceil(units / (cus / cl > 0 ? cus / cl : 1));
		b.iters = waves * ceil((double)g.k_iters / split);
		b.units = waves;
		/* summed on chip: nothing through memory */
		b.handed = k_cluster ? 0 : (double)tiles * (split - 1);
	}
	double peak = m->peak_tflops[cfg->dtype >= 0 && cfg->dtype < 3 ? cfg->dtype : 0];
	double flops_per_iter = 2.0 * cfg->blk_m * cfg->blk_n * cfg->blk_k;
	double to_ms_mem = 1e3 / ((m->mem_gbps > 0 ? m->mem_gbps : 1000) * 1e9);
	double a_elems = (double)d.blocks * d.m * d.k, b_elems = (double)d.k * d.n,
	       c_elems = (double)d.blocks * d.m * d.n;

	x[MT_LAUNCH] = 1;
	x[MT_COMPUTE] = b.iters * flops_per_iter / ((peak > 0 ? peak : 100) * 1e12 / cus) * 1e3;
	x[MT_MEMORY] = (a_elems + b_elems + c_elems) * elt * to_ms_mem;
	/* a cluster's CTAs load each B panel once for all of them (multicast) */
	x[MT_REUSE] = (a_elems * g.tiles_n + b_elems * ceil((double)g.tiles_m / cl) * d.blocks) * elt *
		      to_ms_mem;
	x[MT_UNITS] = b.units * 1e-3;
	x[MT_STALL] = b.iters / (cfg->num_stages > 0 ? cfg->num_stages : 1) * 1e-3;
	x[MT_EXCHANGE] = 2.0 * b.handed * tile_fp32 * to_ms_mem;
	if (algo->link_bytes && m->link_gbps > 0 && cfg->world > 1)
		x[MT_COMM] = algo->link_bytes(cfg) * 1e3 / (m->link_gbps * 1e9);
	return 1;
}

double model_time(const double x[MODEL_TERMS], const double c[MODEL_TERMS])
{
	double t = 0;
	for (int i = 0; i < MODEL_TERMS; i++)
		t += c[i] * x[i];
	return t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void model_errors(const double *x, const double *ms, size_t n, const double coef[MODEL_TERMS],
		  struct model_fit *out)
{
	double *rel = malloc(sizeof *rel * (n ? n : 1)), sq = 0;
	out->runs = n;
	out->rms_rel_err = out->median_rel_err = out->max_rel_err = 0;
	if (!rel || n == 0) {
		free(rel);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		double e = (model_time(x + i * MODEL_TERMS, coef) - ms[i]) / ms[i];
		sq += e * e;
		rel[i] = fabs(e);
		if (rel[i] > out->max_rel_err)
			out->max_rel_err = rel[i];
	}
	qsort(rel, n, sizeof *rel, cmp_double);
	out->rms_rel_err = sqrt(sq / (double)n);
	out->median_rel_err = n % 2 ? rel[n / 2] : 0.5 * (rel[n / 2 - 1] + rel[n / 2]);
	free(rel);
}

int model_nnls(const double *x, const double *ms, size_t n, int k, const double *prior,
	       double prior_weight, double *coef)
{
	return model_nnls_box(x, ms, n, k, prior, prior_weight, NULL, coef);
}

int model_nnls_box(const double *x, const double *ms, size_t n, int k, const double *prior,
		   double prior_weight, const double *lo, double *coef)
{
	double A[MODEL_NNLS_MAX][MODEL_NNLS_MAX] = { { 0 } }, rhs[MODEL_NNLS_MAX] = { 0 };
	double scale[MODEL_NNLS_MAX] = { 0 }, c[MODEL_NNLS_MAX] = { 0 };
	if (n == 0 || k < 1 || k > MODEL_NNLS_MAX)
		return FGO_EUSAGE;
	for (size_t i = 0; i < n; i++)
		if (!(ms[i] > 0) || !isfinite(ms[i]))
			return FGO_EUSAGE;
	/* columns scaled to unit root-mean-square relative size, so every
	 * coefficient is of order 1 and one tolerance suits them all */
	for (size_t i = 0; i < n; i++)
		for (int j = 0; j < k; j++) {
			double v = x[i * (size_t)k + j] / ms[i];
			scale[j] += v * v;
		}
	for (int j = 0; j < k; j++)
		scale[j] = scale[j] > 0 ? sqrt(scale[j] / (double)n) : 0;
	/* normal equations of sum_i ((x_i . c - y_i) / y_i)^2 in scaled terms */
	for (size_t i = 0; i < n; i++) {
		double z[MODEL_NNLS_MAX];
		for (int j = 0; j < k; j++)
			z[j] = scale[j] > 0 ? x[i * (size_t)k + j] / ms[i] / scale[j] : 0;
		for (int j = 0; j < k; j++) {
			rhs[j] += z[j];
			for (int l = 0; l < k; l++)
				A[j][l] += z[j] * z[l];
		}
	}
	/* the prior: lambda ((c_j - p_j) / p_j)^2 per term, lambda =
	 * prior_weight x n, so a coefficient 10% off the prior costs as much
	 * as every run 10% off its time at weight 1, whatever the term's size
	 * (a prior of 0 is held absolutely) */
	double lambda = prior && prior_weight > 0 ? prior_weight * (double)n : 0;
	for (int j = 0; j < k; j++) {
		double p = prior ? prior[j] * scale[j] : 0;
		if (scale[j] == 0)
			continue;
		double w = p > 0 ? lambda / (p * p) : lambda;
		A[j][j] += w;
		rhs[j] += w * p;
		c[j] = prior ? p : 0;
	}
	/* the lower bounds in scaled terms (a start below one is raised) */
	double floor_[MODEL_NNLS_MAX] = { 0 };
	for (int j = 0; j < k; j++) {
		floor_[j] = lo && lo[j] > 0 ? lo[j] * scale[j] : 0;
		c[j] = fmax(c[j], floor_[j]);
	}
	/* non-negative least squares by projected coordinate descent: a convex
	 * quadratic over a box converges coordinate by coordinate */
	for (int sweep = 0; sweep < 5000; sweep++) {
		double moved = 0;
		for (int j = 0; j < k; j++) {
			if (A[j][j] <= 0)
				continue;
			double grad = -rhs[j];
			for (int l = 0; l < k; l++)
				grad += A[j][l] * c[l];
			double next = c[j] - grad / A[j][j];
			if (next < floor_[j])
				next = floor_[j];
			moved = fmax(moved, fabs(next - c[j]));
			c[j] = next;
		}
		if (moved < 1e-12)
			break;
	}
	for (int j = 0; j < k; j++)
		coef[j] = scale[j] > 0 ? c[j] / scale[j] : prior ? prior[j] : 0;
	return FGO_OK;
}

int model_fit(const double *x, const double *ms, size_t n, const double *prior,
	      double prior_weight, struct model_fit *out)
{
	memset(out, 0, sizeof *out);
	int rc = model_nnls(x, ms, n, MODEL_TERMS, prior, prior_weight, out->coef);
	if (rc != FGO_OK)
		return rc;
	model_errors(x, ms, n, out->coef, out);
	return FGO_OK;
}
