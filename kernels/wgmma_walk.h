/* wgmma_walk.h: the walk of the wgmma core (core_wgmma.h, wgmma_gemm_walk)
 * for every family: schedule.h's sched_walk over the BLOCKS x tiles of the
 * family, with the GEMM CTAs of the grid (all but the last COMM_SMS):
 *   data-parallel (the default): whole tiles blockIdx.x, + ctas, ...;
 *   split-K (SPLIT_K > 1): units of one K slice of one tile, slice-major;
 *     the slices before the last add their accumulators into the tile's
 *     fp32 sum in the exchange area (16-byte atomics in L2, in each consumer
 *     thread's own register order) and raise one flag each (per tile,
 *     consumer and slice); the last slice waits for them, adds the sum,
 *     zeroes it for the next launch and ends the tile;
 *   Stream-K (STREAM_K 1, the only form the host asks for: the hybrid,
 *     whole waves data-parallel and the last partial wave Stream-K, the
 *     sk_* families' too): a
 *     hand-over (only ever a CTA's first Stream-K segment) adds the
 *     consumers' accumulators into the tile's fp32 sum (16-byte atomics in
 *     L2, as split-K's) and raises the CTA's flag; a take-over (the CTA
 *     holding the tile's first iteration, at the end of its range) waits
 *     for the flags of the CTAs that handed over the rest of its tile, adds
 *     the sum and zeroes it. The sum's order of addition is not fixed (the
 *     CPU backend adds per-CTA slots in CTA order); a tile cut into 33
 *     pieces read one slot after another by the CTA that ends it took
 *     twice as long on one H100. Where the host finds a tile cut into few
 *     pieces (WG_SK_SLOTS: src/algos/kit.h, kit_sk_slots) the walk takes
 *     the slots below instead, the code DETERMINISTIC compiles;
 *   DETERMINISTIC (1: the configuration asks for bitwise repeatable sums):
 *     no atomics; each piece stores its accumulators in a slot of its own
 *     (split-K: one per tile, slice before the last and consumer; Stream-K:
 *     one per CTA and consumer, as the CPU backend's), and the unit that
 *     ends the tile adds the slots to its own accumulators in a fixed
 *     order (slice 0, 1, ...; CTA take_first ... take_last), so the same
 *     inputs give the same bits on every launch. Split 2 takes the slots
 *     always (WG_SPLIT_SLOTS: one hand-over, a store, no zeroing).
 * The tile a segment ends goes out through the core's storer like any
 * tile, so the family's epilogue (stores, puts to peers, partial sums)
 * still runs tile by tile, and the side warps follow the same walk
 * (wg_walk::each_end). A unit waits only for units that come before it in
 * their own CTA's order and wait for nothing themselves: deadlock-free
 * with every CTA resident (the host sizes the grid so). The exchange's
 * offset and first flag come from the layout (src/algos/kit.c:
 * kit_xchg_place) as XCHG_OFF and XCHG_FLAG0. */
#ifndef FGO_WGMMA_WALK_H
#define FGO_WGMMA_WALK_H

#include "comm.h"

#ifndef SPLIT_K
#define SPLIT_K 1
#endif
#ifndef STREAM_K
#define STREAM_K 0
#endif
#if (SPLIT_K > 1 || STREAM_K) && (!defined(XCHG_OFF) || !defined(XCHG_FLAG0))
#error "XCHG_OFF and XCHG_FLAG0 (the layout's exchange area and its flags) come from the host"
#endif
#if SPLIT_K > 1 && STREAM_K
#error "split-K and Stream-K exclude each other (the host refuses both)"
#endif
#if defined(CLUSTER) && CLUSTER > 1 && (STREAM_K || COMM_SMS > 0)
#error "a cluster walks whole tiles or split-K slices, with no comm CTAs (the host refuses the rest)"
#endif
#ifndef DETERMINISTIC
#define DETERMINISTIC 0
#endif
/* Split-K through slots (a slot per slice before the last, plain stores,
 * the last slice reading them in order) rather than one sum in L2
 * (16-byte reductions, read back and zeroed for the next launch): what
 * determinism needs, and at split 2, where one slice hands over, cheaper
 * (a store for a reduction, no zeroing pass): on one H100 the tail of
 * 128 x 4096 x 4096, 64x128 k2, was 7.5 of 25 us with the sum. The slots
 * and the sum take the same room at split 2 (kit_xchg_place). */
#define WG_SPLIT_SLOTS (DETERMINISTIC || SPLIT_K == 2)
/* Stream-K through the slots too where the host found a tile cut into few
 * pieces (src/algos/kit.h, kit_sk_slots: WG_SK_SLOTS 1): a take-over reads
 * a few slots in order, cheaper than every piece's atomics into the sum
 * and its zeroing (on one H100, 6091 x 1520 x 2416 at 5 pieces a tile:
 * 80.7 us against 86.0); with many pieces the reads in turn cost more. */
#ifndef WG_SK_SLOTS
#define WG_SK_SLOTS 0
#endif

/* The first row (of the consumer's WG_ROWS part) of this thread's float4
 * e of its accumulators (acc[4e .. 4e + 3]: two columns of that row and of
 * the row 8 below it, core_wgmma.h's layout). A float4 whose first row is
 * at or past the part's last row inside M (`rows`) holds only rows that no
 * store keeps: the sums below skip it, so a skinny tile (M = 1 in a 64-row
 * tile) hands over its one row, not 64 (on one H100 the split-K tail of
 * 1 x 1024 x 14336, 64x64 k8, was 4.3 of 19.5 us, writing and reading back
 * 16 KiB a slice for 64 bytes that count). */
__device__ __forceinline__ int wg_acc_row(int e)
{
	const int t = threadIdx.x % 128;
#if WG_SWAP /* C's transpose: float4 e holds rows e * 8 + (l % 4) * 2 and the one after */
	return e * 8 + (t % 4) * 2;
#else
	return (e / (BLK_N / 8)) * 64 + (t / 32) * 16 + (t % 32) / 4;
#endif
}

/* Fixed-order sums: a piece's accumulators into its own slot (this
 * thread's float4s, as sum_of lays them out), and a slot added to acc;
 * only the float4s with rows inside the part's first `rows`. */
__device__ __forceinline__ void wg_slot_store(float4 *slot, const float (&acc)[WG_ACC], long rows)
{
#pragma unroll
	for (int e = 0; e < WG_ACC / 4; e++) /* to L2: the CTA that ends the tile reads it */
		if (wg_acc_row(e) < rows)
			__stcg(slot + e * 128,
			       make_float4(acc[4 * e], acc[4 * e + 1], acc[4 * e + 2], acc[4 * e + 3]));
}
/* acc's float4 e += x */
__device__ __forceinline__ void wg_acc_add(float (&acc)[WG_ACC], int e, float4 x)
{
	acc[4 * e] += x.x;
	acc[4 * e + 1] += x.y;
	acc[4 * e + 2] += x.z;
	acc[4 * e + 3] += x.w;
}
__device__ __forceinline__ void wg_slot_add(const float4 *slot, float (&acc)[WG_ACC], long rows)
{
#pragma unroll
	for (int e = 0; e < WG_ACC / 4; e++)
		if (wg_acc_row(e) < rows)
			wg_acc_add(acc, e, __ldcg(slot + e * 128));
}
/* Into a sum in L2 (16-byte reductions), and a sum added to acc and zeroed
 * for the next launch: the same rows only. */
__device__ __forceinline__ void wg_sum_add(float4 *sum, const float (&acc)[WG_ACC], long rows)
{
#pragma unroll
	for (int e = 0; e < WG_ACC / 4; e++)
		if (wg_acc_row(e) < rows)
			atomicAdd(sum + e * 128,
				  make_float4(acc[4 * e], acc[4 * e + 1], acc[4 * e + 2], acc[4 * e + 3]));
}
__device__ __forceinline__ void wg_sum_take(float4 *sum, float (&acc)[WG_ACC], long rows)
{
#pragma unroll
	for (int e = 0; e < WG_ACC / 4; e++) {
		if (wg_acc_row(e) >= rows)
			continue;
		wg_acc_add(acc, e, __ldcg(sum + e * 128));
		sum[e * 128] = make_float4(0.0f, 0.0f, 0.0f, 0.0f); /* the next launch starts from zero */
	}
}

#include "wgmma_cluster_k.h" /* WG_CLUSTER_K: a cluster holds a tile's K slices */

/* One consumer warpgroup as a team: named barrier 3 + c over its 128
 * threads (1 and 2 are the side warps' and the consumers'). */
struct wg_one_consumer_team {
	int c;
	__device__ int tid() const { return (int)threadIdx.x % 128; }
	__device__ int size() const { return 128; }
	__device__ void sync() const { asm volatile("bar.sync %0, 128;" ::"r"(3 + c) : "memory"); }
	__device__ bool all(bool p) const
	{
		unsigned int r;
		asm volatile("{\n.reg .pred p, q;\n"
			     "setp.ne.u32 p, %1, 0;\n"
			     "bar.red.and.pred q, %2, 128, p;\n"
			     "selp.u32 %0, 1, 0, q;\n}\n"
			     : "=r"(r)
			     : "r"((unsigned int)p), "r"(3 + c)
			     : "memory");
		return r != 0;
	}
};

struct wg_walk {
	const struct launch *L;
	struct sched_walk w;
	int cta;
	float *xchg; /* per (split-K or Stream-K) tile and consumer: WG_ACC x 128 fp32 */

	__device__ bool first(struct sched_seg &s) const { return sched_walk_first(&w, cta, &s) != 0; }
	__device__ bool next(struct sched_seg &s) const { return sched_walk_next(&w, cta, &s) != 0; }
	__device__ bool ends(const struct sched_seg &s) const { return sched_seg_ends(&w, &s) != 0; }

	/* Rows of consumer c's part of tile v inside M (WG_ROWS or fewer; 0 or
	 * less: none, as in the padding rows of a tile past M); swapped on two
	 * consumers, each consumer's part has all the tile's rows (on one, c
	 * is 0). */
	__device__ long rows_in(long v, int c) const
	{
		const struct sched_grid g = sched_grid_make(M_, N_, K_, BLK_M, BLK_N, BLK_K);
		long tm, tn;
		sched_tile_coords(&g, GSIZE_M, v % g.tiles, &tm, &tn);
		return (long)M_ - tm * BLK_M - (WG_SWAP && WG_CONSUMERS > 1 ? 0 : (long)c * WG_ROWS);
	}

#if !WG_CLUSTER_K
	__device__ void drain(int) const {} /* nothing of this CTA's is another's */
#endif

	/* The last tile this CTA ends (-1: none). */
	__device__ long last_end() const
	{
		long last = -1;
		struct sched_seg s;
		for (bool more = first(s); more; more = next(s))
			if (ends(s) && !s.ghost)
				last = s.tile;
		return last;
	}

	/* fn(tile) for every tile this CTA ends, in its order (the side warps) */
	template <class Fn> __device__ bool each_end(Fn fn) const
	{
		struct sched_seg s;
		for (bool more = first(s); more; more = next(s))
			if (ends(s) && !s.ghost && !fn(s.tile))
				return false;
		return true;
	}

#if WG_CLUSTER_K
	/* the i-th tile of this CTA's cluster uses phase i of the slot barriers */
	__device__ unsigned int k_parity(const struct sched_seg &s) const
	{
		return (unsigned int)(((s.pos - cta / CLUSTER) / (w.ctas / CLUSTER)) & 1);
	}
	__device__ struct wg_watch k_watch() const
	{
		struct wg_watch x;
		x.status = L->status;
		x.timeout_ns = L->timeout_ns;
		return x;
	}
	/* slice s.slice (= this CTA's rank) into the leader's slot */
	__device__ void hand_over(const struct sched_seg &s, int c, const float (&acc)[WG_ACC]) const
	{ /* traced by consumer 0's lane 0 */
		FGO_TRACE_IF(c == 0 && threadIdx.x % 128 == 0, 0, FGO_TR_HANDOVER, s.tile, s.k0, s.k1, -1, -1);
		wg_k_hand_over(s.slice, c, acc, rows_in(s.tile, c), k_parity(s), k_watch());
		FGO_TRACE_IF(c == 0 && threadIdx.x % 128 == 0, 0, FGO_TR_HANDOVER | FGO_TR_END, s.tile, s.k0,
			     s.k1, -1, -1);
	}
	__device__ void take_over(const struct sched_seg &s, int c, float (&acc)[WG_ACC]) const
	{
		FGO_TRACE_IF(c == 0 && threadIdx.x % 128 == 0, 0, FGO_TR_TAKEOVER, s.tile, 0, s.slice, -1, -1);
		wg_k_take_over(c, acc, rows_in(s.tile, c), k_parity(s), k_watch());
		FGO_TRACE_IF(c == 0 && threadIdx.x % 128 == 0, 0, FGO_TR_TAKEOVER | FGO_TR_END, s.tile, 0,
			     s.slice, -1, -1);
	}
	/* a slice before the last: the leader has read the last slot it wrote */
	__device__ void drain(int c) const
	{
		struct sched_seg s;
		long n = 0;
		if (cta % CLUSTER == CLUSTER - 1)
			return;
		for (bool more = first(s); more; more = next(s))
			n++;
		if (n > 0)
			mbar_wait(wg_k_empty(c), (unsigned int)((n - 1) & 1), WG_BAR_K_EMPTY + c, k_watch());
	}
#elif SPLIT_K > 1
	/* consumer c's sum of tile v, as this thread's float4s: its
	 * accumulators 4e .. 4e + 3 at [e * 128] */
	__device__ float4 *sum_of(long v, int c) const
	{
		return (float4 *)(xchg + (v * WG_CONSUMERS + c) * (long)WG_ACC * 128) +
		       threadIdx.x % 128;
	}
	__device__ long flag_of(long v, int c) const
	{
		return XCHG_FLAG0 + (v * WG_CONSUMERS + c) * (SPLIT_K - 1);
	}
#if WG_SPLIT_SLOTS
	/* consumer c's slot of slice `slice` (< SPLIT_K - 1) of tile v */
	__device__ float4 *slot_of(long v, int slice, int c) const
	{
		return (float4 *)(xchg + ((v * (SPLIT_K - 1) + slice) * WG_CONSUMERS + c) *
						 (long)WG_ACC * 128) +
		       threadIdx.x % 128;
	}
	__device__ void hand_over(const struct sched_seg &s, int c, const float (&acc)[WG_ACC]) const
	{
		wg_slot_store(slot_of(s.tile, s.slice, c), acc, rows_in(s.tile, c));
		struct wg_one_consumer_team team;
		team.c = c;
		team_publish_gpu(team, L, flag_of(s.tile, c) + s.slice);
	}
	__device__ void take_over(const struct sched_seg &s, int c, float (&acc)[WG_ACC]) const
	{
		struct wg_one_consumer_team team;
		team.c = c;
		/* gave up: the launch is lost (the status words say why); go on */
		team_wait_gpu(team, L, flag_of(s.tile, c), SPLIT_K - 1);
		const long rows = rows_in(s.tile, c);
		for (int slice = 0; slice < SPLIT_K - 1; slice++) /* the fixed order */
			wg_slot_add(slot_of(s.tile, slice, c), acc, rows);
	}
#else
	__device__ void hand_over(const struct sched_seg &s, int c, const float (&acc)[WG_ACC]) const
	{
		const bool tr = c == 0 && threadIdx.x % 128 == 0; /* traced by lane 0 */
		FGO_TRACE_IF(tr, 0, FGO_TR_HANDOVER, s.tile, s.k0, s.k1, -1, -1);
		wg_sum_add(sum_of(s.tile, c), acc, rows_in(s.tile, c)); /* reductions in L2 */
		struct wg_one_consumer_team team;
		team.c = c;
		team_publish_gpu(team, L, flag_of(s.tile, c) + s.slice);
		FGO_TRACE_IF(tr, 0, FGO_TR_HANDOVER | FGO_TR_END, s.tile, s.k0, s.k1, -1, -1);
	}
	__device__ void take_over(const struct sched_seg &s, int c, float (&acc)[WG_ACC]) const
	{
		struct wg_one_consumer_team team;
		team.c = c;
		const bool tr = c == 0 && threadIdx.x % 128 == 0;
		FGO_TRACE_IF(tr, 0, FGO_TR_TAKEOVER, s.tile, 0, s.slice, -1, -1);
		/* gave up: the launch is lost (the status words say why); go on */
		team_wait_gpu(team, L, flag_of(s.tile, c), SPLIT_K - 1);
		wg_sum_take(sum_of(s.tile, c), acc, rows_in(s.tile, c));
		FGO_TRACE_IF(tr, 0, FGO_TR_TAKEOVER | FGO_TR_END, s.tile, 0, s.slice, -1, -1);
	}
#endif
#elif STREAM_K && (DETERMINISTIC || WG_SK_SLOTS)
	/* consumer c's slot of CTA cta (a CTA hands over at most once) */
	__device__ float4 *slot_of(int from, int c) const
	{
		return (float4 *)(xchg + ((long)from * WG_CONSUMERS + c) * (long)WG_ACC * 128) +
		       threadIdx.x % 128;
	}
	__device__ void hand_over(const struct sched_seg &s, int c, const float (&acc)[WG_ACC]) const
	{
		const bool tr = c == 0 && threadIdx.x % 128 == 0; /* traced by lane 0, as the sum's */
		FGO_TRACE_IF(tr, 0, FGO_TR_HANDOVER, s.tile, s.k0, s.k1, -1, -1);
		wg_slot_store(slot_of(cta, c), acc, rows_in(s.tile, c));
		team_publish_gpu(wg_consumer_team(), L, XCHG_FLAG0 + cta);
		FGO_TRACE_IF(tr, 0, FGO_TR_HANDOVER | FGO_TR_END, s.tile, s.k0, s.k1, -1, -1);
	}
	__device__ void take_over(const struct sched_seg &s, int c, float (&acc)[WG_ACC]) const
	{
		if (s.role != SCHED_TAKE_OVER)
			return;
		struct wg_one_consumer_team team;
		team.c = c;
		const bool tr = c == 0 && threadIdx.x % 128 == 0;
		FGO_TRACE_IF(tr, 0, FGO_TR_TAKEOVER, s.tile, s.take_first, s.take_last, -1, -1);
		/* gave up: the launch is lost (the status words say why); go on */
		team_wait_gpu(team, L, XCHG_FLAG0 + s.take_first, s.take_last - s.take_first + 1);
		const long rows = rows_in(s.tile, c);
		for (int from = s.take_first; from <= s.take_last; from++) /* the fixed order */
			wg_slot_add(slot_of(from, c), acc, rows);
		FGO_TRACE_IF(tr, 0, FGO_TR_TAKEOVER | FGO_TR_END, s.tile, s.take_first, s.take_last, -1, -1);
	}
#elif STREAM_K
	/* consumer c's sum of Stream-K tile v (v - dp_tiles of them), as this
	 * thread's float4s, as split-K's */
	__device__ float4 *sum_of(long v, int c) const
	{
		return (float4 *)(xchg + ((v - w.dp_tiles) * WG_CONSUMERS + c) * (long)WG_ACC * 128) +
		       threadIdx.x % 128;
	}
	/* Into the tile's sum in L2 (a tile's many pieces are added where
	 * they lie, not read one after another by the CTA that ends it), then
	 * the CTA's flag once both consumers' parts are in. */
	__device__ void hand_over(const struct sched_seg &s, int c, const float (&acc)[WG_ACC]) const
	{
		const bool tr = c == 0 && threadIdx.x % 128 == 0; /* traced by lane 0 */
		FGO_TRACE_IF(tr, 0, FGO_TR_HANDOVER, s.tile, s.k0, s.k1, -1, -1);
		wg_sum_add(sum_of(s.tile, c), acc, rows_in(s.tile, c));
		team_publish_gpu(wg_consumer_team(), L, XCHG_FLAG0 + cta);
		FGO_TRACE_IF(tr, 0, FGO_TR_HANDOVER | FGO_TR_END, s.tile, s.k0, s.k1, -1, -1);
	}
	__device__ void take_over(const struct sched_seg &s, int c, float (&acc)[WG_ACC]) const
	{
		if (s.role != SCHED_TAKE_OVER)
			return;
		struct wg_one_consumer_team team;
		team.c = c;
		const bool tr = c == 0 && threadIdx.x % 128 == 0;
		FGO_TRACE_IF(tr, 0, FGO_TR_TAKEOVER, s.tile, s.take_first, s.take_last, -1, -1);
		/* gave up: the launch is lost (the status words say why); go on */
		team_wait_gpu(team, L, XCHG_FLAG0 + s.take_first, s.take_last - s.take_first + 1);
		wg_sum_take(sum_of(s.tile, c), acc, rows_in(s.tile, c));
		FGO_TRACE_IF(tr, 0, FGO_TR_TAKEOVER | FGO_TR_END, s.tile, s.take_first, s.take_last, -1, -1);
	}
#else
	__device__ void hand_over(const struct sched_seg &, int, const float (&)[WG_ACC]) const {}
	__device__ void take_over(const struct sched_seg &, int, float (&)[WG_ACC]) const {}
#endif
};

/* This CTA's walk over the family's BLOCKS x tiles. */
__device__ __forceinline__ struct wg_walk wg_walk_make(const struct launch *L)
{
	const struct sched_grid g = sched_grid_make(M_, N_, K_, BLK_M, BLK_N, BLK_K);
	struct wg_walk walk;
	walk.L = L;
	walk.cta = (int)blockIdx.x;
#if CLUSTER > 1 /* whole tiles or split-K slices, a cluster in step (schedule.h) */
	walk.w = sched_walk_make_clustered(&g, BLOCKS, GSIZE_M, (int)gridDim.x - COMM_SMS, SPLIT_K,
					   CLUSTER);
#else
	walk.w = sched_walk_make((long)BLOCKS * g.tiles, g.k_iters, (int)gridDim.x - COMM_SMS, SPLIT_K,
				 STREAM_K != 0, 0); /* never every tile Stream-K (schedule.h's pure) */
#endif
#if SPLIT_K > 1 || STREAM_K
	walk.xchg = (float *)(L->bases[L->rank] + XCHG_OFF);
#else
	walk.xchg = 0;
#endif
	return walk;
}

/* The core over the family's tiles, on this CTA's walk. */
template <class In, class Out, class Side>
__device__ __forceinline__ void wgmma_gemm_walked(const struct launch *L, const In &in,
						  const struct fgo_tmap *map_b,
						  const struct wg_watch &watch, const Out &out,
						  const Side &side)
{
	wgmma_gemm_walk(in, map_b, watch, out, side, wg_walk_make(L));
}

#endif
