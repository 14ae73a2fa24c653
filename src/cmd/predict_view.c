/* predict_view.c: the store side and the output of `best --predict` (see
 * predict_view.h); the ranking itself is predict.c. */
#include "cmd/predict_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "fgo.h"
#include "tune/model_refit.h"
#include "tune/predict.h"
#include "views/views.h"

/* The newest ok run of every configuration of the algorithm, newest first. */
static const char query[] =
	"WITH latest AS ("
	"  SELECT r.*, s.devices AS devices, s.host AS host, s.backend AS backend,"
	"    row_number() OVER (PARTITION BY r.config_key ORDER BY r.id DESC) AS recency"
	"  FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
	"  WHERE r.status = 'ok' AND r.t_fused_ms > 0 AND r.algorithm = ?1"
	"    AND (?2 IS NULL OR r.dtype = ?2) AND (?3 IS NULL OR r.world = ?3)"
	"    AND (?4 IS NULL OR s.tag = ?4)"
	") SELECT " VIEW_CONFIG_COLUMNS ", t_fused_ms, devices, host, backend FROM latest"
	" WHERE recency = 1 ORDER BY id DESC";

struct loaded {
	struct predict_obs *obs;
	size_t n, cap;
	int cus;   /* from a "(N SMs)" devices text, 0 when none says */
	char host[128], backend[32]; /* of the newest run: whose cost model applies */
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
		if (l->n == 1) {
			view_text(st, VIEW_CONFIG_NCOLS + 2, l->host, sizeof l->host);
			view_text(st, VIEW_CONFIG_NCOLS + 3, l->backend, sizeof l->backend);
		}
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

/* The cost model of the runs' machine: the stored fit of each core, or
 * where none is stored one fitted now to the stored runs (not kept: the
 * store is read-only here). Says which. *pm->ncores 0: no model. */
static void model_for(struct fgo_store *store, const struct loaded *l, int top_cus,
		      struct predict_model *pm)
{
	static const char *const cores[MODEL_CORES] = { "wgmma", "mma16", "mma32", "simt" };
	char err[512], at[32];
	memset(pm, 0, sizeof *pm);
	for (int c = 0; c < MODEL_CORES; c++) {
		struct model_fit f;
		int found = 0;
		if (store_model_get(store, l->host, l->backend, cores[c], &pm->machine, &f, at, &found,
				    err, sizeof err) != FGO_OK || !found)
			continue;
		predict_model_add(pm, cores[c], &f);
		note("cost model %s of %s (%s), fitted %s on %zu runs: error rms %.1f%%, median %.1f%%,"
		     " max %.1f%%",
		     cores[c], l->host, l->backend, at, f.runs, 100 * f.rms_rel_err,
		     100 * f.median_rel_err, 100 * f.max_rel_err);
	}
	if (pm->ncores == 0) {
		struct model_core_fit fits[MODEL_CORES];
		int n = 0;
		if (model_refit(store, l->host, l->backend, NULL, fits, &n, err, sizeof err) != FGO_OK ||
		    model_machine_load(store, l->host, l->backend, &pm->machine, err, sizeof err) !=
			    FGO_OK)
			return;
		for (int i = 0; i < n; i++) {
			if (!fits[i].fitted)
				continue;
			predict_model_add(pm, fits[i].core, &fits[i].fit);
			note("cost model %s of %s (%s) fitted now on %zu runs (not stored: `fgobench"
			     " calibrate --fit` keeps it): error rms %.1f%%, median %.1f%%, max %.1f%%",
			     fits[i].core, l->host, l->backend, fits[i].fit.runs,
			     100 * fits[i].fit.rms_rel_err, 100 * fits[i].fit.median_rel_err,
			     100 * fits[i].fit.max_rel_err);
		}
	}
	if (top_cus > 0)
		pm->machine.cus = top_cus;
}

/* The candidates: with a model (the cost model's ranking), the predicted
 * us, the gap to the first, the model's us and the correction; without,
 * the gap to the first. Then the coverage, where it was measured near, and
 * the reproduce line. */
static int print(const struct predict_view_opts *o, const struct predict_result *r, int model)
{
	static const char *const with_model[] = { "#",	      "config",   "predicted_us",
						  "vs_first", "model_us", "correction",
						  "coverage", "measured near", "reproduce" };
	static const char *const by_vote[] = { "#", "config", "predicted", "coverage", "support",
					       "reproduce" };
	struct fgo_table *t = model ? table_new((int)FGO_ARRAY_SIZE(with_model), with_model)
				    : table_new((int)FGO_ARRAY_SIZE(by_vote), by_vote);
	int brief = o->format == FGO_FMT_TABLE && !o->wide;
	for (size_t i = 0; t && i < r->count && (int)i < o->top; i++) {
		const struct predict_candidate *c = &r->cand[i];
		char tile[96], support[512], line[512];
		/* the terminal's config says only what differs from the defaults */
		(brief ? view_tile_brief : view_tile_text)(&c->cfg, tile, sizeof tile);
		support_text(r, c, support, sizeof support);
		config_reproduce_line(&c->cfg, line, sizeof line);
		table_add(t, "%zu", i + 1);
		table_add(t, "%s", tile);
		if (model)
			table_add(t, "%.1f", c->predicted_ms * 1e3);
		table_add(t, "%+.1f%%", (c->score - 1) * 100);
		if (model) {
			table_add(t, "%.1f", c->model_ms * 1e3);
			table_add(t, "%.3f", c->correction);
		}
		table_add(t, "%.0f%%", c->coverage * 100);
		table_add(t, "%s", model && !c->nsupport ? "(no: the shapes' correction)" : support);
		table_add(t, "%s", line);
	}
	int ncols = model ? (int)FGO_ARRAY_SIZE(with_model) : (int)FGO_ARRAY_SIZE(by_vote);
	int rc = FGO_EFAIL;
	if (t && brief) {
		/* as best: the table in 120 columns without the reproduce
		 * column, each row's line under it after its place */
		int cols[FGO_ARRAY_SIZE(with_model)];
		for (int i = 0; i < ncols - 1; i++)
			cols[i] = i;
		struct fgo_table *shown = table_select(t, cols, ncols - 1, NULL);
		table_fit(shown, FGO_TABLE_COLUMNS);
		if (shown && table_print(shown, FGO_FMT_TABLE, stdout) == 0) {
			printf("\n");
			for (int row = 0; row < table_rows(t); row++) {
				printf("%s  ", table_cell(t, row, 0));
				view_print_command(stdout, table_cell(t, row, ncols - 1),
						   FGO_TABLE_COLUMNS - 3);
			}
			rc = FGO_OK;
		}
		table_free(shown);
	} else if (t) {
		rc = table_print(t, o->format, stdout) == 0 ? FGO_OK : FGO_EFAIL;
	}
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
	struct predict_model pm;
	if (o->no_model)
		memset(&pm, 0, sizeof pm);
	else
		model_for(store, &l, o->cus, &pm);
	if (pm.ncores == 0 && !o->no_model)
		note("no cost model of %s (%s backend) yet (it needs %d ok runs of a core;"
		     " `fgobench calibrate` fits it): ranked from the nearest shapes' measurements",
		     l.host, l.backend, MODEL_MIN_RUNS);
	if (pm.ncores ? predict_rank_model(l.obs, l.n, &q, &pm, &r)
		      : predict_rank(l.obs, l.n, &q, cus, &r)) {
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
	if (near->distance > PREDICT_FAR) /* where auto keeps the table too */
		warning("the nearest measured shape is far (distance %.2f): treat the ranking as a guess"
			" and measure (`fgobench tune`)",
			near->distance);
	rc = print(o, &r, pm.ncores > 0);
out:
	predict_free(&r);
	free(l.obs);
	store_close(store);
	return cmd_finish_stdout(rc);
}

/* ---- for best --predict --world (predict_world_view.c) ---- */

double predict_gemm_model_ms(struct fgo_store *store, const char *dtype, long m, long n, long k,
			     long *units)
{
	struct predict_view_opts go = { .algorithm = "gemm", .dtype = dtype, .world = 1 };
	struct loaded l = { 0 };
	struct predict_result r = { 0 };
	struct predict_model pm;
	struct fgo_config q;
	double ms = 0;
	int save = fgo_mute;
	fgo_mute = 1; /* the model's notes were said once already */
	if (load(store, &go, &l) == FGO_OK && l.n > 0) {
		model_for(store, &l, 0, &pm);
		q = l.obs[0].cfg;
		q.m = m;
		q.n = n;
		q.k = k;
		if (pm.ncores && predict_rank_model(l.obs, l.n, &q, &pm, &r) == FGO_OK && r.count) {
			ms = r.cand[0].predicted_ms;
			*units = ((m + r.cand[0].cfg.blk_m - 1) / r.cand[0].cfg.blk_m) *
				 ((n + r.cand[0].cfg.blk_n - 1) / r.cand[0].cfg.blk_n);
		}
	}
	fgo_mute = save;
	predict_free(&r);
	free(l.obs);
	return ms;
}

int predict_has_runs(const struct predict_view_opts *o)
{
	struct fgo_store *store = NULL;
	struct loaded l = { 0 };
	int save = fgo_mute, any = 0;
	fgo_mute = 1;
	if (view_open(o->db, &store) == FGO_OK) {
		any = load(store, o, &l) == FGO_OK && l.n > 0;
		store_close(store);
	}
	fgo_mute = save;
	free(l.obs);
	return any;
}
