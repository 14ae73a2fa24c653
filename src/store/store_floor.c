/* store_floor.c: the read-floor curve in the store (read_floors,
 * read_floor_points; floor.h): written by calibrate with its ceilings,
 * read by the views with the ceilings that say which runs are memory-bound. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fgo.h"
#include "floor.h"
#include "store/store.h"
#include "store/store_sql.h"

int store_floor_put(struct fgo_store *st, const char *machine, const char *backend,
		    const char *devices, const char *method, int repetitions, const double *bytes,
		    const double *seconds, int n, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q = NULL;
	char now[32];
	int rc;

	if (n < 1 || n > FLOOR_POINTS_MAX) {
		snprintf(err, len, "%s: a read floor of %d points (1 to %d)", store_sql_db_path(db), n,
			 FLOOR_POINTS_MAX);
		return FGO_EUSAGE;
	}
	for (int i = 0; i < n; i++)
		if (!(bytes[i] >= 1) || !(seconds[i] > 0) || !isfinite(seconds[i]) ||
		    (i && !(bytes[i] > bytes[i - 1]))) {
			snprintf(err, len, "%s: read floor point %d (%g bytes, %g s) is not a positive"
				 " time at a size above the one before", store_sql_db_path(db), i,
				 bytes[i], seconds[i]);
			return FGO_EUSAGE;
		}
	store_timestamp(now);
	if ((rc = store_sql_begin(db, "store the read floor", err, len)))
		return rc;
	rc = store_sql_prepare(db, "INSERT INTO read_floors (machine, backend, devices, method,"
				   " repetitions, measured_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
			       &q, "store the read floor", err, len);
	if (rc == FGO_OK &&
	    ((store_sql_bind_text(q, 1, machine) | store_sql_bind_text(q, 2, backend) |
	      store_sql_bind_text(q, 3, devices ? devices : "") | store_sql_bind_text(q, 4, method) |
	      sqlite3_bind_int(q, 5, repetitions) | store_sql_bind_text(q, 6, now)) != SQLITE_OK)) {
		sqlite3_finalize(q);
		rc = store_sql_fail(db, err, len, "store the read floor");
	} else if (rc == FGO_OK) {
		rc = store_sql_run_once(db, q, "store the read floor", err, len);
	}
	sqlite3_int64 id = sqlite3_last_insert_rowid(db);
	sqlite3_stmt *p = NULL;
	if (rc == FGO_OK)
		rc = store_sql_prepare(db, "INSERT INTO read_floor_points (floor_id, bytes, seconds)"
					   " VALUES (?1, ?2, ?3)",
				       &p, "store the read floor's points", err, len);
	for (int i = 0; rc == FGO_OK && i < n; i++) {
		sqlite3_reset(p);
		if (sqlite3_bind_int64(p, 1, id) != SQLITE_OK ||
		    sqlite3_bind_int64(p, 2, (sqlite3_int64)bytes[i]) != SQLITE_OK ||
		    sqlite3_bind_double(p, 3, seconds[i]) != SQLITE_OK || sqlite3_step(p) != SQLITE_DONE)
			rc = store_sql_fail(db, err, len, "store the read floor's points");
	}
	sqlite3_finalize(p);
	return store_sql_commit(db, rc, "store the read floor", err, len);
}

/* 1 when db has the read_floors table (a store older than schema 4 read as
 * it is has none), 0 when not, -1 when asking failed. */
static int has_floor_table(sqlite3 *db)
{
	sqlite3_stmt *q;
	int found;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND"
				   " name = 'read_floor_points'", -1, &q, NULL) != SQLITE_OK)
		return -1;
	found = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int(q, 0) > 0 : -1;
	sqlite3_finalize(q);
	return found;
}

static const char ceilings_sql[] =
	"SELECT what, dtype, value FROM ceilings c WHERE machine = ?1 AND backend = ?2"
	" AND detail = '' AND what IN ('matrix_peak', 'memory_bw')"
	" AND id = (SELECT id FROM ceilings d WHERE d.machine = c.machine AND d.backend = c.backend"
	"           AND d.what = c.what AND d.dtype = c.dtype AND d.detail = ''"
	"           ORDER BY measured_at DESC, id DESC LIMIT 1)";

static const char points_sql[] =
	"SELECT f.id, f.measured_at, p.bytes, p.seconds FROM read_floor_points p"
	" JOIN read_floors f ON f.id = p.floor_id"
	" WHERE f.id = (SELECT id FROM read_floors WHERE machine = ?1 AND backend = ?2"
	"               ORDER BY measured_at DESC, id DESC LIMIT 1)"
	" ORDER BY p.bytes";

int store_floor_get(sqlite3 *db, const char *machine, const char *backend, struct fgo_floor *f,
		    char *err, size_t len)
{
	sqlite3_stmt *q = NULL;
	int step, have;

	memset(f, 0, sizeof *f);
	if ((have = has_floor_table(db)) < 0)
		return store_sql_fail(db, err, len, "read the read floor");
	if (!have || !machine || !backend)
		return FGO_OK;
	if (store_sql_prepare(db, points_sql, &q, "read the read floor", err, len))
		return FGO_EFAIL;
	store_sql_bind_text(q, 1, machine);
	store_sql_bind_text(q, 2, backend);
	while ((step = sqlite3_step(q)) == SQLITE_ROW && f->n < FLOOR_POINTS_MAX) {
		double b = sqlite3_column_double(q, 2), s = sqlite3_column_double(q, 3);
		if (!(s > 0) || !(b > 0))
			continue; /* a hand-edited row: not a point */
		f->id = sqlite3_column_int64(q, 0);
		snprintf(f->measured_at, sizeof f->measured_at, "%s",
			 (const char *)sqlite3_column_text(q, 1) ? (const char *)sqlite3_column_text(q, 1)
								  : "");
		f->bytes[f->n] = b;
		f->seconds[f->n++] = s;
	}
	sqlite3_finalize(q);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return store_sql_fail(db, err, len, "read the read floor");
	if (store_sql_prepare(db, ceilings_sql, &q, "read the ceilings", err, len))
		return FGO_EFAIL;
	store_sql_bind_text(q, 1, machine);
	store_sql_bind_text(q, 2, backend);
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		const char *what = (const char *)sqlite3_column_text(q, 0);
		const char *dtype = (const char *)sqlite3_column_text(q, 1);
		double v = sqlite3_column_double(q, 2);
		enum fgo_dtype t;
		if (what && !strcmp(what, "memory_bw"))
			f->memory_bw = v;
		else if (dtype && dtype_parse(dtype, &t) == 0)
			f->matrix_peak[t] = v;
	}
	sqlite3_finalize(q);
	if (step != SQLITE_DONE)
		return store_sql_fail(db, err, len, "read the ceilings");
	return FGO_OK;
}

const struct fgo_floor *floor_cache_find(struct floor_cache *c, sqlite3 *db, const char *machine,
					 const char *backend, char *err, size_t len)
{
	machine = machine ? machine : "";
	backend = backend ? backend : "";
	for (int i = 0; i < c->count; i++)
		if (!strcmp(c->e[i].machine, machine) && !strcmp(c->e[i].backend, backend))
			return &c->e[i].f;
	int slot = c->count < FLOOR_CACHE_MAX ? c->count++ : c->next++ % FLOOR_CACHE_MAX;
	snprintf(c->e[slot].machine, sizeof c->e[slot].machine, "%s", machine);
	snprintf(c->e[slot].backend, sizeof c->e[slot].backend, "%s", backend);
	if (store_floor_get(db, machine, backend, &c->e[slot].f, err, len) != FGO_OK) {
		c->e[slot].machine[0] = c->e[slot].backend[0] = 0;
		c->e[slot].f.n = 0;
		return NULL;
	}
	return &c->e[slot].f;
}
