/* wgmma_cluster_k.h: split-K summed on chip, for the wgmma core's walk
 * (wgmma_walk.h) when a thread block cluster holds the K slices of one tile
 * (CLUSTER > 1 and SPLIT_K == CLUSTER; kernels/schedule.h's cluster_k walk:
 * rank r computes slice r, rank CLUSTER - 1 ends the tile).
 *
 * The CTA of the last slice (the leader) keeps, after its barriers, a slot
 * per other slice and consumer: that consumer's WG_ROWS x BLK_N fp32 part,
 * as each thread's float4s at [e * 128 + t] (the layout of the L2 path's
 * sums). Per tile, consumer c of a slice r < CLUSTER - 1:
 *   waits on its own k_empty[c] until the leader has read its slot of the
 *   tile before (the first tile passes: parity of the phase before),
 *   stores its float4s with rows inside M into the leader's slot (st to
 *   distributed shared memory), and every thread arrives on the leader's
 *   k_full[c] with release at cluster scope ((CLUSTER - 1) x 128 arrivals
 *   complete a phase);
 * and consumer c of the leader waits on k_full[c] (acquire at cluster
 * scope), adds the slots to its accumulators in slice order (the same bits
 * on every launch: deterministic with no extra cost), syncs its warpgroup,
 * and one thread arrives on each other slice's k_empty[c]. No L2 round
 * trip, no flags in global memory, no zeroing. The i-th tile of a cluster
 * uses phase i of these barriers, so the parity is i & 1.
 *
 * Before a consumer of a non-leader exits it waits for the leader's read of
 * its last slot (the leader's arrival must not find a CTA that has gone);
 * the leader itself waited for every slot it read. */
#ifndef FGO_WGMMA_CLUSTER_K_H
#define FGO_WGMMA_CLUSTER_K_H

#if WG_CLUSTER_K

/* This thread's float4 0 of the slot of slice `slice` for consumer c. */
__device__ __forceinline__ unsigned int wg_k_slot(int slice, int c)
{
	return wg_k_area() + 32 +
	       (unsigned int)(((slice * WG_CONSUMERS + c) * (WG_ACC / 4) * 128 + (int)threadIdx.x % 128) * 16);
}

/* The barrier numbers a stalled wait reports: after the core's. */
#define WG_BAR_K_FULL (2 * NUM_STAGES + 4)
#define WG_BAR_K_EMPTY (2 * NUM_STAGES + 6)

/* A slice before the last: its part of the tile (rows < `rows`) into the
 * leader's slot, once the leader has read the one before. `parity`: the
 * tile's phase (the cluster's i-th tile: i & 1). */
__device__ __forceinline__ void wg_k_hand_over(int slice, int c, const float (&acc)[WG_ACC], long rows,
					       unsigned int parity, const struct wg_watch &watch)
{
	const unsigned int leader = CLUSTER - 1;
	mbar_wait(wg_k_empty(c), parity ^ 1, WG_BAR_K_EMPTY + c, watch);
	const unsigned int slot = wg_cluster_addr(wg_k_slot(slice, c), leader);
#pragma unroll
	for (int e = 0; e < WG_ACC / 4; e++)
		if (wg_acc_row(e) < rows)
			asm volatile("st.shared::cluster.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(slot + e * 128 * 16),
				     "f"(acc[4 * e]), "f"(acc[4 * e + 1]), "f"(acc[4 * e + 2]), "f"(acc[4 * e + 3])
				     : "memory");
	asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(
			     wg_cluster_addr(wg_k_full(c), leader))
		     : "memory");
}

/* The leader: the other slices' parts added to acc in slice order, then
 * their slots handed back. */
__device__ __forceinline__ void wg_k_take_over(int c, float (&acc)[WG_ACC], long rows, unsigned int parity,
					       const struct wg_watch &watch)
{
	mbar_wait<true>(wg_k_full(c), parity, WG_BAR_K_FULL + c, watch);
	for (int slice = 0; slice < CLUSTER - 1; slice++) {
		const unsigned int slot = wg_k_slot(slice, c);
#pragma unroll
		for (int e = 0; e < WG_ACC / 4; e++)
			if (wg_acc_row(e) < rows) {
				float4 x;
				asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
					     : "=f"(x.x), "=f"(x.y), "=f"(x.z), "=f"(x.w)
					     : "r"(slot + e * 128 * 16)
					     : "memory");
				wg_acc_add(acc, e, x);
			}
	}
	asm volatile("bar.sync %0, 128;" ::"r"(3 + c) : "memory"); /* the warpgroup has read them */
	/* released at cluster scope: the reads before the next tile's stores
	 * (once a tile, unlike the stages' arrivals) */
	if (threadIdx.x % 128 == 0)
		for (unsigned int r = 0; r < CLUSTER - 1; r++)
			asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(
					     wg_cluster_addr(wg_k_empty(c), r))
				     : "memory");
}

#endif
#endif
