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
	int validate, benchmark;   /* what each run does */
	double timeout_s;          /* per launch */
	size_t heap_limit;         /* bytes per rank; 0: runner_heap_default */
	int progress;              /* progress lines on stderr */
	int64_t *sweep_id;         /* (optional) receives the sweep id on rank 0 */
	int64_t *last_run_id;      /* (optional) receives the last run id on rank 0 */
	const char *resume_command; /* (optional) shown when SIGINT or SIGTERM stops the sweep */
};

/* Runs the plan's valid items on the backend s->backend picks, after fitting
 * them to its target (plan_fit_target: the best core where the spec and the
 * flags left it to the default). Returns the exit status: 0 every run ok
 * (or invalid), 1 some run failed, timed out or mismatched, 2 bad input
 * (nothing run, the store untouched). SIGINT or SIGTERM while the runs go
 * never returns: rank 0 marks the sweep interrupted and exits 128 + the
 * signal (interrupt.h). */
int session_run(MPI_Comm comm, struct fgo_plan *plan, const struct fgo_session *s);

/* The git revision fgobench was built from ("unknown" outside a checkout). */
extern const char fgo_git_revision[];

/* Formats seconds as "3m10s", "42s", "1h02m". */
void format_duration(double s, char *out, size_t len);

#endif
