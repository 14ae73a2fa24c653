/* store_problems.c: what the runs of one problem share, stored once (the
 * problems and problem_samples tables), a run's store time, and the batches
 * a sweep writes its runs in (see store.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fgo.h"
#include "store/store.h"
#include "store/store_sql.h"

int store_batch_begin(struct fgo_store *st, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	if (store_sql_in_batch(db))
		return FGO_OK;
	if (store_sql_begin(db, "start a batch of runs", err, len))
		return FGO_EFAIL;
	store_sql_set_batch(db);
	return FGO_OK;
}

int store_batch_commit(struct fgo_store *st, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	if (!store_sql_in_batch(db))
		return FGO_OK;
	store_sql_set_batch(NULL);
	return store_sql_commit(db, FGO_OK, "store a batch of runs", err, len);
}

void store_batch_forget(struct fgo_store *st)
{
	if (st && store_sql_in_batch(store_db(st)))
		store_sql_set_batch(NULL);
}

int store_problem_put(struct fgo_store *st, int64_t sweep_id, const struct fgo_config *cfg,
		      const struct fgo_result *r, int64_t *problem_id, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q = NULL;
	char seed[24];
	const struct fgo_problem_info *p = &r->problem;
	int baseline = r->phase_s[FGO_PHASE_BASELINE] > 0 && r->baseline.n > 0;
	snprintf(seed, sizeof seed, "%016llx", (unsigned long long)p->seed);
	if (store_sql_begin(db, "record the problem", err, len))
		return FGO_EFAIL;
	/* a later first run of the problem (after a failed one, or on resume)
	 * fills in what it measured and keeps the rest */
	int rc = store_sql_prepare(db,
			 "INSERT INTO problems (sweep_id, algorithm, dtype, world, m, n, k, seed,"
			 " check_method, reference_checked, reference_max_rel_err, t_baseline_ms,"
			 " t_baseline_min_ms, t_baseline_max_ms, inputs_s, reference_s, baseline_s)"
			 " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,"
			 " ?17) ON CONFLICT (sweep_id, algorithm, dtype, world, m, n, k) DO UPDATE SET"
			 " seed = excluded.seed,"
			 " check_method = coalesce(excluded.check_method, check_method),"
			 " reference_checked = coalesce(excluded.reference_checked, reference_checked),"
			 " reference_max_rel_err = coalesce(excluded.reference_max_rel_err,"
			 "   reference_max_rel_err),"
			 " t_baseline_ms = coalesce(excluded.t_baseline_ms, t_baseline_ms),"
			 " t_baseline_min_ms = coalesce(excluded.t_baseline_min_ms, t_baseline_min_ms),"
			 " t_baseline_max_ms = coalesce(excluded.t_baseline_max_ms, t_baseline_max_ms),"
			 " inputs_s = coalesce(excluded.inputs_s, inputs_s),"
			 " reference_s = coalesce(excluded.reference_s, reference_s),"
			 " baseline_s = coalesce(excluded.baseline_s, baseline_s)",
			 &q, "record the problem", err, len);
	if (rc == FGO_OK) {
		int b = sqlite3_bind_int64(q, 1, sweep_id) | store_sql_bind_text(q, 2, cfg->algorithm) |
			store_sql_bind_text(q, 3, dtype_name(cfg->dtype)) | sqlite3_bind_int(q, 4, cfg->world) |
			sqlite3_bind_int64(q, 5, cfg->m) | sqlite3_bind_int64(q, 6, cfg->n) |
			sqlite3_bind_int64(q, 7, cfg->k) | store_sql_bind_text(q, 8, seed) |
			store_sql_bind_text(q, 9, p->reference ? "reference" : NULL) |
			(p->reference ? sqlite3_bind_int64(q, 10, p->reference_checked)
					  : sqlite3_bind_null(q, 10)) |
			store_sql_bind_real(q, 11, p->reference_max_rel_err, p->reference) |
			store_sql_bind_real(q, 12, r->baseline.median, baseline) |
			store_sql_bind_real(q, 13, r->baseline.min, baseline) |
			store_sql_bind_real(q, 14, r->baseline.max, baseline) |
			store_sql_bind_real(q, 15, p->inputs_s, p->inputs_s > 0) |
			store_sql_bind_real(q, 16, p->reference_s, p->reference_s > 0) |
			store_sql_bind_real(q, 17, p->baseline_s, p->baseline_s > 0);
		if (b != SQLITE_OK) {
			sqlite3_finalize(q);
			rc = store_sql_fail(db, err, len, "record the problem");
		} else {
			rc = store_sql_run_once(db, q, "record the problem", err, len);
		}
	}
	if (rc == FGO_OK)
		rc = store_sql_prepare(db,
			     "SELECT id FROM problems WHERE sweep_id = ?1 AND algorithm = ?2 AND"
			     " dtype = ?3 AND world = ?4 AND m = ?5 AND n = ?6 AND k = ?7",
			     &q, "find the problem", err, len);
	if (rc == FGO_OK) {
		int b = sqlite3_bind_int64(q, 1, sweep_id) | store_sql_bind_text(q, 2, cfg->algorithm) |
			store_sql_bind_text(q, 3, dtype_name(cfg->dtype)) | sqlite3_bind_int(q, 4, cfg->world) |
			sqlite3_bind_int64(q, 5, cfg->m) | sqlite3_bind_int64(q, 6, cfg->n) |
			sqlite3_bind_int64(q, 7, cfg->k);
		if (b == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
			*problem_id = sqlite3_column_int64(q, 0);
		else
			rc = store_sql_fail(db, err, len, "find the problem");
		sqlite3_finalize(q);
	}
	if (rc == FGO_OK && baseline) {
		rc = store_sql_prepare(db, "DELETE FROM problem_samples WHERE problem_id = ?1", &q,
			     "clear the problem's samples", err, len);
		if (rc == FGO_OK) {
			if (sqlite3_bind_int64(q, 1, *problem_id) != SQLITE_OK) {
				sqlite3_finalize(q);
				rc = store_sql_fail(db, err, len, "clear the problem's samples");
			} else {
				rc = store_sql_run_once(db, q, "clear the problem's samples", err, len);
			}
		}
		if (rc == FGO_OK)
			rc = store_sql_prepare(db,
				     "INSERT INTO problem_samples (problem_id, kind, iteration, ms)"
				     " VALUES (?1, ?2, ?3, ?4)",
				     &q, "store the baseline samples", err, len);
		if (rc == FGO_OK) {
			rc = store_sql_insert_samples(db, q, *problem_id, "baseline", &r->baseline, err, len);
			sqlite3_finalize(q);
		}
	}
	return store_sql_commit(db, rc, "record the problem", err, len);
}

int store_run_store_time(struct fgo_store *st, int64_t run_id, double seconds, char *err,
			 size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	if (store_sql_begin(db, "store the run", err, len))
		return FGO_EFAIL;
	int rc = store_sql_prepare(db, "UPDATE runs SET store_s = ?1 WHERE id = ?2", &q, "store the run", err,
			 len);
	if (rc == FGO_OK) {
		if ((store_sql_bind_real(q, 1, seconds, 1) | sqlite3_bind_int64(q, 2, run_id)) != SQLITE_OK) {
			sqlite3_finalize(q);
			rc = store_sql_fail(db, err, len, "store the run");
		} else {
			rc = store_sql_run_once(db, q, "store the run", err, len);
		}
	}
	return store_sql_commit(db, rc, "store the run", err, len);
}

int store_problem_of(struct fgo_store *st, int64_t sweep_id, const struct fgo_config *cfg,
		     const struct fgo_result *r, int64_t *problem_id, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	*problem_id = 0;
	if (r->problem.seed == 0) /* the run never reached its problem */
		return FGO_OK;
	if (!r->problem.first) {
		if (store_sql_prepare(db,
			    "SELECT id FROM problems WHERE sweep_id = ?1 AND algorithm = ?2 AND"
			    " dtype = ?3 AND world = ?4 AND m = ?5 AND n = ?6 AND k = ?7",
			    &q, "find the problem", err, len))
			return FGO_EFAIL;
		int b = sqlite3_bind_int64(q, 1, sweep_id) | store_sql_bind_text(q, 2, cfg->algorithm) |
			store_sql_bind_text(q, 3, dtype_name(cfg->dtype)) | sqlite3_bind_int(q, 4, cfg->world) |
			sqlite3_bind_int64(q, 5, cfg->m) | sqlite3_bind_int64(q, 6, cfg->n) |
			sqlite3_bind_int64(q, 7, cfg->k);
		if (b == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
			*problem_id = sqlite3_column_int64(q, 0);
		sqlite3_finalize(q);
		if (*problem_id)
			return FGO_OK;
	}
	return store_problem_put(st, sweep_id, cfg, r, problem_id, err, len);
}

