/* tune_replay.c: the search strategies of `fgobench tune` replayed over a
 * grid already in the store, without running anything: each trial is
 * answered with the grid's stored time of that configuration. It measures
 * the strategies apart from the machine's noise (a real tune measures
 * afresh). Built and run by tests/bench/tune_evidence.sh (phase replay):
 *
 *   tune_replay DB TAG SPACE.json M N K FRACTION SEEDS
 *
 * prints, per strategy, how many seeds (1..SEEDS) end within 5% of the
 * grid's best with a budget of FRACTION of the space, and the mean ratio. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "spec/spec.h"
#include "tune/tune.h"

int main(int argc, char **argv)
{
	if (argc != 9) {
		fprintf(stderr, "usage: tune_replay DB TAG SPACE.json M N K FRACTION SEEDS\n");
		return 2;
	}
	struct fgo_config base;
	struct fgo_config_mask set;
	struct fgo_plan plan;
	struct tune_space s;
	char err[512];
	config_defaults(&base);
	base.m = atol(argv[4]);
	base.n = atol(argv[5]);
	base.k = atol(argv[6]);
	memset(&set, 0, sizeof set);
	set.m = set.n = set.k = set.algorithm = set.dtype = set.world = 1;
	if (spec_load(argv[3], &base, &set, &plan, err, sizeof err) ||
	    tune_space_build(&plan, (size_t)1 << 30, &s)) {
		fprintf(stderr, "tune_replay: %s\n", err);
		return 2;
	}
	sqlite3 *db;
	if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return 2;
	double *ms = malloc(sizeof *ms * (s.n + 1)), best = INFINITY;
	for (size_t c = 0; c < s.n; c++) {
		char key[FGO_KEY_MAX];
		sqlite3_stmt *q;
		config_key(&plan.items[s.item[c]].cfg, key, sizeof key);
		sqlite3_prepare_v2(db,
				   "SELECT r.t_fused_ms FROM runs r JOIN sweeps w ON w.id = r.sweep_id"
				   " WHERE w.tag = ?1 AND r.config_key = ?2 AND r.status = 'ok'"
				   " ORDER BY r.id DESC LIMIT 1",
				   -1, &q, NULL);
		sqlite3_bind_text(q, 1, argv[2], -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 2, key, -1, SQLITE_STATIC);
		ms[c] = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_double(q, 0) : INFINITY;
		sqlite3_finalize(q);
		best = ms[c] < best ? ms[c] : best;
	}
	long budget = (long)ceil((double)s.n * atof(argv[7]));
	int seeds = atoi(argv[8]);
	for (int k = TUNE_RANDOM; k <= TUNE_HALVING; k++) {
		int within = 0;
		double sum = 0;
		for (int seed = 1; seed <= seeds; seed++) {
			struct tune_state *st = tune_new((enum tune_kind)k, &s, (uint64_t)seed,
							 plan.iterations, budget);
			struct tune_trial t;
			struct tune_event e;
			while (tune_ask(st, &t, 1) == 1)
				tune_tell(st, &t, ms[t.cand]); /* the grid's time, whatever the iterations */
			double r = tune_winner(st, &e) == 0 ? ms[e.t.cand] / best : INFINITY;
			sum += r;
			within += r <= 1.05;
			tune_free(st);
		}
		printf("%sx%sx%s %s %ld %zu %d %d %.3f\n", argv[4], argv[5], argv[6], tune_kind_name((enum tune_kind)k), budget,
		       s.n, within, seeds, sum / seeds);
	}
	sqlite3_close(db);
	free(ms);
	tune_space_free(&s);
	plan_free(&plan);
	return 0;
}
