/* tune/shot_pick.h: `--algorithm all_reduce` (and "algorithm": "all_reduce"
 * in a spec or dataset): the tool chooses the shot of each problem (issue
 * 51). A user asking for an all-reduce should not have to know that the
 * one-shot form (every rank reads every peer's whole C) loses to the
 * two-shot form (reduce-scatter, then all-gather) once W > 2, and mostly
 * wins at W = 2 where both move C once and one-shot saves a phase.
 *
 * The choice, in this order:
 *   only    one shot is valid for the problem (its shape, W, tile)
 *   measured this host measured both at this shape (best ok run of each,
 *           not of ranks sharing a GPU): the faster
 *   ranked  best --predict ranks both (tune/auto_pick.h: each shot's
 *           configurations measured at other shapes, the cost model's time
 *           corrected by their own runs) and their firsts differ by more
 *           than SHOT_MARGIN: the faster
 *   rule    otherwise the shape: two-shot where C is at least
 *           SHOT_TWO_MIN_C and either W > 2 (two-shot sends 2 (W - 1) / W
 *           of C, one-shot (W - 1) C) or K / W is at most SHOT_TWO_MAX_KW
 *           (a GEMM too short to hide one-shot's reads of W partial Cs);
 *           else one-shot (one phase: below SHOT_TWO_MIN_C its latency
 *           decides). From five stores of GPU runs of both shots
 *           (db/evidence: mgpu_w2w4_4xh100_s13_1127, _1127,
 *           w2w4_4xh100_today, small_m_all_w2w4_4xh100, mgpu_w2_2xh200_1127;
 *           tests/bench/shot_choice.sh): at W = 4 two-shot ahead from C =
 *           1 MiB (128 x 4096 bf16: by 5% in one store, behind by 2.6% in
 *           another) to 117 MB by 5-47%, one-shot ahead by 2.6-9% at C =
 *           128-512 KiB; at W = 2 one-shot ahead at K / W = 7168 by
 *           0.2-7%, two-shot at K / W = 4096 (8192^3, 0.2-1.3%) and 2048
 *           (4096 x 14336 x 4096, 6-14%)
 * The runs stored and their reproduce lines name the shot that ran. */
#ifndef FGO_TUNE_SHOT_PICK_H
#define FGO_TUNE_SHOT_PICK_H

#include "spec/spec.h"

/* Predicted firsts closer than this (relative) are a coin for the model
 * (its fits' median error is 5-12%): the world rule decides. */
#define SHOT_MARGIN 0.05
/* The rule's bounds (above): C bytes of the problem, K / W. */
#define SHOT_TWO_MIN_C (1L << 20)
#define SHOT_TWO_MAX_KW 4096L

enum shot { SHOT_ONE = 0, SHOT_TWO = 1 };
enum shot_source { SHOT_ONLY, SHOT_MEASURED, SHOT_RANKED, SHOT_RULE };
extern const char *const shot_source_names[4]; /* "only", "measured", "ranked", "rule" */

/* What the choice of one problem is made from. */
struct shot_evidence {
	int world;
	double c_bytes;         /* M x N x the dtype's size */
	long k_per_rank;        /* K / W */
	int valid[2];           /* each shot valid for the problem */
	double measured_ms[2];  /* the best ok run of each at the shape here; 0: none */
	double predicted_ms[2]; /* best --predict's first of each; 0: not ranked */
};

struct shot_choice {
	enum shot shot;
	enum shot_source source;
	char why[256]; /* the numbers that decided, for the note */
};

/* The algorithm name of a shot (ALGO_CHOICE_FIRST, ALGO_CHOICE_SECOND). */
const char *shot_algorithm(enum shot s);

/* The choice from e (the order above). With neither shot valid, one-shot
 * (its reason stays with the item). Pure. */
void shot_decide(const struct shot_evidence *e, struct shot_choice *out);

/* session's pick_shot: rank 0, once the target is known, before config
 * auto: each item of plan that named ALGO_CHOICE gets its shot from the
 * store at db_path (this host, backend), a note per problem (the first 8)
 * and a count of each; an item that then repeats another's configuration
 * is dropped (it would run twice). FGO_OK, FGO_EFAIL (store unreadable,
 * out of memory: message printed). */
int shot_pick_plan(struct fgo_plan *plan, const char *arch, const char *backend,
		   const char *db_path);

/* best --predict --algorithm all_reduce: the shot `run --algorithm
 * all_reduce` would take at cfg's problem (dtype, W, shape), as a run on
 * the machine of the store's newest run of either shot at cfg's dtype and
 * W would take it, with the runs at cfg's shape left out (best --predict
 * leaves them out: the choice is then ranked or by W; they are in
 * measured_ms beside it). */
struct shot_report {
	char host[128], backend[32], arch[32];
	struct shot_evidence e;  /* what decided (measured_ms 0: left out) */
	double measured_ms[2];   /* the best ok run of each shot at the shape; 0: none */
	struct shot_choice c;
};

/* FGO_OK, FGO_EUSAGE (no ok runs of either shot at cfg's dtype and W:
 * message printed), FGO_EFAIL. */
int shot_pick_predict(const char *db_path, const struct fgo_config *cfg, struct shot_report *r);

#endif
