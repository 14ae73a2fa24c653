/* gemm.hip: the GEMM core alone (algorithm "gemm"): C = A x B_r for this
 * rank's column block, no communication. LDC = N_ (C is M x N/W). */
#include "gemm_core.h"

extern "C" __global__ void __launch_bounds__(THREADS) fgo_main(FGO_KERNEL_PARAMS)
{
	const elem_t *a = heap_elem(bases[rank], a_off), *b = heap_elem(bases[rank], b_off);
	elem_t *c = (elem_t *)(bases[rank] + c_off);
	struct sched_grid g = tile_grid();
	float acc[ELEMS];
	(void)epoch;
	(void)flags_off;
	(void)status_off;
	(void)timeout_ns;
	if (mode == 2)
		return;
	for (long tile = blockIdx.x; tile < g.tiles; tile += gridDim.x) {
		long tm, tn;
		sched_tile_coords(&g, GSIZE_M, tile, &tm, &tn);
		gemm_tile(a, b, tm * BLK_M, tn * BLK_N, acc);
		store_tile(c, N_, tm * BLK_M, tn * BLK_N, acc);
	}
}
