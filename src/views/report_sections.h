/* report_impl.h: what report.c and report_sections.c share: the sweep row,
 * the run counts, and one function per section of the report. Each section
 * function returns FGO_OK or FGO_EFAIL (SQLite failed) with err. */
#ifndef FGO_REPORT_IMPL_H
#define FGO_REPORT_IMPL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "regress.h"
#include "report_doc.h"
#include "store.h"

/* What the summary and the comparison need of a sweep row. */
struct report_sweep {
	int64_t id;
	char tag[96], spec_name[96], spec_hash[40], host[128], backend[16], started[32];
	int mpi_ranks;
};

/* The sweep's runs by status. */
struct report_counts {
	int total, ok, invalid, mismatch, failed, timeout, started;
};

int report_sql_failed(sqlite3 *db, char *err, size_t len);

/* FGO_EUSAGE when there is no such sweep. */
int report_load_sweep(sqlite3 *db, int64_t id, struct report_sweep *s, char *err, size_t len);
int report_load_counts(sqlite3 *db, int64_t id, struct report_counts *c, char *err, size_t len);

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
/* Host, devices, driver, versions, clocks. */
int report_section_environment(struct report_doc *doc, sqlite3 *db, const struct report_sweep *s,
			       char *err, size_t len);

#endif
