/* reduce_scatter.hip: GEMM + reduce-scatter. K-sharded like all_reduce,
 * but rank r keeps only rows [r * M/W, +M/W) of the summed C. The tile
 * space is one row block of GROUP owners, GROUP x M/W x N (M_ = GROUP x
 * M/W; GROUP = 1 unless M/W is shorter than a tile, sched_owner_group);
 * every rank computes all BLOCKS = W / GROUP blocks of its partial C,
 * peers' blocks first (the block of group sched_peer(rank / GROUP, BLOCKS,
 * s) at step s = 1 .. BLOCKS, its own last), into its work area (M x N,
 * ld N), raising flag [tile * W + rank] on each of the block's owners.
 * The owner sums each of its tiles over the W work areas into its C
 * (M/W x N). With COMM_SMS > 0 the last COMM_SMS CTAs sum; with 0 each CTA
 * sums the own-block tiles it computed, one tile behind. Every CTA
 * publishes all peers' tiles before its first wait: no cycle. On the
 * wgmma core (MMA=64) the storer and side warps do the comm role
 * (partial_out, sum_side below), and where a block is one owner's the
 * partials are pushed (RS_PUSH). */
#include "comm.h"

/* The push form (the wgmma core, one owner a block, W > 1): the storer's
 * warp copies each partial tile of a peer's block, once it is complete in
 * this rank's work area, into that owner's inbox (the second M x N of its
 * work area: source s's partial of the owner's block at RS_INBOX +
 * s x M/W x N) and raises its flag there, so the owner sums from its own
 * memory alone. Pulled, the owner read its peers' partials only once its
 * own, computed last, was there: the link idle while the peers' blocks
 * were computed and busy after, the reduction's reads the launch's tail
 * (two H100s, 4096 x 4096 x 14336: 55 us after the last GEMM tile). The
 * sums keep their order (sched_peer from this rank), so the C is the
 * same bit for bit. src/algos/reduce_scatter.c sizes the work area
 * (rs_pushes). */
#if MMA == 64
#define RS_PUSH (WORLD > 1 && GROUP == 1)
#else
#define RS_PUSH 0
#endif
#define RS_INBOX ((long)WORLD * OWN_M * N_)

/* GROUP owners a block, OWN_M rows each (comm.h). With GROUP > 1 a block
 * is one row of tiles, so an owner's tile has the index of the block's
 * tile it lies in. */

/* Virtual tile v of this rank's BLOCKS * tiles: the block's first owner
 * and the tile in it. */
__device__ __forceinline__ void block_tile(const struct launch *L, const struct sched_grid *g,
					   long v, int *first, long *tile)
{
	*first = GROUP * sched_peer(L->rank / GROUP, BLOCKS, (int)(v / g->tiles + 1) % BLOCKS);
	*tile = v % g->tiles;
}

/* Owner: team t sums its tile over the W partials into its C. False when
 * the wait gave up. */
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
	const long at = tm * BLK_M * N_ + tn * BLK_N;
	const long mine = (long)L->rank * OWN_M * N_; /* own block in the work areas */
	elem_t *dst[1] = { heap_at(L, L->rank, L->c_off) + at };
	if (RS_PUSH) { /* this rank's partial where it computed it, the peers' in the inbox */
		const elem_t *src[WORLD];
#pragma unroll
		for (int s = 0; s < WORLD; s++) {
			const int p = sched_peer(L->rank, WORLD, s);
			src[s] = heap_at(L, L->rank, L->work_off) +
				 (p == L->rank ? mine : RS_INBOX + (long)p * OWN_M * N_) + at;
		}
		block_sum<Team, WORLD, 1, team_depth<Team>::value>(t, dst, src, N_, tile_rows(tm, OWN_M),
								    tile_cols(tn, N_));
	} else {
		sum_over_ranks(t, L, L->work_off, mine + at, dst, N_, tile_rows(tm, OWN_M), tile_cols(tn, N_));
	}
	FGO_TRACE_IF(tr, lane, FGO_TR_REDUCE | FGO_TR_END, tile, WORLD, -1, -1, -1);
	return true;
}

/* After team t stored this rank's partial of virtual tile v: its flag on
 * each of the block's owners. */
template <class Team>
__device__ __forceinline__ void publish_partial(const Team &t, const struct launch *L,
						const struct sched_grid *g, long v)
{
	int first, owners[GROUP];
	long tile;
	block_tile(L, g, v, &first, &tile);
#pragma unroll
	for (int j = 0; j < GROUP; j++)
		owners[j] = first + j;
	team_publish(t, L, owners, GROUP, tile * WORLD + L->rank);
}

/* The push form's send of virtual tile v, complete in this rank's work
 * area: a peer's block's partial copied into its owner's inbox by team t,
 * then the flag (this rank's own block: the flag alone). */
template <class Team>
__device__ __forceinline__ void push_partial(const Team &t, const struct launch *L,
					     const struct sched_grid *g, long v)
{
	int owner;
	long tile, tm, tn;
	block_tile(L, g, v, &owner, &tile);
	if (owner != L->rank) {
		sched_tile_coords(g, GSIZE_M, tile, &tm, &tn);
		const long at = tm * BLK_M * N_ + tn * BLK_N;
		const elem_t *from[1] = { heap_at(L, L->rank, L->work_off) + (long)owner * OWN_M * N_ + at };
		elem_t *to[1] = { heap_at(L, owner, L->work_off) + RS_INBOX + (long)L->rank * OWN_M * N_ + at };
		block_sum<Team, 1, 1, team_depth<Team>::value>(t, to, from, N_, tile_rows(tm, OWN_M),
							       tile_cols(tn, N_));
	}
	publish_partial(t, L, g, v);
}

#if MMA == 64
#include "wgmma_walk.h" /* the walk: data-parallel, split-K or Stream-K */

/* On the wgmma core the core walks the BLOCKS blocks itself (block q's A
 * and work-area rows through tensor maps q, src/gpu/gpu_tma.c); the
 * storer sends each partial tile by TMA to this rank's work area and, once
 * it is there, raises its owners' flags (the push form: its warp first
 * copies a peer block's tile into the owner's inbox); the side warps sum
 * the own block's tiles this CTA ends (the own block comes last in the
 * walk) as their partials arrive, the last one with the consumers
 * (wg_tail_team; the push form: sum_side::claim_sums). */
struct partial_out {
	enum { storer_warp = RS_PUSH }; /* the push form's copies: the storer's warp */
	const struct fgo_tmaps *maps; /* block q's rows of this rank's work area */
	const struct launch *L;
	const struct sched_grid *g;
	/* every tile to this rank's work area, the CTA's last too (copies is
	 * the core's offer of TMA stores to the peers for that one: the
	 * partial goes to one owner's inbox, which no tensor map holds) */
	__device__ void store(const struct wg_part &p, int q, long, bool = false) const
	{
		wg_store_boxes(&maps->m[q], p);
	}
	__device__ bool publishes() const { return L->mode == MODE_FUSED; }
	__device__ void publish(long v, bool = false) const
	{
		if (RS_PUSH)
			push_partial(wg_storer_team(), L, g, v);
		else
			publish_partial(wg_solo_team(), L, g, v);
	}
};
struct sum_side {
	enum { producer_regs = 80 };
	const struct launch *L;
	const struct sched_grid *g;
	int *claims; /* the push form's: own tiles claimed so far, then each team's claim */
	/* the own block's tiles this CTA ends but its last; that one with the
	 * consumers (tail). The push form: each of them by whichever team
	 * claims it first, the last by the consumers (claim_sums) */
	template <class Walk> __device__ void run(const struct wg_side_team &t, const Walk &walk) const
	{
		if (L->mode != MODE_FUSED)
			return;
		if (RS_PUSH) {
			claim_sums(t, walk, 1);
			return;
		}
		const long last = walk.last_end();
		walk.each_end([&](long v) { return v == last || v < own0() || reduce(t, L, g, v - own0()); });
		tail_sum(wg_tail_team(), last); /* even after a wait gave up: the team waits for us */
	}
	template <class Walk> __device__ void tail(const struct wg_tail_team &t, const Walk &walk) const
	{
		if (L->mode != MODE_FUSED)
			return;
		if (RS_PUSH)
			claim_sums(wg_consumer_team(), walk, 2);
		else
			tail_sum(t, walk.last_end());
	}
	__device__ long own0() const { return (long)(BLOCKS - 1) * g->tiles; }
	__device__ bool tail_sum(const struct wg_tail_team &t, long last) const
	{
		return last < own0() || reduce(t, L, g, last - own0());
	}
	/* The push form: the partials are local, so a sum is a read of W
	 * tiles from this GPU's memory, too much for the side warps alone
	 * where C is large (four H100s, 4096 x 14336 x 4096: the own block's
	 * sums took ~150 us after the last GEMM tile). The side warps take
	 * the own tiles this CTA ends but its last one at a time, in its
	 * order, while the consumers compute; the consumers, once their last
	 * tile is staged, take what is left beside them, then the last (the
	 * side warps alone summing a CTA's only own tile made M = 1024 at W=4
	 * 1.10-1.12x slower). Team `slot` (1: side, 2: consumers) claims the
	 * next by claims[0] and reads it back from claims[slot]; no team
	 * waits for the other. */
	template <class Team, class Walk>
	__device__ void claim_sums(const Team &t, const Walk &walk, int slot) const
	{
		const long last = walk.last_end();
		for (;;) {
			if (t.tid() == 0)
				claims[slot] = atomicAdd(claims, 1);
			t.sync();
			const int i = claims[slot];
			t.sync(); /* read by every thread before the next claim */
			long v = -1;
			int seen = 0;
			walk.each_end([&](long e) {
				if (e >= own0() && e != last && seen++ == i)
					v = e;
				return v < 0;
			});
			if (v < 0)
				break;
			if (!reduce(t, L, g, v - own0()))
				return;
		}
		if (slot == 2 && last >= own0())
			reduce(t, L, g, last - own0());
	}
};

extern "C" __global__ void __launch_bounds__(THREADS, 1) WG_CLUSTER_DIMS
	fgo_main(FGO_KERNEL_PARAMS, FGO_TMAP_PARAMS)
{
	FGO_TRACE_KERNEL(mode);
	const struct launch L = FGO_LAUNCH;
	const struct sched_grid g = tile_grid();
	const long own0 = (long)(BLOCKS - 1) * g.tiles;

	if (mode == MODE_COMM_ONLY) { /* the partials are already in the work areas */
		for (long v = blockIdx.x; v < (long)BLOCKS * g.tiles; v += gridDim.x)
			if (RS_PUSH)
				push_partial(cta_team(), &L, &g, v);
			else
				publish_partial(cta_team(), &L, &g, v);
		for (long v = blockIdx.x; v < (long)BLOCKS * g.tiles; v += gridDim.x)
			if (v >= own0 && !reduce(cta_team(), &L, &g, v - own0))
				return;
		return;
	}
	struct wg_block_a in;
	struct partial_out out;
	struct sum_side side;
	struct wg_watch watch;
	in.maps = &maps_a;
	out.maps = &maps_c;
	out.L = &L;
	out.g = &g;
	side.L = &L;
	side.g = &g;
	__shared__ int claims[3];
	if (threadIdx.x == 0)
		claims[0] = 0; /* before the walk's first barrier */
	side.claims = claims;
	watch.status = L.status;
	watch.timeout_ns = L.timeout_ns;
	wgmma_gemm_walked(&L, in, &map_b, watch, out, side);
}
#else
__device__ __forceinline__ void partial(const struct launch *L, const struct sched_grid *g,
					long v, float (&acc)[ELEMS])
{
	int first;
	long tile, tm, tn;
	block_tile(L, g, v, &first, &tile);
	sched_tile_coords(g, GSIZE_M, tile, &tm, &tn);
	if (L->mode != MODE_COMM_ONLY) {
		const long row0 = (long)first * OWN_M; /* the block's first row of the partial C */
		FGO_TRACE_IF(threadIdx.x == 0, 0, FGO_TR_GEMM, v, tm, tn, 0, K_ / BLK_K);
		gemm_tile(heap_at(L, L->rank, L->a_off) + row0 * LDA, heap_at(L, L->rank, L->b_off),
			  tm * BLK_M, tn * BLK_N, acc);
		FGO_TRACE_IF(threadIdx.x == 0, 0, FGO_TR_GEMM | FGO_TR_END, v, tm, tn, 0, K_ / BLK_K);
		store_tile(heap_at(L, L->rank, L->work_off) + row0 * N_, N_, tm * BLK_M, tn * BLK_N, acc);
	}
	if (L->mode != MODE_GEMM_ONLY)
		publish_partial(cta_team(), L, g, v);
}

extern "C" __global__ void __launch_bounds__(THREADS) fgo_main(FGO_KERNEL_PARAMS)
{
	FGO_TRACE_KERNEL(mode);
	const struct launch L = FGO_LAUNCH;
	const struct sched_grid g = tile_grid();
	const long own0 = (long)(BLOCKS - 1) * g.tiles; /* first virtual tile of the own block */
	const int gemm = gemm_ctas();
	const bool comm = L.mode != MODE_GEMM_ONLY;
	const struct cta_team cta;
	float acc[ELEMS];

	if ((int)blockIdx.x < gemm) {
		long prev = -1;
		for (long v = blockIdx.x; v < (long)BLOCKS * g.tiles; v += gemm) {
			partial(&L, &g, v, acc);
			if (COMM_SMS == 0 && comm && prev >= own0 && !reduce(cta, &L, &g, prev - own0))
				return;
			prev = v;
		}
		if (COMM_SMS == 0 && comm && prev >= own0)
			reduce(cta, &L, &g, prev - own0);
		return;
	}
	if (!comm)
		return;
	for (long tile = (long)blockIdx.x - gemm; tile < g.tiles; tile += COMM_SMS)
		if (!reduce(cta, &L, &g, tile))
			return;
}
#endif
