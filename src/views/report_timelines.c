/* report_timelines.c: the report's "Timelines" section: the sweep's
 * traced runs (`sweep --trace best`, `run --trace`) with their summaries
 * and their trace-event JSON files, each drawn (plot_timeline) into the
 * report's folder when plots are on and the file is still there. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fgo.h"
#include "views/plot_kinds.h"
#include "views/report_sections.h"
#include "views/table.h"

static const char *const headers[] = { "run",     "configuration", "GEMM-busy %", "comm hidden %",
				       "tail us", "skew us",       "overhead %",  "trace file" };

static const char *num(char *buf, size_t len, double v, const char *fmt)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fmt, v);
	return buf;
}

static double col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int report_section_timelines(struct report_doc *doc, sqlite3 *db, const struct report_sweep *s,
			     const char *dir, int plots, int *drawn, char *err, size_t len)
{
	sqlite3_stmt *st;
	int step, n = 0;
	enum { MAX_DRAWN = 16 }; /* the report stays readable; the rest are in the table */
	char files[MAX_DRAWN][1024];
	int64_t ids[MAX_DRAWN];
	if (sqlite3_prepare_v2(db,
			       "SELECT t.run_id, r.algorithm, r.dtype, r.world, r.m, r.n, r.k,"
			       " t.gemm_pct, t.hidden_pct, t.tail_us, t.skew_us, t.overhead_pct, t.file"
			       " FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.sweep_id = ?1"
			       " ORDER BY t.run_id",
			       -1, &st, NULL) != SQLITE_OK)
		return report_sql_failed(db, err, len);
	sqlite3_bind_int64(st, 1, s->id);
	struct fgo_table *t = table_new((int)FGO_ARRAY_SIZE(headers), headers);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		char a[5][32];
		const char *file = (const char *)sqlite3_column_text(st, 12);
		table_add(t, "%lld", (long long)sqlite3_column_int64(st, 0));
		table_add(t, "%s %s w%d %lldx%lldx%lld", (const char *)sqlite3_column_text(st, 1),
			  (const char *)sqlite3_column_text(st, 2), sqlite3_column_int(st, 3),
			  (long long)sqlite3_column_int64(st, 4), (long long)sqlite3_column_int64(st, 5),
			  (long long)sqlite3_column_int64(st, 6));
		table_add(t, "%s", num(a[0], sizeof a[0], col(st, 7), "%.1f"));
		table_add(t, "%s", num(a[1], sizeof a[1], col(st, 8), "%.1f"));
		table_add(t, "%s", num(a[2], sizeof a[2], col(st, 9), "%.1f"));
		table_add(t, "%s", num(a[3], sizeof a[3], col(st, 10), "%.1f"));
		table_add(t, "%s", num(a[4], sizeof a[4], col(st, 11), "%+.1f"));
		table_add(t, "%s", file ? file : "");
		if (n < MAX_DRAWN && file) {
			snprintf(files[n], sizeof files[n], "%s", file);
			ids[n++] = sqlite3_column_int64(st, 0);
		}
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		table_free(t);
		return report_sql_failed(db, err, len);
	}
	if (n == 0) {
		table_free(t);
		return FGO_OK; /* nothing traced: no section */
	}
	doc_heading(doc, 2, "Timelines");
	doc_para(doc, "Traced runs (`run --trace`, `sweep --trace best`): per-CTA events of one"
		      " launch on every rank, as Chrome/Perfetto trace-event JSON (open it in"
		      " ui.perfetto.dev). GEMM-busy is the share of CTA time in tile GEMMs; comm"
		      " hidden the share of the puts and reductions under a GEMM on their rank;"
		      " overhead the traced launch's median against the untraced one's.");
	doc_table(doc, t, (int)FGO_ARRAY_SIZE(headers), headers);
	for (int i = 0; plots && i < n; i++) {
		char base[256], name[300], caption[1400];
		struct stat sb;
		if (stat(files[i], &sb) != 0)
			continue; /* moved or on another machine: the table names it */
		plot_timeline_base(files[i], base, sizeof base);
		snprintf(name, sizeof name, "%s.png", base);
		snprintf(caption, sizeof caption, "Timeline of run %lld: one row per CTA (and lane),"
			 " ranks stacked, one colour per event kind", (long long)ids[i]);
		if (plot_timeline(files[i], dir) == FGO_OK) {
			doc_image(doc, name, caption, 0);
			(*drawn)++;
		}
	}
	return FGO_OK;
}
