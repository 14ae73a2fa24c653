/* core_wgmma.h: the Hopper GEMM core (mma=64: wgmma, sm_90a), for fp16 and
 * bf16. Included by gemm_core.h instead of core_mma.h when MMA == 64.
 *
 * Warp-specialised and persistent. A CTA is NUM_WARPS / 4 warpgroups:
 * warpgroup 0 produces, the others (WG_CONSUMERS, 1 or 2) consume. The
 * CTA walks its segments of the family's tiles (whole tiles, split-K
 * slices or Stream-K ranges: kernels/wgmma_walk.h over schedule.h's
 * sched_walk), in grouped tile order, producer and consumers in step:
 *
 *   producer (one thread): for each BLK_K slice, wait until stage s is
 *     empty, announce its bytes on full[s], and issue the TMA loads of the
 *     A panel (BLK_M x 64, one box) and the B panel (64 x BLK_N, boxes
 *     of 64 columns, or of 32 or 16 where BLK_N is not a multiple of 64)
 *     into it. TMA swizzles the boxes' rows (128, 64 or 32 bytes) as it
 *     writes and fills out-of-range rows and columns with zeros, so edges
 *     cost nothing here and any M, N, K is exact.
 *   consumers: wait until stage s is full, issue 4 x WG_MI wgmma
 *     m64nBLK_Nk16 with both operands in shared memory (A K-major, B
 *     N-major), wait for those of the slice before, and free that
 *     slice's stage (one arrival per consumer warpgroup on empty[]). Consumer c owns rows
 *     [c * WG_ROWS, (c + 1) * WG_ROWS) of the tile (swapped, its columns
 *     [c * 64, (c + 1) * 64) and every row).
 *
 * The stages are a ring of NUM_STAGES guarded by mbarriers with parity
 * waits: stage s is used for the i-th time in phase i & 1 of its barriers.
 * setmaxnreg moves registers from the producer (which needs few) to the
 * consumers (whose accumulators are WG_ACC fp32 each).
 *
 * With thread block clusters (CLUSTER > 1, schedule.h's clustered walk)
 * the CTAs of a cluster either compute tiles of one column in step and
 * load each B box once for all of them, multicast (wgmma_cluster.h), or
 * are the K slices of one tile, summed in distributed shared memory
 * (split_k = CLUSTER, wgmma_cluster_k.h).
 *
 * Warps 2 and 3 of warpgroup 0, idle otherwise, are the side warps: a
 * family that sums its peers' partials (all_reduce, reduce_scatter) runs
 * its sums there while the consumers compute the next tiles.
 *
 * Accumulator layout (wgmma m64nN): consumer thread t, warp w = t / 32,
 * lane l: acc[mi * BLK_N / 2 + j * 4 + q] is row mi * 64 + w * 16 + l / 4
 * (+ 8 for q >= 2), column j * 8 + (l % 4) * 2 + (q & 1) of the consumer's
 * WG_ROWS x BLK_N part. With A and B swapped (WG_SWAP) the instruction's
 * rows are the tile's columns: acc[j * 4 + q] is column w * 16 + l / 4
 * (+ 8 for q >= 2), row j * 8 + (l % 4) * 2 + (q & 1) of the consumer's
 * BLK_M x 64 part.
 *
 * C leaves through shared memory: each consumer has its part of a staging
 * area (WG_ROWS x WG_COLS, or half of it, as boxes of 64 columns with the 128-byte
 * swizzle, or of 32 or 16 with the 64- or 32-byte one: wgmma_epilogue.h),
 * writes its accumulators there and goes on to its next tile. A storer thread (warp 1 of warpgroup 0) waits until every part of
 * the tile is staged, hands the boxes to TMA, which writes whole lines and
 * clips the M and N edges, to this rank's C or to every rank's (the
 * caller's `out` says where), frees the staging area once the stores have
 * read it and, when `out` publishes, waits for the stores to complete and
 * raises the tile's flags. So stores and flags run under the next main
 * loop. An `out` may have its tiles copied on to the peers by the
 * storer's whole warp instead (wg_storer_warp).
 *
 * The tensor maps (src/backend_gpu.c: cuTensorMapEncodeTiled) are kernel
 * parameters (__grid_constant__), so their address is in the parameter
 * space and the TMA unit reads them from there. */
#ifndef FGO_CORE_WGMMA_H
#define FGO_CORE_WGMMA_H

#include "tile_shape.h"

#if DTYPE == 1
#define WG_AB_TYPES ".f16.f16"
#else
#define WG_AB_TYPES ".bf16.bf16"
#endif
#include "wgmma_ops.h"
#include "trace.h" /* FGO_TRACE_*: nothing unless the kernel is traced */

#define WG_CONSUMERS (NUM_WARPS / 4 - 1)
/* A and B swapped: a tile of 8, 16 or 32 rows, or of any multiple of 16
 * rows up to 240 that is no multiple of 64 (80, 96, 112, 160, ...; BLK_N
 * 64 a consumer: 64 with one, 128 with two) is computed as its transpose,
 * C^T = B^T x A^T, with one m64nBLK_Mk16 instruction a k16 and consumer:
 * its 64 columns are the instruction's M and the rows its N (with two
 * consumers each has 64 of the 128 columns and every row: the form of
 * cuBLAS's kernels at 2194 x 1600 x 1968, 224 rows by 128 columns, and
 * 640 x 1024 x 12288, 80 by 128, issue 49). For M = 1 (decode) a 64-row instruction would
 * compute 56 to 63 padding rows a slice and the A panel would take a
 * 64-row box of shared memory a stage; for a tile 80 rows high (cuBLAS's
 * choice at mid M, issue 49) the rows are A's, K-major, loaded with the
 * 128-byte swizzle whatever their count, where 80 columns of B would need
 * narrow boxes. The accumulators are C's transpose (layout below); the
 * staging area, the walk's slots and everything after them are C's as
 * usual. */
#define WG_SWAP FGO_WGMMA_SWAPPED(BLK_M)
/* A consumer's part of the tile (tile_shape.h): WG_ROWS rows by WG_COLS
 * columns, all BLK_N columns of its rows, or swapped 64 columns of every
 * row */
#define WG_ROWS FGO_WGMMA_PART_ROWS(BLK_M, WG_CONSUMERS)
#define WG_COLS FGO_WGMMA_PART_COLS(BLK_M, BLK_N, WG_CONSUMERS)
#if WG_SWAP
#define WG_ACC (BLK_M / 2)              /* m64nBLK_M: BLK_M / 2 fp32 per thread */
#else
#define WG_MI (WG_ROWS / 64)            /* m64 instructions per consumer per k16 */
#define WG_ACC (WG_MI * BLK_N / 2)      /* fp32 accumulators per consumer thread */
#endif
/* A stage's K: WG_KS slices of 64 elements (128 bytes, the swizzle's row).
 * The A panel is WG_KS boxes of BLK_M rows, one a slice, one after the
 * other; the B panel BLK_N / WG_B_COLS boxes of WG_B_COLS columns and all
 * BLK_K rows. */
#define WG_KS (BLK_K / 64)
#define WG_A_SLICE_BYTES FGO_WGMMA_PANEL_BYTES(BLK_M) /* one K slice of the A panel */
#define WG_A_BYTES (WG_KS * WG_A_SLICE_BYTES)
#define WG_B_BYTES (WG_KS * FGO_WGMMA_PANEL_BYTES(BLK_N))
/* The B panel's boxes: WG_B_COLS columns (64, or 32 or 16 where BLK_N is
 * not a multiple of 64: tile_shape.h), rows of WG_B_ROW_BYTES with the
 * swizzle of that width, all BLK_K rows; one descriptor spans them (its
 * leading-dimension offset is a box). */
#define WG_B_COLS FGO_WGMMA_BOX_COLS(BLK_N)
#define WG_B_ROW_BYTES (WG_B_COLS * 2)
#define WG_B_BOX_BYTES (BLK_K * WG_B_ROW_BYTES) /* one box of the B panel */
/* C staged a whole part at a time, or in halves (tile_shape.h): halves of
 * its columns, or swapped of its rows */
#define WG_STAGE_SPLIT FGO_WGMMA_STAGE_SPLIT(BLK_M, BLK_N, BLK_K, NUM_STAGES)
#define WG_STAGE_ROWS FGO_WGMMA_STAGED_ROWS(BLK_M, BLK_N, BLK_K, NUM_STAGES, WG_CONSUMERS)
#define WG_STAGE_COLS FGO_WGMMA_STAGED_COLS(BLK_M, BLK_N, BLK_K, NUM_STAGES, WG_CONSUMERS)
#define WG_PART_BYTES FGO_WGMMA_STAGING_BYTES(WG_STAGE_ROWS, WG_STAGE_COLS) /* a consumer's C staging */

/* Thread block clusters (CLUSTER CTAs stacked along M, kernels/schedule.h's
 * clustered walk): the CTAs of a cluster compute tiles of one column in
 * step, so each B box of a slice is loaded by one of them (box j by rank
 * j % CLUSTER) and multicast into every CTA's stage. A stage is then
 * written by every producer of the cluster, so it is free only when every
 * consumer of the cluster has freed it: the consumers arrive on the empty
 * barrier of each CTA (WG_CONSUMERS x CLUSTER arrivals), a producer waits
 * for its own, and before it exits for the last use of each stage, so no
 * peer arrives on a CTA that has gone. */
#ifndef CLUSTER
#define CLUSTER 1
#endif
#if CLUSTER > 1
#define WG_CLUSTER_DIMS __cluster_dims__(CLUSTER, 1, 1)
#else
#define WG_CLUSTER_DIMS
#endif
/* A cluster that holds the K slices of one tile instead (split_k = cluster:
 * kernels/wgmma_cluster_k.h): each CTA loads its own slice, no multicast. */
#if CLUSTER > 1 && defined(SPLIT_K) && SPLIT_K == CLUSTER
#define WG_CLUSTER_K 1
#define WG_MULTICAST 0
#else
#define WG_CLUSTER_K 0
#define WG_MULTICAST (CLUSTER > 1)
#endif
static_assert(CLUSTER == 1 || CLUSTER == 2 || CLUSTER == 4 || CLUSTER == 8, "a cluster of 1, 2, 4 or 8 CTAs");

static_assert(BLK_K == 64 || BLK_K == 128,
	      "the wgmma core loads K in slices of 64 16-bit elements (128 bytes), one or two a stage");
static_assert(NUM_WARPS % 4 == 0 && WG_CONSUMERS >= 1 && WG_CONSUMERS <= 2,
	      "one producer and one or two consumer warpgroups");
#if WG_SWAP
static_assert((BLK_M == 8 || (BLK_M % 16 == 0 && BLK_M <= 240)) && BLK_N == 64 * WG_CONSUMERS && CLUSTER == 1,
	      "A and B swapped: BLK_M 8 or a multiple of 16 up to 240, BLK_N 64 a consumer, no cluster");
#else
static_assert(WG_ROWS % 64 == 0 && WG_ACC <= 128, "a consumer owns 64 or 128 rows, at most 128 accumulators");
#endif
static_assert(BLK_N % 16 == 0 && BLK_N >= 16 && BLK_N <= 256,
	      "BLK_N is an instruction N, whole boxes of 16 columns: a multiple of 16 up to 256");

#include "wgmma_async.h"   /* mbarriers, TMA, wgmma's fences and descriptors */
#include "wgmma_cluster.h" /* clusters: multicast loads, remote arrivals */

/* The parameters after FGO_KERNEL_PARAMS of a kernel on this core, in the
 * order the host passes them (src/backend_gpu.c). */
/* One tensor map per rank or per source block, as the family needs
 * (src/backend_gpu.c: wgmma_maps): maps_a.m[r] is the A that block r reads
 * (this rank's A for the families over one block), maps_c.m[r] the C that
 * block r's parts go to (the scatter: the block of rank r's C that this
 * rank writes, its own columns, so a part has the same coordinates in
 * each; all_gather_gemm: this rank's C rows of source r). */
struct fgo_tmaps {
	struct fgo_tmap m[WORLD];
};
#define FGO_TMAP_PARAMS                                                                  \
	const __grid_constant__ struct fgo_tmaps maps_a, const __grid_constant__ struct fgo_tmap map_b, \
		const __grid_constant__ struct fgo_tmaps maps_c

/* The instruction of width BLK_N (wgmma_ops.h's wgmma_m64nN), its name
 * pasted once BLK_N is expanded. */
#define WG_CAT2(a, b) a##b
#define WG_CAT(a, b) WG_CAT2(a, b)

/* Keeps the compiler from touching acc across the asynchronous wgmma. */
__device__ __forceinline__ void wg_fence_acc(float (&acc)[WG_ACC])
{
#pragma unroll
	for (int i = 0; i < WG_ACC; i++)
		asm volatile("" : "+f"(acc[i])::"memory");
}
__device__ __forceinline__ void wgmma_tile(float *d, unsigned long long a, unsigned long long b,
					   int accumulate)
{
#if WG_SWAP
	WG_CAT(wgmma_t_m64n, BLK_M)(d, a, b, accumulate);
#else
	WG_CAT(wgmma_m64n, BLK_N)(d, a, b, accumulate);
#endif
}

/* The dynamic shared memory, aligned to the 1024 bytes a 128-byte swizzle
 * pattern repeats over (the host asks for 1 KiB more, tile_shape.h). */
__device__ __forceinline__ unsigned int wg_smem_base(void)
{
	extern __shared__ __align__(1024) unsigned char wg_smem[];
	return (wg_smem_addr(wg_smem) + 1023u) & ~1023u;
}

/* After the stage ring, the C staging area and the barriers (full[],
 * empty[], staged[2], freed[2]): the cluster-K area
 * (kernels/wgmma_cluster_k.h; tile_shape.h's FGO_WGMMA_CLUSTER_K_BYTES). */
__device__ __forceinline__ unsigned int wg_k_area(void)
{
	return wg_smem_base() + NUM_STAGES * (WG_A_BYTES + WG_B_BYTES) + WG_CONSUMERS * WG_PART_BYTES +
	       16 * NUM_STAGES + 32;
}
/* Its barriers, k_full[c] and k_empty[c] (8 bytes each, two consumers'
 * room); the slots follow them. */
__device__ __forceinline__ unsigned int wg_k_full(int c)
{
	return wg_k_area() + 8 * c;
}
__device__ __forceinline__ unsigned int wg_k_empty(int c)
{
	return wg_k_area() + 16 + 8 * c;
}

/* The ring position after stage *s: the next stage, and the barrier
 * parity flips each time the ring wraps. */
__device__ __forceinline__ void wg_next_stage(int *s, unsigned int *phase)
{
	if (++*s == NUM_STAGES) {
		*s = 0;
		*phase ^= 1;
	}
}

#include "wgmma_epilogue.h" /* C staged and stored by TMA: parts, boxes, halves */

/* The barrier numbers a stalled wait reports (status[1] - 1): full[s],
 * empty[s], then staged[c] and freed[c] of the C staging area. */
#define WG_BAR_STAGED (2 * NUM_STAGES)
#define WG_BAR_FREED (2 * NUM_STAGES + 2)

/* Named barrier `id` over `count` threads (a team's own, so the rest of
 * the CTA goes on), and the same barrier anding a predicate over them. */
template <int id, int count> __device__ __forceinline__ void wg_bar_sync(void)
{
	asm volatile("bar.sync %0, %1;" ::"n"(id), "n"(count) : "memory");
}
template <int id, int count> __device__ __forceinline__ bool wg_bar_and(bool p)
{
	unsigned int r;
	asm volatile("{\n.reg .pred p, q;\n"
		     "setp.ne.u32 p, %1, 0;\n"
		     "bar.red.and.pred q, %2, %3, p;\n"
		     "selp.u32 %0, 1, 0, q;\n}\n"
		     : "=r"(r)
		     : "r"((unsigned int)p), "n"(id), "n"(count)
		     : "memory");
	return r != 0;
}

/* The side warps: warps 2 and 3 of the producer warpgroup, which the
 * loads and the stores leave idle. A family that sums its peers' partials
 * runs its sums there (a team, kernels/comm.h, with named barrier 1), under
 * the next tiles' main loops. */
struct wg_side_team {
	__device__ int tid() const { return (int)threadIdx.x - 64; }
	__device__ int size() const { return 64; }
	__device__ void sync() const { wg_bar_sync<1, 64>(); }
	__device__ bool all(bool p) const { return wg_bar_and<1, 64>(p); }
};
/* The side warps and the consumer warpgroups together (named barrier 7),
 * once the consumers have staged the CTA's last tile: its sum, which no
 * later tile's GEMM hides, by every thread that is idle by then. The side
 * warps alone (64 threads, a few loads in flight each, each load a round
 * trip over NVLink) took 12-15 us to sum one 64 x 128 tile from four
 * ranks at M = 128 on four H100s, as long as the GEMM itself. */
struct wg_tail_team {
	__device__ int tid() const { return (int)threadIdx.x - 64; } /* side warps first */
	__device__ int size() const { return 64 + WG_CONSUMERS * 128; }
	__device__ void sync() const { wg_bar_sync<7, 64 + WG_CONSUMERS * 128>(); }
	__device__ bool all(bool p) const { return wg_bar_and<7, 64 + WG_CONSUMERS * 128>(p); }
};
/* A side's default: the consumers join nothing after their last tile. A
 * side with a tail (side.tail(team, walk)) has its side warps call it too,
 * on every path, since the team's barriers wait for all of them. */
struct wg_side_base {
	template <class Walk> __device__ void tail(const struct wg_tail_team &, const Walk &) const {}
};
/* The storer's whole warp (warp 1 of warpgroup 0), as a team: copying a
 * stored tile to the peers where `out` asks for it (wg_storer_warp). */
struct wg_storer_team {
	__device__ int tid() const { return (int)(threadIdx.x % 128) - 32; }
	__device__ int size() const { return 32; }
	__device__ void sync() const { __syncwarp(); }
	__device__ bool all(bool p) const { return __all_sync(0xffffffffu, p) != 0; }
};
/* Whether `out` may have a tile leave this rank by the storer's warp
 * (Out::storer_warp 1): then out.store(part, q, v, copies) and
 * out.publish(v, copies), the latter by the whole warp once the stores
 * are complete, where copies says that the warp copies tile v on from
 * this rank's C (out.store put it there alone) rather than the storer's
 * TMA stores taking it everywhere. Every tile but the CTA's last is
 * copied so: an SM's TMA unit pushing a tile over the link holds up the
 * next tile's loads behind it; after the last there are none, and one
 * bulk store per part has the shortest latency. */
template <class Out, class = void> struct wg_storer_warp {
	enum { value = 0 }; /* an enum, not a static member: no symbol in the module */
};
template <class Out> struct wg_storer_warp<Out, decltype((void)Out::storer_warp)> {
	enum { value = Out::storer_warp };
};
/* Whether `out` names the tensor maps its stores go to (Out::prefetch(),
 * from the storer thread at the launch's start: tma_prefetch_map). */
template <class Out, class = void> struct wg_out_prefetch {
	static __device__ void run(const Out &) {}
};
template <class Out> struct wg_out_prefetch<Out, decltype(((const Out *)0)->prefetch())> {
	static __device__ void run(const Out &out) { out.prefetch(); }
};
/* The storer thread alone, as a team: publishing from it. */
struct wg_solo_team {
	__device__ int tid() const { return 0; }
	__device__ int size() const { return 1; }
	__device__ void sync() const {}
	__device__ bool all(bool p) const { return p; }
};
/* With two consumers, setmaxnreg redistributes the registers the CTA was
 * launched with, 168 a thread (65536 over 384 threads, in steps of 8): a
 * side says how many a producer-warpgroup thread keeps (its sums need 64
 * to run without spilling, the loads and stores alone 40), and each
 * consumer thread gets what that frees, in steps of 8: 232 or 216, more
 * than a consumer's 128 accumulators and its loop need. Asking for more
 * than the CTA holds would block setmaxnreg.inc for ever. */
#define WG_ENTRY_REGS (65536 / 384 / 8 * 8)
#define WG_CONSUMER_REGS(producer_regs) ((3 * WG_ENTRY_REGS - (producer_regs)) / 2 / 8 * 8)

template <int R> __device__ __forceinline__ void wg_setmaxnreg_dec(void)
{
	asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(R));
}
template <int R> __device__ __forceinline__ void wg_setmaxnreg_inc(void)
{
	asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(R));
}

/* What the side warps do for the families that need none. */
struct wg_no_side : wg_side_base {
	enum { producer_regs = 40 };
	template <class Walk> __device__ void run(const struct wg_side_team &, const Walk &) const {}
};

/* A of the families over one block: this rank's, always there. */
struct wg_local_a {
	const struct fgo_tmap *map;
	__device__ const struct fgo_tmap *map_a(int) const { return map; }
	__device__ bool ready(int, long) const { return true; }
};
/* A per block, always there: block q's rows of this rank's A
 * (reduce_scatter: the rows of the block's owner). */
struct wg_block_a {
	const struct fgo_tmaps *maps;
	__device__ const struct fgo_tmap *map_a(int q) const { return &maps->m[q]; }
	__device__ bool ready(int, long) const { return true; }
};

/* The consumer warpgroups together, as a team (named barrier 2): the
 * Stream-K hand-over (kernels/wgmma_walk.h). */
struct wg_consumer_team {
	__device__ int tid() const { return (int)threadIdx.x - 128; }
	__device__ int size() const { return WG_CONSUMERS * 128; }
	__device__ void sync() const { wg_bar_sync<2, WG_CONSUMERS * 128>(); }
	__device__ bool all(bool p) const { return wg_bar_and<2, WG_CONSUMERS * 128>(p); }
};

/* The GEMM core: the segments `walk` gives this CTA (walk.first(sg),
 * walk.next(sg): K slices [k0, k1) of tile v of BLOCKS blocks of tiles,
 * tile v being tile v % tiles of block v / tiles, each block in grouped
 * order), loaded through `in`, computed by the consumer warpgroups. A
 * segment that does not end its tile (walk.ends) leaves through
 * walk.hand_over(sg, consumer, acc); one that does first adds what the
 * tile's other CTAs handed over (walk.take_over), then is staged and stored by the
 * storer thread through `out`:
 *   in.map_a(q)          the tensor map of block q's A;
 *   in.ready(q, tm)      waits until the A rows of tile row tm of block q
 *                        have arrived (false: the wait gave up);
 *   out.store(part, q, v) issues the part's TMA stores (wg_store_boxes) to
 *                        where tile v's output goes (v of block q);
 *   out.publishes()      whether the tile's stores must complete and then
 *   out.publish(v)       raise its flags (from the storer thread);
 * and meanwhile runs side.run(team, walk) on the side warps (wg_side_team),
 * which follow the same walk (kernels/wgmma_walk.h); after their last tile
 * the consumers call side.tail(team, walk) (wg_tail_team). */
template <class In, class Out, class Side, class Walk>
__device__ __forceinline__ void wgmma_gemm_walk(const In &in, const struct fgo_tmap *map_b,
						const struct wg_watch &watch, const Out &out,
						const Side &side, const Walk &walk)
{
	static_assert(128 * Side::producer_regs + 256 * WG_CONSUMER_REGS(Side::producer_regs) <=
			      384 * WG_ENTRY_REGS,
		      "setmaxnreg can only hand out the registers the CTA was launched with");
	const unsigned int base = wg_smem_base();
	const unsigned int sa = base, sb = base + NUM_STAGES * WG_A_BYTES;
	const unsigned int sc = sb + NUM_STAGES * WG_B_BYTES;
	const unsigned int full = sc + WG_CONSUMERS * WG_PART_BYTES, empty = full + 8 * NUM_STAGES;
	const unsigned int staged = empty + 8 * NUM_STAGES, freed = staged + 16;
	const struct sched_grid g = sched_grid_make(M_, N_, K_, BLK_M, BLK_N, BLK_K);
	const int wg = threadIdx.x / 128, t = threadIdx.x % 128;
	struct sched_seg sg;

	/* the maps of the first loads and of the stores, fetched while the
	 * barriers are set up */
	if (threadIdx.x == 0) {
		tma_prefetch_map(map_b);
		if (walk.first(sg))
			tma_prefetch_map(in.map_a((int)(sg.tile / g.tiles)));
	} else if (threadIdx.x == 32) {
		wg_out_prefetch<Out>::run(out);
	}
	if (threadIdx.x == 0) {
		for (int s = 0; s < NUM_STAGES; s++) {
			mbar_init(full + 8 * s, 1);
			mbar_init(empty + 8 * s, WG_CONSUMERS * (WG_MULTICAST ? CLUSTER : 1));
		}
		for (int c = 0; c < WG_CONSUMERS; c++) {
			mbar_init(staged + 8 * c, 128);
			mbar_init(freed + 8 * c, 1);
#if WG_CLUSTER_K
			mbar_init(wg_k_full(c), (CLUSTER - 1) * 128);
			mbar_init(wg_k_empty(c), 1);
#endif
		}
		/* the barriers are visible to the TMA unit (the async proxy) */
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	}
#if CLUSTER > 1
	wg_cluster_sync(); /* no peer loads into or arrives on a barrier before its init */
#else
	__syncthreads();
#endif

	if (wg == 0) {
#if WG_CONSUMERS == 2
		wg_setmaxnreg_dec<Side::producer_regs>();
#endif
		if (t >= 64) {
			side.run(wg_side_team(), walk);
			return;
		}
		constexpr bool warp = wg_storer_warp<Out>::value != 0;
		if (t == 32 || (warp && t > 32 && t < 64)) { /* the storer (and its warp) */
			const bool lead = !warp || t == 32; /* the thread that issues TMA */
			unsigned int phase = 0;
			long after = 0; /* the tiles this CTA stores after the current one */
			if constexpr (warp)
				for (bool more = walk.first(sg); more; more = walk.next(sg))
					after += walk.ends(sg) && !sg.ghost;
			for (bool more = walk.first(sg); more; more = walk.next(sg)) {
				if (!walk.ends(sg) || sg.ghost)
					continue; /* handed over, or a cluster's ghost: nothing to store */
				bool copies = false; /* by the warp (wg_storer_warp) */
				if constexpr (warp)
					copies = --after > 0;
				const long v = sg.tile;
				const int q = (int)(v / g.tiles);
				long tm, tn;
				sched_tile_coords(&g, GSIZE_M, v % g.tiles, &tm, &tn);
				for (int half = 0; half < WG_STAGE_SPLIT; half++) {
					for (int c = 0; c < WG_CONSUMERS; c++) {
						mbar_wait(staged + 8 * c, phase, WG_BAR_STAGED + c, watch);
						if (!lead)
							continue;
						/* traced: the tile leaves (stores, flags), storer lane 1 */
						if (c == 0 && half == 0)
							FGO_TRACE_EV(1, FGO_TR_PUT, -1, BLK_M * BLK_N * (int)sizeof(elem_t),
								     v, -1, -1);
						if constexpr (warp)
							out.store(wg_part_of(tm, tn, c, sc, half), q, v, copies);
						else
							out.store(wg_part_of(tm, tn, c, sc, half), q, v);
						tma_store_commit();
					}
					/* the staging area is free once the TMA unit has
					 * read it: the consumers stage the next tile (or
					 * half) while the stores (to a peer: microseconds)
					 * complete, and only the flags wait for that
					 * (freeing it after the completion stalled every
					 * tile of a scatter family) */
					if (lead) {
						tma_store_wait_read();
						for (int c = 0; c < WG_CONSUMERS; c++)
							mbar_arrive(freed + 8 * c);
					}
					if (half + 1 < WG_STAGE_SPLIT)
						phase ^= 1;
				}
				if (out.publishes()) {
					if (lead)
						tma_store_wait_all();
					if constexpr (warp) {
						__syncwarp(); /* the tile is in this rank's C for every lane */
						out.publish(v, copies);
					} else {
						out.publish(v);
					}
				}
				if (lead)
					FGO_TRACE_EV(1, FGO_TR_PUT | FGO_TR_END, -1, BLK_M * BLK_N * (int)sizeof(elem_t), v,
						     -1, -1);
				phase ^= 1;
			}
			/* the CTA's shared memory must outlive the stores that read it */
			if (lead)
				tma_store_wait_all();
			return;
		}
		if (t != 0)
			return;
		int s = 0;
		unsigned int phase = 0;
#if WG_MULTICAST
		const int rank = (int)wg_cluster_rank();
#endif
		for (bool more = walk.first(sg); more; more = walk.next(sg)) {
			const int q = (int)(sg.tile / g.tiles);
			long tm, tn;
			sched_tile_coords(&g, GSIZE_M, sg.tile % g.tiles, &tm, &tn);
			const struct fgo_tmap *map_a = in.map_a(q);
			/* a ghost loads only its share of B, for the others */
			if (!sg.ghost)
				in.ready(q, tm); /* gave up: the launch is lost, and ends fast */
			for (int k = (int)sg.k0; k < (int)sg.k1; k++) {
				const unsigned int bar = full + 8 * s;
				mbar_wait(empty + 8 * s, phase ^ 1, NUM_STAGES + s, watch);
				mbar_expect_tx(bar, (sg.ghost ? 0 : WG_A_BYTES) + WG_B_BYTES);
				if (!sg.ghost)
#pragma unroll
					for (int h = 0; h < WG_KS; h++)
						tma_load_2d(sa + s * WG_A_BYTES + h * WG_A_SLICE_BYTES, map_a,
							    k * BLK_K + h * 64, (int)(tm * BLK_M), bar);
#pragma unroll
				for (int j = 0; j < BLK_N / WG_B_COLS; j++)
#if WG_MULTICAST
					if (j % CLUSTER == rank)
						tma_load_2d_multicast(sb + s * WG_B_BYTES + j * WG_B_BOX_BYTES, map_b,
								      (int)(tn * BLK_N + j * WG_B_COLS), k * BLK_K, bar,
								      (unsigned short)((1u << CLUSTER) - 1));
#else
					tma_load_2d(sb + s * WG_B_BYTES + j * WG_B_BOX_BYTES, map_b,
						    (int)(tn * BLK_N + j * WG_B_COLS), k * BLK_K, bar);
#endif
				wg_next_stage(&s, &phase);
			}
		}
#if WG_MULTICAST
		/* every consumer of the cluster has freed the last use of each
		 * stage: none arrives here after this CTA exits */
		for (int i = 0; i < NUM_STAGES; i++) {
			mbar_wait(empty + 8 * s, phase ^ 1, NUM_STAGES + s, watch);
			wg_next_stage(&s, &phase);
		}
#endif
	} else {
#if WG_CONSUMERS == 2
		wg_setmaxnreg_inc<WG_CONSUMER_REGS(Side::producer_regs)>();
#endif
		const int c = wg - 1;
		float acc[WG_ACC];
		int s = 0;
		unsigned int phase = 0, tile_phase = 0;
		/* stage 0's operand descriptors of this consumer's rows; swapped
		 * (WG_SWAP), the consumer's box of the B panel (N-major, 64
		 * columns) is the instruction's A and the A panel (K-major,
		 * BLK_M rows) its B */
#if WG_SWAP
		const unsigned long long desc_a =
			wg_desc(sb + (WG_CONSUMERS > 1 ? c : 0) * WG_B_BOX_BYTES, WG_B_BOX_BYTES, 1024);
		const unsigned long long desc_b = wg_desc(sa, 16, 1024);
#else
		const unsigned long long desc_a = wg_desc(sa + c * WG_ROWS * 128, 16, 1024);
		const unsigned long long desc_b = wg_desc(sb, WG_B_BOX_BYTES, 8 * WG_B_ROW_BYTES, WG_B_ROW_BYTES);
#endif
		for (bool more = walk.first(sg); more; more = walk.next(sg)) {
			long tm, tn;
			sched_tile_coords(&g, GSIZE_M, sg.tile % g.tiles, &tm, &tn);
			/* One group of wgmma stays in flight: after issuing slice k
			 * the consumer waits only for slice k - 1 and frees its
			 * stage, so the tensor cores never drain between slices. */
			int held = -1; /* the stage the group in flight reads */
			/* traced: the segment's MACs, consumer 0's thread 0 (lane 0) */
			FGO_TRACE_IF(c == 0 && t == 0, 0, FGO_TR_GEMM, sg.tile, tm, tn, sg.k0, sg.k1);
			wg_fence_acc(acc);
			for (int k = (int)sg.k0; k < (int)sg.k1; k++) {
				mbar_wait(full + 8 * s, phase, s, watch);
				wgmma_fence();
				/* the stage's descriptors; each wgmma's differ from them
				 * only in the start address (the low 14 bits, 16-byte
				 * units; shared memory ends below 256 KiB, so no carry
				 * leaves them), by constants: one add a slice instead of
				 * each wgmma's masks and shifts */
#if WG_SWAP
				const unsigned long long da = desc_a + (unsigned int)(s * (WG_B_BYTES >> 4));
				const unsigned long long db = desc_b + (unsigned int)(s * (WG_A_BYTES >> 4));
#pragma unroll
				for (int kk = 0; kk < BLK_K / 16; kk++) /* k16 rows of B, 16 K of A */
					wgmma_tile(acc, da + (kk * 16 * 128 >> 4),
						   db + ((kk / 4 * WG_A_SLICE_BYTES + kk % 4 * 32) >> 4),
						   k > (int)sg.k0 || kk > 0);
#else
				const unsigned long long da = desc_a + (unsigned int)(s * (WG_A_BYTES >> 4));
				const unsigned long long db = desc_b + (unsigned int)(s * (WG_B_BYTES >> 4));
#pragma unroll
				for (int kk = 0; kk < BLK_K / 16; kk++)
#pragma unroll
					for (int mi = 0; mi < WG_MI; mi++)
						wgmma_tile(&acc[mi * (BLK_N / 2)],
							   da + ((kk / 4 * WG_A_SLICE_BYTES + mi * 64 * 128 + kk % 4 * 32) >> 4),
							   db + (kk * 16 * WG_B_ROW_BYTES >> 4), k > (int)sg.k0 || kk > 0);
#endif
				wgmma_commit();
				wgmma_wait<1>();
				if (held >= 0 && t == 0)
					wg_free_stage(empty + 8 * held);
				held = s;
				wg_next_stage(&s, &phase);
			}
			wgmma_wait<0>();
			wg_fence_acc(acc);
			FGO_TRACE_IF(c == 0 && t == 0, 0, FGO_TR_GEMM | FGO_TR_END, sg.tile, tm, tn, sg.k0, sg.k1);
			if (held >= 0 && t == 0)
				wg_free_stage(empty + 8 * held);
			if (sg.ghost) /* a cluster's ghost: its loads served the others */
				continue;
			if (!walk.ends(sg)) { /* another CTA ends this tile */
				walk.hand_over(sg, c, acc);
				continue;
			}
			walk.take_over(sg, c, acc); /* what the other CTAs of the tile handed over */
			/* the storer is done with the staging area's last tile */
#pragma unroll
			for (int half = 0; half < WG_STAGE_SPLIT; half++) {
				mbar_wait(freed + 8 * c, tile_phase ^ 1, WG_BAR_FREED + c, watch);
				wg_stage_part(wg_part_of(tm, tn, c, sc, half), acc, half);
				mbar_arrive(staged + 8 * c);
				tile_phase ^= 1;
			}
		}
		walk.drain(c); /* clusters of K slices: the leader has read this CTA's last slot */
		side.tail(wg_tail_team(), walk);
	}
}

#endif
