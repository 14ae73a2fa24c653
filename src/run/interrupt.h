/* interrupt.h: a stored sweep (or tune session) stopped by SIGINT or
 * SIGTERM ends cleanly: rank 0 commits the runs it has, marks the sweep
 * 'interrupted', says how to resume it and exits 128 + the signal.
 *
 * Why a thread: Open MPI's mpirun never forwards a Ctrl-C. Its ranks run
 * in process groups of their own, and mpirun, on SIGINT or SIGTERM, sends
 * them SIGCONT, one second later SIGTERM and one second after that
 * SIGKILL (odls_base_sigkill_timeout, 1 s by default), whatever they do.
 * A run in flight cannot be waited for, so rank 0 abandons it: a thread
 * of its own, woken by the signal handler through a pipe, takes the lock
 * that every store write of the sweep holds, and records the end while
 * the main thread is left where it is (its run's 'started' rows remain,
 * which --resume runs again). The other ranks hold their first signal a
 * few seconds, so a peer's death does not stop rank 0 mid-record.
 * A second signal acts at once (SQLite's transactions keep the store
 * whole); a signal ignored on entry (`cmd &` in a script) stays ignored. */
#ifndef FGO_INTERRUPT_H
#define FGO_INTERRUPT_H

#include <stddef.h>

/* Records the end of an interrupted sweep; called with the lock held, on
 * the watcher thread, with the signal's number. Returns 1 when it recorded
 * it (the process then exits 128 + sig), 0 when there was nothing to
 * record (the sweep had ended: the signal then acts as if never caught). */
typedef int (*interrupt_stop_fn)(void *arg, int sig);

/* Rank 0: from now on a first SIGINT or SIGTERM calls stop(arg, sig) as
 * above. FGO_OK, or FGO_EFAIL when the watcher cannot start (the signals
 * then keep their default action; a warning says so). */
int interrupt_watch(interrupt_stop_fn stop, void *arg);

/* The other ranks: a first SIGINT or SIGTERM takes effect a few seconds
 * later (mpirun's SIGKILL usually comes first), a second at once. */
void interrupt_follow(void);

/* Both signals back to their default action, stop forgotten. */
void interrupt_unwatch(void);

/* Held around every store write of a watched sweep, so the watcher
 * records the end between two writes, never inside one. Not recursive. */
void interrupt_lock(void);
void interrupt_unlock(void);

/* *locked becomes a runner sink that makes inner's calls under that lock
 * (a sweep's and a tune session's store writes); inner must outlive it. */
struct fgo_runner_sink;
void interrupt_locked_sink(const struct fgo_runner_sink *inner, struct fgo_runner_sink *locked);

/* The command that resumes a sweep started by command_line (as
 * cmd_command_line writes it): the same words, then --resume unless
 * resuming already, then --db DB when db_implicit is not NULL (the store
 * came from $FGOBENCH_DB or the default, and the variable may be gone by
 * then). Truncated to len. */
void interrupt_resume_command(const char *command_line, int resuming, const char *db_implicit,
			      char *out, size_t len);

/* "SIGINT", "SIGTERM" (else "signal N"). */
const char *interrupt_signal_name(int sig);

#endif
