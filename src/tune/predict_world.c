/* predict_world.c: a fused family at W ranks from one GPU's measurements
 * (see predict_world.h for the model). */
#include "tune/predict_world.h"

#include <string.h>

#include "algo.h"

int predict_world_gemm_shape(const struct fgo_config *cfg, long *m, long *n, long *k)
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	struct fgo_gemm_dims d;
	if (!algo)
		return 0;
	algo_gemm_dims(algo, cfg, &d);
	*m = (long)d.blocks * d.m;
	*n = d.n;
	*k = d.k;
	return 1;
}

/* Elements a rank adds up (W partials each) after the exchange. */
static double reduced_elements(const struct fgo_config *cfg)
{
	double mn = (double)cfg->m * (double)cfg->n;
	if (!strcmp(cfg->algorithm, "all_reduce_one_shot") || !strcmp(cfg->algorithm, "sk_all_reduce"))
		return cfg->world * mn;
	if (!strcmp(cfg->algorithm, "all_reduce_two_shot") || !strcmp(cfg->algorithm, "reduce_scatter"))
		return mn; /* W partials of M x N / W */
	return 0;
}

/* The baseline collective's egress per rank (a ring at W ranks). */
static double collective_bytes(const struct fgo_config *cfg)
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	double w = cfg->world, elt = (double)dtype_size(cfg->dtype);
	double c = (double)cfg->m * (double)cfg->n * elt, a = (double)cfg->m * (double)cfg->k * elt;
	switch (algo ? algo->space : FGO_SPACE_B_COLS) {
	case FGO_SPACE_K: return 2 * (w - 1) / w * c;   /* all-reduce of C */
	case FGO_SPACE_K_ROWS: return (w - 1) / w * c;  /* reduce-scatter of C */
	case FGO_SPACE_A_ROWS: return (w - 1) / w * a;  /* all-gather of A, before */
	default: return (w - 1) / w * c;                /* all-gather of C */
	}
}

int predict_world(const struct fgo_config *cfg, const struct world_inputs *in,
		  struct world_prediction *out)
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	memset(out, 0, sizeof *out);
	if (!algo || !algo->link_bytes || !(in->gemm_ms > 0) || !(in->link_gbps > 0) ||
	    !(in->mem_gbps > 0) || cfg->world < 1)
		return 0;
	double to_ms = 1e3 / (in->link_gbps * 1e9);
	long units = in->units > 0 ? in->units : 1;
	out->comm_bytes = (cfg->world - 1) * algo->link_bytes(cfg);
	out->comm_ms = out->comm_bytes * to_ms;
	out->reduce_ms = reduced_elements(cfg) * (double)dtype_size(cfg->dtype) * 1e3 /
			 (in->mem_gbps * 1e9);
	double lo = in->gemm_ms < out->comm_ms ? in->gemm_ms : out->comm_ms;
	double hi = in->gemm_ms < out->comm_ms ? out->comm_ms : in->gemm_ms;
	out->fused_ms = hi + lo / (double)units + out->reduce_ms;
	out->collective_bytes = cfg->world > 1 ? collective_bytes(cfg) : 0;
	out->collective_ms = out->collective_bytes * to_ms;
	out->baseline_ms = in->gemm_ms + out->collective_ms;
	out->speedup = out->baseline_ms / out->fused_ms;
	return 1;
}
