/* interrupt.c: SIGINT and SIGTERM during a stored sweep (see interrupt.h):
 * the handlers, rank 0's watcher thread and the lock it shares with the
 * sweep's store writes. */
#include "run/interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fgo.h"
#include "run/flight.h"
#include "run/runner.h"
#include "sink.h"

/* Seconds a rank other than 0 holds its first signal. */
#define FOLLOW_GRACE_S 3

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static interrupt_stop_fn stop_fn;  /* under lock; NULL: nothing to record */
static void *stop_arg;
static int wake[2] = { -1, -1 };   /* the handler writes the signal, the watcher reads it */
static volatile sig_atomic_t caught;    /* the first signal, 0 before it */
static volatile sig_atomic_t following; /* 1 on ranks other than 0 */
static struct sigaction before[2];      /* SIGINT's and SIGTERM's, restored after */
static int installed;                   /* before[] holds them */

/* The signal's default action, now (also from a handler: the signal is
 * blocked there, so it strikes when the handler returns). */
static void act_as_default(int sig)
{
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_signal(int sig)
{
	int saved = errno;
	flight_terminated(); /* the run in flight was stopped, not at fault */
	if (caught) {
		act_as_default(sig);
	} else {
		caught = sig;
		if (following) {
			alarm(FOLLOW_GRACE_S);
		} else {
			unsigned char b = (unsigned char)sig;
			if (write(wake[1], &b, 1) != 1)
				act_as_default(sig);
		}
	}
	errno = saved;
}

static void on_alarm(int sig)
{
	(void)sig;
	if (caught)
		act_as_default(caught);
}

static void install(void (*fn)(int), int sig)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGALRM);
	sigaction(sig, &sa, NULL);
}

/* SIGINT and SIGTERM to fn, what they were kept for interrupt_unwatch. A
 * signal ignored on entry stays ignored (as `cmd &` in a script leaves
 * SIGINT), as every tool does. */
static void install_both(void (*fn)(int))
{
	static const int sigs[2] = { SIGINT, SIGTERM };
	for (int i = 0; i < 2; i++) {
		if (!installed)
			sigaction(sigs[i], NULL, &before[i]);
		if (before[i].sa_handler != SIG_IGN)
			install(fn, sigs[i]);
	}
	installed = 1;
}

static void *watcher(void *unused)
{
	(void)unused;
	for (;;) {
		unsigned char b;
		ssize_t n = read(wake[0], &b, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != 1)
			return NULL;
		int sig = b;
		pthread_mutex_lock(&lock);
		if (stop_fn && stop_fn(stop_arg, sig)) {
			fflush(stderr);
			_exit(128 + sig);
		}
		pthread_mutex_unlock(&lock);
		act_as_default(sig);
	}
}

int interrupt_watch(interrupt_stop_fn stop, void *arg)
{
	if (wake[0] < 0) {
		pthread_t t;
		if (pipe2(wake, O_CLOEXEC)) {
			warning("cannot watch for Ctrl-C (pipe: %s): an interrupted sweep stays"
				" 'running' until resumed", strerror(errno));
			return FGO_EFAIL;
		}
		int e = pthread_create(&t, NULL, watcher, NULL);
		if (e) {
			close(wake[0]);
			close(wake[1]);
			wake[0] = wake[1] = -1;
			warning("cannot watch for Ctrl-C (thread: %s): an interrupted sweep stays"
				" 'running' until resumed", strerror(e));
			return FGO_EFAIL;
		}
		pthread_detach(t);
	}
	pthread_mutex_lock(&lock);
	stop_fn = stop;
	stop_arg = arg;
	pthread_mutex_unlock(&lock);
	caught = 0;
	following = 0;
	install_both(on_signal);
	return FGO_OK;
}

void interrupt_follow(void)
{
	caught = 0;
	following = 1;
	install(on_alarm, SIGALRM);
	install_both(on_signal);
}

void interrupt_unwatch(void)
{
	pthread_mutex_lock(&lock);
	stop_fn = NULL;
	stop_arg = NULL;
	pthread_mutex_unlock(&lock);
	if (installed) {
		sigaction(SIGINT, &before[0], NULL);
		sigaction(SIGTERM, &before[1], NULL);
		installed = 0;
	}
	if (following) {
		/* a signal held over the grace: it strikes now */
		if (caught)
			act_as_default(caught);
		alarm(0);
		signal(SIGALRM, SIG_DFL);
		following = 0;
	}
}

void interrupt_lock(void)
{
	pthread_mutex_lock(&lock);
}

void interrupt_unlock(void)
{
	pthread_mutex_unlock(&lock);
}

void interrupt_resume_command(const char *command_line, int resuming, const char *db_implicit,
			      char *out, size_t len)
{
	char word[1024];
	size_t n = (size_t)snprintf(out, len, "%s%s", command_line, resuming ? "" : " --resume");
	if (db_implicit && n < len) {
		sink_shell(db_implicit, word, sizeof word);
		snprintf(out + n, len - n, " --db %s", word);
	}
}

const char *interrupt_signal_name(int sig)
{
	static char other[32];
	if (sig == SIGINT)
		return "SIGINT";
	if (sig == SIGTERM)
		return "SIGTERM";
	snprintf(other, sizeof other, "signal %d", sig);
	return other;
}

static int locked_started(void *arg, const size_t *items, size_t count)
{
	const struct fgo_runner_sink *inner = arg;
	interrupt_lock();
	int rc = inner->started(inner->arg, items, count);
	interrupt_unlock();
	return rc;
}

static int locked_finished(void *arg, size_t item, const struct fgo_result *r)
{
	const struct fgo_runner_sink *inner = arg;
	interrupt_lock();
	int rc = inner->finished(inner->arg, item, r);
	interrupt_unlock();
	return rc;
}

void interrupt_locked_sink(const struct fgo_runner_sink *inner, struct fgo_runner_sink *locked)
{
	locked->started = locked_started;
	locked->finished = locked_finished;
	locked->arg = (void *)inner;
}
