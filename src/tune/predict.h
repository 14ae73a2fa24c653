/* predict.h: `fgobench best --predict`: the configurations most likely to
 * win at a shape nobody measured, ranked from the shapes that were. Pure
 * (no store), so tests feed it synthetic measurements.
 *
 * The model: a configuration's time at a shape is its own quality times
 * the shape's scale times 1 / tile efficiency, the efficiency being the
 * useful share of the padded tiles and, on a device with several compute
 * units, of the last wave of tiles. So its time relative to the best at a
 * measured shape, divided by its efficiency there and multiplied by its
 * efficiency at the query, predicts its relative time at the query. The
 * PREDICT_NEAR measured shapes nearest in (log2 M, log2 N, log2 K) vote,
 * weighted 1 / (0.5 + distance)^2; a configuration measured on less than
 * half of that weight ranks after those measured on more.
 *
 * With a cost model (predict_model: src/model.h's coefficients of each
 * core, fitted to the machine's runs) the ranking is the model's instead:
 * every configuration measured at any shape of the problem is a candidate,
 * its time at the query the model's, times a correction from the nearest
 * measured shapes: the weighted geometric mean of measured / model of the
 * same configuration there, or, where it was not measured near, of every
 * configuration measured at those shapes. */
#ifndef FGO_PREDICT_H
#define FGO_PREDICT_H

#include <stddef.h>

#include "config.h"
#include "model.h"

#define PREDICT_NEAR 4
/* A nearest measured shape farther than this from the query (log2 units
 * of M, N, K: 2 is a factor of 4 in one of them) makes the ranking a
 * guess: best --predict warns so (src/cmd/predict_view.c), and config
 * auto keeps the defaults table's pick there (tune/auto_pick.h). */
#define PREDICT_FAR 2.0

/* One measured configuration at one shape. */
struct predict_obs {
	struct fgo_config cfg; /* algorithm, dtype, world, shape and tunables */
	double ms;             /* median fused time */
};

/* A measured shape as evidence. */
struct predict_shape {
	long m, n, k;
	double distance;       /* from the query, in log2 units */
	double best_ms;        /* the fastest configuration there */
	int configs;           /* configurations measured there */
};

/* Where a candidate was measured: its place among the shape's
 * configurations (1 = fastest) and its time relative to the fastest. */
struct predict_support {
	int shape;             /* index into predict_result.near */
	int place;
	double rel;            /* ms / best_ms there, >= 1 */
};

struct predict_candidate {
	struct fgo_config cfg; /* the tunables at the query's shape */
	double score;          /* predicted time relative to the first candidate (1.0 = it) */
	double coverage;       /* share of the near shapes' weight it was measured on */
	int nsupport;
	struct predict_support support[PREDICT_NEAR];
	/* with a model (else 0): */
	double model_ms;       /* the model's time at the query */
	double correction;     /* measured / model near the query (see above) */
	double predicted_ms;   /* model_ms x correction: what the ranking is by */
};

/* The cost model of the machine the runs are of: the coefficients of each
 * core it has a fit for. */
struct predict_model {
	struct model_machine machine;
	int ncores;
	struct {
		char core[8];  /* model_core's name */
		double coef[MODEL_TERMS];
		double median_err; /* the fit's median relative error (0: not known) */
	} core[4];
};

/* Adds fit, the fit of core (model_core's name), to pm (its coefficients
 * and median error); nothing once pm holds a fit of every core. */
void predict_model_add(struct predict_model *pm, const char *core, const struct model_fit *fit);

/* cfg's model time at its shape, or 0 when pm has no fit of its core. */
double predict_model_ms(const struct predict_model *pm, const struct fgo_config *cfg);

/* The median relative error of the fit of cfg's core (0 when pm has none
 * or it is not known). */
double predict_model_err(const struct predict_model *pm, const struct fgo_config *cfg);

struct predict_result {
	int nshapes;                             /* measured shapes besides the query's */
	int nnear;                               /* of them used: the nearest */
	struct predict_shape near[PREDICT_NEAR]; /* nearest first */
	size_t count;                            /* candidates, best first */
	struct predict_candidate *cand;
};

/* Ranks the configurations of obs whose algorithm, dtype and world are
 * query's, at query's M, N, K, skipping what config_validate refuses
 * there. Observations at the query's own shape are ignored (so a measured
 * shape can be predicted from the others). cus: compute units of the
 * device (SMs; 1 on the CPU backend, whose rank runs its tiles in turn).
 * FGO_OK (count 0 when nothing applies), FGO_EFAIL when memory runs out. */
int predict_rank(const struct predict_obs *obs, size_t n, const struct fgo_config *query,
		 int cus, struct predict_result *out);
/* The same ranked by the model pm (see above); candidates whose core pm
 * has no fit for are left out. */
int predict_rank_model(const struct predict_obs *obs, size_t n, const struct fgo_config *query,
		       const struct predict_model *pm, struct predict_result *out);
void predict_free(struct predict_result *r);

/* Euclidean distance of two shapes in (log2 M, log2 N, log2 K). */
double predict_distance(long m1, long n1, long k1, long m2, long n2, long k2);

/* Useful share of cfg's tiles at its shape (0, 1]: padding of the tiles
 * over the family's per-rank GEMM, and with cus > 1 the idle part of the
 * last wave (not for Stream-K forms, whose work is split evenly). */
double predict_tile_efficiency(const struct fgo_config *cfg, int cus);

#endif
