/* test_store.c: the SQLite store (store.h) in a temporary directory: a new
 * store's schema and meta, a sweep and its runs written and read back column
 * by column with sqlite3, resume (find + reopen), ceilings, reopening, and
 * the refusals that must leave a file byte-identical and create nothing. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fgo.h"
#include "stats.h"
#include "store.h"
#include "testlib.h"

static char tmpdir[64];

static void in_tmp(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", tmpdir, name);
}

/* ---- files ---- */

struct snapshot {
	int exists;
	size_t len;
	char *data;
};

static struct snapshot snap(const char *path)
{
	struct snapshot s = { 0, 0, NULL };
	FILE *f = fopen(path, "rb");
	if (!f)
		return s;
	s.exists = 1;
	size_t cap = 4096;
	s.data = malloc(cap);
	size_t n;
	while (s.data && (n = fread(s.data + s.len, 1, cap - s.len, f)) > 0) {
		s.len += n;
		if (s.len == cap)
			s.data = realloc(s.data, cap *= 2);
	}
	fclose(f);
	return s;
}

static int same_file(const char *path, const struct snapshot *before)
{
	struct snapshot now = snap(path);
	int same = now.exists == before->exists && now.len == before->len &&
		   (now.len == 0 || memcmp(now.data, before->data, now.len) == 0);
	free(now.data);
	return same;
}

static int exists(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0;
}

/* None of SQLite's side files next to path. */
static int no_side_files(const char *path)
{
	static const char *const suffix[] = { "-wal", "-shm", "-journal" };
	char name[512];
	for (size_t i = 0; i < FGO_ARRAY_SIZE(suffix); i++) {
		snprintf(name, sizeof name, "%s%s", path, suffix[i]);
		if (exists(name))
			return 0;
	}
	return 1;
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (f) {
		fwrite(data, 1, len, f);
		fclose(f);
	}
}

/* Runs sql on path with plain SQLite (not the store). */
static int raw_sql(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open(path, &db);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		printf("note: raw sql on %s failed: %s\n", path, db ? sqlite3_errmsg(db) : "?");
	sqlite3_close(db);
	return rc;
}

static int rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* ---- queries ---- */

/* The first column of the first row as text, "(null)", "(no row)" or
 * "(error ...)". */
static const char *q_text(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *q_text(sqlite3 *db, const char *fmt, ...)
{
	static char out[4096];
	char sql[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(sql, sizeof sql, fmt, ap);
	va_end(ap);
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
		snprintf(out, sizeof out, "(error %s)", sqlite3_errmsg(db));
		return out;
	}
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(q, 0);
		snprintf(out, sizeof out, "%s", t ? (const char *)t : "(null)");
	} else {
		snprintf(out, sizeof out, rc == SQLITE_DONE ? "(no row)" : "(error %s)",
			 sqlite3_errmsg(db));
	}
	sqlite3_finalize(q);
	return out;
}

static long long q_int(sqlite3 *db, const char *sql)
{
	const char *t = q_text(db, "%s", sql);
	char *end;
	long long v = strtoll(t, &end, 10);
	return *t && !*end ? v : -999999;
}

/* quote(expr) of one row of table: 'text', NULL, 12, 2.5. */
static void col_is(sqlite3 *db, const char *id, const char *table, int64_t rowid,
		   const char *expr, const char *want)
{
	char got[512];
	snprintf(got, sizeof got, "%s",
		 q_text(db, "SELECT quote(%s) FROM %s WHERE id = %lld", expr, table, (long long)rowid));
	T_EQ_STR(id, got, want);
}

static double col_real(sqlite3 *db, const char *table, int64_t rowid, const char *col)
{
	const char *t = q_text(db, "SELECT %s FROM %s WHERE id = %lld", col, table, (long long)rowid);
	char *end;
	double v = strtod(t, &end);
	return *t && !*end ? v : NAN;
}

/* A UTC ISO-8601 timestamp as store_timestamp writes it. */
static void is_timestamp(sqlite3 *db, const char *id, const char *table, int64_t rowid,
			 const char *col)
{
	char want[8];
	snprintf(want, sizeof want, "1");
	char got[64];
	snprintf(got, sizeof got, "%s",
		 q_text(db,
			"SELECT %s GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:"
			"[0-6][0-9]Z' FROM %s WHERE id = %lld",
			col, table, (long long)rowid));
	T_CHECK(id, strcmp(got, want) == 0, "%s.%s is not a UTC timestamp (%s)", table, col,
		q_text(db, "SELECT quote(%s) FROM %s WHERE id = %lld", col, table,
		       (long long)rowid));
}

/* ---- fixtures ---- */

static struct fgo_sweep_info sweep_info(const char *tag, const char *hash)
{
	struct fgo_sweep_info in = {
		.tag = tag,
		.spec_path = "sweeps/smoke.json",
		.spec_name = "smoke",
		.spec_text = "{\"name\": \"smoke\",\n \"m\": [256, 512]}\n",
		.spec_hash = hash,
		.command_line = "fgobench sweep sweeps/smoke.json --tag nightly",
		.host = "node-17",
		.version = "0.1.0",
		.git_revision = "abcdef012345+dirty",
		.backend = "cpu",
		.devices = "cpu: 2 cores, Test CPU",
		.driver = "",
		.runtime = "OpenMPI 4.1",
		.arch = "x86_64",
		.mpi_ranks = 2,
		.iterations = 10,
		.warmup = 3,
	};
	return in;
}

static struct fgo_config config_m(long m)
{
	struct fgo_config c;
	config_defaults(&c);
	snprintf(c.algorithm, sizeof c.algorithm, "all_reduce_one_shot");
	c.dtype = FGO_BF16;
	c.world = 4;
	c.m = m;
	c.n = 512;
	c.k = 128;
	c.blk_m = 64;
	c.blk_n = 32;
	c.blk_k = 32;
	c.num_stages = 3;
	c.num_warps = 8;
	c.mma = 16;
	c.gsize_m = 6;
	c.gemm_sms = 100;
	c.comm_sms = 32;
	c.comm_blk_m = 16;
	c.comm_blk_n = 128;
	return c;
}

static void set_timing(struct fgo_timing *t, const double *ms, int n)
{
	t->n = n;
	t->ms = malloc(sizeof *t->ms * (size_t)n);
	memcpy(t->ms, ms, sizeof *t->ms * (size_t)n);
	t->median = stats_median(ms, (size_t)n);
	t->min = stats_min(ms, (size_t)n);
	t->max = stats_max(ms, (size_t)n);
	t->stddev = stats_stddev(ms, (size_t)n);
}

static int64_t count(sqlite3 *db, const char *sql)
{
	return q_int(db, sql);
}

/* ---- the store in use ---- */

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
	T_EQ_STR("meta-schema-version", got, "1");
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
		char want[200];
	} cols[] = {
		{ "config_key", "" }, { "config_hash", "" }, { "algorithm", "'all_reduce_one_shot'" },
		{ "dtype", "'bf16'" }, { "world", "4" }, { "m", "" }, { "n", "512" }, { "k", "128" },
		{ "blk_m", "64" }, { "blk_n", "32" }, { "blk_k", "32" }, { "num_stages", "3" },
		{ "num_warps", "8" }, { "mma", "16" }, { "gsize_m", "6" }, { "gemm_sms", "100" },
		{ "comm_sms", "32" }, { "comm_blk_m", "16" }, { "comm_blk_n", "128" },
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
	set_timing(&r.fused, fused, 5);
	set_timing(&r.gemm, gemm, 3);
	set_timing(&r.comm, comm, 3);
	set_timing(&r.baseline, base, 3);
	r.baseline.median = 4.25;
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
	rc = store_run_finish(st, run1, &r, err, sizeof err);
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
	rc = store_run_finish(st, run2, &r, err, sizeof err);
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
		{ "registers", "0" },
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
	rc |= store_run_finish(st, run3, &r, err, sizeof err);
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
	rc = store_run_finish(st, 987654, &r, err, sizeof err);
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

	rc = store_sweep_find_resumable(st, "hash-A", "nightly", &id, err, sizeof err);
	T_CHECK("find-resumable-tag", rc == FGO_OK && id == sweep, "rc %d id %lld (want %lld)", rc,
		(long long)id, (long long)sweep);
	rc = store_sweep_find_resumable(st, "hash-A", NULL, &id, err, sizeof err);
	T_CHECK("find-resumable-any-tag", rc == FGO_OK && id == sweep, "rc %d id %lld (want %lld)",
		rc, (long long)id, (long long)sweep);
	rc = store_sweep_find_resumable(st, "hash-A", "other", &id, err, sizeof err);
	T_CHECK("find-resumable-done-skipped", rc == FGO_OK && id == 0, "rc %d id %lld", rc,
		(long long)id);
	rc = store_sweep_find_resumable(st, "hash-Z", NULL, &id, err, sizeof err);
	T_CHECK("find-resumable-none", rc == FGO_OK && id == 0, "rc %d id %lld", rc, (long long)id);
	/* hash-B's sweep (tag NULL, still running) is found without a tag only. */
	rc = store_sweep_find_resumable(st, "hash-B", NULL, &id, err, sizeof err);
	T_CHECK("find-resumable-null-tag", rc == FGO_OK && id == sweep + 1, "rc %d id %lld", rc,
		(long long)id);
	rc = store_sweep_find_resumable(st, "hash-B", "nightly", &id, err, sizeof err);
	T_CHECK("find-resumable-tag-mismatch", rc == FGO_OK && id == 0, "id %lld", (long long)id);

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
	rc = store_sweep_find_resumable(st, "hash-A", NULL, &id, err, sizeof err);
	T_CHECK("find-resumable-after-done", rc == FGO_OK && id == 0, "id %lld", (long long)id);
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
static void refuse(const char *id, const char *path, enum fgo_store_mode mode, const char *want)
{
	char err[512] = "", idb[128];
	struct snapshot before = snap(path);
	struct fgo_store *st = (struct fgo_store *)&before; /* must be reset to NULL */
	int rc = store_open(path, mode, &st, err, sizeof err);
	snprintf(idb, sizeof idb, "%s-%s-refused", id, mode == FGO_STORE_READ ? "read" : "write");
	T_CHECK(idb, rc == FGO_EUSAGE && st == NULL, "rc %d (want %d), store %p: %s", rc,
		FGO_EUSAGE, (void *)st, err);
	if (rc == FGO_OK)
		store_close(st);
	snprintf(idb, sizeof idb, "%s-%s-message", id, mode == FGO_STORE_READ ? "read" : "write");
	T_CONTAINS(idb, err, want);
	snprintf(idb, sizeof idb, "%s-%s-unchanged", id, mode == FGO_STORE_READ ? "read" : "write");
	T_CHECK(idb, same_file(path, &before) && no_side_files(path),
		"%s changed, appeared, vanished or grew side files", path);
	free(before.data);
}

static void make_store(const char *path)
{
	char err[512];
	struct fgo_store *st = NULL;
	if (store_open(path, FGO_STORE_WRITE, &st, err, sizeof err) == FGO_OK)
		store_close(st);
	else
		printf("note: cannot make %s: %s\n", path, err);
}

static void check_refusals(void)
{
	char p[512];

	in_tmp(p, sizeof p, "v99.db");
	make_store(p);
	raw_sql(p, "PRAGMA user_version = 99");
	refuse("version-99", p, FGO_STORE_READ, "schema version 99");
	refuse("version-99", p, FGO_STORE_WRITE, "schema version 99");

	in_tmp(p, sizeof p, "v0.db");
	make_store(p);
	raw_sql(p, "PRAGMA user_version = 0");
	refuse("version-0", p, FGO_STORE_WRITE, "not a fgobench store");

	in_tmp(p, sizeof p, "notes.txt");
	static const char text[] =
		"These are notes, not a database. They are longer than one hundred bytes so the"
		" probe reads a full header and still finds no SQLite magic in it.\n";
	write_file(p, text, sizeof text - 1);
	refuse("text", p, FGO_STORE_READ, "not a fgobench store");
	refuse("text", p, FGO_STORE_WRITE, "not a fgobench store");
	in_tmp(p, sizeof p, "short.txt");
	write_file(p, "hi\n", 3);
	refuse("short-text", p, FGO_STORE_WRITE, "not a fgobench store");

	/* SQLite's magic followed by garbage. */
	in_tmp(p, sizeof p, "garbage.db");
	char junk[4096];
	memset(junk, 0x5a, sizeof junk);
	memcpy(junk, "SQLite format 3", 16);
	write_file(p, junk, sizeof junk);
	refuse("corrupt", p, FGO_STORE_WRITE, "not a fgobench store");

	in_tmp(p, sizeof p, "nometa-row.db");
	raw_sql(p, "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
		   " CREATE TABLE runs (id INTEGER PRIMARY KEY)");
	refuse("no-meta-row", p, FGO_STORE_READ, "not a fgobench store");
	refuse("no-meta-row", p, FGO_STORE_WRITE, "not a fgobench store");

	in_tmp(p, sizeof p, "nometa.db");
	raw_sql(p, "CREATE TABLE things (x)");
	refuse("no-meta-table", p, FGO_STORE_WRITE, "not a fgobench store");

	in_tmp(p, sizeof p, "otherapp.db");
	raw_sql(p, "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
		   " INSERT INTO meta VALUES ('application', 'otherapp')");
	refuse("other-app", p, FGO_STORE_WRITE, "otherapp");

	/* A directory is not a store. */
	in_tmp(p, sizeof p, "adir");
	mkdir(p, 0755);
	refuse("directory", p, FGO_STORE_WRITE, "not a fgobench store");

	/* Missing in READ mode: nothing is created. */
	in_tmp(p, sizeof p, "missing.db");
	refuse("missing", p, FGO_STORE_READ, "no fgobench store");
	T_CHECK("missing-not-created", !exists(p), "%s was created", p);

	/* An empty file is not a store to read, and stays empty. */
	in_tmp(p, sizeof p, "empty.db");
	write_file(p, "", 0);
	refuse("empty", p, FGO_STORE_READ, "not a fgobench store");

	/* WRITE where nothing can be written. */
	refuse("proc-new", "/proc/fgobench-test-store.db", FGO_STORE_WRITE, "cannot write the store");
	T_CHECK("proc-new-not-created", !exists("/proc/fgobench-test-store.db"), "created in /proc");
	refuse("proc-file", "/proc/version", FGO_STORE_WRITE, "not a fgobench store");
	in_tmp(p, sizeof p, "no/such/dir/x.db");
	refuse("missing-dir", p, FGO_STORE_WRITE, "cannot write the store");

	/* No path at all. */
	char err[256] = "";
	struct fgo_store *st = NULL;
	int rc = store_open("", FGO_STORE_WRITE, &st, err, sizeof err);
	T_CHECK("empty-path", rc == FGO_EUSAGE && !st, "rc %d", rc);
	T_CONTAINS("empty-path-msg", err, "no store path");
}

/* What a process without write permission saw. */
struct ro_report {
	int ran, dropped;
	int rc_new, new_created;
	int rc_dir, rc_file, rc_read;
	long long read_runs;
	char err_new[300], err_dir[300], err_file[300], err_read[300];
};

static void check_read_only(void)
{
	char ro[512], rw[512], fresh[512], in_ro[512], in_rw[512];
	in_tmp(ro, sizeof ro, "rodir");
	in_tmp(rw, sizeof rw, "rwdir");
	in_tmp(fresh, sizeof fresh, "rodir/new.db");
	in_tmp(in_ro, sizeof in_ro, "rodir/store.db");
	in_tmp(in_rw, sizeof in_rw, "rwdir/store.db");
	mkdir(ro, 0755);
	mkdir(rw, 0755);
	make_store(in_ro);
	make_store(in_rw);
	chmod(in_ro, 0666); /* the file is writable, its directory is not */
	chmod(ro, 0555);
	chmod(in_rw, 0444); /* the directory is writable, the file is not */
	chmod(rw, 0777);
	chmod(tmpdir, 0711);
	struct snapshot s_ro = snap(in_ro), s_rw = snap(in_rw);

	/* Root may write anywhere: the refusals are checked in a child that
	 * drops to nobody. */
	int pipefd[2];
	struct ro_report rep;
	memset(&rep, 0, sizeof rep);
	fflush(stdout);
	if (pipe(pipefd) == 0) {
		pid_t pid = fork();
		if (pid == 0) {
			struct ro_report me;
			memset(&me, 0, sizeof me);
			me.ran = 1;
			me.dropped = geteuid() != 0 ||
				     (setgroups(0, NULL) == 0 && setgid(65534) == 0 && setuid(65534) == 0);
			if (me.dropped) {
				struct fgo_store *st = NULL;
				me.rc_new = store_open(fresh, FGO_STORE_WRITE, &st, me.err_new,
						       sizeof me.err_new);
				store_close(st);
				me.new_created = exists(fresh);
				st = NULL;
				me.rc_dir = store_open(in_ro, FGO_STORE_WRITE, &st, me.err_dir,
						       sizeof me.err_dir);
				store_close(st);
				st = NULL;
				me.rc_file = store_open(in_rw, FGO_STORE_WRITE, &st, me.err_file,
							sizeof me.err_file);
				store_close(st);
				/* Reading needs no write permission anywhere. */
				st = NULL;
				me.rc_read = store_open(in_ro, FGO_STORE_READ, &st, me.err_read,
							sizeof me.err_read);
				me.read_runs = st ? q_int(store_db(st), "SELECT count(*) FROM runs") : -1;
				store_close(st);
			}
			if (write(pipefd[1], &me, sizeof me) != (ssize_t)sizeof me)
				_exit(1);
			_exit(0);
		}
		close(pipefd[1]);
		if (pid > 0) {
			size_t got = 0;
			ssize_t n;
			while (got < sizeof rep &&
			       (n = read(pipefd[0], (char *)&rep + got, sizeof rep - got)) > 0)
				got += (size_t)n;
			waitpid(pid, NULL, 0);
		}
		close(pipefd[0]);
	}
	if (!rep.ran || !rep.dropped) {
		printf("note: read-only checks skipped (cannot drop root privileges here)\n");
	} else {
		T_CHECK("ro-dir-new-refused", rep.rc_new == FGO_EUSAGE, "rc %d: %s", rep.rc_new,
			rep.err_new);
		T_CONTAINS("ro-dir-new-message", rep.err_new, "cannot write the store");
		T_CHECK("ro-dir-new-not-created", !rep.new_created && !exists(fresh),
			"%s was created", fresh);
		T_CHECK("ro-dir-existing-refused", rep.rc_dir == FGO_EUSAGE, "rc %d: %s", rep.rc_dir,
			rep.err_dir);
		T_CONTAINS("ro-dir-existing-message", rep.err_dir, "directory");
		T_CHECK("ro-file-refused", rep.rc_file == FGO_EUSAGE, "rc %d: %s", rep.rc_file,
			rep.err_file);
		T_CONTAINS("ro-file-message", rep.err_file, "cannot write the store");
		T_CHECK("ro-dir-read-mode-opens", rep.rc_read == FGO_OK && rep.read_runs == 0,
			"READ open of a store in a read-only directory: rc %d, runs %lld: %s",
			rep.rc_read, rep.read_runs, rep.err_read);
	}
	T_CHECK("ro-dir-unchanged", same_file(in_ro, &s_ro) && no_side_files(in_ro),
		"store in the read-only directory changed");
	T_CHECK("ro-file-unchanged", same_file(in_rw, &s_rw) && no_side_files(in_rw),
		"read-only store changed");
	free(s_ro.data);
	free(s_rw.data);
	chmod(tmpdir, 0700);
	chmod(ro, 0755);
	chmod(rw, 0755);
}

/* An empty file (what `touch` leaves) becomes a store in WRITE mode. */
static void check_empty_file(void)
{
	char p[512], err[512] = "";
	in_tmp(p, sizeof p, "touched.db");
	write_file(p, "", 0);
	struct fgo_store *st = NULL;
	int rc = store_open(p, FGO_STORE_WRITE, &st, err, sizeof err);
	T_CHECK("empty-file-write", rc == FGO_OK && st, "rc %d: %s", rc, err);
	if (!st)
		return;
	sqlite3 *db = store_db(st);
	char got[128];
	snprintf(got, sizeof got, "%s", q_text(db, "SELECT value FROM meta WHERE key = 'application'"));
	T_EQ_STR("empty-file-meta", got, "fgobench");
	T_EQ_INT("empty-file-user-version", q_int(db, "PRAGMA user_version"), FGO_SCHEMA_VERSION);
	struct fgo_sweep_info in = sweep_info("t", "hash-E");
	int64_t id = 0;
	rc = store_sweep_begin(st, &in, &id, err, sizeof err);
	T_CHECK("empty-file-usable", rc == FGO_OK && id == 1, "rc %d id %lld: %s", rc, (long long)id,
		err);
	store_close(st);
	struct fgo_store *ro = NULL;
	rc = store_open(p, FGO_STORE_READ, &ro, err, sizeof err);
	T_CHECK("empty-file-reads-back", rc == FGO_OK && ro &&
		q_int(store_db(ro), "SELECT count(*) FROM sweeps") == 1, "rc %d: %s", rc, err);
	store_close(ro);
}

int main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/fgo-test-store-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		printf("FAIL mkdtemp: %s\n", strerror(errno));
		return 1;
	}
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
		check_reopen(path, st);
	}
	check_refusals();
	check_read_only();
	check_empty_file();

	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	T_CHECK("cleanup", !exists(tmpdir), "%s left behind", tmpdir);
	T_DONE();
}
