/* test_store_concurrent.c: several processes at one store at once. Found
 * by tests/e2e/91_concurrency.sh: two sweeps creating the same new store
 * raced (the loser's failed schema write removed the winner's file, runs
 * and all). Now a store is made under a private name and linked into
 * place, so every creator opens the same whole store. Cases:
 *   conc-create-N: N processes create one new store at once, each records
 *     a sweep: all N sweeps are there, the store is whole;
 *   conc-empty-N: the same from an empty file (what `touch` leaves). */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fgo.h"
#include "store/store.h"
#include "testlib.h"

#define WRITERS 6

/* In a child: open, record one sweep, close; the exit status says how it went. */
static int one_writer(const char *path, int i)
{
	struct fgo_store *st;
	char err[512], tag[16];
	int64_t id;
	snprintf(tag, sizeof tag, "w%d", i);
	struct fgo_sweep_info info = { .tag = tag, .spec_path = "x.json", .spec_name = "x",
				       .spec_text = "{}", .spec_hash = "0123456789abcdef",
				       .command_line = "test", .host = "h", .version = FGO_VERSION,
				       .git_revision = "t", .backend = "cpu", .mpi_ranks = 1,
				       .iterations = 1, .warmup = 0 };
	if (store_open(path, FGO_STORE_WRITE, &st, err, sizeof err)) {
		fprintf(stderr, "writer %d: %s\n", i, err);
		return 1;
	}
	int rc = store_sweep_begin(st, &info, &id, err, sizeof err) ||
		 store_sweep_end(st, id, "done", err, sizeof err);
	if (rc)
		fprintf(stderr, "writer %d: %s\n", i, err);
	store_close(st);
	return rc;
}

static int count_sweeps(const char *path)
{
	struct fgo_store *st;
	char err[512];
	sqlite3_stmt *q;
	int n = -1;
	if (store_open(path, FGO_STORE_READ, &st, err, sizeof err))
		return -1;
	if (sqlite3_prepare_v2(store_db(st), "SELECT count(*) FROM sweeps", -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	store_close(st);
	return n;
}

static void race(const char *id, const char *path)
{
	pid_t kids[WRITERS];
	int ok = 0;
	for (int i = 0; i < WRITERS; i++) {
		kids[i] = fork();
		if (kids[i] == 0)
			_exit(one_writer(path, i));
	}
	for (int i = 0; i < WRITERS; i++) {
		int status = 0;
		waitpid(kids[i], &status, 0);
		ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	char name[64];
	snprintf(name, sizeof name, "%s-writers", id);
	T_EQ_INT(name, ok, WRITERS);
	snprintf(name, sizeof name, "%s-sweeps", id);
	T_EQ_INT(name, count_sweeps(path), WRITERS);
}

int main(void)
{
	char dir[] = "/tmp/fgobench-conc.XXXXXX", path[128];
	if (!mkdtemp(dir))
		return 1;
	for (int round = 0; round < 5; round++) {
		char id[32];
		snprintf(path, sizeof path, "%s/new%d.db", dir, round);
		snprintf(id, sizeof id, "conc-create-%d", round + 1);
		race(id, path);
		snprintf(path, sizeof path, "%s/empty%d.db", dir, round);
		FILE *f = fopen(path, "w");
		if (f)
			fclose(f);
		snprintf(id, sizeof id, "conc-empty-%d", round + 1);
		race(id, path);
	}
	char cmd[160];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	T_DONE();
}
