/* gate_load.c: the nightly gate's reading (gate.h's gate_compare): each
 * night's rounds from the store as a configurations x rounds matrix of log
 * times (the fused median, over its control where every run has one, and
 * the control, the vendor baseline), the earlier nights of the same spec on
 * the same host, then gate_judge, and the verdicts put into regress's
 * report. A night is one host's sweeps: in a store merged from several
 * machines the same tag holds each machine's rounds (--host chooses). */
#include "views/gate.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "views/views.h"

/* One ok run of one round. */
struct gate_row {
	int64_t sweep, run;
	char key[FGO_KEY_MAX];
	struct fgo_config cfg;
	double fused, ctl; /* medians, ms; ctl 0 when no baseline was measured */
};

/* One night: its rows in (sweep, key) order and its rounds. */
struct night {
	struct gate_row *rows;
	size_t count, cap;
	int64_t *sweeps; /* distinct, ascending */
	size_t rounds;
	char tag[128];   /* the tag of its newest sweep ("" when none) */
	char host[256];  /* the host whose sweeps these are ("" when none was stored) */
};

static void night_free(struct night *n)
{
	free(n->rows);
	free(n->sweeps);
	memset(n, 0, sizeof *n);
}

static int failed(sqlite3 *db, const char *path, char *err, size_t len)
{
	snprintf(err, len, "reading %s: %s", path, sqlite3_errmsg(db));
	return FGO_EFAIL;
}

static int oom(const char *path, char *err, size_t len)
{
	snprintf(err, len, "out of memory reading %s", path);
	return FGO_EFAIL;
}

static const char rows_sql[] =
	"SELECT r.sweep_id, r.id, r.config_key, r.algorithm, r.dtype, r.world, r.m, r.n, r.k,"
	" r.blk_m, r.blk_n, r.blk_k, r.num_stages, r.num_warps, r.mma, r.gsize_m,"
	" r.gemm_sms, r.comm_sms, r.comm_blk_m, r.comm_blk_n, r.split_k, r.deterministic,"
	" r.cluster, r.kernel_params, r.kernel_hash,"
	" r.t_fused_ms, coalesce(r.t_baseline_ms, 0), coalesce(s.tag, '')"
	" FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
	" WHERE r.status = 'ok' AND r.t_fused_ms > 0"
	" AND (CASE WHEN ?1 > 0 THEN s.id = ?1 ELSE s.tag = ?2 END)"
	" AND coalesce(s.host, '') = ?3"
	" ORDER BY r.sweep_id, r.config_key";

/* Reads the night named text (a sweep id, or every sweep of a tag) on one
 * host: want, or the night's only one (regress_side_resolve). */
static int night_load(sqlite3 *db, const char *path, const char *text, const char *want,
		      struct night *n, char *err, size_t len)
{
	int64_t id;
	memset(n, 0, sizeof *n);
	int rc = regress_side_resolve(db, path, text, want, &id, n->host, sizeof n->host, err, len);
	if (rc != FGO_OK)
		return rc;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, rows_sql, -1, &st, NULL) != SQLITE_OK)
		return failed(db, path, err, len);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, n->host, -1, SQLITE_STATIC);
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (n->count == n->cap) {
			size_t cap = n->cap ? 2 * n->cap : 64;
			struct gate_row *more = realloc(n->rows, cap * sizeof *more);
			if (!more) {
				sqlite3_finalize(st);
				return oom(path, err, len);
			}
			n->rows = more;
			n->cap = cap;
		}
		struct gate_row *r = &n->rows[n->count++];
		memset(r, 0, sizeof *r);
		r->sweep = sqlite3_column_int64(st, 0);
		r->run = sqlite3_column_int64(st, 1);
		snprintf(r->key, sizeof r->key, "%s", (const char *)sqlite3_column_text(st, 2));
		/* a user kernel's runs pair across edits of its source, as
		 * regress pairs them: the key without its source hash */
		r->key[config_key_sans_source(r->key)] = 0;
		view_config(st, 3, &r->cfg);
		r->fused = sqlite3_column_double(st, 3 + VIEW_CONFIG_NCOLS);
		r->ctl = sqlite3_column_double(st, 4 + VIEW_CONFIG_NCOLS);
		view_text(st, 5 + VIEW_CONFIG_NCOLS, n->tag, sizeof n->tag);
		if (!n->rounds || n->sweeps[n->rounds - 1] != r->sweep) {
			int64_t *s = realloc(n->sweeps, (n->rounds + 1) * sizeof *s);
			if (!s) {
				sqlite3_finalize(st);
				return oom(path, err, len);
			}
			n->sweeps = s;
			n->sweeps[n->rounds++] = r->sweep;
		}
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? FGO_OK : failed(db, path, err, len);
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The distinct keys of a night, sorted (pointers into its rows). */
static const char **night_keys(const struct night *n, size_t *count)
{
	const char **k = malloc((n->count ? n->count : 1) * sizeof *k);
	*count = 0;
	if (!k)
		return NULL;
	for (size_t i = 0; i < n->count; i++)
		k[i] = n->rows[i].key;
	qsort(k, n->count, sizeof *k, cmp_key);
	for (size_t i = 0; i < n->count; i++)
		if (!*count || strcmp(k[*count - 1], k[i]))
			k[(*count)++] = k[i];
	return k;
}

static long key_index(const char **keys, size_t count, const char *key)
{
	const char **hit = bsearch(&key, keys, count, sizeof *keys, cmp_key);
	return hit ? (long)(hit - keys) : -1;
}

static long round_index(const struct night *n, int64_t sweep)
{
	for (size_t r = 0; r < n->rounds; r++)
		if (n->sweeps[r] == sweep)
			return (long)r;
	return -1;
}

/* Whether every run of the night has its control (a baseline measured in
 * its round), so that it can be judged relative to it. */
static int night_has_control(const struct night *n)
{
	for (size_t i = 0; i < n->count; i++)
		if (!(n->rows[i].ctl > 0))
			return 0;
	return n->count > 0;
}

/* The night's levels over keys (gate_levels), of the fused times (over the
 * run's control when relative: NAN where a run has none) and of the
 * control; ctl_level gets NAN where no baseline was stored. */
static int night_levels(const struct night *n, const char **keys, size_t count, int relative,
			double *level, double *spread, double *ctl_level)
{
	size_t cells = count * (n->rounds ? n->rounds : 1);
	double *x = malloc(cells * sizeof *x), *c = malloc(cells * sizeof *c);
	double *scratch = malloc((count ? count : 1) * sizeof *scratch);
	if (!x || !c || !scratch) {
		free(x);
		free(c);
		free(scratch);
		return FGO_EFAIL;
	}
	for (size_t i = 0; i < cells; i++)
		x[i] = c[i] = NAN;
	for (size_t i = 0; i < n->count; i++) {
		const struct gate_row *r = &n->rows[i];
		long k = key_index(keys, count, r->key), j = round_index(n, r->sweep);
		if (k < 0 || j < 0)
			continue;
		size_t cell = (size_t)k * n->rounds + (size_t)j;
		x[cell] = log(r->fused);
		if (r->ctl > 0)
			c[cell] = log(r->ctl);
		if (relative)
			x[cell] = r->ctl > 0 ? x[cell] - c[cell] : NAN;
	}
	gate_levels(x, count, n->rounds, level, spread);
	if (ctl_level)
		gate_levels(c, count, n->rounds, ctl_level, scratch);
	free(x);
	free(c);
	free(scratch);
	return FGO_OK;
}

/* Up to max tags of earlier nights: sweeps of the base's spec and host,
 * older than the base's first round, tagged other than both sides, newest
 * night first. */
static int history_tags(sqlite3 *db, const char *path, const struct night *base,
			const char *head_tag, int max, char (**tags)[128], int *count, char *err,
			size_t len)
{
	static const char sql[] =
		"SELECT s.tag FROM sweeps s JOIN sweeps b ON b.id = ?1"
		" WHERE s.spec_hash IS b.spec_hash AND s.host IS b.host AND s.id < ?1"
		" AND s.tag IS NOT NULL AND s.tag <> '' AND s.tag <> ?2 AND s.tag <> ?3"
		" GROUP BY s.tag ORDER BY max(s.id) DESC LIMIT ?4";
	sqlite3_stmt *st;
	*count = 0;
	*tags = NULL;
	if (max <= 0 || !base->rounds)
		return FGO_OK;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return failed(db, path, err, len);
	*tags = calloc((size_t)max, sizeof **tags);
	if (!*tags) {
		sqlite3_finalize(st);
		return oom(path, err, len);
	}
	sqlite3_bind_int64(st, 1, base->sweeps[0]);
	sqlite3_bind_text(st, 2, base->tag, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, head_tag, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, max);
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW && *count < max)
		view_text(st, 0, (*tags)[(*count)++], sizeof **tags);
	sqlite3_finalize(st);
	return step == SQLITE_DONE || step == SQLITE_ROW ? FGO_OK : failed(db, path, err, len);
}

/* The newest row of key in a night (the configuration and run shown). */
static const struct gate_row *newest(const struct night *n, const char *key, size_t *rounds)
{
	const struct gate_row *last = NULL;
	*rounds = 0;
	for (size_t i = 0; i < n->count; i++)
		if (!strcmp(n->rows[i].key, key)) {
			last = &n->rows[i];
			(*rounds)++;
		}
	return last;
}

/* Earlier nights' levels over keys, oldest first, into *hist. */
static int history_load(sqlite3 *db, const char *path, const struct night *base,
			const char *head_tag, int max, const char **keys, size_t count,
			int relative, double **hist, int *nights, char *err, size_t len)
{
	char(*tags)[128];
	int n;
	*hist = NULL;
	*nights = 0;
	int rc = history_tags(db, path, base, head_tag, max, &tags, &n, err, len);
	if (rc != FGO_OK || n == 0) {
		free(tags);
		return rc;
	}
	double *h = malloc((size_t)n * (count ? count : 1) * sizeof *h);
	double *spread = malloc((count ? count : 1) * sizeof *spread);
	if (!h || !spread)
		rc = oom(path, err, len);
	for (int i = 0; rc == FGO_OK && i < n; i++) {
		struct night past;
		rc = night_load(db, path, tags[i], base->host, &past, err, len);
		/* oldest first: tags come newest first */
		if (rc == FGO_OK && night_levels(&past, keys, count, relative,
						 h + (size_t)(n - 1 - i) * count, spread,
						 NULL) != FGO_OK)
			rc = oom(path, err, len);
		night_free(&past);
	}
	free(tags);
	free(spread);
	if (rc != FGO_OK) {
		free(h);
		return rc;
	}
	*hist = h;
	*nights = n;
	return FGO_OK;
}

/* Fills rep's pairs from the judged configurations; bl and hl are the
 * nights' levels of the times (not relative: the report shows ms). */
static int fill_report(const struct night *b, const struct night *h, const char **keys,
		       size_t count, const double *bl, const double *hl, const struct gate_cfg *out,
		       struct fgo_regress_report *rep)
{
	rep->pairs = calloc(count ? count : 1, sizeof *rep->pairs);
	if (!rep->pairs)
		return FGO_EFAIL;
	for (size_t c = 0; c < count; c++) {
		struct fgo_regress_pair *p = &rep->pairs[rep->count++];
		const struct gate_row *br = newest(b, keys[c], &p->base_n);
		const struct gate_row *hr = newest(h, keys[c], &p->head_n);
		p->cfg = hr->cfg;
		snprintf(p->key, sizeof p->key, "%s", keys[c]);
		p->base_run = br->run;
		p->head_run = hr->run;
		p->base_ms = exp(bl[c]);
		p->head_ms = exp(hl[c]);
		p->change_pct = out[c].change_pct;
		p->p = out[c].p;
		p->verdict = out[c].verdict;
	}
	return FGO_OK;
}

int gate_compare(sqlite3 *bdb, const char *base_path, sqlite3 *hdb, const char *head_path,
		 const struct fgo_regress_opts *o, struct fgo_regress_report *rep, char *err,
		 size_t len)
{
	struct night base, head;
	const char **bk = NULL, **hk = NULL, **keys = NULL;
	size_t nb = 0, nh = 0, count = 0;
	double *v = NULL, *hist = NULL;
	struct gate_cfg *out = NULL;
	int nights = 0;
	memset(&head, 0, sizeof head);
	int rc = night_load(bdb, base_path, o->base, o->host, &base, err, len);
	if (rc == FGO_OK)
		rc = night_load(hdb, head_path, o->head, o->host, &head, err, len);
	if (rc == FGO_OK) {
		bk = night_keys(&base, &nb);
		hk = night_keys(&head, &nh);
		keys = malloc((nb ? nb : 1) * sizeof *keys);
		if (!bk || !hk || !keys)
			rc = oom(head_path, err, len);
	}
	/* the configurations on both sides, in key order */
	for (size_t i = 0, j = 0; rc == FGO_OK && (i < nb || j < nh);) {
		int c = i == nb ? 1 : j == nh ? -1 : strcmp(bk[i], hk[j]);
		if (c < 0)
			rep->only_base++, i++;
		else if (c > 0)
			rep->only_head++, j++;
		else
			keys[count++] = bk[i++], j++;
	}
	rep->base_runs = (int)nb;
	rep->head_runs = (int)nh;
	int relative = night_has_control(&base) && night_has_control(&head);
	if (rc == FGO_OK && count) {
		v = malloc(9 * count * sizeof *v);
		out = calloc(count, sizeof *out);
		if (!v || !out)
			rc = oom(head_path, err, len);
	}
	if (rc == FGO_OK && count)
		rc = history_load(bdb, base_path, &base, head.tag, o->history, keys, count,
				  relative, &hist, &nights, err, len);
	if (rc == FGO_OK && count) {
		double *bl = v, *bs = v + count, *bc = v + 2 * count;
		double *hl = v + 3 * count, *hs = v + 4 * count, *hc = v + 5 * count;
		double *bt = v + 6 * count, *ht = v + 7 * count, *scratch = v + 8 * count;
		if (night_levels(&base, keys, count, relative, bl, bs, bc) != FGO_OK ||
		    night_levels(&head, keys, count, relative, hl, hs, hc) != FGO_OK ||
		    night_levels(&base, keys, count, 0, bt, scratch, NULL) != FGO_OK ||
		    night_levels(&head, keys, count, 0, ht, scratch, NULL) != FGO_OK) {
			rc = oom(head_path, err, len);
		} else {
			struct gate_in in = {
				.configs = count, .base = bl, .head = hl, .base_spread = bs,
				.head_spread = hs, .base_rounds = base.rounds, .head_rounds = head.rounds,
				.base_ctl = bc, .head_ctl = hc, .relative = relative,
				.nights = (size_t)nights, .hist = hist,
				.threshold_pct = o->threshold_pct, .alpha = o->alpha,
			};
			gate_judge(&in, out, &rep->gate);
			rep->gate.base_rounds = (int)base.rounds;
			rep->gate.head_rounds = (int)head.rounds;
			rep->gate.nights = nights;
			rep->regressions = rep->gate.regressions;
			rep->improvements = rep->gate.improvements;
			if (fill_report(&base, &head, keys, count, bt, ht, out, rep) != FGO_OK)
				rc = oom(head_path, err, len);
			else
				regress_sort_pairs(rep);
		}
	}
	free(bk);
	free(hk);
	free(keys);
	free(v);
	free(hist);
	free(out);
	night_free(&base);
	night_free(&head);
	return rc;
}
