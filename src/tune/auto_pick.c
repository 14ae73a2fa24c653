/* tune/auto_pick.c: `config auto`, best --predict's ranking of a problem's
 * configuration where the store covers its shape, else the defaults
 * table's pick (see auto_pick.h). */
#include "tune/auto_pick.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algo.h"
#include "fgo.h"
#include "spec/defaults.h"
#include "store/store.h"
#include "tune/model_refit.h"
#include "views/views.h"

/* Whether candidate c keeps what cfg's spec or flags gave: the fields with
 * a given bit, gsize_m where cfg's is not the default (it has no bit: a
 * value other than the default was asked for) and deterministic (a
 * property of the result, not a speed: never changed). */
static int keeps_given(const struct fgo_config *cfg, const struct fgo_config *c)
{
	struct fgo_config dflt;
	config_defaults(&dflt);
	if ((cfg->given & FGO_GIVEN_MMA) && c->mma != cfg->mma)
		return 0;
	if ((cfg->given & FGO_GIVEN_SPLIT_K) && c->split_k != cfg->split_k)
		return 0;
	if ((cfg->given & FGO_GIVEN_COMM_BLK) &&
	    (c->comm_blk_m != cfg->comm_blk_m || c->comm_blk_n != cfg->comm_blk_n))
		return 0;
	if ((cfg->given & FGO_GIVEN_SMS) &&
	    (c->gemm_sms != cfg->gemm_sms || c->comm_sms != cfg->comm_sms))
		return 0;
	if ((cfg->given & FGO_GIVEN_CLUSTER) && c->cluster != cfg->cluster)
		return 0;
	if (cfg->gsize_m != dflt.gsize_m && c->gsize_m != cfg->gsize_m)
		return 0;
	return c->deterministic == cfg->deterministic;
}

/* A Stream-K form's CTAs wait on each other, so all of them must be
 * resident: at one CTA an SM, as most wgmma tiles run, more than the
 * machine's compute units (when the fit knows them) would be refused at
 * launch, so none is picked. */
static int fits_machine(const struct fgo_config *c, const struct model_machine *m)
{
	return m->cus <= 1 || (long)c->gemm_sms + c->comm_sms <= m->cus;
}

int auto_pick_one(const struct fgo_config *cfg, const char *arch, const struct predict_obs *obs,
		  size_t n, const struct predict_model *pm, struct auto_pick *out)
{
	return auto_pick_some(cfg, arch, obs, n, pm, 1, out);
}

/* Whether c is one of the first n of trial (the same key). */
static int among(const struct fgo_config *trial, int n, const struct fgo_config *c)
{
	char a[FGO_KEY_MAX], b[FGO_KEY_MAX];
	config_key(c, a, sizeof a);
	for (int i = 0; i < n; i++) {
		config_key(&trial[i], b, sizeof b);
		if (!strcmp(a, b))
			return 1;
	}
	return 0;
}

/* Whether a and b are one tile: the same block, split, walk (Stream-K
 * or data-parallel) and core, whatever their stages, warps, tile order or
 * cluster. */
static int same_tile(const struct fgo_config *a, const struct fgo_config *b)
{
	return a->blk_m == b->blk_m && a->blk_n == b->blk_n && a->blk_k == b->blk_k &&
	       a->split_k == b->split_k && (a->gemm_sms > 0) == (b->gemm_sms > 0) && a->mma == b->mma;
}

/* Whether c's tile is the tile of one of the first n of trial. */
static int tile_among(const struct fgo_config *trial, int n, const struct fgo_config *c)
{
	for (int i = 0; i < n; i++)
		if (same_tile(&trial[i], c))
			return 1;
	return 0;
}

/* Whether candidate c may be out's next trial of want: the first half of
 * the trials are the ranking's first as they come; the rest each another
 * tile, since the ranking's next places are mostly the first's tile at
 * another stage count or tile order, and where the ranking's tile is the
 * wrong one (a wave count it mispredicts) none of those finds the right
 * one. The pass that fills what is left once the ranking holds too few
 * tiles takes any (spread 0). */
static int may_trial(const struct auto_pick *out, int want, int spread, const struct fgo_config *c)
{
	if (among(out->trial, out->ntrials, c))
		return 0;
	return !spread || out->ntrials < (want + 1) / 2 || !tile_among(out->trial, out->ntrials, c);
}

/* One pass over the ranking r: each candidate that keeps what cfg gave,
 * runs here and may_trial allows becomes a trial of out, up to want; the
 * first one out's pick (AUTO_RANKED). changed and refused (where not
 * NULL) count the candidates that change a given field or cannot run. */
static void take_trials(const struct fgo_config *cfg, const char *arch,
			const struct predict_model *pm, const struct predict_result *r, int want,
			int spread, struct auto_pick *out, size_t *changed, size_t *refused)
{
	char why[FGO_REASON_MAX];
	for (size_t i = 0; i < r->count && out->ntrials < want; i++) {
		const struct predict_candidate *c = &r->cand[i];
		if (!keeps_given(cfg, &c->cfg)) {
			if (changed)
				(*changed)++;
			continue;
		}
		if (defaults_check(&c->cfg, arch, why, sizeof why) || !fits_machine(&c->cfg, &pm->machine)) {
			if (refused)
				(*refused)++;
			continue;
		}
		struct fgo_config pick = c->cfg;
		pick.given = cfg->given;
		if (!may_trial(out, want, spread, &pick))
			continue;
		out->trial[out->ntrials] = pick;
		out->trial_place[out->ntrials++] = i + 1;
		if (out->source == AUTO_RANKED)
			continue;
		out->source = AUTO_RANKED;
		out->cfg = pick;
		out->place = i + 1;
		out->predicted_ms = c->predicted_ms;
		out->model_ms = c->model_ms;
		out->correction = c->correction;
		out->coverage = c->coverage;
		out->nsupport = c->nsupport;
	}
}

int auto_pick_some(const struct fgo_config *cfg, const char *arch, const struct predict_obs *obs,
		   size_t n, const struct predict_model *pm, int want, struct auto_pick *out)
{
	struct predict_result r;
	size_t changed = 0, refused = 0;
	if (want < 1)
		want = 1;
	if (want > FGO_AUTO_TRIALS_MAX)
		want = FGO_AUTO_TRIALS_MAX;
	memset(out, 0, sizeof *out);
	out->source = AUTO_TABLE;
	out->cfg = *cfg;
	if (predict_rank_model(obs, n, cfg, pm, &r) != FGO_OK)
		return FGO_EFAIL;
	out->nshapes = r.nshapes;
	out->nnear = r.nnear;
	out->count = r.count;
	if (r.nnear > 0)
		out->nearest = r.near[0];
	if (r.nnear == 0) {
		snprintf(out->why, sizeof out->why,
			 "the store has no ok run of this problem at another shape on this host");
	} else if (r.count == 0) {
		snprintf(out->why, sizeof out->why,
			 "no configuration measured at the %d other shape%s is valid at this one with a"
			 " fit of its core", r.nshapes, r.nshapes == 1 ? "" : "s");
	} else if (r.near[0].distance > PREDICT_FAR) {
		/* best --predict still ranks here, saying it is a guess; the
		 * table's rows were measured on problems of the shape's class */
		snprintf(out->why, sizeof out->why,
			 "the nearest measured shape, %ldx%ldx%ld, is %.2f away (log2 units of M, N, K;"
			 " over %.0f best --predict calls its ranking a guess)",
			 r.near[0].m, r.near[0].n, r.near[0].k, r.near[0].distance, PREDICT_FAR);
	} else {
		/* the ranking's first, then other tiles; then, where too few
		 * tiles were ranked, any of the rest */
		take_trials(cfg, arch, pm, &r, want, 1, out, &changed, &refused);
		take_trials(cfg, arch, pm, &r, want, 0, out, NULL, NULL);
		if (out->source == AUTO_TABLE)
			snprintf(out->why, sizeof out->why,
				 "none of the %zu configurations ranked keeps what the spec or flags gave"
				 " and runs here (%zu change a given field, %zu cannot run)",
				 r.count, changed, refused);
	}
	predict_free(&r);
	return FGO_OK;
}

int auto_pick_model(const char *db_path, const char *host, const char *backend,
		    struct predict_model *pm, char *err, size_t len)
{
	static const char *const cores[MODEL_CORES] = { "wgmma", "mma16", "mma32", "simt" };
	struct fgo_store *st = NULL;
	memset(pm, 0, sizeof *pm);
	if (access(db_path, F_OK) != 0) /* no store, no fit */
		return FGO_OK;
	if (store_open(db_path, FGO_STORE_READ, &st, err, len) != FGO_OK)
		return FGO_EFAIL;
	for (int c = 0; c < MODEL_CORES; c++) {
		struct model_fit f;
		char at[32];
		int found = 0;
		if (store_model_get(st, host, backend, cores[c], &pm->machine, &f, at, &found, err,
				    len) != FGO_OK) {
			store_close(st);
			return FGO_EFAIL;
		}
		if (!found)
			continue;
		predict_model_add(pm, cores[c], &f);
	}
	store_close(st);
	model_machine_fill(&pm->machine);
	return FGO_OK;
}

/* best --predict's query (src/cmd/predict_view.c), of one problem, host
 * and backend: the newest ok run of every configuration, newest first. */
static const char runs_query[] =
	"WITH latest AS ("
	"  SELECT r.*,"
	"    row_number() OVER (PARTITION BY r.config_key ORDER BY r.id DESC) AS recency"
	"  FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
	"  WHERE r.status = 'ok' AND r.t_fused_ms > 0 AND r.algorithm = ?1 AND r.dtype = ?2"
	"    AND r.world = ?3 AND s.host = ?4 AND s.backend = ?5"
	") SELECT " VIEW_CONFIG_COLUMNS ", t_fused_ms FROM latest"
	" WHERE recency = 1 ORDER BY id DESC";

int auto_pick_runs(const char *db_path, const struct fgo_config *cfg, const char *host,
		   const char *backend, struct predict_obs **obs, size_t *n, char *err, size_t len)
{
	struct fgo_store *st = NULL;
	sqlite3_stmt *q = NULL;
	size_t cap = 0;
	int step, rc = FGO_OK;
	*obs = NULL;
	*n = 0;
	if (access(db_path, F_OK) != 0)
		return FGO_OK;
	if (store_open(db_path, FGO_STORE_READ, &st, err, len) != FGO_OK)
		return FGO_EFAIL;
	if (sqlite3_prepare_v2(store_db(st), runs_query, -1, &q, NULL) != SQLITE_OK) {
		snprintf(err, len, "reading the runs of %s in %s failed: %s", cfg->algorithm, db_path,
			 sqlite3_errmsg(store_db(st)));
		store_close(st);
		return FGO_EFAIL;
	}
	sqlite3_bind_text(q, 1, cfg->algorithm, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, dtype_name(cfg->dtype), -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 3, cfg->world);
	sqlite3_bind_text(q, 4, host, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 5, backend, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		if (*n == cap) {
			size_t more_cap = cap ? cap * 2 : 256;
			struct predict_obs *more = realloc(*obs, more_cap * sizeof *more);
			if (!more) {
				snprintf(err, len, "out of memory reading the runs of %s", cfg->algorithm);
				rc = FGO_EFAIL;
				break;
			}
			*obs = more;
			cap = more_cap;
		}
		struct predict_obs *o = &(*obs)[(*n)++];
		view_config(q, 0, &o->cfg);
		o->ms = sqlite3_column_double(q, VIEW_CONFIG_NCOLS);
	}
	if (rc == FGO_OK && step != SQLITE_DONE) {
		snprintf(err, len, "reading the runs of %s in %s failed: %s", cfg->algorithm, db_path,
			 sqlite3_errmsg(store_db(st)));
		rc = FGO_EFAIL;
	}
	sqlite3_finalize(q);
	store_close(st);
	if (rc != FGO_OK) {
		free(*obs);
		*obs = NULL;
		*n = 0;
	}
	return rc;
}

/* Whether pm has a fit of cfg's core. */
static int has_fit(const struct predict_model *pm, const struct fgo_config *cfg)
{
	for (int c = 0; c < pm->ncores; c++)
		if (!strcmp(pm->core[c].core, model_core(cfg)))
			return 1;
	return 0;
}

/* The runs of each problem of a plan, read once. */
struct runs_cache {
	struct {
		char algorithm[FGO_ALGO_NAME_MAX];
		enum fgo_dtype dtype;
		int world;
		struct predict_obs *obs;
		size_t n;
	} *e;
	size_t count;
};

static int cached_runs(struct runs_cache *rc, const struct fgo_config *cfg, const char *db_path,
		       const char *host, const char *backend, const struct predict_obs **obs,
		       size_t *n, char *err, size_t len)
{
	size_t i = 0;
	while (i < rc->count && (strcmp(rc->e[i].algorithm, cfg->algorithm) ||
				 rc->e[i].dtype != cfg->dtype || rc->e[i].world != cfg->world))
		i++;
	if (i == rc->count) {
		void *more = realloc(rc->e, (rc->count + 1) * sizeof *rc->e);
		if (!more) {
			snprintf(err, len, "out of memory");
			return FGO_EFAIL;
		}
		rc->e = more;
		snprintf(rc->e[i].algorithm, sizeof rc->e[i].algorithm, "%s", cfg->algorithm);
		rc->e[i].dtype = cfg->dtype;
		rc->e[i].world = cfg->world;
		if (auto_pick_runs(db_path, cfg, host, backend, &rc->e[i].obs, &rc->e[i].n, err, len) !=
		    FGO_OK)
			return FGO_EFAIL;
		rc->count++;
	}
	*obs = rc->e[i].obs;
	*n = rc->e[i].n;
	return FGO_OK;
}

static void cache_free(struct runs_cache *rc)
{
	for (size_t i = 0; i < rc->count; i++)
		free(rc->e[i].obs);
	free(rc->e);
}

/* The note of one item: which source, and why. */
static void note_pick(const struct fgo_plan_item *it, const struct auto_pick *p,
		      int table_timed, const char *host, const char *backend)
{
	const struct fgo_config *c = &p->cfg;
	char tile[96], how[160], table_tile[96];
	defaults_tile_text(c, tile, sizeof tile);
	defaults_tile_text(&it->cfg, table_tile, sizeof table_tile);
	if (p->source == AUTO_RANKED) {
		char place[96] = "first";
		if (p->place > 1)
			snprintf(place, sizeof place, "number %zu (those before change what was given or"
				 " cannot run here)", p->place);
		if (p->nsupport)
			snprintf(how, sizeof how, "its own runs at %d of the %d nearest measured shapes",
				 p->nsupport, p->nnear);
		else
			snprintf(how, sizeof how, "the runs at the %d nearest measured shapes, none of it",
				 p->nnear);
		char more[256] = "";
		if (p->ntrials > 1 || table_timed) {
			size_t len = (size_t)snprintf(more, sizeof more, "; timed beside it:");
			for (int t = 1; t < p->ntrials && len < sizeof more; t++)
				len += (size_t)snprintf(more + len, sizeof more - len, "%s number %zu",
							t > 1 ? "," : "", p->trial_place[t]);
			if (table_timed && len < sizeof more)
				snprintf(more + len, sizeof more - len, "%s the item's default (%s)",
					 p->ntrials > 1 ? " and" : "", table_tile);
		}
		note("config auto: %s %s W=%d M=%ld N=%ld K=%ld: %s, ranked %s of %zu as `best --predict`"
		     " ranks them: predicted %.1f us (the %s fit of %s, %.1f us, x %.3f from %s; nearest"
		     " measured shape %ldx%ldx%ld at %.2f)%s",
		     c->algorithm, dtype_name(c->dtype), c->world, c->m, c->n, c->k, tile, place,
		     p->count, p->predicted_ms * 1e3, model_core(c), host, p->model_ms * 1e3,
		     p->correction, how, p->nearest.m, p->nearest.n, p->nearest.k, p->nearest.distance,
		     more);
		return;
	}
	if (it->default_how == DEFAULTS_TABLE)
		snprintf(how, sizeof how, "the defaults table's, row %d", it->default_row + 1);
	else if (it->default_how == DEFAULTS_FALLBACK)
		snprintf(how, sizeof how, "the core's small tile: the defaults table row %d's pick"
			 " cannot run here", it->default_row + 1);
	else
		snprintf(how, sizeof how, "the core's default tile: the defaults table has no row for"
			 " it");
	note("config auto: %s %s W=%d M=%ld N=%ld K=%ld: %s, %s; not ranked (the runs of %s, %s"
	     " backend): %s", c->algorithm, dtype_name(c->dtype), c->world, c->m, c->n, c->k, tile,
	     how, host, backend, p->why);
}

/* The plan being rebuilt with auto's trials: items appended in order. */
struct grown {
	struct fgo_plan_item *items;
	size_t count, cap;
};

static int grow_push(struct grown *g, const struct fgo_plan_item *it)
{
	if (g->count == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 64;
		struct fgo_plan_item *more = realloc(g->items, cap * sizeof *more);
		if (!more)
			return FGO_EFAIL;
		g->items = more;
		g->cap = cap;
	}
	g->items[g->count++] = *it;
	return FGO_OK;
}

/* The ranked item it (its default applied, unchanged yet) as auto runs it
 * into g: each of pick's trials, then the default where it is none of
 * them and trials were asked for; *table_timed says whether it was. */
static int push_trials(struct grown *g, const struct fgo_plan_item *it, const struct auto_pick *p,
		       int want, int *table_timed)
{
	int group = (int)g->count, timed = want > 1;
	*table_timed = 0;
	for (int t = 0; t < p->ntrials; t++) {
		struct fgo_plan_item trial = *it;
		trial.cfg = p->trial[t];
		trial.valid = !config_validate(&trial.cfg, trial.reason, sizeof trial.reason);
		if (trial.valid)
			trial.reason[0] = 0;
		trial.default_how = DEFAULTS_MODEL;
		trial.default_row = -1;
		trial.auto_role = timed ? FGO_AUTO_RANKED : FGO_AUTO_NONE;
		trial.auto_place = (unsigned short)p->trial_place[t];
		trial.auto_group = timed ? group : 0;
		if (grow_push(g, &trial) != FGO_OK)
			return FGO_EFAIL;
	}
	if (!timed || among(p->trial, p->ntrials, &it->cfg))
		return FGO_OK;
	struct fgo_plan_item table = *it;
	table.auto_role = FGO_AUTO_TABLE;
	table.auto_place = 0;
	table.auto_group = group;
	*table_timed = 1;
	return grow_push(g, &table);
}

int auto_pick_plan(struct fgo_plan *plan, const char *arch, const char *backend,
		   const char *db_path)
{
	struct predict_model pm;
	struct runs_cache cache = { 0 };
	struct grown g = { 0 };
	char host[128] = "", err[1024];
	size_t shown = 0, ranked = 0, table = 0, timed = 0;
	int rc = FGO_OK;
	int want = plan->auto_trials > 0 ? plan->auto_trials : FGO_AUTO_TRIALS_DEFAULT;
	gethostname(host, sizeof host - 1);
	if (auto_pick_model(db_path, host, backend, &pm, err, sizeof err) != FGO_OK) {
		error("config auto: %s", err);
		return FGO_EUSAGE;
	}
	for (size_t i = 0; i < plan->count && rc == FGO_OK; i++) {
		struct fgo_plan_item *it = &plan->items[i];
		const struct predict_obs *obs;
		struct auto_pick pick;
		size_t n;
		if (it->cfg.given & FGO_GIVEN_TILE) {
			if (grow_push(&g, it) != FGO_OK) {
				error("config auto: out of memory for the plan's %zu configurations",
				      plan->count);
				rc = FGO_EFAIL;
			}
			continue;
		}
		if (!has_fit(&pm, &it->cfg)) {
			error("config auto: no cost model of the %s core for %s (%s backend) in %s: run"
			      " `fgobench calibrate` (or `fgobench calibrate --fit` after a sweep) first,"
			      " or drop config auto for the defaults table",
			      model_core(&it->cfg), host, backend, db_path);
			rc = FGO_EUSAGE;
			break;
		}
		if (cached_runs(&cache, &it->cfg, db_path, host, backend, &obs, &n, err, sizeof err) !=
		    FGO_OK) {
			error("config auto: %s", err);
			rc = FGO_EFAIL;
			break;
		}
		if (auto_pick_some(&it->cfg, arch, obs, n, &pm, want, &pick) != FGO_OK) {
			error("config auto: out of memory ranking the configurations of %s",
			      it->cfg.algorithm);
			rc = FGO_EFAIL;
			break;
		}
		int table_timed = 0;
		if (pick.source == AUTO_TABLE) {
			table++; /* the item's own default stays, as without config auto */
			rc = grow_push(&g, it);
		} else {
			ranked++;
			rc = push_trials(&g, it, &pick, want, &table_timed);
			if (pick.ntrials > 1 || table_timed)
				timed++;
		}
		if (rc != FGO_OK)
			error("config auto: out of memory for the trials of %s", it->cfg.algorithm);
		else if (shown++ < 8)
			note_pick(it, &pick, table_timed, host, backend);
	}
	cache_free(&cache);
	if (rc != FGO_OK) {
		free(g.items);
		return rc;
	}
	free(plan->items);
	plan->items = g.items;
	plan->count = g.count;
	if (shown > 1)
		note("config auto: %zu configuration%s ranked as `best --predict` ranks them, %zu kept"
		     " the default (the store does not cover their shapes)%s",
		     ranked, ranked == 1 ? "" : "s", table, shown > 8 ? "; the first 8 shown" : "");
	if (timed)
		note("config auto: at %zu shape%s the first %d of the ranking timed, and the default"
		     " where it is none of them (auto_trials %d; 1: the ranking's first alone); the"
		     " fastest is auto's pick", timed, timed == 1 ? "" : "s", want, want);
	return FGO_OK;
}
