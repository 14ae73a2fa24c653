/* all_scatter.hip: GEMM + all-scatter. Each CTA computes tiles of this
 * rank's column block of C (M x N, ld NFULL, own columns from rank * N_),
 * stores each into its own C and then into every peer's C (on the mma
 * core straight from registers, on the wgmma core by TMA from shared
 * memory or by the storer's warp from this rank's C: scatter_out), and
 * raises flag [rank * tiles + tile] there with a system-scope
 * release. Each CTA then waits for its share of the peers' tiles (on the
 * wgmma core its side warps do, from the start), so the launch ends when
 * every peer's every tile has arrived (team_wait_sources). Comm-only mode
 * copies the tiles already in this rank's C. The CTA's work on the mma,
 * MFMA and SIMT cores is all_scatter_cta.h's, shared with the kernel
 * re-expressed through the user contract (kernels/user/shipped_all_scatter). */
#include "all_scatter_cta.h" /* the CTA's work: all_scatter_cta, all_scatter_comm */

#if MMA == 64
#include "wgmma_walk.h" /* the walk: data-parallel, split-K or Stream-K */

/* On the wgmma core the storer thread sends each staged part by TMA to
 * every rank's C (this rank first, then the peers in sched_peer order);
 * where WG_SCATTER_WARP, a tile that is not the CTA's last goes to this
 * rank's C alone and leaves for the peers by the storer's warp once it is
 * complete there, 16-byte copies into every peer's at once. Then the
 * tile's flag is released on every peer. In GEMM-only mode the parts go
 * to this rank's C alone. */
struct scatter_out {
	enum { storer_warp = WG_SCATTER_WARP };
	const struct fgo_tmaps *maps;
	const struct launch *L;
	const struct sched_grid *g;
	__device__ void store(const struct wg_part &p, int, long, bool copies = false) const
	{
		const int n = L->mode == MODE_GEMM_ONLY || copies ? 1 : WORLD;
		for (int s = 0; s < n; s++)
			wg_store_boxes(&maps->m[sched_peer(L->rank, WORLD, s)], p);
	}
	__device__ bool publishes() const { return WORLD > 1 && L->mode != MODE_GEMM_ONLY; }
	/* by the storer thread alone (storer_warp 0) or its whole warp */
	__device__ void publish(long tile, bool copies = false) const
	{
		if (!storer_warp) {
			team_publish_peers(wg_solo_team(), L, L->rank * g->tiles + tile);
			return;
		}
		if (copies)
			team_copy_tile_to_peers(wg_storer_team(), L, g, tile);
		team_publish_peers(wg_storer_team(), L, L->rank * g->tiles + tile);
	}
};

extern "C" __global__ void __launch_bounds__(THREADS, 1) WG_CLUSTER_DIMS
	fgo_main(FGO_KERNEL_PARAMS, FGO_TMAP_PARAMS)
{
	FGO_TRACE_KERNEL(mode);
	const struct launch L = FGO_LAUNCH;
	const struct sched_grid g = tile_grid();
	struct wg_local_a in;
	struct scatter_out out;
	struct wg_scatter_side side; /* the side warps wait for the peers' tiles */
	struct wg_watch watch;
	in.map = &maps_a.m[rank];
	out.maps = &maps_c;
	out.L = &L;
	out.g = &g;
	side.L = &L;
	side.tiles = g.tiles;
	side.on = true;
	watch.status = L.status;
	watch.timeout_ns = L.timeout_ns;

	if (mode == MODE_COMM_ONLY)
		all_scatter_comm(&L, &g);
	else
		wgmma_gemm_walked(&L, in, &map_b, watch, out, side);
}
#else
extern "C" __global__ void __launch_bounds__(THREADS) fgo_main(FGO_KERNEL_PARAMS)
{
	FGO_TRACE_KERNEL(mode);
	const struct launch L = FGO_LAUNCH;
	all_scatter_cta(&L);
}
#endif
