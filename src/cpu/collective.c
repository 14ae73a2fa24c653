/* collective.c: the MPI collectives of the CPU baselines, timed alone
 * against bytes (see collective.h). */
#include "cpu/collective.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"

/* One call of kind over comm on bytes of buffer: send and recv each hold
 * bytes (the all-reduce sums in place in recv). */
static int call(enum fgo_collective kind, MPI_Comm comm, int world, size_t bytes, float *send,
		float *recv)
{
	switch (kind) {
	case FGO_COLL_ALL_GATHER:
		return MPI_Allgather(send, (int)(bytes / (size_t)world), MPI_BYTE, recv,
				     (int)(bytes / (size_t)world), MPI_BYTE, comm);
	case FGO_COLL_ALL_REDUCE:
		return MPI_Allreduce(MPI_IN_PLACE, recv, (int)(bytes / sizeof(float)), MPI_FLOAT,
				     MPI_SUM, comm);
	default:
		return MPI_Reduce_scatter_block(send, recv, (int)(bytes / sizeof(float) / (size_t)world),
						MPI_FLOAT, MPI_SUM, comm);
	}
}

int cpu_collective_curve(struct fgo_backend_ctx *ctx, struct fgo_heap *heap,
			 enum fgo_collective kind, const size_t *bytes, int n, int reps,
			 double *seconds, char *method, size_t method_len,
			 char *err, size_t len)
{
	(void)ctx;
	size_t most = n > 0 ? bytes[n - 1] : 0;
	/* floats: the reductions sum them; the all-gather moves their bytes */
	float *send = most ? malloc(most) : NULL, *recv = most ? malloc(most) : NULL;
	int ok = send && recv && most <= INT_MAX, rc = FGO_OK;
	/* agree first: a rank that could not allocate must not leave the
	 * others inside a collective */
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, heap->comm);
	if (!ok) {
		free(send);
		free(recv);
		snprintf(err, len, "out of memory for the collective's %zu-byte buffers", most);
		return FGO_EFAIL;
	}
	/* nonzero floats: sums of random bits could hit denormals and time
	 * what no partial C does */
	for (size_t i = 0; i < most / sizeof(float); i++)
		send[i] = recv[i] = 1.0f + (float)(i % 7);
	/* the best of reps calls of each size, the sizes taken in turn round
	 * after round (the first round warms up): on a machine shared with
	 * other work a size's calls made one after another could all fall in
	 * one stall (2 ranks on 2 busy cores: 1 KiB timed slower than 4 MiB) */
	for (int s = 0; s < n; s++)
		seconds[s] = 0;
	for (int r = 0; r <= reps && rc == FGO_OK; r++) {
		for (int s = 0; s < n && rc == FGO_OK; s++) {
			MPI_Barrier(heap->comm);
			double t0 = now_seconds();
			if (call(kind, heap->comm, heap->world, bytes[s], send, recv) != MPI_SUCCESS)
				rc = FGO_EFAIL;
			double t = now_seconds() - t0;
			if (r > 0 && t > 0 && (seconds[s] == 0 || t < seconds[s]))
				seconds[s] = t;
		}
	}
	/* a call is as slow as its slowest rank */
	MPI_Allreduce(MPI_IN_PLACE, seconds, n, MPI_DOUBLE, MPI_MAX, heap->comm);
	for (int s = 0; s < n && rc == FGO_OK; s++)
		if (!(seconds[s] > 0))
			rc = FGO_EFAIL;
	free(send);
	free(recv);
	MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, heap->comm);
	if (rc != FGO_OK) {
		snprintf(err, len, "MPI %s failed or took no measurable time", fgo_collective_names[kind]);
		return rc;
	}
	snprintf(method, method_len,
		 "cpu: MPI_%s on private buffers (%s), each call from a barrier to its end, the"
		 " slowest rank's best of %d after a warm-up",
		 kind == FGO_COLL_ALL_GATHER ? "Allgather" : kind == FGO_COLL_ALL_REDUCE ? "Allreduce"
											  : "Reduce_scatter_block",
		 kind == FGO_COLL_ALL_GATHER ? "bytes" : "fp32 sums", reps);
	return FGO_OK;
}
