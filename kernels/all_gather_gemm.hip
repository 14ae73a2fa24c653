/* all_gather_gemm.hip: all-gather of A + GEMM, pull (default) and push
 * (-DPUSH=1). A is row-sharded (M/W x K per rank), B column-sharded
 * (K x N/W); rank r computes C[:, r*N/W, +N/W) (M x N/W, ld N_). The tile
 * space is one source's M/W x N/W block (M_ = M/W); virtual tile v is tile
 * v % tiles of the block of source sched_peer(rank, W, v / tiles): the
 * local shard first, then peers in an order offset by rank.
 *
 * Pull: the K loop loads a peer's A rows straight from its heap
 * (cp.async over the fabric). Comm-only copies those rows into the work
 * panel (BLK_M x K) instead; GEMM-only multiplies the local shard.
 * Push: each rank copies its shard into every peer's inbox (the work area,
 * all of A, source p's rows at p * M/W) in chunks of CHUNK_ROWS rows,
 * raising flag [rank * chunks + chunk] on the peer after each; a tile of a
 * peer's block waits for the chunks holding its rows. With COMM_SMS > 0
 * the last COMM_SMS CTAs are the producers; with 0 every CTA pushes its
 * share of the chunks before it computes, so no CTA waits before its
 * pushes are out: no cycle.
 *
 * On the wgmma core (comm_sms 0) the producer thread loads a tile's A rows
 * by TMA through the tensor map of its source block: the peer's shard
 * (pull: TMA reads peer memory) or, after waiting for the chunks' flags,
 * the inbox (push); the storer sends the parts to the source's C rows. */
#include "comm.h"
#if MMA == 64
#include "wgmma_walk.h" /* the walk: data-parallel, split-K or Stream-K */
#endif

#ifndef PUSH
#define PUSH 0
#endif
#define CHUNK_ROWS (COMM_BLK_M > 0 ? COMM_BLK_M : BLK_M)
#define CHUNKS ((M_ + CHUNK_ROWS - 1) / CHUNK_ROWS)

/* C rows of source p's block, at this rank's C. */
__device__ __forceinline__ elem_t *c_block(const struct launch *L, int p)
{
	return heap_at(L, L->rank, L->c_off) + (long)p * M_ * N_;
}

#if PUSH
/* Chunk c of this rank's shard into every peer's inbox, then its flag there. */
__device__ __forceinline__ void push_chunk(const struct launch *L, long c)
{
	const long r0 = c * CHUNK_ROWS;
	const int rows = (int)(M_ - r0 < CHUNK_ROWS ? M_ - r0 : CHUNK_ROWS);
	const long inbox = ((long)L->rank * M_ + r0) * K_; /* where the chunk lands in A */
	copy_to_peers(L, heap_at(L, L->rank, L->a_off) + r0 * K_, L->work_off, inbox,
		      (long)rows * K_, 1, rows * (int)K_); /* contiguous rows: one long row */
	cta_publish_peers(L, (long)L->rank * CHUNKS + c);
}
#endif

/* Comm-only mode, on either core: what the fused kernel moves, without
 * the GEMM, for the virtual tiles v = first, first + step, ...: pull
 * copies each peer tile's A rows into the work panel; push (its chunks
 * already sent) waits for the chunks each peer tile reads. */
__device__ __forceinline__ void gather_comm_only(const struct launch *L, const struct sched_grid *g,
						 long first, long step)
{
	for (long v = first; v < (long)WORLD * g->tiles; v += step) {
		const int p = sched_peer(L->rank, WORLD, (int)(v / g->tiles));
		long tm, tn;
		sched_tile_coords(g, GSIZE_M, v % g->tiles, &tm, &tn);
		const long r0 = tm * BLK_M;
		const int rows = tile_rows(tm, M_);
		if (p == L->rank)
			continue;
#if PUSH
		if (!cta_wait(L, (long)p * CHUNKS + r0 / CHUNK_ROWS,
			      (int)((r0 + rows - 1) / CHUNK_ROWS - r0 / CHUNK_ROWS + 1), 1))
			return;
#else
		const elem_t *src[1] = { heap_at(L, p, L->a_off) + r0 * K_ };
		elem_t *dst[1] = { heap_at(L, L->rank, L->work_off) };
		block_sum(dst, src, (long)rows * K_, 1, rows * (int)K_);
#endif
	}
}

#if PUSH
/* Every chunk of this rank's shard to the peers: chunks first, first +
 * step, ... by this CTA. */
__device__ __forceinline__ void push_chunks(const struct launch *L, long first, long step)
{
	if (L->mode == MODE_GEMM_ONLY || WORLD < 2)
		return;
	for (long c = first; c < CHUNKS; c += step)
		push_chunk(L, c);
}
#endif

#if MMA == 64
/* Block q's A: source sched_peer(rank, W, q)'s rows (this rank's own shard
 * in GEMM-only mode), through the map the host built for that source; with
 * push, a peer's rows are read once their chunks' flags arrived, and the
 * proxy fence orders those acquires before the TMA unit's loads. */
struct gather_in {
	const struct fgo_tmaps *maps;
	const struct launch *L;
	__device__ const struct fgo_tmap *map_a(int q) const
	{
		return &maps->m[L->mode == MODE_GEMM_ONLY ? L->rank : sched_peer(L->rank, WORLD, q)];
	}
	__device__ bool ready(int q, long tm) const
	{
#if PUSH
		const int p = sched_peer(L->rank, WORLD, q);
		if (p == L->rank || L->mode == MODE_GEMM_ONLY)
			return true;
		const long r0 = tm * BLK_M, last = r0 + tile_rows(tm, M_) - 1;
		for (long c = r0 / CHUNK_ROWS; c <= last / CHUNK_ROWS; c++)
			if (!wait_flag(L, (long)p * CHUNKS + c))
				return false;
		asm volatile("fence.proxy.async.global;" ::: "memory");
#else
		(void)q, (void)tm;
#endif
		return true;
	}
};

/* Block q's parts to this rank's C rows of its source; nothing to publish. */
struct gather_out {
	const struct fgo_tmaps *maps;
	const struct launch *L;
	__device__ void store(const struct wg_part &p, int q) const
	{
		wg_store_boxes(&maps->m[sched_peer(L->rank, WORLD, q)], p);
	}
	__device__ bool publishes() const { return false; }
	__device__ void publish(long) const {}
};

extern "C" __global__ void __launch_bounds__(THREADS, 1)
	fgo_main(FGO_KERNEL_PARAMS, FGO_TMAP_PARAMS)
{
	const struct launch L = FGO_LAUNCH;
	const struct sched_grid g = tile_grid();
	struct gather_in in;
	struct gather_out out;
	struct wg_watch watch;
	in.maps = &maps_a;
	in.L = &L;
	out.maps = &maps_c;
	out.L = &L;
	watch.status = L.status;
	watch.timeout_ns = L.timeout_ns;

#if PUSH
	push_chunks(&L, blockIdx.x, gridDim.x); /* before any wait: no cycle */
#endif
	if (mode == MODE_COMM_ONLY)
		gather_comm_only(&L, &g, blockIdx.x, gridDim.x);
	else
		wgmma_gemm_walked(&L, in, &map_b, watch, out, wg_no_side());
}
#else
extern "C" __global__ void __launch_bounds__(THREADS) fgo_main(FGO_KERNEL_PARAMS)
{
	const struct launch L = FGO_LAUNCH;
	const struct sched_grid g = tile_grid();
	const elem_t *b = heap_at(&L, rank, b_off);
	const int gemm = gemm_ctas();
	float acc[ELEMS];

#if PUSH
	/* producers: the comm CTAs, else every CTA before its tiles */
	if (COMM_SMS > 0 && (int)blockIdx.x >= gemm)
		push_chunks(&L, (long)blockIdx.x - gemm, COMM_SMS);
	else if (COMM_SMS == 0)
		push_chunks(&L, blockIdx.x, gemm);
#endif
	if ((int)blockIdx.x >= gemm)
		return;
	if (mode == MODE_COMM_ONLY) {
		gather_comm_only(&L, &g, blockIdx.x, gemm);
		return;
	}
	for (long v = blockIdx.x; v < (long)WORLD * g.tiles; v += gemm) {
		const int p = sched_peer(rank, WORLD, (int)(v / g.tiles));
		long tm, tn;
		sched_tile_coords(&g, GSIZE_M, v % g.tiles, &tm, &tn);
		const long r0 = tm * BLK_M;
#if PUSH
		const int rows = tile_rows(tm, M_);
		const elem_t *a = p == rank ? heap_at(&L, rank, a_off)
					    : heap_at(&L, rank, work_off) + (long)p * M_ * K_;
		if (p != rank && mode != MODE_GEMM_ONLY &&
		    !cta_wait(&L, (long)p * CHUNKS + r0 / CHUNK_ROWS,
			      (int)((r0 + rows - 1) / CHUNK_ROWS - r0 / CHUNK_ROWS + 1), 1))
			return;
#else
		const elem_t *a = heap_at(&L, mode == MODE_GEMM_ONLY ? rank : p, a_off);
#endif
		gemm_tile(a, b, r0, tn * BLK_N, acc);
		store_tile(c_block(&L, p), N_, r0, tn * BLK_N, acc);
	}
}
#endif
