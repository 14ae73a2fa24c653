/* store_sql.h: statement helpers shared by the store's writers (store_sql.c). */
#ifndef FGO_STORE_SQL_H
#define FGO_STORE_SQL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/result.h"

/* The store's file name, for messages. */
const char *store_sql_db_path(sqlite3 *db);
/* "PATH: cannot WHAT: sqlite's message" into err; returns FGO_EFAIL. */
int store_sql_fail(sqlite3 *db, char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int store_sql_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **q, const char *what,
		      char *err, size_t len);
/* Steps a statement that returns no rows, then finalizes it. */
int store_sql_run_once(sqlite3 *db, sqlite3_stmt *q, const char *what, char *err, size_t len);
int store_sql_exec(sqlite3 *db, const char *sql, const char *what, char *err, size_t len);
/* A write transaction (BEGIN IMMEDIATE), or nothing inside an open batch
 * (store_batch_begin): then commit leaves it to the batch, and a failure
 * rolls the whole batch back. */
int store_sql_begin(sqlite3 *db, const char *what, char *err, size_t len);
int store_sql_commit(sqlite3 *db, int rc, const char *what, char *err, size_t len);
/* 1 when db's open transaction is a batch. */
int store_sql_in_batch(sqlite3 *db);
/* Makes db's next transaction a batch (store_sql_begin joins it) or, with
 * NULL, ends the batch mark. */
void store_sql_set_batch(sqlite3 *db);
int store_sql_bind_text(sqlite3_stmt *q, int i, const char *v);
/* NaN, infinities and quantities that were not measured are NULL. */
int store_sql_bind_real(sqlite3_stmt *q, int i, double v, int measured);
/* t's samples as (id, kind, iteration, ms) through the prepared q. */
int store_sql_insert_samples(sqlite3 *db, sqlite3_stmt *q, int64_t id, const char *kind,
			     const struct fgo_timing *t, char *err, size_t len);

#endif
