/* gemm.hip: the GEMM core alone (algorithm "gemm"): C = A x B_r for this
 * rank's column block, no communication. LDC = N_ (C is M x N/W). */
#include "comm.h"
#if MMA == 64
#include "wgmma_walk.h" /* the walk: data-parallel, split-K or Stream-K */
#endif

#if MMA == 64
/* The wgmma core's output here: each part to this rank's C, nothing to
 * publish. */
struct store_to_c {
	const struct fgo_tmap *map_c;
	__device__ void store(const struct wg_part &p, int, long) const { wg_store_boxes(map_c, p); }
	__device__ void prefetch() const { tma_prefetch_map(map_c); }
	__device__ bool publishes() const { return false; }
	__device__ void publish(long) const {}
};

extern "C" __global__ void __launch_bounds__(THREADS, 1) WG_CLUSTER_DIMS
	fgo_main(FGO_KERNEL_PARAMS, FGO_TMAP_PARAMS)
{
	FGO_TRACE_KERNEL(mode);
	const struct launch L = FGO_LAUNCH;
	struct wg_local_a in;
	struct store_to_c out;
	struct wg_watch watch;
	in.map = &maps_a.m[rank];
	out.map_c = &maps_c.m[rank];
	watch.status = L.status;
	watch.timeout_ns = L.timeout_ns;

	if (mode == MODE_COMM_ONLY)
		return;
	wgmma_gemm_walked(&L, in, &map_b, watch, out, wg_no_side());
}
#else
extern "C" __global__ void __launch_bounds__(THREADS) fgo_main(FGO_KERNEL_PARAMS)
{
	FGO_TRACE_KERNEL(mode);
	const struct launch L = FGO_LAUNCH;
	const elem_t *a = heap_at(&L, rank, a_off), *b = heap_at(&L, rank, b_off);
	elem_t *c = heap_at(&L, rank, c_off);
	const struct sched_grid g = tile_grid();
	float acc[ELEMS];

	if (mode == MODE_COMM_ONLY)
		return;
	for (long tile = blockIdx.x; tile < g.tiles; tile += gridDim.x) {
		long tm, tn;
		sched_tile_coords(&g, GSIZE_M, tile, &tm, &tn);
		FGO_TRACE_IF(threadIdx.x == 0, 0, FGO_TR_GEMM, tile, tm, tn, 0, g.k_iters);
		gemm_tile(a, b, tm * BLK_M, tn * BLK_N, acc);
		FGO_TRACE_IF(threadIdx.x == 0, 0, FGO_TR_GEMM | FGO_TR_END, tile, tm, tn, 0, g.k_iters);
		store_tile(c, N_, tm * BLK_M, tn * BLK_N, acc);
	}
}
#endif
