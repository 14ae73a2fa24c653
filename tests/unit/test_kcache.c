/* test_kcache.c: the kernel cache's place and trust (src/kcache.h) and the
 * pieces of a user kernel's compile (src/user/user_cc.h): the root from
 * the environment (never /tmp, never an argument starting '-' or '@'), the
 * folders made 0755 whatever the umask, refused when another user's or
 * writable by others, a FIFO or a link never read; the record of a
 * compile read back, a damaged one told, the dependency list parsed with
 * make's escapes and an edited file found; compiler text cleaned of
 * control characters; the compiler stopped at its time limit with every
 * process it started. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fgo.h"
#include "kcache.h"
#include "testlib.h"
#include "user/user_cc.h"

static char dir[64];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void check_root(void)
{
	char out[256], err[512];
	static const struct {
		const char *id, *cache, *want;
	} cases[] = {
		{ "kcache-1.1", "@c", "./@c" },
		{ "kcache-1.2", "-wrapper", "./-wrapper" },
		{ "kcache-1.3", "/abs/c", "/abs/c" },
		{ "kcache-1.4", "../up", "../up" },
		{ "kcache-1.5", "./here", "./here" },
		{ "kcache-1.6", "plain", "./plain" },
	};
	for (size_t i = 0; i < FGO_ARRAY_SIZE(cases); i++) {
		setenv("FGOBENCH_CACHE", cases[i].cache, 1);
		int rc = kcache_root(out, sizeof out, err, sizeof err);
		T_CHECK(cases[i].id, rc == FGO_OK && !strcmp(out, cases[i].want), "rc %d, \"%s\", want \"%s\"", rc,
			out, cases[i].want);
	}
	unsetenv("FGOBENCH_CACHE");
	setenv("XDG_CACHE_HOME", "/x", 1);
	setenv("HOME", "/h", 1);
	kcache_root(out, sizeof out, err, sizeof err);
	T_EQ_STR("kcache-1.7", out, "/x/fgobench");
	setenv("XDG_CACHE_HOME", "rel", 1); /* not absolute: not a place */
	kcache_root(out, sizeof out, err, sizeof err);
	T_EQ_STR("kcache-1.8", out, "/h/.cache/fgobench");
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	int rc = kcache_root(out, sizeof out, err, sizeof err);
	T_CHECK("kcache-1.9", rc == FGO_EUSAGE && strstr(err, "set FGOBENCH_CACHE to a folder of your own"),
		"rc %d: %s", rc, err);
	setenv("FGOBENCH_CACHE", "a\nb", 1);
	rc = kcache_root(out, sizeof out, err, sizeof err);
	T_CHECK("kcache-1.10", rc == FGO_EUSAGE && strstr(err, "control character"), "rc %d: %s", rc, err);
	char arg[64];
	kcache_arg_path("@x", arg, sizeof arg);
	T_EQ_STR("kcache-1.11", arg, "./@x");
	kcache_arg_path(".", arg, sizeof arg);
	T_EQ_STR("kcache-1.12", arg, ".");
}

static void check_dirs(void)
{
	char root[128], out[256], err[1024], path[256];
	struct stat sb;
	snprintf(root, sizeof root, "%s/c", dir);
	setenv("FGOBENCH_CACHE", root, 1);
	mode_t old = umask(002);
	int rc = kcache_dir("user", out, sizeof out, err, sizeof err);
	umask(old);
	snprintf(path, sizeof path, "%s/user", root);
	T_CHECK("kcache-2.1", rc == FGO_OK && !strcmp(out, path) && stat(path, &sb) == 0 &&
				      (sb.st_mode & 0777) == 0755,
		"rc %d %s mode %o: %s", rc, out, (unsigned)(sb.st_mode & 0777), err);
	chmod(root, 01777);
	rc = kcache_dir("user", out, sizeof out, err, sizeof err);
	T_CHECK("kcache-2.2", rc == FGO_EUSAGE && strstr(err, "is writable by others (mode 1777)") &&
				      strstr(err, "chmod go-w"),
		"rc %d: %s", rc, err);
	chmod(root, 0755);
	chmod(path, 0775);
	rc = kcache_dir("user", out, sizeof out, err, sizeof err);
	T_CHECK("kcache-2.3", rc == FGO_EUSAGE && strstr(err, "/c/user is writable by its group (mode 0775)"),
		"rc %d: %s", rc, err);
	chmod(path, 0755);
	/* a link in place of a folder fgobench makes */
	char link[256];
	snprintf(link, sizeof link, "%s/gpu", root);
	symlink("/tmp", link);
	rc = kcache_dir("gpu", out, sizeof out, err, sizeof err);
	T_CHECK("kcache-2.4", rc == FGO_EUSAGE && strstr(err, "is not a folder (a symbolic link?)"), "rc %d: %s",
		rc, err);
	unlink(link);
	/* a folder above the cache that others may write, without the sticky bit */
	char open_dir[128], below[160];
	snprintf(open_dir, sizeof open_dir, "%s/open", dir);
	snprintf(below, sizeof below, "%s/open/c", dir);
	mkdir(open_dir, 0700);
	chmod(open_dir, 0777);
	setenv("FGOBENCH_CACHE", below, 1);
	rc = kcache_dir(NULL, out, sizeof out, err, sizeof err);
	T_CHECK("kcache-2.5", rc == FGO_EUSAGE && strstr(err, "above the kernel cache") && stat(below, &sb) != 0,
		"rc %d: %s", rc, err);
	chmod(open_dir, 01777); /* as /tmp: others cannot rename what is the user's */
	rc = kcache_dir(NULL, out, sizeof out, err, sizeof err);
	T_CHECK("kcache-2.6", rc == FGO_OK, "rc %d: %s", rc, err);
	rmdir(below);
	rmdir(open_dir);
	if (geteuid() == 0) {
		chown(path, 65534, 65534);
		setenv("FGOBENCH_CACHE", root, 1);
		rc = kcache_dir("user", out, sizeof out, err, sizeof err);
		T_CHECK("kcache-2.7", rc == FGO_EUSAGE && strstr(err, "belongs to user 65534, not to you (user 0)"),
			"rc %d: %s", rc, err);
		chown(path, 0, 0);
	}
	setenv("FGOBENCH_CACHE", root, 1);

	/* files: absent, a FIFO (never blocks), a link, writable by others */
	int fd = 99;
	snprintf(path, sizeof path, "%s/user/none", root);
	rc = kcache_open(path, &fd, err, sizeof err);
	T_CHECK("kcache-3.1", rc == FGO_OK && fd == -1, "rc %d fd %d", rc, fd);
	snprintf(path, sizeof path, "%s/user/fifo", root);
	mkfifo(path, 0600);
	alarm(10);
	rc = kcache_open(path, &fd, err, sizeof err);
	alarm(0);
	T_CHECK("kcache-3.2", rc == FGO_OK && fd == -1, "rc %d fd %d", rc, fd);
	unlink(path);
	snprintf(path, sizeof path, "%s/user/link", root);
	symlink("/etc/passwd", path);
	rc = kcache_open(path, &fd, err, sizeof err);
	T_CHECK("kcache-3.3", rc == FGO_OK && fd == -1, "rc %d fd %d", rc, fd);
	unlink(path);
	snprintf(path, sizeof path, "%s/user/file", root);
	put(path, "x");
	chmod(path, 0666);
	rc = kcache_open(path, &fd, err, sizeof err);
	T_CHECK("kcache-3.4", rc == FGO_EUSAGE && fd == -1 && strstr(err, "kernel cache file") &&
				      strstr(err, "writable by others (mode 0666)"),
		"rc %d: %s", rc, err);
	chmod(path, 0644);
	char *data;
	size_t size;
	rc = kcache_read(path, 16, &data, &size, err, sizeof err);
	T_CHECK("kcache-3.5", rc == FGO_OK && data && size == 1 && !strcmp(data, "x"), "rc %d", rc);
	free(data);
	unlink(path);
}

static void check_records(void)
{
	char dep[128], hdr[128], odd[128], rec_path[160], err[512];
	struct cc_record r, back;
	snprintf(hdr, sizeof hdr, "%s/a b.h", dir);
	snprintf(odd, sizeof odd, "%s/c$d.h", dir);
	put(hdr, "#define A 1\n");
	put(odd, "#define D 1\n");
	/* gcc's list: the target, the source, escapes, a continued line, a system header */
	snprintf(dep, sizeof dep, "%s/k.d", dir);
	FILE *f = fopen(dep, "w");
	if (f) {
		fprintf(f, "fgobench: %s/tmp.x/kernel.c %s/a\\ b.h \\\n /usr/include/stdio.h %s/c$$d.h\n", dir, dir,
			dir);
		fclose(f);
	}
	memset(&r, 0, sizeof r);
	cc_deps_read(dep, &r);
	T_CHECK("cc-1.1", r.deps_known && r.ndeps == 2 && !strcmp(r.deps[0].path, hdr) &&
				  !strcmp(r.deps[1].path, odd) && r.deps[0].size == 12,
		"known %d, %d deps: %s", r.deps_known, r.ndeps, r.ndeps ? r.deps[0].path : "");
	T_CHECK("cc-1.2", cc_deps_changed(&r) == NULL, "changed: %s", cc_deps_changed(&r));
	r.object_hash = 0x1234abcdull;
	r.object_size = 77;
	snprintf(rec_path, sizeof rec_path, "%s/c/user/k.sum", dir);
	int rc = cc_record_write(rec_path, &r, err, sizeof err);
	int st = cc_record_read(rec_path, &back, err, sizeof err);
	T_CHECK("cc-1.3", rc == FGO_OK && st == CC_RECORD_OK && !back.error && back.object_hash == 0x1234abcdull &&
				  back.object_size == 77 && back.ndeps == 2 && !strcmp(back.deps[1].path, odd),
		"rc %d st %d: %s", rc, st, err);
	/* the same size, another content: found */
	put(hdr, "#define A 2\n");
	const char *changed = cc_deps_changed(&back);
	T_CHECK("cc-1.4", changed && !strcmp(changed, hdr), "changed %s", changed ? changed : "(none)");
	cc_record_free(&back);
	/* one byte of the record changed: damaged */
	f = fopen(rec_path, "r+");
	if (f) {
		fseek(f, 20, SEEK_SET);
		fputc('9', f);
		fclose(f);
	}
	st = cc_record_read(rec_path, &back, err, sizeof err);
	T_EQ_INT("cc-1.5", st, CC_RECORD_DAMAGED);
	unlink(rec_path);
	st = cc_record_read(rec_path, &back, err, sizeof err);
	T_EQ_INT("cc-1.6", st, CC_RECORD_ABSENT);
	/* an error record keeps its message whole; control characters leave as text */
	cc_record_free(&r);
	memset(&r, 0, sizeof r);
	r.error = 1;
	r.status = 1;
	snprintf(r.reason, sizeof r.reason, "does not compile: k.c:3: error: x");
	r.log = strdup("k.c:3: error: x\n  3 | \x1b[31mint\n");
	r.deps_known = 1;
	snprintf(rec_path, sizeof rec_path, "%s/c/user/k.err", dir);
	cc_record_write(rec_path, &r, err, sizeof err);
	st = cc_record_read(rec_path, &back, err, sizeof err);
	T_CHECK("cc-1.7", st == CC_RECORD_OK && back.error && back.status == 1 &&
				  !strcmp(back.reason, r.reason) && back.log &&
				  !strcmp(back.log, "k.c:3: error: x\n  3 | \\x1b[31mint\n"),
		"st %d log \"%s\"", st, back.log ? back.log : "");
	cc_record_free(&back);
	cc_record_free(&r);
	unlink(rec_path);
	/* no list, or not gcc's: not known (such an object is compiled again) */
	put(dep, "kernel.o: kernel.c\n");
	memset(&r, 0, sizeof r);
	cc_deps_read(dep, &r);
	T_CHECK("cc-1.8", !r.deps_known && cc_deps_changed(&r) && !*cc_deps_changed(&r), "known %d",
		r.deps_known);
	cc_record_free(&r);
	unlink(dep);
	unlink(hdr);
	unlink(odd);

	char clean[128];
	cc_clean("a\x1b[2Jb\nc\td\x9b", clean, sizeof clean);
	T_EQ_STR("cc-2.1", clean, "a\\x1b[2Jb\nc\\td\\x9b");
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void check_run(void)
{
	char log[512], tmp[128], pidfile[160];
	snprintf(tmp, sizeof tmp, "%s/tmp.run", dir);
	mkdir(tmp, 0700);
	char *echo[] = { "/bin/sh", "-c", "echo \"$TMPDIR\"; exit 3", NULL };
	int st = cc_run(echo, tmp, 10, log, sizeof log);
	char want[160];
	snprintf(want, sizeof want, "%s\n", tmp);
	T_CHECK("cc-3.1", st == 3 && !strcmp(log, want), "status %d log \"%s\"", st, log);
	/* past the limit: the compiler and what it started are stopped */
	snprintf(pidfile, sizeof pidfile, "%s/child", dir);
	char script[256];
	snprintf(script, sizeof script, "sleep 30 & echo $! > %s; echo started; wait", pidfile);
	char *hang[] = { "/bin/sh", "-c", script, NULL };
	double t0 = now();
	st = cc_run(hang, tmp, 0.5, log, sizeof log);
	double took = now() - t0;
	T_CHECK("cc-3.2", st == CC_TIMED_OUT && took < 5 && strstr(log, "started"), "status %d after %.1f s",
		st, took);
	FILE *f = fopen(pidfile, "r");
	int child = 0;
	if (f) {
		if (fscanf(f, "%d", &child) != 1)
			child = 0;
		fclose(f);
	}
	usleep(100000);
	char proc[64], state = 0;
	snprintf(proc, sizeof proc, "/proc/%d/stat", child);
	f = fopen(proc, "r");
	if (f) {
		if (fscanf(f, "%*d %*s %c", &state) != 1)
			state = 0;
		fclose(f);
	}
	/* gone, or a zombie its new parent has yet to reap */
	T_CHECK("cc-3.3", child > 0 && (!f || state == 'Z'), "the compiler's child %d still runs (%c)", child, state);
	unlink(pidfile);
	char *none[] = { "/nonexistent/cc", NULL };
	st = cc_run(none, tmp, 1, log, sizeof log);
	T_CHECK("cc-3.4", st == CC_NOT_RUN && strstr(log, "cannot run /nonexistent/cc"), "status %d: %s", st, log);
	snprintf(want, sizeof want, "%s/leftover.s", tmp);
	put(want, "x");
	cc_remove_dir(tmp);
	struct stat sb;
	T_CHECK("cc-3.5", stat(tmp, &sb) != 0, "%s is still there", tmp);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/fgobench-kcache.XXXXXX");
	if (!mkdtemp(dir)) {
		printf("FAIL kcache-0: cannot make a folder\n");
		return 1;
	}
	check_root();
	check_dirs();
	check_records();
	check_run();
	char rm[128];
	snprintf(rm, sizeof rm, "rm -rf %s", dir);
	if (system(rm) != 0)
		printf("note: could not remove %s\n", dir);
	T_DONE();
}
