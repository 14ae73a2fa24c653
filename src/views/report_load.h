/* report_load.h: what report.c and report_sections.c share, below both
 * (report_load.c): the sweep row, its run counts, and the message of a
 * failed read of the store. */
#ifndef FGO_REPORT_LOAD_H
#define FGO_REPORT_LOAD_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

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

#endif
