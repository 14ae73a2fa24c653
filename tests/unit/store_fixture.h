/* store_fixture.h: what the store tests share: a temporary directory,
 * file snapshots (to prove a refused store was not touched), raw SQL on a
 * file, typed queries, and a filled sweep and configuration. Included by
 * test_store.c and test_store_refuse.c only. */
#ifndef FGO_STORE_FIXTURE_H
#define FGO_STORE_FIXTURE_H

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
#include "store/store.h"
#include "testlib.h"

static char tmpdir[64];

static inline void in_tmp(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", tmpdir, name);
}

/* ---- files ---- */

struct snapshot {
	int exists;
	size_t len;
	char *data;
};

static inline struct snapshot snap(const char *path)
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

static inline int same_file(const char *path, const struct snapshot *before)
{
	struct snapshot now = snap(path);
	int same = now.exists == before->exists && now.len == before->len &&
		   (now.len == 0 || memcmp(now.data, before->data, now.len) == 0);
	free(now.data);
	return same;
}

static inline int exists(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0;
}

/* None of SQLite's side files next to path. */
static inline int no_side_files(const char *path)
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

static inline void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (f) {
		fwrite(data, 1, len, f);
		fclose(f);
	}
}

/* Runs sql on path with plain SQLite (not the store). */
static inline int raw_sql(const char *path, const char *sql)
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

static inline int rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* ---- queries ---- */

/* The first column of the first row as text, "(null)", "(no row)" or
 * "(error ...)". */
static inline const char *q_text(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline const char *q_text(sqlite3 *db, const char *fmt, ...)
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

static inline long long q_int(sqlite3 *db, const char *sql)
{
	const char *t = q_text(db, "%s", sql);
	char *end;
	long long v = strtoll(t, &end, 10);
	return *t && !*end ? v : -999999;
}

/* quote(expr) of one row of table: 'text', NULL, 12, 2.5. */
static inline void col_is(sqlite3 *db, const char *id, const char *table, int64_t rowid,
		   const char *expr, const char *want)
{
	char got[512];
	snprintf(got, sizeof got, "%s",
		 q_text(db, "SELECT quote(%s) FROM %s WHERE id = %lld", expr, table, (long long)rowid));
	T_EQ_STR(id, got, want);
}

static inline double col_real(sqlite3 *db, const char *table, int64_t rowid, const char *col)
{
	const char *t = q_text(db, "SELECT %s FROM %s WHERE id = %lld", col, table, (long long)rowid);
	char *end;
	double v = strtod(t, &end);
	return *t && !*end ? v : NAN;
}

/* A UTC ISO-8601 timestamp as store_timestamp writes it. */
static inline void is_timestamp(sqlite3 *db, const char *id, const char *table, int64_t rowid,
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

static inline struct fgo_sweep_info sweep_info(const char *tag, const char *hash)
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

static inline struct fgo_config config_m(long m)
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

static inline void set_timing(struct fgo_timing *t, const double *ms, int n)
{
	t->n = n;
	t->ms = malloc(sizeof *t->ms * (size_t)n);
	memcpy(t->ms, ms, sizeof *t->ms * (size_t)n);
	t->median = stats_median(ms, (size_t)n);
	t->min = stats_min(ms, (size_t)n);
	t->max = stats_max(ms, (size_t)n);
	t->stddev = stats_stddev(ms, (size_t)n);
}

static inline int64_t count(sqlite3 *db, const char *sql)
{
	return q_int(db, sql);
}

/* ---- the store in use ---- */


/* Creates the temporary directory; 0 on success. */
static inline int fixture_begin(const char *name)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/fgo-test-%s-XXXXXX", name);
	if (!mkdtemp(tmpdir)) {
		printf("FAIL mkdtemp: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* Removes it again, checking nothing is left. */
static inline void fixture_end(void)
{
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	T_CHECK("cleanup", !exists(tmpdir), "%s left behind", tmpdir);
}

#endif
