/* test_store_merge.c: store_merge (`fgobench merge`) on stores filled with
 * every table, their ids overlapping: each table of the output is the union
 * of the sources' read through its parents (so every id was remapped and
 * every foreign key kept), merging again adds nothing, a sweep in another
 * state is refused, an older schema is read upgraded, and an output that is
 * a link, not a store or not writable is refused with nothing written. */
#include <dirent.h>
#include <sqlite3.h>

#include "store_fixture.h"

/* Every table of the schema, ids from 1 in each store. @H is the host, @V a
 * number that makes this store's values its own. */
static const char fill_sql[] =
	"INSERT INTO sweeps (tag, spec_name, spec_hash, spec_text, command_line, host,"
	"  fgobench_version, git_revision, backend, devices, driver, runtime, arch, mpi_ranks,"
	"  iterations, warmup, started_at, ended_at, status) VALUES"
	" ('n1', 'nightly', 'h1', '{}', 'fgobench sweep nightly.json', '@H', '0.1.0', 'rev@V-1',"
	"  'cpu', 'dev @H', 'drv', 'mpi', 'x86_64', 2, 3, 1, '2026-12-01T01:00:00Z',"
	"  '2026-12-01T01:10:00Z', 'done'),"
	" ('n2', 'nightly', 'h1', '{}', 'fgobench sweep nightly.json', '@H', '0.1.0', 'rev@V-2',"
	"  'cpu', 'dev @H', 'drv', 'mpi', 'x86_64', 2, 3, 1, '2026-12-02T01:00:00Z',"
	"  '2026-12-02T01:10:00Z', 'done');"
	/* a gap in the ids, so old and new ids cannot line up by chance */
	"INSERT INTO problems (id, sweep_id, algorithm, dtype, world, m, n, k, seed, t_baseline_ms)"
	" VALUES (3, 1, 'all_scatter', 'fp16', 2, 256, 256, 128, 's@V-1', 3.@V),"
	" (7, 2, 'all_scatter', 'fp16', 2, 256, 256, 128, 's@V-2', 4.@V),"
	" (9, 2, 'all_scatter', 'fp16', 2, 512, 256, 128, 's@V-3', 5.@V);"
	"INSERT INTO problem_samples (problem_id, kind, iteration, ms) VALUES"
	" (3, 'baseline', 1, 3.@V), (3, 'baseline', 2, 3.1), (7, 'baseline', 1, 4.@V),"
	" (9, 'baseline', 1, 5.@V);"
	"INSERT INTO runs (id, sweep_id, config_key, config_hash, algorithm, dtype, world, m, n, k,"
	"  blk_m, blk_n, blk_k, num_stages, num_warps, mma, gsize_m, gemm_sms, comm_sms, comm_blk_m,"
	"  comm_blk_n, status, t_fused_ms, problem_id, started_at, ended_at) VALUES"
	" (2, 1, 'k/a', 'ha', 'all_scatter', 'fp16', 2, 256, 256, 128, 32, 32, 32, 2, 4, 16, 8, 0,"
	"  0, 0, 0, 'ok', 1.@V, 3, '2026-12-01T01:00:01Z', '2026-12-01T01:00:02Z'),"
	" (5, 1, 'k/b', 'hb', 'all_scatter', 'fp16', 2, 256, 256, 128, 64, 32, 32, 2, 4, 16, 8, 0,"
	"  0, 0, 0, 'failed', NULL, 3, '2026-12-01T01:00:03Z', '2026-12-01T01:00:04Z'),"
	" (6, 2, 'k/a', 'ha', 'all_scatter', 'fp16', 2, 256, 256, 128, 32, 32, 32, 2, 4, 16, 8, 0,"
	"  0, 0, 0, 'ok', 2.@V, 7, '2026-12-02T01:00:01Z', '2026-12-02T01:00:02Z'),"
	" (8, 2, 'k/c', 'hc', 'all_scatter', 'fp16', 2, 512, 256, 128, 32, 32, 32, 2, 4, 16, 8, 0,"
	"  0, 0, 0, 'ok', 3.@V, 9, '2026-12-02T01:00:03Z', '2026-12-02T01:00:04Z'),"
	" (11, 2, 'k/d', 'hd', 'all_scatter', 'fp16', 2, 16, 256, 128, 64, 32, 32, 2, 4, 16, 8, 0,"
	"  0, 0, 0, 'invalid', NULL, NULL, '2026-12-02T01:00:05Z', '2026-12-02T01:00:05Z');"
	"INSERT INTO samples (run_id, kind, iteration, ms) VALUES"
	" (2, 'fused', 1, 1.@V), (2, 'fused', 2, 1.2), (2, 'gemm', 1, 0.@V),"
	" (6, 'fused', 1, 2.@V), (6, 'bulk', 1, 2.5), (8, 'fused', 1, 3.@V), (8, 'fused', 2, 3.3);"
	"INSERT INTO traces (run_id, file, traced_at, world, ctas, events, dropped, tiles, gemm_pct)"
	" VALUES (6, 'trace-@H.json', '2026-12-02T02:00:00Z', 2, 8, 100, 0, 16, 6@V.5),"
	" (8, 'trace2-@H.json', '2026-12-02T02:00:00Z', 2, 8, 90, 1, 16, 5@V.5);"
	"INSERT INTO trace_ranks (run_id, rank, start_us, end_us) VALUES"
	" (6, 0, 0.@V, 10), (6, 1, 0.5, 11), (8, 0, 1.@V, 12);"
	"INSERT INTO trace_waits (run_id, rank, peer, wait_us, waits) VALUES"
	" (6, 0, 1, 2.@V, 3), (6, 1, 0, 1.5, 2), (8, 1, -1, 0.@V, 1);"
	"INSERT INTO ceilings (machine, backend, what, dtype, value, unit, measured_at) VALUES"
	" ('@H', 'cpu', 'matrix_peak', 'fp16', 0.@V, 'TFLOP/s', '2026-11-30T00:00:00Z'),"
	" ('@H', 'cpu', 'link_bw', '', 2@V.0, 'GB/s', '2026-11-30T00:00:00Z');"
	"INSERT INTO model_fits (machine, backend, core, source, runs, rms_rel_err, median_rel_err,"
	"  max_rel_err, c_launch, c_compute, c_memory, c_reuse, c_units, c_stall, c_exchange, c_comm,"
	"  peak_fp32, peak_fp16, peak_bf16, memory_gbps, link_gbps, cus, fitted_at) VALUES"
	" ('@H', 'cpu', 'simt', 'fit', 12, 0.1, 0.05, 0.3, 0.@V, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 10,"
	"  20, 1, '2026-11-30T00:00:00Z');"
	"INSERT INTO world_fits (machine, backend, algorithm, world, source, runs, rms_rel_err,"
	"  max_rel_err, c_gemm, c_link, c_tile, c_wait, c_reduce, fitted, fitted_at) VALUES"
	" ('@H', 'cpu', 'all_scatter', 2, 'fit', 5, 0.1, 0.2, 1.@V, 1, 1, 1, 1, 'gemm link',"
	"  '2026-11-30T00:00:00Z');"
	"INSERT INTO world_predictions (made_at, machine, backend, algorithm, dtype, world, m, n, k,"
	"  gemm_m, gemm_n, gemm_k, gemm_ms, gemm_source, link_gbps, link_source, comm_bytes, comm_ms,"
	"  reduce_ms, fused_ms, baseline_ms, speedup, terms) VALUES"
	" ('2026-11-30T00:00:00Z', '@H', 'cpu', 'all_scatter', 'fp16', 4, 256, 256, 128, 256, 64,"
	"  128, 1, 'model', 20, 'measured', 1000, 0.1, 0, 1.@V, 1.5, 1.2, 'gemm fitted');"
	"INSERT INTO read_floors (id, machine, backend, devices, method, repetitions, measured_at)"
	" VALUES (4, '@H', 'cpu', 'dev @H', 'clock', 3, '2026-11-30T00:00:00Z');"
	"INSERT INTO read_floor_points (floor_id, bytes, seconds) VALUES"
	" (4, 1024, 1e-6), (4, 65536, @Ve-5);"
	"INSERT INTO coll_curves (id, machine, backend, devices, collective, world, method,"
	"  repetitions, measured_at) VALUES"
	" (2, '@H', 'cpu', 'dev @H', 'all_gather', 2, 'MPI', 3, '2026-11-30T00:00:00Z');"
	"INSERT INTO coll_curve_points (curve_id, bytes, seconds) VALUES"
	" (2, 4096, 2e-6), (2, 1048576, @Ve-4);";

/* fill_sql with host and v put in. */
static char *fill_text(const char *host, int v)
{
	size_t cap = sizeof fill_sql * 2, at = 0;
	char *out = malloc(cap);
	for (const char *p = fill_sql; out && *p; p++) {
		if (at + 64 >= cap)
			out = realloc(out, cap *= 2);
		if (out && p[0] == '@' && p[1] == 'H') {
			at += (size_t)snprintf(out + at, cap - at, "%s", host);
			p++;
		} else if (out && p[0] == '@' && p[1] == 'V') {
			at += (size_t)snprintf(out + at, cap - at, "%d", v);
			p++;
		} else if (out) {
			out[at++] = *p;
		}
	}
	if (out)
		out[at] = 0;
	return out;
}

/* A store of this build's schema at path, filled for host. */
static int make_store(const char *path, const char *host, int v)
{
	char err[256];
	struct fgo_store *st = NULL;
	if (store_open(path, FGO_STORE_WRITE, &st, err, sizeof err) != FGO_OK) {
		printf("note: %s\n", err);
		return -1;
	}
	store_close(st);
	char *sql = fill_text(host, v);
	int rc = sql ? raw_sql(path, sql) : -1;
	free(sql);
	return rc;
}

/* Each table read through its parents by natural keys (X: the schema name). */
static const char *const views[] = {
	"SELECT tag, spec_name, spec_hash, spec_text, command_line, host, fgobench_version,"
	" git_revision, backend, devices, driver, runtime, arch, mpi_ranks, iterations, warmup,"
	" started_at, ended_at, status FROM X.sweeps",
	"SELECT s.host, s.tag, s.started_at, r.config_key, r.status, r.t_fused_ms, r.started_at,"
	" r.ended_at, p.m, p.seed, p.sweep_id = r.sweep_id FROM X.runs r"
	" JOIN X.sweeps s ON s.id = r.sweep_id LEFT JOIN X.problems p ON p.id = r.problem_id",
	"SELECT s.host, s.tag, p.algorithm, p.world, p.m, p.n, p.k, p.seed, p.t_baseline_ms"
	" FROM X.problems p JOIN X.sweeps s ON s.id = p.sweep_id",
	"SELECT s.host, s.tag, p.m, x.kind, x.iteration, x.ms FROM X.problem_samples x"
	" JOIN X.problems p ON p.id = x.problem_id JOIN X.sweeps s ON s.id = p.sweep_id",
	"SELECT s.host, s.tag, r.config_key, x.kind, x.iteration, x.ms FROM X.samples x"
	" JOIN X.runs r ON r.id = x.run_id JOIN X.sweeps s ON s.id = r.sweep_id",
	"SELECT s.host, s.tag, r.config_key, t.file, t.ctas, t.gemm_pct FROM X.traces t"
	" JOIN X.runs r ON r.id = t.run_id JOIN X.sweeps s ON s.id = r.sweep_id",
	"SELECT s.host, s.tag, r.config_key, t.rank, t.start_us FROM X.trace_ranks t"
	" JOIN X.traces tr ON tr.run_id = t.run_id"
	" JOIN X.runs r ON r.id = t.run_id JOIN X.sweeps s ON s.id = r.sweep_id",
	"SELECT s.host, s.tag, r.config_key, t.rank, t.peer, t.wait_us FROM X.trace_waits t"
	" JOIN X.runs r ON r.id = t.run_id JOIN X.sweeps s ON s.id = r.sweep_id",
	"SELECT machine, backend, what, dtype, value, unit, measured_at, detail FROM X.ceilings",
	"SELECT machine, core, runs, c_launch, fitted_at FROM X.model_fits",
	"SELECT machine, algorithm, world, c_gemm, fitted FROM X.world_fits",
	"SELECT machine, algorithm, m, fused_ms, terms FROM X.world_predictions",
	"SELECT f.machine, f.devices, p.bytes, p.seconds FROM X.read_floor_points p"
	" JOIN X.read_floors f ON f.id = p.floor_id",
	"SELECT c.machine, c.collective, p.bytes, p.seconds FROM X.coll_curve_points p"
	" JOIN X.coll_curves c ON c.id = p.curve_id",
};

/* views[i] over schema name. */
static char *view_over(size_t i, const char *name)
{
	size_t cap = strlen(views[i]) * 4 + 64, at = 0;
	char *out = malloc(cap);
	for (const char *p = views[i]; *p; p++)
		if (p[0] == 'X' && p[1] == '.')
			at += (size_t)snprintf(out + at, cap - at, "%s", name), p++;
		else
			out[at++] = *p;
	out[at] = 0;
	return out;
}

/* Rows of a, or of a EXCEPT b; -1 when the query fails. */
static long long count_of(sqlite3 *db, const char *a, const char *b)
{
	char *sql = b ? sqlite3_mprintf("SELECT count(*) FROM (%s EXCEPT SELECT * FROM (%s))", a, b)
		      : sqlite3_mprintf("SELECT count(*) FROM (%s)", a);
	sqlite3_stmt *q;
	long long n = -1;
	if (sql && sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK) {
		if (sqlite3_step(q) == SQLITE_ROW)
			n = sqlite3_column_int64(q, 0);
		sqlite3_finalize(q);
	} else {
		printf("note: %s\n", sqlite3_errmsg(db));
	}
	sqlite3_free(sql);
	return n;
}

/* Checks that every view of out is exactly the union of the sources'
 * (attached as s0, s1, ...): no row missing, none added, none twice. */
static void check_union(const char *id, const char *out, const char *const *src, int n)
{
	sqlite3 *db = NULL;
	sqlite3_open(out, &db);
	for (int i = 0; i < n; i++) {
		char sql[600];
		snprintf(sql, sizeof sql, "ATTACH '%s' AS s%d", src[i], i);
		sqlite3_exec(db, sql, NULL, NULL, NULL);
	}
	for (size_t v = 0; v < FGO_ARRAY_SIZE(views); v++) {
		char *mine = view_over(v, "main."), all[8192] = "", name[8], check[64];
		for (int i = 0; i < n; i++) {
			snprintf(name, sizeof name, "s%d.", i);
			char *theirs = view_over(v, name);
			snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s",
				 i ? " UNION ALL " : "", theirs);
			free(theirs);
		}
		long long got = count_of(db, mine, NULL), want = count_of(db, all, NULL);
		long long extra = count_of(db, mine, all), lost = count_of(db, all, mine);
		snprintf(check, sizeof check, "%s.%zu", id, v);
		T_CHECK(check, got == want && want > 0 && extra == 0 && lost == 0,
			"view %zu (%.60s...): %lld rows, want %lld; %lld not in the sources, %lld lost",
			v, views[v] + 7, got, want, extra, lost);
		free(mine);
	}
	T_EQ_STR(id, q_text(db, "PRAGMA main.foreign_key_check"), "(no row)");
	T_EQ_STR(id, q_text(db, "PRAGMA main.integrity_check"), "ok");
	sqlite3_close(db);
}

/* A digest of everything a view shows of path, to prove it unchanged. */
static unsigned long long content(const char *path)
{
	sqlite3 *db = NULL;
	unsigned long long h = 0;
	sqlite3_open(path, &db);
	for (size_t v = 0; v < FGO_ARRAY_SIZE(views); v++) {
		char *sql = view_over(v, "main.");
		sqlite3_stmt *q;
		if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK) {
			while (sqlite3_step(q) == SQLITE_ROW)
				for (int c = 0; c < sqlite3_column_count(q); c++) {
					const unsigned char *t = sqlite3_column_text(q, c);
					h = h * 1099511628211ULL + (t ? fnv1a64(t, strlen((const char *)t)) : 7);
				}
			sqlite3_finalize(q);
		}
		free(sql);
	}
	sqlite3_close(db);
	return h;
}

static long long rows(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_open(path, &db);
	long long n = q_int(db, sql);
	sqlite3_close(db);
	return n;
}

/* No OUT.merge-* temporary left in the test's folder. */
static int temporaries(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		n += strstr(e->d_name, ".merge-") != NULL;
	if (d)
		closedir(d);
	return n;
}

static int merge(const char *out, struct store_merge_source *s, const char *const *paths, int n,
		 int dry_run, struct store_merge_total *t, char *err, size_t len)
{
	for (int i = 0; i < n; i++)
		s[i].path = paths[i];
	return store_merge(out, s, n, dry_run, t, err, len);
}

int main(void)
{
	if (fixture_begin("store-merge"))
		return 1;
	char a[512], b[512], out[512], out2[512], err[1024];
	in_tmp(a, sizeof a, "a.db");
	in_tmp(b, sizeof b, "b.db");
	in_tmp(out, sizeof out, "all.db");
	in_tmp(out2, sizeof out2, "twice.db");
	T_CHECK("merge-0.1 sources made", make_store(a, "ci-a", 1) == 0 && make_store(b, "ci-b", 2) == 0,
		"cannot fill %s, %s", a, b);
	struct store_merge_source s[4];
	struct store_merge_total t;
	const char *ab[] = { a, b };

	/* 1: two machines into a new store */
	struct snapshot sa = snap(a), sb = snap(b);
	int rc = merge(out, s, ab, 2, 0, &t, err, sizeof err);
	T_CHECK("merge-1.1 merged", rc == FGO_OK, "rc %d: %s", rc, err);
	T_CHECK("merge-1.2 counts", t.created == 1 && t.sweeps == 4 && t.hosts == 2 &&
		s[0].sweeps_added == 2 && s[1].sweeps_added == 2 && s[0].runs_added == 5 &&
		s[1].runs_added == 5 && s[0].rows_added == 7 && s[1].rows_added == 7 &&
		s[0].sweeps_there + s[1].sweeps_there + s[0].rows_there == 0,
		"created %d, %ld sweeps of %ld hosts; added %ld+%ld sweeps, %ld+%ld runs, %ld+%ld rows",
		t.created, t.sweeps, t.hosts, s[0].sweeps_added, s[1].sweeps_added, s[0].runs_added,
		s[1].runs_added, s[0].rows_added, s[1].rows_added);
	T_EQ_STR("merge-1.3 hosts", t.host_list, "ci-a, ci-b");
	T_CHECK("merge-1.4 source facts", s[0].version == FGO_SCHEMA_VERSION &&
		!strcmp(s[0].hosts, "ci-a") && !strcmp(s[1].hosts, "ci-b") && !s[0].is_output,
		"version %d, hosts \"%s\" \"%s\"", s[0].version, s[0].hosts, s[1].hosts);
	check_union("merge-1.5 every table the union, through its parents", out, ab, 2);
	/* sweeps oldest first: the two n1 sweeps (same start) before the n2 ones */
	{
		sqlite3 *db = NULL;
		sqlite3_open(out, &db);
		T_EQ_STR("merge-1.6 sweeps in order of start",
			 q_text(db, "SELECT group_concat(tag || '@' || host, ' ') FROM"
				" (SELECT * FROM sweeps ORDER BY id)"),
			 "n1@ci-a n1@ci-b n2@ci-a n2@ci-b");
		char meta[64];
		snprintf(meta, sizeof meta, "application=fgobench schema_version=%d", FGO_SCHEMA_VERSION);
		T_EQ_STR("merge-1.7 the store's own meta", q_text(db, "SELECT group_concat(key || '='"
			 " || value, ' ') FROM (SELECT * FROM meta ORDER BY key)"), meta);
		sqlite3_close(db);
	}
	T_CHECK("merge-1.8 sources untouched, no temporary left",
		same_file(a, &sa) && same_file(b, &sb) && !temporaries() && no_side_files(out),
		"a source changed or %d temporaries left", temporaries());

	/* 2: again, into the same store, and a store merged with itself */
	unsigned long long before = content(out);
	rc = merge(out, s, ab, 2, 0, &t, err, sizeof err);
	T_CHECK("merge-2.1 again adds nothing", rc == FGO_OK && t.created == 0 &&
		s[0].sweeps_added + s[1].sweeps_added + s[0].rows_added + s[1].rows_added == 0 &&
		s[0].sweeps_there == 2 && s[1].sweeps_there == 2 && s[0].rows_there == 7 &&
		content(out) == before && rows(out, "SELECT count(*) FROM runs") == 10,
		"rc %d (%s): added %ld+%ld sweeps, %ld+%ld rows; there %ld+%ld", rc, err,
		s[0].sweeps_added, s[1].sweeps_added, s[0].rows_added, s[1].rows_added,
		s[0].sweeps_there, s[1].sweeps_there);
	const char *aa[] = { a, a };
	rc = merge(out2, s, aa, 2, 0, &t, err, sizeof err);
	T_CHECK("merge-2.2 the same store twice", rc == FGO_OK && s[0].sweeps_added == 2 &&
		s[1].sweeps_added == 0 && s[1].sweeps_there == 2 && s[1].rows_there == 7 &&
		rows(out2, "SELECT count(*) FROM samples") == 7, "rc %d (%s)", rc, err);
	check_union("merge-2.3 once", out2, aa, 1);
	const char *self[] = { out, a };
	rc = merge(out, s, self, 2, 0, &t, err, sizeof err);
	T_CHECK("merge-2.4 the output as a source is not read", rc == FGO_OK && s[0].is_output &&
		s[1].sweeps_there == 2 && content(out) == before, "rc %d (%s)", rc, err);

	/* 3: the same sweep in another state. Merged while it ran (one run
	 * done, one started), then merged done: updated in place, its id kept */
	char live[512];
	in_tmp(live, sizeof live, "live.db");
	make_store(live, "ci-l", 4);
	raw_sql(live, "DELETE FROM trace_waits; DELETE FROM trace_ranks; DELETE FROM traces;"
		      " DELETE FROM samples WHERE run_id <> 2; DELETE FROM runs WHERE sweep_id = 2;"
		      " DELETE FROM problem_samples WHERE problem_id <> 3;"
		      " DELETE FROM problems WHERE sweep_id = 2; DELETE FROM sweeps WHERE id = 2;"
		      " UPDATE runs SET status = 'started', ended_at = NULL, t_fused_ms = NULL"
		      "  WHERE id = 5; UPDATE sweeps SET status = 'running', ended_at = NULL");
	char steps[512];
	in_tmp(steps, sizeof steps, "steps.db");
	const char *running[] = { live, b };
	rc = merge(steps, s, running, 2, 0, &t, err, sizeof err);
	long long id_live = rows(steps, "SELECT id FROM sweeps WHERE host = 'ci-l'");
	T_CHECK("merge-3.1 a running sweep is added", rc == FGO_OK && s[0].sweeps_added == 1 &&
		s[0].running == 1 && s[0].runs_added == 2 && id_live == 1, "rc %d (%s)", rc, err);
	raw_sql(live, "UPDATE runs SET status = 'ok', ended_at = '2026-12-01T01:00:09Z',"
		      " t_fused_ms = 1.75 WHERE id = 5; INSERT INTO samples VALUES (5, 'fused', 1, 1.75);"
		      " UPDATE sweeps SET status = 'done', ended_at = '2026-12-01T01:10:00Z'");
	rc = merge(steps, s, running, 1, 0, &t, err, sizeof err);
	T_CHECK("merge-3.2 merged again once done: updated, its id kept", rc == FGO_OK &&
		s[0].sweeps_updated == 1 && s[0].sweeps_added == 0 && s[0].runs_added == 0 &&
		s[0].running == 0 &&
		rows(steps, "SELECT id FROM sweeps WHERE host = 'ci-l' AND status = 'done'") == 1 &&
		rows(steps, "SELECT count(*) FROM sweeps") == 3, "rc %d (%s)", rc, err);
	check_union("merge-3.3 the update is the source's sweep whole", steps, running, 2);
	/* an older copy of a sweep the output holds later: kept as it is */
	unsigned long long done_state = content(steps);
	raw_sql(live, "UPDATE runs SET status = 'started', ended_at = NULL, t_fused_ms = NULL"
		      "  WHERE id = 5; DELETE FROM samples WHERE run_id = 5;"
		      " UPDATE sweeps SET status = 'running', ended_at = NULL");
	rc = merge(steps, s, running, 1, 0, &t, err, sizeof err);
	T_CHECK("merge-3.4 an earlier state is not taken back", rc == FGO_OK &&
		s[0].sweeps_there == 1 && s[0].sweeps_updated == 0 && content(steps) == done_state,
		"rc %d (%s)", rc, err);
	/* copies that each have a finished run the other lacks: refused */
	char a2[512];
	in_tmp(a2, sizeof a2, "a2.db");
	make_store(a2, "ci-a", 1);
	raw_sql(a2, "UPDATE runs SET status = 'ok', t_fused_ms = 9 WHERE id = 5;"
		    " UPDATE sweeps SET ended_at = '2026-12-01T02:00:00Z' WHERE id = 1");
	const char *retried[] = { a2 };
	rc = merge(out, s, retried, 1, 0, &t, err, sizeof err);
	T_CHECK("merge-3.5 copies that disagree are refused", rc == FGO_EUSAGE &&
		strstr(err, "each copy with runs the other lacks") &&
		strstr(err, "nothing was written") && content(out) == before, "rc %d: %s", rc, err);
	/* another round that started the same second: no finished run shared */
	raw_sql(a2, "DELETE FROM trace_waits; DELETE FROM trace_ranks; DELETE FROM traces;"
		    " DELETE FROM samples; UPDATE runs SET started_at = '2026-12-01T03:00:00Z',"
		    " ended_at = '2026-12-01T03:00:01Z', t_fused_ms = 8.5");
	rc = merge(out, s, retried, 1, 0, &t, err, sizeof err);
	T_CHECK("merge-3.6 another round that started the same second is added", rc == FGO_OK &&
		s[0].sweeps_added == 2 && s[0].sweeps_there == 0 && s[0].rows_there == 7 &&
		rows(out, "SELECT count(*) FROM sweeps WHERE host = 'ci-a' AND tag = 'n1'") == 2,
		"rc %d (%s): %ld added, %ld there", rc, err, s[0].sweeps_added, s[0].sweeps_there);

	/* 4: an older schema, read upgraded and left as it is */
	char v1[512], *schema = NULL;
	in_tmp(v1, sizeof v1, "v1.db");
	struct snapshot sv = snap("tests/unit/schema_v1.sql");
	if (sv.exists && (schema = realloc(sv.data, sv.len + 1)))
		schema[sv.len] = 0;
	T_CHECK("merge-4.0 schema 1", schema && raw_sql(v1, schema) == SQLITE_OK &&
		raw_sql(v1, "INSERT INTO meta VALUES ('application', 'fgobench'),"
			    " ('schema_version', '1'); PRAGMA user_version = 1;"
			    "INSERT INTO sweeps (id, tag, host, started_at, status, spec_hash) VALUES"
			    " (1, 'old', 'ci-old', '2026-11-01T00:00:00Z', 'done', 'h0');"
			    "INSERT INTO runs (id, sweep_id, config_key, config_hash, algorithm, dtype,"
			    " world, m, n, k, blk_m, blk_n, blk_k, num_stages, num_warps, mma, gsize_m,"
			    " gemm_sms, comm_sms, comm_blk_m, comm_blk_n, status, t_fused_ms, started_at)"
			    " VALUES (1, 1, 'k/old', 'ho', 'all_scatter', 'fp16', 2, 64, 64, 64, 32, 32,"
			    " 32, 2, 4, 16, 8, 0, 0, 0, 0, 'ok', 1.5, '2026-11-01T00:00:01Z');"
			    "INSERT INTO samples VALUES (1, 'fused', 1, 1.5), (1, 'fused', 2, 1.6);"
			    "INSERT INTO ceilings (machine, backend, what, dtype, value, unit,"
			    " measured_at) VALUES ('ci-old', 'cpu', 'link_bw', '', 3, 'GB/s',"
			    " '2026-11-01T00:00:00Z');") == SQLITE_OK, "cannot make %s", v1);
	free(schema);
	struct snapshot s1 = snap(v1);
	const char *old[] = { v1 };
	rc = merge(out, s, old, 1, 0, &t, err, sizeof err);
	T_CHECK("merge-4.1 schema 1 merged", rc == FGO_OK && s[0].version == 1 &&
		s[0].sweeps_added == 1 && s[0].runs_added == 1 && s[0].rows_added == 1 &&
		same_file(v1, &s1) && no_side_files(v1), "rc %d (%s), version %d", rc, err, s[0].version);
	{
		sqlite3 *db = NULL;
		sqlite3_open(out, &db);
		T_EQ_STR("merge-4.2 its run with the new columns' defaults",
			 q_text(db, "SELECT r.split_k || ' ' || r.cluster || ' ' || count(x.ms) FROM runs r"
				" JOIN sweeps s ON s.id = r.sweep_id JOIN samples x ON x.run_id = r.id"
				" WHERE s.host = 'ci-old'"), "1 1 2");
		T_EQ_STR("merge-4.3 checks", q_text(db, "PRAGMA integrity_check"), "ok");
		T_EQ_STR("merge-4.3 checks", q_text(db, "PRAGMA foreign_key_check"), "(no row)");
		sqlite3_close(db);
	}

	/* 5: refusals, nothing written */
	char link_path[512], text[512], missing[512], newer[512], dry[512];
	in_tmp(link_path, sizeof link_path, "link.db");
	in_tmp(text, sizeof text, "notes.txt");
	in_tmp(missing, sizeof missing, "missing.db");
	in_tmp(newer, sizeof newer, "newer.db");
	in_tmp(dry, sizeof dry, "dry.db");
	before = content(out);
	T_CHECK("merge-5.0 link made", symlink(out, link_path) == 0, "symlink: %s", strerror(errno));
	rc = merge(link_path, s, ab, 2, 0, &t, err, sizeof err);
	T_CHECK("merge-5.1 an output that is a link", rc == FGO_EUSAGE &&
		strstr(err, "symbolic link") && content(out) == before, "rc %d: %s", rc, err);
	write_file(text, "notes\n", 6);
	struct snapshot st = snap(text);
	rc = merge(text, s, ab, 2, 0, &t, err, sizeof err);
	T_CHECK("merge-5.2 an output that is not a store", rc == FGO_EUSAGE &&
		strstr(err, "not a fgobench store") && same_file(text, &st), "rc %d: %s", rc, err);
	free(st.data);
	const char *gone[] = { a, missing };
	rc = merge(dry, s, gone, 2, 0, &t, err, sizeof err);
	T_CHECK("merge-5.3 a missing source", rc == FGO_EUSAGE && strstr(err, missing) &&
		!exists(dry) && !temporaries(), "rc %d: %s", rc, err);
	make_store(newer, "ci-n", 3);
	raw_sql(newer, "PRAGMA user_version = 99");
	const char *ahead[] = { newer };
	rc = merge(out, s, ahead, 1, 0, &t, err, sizeof err);
	T_CHECK("merge-5.4 a newer source", rc == FGO_EUSAGE && strstr(err, "schema version 99") &&
		content(out) == before, "rc %d: %s", rc, err);
	char nodir[512];
	in_tmp(nodir, sizeof nodir, "no/such/dir/all.db");
	rc = merge(nodir, s, ab, 2, 0, &t, err, sizeof err);
	T_CHECK("merge-5.5 an output folder that is not there", rc == FGO_EUSAGE &&
		strstr(err, "cannot write"), "rc %d: %s", rc, err);

	/* 6: a dry run says what it would add and writes nothing */
	rc = merge(dry, s, ab, 2, 1, &t, err, sizeof err);
	T_CHECK("merge-6.1 dry run into a new file", rc == FGO_OK && t.created && t.sweeps == 4 &&
		s[1].sweeps_added == 2 && !exists(dry) && !temporaries(), "rc %d (%s)", rc, err);
	char c[512];
	in_tmp(c, sizeof c, "c.db");
	make_store(c, "ci-c", 3);
	const char *more[] = { c };
	rc = merge(out, s, more, 1, 1, &t, err, sizeof err);
	T_CHECK("merge-6.2 dry run into a store", rc == FGO_OK && !t.created &&
		s[0].sweeps_added == 2 && content(out) == before &&
		rows(out, "SELECT count(DISTINCT host) FROM sweeps") == 3, "rc %d (%s)", rc, err);

	free(sa.data);
	free(sb.data);
	free(s1.data);
	fixture_end();
	T_DONE();
}
