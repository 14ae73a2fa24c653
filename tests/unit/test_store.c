/* test_store.c: the SQLite store (store.h) in a temporary directory: a new
 * store's schema and meta, a sweep and its runs written and read back column
 * by column with sqlite3 (a cluster's read back as the views read it),
 * resume (find + reopen), ceilings and reopening.
 * The refusals are in test_store_refuse.c. */
#include "store_fixture.h"

#include "views/views.h"
static void check_new_store(const char *path, struct fgo_store **out)
{
	char err[512] = "";
	struct fgo_store *st = NULL;
	int rc = store_open(path, FGO_STORE_WRITE, &st, err, sizeof err);
	T_CHECK("open-new", rc == FGO_OK && st, "rc %d: %s", rc, err);
	*out = st;
	if (!st)
		return;
	sqlite3 *db = store_db(st);
	T_CHECK("open-new-file", exists(path), "%s was not created", path);
	char got[256];
	snprintf(got, sizeof got, "%s", q_text(db, "SELECT value FROM meta WHERE key = 'application'"));
	T_EQ_STR("meta-application", got, "fgobench");
	snprintf(got, sizeof got, "%s", q_text(db, "SELECT value FROM meta WHERE key = 'schema_version'"));
	char want_version[16];
	snprintf(want_version, sizeof want_version, "%d", FGO_SCHEMA_VERSION);
	T_EQ_STR("meta-schema-version", got, want_version);
	T_EQ_INT("user-version", q_int(db, "PRAGMA user_version"), FGO_SCHEMA_VERSION);
	snprintf(got, sizeof got, "%s", q_text(db, "PRAGMA journal_mode"));
	T_EQ_STR("journal-wal", got, "wal");
	T_EQ_INT("foreign-keys-on", q_int(db, "PRAGMA foreign_keys"), 1);
	T_EQ_INT("tables", count(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name"
				 " IN ('meta', 'sweeps', 'runs', 'samples', 'ceilings')"), 5);
	char ts[32];
	store_timestamp(ts);
	T_CHECK("timestamp-format", strlen(ts) == 20 && ts[4] == '-' && ts[10] == 'T' && ts[19] == 'Z',
		"store_timestamp gave \"%s\"", ts);
}

static int64_t check_sweep_begin(struct fgo_store *st)
{
	char err[512] = "";
	sqlite3 *db = store_db(st);
	struct fgo_sweep_info in = sweep_info("nightly", "hash-A");
	int64_t id = 0;
	int rc = store_sweep_begin(st, &in, &id, err, sizeof err);
	T_CHECK("sweep-begin", rc == FGO_OK && id > 0, "rc %d id %lld: %s", rc, (long long)id, err);
	col_is(db, "sweep-tag", "sweeps", id, "tag", "'nightly'");
	col_is(db, "sweep-spec_path", "sweeps", id, "spec_path", "'sweeps/smoke.json'");
	col_is(db, "sweep-spec_name", "sweeps", id, "spec_name", "'smoke'");
	col_is(db, "sweep-spec_text", "sweeps", id, "spec_text",
	       "'{\"name\": \"smoke\",\n \"m\": [256, 512]}\n'");
	col_is(db, "sweep-spec_hash", "sweeps", id, "spec_hash", "'hash-A'");
	col_is(db, "sweep-command_line", "sweeps", id, "command_line",
	       "'fgobench sweep sweeps/smoke.json --tag nightly'");
	col_is(db, "sweep-host", "sweeps", id, "host", "'node-17'");
	col_is(db, "sweep-version", "sweeps", id, "fgobench_version", "'0.1.0'");
	col_is(db, "sweep-git_revision", "sweeps", id, "git_revision", "'abcdef012345+dirty'");
	col_is(db, "sweep-backend", "sweeps", id, "backend", "'cpu'");
	col_is(db, "sweep-devices", "sweeps", id, "devices", "'cpu: 2 cores, Test CPU'");
	col_is(db, "sweep-driver", "sweeps", id, "driver", "''");
	col_is(db, "sweep-runtime", "sweeps", id, "runtime", "'OpenMPI 4.1'");
	col_is(db, "sweep-arch", "sweeps", id, "arch", "'x86_64'");
	col_is(db, "sweep-mpi_ranks", "sweeps", id, "mpi_ranks", "2");
	col_is(db, "sweep-iterations", "sweeps", id, "iterations", "10");
	col_is(db, "sweep-warmup", "sweeps", id, "warmup", "3");
	col_is(db, "sweep-status", "sweeps", id, "status", "'running'");
	col_is(db, "sweep-ended_at-null", "sweeps", id, "ended_at", "NULL");
	is_timestamp(db, "sweep-started_at", "sweeps", id, "started_at");

	/* NULL fields stay NULL. */
	struct fgo_sweep_info bare = sweep_info(NULL, "hash-B");
	bare.spec_path = NULL;
	int64_t id2 = 0;
	rc = store_sweep_begin(st, &bare, &id2, err, sizeof err);
	T_CHECK("sweep-begin-2", rc == FGO_OK && id2 > id, "rc %d id %lld: %s", rc, (long long)id2, err);
	col_is(db, "sweep-null-tag", "sweeps", id2, "tag", "NULL");
	col_is(db, "sweep-null-spec_path", "sweeps", id2, "spec_path", "NULL");
	return id;
}

/* The columns every row of cfg carries. */
static void check_config_columns(sqlite3 *db, const char *prefix, int64_t run,
				 const struct fgo_config *c)
{
	char key[FGO_KEY_MAX], hash[17], want[256], id[96];
	config_key(c, key, sizeof key);
	config_hash(c, hash);
	struct {
		const char *col;
		char want[FGO_KEY_MAX + 8];
	} cols[] = {
		{ "config_key", "" }, { "config_hash", "" }, { "algorithm", "'all_reduce_one_shot'" },
		{ "dtype", "'bf16'" }, { "world", "4" }, { "m", "" }, { "n", "512" }, { "k", "128" },
		{ "blk_m", "64" }, { "blk_n", "32" }, { "blk_k", "32" }, { "num_stages", "3" },
		{ "num_warps", "8" }, { "mma", "16" }, { "gsize_m", "6" }, { "gemm_sms", "100" },
		{ "comm_sms", "32" }, { "comm_blk_m", "16" }, { "comm_blk_n", "128" },
		{ "cluster", "1" },
	};
	snprintf(cols[0].want, sizeof cols[0].want, "'%s'", key);
	snprintf(cols[1].want, sizeof cols[1].want, "'%s'", hash);
	snprintf(cols[5].want, sizeof cols[5].want, "%ld", c->m);
	for (size_t i = 0; i < FGO_ARRAY_SIZE(cols); i++) {
		snprintf(id, sizeof id, "%s-%s", prefix, cols[i].col);
		snprintf(want, sizeof want, "%s", cols[i].want);
		col_is(db, id, "runs", run, cols[i].col, want);
	}
}

static const char *samples_of(sqlite3 *db, int64_t run, const char *kind)
{
	return q_text(db,
		      "SELECT coalesce(group_concat(iteration || ':' || ms, ' '), '') FROM"
		      " (SELECT iteration, ms FROM samples WHERE run_id = %lld AND kind = '%s'"
		      " ORDER BY iteration)",
		      (long long)run, kind);
}

static void check_runs(struct fgo_store *st, int64_t sweep, int64_t *run_started_later)
{
	char err[512] = "", got[512];
	sqlite3 *db = store_db(st);
	struct fgo_config c1 = config_m(256), c2 = config_m(512), c3 = config_m(1024),
			  c4 = config_m(16);
	int status = 99;
	int64_t run1 = 0, found = 0;

	/* Not there yet. */
	int rc = store_run_lookup(st, sweep, &c1, &status, &found, err, sizeof err);
	T_CHECK("lookup-none", rc == FGO_OK && status == -1 && found == 0,
		"rc %d status %d id %lld", rc, status, (long long)found);

	rc = store_run_started(st, sweep, &c1, 10, 3, &run1, err, sizeof err);
	T_CHECK("run-started", rc == FGO_OK && run1 > 0, "rc %d id %lld: %s", rc, (long long)run1, err);
	col_is(db, "started-status", "runs", run1, "status", "'started'");
	char sweep_s[32];
	snprintf(sweep_s, sizeof sweep_s, "%lld", (long long)sweep);
	col_is(db, "started-sweep_id", "runs", run1, "sweep_id", sweep_s);
	col_is(db, "started-iterations", "runs", run1, "iterations", "10");
	col_is(db, "started-warmup", "runs", run1, "warmup", "3");
	col_is(db, "started-reason", "runs", run1, "reason", "NULL");
	col_is(db, "started-t_fused", "runs", run1, "t_fused_ms", "NULL");
	col_is(db, "started-validated", "runs", run1, "validated", "0");
	col_is(db, "started-ended_at", "runs", run1, "ended_at", "NULL");
	is_timestamp(db, "started-started_at", "runs", run1, "started_at");
	check_config_columns(db, "started", run1, &c1);
	rc = store_run_lookup(st, sweep, &c1, &status, &found, err, sizeof err);
	T_CHECK("lookup-started", rc == FGO_OK && status == FGO_STARTED && found == run1,
		"rc %d status %d id %lld (want %lld)", rc, status, (long long)found, (long long)run1);

	/* Finished: every column and every sample. */
	struct fgo_result r;
	result_init(&r);
	r.status = FGO_STATUS_OK;
	r.iterations = 10;
	r.warmup = 3;
	static const double fused[] = { 2.0, 2.5, 3.0, 2.25, 2.75 };
	static const double gemm[] = { 1.5, 1.75, 1.25 };
	static const double comm[] = { 1.0, 1.25, 0.75 };
	static const double base[] = { 4.0, NAN, 4.5 }; /* the NaN sample is not stored */
	static const double bulk[] = { 3.5, 3.25, 3.75 };
	set_timing(&r.fused, fused, 5);
	set_timing(&r.gemm, gemm, 3);
	set_timing(&r.comm, comm, 3);
	set_timing(&r.baseline, base, 3);
	set_timing(&r.bulk, bulk, 3);
	r.baseline.median = 4.25;
	r.telemetry.sm_clock_mhz = 1755.5;
	r.telemetry.mem_clock_mhz = 2619;
	r.telemetry.temp_c = 67;
	r.telemetry.power_w = 433.25;
	r.tflops_total = 123.5;
	r.tflops_per_rank = 30.875;
	r.link_gbps = 45.5;
	r.overlap = 0.25;
	r.speedup = 1.7;
	r.sol = NAN; /* no ceilings: NULL */
	r.validated = 1;
	r.max_abs_err = 0.001;
	r.max_rel_err = 0.0002;
	r.kernel.registers = 96;
	r.kernel.shared_bytes = 49152;
	r.kernel.spills = 2;
	rc = store_run_finish(st, run1, 0, &r, err, sizeof err);
	T_CHECK("run-finish", rc == FGO_OK, "rc %d: %s", rc, err);
	result_free(&r);
	static const struct {
		const char *col, *want;
	} done[] = {
		{ "status", "'ok'" },          { "reason", "NULL" },
		{ "iterations", "10" },        { "warmup", "3" },
		{ "t_fused_ms", "2.5" },       { "t_fused_min_ms", "2.0" },
		{ "t_fused_max_ms", "3.0" },   { "t_gemm_ms", "1.5" },
		{ "t_comm_ms", "1.0" },        { "t_baseline_ms", "4.25" },
		{ "tflops_total", "123.5" },   { "tflops_per_rank", "30.875" },
		{ "link_gbps", "45.5" },       { "overlap", "0.25" },
		{ "speedup", "1.7" },          { "sol", "NULL" },
		{ "validated", "1" },          { "max_abs_err", "0.001" },
		{ "max_rel_err", "0.0002" },   { "registers", "96" },
		{ "shared_bytes", "49152" },   { "spills", "2" },
		{ "t_bulk_ms", "3.5" },        { "sm_clock_mhz", "1755.5" },
		{ "mem_clock_mhz", "2619.0" }, { "temp_c", "67.0" },
		{ "power_w", "433.25" },
	};
	char id[96];
	for (size_t i = 0; i < FGO_ARRAY_SIZE(done); i++) {
		snprintf(id, sizeof id, "finish-%s", done[i].col);
		col_is(db, id, "runs", run1, done[i].col, done[i].want);
	}
	T_NEAR("finish-t_fused_std_ms", col_real(db, "runs", run1, "t_fused_std_ms"),
	       sqrt(0.625 / 4), 1e-12);
	is_timestamp(db, "finish-ended_at", "runs", run1, "ended_at");
	is_timestamp(db, "finish-started_at-kept", "runs", run1, "started_at");
	check_config_columns(db, "finish", run1, &c1);
	snprintf(got, sizeof got, "%s", samples_of(db, run1, "fused"));
	T_EQ_STR("samples-fused", got, "1:2.0 2:2.5 3:3.0 4:2.25 5:2.75");
	snprintf(got, sizeof got, "%s", samples_of(db, run1, "gemm"));
	T_EQ_STR("samples-gemm", got, "1:1.5 2:1.75 3:1.25");
	snprintf(got, sizeof got, "%s", samples_of(db, run1, "comm"));
	T_EQ_STR("samples-comm", got, "1:1.0 2:1.25 3:0.75");
	snprintf(got, sizeof got, "%s", samples_of(db, run1, "baseline"));
	T_EQ_STR("samples-baseline-nan-skipped", got, "1:4.0 3:4.5");
	snprintf(got, sizeof got, "%s", samples_of(db, run1, "bulk"));
	T_EQ_STR("samples-bulk", got, "1:3.5 2:3.25 3:3.75");
	rc = store_run_lookup(st, sweep, &c1, &status, &found, err, sizeof err);
	T_CHECK("lookup-ok", rc == FGO_OK && status == FGO_STATUS_OK && found == run1,
		"rc %d status %d id %lld", rc, status, (long long)found);

	/* Fused only: overlap and speedup need their other halves, errors need
	 * validation; they are NULL whatever the struct holds. */
	int64_t run2 = 0;
	rc = store_run_started(st, sweep, &c2, 5, 1, &run2, err, sizeof err);
	T_CHECK("run2-started", rc == FGO_OK && run2 > run1, "rc %d: %s", rc, err);
	result_init(&r);
	r.status = FGO_MISMATCH;
	snprintf(r.reason, sizeof r.reason, "max |err| 0.5 > tolerance 0.01 at (3, 7)");
	r.iterations = 5;
	r.warmup = 1;
	static const double f2[] = { 8.0, 6.0, 7.0 };
	set_timing(&r.fused, f2, 3);
	r.tflops_total = 2.0;
	r.tflops_per_rank = 0.5;
	r.link_gbps = INFINITY; /* not finite: NULL */
	r.overlap = 0.9;
	r.speedup = 3.0;
	r.sol = 0.75;
	r.validated = 0;
	r.max_abs_err = 0.5;
	r.telemetry.temp_c = 55; /* the other readings told nothing: NULL */
	rc = store_run_finish(st, run2, 0, &r, err, sizeof err);
	T_CHECK("run2-finish", rc == FGO_OK, "rc %d: %s", rc, err);
	result_free(&r);
	static const struct {
		const char *col, *want;
	} partial[] = {
		{ "status", "'mismatch'" },
		{ "reason", "'max |err| 0.5 > tolerance 0.01 at (3, 7)'" },
		{ "t_fused_ms", "7.0" },   { "t_fused_min_ms", "6.0" }, { "t_fused_max_ms", "8.0" },
		{ "t_fused_std_ms", "1.0" }, { "t_gemm_ms", "NULL" },  { "t_comm_ms", "NULL" },
		{ "t_baseline_ms", "NULL" }, { "tflops_total", "2.0" }, { "link_gbps", "NULL" },
		{ "overlap", "NULL" },     { "speedup", "NULL" },      { "sol", "0.75" },
		{ "validated", "0" },      { "max_abs_err", "NULL" },  { "max_rel_err", "NULL" },
		{ "registers", "0" },      { "t_bulk_ms", "NULL" },    { "sm_clock_mhz", "NULL" },
		{ "mem_clock_mhz", "NULL" }, { "temp_c", "55.0" },     { "power_w", "NULL" },
	};
	for (size_t i = 0; i < FGO_ARRAY_SIZE(partial); i++) {
		snprintf(id, sizeof id, "partial-%s", partial[i].col);
		col_is(db, id, "runs", run2, partial[i].col, partial[i].want);
	}
	snprintf(got, sizeof got, "%s", samples_of(db, run2, "fused"));
	T_EQ_STR("partial-samples", got, "1:8.0 2:6.0 3:7.0");
	snprintf(got, sizeof got, "%s",
		 q_text(db, "SELECT count(*) FROM samples WHERE run_id = %lld AND kind != 'fused'",
			(long long)run2));
	T_EQ_STR("partial-no-other-samples", got, "0");

	/* Failed before measuring anything: every measured column NULL. */
	int64_t run3 = 0;
	rc = store_run_started(st, sweep, &c3, 10, 3, &run3, err, sizeof err);
	result_init(&r);
	r.status = FGO_FAILED;
	snprintf(r.reason, sizeof r.reason, "launch failed: out of memory");
	r.iterations = 10;
	r.warmup = 3;
	r.tflops_total = 99; /* not measured: NULL */
	rc |= store_run_finish(st, run3, 0, &r, err, sizeof err);
	T_CHECK("run3-failed", rc == FGO_OK, "rc %d: %s", rc, err);
	col_is(db, "failed-status", "runs", run3, "status", "'failed'");
	col_is(db, "failed-reason", "runs", run3, "reason", "'launch failed: out of memory'");
	col_is(db, "failed-t_fused", "runs", run3, "t_fused_ms", "NULL");
	col_is(db, "failed-tflops", "runs", run3, "tflops_total", "NULL");
	col_is(db, "failed-sol", "runs", run3, "sol", "NULL");
	rc = store_run_lookup(st, sweep, &c3, &status, &found, err, sizeof err);
	T_CHECK("lookup-failed", rc == FGO_OK && status == FGO_FAILED && found == run3,
		"status %d id %lld", status, (long long)found);

	/* Starting run2 again (resume) resets it: same row, results and samples gone. */
	int64_t again = 0;
	rc = store_run_started(st, sweep, &c2, 20, 4, &again, err, sizeof err);
	T_CHECK("restart-same-row", rc == FGO_OK && again == run2, "rc %d id %lld (want %lld): %s",
		rc, (long long)again, (long long)run2, err);
	col_is(db, "restart-status", "runs", run2, "status", "'started'");
	col_is(db, "restart-reason", "runs", run2, "reason", "NULL");
	col_is(db, "restart-iterations", "runs", run2, "iterations", "20");
	col_is(db, "restart-t_fused", "runs", run2, "t_fused_ms", "NULL");
	col_is(db, "restart-sol", "runs", run2, "sol", "NULL");
	col_is(db, "restart-temp_c", "runs", run2, "temp_c", "NULL");
	col_is(db, "restart-ended_at", "runs", run2, "ended_at", "NULL");
	snprintf(got, sizeof got, "%s", samples_of(db, run2, "fused"));
	T_EQ_STR("restart-samples-gone", got, "");
	T_EQ_INT("restart-one-row", count(db, "SELECT count(*) FROM runs WHERE m = 512"), 1);
	*run_started_later = run2;

	/* Invalid: never launched. */
	rc = store_run_invalid(st, sweep, &c4, "tile 64x32 exceeds M=16", err, sizeof err);
	T_CHECK("run-invalid", rc == FGO_OK, "rc %d: %s", rc, err);
	int64_t run4 = 0;
	rc = store_run_lookup(st, sweep, &c4, &status, &run4, err, sizeof err);
	T_CHECK("lookup-invalid", rc == FGO_OK && status == FGO_INVALID && run4 > 0,
		"rc %d status %d id %lld", rc, status, (long long)run4);
	col_is(db, "invalid-status", "runs", run4, "status", "'invalid'");
	col_is(db, "invalid-reason", "runs", run4, "reason", "'tile 64x32 exceeds M=16'");
	col_is(db, "invalid-iterations", "runs", run4, "iterations", "NULL");
	col_is(db, "invalid-warmup", "runs", run4, "warmup", "NULL");
	col_is(db, "invalid-t_fused", "runs", run4, "t_fused_ms", "NULL");
	is_timestamp(db, "invalid-ended_at", "runs", run4, "ended_at");
	check_config_columns(db, "invalid", run4, &c4);

	/* The same configuration in another sweep is another row. */
	rc = store_run_lookup(st, sweep + 1, &c1, &status, &found, err, sizeof err);
	T_CHECK("lookup-other-sweep", rc == FGO_OK && status == -1 && found == 0,
		"status %d id %lld", status, (long long)found);

	/* Finishing a run that does not exist fails and writes nothing. */
	long long rows = count(db, "SELECT count(*) FROM runs"),
		  samples = count(db, "SELECT count(*) FROM samples");
	result_init(&r);
	r.status = FGO_STATUS_OK;
	set_timing(&r.fused, fused, 5);
	err[0] = 0;
	rc = store_run_finish(st, 987654, 0, &r, err, sizeof err);
	result_free(&r);
	T_EQ_INT("finish-missing-rc", rc, FGO_EFAIL);
	T_CONTAINS("finish-missing-msg", err, "no run 987654");
	T_CHECK("finish-missing-nothing-written",
		count(db, "SELECT count(*) FROM runs") == rows &&
			count(db, "SELECT count(*) FROM samples") == samples,
		"rows or samples changed");
}

static void check_resume(struct fgo_store *st, int64_t sweep, int64_t started_run)
{
	char err[512] = "", got[256];
	sqlite3 *db = store_db(st);
	int64_t id = -1;

	int rc = store_sweep_end(st, sweep, "interrupted", err, sizeof err);
	T_CHECK("sweep-end-interrupted", rc == FGO_OK, "rc %d: %s", rc, err);
	col_is(db, "sweep-interrupted-status", "sweeps", sweep, "status", "'interrupted'");
	is_timestamp(db, "sweep-interrupted-ended_at", "sweeps", sweep, "ended_at");

	/* A later sweep of the same spec under another tag, done. */
	struct fgo_sweep_info other = sweep_info("other", "hash-A");
	int64_t done_id = 0;
	rc = store_sweep_begin(st, &other, &done_id, err, sizeof err);
	rc |= store_sweep_end(st, done_id, "done", err, sizeof err);
	T_CHECK("sweep-other-done", rc == FGO_OK, "rc %d: %s", rc, err);
	col_is(db, "sweep-done-status", "sweeps", done_id, "status", "'done'");

	/* --resume looks at the newest sweep of the spec (and tag) only: done
	 * means nothing to resume, anything else is reopened. */
	static const struct {
		const char *id, *hash, *tag;
		int64_t want;
		int done;
	} finds[] = {
		{ "find-latest-tag", "hash-A", "nightly", 0, 0 },       /* sweep, interrupted */
		{ "find-latest-any-tag-newest", "hash-A", NULL, 1, 1 }, /* done_id, newer */
		{ "find-latest-done", "hash-A", "other", 1, 1 },
		{ "find-latest-none", "hash-Z", NULL, -1, 0 },
		{ "find-latest-null-tag", "hash-B", NULL, 2, 0 },        /* sweep + 1, running */
		{ "find-latest-tag-mismatch", "hash-B", "nightly", -1, 0 },
	};
	for (size_t f = 0; f < sizeof finds / sizeof finds[0]; f++) {
		int64_t want = finds[f].want == 0 ? sweep
			       : finds[f].want == 1 ? done_id
			       : finds[f].want == 2 ? sweep + 1
						    : 0;
		int done = -1;
		id = -1;
		rc = store_sweep_find_latest(st, finds[f].hash, finds[f].tag, &id, &done, err,
					     sizeof err);
		T_CHECK(finds[f].id, rc == FGO_OK && id == want && done == finds[f].done,
			"rc %d id %lld done %d (want %lld done %d): %s", rc, (long long)id, done,
			(long long)want, finds[f].done, err);
	}

	/* Another run left 'started' by the "crash". */
	struct fgo_config c5 = config_m(2048);
	int64_t run5 = 0;
	rc = store_run_started(st, sweep, &c5, 10, 3, &run5, err, sizeof err);
	long long ok_before = count(db, "SELECT count(*) FROM runs WHERE status = 'ok'");
	/* A started run of another sweep is not touched. */
	int64_t foreign = 0;
	rc |= store_run_started(st, done_id, &c5, 10, 3, &foreign, err, sizeof err);
	T_CHECK("run5-started", rc == FGO_OK, "rc %d: %s", rc, err);

	int stale = -1;
	rc = store_sweep_reopen(st, sweep, &stale, err, sizeof err);
	T_CHECK("reopen", rc == FGO_OK && stale == 2, "rc %d stale %d (want 2): %s", rc, stale, err);
	col_is(db, "reopen-sweep-status", "sweeps", sweep, "status", "'running'");
	col_is(db, "reopen-sweep-ended_at", "sweeps", sweep, "ended_at", "NULL");
	int64_t runs[] = { started_run, run5 };
	for (int i = 0; i < 2; i++) {
		char id_s[64];
		snprintf(id_s, sizeof id_s, "reopen-run%d-failed", i);
		col_is(db, id_s, "runs", runs[i], "status", "'failed'");
		snprintf(got, sizeof got, "%s",
			 q_text(db, "SELECT reason FROM runs WHERE id = %lld", (long long)runs[i]));
		snprintf(id_s, sizeof id_s, "reopen-run%d-reason", i);
		T_CHECK(id_s, strncmp(got, "interrupted", 11) == 0, "reason \"%s\"", got);
		snprintf(id_s, sizeof id_s, "reopen-run%d-ended_at", i);
		is_timestamp(db, id_s, "runs", runs[i], "ended_at");
	}
	col_is(db, "reopen-foreign-untouched", "runs", foreign, "status", "'started'");
	T_EQ_INT("reopen-ok-untouched", count(db, "SELECT count(*) FROM runs WHERE status = 'ok'"),
		 ok_before);
	T_EQ_INT("reopen-invalid-untouched",
		 count(db, "SELECT count(*) FROM runs WHERE status = 'invalid'"), 1);
	int status = -1;
	int64_t found = 0;
	rc = store_run_lookup(st, sweep, &c5, &status, &found, err, sizeof err);
	T_CHECK("lookup-after-reopen", rc == FGO_OK && status == FGO_FAILED && found == run5,
		"status %d id %lld", status, (long long)found);

	/* Nothing left to mark a second time. */
	rc = store_sweep_reopen(st, sweep, &stale, err, sizeof err);
	T_CHECK("reopen-again", rc == FGO_OK && stale == 0, "rc %d stale %d", rc, stale);

	/* A sweep that does not exist. */
	err[0] = 0;
	rc = store_sweep_reopen(st, 424242, &stale, err, sizeof err);
	T_CHECK("reopen-missing", rc == FGO_EFAIL && stale == 0, "rc %d stale %d", rc, stale);
	T_CONTAINS("reopen-missing-msg", err, "no sweep 424242");
	err[0] = 0;
	rc = store_sweep_end(st, 424242, "done", err, sizeof err);
	T_EQ_INT("sweep-end-missing", rc, FGO_EFAIL);
	T_CONTAINS("sweep-end-missing-msg", err, "no sweep 424242");
	/* A status the schema does not allow changes nothing. */
	rc = store_sweep_end(st, sweep, "bogus", err, sizeof err);
	T_EQ_INT("sweep-end-bad-status", rc, FGO_EFAIL);
	col_is(db, "sweep-end-bad-status-kept", "sweeps", sweep, "status", "'running'");

	rc = store_sweep_end(st, sweep, "done", err, sizeof err);
	T_CHECK("sweep-end-done", rc == FGO_OK, "rc %d: %s", rc, err);
	col_is(db, "sweep-end-done-status", "sweeps", sweep, "status", "'done'");
	is_timestamp(db, "sweep-end-done-ended_at", "sweeps", sweep, "ended_at");
	int done = -1;
	rc = store_sweep_find_latest(st, "hash-A", "nightly", &id, &done, err, sizeof err);
	T_CHECK("find-latest-after-done", rc == FGO_OK && id == sweep && done == 1,
		"id %lld done %d (want %lld done 1)", (long long)id, done, (long long)sweep);
	/* a newer unfinished sweep of the same spec and tag is the one resumed */
	struct fgo_sweep_info again = sweep_info("nightly", "hash-A");
	int64_t newer = 0;
	rc = store_sweep_begin(st, &again, &newer, err, sizeof err);
	rc |= store_sweep_find_latest(st, "hash-A", "nightly", &id, &done, err, sizeof err);
	T_CHECK("find-latest-newer-running", rc == FGO_OK && id == newer && done == 0,
		"rc %d id %lld done %d (want %lld done 0)", rc, (long long)id, done,
		(long long)newer);
}

static void check_ceilings(struct fgo_store *st)
{
	char err[512] = "";
	sqlite3 *db = store_db(st);
	double v = -1;
	int found = -1;
	int rc = store_ceiling_get(st, "node-17", "cpu", "matrix_peak", "fp16", &v, &found, err,
				   sizeof err);
	T_CHECK("ceiling-none", rc == FGO_OK && found == 0, "rc %d found %d", rc, found);

	rc = store_ceiling_put(st, "node-17", "cpu", "matrix_peak", "fp16", 100.0, "TFLOP/s", err,
			       sizeof err);
	rc |= store_ceiling_put(st, "node-17", "cpu", "matrix_peak", "fp16", 120.5, "TFLOP/s", err,
				sizeof err);
	rc |= store_ceiling_put(st, "node-17", "cpu", "matrix_peak", "bf16", 90.0, "TFLOP/s", err,
				sizeof err);
	rc |= store_ceiling_put(st, "node-17", "cpu", "memory_bw", NULL, 35.25, "GB/s", err,
				sizeof err);
	rc |= store_ceiling_put(st, "node-17", "gpu", "matrix_peak", "fp16", 900.0, "TFLOP/s", err,
				sizeof err);
	rc |= store_ceiling_put(st, "node-18", "cpu", "link_bw", "", 12.5, "GB/s", err, sizeof err);
	T_CHECK("ceiling-put", rc == FGO_OK, "rc %d: %s", rc, err);

	rc = store_ceiling_get(st, "node-17", "cpu", "matrix_peak", "fp16", &v, &found, err, sizeof err);
	T_CHECK("ceiling-latest-wins", rc == FGO_OK && found == 1 && v == 120.5,
		"rc %d found %d value %g (want 120.5)", rc, found, v);
	rc = store_ceiling_get(st, "node-17", "cpu", "matrix_peak", "bf16", &v, &found, err, sizeof err);
	T_CHECK("ceiling-per-dtype", found == 1 && v == 90.0, "found %d value %g", found, v);
	rc = store_ceiling_get(st, "node-17", "gpu", "matrix_peak", "fp16", &v, &found, err, sizeof err);
	T_CHECK("ceiling-per-backend", found == 1 && v == 900.0, "found %d value %g", found, v);
	rc = store_ceiling_get(st, "node-17", "cpu", "memory_bw", "", &v, &found, err, sizeof err);
	T_CHECK("ceiling-null-dtype-is-empty", found == 1 && v == 35.25, "found %d value %g", found, v);
	rc = store_ceiling_get(st, "node-17", "cpu", "memory_bw", NULL, &v, &found, err, sizeof err);
	T_CHECK("ceiling-get-null-dtype", found == 1 && v == 35.25, "found %d value %g", found, v);
	rc = store_ceiling_get(st, "node-17", "cpu", "link_bw", "", &v, &found, err, sizeof err);
	T_CHECK("ceiling-per-machine", rc == FGO_OK && found == 0, "found %d value %g", found, v);
	rc = store_ceiling_get(st, "node-18", "cpu", "link_bw", NULL, &v, &found, err, sizeof err);
	T_CHECK("ceiling-other-machine", found == 1 && v == 12.5, "found %d value %g", found, v);
	char unit[64];
	snprintf(unit, sizeof unit, "%s",
		 q_text(db, "SELECT unit FROM ceilings WHERE what = 'memory_bw'"));
	T_EQ_STR("ceiling-unit", unit, "GB/s");

	/* Latest by measurement time, not by insertion: an older measurement
	 * inserted afterwards does not win. */
	sqlite3_exec(db,
		     "INSERT INTO ceilings (machine, backend, what, dtype, value, unit, measured_at)"
		     " VALUES ('node-17', 'cpu', 'matrix_peak', 'fp16', 1.0, 'TFLOP/s',"
		     " '2000-01-01T00:00:00Z')",
		     NULL, NULL, NULL);
	rc = store_ceiling_get(st, "node-17", "cpu", "matrix_peak", "fp16", &v, &found, err, sizeof err);
	T_CHECK("ceiling-latest-by-time", found == 1 && v == 120.5, "value %g (want 120.5)", v);
	rc = store_ceiling_put(st, "node-17", "cpu", "matrix_peak", "fp16", 130.0, "TFLOP/s", err,
			       sizeof err);
	rc |= store_ceiling_get(st, "node-17", "cpu", "matrix_peak", "fp16", &v, &found, err, sizeof err);
	T_CHECK("ceiling-newest-put", rc == FGO_OK && v == 130.0, "value %g (want 130)", v);

	/* Per-pair values carry a detail; the machine-wide value is the one
	 * with none, and a detailed row never stands in for it. */
	rc = store_ceiling_put_detail(st, "node-17", "cpu", "link_bw", "", "cpu0->cpu1 sm", 8.5,
				      "GB/s", err, sizeof err);
	rc |= store_ceiling_put_detail(st, "node-17", "cpu", "link_bw", NULL, "cpu1->cpu0 sm", 9.5,
				       "GB/s", err, sizeof err);
	T_CHECK("ceiling-detail-put", rc == FGO_OK, "rc %d: %s", rc, err);
	rc = store_ceiling_get(st, "node-17", "cpu", "link_bw", "", &v, &found, err, sizeof err);
	T_CHECK("ceiling-detail-not-machine-wide", rc == FGO_OK && found == 0, "found %d value %g",
		found, v);
	rc = store_ceiling_get_detail(st, "node-17", "cpu", "link_bw", "", "cpu1->cpu0 sm", &v, &found,
				      err, sizeof err);
	T_CHECK("ceiling-detail-get", rc == FGO_OK && found == 1 && v == 9.5, "found %d value %g",
		found, v);
	rc = store_ceiling_put_detail(st, "node-17", "cpu", "link_bw", "", NULL, 7.0, "GB/s", err,
				      sizeof err);
	rc |= store_ceiling_get_detail(st, "node-17", "cpu", "link_bw", "", NULL, &v, &found, err,
				       sizeof err);
	T_CHECK("ceiling-detail-null-is-machine-wide", rc == FGO_OK && found == 1 && v == 7.0,
		"found %d value %g", found, v);
	snprintf(unit, sizeof unit, "%s",
		 q_text(db, "SELECT group_concat(quote(detail), ' ') FROM (SELECT detail FROM ceilings"
			    " WHERE what = 'link_bw' AND machine = 'node-17' ORDER BY id)"));
	T_EQ_STR("ceiling-detail-stored", unit, "'cpu0->cpu1 sm' 'cpu1->cpu0 sm' ''");
	T_EQ_INT("ceiling-put-detail-empty",
		 count(db, "SELECT count(*) FROM ceilings WHERE what = 'matrix_peak' AND detail != ''"), 0);

	/* Refused: not finite (nothing stored), unknown kind. */
	long long before = count(db, "SELECT count(*) FROM ceilings");
	err[0] = 0;
	rc = store_ceiling_put(st, "node-17", "cpu", "memory_bw", "", NAN, "GB/s", err, sizeof err);
	T_EQ_INT("ceiling-nan-refused", rc, FGO_EUSAGE);
	T_CONTAINS("ceiling-nan-msg", err, "not a finite number");
	rc = store_ceiling_put(st, "node-17", "cpu", "memory_bw", "", INFINITY, "GB/s", err, sizeof err);
	T_EQ_INT("ceiling-inf-refused", rc, FGO_EUSAGE);
	rc = store_ceiling_put(st, "node-17", "cpu", "disk_bw", "", 1.0, "GB/s", err, sizeof err);
	T_EQ_INT("ceiling-unknown-what", rc, FGO_EFAIL);
	T_EQ_INT("ceiling-refused-nothing-stored", count(db, "SELECT count(*) FROM ceilings"), before);
}

/* cluster (schema 8) in its own column, read back by the views
 * (view_config) into a configuration with the key it was stored under. */
static void check_cluster(struct fgo_store *st, int64_t sweep)
{
	char err[512] = "", id[64], key[FGO_KEY_MAX], back_key[FGO_KEY_MAX];
	sqlite3 *db = store_db(st);
	struct fgo_config cfg[3] = { config_m(2048), config_m(2048), config_m(2048) };
	cfg[1].cluster = 2;
	cfg[2].cluster = 4;
	for (int i = 0; i < 3; i++) {
		int64_t run = 0;
		int rc = store_run_started(st, sweep, &cfg[i], 10, 3, &run, err, sizeof err);
		snprintf(id, sizeof id, "cluster-%d-stored", cfg[i].cluster);
		T_CHECK(id, rc == FGO_OK && run > 0, "rc %d: %s", rc, err);
		snprintf(id, sizeof id, "cluster-%d-column", cfg[i].cluster);
		char want[8];
		snprintf(want, sizeof want, "%d", cfg[i].cluster);
		col_is(db, id, "runs", run, "cluster", want);
		sqlite3_stmt *q = NULL;
		struct fgo_config back;
		memset(&back, 0, sizeof back);
		if (sqlite3_prepare_v2(db, "SELECT " VIEW_CONFIG_COLUMNS ", config_key FROM runs"
					   " WHERE id = ?1", -1, &q, NULL) == SQLITE_OK &&
		    sqlite3_bind_int64(q, 1, run) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW) {
			view_config(q, 0, &back);
			view_text(q, VIEW_CONFIG_NCOLS, key, sizeof key);
		} else {
			key[0] = 0;
		}
		sqlite3_finalize(q);
		config_key(&back, back_key, sizeof back_key);
		snprintf(id, sizeof id, "cluster-%d-read-back", cfg[i].cluster);
		T_EQ_INT(id, back.cluster, cfg[i].cluster);
		snprintf(id, sizeof id, "cluster-%d-key-read-back", cfg[i].cluster);
		T_EQ_STR(id, back_key, key);
	}
}

/* Closing and opening again (both modes) keeps every row; reading never
 * changes the file. */
static void check_reopen(const char *path, struct fgo_store *st)
{
	char err[512] = "";
	sqlite3 *db = store_db(st);
	long long n[4] = { count(db, "SELECT count(*) FROM sweeps"),
			   count(db, "SELECT count(*) FROM runs"),
			   count(db, "SELECT count(*) FROM samples"),
			   count(db, "SELECT count(*) FROM ceilings") };
	store_close(st);
	T_CHECK("close-no-side-files", no_side_files(path), "-wal/-shm left after close");

	struct fgo_store *again = NULL;
	int rc = store_open(path, FGO_STORE_WRITE, &again, err, sizeof err);
	T_CHECK("reopen-write", rc == FGO_OK && again, "rc %d: %s", rc, err);
	if (!again)
		return;
	db = store_db(again);
	T_CHECK("reopen-write-keeps-rows",
		count(db, "SELECT count(*) FROM sweeps") == n[0] &&
			count(db, "SELECT count(*) FROM runs") == n[1] &&
			count(db, "SELECT count(*) FROM samples") == n[2] &&
			count(db, "SELECT count(*) FROM ceilings") == n[3],
		"counts changed (had %lld sweeps, %lld runs, %lld samples, %lld ceilings)", n[0], n[1],
		n[2], n[3]);
	T_CHECK("reopen-write-nonempty", n[0] >= 3 && n[1] >= 6 && n[2] >= 13 && n[3] >= 7,
		"%lld sweeps, %lld runs, %lld samples, %lld ceilings", n[0], n[1], n[2], n[3]);
	T_EQ_INT("reopen-one-meta-row",
		 count(db, "SELECT count(*) FROM meta WHERE key = 'application'"), 1);
	double v = 0;
	int found = 0;
	store_ceiling_get(again, "node-17", "cpu", "matrix_peak", "fp16", &v, &found, err, sizeof err);
	T_CHECK("reopen-ceiling", found && v == 130.0, "found %d value %g", found, v);
	store_close(again);

	struct snapshot before = snap(path);
	struct fgo_store *ro = NULL;
	rc = store_open(path, FGO_STORE_READ, &ro, err, sizeof err);
	T_CHECK("reopen-read", rc == FGO_OK && ro, "rc %d: %s", rc, err);
	if (ro) {
		db = store_db(ro);
		T_EQ_INT("reopen-read-runs", count(db, "SELECT count(*) FROM runs"), n[1]);
		/* A reader cannot write. */
		struct fgo_sweep_info in = sweep_info("ro", "hash-R");
		int64_t id = 0;
		rc = store_sweep_begin(ro, &in, &id, err, sizeof err);
		T_CHECK("read-mode-refuses-writes", rc != FGO_OK, "sweep_begin succeeded (id %lld)",
			(long long)id);
		store_close(ro);
	}
	T_CHECK("read-mode-file-unchanged", same_file(path, &before), "READ mode changed %s", path);
	T_CHECK("read-mode-no-side-files", no_side_files(path), "-wal/-shm left after a READ open");
	free(before.data);
}

/* ---- refusals ---- */

/* store_open(path, mode) must fail with FGO_EUSAGE, an error naming want,
 * leave the file byte-identical and create no side files. */
int main(void)
{
	if (fixture_begin("store"))
		return 1;
	char path[512];
	in_tmp(path, sizeof path, "fgobench.db");

	struct fgo_store *st = NULL;
	check_new_store(path, &st);
	if (st) {
		int64_t sweep = check_sweep_begin(st);
		int64_t started = 0;
		check_runs(st, sweep, &started);
		check_resume(st, sweep, started);
		check_ceilings(st);
		check_cluster(st, sweep);
		check_reopen(path, st);
	}
	fixture_end();
	T_DONE();
}
