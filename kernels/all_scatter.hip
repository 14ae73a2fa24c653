/* all_scatter.hip: GEMM + all-scatter. Each CTA computes tiles of this
 * rank's column block of C (M x N, ld NFULL, own columns from rank * N_),
 * stores each into its own C and then straight from registers into every
 * peer's C, and raises flag [rank * tiles + tile] there with a
 * system-scope release. fgo_wait, launched after on the same stream,
 * returns when every peer's every tile has arrived (a separate kernel, so
 * no CTA ever waits while a tile it depends on is still unscheduled on its
 * own GPU). Comm-only mode copies the tiles already in this rank's C. */
#include "comm.h"

extern "C" __global__ void __launch_bounds__(THREADS) fgo_main(FGO_KERNEL_PARAMS)
{
	const struct launch L = FGO_LAUNCH;
	const elem_t *a = heap_at(&L, rank, a_off), *b = heap_at(&L, rank, b_off);
	const struct sched_grid g = tile_grid();
	float acc[ELEMS];

	for (long tile = blockIdx.x; tile < g.tiles; tile += gridDim.x) {
		long tm, tn;
		sched_tile_coords(&g, GSIZE_M, tile, &tm, &tn);
		long r0 = tm * BLK_M, c0 = tn * BLK_N;
		const long own = (long)rank * N_; /* this rank's first column of C */
		if (mode != MODE_COMM_ONLY) {
			gemm_tile(a, b, r0, c0, acc);
			store_tile(heap_at(&L, rank, c_off) + own, NFULL, r0, c0, acc);
		}
		if (mode == MODE_GEMM_ONLY)
			continue;
		if (mode == MODE_COMM_ONLY) {
			const long at = r0 * NFULL + own + c0;
			copy_to_peers(&L, heap_at(&L, rank, c_off) + at, c_off, at, NFULL, tile_rows(tm, M_),
				      tile_cols(tn, N_));
		} else {
			for (int s = 1; s < WORLD; s++)
				store_tile(heap_at(&L, sched_peer(rank, WORLD, s), c_off) + own, NFULL, r0, c0,
					   acc);
		}
		cta_publish_peers(&L, (long)rank * g.tiles + tile);
	}
}

/* Waits for every peer's every tile; gives up after timeout_ns and records
 * which flag in the status words. */
extern "C" __global__ void fgo_wait(FGO_KERNEL_PARAMS)
{
	const struct launch L = FGO_LAUNCH;
	const struct sched_grid g = tile_grid();
	wait_source_tiles(&L, &g);
}
