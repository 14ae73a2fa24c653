/* runner.h: MPI orchestration of a plan: communicators per world size,
 * node groups, the symmetric heap, inputs, validation and timing.
 *
 * runner_run() is collective over the communicator it is given. Every rank
 * holds the same plan. Ranks are split per node (MPI_Comm_split_type), each
 * node into groups of W ranks for the items of world size W; the groups run
 * items side by side, one round at a time, and their results travel to rank 0
 * of the communicator, the only rank that calls the sink (and so the only
 * writer of the store). */
#ifndef FGO_RUNNER_H
#define FGO_RUNNER_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "backend/result.h"
#include "spec/spec.h"
#include "trace/timeline.h"

/* Calibrated ceilings used for sol (0 = not known). A run's link side is
 * bounded by both: its bytes to one peer at the slowest pair's rate, and
 * its bytes to all W - 1 peers at the egress measured with every rank of
 * W sending to all its peers at once (what the fused kernels do; a GPU's
 * links share its ports, so this is below W - 1 times the pair rate). */
#define FGO_EGRESS_W_MAX 64
struct fgo_ceilings {
	double matrix_peak[3];                  /* TFLOP/s per rank, by enum fgo_dtype */
	double link_bw;                         /* GB/s, one rank to one peer */
	double egress_bw[FGO_EGRESS_W_MAX + 1]; /* GB/s by W: one rank to all its peers */
};

/* run/ceilings.c: the stored ceilings of host and backend (egress up to
 * max_world). FGO_OK, or FGO_EFAIL with err. */
struct fgo_store;
int ceilings_load(struct fgo_store *st, const char *host, const char *backend, int max_world,
		  struct fgo_ceilings *c, char *err, size_t len);
/* The ceilings row detail of the egress at world ranks ("egress w=4"). */
void ceilings_egress_detail(int world, char *out, size_t len);

/* What a group keeps of the problem (algorithm, dtype, world, M, N, K) it
 * runs: the work every configuration of the problem shares (inputs,
 * reference, vendor baseline), done by the first one. */
struct fgo_problem_cache {
	struct fgo_config key;          /* the problem; key.world == 0: none yet */
	unsigned long heap_gen;         /* the heap the inputs were made in (0: none) */
	int rc;                         /* a failure of the shared work: every run fails with it */
	char reason[FGO_REASON_MAX];
	int reference_made;
	struct fgo_problem_info info;
	int baseline_done, baseline_rc;
	char baseline_reason[FGO_REASON_MAX];
	struct fgo_timing baseline;
	/* a user kernel's problem: this rank's inputs' digests (A, B) as
	 * made, for heap digest_gen (0: not taken) */
	uint64_t inputs_digest[2];
	unsigned long digest_gen;
};

void runner_problems_free(struct fgo_problem_cache *p);

/* 1 when a and b are the same problem (algorithm, dtype, world, M, N, K). */
int runner_same_problem(const struct fgo_config *a, const struct fgo_config *b);

struct fgo_runner_opts {
	const struct fgo_backend *backend;
	struct fgo_backend_ctx *ctx;
	int iterations;        /* timed launches per measurement */
	int warmup;            /* untimed launches before each measurement */
	int validate;          /* check the fused output against the reference */
	int benchmark;         /* time the measurements, read telemetry (0: validate only) */
	int interleave_baseline; /* each run times its own vendor baseline in turns with
				    the fused launch (spec "baseline": "interleaved"), not
				    once per problem */
	double timeout_s;      /* per launch */
	size_t heap_limit;     /* bytes per rank a configuration may use */
	int heap_default;      /* heap_limit is runner_heap_default's: the
				  reference (when validating) counts too */
	struct fgo_ceilings ceilings;
	/* (optional) the problem cache, kept by a caller that runs one
	 * problem over several calls (tune); NULL: one per call */
	struct fgo_problem_cache *problems;
};

/* Called on rank 0 only. A non-zero return stops the run (collectively). */
struct fgo_runner_sink {
	/* Before a round starts: the items about to run (world rank 0 writes
	 * their 'started' rows so a crash leaves a trace). */
	int (*started)(void *arg, const size_t *items, size_t count);
	/* An item's outcome (any status). */
	int (*finished)(void *arg, size_t item, const struct fgo_result *r);
	void *arg;
};

/* Runs plan items whose todo[i] is 1 (every rank passes the same mask).
 * Returns FGO_OK when every item produced a result (whatever its status),
 * FGO_EUSAGE when the plan cannot run on these ranks (message printed on
 * rank 0), FGO_EFAIL when the sink or MPI failed. */
int runner_run(MPI_Comm comm, const struct fgo_plan *plan, const unsigned char *todo,
	       const struct fgo_runner_opts *opts, const struct fgo_runner_sink *sink);

/* A traced run of cfg (`run --trace`, `sweep --trace best`), collective
 * over comm, on its first cfg->world ranks (the others wait): inputs as
 * the run's, the fused launch timed untraced and then traced the same way
 * (o->warmup, o->iterations), the traced kernel's output validated when
 * o->validate, and the events of the last traced launch gathered on rank
 * 0 into *spans (one timeline: each rank's events from its reference
 * taken after the barrier before that launch). *traced_ms and *untraced_ms
 * are the medians. FGO_OK; FGO_EUSAGE when the backend cannot trace or
 * the configuration cannot run; FGO_EFAIL; the reason on rank 0. */
int runner_trace(MPI_Comm comm, const struct fgo_config *cfg, const struct fgo_runner_opts *o,
		 int cap, struct fgo_spans *spans, double *traced_ms, double *untraced_ms,
		 char *reason, size_t len);

/* Refuses, before anything is allocated, a plan that would need more
 * memory on a node than it has: for each valid item within heap_limit,
 * its heap (host memory on the CPU backend) and staging buffers times the
 * ranks of a node that run it at once. FGO_OK, or FGO_EUSAGE with
 * "configuration I (...) needs X GiB ..." in err (collective over comm). */
int runner_memory_check(MPI_Comm comm, const struct fgo_plan *plan,
			const struct fgo_backend *be, size_t heap_limit, char *err, size_t len);

/* The default heap limit per rank of backend be (collective over comm):
 * on a GPU, the smallest device's memory less room for the context, the
 * vendor library and its buffers (an eighth, at least 2 GiB), divided
 * among the ranks that share a device; on the host, three quarters of the
 * memory available now (MemAvailable, within a cgroup's limit) divided
 * among the node's ranks. At least 64 MiB. A configuration whose heap and
 * reference do not fit in it is stored as invalid (heap_default). */
size_t runner_heap_default(MPI_Comm comm, const struct fgo_backend *be);

/* What a sweep and a tune session do before their first run (collective
 * over comm): find the backend by name; with *heap_limit 0, set it to the
 * default (runner_heap_default), else refuse a plan that cannot fit the
 * node's memory within *heap_limit (runner_memory_check; the message
 * prefixed with `what` when not NULL), split the node communicator and initialise the backend
 * on every rank. FGO_OK with *be, *ctx and *node (the caller finishes ctx
 * and frees node), or FGO_EUSAGE with the reason printed (rank 0 for the
 * plan, each failing rank for the backend). */
int runner_backend_open(MPI_Comm comm, const char *backend, const struct fgo_plan *plan,
			size_t *heap_limit, const char *what, const struct fgo_backend **be,
			struct fgo_backend_ctx **ctx, MPI_Comm *node);

/* The largest world size every rank can take part in: the smallest number
 * of ranks on one node (collective). */
int runner_node_ranks(MPI_Comm comm);

/* The seed of the random inputs: a function of the problem (dtype, world,
 * M, N, K), so every configuration of a problem shares its inputs. */
uint64_t runner_seed(const struct fgo_config *cfg);

#endif
