/* all_reduce.hip: GEMM + all-reduce, one-shot (default) and two-shot
 * (-DTWO_SHOT=1). K-sharded: this rank's A (M x K/W) times its B rows
 * (K/W x N) is a partial C over all of M x N (src/algos/ar_common.h).
 *
 * GEMM role: tile by tile in grouped order, the partial tile goes to this
 * rank's work area (M x N, ld N) and flag [tile * W + rank] is raised on
 * every rank (one-shot) or on the tile's owner (two-shot).
 * Comm role: once all W partials of a tile are up, one-shot sums them into
 * this rank's C; two-shot sums them on the owner only, stores the sum into
 * every rank's C and raises [tiles * W + tile] there, and each CTA then
 * waits for its share of the tiles other ranks own (sums_arrived).
 * With COMM_SMS > 0 the last COMM_SMS CTAs do the comm role (the c-th of
 * every COMM_SMS tiles this rank sums); with 0 each CTA sums the tiles it
 * computed, one tile behind, so a sum overlaps the next tile's GEMM. No
 * CTA waits before it has published every earlier tile, so the waits form
 * no cycle across ranks (the grid is resident: the host checks).
 * On the wgmma core (MMA=64) the storer and side warps do the comm role
 * (partial_out, sum_side below). */
#include "comm.h"

#include "ar_shots.h" /* who sums a tile: TWO_SHOT from the host (gpu_variant) */

/* Team t sums tile over the W work areas once every partial is up. False
 * when the wait gave up. */
template <class Team>
__device__ __forceinline__ bool reduce(const Team &t, const struct launch *L,
				       const struct sched_grid *g, long tile)
{
	/* traced by the team's thread 0: lane 0 for the CTA, 2 for the side warps */
	const bool tr = t.tid() == 0;
	const int lane = t.size() == THREADS ? 0 : 2;
	(void)tr;
	(void)lane;
	FGO_TRACE_IF(tr, lane, FGO_TR_WAIT, tile * WORLD, -1, -1, -1, -1);
	if (!team_wait(t, L, tile * WORLD, WORLD, 1))
		return false;
	FGO_TRACE_IF(tr, lane, FGO_TR_WAIT | FGO_TR_END, tile * WORLD, -1, -1, -1, -1);
	FGO_TRACE_IF(tr, lane, FGO_TR_REDUCE, tile, WORLD, -1, -1, -1);
	long tm, tn;
	sched_tile_coords(g, GSIZE_M, tile, &tm, &tn);
	long at = tm * BLK_M * N_ + tn * BLK_N;
	int rows = tile_rows(tm, M_), cols = tile_cols(tn, N_);
	elem_t *dst[TWO_SHOT ? WORLD : 1];
	sum_destinations(L, at, dst);
	sum_over_ranks(t, L, L->work_off, at, dst, N_, rows, cols);
	publish_sum(t, L, g, tile);
	FGO_TRACE_IF(tr, lane, FGO_TR_REDUCE | FGO_TR_END, tile, WORLD, -1, -1, -1);
	return true;
}

#if MMA == 64
#include "wgmma_walk.h" /* the walk: data-parallel, split-K or Stream-K */

/* On the wgmma core the storer thread sends each partial tile by TMA to
 * this rank's work area and, once the stores are done, raises its flags;
 * the side warps sum the tiles this CTA ends (on its walk) as their
 * partials arrive, while the consumers compute the next ones; the last
 * one, which nothing hides, with the consumers (wg_tail_team). */
struct partial_out {
	const struct fgo_tmap *map; /* this rank's work area */
	const struct launch *L;
	__device__ void store(const struct wg_part &p, int, long) const { wg_store_boxes(map, p); }
	__device__ bool publishes() const { return L->mode == MODE_FUSED; }
	__device__ void publish(long tile) const { publish_partial(wg_solo_team(), L, tile); }
};
struct sum_side {
	enum { producer_regs = 80 };
	const struct launch *L;
	const struct sched_grid *g;
	/* every tile this CTA ends but its last; that one with the consumers
	 * (tail), then, two-shot, the sums other ranks own */
	template <class Walk> __device__ void run(const struct wg_side_team &t, const Walk &walk) const
	{
		if (L->mode != MODE_FUSED)
			return;
		const long last = walk.last_end();
		bool ok = walk.each_end(
			[&](long tile) { return tile == last || !sums(L, tile) || reduce(t, L, g, tile); });
		ok = tail_sum(wg_tail_team(), last) && ok; /* even after a wait gave up: the team waits for us */
		if (ok)
			sums_arrived(t, L, g, (long)blockIdx.x * t.size(), (long)gridDim.x * t.size());
	}
	template <class Walk> __device__ void tail(const struct wg_tail_team &t, const Walk &walk) const
	{
		if (L->mode == MODE_FUSED)
			tail_sum(t, walk.last_end());
	}
	__device__ bool tail_sum(const struct wg_tail_team &t, long last) const
	{
		return last < 0 || !sums(L, last) || reduce(t, L, g, last);
	}
};

extern "C" __global__ void __launch_bounds__(THREADS, 1) WG_CLUSTER_DIMS
	fgo_main(FGO_KERNEL_PARAMS, FGO_TMAP_PARAMS)
{
	FGO_TRACE_KERNEL(mode);
	const struct launch L = FGO_LAUNCH;
	const struct sched_grid g = tile_grid();

	if (mode == MODE_COMM_ONLY) { /* the partials are already in the work areas */
		for (long tile = blockIdx.x; tile < g.tiles; tile += gridDim.x)
			publish_partial(cta_team(), &L, tile);
		for (long tile = blockIdx.x; tile < g.tiles; tile += gridDim.x)
			if (sums(&L, tile) && !reduce(cta_team(), &L, &g, tile))
				return;
		sums_arrived(cta_team(), &L, &g, (long)blockIdx.x * THREADS, (long)gridDim.x * THREADS);
		return;
	}
	struct wg_local_a in;
	struct partial_out out;
	struct sum_side side;
	struct wg_watch watch;
	in.map = &maps_a.m[rank];
	out.map = &maps_c.m[rank];
	out.L = &L;
	side.L = &L;
	side.g = &g;
	watch.status = L.status;
	watch.timeout_ns = L.timeout_ns;
	wgmma_gemm_walked(&L, in, &map_b, watch, out, side);
}
#else
/* This rank's partial of tile into its work area, then the flags. */
__device__ __forceinline__ void partial(const struct launch *L, const struct sched_grid *g,
					long tile, float (&acc)[ELEMS])
{
	long tm, tn;
	sched_tile_coords(g, GSIZE_M, tile, &tm, &tn);
	if (L->mode != MODE_COMM_ONLY) {
		FGO_TRACE_IF(threadIdx.x == 0, 0, FGO_TR_GEMM, tile, tm, tn, 0, K_ / BLK_K);
		gemm_tile(heap_at(L, L->rank, L->a_off), heap_at(L, L->rank, L->b_off), tm * BLK_M,
			  tn * BLK_N, acc);
		FGO_TRACE_IF(threadIdx.x == 0, 0, FGO_TR_GEMM | FGO_TR_END, tile, tm, tn, 0, K_ / BLK_K);
		store_tile(heap_at(L, L->rank, L->work_off), N_, tm * BLK_M, tn * BLK_N, acc);
	}
	if (L->mode != MODE_GEMM_ONLY)
		publish_partial(cta_team(), L, tile);
}

extern "C" __global__ void __launch_bounds__(THREADS) fgo_main(FGO_KERNEL_PARAMS)
{
	FGO_TRACE_KERNEL(mode);
	const struct launch L = FGO_LAUNCH;
	const struct sched_grid g = tile_grid();
	const int gemm = gemm_ctas();
	const bool comm = L.mode != MODE_GEMM_ONLY;
	const struct cta_team cta;
	float acc[ELEMS];

	if ((int)blockIdx.x < gemm) {
		long prev = -1;
		for (long tile = blockIdx.x; tile < g.tiles; tile += gemm) {
			partial(&L, &g, tile, acc);
			if (COMM_SMS == 0 && comm && prev >= 0 && sums(&L, prev) && !reduce(cta, &L, &g, prev))
				return;
			prev = tile;
		}
		if (COMM_SMS == 0 && comm && prev >= 0 && sums(&L, prev) && !reduce(cta, &L, &g, prev))
			return;
	} else if (comm) {
		long n = 0; /* tiles this rank sums, so far */
		for (long tile = 0; tile < g.tiles; tile++) {
			if (!sums(&L, tile))
				continue;
			if (n++ % COMM_SMS == (long)blockIdx.x - gemm && !reduce(cta, &L, &g, tile))
				return;
		}
	}
	sums_arrived(cta, &L, &g, (long)blockIdx.x * THREADS, (long)gridDim.x * THREADS);
}
#endif
