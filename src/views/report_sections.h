/* report_sections.h: one function per section of the report, written in
 * report_sections.c and called by report.c. Each returns FGO_OK or
 * FGO_EFAIL (SQLite failed) with err. What both files read (the sweep row,
 * the run counts) is in report_load.h, below them. */
#ifndef FGO_REPORT_SECTIONS_H
#define FGO_REPORT_SECTIONS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "views/regress.h"
#include "views/report_doc.h"
#include "views/report_load.h"

/* The changed configurations of the comparison (rep NULL: nothing in common). */
void report_section_regress(struct report_doc *doc, const struct fgo_regress_report *rep,
			    const char *base_text);
/* Runs that are not ok, counted by status, and their reasons. */
int report_section_not_ok(struct report_doc *doc, sqlite3 *db, const struct report_sweep *s,
			  const struct report_counts *c, char *err, size_t len);
/* The best configuration of every problem, one table per world size. */
int report_section_best(struct report_doc *doc, sqlite3 *db, const struct report_sweep *s,
			char *err, size_t len);
/* Roofline, overlap and heatmaps per world size, drawn into dir by
 * plot_kinds.c on a connection scoped to the sweep; *drawn counts PNGs. */
int report_section_plots(struct report_doc *doc, struct fgo_store *store,
			 const struct report_sweep *s, const char *dir, int *drawn, char *err,
			 size_t len);
/* report_timelines.c: the sweep's traced runs, their summaries and trace
 * files, each drawn into dir (plot_timeline) when plots; *drawn counts the
 * PNGs. No section when nothing was traced. */
int report_section_timelines(struct report_doc *doc, sqlite3 *db, const struct report_sweep *s,
			     const char *dir, int plots, int *drawn, char *err, size_t len);
/* Host, devices, driver, versions, clocks. */
int report_section_environment(struct report_doc *doc, sqlite3 *db, const struct report_sweep *s,
			       char *err, size_t len);

#endif
