/* test_store_migrate.c: a store written by schema version 1 (made here from
 * tests/unit/schema_v1.sql, the schema of that version as git holds it:
 * `git show 28c4077:db/schema.sql`; tests/e2e/45_migrate.sh checks the two
 * agree) is read through an upgraded private copy without a byte changing,
 * upgraded in place when opened for writing with every row kept, ends up
 * with the same tables, columns and indexes as a new store, takes the new
 * columns, 'bulk' samples and ceiling details; a schema-5 store upgraded
 * to 6 keeps its fits and predictions and takes collective curves and
 * multi-GPU fits; schema-5 and schema-7 stores read every run as cluster
 * 1, upgraded or read through a copy; a migration that fails leaves the store at version 1; a
 * newer store is refused. */
#include "store_fixture.h"

#include "floor.h"

static const char v1_schema_path[] = "tests/unit/schema_v1.sql";

/* What fgobench 1 wrote into a new store, then a sweep with an ok run
 * (samples of every kind), a failed and an invalid run, and ceilings. */
static const char v1_data[] =
	"INSERT INTO meta(key, value) VALUES ('application', 'fgobench'), ('schema_version', '1');"
	"PRAGMA user_version = 1;"
	"INSERT INTO sweeps (id, tag, spec_path, spec_name, spec_hash, command_line, host,"
	"  fgobench_version, git_revision, backend, devices, mpi_ranks, iterations, warmup,"
	"  started_at, ended_at, status)"
	" VALUES (1, 'nightly-1', 'sweeps/smoke.json', 'smoke', 'h1', 'fgobench sweep', 'node-1',"
	"  '0.1.0', 'abc', 'cpu', 'cpu: 2 cores', 2, 3, 1, '2026-11-20T01:00:00Z',"
	"  '2026-11-20T01:05:00Z', 'done');"
	"INSERT INTO runs (id, sweep_id, config_key, config_hash, algorithm, dtype, world, m, n, k,"
	"  blk_m, blk_n, blk_k, num_stages, num_warps, mma, gsize_m, gemm_sms, comm_sms, comm_blk_m,"
	"  comm_blk_n, status, reason, iterations, warmup, t_fused_ms, t_fused_min_ms, t_fused_max_ms,"
	"  t_fused_std_ms, t_gemm_ms, t_comm_ms, t_baseline_ms, tflops_total, tflops_per_rank,"
	"  link_gbps, overlap, speedup, sol, validated, max_abs_err, max_rel_err, registers,"
	"  shared_bytes, spills, started_at, ended_at) VALUES"
	" (1, 1, 'all_scatter/fp16/w2/a', 'aaaa', 'all_scatter', 'fp16', 2, 256, 256, 128, 32, 32,"
	"  32, 2, 4, 16, 8, 0, 0, 0, 0, 'ok', NULL, 3, 1, 2.0, 1.5, 2.5, 0.25, 1.25, 1.0, 3.0,"
	"  0.5, 0.25, 12.5, 0.25, 1.5, 0.4, 1, 0.001, 0.0001, 64, 16384, 0,"
	"  '2026-11-20T01:00:01Z', '2026-11-20T01:00:02Z'),"
	" (2, 1, 'all_scatter/fp16/w2/b', 'bbbb', 'all_scatter', 'fp16', 2, 512, 256, 128, 64, 32,"
	"  32, 2, 4, 16, 8, 0, 0, 0, 0, 'failed', 'baseline needs NCCL', 3, 1, 4.0, 3.5, 4.5, 0.5,"
	"  NULL, NULL, NULL, 0.25, 0.125, NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, 0, 0,"
	"  '2026-11-20T01:00:03Z', '2026-11-20T01:00:04Z'),"
	" (3, 1, 'all_scatter/fp16/w2/c', 'cccc', 'all_scatter', 'fp16', 2, 16, 256, 128, 64, 32,"
	"  32, 2, 4, 16, 8, 0, 0, 0, 0, 'invalid', 'tile exceeds M', NULL, NULL, NULL, NULL, NULL,"
	"  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL,"
	"  NULL, '2026-11-20T01:00:05Z', '2026-11-20T01:00:05Z');"
	"INSERT INTO samples (run_id, kind, iteration, ms) VALUES"
	" (1, 'fused', 1, 2.0), (1, 'fused', 2, 1.5), (1, 'fused', 3, 2.5),"
	" (1, 'gemm', 1, 1.25), (1, 'gemm', 2, 1.0), (1, 'gemm', 3, 1.5),"
	" (1, 'comm', 1, 1.0), (1, 'comm', 2, 0.75), (1, 'comm', 3, 1.25),"
	" (1, 'baseline', 1, 3.0), (1, 'baseline', 2, 2.75), (1, 'baseline', 3, 3.25),"
	" (2, 'fused', 1, 4.0), (2, 'fused', 2, 3.5), (2, 'fused', 3, 4.5);"
	"INSERT INTO ceilings (id, machine, backend, what, dtype, value, unit, measured_at) VALUES"
	" (1, 'node-1', 'cpu', 'matrix_peak', 'fp16', 0.5, 'TFLOP/s', '2026-11-19T00:00:00Z'),"
	" (2, 'node-1', 'cpu', 'link_bw', '', 20.0, 'GB/s', '2026-11-19T00:00:00Z');";

/* The columns of each table in schema 1, in order: what must survive. */
static const struct {
	const char *table, *columns, *order;
} v1_tables[] = {
	{ "meta", "key, value", "key" },
	{ "sweeps",
	  "id, tag, spec_path, spec_name, spec_text, spec_hash, command_line, host,"
	  " fgobench_version, git_revision, backend, devices, driver, runtime, arch, mpi_ranks,"
	  " iterations, warmup, started_at, ended_at, status",
	  "id" },
	{ "runs",
	  "id, sweep_id, config_key, config_hash, algorithm, dtype, world, m, n, k, blk_m, blk_n,"
	  " blk_k, num_stages, num_warps, mma, gsize_m, gemm_sms, comm_sms, comm_blk_m, comm_blk_n,"
	  " status, reason, iterations, warmup, t_fused_ms, t_fused_min_ms, t_fused_max_ms,"
	  " t_fused_std_ms, t_gemm_ms, t_comm_ms, t_baseline_ms, tflops_total, tflops_per_rank,"
	  " link_gbps, overlap, speedup, sol, validated, max_abs_err, max_rel_err, registers,"
	  " shared_bytes, spills, started_at, ended_at",
	  "id" },
	{ "samples", "run_id, kind, iteration, ms", "run_id, kind, iteration" },
	{ "ceilings", "id, machine, backend, what, dtype, value, unit, measured_at", "id" },
};

static char *read_text(const char *path)
{
	struct snapshot s = snap(path);
	if (!s.exists)
		return NULL;
	char *text = realloc(s.data, s.len + 1);
	if (text)
		text[s.len] = 0;
	return text;
}

/* A schema-1 store at path with v1_data in it; 0 on success. */
static int make_v1_store(const char *path, const char *schema)
{
	return raw_sql(path, schema) != SQLITE_OK || raw_sql(path, v1_data) != SQLITE_OK;
}

/* A store at schema version v at path: schema 1 with v1_data, then
 * migrations 2 to v as the files hold them; 0 on success. */
static int make_store_at(const char *path, const char *schema, int v)
{
	int bad = make_v1_store(path, schema);
	for (int i = 2; !bad && i <= v; i++) {
		char name[64];
		snprintf(name, sizeof name, "db/migrations/%d.sql", i);
		char *m = read_text(name);
		bad = !m || raw_sql(path, m) != SQLITE_OK;
		free(m);
	}
	char sql[128];
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d; UPDATE meta SET value = '%d' WHERE"
		 " key = 'schema_version'", v, v);
	return bad || raw_sql(path, sql) != SQLITE_OK;
}

/* Every row of a table as text (the schema-1 columns only), so a dump
 * before and after the upgrade can be compared byte for byte. */
static char *dump(sqlite3 *db, size_t i)
{
	char cols[1024];
	size_t o = 0;
	const char *c = v1_tables[i].columns;
	/* "a, b" -> "quote(a) || '|' || quote(b)" */
	while (*c && o + 40 < sizeof cols) {
		size_t n = strcspn(c, ",");
		o += (size_t)snprintf(cols + o, sizeof cols - o, "%squote(%.*s)", o ? " || '|' || " : "",
				      (int)n, c);
		c += n;
		while (*c == ',' || *c == ' ')
			c++;
	}
	char sql[2048];
	snprintf(sql, sizeof sql, "SELECT group_concat(r, char(10)) FROM (SELECT %s AS r FROM %s"
		 " ORDER BY %s)", cols, v1_tables[i].table, v1_tables[i].order);
	sqlite3_stmt *q = NULL;
	char *out = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW &&
	    sqlite3_column_text(q, 0))
		out = strdup((const char *)sqlite3_column_text(q, 0));
	else
		out = strdup(sqlite3_errmsg(db));
	sqlite3_finalize(q);
	return out;
}

/* Column name, type, not-null, default and key of every column of every
 * table, the indexes with their columns, and samples' CHECK: what a new
 * store and an upgraded one must agree on. */
static char *shape(sqlite3 *db)
{
	static const char *const tables[] = { "meta", "sweeps", "runs", "samples", "ceilings",
					      "problems", "problem_samples", "read_floors",
					      "read_floor_points", "model_fits", "world_predictions",
					      "traces", "trace_ranks", "trace_waits", "coll_curves",
					      "coll_curve_points", "world_fits" };
	size_t cap = 1 << 16, o = 0;
	char *out = calloc(1, cap);
	for (size_t i = 0; out && i < FGO_ARRAY_SIZE(tables); i++) {
		o += (size_t)snprintf(
			out + o, cap - o, "%s: %s\n", tables[i],
			q_text(db,
			       "SELECT group_concat(name || ' ' || type || ' ' || \"notnull\" || ' ' ||"
			       " coalesce(dflt_value, '-') || ' ' || pk, ', ') FROM pragma_table_info('%s')",
			       tables[i]));
	}
	if (out)
		o += (size_t)snprintf(
			out + o, cap - o, "indexes: %s\n",
			q_text(db, "SELECT group_concat(x, '; ') FROM (SELECT m.name || '(' ||"
				   " (SELECT group_concat(name, ',') FROM pragma_index_info(m.name)) || ')'"
				   " AS x FROM sqlite_master m WHERE m.type = 'index' AND m.sql IS NOT NULL"
				   " ORDER BY m.name)"));
	if (out)
		snprintf(out + o, cap - o, "samples check: %s\n",
			 q_text(db, "SELECT substr(sql, instr(sql, 'CHECK')) FROM sqlite_master"
				    " WHERE name = 'samples'"));
	return out;
}

static void check_read_copy(const char *path, char **before)
{
	char err[512] = "";
	struct snapshot file = snap(path);
	struct fgo_store *st = NULL;
	int rc = store_open(path, FGO_STORE_READ, &st, err, sizeof err);
	T_CHECK("v1-read-opens", rc == FGO_OK && st, "rc %d: %s", rc, err);
	if (st) {
		sqlite3 *db = store_db(st);
		T_EQ_INT("v1-read-sees-version-2", q_int(db, "PRAGMA user_version"), FGO_SCHEMA_VERSION);
		for (size_t i = 0; i < FGO_ARRAY_SIZE(v1_tables); i++) {
			char id[64], *now = dump(db, i);
			snprintf(id, sizeof id, "v1-read-rows-%s", v1_tables[i].table);
			if (strcmp(v1_tables[i].table, "meta") != 0)
				T_EQ_STR(id, now, before[i]);
			free(now);
		}
		char got[256];
		snprintf(got, sizeof got, "%s",
			 q_text(db, "SELECT quote(t_bulk_ms) || ' ' || quote(sm_clock_mhz) || ' ' ||"
				    " quote(temp_c) FROM runs WHERE id = 1"));
		T_EQ_STR("v1-read-new-columns-null", got, "NULL NULL NULL");
		snprintf(got, sizeof got, "%s",
			 q_text(db, "SELECT group_concat(quote(detail)) FROM ceilings"));
		T_EQ_STR("v1-read-ceiling-detail", got, "'',''");
		double v = 0;
		int found = 0;
		rc = store_ceiling_get(st, "node-1", "cpu", "link_bw", "", &v, &found, err, sizeof err);
		T_CHECK("v1-read-ceiling-get", rc == FGO_OK && found && v == 20.0, "rc %d found %d v %g",
			rc, found, v);
		struct fgo_sweep_info in = sweep_info("ro", "hash-R");
		int64_t id = 0;
		rc = store_sweep_begin(st, &in, &id, err, sizeof err);
		T_CHECK("v1-read-refuses-writes", rc != FGO_OK, "a reader wrote sweep %lld",
			(long long)id);
		store_close(st);
	}
	T_CHECK("v1-read-file-unchanged", same_file(path, &file) && no_side_files(path),
		"reading the version-1 store changed %s or left side files", path);
	sqlite3 *raw = NULL;
	sqlite3_open(path, &raw);
	T_EQ_INT("v1-read-still-version-1", q_int(raw, "PRAGMA user_version"), 1);
	sqlite3_close(raw);
	free(file.data);
}

static void check_upgrade(const char *path, char **before, const char *fresh_shape)
{
	char err[512] = "", got[512];
	struct fgo_store *st = NULL;
	int rc = store_open(path, FGO_STORE_WRITE, &st, err, sizeof err);
	T_CHECK("v1-write-opens", rc == FGO_OK && st, "rc %d: %s", rc, err);
	if (!st)
		return;
	sqlite3 *db = store_db(st);
	T_EQ_INT("v1-upgraded-user-version", q_int(db, "PRAGMA user_version"), FGO_SCHEMA_VERSION);
	snprintf(got, sizeof got, "%s", q_text(db, "SELECT value FROM meta WHERE key = 'schema_version'"));
	char want_version[16];
	snprintf(want_version, sizeof want_version, "%d", FGO_SCHEMA_VERSION);
	T_EQ_STR("v1-upgraded-meta-version", got, want_version);
	snprintf(got, sizeof got, "%s", q_text(db, "SELECT value FROM meta WHERE key = 'application'"));
	T_EQ_STR("v1-upgraded-meta-application", got, "fgobench");
	for (size_t i = 1; i < FGO_ARRAY_SIZE(v1_tables); i++) {
		char id[64], *now = dump(db, i);
		snprintf(id, sizeof id, "v1-upgraded-keeps-%s", v1_tables[i].table);
		T_EQ_STR(id, now, before[i]);
		free(now);
	}
	T_EQ_INT("v1-upgraded-no-leftover-table",
		 count(db, "SELECT count(*) FROM sqlite_master WHERE name = 'samples_v1'"), 0);
	T_EQ_STR("v1-upgraded-integrity", q_text(db, "PRAGMA integrity_check"), "ok");
	T_EQ_STR("v1-upgraded-foreign-keys", q_text(db, "PRAGMA foreign_key_check"), "(no row)");
	char *mine = shape(db);
	T_EQ_STR("v1-upgraded-shape-is-new-store", mine ? mine : "(none)", fresh_shape);
	free(mine);

	/* The new columns and kinds take values. */
	T_CHECK("v1-upgraded-bulk-sample",
		sqlite3_exec(db, "INSERT INTO samples VALUES (1, 'bulk', 1, 2.25)", NULL, NULL, NULL) ==
			SQLITE_OK,
		"%s", sqlite3_errmsg(db));
	T_CHECK("v1-upgraded-check-kept",
		sqlite3_exec(db, "INSERT INTO samples VALUES (1, 'bogus', 1, 1.0)", NULL, NULL, NULL) ==
			SQLITE_CONSTRAINT,
		"a kind outside the CHECK was accepted");
	/* ON DELETE CASCADE still reaches the rebuilt samples table. */
	sqlite3_exec(db, "INSERT INTO runs (id, sweep_id, config_key, config_hash, algorithm, dtype,"
			 " world, m, n, k, blk_m, blk_n, blk_k, num_stages, num_warps, mma, gsize_m,"
			 " gemm_sms, comm_sms, comm_blk_m, comm_blk_n, status, started_at) VALUES (99, 1,"
			 " 'x', 'x', 'gemm', 'fp32', 1, 1, 1, 1, 1, 1, 1, 1, 1, 16, 1, 0, 0, 0, 0, 'ok',"
			 " 'now'); INSERT INTO samples VALUES (99, 'bulk', 1, 1.0); DELETE FROM runs"
			 " WHERE id = 99",
		     NULL, NULL, NULL);
	T_EQ_INT("v1-upgraded-cascade", count(db, "SELECT count(*) FROM samples WHERE run_id = 99"), 0);
	T_CHECK("v1-upgraded-sample-needs-run",
		sqlite3_exec(db, "INSERT INTO samples VALUES (12345, 'bulk', 1, 1.0)", NULL, NULL, NULL) ==
			SQLITE_CONSTRAINT,
		"a sample of no run was accepted");

	/* A sweep into the upgraded store writes bulk and telemetry. */
	struct fgo_sweep_info in = sweep_info("after", "hash-2");
	struct fgo_config cfg = config_m(256);
	int64_t sweep = 0, run = 0;
	rc = store_sweep_begin(st, &in, &sweep, err, sizeof err) ||
	     store_run_started(st, sweep, &cfg, 3, 1, &run, err, sizeof err);
	struct fgo_result r;
	result_init(&r);
	r.status = FGO_STATUS_OK;
	static const double fused[] = { 2.0, 1.0, 3.0 }, bulk[] = { 2.5, 3.5, 3.0 };
	set_timing(&r.fused, fused, 3);
	set_timing(&r.bulk, bulk, 3);
	r.telemetry.sm_clock_mhz = 1980;
	r.telemetry.mem_clock_mhz = 3201;
	r.telemetry.temp_c = 61;
	r.telemetry.power_w = 512.5;
	rc |= store_run_finish(st, run, 0, &r, err, sizeof err);
	result_free(&r);
	T_CHECK("v1-upgraded-run-finish", rc == FGO_OK, "rc %d: %s", rc, err);
	col_is(db, "v1-upgraded-t_bulk_ms", "runs", run, "t_bulk_ms", "3.0");
	col_is(db, "v1-upgraded-telemetry", "runs", run,
	       "sm_clock_mhz || ' ' || mem_clock_mhz || ' ' || temp_c || ' ' || power_w",
	       "'1980.0 3201.0 61.0 512.5'");
	snprintf(got, sizeof got, "%s",
		 q_text(db, "SELECT group_concat(ms, ' ') FROM samples WHERE run_id = %lld AND"
			    " kind = 'bulk'", (long long)run));
	T_EQ_STR("v1-upgraded-bulk-samples", got, "2.5 3.5 3.0");

	/* Ceilings with a detail beside the machine-wide ones from schema 1. */
	rc = store_ceiling_put_detail(st, "node-1", "cpu", "link_bw", "", "gpu0->gpu1 sm", 99.0,
				      "GB/s", err, sizeof err);
	T_CHECK("v1-upgraded-ceiling-detail-put", rc == FGO_OK, "rc %d: %s", rc, err);
	double v = 0;
	int found = 0;
	rc = store_ceiling_get(st, "node-1", "cpu", "link_bw", "", &v, &found, err, sizeof err);
	T_CHECK("v1-upgraded-ceiling-machine-wide", rc == FGO_OK && found && v == 20.0,
		"found %d value %g (want the schema-1 row's 20)", found, v);
	rc = store_ceiling_get_detail(st, "node-1", "cpu", "link_bw", "", "gpu0->gpu1 sm", &v,
				      &found, err, sizeof err);
	T_CHECK("v1-upgraded-ceiling-detail-get", rc == FGO_OK && found && v == 99.0,
		"found %d value %g", found, v);
	store_close(st);

	/* Opening again does not migrate again. */
	st = NULL;
	rc = store_open(path, FGO_STORE_WRITE, &st, err, sizeof err);
	T_CHECK("v2-reopen-write", rc == FGO_OK && st, "rc %d: %s", rc, err);
	if (st) {
		T_EQ_INT("v2-reopen-rows", count(store_db(st), "SELECT count(*) FROM runs"), 4);
		T_EQ_INT("v2-reopen-samples", count(store_db(st), "SELECT count(*) FROM samples"), 22);
		store_close(st);
	}
}

/* A schema-3 store (schema 1 and migrations 2 and 3 as the files hold
 * them) with a sweep, a run and ceilings: read through an upgraded copy
 * with no read floor and the file unchanged; upgraded in place by a
 * writer to schema 4, every row kept, the same shape as a new store, and
 * the read floor then stored and read back. */
static void check_from_v3(const char *schema, const char *fresh_shape)
{
	char p[512], err[512] = "";
	char *m2 = read_text("db/migrations/2.sql"), *m3 = read_text("db/migrations/3.sql");
	in_tmp(p, sizeof p, "v3.db");
	if (!m2 || !m3 || make_v1_store(p, schema) || raw_sql(p, m2) || raw_sql(p, m3) ||
	    raw_sql(p, "PRAGMA user_version = 3; UPDATE meta SET value = '3' WHERE key ="
		       " 'schema_version'")) {
		T_CHECK("v3-made", 0, "cannot make a schema-3 store at %s", p);
		free(m2);
		free(m3);
		return;
	}
	free(m2);
	free(m3);
	sqlite3 *raw = NULL;
	sqlite3_open(p, &raw);
	T_EQ_INT("v3-has-no-floor-table",
		 count(raw, "SELECT count(*) FROM sqlite_master WHERE name = 'read_floors'"), 0);
	char *runs_before = dump(raw, 2), *ceil_before = dump(raw, 4);
	sqlite3_close(raw);

	struct snapshot file = snap(p);
	struct fgo_store *st = NULL;
	struct fgo_floor f;
	int rc = store_open(p, FGO_STORE_READ, &st, err, sizeof err);
	T_CHECK("v3-read-opens", rc == FGO_OK && st, "rc %d: %s", rc, err);
	if (st) {
		rc = store_floor_get(store_db(st), "node-1", "cpu", &f, err, sizeof err);
		T_CHECK("v3-read-no-floor", rc == FGO_OK && f.n == 0, "rc %d n %d: %s", rc, f.n, err);
		store_close(st);
	}
	T_CHECK("v3-read-file-unchanged", same_file(p, &file) && no_side_files(p),
		"reading the schema-3 store changed %s", p);
	free(file.data);

	st = NULL;
	rc = store_open(p, FGO_STORE_WRITE, &st, err, sizeof err);
	T_CHECK("v3-write-opens", rc == FGO_OK && st, "rc %d: %s", rc, err);
	if (st) {
		sqlite3 *db = store_db(st);
		T_EQ_INT("v3-upgraded-user-version", q_int(db, "PRAGMA user_version"), FGO_SCHEMA_VERSION);
		char *runs_after = dump(db, 2), *ceil_after = dump(db, 4), *mine = shape(db);
		T_EQ_STR("v3-upgraded-keeps-runs", runs_after, runs_before);
		T_EQ_STR("v3-upgraded-keeps-ceilings", ceil_after, ceil_before);
		T_EQ_STR("v3-upgraded-shape-is-new-store", mine ? mine : "(none)", fresh_shape);
		free(runs_after);
		free(ceil_after);
		free(mine);
		static const double b[] = { 1 << 20, 2 << 20 }, t[] = { 1e-4, 1.5e-4 };
		rc = store_floor_put(st, "node-1", "cpu", "cpu: 2 cores", "cpu: test", 5, b, t, 2, err,
				     sizeof err);
		T_CHECK("v3-upgraded-floor-put", rc == FGO_OK, "rc %d: %s", rc, err);
		rc = store_floor_get(db, "node-1", "cpu", &f, err, sizeof err);
		T_CHECK("v3-upgraded-floor-get", rc == FGO_OK && f.n == 2 && f.seconds[1] == 1.5e-4,
			"rc %d n %d", rc, f.n);
		/* the schema-1 fp16 peak came along: the floor is read with it */
		T_CHECK("v3-upgraded-floor-ceilings", f.matrix_peak[FGO_FP16] == 0.5, "fp16 peak %g",
			f.matrix_peak[FGO_FP16]);
		/* schema 5: a traced run's summary stored and read back */
		struct fgo_trace_rank_sum ranks[2] = { { 0, 0, 90, 4, 60, 75 }, { 1, 2, 100, 5, 55, NAN } };
		struct fgo_trace_wait waits[1] = { { 1, 0, 12.5, 3 } };
		struct fgo_trace_summary ts = { .world = 2, .ctas = 4, .events = 40, .tiles = 8,
						.kernel_us = 100, .gemm_pct = 57.5, .comm_pct = 20,
						.xchg_pct = 0, .wait_pct = 10, .idle_pct = 12.5,
						.hidden_pct = 75, .tail_us = 5, .skew_us = 2,
						.traced_ms = 1.01, .untraced_ms = 1, .overhead_pct = 1,
						.ranks = ranks, .waits = waits, .nwaits = 1 };
		rc = store_trace_put(st, 1, "t.json", &ts, err, sizeof err);
		T_CHECK("v3-upgraded-trace-put", rc == FGO_OK, "rc %d: %s", rc, err);
		struct fgo_trace_summary got;
		char file[64];
		int found = 0;
		rc = store_trace_get(db, 1, &got, file, sizeof file, &found, err, sizeof err);
		T_CHECK("v3-upgraded-trace-get",
			rc == FGO_OK && found && !strcmp(file, "t.json") && got.world == 2 &&
				got.gemm_pct == 57.5 && got.nwaits == 1 && got.waits[0].us == 12.5 &&
				got.ranks[1].start_us == 2 && isnan(got.ranks[1].hidden_pct),
			"rc %d found %d: %s", rc, found, err);
		trace_summary_free(&got);
		rc = store_trace_get(db, 2, &got, file, sizeof file, &found, err, sizeof err);
		T_CHECK("v3-upgraded-trace-none", rc == FGO_OK && !found, "run 2 was not traced");
		trace_summary_free(&got);
		T_EQ_STR("v3-upgraded-integrity", q_text(db, "PRAGMA integrity_check"), "ok");
		store_close(st);
	}
	free(runs_before);
	free(ceil_before);
}

/* A schema-V store (schema 1 and migrations 2 to V; V = 5 and 7) read
 * through an upgraded copy, then upgraded by a writer to the current
 * schema (6 added a user kernel's columns, 8 the cluster): every row kept,
 * the same shape as a new store, the three columns of a user kernel NULL
 * and cluster 1 for the runs before (none had a cluster), both read and
 * upgraded; a user kernel's run then stored with its params and source
 * hash, and a run with a cluster found again by its key. */
static void check_runs_from(const char *schema, const char *fresh_shape, int v)
{
	char p[512], err[512] = "", name[64];
#define ID(what) (snprintf(name, sizeof name, "v%du-%s", v, what), name)
	snprintf(name, sizeof name, "v%du-user.db", v);
	in_tmp(p, sizeof p, name);
	if (make_store_at(p, schema, v)) {
		T_CHECK(ID("made"), 0, "cannot make a schema-%d store at %s", v, p);
		return;
	}
	sqlite3 *raw = NULL;
	sqlite3_open(p, &raw);
	char *runs_before = dump(raw, 2);
	long long runs = count(raw, "SELECT count(*) FROM runs");
	sqlite3_close(raw);
	struct fgo_store *st = NULL;
	int rc = store_open(p, FGO_STORE_READ, &st, err, sizeof err);
	T_CHECK(ID("read-opens"), rc == FGO_OK && st, "rc %d: %s", rc, err);
	if (st)
		T_EQ_INT(ID("read-runs-cluster-1"),
			 count(store_db(st), "SELECT count(*) FROM runs WHERE cluster = 1"), runs);
	store_close(st);
	st = NULL;
	rc = store_open(p, FGO_STORE_WRITE, &st, err, sizeof err);
	T_CHECK(ID("write-opens"), rc == FGO_OK && st, "rc %d: %s", rc, err);
	if (st) {
		sqlite3 *db = store_db(st);
		T_EQ_INT(ID("upgraded-user-version"), q_int(db, "PRAGMA user_version"), FGO_SCHEMA_VERSION);
		char *runs_after = dump(db, 2), *mine = shape(db);
		T_EQ_STR(ID("upgraded-keeps-runs"), runs_after, runs_before);
		T_EQ_STR(ID("upgraded-shape-is-new-store"), mine ? mine : "(none)", fresh_shape);
		T_EQ_INT(ID("upgraded-kernel-columns-null"),
			 q_int(db, "SELECT count(*) FROM runs WHERE kernel_manifest IS NULL AND"
				   " kernel_hash IS NULL AND kernel_params IS NULL"),
			 q_int(db, "SELECT count(*) FROM runs"));
		T_CHECK(ID("upgraded-runs-cluster-1"), runs > 0 &&
			count(db, "SELECT count(*) FROM runs WHERE cluster = 1") == runs, "of %lld runs", runs);
		free(runs_after);
		free(mine);
		struct fgo_config c;
		int64_t id = 0, found = 0;
		config_defaults(&c);
		c.m = c.n = c.k = 64;
		snprintf(c.algorithm, sizeof c.algorithm, "user:mine");
		snprintf(c.params, sizeof c.params, "BLOCK_M=64,BLOCK_N=32");
		snprintf(c.source_hash, sizeof c.source_hash, "0123456789abcdef");
		rc = store_run_started(st, 1, &c, 3, 1, &id, err, sizeof err);
		T_CHECK(ID("upgraded-user-run"), rc == FGO_OK && id > 0, "rc %d: %s", rc, err);
		char sql[256];
		snprintf(sql, sizeof sql, "SELECT kernel_params || ' ' || kernel_hash || ' ' ||"
			 " coalesce(kernel_manifest, '-') || ' ' || (config_key LIKE '%%/src:0123456789abcdef')"
			 " FROM runs WHERE id = %lld", (long long)id);
		T_EQ_STR(ID("upgraded-user-columns"), q_text(db, "%s", sql),
			 "BLOCK_M=64,BLOCK_N=32 0123456789abcdef - 1");
		int status = -1;
		c = config_m(4096);
		c.cluster = 2;
		rc = store_run_started(st, 1, &c, 3, 1, &id, err, sizeof err) ||
		     store_run_lookup(st, 1, &c, &status, &found, err, sizeof err);
		T_CHECK(ID("upgraded-cluster-run"), rc == FGO_OK && id > 0 && found == id,
			"rc %d run %lld found %lld: %s", rc, (long long)id, (long long)found, err);
		col_is(db, ID("upgraded-cluster-column"), "runs", id, "cluster", "2");
		store_close(st);
	}
	free(runs_before);
#undef ID
}

/* A schema-5 store (schema 1 and migrations 2 to 5 as the files hold them)
 * with a model fit and a world prediction: upgraded in place by a writer
 * to the current schema (7 added the curves and fits), every row kept, the prediction's new columns NULL, the same
 * shape as a new store; a collective curve and a multi-GPU fit then stored
 * and read back, the newest per collective and W; a bad curve refused
 * with nothing stored lost. */
static void check_from_v5(const char *schema, const char *fresh_shape)
{
	char p[512], err[512] = "";
	in_tmp(p, sizeof p, "v5.db");
	int made = make_store_at(p, schema, 5) == 0 &&
	       raw_sql(p, "INSERT INTO model_fits (machine, backend, core, source, runs, rms_rel_err,"
			  " median_rel_err, max_rel_err, c_launch, c_compute, c_memory, c_reuse, c_units,"
			  " c_stall, c_exchange, c_comm, peak_fp32, peak_fp16, peak_bf16, memory_gbps,"
			  " link_gbps, cus, fitted_at) VALUES ('node-1', 'gpu', 'wgmma', 'fit', 20, 0.1,"
			  " 0.05, 0.3, 0.01, 1, 1, 0, 0, 0, 1, 1, 50, 700, 700, 3000, 350, 132,"
			  " '2026-11-25T00:00:00Z');"
			  "INSERT INTO world_predictions (made_at, machine, backend, algorithm, dtype,"
			  " world, m, n, k, gemm_m, gemm_n, gemm_k, gemm_ms, gemm_source, link_gbps,"
			  " link_source, comm_bytes, comm_ms, reduce_ms, fused_ms, baseline_ms, speedup)"
			  " VALUES ('2026-11-25T00:00:00Z', 'node-1', 'gpu', 'all_scatter', 'bf16', 2,"
			  " 4096, 4096, 4096, 4096, 2048, 4096, 0.2, 'measured', 350, 'stated', 1.6e7,"
			  " 0.05, 0, 0.21, 0.25, 1.19);") == SQLITE_OK;
	if (!made) {
		T_CHECK("v5-made", 0, "cannot make a schema-5 store at %s", p);
		return;
	}
	struct fgo_store *st = NULL;
	int rc = store_open(p, FGO_STORE_WRITE, &st, err, sizeof err);
	T_CHECK("v5-write-opens", rc == FGO_OK && st, "rc %d: %s", rc, err);
	if (!st)
		return;
	sqlite3 *db = store_db(st);
	T_EQ_INT("v5-upgraded-user-version", q_int(db, "PRAGMA user_version"), FGO_SCHEMA_VERSION);
	T_EQ_STR("v5-upgraded-keeps-model-fit",
		 q_text(db, "SELECT core || ' ' || runs || ' ' || c_comm FROM model_fits"), "wgmma 20 1.0");
	T_EQ_STR("v5-upgraded-keeps-prediction",
		 q_text(db, "SELECT algorithm || ' ' || speedup || ' ' || quote(terms) || ' ' ||"
			    " quote(err_runs) FROM world_predictions"),
		 "all_scatter 1.19 NULL NULL");
	char *mine = shape(db);
	T_EQ_STR("v5-upgraded-shape-is-new-store", mine ? mine : "(none)", fresh_shape);
	free(mine);

	/* schema 7: two curves of one collective and W (the newer read), one of another */
	static const double b[] = { 1024, 8192, 65536 }, t1[] = { 2e-6, 4e-6, 2e-5 },
			    t2[] = { 1e-6, 3e-6, 1e-5 };
	rc = store_coll_curve_put(st, "node-1", "gpu", "2x H100", "all_gather", 2, "test", 10, b, t1,
				  3, err, sizeof err);
	rc |= store_coll_curve_put(st, "node-1", "gpu", "2x H100", "all_gather", 2, "test", 10, b, t2,
				   3, err, sizeof err);
	rc |= store_coll_curve_put(st, "node-1", "gpu", "2x H100", "all_reduce", 4, "test", 10, b, t1,
				   3, err, sizeof err);
	T_CHECK("v5-upgraded-curve-put", rc == FGO_OK, "rc %d: %s", rc, err);
	struct store_coll_curve curves[4];
	int n = 0;
	rc = store_coll_curves_get(st, "node-1", "gpu", curves, 4, &n, err, sizeof err);
	T_CHECK("v5-upgraded-curve-get",
		rc == FGO_OK && n == 2 && !strcmp(curves[0].collective, "all_gather") &&
			curves[0].world == 2 && curves[0].n == 3 && curves[0].seconds[2] == 1e-5 &&
			!strcmp(curves[1].collective, "all_reduce") && curves[1].world == 4,
		"rc %d, %d curves: %s", rc, n, err);
	/* refused: sizes out of order, W=1; nothing stored lost */
	static const double bad[] = { 8192, 1024, 65536 };
	rc = store_coll_curve_put(st, "node-1", "gpu", "", "all_gather", 2, "test", 10, bad, t1, 3,
				  err, sizeof err);
	T_CHECK("v5-curve-refuses-order", rc == FGO_EUSAGE, "rc %d", rc);
	T_CONTAINS("v5-curve-refuses-order-says", err, "is not a positive time at a size above the one before");
	rc = store_coll_curve_put(st, "node-1", "gpu", "", "all_gather", 1, "test", 10, b, t1, 3, err,
				  sizeof err);
	T_CHECK("v5-curve-refuses-w1", rc == FGO_EUSAGE, "rc %d", rc);
	T_EQ_INT("v5-curve-kept", q_int(db, "SELECT count(*) FROM coll_curve_points"), 9);
	/* a multi-GPU fit at two W, the newest of each read */
	struct store_world_fit f = { .algorithm = "all_scatter", .world = 2, .runs = 12,
				     .rms_rel_err = 0.08, .max_rel_err = 0.2,
				     .coef = { 1.1, 0.003, 0.9, 12, 0 }, .fitted = "gemm link tile wait" };
	rc = store_world_fit_put(st, "node-1", "gpu", "fit", &f, err, sizeof err);
	f.coef[0] = 1.2;
	rc |= store_world_fit_put(st, "node-1", "gpu", "fit", &f, err, sizeof err);
	f.world = 4;
	rc |= store_world_fit_put(st, "node-1", "gpu", "fit", &f, err, sizeof err);
	f.coef[1] = NAN;
	T_CHECK("v5-world-fit-refuses-nan", store_world_fit_put(st, "node-1", "gpu", "fit", &f, err,
								 sizeof err) == FGO_EUSAGE, "accepted");
	struct store_world_fit got[4];
	int ng = 0;
	rc |= store_world_fits_get(st, "node-1", "gpu", "all_scatter", got, 4, &ng, err, sizeof err);
	T_CHECK("v5-world-fit-get",
		rc == FGO_OK && ng == 2 && got[0].world == 2 && got[0].coef[0] == 1.2 &&
			got[1].world == 4 && !strcmp(got[0].fitted, "gemm link tile wait") &&
			got[0].runs == 12,
		"rc %d, %d fits: %s", rc, ng, err);
	T_EQ_STR("v5-upgraded-integrity", q_text(db, "PRAGMA integrity_check"), "ok");
	store_close(st);
}

/* The migration fails half-way (a table in its way): the transaction is
 * rolled back, the store is still a usable version 1, with all its rows. */
static void check_failed_upgrade(const char *schema)
{
	char p[512], err[512] = "";
	in_tmp(p, sizeof p, "v1-blocked.db");
	if (make_v1_store(p, schema) || raw_sql(p, "CREATE TABLE samples_v1 (x)")) {
		T_CHECK("v1-blocked-made", 0, "cannot make %s", p);
		return;
	}
	struct fgo_store *st = NULL;
	int rc = store_open(p, FGO_STORE_WRITE, &st, err, sizeof err);
	T_CHECK("v1-blocked-refused", rc == FGO_EFAIL && !st, "rc %d", rc);
	T_CONTAINS("v1-blocked-message", err, "db/migrations/2.sql");
	store_close(st);
	sqlite3 *raw = NULL;
	sqlite3_open(p, &raw);
	T_EQ_INT("v1-blocked-still-version-1", q_int(raw, "PRAGMA user_version"), 1);
	T_EQ_STR("v1-blocked-no-new-column",
		 q_text(raw, "SELECT count(*) FROM pragma_table_info('runs') WHERE name = 't_bulk_ms'"),
		 "0");
	T_EQ_INT("v1-blocked-samples-kept", q_int(raw, "SELECT count(*) FROM samples"), 15);
	sqlite3_close(raw);
}

/* A store newer than this fgobench: the usual refusal, nothing touched. */
static void check_newer(void)
{
	char p[512], err[512] = "", want[64];
	in_tmp(p, sizeof p, "v-next.db");
	struct fgo_store *st = NULL;
	if (store_open(p, FGO_STORE_WRITE, &st, err, sizeof err) == FGO_OK)
		store_close(st);
	char sql[64];
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", FGO_SCHEMA_VERSION + 1);
	raw_sql(p, sql);
	snprintf(want, sizeof want, "schema version %d", FGO_SCHEMA_VERSION + 1);
	for (int mode = 0; mode < 2; mode++) {
		struct snapshot before = snap(p);
		char id[64];
		st = NULL;
		err[0] = 0;
		int rc = store_open(p, (enum fgo_store_mode)mode, &st, err, sizeof err);
		snprintf(id, sizeof id, "newer-%s-refused", mode ? "write" : "read");
		T_CHECK(id, rc == FGO_EUSAGE && !st, "rc %d: %s", rc, err);
		snprintf(id, sizeof id, "newer-%s-message", mode ? "write" : "read");
		T_CONTAINS(id, err, want);
		snprintf(id, sizeof id, "newer-%s-unchanged", mode ? "write" : "read");
		T_CHECK(id, same_file(p, &before) && no_side_files(p), "%s changed", p);
		store_close(st);
		free(before.data);
	}
}

int main(void)
{
	if (fixture_begin("store-migrate"))
		return 1;
	char *schema = read_text(v1_schema_path);
	T_CHECK("v1-schema-file", schema != NULL, "cannot read %s (run from the repository root)",
		v1_schema_path);
	char path[512], fresh[512];
	in_tmp(path, sizeof path, "v1.db");
	in_tmp(fresh, sizeof fresh, "new.db");
	if (schema && make_v1_store(path, schema) == 0) {
		T_PASS("v1-store-made");
		char *before[FGO_ARRAY_SIZE(v1_tables)];
		sqlite3 *raw = NULL;
		sqlite3_open(path, &raw);
		for (size_t i = 0; i < FGO_ARRAY_SIZE(v1_tables); i++)
			before[i] = dump(raw, i);
		T_EQ_INT("v1-store-samples", q_int(raw, "SELECT count(*) FROM samples"), 15);
		sqlite3_close(raw);

		char err[256];
		struct fgo_store *st = NULL;
		char *fresh_shape = NULL;
		if (store_open(fresh, FGO_STORE_WRITE, &st, err, sizeof err) == FGO_OK) {
			fresh_shape = shape(store_db(st));
			store_close(st);
		}
		T_CONTAINS("new-store-has-bulk-kind", fresh_shape ? fresh_shape : "", "'bulk'");
		T_CONTAINS("new-store-has-detail", fresh_shape ? fresh_shape : "",
			   "detail TEXT 1 '' 0");
		check_read_copy(path, before);
		check_upgrade(path, before, fresh_shape ? fresh_shape : "(no new store)");
		check_from_v3(schema, fresh_shape ? fresh_shape : "(no new store)");
		check_from_v5(schema, fresh_shape ? fresh_shape : "(no new store)");
		check_runs_from(schema, fresh_shape ? fresh_shape : "(no new store)", 5);
		check_runs_from(schema, fresh_shape ? fresh_shape : "(no new store)", 7);
		free(fresh_shape);
		for (size_t i = 0; i < FGO_ARRAY_SIZE(v1_tables); i++)
			free(before[i]);
		check_failed_upgrade(schema);
	} else {
		T_CHECK("v1-store-made", 0, "cannot make a version-1 store at %s", path);
	}
	check_newer();
	free(schema);
	fixture_end();
	T_DONE();
}
