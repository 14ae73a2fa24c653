/* all_reduce.hip: GEMM + all-reduce, one-shot (default) and two-shot
 * (-DTWO_SHOT=1). K-sharded: this rank's A (M x K/W) times its B rows
 * (K/W x N) is a partial C over all of M x N (src/algos/ar_common.h).
 *
 * GEMM role: tile by tile in grouped order, the partial tile goes to this
 * rank's work area (M x N, ld N) and flag [tile * W + rank] is raised on
 * every rank (one-shot) or on the tile's owner (two-shot).
 * Comm role: once all W partials of a tile are up, one-shot sums them into
 * this rank's C; two-shot sums them on the owner only, stores the sum into
 * every rank's C and raises [tiles * W + tile] there, and fgo_wait (after
 * the main kernel) waits for the tiles other ranks own.
 * With COMM_SMS > 0 the last COMM_SMS CTAs do the comm role (the c-th of
 * every COMM_SMS tiles this rank sums); with 0 each CTA sums the tiles it
 * computed, one tile behind, so a sum overlaps the next tile's GEMM. No
 * CTA waits before it has published every earlier tile, so the waits form
 * no cycle across ranks (the grid is resident: the host checks). */
#include "comm.h"

#ifndef TWO_SHOT
#define TWO_SHOT 0
#endif

/* Whether this rank sums tile. */
__device__ __forceinline__ bool sums(const struct launch *L, long tile)
{
	return !TWO_SHOT || sched_tile_owner(tile, WORLD) == L->rank;
}

/* This rank's partial of tile into its work area, then the flags. */
__device__ __forceinline__ void partial(const struct launch *L, const struct sched_grid *g,
					long tile, float (&acc)[ELEMS])
{
	long tm, tn;
	sched_tile_coords(g, GSIZE_M, tile, &tm, &tn);
	if (L->mode != MODE_COMM_ONLY) {
		gemm_tile(heap_at(L, L->rank, L->a_off), heap_at(L, L->rank, L->b_off), tm * BLK_M,
			  tn * BLK_N, acc);
		store_tile(heap_at(L, L->rank, L->work_off), N_, tm * BLK_M, tn * BLK_N, acc);
	}
	if (L->mode == MODE_GEMM_ONLY)
		return;
	if (TWO_SHOT)
		cta_publish_one(L, sched_tile_owner(tile, WORLD), tile * WORLD + L->rank);
	else
		cta_publish_all(L, tile * WORLD + L->rank);
}

/* Sums tile over the W work areas once every partial is up. False when
 * the wait gave up. */
__device__ __forceinline__ bool reduce(const struct launch *L, const struct sched_grid *g, long tile)
{
	if (!cta_wait(L, tile * WORLD, WORLD, 1))
		return false;
	long tm, tn;
	sched_tile_coords(g, GSIZE_M, tile, &tm, &tn);
	long at = tm * BLK_M * N_ + tn * BLK_N;
	int rows = tile_rows(tm, M_), cols = tile_cols(tn, N_);
#if TWO_SHOT
	elem_t *dst[WORLD];
#pragma unroll
	for (int s = 0; s < WORLD; s++)
		dst[s] = heap_at(L, sched_peer(L->rank, WORLD, s), L->c_off) + at;
	sum_over_ranks(L, L->work_off, at, dst, N_, rows, cols);
	cta_publish_all(L, g->tiles * WORLD + tile);
#else
	elem_t *dst[1] = { heap_at(L, L->rank, L->c_off) + at };
	sum_over_ranks(L, L->work_off, at, dst, N_, rows, cols);
#endif
	return true;
}

extern "C" __global__ void __launch_bounds__(THREADS) fgo_main(FGO_KERNEL_PARAMS)
{
	const struct launch L = FGO_LAUNCH;
	const struct sched_grid g = tile_grid();
	const int gemm = gemm_ctas();
	const bool comm = L.mode != MODE_GEMM_ONLY;
	float acc[ELEMS];

	if ((int)blockIdx.x < gemm) {
		long prev = -1;
		for (long tile = blockIdx.x; tile < g.tiles; tile += gemm) {
			partial(&L, &g, tile, acc);
			if (COMM_SMS == 0 && comm && prev >= 0 && sums(&L, prev) && !reduce(&L, &g, prev))
				return;
			prev = tile;
		}
		if (COMM_SMS == 0 && comm && prev >= 0 && sums(&L, prev))
			reduce(&L, &g, prev);
		return;
	}
	if (!comm)
		return;
	long n = 0; /* tiles this rank sums, so far */
	for (long tile = 0; tile < g.tiles; tile++) {
		if (!sums(&L, tile))
			continue;
		if (n++ % COMM_SMS == (long)blockIdx.x - gemm && !reduce(&L, &g, tile))
			return;
	}
}

#if TWO_SHOT
/* One thread per tile another rank owns: waits for its sum to arrive. */
extern "C" __global__ void fgo_wait(FGO_KERNEL_PARAMS)
{
	const struct launch L = FGO_LAUNCH;
	const struct sched_grid g = tile_grid();
	long tile = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (tile < g.tiles && !sums(&L, tile))
		wait_flag(&L, g.tiles * WORLD + tile);
}
#endif
