/* sk_all_reduce.hip: Stream-K GEMM + all-reduce with a CU split: one-shot
 * at W <= 2 and for a small C, two-shot from W = 3 on (TWO_SHOT below).
 * K-sharded as all_reduce (tile space M x N over K/W). The first GEMM_SMS
 * CTAs split the MAC iterations (streamk_gemm in comm.h); the CTA
 * that ends a tile stores the partial into this rank's work area (M x N,
 * ld N) and raises flag [tile * W + rank] on every rank (one-shot) or on
 * the tile's owner (two-shot). The last COMM_SMS CTAs sum finished tiles
 * (the c-th of every COMM_SMS this rank sums of the walk's whole waves,
 * [0, dp_tiles), on the wgmma core; of all elsewhere) over the W work
 * areas into this rank's C (one-shot) or, on the owner, into every rank's
 * C, raising [tiles * W + tile] there (two-shot); on the wgmma core the
 * Stream-K tiles,
 * which all end at the kernel's end, are summed by the side warps of the
 * CTA that ends each (the communication CTAs summing that last wave one
 * tile after another were the kernel's tail), and with COMM_SMS = 0 every
 * tile is (one-shot's way, on the hybrid walk). Parts of split tiles go through the exchange
 * area's fp32 slots (one per GEMM CTA, XCHG_OFF) with flags XCHG_FLAG0 +
 * cta (schedule.h's hybrid walk: whole waves of tiles data-parallel, so
 * finished tiles flow to the communication CTAs from the first wave on,
 * and the last partial wave Stream-K). On the wgmma core (MMA=64)
 * the GEMM CTAs walk their ranges through wgmma_walk.h and the storer
 * sends each finished partial to the work area and raises its flags.
 * Two-shot: the launch ends once the sums other ranks own have arrived;
 * the GEMM CTAs wait for them on the wgmma core (side warps), the
 * communication CTAs elsewhere. */
#include "comm.h"

/* Which all-reduce (schedule.h's rule): one-shot reads (W - 1) x C into
 * every GPU, two-shot 2 (W - 1) / W x C, the same at W = 2 and less from
 * W = 3 on, where a small C stays one-shot (one wait instead of two)
 * (four H100s, W = 4: one-shot's bytes alone, its comm-only run,
 * took longer than cuBLAS + NCCL's whole sequence from 4096 rows on, and
 * this family one-shot 0.64-1.02x the vendor sequence, where two-shot on
 * the hybrid walk took 0.97-1.41x). The owner turns with the waves of the
 * GEMM CTAs, which walk the tiles. */
#define TWO_SHOT SCHED_SK_TWO_SHOT(WORLD, M_ * N_ * (long)sizeof(elem_t))
#define AR_OWNER_CTAS ((long)GEMM_SMS)
#include "ar_shots.h"

/* Team t sums tile over the W work areas into this rank's C once every
 * partial is up, DEPTH loads in flight a thread. False when the wait gave up. */
template <int DEPTH, class Team>
__device__ __forceinline__ bool sum_tile(const Team &t, const struct launch *L,
					 const struct sched_grid *g, long tile)
{
	/* traced by the team's thread 0: lane 0 for a CTA, 2 for the side warps */
	const bool tr = t.tid() == 0;
	const int lane = t.size() == THREADS ? 0 : 2;
	(void)tr;
	(void)lane;
	if (!sums(L, tile)) /* two-shot: another rank's */
		return true;
	FGO_TRACE_IF(tr, lane, FGO_TR_WAIT, tile * WORLD, -1, -1, -1, -1);
	if (!team_wait(t, L, tile * WORLD, WORLD, 1))
		return false;
	FGO_TRACE_IF(tr, lane, FGO_TR_WAIT | FGO_TR_END, tile * WORLD, -1, -1, -1, -1);
	FGO_TRACE_IF(tr, lane, FGO_TR_REDUCE, tile, WORLD, -1, -1, -1);
	long tm, tn;
	sched_tile_coords(g, GSIZE_M, tile, &tm, &tn);
	const long at = tm * BLK_M * N_ + tn * BLK_N;
	elem_t *dst[TWO_SHOT ? WORLD : 1];
	sum_destinations(L, at, dst);
	sum_over_ranks<Team, TWO_SHOT ? WORLD : 1, DEPTH>(t, L, L->work_off, at, dst, N_, tile_rows(tm, M_),
							   tile_cols(tn, N_));
	publish_sum(t, L, g, tile);
	FGO_TRACE_IF(tr, lane, FGO_TR_REDUCE | FGO_TR_END, tile, WORLD, -1, -1, -1);
	return true;
}

/* The comm role: the last COMM_SMS CTAs sum finished tiles (the c-th of
 * every COMM_SMS of sk_comm_tiles this rank sums) over the W work areas.
 * False when a wait gave up. */
__device__ __forceinline__ bool sum_finished(const struct launch *L, const struct sched_grid *g)
{
	const long tiles = sk_comm_tiles(g);
	long n = 0; /* tiles this rank sums, so far */
	for (long tile = 0; tile < tiles; tile++)
		if (sums(L, tile) && n++ % COMM_SMS == (long)blockIdx.x - GEMM_SMS &&
		    !sum_tile<COMM_DEPTH>(cta_team(), L, g, tile))
			return false;
	return true;
}

#if MMA == 64
#include "wgmma_walk.h" /* STREAM_K=1: the hybrid walk */

/* A finished partial tile goes by TMA to this rank's work area, then its
 * flag on every rank. */
struct partial_out {
	const struct fgo_tmap *map; /* this rank's work area */
	const struct launch *L;
	__device__ void store(const struct wg_part &p, int, long) const { wg_store_boxes(map, p); }
	__device__ bool publishes() const { return L->mode != MODE_GEMM_ONLY; }
	__device__ void publish(long tile) const { publish_partial(wg_solo_team(), L, tile); }
};

/* Fewer tiles than GEMM CTAs: the hybrid walk has no whole wave, every
 * tile is a Stream-K tile (schedule.h), known when the kernel is compiled. */
#define SK_ALL_STREAM_K \
	((((long)M_ + BLK_M - 1) / BLK_M) * (((long)N_ + BLK_N - 1) / BLK_N) < (long)GEMM_SMS)

/* The side warps sum the tiles from sk_ender_first on that this CTA ends;
 * where every tile is a Stream-K tile (M = 128, say), the last of them with
 * the consumers (wg_tail_team), as all_reduce does: 8% less time at
 * M = 128 on two H100s. Compiled only there: where whole waves come first,
 * the tail's code in the kernel, even never run, cost 2.6% at
 * 4096 x 14336 x 4096 (A/B, two rounds each, two and four H100s). */
struct last_wave_side {
	enum { producer_regs = 80 };
	const struct launch *L;
	const struct sched_grid *g;
	long first; /* sk_ender_first: the tiles before it are the comm CTAs' */
	template <class Walk> __device__ void run(const struct wg_side_team &t, const Walk &walk) const
	{
		if (L->mode != MODE_FUSED)
			return;
		const long last = SK_ALL_STREAM_K ? walk.last_end() : -1; /* -1: no tail */
		bool ok = walk.each_end([&](long tile) {
			return tile < first || tile == last ||
			       sum_tile<team_depth<wg_side_team>::value>(t, L, g, tile);
		});
		if (SK_ALL_STREAM_K && last >= 0) /* even after a wait gave up: the team waits */
			ok = tail_sum(wg_tail_team(), last) && ok;
		if (ok) /* two-shot: this CTA's share of the sums other ranks own */
			sums_arrived(t, L, g, (long)blockIdx.x * t.size(), (long)GEMM_SMS * t.size());
	}
	template <class Walk> __device__ void tail(const struct wg_tail_team &t, const Walk &walk) const
	{
		if (SK_ALL_STREAM_K && L->mode == MODE_FUSED) {
			const long last = walk.last_end();
			if (last >= 0)
				tail_sum(t, last);
		}
	}
	__device__ bool tail_sum(const struct wg_tail_team &t, long last) const
	{
		return last < first || sum_tile<team_depth<wg_tail_team>::value>(t, L, g, last);
	}
};

extern "C" __global__ void __launch_bounds__(THREADS, 1) WG_CLUSTER_DIMS fgo_main(FGO_KERNEL_PARAMS, FGO_TMAP_PARAMS)
{
	FGO_TRACE_KERNEL(mode);
	const struct launch L = FGO_LAUNCH;
	const struct sched_grid g = tile_grid();

	if ((int)blockIdx.x >= GEMM_SMS) {
		if (mode != MODE_GEMM_ONLY)
			sum_finished(&L, &g);
		return;
	}
	const struct wg_walk walk = wg_walk_make(&L);
	if (mode == MODE_COMM_ONLY) { /* the partials are in the work area already */
		struct sched_seg sg;
		for (bool more = walk.first(sg); more; more = walk.next(sg))
			if (walk.ends(sg))
				publish_partial(cta_team(), &L, sg.tile);
		/* every flag of this CTA is up: now sum its tiles from sk_ender_first on */
		for (bool more = walk.first(sg); more; more = walk.next(sg))
			if (walk.ends(sg) && sg.tile >= sk_ender_first(&g) &&
			    !sum_tile<COMM_DEPTH>(cta_team(), &L, &g, sg.tile))
				return;
		sums_arrived(cta_team(), &L, &g, (long)blockIdx.x * THREADS, (long)GEMM_SMS * THREADS);
		return;
	}
	struct wg_local_a in;
	struct partial_out out;
	struct last_wave_side side;
	struct wg_watch watch;
	in.map = &maps_a.m[rank];
	out.map = &maps_c.m[rank];
	out.L = &L;
	side.L = &L;
	side.g = &g;
	side.first = sk_ender_first(&g);
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
	float acc[ELEMS];

	if ((int)blockIdx.x < GEMM_SMS) {
		streamk_gemm(&L, &g, blockIdx.x, heap_at(&L, rank, a_off), heap_at(&L, rank, b_off),
			     (float *)(bases[rank] + XCHG_OFF), XCHG_FLAG0, acc,
			     [&](long tile, long tm, long tn, float(&acc)[ELEMS]) {
				     if (L.mode != MODE_COMM_ONLY)
					     store_tile(heap_at(&L, L.rank, L.work_off), N_, tm * BLK_M,
							tn * BLK_N, acc);
				     if (L.mode != MODE_GEMM_ONLY)
					     publish_partial(cta_team(), &L, tile);
			     });
		return;
	}
	if (mode != MODE_GEMM_ONLY && sum_finished(&L, &g)) /* two-shot: then the sums other ranks own */
		sums_arrived(cta_team(), &L, &g, ((long)blockIdx.x - GEMM_SMS) * THREADS,
			     (long)COMM_SMS * THREADS);
}
#endif
