/* flight.c: the flight recorder of a sweep's ranks (see flight.h): one
 * record a rank in a file mapped into its memory, the handlers that write
 * a death into it, and the reading of the records after the job. */
#include "run/flight.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "backend/result.h"
#include "fgo.h"

/* This rank's record (NULL: not recording) and its file. */
static struct flight_record *rec;
static char rec_path[4096];
static char rec_dir[4096];

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS };
#define FATALS ((int)(sizeof fatal_signals / sizeof fatal_signals[0]))
static struct sigaction fatal_before[FATALS];
static int handlers_on;
static int exit_hook_on; /* on_exit cannot be undone: the hook checks rec */

void flight_dir(const char *db_path, char *out, size_t len)
{
	const char *env = getenv("FGOBENCH_FLIGHT_DIR");
	if (env && *env)
		snprintf(out, len, "%s", env);
	else
		snprintf(out, len, "%s-flight", db_path);
}

double flight_launch_limit(double timeout_s)
{
	return timeout_s + (timeout_s > 5 ? timeout_s : 5);
}

/* A fatal signal: written down, then the default action (the process
 * dies of it, as it would have). Only stores to the mapped record:
 * async-signal-safe. */
static void on_fatal(int sig)
{
	if (rec && rec->state == FLIGHT_RUNNING) {
		rec->detail = sig;
		rec->state = FLIGHT_SIGNALLED;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* exit() during a run: a kernel ended its process. Written down, and the
 * process ends with status 1 whatever the kernel said (an exit(0) must not
 * read as success to mpirun and CI). */
static void on_exit_hook(int status, void *unused)
{
	(void)unused;
	if (!rec || rec->state != FLIGHT_RUNNING)
		return;
	rec->detail = status;
	rec->state = FLIGHT_EXITED;
	fflush(NULL);
	_exit(FGO_EFAIL);
}

void flight_terminated(void)
{
	if (rec && rec->state == FLIGHT_RUNNING)
		rec->state = FLIGHT_TERMINATED;
}

/* dir as a folder of ours that nobody else can write, made when missing. */
static int dir_ours(const char *dir)
{
	struct stat st;
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		warning("cannot make the flight folder %s (%s): a kernel that crashes or hangs"
			" will end this sweep", dir, strerror(errno));
		return FGO_EFAIL;
	}
	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		warning("the flight folder %s is a link, not a folder, not yours or writable by"
			" others: not used (remove it); a kernel that crashes or hangs will end this"
			" sweep", dir);
		return FGO_EFAIL;
	}
	return FGO_OK;
}

int flight_open(const char *dir, int64_t sweep_id, int rank)
{
	if (rec)
		flight_close();
	if (dir_ours(dir) != FGO_OK)
		return FGO_EFAIL;
	snprintf(rec_dir, sizeof rec_dir, "%s", dir);
	snprintf(rec_path, sizeof rec_path, "%s/sweep-%lld.rank-%d", dir, (long long)sweep_id, rank);
	int fd = open(rec_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    ftruncate(fd, sizeof *rec) != 0) {
		warning("cannot write the flight record %s (%s): a kernel that crashes or hangs"
			" will end this sweep", rec_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return FGO_EFAIL;
	}
	void *map = mmap(NULL, sizeof *rec, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		warning("cannot map the flight record %s (%s)", rec_path, strerror(errno));
		return FGO_EFAIL;
	}
	struct flight_record *r = map;
	memset(r, 0, sizeof *r);
	memcpy(r->magic, FLIGHT_MAGIC, sizeof r->magic);
	r->pid = (int32_t)getpid();
	r->rank = rank;
	r->sweep_id = sweep_id;
	r->state = FLIGHT_IDLE;
	rec = r;

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < FATALS; i++)
		sigaction(fatal_signals[i], &sa, &fatal_before[i]);
	handlers_on = 1;
	/* a kernel that overflows its stack faults there: the handler needs a
	 * stack of its own */
	static char alt[1 << 16];
	stack_t ss = { .ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0 };
	sigaltstack(&ss, NULL);
	if (!exit_hook_on && on_exit(on_exit_hook, NULL) == 0)
		exit_hook_on = 1;
	return FGO_OK;
}

void flight_close(void)
{
	if (handlers_on) {
		for (int i = 0; i < FATALS; i++)
			sigaction(fatal_signals[i], &fatal_before[i], NULL);
		handlers_on = 0;
	}
	if (!rec)
		return;
	struct flight_record *r = rec;
	rec = NULL;
	munmap(r, sizeof *r);
	unlink(rec_path);
	rmdir(rec_dir); /* only when empty */
}

void flight_begin(const char *key)
{
	if (!rec)
		return;
	rec->deadline = 0;
	snprintf(rec->key, sizeof rec->key, "%s", key);
	rec->state = FLIGHT_RUNNING;
}

void flight_end(void)
{
	if (!rec || rec->state != FLIGHT_RUNNING)
		return;
	rec->deadline = 0;
	rec->state = FLIGHT_IDLE;
}

void flight_arm(double limit_s)
{
	if (!rec)
		return;
	rec->limit_s = limit_s;
	rec->deadline = now_seconds() + limit_s;
}

void flight_disarm(void)
{
	if (rec)
		rec->deadline = 0;
}

/* Reads the record at path into *r; 0 when it is one. */
static int record_load(const char *path, struct flight_record *r)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	struct stat st;
	ssize_t n = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
		n = read(fd, r, sizeof *r);
	close(fd);
	if (n != (ssize_t)sizeof *r || memcmp(r->magic, FLIGHT_MAGIC, sizeof r->magic) != 0)
		return -1;
	r->key[sizeof r->key - 1] = 0;
	return 0;
}

/* Whether name is a record file of sweep_id (any sweep when < 0). */
static int record_name(const char *name, int64_t sweep_id)
{
	long long id;
	int rank, used = 0;
	if (sscanf(name, "sweep-%lld.rank-%d%n", &id, &rank, &used) != 2 || name[used])
		return 0;
	return sweep_id < 0 || id == sweep_id;
}

/* Calls fn(path, arg) for each record file of sweep_id (any sweep when
 * < 0) in dir; -1 when dir cannot be read (0 when it is not there). */
static int records_each(const char *dir, int64_t sweep_id, void (*fn)(const char *, void *),
			void *arg)
{
	DIR *d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -1;
	struct dirent *e;
	while ((e = readdir(d))) {
		char path[8192];
		if (!record_name(e->d_name, sweep_id))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		fn(path, arg);
	}
	closedir(d);
	return 0;
}

static const char *signal_text(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV, an invalid memory access";
	case SIGBUS: return "SIGBUS, a bad memory access";
	case SIGILL: return "SIGILL, an illegal instruction";
	case SIGFPE: return "SIGFPE, an arithmetic fault";
	case SIGABRT: return "SIGABRT, abort()";
	case SIGTRAP: return "SIGTRAP, a trap";
	case SIGSYS: return "SIGSYS, a bad system call";
	default: return "a signal";
	}
}

/* What one record blames: 0 (nothing) or the status with the reason. */
static int record_blame(const struct flight_record *r, char *why, size_t len)
{
	switch (r->state) {
	case FLIGHT_SIGNALLED:
		snprintf(why, len, "killed by %s (signal %d) on rank %d", signal_text(r->detail),
			 r->detail, r->rank);
		return FGO_CRASHED;
	case FLIGHT_EXITED:
		snprintf(why, len, "ended its process with exit(%d) on rank %d", r->detail, r->rank);
		return FGO_CRASHED;
	case FLIGHT_HUNG:
		snprintf(why, len, "a launch on rank %d ran past its limit of %g s (twice --timeout, at"
			 " least --timeout + 5 s) and its job was stopped", r->rank, r->limit_s);
		return FGO_HUNG;
	default:
		/* FLIGHT_RUNNING: the process ended without a word (SIGKILL from
		 * outside, the OOM killer, _exit()): nothing says the kernel did
		 * it, so the run is run again; a supervisor that finds only
		 * such records stops rather than start the job again */
		return 0;
	}
}

/* What flight_read gathers. */
struct gathered {
	struct flight_blame *out;
	size_t count, cap;
	int stopped, failed;
};

static void gather(const char *path, void *arg)
{
	struct gathered *g = arg;
	struct flight_record r;
	char why[FGO_REASON_MAX];
	if (g->failed || record_load(path, &r) != 0)
		return;
	if (r.state == FLIGHT_TERMINATED)
		g->stopped = 1;
	int status = record_blame(&r, why, sizeof why);
	if (!status)
		return;
	/* one entry a configuration, the first rank's cause */
	for (size_t i = 0; i < g->count; i++)
		if (!strcmp(g->out[i].key, r.key))
			return;
	if (g->count == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 4;
		struct flight_blame *grown = realloc(g->out, cap * sizeof *grown);
		if (!grown) {
			g->failed = 1;
			return;
		}
		g->out = grown;
		g->cap = cap;
	}
	struct flight_blame *b = &g->out[g->count++];
	memset(b, 0, sizeof *b);
	snprintf(b->key, sizeof b->key, "%s", r.key);
	b->status = status;
	snprintf(b->reason, sizeof b->reason, "%s", why);
}

int flight_read(const char *dir, int64_t sweep_id, struct flight_blame **out, size_t *count,
		int *stopped)
{
	struct gathered g = { NULL, 0, 0, 0, 0 };
	int rc = records_each(dir, sweep_id, gather, &g) != 0 || g.failed ? FGO_EFAIL : FGO_OK;
	*out = g.out;
	*count = g.count;
	*stopped = g.stopped;
	return rc;
}

static void forget(const char *path, void *unused)
{
	(void)unused;
	unlink(path);
}

void flight_forget(const char *dir, int64_t sweep_id)
{
	records_each(dir, sweep_id, forget, NULL);
}

/* What flight_mark_hung needs and counts. */
struct hung_scan {
	double now;
	int hung;
};

static void mark_if_hung(const char *path, void *arg)
{
	struct hung_scan *h = arg;
	struct stat st;
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == sizeof(struct flight_record)) {
		struct flight_record *r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (r != MAP_FAILED) {
			if (!memcmp(r->magic, FLIGHT_MAGIC, sizeof r->magic) && r->state == FLIGHT_RUNNING &&
			    r->deadline > 0 && h->now > r->deadline) {
				r->state = FLIGHT_HUNG;
				h->hung++;
			}
			munmap(r, sizeof *r);
		}
	}
	close(fd);
}

int flight_mark_hung(const char *dir, double now)
{
	struct hung_scan h = { now, 0 };
	records_each(dir, -1, mark_if_hung, &h);
	return h.hung;
}

int flight_job_write(const char *dir, int64_t sweep_id, int ended, int rc, int restart)
{
	char path[4200], err[256];
	struct atomic_file af;
	snprintf(path, sizeof path, "%s/job", dir);
	if (atomic_open(&af, path, err, sizeof err) != FGO_OK)
		return FGO_EFAIL;
	fprintf(af.f, "sweep %lld ended %d rc %d restart %d\n", (long long)sweep_id, ended, rc,
		restart);
	return atomic_commit(&af, err, sizeof err);
}

int flight_job_read(const char *dir, int64_t *sweep_id, int *ended, int *rc, int *restart)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/job", dir);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return FGO_EFAIL;
	char text[128] = "";
	ssize_t n = read(fd, text, sizeof text - 1);
	close(fd);
	long long id;
	if (n <= 0 || sscanf(text, "sweep %lld ended %d rc %d restart %d", &id, ended, rc, restart) != 4)
		return FGO_EFAIL;
	*sweep_id = id;
	return FGO_OK;
}

void flight_stop_write(const char *dir, int sig)
{
	char path[4200], text[16];
	snprintf(path, sizeof path, "%s/stop", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	int n = snprintf(text, sizeof text, "%d\n", sig);
	if (write(fd, text, (size_t)n) != n)
		unlink(path);
	close(fd);
}

int flight_stop_read(const char *dir)
{
	char path[4200], text[16] = "";
	snprintf(path, sizeof path, "%s/stop", dir);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, text, sizeof text - 1);
	close(fd);
	return n > 0 ? atoi(text) : 0;
}
