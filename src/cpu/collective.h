/* collective.h: the CPU backend's vendor collective curve for `calibrate`
 * (backend.h's collective_curve): the MPI collectives its baselines call,
 * timed alone at a few sizes, so a W-rank baseline can be predicted from
 * a measured curve rather than a ring at the link ceiling. */
#ifndef FGO_CPU_COLLECTIVE_H
#define FGO_CPU_COLLECTIVE_H

#include "backend/backend.h"

/* backend.h's collective_curve on heap->comm: MPI_Allgather of bytes /
 * W per rank (bytes, as the baselines gather C or A), MPI_Allreduce and
 * MPI_Reduce_scatter_block of fp32 sums (the baselines' partial C), on
 * private buffers. Never FGO_EUNAVAILABLE: ranks are processes, each with
 * its own core's share, and their bytes really cross memory. */
int cpu_collective_curve(struct fgo_backend_ctx *ctx, struct fgo_heap *heap,
			 enum fgo_collective kind, const size_t *bytes, int n, int reps,
			 double *seconds, char *method, size_t method_len,
			 char *err, size_t len);

#endif
