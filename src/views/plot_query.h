/* plot_query.h: what the store-backed plots share (plot_kinds.c,
 * plot_roofline.c): the newest ok run of every configuration under the
 * command's filters, and the data file, title and render steps around it. */
#ifndef FGO_PLOT_QUERY_H
#define FGO_PLOT_QUERY_H

#include <stddef.h>
#include <stdio.h>

#include "atomic_file.h"
#include "views/plot.h"
#include "views/plot_kinds.h"
#include "views/views.h"

/* Newest ok run of each configuration, with the command's filters bound by
 * plot_query_prepare as ?1 world, ?2 tag, ?3 algorithm, ?4 dtype; a query
 * reads the table cur. */
#define LATEST_CTE                                                                           \
	"WITH latest AS ("                                                                   \
	"  SELECT r.*, s.host AS host, s.backend AS backend,"                                \
	"    row_number() OVER (PARTITION BY r.config_key ORDER BY r.id DESC) AS recency"     \
	"  FROM runs r JOIN sweeps s ON s.id = r.sweep_id"                                   \
	"  WHERE r.status = 'ok' AND r.t_fused_ms > 0 AND (?1 IS NULL OR r.world = ?1)"      \
	"    AND (?2 IS NULL OR s.tag = ?2) AND (?3 IS NULL OR r.algorithm = ?3)"            \
	"    AND (?4 IS NULL OR r.dtype = ?4)"                                               \
	"), cur AS (SELECT * FROM latest WHERE recency = 1) "

/* Prepares sql and binds q's filters; FGO_OK or an error code (printed). */
int plot_query_prepare(const struct plot_query *q, const char *sql, sqlite3_stmt **st);
/* FGO_OK when step is SQLITE_DONE, else prints the store's error, FGO_EFAIL. */
int plot_query_step_failed(const struct plot_query *q, int step);
/* Opens DIR/BASE.dat's temporary (NULL, message printed, on failure). */
FILE *plot_query_open_data(const struct plot_query *q, const char *base, struct atomic_file *af);
/* Renames the data into place when rc is FGO_OK, else removes it; the result. */
int plot_query_close_data(struct atomic_file *af, int rc);
/* Renders tmpl into DIR/BASE.{gp,png,svg} and prints the image paths. */
int plot_query_render(const struct plot_query *q, const char *tmpl, const char *base,
		      const struct plot_field *f, int n);
/* ", tag T, all_scatter, fp16" for the filters given, safe for titles. */
const char *plot_query_filters(const struct plot_query *q, char *out, size_t len);
/* Text of column c of the current row made safe for gnuplot ("" for NULL). */
const char *plot_query_column(sqlite3_stmt *st, int c, char *out, size_t len);

#endif
