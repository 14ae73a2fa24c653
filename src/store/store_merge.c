/* store_merge.c: the files of `fgobench merge` (store.h's store_merge): the
 * sources opened as readers open them, the output as a new file under a
 * temporary name or as an existing store, one transaction around the copy
 * (store_merge_copy.c), and a new file linked into place once it is whole
 * and checked. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "embed.h"
#include "fgo.h"
#include "store/store_merge.h"

int store_merge_say(char *err, size_t len, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return rc;
}

/* strerror() starts with a capital; messages here are lowercase. */
static const char *why(int e, char *buf, size_t len)
{
	snprintf(buf, len, "%s", strerror(e));
	if (buf[0] >= 'A' && buf[0] <= 'Z' && !(buf[1] >= 'A' && buf[1] <= 'Z'))
		buf[0] = (char)(buf[0] - 'A' + 'a');
	return buf;
}

static int exec(sqlite3 *db, const char *out, const char *sql, char *err, size_t len)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK)
		return FGO_OK;
	return store_merge_say(err, len, FGO_EFAIL, "%s: merging failed: %s; nothing was written", out,
		   store_failure(db));
}

/* The schema version of the store file at path as it is on disk (the
 * reader's connection sees the upgraded copy); -1 when it cannot be read. */
static int file_version(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q;
	int v = -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL) == SQLITE_OK) {
		if (sqlite3_step(q) == SQLITE_ROW)
			v = sqlite3_column_int(q, 0);
		sqlite3_finalize(q);
	}
	sqlite3_close(db);
	return v;
}

static void remove_temporary(const char *tmp)
{
	static const char *const side[] = { "", "-journal", "-wal", "-shm" };
	char name[PATH_MAX + 64];
	for (size_t i = 0; i < FGO_ARRAY_SIZE(side); i++) {
		snprintf(name, sizeof name, "%s%s", tmp, side[i]);
		unlink(name);
	}
}

/* A private database (SQLite deletes it on close) holding the schema, or
 * with from: a copy of from (SQLite's backup API). NULL after err. */
static sqlite3 *scratch_db(sqlite3 *from, const char *out, char *err, size_t len)
{
	sqlite3 *db = NULL;
	const char *schema = embedded_text("db/schema.sql");
	int rc = sqlite3_open_v2("", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc == SQLITE_OK && from) {
		sqlite3_backup *b = sqlite3_backup_init(db, "main", from, "main");
		if (!b) {
			rc = sqlite3_errcode(db);
		} else {
			int step = sqlite3_backup_step(b, -1);
			rc = sqlite3_backup_finish(b);
			if (rc == SQLITE_OK && step != SQLITE_DONE)
				rc = step;
		}
	} else if (rc == SQLITE_OK) {
		rc = schema ? sqlite3_exec(db, schema, NULL, NULL, NULL) : SQLITE_ERROR;
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		store_merge_say(err, len, FGO_EFAIL, "%s: cannot make a private copy to try the merge in: %s", out,
		    db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

/* Opens the output: *target (a store) and *dst (its connection, or a
 * scratch copy for a dry run); a new file's temporary name into tmp. */
static int open_output(const char *out, int exists, int dry_run, struct fgo_store **target,
		       sqlite3 **dst, char *tmp, size_t tmp_len, char *err, size_t len)
{
	char ebuf[128];
	*dst = NULL;
	if (exists && dry_run) {
		int rc = store_open(out, FGO_STORE_READ, target, err, len);
		if (rc == FGO_OK && !(*dst = scratch_db(store_db(*target), out, err, len)))
			rc = FGO_EFAIL;
		return rc;
	}
	if (exists) {
		int rc = store_open(out, FGO_STORE_WRITE, target, err, len);
		if (rc == FGO_OK)
			*dst = store_db(*target);
		return rc;
	}
	if (dry_run)
		return (*dst = scratch_db(NULL, out, err, len)) ? FGO_OK : FGO_EFAIL;
	/* beside out, so the link into place stays on one file system */
	snprintf(tmp, tmp_len, "%s.merge-XXXXXX", out);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int e = errno;
		tmp[0] = 0;
		return store_merge_say(err, len, FGO_EUSAGE, "%s: cannot write the store: %s (is its folder"
			   " there and writable?)", out, why(e, ebuf, sizeof ebuf));
	}
	fchmod(fd, 0644); /* mkstemp makes it 0600; stores are shared */
	close(fd);
	/* an empty file is a new store to store_open */
	int rc = store_open(tmp, FGO_STORE_WRITE, target, err, len);
	if (rc == FGO_OK)
		*dst = store_db(*target);
	return rc;
}

int store_merge(const char *out, struct store_merge_source *s, int n, int dry_run,
		struct store_merge_total *total, char *err, size_t len)
{
	char ebuf[128], tmp[PATH_MAX + 32] = "";
	struct stat os, ss;
	struct fgo_store **src = calloc((size_t)(n > 0 ? n : 1), sizeof *src), *target = NULL;
	sqlite3 **db = calloc((size_t)(n > 0 ? n : 1), sizeof *db), *dst = NULL;
	int rc = FGO_OK, exists = 0;

	memset(total, 0, sizeof *total);
	if (!src || !db)
		rc = store_merge_say(err, len, FGO_EFAIL, "out of memory merging");
	else if (!out || !*out)
		rc = store_merge_say(err, len, FGO_EUSAGE, "the output path is empty: pass -o FILE");
	else if (strlen(out) >= PATH_MAX - 32)
		rc = store_merge_say(err, len, FGO_EUSAGE, "%.64s...: output path too long", out);
	else if (lstat(out, &os) == 0)
		exists = 1;
	else if (errno != ENOENT)
		rc = store_merge_say(err, len, FGO_EUSAGE, "%s: cannot look at the output: %s", out,
			 why(errno, ebuf, sizeof ebuf));
	/* SQLite would write through a link, into whatever it points at */
	if (rc == FGO_OK && exists && S_ISLNK(os.st_mode))
		rc = store_merge_say(err, len, FGO_EUSAGE, "%s: a symbolic link; merge never writes through a link"
			 " (give -o the store's own path)", out);
	total->created = !exists;

	for (int i = 0; rc == FGO_OK && i < n; i++) {
		struct store_merge_source *x = &s[i];
		const char *path = x->path;
		memset(x, 0, sizeof *x);
		x->path = path;
		x->version = -1;
		if (exists && stat(path, &ss) == 0 && ss.st_dev == os.st_dev && ss.st_ino == os.st_ino) {
			x->is_output = 1; /* its sweeps are there already */
			continue;
		}
		rc = store_open(path, FGO_STORE_READ, &src[i], err, len);
		if (rc == FGO_OK) {
			db[i] = store_db(src[i]);
			x->version = file_version(path);
			/* one snapshot of each source: a sweep still writing
			 * into it adds no run between a sweep's tables */
			rc = exec(db[i], path, "BEGIN", err, len);
		}
	}
	if (rc == FGO_OK)
		rc = open_output(out, exists, dry_run, &target, &dst, tmp, sizeof tmp, err, len);
	if (rc == FGO_OK)
		rc = exec(dst, out, "BEGIN IMMEDIATE", err, len);
	if (rc == FGO_OK) {
		rc = store_merge_copy(dst, out, db, s, n, total, err, len);
		if (rc == FGO_OK && !dry_run)
			rc = exec(dst, out, "COMMIT", err, len);
		if (rc != FGO_OK || dry_run)
			sqlite3_exec(dst, "ROLLBACK", NULL, NULL, NULL);
	}
	if (dst && (!target || dst != store_db(target)))
		sqlite3_close(dst);
	store_close(target);
	for (int i = 0; src && i < n; i++) {
		if (db && db[i])
			sqlite3_exec(db[i], "COMMIT", NULL, NULL, NULL);
		store_close(src[i]);
	}
	free(src);
	free(db);
	if (tmp[0]) {
		/* link, not rename: a file that appeared at out meanwhile stays */
		if (rc == FGO_OK && link(tmp, out) != 0)
			rc = errno == EEXIST
				     ? store_merge_say(err, len, FGO_EUSAGE, "%s: a file appeared there while merging;"
					   " nothing was written (merge again to add into it)", out)
				     : store_merge_say(err, len, FGO_EUSAGE, "%s: cannot write the store: %s", out,
					   why(errno, ebuf, sizeof ebuf));
		remove_temporary(tmp);
	}
	return rc;
}
