/* supervise.c: the supervisor of a launched sweep (see launch.h): mpirun
 * started in a process group of its own, the flight folder watched for a
 * launch past its limit, and the job started again, on the same sweep,
 * for as long as each ending blames a configuration. */
#include "launch/launch.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fgo.h"
#include "run/flight.h"

extern char **environ;

/* Seconds mpirun gets to stop its ranks after SIGTERM before SIGKILL. */
#define STOP_GRACE_S 10.0
/* How often the flight records are read. */
#define POLL_S 0.1

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	if (!stop_signal)
		stop_signal = sig;
}

int launch_under_launcher(void)
{
	static const char *const marks[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
					     "PMI_SIZE", "MPI_LOCALNRANKS", "SLURM_STEP_ID" };
	const char *off = getenv("FGOBENCH_LAUNCH");
	if (off && !strcmp(off, "0"))
		return 1;
	for (size_t i = 0; i < FGO_ARRAY_SIZE(marks); i++)
		if (getenv(marks[i]))
			return 1;
	return 0;
}

/* The environment of the job: ours, with the supervisor's variables (and
 * Open MPI's consent to run as root when we are root) set anew. */
static char **job_environment(const char *dir, long long sweep)
{
	static char flight[4200], resume[64];
	static char *const ours[] = { "FGOBENCH_SUPERVISED=1", flight, resume,
				      "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1" };
	size_t n = 0, keep = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + FGO_ARRAY_SIZE(ours) + 1, sizeof *env);
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "FGOBENCH_SUPERVISED=", 20) &&
		    strncmp(environ[i], "FGOBENCH_FLIGHT_DIR=", 20) &&
		    strncmp(environ[i], "FGOBENCH_RESUME_SWEEP=", 22))
			env[keep++] = environ[i];
	snprintf(flight, sizeof flight, "FGOBENCH_FLIGHT_DIR=%s", dir);
	snprintf(resume, sizeof resume, "FGOBENCH_RESUME_SWEEP=%lld", sweep);
	env[keep++] = ours[0];
	env[keep++] = flight;
	if (sweep)
		env[keep++] = resume;
	if (geteuid() == 0) {
		env[keep++] = ours[3];
		env[keep++] = ours[4];
	}
	return env;
}

/* mpirun's argument vector for argv (the command and its arguments):
 * --retry-crashed only on the first job, or every relaunch would run the
 * crash again. */
static char **job_arguments(int argc, char **argv, int np, int first, char *np_text,
			    char *self)
{
	char **a = calloc((size_t)argc + 11, sizeof *a);
	int n = 0;
	if (!a)
		return NULL;
	const char *mpirun = getenv("FGOBENCH_MPIRUN"), *slurm = getenv("SLURM_JOB_ID");
	static char ntasks[32];
	if (slurm && *slurm && !(mpirun && *mpirun)) {
		/* inside a Slurm allocation: its own launcher, on its nodes */
		snprintf(ntasks, sizeof ntasks, "--ntasks=%s", np_text);
		a[n++] = "srun";
		a[n++] = ntasks;
		a[n++] = "--kill-on-bad-exit=1";
	} else {
		a[n++] = (char *)(mpirun && *mpirun ? mpirun : "mpirun");
		a[n++] = "--quiet"; /* no banner: the ranks say what went wrong */
		if (np > sysconf(_SC_NPROCESSORS_ONLN))
			a[n++] = "--oversubscribe";
		a[n++] = "-np";
		a[n++] = np_text;
	}
	a[n++] = self;
	int resuming = 0;
	for (int i = 0; i < argc; i++) {
		if (first || strcmp(argv[i], "--retry-crashed"))
			a[n++] = argv[i];
		resuming |= !strcmp(argv[i], "--resume");
	}
	/* a tune session goes on by --resume (a sweep by FGOBENCH_RESUME_SWEEP) */
	if (!first && !resuming && !strcmp(argv[0], "tune"))
		a[n++] = "--resume";
	return a;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	nanosleep(&ts, NULL);
}

/* Waits for the job, stopping it when a launch passes its limit or a
 * signal asks; its wait status. */
static int job_wait(pid_t pid, const char *dir)
{
	double stopping = 0;
	int forwarded = 0, status = 0;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			return status;
		if (w < 0 && errno != EINTR)
			return status;
		if (stop_signal && !forwarded) {
			flight_stop_write(dir, stop_signal);
			kill(pid, stop_signal == SIGINT ? SIGINT : SIGTERM);
			forwarded = 1;
			stopping = now_seconds();
		}
		if (!stopping && flight_mark_hung(dir, now_seconds()) > 0) {
			note("a launch ran past its limit: stopping its job (the sweep goes on)");
			kill(pid, SIGTERM);
			stopping = now_seconds();
		}
		if (stopping && now_seconds() - stopping > STOP_GRACE_S) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			stopping = now_seconds() + 3600;
		}
		sleep_s(POLL_S);
	}
}

/* Removes what the jobs left in dir, then dir. */
static void dir_remove(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			char path[8192];
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(dir);
}

static const char *ending(int status, char *out, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(out, len, "mpirun killed by signal %d", WTERMSIG(status));
	else
		snprintf(out, len, "mpirun exit status %d", WEXITSTATUS(status));
	return out;
}

int launch_supervise(int argc, char **argv, int np)
{
	char dir[4096], self[4096], np_text[16], said[64];
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/fgobench-job.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		error("cannot make a folder for the job's flight records in %s (%s): set TMPDIR to a"
		      " folder you can write, or run under mpirun yourself",
		      tmp && *tmp ? tmp : "/tmp", strerror(errno));
		return FGO_EUSAGE;
	}
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0) {
		error("cannot find this program's own path (/proc/self/exe): run it under mpirun");
		rmdir(dir);
		return FGO_EUSAGE;
	}
	self[n] = 0;
	snprintf(np_text, sizeof np_text, "%d", np);

	struct sigaction sa, old_int, old_term;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	long long sweep = 0;
	int rc = FGO_EFAIL, jobs = 0;
	static char last_blamed[FGO_KEY_MAX];
	for (;;) {
		char **env = job_environment(dir, sweep);
		char **args = job_arguments(argc, argv, np, jobs == 0, np_text, self);
		posix_spawnattr_t attr;
		pid_t pid = 0;
		posix_spawnattr_init(&attr);
		/* a group of its own: a Ctrl-C reaches the supervisor alone,
		 * which hands it on once */
		posix_spawnattr_setpgroup(&attr, 0);
		posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
		int e = env && args ? posix_spawnp(&pid, args[0], NULL, &attr, args, env) : ENOMEM;
		posix_spawnattr_destroy(&attr);
		if (e) {
			error("cannot start %s (%s): install Open MPI (`make deps`), set FGOBENCH_MPIRUN,"
			      " or start the ranks yourself: mpirun -np %d fgobench ... (srun inside a Slurm"
			      " allocation)",
			      args ? args[0] : "mpirun", strerror(e), np);
			free(env);
			free(args);
			rc = FGO_EUSAGE;
			break;
		}
		free(env);
		free(args);
		jobs++;
		int status = job_wait(pid, dir);
		int64_t id = 0;
		int ended = 0, job_rc = 0, restart = 0;
		int told = flight_job_read(dir, &id, &ended, &job_rc, &restart) == FGO_OK;
		rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (stop_signal) {
			rc = 128 + stop_signal;
			break;
		}
		if (!told || (ended && !restart))
			break; /* before the sweep began (bad input), or its end */
		struct flight_blame *blame = NULL;
		size_t blamed = 0;
		int stopped = 0, again = 0;
		flight_read(dir, id, &blame, &blamed, &stopped);
		/* the same configuration blamed twice running: its run was not
		 * stored as the fault it is, so it would only crash again */
		if (blamed && !strcmp(blame[0].key, last_blamed))
			again = 1;
		if (blamed)
			snprintf(last_blamed, sizeof last_blamed, "%s", blame[0].key);
		free(blame);
		if (again) {
			error("sweep %lld: the same configuration ended two jobs in a row; nothing more is"
			      " run (resume it with --resume once it is fixed)", (long long)id);
			rc = FGO_EFAIL;
			break;
		}
		if (!restart && blamed == 0) {
			error("sweep %lld's job ended (%s) with no configuration in flight to blame:"
			      " nothing more is run; see the messages above, then resume it with"
			      " --resume",
			      (long long)id, ending(status, said, sizeof said));
			rc = FGO_EFAIL;
			break;
		}
		sweep = id;
		if (!strcmp(argv[0], "tune"))
			note("the tune session goes on in a new job (%s)",
			     restart ? "a rank's GPU context was lost" : ending(status, said, sizeof said));
		else
			note("sweep %lld goes on in a new job (%s)", (long long)id,
			     restart ? "a rank's GPU context was lost" : ending(status, said, sizeof said));
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	dir_remove(dir);
	return rc;
}
