/* tune/shot_pick.c: the shot of `--algorithm all_reduce`, per problem, from
 * the store's runs, best --predict's ranking or the world size (see
 * shot_pick.h). */
#include "tune/shot_pick.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "algo.h"
#include "algos/kit.h"
#include "fgo.h"
#include "store/store.h"
#include "tune/auto_pick.h"

const char *const shot_source_names[4] = { "only", "measured", "ranked", "rule" };

const char *shot_algorithm(enum shot s)
{
	return s == SHOT_TWO ? ALGO_CHOICE_SECOND : ALGO_CHOICE_FIRST;
}

static const char *shot_word(enum shot s)
{
	return s == SHOT_TWO ? "two-shot" : "one-shot";
}

void shot_decide(const struct shot_evidence *e, struct shot_choice *out)
{
	memset(out, 0, sizeof *out);
	if (e->valid[SHOT_ONE] != e->valid[SHOT_TWO] || !e->valid[SHOT_ONE]) {
		out->shot = e->valid[SHOT_TWO] && !e->valid[SHOT_ONE] ? SHOT_TWO : SHOT_ONE;
		out->source = SHOT_ONLY;
		snprintf(out->why, sizeof out->why, "%s",
			 e->valid[SHOT_ONE] || e->valid[SHOT_TWO] ? "the only shot valid for the problem"
								  : "neither shot is valid for the problem");
		return;
	}
	const double *m = e->measured_ms, *p = e->predicted_ms;
	if (m[SHOT_ONE] > 0 && m[SHOT_TWO] > 0) {
		/* a tie is one-shot's: the simpler kernel, one phase */
		out->shot = m[SHOT_TWO] < m[SHOT_ONE] ? SHOT_TWO : SHOT_ONE;
		out->source = SHOT_MEASURED;
		snprintf(out->why, sizeof out->why, "measured here: one-shot %.1f us, two-shot %.1f us",
			 m[SHOT_ONE] * 1e3, m[SHOT_TWO] * 1e3);
		return;
	}
	char ranked[128] = "";
	if (p[SHOT_ONE] > 0 && p[SHOT_TWO] > 0) {
		double lo = p[SHOT_ONE] < p[SHOT_TWO] ? p[SHOT_ONE] : p[SHOT_TWO];
		double hi = p[SHOT_ONE] < p[SHOT_TWO] ? p[SHOT_TWO] : p[SHOT_ONE];
		if (hi > lo * (1 + SHOT_MARGIN)) {
			out->shot = p[SHOT_TWO] < p[SHOT_ONE] ? SHOT_TWO : SHOT_ONE;
			out->source = SHOT_RANKED;
			snprintf(out->why, sizeof out->why,
				 "predicted as best --predict ranks: one-shot %.1f us, two-shot %.1f us",
				 p[SHOT_ONE] * 1e3, p[SHOT_TWO] * 1e3);
			return;
		}
		snprintf(ranked, sizeof ranked, " (predicted one-shot %.1f us, two-shot %.1f us: within"
			 " %.0f%%, too close to call)", p[SHOT_ONE] * 1e3, p[SHOT_TWO] * 1e3,
			 SHOT_MARGIN * 100);
	}
	char c[32], rule[160];
	fmt_bytes(e->c_bytes, c, sizeof c);
	out->source = SHOT_RULE;
	out->shot = SHOT_ONE;
	if (e->c_bytes < SHOT_TWO_MIN_C) {
		snprintf(rule, sizeof rule, "C = %s, under 1 MiB: one-shot's one phase", c);
	} else if (e->world > 2) {
		out->shot = SHOT_TWO;
		snprintf(rule, sizeof rule, "C = %s at W = %d: two-shot sends 2(W-1)/W of C where"
			 " one-shot sends (W-1) C", c, e->world);
	} else if (e->k_per_rank <= SHOT_TWO_MAX_KW) {
		out->shot = SHOT_TWO;
		snprintf(rule, sizeof rule, "C = %s at W = 2, K/W = %ld: a GEMM too short to hide"
			 " one-shot's reads of W partial Cs", c, e->k_per_rank);
	} else {
		snprintf(rule, sizeof rule, "C = %s at W = 2, K/W = %ld: both send C once, one-shot"
			 " in one phase", c, e->k_per_rank);
	}
	snprintf(out->why, sizeof out->why, "%s%s", rule, ranked);
}

/* The best ok fused time of cfg's algorithm at its shape, dtype and W on
 * host and backend, from sweeps whose ranks had a device each; 0 when
 * none. */
static const char measured_sql[] =
	"SELECT min(r.t_fused_ms) FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
	" WHERE r.algorithm = ?1 AND r.dtype = ?2 AND r.world = ?3 AND r.m = ?4 AND r.n = ?5"
	" AND r.k = ?6 AND r.status = 'ok' AND r.t_fused_ms > 0 AND s.host = ?7 AND s.backend = ?8"
	" AND NOT (s.devices LIKE '%x %' AND s.mpi_ranks >"
	"  CAST(substr(s.devices, 1, instr(s.devices, 'x ') - 1) AS INTEGER))";

static int measured(struct fgo_store *st, const struct fgo_config *cfg, const char *host,
		    const char *backend, double *ms)
{
	sqlite3_stmt *q;
	*ms = 0;
	if (!st)
		return FGO_OK;
	if (sqlite3_prepare_v2(store_db(st), measured_sql, -1, &q, NULL) != SQLITE_OK) {
		error("all_reduce: reading the runs failed: %s", sqlite3_errmsg(store_db(st)));
		return FGO_EFAIL;
	}
	sqlite3_bind_text(q, 1, cfg->algorithm, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, dtype_name(cfg->dtype), -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 3, cfg->world);
	sqlite3_bind_int64(q, 4, cfg->m);
	sqlite3_bind_int64(q, 5, cfg->n);
	sqlite3_bind_int64(q, 6, cfg->k);
	sqlite3_bind_text(q, 7, host, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 8, backend, -1, SQLITE_STATIC);
	int step = sqlite3_step(q);
	if (step == SQLITE_ROW)
		*ms = sqlite3_column_double(q, 0);
	sqlite3_finalize(q);
	if (step != SQLITE_ROW && step != SQLITE_DONE) {
		error("all_reduce: reading the runs failed: %s", sqlite3_errmsg(store_db(st)));
		return FGO_EFAIL;
	}
	return FGO_OK;
}

/* The runs best --predict ranks a shot from, kept for the next item of
 * the same shot, dtype and W (a sweep's problems share them). */
struct shot_runs {
	char algorithm[sizeof ((struct fgo_config *)0)->algorithm];
	int dtype, world, loaded;
	struct predict_obs *obs;
	size_t n;
};

static int shot_runs_get(struct shot_runs *c, const struct fgo_config *cfg, const char *db,
			 const char *host, const char *backend)
{
	if (c->loaded && !strcmp(c->algorithm, cfg->algorithm) && c->dtype == (int)cfg->dtype &&
	    c->world == cfg->world)
		return FGO_OK;
	char err[1024];
	free(c->obs);
	memset(c, 0, sizeof *c);
	if (auto_pick_runs(db, cfg, host, backend, &c->obs, &c->n, err, sizeof err) != FGO_OK) {
		error("all_reduce: %s", err);
		return FGO_EFAIL;
	}
	memcpy(c->algorithm, cfg->algorithm, sizeof c->algorithm);
	c->dtype = (int)cfg->dtype;
	c->world = cfg->world;
	c->loaded = 1;
	return FGO_OK;
}

/* best --predict's first of cfg's algorithm at cfg's shape (0: the store
 * does not cover it, or no fit of its core). */
static int ranked(struct shot_runs *c, const struct fgo_config *cfg, const char *arch,
		  const struct predict_model *pm, const char *db, const char *host,
		  const char *backend, double *ms)
{
	struct auto_pick pick;
	*ms = 0;
	if (!pm->ncores)
		return FGO_OK;
	if (shot_runs_get(c, cfg, db, host, backend) != FGO_OK)
		return FGO_EFAIL;
	if (auto_pick_one(cfg, arch, c->obs, c->n, pm, &pick) != FGO_OK) {
		error("all_reduce: out of memory ranking the configurations of %s", cfg->algorithm);
		return FGO_EFAIL;
	}
	if (pick.source == AUTO_RANKED)
		*ms = pick.predicted_ms;
	return FGO_OK;
}

/* Drops each item that named ALGO_CHOICE and now repeats an earlier
 * item's configuration (the spec listed the shot as well). */
static size_t drop_repeats(struct fgo_plan *plan)
{
	size_t kept = 0, dropped = 0;
	char key[FGO_KEY_MAX], other[FGO_KEY_MAX];
	for (size_t i = 0; i < plan->count; i++) {
		struct fgo_plan_item *it = &plan->items[i];
		int repeat = 0;
		if (it->shot_choice) {
			config_key(&it->cfg, key, sizeof key);
			for (size_t j = 0; j < kept && !repeat; j++) {
				config_key(&plan->items[j].cfg, other, sizeof other);
				repeat = !strcmp(key, other);
			}
			/* or a later item that the spec gave as such */
			for (size_t j = i + 1; j < plan->count && !repeat; j++) {
				if (plan->items[j].shot_choice)
					continue;
				config_key(&plan->items[j].cfg, other, sizeof other);
				repeat = !strcmp(key, other);
			}
		}
		if (repeat) {
			dropped++;
			continue;
		}
		plan->items[kept++] = *it;
	}
	plan->count = kept;
	return dropped;
}

int shot_pick_plan(struct fgo_plan *plan, const char *arch, const char *backend,
		   const char *db_path)
{
	struct predict_model pm;
	struct fgo_store *st = NULL;
	struct shot_runs runs[2];
	char host[128] = "", err[1024];
	size_t shown = 0, chose[2] = { 0, 0 }, by[4] = { 0, 0, 0, 0 };
	int rc = FGO_OK, any = 0;
	for (size_t i = 0; i < plan->count && !any; i++)
		any = plan->items[i].shot_choice;
	if (!any)
		return FGO_OK;
	memset(runs, 0, sizeof runs);
	memset(&pm, 0, sizeof pm);
	gethostname(host, sizeof host - 1);
	struct stat sb;
	/* no store yet, or an empty file the sweep will make one: no runs */
	if (stat(db_path, &sb) == 0 && sb.st_size > 0) {
		if (store_open(db_path, FGO_STORE_READ, &st, err, sizeof err) != FGO_OK ||
		    auto_pick_model(db_path, host, backend, &pm, err, sizeof err) != FGO_OK) {
			error("all_reduce: %s", err);
			store_close(st);
			return FGO_EFAIL;
		}
	}
	for (size_t i = 0; i < plan->count && rc == FGO_OK; i++) {
		struct fgo_plan_item *it = &plan->items[i];
		if (!it->shot_choice)
			continue;
		struct fgo_config cfg[2] = { it->cfg, it->cfg };
		struct shot_evidence e;
		struct shot_choice c;
		char reason[2][FGO_REASON_MAX];
		memset(&e, 0, sizeof e);
		e.world = it->cfg.world;
		e.c_bytes = (double)it->cfg.m * (double)it->cfg.n * (double)dtype_size(it->cfg.dtype);
		e.k_per_rank = it->cfg.k / (it->cfg.world > 0 ? it->cfg.world : 1);
		for (int s = 0; s < 2 && rc == FGO_OK; s++) {
			snprintf(cfg[s].algorithm, sizeof cfg[s].algorithm, "%s", shot_algorithm((enum shot)s));
			e.valid[s] = !config_validate(&cfg[s], reason[s], sizeof reason[s]);
			if (!e.valid[s])
				continue;
			rc = measured(st, &cfg[s], host, backend, &e.measured_ms[s]);
			if (rc == FGO_OK)
				rc = ranked(&runs[s], &cfg[s], arch, &pm, db_path, host, backend,
					    &e.predicted_ms[s]);
		}
		if (rc != FGO_OK)
			break;
		shot_decide(&e, &c);
		it->cfg = cfg[c.shot];
		it->valid = e.valid[c.shot];
		snprintf(it->reason, sizeof it->reason, "%s", it->valid ? "" : reason[c.shot]);
		chose[c.shot]++;
		by[c.source]++;
		if (shown++ < 8)
			note("all_reduce %s W=%d M=%ld N=%ld K=%ld: %s (%s)", dtype_name(it->cfg.dtype),
			     it->cfg.world, it->cfg.m, it->cfg.n, it->cfg.k, shot_word(c.shot), c.why);
	}
	for (int s = 0; s < 2; s++)
		free(runs[s].obs);
	store_close(st);
	if (rc != FGO_OK)
		return rc;
	size_t dropped = drop_repeats(plan);
	char also[128] = "";
	if (dropped)
		snprintf(also, sizeof also, "; %zu dropped: the spec gives that shot's configuration"
			 " too", dropped);
	if (shown > 1 || dropped)
		note("all_reduce: %zu configuration%s one-shot, %zu two-shot (measured %zu, ranked %zu,"
		     " by the rule %zu, the only valid shot %zu)%s", chose[0], chose[0] == 1 ? "" : "s",
		     chose[1], by[SHOT_MEASURED], by[SHOT_RANKED], by[SHOT_RULE], by[SHOT_ONLY], also);
	return FGO_OK;
}

/* The machine of the newest ok run of either shot at cfg's dtype and W. */
static int report_machine(struct fgo_store *st, const struct fgo_config *cfg,
			  struct shot_report *r)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(store_db(st),
			       "SELECT coalesce(s.host, ''), coalesce(s.backend, ''), coalesce(s.arch, '')"
			       " FROM runs r JOIN sweeps s ON s.id = r.sweep_id WHERE r.algorithm IN (?1, ?2)"
			       " AND r.dtype = ?3 AND r.world = ?4 AND r.status = 'ok' AND r.t_fused_ms > 0"
			       " ORDER BY r.id DESC LIMIT 1",
			       -1, &q, NULL) != SQLITE_OK) {
		error("all_reduce: reading the runs failed: %s", sqlite3_errmsg(store_db(st)));
		return FGO_EFAIL;
	}
	sqlite3_bind_text(q, 1, ALGO_CHOICE_FIRST, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, ALGO_CHOICE_SECOND, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, dtype_name(cfg->dtype), -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 4, cfg->world);
	int step = sqlite3_step(q), rc = FGO_OK;
	if (step == SQLITE_ROW) {
		snprintf(r->host, sizeof r->host, "%s", (const char *)sqlite3_column_text(q, 0));
		snprintf(r->backend, sizeof r->backend, "%s", (const char *)sqlite3_column_text(q, 1));
		snprintf(r->arch, sizeof r->arch, "%s", (const char *)sqlite3_column_text(q, 2));
	} else if (step == SQLITE_DONE) {
		error("no ok runs of all_reduce_one_shot or all_reduce_two_shot %s at W=%d to predict"
		      " from: sweep both shots at a few shapes first (sweeps/mgpu.json has them)",
		      dtype_name(cfg->dtype), cfg->world);
		rc = FGO_EUSAGE;
	} else {
		error("all_reduce: reading the runs failed: %s", sqlite3_errmsg(store_db(st)));
		rc = FGO_EFAIL;
	}
	sqlite3_finalize(q);
	return rc;
}

int shot_pick_predict(const char *db_path, const struct fgo_config *cfg, struct shot_report *r)
{
	struct predict_model pm;
	struct fgo_store *st = NULL;
	struct shot_runs runs[2];
	char err[1024];
	memset(r, 0, sizeof *r);
	memset(runs, 0, sizeof runs);
	if (store_open(db_path, FGO_STORE_READ, &st, err, sizeof err) != FGO_OK) {
		error("%s", err);
		return FGO_EUSAGE;
	}
	int rc = report_machine(st, cfg, r);
	if (rc == FGO_OK && auto_pick_model(db_path, r->host, r->backend, &pm, err, sizeof err) != FGO_OK) {
		error("all_reduce: %s", err);
		rc = FGO_EFAIL;
	}
	r->e.world = cfg->world;
	r->e.c_bytes = (double)cfg->m * (double)cfg->n * (double)dtype_size(cfg->dtype);
	r->e.k_per_rank = cfg->k / (cfg->world > 0 ? cfg->world : 1);
	for (int s = 0; s < 2 && rc == FGO_OK; s++) {
		struct fgo_config c = *cfg;
		char why[FGO_REASON_MAX];
		snprintf(c.algorithm, sizeof c.algorithm, "%s", shot_algorithm((enum shot)s));
		kit_fit_tile(&c); /* the default tile fitted to the shape, as run's */
		r->e.valid[s] = !config_validate(&c, why, sizeof why);
		if (!r->e.valid[s])
			continue;
		rc = measured(st, &c, r->host, r->backend, &r->measured_ms[s]);
		if (rc == FGO_OK)
			rc = ranked(&runs[s], &c, r->arch, &pm, db_path, r->host, r->backend,
				    &r->e.predicted_ms[s]);
	}
	for (int s = 0; s < 2; s++)
		free(runs[s].obs);
	store_close(st);
	if (rc == FGO_OK)
		shot_decide(&r->e, &r->c);
	return rc;
}
