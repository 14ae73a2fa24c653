/* wgmma_splitk.h: the split-K walk of the wgmma core (core_wgmma.h,
 * wgmma_gemm_walk), for the families whose epilogue is the core's storer
 * (gemm, all_scatter, all_gather_gemm). K is cut into SPLIT_K slices
 * (schedule.h: sched_splitk_range); a unit of work is one slice of one
 * tile, and the CTAs take units blockIdx.x, + gridDim.x, ... in slice-major
 * order, so the last slice of every tile comes after all the others. The
 * unit of the last slice ends its tile: the units before it add their
 * accumulators into the tile's fp32 sum in the work area (16-byte atomics
 * in L2, in each consumer thread's own register order) and raise one flag
 * each;
 * the last one waits for those flags, adds the sum to its accumulators,
 * zeroes the sum for the next launch, and goes out through the core's
 * storer like any tile, so the family's epilogue (stores, puts to peers)
 * still runs tile by tile. Deadlock-free with every CTA resident (the
 * host sizes the grid so): a unit waits only for units earlier in the
 * order, which no wait holds up. */
#ifndef FGO_WGMMA_SPLITK_H
#define FGO_WGMMA_SPLITK_H

#include "comm.h"

#ifndef SPLIT_K
#define SPLIT_K 1
#endif

#if SPLIT_K > 1
#if !defined(XCHG_OFF) || !defined(XCHG_FLAG0)
#error "XCHG_OFF and XCHG_FLAG0 (the layout's split-K sums and flags) come from the host"
#endif

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

struct wg_splitk_walk {
	const struct launch *L;
	long tiles; /* BLOCKS x the tiles of one block */
	int k_iters;
	float *sums; /* per tile and consumer: WG_ACC x 128 fp32 */

	__device__ bool set(struct wg_seg &s, long unit) const
	{
		if (unit >= tiles * SPLIT_K)
			return false;
		long k0, k1;
		s.slice = (int)(unit / tiles);
		s.v = unit - s.slice * tiles;
		sched_splitk_range(k_iters, SPLIT_K, s.slice, &k0, &k1);
		s.k0 = (int)k0;
		s.k1 = (int)k1;
		return true;
	}
	__device__ bool first(struct wg_seg &s) const { return set(s, blockIdx.x); }
	__device__ bool next(struct wg_seg &s) const
	{
		return set(s, s.slice * tiles + s.v + gridDim.x);
	}
	__device__ bool ends(const struct wg_seg &s) const { return s.slice == SPLIT_K - 1; }
	/* consumer c's sum of tile v, as this thread's float4s: its
	 * accumulators 4e .. 4e + 3 at [e * 128] */
	__device__ float4 *sum_of(long v, int c) const
	{
		return (float4 *)(sums + (v * WG_CONSUMERS + c) * (long)WG_ACC * 128) +
		       threadIdx.x % 128;
	}
	__device__ long flag_of(long v, int c) const
	{
		return XCHG_FLAG0 + (v * WG_CONSUMERS + c) * (SPLIT_K - 1);
	}
	/* The flags stay inside this GPU: device-scope releases and
	 * acquires, polled without sleeping (the wait is short: the units of
	 * a tile run in the same wave). */
	__device__ void hand_over(const struct wg_seg &s, int c, const float (&acc)[WG_ACC]) const
	{
		float4 *sum = sum_of(s.v, c);
#pragma unroll
		for (int e = 0; e < WG_ACC / 4; e++) /* reductions in L2, 16 bytes each */
			atomicAdd(sum + e * 128,
				  make_float4(acc[4 * e], acc[4 * e + 1], acc[4 * e + 2], acc[4 * e + 3]));
		struct wg_one_consumer_team team;
		team.c = c;
		team.sync();
		if (team.tid() == 0) {
			__threadfence();
			fgo_flag_release_gpu(flags_of(L, L->rank) + flag_of(s.v, c) + s.slice, L->epoch);
		}
	}
	/* Threads 0 .. SPLIT_K - 2 each wait for one flag; false when a wait
	 * gave up (the status words say why, as wait_flag's do). */
	__device__ bool wait_slices(const struct wg_one_consumer_team &team, long first) const
	{
		bool ok = true;
		if (team.tid() < SPLIT_K - 1) {
			const unsigned int *f = flags_of(L, L->rank) + first + team.tid();
			const unsigned long long start = fgo_now_ns();
			while ((int)(fgo_flag_acquire_gpu(f) - L->epoch) < 0) {
				if (*(volatile unsigned int *)L->status) {
					ok = false;
					break;
				}
				if (fgo_now_ns() - start > L->timeout_ns) {
					if (atomicCAS(L->status, 0u, 1u) == 0u)
						L->status[1] = (unsigned int)(first + team.tid() + 1);
					ok = false;
					break;
				}
			}
		}
		return team.all(ok);
	}
	__device__ void take_over(const struct wg_seg &s, int c, float (&acc)[WG_ACC]) const
	{
		struct wg_one_consumer_team team;
		team.c = c;
		/* gave up: the launch is lost (the status words say why); go on */
		wait_slices(team, flag_of(s.v, c));
		float4 *sum = sum_of(s.v, c);
#pragma unroll
		for (int e = 0; e < WG_ACC / 4; e++) {
			const float4 x = __ldcg(sum + e * 128);
			acc[4 * e] += x.x;
			acc[4 * e + 1] += x.y;
			acc[4 * e + 2] += x.z;
			acc[4 * e + 3] += x.w;
			sum[e * 128] = make_float4(0.0f, 0.0f, 0.0f, 0.0f); /* the next launch starts from zero */
		}
	}
};
#endif

/* The core over the family's tiles: split-K when SPLIT_K > 1, else the
 * data-parallel walk. */
template <class In, class Out, class Side>
__device__ __forceinline__ void wgmma_gemm_split(const struct launch *L, const In &in,
						 const struct fgo_tmap *map_b,
						 const struct wg_watch &watch, const Out &out,
						 const Side &side)
{
#if SPLIT_K > 1
	const struct sched_grid g = sched_grid_make(M_, N_, K_, BLK_M, BLK_N, BLK_K);
	struct wg_splitk_walk walk;
	walk.L = L;
	walk.tiles = (long)BLOCKS * g.tiles;
	walk.k_iters = (int)g.k_iters;
	walk.sums = (float *)(L->bases[L->rank] + XCHG_OFF);
	wgmma_gemm_walk(in, map_b, watch, out, side, walk);
#else
	(void)L;
	wgmma_gemm(in, map_b, watch, out, side);
#endif
}

#endif
