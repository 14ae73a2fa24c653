/* wgmma_cluster.h: thread block cluster primitives of the wgmma core
 * (core_wgmma.h includes it after wgmma_async.h's mbarriers and TMA):
 * the CTA's rank in its cluster, a cluster-wide barrier, an arrival on a
 * peer CTA's mbarrier, a TMA load multicast into every CTA of the cluster,
 * and the consumers' release of a stage that every producer of the
 * cluster writes (WG_MULTICAST). */
#ifndef FGO_WGMMA_CLUSTER_H
#define FGO_WGMMA_CLUSTER_H

__device__ __forceinline__ unsigned int wg_cluster_rank(void)
{
	unsigned int r;
	asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
	return r;
}
/* The shared::cluster address of shared offset addr in CTA `rank`. */
__device__ __forceinline__ unsigned int wg_cluster_addr(unsigned int addr, unsigned int rank)
{
	unsigned int remote;
	asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(addr), "r"(rank));
	return remote;
}
/* Every thread of every CTA of the cluster: what each did before (its
 * barriers' init) is visible to all after. */
__device__ __forceinline__ void wg_cluster_sync(void)
{
	asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
		     "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
/* One arrival on the mbarrier at shared offset bar of CTA `rank` of the
 * cluster. The default release (.cta) is enough for a stage its consumers
 * have only read: a release at cluster scope waited, on every slice, for
 * what the thread had in flight (clusters ran 2-4x slower with it). */
__device__ __forceinline__ void mbar_arrive_remote(unsigned int bar, unsigned int rank)
{
	asm volatile("{\n.reg .b32 remote;\n"
		     "mapa.shared::cluster.u32 remote, %0, %1;\n"
		     "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(bar),
		     "r"(rank)
		     : "memory");
}
/* A consumer frees stage barrier bar: its own CTA's, or with clusters
 * every CTA's of the cluster (each multicast into it). */
__device__ __forceinline__ void wg_free_stage(unsigned int bar)
{
#if WG_MULTICAST
#pragma unroll
	for (unsigned int r = 0; r < CLUSTER; r++)
		mbar_arrive_remote(bar, r);
#else
	mbar_arrive(bar);
#endif
}

/* The same box into the same shared offset of every CTA of the cluster in
 * `mask`, completing on the barrier at offset bar of each. */
__device__ __forceinline__ void tma_load_2d_multicast(unsigned int dst, const struct fgo_tmap *map,
						      int inner, int outer, unsigned int bar,
						      unsigned short mask)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
		     ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
		     "l"(map), "r"(inner), "r"(outer), "r"(bar), "h"(mask)
		     : "memory");
}

#endif
