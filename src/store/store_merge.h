/* store_merge.h: between the two halves of `fgobench merge` (store.h's
 * store_merge): store_merge.c opens the sources and the output, and
 * store_merge_copy.c copies inside the output's open transaction, asking
 * store_merge_same.c whether each sweep is there already. */
#ifndef FGO_STORE_MERGE_H
#define FGO_STORE_MERGE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* err = the formatted message; returns rc (the merge files' one way to fail). */
int store_merge_say(char *err, size_t len, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Copies what db[0..n) (NULL: a source not read) hold into dst (with
 * foreign keys on, a transaction open), counting into s[] and total, and
 * checks dst; out names dst in messages. FGO_OK, or FGO_EUSAGE /
 * FGO_EFAIL with err: then the caller rolls back. */
int store_merge_copy(sqlite3 *dst, const char *out, sqlite3 **db, struct store_merge_source *s,
		     int n, struct store_merge_total *total, char *err, size_t len);

/* store_merge_same.c: whether sweep id of src is in dst: a sweep of dst
 * with the same host, spec hash, tag and start (*found: its id) whose
 * runs are the same (*state MERGE_SAME), an earlier state of the source's
 * (MERGE_LATER: every finished run of dst's copy is in the source's,
 * unchanged, and the source's has more, or is no longer running: it was
 * still running, or was resumed since, when merged before), or a later
 * one (MERGE_EARLIER); MERGE_NEW when no sweep of dst shares a finished
 * run with it (another round that started the same second, say). Copies
 * that share finished runs but each have runs the other lacks:
 * FGO_EUSAGE with err. FGO_EFAIL when SQLite fails. */
enum { MERGE_NEW, MERGE_SAME, MERGE_LATER, MERGE_EARLIER };
int store_merge_sweep_there(sqlite3 *src, const char *src_path, int64_t id, sqlite3 *dst,
			    const char *out, int64_t *found, int *state, char *err, size_t len);

#endif
