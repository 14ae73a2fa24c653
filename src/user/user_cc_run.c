/* user_cc_run.c: the C compiler of a user kernel run with a time limit
 * (user_cc.h): a source that includes a FIFO or a device, or a compiler
 * that never ends, must not hang a sweep. Past the limit the compiler and
 * everything it started (cc1, as, ld: its process tree, read from /proc,
 * each stopped as it is found so none starts another) are killed; their
 * temporary files go to the compile's own folder, which is removed with
 * them. The compiler stays in fgobench's process group, so a Ctrl-C or a
 * launcher's signal to the group still reaches it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fgo.h"
#include "sink.h"
#include "user/user_cc.h"

extern char **environ;

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* environ with TMPDIR=tmpdir in place of the one there; a malloc'd array
 * (its strings are environ's, but the one it adds, *own). */
static char **child_env(const char *tmpdir, char **own)
{
	size_t n = 0, k = 0;
	while (environ[n])
		n++;
	char **env = malloc((n + 2) * sizeof *env);
	size_t want = strlen(tmpdir) + 8;
	*own = malloc(want);
	if (!env || !*own) {
		free(env);
		free(*own);
		*own = NULL;
		return NULL;
	}
	snprintf(*own, want, "TMPDIR=%s", tmpdir);
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "TMPDIR=", 7))
			env[k++] = environ[i];
	env[k++] = *own;
	env[k] = NULL;
	return env;
}

/* Whether pid has ended (not reaped yet: its children are still its). */
static int ended(pid_t pid)
{
	siginfo_t si;
	memset(&si, 0, sizeof si);
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* The parent of process p (from /proc/p/stat), or -1. */
static pid_t parent_of(long p)
{
	char path[64], text[512];
	snprintf(path, sizeof path, "/proc/%ld/stat", p);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
	if (f)
		fclose(f);
	text[n] = 0;
	/* "pid (comm) state ppid ...": comm may hold blanks and parentheses */
	char *close_paren = strrchr(text, ')');
	char state;
	long ppid;
	if (!close_paren || sscanf(close_paren + 1, " %c %ld", &state, &ppid) != 2)
		return -1;
	return (pid_t)ppid;
}

/* Stops and kills root and every process below it. Each found is stopped
 * first, and /proc read again until no new one appears, so none starts
 * another while the tree is taken down. */
static void kill_tree(pid_t root)
{
	pid_t tree[256];
	size_t n = 0;
	kill(root, SIGSTOP);
	for (int pass = 0; pass < 8; pass++) {
		size_t before = n;
		DIR *d = opendir("/proc");
		struct dirent *e;
		while (d && (e = readdir(d))) {
			char *end;
			long p = strtol(e->d_name, &end, 10);
			pid_t parent;
			int under = 0, have = 0;
			if (*end || p <= 0 || (parent = parent_of(p)) <= 0)
				continue;
			under = parent == root;
			for (size_t i = 0; i < n; i++) {
				under |= parent == tree[i];
				have |= (long)tree[i] == p;
			}
			if (under && !have && n < FGO_ARRAY_SIZE(tree)) {
				kill((pid_t)p, SIGSTOP);
				tree[n++] = (pid_t)p;
			}
		}
		if (d)
			closedir(d);
		if (n == before)
			break;
	}
	for (size_t i = 0; i < n; i++)
		kill(tree[i], SIGKILL);
	kill(root, SIGKILL);
}

int cc_run(char *const *argv, const char *tmpdir, double limit, char *log, size_t len)
{
	int p[2], ws = 0, timed_out = 0;
	pid_t pid;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	size_t got = 0;
	char *own = NULL, **env;
	log[0] = 0;
	if (pipe2(p, O_CLOEXEC) != 0) {
		snprintf(log, len, "cannot make a pipe: %s", strerror(errno));
		return CC_NOT_RUN;
	}
	if (!(env = child_env(tmpdir, &own))) {
		close(p[0]);
		close(p[1]);
		snprintf(log, len, "out of memory");
		return CC_NOT_RUN;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dfl);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	int rc = posix_spawn(&pid, argv[0], &fa, &at, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	free(env);
	free(own);
	close(p[1]);
	if (rc != 0) {
		close(p[0]);
		snprintf(log, len, "cannot run %s: %s", argv[0], strerror(rc));
		return CC_NOT_RUN;
	}
	/* its output until it closes it, then its end, both by the deadline */
	double deadline = now_s() + limit;
	int open_pipe = 1;
	for (;;) {
		double left = deadline - now_s();
		if (left <= 0) {
			timed_out = 1;
			break;
		}
		if (!open_pipe) {
			if (ended(pid))
				break;
			struct timespec nap = { 0, 10 * 1000 * 1000 };
			nanosleep(&nap, NULL);
			continue;
		}
		struct pollfd pf = { .fd = p[0], .events = POLLIN };
		int ms = left > 1 ? 1000 : (int)(left * 1000) + 1;
		int n = poll(&pf, 1, ms);
		if (n < 0 && errno != EINTR)
			open_pipe = 0;
		if (n <= 0)
			continue;
		char buf[4096];
		ssize_t r = read(p[0], buf, sizeof buf);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0) {
			open_pipe = 0;
			continue;
		}
		size_t keep = got + (size_t)r < len - 1 ? (size_t)r : len - 1 - got;
		memcpy(log + got, buf, keep);
		got += keep;
	}
	log[got] = 0;
	close(p[0]);
	/* past the limit: the compiler and all it started (not reaped yet, so
	 * its children are still its) */
	if (timed_out)
		kill_tree(pid);
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	if (timed_out)
		return CC_TIMED_OUT;
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + (WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
}

void cc_remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
			    unlinkat(dirfd(d), e->d_name, 0) != 0)
				unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
		closedir(d);
	}
	rmdir(dir);
}

void cc_clean(const char *log, char *out, size_t len)
{
	size_t at = 0;
	char *line = malloc(CC_LOG_MAX + 1);
	if (!line || !len) {
		if (len)
			out[0] = 0;
		free(line);
		return;
	}
	out[0] = 0;
	for (const char *p = log; *p && at + 1 < len;) {
		size_t n = strcspn(p, "\n");
		if (n > CC_LOG_MAX)
			n = CC_LOG_MAX;
		memcpy(line, p, n);
		line[n] = 0;
		sink_terminal(line, out + at, len - at);
		at += strlen(out + at);
		p += n;
		if (*p == '\n' && at + 1 < len) {
			out[at++] = '\n';
			out[at] = 0;
			p++;
		}
	}
	free(line);
}
