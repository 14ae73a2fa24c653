/* store_trace.c: the summary of a traced run in the store (traces,
 * trace_ranks, trace_waits; trace/timeline.h): written by `run --trace`
 * and `sweep --trace best`, read by `show` and `report`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "store/store.h"
#include "store/store_sql.h"

static int bind_real(sqlite3_stmt *q, int i, double v)
{
	return store_sql_bind_real(q, i, v, 1);
}

int store_trace_put(struct fgo_store *st, int64_t run_id, const char *file,
		    const struct fgo_trace_summary *s, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q = NULL;
	char now[32];
	int rc;
	static const char what[] = "store the trace summary";

	store_timestamp(now);
	if ((rc = store_sql_begin(db, what, err, len)))
		return rc;
	/* the run's ranks and waits go with its old row (ON DELETE CASCADE) */
	sqlite3_stmt *d = NULL;
	rc = store_sql_prepare(db, "DELETE FROM traces WHERE run_id = ?1", &d, what, err, len);
	if (rc == FGO_OK) {
		sqlite3_bind_int64(d, 1, run_id);
		rc = store_sql_run_once(db, d, what, err, len);
	}
	if (rc == FGO_OK)
		rc = store_sql_prepare(
			db,
			"INSERT INTO traces (run_id, file, traced_at, world, ctas, events, dropped, tiles,"
			" kernel_us, gemm_pct, comm_pct, xchg_pct, wait_pct, idle_pct, hidden_pct, tail_us,"
			" skew_us, traced_ms, untraced_ms, overhead_pct) VALUES (?1, ?2, ?3, ?4, ?5, ?6,"
			" ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
			&q, what, err, len);
	if (rc == FGO_OK) {
		int b = sqlite3_bind_int64(q, 1, run_id) | store_sql_bind_text(q, 2, file) |
			store_sql_bind_text(q, 3, now) | sqlite3_bind_int(q, 4, s->world) |
			sqlite3_bind_int(q, 5, s->ctas) | sqlite3_bind_int64(q, 6, s->events) |
			sqlite3_bind_int64(q, 7, s->dropped) | sqlite3_bind_int64(q, 8, s->tiles) |
			bind_real(q, 9, s->kernel_us) | bind_real(q, 10, s->gemm_pct) |
			bind_real(q, 11, s->comm_pct) | bind_real(q, 12, s->xchg_pct) |
			bind_real(q, 13, s->wait_pct) | bind_real(q, 14, s->idle_pct) |
			bind_real(q, 15, s->hidden_pct) | bind_real(q, 16, s->tail_us) |
			bind_real(q, 17, s->skew_us) | bind_real(q, 18, s->traced_ms) |
			bind_real(q, 19, s->untraced_ms) | bind_real(q, 20, s->overhead_pct);
		if (b != SQLITE_OK) {
			sqlite3_finalize(q);
			rc = store_sql_fail(db, err, len, "%s", what);
		} else {
			rc = store_sql_run_once(db, q, what, err, len);
		}
	}
	for (int r = 0; rc == FGO_OK && r < s->world; r++) {
		const struct fgo_trace_rank_sum *x = &s->ranks[r];
		rc = store_sql_prepare(db,
				       "INSERT INTO trace_ranks (run_id, rank, start_us, end_us, tail_us,"
				       " gemm_pct, hidden_pct) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
				       &q, what, err, len);
		if (rc != FGO_OK)
			break;
		if ((sqlite3_bind_int64(q, 1, run_id) | sqlite3_bind_int(q, 2, x->rank) |
		     bind_real(q, 3, x->start_us) | bind_real(q, 4, x->end_us) |
		     bind_real(q, 5, x->tail_us) | bind_real(q, 6, x->gemm_pct) |
		     bind_real(q, 7, x->hidden_pct)) != SQLITE_OK) {
			sqlite3_finalize(q);
			rc = store_sql_fail(db, err, len, "%s", what);
		} else {
			rc = store_sql_run_once(db, q, what, err, len);
		}
	}
	for (int i = 0; rc == FGO_OK && i < s->nwaits; i++) {
		const struct fgo_trace_wait *w = &s->waits[i];
		rc = store_sql_prepare(db,
				       "INSERT INTO trace_waits (run_id, rank, peer, wait_us, waits)"
				       " VALUES (?1, ?2, ?3, ?4, ?5)",
				       &q, what, err, len);
		if (rc != FGO_OK)
			break;
		if ((sqlite3_bind_int64(q, 1, run_id) | sqlite3_bind_int(q, 2, w->rank) |
		     sqlite3_bind_int(q, 3, w->peer) | sqlite3_bind_double(q, 4, w->us) |
		     sqlite3_bind_int64(q, 5, w->count)) != SQLITE_OK) {
			sqlite3_finalize(q);
			rc = store_sql_fail(db, err, len, "%s", what);
		} else {
			rc = store_sql_run_once(db, q, what, err, len);
		}
	}
	return store_sql_commit(db, rc, what, err, len);
}

static double col_real(sqlite3_stmt *q, int i)
{
	return sqlite3_column_type(q, i) == SQLITE_NULL ? NAN : sqlite3_column_double(q, i);
}

static int has_traces(sqlite3 *db)
{
	sqlite3_stmt *q = NULL;
	int have = -1;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE name = 'traces'", -1, &q,
			       NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		have = sqlite3_column_int(q, 0) > 0;
	sqlite3_finalize(q);
	return have;
}

int store_trace_get(sqlite3 *db, int64_t run_id, struct fgo_trace_summary *s, char *file,
		    size_t file_len, int *found, char *err, size_t len)
{
	static const char what[] = "read the trace summary";
	sqlite3_stmt *q = NULL;
	int step, have;

	memset(s, 0, sizeof *s);
	*found = 0;
	if (file_len)
		file[0] = 0;
	if ((have = has_traces(db)) < 0)
		return store_sql_fail(db, err, len, "%s", what);
	if (!have)
		return FGO_OK;
	if (store_sql_prepare(db,
			      "SELECT file, world, ctas, events, dropped, tiles, kernel_us, gemm_pct,"
			      " comm_pct, xchg_pct, wait_pct, idle_pct, hidden_pct, tail_us, skew_us,"
			      " traced_ms, untraced_ms, overhead_pct FROM traces WHERE run_id = ?1",
			      &q, what, err, len))
		return FGO_EFAIL;
	sqlite3_bind_int64(q, 1, run_id);
	step = sqlite3_step(q);
	if (step == SQLITE_ROW) {
		const char *f = (const char *)sqlite3_column_text(q, 0);
		snprintf(file, file_len, "%s", f ? f : "");
		s->world = sqlite3_column_int(q, 1);
		s->ctas = sqlite3_column_int(q, 2);
		s->events = sqlite3_column_int64(q, 3);
		s->dropped = sqlite3_column_int64(q, 4);
		s->tiles = sqlite3_column_int64(q, 5);
		double *v[] = { &s->kernel_us, &s->gemm_pct, &s->comm_pct, &s->xchg_pct,
				&s->wait_pct, &s->idle_pct, &s->hidden_pct, &s->tail_us,
				&s->skew_us, &s->traced_ms, &s->untraced_ms, &s->overhead_pct };
		for (size_t i = 0; i < FGO_ARRAY_SIZE(v); i++)
			*v[i] = col_real(q, 6 + (int)i);
		*found = 1;
	}
	sqlite3_finalize(q);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return store_sql_fail(db, err, len, "%s", what);
	if (!*found)
		return FGO_OK;
	if (s->world < 0 || s->world > 1 << 16)
		s->world = 0;
	s->ranks = calloc((size_t)(s->world > 0 ? s->world : 1), sizeof *s->ranks);
	if (!s->ranks) {
		snprintf(err, len, "out of memory reading the trace summary");
		return FGO_EFAIL;
	}
	for (int r = 0; r < s->world; r++) {
		s->ranks[r].rank = r;
		s->ranks[r].start_us = s->ranks[r].end_us = s->ranks[r].tail_us = NAN;
		s->ranks[r].gemm_pct = s->ranks[r].hidden_pct = NAN;
	}
	if (store_sql_prepare(db,
			      "SELECT rank, start_us, end_us, tail_us, gemm_pct, hidden_pct"
			      " FROM trace_ranks WHERE run_id = ?1 ORDER BY rank",
			      &q, what, err, len))
		return FGO_EFAIL;
	sqlite3_bind_int64(q, 1, run_id);
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		int r = sqlite3_column_int(q, 0);
		if (r < 0 || r >= s->world)
			continue;
		s->ranks[r].start_us = col_real(q, 1);
		s->ranks[r].end_us = col_real(q, 2);
		s->ranks[r].tail_us = col_real(q, 3);
		s->ranks[r].gemm_pct = col_real(q, 4);
		s->ranks[r].hidden_pct = col_real(q, 5);
	}
	sqlite3_finalize(q);
	if (step != SQLITE_DONE)
		return store_sql_fail(db, err, len, "%s", what);
	if (store_sql_prepare(db,
			      "SELECT rank, peer, wait_us, waits FROM trace_waits WHERE run_id = ?1"
			      " ORDER BY rank, peer",
			      &q, what, err, len))
		return FGO_EFAIL;
	sqlite3_bind_int64(q, 1, run_id);
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		struct fgo_trace_wait *g = realloc(s->waits, (size_t)(s->nwaits + 1) * sizeof *g);
		if (!g)
			break;
		s->waits = g;
		s->waits[s->nwaits++] = (struct fgo_trace_wait){
			sqlite3_column_int(q, 0), sqlite3_column_int(q, 1), sqlite3_column_double(q, 2),
			sqlite3_column_int64(q, 3)
		};
	}
	sqlite3_finalize(q);
	if (step != SQLITE_DONE && step != SQLITE_ROW)
		return store_sql_fail(db, err, len, "%s", what);
	return FGO_OK;
}
