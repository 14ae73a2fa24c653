/* store_runs.c: what the store writes and looks up for a sweep: sweep rows,
 * run rows (started, finished with their samples, invalid), resume support
 * and calibrated ceilings. Every write that touches several rows is one
 * transaction, so a crash leaves either the old row or the new one. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "algo.h"
#include "fgo.h"
#include "store/store.h"
#include "store/store_sql.h"

static const char interrupted_reason[] =
	"interrupted: the sweep stopped before this run finished (crash or kill)";

/* Columns of a configuration, bound by bind_config in this order. */
#define CONFIG_COLUMNS                                                                  \
	"config_key, config_hash, algorithm, dtype, world, m, n, k, blk_m, blk_n, blk_k," \
	" num_stages, num_warps, mma, gsize_m, gemm_sms, comm_sms, comm_blk_m, comm_blk_n, split_k," \
	" deterministic, kernel_manifest, kernel_hash, kernel_params, cluster"
/* split_k and deterministic came later: they bind to ?40 and ?41, past
 * every statement's own numbers; a user kernel's columns to ?42 - ?44,
 * cluster (schema 8) to ?45 */
#define CONFIG_PARAMS                                                                        \
	"?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20," \
	" ?40, ?41, ?42, ?43, ?44, ?45"

/* Everything a finished run fills in, back to "not measured". */
#define CLEAR_RESULTS                                                                    \
	"reason = NULL, t_fused_ms = NULL, t_fused_min_ms = NULL, t_fused_max_ms = NULL,"  \
	" t_fused_std_ms = NULL, t_gemm_ms = NULL, t_comm_ms = NULL, t_baseline_ms = NULL," \
	" tflops_total = NULL, tflops_per_rank = NULL, link_gbps = NULL, overlap = NULL,"   \
	" speedup = NULL, sol = NULL, validated = 0, max_abs_err = NULL, max_rel_err = NULL," \
	" registers = NULL, shared_bytes = NULL, spills = NULL, ended_at = NULL,"           \
	" t_bulk_ms = NULL, sm_clock_mhz = NULL, mem_clock_mhz = NULL, temp_c = NULL,"     \
	" power_w = NULL"

/* Binds the CONFIG_COLUMNS values to ?2..?20 and ?40..?45 (a user
 * kernel's manifest from its registered algorithm, NULL for the others). */
static int bind_config(sqlite3_stmt *q, const struct fgo_config *c)
{
	char key[FGO_KEY_MAX], hash[17];
	config_key(c, key, sizeof key);
	config_hash(c, hash);
	const int ints[] = { c->world, c->blk_m, c->blk_n, c->blk_k, c->num_stages,
			     c->num_warps, c->mma, c->gsize_m, c->gemm_sms, c->comm_sms,
			     c->comm_blk_m, c->comm_blk_n };
	int b = store_sql_bind_text(q, 2, key) | store_sql_bind_text(q, 3, hash) | store_sql_bind_text(q, 4, c->algorithm) |
		store_sql_bind_text(q, 5, dtype_name(c->dtype)) | sqlite3_bind_int(q, 6, ints[0]) |
		sqlite3_bind_int64(q, 7, c->m) | sqlite3_bind_int64(q, 8, c->n) |
		sqlite3_bind_int64(q, 9, c->k);
	for (int i = 1; i < (int)FGO_ARRAY_SIZE(ints); i++)
		b |= sqlite3_bind_int(q, 9 + i, ints[i]);
	const struct fgo_algo *algo = algo_find(c->algorithm);
	const char *manifest = algo && algo->manifest ? algo->manifest : NULL;
	return b | sqlite3_bind_int(q, 40, c->split_k) | sqlite3_bind_int(q, 41, c->deterministic) |
	       store_sql_bind_text(q, 42, manifest) |
	       store_sql_bind_text(q, 43, c->source_hash[0] ? c->source_hash : NULL) |
	       store_sql_bind_text(q, 44, c->params[0] ? c->params : NULL) |
	       sqlite3_bind_int(q, 45, c->cluster);
}

int store_sweep_begin(struct fgo_store *st, const struct fgo_sweep_info *in, int64_t *id,
		      char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	char now[32];
	store_timestamp(now);
	if (store_sql_prepare(db,
		    "INSERT INTO sweeps (tag, spec_path, spec_name, spec_text, spec_hash,"
		    " command_line, host, fgobench_version, git_revision, backend, devices, driver,"
		    " runtime, arch, mpi_ranks, iterations, warmup, started_at, status)"
		    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,"
		    " ?17, ?18, 'running')",
		    &q, "record the sweep", err, len))
		return FGO_EFAIL;
	const char *texts[] = { in->tag, in->spec_path, in->spec_name, in->spec_text,
				in->spec_hash, in->command_line, in->host, in->version,
				in->git_revision, in->backend, in->devices, in->driver,
				in->runtime, in->arch };
	int b = SQLITE_OK;
	for (int i = 0; i < (int)FGO_ARRAY_SIZE(texts); i++)
		b |= store_sql_bind_text(q, i + 1, texts[i]);
	b |= sqlite3_bind_int(q, 15, in->mpi_ranks) | sqlite3_bind_int(q, 16, in->iterations) |
	     sqlite3_bind_int(q, 17, in->warmup) | store_sql_bind_text(q, 18, now);
	if (b != SQLITE_OK) {
		sqlite3_finalize(q);
		return store_sql_fail(db, err, len, "record the sweep");
	}
	if (store_sql_run_once(db, q, "record the sweep", err, len))
		return FGO_EFAIL;
	*id = sqlite3_last_insert_rowid(db);
	return FGO_OK;
}

int store_sweep_end(struct fgo_store *st, int64_t id, const char *status, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	char now[32];
	store_timestamp(now);
	if (store_sql_prepare(db, "UPDATE sweeps SET status = ?1, ended_at = ?2 WHERE id = ?3", &q,
		    "close the sweep", err, len))
		return FGO_EFAIL;
	if ((store_sql_bind_text(q, 1, status) | store_sql_bind_text(q, 2, now) | sqlite3_bind_int64(q, 3, id)) !=
	    SQLITE_OK) {
		sqlite3_finalize(q);
		return store_sql_fail(db, err, len, "close sweep %lld", (long long)id);
	}
	if (store_sql_run_once(db, q, "close the sweep", err, len))
		return FGO_EFAIL;
	if (sqlite3_changes(db) != 1) {
		snprintf(err, len, "%s: no sweep %lld to close", store_sql_db_path(db), (long long)id);
		return FGO_EFAIL;
	}
	return FGO_OK;
}

int store_sweep_stored(struct fgo_store *st, int64_t id, long *runs, long *ok, char *err,
		       size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	*runs = *ok = 0;
	if (store_sql_prepare(db,
		    "SELECT count(*), coalesce(sum(status = 'ok'), 0) FROM runs"
		    " WHERE sweep_id = ?1 AND status != 'started'",
		    &q, "count the sweep's runs", err, len))
		return FGO_EFAIL;
	int rc = sqlite3_bind_int64(q, 1, id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		*runs = (long)sqlite3_column_int64(q, 0);
		*ok = (long)sqlite3_column_int64(q, 1);
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW)
		return store_sql_fail(db, err, len, "count the runs of sweep %lld", (long long)id);
	return FGO_OK;
}

int store_sweep_find_latest(struct fgo_store *st, const char *spec_hash, const char *tag,
			    int64_t *id, int *done, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	*id = 0;
	*done = 0;
	if (store_sql_prepare(db,
		    "SELECT id, status = 'done' FROM sweeps WHERE spec_hash = ?1"
		    " AND (?2 IS NULL OR tag = ?2) ORDER BY id DESC LIMIT 1",
		    &q, "look for a sweep to resume", err, len))
		return FGO_EFAIL;
	int rc = store_sql_bind_text(q, 1, spec_hash) | store_sql_bind_text(q, 2, tag);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(q, 0);
		*done = sqlite3_column_int(q, 1) != 0;
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		*id = 0;
		*done = 0;
		return store_sql_fail(db, err, len, "look for a sweep to resume");
	}
	return FGO_OK;
}

int store_sweep_reopen(struct fgo_store *st, int64_t id, int *stale_runs, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q = NULL;
	char now[32];
	store_timestamp(now);
	*stale_runs = 0;
	if (store_sql_begin(db, "reopen the sweep", err, len))
		return FGO_EFAIL;
	int rc = store_sql_prepare(db,
			 "UPDATE runs SET status = 'failed', reason = ?1, ended_at = ?2"
			 " WHERE sweep_id = ?3 AND status = 'started'",
			 &q, "mark interrupted runs", err, len);
	if (rc == FGO_OK) {
		if ((store_sql_bind_text(q, 1, interrupted_reason) | store_sql_bind_text(q, 2, now) |
		     sqlite3_bind_int64(q, 3, id)) != SQLITE_OK) {
			sqlite3_finalize(q);
			rc = store_sql_fail(db, err, len, "mark interrupted runs");
		} else {
			rc = store_sql_run_once(db, q, "mark interrupted runs", err, len);
		}
	}
	if (rc == FGO_OK)
		*stale_runs = sqlite3_changes(db);
	if (rc == FGO_OK)
		rc = store_sql_prepare(db, "UPDATE sweeps SET status = 'running', ended_at = NULL WHERE id = ?1",
			     &q, "reopen the sweep", err, len);
	if (rc == FGO_OK) {
		if (sqlite3_bind_int64(q, 1, id) != SQLITE_OK) {
			sqlite3_finalize(q);
			rc = store_sql_fail(db, err, len, "reopen the sweep");
		} else {
			rc = store_sql_run_once(db, q, "reopen the sweep", err, len);
		}
	}
	if (rc == FGO_OK && sqlite3_changes(db) != 1) {
		snprintf(err, len, "%s: no sweep %lld to resume", store_sql_db_path(db), (long long)id);
		rc = FGO_EFAIL;
	}
	if (store_sql_commit(db, rc, "reopen the sweep", err, len)) {
		*stale_runs = 0;
		return FGO_EFAIL;
	}
	return FGO_OK;
}

static int status_parse(const char *text, int *status)
{
	for (int s = FGO_STARTED; s < FGO_STATUSES; s++) {
		if (strcmp(text, status_name((enum fgo_status)s)) == 0) {
			*status = s;
			return 0;
		}
	}
	return -1;
}

int store_run_lookup(struct fgo_store *st, int64_t sweep_id, const struct fgo_config *cfg,
		     int *status, int64_t *run_id, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	char key[FGO_KEY_MAX];
	config_key(cfg, key, sizeof key);
	*status = -1;
	*run_id = 0;
	if (store_sql_prepare(db, "SELECT id, status FROM runs WHERE sweep_id = ?1 AND config_key = ?2", &q,
		    "look up a run", err, len))
		return FGO_EFAIL;
	int rc = sqlite3_bind_int64(q, 1, sweep_id) | store_sql_bind_text(q, 2, key);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(q);
	int bad = 0;
	if (rc == SQLITE_ROW) {
		*run_id = sqlite3_column_int64(q, 0);
		const unsigned char *text = sqlite3_column_text(q, 1);
		bad = !text || status_parse((const char *)text, status) != 0;
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_sql_fail(db, err, len, "look up a run");
	if (bad) {
		snprintf(err, len, "%s: run %lld has a status this fgobench does not know",
			 store_sql_db_path(db), (long long)*run_id);
		return FGO_EFAIL;
	}
	return FGO_OK;
}

/* The id of cfg's row in the sweep (after an upsert). */
static int row_id(sqlite3 *db, int64_t sweep_id, const struct fgo_config *cfg, int64_t *id,
		  char *err, size_t len)
{
	sqlite3_stmt *q;
	char key[FGO_KEY_MAX];
	config_key(cfg, key, sizeof key);
	if (store_sql_prepare(db, "SELECT id FROM runs WHERE sweep_id = ?1 AND config_key = ?2", &q,
		    "find the run", err, len))
		return FGO_EFAIL;
	int rc = sqlite3_bind_int64(q, 1, sweep_id) | store_sql_bind_text(q, 2, key);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return rc == SQLITE_ROW ? FGO_OK : store_sql_fail(db, err, len, "find the run");
}

static int delete_samples(sqlite3 *db, int64_t run_id, char *err, size_t len)
{
	sqlite3_stmt *q;
	if (store_sql_prepare(db, "DELETE FROM samples WHERE run_id = ?1", &q, "clear samples", err, len))
		return FGO_EFAIL;
	if (sqlite3_bind_int64(q, 1, run_id) != SQLITE_OK) {
		sqlite3_finalize(q);
		return store_sql_fail(db, err, len, "clear samples");
	}
	return store_sql_run_once(db, q, "clear samples", err, len);
}

/* Inserts cfg's row, or resets the existing one, with status, reason and
 * the given iterations/warmup (NULL when < 0) and times; samples go. */
static int upsert_run(sqlite3 *db, int64_t sweep_id, const struct fgo_config *cfg,
		      const char *status, const char *reason, int iterations, int warmup,
		      int ended, int64_t *run_id, char *err, size_t len)
{
	sqlite3_stmt *q;
	char now[32];
	store_timestamp(now);
	if (store_sql_prepare(db,
		    "INSERT INTO runs (sweep_id, " CONFIG_COLUMNS ", status, reason, iterations,"
		    " warmup, started_at, ended_at) VALUES (?1, " CONFIG_PARAMS ", ?21, ?22, ?23,"
		    " ?24, ?25, ?26) ON CONFLICT (sweep_id, config_key) DO UPDATE SET " CLEAR_RESULTS
		    ", status = excluded.status, reason = excluded.reason,"
		    " iterations = excluded.iterations, warmup = excluded.warmup,"
		    " started_at = excluded.started_at, ended_at = excluded.ended_at",
		    &q, "record the run", err, len))
		return FGO_EFAIL;
	int b = sqlite3_bind_int64(q, 1, sweep_id) | bind_config(q, cfg) | store_sql_bind_text(q, 21, status) |
		store_sql_bind_text(q, 22, reason && *reason ? reason : NULL) |
		(iterations >= 0 ? sqlite3_bind_int(q, 23, iterations) : sqlite3_bind_null(q, 23)) |
		(warmup >= 0 ? sqlite3_bind_int(q, 24, warmup) : sqlite3_bind_null(q, 24)) |
		store_sql_bind_text(q, 25, now) | store_sql_bind_text(q, 26, ended ? now : NULL);
	if (b != SQLITE_OK) {
		sqlite3_finalize(q);
		return store_sql_fail(db, err, len, "record the run");
	}
	if (store_sql_run_once(db, q, "record the run", err, len) ||
	    row_id(db, sweep_id, cfg, run_id, err, len) || delete_samples(db, *run_id, err, len))
		return FGO_EFAIL;
	return FGO_OK;
}

int store_run_started(struct fgo_store *st, int64_t sweep_id, const struct fgo_config *cfg,
		      int iterations, int warmup, int64_t *run_id, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	if (store_sql_begin(db, "record the run", err, len))
		return FGO_EFAIL;
	int rc = upsert_run(db, sweep_id, cfg, "started", NULL, iterations, warmup, 0, run_id, err,
			    len);
	return store_sql_commit(db, rc, "record the run", err, len);
}

int store_run_invalid(struct fgo_store *st, int64_t sweep_id, const struct fgo_config *cfg,
		      const char *reason, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	int64_t run_id;
	if (store_sql_begin(db, "record the invalid run", err, len))
		return FGO_EFAIL;
	int rc = upsert_run(db, sweep_id, cfg, "invalid", reason, -1, -1, 1, &run_id, err, len);
	return store_sql_commit(db, rc, "record the invalid run", err, len);
}

static int update_run(sqlite3 *db, int64_t run_id, int64_t problem_id,
		      const struct fgo_result *r, char *err, size_t len)
{
	sqlite3_stmt *q;
	char now[32];
	store_timestamp(now);
	if (store_sql_prepare(db,
		    "UPDATE runs SET status = ?1, reason = ?2, iterations = ?3, warmup = ?4,"
		    " t_fused_ms = ?5, t_fused_min_ms = ?6, t_fused_max_ms = ?7, t_fused_std_ms = ?8,"
		    " t_gemm_ms = ?9, t_comm_ms = ?10, t_baseline_ms = ?11, tflops_total = ?12,"
		    " tflops_per_rank = ?13, link_gbps = ?14, overlap = ?15, speedup = ?16,"
		    " sol = ?17, validated = ?18, max_abs_err = ?19, max_rel_err = ?20,"
		    " registers = ?21, shared_bytes = ?22, spills = ?23, ended_at = ?24,"
		    " t_bulk_ms = ?26, sm_clock_mhz = ?27, mem_clock_mhz = ?28, temp_c = ?29,"
		    " power_w = ?30, problem_id = ?31, load_s = ?32, inputs_s = ?33,"
		    " validate_s = ?34, time_s = ?35, baseline_s = ?36, store_s = ?37"
		    " WHERE id = ?25",
		    &q, "store the run", err, len))
		return FGO_EFAIL;
	int f = r->fused.n > 0;
	int b = store_sql_bind_text(q, 1, status_name(r->status)) |
		store_sql_bind_text(q, 2, r->reason[0] ? r->reason : NULL) |
		sqlite3_bind_int(q, 3, r->iterations) | sqlite3_bind_int(q, 4, r->warmup) |
		store_sql_bind_real(q, 5, r->fused.median, f) | store_sql_bind_real(q, 6, r->fused.min, f) |
		store_sql_bind_real(q, 7, r->fused.max, f) | store_sql_bind_real(q, 8, r->fused.stddev, f) |
		store_sql_bind_real(q, 9, r->gemm.median, r->gemm.n > 0) |
		store_sql_bind_real(q, 10, r->comm.median, r->comm.n > 0) |
		store_sql_bind_real(q, 11, r->baseline.median, r->baseline.n > 0) |
		store_sql_bind_real(q, 12, r->tflops_total, f) | store_sql_bind_real(q, 13, r->tflops_per_rank, f) |
		store_sql_bind_real(q, 14, r->link_gbps, f) |
		store_sql_bind_real(q, 15, r->overlap, f && r->gemm.n > 0 && r->comm.n > 0) |
		store_sql_bind_real(q, 16, r->speedup, f && r->baseline.n > 0) | store_sql_bind_real(q, 17, r->sol, f) |
		sqlite3_bind_int(q, 18, r->validated ? 1 : 0) |
		store_sql_bind_real(q, 19, r->max_abs_err, r->validated) |
		store_sql_bind_real(q, 20, r->max_rel_err, r->validated) |
		sqlite3_bind_int(q, 21, r->kernel.registers) |
		sqlite3_bind_int(q, 22, r->kernel.shared_bytes) |
		sqlite3_bind_int(q, 23, r->kernel.spills) | store_sql_bind_text(q, 24, now) |
		sqlite3_bind_int64(q, 25, run_id) |
		store_sql_bind_real(q, 26, r->bulk.median, r->bulk.n > 0) |
		store_sql_bind_real(q, 27, r->telemetry.sm_clock_mhz, 1) |
		store_sql_bind_real(q, 28, r->telemetry.mem_clock_mhz, 1) |
		store_sql_bind_real(q, 29, r->telemetry.temp_c, 1) | store_sql_bind_real(q, 30, r->telemetry.power_w, 1) |
		(problem_id > 0 ? sqlite3_bind_int64(q, 31, problem_id) : sqlite3_bind_null(q, 31));
	for (int i = 0; i < FGO_PHASES; i++)
		b |= store_sql_bind_real(q, 32 + i, r->phase_s[i], 1);
	if (b != SQLITE_OK) {
		sqlite3_finalize(q);
		return store_sql_fail(db, err, len, "store run %lld", (long long)run_id);
	}
	if (store_sql_run_once(db, q, "store the run", err, len))
		return FGO_EFAIL;
	if (sqlite3_changes(db) != 1) {
		snprintf(err, len, "%s: no run %lld to complete (was it started?)", store_sql_db_path(db),
			 (long long)run_id);
		return FGO_EFAIL;
	}
	return FGO_OK;
}

int store_run_finish(struct fgo_store *st, int64_t run_id, int64_t problem_id,
		     const struct fgo_result *r, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	if (store_sql_begin(db, "store the run", err, len))
		return FGO_EFAIL;
	int rc = update_run(db, run_id, problem_id, r, err, len);
	if (rc == FGO_OK)
		rc = delete_samples(db, run_id, err, len);
	sqlite3_stmt *q = NULL;
	static const struct fgo_timing no_samples;
	if (rc == FGO_OK)
		rc = store_sql_prepare(db, "INSERT INTO samples (run_id, kind, iteration, ms) VALUES (?1, ?2, ?3, ?4)",
			     &q, "store the samples", err, len);
	if (rc == FGO_OK) {
		const struct {
			const char *kind;
			const struct fgo_timing *t;
		} kinds[] = { { "fused", &r->fused },
			      { "gemm", &r->gemm },
			      { "comm", &r->comm },
			      /* the baseline's samples are the problem's
			       * (problem_samples), stored once; without a
			       * problem, or timed by the run itself, they
			       * stay with the run */
			      { "baseline",
				problem_id > 0 && !r->baseline_own ? &no_samples : &r->baseline },
			      { "bulk", &r->bulk } };
		for (size_t i = 0; rc == FGO_OK && i < FGO_ARRAY_SIZE(kinds); i++)
			rc = store_sql_insert_samples(db, q, run_id, kinds[i].kind, kinds[i].t, err, len);
	}
	sqlite3_finalize(q);
	return store_sql_commit(db, rc, "store the run", err, len);
}

int store_ceiling_put(struct fgo_store *st, const char *machine, const char *backend,
		      const char *what, const char *dtype, double value, const char *unit,
		      char *err, size_t len)
{
	return store_ceiling_put_detail(st, machine, backend, what, dtype, "", value, unit, err,
					len);
}

int store_ceiling_put_detail(struct fgo_store *st, const char *machine, const char *backend,
			     const char *what, const char *dtype, const char *detail, double value,
			     const char *unit, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	char now[32];
	store_timestamp(now);
	if (!isfinite(value)) {
		snprintf(err, len, "%s: ceiling %s is not a finite number", store_sql_db_path(db), what);
		return FGO_EUSAGE;
	}
	if (store_sql_prepare(db,
		    "INSERT INTO ceilings (machine, backend, what, dtype, value, unit, measured_at,"
		    " detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
		    &q, "store the ceiling", err, len))
		return FGO_EFAIL;
	if ((store_sql_bind_text(q, 1, machine) | store_sql_bind_text(q, 2, backend) | store_sql_bind_text(q, 3, what) |
	     store_sql_bind_text(q, 4, dtype ? dtype : "") | sqlite3_bind_double(q, 5, value) |
	     store_sql_bind_text(q, 6, unit) | store_sql_bind_text(q, 7, now) | store_sql_bind_text(q, 8, detail ? detail : "")) !=
	    SQLITE_OK) {
		sqlite3_finalize(q);
		return store_sql_fail(db, err, len, "store the ceiling");
	}
	return store_sql_run_once(db, q, "store the ceiling", err, len);
}

int store_ceiling_get(struct fgo_store *st, const char *machine, const char *backend,
		      const char *what, const char *dtype, double *value, int *found,
		      char *err, size_t len)
{
	return store_ceiling_get_detail(st, machine, backend, what, dtype, "", value, found, err,
					len);
}

int store_ceiling_get_detail(struct fgo_store *st, const char *machine, const char *backend,
			     const char *what, const char *dtype, const char *detail,
			     double *value, int *found, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	*found = 0;
	if (store_sql_prepare(db,
		    "SELECT value FROM ceilings WHERE machine = ?1 AND backend = ?2 AND what = ?3"
		    " AND dtype = ?4 AND detail = ?5 ORDER BY measured_at DESC, id DESC LIMIT 1",
		    &q, "read the ceilings", err, len))
		return FGO_EFAIL;
	int rc = store_sql_bind_text(q, 1, machine) | store_sql_bind_text(q, 2, backend) | store_sql_bind_text(q, 3, what) |
		 store_sql_bind_text(q, 4, dtype ? dtype : "") | store_sql_bind_text(q, 5, detail ? detail : "");
	if (rc == SQLITE_OK)
		rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		*value = sqlite3_column_double(q, 0);
		*found = 1;
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_sql_fail(db, err, len, "read the ceilings");
	return FGO_OK;
}
