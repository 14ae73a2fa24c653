/* predict_view.h: `fgobench best --predict`: reads the measured shapes
 * from the store, ranks with predict.h and prints the candidates with the
 * shapes that support them, saying that it is a prediction. */
#ifndef FGO_PREDICT_VIEW_H
#define FGO_PREDICT_VIEW_H

#include "views/table.h"

struct predict_view_opts {
	const char *db;         /* store option (NULL: $FGOBENCH_DB or ./fgobench.db) */
	const char *algorithm;  /* required */
	const char *dtype;      /* NULL: the only one the store has for algorithm */
	const char *tag;        /* NULL: every sweep; else only runs of sweeps tagged so */
	long m, n, k;           /* the shape to predict (required) */
	int world;              /* 0: the only one the store has */
	int top;                /* candidates to print */
	int cus;                /* compute units; 0: from the stored devices, else 1 */
	enum fgo_format format;
	int wide;               /* the table with every column (else it fits 120) */
	int no_model;           /* rank from the near shapes' measurements alone */
};

/* Returns the exit status: 0, FGO_EUSAGE when there is nothing to predict
 * from or the problem is ambiguous (message printed), FGO_EFAIL. */
int predict_view(const struct predict_view_opts *o);

/* best --predict --world W (W > 1; predict_world_view.c): every fused
 * family (or o->algorithm) at W ranks and o's shape (src/tune/
 * predict_world.h): the per-rank GEMMs measured at W=1 (or the cost
 * model's best), the family's multi-GPU terms as fitted at W (or the
 * nearest W, or the stored link_bw and memory_bw), the baseline's
 * collective from calibrate's curve (or a ring at the link); printed with
 * its inputs, where each term came from and the model's error on the
 * stored runs at W, stored in world_predictions, beside the best measured
 * run at W where the store has one (not of ranks sharing a GPU). Exit
 * status as predict_view. */
int predict_world_view(const struct predict_view_opts *o);

/* The cost model's best predicted ms of gemm at W=1 at m x n x k of
 * dtype (the store's newest gemm runs' machine), *units its tile's output
 * tiles; 0 when there is no model to say (predict_view.c). */
struct fgo_store;
double predict_gemm_model_ms(struct fgo_store *store, const char *dtype, long m, long n, long k,
			     long *units);

/* Whether the store has ok runs of o's algorithm (dtype, world when given). */
int predict_has_runs(const struct predict_view_opts *o);

#endif
