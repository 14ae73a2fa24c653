/* view_empty.c: what the views say when nothing matches (views.h): which
 * filter the store has nothing of, the values it does have, and "did you
 * mean" for a tag or an algorithm a letter or two off, so best, list,
 * plot, report and regress answer an empty result alike (exit 2). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "algo.h"
#include "fgo.h"
#include "sink.h"
#include "views/views.h"

/* The stored value of sql's first column (one row per distinct value)
 * closest to text by edit distance, into out ("" when none is close: at
 * most 2 edits, and fewer than the text has characters). */
static void closest(sqlite3 *db, const char *sql, const char *text, char *out, size_t len)
{
	sqlite3_stmt *st;
	int best = -1;
	int most = strlen(text) > 2 ? 2 : (int)strlen(text) - 1;
	out[0] = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);
		if (!v || !*v || !strcmp(v, text))
			continue;
		int d = edit_distance(text, v);
		if (d <= most && (best < 0 || d < best)) {
			best = d;
			snprintf(out, len, "%s", v);
		}
	}
	sqlite3_finalize(st);
}

/* " (did you mean \"X\"?)" for the closest of sql's values, or "". */
static void hint(sqlite3 *db, const char *sql, const char *text, char *out, size_t len)
{
	char near[256], shown[512];
	closest(db, sql, text, near, sizeof near);
	if (!near[0]) {
		snprintf(out, len, "%s", "");
		return;
	}
	sink_terminal(near, shown, sizeof shown); /* a stored name */
	snprintf(out, len, " (did you mean \"%s\"?)", shown);
}

void view_tag_hint(sqlite3 *db, const char *tag, char *out, size_t len)
{
	hint(db, "SELECT DISTINCT tag FROM sweeps WHERE tag IS NOT NULL", tag, out, len);
}

/* The number of ok runs matching sql's WHERE part with text (may be
 * NULL) or n bound as ?1; -1 when the store cannot say. */
static long count_ok(sqlite3 *db, const char *where, const char *text, long n)
{
	char sql[512];
	sqlite3_stmt *st;
	long c = -1;
	snprintf(sql, sizeof sql,
		 "SELECT count(*) FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
		 " WHERE r.status = 'ok' AND r.t_fused_ms > 0 AND %s", where);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (text)
		sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
	else if (sqlite3_bind_parameter_count(st) > 0)
		sqlite3_bind_int64(st, 1, n);
	if (sqlite3_step(st) == SQLITE_ROW)
		c = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return c;
}

/* The values sql gives (one row each), "128, 256, 512" (at most 8, then
 * "..."), into out; "" when none. */
static void stored_values(sqlite3 *db, const char *sql, char *out, size_t len)
{
	sqlite3_stmt *st;
	size_t at = 0;
	int n = 0;
	out[0] = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW && at < len) {
		const char *v = (const char *)sqlite3_column_text(st, 0);
		char shown[128];
		sink_terminal(v ? v : "", shown, sizeof shown);
		if (n++ == 8) {
			snprintf(out + at, len - at, ", ...");
			break;
		}
		at += (size_t)snprintf(out + at, len - at, "%s%s", at ? ", " : "", shown);
	}
	sqlite3_finalize(st);
}

/* The distinct values of a runs column among ok runs. */
static void run_values(sqlite3 *db, const char *col, char *out, size_t len)
{
	char sql[256];
	snprintf(sql, sizeof sql,
		 "SELECT DISTINCT %s FROM runs WHERE status = 'ok' AND t_fused_ms > 0 ORDER BY 1",
		 col);
	stored_values(db, sql, out, len);
}

/* The filters given, as flags: "--tag demo --m 512". */
static void filter_text(const struct view_filter *f, char *out, size_t len)
{
	char shown[256];
	size_t at = 0;
	out[0] = 0;
#define ADD(...) (at += at < len ? (size_t)snprintf(out + at, len - at, __VA_ARGS__) : 0)
	if (f->tag) {
		sink_terminal(f->tag, shown, sizeof shown);
		ADD(" --tag %s", shown);
	}
	if (f->algorithm) {
		sink_terminal(f->algorithm, shown, sizeof shown);
		ADD(" --algorithm %s", shown);
	}
	if (f->dtype)
		ADD(" --dtype %s", f->dtype);
	if (f->world > 0)
		ADD(" --world %d", f->world);
	if (f->m > 0)
		ADD(" --m %ld", f->m);
	if (f->n > 0)
		ADD(" --n %ld", f->n);
	if (f->k > 0)
		ADD(" --k %ld", f->k);
#undef ADD
}

void view_why_empty(sqlite3 *db, const char *path, const struct view_filter *f, char *why,
		    size_t len)
{
	static const struct {
		const char *flag, *col;
		size_t off; /* of the long in struct view_filter */
	} sizes[] = {
		{ "--m", "m", offsetof(struct view_filter, m) },
		{ "--n", "n", offsetof(struct view_filter, n) },
		{ "--k", "k", offsetof(struct view_filter, k) },
	};
	char more[512], shown[256], values[256];
	if (count_ok(db, "1 = 1", NULL, 0) == 0) {
		sqlite3_stmt *st;
		long runs = 0;
		if (sqlite3_prepare_v2(db, "SELECT count(*) FROM runs", -1, &st, NULL) == SQLITE_OK) {
			if (sqlite3_step(st) == SQLITE_ROW)
				runs = (long)sqlite3_column_int64(st, 0);
			sqlite3_finalize(st);
		}
		if (runs > 0)
			snprintf(why, len, "no ok runs in %s: none of its %ld run%s is ok (`fgobench list`"
				 " counts them by status, `fgobench show RUN` says why)", path, runs,
				 runs == 1 ? "" : "s");
		else
			snprintf(why, len, "no ok runs in %s yet (run a sweep: `fgobench sweep"
				 " sweeps/smoke.json`)", path);
		return;
	}
	if (f->tag && count_ok(db, "s.tag = ?1", f->tag, 0) == 0) {
		sink_terminal(f->tag, shown, sizeof shown);
		view_tag_hint(db, f->tag, more, sizeof more);
		if (!more[0]) {
			stored_values(db, "SELECT DISTINCT tag FROM sweeps WHERE tag IS NOT NULL"
				      " ORDER BY id DESC", values, sizeof values);
			snprintf(more, sizeof more, values[0] ? " (its tags, newest first: %s)"
				 : " (none of its sweeps has a tag)", values);
		}
		snprintf(why, len, "no ok runs tagged \"%s\" in %s%s", shown, path, more);
		return;
	}
	if (f->algorithm && count_ok(db, "r.algorithm = ?1", f->algorithm, 0) == 0) {
		sink_terminal(f->algorithm, shown, sizeof shown);
		if (count_ok(db, "r.algorithm = 'user:' || ?1", f->algorithm, 0) > 0)
			snprintf(more, sizeof more, " (did you mean \"user:%s\"? a user kernel's"
				 " runs are stored under user:NAME)", shown);
		else
			hint(db, "SELECT DISTINCT algorithm FROM runs WHERE status = 'ok'",
			     f->algorithm, more, sizeof more);
		/* a user kernel's name need not be known to this build */
		snprintf(why, len, "no ok runs of algorithm \"%s\" in %s%s%s", shown, path, more,
			 algo_find(f->algorithm) || !strncmp(f->algorithm, "user:", 5)
				 ? ""
				 : ", and fgobench knows no algorithm of that name (`fgobench info`"
				   " lists them)");
		return;
	}
	if (f->dtype && count_ok(db, "r.dtype = ?1", f->dtype, 0) == 0) {
		run_values(db, "dtype", values, sizeof values);
		snprintf(why, len, "no ok %s runs in %s (it has %s)", f->dtype, path, values);
		return;
	}
	if (f->world > 0 && count_ok(db, "r.world = ?1", NULL, f->world) == 0) {
		run_values(db, "world", values, sizeof values);
		snprintf(why, len, "no ok runs at world size %d in %s (it has W = %s)", f->world, path,
			 values);
		return;
	}
	for (size_t i = 0; i < FGO_ARRAY_SIZE(sizes); i++) {
		long v = *(const long *)((const char *)f + sizes[i].off);
		char where[32];
		snprintf(where, sizeof where, "r.%s = ?1", sizes[i].col);
		if (v > 0 && count_ok(db, where, NULL, v) == 0) {
			run_values(db, sizes[i].col, values, sizeof values);
			snprintf(why, len, "no ok runs with %c = %ld in %s (it has %c = %s)",
				 sizes[i].col[0] - 'a' + 'A', v, path, sizes[i].col[0] - 'a' + 'A',
				 values);
			return;
		}
	}
	filter_text(f, values, sizeof values);
	snprintf(why, len, "no ok run in %s matches%s together (each alone matches runs; `fgobench"
		 " best` with fewer of them shows what there is)", path, values);
}
