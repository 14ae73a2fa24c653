/* test_store_refuse.c: what the store must refuse (a newer schema, a file
 * that is not a store, a missing store when reading, paths it cannot write)
 * leaving the file byte-identical and creating nothing, reading in a
 * read-only directory, and an empty file becoming a new store. */
#include "store_fixture.h"

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
	T_CONTAINS("empty-path-msg", err, "store path is empty");
}

/* A FIFO, a directory: refused from a stat, never opened (a FIFO would
 * block the open forever; alarm turns a hang into a failed test). */
static void check_not_regular(void)
{
	char p[512], err[512];
	struct fgo_store *st = NULL;
	in_tmp(p, sizeof p, "fifo.db");
	if (mkfifo(p, 0600) != 0) {
		printf("note: cannot make a FIFO: %s\n", strerror(errno));
		return;
	}
	alarm(20);
	for (int mode = 0; mode < 2; mode++) {
		enum fgo_store_mode m = mode ? FGO_STORE_WRITE : FGO_STORE_READ;
		err[0] = 0;
		int rc = store_open(p, m, &st, err, sizeof err);
		T_CHECK(mode ? "fifo-write-refused" : "fifo-read-refused", rc == FGO_EUSAGE && !st,
			"rc %d: %s", rc, err);
		T_CONTAINS(mode ? "fifo-write-message" : "fifo-read-message", err,
			   "not a fgobench store (a FIFO)");
	}
	alarm(0);
	in_tmp(p, sizeof p, "dir.db");
	mkdir(p, 0700);
	int rc = store_open(p, FGO_STORE_READ, &st, err, sizeof err);
	T_CHECK("dir-refused", rc == FGO_EUSAGE && !st, "rc %d", rc);
	T_CONTAINS("dir-message", err, "(a directory)");
}

/* A store with a table or a column dropped says so, not SQLite's text. */
static void check_damaged(void)
{
	char p[512];
	in_tmp(p, sizeof p, "no-samples.db");
	make_store(p);
	raw_sql(p, "DROP TABLE samples");
	refuse("damaged-table", p, FGO_STORE_READ, "store is damaged: table samples is missing");
	refuse("damaged-table", p, FGO_STORE_WRITE, "pass --db with a new file");
	in_tmp(p, sizeof p, "no-mma.db");
	make_store(p);
	raw_sql(p, "ALTER TABLE runs DROP COLUMN mma");
	refuse("damaged-column", p, FGO_STORE_READ, "store is damaged: column runs.mma is missing");
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
	if (fixture_begin("store-refuse"))
		return 1;
	check_refusals();
	check_not_regular();
	check_damaged();
	check_read_only();
	check_empty_file();
	fixture_end();
	T_DONE();
}
