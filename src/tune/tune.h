/* tune.h: what `fgobench tune` searches and how, without MPI, the store or
 * a clock, so tests drive it with a synthetic objective.
 *
 *   - the space: the candidates of a plan (a spec expanded for one problem)
 *     that pass the sweep's validation, each with its coordinates along the
 *     tunables (tune_space.c);
 *   - the search: an ask/tell state machine for five strategies (grid,
 *     random, anneal, halving, model) under a budget of runs. It remembers every
 *     result by (candidate, iterations): a trial asked again is answered
 *     without a run, and results preloaded from the store (--resume) are
 *     answered without running them again, though they count as runs of the
 *     session (tune.c).
 *
 * Every decision depends only on the seed and on the results told, so a
 * seed gives the same trials for the same results. */
#ifndef FGO_TUNE_H
#define FGO_TUNE_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "spec/spec.h"

enum tune_kind {
	TUNE_GRID = 0,    /* every candidate in spec order */
	TUNE_RANDOM = 1,  /* uniform without replacement, seeded */
	TUNE_ANNEAL = 2,  /* simulated annealing, one step along one tunable */
	TUNE_HALVING = 3, /* successive halving: many at few iterations, the best half at more */
	TUNE_MODEL = 4,   /* the cost model ranks the space, the top few run, it is refitted, ... */
};
#define TUNE_KINDS 5

/* 0 with *k set, -1 for an unknown name. */
int tune_kind_parse(const char *name, enum tune_kind *k);
const char *tune_kind_name(enum tune_kind k);

/* The tunables a configuration has besides its problem, in this order:
 * blk_m blk_n blk_k num_stages num_warps mma gsize_m gemm_sms comm_sms
 * comm_blk_m comm_blk_n split_k deterministic cluster. */
#define TUNE_DIMS 14
extern const char *const tune_dim_names[TUNE_DIMS];
int tune_dim_get(const struct fgo_config *cfg, int dim);

struct tune_space {
	size_t n;                     /* candidates */
	const struct fgo_plan *plan;  /* what they come from (not owned) */
	size_t *item;                 /* candidate i is plan->items[item[i]] */
	size_t *cand_of;              /* plan item -> candidate, or (size_t)-1 when pruned */
	size_t pruned;                /* plan items that cannot run */
	char first_reason[FGO_REASON_MAX]; /* why the first pruned item cannot run ("" if none) */
	int nvals[TUNE_DIMS];         /* distinct values of each tunable among the candidates */
	int *vals[TUNE_DIMS];         /* ... sorted ascending */
	unsigned char *coord;         /* n x TUNE_DIMS: index of the candidate's value per tunable */
	size_t *slots;                /* coordinates -> candidate + 1 (0 empty), open addressing */
	size_t nslots;                /* power of two */
};

/* Why cfg cannot run in a space with heap_limit bytes per rank: the sweep's
 * validation (config_validate, the same call a spec's expansion makes)
 * and the heap a configuration needs (the runner refuses it at run time as
 * invalid). Returns 0 when it can run, 1 with a reason. */
int tune_prune_reason(const struct fgo_config *cfg, size_t heap_limit, char *reason,
		      size_t len);

/* The candidates of plan: its valid items (plan_item.valid, from
 * config_validate) that fit heap_limit. FGO_OK (possibly n == 0: the
 * caller says why with first_reason), FGO_EFAIL when memory runs out. */
int tune_space_build(const struct fgo_plan *plan, size_t heap_limit, struct tune_space *s);
void tune_space_free(struct tune_space *s);

/* The candidate whose coordinates are those of cand with tunable dim moved
 * by step (+1 or -1) along that tunable's sorted values, or (size_t)-1 when
 * there is none (the edge, or that combination is not a candidate). */
size_t tune_space_neighbour(const struct tune_space *s, size_t cand, int dim, int step);

/* The default space of an algorithm family as a sweep spec (JSON text):
 * tiles 16..256, BLK_K 16..128, 1..4 stages, 4 or 8 warps, gsize_m 1, 4,
 * 8, and for the Stream-K forms gemm_sms and comm_sms. */
const char *tune_default_space(const char *algorithm);

/* ---- the search ---- */

struct tune_trial {
	size_t cand;     /* candidate */
	int iterations;  /* timed iterations of the run */
};

/* Where a result came from. */
enum tune_source {
	TUNE_MEASURED = 0, /* run in this session */
	TUNE_STORED = 1,   /* preloaded from the store: an earlier, interrupted session */
};

struct tune_event {
	struct tune_trial t;
	double ms;              /* median fused time; INFINITY when the run failed */
	enum tune_source source;
	long run;               /* 1-based number of the run in the session */
};

struct tune_state;

/* A search over s with the given seed; full_iterations is the spec's
 * iterations (halving starts lower). budget: runs the session may take
 * (clamped to what the strategy can use); 0 when it is not known yet
 * (--time): then only the first trial is asked until tune_set_budget. The
 * first trial never depends on the budget. NULL when memory runs out. */
struct tune_state *tune_new(enum tune_kind kind, const struct tune_space *s, uint64_t seed,
			    int full_iterations, long budget);
void tune_free(struct tune_state *st);

/* The cost model (src/model.h) that TUNE_MODEL ranks the space by, given
 * before the first tune_ask (other strategies ignore it). terms: s->n x
 * MODEL_TERMS, each candidate's model_terms in candidate order; group:
 * per candidate the index of its GEMM core's fit in coef (NULL: all 0);
 * coef: ngroups x MODEL_TERMS, the stored fits. Every refit is pulled
 * toward them with prior_weight at most (model_fit; see
 * TUNE_MODEL_PRIOR_WEIGHT). Copied. FGO_OK; FGO_EUSAGE
 * for ngroups outside 1..255 or a group out of range; FGO_EFAIL when
 * memory runs out. Without a model, TUNE_MODEL sees every candidate
 * alike and takes them in its seeded order (as random). */
int tune_set_model(struct tune_state *st, const double *terms, const unsigned char *group,
		   const double *coef, int ngroups, double prior_weight);
/* The strongest prior weight a refit of tune sessions uses (model_fit: a
 * coefficient 10% off the stored fit costs as much as every run 10% off);
 * each refit picks it or a weaker one, down to 1e-6 of it, by
 * cross-validation of its results: the stored fit holds where the
 * results say nothing or agree (the first round's few runs, terms the
 * same on every candidate), the results win where they contradict it. */
#define TUNE_MODEL_PRIOR_WEIGHT 1.0
/* The coefficients of group g as the last refit left them (the stored
 * fit's before any result), or NULL without a model. */
const double *tune_model_coef(const struct tune_state *st, int g);
void tune_set_budget(struct tune_state *st, long budget);
long tune_budget(const struct tune_state *st);

/* A result of an earlier session (--resume): answered when the strategy
 * asks for that trial. ms INFINITY for a run that failed. */
void tune_preload(struct tune_state *st, size_t cand, int iterations, double ms);

/* Trials to run next, at most max, all with the same iterations: 0 when
 * the search is over (tune_done) or, with trials outstanding, until they
 * are told. Trials it can answer itself (asked before, preloaded) are
 * resolved inside and appear only in the events. */
size_t tune_ask(struct tune_state *st, struct tune_trial *out, size_t max);

/* The result of a trial tune_ask returned (INFINITY when it failed). */
void tune_tell(struct tune_state *st, const struct tune_trial *t, double ms);

int tune_done(const struct tune_state *st);
long tune_runs(const struct tune_state *st);     /* runs used, stored ones included */
size_t tune_pending(const struct tune_state *st);/* trials asked, not told yet */

/* Every result so far, in order; *n receives the count. */
const struct tune_event *tune_events(const struct tune_state *st, size_t *n);

/* The winner: the fastest result at the highest iterations any ok result
 * has (for halving, the last survivor). 0 with *e set, -1 when no ok result. */
int tune_winner(const struct tune_state *st, struct tune_event *e);

#endif
