/* tune_run.h: one tune session under MPI: the search of tune.h driven
 * through the sweep's runner, every trial an ordinary run in the store.
 *
 * A session is identified by its tag and a hash of (space spec with its
 * overrides, strategy, seed). Its runs live in one sweep per iteration
 * count (halving measures at several; the others at one), each sweep
 * carrying the tag, so `best --tag`, `plot` and `regress` see them.
 * With resume, the session's stored results answer the trials the search
 * asks again, its unfinished sweeps are reopened (interrupted runs marked
 * failed, then run again) and only what is missing runs. Collective over
 * comm; rank 0 owns the store and decides, the other ranks follow. */
#ifndef FGO_TUNE_RUN_H
#define FGO_TUNE_RUN_H

#include <mpi.h>
#include <stdint.h>

#include "spec/spec.h"
#include "tune/tune.h"
#include "tune/tune_model.h"

struct tune_opts {
	const char *db_path;       /* the store */
	const char *tag;           /* the session's tag (required) */
	const char *space_path;    /* recorded with the sweeps */
	const char *command_line;  /* recorded with the sweeps */
	const char *resume_command; /* (optional) shown when SIGINT or SIGTERM stops the session */
	const char *backend;       /* "cpu", "gpu" or "auto" */
	enum tune_kind kind;
	const struct tune_model *model; /* TUNE_MODEL, rank 0: the space's cost model (tune_model_load) */
	uint64_t seed;
	long budget;               /* runs; 0: estimated from the first run's time and time_s */
	double time_s;             /* no run starts after this many seconds (0: no limit) */
	int resume;                /* continue the session from the store */
	int progress;              /* one line per trial on stderr */
	int validate;              /* check every run against the reference */
	double timeout_s;          /* per launch */
	size_t heap_limit;         /* bytes per rank; 0: runner_heap_default */
};

/* What rank 0 reports (zeros elsewhere). */
struct tune_outcome {
	long runs;                 /* runs of the session, stored ones included */
	long stored;               /* of them answered from the store (--resume) */
	long budget;               /* the budget the search planned with */
	long found_at;             /* run number that measured the winner */
	long failed;               /* runs that mismatched, failed or timed out */
	int complete;              /* --resume found the session finished: nothing ran */
	int found;                 /* 1 when some run was ok */
	struct fgo_config winner;
	double ms;                 /* its median fused time */
	int iterations;            /* ... over this many iterations */
	double tflops;             /* its TFLOPS, all ranks together (0 unknown) */
	int64_t run_id;            /* its run in the store (0 unknown) */
};

/* Runs the session over space (candidates of plan). Returns 0 when a
 * winner was found and no run failed, FGO_EFAIL when runs failed or none
 * was ok, FGO_EUSAGE on bad input (message printed on rank 0). SIGINT or
 * SIGTERM while it runs never returns: rank 0 marks the session's sweeps
 * interrupted and exits 128 + the signal (interrupt.h). */
int tune_run(MPI_Comm comm, const struct fgo_plan *plan, const struct tune_space *space,
	     const struct tune_opts *o, struct tune_outcome *out);

#endif
