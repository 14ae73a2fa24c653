/* history.c: reads one problem's ok runs from every sweep of a spec on one
 * machine, reduces each sweep to one night (the followed configuration's
 * sample quartiles), fits the change points and keeps the steps above the
 * threshold. Exports the functions of history.h. */
#include "views/history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "store/store.h"
#include "views/views.h"

void history_query_defaults(struct history_query *q)
{
	memset(q, 0, sizeof *q);
	q->threshold_pct = 5.0;
}

void history_free(struct history *h)
{
	free(h->nights);
	free(h->steps);
	memset(h, 0, sizeof *h);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double history_quantile_sorted(double *x, size_t n, double q)
{
	qsort(x, n, sizeof *x, cmp_double);
	double at = q * (double)(n - 1);
	size_t lo = (size_t)floor(at);
	size_t hi = lo + 1 < n ? lo + 1 : lo;
	return x[lo] + (at - (double)lo) * (x[hi] - x[lo]);
}

/* One ok run of the problem, with its sweep. */
struct cand {
	int64_t sweep_id, run_id;
	char tag[96], started[32], revision[48], spec_hash[40], spec_name[96], host[128];
	char key[FGO_KEY_MAX];
	struct fgo_config cfg;
	double t_fused_ms;
};

struct cands {
	struct cand *v;
	size_t count, cap;
};

static const char cands_sql[] =
	"SELECT s.id, coalesce(s.tag, ''), s.started_at, coalesce(s.git_revision, ''),"
	" coalesce(s.spec_hash, ''), coalesce(s.spec_name, ''), coalesce(s.host, ''),"
	" r.id, r.config_key, r.t_fused_ms, " VIEW_CONFIG_COLUMNS
	" FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
	" WHERE r.status = 'ok' AND r.t_fused_ms > 0 AND r.algorithm = ?1"
	"   AND r.m = ?2 AND r.n = ?3 AND r.k = ?4"
	"   AND (?5 IS NULL OR r.world = ?5) AND (?6 IS NULL OR r.dtype = ?6)"
	" ORDER BY s.id, r.id";

static int sql_failed(sqlite3 *db, const char *path, char *err, size_t len)
{
	snprintf(err, len, "reading %s: %s", path, sqlite3_errmsg(db));
	return FGO_EFAIL;
}

static int load_cands(sqlite3 *db, const struct history_query *q, struct cands *c, char *err,
		      size_t len)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, cands_sql, -1, &st, NULL) != SQLITE_OK)
		return sql_failed(db, q->db, err, len);
	sqlite3_bind_text(st, 1, q->algorithm, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, q->m);
	sqlite3_bind_int64(st, 3, q->n);
	sqlite3_bind_int64(st, 4, q->k);
	if (q->world > 0)
		sqlite3_bind_int(st, 5, q->world);
	if (q->dtype)
		sqlite3_bind_text(st, 6, q->dtype, -1, SQLITE_STATIC);
	int step, rc = FGO_OK;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (c->count == c->cap) {
			size_t cap = c->cap ? 2 * c->cap : 64;
			struct cand *more = realloc(c->v, cap * sizeof *more);
			if (!more) {
				snprintf(err, len, "out of memory reading %s", q->db);
				rc = FGO_EFAIL;
				break;
			}
			c->v = more;
			c->cap = cap;
		}
		struct cand *x = &c->v[c->count++];
		x->sweep_id = sqlite3_column_int64(st, 0);
		view_text(st, 1, x->tag, sizeof x->tag);
		view_text(st, 2, x->started, sizeof x->started);
		view_text(st, 3, x->revision, sizeof x->revision);
		view_text(st, 4, x->spec_hash, sizeof x->spec_hash);
		view_text(st, 5, x->spec_name, sizeof x->spec_name);
		view_text(st, 6, x->host, sizeof x->host);
		x->run_id = sqlite3_column_int64(st, 7);
		view_text(st, 8, x->key, sizeof x->key);
		x->t_fused_ms = sqlite3_column_double(st, 9);
		view_config(st, 10, &x->cfg);
	}
	if (rc == FGO_OK && step != SQLITE_DONE)
		rc = sql_failed(db, q->db, err, len);
	sqlite3_finalize(st);
	return rc;
}

/* Keeps the candidates for which keep() is true, in order. */
static void filter(struct cands *c, int (*keep)(const struct cand *, const void *), const void *arg)
{
	size_t n = 0;
	for (size_t i = 0; i < c->count; i++)
		if (keep(&c->v[i], arg))
			c->v[n++] = c->v[i];
	c->count = n;
}

static int spec_matches(const struct cand *x, const void *arg)
{
	const char *spec = arg;
	return !strcmp(x->spec_name, spec) || !strncmp(x->spec_hash, spec, strlen(spec));
}

static int host_matches(const struct cand *x, const void *arg)
{
	return !strcmp(x->host, (const char *)arg);
}

/* "a, b" of the distinct hosts among c, for a message. */
static void hosts_text(const struct cands *c, char *out, size_t len)
{
	size_t used = 0;
	out[0] = 0;
	for (size_t i = 0; i < c->count && used < len; i++) {
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(c->v[j].host, c->v[i].host);
		if (!seen)
			used += (size_t)snprintf(out + used, len - used, "%s%s", used ? ", " : "",
						 c->v[i].host);
	}
}

static int same_spec_and_host(const struct cand *x, const void *arg)
{
	const struct cand *ref = arg;
	return !strcmp(x->spec_hash, ref->spec_hash) && !strcmp(x->host, ref->host);
}

static int config_matches(const struct cand *x, const void *arg)
{
	const char *config = arg;
	char tile[96];
	if (strchr(config, '/')) {
		/* a user kernel's series goes on across edits of its source:
		 * keys compared without their source hashes */
		size_t a = config_key_sans_source(x->key), b = config_key_sans_source(config);
		return a == b && !strncmp(x->key, config, a);
	}
	view_tile_text(&x->cfg, tile, sizeof tile);
	if (!strcmp(tile, config))
		return 1;
	view_tile_brief(&x->cfg, tile, sizeof tile); /* as best's table shows it */
	return !strcmp(tile, config);
}

/* "2, 4" of the distinct values of what (world or dtype) among c, for the
 * message when the caller must choose one; returns how many there are. */
static int distinct(const struct cands *c, int world, char *out, size_t len)
{
	int count = 0;
	size_t used = 0;
	out[0] = 0;
	for (size_t i = 0; i < c->count; i++) {
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = world ? c->v[j].cfg.world == c->v[i].cfg.world
				     : c->v[j].cfg.dtype == c->v[i].cfg.dtype;
		if (seen)
			continue;
		if (used < len)
			used += (size_t)snprintf(out + used, len - used, "%s", count ? ", " : "");
		if (used < len && world)
			used += (size_t)snprintf(out + used, len - used, "%d", c->v[i].cfg.world);
		else if (used < len)
			used += (size_t)snprintf(out + used, len - used, "%s", dtype_name(c->v[i].cfg.dtype));
		count++;
	}
	return count;
}

/* Fills the sample statistics of night from run's fused samples; a run
 * stored without samples stands as its median alone (no spread). */
static int night_samples(sqlite3_stmt *st, const struct cand *x, struct history_night *night)
{
	double *ms = NULL;
	size_t n = 0, cap = 0;
	int step;
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, x->run_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			double *more = realloc(ms, cap * sizeof *more);
			if (!more) {
				free(ms);
				return FGO_EFAIL;
			}
			ms = more;
		}
		ms[n++] = sqlite3_column_double(st, 0);
	}
	if (step != SQLITE_DONE) {
		free(ms);
		return FGO_EFAIL;
	}
	if (n == 0) {
		night->samples = 1;
		night->median = night->q1 = night->q3 = night->min = night->max = x->t_fused_ms;
		night->low = night->high = x->t_fused_ms;
		night->spread = 0;
		return FGO_OK;
	}
	night->samples = n;
	night->median = history_quantile_sorted(ms, n, 0.5);
	night->q1 = history_quantile_sorted(ms, n, 0.25);
	night->q3 = history_quantile_sorted(ms, n, 0.75);
	night->min = ms[0];
	night->max = ms[n - 1];
	/* ms is sorted now: the whiskers are the first and last samples inside the fences */
	double iqr = night->q3 - night->q1;
	size_t lo = 0, hi = n - 1;
	while (lo < hi && ms[lo] < night->q1 - 1.5 * iqr)
		lo++;
	while (hi > lo && ms[hi] > night->q3 + 1.5 * iqr)
		hi--;
	night->low = ms[lo];
	night->high = ms[hi];
	/* IQR / 1.349 is a sigma that outliers do not move; the median of n
	 * normal values has about 1.2533 sigma / sqrt n of uncertainty */
	night->spread = 1.2533 * (night->q3 - night->q1) / 1.349 / sqrt((double)n);
	free(ms);
	return FGO_OK;
}

/* One night per sweep: the candidate of that sweep with the least median
 * (there is one per sweep unless following each night's best). */
static int make_nights(sqlite3 *db, const struct history_query *q, const struct cands *c,
		       struct history *h, char *err, size_t len)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT ms FROM samples WHERE run_id = ?1 AND kind = 'fused'",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_failed(db, q->db, err, len);
	h->nights = calloc(c->count ? c->count : 1, sizeof *h->nights);
	int rc = h->nights ? FGO_OK : FGO_EFAIL;
	for (size_t i = 0; i < c->count && rc == FGO_OK; i++) {
		const struct cand *x = &c->v[i];
		struct history_night cur = { 0 };
		if (night_samples(st, x, &cur) != FGO_OK) {
			rc = sql_failed(db, q->db, err, len);
			break;
		}
		cur.sweep_id = x->sweep_id;
		cur.run_id = x->run_id;
		snprintf(cur.tag, sizeof cur.tag, "%s", x->tag);
		snprintf(cur.started, sizeof cur.started, "%s", x->started);
		snprintf(cur.revision, sizeof cur.revision, "%s", x->revision);
		snprintf(cur.key, sizeof cur.key, "%s", x->key);
		cur.cfg = x->cfg;
		struct history_night *last = h->count ? &h->nights[h->count - 1] : NULL;
		if (last && last->sweep_id == x->sweep_id) {
			if (cur.median < last->median)
				*last = cur;
		} else {
			h->nights[h->count++] = cur;
		}
	}
	if (rc == FGO_EFAIL && !h->nights)
		snprintf(err, len, "out of memory reading %s", q->db);
	sqlite3_finalize(st);
	return rc;
}

/* How many sweeps of the spec and host hold none of the followed runs. */
static int count_skipped(sqlite3 *db, const struct history *h)
{
	sqlite3_stmt *st;
	int total = 0;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sweeps WHERE spec_hash = ?1 AND host = ?2",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, h->spec_hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, h->host, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		total = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return total > (int)h->count ? total - (int)h->count : 0;
}

static int fit(struct history *h, const struct history_query *q, char *err, size_t len)
{
	double *y = malloc((h->count ? h->count : 1) * sizeof *y);
	double *spread = malloc((h->count ? h->count : 1) * sizeof *spread);
	struct cp_fit f;
	int rc = FGO_EFAIL;
	if (!y || !spread)
		goto out;
	for (size_t i = 0; i < h->count; i++) {
		y[i] = h->nights[i].median;
		spread[i] = h->nights[i].spread;
	}
	if (changepoint_fit(y, spread, h->count, q->penalty, &f) != 0)
		goto out;
	h->noise = f.noise;
	h->penalty = f.penalty;
	h->boundaries = f.nsteps;
	for (size_t i = 0; i < h->count; i++)
		h->nights[i].level = f.level[i];
	h->steps = malloc((f.nsteps ? f.nsteps : 1) * sizeof *h->steps);
	if (h->steps) {
		for (size_t j = 0; j < f.nsteps; j++) {
			if (fabs(f.steps[j].change_pct) <= q->threshold_pct)
				continue;
			h->steps[h->nsteps++] = f.steps[j];
			h->nights[f.steps[j].at].step = 1;
		}
		rc = FGO_OK;
	}
	changepoint_free(&f);
out:
	if (rc != FGO_OK)
		snprintf(err, len, "out of memory fitting %zu nights", h->count);
	free(y);
	free(spread);
	return rc;
}

int history_load(const struct history_query *q, struct history *h, char *err, size_t len)
{
	memset(h, 0, sizeof *h);
	if (!q->db || !q->algorithm || q->m <= 0 || q->n <= 0 || q->k <= 0) {
		snprintf(err, len, "history needs a store, an algorithm and a shape");
		return FGO_EUSAGE;
	}
	struct fgo_store *store = NULL;
	struct cands c = { 0 };
	char list[256];
	int rc = store_open(q->db, FGO_STORE_READ, &store, err, len);
	sqlite3 *db = store ? store_db(store) : NULL;
	if (rc == FGO_OK)
		rc = load_cands(db, q, &c, err, len);
	if (rc == FGO_OK && c.count == 0) {
		snprintf(err, len, "no ok run of %s at %ldx%ldx%ld%s in %s (`fgobench best --algorithm %s`"
			 " shows the problems stored)", q->algorithm, q->m, q->n, q->k,
			 q->world || q->dtype ? " with that world and dtype" : "", q->db, q->algorithm);
		rc = FGO_EUSAGE;
	}
	if (rc == FGO_OK && q->spec) {
		filter(&c, spec_matches, q->spec);
		if (c.count == 0) {
			snprintf(err, len, "no sweep of spec \"%s\" holds an ok run of %s at %ldx%ldx%ld"
				 " (`fgobench list` shows the specs)", q->spec, q->algorithm, q->m,
				 q->n, q->k);
			rc = FGO_EUSAGE;
		}
	}
	if (rc == FGO_OK && q->host) {
		char hosts[256];
		hosts_text(&c, hosts, sizeof hosts);
		filter(&c, host_matches, q->host);
		if (c.count == 0) {
			snprintf(err, len, "no sweep on host \"%s\" holds an ok run of %s at %ldx%ldx%ld"
				 "%s (it ran on %s)", q->host, q->algorithm, q->m, q->n, q->k,
				 q->spec ? " of that spec" : "", hosts);
			rc = FGO_EUSAGE;
		}
	}
	if (rc == FGO_OK) {
		struct cand newest = c.v[c.count - 1];
		filter(&c, same_spec_and_host, &newest);
		snprintf(h->spec_hash, sizeof h->spec_hash, "%s", newest.spec_hash);
		snprintf(h->spec_name, sizeof h->spec_name, "%s", newest.spec_name);
		snprintf(h->host, sizeof h->host, "%s", newest.host);
	}
	if (rc == FGO_OK && !q->world && distinct(&c, 1, list, sizeof list) > 1) {
		snprintf(err, len, "%s at %ldx%ldx%ld ran at several world sizes (%s): choose one with"
			 " --world", q->algorithm, q->m, q->n, q->k, list);
		rc = FGO_EUSAGE;
	}
	if (rc == FGO_OK && !q->dtype && distinct(&c, 0, list, sizeof list) > 1) {
		snprintf(err, len, "%s at %ldx%ldx%ld ran in several dtypes (%s): choose one with --dtype",
			 q->algorithm, q->m, q->n, q->k, list);
		rc = FGO_EUSAGE;
	}
	if (rc == FGO_OK && q->config && strcmp(q->config, "best") != 0) {
		struct fgo_config first = c.v[c.count - 1].cfg;
		filter(&c, config_matches, q->config);
		if (c.count == 0) {
			view_tile_text(&first, list, sizeof list);
			snprintf(err, len, "no ok run of configuration \"%s\" for %s at %ldx%ldx%ld (give a"
				 " config_key, a tile text such as \"%s\", or best)", q->config,
				 q->algorithm, q->m, q->n, q->k, list);
			rc = FGO_EUSAGE;
		}
	}
	if (rc == FGO_OK) {
		h->world = c.v[0].cfg.world;
		snprintf(h->dtype, sizeof h->dtype, "%s", dtype_name(c.v[0].cfg.dtype));
		rc = make_nights(db, q, &c, h, err, len);
	}
	if (rc == FGO_OK) {
		h->skipped = count_skipped(db, h);
		rc = fit(h, q, err, len);
	}
	free(c.v);
	store_close(store);
	return rc;
}
