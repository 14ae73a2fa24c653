/* runner_guard.c: what a run checks about the kernel beyond its output
 * (runner_impl.h): that a user kernel left its read-only inputs as they
 * were, and that a rank whose run failed can still run the next one. A
 * kernel that breaks either is stored as such, and the configurations
 * after it get fresh inputs or a fresh process (docs/reliability.md). */
#include <stdio.h>
#include <string.h>

#include "algo.h"
#include "fgo.h"
#include "run/runner_impl.h"

/* Whether cfg's inputs are checked after its runs: a user kernel's, on a
 * backend that can digest them. */
static int guarded(const struct fgo_runner_opts *o, const struct fgo_config *cfg)
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	return algo && algo->user && o->backend->inputs_digest;
}

int runner_inputs_digest_take(const struct fgo_runner_opts *o, MPI_Comm comm,
			      struct fgo_heap *heap, const struct fgo_config *cfg,
			      const struct fgo_layout *lay, struct fgo_problem_cache *p,
			      struct fgo_result *r)
{
	if (!guarded(o, cfg) || p->digest_gen == p->heap_gen)
		return FGO_OK;
	int rc = o->backend->inputs_digest(o->ctx, heap, cfg, lay, p->inputs_digest, r->reason,
					   sizeof r->reason);
	rc = runner_agree(comm, rc, r->reason, sizeof r->reason);
	if (rc == FGO_OK)
		p->digest_gen = p->heap_gen;
	return rc;
}

void runner_inputs_digest_check(const struct fgo_runner_opts *o, MPI_Comm comm,
				struct fgo_heap *heap, const struct fgo_config *cfg,
				const struct fgo_layout *lay, struct fgo_problem_cache *p,
				struct fgo_result *r)
{
	if (!guarded(o, cfg) || p->digest_gen != p->heap_gen || p->digest_gen == 0)
		return;
	uint64_t now[2] = { 0, 0 };
	char why[FGO_REASON_MAX] = "";
	int rank, rc = o->backend->inputs_digest(o->ctx, heap, cfg, lay, now, why, sizeof why);
	MPI_Comm_rank(comm, &rank);
	/* changed[0]: A or B changed anywhere; [1], [2]: the lowest rank whose
	 * A, B changed (the group's size when none) */
	int size, changed[3];
	MPI_Comm_size(comm, &size);
	int a = rc == FGO_OK && now[0] != p->inputs_digest[0];
	int b = rc == FGO_OK && now[1] != p->inputs_digest[1];
	changed[0] = -(a || b);
	changed[1] = a ? rank : size;
	changed[2] = b ? rank : size;
	MPI_Allreduce(MPI_IN_PLACE, changed, 3, MPI_INT, MPI_MIN, comm);
	if (!changed[0])
		return;
	/* whatever else the run did, this is what it is stored as; the next
	 * configuration of the problem gets its inputs made again */
	r->status = FGO_CORRUPTED;
	if (changed[1] < size && changed[2] < size)
		snprintf(r->reason, sizeof r->reason,
			 "wrote into its inputs A (rank %d) and B (rank %d), which the contract"
			 " makes read-only (kernels/fgo_user.h); the next configuration gets them"
			 " made again", changed[1], changed[2]);
	else
		snprintf(r->reason, sizeof r->reason,
			 "wrote into its input %s on rank %d, which the contract makes read-only"
			 " (kernels/fgo_user.h); the next configuration gets it made again",
			 changed[1] < size ? "A" : "B", changed[1] < size ? changed[1] : changed[2]);
	p->heap_gen = 0;
	p->digest_gen = 0;
}

int runner_device_lost(const struct fgo_runner_opts *o, MPI_Comm comm, struct fgo_result *r)
{
	char why[FGO_REASON_MAX] = "";
	int rc = o->backend->health ? o->backend->health(o->ctx, why, sizeof why) : FGO_OK;
	int rank;
	MPI_Comm_rank(comm, &rank);
	char said[FGO_REASON_MAX] = "";
	if (rc != FGO_OK)
		snprintf(said, sizeof said, "rank %d: %s", rank, why);
	if (runner_agree(comm, rc, said, sizeof said) == FGO_OK)
		return 0;
	r->status = FGO_CRASHED;
	snprintf(r->reason, sizeof r->reason,
		 "the GPU context is lost after this run (%s): every later launch of the process"
		 " would fail, so the sweep goes on in a fresh process",
		 said);
	return 1;
}
