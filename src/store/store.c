/* store.c: opening the SQLite store: creating it from the embedded schema,
 * refusing files that are not fgobench stores (or are newer) before writing a
 * byte, migrating older ones (in place for a writer, in a private copy for a
 * reader), and the connection settings. The queries that
 * write sweeps, runs and ceilings are in store_runs.c. */
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "embed.h"
#include "fgo.h"

#define BUSY_TIMEOUT_MS 10000

struct fgo_store {
	sqlite3 *db;
	enum fgo_store_mode mode;
};

static const char write_hint[] = "use --db to point elsewhere";

static int say(char *err, size_t len, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int say(char *err, size_t len, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err && len)
		vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return rc;
}

/* strerror() starts with a capital; messages here are lowercase. */
static const char *errno_text(int e, char *buf, size_t len)
{
	snprintf(buf, len, "%s", strerror(e));
	if (buf[0] >= 'A' && buf[0] <= 'Z' && !(buf[1] >= 'A' && buf[1] <= 'Z'))
		buf[0] = (char)(buf[0] - 'A' + 'a');
	return buf;
}

const char *store_failure(sqlite3 *db)
{
	int code = sqlite3_errcode(db) & 0xff, e = sqlite3_system_errno(db);
	if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
		return "the store is busy: another process kept it locked for more than 10 s"
		       " (wait for the other sweep to finish, or use another --db)";
	if (code == SQLITE_FULL || (code == SQLITE_IOERR && (e == ENOSPC || e == EFBIG
#ifdef EDQUOT
							     || e == EDQUOT
#endif
							     )))
		return "the disk is full or a file size limit was reached (free some space, then"
		       " rerun with --resume: what was stored before is intact)";
	return sqlite3_errmsg(db);
}

/* The directory that holds path ("." for a bare name). */
static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

void store_timestamp(char out[32])
{
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* What the probe found in an existing file. */
struct probe {
	int is_store;           /* SQLite header and meta.application = 'fgobench' */
	int version;            /* PRAGMA user_version */
	char why[160];          /* when !is_store: what it is instead */
	int empty;              /* a regular file of 0 bytes */
};

/* A "file:" URI for path with every byte SQLite could misread escaped. */
static void path_uri(const char *path, const char *query, char *out, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = (size_t)snprintf(out, len, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p && o + 4 < len; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/-._~", *p)) {
			out[o++] = (char)*p;
		} else {
			out[o++] = '%';
			out[o++] = hex[*p >> 4];
			out[o++] = hex[*p & 15];
		}
	}
	snprintf(out + o, len - o, "?%s", query);
}

/* Looks at an existing file without changing it or creating anything next
 * to it: the first bytes, then (when they are SQLite's) meta and
 * user_version through an immutable read-only connection, which takes no
 * locks and never makes -wal or -shm files. */
static int probe_file(const char *path, struct probe *pr, char *err, size_t len)
{
	char ebuf[128];
	memset(pr, 0, sizeof *pr);
	/* O_NONBLOCK: a FIFO swapped in after store_open's stat must not hang us */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return say(err, len, FGO_EUSAGE, "%s: cannot read the store: %s (%s)", path,
			   errno_text(errno, ebuf, sizeof ebuf), write_hint);
	struct stat sb;
	memset(&sb, 0, sizeof sb);
	unsigned char head[100];
	ssize_t got = -1;
	int regular = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
	if (regular)
		got = read(fd, head, sizeof head);
	close(fd);
	if (!regular) {
		snprintf(pr->why, sizeof pr->why, "%s", store_file_kind(sb.st_mode));
		return FGO_OK;
	}
	if (got == 0) {
		snprintf(pr->why, sizeof pr->why, "an empty file");
		pr->empty = 1;
		return FGO_OK;
	}
	if (got < (ssize_t)sizeof head || memcmp(head, "SQLite format 3", 16) != 0) {
		snprintf(pr->why, sizeof pr->why, "not an SQLite database");
		return FGO_OK;
	}

	char uri[PATH_MAX * 3 + 32], wal[PATH_MAX + 8];
	path_uri(path, "mode=ro&immutable=1", uri, sizeof uri);
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	int rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'application'", -1,
					&q, NULL);
	/* A -wal file beside the store may hold committed transactions (a
	 * writer that could not checkpoint, on a full disk say), which the
	 * immutable connection does not see, so it reads a half-updated
	 * file: then the probe reads through the WAL, as any reader does. */
	struct stat wb;
	snprintf(wal, sizeof wal, "%s-wal", path);
	if ((rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB) && stat(wal, &wb) == 0 &&
	    S_ISREG(wb.st_mode) && wb.st_size > 0) {
		sqlite3_close(db);
		db = NULL;
		path_uri(path, "mode=ro", uri, sizeof uri);
		rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
		if (rc == SQLITE_OK) {
			sqlite3_busy_timeout(db, 5000);
			rc = sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'application'",
						-1, &q, NULL);
		}
	}
	if (rc != SQLITE_OK) {
		const char *msg = db ? sqlite3_errmsg(db) : "out of memory";
		if (strstr(msg, "no such table"))
			snprintf(pr->why, sizeof pr->why,
				 "an SQLite database without fgobench's meta table");
		else
			snprintf(pr->why, sizeof pr->why, "%s", msg);
		sqlite3_finalize(q);
		sqlite3_close(db);
		return FGO_OK;
	}
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW && sqlite3_column_text(q, 0) &&
	    strcmp((const char *)sqlite3_column_text(q, 0), "fgobench") == 0)
		pr->is_store = 1;
	else if (rc == SQLITE_ROW)
		snprintf(pr->why, sizeof pr->why, "its meta table names the application \"%.60s\"",
			 sqlite3_column_text(q, 0) ? (const char *)sqlite3_column_text(q, 0) : "");
	else
		snprintf(pr->why, sizeof pr->why, "its meta table does not name fgobench");
	sqlite3_finalize(q);
	if (pr->is_store && sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL) == SQLITE_OK) {
		if (sqlite3_step(q) == SQLITE_ROW)
			pr->version = sqlite3_column_int(q, 0);
		sqlite3_finalize(q);
	}
	sqlite3_close(db);
	if (pr->is_store && pr->version < 1) {
		pr->is_store = 0;
		snprintf(pr->why, sizeof pr->why, "schema version %d", pr->version);
	}
	return FGO_OK;
}

static int version_error(const char *path, int version, char *err, size_t len)
{
	return say(err, len, FGO_EUSAGE,
		   "%s: store has schema version %d, this fgobench reads up to %d"
		   " (upgrade fgobench or use another --db)",
		   path, version, FGO_SCHEMA_VERSION);
}

static int user_version(sqlite3 *db, int *version)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL) != SQLITE_OK)
		return -1;
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*version = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	return rc == SQLITE_ROW ? 0 : -1;
}

/* Runs sql (several statements) or fills err with what failed. */
static int exec_sql(sqlite3 *db, const char *path, const char *what, const char *sql, char *err,
		    size_t len)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return FGO_OK;
	say(err, len, FGO_EFAIL, "%s: cannot %s: %s", path, what, store_failure(db));
	sqlite3_free(msg);
	return FGO_EFAIL;
}

/* The line a migration starts with when it must run with foreign keys off
 * (db/migrations/10.sql). */
#define FOREIGN_KEYS_OFF "-- fgobench-migration: foreign keys off"

/* FGO_OK when no row of the store names a parent row that is not there. */
static int foreign_keys_whole(sqlite3 *db, const char *path, char *err, size_t len)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(db, "PRAGMA foreign_key_check", -1, &q, NULL) != SQLITE_OK)
		return say(err, len, FGO_EFAIL, "%s: cannot check the store: %s", path,
			   sqlite3_errmsg(db));
	int rc = sqlite3_step(q);
	char table[64] = "";
	if (rc == SQLITE_ROW)
		snprintf(table, sizeof table, "%s", (const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	if (rc == SQLITE_ROW)
		return say(err, len, FGO_EFAIL,
			   "%s: the upgrade left a row of %s without its parent; nothing was changed",
			   path, table);
	return rc == SQLITE_DONE ? FGO_OK
				 : say(err, len, FGO_EFAIL, "%s: cannot check the store: %s", path,
				       sqlite3_errmsg(db));
}

/* Upgrades from version `from` with db/migrations/<v>.sql, one transaction
 * per step so a failed step leaves the store at the previous version. The
 * files are embedded at build time like the schema. Each step reads
 * user_version again under the write lock: another writer that opened the
 * same old store at the same time may have applied it already. */
static int migrate(sqlite3 *db, const char *path, int from, char *err, size_t len)
{
	for (int v = from + 1; v <= FGO_SCHEMA_VERSION; v++) {
		char name[64], sql[160];
		int now = 0;
		snprintf(name, sizeof name, "db/migrations/%d.sql", v);
		const char *text = embedded_text(name);
		if (!text)
			return say(err, len, FGO_EFAIL,
				   "%s: store has schema version %d but this build lacks %s to"
				   " upgrade it (rebuild fgobench with `make`)",
				   path, v - 1, name);
		/* A step that makes a parent table again (a CHECK cannot be
		 * altered) runs with foreign keys off, SQLite's own procedure
		 * for other schema changes: dropping the old table must not
		 * cascade into its children. The pragma is a no-op inside a
		 * transaction, so it is set around it, and the children are
		 * checked before the commit. */
		int fk_off = strstr(text, FOREIGN_KEYS_OFF) != NULL;
		if (fk_off && exec_sql(db, path, "start the migration", "PRAGMA foreign_keys = OFF", err, len))
			return FGO_EFAIL;
		if (exec_sql(db, path, "start the migration", "BEGIN IMMEDIATE", err, len))
			return FGO_EFAIL;
		if (user_version(db, &now) != 0) {
			say(err, len, FGO_EFAIL, "%s: cannot read the store: %s", path,
			    sqlite3_errmsg(db));
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			return FGO_EFAIL;
		}
		if (now > FGO_SCHEMA_VERSION) {
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			return version_error(path, now, err, len);
		}
		if (now >= v) {
			if (exec_sql(db, path, "start the migration", "COMMIT", err, len))
				return FGO_EFAIL;
			continue;
		}
		snprintf(sql, sizeof sql,
			 "PRAGMA user_version = %d; INSERT OR REPLACE INTO meta(key, value)"
			 " VALUES ('schema_version', '%d');",
			 v, v);
		char what[96];
		snprintf(what, sizeof what, "apply %s", name);
		if (exec_sql(db, path, what, text, err, len) ||
		    exec_sql(db, path, what, sql, err, len) ||
		    (fk_off && foreign_keys_whole(db, path, err, len)) ||
		    exec_sql(db, path, what, "COMMIT", err, len)) {
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			if (fk_off)
				sqlite3_exec(db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
			return FGO_EFAIL;
		}
		if (fk_off && exec_sql(db, path, what, "PRAGMA foreign_keys = ON", err, len))
			return FGO_EFAIL;
	}
	return FGO_OK;
}

/* A reader of an older store reads an upgraded copy: the store is copied
 * (SQLite's backup API, a consistent snapshot) into a private temporary
 * database, which SQLite deletes on close, and migrated there; the file
 * itself is never written, so reading works without write permission and
 * leaves the store as the version that wrote it. *db is replaced by the
 * copy (the original connection is closed either way). The copy costs the
 * store's size in temporary disk ($SQLITE_TMPDIR or /tmp), once per read
 * until a sweep upgrades the file for good. */
static int upgraded_copy(sqlite3 **db, const char *path, int version, char *err, size_t len)
{
	sqlite3 *copy = NULL;
	sqlite3_backup *b = NULL;
	int rc = sqlite3_open_v2("", &copy, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc == SQLITE_OK && !(b = sqlite3_backup_init(copy, "main", *db, "main")))
		rc = sqlite3_errcode(copy);
	if (b) {
		int step = sqlite3_backup_step(b, -1);
		rc = sqlite3_backup_finish(b); /* the step's error, when it had one */
		if (rc == SQLITE_OK && step != SQLITE_DONE)
			rc = step;
	}
	if (rc != SQLITE_OK) {
		say(err, len, FGO_EFAIL,
		    "%s: cannot read the store (schema version %d) to upgrade a private copy: %s",
		    path, version, copy ? sqlite3_errmsg(copy) : "out of memory");
		sqlite3_close(copy);
		return FGO_EFAIL;
	}
	sqlite3_close(*db);
	*db = copy;
	return migrate(copy, path, version, err, len);
}

/* Settings every connection gets; journal_mode and synchronous only when
 * writing (a reader must not try to change the file). */
static int configure(sqlite3 *db, const char *path, enum fgo_store_mode mode, char *err,
		     size_t len)
{
	sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
	if (mode == FGO_STORE_READ)
		return exec_sql(db, path, "open the store", "PRAGMA query_only = ON", err, len);
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &q, NULL) != SQLITE_OK)
		return say(err, len, FGO_EFAIL, "%s: cannot switch the store to WAL: %s", path,
			   store_failure(db));
	/* The switch needs the file to itself for a moment. When other
	 * processes open the same new store at that instant SQLite may answer
	 * busy at once, without its busy handler (waiting there could
	 * deadlock), so retry for as long as the busy timeout. */
	int rc;
	for (int waited_ms = 0;; waited_ms += 10) {
		rc = sqlite3_step(q);
		if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || waited_ms >= BUSY_TIMEOUT_MS)
			break;
		sqlite3_reset(q);
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
	}
	int wal = rc == SQLITE_ROW && sqlite3_column_text(q, 0) &&
		  strcmp((const char *)sqlite3_column_text(q, 0), "wal") == 0;
	sqlite3_finalize(q);
	if (!wal)
		return say(err, len, FGO_EFAIL,
			   "%s: cannot switch the store to WAL (%s); is it on a network file system?"
			   " (%s)",
			   path, rc == SQLITE_ROW ? "still in another journal mode" : store_failure(db),
			   write_hint);
	return exec_sql(db, path, "configure the store",
			"PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON", err, len);
}

static void remove_created(const char *path)
{
	static const char *const suffixes[] = { "", "-journal", "-wal", "-shm" };
	char name[PATH_MAX + 48];
	for (size_t i = 0; i < FGO_ARRAY_SIZE(suffixes); i++) {
		snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
		unlink(name);
	}
}

/* Writes schema, meta and user_version into db in one exclusive
 * transaction, unless another process got there first (two sweeps
 * creating the same store): then there is nothing to do. */
static int write_schema(sqlite3 *db, const char *path, char *err, size_t len)
{
	const char *schema = embedded_text("db/schema.sql");
	if (!schema)
		return say(err, len, FGO_EFAIL, "%s: this build has no embedded db/schema.sql"
			   " (rebuild fgobench with `make`)", path);
	char sql[160];
	snprintf(sql, sizeof sql,
		 "INSERT INTO meta(key, value) VALUES ('application', 'fgobench'),"
		 " ('schema_version', '%d'); PRAGMA user_version = %d;",
		 FGO_SCHEMA_VERSION, FGO_SCHEMA_VERSION);
	sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
	if (exec_sql(db, path, "create the store", "BEGIN EXCLUSIVE", err, len))
		return FGO_EFAIL;
	sqlite3_stmt *q = NULL;
	int there = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE name = 'meta'", -1,
				       &q, NULL) == SQLITE_OK &&
		    sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	if ((!there && (exec_sql(db, path, "create the store", schema, err, len) ||
			exec_sql(db, path, "create the store", sql, err, len))) ||
	    exec_sql(db, path, "create the store", "COMMIT", err, len)) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return FGO_EFAIL;
	}
	return FGO_OK;
}

/* A new store is made whole under a private name beside path, then linked
 * into place: no other process ever sees a half-made store, and when two
 * create it at once one link wins and the other opens the winner's.
 * Returns -1 when path now exists (made here or by someone else): the
 * caller opens it as an existing store. */
static int create_store(const char *path, char *err, size_t len)
{
	char ebuf[128], dir[PATH_MAX], tmp[PATH_MAX + 32];
	struct stat sb;
	dir_of(path, dir, sizeof dir);
	if (stat(dir, &sb) != 0)
		return say(err, len, FGO_EUSAGE, "%s: cannot write the store: %s: %s (%s)", path, dir,
			   errno_text(errno, ebuf, sizeof ebuf), write_hint);
	snprintf(tmp, sizeof tmp, "%s.new-%ld", path, (long)getpid());
	remove_created(tmp); /* left by a crashed process that had our pid */
	int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return say(err, len, FGO_EUSAGE, "%s: cannot write the store: %s (%s)", path,
			   errno_text(errno, ebuf, sizeof ebuf), write_hint);
	close(fd);
	sqlite3 *db = NULL;
	int rc = FGO_OK;
	if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		rc = say(err, len, FGO_EUSAGE, "%s: cannot write the store: %s (%s)", path,
			 db ? sqlite3_errmsg(db) : "out of memory", write_hint);
	else
		rc = write_schema(db, path, err, len);
	sqlite3_close(db);
	if (rc == FGO_OK && link(tmp, path) != 0 && errno != EEXIST)
		rc = say(err, len, FGO_EUSAGE, "%s: cannot write the store: %s (%s)", path,
			 errno_text(errno, ebuf, sizeof ebuf), write_hint);
	remove_created(tmp);
	return rc == FGO_OK ? -1 : rc;
}

/* Writes the schema into the empty file at path (what `touch` leaves); on
 * failure the file is left empty as it was. */
static int init_store(const char *path, sqlite3 **out, char *err, size_t len)
{
	sqlite3 *db = NULL;
	int rc = FGO_OK;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		rc = say(err, len, FGO_EUSAGE, "%s: cannot write the store: %s (%s)", path,
			 db ? sqlite3_errmsg(db) : "out of memory", write_hint);
	else
		rc = write_schema(db, path, err, len);
	if (rc == FGO_OK)
		rc = configure(db, path, FGO_STORE_WRITE, err, len);
	if (rc != FGO_OK) {
		sqlite3_close(db);
		return rc;
	}
	*out = db;
	return FGO_OK;
}

/* Why an existing store cannot be written, checked before SQLite opens it
 * read-write (it would silently fall back to read-only). */
static int check_writable(const char *path, char *err, size_t len)
{
	char ebuf[128], dir[PATH_MAX];
	if (access(path, W_OK) != 0)
		return say(err, len, FGO_EUSAGE, "%s: cannot write the store: %s (%s)", path,
			   errno_text(errno, ebuf, sizeof ebuf), write_hint);
	/* WAL needs the -wal and -shm files next to the store. */
	dir_of(path, dir, sizeof dir);
	if (access(dir, W_OK | X_OK) != 0)
		return say(err, len, FGO_EUSAGE,
			   "%s: cannot write the store: directory %s: %s (%s)", path, dir,
			   errno_text(errno, ebuf, sizeof ebuf), write_hint);
	return FGO_OK;
}

static int dir_writable(const char *path)
{
	char dir[PATH_MAX];
	dir_of(path, dir, sizeof dir);
	return access(dir, W_OK | X_OK) == 0;
}

static int open_existing(const char *path, enum fgo_store_mode mode, sqlite3 **out, char *err,
			 size_t len)
{
	struct probe pr;
	if (probe_file(path, &pr, err, len))
		return FGO_EUSAGE;
	/* An empty file is a new store (what `touch` or an SQLite client leaves). */
	if (pr.empty && mode == FGO_STORE_WRITE)
		return check_writable(path, err, len) ? FGO_EUSAGE : init_store(path, out, err, len);
	if (!pr.is_store)
		return say(err, len, FGO_EUSAGE,
			   "%s: not a fgobench store (%s); pass --db with a store path or a new file",
			   path, pr.why);
	if (pr.version > FGO_SCHEMA_VERSION)
		return version_error(path, pr.version, err, len);
	if (mode == FGO_STORE_WRITE && check_writable(path, err, len))
		return FGO_EUSAGE;

	sqlite3 *db = NULL;
	int flags = mode == FGO_STORE_WRITE ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
	char uri[PATH_MAX * 3 + 32];
	const char *name = path;
	/* A reader must leave no -wal/-shm files behind and must work in a
	 * directory it cannot write. Idle stores are in rollback mode (writers
	 * switch back on close), so a read-only connection makes no files
	 * there; it takes SQLite's locks, so a sweep that starts while we read
	 * (switching to WAL, checkpointing on close) never changes a page
	 * under us. Only where we cannot lock (an unwritable directory) is the
	 * file read as immutable: exact when there is no -wal beside it. */
	if (mode == FGO_STORE_READ && !dir_writable(path)) {
		path_uri(path, "mode=ro&immutable=1", uri, sizeof uri);
		name = uri;
		flags |= SQLITE_OPEN_URI;
	}
	if (sqlite3_open_v2(name, &db, flags, NULL) != SQLITE_OK) {
		int rc = say(err, len, FGO_EUSAGE, "%s: cannot open the store: %s (%s)", path,
			     db ? sqlite3_errmsg(db) : "out of memory", write_hint);
		sqlite3_close(db);
		return rc;
	}
	if (mode == FGO_STORE_WRITE && sqlite3_db_readonly(db, "main") == 1) {
		sqlite3_close(db);
		return say(err, len, FGO_EUSAGE, "%s: cannot write the store: read-only (%s)", path,
			   write_hint);
	}
	/* The probe read the file without the WAL; a writer may have moved
	 * user_version on since, so decide again on what SQLite sees. */
	sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
	int version = 0, rc = FGO_OK;
	if (user_version(db, &version) != 0)
		rc = say(err, len, FGO_EFAIL, "%s: cannot read the store: %s", path,
			 store_failure(db));
	else if (version > FGO_SCHEMA_VERSION)
		rc = version_error(path, version, err, len);
	else if (version < FGO_SCHEMA_VERSION && mode == FGO_STORE_READ)
		rc = upgraded_copy(&db, path, version, err, len);
	/* Checked before configure (a writer's switch to WAL makes side files)
	 * unless a migration must first bring the columns checked for. */
	int migrating = version < FGO_SCHEMA_VERSION && mode == FGO_STORE_WRITE;
	if (rc == FGO_OK && !migrating)
		rc = store_check_whole(db, path, err, len);
	if (rc == FGO_OK)
		rc = configure(db, path, mode, err, len);
	if (rc == FGO_OK && migrating)
		rc = migrate(db, path, version, err, len);
	if (rc == FGO_OK && migrating)
		rc = store_check_whole(db, path, err, len);
	if (rc != FGO_OK) {
		sqlite3_close(db);
		return rc;
	}
	*out = db;
	return FGO_OK;
}

int store_open(const char *path, enum fgo_store_mode mode, struct fgo_store **out, char *err,
	       size_t len)
{
	*out = NULL;
	if (!path || !*path)
		return say(err, len, FGO_EUSAGE, "the store path is empty (--db \"\" or an empty"
			   " variable?): pass --db FILE");
	if (strlen(path) >= PATH_MAX - 16)
		return say(err, len, FGO_EUSAGE, "%.64s...: store path too long", path);
	struct fgo_store *st = calloc(1, sizeof *st);
	if (!st)
		return say(err, len, FGO_EFAIL, "%s: out of memory", path);
	/* A file size limit (ulimit -f) must fail a write with EFBIG, which
	 * SQLite rolls back and reports, not kill the writer with SIGXFSZ. */
	if (mode == FGO_STORE_WRITE)
		signal(SIGXFSZ, SIG_IGN);
	int rc = -1;
	struct stat sb;
	/* A store made (or found made) by create_store is then opened as an
	 * existing one; the third try covers a file that vanished between. */
	for (int tries = 0; rc == -1 && tries < 3; tries++) {
		/* Looked at before anything opens it: opening a FIFO blocks forever. */
		if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
			rc = say(err, len, FGO_EUSAGE, "%s: not a fgobench store (%s); pass --db with"
				 " a store path or a new file", path, store_file_kind(sb.st_mode));
		else if (stat(path, &sb) == 0 || errno != ENOENT)
			rc = open_existing(path, mode, &st->db, err, len);
		else if (mode == FGO_STORE_READ)
			rc = say(err, len, FGO_EUSAGE,
				 "%s: no fgobench store here (run a sweep first, e.g."
				 " `mpirun -np 2 fgobench sweep sweeps/smoke.json`, or pass --db)",
				 path);
		else
			rc = create_store(path, err, len);
	}
	if (rc == -1)
		rc = say(err, len, FGO_EFAIL, "%s: the file keeps appearing and vanishing", path);
	if (rc != FGO_OK) {
		free(st);
		return rc;
	}
	st->mode = mode;
	*out = st;
	return FGO_OK;
}

void store_close(struct fgo_store *st)
{
	if (!st)
		return;
	store_batch_forget(st);
	/* Back to rollback mode when idle: this checkpoints and removes the
	 * -wal and -shm files, so readers need none. Fails harmlessly (busy)
	 * while another writer has the store open; the last one switches. */
	if (st->mode == FGO_STORE_WRITE) {
		/* without waiting: a reader or another sweep holding the store
		 * open must not delay this one's exit */
		sqlite3_busy_timeout(st->db, 0);
		sqlite3_exec(st->db, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL);
	}
	sqlite3_close(st->db);
	free(st);
}

sqlite3 *store_db(struct fgo_store *st)
{
	return st->db;
}
