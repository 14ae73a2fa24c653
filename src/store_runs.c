/* store_runs.c: what the store writes and looks up for a sweep: sweep rows,
 * run rows (started, finished with their samples, invalid), resume support
 * and calibrated ceilings. Every write that touches several rows is one
 * transaction, so a crash leaves either the old row or the new one. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fgo.h"
#include "store.h"

static const char interrupted_reason[] =
	"interrupted: the sweep stopped before this run finished (crash or kill)";

/* Columns of a configuration, bound by bind_config in this order. */
#define CONFIG_COLUMNS                                                                  \
	"config_key, config_hash, algorithm, dtype, world, m, n, k, blk_m, blk_n, blk_k," \
	" num_stages, num_warps, mma, gsize_m, gemm_sms, comm_sms, comm_blk_m, comm_blk_n, split_k"
/* split_k came later: it binds to ?40, past every statement's own numbers */
#define CONFIG_PARAMS "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?40"

/* Everything a finished run fills in, back to "not measured". */
#define CLEAR_RESULTS                                                                    \
	"reason = NULL, t_fused_ms = NULL, t_fused_min_ms = NULL, t_fused_max_ms = NULL,"  \
	" t_fused_std_ms = NULL, t_gemm_ms = NULL, t_comm_ms = NULL, t_baseline_ms = NULL," \
	" tflops_total = NULL, tflops_per_rank = NULL, link_gbps = NULL, overlap = NULL,"   \
	" speedup = NULL, sol = NULL, validated = 0, max_abs_err = NULL, max_rel_err = NULL," \
	" registers = NULL, shared_bytes = NULL, spills = NULL, ended_at = NULL,"           \
	" t_bulk_ms = NULL, sm_clock_mhz = NULL, mem_clock_mhz = NULL, temp_c = NULL,"     \
	" power_w = NULL"

static const char *db_path(sqlite3 *db)
{
	const char *p = sqlite3_db_filename(db, "main");
	return p && *p ? p : "store";
}

/* "PATH: cannot WHAT: sqlite's message"; returns FGO_EFAIL. */
static int sql_fail(sqlite3 *db, char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int sql_fail(sqlite3 *db, char *err, size_t len, const char *fmt, ...)
{
	char what[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (err && len)
		snprintf(err, len, "%s: cannot %s: %s", db_path(db), what, store_failure(db));
	return FGO_EFAIL;
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **q, const char *what, char *err,
		   size_t len)
{
	*q = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, q, NULL) != SQLITE_OK)
		return sql_fail(db, err, len, "%s", what);
	return FGO_OK;
}

/* Steps a statement that returns no rows, then finalizes it. */
static int run_once(sqlite3 *db, sqlite3_stmt *q, const char *what, char *err, size_t len)
{
	int rc = sqlite3_step(q) == SQLITE_DONE ? FGO_OK : sql_fail(db, err, len, "%s", what);
	sqlite3_finalize(q);
	return rc;
}

static int exec(sqlite3 *db, const char *sql, const char *what, char *err, size_t len)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return sql_fail(db, err, len, "%s", what);
	return FGO_OK;
}

/* The connection whose open write transaction is a batch (store_batch_begin):
 * the writes below join it instead of opening and committing their own. */
static sqlite3 *batch_db;

static int begin(sqlite3 *db, const char *what, char *err, size_t len)
{
	if (db == batch_db)
		return FGO_OK;
	/* IMMEDIATE: take the write lock now (waiting up to the busy timeout)
	 * rather than fail half-way when a reader upgrades. */
	return exec(db, "BEGIN IMMEDIATE", what, err, len);
}

static int commit(sqlite3 *db, int rc, const char *what, char *err, size_t len)
{
	if (db == batch_db) {
		if (rc == FGO_OK)
			return FGO_OK;
		/* a failed write ends the batch: nothing half-written stays */
		batch_db = NULL;
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return FGO_EFAIL;
	}
	if (rc == FGO_OK && exec(db, "COMMIT", what, err, len) == FGO_OK)
		return FGO_OK;
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return FGO_EFAIL;
}

static int bind_text(sqlite3_stmt *q, int i, const char *v)
{
	return v ? sqlite3_bind_text(q, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(q, i);
}

/* NaN, infinities and quantities that were not measured are stored as NULL. */
static int bind_real(sqlite3_stmt *q, int i, double v, int measured)
{
	return measured && isfinite(v) ? sqlite3_bind_double(q, i, v) : sqlite3_bind_null(q, i);
}

/* Binds the CONFIG_COLUMNS values to ?2..?20 and ?40. */
static int bind_config(sqlite3_stmt *q, const struct fgo_config *c)
{
	char key[FGO_KEY_MAX], hash[17];
	config_key(c, key, sizeof key);
	config_hash(c, hash);
	const int ints[] = { c->world, c->blk_m, c->blk_n, c->blk_k, c->num_stages,
			     c->num_warps, c->mma, c->gsize_m, c->gemm_sms, c->comm_sms,
			     c->comm_blk_m, c->comm_blk_n };
	int b = bind_text(q, 2, key) | bind_text(q, 3, hash) | bind_text(q, 4, c->algorithm) |
		bind_text(q, 5, dtype_name(c->dtype)) | sqlite3_bind_int(q, 6, ints[0]) |
		sqlite3_bind_int64(q, 7, c->m) | sqlite3_bind_int64(q, 8, c->n) |
		sqlite3_bind_int64(q, 9, c->k);
	for (int i = 1; i < (int)FGO_ARRAY_SIZE(ints); i++)
		b |= sqlite3_bind_int(q, 9 + i, ints[i]);
	return b | sqlite3_bind_int(q, 40, c->split_k);
}

int store_sweep_begin(struct fgo_store *st, const struct fgo_sweep_info *in, int64_t *id,
		      char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	char now[32];
	store_timestamp(now);
	if (prepare(db,
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
		b |= bind_text(q, i + 1, texts[i]);
	b |= sqlite3_bind_int(q, 15, in->mpi_ranks) | sqlite3_bind_int(q, 16, in->iterations) |
	     sqlite3_bind_int(q, 17, in->warmup) | bind_text(q, 18, now);
	if (b != SQLITE_OK) {
		sqlite3_finalize(q);
		return sql_fail(db, err, len, "record the sweep");
	}
	if (run_once(db, q, "record the sweep", err, len))
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
	if (prepare(db, "UPDATE sweeps SET status = ?1, ended_at = ?2 WHERE id = ?3", &q,
		    "close the sweep", err, len))
		return FGO_EFAIL;
	if ((bind_text(q, 1, status) | bind_text(q, 2, now) | sqlite3_bind_int64(q, 3, id)) !=
	    SQLITE_OK) {
		sqlite3_finalize(q);
		return sql_fail(db, err, len, "close sweep %lld", (long long)id);
	}
	if (run_once(db, q, "close the sweep", err, len))
		return FGO_EFAIL;
	if (sqlite3_changes(db) != 1) {
		snprintf(err, len, "%s: no sweep %lld to close", db_path(db), (long long)id);
		return FGO_EFAIL;
	}
	return FGO_OK;
}

int store_sweep_find_latest(struct fgo_store *st, const char *spec_hash, const char *tag,
			    int64_t *id, int *done, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	*id = 0;
	*done = 0;
	if (prepare(db,
		    "SELECT id, status = 'done' FROM sweeps WHERE spec_hash = ?1"
		    " AND (?2 IS NULL OR tag = ?2) ORDER BY id DESC LIMIT 1",
		    &q, "look for a sweep to resume", err, len))
		return FGO_EFAIL;
	int rc = bind_text(q, 1, spec_hash) | bind_text(q, 2, tag);
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
		return sql_fail(db, err, len, "look for a sweep to resume");
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
	if (begin(db, "reopen the sweep", err, len))
		return FGO_EFAIL;
	int rc = prepare(db,
			 "UPDATE runs SET status = 'failed', reason = ?1, ended_at = ?2"
			 " WHERE sweep_id = ?3 AND status = 'started'",
			 &q, "mark interrupted runs", err, len);
	if (rc == FGO_OK) {
		if ((bind_text(q, 1, interrupted_reason) | bind_text(q, 2, now) |
		     sqlite3_bind_int64(q, 3, id)) != SQLITE_OK) {
			sqlite3_finalize(q);
			rc = sql_fail(db, err, len, "mark interrupted runs");
		} else {
			rc = run_once(db, q, "mark interrupted runs", err, len);
		}
	}
	if (rc == FGO_OK)
		*stale_runs = sqlite3_changes(db);
	if (rc == FGO_OK)
		rc = prepare(db, "UPDATE sweeps SET status = 'running', ended_at = NULL WHERE id = ?1",
			     &q, "reopen the sweep", err, len);
	if (rc == FGO_OK) {
		if (sqlite3_bind_int64(q, 1, id) != SQLITE_OK) {
			sqlite3_finalize(q);
			rc = sql_fail(db, err, len, "reopen the sweep");
		} else {
			rc = run_once(db, q, "reopen the sweep", err, len);
		}
	}
	if (rc == FGO_OK && sqlite3_changes(db) != 1) {
		snprintf(err, len, "%s: no sweep %lld to resume", db_path(db), (long long)id);
		rc = FGO_EFAIL;
	}
	if (commit(db, rc, "reopen the sweep", err, len)) {
		*stale_runs = 0;
		return FGO_EFAIL;
	}
	return FGO_OK;
}

static int status_parse(const char *text, int *status)
{
	for (int s = FGO_STARTED; s <= FGO_TIMEOUT; s++) {
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
	if (prepare(db, "SELECT id, status FROM runs WHERE sweep_id = ?1 AND config_key = ?2", &q,
		    "look up a run", err, len))
		return FGO_EFAIL;
	int rc = sqlite3_bind_int64(q, 1, sweep_id) | bind_text(q, 2, key);
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
		return sql_fail(db, err, len, "look up a run");
	if (bad) {
		snprintf(err, len, "%s: run %lld has a status this fgobench does not know",
			 db_path(db), (long long)*run_id);
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
	if (prepare(db, "SELECT id FROM runs WHERE sweep_id = ?1 AND config_key = ?2", &q,
		    "find the run", err, len))
		return FGO_EFAIL;
	int rc = sqlite3_bind_int64(q, 1, sweep_id) | bind_text(q, 2, key);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return rc == SQLITE_ROW ? FGO_OK : sql_fail(db, err, len, "find the run");
}

static int delete_samples(sqlite3 *db, int64_t run_id, char *err, size_t len)
{
	sqlite3_stmt *q;
	if (prepare(db, "DELETE FROM samples WHERE run_id = ?1", &q, "clear samples", err, len))
		return FGO_EFAIL;
	if (sqlite3_bind_int64(q, 1, run_id) != SQLITE_OK) {
		sqlite3_finalize(q);
		return sql_fail(db, err, len, "clear samples");
	}
	return run_once(db, q, "clear samples", err, len);
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
	if (prepare(db,
		    "INSERT INTO runs (sweep_id, " CONFIG_COLUMNS ", status, reason, iterations,"
		    " warmup, started_at, ended_at) VALUES (?1, " CONFIG_PARAMS ", ?21, ?22, ?23,"
		    " ?24, ?25, ?26) ON CONFLICT (sweep_id, config_key) DO UPDATE SET " CLEAR_RESULTS
		    ", status = excluded.status, reason = excluded.reason,"
		    " iterations = excluded.iterations, warmup = excluded.warmup,"
		    " started_at = excluded.started_at, ended_at = excluded.ended_at",
		    &q, "record the run", err, len))
		return FGO_EFAIL;
	int b = sqlite3_bind_int64(q, 1, sweep_id) | bind_config(q, cfg) | bind_text(q, 21, status) |
		bind_text(q, 22, reason && *reason ? reason : NULL) |
		(iterations >= 0 ? sqlite3_bind_int(q, 23, iterations) : sqlite3_bind_null(q, 23)) |
		(warmup >= 0 ? sqlite3_bind_int(q, 24, warmup) : sqlite3_bind_null(q, 24)) |
		bind_text(q, 25, now) | bind_text(q, 26, ended ? now : NULL);
	if (b != SQLITE_OK) {
		sqlite3_finalize(q);
		return sql_fail(db, err, len, "record the run");
	}
	if (run_once(db, q, "record the run", err, len) ||
	    row_id(db, sweep_id, cfg, run_id, err, len) || delete_samples(db, *run_id, err, len))
		return FGO_EFAIL;
	return FGO_OK;
}

int store_run_started(struct fgo_store *st, int64_t sweep_id, const struct fgo_config *cfg,
		      int iterations, int warmup, int64_t *run_id, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	if (begin(db, "record the run", err, len))
		return FGO_EFAIL;
	int rc = upsert_run(db, sweep_id, cfg, "started", NULL, iterations, warmup, 0, run_id, err,
			    len);
	return commit(db, rc, "record the run", err, len);
}

int store_run_invalid(struct fgo_store *st, int64_t sweep_id, const struct fgo_config *cfg,
		      const char *reason, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	int64_t run_id;
	if (begin(db, "record the invalid run", err, len))
		return FGO_EFAIL;
	int rc = upsert_run(db, sweep_id, cfg, "invalid", reason, -1, -1, 1, &run_id, err, len);
	return commit(db, rc, "record the invalid run", err, len);
}

static int insert_samples(sqlite3 *db, sqlite3_stmt *q, int64_t run_id, const char *kind,
			  const struct fgo_timing *t, char *err, size_t len)
{
	for (int i = 0; i < t->n; i++) {
		/* A sample that is not a number has no meaning to keep; the
		 * summary columns already say what the run measured. */
		if (!isfinite(t->ms[i]))
			continue;
		if ((sqlite3_reset(q) | sqlite3_bind_int64(q, 1, run_id) | bind_text(q, 2, kind) |
		     sqlite3_bind_int(q, 3, i + 1) | sqlite3_bind_double(q, 4, t->ms[i])) !=
			    SQLITE_OK ||
		    sqlite3_step(q) != SQLITE_DONE)
			return sql_fail(db, err, len, "store the %s samples of run %lld", kind,
					(long long)run_id);
	}
	return FGO_OK;
}

static int update_run(sqlite3 *db, int64_t run_id, int64_t problem_id,
		      const struct fgo_result *r, char *err, size_t len)
{
	sqlite3_stmt *q;
	char now[32];
	store_timestamp(now);
	if (prepare(db,
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
	int b = bind_text(q, 1, status_name(r->status)) |
		bind_text(q, 2, r->reason[0] ? r->reason : NULL) |
		sqlite3_bind_int(q, 3, r->iterations) | sqlite3_bind_int(q, 4, r->warmup) |
		bind_real(q, 5, r->fused.median, f) | bind_real(q, 6, r->fused.min, f) |
		bind_real(q, 7, r->fused.max, f) | bind_real(q, 8, r->fused.stddev, f) |
		bind_real(q, 9, r->gemm.median, r->gemm.n > 0) |
		bind_real(q, 10, r->comm.median, r->comm.n > 0) |
		bind_real(q, 11, r->baseline.median, r->baseline.n > 0) |
		bind_real(q, 12, r->tflops_total, f) | bind_real(q, 13, r->tflops_per_rank, f) |
		bind_real(q, 14, r->link_gbps, f) |
		bind_real(q, 15, r->overlap, f && r->gemm.n > 0 && r->comm.n > 0) |
		bind_real(q, 16, r->speedup, f && r->baseline.n > 0) | bind_real(q, 17, r->sol, f) |
		sqlite3_bind_int(q, 18, r->validated ? 1 : 0) |
		bind_real(q, 19, r->max_abs_err, r->validated) |
		bind_real(q, 20, r->max_rel_err, r->validated) |
		sqlite3_bind_int(q, 21, r->kernel.registers) |
		sqlite3_bind_int(q, 22, r->kernel.shared_bytes) |
		sqlite3_bind_int(q, 23, r->kernel.spills) | bind_text(q, 24, now) |
		sqlite3_bind_int64(q, 25, run_id) |
		bind_real(q, 26, r->bulk.median, r->bulk.n > 0) |
		bind_real(q, 27, r->telemetry.sm_clock_mhz, 1) |
		bind_real(q, 28, r->telemetry.mem_clock_mhz, 1) |
		bind_real(q, 29, r->telemetry.temp_c, 1) | bind_real(q, 30, r->telemetry.power_w, 1) |
		(problem_id > 0 ? sqlite3_bind_int64(q, 31, problem_id) : sqlite3_bind_null(q, 31));
	for (int i = 0; i < FGO_PHASES; i++)
		b |= bind_real(q, 32 + i, r->phase_s[i], 1);
	if (b != SQLITE_OK) {
		sqlite3_finalize(q);
		return sql_fail(db, err, len, "store run %lld", (long long)run_id);
	}
	if (run_once(db, q, "store the run", err, len))
		return FGO_EFAIL;
	if (sqlite3_changes(db) != 1) {
		snprintf(err, len, "%s: no run %lld to complete (was it started?)", db_path(db),
			 (long long)run_id);
		return FGO_EFAIL;
	}
	return FGO_OK;
}

int store_run_finish(struct fgo_store *st, int64_t run_id, int64_t problem_id,
		     const struct fgo_result *r, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	if (begin(db, "store the run", err, len))
		return FGO_EFAIL;
	int rc = update_run(db, run_id, problem_id, r, err, len);
	if (rc == FGO_OK)
		rc = delete_samples(db, run_id, err, len);
	sqlite3_stmt *q = NULL;
	static const struct fgo_timing no_samples;
	if (rc == FGO_OK)
		rc = prepare(db, "INSERT INTO samples (run_id, kind, iteration, ms) VALUES (?1, ?2, ?3, ?4)",
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
			       * problem they stay with the run */
			      { "baseline", problem_id > 0 ? &no_samples : &r->baseline },
			      { "bulk", &r->bulk } };
		for (size_t i = 0; rc == FGO_OK && i < FGO_ARRAY_SIZE(kinds); i++)
			rc = insert_samples(db, q, run_id, kinds[i].kind, kinds[i].t, err, len);
	}
	sqlite3_finalize(q);
	return commit(db, rc, "store the run", err, len);
}

int store_batch_begin(struct fgo_store *st, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	if (db == batch_db)
		return FGO_OK;
	if (begin(db, "start a batch of runs", err, len))
		return FGO_EFAIL;
	batch_db = db;
	return FGO_OK;
}

int store_batch_commit(struct fgo_store *st, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	if (db != batch_db)
		return FGO_OK;
	batch_db = NULL;
	return commit(db, FGO_OK, "store a batch of runs", err, len);
}

void store_batch_forget(struct fgo_store *st)
{
	if (st && store_db(st) == batch_db)
		batch_db = NULL;
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
	if (begin(db, "record the problem", err, len))
		return FGO_EFAIL;
	/* a later first run of the problem (after a failed one, or on resume)
	 * fills in what it measured and keeps the rest */
	int rc = prepare(db,
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
		int b = sqlite3_bind_int64(q, 1, sweep_id) | bind_text(q, 2, cfg->algorithm) |
			bind_text(q, 3, dtype_name(cfg->dtype)) | sqlite3_bind_int(q, 4, cfg->world) |
			sqlite3_bind_int64(q, 5, cfg->m) | sqlite3_bind_int64(q, 6, cfg->n) |
			sqlite3_bind_int64(q, 7, cfg->k) | bind_text(q, 8, seed) |
			bind_text(q, 9, p->reference < 0 ? NULL : p->reference ? "reference" : "host") |
			(p->reference > 0 ? sqlite3_bind_int64(q, 10, p->reference_checked)
					  : sqlite3_bind_null(q, 10)) |
			bind_real(q, 11, p->reference_max_rel_err, p->reference > 0) |
			bind_real(q, 12, r->baseline.median, baseline) |
			bind_real(q, 13, r->baseline.min, baseline) |
			bind_real(q, 14, r->baseline.max, baseline) |
			bind_real(q, 15, p->inputs_s, p->inputs_s > 0) |
			bind_real(q, 16, p->reference_s, p->reference_s > 0) |
			bind_real(q, 17, p->baseline_s, p->baseline_s > 0);
		if (b != SQLITE_OK) {
			sqlite3_finalize(q);
			rc = sql_fail(db, err, len, "record the problem");
		} else {
			rc = run_once(db, q, "record the problem", err, len);
		}
	}
	if (rc == FGO_OK)
		rc = prepare(db,
			     "SELECT id FROM problems WHERE sweep_id = ?1 AND algorithm = ?2 AND"
			     " dtype = ?3 AND world = ?4 AND m = ?5 AND n = ?6 AND k = ?7",
			     &q, "find the problem", err, len);
	if (rc == FGO_OK) {
		int b = sqlite3_bind_int64(q, 1, sweep_id) | bind_text(q, 2, cfg->algorithm) |
			bind_text(q, 3, dtype_name(cfg->dtype)) | sqlite3_bind_int(q, 4, cfg->world) |
			sqlite3_bind_int64(q, 5, cfg->m) | sqlite3_bind_int64(q, 6, cfg->n) |
			sqlite3_bind_int64(q, 7, cfg->k);
		if (b == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
			*problem_id = sqlite3_column_int64(q, 0);
		else
			rc = sql_fail(db, err, len, "find the problem");
		sqlite3_finalize(q);
	}
	if (rc == FGO_OK && baseline) {
		rc = prepare(db, "DELETE FROM problem_samples WHERE problem_id = ?1", &q,
			     "clear the problem's samples", err, len);
		if (rc == FGO_OK) {
			if (sqlite3_bind_int64(q, 1, *problem_id) != SQLITE_OK) {
				sqlite3_finalize(q);
				rc = sql_fail(db, err, len, "clear the problem's samples");
			} else {
				rc = run_once(db, q, "clear the problem's samples", err, len);
			}
		}
		if (rc == FGO_OK)
			rc = prepare(db,
				     "INSERT INTO problem_samples (problem_id, kind, iteration, ms)"
				     " VALUES (?1, ?2, ?3, ?4)",
				     &q, "store the baseline samples", err, len);
		if (rc == FGO_OK) {
			rc = insert_samples(db, q, *problem_id, "baseline", &r->baseline, err, len);
			sqlite3_finalize(q);
		}
	}
	return commit(db, rc, "record the problem", err, len);
}

int store_run_store_time(struct fgo_store *st, int64_t run_id, double seconds, char *err,
			 size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	if (begin(db, "store the run", err, len))
		return FGO_EFAIL;
	int rc = prepare(db, "UPDATE runs SET store_s = ?1 WHERE id = ?2", &q, "store the run", err,
			 len);
	if (rc == FGO_OK) {
		if ((bind_real(q, 1, seconds, 1) | sqlite3_bind_int64(q, 2, run_id)) != SQLITE_OK) {
			sqlite3_finalize(q);
			rc = sql_fail(db, err, len, "store the run");
		} else {
			rc = run_once(db, q, "store the run", err, len);
		}
	}
	return commit(db, rc, "store the run", err, len);
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
		if (prepare(db,
			    "SELECT id FROM problems WHERE sweep_id = ?1 AND algorithm = ?2 AND"
			    " dtype = ?3 AND world = ?4 AND m = ?5 AND n = ?6 AND k = ?7",
			    &q, "find the problem", err, len))
			return FGO_EFAIL;
		int b = sqlite3_bind_int64(q, 1, sweep_id) | bind_text(q, 2, cfg->algorithm) |
			bind_text(q, 3, dtype_name(cfg->dtype)) | sqlite3_bind_int(q, 4, cfg->world) |
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
		snprintf(err, len, "%s: ceiling %s is not a finite number", db_path(db), what);
		return FGO_EUSAGE;
	}
	if (prepare(db,
		    "INSERT INTO ceilings (machine, backend, what, dtype, value, unit, measured_at,"
		    " detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
		    &q, "store the ceiling", err, len))
		return FGO_EFAIL;
	if ((bind_text(q, 1, machine) | bind_text(q, 2, backend) | bind_text(q, 3, what) |
	     bind_text(q, 4, dtype ? dtype : "") | sqlite3_bind_double(q, 5, value) |
	     bind_text(q, 6, unit) | bind_text(q, 7, now) | bind_text(q, 8, detail ? detail : "")) !=
	    SQLITE_OK) {
		sqlite3_finalize(q);
		return sql_fail(db, err, len, "store the ceiling");
	}
	return run_once(db, q, "store the ceiling", err, len);
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
	if (prepare(db,
		    "SELECT value FROM ceilings WHERE machine = ?1 AND backend = ?2 AND what = ?3"
		    " AND dtype = ?4 AND detail = ?5 ORDER BY measured_at DESC, id DESC LIMIT 1",
		    &q, "read the ceilings", err, len))
		return FGO_EFAIL;
	int rc = bind_text(q, 1, machine) | bind_text(q, 2, backend) | bind_text(q, 3, what) |
		 bind_text(q, 4, dtype ? dtype : "") | bind_text(q, 5, detail ? detail : "");
	if (rc == SQLITE_OK)
		rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		*value = sqlite3_column_double(q, 0);
		*found = 1;
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sql_fail(db, err, len, "read the ceilings");
	return FGO_OK;
}
