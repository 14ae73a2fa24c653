/* plot_query.c: the steps every store-backed plot takes around its own
 * query: binding the command's filters, the data file written to a
 * temporary and renamed, the title's filter text (through sink_plot, as
 * it reaches gnuplot) and the render that prints the image paths. */
#include "views/plot_query.h"

#include <stdio.h>

#include "fgo.h"
#include "sink.h"

int plot_query_prepare(const struct plot_query *q, const char *sql, sqlite3_stmt **st)
{
	int rc = view_prepare(q->store, sql, st);
	if (rc)
		return rc;
	if (q->world > 0)
		sqlite3_bind_int(*st, 1, q->world);
	if (q->tag)
		sqlite3_bind_text(*st, 2, q->tag, -1, SQLITE_STATIC);
	if (q->algorithm)
		sqlite3_bind_text(*st, 3, q->algorithm, -1, SQLITE_STATIC);
	if (q->dtype)
		sqlite3_bind_text(*st, 4, q->dtype, -1, SQLITE_STATIC);
	return FGO_OK;
}

int plot_query_step_failed(const struct plot_query *q, int step)
{
	if (step == SQLITE_DONE)
		return FGO_OK;
	error("reading the store failed: %s", sqlite3_errmsg(store_db(q->store)));
	return FGO_EFAIL;
}

int plot_query_render(const struct plot_query *q, const char *tmpl, const char *base,
		      const struct plot_field *f, int n)
{
	char err[512];
	if (plot_render(tmpl, q->dir, base, f, n, err, sizeof err) != FGO_OK) {
		error("%s", err);
		return FGO_EFAIL;
	}
	printf("%s/%s.png\n%s/%s.svg\n", q->dir, base, q->dir, base);
	return FGO_OK;
}

FILE *plot_query_open_data(const struct plot_query *q, const char *base, struct atomic_file *af)
{
	char err[512];
	if (plot_open_data(q->dir, base, af, err, sizeof err) != FGO_OK) {
		error("%s", err);
		return NULL;
	}
	return af->f;
}

int plot_query_close_data(struct atomic_file *af, int rc)
{
	char err[512];
	if (rc != FGO_OK) {
		plot_abort_data(af);
		return rc;
	}
	if (plot_commit_data(af, err, sizeof err) != FGO_OK) {
		error("%s", err);
		return FGO_EFAIL;
	}
	return FGO_OK;
}

const char *plot_query_filters(const struct plot_query *q, char *out, size_t len)
{
	char tag[80], algo[64], dtype[16];
	sink_plot(q->tag, tag, sizeof tag);
	sink_plot(q->algorithm, algo, sizeof algo);
	sink_plot(q->dtype, dtype, sizeof dtype);
	snprintf(out, len, "%s%s%s%s%s%s", q->tag ? ", tag " : "", tag, q->algorithm ? ", " : "",
		 algo, q->dtype ? ", " : "", dtype);
	return out;
}

const char *plot_query_column(sqlite3_stmt *st, int c, char *out, size_t len)
{
	sink_plot((const char *)sqlite3_column_text(st, c), out, len);
	return out;
}
