/* all_scatter.hip: GEMM + all-scatter. Each CTA computes tiles of this
 * rank's column block of C (M x N, ld NFULL, own columns from rank * N_),
 * stores each into its own C and then straight into every peer's C, and
 * raises flag [rank * tiles + tile] on the peer with a system-scope release.
 * fgo_wait, launched after on the same stream, returns when every peer's
 * every tile has arrived (a separate kernel, so no CTA ever waits while a
 * tile it depends on is still unscheduled on its own GPU). */
#include "gemm_core.h"

extern "C" __global__ void __launch_bounds__(THREADS) fgo_main(FGO_KERNEL_PARAMS)
{
	const elem_t *a = heap_elem(bases[rank], a_off), *b = heap_elem(bases[rank], b_off);
	struct sched_grid g = tile_grid();
	float acc[ELEMS];
	(void)status_off;
	(void)timeout_ns;
	for (long tile = blockIdx.x; tile < g.tiles; tile += gridDim.x) {
		long tm, tn;
		sched_tile_coords(&g, GSIZE_M, tile, &tm, &tn);
		long r0 = tm * BLK_M, c0 = tn * BLK_N + (long)rank * N_;
		elem_t *own = (elem_t *)(bases[rank] + c_off);
		if (mode != 2) {
			gemm_tile(a, b, tm * BLK_M, tn * BLK_N, acc);
			store_tile(own + (long)rank * N_, NFULL, r0, tn * BLK_N, acc);
		}
		if (mode == 1)
			continue;
		for (int s = 1; s < WORLD; s++) {
			int peer = sched_peer(rank, WORLD, s);
			elem_t *dst = (elem_t *)(bases[peer] + c_off);
			if (mode == 2)
				copy_tile(dst + (long)rank * N_, own + (long)rank * N_, NFULL, r0, tn * BLK_N);
			else
				store_tile(dst + (long)rank * N_, NFULL, r0, tn * BLK_N, acc);
		}
		(void)c0;
		__syncthreads();
		if (threadIdx.x == 0) {
			fgo_fence_system();
			for (int s = 1; s < WORLD; s++) {
				int peer = sched_peer(rank, WORLD, s);
				unsigned int *flags = (unsigned int *)(bases[peer] + flags_off);
				fgo_flag_release(flags + (long)rank * g.tiles + tile, epoch);
			}
		}
	}
}

/* One thread per (source, tile) flag of this rank; gives up after
 * timeout_ns and records it in the status word (the host reports a timeout). */
extern "C" __global__ void fgo_wait(FGO_KERNEL_PARAMS)
{
	struct sched_grid g = tile_grid();
	const unsigned int *flags = (const unsigned int *)(bases[rank] + flags_off);
	unsigned int *status = (unsigned int *)(bases[rank] + status_off);
	long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
	(void)a_off;
	(void)b_off;
	(void)c_off;
	(void)mode;
	if (i >= (long)WORLD * g.tiles || i / g.tiles == rank)
		return;
	unsigned long long start = fgo_now_ns();
	while ((int)(fgo_flag_acquire(flags + i) - epoch) < 0) {
		if (fgo_now_ns() - start > timeout_ns) {
			atomicMax(status, 1u);
			return;
		}
		fgo_sleep();
	}
}
