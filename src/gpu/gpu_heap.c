/* gpu_heap.c: the GPU backend's symmetric heap: one allocation per rank
 * (the layout's bytes, then the backend's own status words), its IPC
 * handle exchanged with MPI and opened on every peer, the table of every
 * rank's base copied to the device for the kernels, and the vendor
 * collective's communicator where each rank has a GPU of its own. */
#include "gpu/gpu_heap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"

int gpu_heap_open(int device, struct gpu_vendor *vendor, MPI_Comm comm, size_t bytes,
		  struct fgo_heap *heap, char *err, size_t len)
{
	struct gpu_heap *h = calloc(1, sizeof *h);
	hipIpcMemHandle_t mine, *all = NULL;
	int *devices = NULL, ok;

	if (len)
		err[0] = 0;
	memset(heap, 0, sizeof *heap);
	heap->comm = comm;
	MPI_Comm_rank(comm, &heap->rank);
	MPI_Comm_size(comm, &heap->world);
	heap->bytes = bytes ? bytes : 64;
	heap->base = calloc((size_t)heap->world, sizeof *heap->base);
	all = calloc((size_t)heap->world, sizeof *all);
	devices = calloc((size_t)heap->world, sizeof *devices);
	ok = h && heap->base && all && devices;
	if (ok) {
		h->status_off = (heap->bytes + 255) / 256 * 256;
		ok = hipMalloc((void **)&h->mine, h->status_off + PRIVATE_BYTES) == hipSuccess &&
		     hipMemset(h->mine, 0, h->status_off + PRIVATE_BYTES) == hipSuccess &&
		     hipIpcGetMemHandle(&mine, h->mine) == hipSuccess;
	}
	/* Agree before exchanging: nobody waits in a collective for a rank
	 * that could not allocate. */
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
	if (!ok) {
		char size[32];
		snprintf(err, len, "allocating a %s heap on GPU %d failed (lower --heap-size)",
			 fmt_bytes((double)heap->bytes, size, sizeof size), device);
		goto fail;
	}
	MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, comm);
	MPI_Allgather(&device, 1, MPI_INT, devices, 1, MPI_INT, comm);
	for (int r = 0; r < heap->world && ok; r++) {
		int can = 1;
		if (r == heap->rank) {
			heap->base[r] = h->mine;
			continue;
		}
		if (devices[r] != device)
			hipDeviceCanAccessPeer(&can, device, devices[r]);
		else
			h->shared_gpu = 1;
		if (!can) {
			snprintf(err, len, "GPU %d (rank %d) cannot reach GPU %d (rank %d) as a peer",
				 device, heap->rank, devices[r], r);
			ok = 0;
		} else if (hipIpcOpenMemHandle((void **)&heap->base[r], all[r],
					       hipIpcMemLazyEnablePeerAccess) != hipSuccess) {
			snprintf(err, len, "opening rank %d's heap on GPU %d failed", r, device);
			ok = 0;
		}
	}
	if (ok)
		ok = hipMalloc((void **)&h->device_bases, sizeof(char *) * (size_t)heap->world) ==
			     hipSuccess &&
		     hipMemcpy(h->device_bases, heap->base, sizeof(char *) * (size_t)heap->world,
			       hipMemcpyHostToDevice) == hipSuccess;
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
	if (!ok) {
		if (!err[0])
			snprintf(err, len, "setting up the symmetric heap failed on another rank");
		goto fail;
	}
	/* NCCL refuses two ranks on one GPU; every rank must agree to skip it */
	MPI_Allreduce(MPI_IN_PLACE, &h->shared_gpu, 1, MPI_INT, MPI_MAX, comm);
	if (!h->shared_gpu)
		h->coll = gpu_vendor_comm_open(vendor, comm);
	heap->priv = h;
	free(all);
	free(devices);
	return FGO_OK;
fail:
	for (int r = 0; heap->base && r < heap->world; r++)
		if (r != heap->rank && heap->base[r])
			hipIpcCloseMemHandle(heap->base[r]);
	if (h && h->mine)
		hipFree(h->mine);
	free(h);
	free(heap->base);
	heap->base = NULL;
	free(all);
	free(devices);
	return FGO_EFAIL;
}

void gpu_heap_close(struct gpu_vendor *vendor, struct fgo_heap *heap)
{
	struct gpu_heap *h = heap->priv;
	if (h) {
		hipDeviceSynchronize();
		MPI_Barrier(heap->comm); /* no peer still writes into our heap */
		gpu_vendor_comm_close(vendor, h->coll);
		for (int r = 0; r < heap->world; r++)
			if (r != heap->rank)
				hipIpcCloseMemHandle(heap->base[r]);
		hipFree(h->device_bases);
		hipFree(h->mine);
		free(h);
	}
	free(heap->base);
	memset(heap, 0, sizeof *heap);
}
