/* sk_all_scatter.hip: Stream-K GEMM + all-scatter with a CU split. The
 * grid is GEMM_SMS + COMM_SMS CTAs. The first GEMM_SMS split the MAC
 * iterations of this rank's tile space (M x N/W) (streamk_gemm in comm.h); the CTA that ends a tile stores it into this rank's C (columns
 * from rank * N_, ld NFULL) and raises flag [W * tiles + tile] here. The
 * last COMM_SMS CTAs push finished tiles (the c-th of every COMM_SMS of
 * the walk's whole waves, [0, dp_tiles)) into every peer's C and raise
 * [rank * tiles + tile] there, then wait for
 * their share of every peer's tiles (team_wait_sources), so the launch ends
 * when all have arrived. Parts of split tiles go through the exchange area's
 * fp32 slots (one per GEMM CTA, XCHG_OFF) with flags XCHG_FLAG0 + cta
 * (schedule.h's hybrid walk: whole waves of tiles data-parallel, so
 * finished tiles flow to the communication CTAs from the first wave on,
 * and the last partial wave Stream-K). The GEMM CTAs wait only for
 * each other's first segments, and comm CTAs only for finished GEMM work:
 * no cycle. On the wgmma core (MMA=64) the GEMM CTAs walk their ranges
 * through wgmma_walk.h and the storer sends each finished tile to C and
 * raises its flag; with COMM_SMS = 0 it sends every tile to the peers as
 * all_scatter's does, and the side warps wait for the peers' tiles. */
#include "comm.h"

/* Tiles a communication CTA sends before one system-scope fence and their
 * flags: a fence per tile held a CTA to ~8 GB/s over NVLink (two H100s),
 * so a few such CTAs sent tiles slower than the GEMM CTAs finished them. */
#define PUSH_BATCH 8

/* Finished tile `tile` from this rank's C into every peer's, by the CTA
 * (its flags are the caller's). */
__device__ __forceinline__ void send_tile(const struct launch *L, const struct sched_grid *g, long tile)
{
	const long own = (long)L->rank * N_; /* this rank's first column of C */
	const bool tr = threadIdx.x == 0; /* traced by thread 0, lane 0 */
	long tm, tn;
	sched_tile_coords(g, GSIZE_M, tile, &tm, &tn);
	const long at = tm * BLK_M * NFULL + own + tn * BLK_N;
	const int bytes = tile_rows(tm, M_) * tile_cols(tn, N_) * (int)sizeof(elem_t);
	(void)tr;
	(void)bytes;
	FGO_TRACE_IF(tr, 0, FGO_TR_PUT, -1, bytes, tile, -1, -1);
	copy_to_peers<COMM_DEPTH>(L, heap_at(L, L->rank, L->c_off) + at, L->c_off, at, NFULL,
				  tile_rows(tm, M_), tile_cols(tn, N_));
	FGO_TRACE_IF(tr, 0, FGO_TR_PUT | FGO_TR_END, -1, bytes, tile, -1, -1);
}

/* The comm role: the last COMM_SMS CTAs push finished tiles (the c-th of
 * every COMM_SMS of sk_comm_tiles) to every peer's C, each the next one once
 * it is finished and with it those after it that are finished too (up to
 * PUSH_BATCH), then their flags there. */
__device__ __forceinline__ void push_finished(const struct launch *L, const struct sched_grid *g,
					      long done0)
{
	const bool tr = threadIdx.x == 0; /* traced by thread 0, lane 0 */
	const long tiles = sk_comm_tiles(g);
	for (long tile = (long)blockIdx.x - GEMM_SMS; tile < tiles;) {
		FGO_TRACE_IF(tr, 0, FGO_TR_WAIT, done0 + tile, L->rank, -1, -1, -1);
		if (!cta_wait(L, done0 + tile, 1, 1))
			return;
		FGO_TRACE_IF(tr, 0, FGO_TR_WAIT | FGO_TR_END, done0 + tile, L->rank, -1, -1, -1);
		long next = tile;
		int n = 0;
		do {
			send_tile(L, g, next);
			next += COMM_SMS;
		} while (++n < PUSH_BATCH && next < tiles && cta_flag_up(L, done0 + next));
		__syncthreads(); /* every thread's stores, before the fence */
		if (threadIdx.x == 0) {
			int peers[PEERS];
			peers_of(L->rank, peers);
			fgo_fence_system();
			for (long t = tile; t < next; t += COMM_SMS)
				for (int p = 0; p < WORLD - 1; p++)
					fgo_flag_set(flags_of(L, peers[p]) + (long)L->rank * g->tiles + t,
						     L->epoch);
		}
		tile = next;
	}
	team_wait_sources(cta_team(), L, g->tiles, ((long)blockIdx.x - GEMM_SMS) * THREADS,
			  (long)COMM_SMS * THREADS);
}

#if MMA == 64
#include "wgmma_walk.h" /* STREAM_K=1: the hybrid walk */

/* A finished tile before sk_ender_first goes by TMA to this rank's C, then
 * its done flag here (the communication CTAs send it on); one from there
 * on goes to every rank's C, then its flags on the peers, as all_scatter's
 * do (by the storer's warp, but for the CTA's last, where WG_SCATTER_WARP). */
struct finished_out {
	enum { storer_warp = WG_SCATTER_WARP };
	const struct fgo_tmaps *maps; /* every rank's C at this rank's columns */
	const struct launch *L;
	const struct sched_grid *g;
	long done0, first;
	__device__ bool sends(long v) const { return v >= first && L->mode != MODE_GEMM_ONLY; }
	__device__ void store(const struct wg_part &p, int, long v, bool copies = false) const
	{
		const int n = sends(v) && !copies ? WORLD : 1;
		for (int s = 0; s < n; s++)
			wg_store_boxes(&maps->m[sched_peer(L->rank, WORLD, s)], p);
	}
	__device__ bool publishes() const { return L->mode != MODE_GEMM_ONLY; }
	/* by the storer thread alone (storer_warp 0) or its whole warp */
	__device__ void publish(long v, bool copies = false) const
	{
		if (storer_warp)
			publish_by(wg_storer_team(), v, copies);
		else
			publish_by(wg_solo_team(), v, false);
	}
	template <class Team> __device__ void publish_by(const Team &t, long v, bool copies) const
	{
		if (!sends(v)) {
			team_publish_one(t, L, L->rank, done0 + v);
			return;
		}
		if (copies)
			team_copy_tile_to_peers(t, L, g, v);
		team_publish_peers(t, L, L->rank * g->tiles + v);
	}
};

extern "C" __global__ void __launch_bounds__(THREADS, 1) WG_CLUSTER_DIMS fgo_main(FGO_KERNEL_PARAMS, FGO_TMAP_PARAMS)
{
	FGO_TRACE_KERNEL(mode);
	const struct launch L = FGO_LAUNCH;
	const struct sched_grid g = tile_grid();
	const long done0 = (long)WORLD * g.tiles;

	if ((int)blockIdx.x >= GEMM_SMS) {
		if (mode != MODE_GEMM_ONLY)
			push_finished(&L, &g, done0);
		return;
	}
	const struct wg_walk walk = wg_walk_make(&L);
	if (mode == MODE_COMM_ONLY) { /* the tiles are in C already */
		struct sched_seg sg;
		for (bool more = walk.first(sg); more; more = walk.next(sg)) {
			if (!walk.ends(sg))
				continue;
			if (sg.tile < sk_ender_first(&g)) {
				cta_publish_one(&L, rank, done0 + sg.tile);
			} else { /* sent by the CTA that ends it */
				send_tile(&L, &g, sg.tile);
				cta_publish_peers(&L, (long)rank * g.tiles + sg.tile);
			}
		}
		if (COMM_SMS == 0)
			team_wait_sources(cta_team(), &L, g.tiles, (long)blockIdx.x * THREADS,
					  (long)gridDim.x * THREADS);
		return;
	}
	struct wg_local_a in;
	struct finished_out out;
	struct wg_scatter_side side; /* the peers' tiles: waited for here with no comm CTAs */
	struct wg_watch watch;
	in.map = &maps_a.m[rank];
	out.maps = &maps_c;
	out.L = &L;
	out.done0 = done0;
	out.g = &g;
	out.first = sk_ender_first(&g);
	side.L = &L;
	side.tiles = g.tiles;
	side.on = COMM_SMS == 0;
	watch.status = L.status;
	watch.timeout_ns = L.timeout_ns;
	wgmma_gemm_walk(in, &map_b, watch, out, side, walk);
}
#else
extern "C" __global__ void __launch_bounds__(THREADS) fgo_main(FGO_KERNEL_PARAMS)
{
	FGO_TRACE_KERNEL(mode);
	const struct launch L = FGO_LAUNCH;
	const struct sched_grid g = tile_grid();
	const long own = (long)rank * N_; /* this rank's first column of C */
	const long done0 = (long)WORLD * g.tiles;
	float acc[ELEMS];

	if ((int)blockIdx.x < GEMM_SMS) {
		streamk_gemm(&L, &g, blockIdx.x, heap_at(&L, rank, a_off), heap_at(&L, rank, b_off),
			     (float *)(bases[rank] + XCHG_OFF), XCHG_FLAG0, acc,
			     [&](long tile, long tm, long tn, float(&acc)[ELEMS]) {
				     if (L.mode != MODE_COMM_ONLY)
					     store_tile(heap_at(&L, L.rank, L.c_off) + own, NFULL, tm * BLK_M,
							tn * BLK_N, acc);
				     if (L.mode != MODE_GEMM_ONLY)
					     cta_publish_one(&L, L.rank, done0 + tile);
			     });
		return;
	}
	if (mode != MODE_GEMM_ONLY)
		push_finished(&L, &g, done0);
}
#endif
