/* tune/auto_pick.h: `config auto` (spec key "config": "auto", `--config
 * auto`): the configuration of a problem that gives no tile, picked by the
 * cost model of this machine (src/model.h, the fits `calibrate` stores)
 * instead of the defaults table: the model ranks the candidates of the
 * core's space (auto_pick_space) and the table's own pick, and the first
 * runs. */
#ifndef FGO_TUNE_AUTO_PICK_H
#define FGO_TUNE_AUTO_PICK_H

#include <stddef.h>

#include "config.h"
#include "spec/spec.h"
#include "tune/predict.h"

/* The space auto ranks for cfg on arch, as a sweep spec: on wgmma its
 * tiles 64..256 x 64..256, BLK_K 64, 3 to 12 stages (the table's skinny
 * rows run 8 and 12), 8 or 12 warps, split 1..16 (the gathers also 512-row chunks); elsewhere tiles 16..128,
 * BLK_K 16..64, 1..4 stages, 4 or 8 warps, split 1..4; the Stream-K forms
 * their split of CTAs instead of a split. */
const char *auto_pick_space(const struct fgo_config *cfg, const char *arch);

/* The model's first for cfg (a plan item after plan_fit_target) on arch
 * among auto_pick_space and cfg itself, fields the spec or the flags gave
 * kept; cfg (the defaults table's pick) stays unless a candidate is
 * predicted faster by more than the median error of its core's fit
 * (predict_model_err). FGO_OK with *out, *ms (the model's time) and
 * *ranked (candidates with a fit of their core); FGO_EUSAGE when pm has
 * no fit of any candidate's core (*ranked 0); FGO_EFAIL when memory runs
 * out. */
int auto_pick_one(const struct fgo_config *cfg, const char *arch, const struct predict_model *pm,
		  struct fgo_config *out, double *ms, size_t *ranked);

/* The cost model of host and backend in the store at db_path: every
 * core's stored fit. FGO_OK (pm->ncores 0 when none or no store),
 * FGO_EFAIL with err. */
int auto_pick_model(const char *db_path, const char *host, const char *backend,
		    struct predict_model *pm, char *err, size_t len);

/* session's pick_model: each item of plan that gave no tile gets the
 * model's first (default_how DEFAULTS_MODEL), with a note saying so.
 * FGO_OK, or FGO_EUSAGE with the message printed (no fit: run calibrate). */
int auto_pick_plan(struct fgo_plan *plan, const char *arch, const char *backend,
		   const char *db_path);

#endif
