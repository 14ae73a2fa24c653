/* wgmma_async.h: the PTX of the Hopper core's asynchronous units
 * (core_wgmma.h includes it; nothing here depends on the tile): a tensor
 * map's type, shared addresses, mbarriers (arrivals, transaction bytes,
 * parity waits that give up after the launch's wait limit), TMA loads and
 * bulk stores with their completion waits, and wgmma's descriptors,
 * fences, commits and waits. The tile's own pieces (accumulators, the
 * instruction of BLK_N, the shared-memory layout) stay in core_wgmma.h. */
#ifndef FGO_WGMMA_ASYNC_H
#define FGO_WGMMA_ASYNC_H

/* A tensor map (CUtensorMap): 128 opaque bytes, 64-byte aligned. */
struct __align__(64) fgo_tmap {
	unsigned long long opaque[16];
};

__device__ __forceinline__ unsigned int wg_smem_addr(const void *p)
{
	return (unsigned int)__cvta_generic_to_shared(p);
}

/* ---- mbarriers ---- */
__device__ __forceinline__ void mbar_init(unsigned int bar, unsigned int count)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(unsigned int bar, unsigned int bytes)
{
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
		     : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned int bar)
{
	asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
/* True once the phase of parity `parity` of bar has completed (the
 * instruction itself waits a while before it says no). `cluster`: acquire
 * at cluster scope what the arrivals released (other CTAs of the cluster
 * wrote what the phase guards: kernels/wgmma_cluster_k.h's slots). */
template <bool cluster = false>
__device__ __forceinline__ bool mbar_try(unsigned int bar, unsigned int parity)
{
	unsigned int done;
	if (cluster)
		asm volatile("{\n.reg .pred p;\n"
			     "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
			     "selp.u32 %0, 1, 0, p;\n}\n"
			     : "=r"(done)
			     : "r"(bar), "r"(parity)
			     : "memory");
	else
		asm volatile("{\n.reg .pred p;\n"
			     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
			     "selp.u32 %0, 1, 0, p;\n}\n"
			     : "=r"(done)
			     : "r"(bar), "r"(parity)
			     : "memory");
	return done != 0;
}

/* Where a stalled pipeline is reported: the launch's status words
 * (kernels/comm.h) and its wait limit. */
struct wg_watch {
	unsigned int *status;
	unsigned long long timeout_ns;
};

/* Waits for the phase of parity `parity` of stage barrier `which` (0..2 *
 * NUM_STAGES - 1) at bar. The pipeline cannot stall unless the core is
 * wrong, but a wrong core must not hang the GPU: after the launch's wait
 * limit the first waiter to give up writes status[0] = 2 and status[1] =
 * which + 1 (the host reports a stalled pipeline), and every wait after it
 * returns at once; the launch then ends with wrong data, which validation
 * would refuse anyway. */
template <bool cluster = false>
__device__ __forceinline__ void mbar_wait(unsigned int bar, unsigned int parity, int which,
					  const struct wg_watch &w)
{
	if (mbar_try<cluster>(bar, parity))
		return;
	const unsigned long long start = fgo_now_ns();
	while (!mbar_try<cluster>(bar, parity)) {
		if (*(volatile unsigned int *)w.status)
			return;
		if (fgo_now_ns() - start > w.timeout_ns) {
			if (atomicCAS(w.status, 0u, 2u) == 0u)
				w.status[1] = (unsigned int)(which + 1);
			return;
		}
	}
}

/* ---- TMA: a box of a 2-D tensor map into shared memory, completing on bar ---- */
__device__ __forceinline__ void tma_load_2d(unsigned int dst, const struct fgo_tmap *map, int inner,
					    int outer, unsigned int bar)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
		     " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
		     "l"(map), "r"(inner), "r"(outer), "r"(bar)
		     : "memory");
}

/* Brings a tensor map into the TMA unit's descriptor cache before its
 * first use, so the first load (or store) of the launch does not wait for
 * the descriptor's own fetch from the parameter space as well. */
__device__ __forceinline__ void tma_prefetch_map(const struct fgo_tmap *map)
{
	asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
}

/* A box of shared memory to a 2-D tensor map (C), in the thread's current
 * bulk group; TMA drops what falls outside the map. */
__device__ __forceinline__ void tma_store_2d(const struct fgo_tmap *map, int inner, int outer,
					     unsigned int src)
{
	asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(map),
		     "r"(inner), "r"(outer), "r"(src)
		     : "memory");
}
__device__ __forceinline__ void tma_store_commit(void)
{
	asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
/* Until this thread's bulk stores have read their shared memory (the
 * staging area may be written again), or have completed: their writes are
 * done, and the fence orders them (the async proxy) before the generic
 * stores that follow, such as a flag's release. */
__device__ __forceinline__ void tma_store_wait_read(void)
{
	asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
__device__ __forceinline__ void tma_store_wait_all(void)
{
	asm volatile("cp.async.bulk.wait_group 0;\n\tfence.proxy.async.global;" ::: "memory");
}

/* ---- wgmma ---- */
/* Shared-memory matrix descriptor: start address, the leading-dimension
 * byte offset (B, N-major: from one box of columns to the next; unused for
 * K-major A) and the stride-dimension byte offset (from one group of 8
 * rows to the next), all in 16-byte units, and the swizzle of rows of
 * `row_bytes` (128, 64 or 32: layout type 1, 2 or 3; the panel's boxes
 * are written by TMA with the same swizzle, kernels/tile_shape.h's
 * FGO_WGMMA_BOX_COLS). */
__device__ __forceinline__ unsigned long long wg_desc(unsigned int addr, unsigned int lbo,
						      unsigned int sbo, unsigned int row_bytes = 128)
{
	const unsigned long long layout = row_bytes == 128 ? 1 : row_bytes == 64 ? 2 : 3;
	return (unsigned long long)((addr & 0x3FFFF) >> 4) |
	       (unsigned long long)((lbo >> 4) & 0x3FFF) << 16 |
	       (unsigned long long)((sbo >> 4) & 0x3FFF) << 32 | layout << 62;
}
__device__ __forceinline__ void wgmma_fence(void)
{
	asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit(void)
{
	asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N> __device__ __forceinline__ void wgmma_wait(void)
{
	asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

#endif
