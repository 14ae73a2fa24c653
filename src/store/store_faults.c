/* store_faults.c: the runs a bad kernel left (crashed, hung, corrupted:
 * docs/reliability.md): written after the job they ended, from the flight
 * records (run/flight.h), and counted for a sweep's summary. */
#include <stdio.h>
#include <string.h>

#include "backend/result.h"
#include "fgo.h"
#include "store/store.h"
#include "store/store_sql.h"

int store_run_fault(struct fgo_store *st, int64_t sweep_id, const char *config_key, int status,
		    const char *reason, int *found, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	char now[32];
	store_timestamp(now);
	*found = 0;
	/* an ok row is never overwritten: a record names what was in flight */
	if (store_sql_prepare(db,
			      "UPDATE runs SET status = ?1, reason = ?2, ended_at = ?3"
			      " WHERE sweep_id = ?4 AND config_key = ?5 AND status <> 'ok'",
			      &q, "store a crashed run", err, len))
		return FGO_EFAIL;
	if ((store_sql_bind_text(q, 1, status_name((enum fgo_status)status)) |
	     store_sql_bind_text(q, 2, reason) | store_sql_bind_text(q, 3, now) |
	     sqlite3_bind_int64(q, 4, sweep_id) | store_sql_bind_text(q, 5, config_key)) != SQLITE_OK) {
		sqlite3_finalize(q);
		return store_sql_fail(db, err, len, "store a crashed run");
	}
	if (store_sql_run_once(db, q, "store a crashed run", err, len))
		return FGO_EFAIL;
	*found = sqlite3_changes(db) > 0;
	return FGO_OK;
}

int store_sweep_faults(struct fgo_store *st, int64_t sweep_id, long counts[3], char *err,
		       size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	counts[0] = counts[1] = counts[2] = 0;
	if (store_sql_prepare(db,
			      "SELECT sum(status = 'crashed'), sum(status = 'hung'),"
			      " sum(status = 'corrupted') FROM runs WHERE sweep_id = ?1",
			      &q, "count crashed runs", err, len))
		return FGO_EFAIL;
	int rc = sqlite3_bind_int64(q, 1, sweep_id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		for (int i = 0; i < 3; i++)
			counts[i] = (long)sqlite3_column_int64(q, i);
	sqlite3_finalize(q);
	return rc == SQLITE_ROW ? FGO_OK : store_sql_fail(db, err, len, "count crashed runs");
}

int store_sweep_retry_faults(struct fgo_store *st, int64_t sweep_id, long *count, char *err,
			     size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	*count = 0;
	if (store_sql_prepare(db,
			      "UPDATE runs SET status = 'failed', reason = 'to run again"
			      " (--retry-crashed): ' || coalesce(reason, status) WHERE sweep_id = ?1"
			      " AND status IN ('crashed', 'hung', 'corrupted')",
			      &q, "mark crashed runs to run again", err, len))
		return FGO_EFAIL;
	if (sqlite3_bind_int64(q, 1, sweep_id) != SQLITE_OK) {
		sqlite3_finalize(q);
		return store_sql_fail(db, err, len, "mark crashed runs to run again");
	}
	if (store_sql_run_once(db, q, "mark crashed runs to run again", err, len))
		return FGO_EFAIL;
	*count = sqlite3_changes(db);
	return FGO_OK;
}
