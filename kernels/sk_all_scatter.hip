/* sk_all_scatter.hip: Stream-K GEMM + all-scatter with a CU split. The
 * grid is GEMM_SMS + COMM_SMS CTAs. The first GEMM_SMS split the MAC
 * iterations of this rank's tile space (M x N/W) evenly (streamk_gemm in
 * comm.h); the CTA that ends a tile stores it into this rank's C (columns
 * from rank * N_, ld NFULL) and raises flag [W * tiles + tile] here. The
 * last COMM_SMS CTAs push finished tiles (the c-th of every COMM_SMS) into
 * every peer's C and raise [rank * tiles + tile] there; fgo_wait waits for
 * every peer's tiles. Heads of split tiles go through fp32 slots (one per
 * GEMM CTA, at work_off) with flags [(W + 1) * tiles + cta]. Waits only
 * point at lower CTAs or at finished GEMM work: no cycle. */
#include "comm.h"

extern "C" __global__ void __launch_bounds__(THREADS) fgo_main(FGO_KERNEL_PARAMS)
{
	const struct launch L = FGO_LAUNCH;
	const struct sched_grid g = tile_grid();
	const long own = (long)rank * N_; /* this rank's first column of C */
	const long done0 = (long)WORLD * g.tiles, slot0 = done0 + g.tiles;
	float acc[ELEMS];

	if ((int)blockIdx.x < GEMM_SMS) {
		streamk_gemm(&L, &g, blockIdx.x, heap_at(&L, rank, a_off), heap_at(&L, rank, b_off),
			     (float *)heap_at(&L, rank, work_off), slot0, acc,
			     [&](long tile, long tm, long tn, float(&acc)[ELEMS]) {
				     if (L.mode != MODE_COMM_ONLY)
					     store_tile(heap_at(&L, L.rank, L.c_off) + own, NFULL, tm * BLK_M,
							tn * BLK_N, acc);
				     if (L.mode != MODE_GEMM_ONLY)
					     cta_publish_one(&L, L.rank, done0 + tile);
			     });
		return;
	}
	if (mode == MODE_GEMM_ONLY)
		return;
	for (long tile = (long)blockIdx.x - GEMM_SMS; tile < g.tiles; tile += COMM_SMS) {
		if (!cta_wait(&L, done0 + tile, 1, 1))
			return;
		long tm, tn;
		sched_tile_coords(&g, GSIZE_M, tile, &tm, &tn);
		const long at = tm * BLK_M * NFULL + own + tn * BLK_N;
		copy_to_peers(&L, heap_at(&L, rank, c_off) + at, c_off, at, NFULL, tile_rows(tm, M_),
			      tile_cols(tn, N_));
		cta_publish_peers(&L, (long)rank * g.tiles + tile);
	}
}

/* Waits for every peer's every tile. */
extern "C" __global__ void fgo_wait(FGO_KERNEL_PARAMS)
{
	const struct launch L = FGO_LAUNCH;
	const struct sched_grid g = tile_grid();
	wait_source_tiles(&L, &g);
}
