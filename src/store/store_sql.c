/* store_sql.c: the statement helpers the store's writers share (store_runs.c,
 * store_problems.c): errors that name the store, prepared statements run
 * once, transactions that join an open batch, bound values that store NaN
 * and unmeasured quantities as NULL, and per-iteration samples. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fgo.h"
#include "store/store.h"
#include "store/store_sql.h"

const char *store_sql_db_path(sqlite3 *db)
{
	const char *p = sqlite3_db_filename(db, "main");
	return p && *p ? p : "store";
}

int store_sql_fail(sqlite3 *db, char *err, size_t len, const char *fmt, ...)
{
	char what[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (err && len)
		snprintf(err, len, "%s: cannot %s: %s", store_sql_db_path(db), what, store_failure(db));
	return FGO_EFAIL;
}

int store_sql_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **q, const char *what, char *err,
		   size_t len)
{
	*q = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, q, NULL) != SQLITE_OK)
		return store_sql_fail(db, err, len, "%s", what);
	return FGO_OK;
}

/* Steps a statement that returns no rows, then finalizes it. */
int store_sql_run_once(sqlite3 *db, sqlite3_stmt *q, const char *what, char *err, size_t len)
{
	int rc = sqlite3_step(q) == SQLITE_DONE ? FGO_OK : store_sql_fail(db, err, len, "%s", what);
	sqlite3_finalize(q);
	return rc;
}

int store_sql_exec(sqlite3 *db, const char *sql, const char *what, char *err, size_t len)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return store_sql_fail(db, err, len, "%s", what);
	return FGO_OK;
}

/* The connection whose open write transaction is a batch (store_batch_begin):
 * the writes below join it instead of opening and committing their own. */
static sqlite3 *batch_db;

int store_sql_in_batch(sqlite3 *db)
{
	return db && db == batch_db;
}

void store_sql_set_batch(sqlite3 *db)
{
	batch_db = db;
}

int store_sql_begin(sqlite3 *db, const char *what, char *err, size_t len)
{
	if (db == batch_db)
		return FGO_OK;
	/* IMMEDIATE: take the write lock now (waiting up to the busy timeout)
	 * rather than fail half-way when a reader upgrades. */
	return store_sql_exec(db, "BEGIN IMMEDIATE", what, err, len);
}

int store_sql_commit(sqlite3 *db, int rc, const char *what, char *err, size_t len)
{
	if (db == batch_db) {
		if (rc == FGO_OK)
			return FGO_OK;
		/* a failed write ends the batch: nothing half-written stays */
		batch_db = NULL;
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return FGO_EFAIL;
	}
	if (rc == FGO_OK && store_sql_exec(db, "COMMIT", what, err, len) == FGO_OK)
		return FGO_OK;
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return FGO_EFAIL;
}

int store_sql_bind_text(sqlite3_stmt *q, int i, const char *v)
{
	return v ? sqlite3_bind_text(q, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(q, i);
}

/* NaN, infinities and quantities that were not measured are stored as NULL. */
int store_sql_bind_real(sqlite3_stmt *q, int i, double v, int measured)
{
	return measured && isfinite(v) ? sqlite3_bind_double(q, i, v) : sqlite3_bind_null(q, i);
}

int store_sql_insert_samples(sqlite3 *db, sqlite3_stmt *q, int64_t run_id, const char *kind,
			  const struct fgo_timing *t, char *err, size_t len)
{
	for (int i = 0; i < t->n; i++) {
		/* A sample that is not a number has no meaning to keep; the
		 * summary columns already say what the run measured. */
		if (!isfinite(t->ms[i]))
			continue;
		if ((sqlite3_reset(q) | sqlite3_bind_int64(q, 1, run_id) | store_sql_bind_text(q, 2, kind) |
		     sqlite3_bind_int(q, 3, i + 1) | sqlite3_bind_double(q, 4, t->ms[i])) !=
			    SQLITE_OK ||
		    sqlite3_step(q) != SQLITE_DONE)
			return store_sql_fail(db, err, len, "store the %s samples of run %lld", kind,
					(long long)run_id);
	}
	return FGO_OK;
}

