/* tune/auto_pick.h: `config auto` (spec key "config": "auto", `--config
 * auto`): the configuration of a problem that gives no tile, ranked as
 * `best --predict` ranks it (tune/predict.h's predict_rank_model: every
 * configuration this host measured at another shape of the problem, its
 * time the cost model's at the shape times the correction by its own runs
 * at the nearest measured shapes), the defaults table's pick kept only
 * where the store does not cover the shape (issue 49). */
#ifndef FGO_TUNE_AUTO_PICK_H
#define FGO_TUNE_AUTO_PICK_H

#include <stddef.h>

#include "config.h"
#include "spec/spec.h"
#include "tune/predict.h"

/* Where auto's pick came from. */
enum auto_source {
	AUTO_TABLE = 0,  /* the item's own default (the table's row, or the core's tile) */
	AUTO_RANKED = 1, /* best --predict's ranking */
};

struct auto_pick {
	enum auto_source source;
	struct fgo_config cfg; /* what runs: the ranked pick, or the item's cfg as it was */
	/* the ranking (both sources: what best --predict saw) */
	int nshapes;           /* measured shapes of the problem besides the item's */
	int nnear;             /* of them the nearest, used */
	struct predict_shape nearest; /* nearest measured shape (nnear > 0) */
	size_t count;          /* candidates best --predict ranked */
	/* AUTO_RANKED: the pick's place in that ranking (1: its first; later
	 * where those before change a field the spec or flags gave, or
	 * cannot run on the arch or machine) and its prediction */
	size_t place;
	double predicted_ms, model_ms, correction, coverage;
	int nsupport;          /* near shapes the pick itself was measured at */
	/* AUTO_RANKED: ntrials of the ranking's configurations that keep
	 * what was given and run here, distinct (trial[0] is cfg, its
	 * first), each with its place in it: what auto times at the shape
	 * (auto_pick_some) */
	struct fgo_config trial[FGO_AUTO_TRIALS_MAX];
	size_t trial_place[FGO_AUTO_TRIALS_MAX];
	int ntrials;
	/* AUTO_TABLE: why the store does not cover the shape */
	char why[256];
};

/* The pick for cfg (a plan item after plan_fit_target, its default
 * applied) on arch from obs (this host's newest ok run of each
 * configuration of cfg's problem, auto_pick_runs) and pm (this host's
 * fits): best --predict's first among the configurations that keep what
 * the spec or flags gave (mma, split_k, the communication tile, the
 * Stream-K CTAs, the cluster, gsize_m where not the default,
 * deterministic) and can run here (defaults_check on arch; a Stream-K
 * form's CTAs all resident on the fit's machine), or AUTO_TABLE (cfg
 * kept) with the reason where the store has no coverage: no other shape
 * of the problem measured, none ranked (no candidate valid at the shape
 * with a fit of its core), the nearest measured shape farther than
 * PREDICT_FAR (where best --predict calls its ranking a guess), or none
 * of the ranked keeps the given fields and runs here. The query's own
 * shape's runs are left out, as best --predict leaves them. FGO_OK, or
 * FGO_EFAIL when memory runs out. */
int auto_pick_one(const struct fgo_config *cfg, const char *arch, const struct predict_obs *obs,
		  size_t n, const struct predict_model *pm, struct auto_pick *out);

/* auto_pick_one, with up to want (1..FGO_AUTO_TRIALS_MAX) of the ranked
 * configurations that keep what was given and run here in out->trial
 * (the first is out->cfg); want 1 is auto_pick_one. The first half
 * (rounded up) are the ranking's first; each of the rest the first
 * ranked of a tile (block, split, walk, core) none before it has, and
 * where the ranking has too few tiles, its next places. */
int auto_pick_some(const struct fgo_config *cfg, const char *arch, const struct predict_obs *obs,
		   size_t n, const struct predict_model *pm, int want, struct auto_pick *out);

/* The cost model of host and backend in the store at db_path: every
 * core's stored fit. FGO_OK (pm->ncores 0 when none or no store),
 * FGO_EFAIL with err. */
int auto_pick_model(const char *db_path, const char *host, const char *backend,
		    struct predict_model *pm, char *err, size_t len);

/* The runs best --predict ranks from (src/cmd/predict_view.c's query),
 * of host and backend only (the fit's): the newest ok run of each
 * configuration of cfg's algorithm, dtype and world, newest first, into a
 * malloc'ed *obs (free it). FGO_OK (*n 0 when none or no store), or
 * FGO_EFAIL with err. */
int auto_pick_runs(const char *db_path, const struct fgo_config *cfg, const char *host,
		   const char *backend, struct predict_obs **obs, size_t *n, char *err, size_t len);

/* session's pick_model: each item of plan that gave no tile gets
 * auto_pick_one's pick (default_how DEFAULTS_MODEL where ranked; the
 * item's own default kept where the store does not cover it), with a
 * note per item saying which and why (the first 8) and a count of each.
 * With plan->auto_trials above 1 (the default, FGO_AUTO_TRIALS_DEFAULT),
 * a ranked item becomes that many of the ranking's first (auto_pick_some)
 * and its own default beside them where it is none of them, one plan item
 * each (auto_role, auto_place, auto_group; plan->items reallocated): all
 * timed at the shape, the fastest auto's pick (session_auto_say). A trial
 * that is another item of the plan already (the same configuration) is
 * not added twice.
 * FGO_OK, or FGO_EUSAGE with the message printed (no fit of an item's
 * core for this host: run calibrate), FGO_EFAIL. */
int auto_pick_plan(struct fgo_plan *plan, const char *arch, const char *backend,
		   const char *db_path);

#endif
