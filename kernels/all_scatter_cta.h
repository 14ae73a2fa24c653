/* all_scatter_cta.h: what one CTA of all_scatter does, as device functions
 * of the launch (struct launch, comm.h), so the shipped kernel
 * (all_scatter.hip's fgo_main) and a kernel written against the user
 * contract (kernels/user/shipped_all_scatter: its entry builds the launch
 * from struct fgo_user_args) run the very same code.
 *
 *   all_scatter_comm(L, g)  comm-only mode, on every core: the tiles already
 *                           in this rank's C to the peers, then the wait
 *   all_scatter_cta(L)      the whole CTA on the mma.sync, MFMA and SIMT
 *                           cores (not MMA == 64: the wgmma core's kernel is
 *                           all_scatter.hip's own)
 *
 * Compiled with the shipped kernels' macros (gpu_jit_defines: DTYPE, WORLD,
 * M_, N_, K_, NFULL, LDA, LDB, the tile). Flags: [source * tiles + tile] of
 * L->flags_off, W * tiles of them. */
#ifndef FGO_ALL_SCATTER_CTA_H
#define FGO_ALL_SCATTER_CTA_H

#include "comm.h"

/* Comm-only mode, on either core: every CTA copies the tiles it would
 * compute, already in this rank's C, to the peers and raises their flags. */
__device__ __forceinline__ void scatter_stored_tiles(const struct launch *L, const struct sched_grid *g)
{
	const long own = (long)L->rank * N_;
	for (long tile = blockIdx.x; tile < g->tiles; tile += gridDim.x) {
		long tm, tn;
		sched_tile_coords(g, GSIZE_M, tile, &tm, &tn);
		const long at = tm * BLK_M * NFULL + own + tn * BLK_N;
		copy_to_peers(L, heap_at(L, L->rank, L->c_off) + at, L->c_off, at, NFULL, tile_rows(tm, M_),
			      tile_cols(tn, N_));
		cta_publish_peers(L, (long)L->rank * g->tiles + tile);
	}
}

/* Comm-only mode: the stored tiles out, then this CTA's share of the
 * peers' tiles in. */
__device__ __forceinline__ void all_scatter_comm(const struct launch *L, const struct sched_grid *g)
{
	scatter_stored_tiles(L, g);
	team_wait_sources(cta_team(), L, g->tiles, (long)blockIdx.x * THREADS, (long)gridDim.x * THREADS);
}

#if MMA != 64
/* The CTA's tiles of this rank's column block (persistent, grouped order):
 * each computed in registers, stored into this rank's C and then straight
 * from registers into every peer's C, its flag raised there; then the
 * CTA's share of the peers' tiles waited for. */
__device__ __forceinline__ void all_scatter_cta(const struct launch *L)
{
	const int rank = L->rank;
	const elem_t *a = heap_at(L, rank, L->a_off), *b = heap_at(L, rank, L->b_off);
	const struct sched_grid g = tile_grid();
	float acc[ELEMS];

	if (L->mode == MODE_COMM_ONLY) {
		all_scatter_comm(L, &g);
		return;
	}
	for (long tile = blockIdx.x; tile < g.tiles; tile += gridDim.x) {
		long tm, tn;
		sched_tile_coords(&g, GSIZE_M, tile, &tm, &tn);
		long r0 = tm * BLK_M, c0 = tn * BLK_N;
		const long own = (long)rank * N_; /* this rank's first column of C */
		FGO_TRACE_IF(threadIdx.x == 0, 0, FGO_TR_GEMM, tile, tm, tn, 0, g.k_iters);
		gemm_tile(a, b, r0, c0, acc);
		FGO_TRACE_IF(threadIdx.x == 0, 0, FGO_TR_GEMM | FGO_TR_END, tile, tm, tn, 0, g.k_iters);
		store_tile(heap_at(L, rank, L->c_off) + own, NFULL, r0, c0, acc);
		if (L->mode == MODE_GEMM_ONLY)
			continue;
		FGO_TRACE_IF(threadIdx.x == 0, 0, FGO_TR_PUT, -1, BLK_M * BLK_N * (int)sizeof(elem_t), tile, -1, -1);
		for (int s = 1; s < WORLD; s++)
			store_tile(heap_at(L, sched_peer(rank, WORLD, s), L->c_off) + own, NFULL, r0, c0, acc);
		cta_publish_peers(L, (long)rank * g.tiles + tile);
		FGO_TRACE_IF(threadIdx.x == 0, 0, FGO_TR_PUT | FGO_TR_END, -1, BLK_M * BLK_N * (int)sizeof(elem_t), tile, -1, -1);
	}
	team_wait_sources(cta_team(), L, g.tiles, (long)blockIdx.x * THREADS, (long)gridDim.x * THREADS);
}
#endif

#endif
