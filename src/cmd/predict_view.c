/* predict_view.c: the store side and the output of `best --predict` (see
 * predict_view.h); the ranking itself is predict.c. */
#include "cmd/predict_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "fgo.h"
#include "tune/predict.h"
#include "views/views.h"

/* The newest ok run of every configuration of the algorithm. */
static const char query[] =
	"WITH latest AS ("
	"  SELECT r.*, s.devices AS devices,"
	"    row_number() OVER (PARTITION BY r.config_key ORDER BY r.id DESC) AS recency"
	"  FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
	"  WHERE r.status = 'ok' AND r.t_fused_ms > 0 AND r.algorithm = ?1"
	"    AND (?2 IS NULL OR r.dtype = ?2) AND (?3 IS NULL OR r.world = ?3)"
	"    AND (?4 IS NULL OR s.tag = ?4)"
	") SELECT " VIEW_CONFIG_COLUMNS ", t_fused_ms, devices FROM latest WHERE recency = 1";

struct loaded {
	struct predict_obs *obs;
	size_t n, cap;
	int cus;   /* from a "(N SMs)" devices text, 0 when none says */
};

static int load(struct fgo_store *store, const struct predict_view_opts *o, struct loaded *l)
{
	sqlite3_stmt *st;
	int step;
	if (view_prepare(store, query, &st))
		return FGO_EFAIL;
	sqlite3_bind_text(st, 1, o->algorithm, -1, SQLITE_STATIC);
	if (o->dtype)
		sqlite3_bind_text(st, 2, o->dtype, -1, SQLITE_STATIC);
	if (o->world)
		sqlite3_bind_int(st, 3, o->world);
	if (o->tag)
		sqlite3_bind_text(st, 4, o->tag, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (l->n == l->cap) {
			size_t cap = l->cap ? l->cap * 2 : 256;
			struct predict_obs *more = realloc(l->obs, cap * sizeof *more);
			if (!more)
				break;
			l->obs = more;
			l->cap = cap;
		}
		struct predict_obs *ob = &l->obs[l->n++];
		view_config(st, 0, &ob->cfg);
		ob->ms = sqlite3_column_double(st, VIEW_CONFIG_NCOLS);
		const char *dev = (const char *)sqlite3_column_text(st, VIEW_CONFIG_NCOLS + 1);
		const char *sms = dev ? strchr(dev, '(') : NULL;
		int cus = 0;
		if (!l->cus && sms && sscanf(sms, "(%d SMs)", &cus) == 1 && cus > 0)
			l->cus = cus;
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		error("reading the store failed: %s", sqlite3_errmsg(store_db(store)));
		return FGO_EFAIL;
	}
	return FGO_OK;
}

/* Fills the query's dtype and world from the data when the options leave
 * them out and the store has one choice; else says what to give. */
static int resolve_problem(const struct predict_view_opts *o, const struct loaded *l,
			   struct fgo_config *q)
{
	if (l->n == 0) {
		error("no ok runs of %s%s%s%s to predict from (run `fgobench sweep` or `fgobench tune`"
		      " on some shapes first)",
		      o->algorithm, o->dtype || o->world ? " with that dtype and world" : "",
		      o->tag ? " tagged " : "", o->tag ? o->tag : "");
		return FGO_EUSAGE;
	}
	const struct fgo_config *first = &l->obs[0].cfg;
	for (size_t i = 1; i < l->n; i++) {
		const struct fgo_config *c = &l->obs[i].cfg;
		if (c->dtype != first->dtype || c->world != first->world) {
			error("the store has %s runs of several problems (%s W=%d, %s W=%d, ...): give"
			      " --dtype and --world",
			      o->algorithm, dtype_name(first->dtype), first->world, dtype_name(c->dtype),
			      c->world);
			return FGO_EUSAGE;
		}
	}
	q->dtype = first->dtype;
	q->world = first->world;
	return FGO_OK;
}

static void support_text(const struct predict_result *r, const struct predict_candidate *c,
			 char *out, size_t len)
{
	size_t n = 0;
	out[0] = 0;
	for (int i = 0; i < c->nsupport && n < len; i++) {
		const struct predict_support *s = &c->support[i];
		const struct predict_shape *sh = &r->near[s->shape];
		n += (size_t)snprintf(out + n, len - n, "%s%ldx%ldx%ld #%d +%.1f%%", i ? "; " : "",
				      sh->m, sh->n, sh->k, s->place, (s->rel - 1) * 100);
	}
}

static int print(const struct predict_view_opts *o, const struct predict_result *r)
{
	static const char *const headers[] = { "#", "config", "predicted", "coverage", "support",
					       "reproduce" };
	struct fgo_table *t = table_new((int)FGO_ARRAY_SIZE(headers), headers);
	for (size_t i = 0; t && i < r->count && (int)i < o->top; i++) {
		const struct predict_candidate *c = &r->cand[i];
		char tile[96], support[512], line[512];
		view_tile_text(&c->cfg, tile, sizeof tile);
		support_text(r, c, support, sizeof support);
		config_reproduce_line(&c->cfg, line, sizeof line);
		table_add(t, "%zu", i + 1);
		table_add(t, "%s", tile);
		table_add(t, "%+.1f%%", (c->score - 1) * 100);
		table_add(t, "%.0f%%", c->coverage * 100);
		table_add(t, "%s", support);
		table_add(t, "%s", line);
	}
	int rc = t && table_print(t, o->format, stdout) == 0 ? FGO_OK : FGO_EFAIL;
	table_free(t);
	return rc;
}

/* How many ok configurations the query's own shape has (they are left out). */
static size_t own_runs(const struct loaded *l, const struct fgo_config *q)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct fgo_config *c = &l->obs[i].cfg;
		n += c->dtype == q->dtype && c->world == q->world && c->m == q->m && c->n == q->n &&
		     c->k == q->k;
	}
	return n;
}

int predict_view(const struct predict_view_opts *o)
{
	struct fgo_store *store = NULL;
	struct loaded l = { 0 };
	struct predict_result r = { 0 };
	struct fgo_config q;
	char problem[192];
	int rc;

	if ((rc = view_open(o->db, &store)))
		return rc;
	config_defaults(&q);
	snprintf(q.algorithm, sizeof q.algorithm, "%s", o->algorithm);
	q.m = o->m;
	q.n = o->n;
	q.k = o->k;
	if ((rc = load(store, o, &l)) || (rc = resolve_problem(o, &l, &q)))
		goto out;
	snprintf(problem, sizeof problem, "%s %s W=%d M=%ld N=%ld K=%ld", q.algorithm,
		 dtype_name(q.dtype), q.world, q.m, q.n, q.k);
	int cus = o->cus ? o->cus : l.cus ? l.cus : 1;
	if (predict_rank(l.obs, l.n, &q, cus, &r)) {
		error("out of memory ranking the configurations");
		rc = FGO_EFAIL;
		goto out;
	}
	size_t own = own_runs(&l, &q);
	if (r.nnear == 0 || r.count == 0) {
		error("nothing to predict %s from: %s (measure other shapes of it first)", problem,
		      r.nnear ? "no measured configuration is valid at this shape"
			      : "no other shape of it is measured");
		rc = FGO_EUSAGE;
		goto out;
	}
	note("prediction, not a measurement: %s %s", problem,
	     own ? "has ok runs of its own, left out here (`fgobench best` shows them)"
		 : "has no ok runs");
	const struct predict_shape *near = &r.near[0];
	note("ranked from the %d nearest of %d measured shapes; nearest measured shape %ldx%ldx%ld at"
	     " distance %.2f (log2 units of M, N, K: 1 is a factor of 2 in one of them);"
	     " %d compute unit%s",
	     r.nnear, r.nshapes, near->m, near->n, near->k, near->distance, cus,
	     cus == 1 ? "" : "s");
	if (near->distance > 2)
		warning("the nearest measured shape is far (distance %.2f): treat the ranking as a guess"
			" and measure (`fgobench tune`)",
			near->distance);
	rc = print(o, &r);
out:
	predict_free(&r);
	free(l.obs);
	store_close(store);
	return cmd_finish_stdout(rc);
}
