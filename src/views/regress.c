/* regress.c: loads the two sides of a comparison from the store(s), matches
 * their ok runs by canonical configuration key, judges each pair (median
 * change against a threshold, Mann-Whitney U p-value against alpha), and
 * writes the JUnit report. Exports the functions of regress.h. */
#include "views/regress.h"
#include "views/views.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "fgo.h"
#include "sink.h"
#include "stats.h"
#include "views/gate.h"
#include "store/store.h"
#include "views/table.h"

void regress_opts_defaults(struct fgo_regress_opts *o)
{
	memset(o, 0, sizeof *o);
	o->threshold_pct = 5.0;
	o->alpha = 0.01;
	o->history = 10;
}

const char *const regress_headers[REGRESS_COLUMNS] = {
	"algorithm", "dtype", "world", "M", "N", "K", "config", "base ms", "head ms", "change %", "p", "verdict"
};

void regress_table_row(struct fgo_table *t, const struct fgo_regress_pair *p)
{
	char config[96];
	view_tile_text(&p->cfg, config, sizeof config);
	view_problem_cells(t, &p->cfg);
	table_add(t, "%s", config);
	table_add(t, "%.4g", p->base_ms);
	table_add(t, "%.4g", p->head_ms);
	if (isnan(p->change_pct))
		table_add(t, "%s", "");
	else
		table_add(t, "%+.1f", p->change_pct);
	table_add(t, "%.2g", p->p);
	table_add(t, "%s", regress_verdict_name(p->verdict));
}

const char *regress_verdict_name(enum fgo_verdict v)
{
	switch (v) {
	case FGO_REGRESSION: return "regression";
	case FGO_IMPROVEMENT: return "improvement";
	default: return "same";
	}
}

/* One side: the newest ok run of each configuration, in key order. */
struct side_run {
	char key[FGO_KEY_MAX];
	struct fgo_config cfg;
	int64_t id;
	double *ms; /* fused samples */
	size_t n;
};

struct side {
	struct side_run *runs;
	size_t count, cap;
};

static void side_free(struct side *s)
{
	for (size_t i = 0; i < s->count; i++)
		free(s->runs[i].ms);
	free(s->runs);
	memset(s, 0, sizeof *s);
}

static int sql_failed(sqlite3 *db, const char *path, char *err, size_t len)
{
	snprintf(err, len, "reading %s: %s", path, sqlite3_errmsg(db));
	return FGO_EFAIL;
}

/* Resolves text to a sweep id when it is all digits and that sweep exists
 * (*id > 0), else to a tag with at least one sweep (*id = 0); then the
 * host whose sweeps make the side (regress.h). */
int regress_side_resolve(sqlite3 *db, const char *path, const char *text, const char *want,
			 int64_t *id, char *host, size_t host_len, char *err, size_t len)
{
	size_t digits = strspn(text, "0123456789");
	*id = 0;
	host[0] = 0;
	sqlite3_stmt *st;
	if (digits > 0 && digits < 19 && text[digits] == '\0') {
		if (sqlite3_prepare_v2(db, "SELECT id FROM sweeps WHERE id = ?1", -1, &st, NULL))
			return sql_failed(db, path, err, len);
		sqlite3_bind_int64(st, 1, strtoll(text, NULL, 10));
		if (sqlite3_step(st) == SQLITE_ROW)
			*id = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	/* the side's hosts: how many, "a, b", and whether want is one */
	if (sqlite3_prepare_v2(db, "SELECT count(*), group_concat(h, ', '), coalesce(sum(h = ?3), 0)"
			       " FROM (SELECT DISTINCT coalesce(host, '') AS h FROM sweeps"
			       " WHERE CASE WHEN ?1 > 0 THEN id = ?1 ELSE tag = ?2 END ORDER BY 1)",
			       -1, &st, NULL))
		return sql_failed(db, path, err, len);
	sqlite3_bind_int64(st, 1, *id);
	sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, want ? want : "", -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	long hosts = rc == SQLITE_ROW ? (long)sqlite3_column_int64(st, 0) : 0;
	int wanted = rc == SQLITE_ROW && sqlite3_column_int(st, 2) > 0;
	char list[512] = "", shown[256], shown_list[600], shown_want[256];
	if (rc == SQLITE_ROW && sqlite3_column_text(st, 1))
		snprintf(list, sizeof list, "%s", (const char *)sqlite3_column_text(st, 1));
	if (rc == SQLITE_ROW && hosts == 1)
		snprintf(host, host_len, "%s", list);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return sql_failed(db, path, err, len);
	sink_terminal(text, shown, sizeof shown);
	sink_terminal(list, shown_list, sizeof shown_list);
	if (hosts == 0) {
		char hint[512];
		view_tag_hint(db, text, hint, sizeof hint);
		snprintf(err, len, "no sweep with tag or id \"%s\" in %s%s", shown, path,
			 hint[0] ? hint : " (`fgobench list` shows them)");
		return FGO_EUSAGE;
	}
	if (want && !wanted) {
		sink_terminal(want, shown_want, sizeof shown_want);
		if (*id)
			snprintf(err, len, "sweep %s in %s ran on host %s, not on \"%s\" (--host)",
				 shown, path, shown_list, shown_want);
		else
			snprintf(err, len, "no sweep tagged \"%s\" in %s ran on host \"%s\" (--host);"
				 " they ran on %s", shown, path, shown_want, shown_list);
		return FGO_EUSAGE;
	}
	if (want) {
		snprintf(host, host_len, "%s", want);
	} else if (hosts > 1) {
		/* a store merged from several machines: their nights share tags,
		 * and one machine's rounds must not be judged with another's */
		snprintf(err, len, "the sweeps tagged \"%s\" in %s ran on %ld hosts (%s): a side is"
			 " one machine's; choose one with --host", shown, path, hosts, shown_list);
		return FGO_EUSAGE;
	}
	return FGO_OK;
}

static const char runs_sql[] =
	"SELECT r.id, r.config_key, r.algorithm, r.dtype, r.world, r.m, r.n, r.k,"
	" r.blk_m, r.blk_n, r.blk_k, r.num_stages, r.num_warps, r.mma, r.gsize_m,"
	" r.gemm_sms, r.comm_sms, r.comm_blk_m, r.comm_blk_n, r.split_k, r.deterministic,"
	" r.cluster, r.kernel_params, r.kernel_hash,"
	" r.t_fused_ms"
	" FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
	" WHERE r.status = 'ok' AND (CASE WHEN ?1 > 0 THEN s.id = ?1 ELSE s.tag = ?2 END)"
	" AND coalesce(s.host, '') = ?3"
	/* newest first within a key, so the first row of each key is the one kept */
	" ORDER BY r.config_key, coalesce(r.ended_at, r.started_at) DESC, r.id DESC";

/* The fused samples of run r; a run stored without samples falls back to
 * its median as one sample (which can never be significant on its own). */
static int load_samples(sqlite3_stmt *st, struct side_run *r, double fallback_ms)
{
	size_t cap = 0;
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, r->id);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (r->n == cap) {
			cap = cap ? 2 * cap : 32;
			double *ms = realloc(r->ms, cap * sizeof *ms);
			if (!ms)
				return FGO_EFAIL;
			r->ms = ms;
		}
		r->ms[r->n++] = sqlite3_column_double(st, 0);
	}
	if (rc != SQLITE_DONE)
		return FGO_EFAIL;
	if (r->n == 0 && fallback_ms > 0) {
		r->ms = malloc(sizeof *r->ms);
		if (!r->ms)
			return FGO_EFAIL;
		r->ms[r->n++] = fallback_ms;
	}
	return FGO_OK;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct side_run *)a)->key, ((const struct side_run *)b)->key);
}

static int side_load(sqlite3 *db, const char *path, const char *text, const char *want,
		     struct side *s, char *err, size_t len)
{
	int64_t id;
	char host[256];
	int rc = regress_side_resolve(db, path, text, want, &id, host, sizeof host, err, len);
	if (rc != FGO_OK)
		return rc;
	sqlite3_stmt *runs = NULL, *samples = NULL;
	if (sqlite3_prepare_v2(db, runs_sql, -1, &runs, NULL) ||
	    sqlite3_prepare_v2(db, "SELECT ms FROM samples WHERE run_id = ?1 AND kind = 'fused'"
				   " ORDER BY iteration", -1, &samples, NULL)) {
		rc = sql_failed(db, path, err, len);
		goto out;
	}
	sqlite3_bind_int64(runs, 1, id);
	sqlite3_bind_text(runs, 2, text, -1, SQLITE_STATIC);
	sqlite3_bind_text(runs, 3, host, -1, SQLITE_STATIC);
	int step;
	while ((step = sqlite3_step(runs)) == SQLITE_ROW) {
		const char *full = (const char *)sqlite3_column_text(runs, 1);
		char key[FGO_KEY_MAX];
		/* a user kernel's runs pair up across edits of its source: the
		 * key without its source hash (config_key_sans_source) */
		snprintf(key, sizeof key, "%.*s", (int)config_key_sans_source(full), full);
		if (s->count && !strcmp(s->runs[s->count - 1].key, key))
			continue; /* an older run of the same configuration */
		if (s->count == s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 64;
			struct side_run *more = realloc(s->runs, cap * sizeof *more);
			if (!more) {
				snprintf(err, len, "out of memory reading %s", path);
				rc = FGO_EFAIL;
				goto out;
			}
			s->runs = more;
			s->cap = cap;
		}
		struct side_run *r = &s->runs[s->count++];
		memset(r, 0, sizeof *r);
		snprintf(r->key, sizeof r->key, "%s", key);
		r->id = sqlite3_column_int64(runs, 0);
		view_config(runs, 2, &r->cfg); /* columns 2.. are VIEW_CONFIG_COLUMNS */
		if (load_samples(samples, r, sqlite3_column_double(runs, 2 + VIEW_CONFIG_NCOLS)) !=
		    FGO_OK) {
			rc = sql_failed(db, path, err, len);
			goto out;
		}
		if (r->n == 0) /* ok yet nothing measured: nothing to compare */
			s->count--;
	}
	if (step != SQLITE_DONE)
		rc = sql_failed(db, path, err, len);
	/* in key order for match(): a key without its source hash may sort
	 * elsewhere than the whole key did */
	if (rc == FGO_OK && s->count > 1)
		qsort(s->runs, s->count, sizeof *s->runs, by_key);
out:
	sqlite3_finalize(runs);
	sqlite3_finalize(samples);
	return rc;
}

static void judge(struct fgo_regress_pair *p, const struct side_run *b, const struct side_run *h,
		  const struct fgo_regress_opts *o)
{
	p->cfg = h->cfg;
	snprintf(p->key, sizeof p->key, "%s", h->key);
	p->base_run = b->id;
	p->head_run = h->id;
	p->base_n = b->n;
	p->head_n = h->n;
	p->base_ms = stats_median(b->ms, b->n);
	p->head_ms = stats_median(h->ms, h->n);
	p->change_pct = p->base_ms > 0 ? (p->head_ms - p->base_ms) / p->base_ms * 100.0 : NAN;
	double u;
	if (stats_mann_whitney(h->ms, h->n, b->ms, b->n, &u, &p->p) != 0)
		p->p = 1.0;
	p->verdict = FGO_SAME;
	if (p->p < o->alpha && p->change_pct > o->threshold_pct)
		p->verdict = FGO_REGRESSION;
	else if (p->p < o->alpha && p->change_pct < -o->threshold_pct)
		p->verdict = FGO_IMPROVEMENT;
}

static int cmp_long(long a, long b)
{
	return (a > b) - (a < b);
}

/* Regressions (largest change first), improvements (largest gain first),
 * then the unchanged by shape, so the table reads from what needs action. */
static int pair_order(const void *pa, const void *pb)
{
	const struct fgo_regress_pair *a = pa, *b = pb;
	static const int rank[] = { [FGO_REGRESSION] = 0, [FGO_IMPROVEMENT] = 1, [FGO_SAME] = 2 };
	if (rank[a->verdict] != rank[b->verdict])
		return rank[a->verdict] - rank[b->verdict];
	if (a->verdict == FGO_REGRESSION && a->change_pct != b->change_pct)
		return a->change_pct > b->change_pct ? -1 : 1;
	if (a->verdict == FGO_IMPROVEMENT && a->change_pct != b->change_pct)
		return a->change_pct < b->change_pct ? -1 : 1;
	int c = strcmp(a->cfg.algorithm, b->cfg.algorithm);
	if (!c)
		c = cmp_long(a->cfg.dtype, b->cfg.dtype);
	if (!c)
		c = cmp_long(a->cfg.world, b->cfg.world);
	if (!c)
		c = cmp_long(a->cfg.m, b->cfg.m);
	if (!c)
		c = cmp_long(a->cfg.n, b->cfg.n);
	if (!c)
		c = cmp_long(a->cfg.k, b->cfg.k);
	return c ? c : strcmp(a->key, b->key);
}

static int match(const struct side *b, const struct side *h, const struct fgo_regress_opts *o,
		 struct fgo_regress_report *rep)
{
	size_t most = b->count < h->count ? b->count : h->count;
	rep->pairs = calloc(most ? most : 1, sizeof *rep->pairs);
	if (!rep->pairs)
		return FGO_EFAIL;
	size_t i = 0, j = 0;
	while (i < b->count || j < h->count) {
		int c = i == b->count ? 1 : j == h->count ? -1 : strcmp(b->runs[i].key, h->runs[j].key);
		if (c < 0) {
			rep->only_base++;
			i++;
		} else if (c > 0) {
			rep->only_head++;
			j++;
		} else {
			struct fgo_regress_pair *p = &rep->pairs[rep->count++];
			judge(p, &b->runs[i++], &h->runs[j++], o);
			rep->regressions += p->verdict == FGO_REGRESSION;
			rep->improvements += p->verdict == FGO_IMPROVEMENT;
		}
	}
	regress_sort_pairs(rep);
	return FGO_OK;
}

void regress_sort_pairs(struct fgo_regress_report *rep)
{
	qsort(rep->pairs, rep->count, sizeof *rep->pairs, pair_order);
}

int regress_compare(const struct fgo_regress_opts *o, struct fgo_regress_report *rep,
		    char *err, size_t len)
{
	memset(rep, 0, sizeof *rep);
	const char *head_path = o->db;
	const char *base_path = o->base_db ? o->base_db : o->db;
	if (!head_path || !o->base || !o->head) {
		snprintf(err, len, "regress needs a store, a base and a head");
		return FGO_EUSAGE;
	}
	struct fgo_store *hst = NULL, *bst = NULL;
	struct side base = { 0 }, head = { 0 };
	int rc = store_open(head_path, FGO_STORE_READ, &hst, err, len);
	if (rc == FGO_OK && strcmp(base_path, head_path) != 0)
		rc = store_open(base_path, FGO_STORE_READ, &bst, err, len);
	sqlite3 *hdb = hst ? store_db(hst) : NULL;
	sqlite3 *bdb = bst ? store_db(bst) : hdb;
	if (rc == FGO_OK && o->gate)
		rc = gate_compare(bdb, base_path, hdb, head_path, o, rep, err, len);
	else if (rc == FGO_OK)
		rc = side_load(bdb, base_path, o->base, o->host, &base, err, len);
	if (rc == FGO_OK)
		rc = side_load(hdb, head_path, o->head, o->host, &head, err, len);
	if (rc == FGO_OK && !o->gate) {
		rep->base_runs = (int)base.count;
		rep->head_runs = (int)head.count;
		rc = match(&base, &head, o, rep);
		if (rc != FGO_OK)
			snprintf(err, len, "out of memory comparing %zu and %zu runs", base.count,
				 head.count);
	}
	if (rc == FGO_OK && rep->count == 0) {
		snprintf(err, len,
			 "nothing to compare: no configuration has ok runs on both sides"
			 " (base \"%s\": %d in %s, head \"%s\": %d in %s)",
			 o->base, rep->base_runs, base_path, o->head, rep->head_runs, head_path);
		rc = FGO_EUSAGE;
	}
	side_free(&base);
	side_free(&head);
	store_close(bst);
	store_close(hst);
	return rc;
}

void regress_report_free(struct fgo_regress_report *rep)
{
	free(rep->pairs);
	memset(rep, 0, sizeof *rep);
}

int regress_exit_code(const struct fgo_regress_report *rep)
{
	return rep->regressions > 0 ? FGO_EFAIL : FGO_OK;
}

/* Text as XML character data or attribute value. Control characters other
 * than tab and newline are not allowed in XML 1.0 and are dropped. */
static void xml_puts(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		case '\n': fputs("&#10;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, f);
		}
	}
}

static void junit_property(FILE *f, const char *name, const char *value)
{
	fprintf(f, "    <property name=\"%s\" value=\"", name);
	xml_puts(f, value);
	fputs("\"/>\n", f);
}

static void junit_write(FILE *f, const struct fgo_regress_report *rep,
			const struct fgo_regress_opts *o)
{
	char text[FGO_KEY_MAX + 160], num[64];
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<testsuite name=\"fgobench regress\" tests=\"%zu\" failures=\"%d\" errors=\"0\""
		   " skipped=\"0\">\n", rep->count, rep->regressions);
	fputs("  <properties>\n", f);
	junit_property(f, "base", o->base);
	junit_property(f, "head", o->head);
	junit_property(f, "base_db", o->base_db ? o->base_db : o->db);
	junit_property(f, "head_db", o->db);
	snprintf(num, sizeof num, "%g", o->threshold_pct);
	junit_property(f, "threshold_pct", num);
	snprintf(num, sizeof num, "%g", o->alpha);
	junit_property(f, "alpha", num);
	fputs("  </properties>\n", f);
	for (size_t i = 0; i < rep->count; i++) {
		const struct fgo_regress_pair *p = &rep->pairs[i];
		char config[96];
		view_tile_text(&p->cfg, config, sizeof config);
		snprintf(text, sizeof text, "%s.%s.w%d", p->cfg.algorithm, dtype_name(p->cfg.dtype),
			 p->cfg.world);
		fputs("  <testcase classname=\"", f);
		xml_puts(f, text);
		snprintf(text, sizeof text, "%ldx%ldx%ld %s", p->cfg.m, p->cfg.n, p->cfg.k, config);
		fputs("\" name=\"", f);
		xml_puts(f, text);
		if (p->verdict != FGO_REGRESSION) {
			fputs("\"/>\n", f);
			continue;
		}
		snprintf(text, sizeof text,
			 "%+.1f%% slower: head median %.4g ms vs base %.4g ms (p = %.2g < %s %g,"
			 " threshold %g%%)", p->change_pct, p->head_ms, p->base_ms, p->p,
			 rep->gate.on ? "alpha / configurations" : "alpha",
			 rep->gate.on ? rep->gate.alpha_each : o->alpha,
			 o->threshold_pct);
		fputs("\">\n    <failure type=\"regression\" message=\"", f);
		xml_puts(f, text);
		fputs("\">", f);
		snprintf(text, sizeof text,
			 "config %s: base run %lld (%zu samples), head run %lld (%zu samples)",
			 p->key, (long long)p->base_run, p->base_n, (long long)p->head_run, p->head_n);
		xml_puts(f, text);
		fputs("</failure>\n  </testcase>\n", f);
	}
	fputs("</testsuite>\n", f);
}

int regress_write_junit(const struct fgo_regress_report *rep, const struct fgo_regress_opts *o,
			const char *path, char *err, size_t len)
{
	struct atomic_file af;
	int rc = atomic_open(&af, path, err, len);
	if (rc != FGO_OK)
		return rc;
	junit_write(af.f, rep, o);
	return atomic_commit(&af, err, len);
}
