/* tune_state.h: the state of a tune session, shared by the generic loop
 * (tune.c) and the model strategy's rounds (tune_rounds.c); nothing else
 * includes it. */
#ifndef FGO_TUNE_STATE_H
#define FGO_TUNE_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "tune/tune.h"

/* Distinct iteration counts one session measures at (halving: about 3). */
#define LEVELS 8

enum slot_state {
	UNKNOWN = 0, /* never asked */
	STORED,      /* preloaded from the store, not asked yet */
	ASKED,       /* handed out, result outstanding */
	KNOWN,       /* result in ms[] */
};

struct tune_state {
	enum tune_kind kind;
	const struct tune_space *s;
	uint64_t rng;
	int full;               /* the spec's iterations */
	long budget;            /* runs; 0 = not known yet */
	long runs;              /* runs used (measured or taken from the store) */
	size_t pending;         /* asked, not told */
	int exhausted;          /* the strategy has nothing more to propose */
	int levels[LEVELS];     /* iteration counts seen, in order of first use */
	int nlevels;
	unsigned char *state;   /* n x LEVELS enum slot_state */
	double *ms;             /* n x LEVELS results */
	long *run_no;           /* n x LEVELS run number of the result */
	struct tune_event *events;
	size_t nevents, cap;
	size_t *order;          /* grid: identity; others: a seeded permutation */
	size_t next;            /* grid, random: next position in order */
	/* anneal */
	int started, awaiting;
	size_t cur;
	double cur_ms;
	size_t jump;            /* next position in order for a random jump */
	/* halving */
	size_t *rung;           /* current rung's candidates (starts as order) */
	size_t rung_size;       /* 0 until the budget sizes rung 0 */
	size_t rung_pos, rung_told;
	int rung_index, rungs;  /* current rung, rungs in all */
	/* model */
	double *terms;          /* n x MODEL_TERMS; NULL: no model (every prediction 0) */
	unsigned char *group;   /* n: index of the candidate's fit */
	double *prior, *coef;   /* ngroups x MODEL_TERMS: the stored fits, the current ones */
	int ngroups;
	double prior_weight;
	size_t *round;          /* the round's candidates, best predicted first */
	size_t round_size, round_pos, round_told;
	int round_index;        /* rounds planned */
	size_t *tie;            /* candidate -> its position in the seeded order (ties) */
	struct ranked *ranked;  /* n: the round being planned */
};

/* A candidate as model ranks it. */
struct ranked {
	double pred;            /* predicted ms, corrected */
	size_t tie;             /* its position in the seeded order */
	size_t cand;
};

/* Level index of an iteration count (a new one is added; the last one is
 * reused if there were ever more than LEVELS, which no strategy makes). */
int tune_level_of(struct tune_state *st, int iterations);

/* Whether cand was asked or measured at level lv. */
int tune_visited(const struct tune_state *st, size_t cand, int lv);

/* The model strategy's next trial: 1 with *t, 0 to wait for results, -1
 * when finished. */
int tune_propose_model(struct tune_state *st, struct tune_trial *t);

#endif
