/* tune_rounds.c: the model strategy of tune (tune.c's "model"): rounds of
 * the best predicted candidates, each prediction corrected by its measured
 * neighbours, and each core's fit refitted to the session's results after
 * every round, pulled toward the stored fit as far as cross-validation
 * says it should be. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "model.h"
#include "tune/tune.h"
#include "tune/tune_state.h"

/* Candidates of the first round and of each one after. */
static size_t model_round_size(const struct tune_state *st)
{
	long b = st->budget, k = st->round_index == 0 ? b / 8 : b / 4;
	if (k < 1)
		k = 1;
	if (b > 0 && k > b - st->runs)
		k = b - st->runs;
	return k > 0 ? (size_t)k : 1;
}

/* Cross-validation of a refit: FOLDS folds by position, prior weights
 * from the caller's down by factors of 10, WEIGHTS of them. */
#define FOLDS 5
#define WEIGHTS 7

/* The prior weight a refit of m runs (x, ms) uses: of pw x 10^-i (i = 0
 * .. WEIGHTS - 1), the one whose fits on the other folds predict each
 * fold best (squared relative error; ties to the stronger prior); pw
 * itself with fewer than 2 FOLDS runs. A prior that fits the runs keeps
 * its hold; one the runs contradict gives way to them. */
static double refit_weight(const double *x, const double *ms, size_t m, const double *prior,
			   double pw)
{
	if (m < 2 * FOLDS || !(pw > 0))
		return pw;
	double *tx = malloc(sizeof *tx * MODEL_TERMS * m), *tm = malloc(sizeof *tm * m);
	double best = pw, best_err = INFINITY, w = pw;
	for (int i = 0; tx && tm && i < WEIGHTS; i++, w /= 10) {
		double err = 0;
		for (int f = 0; f < FOLDS; f++) {
			size_t k = 0;
			for (size_t j = 0; j < m; j++)
				if ((int)(j % FOLDS) != f) {
					memcpy(tx + k * MODEL_TERMS, x + j * MODEL_TERMS,
					       sizeof(double) * MODEL_TERMS);
					tm[k++] = ms[j];
				}
			struct model_fit fit;
			if (model_fit(tx, tm, k, prior, w, &fit) != FGO_OK) {
				err = INFINITY;
				break;
			}
			for (size_t j = (size_t)f; j < m; j += FOLDS) {
				double e = model_time(x + j * MODEL_TERMS, fit.coef) / ms[j] - 1;
				err += e * e;
			}
		}
		if (err < best_err) {
			best_err = err;
			best = w;
		}
	}
	free(tx);
	free(tm);
	return best;
}

/* Refits each group's coefficients to its ok results at full iterations,
 * with the stored fit as the prior at the weight cross-validation picks;
 * a group without results keeps the stored fit. */
static void model_refit_groups(struct tune_state *st, int lv)
{
	size_t n = st->s->n;
	double *x = malloc(sizeof *x * MODEL_TERMS * (n + 1)), *ms = malloc(sizeof *ms * (n + 1));
	for (int g = 0; g < st->ngroups; g++) {
		size_t m = 0;
		for (size_t c = 0; x && ms && c < n; c++) {
			size_t at = c * LEVELS + (size_t)lv;
			if (st->group[c] != g || st->state[at] != KNOWN || !isfinite(st->ms[at]) ||
			    !(st->ms[at] > 0))
				continue;
			memcpy(x + m * MODEL_TERMS, st->terms + c * MODEL_TERMS, sizeof(double) * MODEL_TERMS);
			ms[m++] = st->ms[at];
		}
		struct model_fit f;
		double *coef = st->coef + (size_t)g * MODEL_TERMS;
		const double *prior = st->prior + (size_t)g * MODEL_TERMS;
		if (m > 0 && model_fit(x, ms, m, prior, refit_weight(x, ms, m, prior, st->prior_weight),
				       &f) == FGO_OK)
			memcpy(coef, f.coef, sizeof f.coef);
		else
			memcpy(coef, prior, sizeof(double) * MODEL_TERMS);
	}
	free(x);
	free(ms);
}

static double model_predict(const struct tune_state *st, size_t c)
{
	if (!st->terms)
		return 0;
	return model_time(st->terms + c * MODEL_TERMS, st->coef + (size_t)st->group[c] * MODEL_TERMS);
}

/* How far off the model was around c: the geometric mean of measured /
 * predicted over c's measured ok neighbours (1 when it has none). */
static double model_correction(const struct tune_state *st, size_t c, int lv)
{
	double logs = 0;
	int k = 0;
	for (int d = 0; d < TUNE_DIMS; d++)
		for (int step = -1; step <= 1; step += 2) {
			size_t nb = tune_space_neighbour(st->s, c, d, step);
			if (nb == (size_t)-1)
				continue;
			size_t at = nb * LEVELS + (size_t)lv;
			double p = model_predict(st, nb);
			if (st->state[at] == KNOWN && isfinite(st->ms[at]) && st->ms[at] > 0 && p > 0) {
				logs += log(st->ms[at] / p);
				k++;
			}
		}
	return k ? exp(logs / k) : 1;
}

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->pred != y->pred)
		return x->pred < y->pred ? -1 : 1;
	return (x->tie > y->tie) - (x->tie < y->tie);
}

static int same_terms(const struct tune_state *st, size_t a, size_t b)
{
	return st->terms && st->group[a] == st->group[b] &&
	       !memcmp(st->terms + a * MODEL_TERMS, st->terms + b * MODEL_TERMS,
		       sizeof(double) * MODEL_TERMS);
}

/* Plans the next round into st->round; 0 when every candidate has run. */
static size_t model_plan_round(struct tune_state *st, int lv)
{
	size_t n = st->s->n, left = 0, want;
	if (st->terms && st->round_index > 0)
		model_refit_groups(st, lv);
	struct ranked *todo = st->ranked;
	for (size_t c = 0; c < n; c++)
		if (!tune_visited(st, c, lv))
			todo[left++] = (struct ranked){
				model_predict(st, c) * (st->terms ? model_correction(st, c, lv) : 1),
				st->tie[c], c };
	if (left == 0)
		return 0;
	qsort(todo, left, sizeof *todo, cmp_ranked);
	want = model_round_size(st);
	if (want > left)
		want = left;
	/* first pass: one of each distinct prediction's terms; then the rest */
	st->round_size = 0;
	for (int pass = 0; pass < 2 && st->round_size < want; pass++)
		for (size_t i = 0; i < left && st->round_size < want; i++) {
			size_t c = todo[i].cand, dup = 0, taken = 0;
			for (size_t j = 0; j < st->round_size; j++) {
				taken |= st->round[j] == c;
				dup |= same_terms(st, st->round[j], c);
			}
			if (!taken && (pass == 1 || !dup))
				st->round[st->round_size++] = c;
		}
	st->round_pos = st->round_told = 0;
	st->round_index++;
	return st->round_size;
}

int tune_propose_model(struct tune_state *st, struct tune_trial *t)
{
	int lv = tune_level_of(st, st->full);
	t->iterations = st->full;
	if (st->round_pos < st->round_size) {
		t->cand = st->round[st->round_pos++];
		return 1;
	}
	if (st->round_told < st->round_size)
		return 0;
	if (model_plan_round(st, lv) == 0)
		return -1;
	t->cand = st->round[st->round_pos++];
	return 1;
}
