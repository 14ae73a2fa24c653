/* reduce_scatter.hip: GEMM + reduce-scatter. K-sharded like all_reduce,
 * but rank r keeps only rows [r * M/W, +M/W) of the summed C. The tile
 * space is one M/W x N row block (M_ = M/W); every rank computes all W
 * blocks of its partial C, peers' blocks first (block of rank
 * sched_peer(rank, W, s) at step s = 1 .. W, its own last), into its work
 * area (M x N, ld N), raising flag [tile * W + rank] on the block's owner.
 * The owner sums each of its tiles over the W work areas into its C
 * (M/W x N). With COMM_SMS > 0 the last COMM_SMS CTAs sum; with 0 each CTA
 * sums the own-block tiles it computed, one tile behind. Every CTA
 * publishes all peers' tiles before its first wait: no cycle. */
#include "comm.h"

/* Virtual tile v of this rank's W * tiles: block owner and tile in it. */
__device__ __forceinline__ void block_tile(const struct launch *L, const struct sched_grid *g,
					   long v, int *owner, long *tile)
{
	*owner = sched_peer(L->rank, WORLD, (int)(v / g->tiles + 1) % WORLD);
	*tile = v % g->tiles;
}

__device__ __forceinline__ void partial(const struct launch *L, const struct sched_grid *g,
					long v, float (&acc)[ELEMS])
{
	int owner;
	long tile, tm, tn;
	block_tile(L, g, v, &owner, &tile);
	sched_tile_coords(g, GSIZE_M, tile, &tm, &tn);
	if (L->mode != MODE_COMM_ONLY) {
		const long row0 = (long)owner * M_; /* the block's first row of the partial C */
		gemm_tile(heap_at(L, L->rank, L->a_off) + row0 * LDA, heap_at(L, L->rank, L->b_off),
			  tm * BLK_M, tn * BLK_N, acc);
		store_tile(heap_at(L, L->rank, L->work_off) + row0 * N_, N_, tm * BLK_M, tn * BLK_N, acc);
	}
	if (L->mode != MODE_GEMM_ONLY)
		cta_publish_one(L, owner, tile * WORLD + L->rank);
}

/* Owner: C tile = the sum of the W partials of its own tile. */
__device__ __forceinline__ bool reduce(const struct launch *L, const struct sched_grid *g, long tile)
{
	if (!cta_wait(L, tile * WORLD, WORLD, 1))
		return false;
	long tm, tn;
	sched_tile_coords(g, GSIZE_M, tile, &tm, &tn);
	const long at = tm * BLK_M * N_ + tn * BLK_N;
	const long mine = (long)L->rank * M_ * N_; /* own block in the work areas */
	elem_t *dst[1] = { heap_at(L, L->rank, L->c_off) + at };
	sum_over_ranks(L, L->work_off, mine + at, dst, N_, tile_rows(tm, M_), tile_cols(tn, N_));
	return true;
}

extern "C" __global__ void __launch_bounds__(THREADS) fgo_main(FGO_KERNEL_PARAMS)
{
	const struct launch L = FGO_LAUNCH;
	const struct sched_grid g = tile_grid();
	const long own0 = (long)(WORLD - 1) * g.tiles; /* first virtual tile of the own block */
	const int gemm = gemm_ctas();
	const bool comm = L.mode != MODE_GEMM_ONLY;
	float acc[ELEMS];

	if ((int)blockIdx.x < gemm) {
		long prev = -1;
		for (long v = blockIdx.x; v < (long)WORLD * g.tiles; v += gemm) {
			partial(&L, &g, v, acc);
			if (COMM_SMS == 0 && comm && prev >= own0 && !reduce(&L, &g, prev - own0))
				return;
			prev = v;
		}
		if (COMM_SMS == 0 && comm && prev >= own0)
			reduce(&L, &g, prev - own0);
		return;
	}
	if (!comm)
		return;
	for (long tile = (long)blockIdx.x - gemm; tile < g.tiles; tile += COMM_SMS)
		if (!reduce(&L, &g, tile))
			return;
}
