/* model_refit.h: the cost model (src/model.h) against a store: a machine's
 * ceilings as calibrate stored them, its stored runs as terms, a fit per
 * GEMM core, kept in model_fits. Used by calibrate (after measuring, and
 * `calibrate --fit`), best --predict and tune --strategy model. */
#ifndef FGO_MODEL_REFIT_H
#define FGO_MODEL_REFIT_H

#include <stddef.h>

#include "model.h"
#include "store/store.h"

/* Runs a core needs before it is fitted (twice the coefficients). */
#define MODEL_MIN_RUNS (2 * MODEL_TERMS)
#define MODEL_CORES 4 /* wgmma, mma16, mma32, simt */

/* The ceilings of machine and backend as the store has them (the newest
 * calibrate's, or `calibrate --link-bw`'s link), and its compute units
 * from its newest sweep's devices text ("(132 SMs)"; 1 when none says),
 * the unknown ones filled (model_machine_fill). FGO_OK or FGO_EFAIL. */
int model_machine_load(struct fgo_store *st, const char *machine, const char *backend,
		       struct model_machine *m, char *err, size_t len);

/* One core's fit. */
struct model_core_fit {
	char core[8];            /* model_core's name */
	int fitted;              /* 0: too few runs (runs says how many) */
	struct model_fit fit;
};

/* The ok runs of machine and backend (the newest run of each configuration;
 * on a GPU backend not those of sweeps with more ranks than devices, whose
 * times mean nothing) as terms, fitted per core; with source != NULL each
 * fit is stored under that source. out gets one entry per core that has
 * runs (*nout of them, at most MODEL_CORES), fitted when it has at least
 * MODEL_MIN_RUNS. FGO_OK (also when nothing was fitted), FGO_EFAIL. */
int model_refit(struct fgo_store *st, const char *machine, const char *backend,
		const char *source, struct model_core_fit out[MODEL_CORES], int *nout,
		char *err, size_t len);

#endif
