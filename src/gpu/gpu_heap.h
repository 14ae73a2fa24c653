/* gpu_heap.h: the GPU backend's symmetric heap (gpu_heap.c). */
#ifndef FGO_GPU_HEAP_H
#define FGO_GPU_HEAP_H

#include <mpi.h>
#include <stddef.h>

#include "backend/backend.h"
#include "gpu/gpu_vendor.h"

/* Bytes past the layout's heap that the backend keeps for itself: the
 * status words a wait writes when it gives up: a flag wait (kernels/comm.h)
 * [0] = 1, [1] = the flag's index + 1; a stage barrier of the wgmma core
 * (kernels/core_wgmma.h) [0] = 2, [1] = the barrier's index + 1. */
#define PRIVATE_BYTES 256
#define STATUS_BYTES 8

struct gpu_heap {
	char *mine;          /* this rank's allocation */
	char **device_bases; /* device copy of heap->base, passed to every kernel */
	unsigned int epoch;
	size_t status_off;
	struct gpu_vendor_comm *coll; /* the vendor collective's communicator (NULL: none) */
	int shared_gpu;               /* another rank of this heap runs on the same GPU */
};

/* heap for this rank of comm: bytes of the layout's (64 when 0) on GPU
 * device, every peer's opened; heap->priv is the struct gpu_heap. Every
 * rank of comm must call it; FGO_OK on every rank, or FGO_EFAIL on every
 * rank with err said where it failed. */
int gpu_heap_open(int device, struct gpu_vendor *vendor, MPI_Comm comm, size_t bytes,
		  struct fgo_heap *heap, char *err, size_t len);

/* Waits until no peer writes into it any more (a barrier), then frees it. */
void gpu_heap_close(struct gpu_vendor *vendor, struct fgo_heap *heap);

#endif
