/* report_load.c: the sweep row and its run counts read for the report, and
 * the one message of a failed read; below both report.c and
 * report_sections.c, which share them. Exports report_load.h. */
#include "views/report_load.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "fgo.h"
#include "views/views.h"

int report_sql_failed(sqlite3 *db, char *err, size_t len)
{
	snprintf(err, len, "reading the store failed: %s", sqlite3_errmsg(db));
	return FGO_EFAIL;
}

int report_load_sweep(sqlite3 *db, int64_t id, struct report_sweep *s, char *err, size_t len)
{
	sqlite3_stmt *st;
	memset(s, 0, sizeof *s);
	if (sqlite3_prepare_v2(db, "SELECT id, tag, spec_name, spec_hash, host, backend, started_at,"
				   " mpi_ranks FROM sweeps WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
		return report_sql_failed(db, err, len);
	sqlite3_bind_int64(st, 1, id);
	int step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		s->id = sqlite3_column_int64(st, 0);
		view_text(st, 1, s->tag, sizeof s->tag);
		view_text(st, 2, s->spec_name, sizeof s->spec_name);
		view_text(st, 3, s->spec_hash, sizeof s->spec_hash);
		view_text(st, 4, s->host, sizeof s->host);
		view_text(st, 5, s->backend, sizeof s->backend);
		view_text(st, 6, s->started, sizeof s->started);
		s->mpi_ranks = sqlite3_column_int(st, 7);
	}
	sqlite3_finalize(st);
	if (step == SQLITE_ROW)
		return FGO_OK;
	if (step != SQLITE_DONE)
		return report_sql_failed(db, err, len);
	snprintf(err, len, "no sweep %lld in the store", (long long)id);
	return FGO_EUSAGE;
}

int report_load_counts(sqlite3 *db, int64_t id, struct report_counts *c, char *err, size_t len)
{
	sqlite3_stmt *st;
	memset(c, 0, sizeof *c);
	if (sqlite3_prepare_v2(db, "SELECT count(*), sum(status = 'ok'), sum(status = 'invalid'),"
				   " sum(status = 'mismatch'), sum(status = 'failed'),"
				   " sum(status = 'timeout'), sum(status = 'started')"
				   " FROM runs WHERE sweep_id = ?1", -1, &st, NULL) != SQLITE_OK)
		return report_sql_failed(db, err, len);
	sqlite3_bind_int64(st, 1, id);
	int step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		int *v[] = { &c->total, &c->ok, &c->invalid, &c->mismatch, &c->failed, &c->timeout,
			     &c->started };
		for (int i = 0; i < (int)FGO_ARRAY_SIZE(v); i++)
			*v[i] = sqlite3_column_int(st, i);
	}
	sqlite3_finalize(st);
	return step == SQLITE_ROW ? FGO_OK : report_sql_failed(db, err, len);
}
