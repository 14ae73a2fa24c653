/* store_meta.c: what a store remembers about itself in its meta table
 * beyond the schema's own rows: the hints a view has already given the
 * people who read the store (best's read-floor note), so a hint is said
 * once per store rather than on every call. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fgo.h"
#include "store/store.h"

int store_meta_has(struct fgo_store *st, const char *key)
{
	sqlite3_stmt *q;
	int found = 0;
	if (sqlite3_prepare_v2(store_db(st), "SELECT 1 FROM meta WHERE key = ?1", -1, &q, NULL) !=
	    SQLITE_OK)
		return 0;
	sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
	found = sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	return found;
}

int store_meta_remember(struct fgo_store *reader, const char *path, const char *key)
{
	sqlite3 *rdb = store_db(reader);
	const char *file = sqlite3_db_filename(rdb, "main");
	/* Only the file itself, writable and of this schema: an older store
	 * is read through a private copy (no file name) and must stay as its
	 * schema wrote it, and a store we cannot write (or in a folder we
	 * cannot write: store_open refuses it) keeps no hint; there the hint
	 * is said again next time. */
	if (!file || !*file || access(path, W_OK) != 0)
		return FGO_EUSAGE;
	struct fgo_store *w = NULL;
	char err[512], now[32], sql[160];
	if (store_open(path, FGO_STORE_WRITE, &w, err, sizeof err) != FGO_OK)
		return FGO_EFAIL;
	store_timestamp(now);
	snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO meta(key, value) VALUES (?1, '%s')", now);
	sqlite3_stmt *q;
	int rc = FGO_EFAIL;
	if (sqlite3_prepare_v2(store_db(w), sql, -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
		rc = sqlite3_step(q) == SQLITE_DONE ? FGO_OK : FGO_EFAIL;
		sqlite3_finalize(q);
	}
	store_close(w);
	return rc;
}
