/* wgmma_streamk.h: the Stream-K walk of the wgmma core (core_wgmma.h,
 * wgmma_gemm_walk), for sk_all_scatter and sk_all_reduce. CTA cta of
 * GEMM_SMS computes its even share of the tiles x k_iters MAC iterations
 * (schedule.h), in the order streamk_gemm (comm.h) explains: the
 * unfinished last segment of its range first, then the range from its
 * start. A segment that stops short of its tile's end is handed over: the
 * consumer warpgroups write their accumulators to the CTA's fp32 slot (in
 * their own per-thread order, so the CTA that takes it over reads it the
 * same way) and raise slot flag slot_flag0 + cta. The segment that ends a
 * tile adds the slots of the CTAs before it, once their flags are up, and
 * goes out through the core's storer like any tile. */
#ifndef FGO_WGMMA_STREAMK_H
#define FGO_WGMMA_STREAMK_H

#include "comm.h"

struct wg_streamk_walk {
	const struct launch *L;
	const struct sched_grid *g;
	float *slots; /* GEMM_SMS slots of BLK_M x BLK_N fp32 */
	long slot_flag0;
	int cta;
	long begin, end, head; /* the range, and where its unfinished last segment starts */

	__device__ bool set(struct wg_seg &s, long it, long stop) const
	{
		s.v = it / g->k_iters;
		s.k0 = (int)(it - s.v * g->k_iters);
		s.k1 = (int)(stop - s.v * g->k_iters);
		return true;
	}
	/* the segment of the range in order that starts at it */
	__device__ bool from(struct wg_seg &s, long it) const
	{
		if (it >= head)
			return false;
		const long tile_end = (it / g->k_iters + 1) * g->k_iters;
		return set(s, it, tile_end < head ? tile_end : head);
	}
	__device__ bool first(struct wg_seg &s) const
	{
		return head < end ? set(s, head, end) : from(s, begin);
	}
	__device__ bool next(struct wg_seg &s) const
	{
		const long at = s.v * g->k_iters;
		if (head < end && at + s.k0 == head) /* the last segment, done first */
			return from(s, begin);
		return from(s, at + s.k1);
	}
	__device__ bool ends(const struct wg_seg &s) const { return s.k1 == g->k_iters; }
	__device__ float *slot(int c) const { return slots + (long)c * BLK_M * BLK_N; }

	/* consumer c's accumulators into this CTA's slot; the flag once both
	 * consumers' are there */
	__device__ void hand_over(const struct wg_seg &, int c, const float (&acc)[WG_ACC]) const
	{
		float *mine = slot(cta) + (long)c * WG_ACC * 128 + threadIdx.x % 128;
#pragma unroll
		for (int e = 0; e < WG_ACC; e++)
			mine[e * 128] = acc[e];
		team_publish_one(wg_consumer_team(), L, L->rank, slot_flag0 + cta);
	}
	/* the heads of this tile the CTAs before this one computed */
	__device__ void take_over(const struct wg_seg &s, int c, float (&acc)[WG_ACC]) const
	{
		if (s.k0 == 0)
			return;
		const int first_cta = sched_streamk_cta(g, GEMM_SMS, s.v * g->k_iters);
		/* gave up: the launch is lost (the status words say why); go on */
		team_wait(wg_consumer_team(), L, slot_flag0 + first_cta, cta - first_cta, 1);
		for (int o = first_cta; o < cta; o++) {
			const float *theirs = slot(o) + (long)c * WG_ACC * 128 + threadIdx.x % 128;
#pragma unroll
			for (int e = 0; e < WG_ACC; e++)
				acc[e] += fgo_ldcg(theirs + e * 128);
		}
	}
};

__device__ __forceinline__ struct wg_streamk_walk wg_streamk_walk_make(const struct launch *L,
								       const struct sched_grid *g,
								       int cta, float *slots,
								       long slot_flag0)
{
	struct wg_streamk_walk w;
	w.L = L;
	w.g = g;
	w.slots = slots;
	w.slot_flag0 = slot_flag0;
	w.cta = cta;
	sched_streamk_range(g, GEMM_SMS, cta, &w.begin, &w.end);
	w.head = sched_streamk_head(g, w.begin, w.end);
	return w;
}

#endif
