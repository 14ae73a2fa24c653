/* store_coll.c: the vendor collective's curves in the store (coll_curves,
 * coll_curve_points; store.h): written by calibrate with its ceilings,
 * read by best --predict --world for the vendor baseline. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fgo.h"
#include "store/store.h"
#include "store/store_sql.h"

int store_coll_curve_put(struct fgo_store *st, const char *machine, const char *backend,
			 const char *devices, const char *collective, int world,
			 const char *method, int repetitions, const double *bytes,
			 const double *seconds, int n, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q = NULL, *p = NULL;
	char now[32];
	int rc;

	if (n < 1 || n > STORE_COLL_POINTS || world < 2) {
		snprintf(err, len, "%s: a %s curve of %d points at W=%d (1 to %d points, W >= 2)",
			 store_sql_db_path(db), collective, n, world, STORE_COLL_POINTS);
		return FGO_EUSAGE;
	}
	for (int i = 0; i < n; i++)
		if (!(bytes[i] >= 1) || !(seconds[i] > 0) || !isfinite(seconds[i]) ||
		    (i && !(bytes[i] > bytes[i - 1]))) {
			snprintf(err, len, "%s: %s curve point %d (%g bytes, %g s) is not a positive"
				 " time at a size above the one before", store_sql_db_path(db),
				 collective, i, bytes[i], seconds[i]);
			return FGO_EUSAGE;
		}
	store_timestamp(now);
	if ((rc = store_sql_begin(db, "store the collective curve", err, len)))
		return rc;
	rc = store_sql_prepare(db, "INSERT INTO coll_curves (machine, backend, devices, collective,"
				   " world, method, repetitions, measured_at)"
				   " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
			       &q, "store the collective curve", err, len);
	if (rc == FGO_OK &&
	    ((store_sql_bind_text(q, 1, machine) | store_sql_bind_text(q, 2, backend) |
	      store_sql_bind_text(q, 3, devices ? devices : "") |
	      store_sql_bind_text(q, 4, collective) | sqlite3_bind_int(q, 5, world) |
	      store_sql_bind_text(q, 6, method) | sqlite3_bind_int(q, 7, repetitions) |
	      store_sql_bind_text(q, 8, now)) != SQLITE_OK)) {
		sqlite3_finalize(q);
		rc = store_sql_fail(db, err, len, "store the collective curve");
	} else if (rc == FGO_OK) {
		rc = store_sql_run_once(db, q, "store the collective curve", err, len);
	}
	sqlite3_int64 id = sqlite3_last_insert_rowid(db);
	if (rc == FGO_OK)
		rc = store_sql_prepare(db, "INSERT INTO coll_curve_points (curve_id, bytes, seconds)"
					   " VALUES (?1, ?2, ?3)",
				       &p, "store the collective curve's points", err, len);
	for (int i = 0; rc == FGO_OK && i < n; i++) {
		sqlite3_reset(p);
		if (sqlite3_bind_int64(p, 1, id) != SQLITE_OK ||
		    sqlite3_bind_int64(p, 2, (sqlite3_int64)bytes[i]) != SQLITE_OK ||
		    sqlite3_bind_double(p, 3, seconds[i]) != SQLITE_OK || sqlite3_step(p) != SQLITE_DONE)
			rc = store_sql_fail(db, err, len, "store the collective curve's points");
	}
	sqlite3_finalize(p);
	return store_sql_commit(db, rc, "store the collective curve", err, len);
}

/* The points of curve id into c. */
static int points_of(sqlite3 *db, sqlite3_int64 id, struct store_coll_curve *c, char *err,
		     size_t len)
{
	sqlite3_stmt *q;
	int step;
	if (store_sql_prepare(db, "SELECT bytes, seconds FROM coll_curve_points WHERE curve_id = ?1"
				  " ORDER BY bytes",
			      &q, "read the collective curve", err, len))
		return FGO_EFAIL;
	sqlite3_bind_int64(q, 1, id);
	c->n = 0;
	while ((step = sqlite3_step(q)) == SQLITE_ROW && c->n < STORE_COLL_POINTS) {
		c->bytes[c->n] = sqlite3_column_double(q, 0);
		c->seconds[c->n++] = sqlite3_column_double(q, 1);
	}
	sqlite3_finalize(q);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return store_sql_fail(db, err, len, "read the collective curve");
	return FGO_OK;
}

int store_coll_curves_get(struct fgo_store *st, const char *machine, const char *backend,
			  struct store_coll_curve *out, int cap, int *n, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	int step, rc = FGO_OK;
	*n = 0;
	if (store_sql_prepare(db,
		    "SELECT id, collective, world, measured_at FROM ("
		    "  SELECT c.*, row_number() OVER (PARTITION BY collective, world"
		    "    ORDER BY measured_at DESC, id DESC) AS recency"
		    "  FROM coll_curves c WHERE machine = ?1 AND backend = ?2"
		    ") WHERE recency = 1 ORDER BY collective, world",
		    &q, "read the collective curves", err, len))
		return FGO_EFAIL;
	store_sql_bind_text(q, 1, machine);
	store_sql_bind_text(q, 2, backend);
	while (rc == FGO_OK && (step = sqlite3_step(q)) == SQLITE_ROW && *n < cap) {
		struct store_coll_curve *c = &out[*n];
		memset(c, 0, sizeof *c);
		const unsigned char *name = sqlite3_column_text(q, 1), *at = sqlite3_column_text(q, 3);
		snprintf(c->collective, sizeof c->collective, "%s", name ? (const char *)name : "");
		c->world = sqlite3_column_int(q, 2);
		snprintf(c->measured_at, sizeof c->measured_at, "%s", at ? (const char *)at : "");
		rc = points_of(db, sqlite3_column_int64(q, 0), c, err, len);
		if (rc == FGO_OK && c->n > 0)
			(*n)++;
	}
	sqlite3_finalize(q);
	if (rc == FGO_OK && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = store_sql_fail(db, err, len, "read the collective curves");
	return rc;
}
