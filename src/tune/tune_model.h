/* tune_model.h: the cost model of a tune space on this machine: each
 * candidate's terms and the stored fit of its GEMM core (model_fits, as
 * `fgobench calibrate` keeps them), what `tune --strategy model` ranks the
 * space by (tune_set_model). A space may mix cores: each candidate is
 * ranked by its own core's fit, and every core needs one. */
#ifndef FGO_TUNE_MODEL_H
#define FGO_TUNE_MODEL_H

#include <stddef.h>

#include "model.h"
#include "tune/model_refit.h"
#include "tune/tune.h"

struct tune_model {
	double *terms;                          /* n x MODEL_TERMS, candidate order */
	unsigned char *group;                   /* n: the candidate's core, an index below */
	int ncores;                             /* cores of the space */
	char core[MODEL_CORES][8];              /* their names (model_core) */
	double coef[MODEL_CORES * MODEL_TERMS]; /* their stored fits' coefficients */
	struct model_fit fit[MODEL_CORES];      /* ... and errors */
	char fitted_at[MODEL_CORES][32];
	char missing[8];                        /* the first core without a fit, "" when none */
	int fitted_now;                         /* a fit was made now from the runs, not stored */
	size_t family_runs;                     /* ok runs of the space's family and dtype here */
	char machine[128];                      /* this host */
	char backend[16];                       /* the backend's name */
};

/* The model of space s for this host and backend ("cpu", "gpu" or
 * "auto", resolved as a run resolves it) from the store at db_path.
 * FGO_OK with m->missing "" when every core of the space has a fit (the
 * terms computed with the ceilings each fit was made with), FGO_OK with
 * m->missing naming a core without one (also when there is no store at
 * db_path), FGO_EFAIL with a message in err when the store cannot be
 * read or memory runs out. With fit_now, cores without a stored fit are
 * fitted now to this host's runs (model_refit, not stored: as best
 * --predict does) where the store has MODEL_MIN_RUNS or more ok runs of
 * the space's family and dtype (m->family_runs says how many it has;
 * m->fitted_now that it did). tune_model_free in every case. */
int tune_model_load(const char *db_path, const char *backend, const struct tune_space *s,
		    int fit_now, struct tune_model *m, char *err, size_t len);
void tune_model_free(struct tune_model *m);

#endif
