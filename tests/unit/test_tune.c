/* test_tune.c: the space and the search of `fgobench tune` (tune.h) driven
 * by synthetic objectives: pruning removes exactly what the sweep's
 * validation refuses, every strategy is deterministic for a seed and keeps
 * its budget, a resumed search asks for no trial it already has, and the
 * strategies find what the objective makes best; the model strategy, on
 * an objective that is the cost model with known coefficients and noise,
 * finds the best in a tenth of the space, also from a misleading stored
 * fit, never runs a configuration twice and never wins with a failed run. */
#include <math.h>
#include <stdlib.h>

#include "algo.h"
#include "fgo.h"
#include "model.h"
#include "spec/spec.h"
#include "testlib.h"
#include "tune/tune.h"

/* all_scatter W=2 at 128x128x128: BLK 256 exceeds M and N/W (invalid),
 * 16 < BLK_K < mma is impossible for mma=32 rows (mma fixed at 16 here) */
static const char space_text[] =
	"{\"algorithm\": \"all_scatter\", \"world\": 2, \"M\": 128, \"N\": 128, \"K\": 128,"
	" \"BLK_M\": [16, 32, 64, 128, 256], \"BLK_N\": [16, 32, 64, 128],"
	" \"BLK_K\": [16, 32, 64], \"gsize_m\": [1, 8]}";

/* A smooth bowl with its minimum at BLK_M=64, BLK_N=32, BLK_K=32, g=8. */
static double objective(const struct fgo_config *c, int iterations)
{
	double dm = log2(c->blk_m / 64.0), dn = log2(c->blk_n / 32.0), dk = log2(c->blk_k / 32.0);
	double ms = 1.0 + 0.3 * dm * dm + 0.2 * dn * dn + 0.1 * dk * dk + (c->gsize_m == 8 ? 0 : 0.05);
	/* fewer iterations: a deterministic wobble, as noise would */
	return ms * (iterations < 10 ? 1.0 + 0.01 * ((c->blk_m + c->blk_n) % 3) : 1.0);
}

/* The machine and coefficients of the model the generic tests give the
 * model strategy (the bowl is no model: it must still behave). */
static const struct model_machine test_machine = { { 60, 790, 790 }, 3000, 350, 132 };
static const double plain_coef[MODEL_TERMS] = { 0.005, 1, 1, 0.3, 2, 0.5, 1, 1 };

/* Every candidate's terms on test_machine, s->n x MODEL_TERMS. */
static double *space_terms(const struct tune_space *s)
{
	double *x = malloc(sizeof *x * MODEL_TERMS * (s->n + 1));
	for (size_t c = 0; x && c < s->n; c++)
		model_terms(&s->plan->items[s->item[c]].cfg, &test_machine, x + c * MODEL_TERMS);
	return x;
}

/* tune_new, with plain_coef's model for TUNE_MODEL. */
static struct tune_state *search(enum tune_kind k, const struct tune_space *s, uint64_t seed,
				 int full, long budget)
{
	struct tune_state *st = tune_new(k, s, seed, full, budget);
	if (st && k == TUNE_MODEL) {
		double *x = space_terms(s);
		if (!x || tune_set_model(st, x, NULL, plain_coef, 1, TUNE_MODEL_PRIOR_WEIGHT) != FGO_OK)
			printf("FAIL setup: tune_set_model\n");
		free(x);
	}
	return st;
}

/* An objective: the time of candidate cand of s at iterations. */
typedef double objective_fn(const struct tune_space *s, size_t cand, int iterations,
			    const void *ctx);

static double bowl(const struct tune_space *s, size_t cand, int iterations, const void *ctx)
{
	(void)ctx;
	return objective(&s->plan->items[s->item[cand]].cfg, iterations);
}

struct trace {
	struct tune_trial t[1024];
	size_t n;      /* trials handed out to run */
	long runs;
	struct tune_event winner;
	int found;
};

/* Runs a search to its end, answering from obj, max trials at a time;
 * stops after stop_after handed-out trials (interruption) if >= 0. */
static void drive_with(struct tune_state *st, const struct tune_space *s, size_t max,
		       long stop_after, objective_fn *obj, const void *ctx, struct trace *tr)
{
	struct tune_trial batch[8];
	size_t n;
	memset(tr, 0, sizeof *tr);
	while ((stop_after < 0 || (long)tr->n < stop_after) && (n = tune_ask(st, batch, max)) > 0)
		for (size_t i = 0; i < n; i++) {
			if (tr->n < FGO_ARRAY_SIZE(tr->t))
				tr->t[tr->n++] = batch[i];
			tune_tell(st, &batch[i], obj(s, batch[i].cand, batch[i].iterations, ctx));
		}
	tr->runs = tune_runs(st);
	tr->found = tune_winner(st, &tr->winner) == 0;
}

/* drive_with on the bowl. */
static void drive(struct tune_state *st, const struct tune_space *s, size_t max, long stop_after,
		  struct trace *tr)
{
	drive_with(st, s, max, stop_after, bowl, NULL, tr);
}

static int same_trials(const struct trace *a, const struct trace *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->t[i].cand != b->t[i].cand || a->t[i].iterations != b->t[i].iterations)
			return 0;
	return 1;
}

static void test_parse(void)
{
	enum tune_kind k;
	T_EQ_INT("kind-1.1", tune_kind_parse("anneal", &k), 0);
	T_EQ_INT("kind-1.2", k, TUNE_ANNEAL);
	T_EQ_INT("kind-1.3", tune_kind_parse("halving", &k) == 0 && k == TUNE_HALVING, 1);
	T_EQ_INT("kind-1.4", tune_kind_parse("anealing", &k), -1);
	T_EQ_STR("kind-1.5", tune_kind_name(TUNE_RANDOM), "random");
	T_EQ_INT("kind-1.6", tune_kind_parse("model", &k) == 0 && k == TUNE_MODEL, 1);
	T_EQ_STR("kind-1.7", tune_kind_name(TUNE_MODEL), "model");
}

/* prune-*: the candidates are exactly the plan items config_validate
 * accepts and whose heap fits; the rest are pruned with a reason. */
static void test_prune(const struct fgo_plan *p, size_t heap_limit, const char *id)
{
	struct tune_space s;
	char name[64], reason[FGO_REASON_MAX];
	size_t want = 0, mismatches = 0;
	T_EQ_INT(id, tune_space_build(p, heap_limit, &s), FGO_OK);
	for (size_t i = 0; i < p->count; i++) {
		int runs = !config_validate(&p->items[i].cfg, reason, sizeof reason);
		struct fgo_layout lay;
		if (runs) {
			algo_find(p->items[i].cfg.algorithm)->layout(&p->items[i].cfg, 0, &lay);
			runs = lay.heap_bytes <= heap_limit;
		}
		want += runs;
		mismatches += runs != (s.cand_of[i] != (size_t)-1);
		if (s.cand_of[i] != (size_t)-1)
			mismatches += s.item[s.cand_of[i]] != i;
	}
	snprintf(name, sizeof name, "%s-count", id);
	T_EQ_INT(name, s.n, want);
	snprintf(name, sizeof name, "%s-pruned", id);
	T_EQ_INT(name, s.pruned, p->count - want);
	snprintf(name, sizeof name, "%s-exactly", id);
	T_EQ_INT(name, mismatches, 0);
	snprintf(name, sizeof name, "%s-reason", id);
	T_CHECK(name, s.pruned == 0 || s.first_reason[0], "no reason for the first pruned item");
	tune_space_free(&s);
}

static void test_space(const struct fgo_plan *p)
{
	struct tune_space s;
	char reason[FGO_REASON_MAX];
	tune_space_build(p, (size_t)1 << 30, &s);
	/* 5 x 4 x 3 x 2 = 120 configurations; BLK_M=256 > M=128 is invalid (24),
	 * BLK_N=128 > N/W=64 is invalid for the rest (4 x 3 x 2 = 24) */
	T_EQ_INT("space-1.1", p->count, 120);
	T_EQ_INT("space-1.2", s.n, 72);
	T_EQ_INT("space-1.3", s.nvals[0], 4); /* BLK_M 16..128 */
	T_EQ_INT("space-1.4", s.nvals[1], 3); /* BLK_N 16..64 */
	T_EQ_INT("space-1.5", s.nvals[3], 1); /* num_stages fixed */
	/* a neighbour differs in exactly one tunable, by one step */
	size_t c = 0, bad = 0, found = 0;
	for (c = 0; c < s.n; c++)
		for (int d = 0; d < TUNE_DIMS; d++)
			for (int step = -1; step <= 1; step += 2) {
				size_t nb = tune_space_neighbour(&s, c, d, step);
				if (nb == (size_t)-1)
					continue;
				found++;
				const struct fgo_config *a = &p->items[s.item[c]].cfg,
							*b = &p->items[s.item[nb]].cfg;
				for (int e = 0; e < TUNE_DIMS; e++)
					bad += e != d && tune_dim_get(a, e) != tune_dim_get(b, e);
				int ia = s.coord[c * TUNE_DIMS + (size_t)d], ib = s.coord[nb * TUNE_DIMS + (size_t)d];
				bad += ib - ia != step;
			}
	T_EQ_INT("space-2.1", bad, 0);
	/* 4x3x3x2 grid: (3*3*3*2)*2 + (4*2*3*2)*2 + (4*3*2*2)*2 + (4*3*3*1)*2 moves */
	T_EQ_INT("space-2.2", found, 108 + 96 + 96 + 72);
	/* the prune reason for the invalid tile is the sweep's */
	struct fgo_config big = p->items[0].cfg;
	big.blk_m = 256;
	T_EQ_INT("prune-2.1", tune_prune_reason(&big, (size_t)1 << 30, reason, sizeof reason), 1);
	T_CONTAINS("prune-2.2", reason, "BLK_M=256 exceeds M=128");
	T_EQ_INT("prune-2.3", tune_prune_reason(&p->items[0].cfg, 1024, reason, sizeof reason), 1);
	T_CONTAINS("prune-2.4", reason, "raise --heap-size");
	tune_space_free(&s);
}

static const char *const ids[TUNE_KINDS] = { "grid", "random", "anneal", "halving", "model" };

static void test_determinism(const struct tune_space *s)
{
	char id[64];
	for (int k = TUNE_GRID; k < TUNE_KINDS; k++) {
		struct trace a, b, c;
		struct tune_state *x = search((enum tune_kind)k, s, 7, 10, 15);
		struct tune_state *y = search((enum tune_kind)k, s, 7, 10, 15);
		struct tune_state *z = search((enum tune_kind)k, s, 8, 10, 15);
		drive(x, s, 1, -1, &a);
		drive(y, s, 3, -1, &b); /* batches of 3 where the strategy allows */
		drive(z, s, 1, -1, &c);
		snprintf(id, sizeof id, "seed-%s-same", ids[k]);
		T_CHECK(id, same_trials(&a, &b), "seed 7 gave different trials in two searches (%zu, %zu)",
			a.n, b.n);
		snprintf(id, sizeof id, "seed-%s-other", ids[k]);
		T_CHECK(id, (k == TUNE_GRID) == same_trials(&a, &c),
			"seed 8 %s the trials of seed 7", k == TUNE_GRID ? "changed" : "repeated");
		tune_free(x);
		tune_free(y);
		tune_free(z);
	}
}

static void test_budget(const struct tune_space *s)
{
	static const long budgets[] = { 1, 2, 5, 11, 30, 72, 500 };
	char id[64];
	for (int k = TUNE_GRID; k < TUNE_KINDS; k++)
		for (size_t b = 0; b < FGO_ARRAY_SIZE(budgets); b++) {
			struct trace t;
			struct tune_state *st = search((enum tune_kind)k, s, 3, 10, budgets[b]);
			drive(st, s, 2, -1, &t);
			long cap = budgets[b] < (long)s->n ? budgets[b] : (long)s->n;
			snprintf(id, sizeof id, "budget-%s-%ld", ids[k], budgets[b]);
			T_CHECK(id, t.runs <= budgets[b] && (long)t.n == t.runs && t.found,
				"budget %ld: %ld runs, %zu trials handed out, winner %d", budgets[b], t.runs,
				t.n, t.found);
			if (k != TUNE_HALVING) { /* halving spends what its rungs need */
				snprintf(id, sizeof id, "budget-%s-%ld-spent", ids[k], budgets[b]);
				T_EQ_INT(id, t.runs, cap);
			}
			T_CHECK(id, tune_done(st), "search not done after its budget");
			tune_free(st);
		}
}

/* resume-*: a search interrupted after some trials, restarted with those
 * results preloaded (as `tune --resume` does from the store), hands out
 * none of them again and ends as the uninterrupted search. */
static void test_resume(const struct tune_space *s)
{
	char id[64];
	for (int k = TUNE_GRID; k < TUNE_KINDS; k++) {
		struct trace full, first, rest;
		struct tune_state *a = search((enum tune_kind)k, s, 11, 10, 20);
		drive(a, s, 1, -1, &full);
		struct tune_state *b = search((enum tune_kind)k, s, 11, 10, 20);
		drive(b, s, 1, 9, &first); /* interrupted after 9 runs */
		struct tune_state *c = search((enum tune_kind)k, s, 11, 10, 20);
		for (size_t i = 0; i < first.n; i++)
			tune_preload(c, first.t[i].cand, first.t[i].iterations,
				     objective(&s->plan->items[s->item[first.t[i].cand]].cfg,
					       first.t[i].iterations));
		drive(c, s, 1, -1, &rest);
		size_t repeated = 0;
		for (size_t i = 0; i < rest.n; i++)
			for (size_t j = 0; j < first.n; j++)
				repeated += rest.t[i].cand == first.t[j].cand &&
					    rest.t[i].iterations == first.t[j].iterations;
		snprintf(id, sizeof id, "resume-%s-no-repeat", ids[k]);
		T_EQ_INT(id, repeated, 0);
		snprintf(id, sizeof id, "resume-%s-rest", ids[k]);
		T_EQ_INT(id, first.n + rest.n, full.n);
		snprintf(id, sizeof id, "resume-%s-runs", ids[k]);
		T_EQ_INT(id, rest.runs, full.runs);
		snprintf(id, sizeof id, "resume-%s-same-winner", ids[k]);
		T_CHECK(id, rest.winner.t.cand == full.winner.t.cand, "winner %zu, uninterrupted %zu",
			rest.winner.t.cand, full.winner.t.cand);
		size_t n, stored = 0;
		const struct tune_event *ev = tune_events(c, &n);
		for (size_t i = 0; i < n; i++)
			stored += ev[i].source == TUNE_STORED;
		snprintf(id, sizeof id, "resume-%s-stored", ids[k]);
		T_EQ_INT(id, stored, first.n);
		tune_free(a);
		tune_free(b);
		tune_free(c);
	}
}

/* find-*: on the bowl, grid finds the minimum and anneal gets within 5%
 * of it with a fifth of the space; random and halving end with the best
 * configuration they sampled (halving despite its wobbly short runs). */
static void test_find(const struct tune_space *s)
{
	char id[64];
	double best = INFINITY;
	for (size_t i = 0; i < s->n; i++) {
		double v = objective(&s->plan->items[s->item[i]].cfg, 10);
		best = v < best ? v : best;
	}
	for (int k = TUNE_GRID; k < TUNE_KINDS; k++) {
		int hits = 0, kept = 0;
		for (uint64_t seed = 1; seed <= 10; seed++) {
			struct trace t;
			struct tune_state *st =
				search((enum tune_kind)k, s, seed, 10, k == TUNE_GRID ? (long)s->n : 15);
			drive(st, s, 1, -1, &t);
			double won = objective(&s->plan->items[s->item[t.winner.t.cand]].cfg, 10);
			double sampled = INFINITY;
			for (size_t i = 0; i < t.n; i++) {
				double v = objective(&s->plan->items[s->item[t.t[i].cand]].cfg, 10);
				sampled = v < sampled ? v : sampled;
			}
			hits += t.found && won <= best * 1.05;
			kept += t.found && won == sampled;
			if (k == TUNE_HALVING && seed == 1) {
				T_EQ_INT("find-halving-full-iterations", t.winner.t.iterations, 10);
				T_CHECK("find-halving-levels", t.t[0].iterations < 10,
					"first rung at %d iterations", t.t[0].iterations);
			}
			tune_free(st);
		}
		snprintf(id, sizeof id, "find-%s-kept", ids[k]);
		T_EQ_INT(id, kept, 10);
		snprintf(id, sizeof id, "find-%s", ids[k]);
		int want = k == TUNE_GRID ? 10 : k == TUNE_ANNEAL ? 8 : 0;
		T_CHECK(id, hits >= want, "within 5%% of the minimum for %d of 10 seeds, want %d", hits,
			want);
	}
}

/* --time: before the budget is known only the first trial is handed out,
 * the candidate the search starts with whatever the budget (halving runs
 * it at the full iterations, to set the pace, and again in its rung). */
static void test_unknown_budget(const struct tune_space *s)
{
	for (int k = TUNE_GRID; k < TUNE_KINDS; k++) {
		struct tune_trial a[4], b[4];
		char id[64];
		struct tune_state *x = search((enum tune_kind)k, s, 5, 10, 0);
		struct tune_state *y = search((enum tune_kind)k, s, 5, 10, 20);
		size_t nx = tune_ask(x, a, 4), ny = tune_ask(y, b, 1);
		tune_tell(x, &a[0], 1.0);
		snprintf(id, sizeof id, "time-%s-first", ids[k]);
		T_CHECK(id, nx == 1 && ny == 1 && a[0].cand == b[0].cand && a[0].iterations == 10 &&
				    (k == TUNE_HALVING ? b[0].iterations < 10 : b[0].iterations == 10),
			"%zu and %zu trials, candidates %zu and %zu", nx, ny, a[0].cand, b[0].cand);
		snprintf(id, sizeof id, "time-%s-waits", ids[k]);
		T_EQ_INT(id, tune_ask(x, a, 4), 0);
		tune_set_budget(x, 5);
		snprintf(id, sizeof id, "time-%s-goes-on", ids[k]);
		T_CHECK(id, tune_ask(x, a, 1) == 1, "no trial after the budget was set");
		tune_free(x);
		tune_free(y);
	}
}

/* ---- the model strategy on a model ---- */

/* gemm fp16 W=1 512x3072x4096: 5 x 5 tiles x 4 BLK_K x 4 stages x 2 warps
 * = 800 candidates, all valid; on 132 SMs the truth's best tile is
 * 128x128 (24 tiles: one wave), between tiles that waste compute on one
 * wave and tiles that reread A and B */
static const char model_space_text[] =
	"{\"algorithm\": \"gemm\", \"world\": 1, \"M\": 512, \"N\": 3072, \"K\": 4096,"
	" \"dtype\": \"fp16\", \"BLK_M\": [16, 32, 64, 128, 256], \"BLK_N\": [16, 32, 64, 128, 256],"
	" \"BLK_K\": [16, 32, 64, 128], \"num_stages\": [1, 2, 3, 4], \"num_warps\": [4, 8]}";

/* The truth a model search is judged against: the cost model with coef
 * per group (num_warps 8 is group 1 when two), times 1 + noise x a
 * deterministic wobble in [-1, 1]; candidates with fail set fail. */
struct truth {
	const double *terms;
	double coef[2][MODEL_TERMS];
	double noise;
	const unsigned char *fail;
	const unsigned char *group;
};

static double truth_clean(const struct truth *t, size_t c)
{
	return model_time(t->terms + c * MODEL_TERMS, t->coef[t->group ? t->group[c] : 0]);
}

static double truth_ms(const struct tune_space *s, size_t c, int iterations, const void *ctx)
{
	const struct truth *t = ctx;
	(void)s;
	(void)iterations;
	if (t->fail && t->fail[c])
		return INFINITY;
	uint64_t h = (uint64_t)c * 0x9e3779b97f4a7c15ull;
	h ^= h >> 29;
	double u = (double)(h % 2001) / 1000.0 - 1.0;
	return truth_clean(t, c) * (1.0 + t->noise * u);
}

/* The noise-free best of the candidates that do not fail. */
static double truth_best(const struct truth *t, size_t n)
{
	double best = INFINITY;
	for (size_t c = 0; c < n; c++)
		if (!(t->fail && t->fail[c]) && truth_clean(t, c) < best)
			best = truth_clean(t, c);
	return best;
}

/* The candidate a model with coef ranks first. */
static size_t model_first(const double *terms, const double *coef, size_t n)
{
	size_t best = 0;
	for (size_t c = 1; c < n; c++)
		if (model_time(terms + c * MODEL_TERMS, coef) < model_time(terms + best * MODEL_TERMS, coef))
			best = c;
	return best;
}

static struct tune_state *model_search(const struct tune_space *s, const double *terms,
				       const unsigned char *group, const double *prior,
				       int ngroups, uint64_t seed, long budget)
{
	struct tune_state *st = tune_new(TUNE_MODEL, s, seed, 10, budget);
	if (st && tune_set_model(st, terms, group, prior, ngroups, TUNE_MODEL_PRIOR_WEIGHT))
		printf("FAIL setup: tune_set_model\n");
	return st;
}

/* Trials handed out twice in tr (0: every configuration ran once). */
static size_t repeats(const struct trace *tr)
{
	size_t r = 0;
	for (size_t i = 0; i < tr->n; i++)
		for (size_t j = 0; j < i; j++)
			r += tr->t[i].cand == tr->t[j].cand;
	return r;
}

/* model-*: with budget 10% of the space the search finds the truth's
 * best within 3% (noise 2%), from a stored fit near the truth and from a
 * misleading one that ranks something far slower first (the refits
 * correct it); never twice the same configuration; the budget exactly;
 * the same trials for a seed, in batches too; failed runs never win. */
static void test_model_strategy(void)
{
	struct fgo_plan p;
	struct tune_space s;
	char err[512], id[96];
	if (spec_parse("m.json", model_space_text, NULL, NULL, &p, err, sizeof err) != FGO_OK) {
		printf("FAIL model-setup: %s\n", err);
		return;
	}
	tune_space_build(&p, (size_t)1 << 30, &s);
	T_EQ_INT("model-space", s.n, 800);
	double *terms = space_terms(&s);
	struct truth t = { terms, { { 0.004, 1.3, 1.1, 0.4, 2.0, 0.6, 1.0, 1.0 } }, 0.02, NULL, NULL };
	double best = truth_best(&t, s.n);
	const long budget = (long)s.n / 10;
	static const struct {
		const char *id;
		double prior[MODEL_TERMS];
	} priors[] = {
		{ "near", { 0.005, 1.0, 1.0, 0.3, 2.5, 0.5, 1.0, 1.0 } },
		/* compute dear, rereading cheap: 64x64 tiles first (1.4x) */
		{ "compute-dear", { 0.004, 3.0, 1.0, 0.05, 0.5, 0.05, 1.0, 1.0 } },
		/* nothing but the reuse of A and B: 256x256, 1 stage first (2.1x) */
		{ "reuse-only", { 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0 } },
		/* nothing but compute: 16x16 tiles, 1 stage first (16x) */
		{ "compute-only", { 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 } },
	};
	for (size_t i = 0; i < FGO_ARRAY_SIZE(priors); i++) {
		int hits = 0;
		size_t rep = 0;
		long off_budget = 0;
		double worst = 0;
		for (uint64_t seed = 1; seed <= 5; seed++) {
			struct trace tr;
			struct tune_state *st = model_search(&s, terms, NULL, priors[i].prior, 1, seed, budget);
			drive_with(st, &s, 1, -1, truth_ms, &t, &tr);
			double won = tr.found ? truth_clean(&t, tr.winner.t.cand) : INFINITY;
			hits += won <= best * 1.03;
			worst = won / best > worst ? won / best : worst;
			rep += repeats(&tr);
			off_budget += tr.runs != budget || (long)tr.n != budget;
			tune_free(st);
		}
		double first = truth_clean(&t, model_first(terms, priors[i].prior, s.n));
		snprintf(id, sizeof id, "model-find-%s", priors[i].id);
		T_CHECK(id, hits == 5,
			"within 3%% of the best for %d of 5 seeds with %ld of %zu runs (worst %.3fx; the"
			" prior's first choice %.3fx)", hits, budget, s.n, worst, first / best);
		snprintf(id, sizeof id, "model-no-repeat-%s", priors[i].id);
		T_EQ_INT(id, rep, 0);
		snprintf(id, sizeof id, "model-budget-%s", priors[i].id);
		T_EQ_INT(id, off_budget, 0);
		if (i > 0) { /* the prior alone would be far off: the refit found the way */
			snprintf(id, sizeof id, "model-prior-misleads-%s", priors[i].id);
			T_CHECK(id, first > 1.3 * best, "the prior's first choice is %.3fx the best",
				first / best);
		}
	}

	/* the refit recovers the truth's ranking: after a search from the
	 * misleading prior the coefficients predict the measured runs */
	{
		struct trace tr;
		struct tune_state *st = model_search(&s, terms, NULL, priors[1].prior, 1, 1, budget);
		drive_with(st, &s, 1, -1, truth_ms, &t, &tr);
		const double *c = tune_model_coef(st, 0);
		double worst = 0;
		for (size_t j = 0; c && j < tr.n; j++) {
			double e = fabs(model_time(terms + tr.t[j].cand * MODEL_TERMS, c) /
					truth_clean(&t, tr.t[j].cand) - 1);
			worst = e > worst ? e : worst;
		}
		T_CHECK("model-refit-fits", c && worst < 0.15,
			"the refitted model is %.1f%% off on a measured run", 100 * worst);
		tune_free(st);
	}

	/* every budget, the whole space included: each configuration at most once */
	static const long budgets[] = { 1, 3, 10, 80, 333, 800, 5000 };
	for (size_t b = 0; b < FGO_ARRAY_SIZE(budgets); b++) {
		struct trace tr;
		struct tune_state *st = model_search(&s, terms, NULL, priors[0].prior, 1, 2, budgets[b]);
		drive_with(st, &s, 3, -1, truth_ms, &t, &tr);
		long want = budgets[b] < (long)s.n ? budgets[b] : (long)s.n;
		snprintf(id, sizeof id, "model-budget-%ld", budgets[b]);
		T_CHECK(id, tr.runs == want && (long)tr.n == want && repeats(&tr) == 0 && tune_done(st),
			"%ld runs, %zu handed out, %zu repeated, want %ld each once", tr.runs, tr.n,
			repeats(&tr), want);
		tune_free(st);
	}

	/* a seed gives the same trials, one at a time or three; ties (the
	 * same terms: num_warps is no term) go by the seed */
	{
		struct trace a, b, c;
		struct tune_state *x = model_search(&s, terms, NULL, priors[1].prior, 1, 7, budget);
		struct tune_state *y = model_search(&s, terms, NULL, priors[1].prior, 1, 7, budget);
		struct tune_state *z = model_search(&s, terms, NULL, priors[1].prior, 1, 8, budget);
		drive_with(x, &s, 1, -1, truth_ms, &t, &a);
		drive_with(y, &s, 3, -1, truth_ms, &t, &b);
		drive_with(z, &s, 1, -1, truth_ms, &t, &c);
		T_CHECK("model-seed-same", same_trials(&a, &b), "seed 7 gave different trials");
		T_CHECK("model-seed-other", !same_trials(&a, &c), "seed 8 repeated seed 7's trials");
		tune_free(x);
		tune_free(y);
		tune_free(z);
	}

	/* failed runs: the truth's 20 best fail; the winner is an ok run and
	 * the best of those that do not fail is found all the same */
	{
		unsigned char *fail = calloc(s.n, 1);
		struct truth tf = t;
		tf.fail = fail;
		for (int f = 0; fail && f < 20; f++) {
			size_t m = (size_t)-1;
			for (size_t c = 0; c < s.n; c++)
				if (!fail[c] && (m == (size_t)-1 || truth_clean(&t, c) < truth_clean(&t, m)))
					m = c;
			fail[m] = 1;
		}
		struct trace tr;
		struct tune_state *st = model_search(&s, terms, NULL, priors[0].prior, 1, 3, budget);
		drive_with(st, &s, 1, -1, truth_ms, &tf, &tr);
		size_t failed = 0;
		for (size_t j = 0; j < tr.n; j++)
			failed += fail[tr.t[j].cand];
		double won = tr.found ? truth_clean(&t, tr.winner.t.cand) : INFINITY;
		T_CHECK("model-failed-never-win", tr.found && !fail[tr.winner.t.cand] &&
			isfinite(tr.winner.ms) && failed > 0,
			"winner %zu (failed %d), %zu failed runs tried", tr.winner.t.cand,
			tr.found ? fail[tr.winner.t.cand] : -1, failed);
		T_CHECK("model-failed-find", won <= truth_best(&tf, s.n) * 1.03,
			"winner %.3fx the best that does not fail", won / truth_best(&tf, s.n));
		T_EQ_INT("model-failed-no-repeat", repeats(&tr), 0);
		tune_free(st);
		free(fail);
	}

	/* two cores (groups): num_warps 8 here on a core twice as fast per
	 * MAC, each refitted to its own runs from the one prior */
	{
		unsigned char *group = calloc(s.n, 1);
		struct truth tg = t;
		for (size_t c = 0; group && c < s.n; c++)
			group[c] = s.plan->items[s.item[c]].cfg.num_warps == 8;
		tg.group = group;
		memcpy(tg.coef[1], t.coef[0], sizeof t.coef[0]);
		tg.coef[1][MT_COMPUTE] /= 2;
		double two[2][MODEL_TERMS];
		memcpy(two[0], priors[0].prior, sizeof two[0]);
		memcpy(two[1], priors[0].prior, sizeof two[1]);
		struct trace tr;
		struct tune_state *st = model_search(&s, terms, group, &two[0][0], 2, 1, budget);
		drive_with(st, &s, 1, -1, truth_ms, &tg, &tr);
		double won = tr.found ? truth_clean(&tg, tr.winner.t.cand) : INFINITY;
		T_CHECK("model-groups-find", won <= truth_best(&tg, s.n) * 1.03,
			"winner %.3fx the best", won / truth_best(&tg, s.n));
		const double *c1 = tune_model_coef(st, 1), *c0 = tune_model_coef(st, 0);
		T_CHECK("model-groups-refit", c0 && c1 && c1[MT_COMPUTE] < c0[MT_COMPUTE],
			"compute coefficient of the faster core %g, of the other %g", c1 ? c1[MT_COMPUTE] : -1,
			c0 ? c0[MT_COMPUTE] : -1);
		group[s.n / 2] = 2;
		T_EQ_INT("model-groups-range", tune_set_model(st, terms, group, &two[0][0], 2, 0.05),
			 FGO_EUSAGE);
		tune_free(st);
		free(group);
	}
	free(terms);
	tune_space_free(&s);
	plan_free(&p);
}

int main(void)
{
	struct fgo_plan p;
	char err[512];
	test_parse();
	if (spec_parse("t.json", space_text, NULL, NULL, &p, err, sizeof err) != FGO_OK) {
		printf("FAIL setup: %s\n", err);
		return 1;
	}
	test_prune(&p, (size_t)1 << 30, "prune-1.1");
	/* a heap just too small for the small tiles (more flags): some valid
	 * configurations are pruned for their heap too */
	test_prune(&p, 82100, "prune-1.2");
	struct tune_space h;
	tune_space_build(&p, 82100, &h);
	T_CHECK("prune-1.3", h.pruned > 48 && h.n > 0, "%zu pruned, %zu left (48 invalid)", h.pruned,
		h.n);
	tune_space_free(&h);
	test_space(&p);
	struct tune_space s;
	tune_space_build(&p, (size_t)1 << 30, &s);
	test_determinism(&s);
	test_budget(&s);
	test_resume(&s);
	test_find(&s);
	test_unknown_budget(&s);
	tune_space_free(&s);
	test_model_strategy();
	plan_free(&p);
	T_DONE();
}
