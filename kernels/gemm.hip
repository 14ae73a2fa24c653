/* gemm.hip: the GEMM core alone (algorithm "gemm"): C = A x B_r for this
 * rank's column block, no communication. LDC = N_ (C is M x N/W). */
#include "comm.h"

extern "C" __global__ void __launch_bounds__(THREADS) fgo_main(FGO_KERNEL_PARAMS)
{
	const struct launch L = FGO_LAUNCH;
	const elem_t *a = heap_at(&L, rank, a_off), *b = heap_at(&L, rank, b_off);
	elem_t *c = heap_at(&L, rank, c_off);
	const struct sched_grid g = tile_grid();
	float acc[ELEMS];

	if (mode == MODE_COMM_ONLY)
		return;
	for (long tile = blockIdx.x; tile < g.tiles; tile += gridDim.x) {
		long tm, tn;
		sched_tile_coords(&g, GSIZE_M, tile, &tm, &tn);
		gemm_tile(a, b, tm * BLK_M, tn * BLK_N, acc);
		store_tile(c, N_, tm * BLK_M, tn * BLK_N, acc);
	}
}
