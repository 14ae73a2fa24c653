/* world_rank.h: the configurations of a fused family ranked at W ranks on
 * a shape with no runs there (issue 33), from the family's stored runs at
 * W on other shapes. Pure, so tests feed it runs; world_refit.c loads
 * them, best --predict --world prints the first.
 *
 * A configuration's time at the new shape is the multi-GPU formula of
 * predict_world.h (the family's fitted coefficients) around its per-rank
 * GEMM, each corrected by what the same configuration measured at the
 * nearest shapes:
 *   g     = the cost model's per-rank GEMM of the configuration (its core's
 *           coefficients, the comm term left out) x k_g
 *   fused = world_time(g, the shape's bytes, the fitted coefficients) x k_f
 * k_g: the weighted geometric mean of t_gemm / the model's GEMM over the
 * configuration's runs at the nearest shapes (the GEMM it ran inside the
 * fused kernel, communication compiled out: what the W=1 model does not
 * know of that kernel); k_f: the same of t_fused / world_time with the
 * run's own t_gemm (what the family's shared coefficients miss of this
 * configuration: its comm CTAs, its chunking). The Stream-K forms' link
 * side is the configuration's comm-only time (world_copy.h): the copy
 * model fitted to the family's runs, corrected (k_copy) by its own
 * comm-only runs near as its GEMM is; a Stream-K form's configuration
 * with comm_sms 0 has no comm CTAs and takes its base family's
 * coefficients, no copy time (world_fit_family). A configuration with no
 * run takes the family's (every configuration's runs at the nearest
 * shapes). The weights fall with the log-shape distance as best
 * --predict's (predict.c), so the corrections are local, and each is held
 * within [1/4, 4]: a correction that large says the run was another
 * regime, not a factor worth carrying. */
#ifndef FGO_WORLD_RANK_H
#define FGO_WORLD_RANK_H

#include <stddef.h>

#include "config.h"
#include "model.h"
#include "tune/predict_world.h"

/* A stored ok run of the family at W on W devices. */
struct world_run {
	struct fgo_config cfg;
	double ms;      /* t_fused */
	double gemm_ms; /* t_gemm: the configuration with its communication compiled out */
	double comm_ms; /* t_comm: its communication alone (0: not measured) */
};

/* The per-rank GEMM model: the machine and each core's coefficients. */
#define WORLD_RANK_CORES 4
struct world_gemm_model {
	struct model_machine machine;
	int ncores;
	char core[WORLD_RANK_CORES][8]; /* model_core's names */
	double coef[WORLD_RANK_CORES][MODEL_TERMS];
};

/* The model's per-rank GEMM ms of cfg (at cfg->world, without the comm
 * term); 0 when its core has no coefficients or its family is unknown. */
double world_gemm_model_ms(const struct world_gemm_model *gm, const struct fgo_config *cfg);

/* One configuration at the new shape. */
struct world_cand {
	struct fgo_config cfg;  /* at the new shape */
	double gemm_ms;         /* g */
	double fused_ms;        /* predicted */
	double k_gemm, k_fused; /* the corrections applied */
	double copy_ms, k_copy; /* the Stream-K forms: the comm-only time (world_copy.h)
				 * and its correction; 0 for the others */
	int own;                /* 1: the corrections are its own runs', 0: the family's */
};

/* Ranks every distinct configuration of runs[0..n) (one family at one W,
 * q's or, extrapolating, another: each is ranked at q's W, its
 * corrections taken from its runs at theirs) at q's shape (q: the
 * family, dtype, W and shape; its tile ignored), the
 * configurations q's shape refuses left out, fastest first into *out
 * (malloc'd, *nout of them; NULL and 0 when none). c: the family's
 * multi-GPU coefficients at W; c_base: those of the family that
 * world_fit_family gives a configuration when not its own (a Stream-K
 * form's comm_sms 0: its base family's), for those runs and candidates
 * (NULL: c). FGO_OK, FGO_EFAIL (out of memory). */
int world_rank(const struct world_run *runs, size_t n, const struct fgo_config *q,
	       const struct world_gemm_model *gm, const double c[WORLD_TERMS],
	       const double c_base[WORLD_TERMS], struct world_cand **out, size_t *nout);

#endif
