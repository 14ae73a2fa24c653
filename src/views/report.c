/* report.c: `fgobench report`'s work: finds the sweep and what to compare
 * it with, gathers the sections (report_sections.c), assembles the
 * document (report_doc.h) and writes DIR/index.md and DIR/index.html, each
 * through a temporary file renamed into place. Exports report.h. */
#include "views/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "fgo.h"
#include "sink.h"
#include "store/store.h"
#include "views/gate.h"
#include "views/regress.h"
#include "views/report_doc.h"
#include "views/report_load.h"
#include "views/report_sections.h"
#include "views/views.h"

void report_opts_defaults(struct report_opts *o)
{
	struct fgo_regress_opts r;
	regress_opts_defaults(&r);
	memset(o, 0, sizeof *o);
	o->dir = "fgobench-out/report";
	o->plots = 1;
	o->threshold_pct = r.threshold_pct;
	o->alpha = r.alpha;
}

/* One int64 from sql with text (may be NULL) and n bound as ?1 and ?2;
 * *found = 0 when the query gives no row or NULL. */
static int one_id(sqlite3 *db, const char *sql, const char *text, int64_t n, int64_t *out,
		  int *found, char *err, size_t len)
{
	sqlite3_stmt *st;
	*found = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return report_sql_failed(db, err, len);
	if (text)
		sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, n);
	int step = sqlite3_step(st);
	if (step == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*out = sqlite3_column_int64(st, 0);
		*found = 1;
	}
	sqlite3_finalize(st);
	return step == SQLITE_ROW || step == SQLITE_DONE ? FGO_OK : report_sql_failed(db, err, len);
}

/* The sweep reported: by id, by tag (the newest), or the newest of all. */
static int resolve_head(sqlite3 *db, const struct report_opts *o, int64_t *id, char *err,
			size_t len)
{
	int found, rc;
	if (o->sweep_id > 0)
		rc = one_id(db, "SELECT id FROM sweeps WHERE id = ?2", NULL, o->sweep_id, id, &found,
			    err, len);
	else if (o->tag)
		rc = one_id(db, "SELECT max(id) FROM sweeps WHERE tag = ?1", o->tag, 0, id, &found,
			    err, len);
	else
		rc = one_id(db, "SELECT max(id) FROM sweeps", NULL, 0, id, &found, err, len);
	if (rc != FGO_OK || found)
		return rc;
	if (o->sweep_id > 0)
		snprintf(err, len, "no sweep %lld in %s (`fgobench list` shows them)",
			 (long long)o->sweep_id, o->db);
	else if (o->tag) {
		char hint[512], shown[256];
		view_tag_hint(db, o->tag, hint, sizeof hint);
		sink_terminal(o->tag, shown, sizeof shown);
		snprintf(err, len, "no sweep tagged \"%s\" in %s%s", shown, o->db,
			 hint[0] ? hint : " (`fgobench list` shows them)");
	}
	else
		snprintf(err, len, "no sweep in %s yet (run one: `mpirun -np 2 fgobench sweep SPEC`)",
			 o->db);
	return FGO_EUSAGE;
}

/* What to compare with, as regress takes it (a sweep id as text, or a
 * tag) into base; "" when auto finds no earlier sweep of the spec. */
static int resolve_base(sqlite3 *db, const struct report_opts *o, const struct report_sweep *head,
			char *base, size_t base_len, char *err, size_t len)
{
	int64_t id = 0;
	int found = 0, rc;
	base[0] = 0;
	if (!strcmp(o->against, "auto")) {
		/* the gate's night is a tag of rounds: the previous night is the
		 * newest earlier sweep with another tag, taken whole */
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db, "SELECT id, coalesce(tag, '') FROM sweeps WHERE id < ?1"
					   " AND spec_hash = ?2 AND host = ?3"
					   " AND (?4 = 0 OR coalesce(tag, '') <> ?5)"
					   " ORDER BY id DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
			return report_sql_failed(db, err, len);
		sqlite3_bind_int64(st, 1, head->id);
		sqlite3_bind_text(st, 2, head->spec_hash, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, head->host, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 4, o->gate);
		sqlite3_bind_text(st, 5, head->tag, -1, SQLITE_STATIC);
		int step = sqlite3_step(st);
		if (step == SQLITE_ROW) {
			const char *tag = (const char *)sqlite3_column_text(st, 1);
			if (o->gate && tag && *tag)
				snprintf(base, base_len, "%s", tag);
			else
				snprintf(base, base_len, "%lld", (long long)sqlite3_column_int64(st, 0));
		}
		sqlite3_finalize(st);
		return step == SQLITE_ROW || step == SQLITE_DONE ? FGO_OK
								  : report_sql_failed(db, err, len);
	}
	size_t digits = strspn(o->against, "0123456789");
	if (digits > 0 && digits < 19 && !o->against[digits]) {
		rc = one_id(db, "SELECT id FROM sweeps WHERE id = ?2", NULL,
			    strtoll(o->against, NULL, 10), &id, &found, err, len);
		if (rc != FGO_OK || found) {
			snprintf(base, base_len, "%s", o->against);
			return rc;
		}
	}
	rc = one_id(db, "SELECT max(id) FROM sweeps WHERE tag = ?1", o->against, 0, &id, &found, err,
		    len);
	if (rc == FGO_OK && !found) {
		snprintf(err, len, "--against: no sweep with tag or id \"%s\" in %s (`fgobench list`"
			 " shows them; auto picks the previous run of the same spec)", o->against,
			 o->db);
		return FGO_EUSAGE;
	}
	snprintf(base, base_len, "%s", o->against);
	return rc;
}

/* Writes the document to path through a temporary file beside it. */
static int write_file(const struct report_doc *doc, const char *title, int html, const char *path,
		      char *err, size_t len)
{
	struct atomic_file af;
	int rc = atomic_open(&af, path, err, len);
	if (rc != FGO_OK)
		return rc;
	if (html ? doc_write_html(doc, title, af.f) : doc_write_md(doc, af.f)) {
		snprintf(err, len, "cannot write %s: %s", path, strerror(errno));
		atomic_abort(&af);
		return FGO_EFAIL;
	}
	return atomic_commit(&af, err, len);
}

static const char *plural(long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* The paragraph that answers "did anything get worse?" first. */
static void summary(struct report_doc *doc, const struct report_opts *o,
		    const struct report_sweep *s, const struct report_counts *c,
		    const struct report_result *r, const char *base_text,
		    const struct fgo_regress_gate *gate)
{
	doc_para(doc, "Sweep %lld%s%s%s of spec %s on %s (%s backend, %d MPI ranks), started %s:"
		 " %d run%s, %d ok, %d invalid, %d mismatch, %d failed, %d timeout%s.",
		 (long long)s->id, s->tag[0] ? " (tag " : "", s->tag, s->tag[0] ? ")" : "",
		 s->spec_name[0] ? s->spec_name : "?", s->host, s->backend, s->mpi_ranks, s->started,
		 c->total, plural(c->total, "", "s"), c->ok, c->invalid, c->mismatch, c->failed, c->timeout,
		 c->started ? ", and some left started (interrupted)" : "");
	if (!o->against)
		doc_para(doc, "No comparison asked for (--against).");
	else if (!r->base[0])
		doc_para(doc, "Nothing to compare with: no earlier sweep of this spec (hash %s) on %s"
			 " is stored; this is the first night.", s->spec_hash, s->host);
	else if (r->compared == 0)
		doc_para(doc, "Compared with %s: no configuration has ok runs on both sides.", base_text);
	else if (gate && gate->on) {
		char text[1024];
		gate_describe(gate, (size_t)r->compared, o->threshold_pct, o->alpha, text, sizeof text);
		doc_para(doc, "Compared with %s: %d configuration%s, %d regression%s, %d improvement%s,"
			 " judged by the nightly gate (%s). Verdict: %s.",
			 base_text, r->compared, plural(r->compared, "", "s"), r->regressions,
			 plural(r->regressions, "", "s"), r->improvements,
			 plural(r->improvements, "", "s"), text,
			 r->regressions ? "REGRESSION"
			 : gate->blind	? "NO VERDICT (too noisy to judge)"
					: "no regression");
	} else
		doc_para(doc, "Compared with %s: %d configuration%s, %d regression%s, %d improvement%s"
			 " (a change counts above %g%% with a Mann-Whitney p below %g). Verdict: %s.",
			 base_text, r->compared, plural(r->compared, "", "s"), r->regressions,
			 plural(r->regressions, "", "s"), r->improvements,
			 plural(r->improvements, "", "s"), o->threshold_pct, o->alpha,
			 r->regressions ? "REGRESSION" : "no regression");
}

/* Compares the sweep with r->base (when there is one) as regress does;
 * describes the base in base_text. *compared = 0 when no configuration has
 * ok runs on both sides (said in the report, not an error). */
static int compare(const struct report_opts *o, sqlite3 *db, const struct fgo_regress_opts *ro,
		   struct report_result *r, struct fgo_regress_report *rep, char *base_text,
		   size_t text_len, int *compared, char *err, size_t len)
{
	struct report_sweep base;
	char rerr[512];
	*compared = 0;
	if (!r->base[0])
		return FGO_OK;
	/* a side that is a sweep id reads as "sweep N (tag T)" */
	int64_t id = strtoll(r->base, NULL, 10);
	if (strspn(r->base, "0123456789") == strlen(r->base) &&
	    report_load_sweep(db, id, &base, rerr, sizeof rerr) == FGO_OK)
		snprintf(base_text, text_len, "sweep %lld%s%s%s, started %s%s", (long long)id,
			 base.tag[0] ? " (tag " : "", base.tag, base.tag[0] ? ")" : "", base.started,
			 !strcmp(o->against, "auto") ? " (auto: the previous run of this spec on this"
						       " machine)" : "");
	else
		snprintf(base_text, text_len, "the sweeps tagged %s", r->base);
	int rc = regress_compare(ro, rep, rerr, sizeof rerr);
	if (rc == FGO_EFAIL) {
		snprintf(err, len, "%s", rerr);
		return FGO_EFAIL;
	}
	if (rc == FGO_OK) {
		*compared = 1;
		r->compared = (int)rep->count;
		r->regressions = rep->regressions;
		r->improvements = rep->improvements;
		r->no_verdict = rep->gate.on && rep->gate.blind && !rep->regressions;
	}
	return FGO_OK;
}

int report_write(const struct report_opts *o, struct report_result *r, char *err, size_t len)
{
	struct fgo_store *store = NULL;
	struct report_doc *doc = NULL;
	struct report_sweep head = { 0 };
	struct report_counts counts = { 0 };
	struct fgo_regress_report rep;
	struct fgo_regress_opts ro;
	char base_text[256] = "", head_id[32], title[256];
	int rc, compared = 0;

	memset(r, 0, sizeof *r);
	memset(&rep, 0, sizeof rep);
	rc = store_open(o->db, FGO_STORE_READ, &store, err, len);
	sqlite3 *db = store ? store_db(store) : NULL;
	if (rc == FGO_OK)
		rc = resolve_head(db, o, &r->sweep_id, err, len);
	if (rc == FGO_OK)
		rc = report_load_sweep(db, r->sweep_id, &head, err, len);
	if (rc == FGO_OK && o->against)
		rc = resolve_base(db, o, &head, r->base, sizeof r->base, err, len);
	if (rc == FGO_OK)
		rc = report_load_counts(db, r->sweep_id, &counts, err, len);
	if (rc == FGO_OK)
		rc = make_dirs(o->dir, err, len);
	if (rc == FGO_OK && o->against && o->junit)
		rc = sink_check_file("--junit", o->junit, err, len);

	regress_opts_defaults(&ro);
	snprintf(head_id, sizeof head_id, "%lld", (long long)r->sweep_id);
	ro.db = o->db;
	ro.base = r->base[0] ? r->base : "none";
	/* the gate takes the night whole: every round of the sweep's tag */
	ro.head = o->gate && head.tag[0] ? head.tag : head_id;
	ro.gate = o->gate;
	/* the gate compares one machine's nights: the head's (a store merged
	 * from several machines holds each one's rounds under the same tag) */
	ro.host = o->gate ? head.host : NULL;
	ro.threshold_pct = o->threshold_pct;
	ro.alpha = o->alpha;
	if (rc == FGO_OK)
		rc = compare(o, db, &ro, r, &rep, base_text, sizeof base_text, &compared, err, len);
	/* With --against the JUnit file is always written (no test case on a
	 * first night), so a CI job that collects it finds it every night. */
	if (rc == FGO_OK && o->against && o->junit)
		rc = regress_write_junit(&rep, &ro, o->junit, err, len);
	if (rc == FGO_OK && !(doc = doc_new())) {
		snprintf(err, len, "out of memory");
		rc = FGO_EFAIL;
	}

	if (rc == FGO_OK) {
		r->not_ok = counts.invalid + counts.mismatch + counts.failed + counts.timeout +
			    counts.started;
		r->failed = counts.mismatch + counts.failed + counts.timeout + counts.started;
		doc_heading(doc, 1, "fgobench report: sweep %lld%s%s", (long long)r->sweep_id,
			    head.tag[0] ? " " : "", head.tag);
		summary(doc, o, &head, &counts, r, base_text, compared ? &rep.gate : NULL);
		if (o->against && r->base[0])
			report_section_regress(doc, compared ? &rep : NULL, base_text);
		rc = report_section_not_ok(doc, db, &head, &counts, err, len);
	}
	if (rc == FGO_OK)
		rc = report_section_best(doc, db, &head, err, len);
	if (rc == FGO_OK && o->plots)
		rc = report_section_plots(doc, store, &head, o->dir, &r->plots, err, len);
	if (rc == FGO_OK)
		rc = report_section_timelines(doc, db, &head, o->dir, o->plots, &r->plots, err, len);
	if (rc == FGO_OK)
		rc = report_section_environment(doc, db, &head, err, len);
	if (rc == FGO_OK && doc_failed(doc)) {
		snprintf(err, len, "out of memory building the report");
		rc = FGO_EFAIL;
	}

	snprintf(title, sizeof title, "fgobench report: sweep %lld %s", (long long)r->sweep_id,
		 head.tag);
	if (rc == FGO_OK) {
		snprintf(r->md_path, sizeof r->md_path, "%s/index.md", o->dir);
		rc = write_file(doc, title, 0, r->md_path, err, len);
	}
	if (rc == FGO_OK && o->html) {
		snprintf(r->html_path, sizeof r->html_path, "%s/index.html", o->dir);
		rc = write_file(doc, title, 1, r->html_path, err, len);
	}
	doc_free(doc);
	regress_report_free(&rep);
	store_close(store);
	return rc;
}
