/* tune.c: the search of `fgobench tune` as an ask/tell state machine (see
 * tune.h). One generic loop owns the budget and the memory of results;
 * each strategy only proposes the next trial and hears its result.
 *
 *   grid     the candidates in spec order
 *   random   a seeded permutation of them
 *   anneal   tries a quarter of the budget at random, then walks from the
 *            best of them: it proposes an untried neighbour (one step
 *            along one tunable) and moves there when it is faster, or
 *            slower with probability exp(-log(ratio) / T), T falling
 *            from 0.03 to 0.003 over the budget (a step 3% slower is
 *            taken with probability 1/e at first); when the current
 *            point has no untried neighbour it restarts from the best
 *            point that has one, else jumps to a random untried one
 *   halving  n0 random candidates at few iterations, the faster half at
 *            twice as many, ..., until a rung of two runs at the full
 *            iterations; its faster one wins. n0 is the largest the
 *            budget pays for (a rung at the same iterations as the one
 *            before costs nothing: its results are known)
 *   model    (tune_rounds.c) rounds: the cost model (src/model.h) predicts every candidate
 *            not run yet, each prediction scaled by how far off it was on
 *            the candidate's measured neighbours (the geometric mean of
 *            their measured / predicted), and the round runs the best
 *            predicted (an eighth of the budget in the first round, a
 *            quarter in each one after; candidates whose terms equal one
 *            already in the round only when nothing else is left). After
 *            each round the coefficients of each core are refitted to its
 *            ok results, pulled toward the stored fit (model_fit's prior)
 *            as hard as 5-fold cross-validation of the results says it
 *            should be. Ties go to the seeded order; no candidate runs
 *            twice; a failed run is neither fitted nor a neighbour. */
#include "tune/tune.h"
#include "tune/tune_state.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "model.h"

int tune_kind_parse(const char *name, enum tune_kind *k)
{
	for (int i = TUNE_GRID; i < TUNE_KINDS; i++)
		if (strcmp(name, tune_kind_name((enum tune_kind)i)) == 0) {
			*k = (enum tune_kind)i;
			return 0;
		}
	return -1;
}

const char *tune_kind_name(enum tune_kind k)
{
	static const char *const names[] = { "grid", "random", "anneal", "halving", "model" };
	return (unsigned)k < FGO_ARRAY_SIZE(names) ? names[k] : "?";
}

/* splitmix64: small, seedable, the same everywhere. */
static uint64_t next_u64(struct tune_state *st)
{
	uint64_t z = (st->rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) (n > 0), without modulo bias worth the name. */
static size_t uniform(struct tune_state *st, size_t n)
{
	return (size_t)((double)(next_u64(st) >> 11) * 0x1.0p-53 * (double)n);
}

static double uniform01(struct tune_state *st)
{
	return (double)(next_u64(st) >> 11) * 0x1.0p-53;
}

int tune_level_of(struct tune_state *st, int iterations)
{
	for (int i = 0; i < st->nlevels; i++)
		if (st->levels[i] == iterations)
			return i;
	if (st->nlevels == LEVELS)
		return LEVELS - 1;
	st->levels[st->nlevels] = iterations;
	return st->nlevels++;
}

static size_t slot(struct tune_state *st, const struct tune_trial *t)
{
	return t->cand * LEVELS + (size_t)tune_level_of(st, t->iterations);
}

/* ---- halving's plan ---- */

/* Rungs measured from n0 candidates: halved (rounding up) until a rung of
 * at most two has been measured; its faster one is the survivor. */
static int halving_rungs(size_t n0)
{
	int r = 1;
	for (; n0 > 2; n0 = (n0 + 1) / 2)
		r++;
	return r;
}

/* Iterations of rung r of R: the last at the full count, each one before
 * at half the next (at least 1). */
static int halving_iterations(const struct tune_state *st, int r, int rungs)
{
	long it = st->full;
	for (int i = rungs - 1; i > r && it > 1; i--)
		it = (it + 1) / 2;
	return (int)it;
}

/* Runs halving takes from n0 candidates: each rung costs its size unless
 * it measures at the same iterations as the rung before (all known). */
static long halving_cost(const struct tune_state *st, size_t n0)
{
	int rungs = halving_rungs(n0), prev = 0;
	long cost = 0;
	for (int r = 0; r < rungs; r++, n0 = (n0 + 1) / 2) {
		int it = halving_iterations(st, r, rungs);
		if (it != prev)
			cost += (long)n0;
		prev = it;
	}
	return cost;
}

static size_t halving_n0(const struct tune_state *st)
{
	size_t n0 = st->s->n;
	while (n0 > 1 && halving_cost(st, n0) > st->budget)
		n0--;
	return n0;
}

/* Sorts the current rung by its results at this rung's iterations, failed
 * ones last, ties in rung order. */
static void halving_rank(struct tune_state *st)
{
	int lv = tune_level_of(st, halving_iterations(st, st->rung_index, st->rungs));
	for (size_t i = 1; i < st->rung_size; i++) {
		size_t c = st->rung[i], j = i;
		double v = st->ms[c * LEVELS + (size_t)lv];
		while (j > 0 && st->ms[st->rung[j - 1] * LEVELS + (size_t)lv] > v) {
			st->rung[j] = st->rung[j - 1];
			j--;
		}
		st->rung[j] = c;
	}
}

/* ---- proposals: 1 with *t, 0 to wait for results, -1 when finished ---- */

int tune_visited(const struct tune_state *st, size_t cand, int lv)
{
	unsigned char s = st->state[cand * LEVELS + (size_t)lv];
	return s == ASKED || s == KNOWN;
}

/* An untried neighbour of cand, chosen at random, or (size_t)-1. */
static size_t untried_neighbour(struct tune_state *st, size_t cand, int lv)
{
	size_t near[2 * TUNE_DIMS] = { 0 };
	size_t n = 0;
	for (int d = 0; d < TUNE_DIMS; d++)
		for (int step = -1; step <= 1; step += 2) {
			size_t c = tune_space_neighbour(st->s, cand, d, step);
			if (c != (size_t)-1 && !tune_visited(st, c, lv))
				near[n++] = c;
		}
	return n ? near[uniform(st, n)] : (size_t)-1;
}

/* Random points tried before the walk starts from the best of them: a
 * quarter of the budget, at least one (the first needs no budget). */
static int anneal_starts(const struct tune_state *st)
{
	long b = st->budget < (long)st->s->n ? st->budget : (long)st->s->n, k = b / 4;
	return k < 1 ? 1 : (int)k;
}

static int propose_anneal(struct tune_state *st, struct tune_trial *t)
{
	int lv = tune_level_of(st, st->full);
	t->iterations = st->full;
	if (st->awaiting)
		return 0;
	if (st->started < anneal_starts(st) && st->jump < st->s->n) {
		st->started++;
		st->awaiting = 1;
		t->cand = st->order[st->jump++];
		return 1;
	}
	size_t c = untried_neighbour(st, st->cur, lv);
	if (c == (size_t)-1) {
		/* restart from the best tried point that still has untried neighbours */
		size_t best = (size_t)-1;
		for (size_t i = 0; i < st->s->n; i++) {
			double v = st->ms[i * LEVELS + (size_t)lv];
			if (st->state[i * LEVELS + (size_t)lv] == KNOWN && isfinite(v) &&
			    (best == (size_t)-1 || v < st->ms[best * LEVELS + (size_t)lv]) &&
			    untried_neighbour(st, i, lv) != (size_t)-1)
				best = i;
		}
		if (best != (size_t)-1) {
			st->cur = best;
			st->cur_ms = st->ms[best * LEVELS + (size_t)lv];
			c = untried_neighbour(st, best, lv);
		}
	}
	while (c == (size_t)-1 && st->jump < st->s->n)
		if (!tune_visited(st, st->order[st->jump++], lv))
			c = st->order[st->jump - 1];
	if (c == (size_t)-1)
		return -1;
	st->awaiting = 1;
	t->cand = c;
	return 1;
}

static int propose_halving(struct tune_state *st, struct tune_trial *t)
{
	if (st->rung_size == 0) {
		if (st->budget == 0) { /* --time: a first run at full iterations sets the pace */
			if (st->rung_pos > 0)
				return 0;
			st->rung_pos++;
			t->cand = st->rung[0];
			t->iterations = st->full;
			return 1;
		}
		st->rung_size = halving_n0(st);
		st->rungs = halving_rungs(st->rung_size);
		st->rung_pos = st->rung_told = 0; /* the --time probe is no rung's */
	}
	if (st->rung_pos < st->rung_size) {
		t->cand = st->rung[st->rung_pos++];
		t->iterations = halving_iterations(st, st->rung_index, st->rungs);
		return 1;
	}
	if (st->rung_told < st->rung_size)
		return 0;
	if (st->rung_size <= 2)
		return -1;
	halving_rank(st);
	st->rung_size = (st->rung_size + 1) / 2;
	st->rung_index++;
	st->rung_pos = st->rung_told = 0;
	return propose_halving(st, t);
}

static int propose(struct tune_state *st, struct tune_trial *t)
{
	switch (st->kind) {
	case TUNE_ANNEAL: return propose_anneal(st, t);
	case TUNE_HALVING: return propose_halving(st, t);
	case TUNE_MODEL: return tune_propose_model(st, t);
	default:
		if (st->next >= st->s->n)
			return -1;
		t->cand = st->order[st->next++];
		t->iterations = st->full;
		return 1;
	}
}

/* ---- results ---- */

static double temperature(const struct tune_state *st)
{
	double p = st->budget > 0 ? (double)st->runs / (double)st->budget : 0;
	if (p > 1)
		p = 1;
	return 0.03 * pow(0.003 / 0.03, p);
}

static void heard(struct tune_state *st, const struct tune_trial *t, double ms)
{
	if (st->kind == TUNE_HALVING) {
		st->rung_told++;
		return;
	}
	if (st->kind == TUNE_MODEL) {
		st->round_told++;
		return;
	}
	if (st->kind != TUNE_ANNEAL)
		return;
	st->awaiting = 0;
	if (st->started <= anneal_starts(st)) { /* a start point: the best of them */
		if (st->started == 1 || ms < st->cur_ms) {
			st->cur = t->cand;
			st->cur_ms = ms;
		}
		if (st->started == anneal_starts(st))
			st->started++;
		return;
	}
	if (!isfinite(ms))
		return;
	double delta = isfinite(st->cur_ms) ? log(ms) - log(st->cur_ms) : -INFINITY;
	if (delta <= 0 || uniform01(st) < exp(-delta / temperature(st))) {
		st->cur = t->cand;
		st->cur_ms = ms;
	}
}

static void add_event(struct tune_state *st, const struct tune_trial *t, double ms,
		      enum tune_source source, long run)
{
	if (st->nevents == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 64;
		struct tune_event *e = realloc(st->events, cap * sizeof *e);
		if (!e)
			return; /* the log is for display; the search goes on */
		st->events = e;
		st->cap = cap;
	}
	st->events[st->nevents++] = (struct tune_event){ *t, ms, source, run };
}

struct tune_state *tune_new(enum tune_kind kind, const struct tune_space *s, uint64_t seed,
			    int full_iterations, long budget)
{
	struct tune_state *st = calloc(1, sizeof *st);
	if (!st)
		return NULL;
	st->kind = kind;
	st->s = s;
	st->rng = seed ^ 0x66676f62656e6368ull; /* "fgobench" */
	st->full = full_iterations > 0 ? full_iterations : 1;
	st->state = calloc(s->n * LEVELS + 1, 1);
	st->ms = malloc(sizeof *st->ms * (s->n * LEVELS + 1));
	st->run_no = calloc(s->n * LEVELS + 1, sizeof *st->run_no);
	st->order = malloc(sizeof *st->order * (s->n + 1));
	if (kind == TUNE_MODEL) {
		st->round = malloc(sizeof *st->round * (s->n + 1));
		st->tie = malloc(sizeof *st->tie * (s->n + 1));
		st->ranked = malloc(sizeof *st->ranked * (s->n + 1));
	}
	if (!st->state || !st->ms || !st->run_no || !st->order ||
	    (kind == TUNE_MODEL && (!st->round || !st->tie || !st->ranked))) {
		tune_free(st);
		return NULL;
	}
	for (size_t i = 0; i < s->n * LEVELS; i++)
		st->ms[i] = NAN;
	for (size_t i = 0; i < s->n; i++)
		st->order[i] = i;
	if (kind != TUNE_GRID)
		for (size_t i = s->n; i > 1; i--) { /* Fisher-Yates */
			size_t j = uniform(st, i), x = st->order[i - 1];
			st->order[i - 1] = st->order[j];
			st->order[j] = x;
		}
	if (kind == TUNE_MODEL)
		for (size_t i = 0; i < s->n; i++)
			st->tie[st->order[i]] = i;
	st->rung = st->order;
	st->exhausted = s->n == 0;
	tune_set_budget(st, budget);
	return st;
}

void tune_free(struct tune_state *st)
{
	if (!st)
		return;
	free(st->state);
	free(st->ms);
	free(st->run_no);
	free(st->order);
	free(st->events);
	free(st->terms);
	free(st->group);
	free(st->prior);
	free(st->coef);
	free(st->round);
	free(st->tie);
	free(st->ranked);
	free(st);
}

int tune_set_model(struct tune_state *st, const double *terms, const unsigned char *group,
		   const double *coef, int ngroups, double prior_weight)
{
	size_t n = st->s->n;
	if (ngroups < 1 || ngroups > 255)
		return FGO_EUSAGE;
	for (size_t c = 0; group && c < n; c++)
		if (group[c] >= ngroups)
			return FGO_EUSAGE;
	double *x = malloc(sizeof *x * MODEL_TERMS * (n + 1));
	unsigned char *g = calloc(n + 1, 1);
	double *prior = malloc(sizeof *prior * MODEL_TERMS * (size_t)ngroups);
	double *now = malloc(sizeof *now * MODEL_TERMS * (size_t)ngroups);
	if (!x || !g || !prior || !now) {
		free(x);
		free(g);
		free(prior);
		free(now);
		return FGO_EFAIL;
	}
	memcpy(x, terms, sizeof *x * MODEL_TERMS * n);
	if (group)
		memcpy(g, group, n);
	memcpy(prior, coef, sizeof *prior * MODEL_TERMS * (size_t)ngroups);
	memcpy(now, coef, sizeof *now * MODEL_TERMS * (size_t)ngroups);
	free(st->terms);
	free(st->group);
	free(st->prior);
	free(st->coef);
	st->terms = x;
	st->group = g;
	st->prior = prior;
	st->coef = now;
	st->ngroups = ngroups;
	st->prior_weight = prior_weight;
	return FGO_OK;
}

const double *tune_model_coef(const struct tune_state *st, int g)
{
	return st->coef && g >= 0 && g < st->ngroups ? st->coef + (size_t)g * MODEL_TERMS : NULL;
}

void tune_set_budget(struct tune_state *st, long budget)
{
	st->budget = budget > 0 ? budget : 0;
}

long tune_budget(const struct tune_state *st)
{
	return st->budget;
}

void tune_preload(struct tune_state *st, size_t cand, int iterations, double ms)
{
	struct tune_trial t = { cand, iterations };
	if (cand >= st->s->n)
		return;
	size_t at = slot(st, &t);
	if (st->state[at] != UNKNOWN)
		return;
	st->state[at] = STORED;
	st->ms[at] = ms;
}

size_t tune_ask(struct tune_state *st, struct tune_trial *out, size_t max)
{
	size_t k = 0;
	while (k < max && !st->exhausted) {
		struct tune_trial t;
		if ((st->budget == 0 && st->runs >= 1) || (st->budget && st->runs >= st->budget)) {
			if (st->budget)
				st->exhausted = 1;
			break;
		}
		int r = propose(st, &t);
		if (r < 0)
			st->exhausted = 1;
		if (r <= 0)
			break;
		size_t at = slot(st, &t);
		if (st->state[at] == KNOWN) { /* asked before: no run */
			heard(st, &t, st->ms[at]);
			continue;
		}
		st->runs++;
		st->run_no[at] = st->runs;
		if (st->state[at] == STORED) {
			st->state[at] = KNOWN;
			add_event(st, &t, st->ms[at], TUNE_STORED, st->runs);
			heard(st, &t, st->ms[at]);
			continue;
		}
		/* one batch, one iteration count: halving waits at rung ends */
		assert(k == 0 || out[0].iterations == t.iterations);
		st->state[at] = ASKED;
		st->pending++;
		out[k++] = t;
	}
	return k;
}

void tune_tell(struct tune_state *st, const struct tune_trial *t, double ms)
{
	size_t at = slot(st, t);
	if (st->state[at] != ASKED)
		return;
	st->state[at] = KNOWN;
	st->ms[at] = ms;
	st->pending--;
	add_event(st, t, ms, TUNE_MEASURED, st->run_no[at]);
	heard(st, t, ms);
}

int tune_done(const struct tune_state *st)
{
	return st->exhausted && st->pending == 0;
}

long tune_runs(const struct tune_state *st)
{
	return st->runs;
}

size_t tune_pending(const struct tune_state *st)
{
	return st->pending;
}

const struct tune_event *tune_events(const struct tune_state *st, size_t *n)
{
	*n = st->nevents;
	return st->events;
}

int tune_winner(const struct tune_state *st, struct tune_event *e)
{
	int found = 0;
	for (size_t i = 0; i < st->nevents; i++) {
		const struct tune_event *x = &st->events[i];
		if (!isfinite(x->ms))
			continue;
		if (!found || x->t.iterations > e->t.iterations ||
		    (x->t.iterations == e->t.iterations && x->ms < e->ms)) {
			*e = *x;
			found = 1;
		}
	}
	return found ? 0 : -1;
}
