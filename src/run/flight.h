/* flight.h: the flight recorder of a sweep's ranks: what each rank is
 * running, kept where it outlives the rank, so that a kernel that kills its
 * process, ends it or never returns is a result and not the end of the
 * sweep (docs/reliability.md).
 *
 * Each rank keeps one small record in a file of the flight folder
 * ($FGOBENCH_FLIGHT_DIR, set by the supervisor of a launched sweep, else
 * STORE-flight beside the store), mapped into its memory: the configuration
 * in flight (its key) and, while a kernel runs, the moment past which it is
 * hung. Writing it costs a few stores to memory, nothing on the timed path.
 * A fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS)
 * and an exit() during a run are written into it before the process ends;
 * SIGTERM and SIGINT mark it terminated (a peer's crash or Ctrl-C: not this
 * configuration's fault). The supervisor (launch/supervise.c) reads the
 * records while the job runs, marks a rank past its deadline hung and stops
 * the job; rank 0 of the next job (sweep --resume, or the supervisor's
 * relaunch) turns the records into stored runs (flight_blame) and removes
 * them. */
#ifndef FGO_FLIGHT_H
#define FGO_FLIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

enum flight_state {
	FLIGHT_IDLE = 0,    /* between configurations */
	FLIGHT_RUNNING,     /* a configuration in flight */
	FLIGHT_SIGNALLED,   /* a fatal signal struck during it (detail: the signal) */
	FLIGHT_EXITED,      /* the process exited during it (detail: the status) */
	FLIGHT_TERMINATED,  /* SIGTERM or SIGINT during it: the job was stopped */
	FLIGHT_HUNG,        /* the supervisor found it past its deadline and stopped the job */
};

/* One rank's record, as it is in its file. */
struct flight_record {
	char magic[8];            /* FLIGHT_MAGIC */
	int32_t state;            /* enum flight_state */
	int32_t detail;           /* the signal or the exit status */
	int32_t pid, rank;        /* the rank in MPI_COMM_WORLD */
	int64_t sweep_id;
	double deadline;          /* now_seconds() past which the launch in flight is hung
				     (0: no launch running) */
	double limit_s;           /* the launch's limit, for the reason */
	char key[FGO_KEY_MAX];    /* the configuration in flight (config_key) */
};

#define FLIGHT_MAGIC "fgoflt1"

/* The flight folder of a store: $FGOBENCH_FLIGHT_DIR when set, else
 * DB-flight (beside the store, like its -wal file). */
void flight_dir(const char *db_path, char *out, size_t len);

/* This rank starts recording for sweep_id into dir (made 0700 when
 * missing; refused when it is a link, not a folder or not ours): the file
 * sweep-ID.rank-R, the handlers of the fatal signals and of exit. FGO_OK,
 * or FGO_EFAIL with a warning (the sweep then runs without containment). */
int flight_open(const char *dir, int64_t sweep_id, int rank);

/* Stops recording: handlers removed, the file unmapped and removed (a
 * clean end leaves nothing behind), the folder too when empty. */
void flight_close(void);

/* The configuration with key `key` is in flight on this rank / is done. */
void flight_begin(const char *key);
void flight_end(void);

/* A launch that should end within limit_s starts / ended. */
void flight_arm(double limit_s);
void flight_disarm(void);

/* From a SIGTERM or SIGINT handler: the configuration in flight is not to
 * blame. Async-signal-safe. */
void flight_terminated(void);

/* The limit a launch is held to: the kernel's own waits give up after
 * timeout_s, so a launch past twice that (at least 5 s more) does not
 * return by itself. */
double flight_launch_limit(double timeout_s);

/* What the records of sweep_id in dir say, for the next job (rank 0) or
 * the supervisor. Each blamed configuration is reported once with the
 * status it gets (FGO_CRASHED or FGO_HUNG) and a reason naming the ranks,
 * the signal or exit status and the limit. */
struct flight_blame {
	char key[FGO_KEY_MAX];
	int status;                  /* enum fgo_status */
	char reason[FGO_REASON_MAX];
};

/* Reads the records of sweep_id in dir into *out (malloc'd, *count of
 * them; configurations with several ranks' records merged). *stopped is
 * set when any record says the job was stopped from outside (terminated).
 * FGO_OK; FGO_EFAIL when the folder cannot be read. */
int flight_read(const char *dir, int64_t sweep_id, struct flight_blame **out, size_t *count,
		int *stopped);

/* Removes the records of sweep_id in dir (once their blame is stored). */
void flight_forget(const char *dir, int64_t sweep_id);

/* Supervisor: every record in dir whose launch is past its deadline is
 * marked hung; returns how many were. */
int flight_mark_hung(const char *dir, double now);

/* The job file of a supervised sweep (dir/job): rank 0 writes the sweep's
 * id when it begins and its end (the exit status, and whether the sweep
 * must go on in a fresh process: a GPU context lost), the supervisor reads
 * them. FGO_OK / FGO_EFAIL. */
int flight_job_write(const char *dir, int64_t sweep_id, int ended, int rc, int restart);
int flight_job_read(const char *dir, int64_t *sweep_id, int *ended, int *rc, int *restart);

/* The stop file of a supervised job (dir/stop): the supervisor writes the
 * signal a user sent it before it hands it on, so that rank 0 says the
 * sweep was interrupted by them (and how to resume it) rather than by the
 * supervisor stopping a hung job. flight_stop_read: the signal, or 0. */
void flight_stop_write(const char *dir, int sig);
int flight_stop_read(const char *dir);

#endif
