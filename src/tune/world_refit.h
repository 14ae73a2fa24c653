/* world_refit.h: the multi-GPU terms (predict_world.h) against a store:
 * a machine's ok runs of each fused family at W > 1 on W devices, fitted
 * per family and W and kept in world_fits (calibrate, `calibrate --fit`);
 * and for best --predict --world, a family's fits resolved at a W with
 * where each term came from, the model's error on the stored runs at that
 * W, and calibrate's collective curves. Runs of ranks sharing a GPU are
 * left out (their times mean nothing, as model_refit.c has it); on the
 * CPU backend every run counts (the CPU backend's own model). */
#ifndef FGO_WORLD_REFIT_H
#define FGO_WORLD_REFIT_H

#include <stddef.h>

#include "store/store.h"
#include "tune/coll_curve.h"
#include "tune/predict_world.h"
#include "tune/world_rank.h"

#define WORLD_REFITS_MAX 64 /* families x world sizes reported by one refit */

/* One (family, W) with runs. */
struct world_refit {
	char algorithm[32];
	int fitted;           /* 0: too few runs (fit.runs says how many) */
	struct world_fit fit; /* fit.world: the W */
};

/* Fits every (family, W) of machine and backend with at least
 * WORLD_MIN_RUNS ok runs (the newest run of each configuration, with a
 * measured t_gemm; a run counts for its fit family, world_fit_family: a
 * Stream-K form's with comm_sms 0 for its base family); the ceilings'
 * coefficients (link_bw, memory_bw of the
 * store) hold the terms the runs cannot pin. With source != NULL each fit
 * is stored under it. out: one entry per (family, W) with runs, at most
 * cap, *nout of them. FGO_OK (also when nothing was fitted), FGO_EFAIL. */
int world_refit(struct fgo_store *st, const char *machine, const char *backend,
		const char *source, struct world_refit *out, int cap, int *nout, char *err,
		size_t len);

/* What best --predict --world uses of a family at a W. */
struct world_model {
	struct world_coef coef;  /* each term's coefficient and the W it was fitted at */
	unsigned absent;         /* terms the family does not have (bit per enum world_term) */
	char terms[256];         /* world_coef_text of coef */
	struct world_errors err; /* on the family's stored ok runs at W (err.runs 0: none) */
	int nfits;               /* stored fits of the family, at any W */
};

/* algorithm's stored fits on machine and backend resolved at world (the
 * ceilings' coefficients from link_gbps and mem_gbps where none pinned a
 * term), and their error on the stored runs at world it fits (those whose
 * world_fit_family is algorithm). FGO_OK or
 * FGO_EFAIL. */
int world_model_load(struct fgo_store *st, const char *machine, const char *backend,
		     const char *algorithm, int world, double link_gbps, double mem_gbps,
		     struct world_model *out, char *err, size_t len);

/* The vendor collective's curve of each collective and W fitted to the
 * machine's ok runs at W on W devices that timed it in their baseline
 * (t_bulk - t_gemm, coll_curve_fit), at most cap into out, *n of them;
 * runs[i] how many runs each came from (may be NULL), rms[i] their rms
 * relative error (may be NULL). FGO_OK or FGO_EFAIL. */
int world_curves_fit(struct fgo_store *st, const char *machine, const char *backend,
		     struct coll_curve *out, int cap, int *n, int *runs, double *rms, char *err,
		     size_t len);

/* The newest collective curve of each collective and W on machine and
 * backend that calibrate measured, else one fitted to the runs
 * (world_curves_fit; fitted set), at most cap into out; *n how many.
 * FGO_OK or FGO_EFAIL. */
int world_curves_load(struct fgo_store *st, const char *machine, const char *backend,
		      struct coll_curve *out, int cap, int *n, char *err, size_t len);

/* The family's newest ok run of every configuration at world on world
 * devices (as the fit reads them), malloc'd into *out (*n of them; NULL
 * when none), for world_rank. FGO_OK or FGO_EFAIL. */
int world_runs_load(struct fgo_store *st, const char *machine, const char *backend,
		    const char *algorithm, int world, struct world_run **out, size_t *n, char *err,
		    size_t len);

/* The stored cost model of every core of machine and backend (else one
 * fitted now, not stored); gm->ncores 0 when none. FGO_OK or FGO_EFAIL. */
int world_gemm_model_load(struct fgo_store *st, const char *machine, const char *backend,
			  struct world_gemm_model *gm, char *err, size_t len);

#endif
