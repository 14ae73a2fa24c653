/* all_gather_gemm.hip: all-gather of A + GEMM, pull (default) and push
 * (-DPUSH=1). A is row-sharded (M/W x K per rank), B column-sharded
 * (K x N/W); rank r computes C[:, r*N/W, +N/W) (M x N/W, ld N_). The tile
 * space is one source's M/W x N/W block (M_ = M/W); virtual tile v is tile
 * v % tiles of the block of source sched_peer(rank, W, v / tiles): the
 * local shard first, then peers in an order offset by rank.
 *
 * Both forms gather each peer's shard once into this rank's inbox (the
 * work area, all of A, source p's rows at p * M/W) in chunks of CHUNK_ROWS
 * rows, flag [p * chunks + chunk] raised here as each chunk lands, and a
 * tile of a peer's block waits for the chunks holding its rows, then reads
 * the inbox: a peer byte crosses the link once (a K loop loading peer
 * memory itself moved a shard N/W / BLK_N times).
 * Pull: the copy engine copies the peers' chunks in, beside this kernel
 * (the host, src/algos/all_gather_gemm.c: engine_copies), so every SM
 * computes while the link is busy.
 * Push: each rank copies its shard into every peer's inbox, a chunk in
 * pieces by several CTAs, the chunk's flag raised on the peer once all its
 * pieces are there. With COMM_SMS > 0 the last COMM_SMS CTAs are the
 * producers; with 0 every CTA pushes its share of the pieces before it
 * computes, so no CTA waits before its pushes are out: no cycle.
 * Comm-only waits for the chunks (pushes them first); GEMM-only multiplies
 * the local shard for every block.
 *
 * On the wgmma core (comm_sms 0) the producer thread loads a tile's A rows
 * by TMA through the tensor map of its source block (the inbox for a
 * peer's), after waiting for the chunks' flags; the storer sends the parts
 * to the source's C rows. */
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
/* A chunk goes out in PIECES pieces, each copied by one CTA (a small shard
 * of one chunk copied by one CTA alone crossed the link at a few tens of
 * GB/s: 0.53x the vendor sequence at 128 x 4096 x 14336 on two H100s).
 * The pieces of chunk c of this rank count their arrivals at a counter on
 * each peer (after the flags, src/algos/all_gather_gemm.c's layout); the
 * piece that arrives last raises the chunk's flag there and zeroes the
 * counter for the next launch, so a tile still waits for one flag. */
#define PIECES (CHUNKS >= 64 ? 1 : 64 / CHUNKS > 16 ? 16 : 64 / CHUNKS)
#define COUNTER0 ((long)WORLD * CHUNKS)

/* Piece i of chunk c of this rank's shard into every peer's inbox. */
__device__ __forceinline__ void push_piece(const struct launch *L, long c, int i)
{
	const long r0 = c * CHUNK_ROWS;
	const long elems = (M_ - r0 < CHUNK_ROWS ? M_ - r0 : CHUNK_ROWS) * K_;
	const long per = (elems / PIECES + VEC - 1) / VEC * VEC; /* whole 16-byte vectors */
	const long e0 = (long)i * per < elems ? (long)i * per : elems;
	const long e1 = e0 + per < elems ? e0 + per : elems;
	if (e1 > e0) /* contiguous rows: one long row */
		copy_to_peers(L, heap_at(L, L->rank, L->a_off) + r0 * K_ + e0, L->work_off,
			      ((long)L->rank * M_ + r0) * K_ + e0, e1 - e0, 1, (int)(e1 - e0));
	__syncthreads();
	if (threadIdx.x != 0)
		return;
	fgo_fence_system(); /* the CTA's stores, before its arrival */
	int peers[PEERS];
	peers_of(L->rank, peers);
	for (int s = 0; s < WORLD - 1; s++) {
		unsigned int *f = flags_of(L, peers[s]) + (long)L->rank * CHUNKS + c;
		unsigned int *count = flags_of(L, peers[s]) + COUNTER0 + (long)L->rank * CHUNKS + c;
		if (fgo_count_arrival(count) == PIECES - 1) {
			*count = 0;
			fgo_flag_release(f, L->epoch);
		}
	}
}
#endif

/* Comm-only mode, on either core: what the fused kernel moves, without
 * the GEMM, for the virtual tiles v = first, first + step, ...: (its chunks
 * already pushed or being pulled) it waits for the chunks each peer tile
 * reads. */
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
		if (!cta_wait(L, (long)p * CHUNKS + r0 / CHUNK_ROWS,
			      (int)((r0 + rows - 1) / CHUNK_ROWS - r0 / CHUNK_ROWS + 1), 1))
			return;
	}
}

#if PUSH
/* Every piece of this rank's shard to the peers, chunk by chunk (the order
 * the peers' walks read them): pieces first, first + step, ... by this
 * CTA. */
__device__ __forceinline__ void push_chunks(const struct launch *L, long first, long step)
{
	if (L->mode == MODE_GEMM_ONLY || WORLD < 2)
		return;
	for (long j = first; j < (long)CHUNKS * PIECES; j += step)
		push_piece(L, j / PIECES, (int)(j % PIECES));
}
#endif

#if MMA == 64
/* Block q's A: source sched_peer(rank, W, q)'s rows (this rank's own shard
 * in GEMM-only mode), through the map the host built for that source (a
 * peer's rows in the inbox); a peer's rows are read once their chunks'
 * flags arrived, and the proxy fence orders those acquires before the TMA
 * unit's loads. */
struct gather_in {
	const struct fgo_tmaps *maps;
	const struct launch *L;
	__device__ const struct fgo_tmap *map_a(int q) const
	{
		return &maps->m[L->mode == MODE_GEMM_ONLY ? L->rank : sched_peer(L->rank, WORLD, q)];
	}
	__device__ bool ready(int q, long tm) const
	{
		const int p = sched_peer(L->rank, WORLD, q);
		if (p == L->rank || L->mode == MODE_GEMM_ONLY)
			return true;
		const long r0 = tm * BLK_M, last = r0 + tile_rows(tm, M_) - 1;
		/* traced: the producer's waits, lane 3 */
		FGO_TRACE_EV(3, FGO_TR_WAIT, (long)p * CHUNKS + r0 / CHUNK_ROWS, p, -1, -1, -1);
		for (long c = r0 / CHUNK_ROWS; c <= last / CHUNK_ROWS; c++)
			if (!wait_flag(L, (long)p * CHUNKS + c))
				return false;
		FGO_TRACE_EV(3, FGO_TR_WAIT | FGO_TR_END, (long)p * CHUNKS + r0 / CHUNK_ROWS, p, -1, -1, -1);
		asm volatile("fence.proxy.async.global;" ::: "memory");
		return true;
	}
};

/* Block q's parts to this rank's C rows of its source; nothing to publish. */
struct gather_out {
	const struct fgo_tmaps *maps;
	const struct launch *L;
	__device__ void store(const struct wg_part &p, int q, long) const
	{
		wg_store_boxes(&maps->m[sched_peer(L->rank, WORLD, q)], p);
	}
	__device__ bool publishes() const { return false; }
	__device__ void publish(long) const {}
};

extern "C" __global__ void __launch_bounds__(THREADS, 1) WG_CLUSTER_DIMS
	fgo_main(FGO_KERNEL_PARAMS, FGO_TMAP_PARAMS)
{
	FGO_TRACE_KERNEL(mode);
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
	FGO_TRACE_KERNEL(mode);
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
		const int rows = tile_rows(tm, M_);
		const elem_t *a = p == rank || mode == MODE_GEMM_ONLY
					  ? heap_at(&L, rank, a_off)
					  : heap_at(&L, rank, work_off) + (long)p * M_ * K_;
		if (a != heap_at(&L, rank, a_off)) {
			FGO_TRACE_IF(threadIdx.x == 0, 0, FGO_TR_WAIT, (long)p * CHUNKS + r0 / CHUNK_ROWS, p, -1, -1, -1);
			if (!cta_wait(&L, (long)p * CHUNKS + r0 / CHUNK_ROWS,
				      (int)((r0 + rows - 1) / CHUNK_ROWS - r0 / CHUNK_ROWS + 1), 1))
				return;
			FGO_TRACE_IF(threadIdx.x == 0, 0, FGO_TR_WAIT | FGO_TR_END, (long)p * CHUNKS + r0 / CHUNK_ROWS, p, -1, -1, -1);
		}
		FGO_TRACE_IF(threadIdx.x == 0, 0, FGO_TR_GEMM, v, tm, tn, 0, g.k_iters);
		gemm_tile(a, b, r0, tn * BLK_N, acc);
		FGO_TRACE_IF(threadIdx.x == 0, 0, FGO_TR_GEMM | FGO_TR_END, v, tm, tn, 0, g.k_iters);
		store_tile(c_block(&L, p), N_, r0, tn * BLK_N, acc);
	}
}
#endif
