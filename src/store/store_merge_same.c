/* store_merge_same.c: whether a sweep of a source is in the output of
 * `fgobench merge` already (store_merge.h): the same host, spec hash, tag
 * and start, and the same runs, each run fingerprinted by what a resumed or
 * finished sweep would change (its status, end and median). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "store/store_merge.h"


/* A sweep's runs as fingerprints (each run's configuration, status, start,
 * end and median), sorted: done[] those with an outcome; digest: all of
 * them with the sweep's status and end; running: its status says so. */
struct prints {
	uint64_t *done;
	size_t n;
	uint64_t digest;
	int running;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int sweep_prints(sqlite3 *db, int64_t id, struct prints *p)
{
	static const char sql[] =
		"SELECT config_key || char(31) || status || char(31) || started_at || char(31) ||"
		" coalesce(ended_at, '') || char(31) || quote(t_fused_ms), status <> 'started'"
		" FROM runs WHERE sweep_id = ?1";
	sqlite3_stmt *q;
	uint64_t *all = NULL;
	size_t n = 0, cap = 0;
	memset(p, 0, sizeof *p);
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
		return FGO_EFAIL;
	sqlite3_bind_int64(q, 1, id);
	int step, rc = FGO_OK;
	while (rc == FGO_OK && (step = sqlite3_step(q)) == SQLITE_ROW) {
		if (n + 1 >= cap) {
			cap = cap ? 2 * cap : 64;
			uint64_t *a = realloc(all, cap * sizeof *a), *d = realloc(p->done, cap * sizeof *d);
			all = a ? a : all;
			p->done = d ? d : p->done;
			if (!a || !d)
				rc = FGO_EFAIL;
		}
		if (rc == FGO_OK) {
			uint64_t h = fnv1a64(sqlite3_column_text(q, 0), (size_t)sqlite3_column_bytes(q, 0));
			all[n++] = h;
			if (sqlite3_column_int(q, 1))
				p->done[p->n++] = h;
		}
	}
	sqlite3_finalize(q);
	if (rc == FGO_OK && step != SQLITE_DONE)
		rc = FGO_EFAIL;
	char tail[160] = "";
	if (rc == FGO_OK && sqlite3_prepare_v2(db, "SELECT status || char(31) || coalesce(ended_at, ''),"
				   " status = 'running' FROM sweeps WHERE id = ?1", -1, &q,
				   NULL) == SQLITE_OK) {
		sqlite3_bind_int64(q, 1, id);
		if (sqlite3_step(q) == SQLITE_ROW) {
			snprintf(tail, sizeof tail, "%s", (const char *)sqlite3_column_text(q, 0));
			p->running = sqlite3_column_int(q, 1);
		}
		sqlite3_finalize(q);
	}
	if (rc == FGO_OK) {
		qsort(all, n, sizeof *all, cmp_u64);
		qsort(p->done, p->n, sizeof *p->done, cmp_u64);
		p->digest = fnv1a64(all, n * sizeof *all) ^ fnv1a64(tail, strlen(tail));
	}
	free(all);
	if (rc != FGO_OK) {
		free(p->done);
		p->done = NULL;
	}
	return rc;
}

/* How many finished runs a and b share. */
static size_t prints_shared(const struct prints *a, const struct prints *b)
{
	size_t shared = 0;
	for (size_t i = 0, j = 0; i < a->n && j < b->n;) {
		if (a->done[i] == b->done[j])
			shared++, i++, j++;
		else if (a->done[i] < b->done[j])
			i++;
		else
			j++;
	}
	return shared;
}

/* 1 when b is a later state of a, the same sweep: every finished run of
 * a is in b, unchanged (shared of them), and b has more, or as many and a
 * was still running while b is not. A copy with no finished run yet is an
 * earlier state of any copy with one. */
static int later_state(const struct prints *a, const struct prints *b, size_t shared)
{
	if (shared != a->n)
		return 0;
	return b->n > a->n || (b->n == a->n && a->running && !b->running);
}

int store_merge_sweep_there(sqlite3 *src, const char *src_path, int64_t id, sqlite3 *dst,
			    const char *out, int64_t *found, int *state, char *err, size_t len)
{
	sqlite3_stmt *s, *d;
	struct prints mine, theirs;
	*found = 0;
	*state = MERGE_NEW;
	if (sqlite3_prepare_v2(src, "SELECT host, spec_hash, tag, started_at FROM sweeps WHERE id = ?1",
			       -1, &s, NULL) != SQLITE_OK)
		return store_merge_say(err, len, FGO_EUSAGE, "%s: cannot read its sweeps: %s", src_path,
			   sqlite3_errmsg(src));
	if (sqlite3_prepare_v2(dst, "SELECT id FROM sweeps WHERE host IS ?1 AND spec_hash IS ?2"
			       " AND tag IS ?3 AND started_at IS ?4", -1, &d, NULL) != SQLITE_OK) {
		sqlite3_finalize(s);
		return store_merge_say(err, len, FGO_EFAIL, "%s: merging failed: %s; nothing was written", out,
			   store_failure(dst));
	}
	sqlite3_bind_int64(s, 1, id);
	int rc = FGO_OK;
	if (sqlite3_step(s) == SQLITE_ROW) {
		for (int i = 0; i < 4; i++)
			sqlite3_bind_value(d, i + 1, sqlite3_column_value(s, i));
		if (sweep_prints(src, id, &mine) != FGO_OK)
			rc = store_merge_say(err, len, FGO_EUSAGE, "%s: cannot read the runs of sweep %lld: %s",
				 src_path, (long long)id, sqlite3_errmsg(src));
		while (rc == FGO_OK && *state == MERGE_NEW && sqlite3_step(d) == SQLITE_ROW) {
			int64_t other = sqlite3_column_int64(d, 0);
			if (sweep_prints(dst, other, &theirs) != FGO_OK) {
				rc = store_merge_say(err, len, FGO_EFAIL, "%s: merging failed: %s; nothing was written",
					 out, store_failure(dst));
				break;
			}
			size_t shared = prints_shared(&mine, &theirs);
			*found = other;
			if (theirs.digest == mine.digest)
				*state = MERGE_SAME;
			else if (later_state(&theirs, &mine, shared))
				*state = MERGE_LATER;
			else if (shared == mine.n)
				*state = MERGE_EARLIER;
			else if (shared)
				rc = store_merge_say(err, len, FGO_EUSAGE,
					 "%s: sweep %lld (tag %s, host %s, started %s) is in %s already as"
					 " sweep %lld, each copy with runs the other lacks (one retried or"
					 " edited?); nothing was written: merge the stores into a new file,"
					 " or leave one of them out", src_path, (long long)id,
					 sqlite3_column_text(s, 2) ? (const char *)sqlite3_column_text(s, 2)
								   : "none",
					 sqlite3_column_text(s, 0) ? (const char *)sqlite3_column_text(s, 0)
								   : "unknown",
					 (const char *)sqlite3_column_text(s, 3), out, (long long)other);
			else
				*found = 0; /* another sweep of the same second: look on */
			free(theirs.done);
		}
		free(mine.done);
	}
	sqlite3_finalize(s);
	sqlite3_finalize(d);
	return rc;
}
