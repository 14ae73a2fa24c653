/* session.h: one stored sweep from a plan to the store, shared by `sweep`
 * and `run`: opens the store on rank 0, starts (or resumes) the sweep row,
 * stores invalid configurations, runs the rest through the runner with a
 * progress line, and closes the sweep. Collective over comm. */
#ifndef FGO_SESSION_H
#define FGO_SESSION_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "spec/spec.h"

struct fgo_session {
	const char *db_path;       /* the store */
	const char *tag;           /* sweep tag (NULL: none) */
	const char *spec_path;     /* recorded with the sweep */
	const char *command_line;  /* recorded with the sweep */
	const char *backend;       /* "cpu", "gpu" or "auto" */
	int resume;                /* continue the newest unfinished sweep of this spec */
	int retry_crashed;         /* a resumed sweep runs its crashed, hung and corrupted
				      runs again (else they stay as stored) */
	int validate, benchmark;   /* what each run does */
	double timeout_s;          /* per launch */
	size_t heap_limit;         /* bytes per rank; 0: runner_heap_default */
	int progress;              /* progress lines on stderr */
	int64_t *sweep_id;         /* (optional) receives the sweep id on rank 0 */
	int64_t *last_run_id;      /* (optional) receives the last run id on rank 0 */
	int64_t *fastest_run_id;   /* (optional) receives the fastest ok run's id on rank 0
				      (0: none): `run`'s result where config auto timed trials */
	const char *resume_command; /* (optional) shown when SIGINT or SIGTERM stops the sweep */
	const char *trace_file;    /* (optional) `run --trace FILE`: the plan's configuration traced
				      into FILE once its run is stored */
	const char *trace_dir;     /* (optional) `sweep --trace best`: the best ok run of each
				      problem traced into DIR/run-ID.json */
	int trace_events;          /* events kept per CTA (0: the backend's default) */
	/* (optional) for a plan whose "config" is auto (FGO_PICK_MODEL): on
	 * rank 0, once the target is known, gives each item that left the tile
	 * to the default the cost model's pick (tune/auto_pick.h); FGO_OK, or
	 * FGO_EUSAGE with the message printed. NULL: config auto is refused. */
	int (*pick_model)(struct fgo_plan *plan, const char *arch, const char *backend,
			  const char *db_path);
	/* rank 0, once the target is known, before pick_model: the shot of
	 * each item that named all_reduce (tune/shot_pick.h); FGO_OK, or an
	 * error with the message printed. NULL: all_reduce is refused. */
	int (*pick_shot)(struct fgo_plan *plan, const char *arch, const char *backend,
			 const char *db_path);
};

/* session_defaults.c, collective over comm, after plan_fit_target: the
 * shot of the items that named all_reduce (s->pick_shot on rank 0), the
 * model's picks where the plan asks for them (s->pick_model on rank 0,
 * the items then sent to every rank), and on rank 0 a note for each item
 * whose tile came from the defaults table ("default tile for wgmma, ...":
 * defaults_describe; a summary by row past 8). FGO_OK or FGO_EUSAGE. */
int session_defaults(MPI_Comm comm, struct fgo_plan *plan, const struct fgo_session *s,
		     const char *arch, const char *backend);

/* The plan item (of count) with the fastest ok run (run_ids[i] > 0,
 * fused_ms[i] > 0), or count when none: `run`'s result and the run it
 * traces where config auto timed trials. */
size_t session_fastest(size_t count, const int64_t *run_ids, const double *fused_ms);

/* session_defaults.c, rank 0, after the runs: for each group of config
 * auto's trials (fgo_plan_item.auto_role), a note naming the fastest
 * (auto's pick) with the ranking's first and the default beside it (the
 * first 8), and a count of which won (fused_ms per item, 0: not ok). */
void session_auto_say(const struct fgo_plan *plan, const double *fused_ms);

/* Runs the plan's valid items on the backend s->backend picks, after fitting
 * them to its target (plan_fit_target: the best core where the spec and the
 * flags left it to the default). Returns the exit status: 0 every run ok
 * (or invalid), 1 some run failed, timed out or mismatched, 2 bad input
 * (nothing run, the store untouched), a plan with no item that can run
 * included (rank 0 prints each reason once with its count). SIGINT or SIGTERM while the runs go
 * never returns: rank 0 marks the sweep interrupted and exits 128 + the
 * signal (interrupt.h). */
int session_run(MPI_Comm comm, struct fgo_plan *plan, const struct fgo_session *s);

/* session_trace.c, after the runs (collective over comm): traces what
 * s->trace_file or s->trace_dir asks for (runner_trace), writes each
 * timeline's JSON and stores its summary with the run (run_ids and
 * fused_ms per plan item, on rank 0; fused_ms 0 where the run was not
 * ok). The exit status: 0, or 1 when a trace failed. */
struct fgo_runner_opts;
int session_trace(MPI_Comm comm, const struct fgo_plan *plan, const struct fgo_session *s,
		  const struct fgo_runner_opts *o, const int64_t *run_ids, const double *fused_ms);

/* session_faults.c, rank 0. session_blame: before a resumed sweep's runs,
 * the configurations the flight records of its last job in dir blame
 * (run/flight.h) stored as crashed or hung, each said once, and the
 * records removed. FGO_OK or FGO_EFAIL (err says why).
 * session_faults_say: at the end, the sweep's crashed, hung and corrupted
 * runs in all (store_sweep_faults) said where earlier jobs left some
 * beside this job's counts (enum fgo_status indexed). */
struct fgo_store;
int session_blame(struct fgo_store *st, int64_t sweep_id, const char *dir, char *err, size_t len);
void session_faults_say(int64_t sweep_id, const size_t *counts, const long all[3]);

/* The git revision fgobench was built from ("unknown" outside a checkout). */
extern const char fgo_git_revision[];

/* Formats seconds as "3m10s", "42s", "1h02m". */
void format_duration(double s, char *out, size_t len);

#endif
