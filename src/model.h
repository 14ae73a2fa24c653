/* model.h: the cost model of a GEMM core (issue 25): a configuration's time
 * as a sum of a few terms, each computed from the configuration, its shape
 * and the machine's calibrated ceilings, weighted by coefficients fitted to
 * the stored runs of that machine. Pure (no store, no clock), so tests fit
 * synthetic runs; the store side is model_store.c.
 *
 * The terms, each in milliseconds at coefficient 1 (what the coefficient
 * then means in brackets; model_term_names spells them):
 *   launch    1                                   [fixed ms a launch costs]
 *   compute   the MAC work of the busiest GEMM CTA (its padded tiles, the
 *             waves of the data-parallel and split-K walks, the Stream-K
 *             share) at 1/cus of the dtype's matrix peak [1/efficiency]
 *   memory    A, B and C once (the per-rank GEMM of the family) at the
 *             memory bandwidth [1/efficiency]
 *   reuse     A read once per tile column and B once per tile row, or
 *             once per cluster of tile rows (TMA multicast), at the
 *             memory bandwidth [the share that misses L2]
 *   units     the work units (tiles, K slices, Stream-K segments) of the
 *             busiest CTA, 1 us each [us of prologue/epilogue per unit]
 *   stall     the busiest CTA's BLK_K iterations over the pipeline's
 *             stages, 1 us each [us of load latency the stages must hide]
 *   exchange  split-K / Stream-K partial sums written and read back (fp32
 *             tiles) at the memory bandwidth [1/efficiency]
 *   comm      the bytes the family puts on its busiest link at the link
 *             bandwidth (0 at W=1) [1/efficiency]
 * The coefficients are fitted by non-negative least squares on relative
 * error (each run weighted by 1/its time), so a 5 us kernel counts as much
 * as a 5 ms one. */
#ifndef FGO_MODEL_H
#define FGO_MODEL_H

#include <stddef.h>

#include "config.h"

enum model_term {
	MT_LAUNCH, MT_COMPUTE, MT_MEMORY, MT_REUSE, MT_UNITS, MT_STALL, MT_EXCHANGE, MT_COMM,
	MODEL_TERMS
};
extern const char *const model_term_names[MODEL_TERMS];

/* What a fit is of: the machine's ceilings the terms are computed with. */
struct model_machine {
	double peak_tflops[3]; /* matrix peak per dtype (enum fgo_dtype), TFLOP/s; 0: unknown */
	double mem_gbps;       /* memory bandwidth, GB/s */
	double link_gbps;      /* link bandwidth, GB/s (0: unknown; the comm term is then 0) */
	int cus;               /* compute units (SMs; 1 on the CPU backend) */
};

/* The machine's ceilings with defaults where one is unknown (0): 100
 * TFLOP/s, 1000 GB/s, 1 compute unit; a fit's coefficients absorb the
 * scale, so only their ratios matter. */
void model_machine_fill(struct model_machine *m);

/* The GEMM core a configuration runs on, the unit a fit is kept for:
 * "wgmma", "mma16", "mma32", or "simt" for fp32. */
const char *model_core(const struct fgo_config *cfg);

/* cfg's terms on machine m. 0 when cfg's algorithm is unknown (x zeroed). */
int model_terms(const struct fgo_config *cfg, const struct model_machine *m,
		double x[MODEL_TERMS]);

/* sum of c[i] x[i]: the predicted ms. */
double model_time(const double x[MODEL_TERMS], const double c[MODEL_TERMS]);

struct model_fit {
	double coef[MODEL_TERMS];
	size_t runs;           /* runs fitted */
	double rms_rel_err;    /* sqrt(mean((predicted - measured) / measured)^2)) over them */
	double median_rel_err; /* median |predicted - measured| / measured */
	double max_rel_err;
};

/* Fits coef >= 0 to n runs (x: n x MODEL_TERMS rows of terms, ms: their
 * measured times, > 0) by least squares on relative error. With prior
 * (may be NULL) and prior_weight > 0, the coefficients are pulled toward
 * prior's (a refit on few new runs keeps what the many old ones said);
 * a term that is 0 on every run keeps prior's coefficient (0 without
 * one). FGO_OK, or FGO_EUSAGE when n is 0 or a time is not > 0. */
int model_fit(const double *x, const double *ms, size_t n, const double *prior,
	      double prior_weight, struct model_fit *out);

/* The solver under model_fit, for any k <= MODEL_NNLS_MAX terms (the
 * multi-GPU terms of src/tune/predict_world.h use it too): coef[0..k)
 * >= 0 minimising the relative error of n runs (x: n x k), with prior and
 * prior_weight as model_fit has them. FGO_OK, FGO_EUSAGE as model_fit (or
 * k out of range). */
#define MODEL_NNLS_MAX 16
int model_nnls(const double *x, const double *ms, size_t n, int k, const double *prior,
	       double prior_weight, double *coef);

/* model_nnls with a lower bound per coefficient: coef[j] >= lo[j] (lo may
 * be NULL: 0 for all; a bound is kept only where the term's column is not
 * 0 on every run). For a factor the physics puts at 1 or more (the fused
 * kernel's GEMM side against the same GEMM timed alone). */
int model_nnls_box(const double *x, const double *ms, size_t n, int k, const double *prior,
		   double prior_weight, const double *lo, double *coef);

/* The fit's errors (runs, rms, median, max) of coef on n runs. */
void model_errors(const double *x, const double *ms, size_t n, const double coef[MODEL_TERMS],
		  struct model_fit *out);

#endif
