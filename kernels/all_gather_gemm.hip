/* all_gather_gemm.hip: all-gather of A + GEMM, pull (default) and push
 * (-DPUSH=1). A is row-sharded (M/W x K per rank), B column-sharded
 * (K x N/W); rank r computes C[:, r*N/W, +N/W) (M x N/W, ld N_). The tile
 * space is one block of GROUP sources' M/W x N/W rows (M_ = GROUP x M/W;
 * GROUP = 1 but on the wgmma core where M/W is shorter than a tile,
 * sched_owner_group); virtual tile v is tile v % tiles of block v / tiles,
 * the sources of group sched_peer(rank / GROUP, BLOCKS, v / tiles): the
 * local shard's first, then peers' in an order offset by rank. Where a
 * block holds several sources (GROUP > 1) it reads them all from the
 * inbox, this rank's own shard too (moved there as a peer's is), so a
 * tile of 64 rows at M = 16, W = 4 streams B once for all 16 rows where
 * four blocks of 4 rows streamed it four times.
 *
 * Both forms gather each peer's shard once into this rank's inbox (the
 * work area, all of A, source p's rows at p * M/W) in chunks of CHUNK_ROWS
 * rows, flag [p * chunks + chunk] raised here as each chunk lands, and a
 * tile of a peer's block waits for the chunks holding its rows, then reads
 * the inbox: a peer byte crosses the link once (a K loop loading peer
 * memory itself moved a shard N/W / BLK_N times).
 * Pull: the peers' chunks are copied in. On the mma and SIMT cores the
 * copy engine copies them, beside this kernel (the host,
 * src/algos/all_gather_gemm.c: engine_copies), so every SM computes while
 * the link is busy; on the wgmma core the CTAs read them, as push writes
 * its (below), but the large shards (PULL_BY_ENGINE).
 * Push: each rank copies its shard into every peer's inbox (peer by peer,
 * in the order they read it, where a block is one source), a chunk in
 * pieces by several CTAs, the chunk's flag raised on the peer once all its
 * pieces are there. With COMM_SMS > 0 the last COMM_SMS CTAs are the
 * producers; with 0 every CTA pushes its share of the pieces before it
 * computes, so no CTA waits before its pushes are out: no cycle.
 * On the wgmma core, push and pull alike, every CTA's side warps move its
 * share of the pieces while its consumers compute (the local block first,
 * which needs no chunk), or, for a small shard, the CTAs that would only
 * wait move them all first (mover_plan); a move waits for nothing: no
 * cycle either.
 * Comm-only waits for the chunks (moves them first, but the copy engine's);
 * GEMM-only multiplies the local shard for every block.
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
/* GROUP sources a block, OWN_M rows each (comm.h). */
#define CHUNK_ROWS (COMM_BLK_M > 0 ? COMM_BLK_M : BLK_M)
#define CHUNKS ((OWN_M + CHUNK_ROWS - 1) / CHUNK_ROWS)

/* C rows of source p, at this rank's C. */
__device__ __forceinline__ elem_t *c_block(const struct launch *L, int p)
{
	return heap_at(L, L->rank, L->c_off) + (long)p * OWN_M * N_;
}

/* The group of sources block q of the walk holds (the first of its
 * GROUP sources is GROUP x this): this rank's own first. */
__device__ __forceinline__ int block_group(const struct launch *L, int q)
{
	return sched_peer(L->rank / GROUP, BLOCKS, q);
}

#if PUSH || MMA == 64
/* A chunk moves in PIECES pieces, each copied by one CTA (a small shard
 * of one chunk copied by one CTA alone crossed the link at a few tens of
 * GB/s: 0.53x the vendor sequence at 128 x 4096 x 14336 on two H100s).
 * The pieces of chunk c of source p count their arrivals at a counter in
 * the receiver's flags (after the flags, src/algos/all_gather_gemm.c's
 * layout); the piece that arrives last raises the chunk's flag and zeroes
 * the counter for the next launch, so a tile still waits for one flag.
 * On the wgmma core 64 side-warp threads move a piece, not a whole CTA:
 * more pieces, up to one for every CTA of a full grid even where the shard
 * is one chunk (32 pieces of a 64-row shard took 7 us longer at
 * 128 x 4096 x 14336 on two H100s: each side team went round 7 times). */
#if MMA == 64
#define PIECES_ALL 128
#define PIECES_MAX 128
#else
#define PIECES_ALL 64
#define PIECES_MAX 16
#endif
/* Where a block holds several sources (GROUP > 1) every CTA moves before it
 * computes: the sources' pieces share the grid, one piece of one source a
 * CTA where they suffice (pull at M = 16, W = 4: four sources of 128
 * pieces, each CTA's four pieces one after another, each a remote round
 * trip and its arrivals, held every tile's start to ~14 us). */
#if GROUP > 1
#define PIECES_SOURCES (PUSH ? 2 : WORLD) /* push: the peers' copies and this rank's own */
#else
#define PIECES_SOURCES 1
#endif
#define PIECES_SHARE (PIECES_ALL / PIECES_SOURCES)
#define PIECES (CHUNKS >= PIECES_SHARE ? 1 : PIECES_SHARE / CHUNKS > PIECES_MAX ? PIECES_MAX : PIECES_SHARE / CHUNKS)
#define COUNTER0 ((long)WORLD * CHUNKS)

/* Elements [e0, e1) of chunk c of a shard that its piece i holds, in
 * whole 16-byte vectors (schedule.h: the pieces cover the chunk once). */
__device__ __forceinline__ void piece_span(long c, long i, long *e0, long *e1)
{
	long r0, r1;
	sched_chunk_rows(OWN_M, CHUNK_ROWS, c, &r0, &r1);
	sched_piece_span((r1 - r0) * K_, PIECES, VEC, i, e0, e1);
}

/* Thread 0 of a team whose n pieces of chunk c of source p are in (the
 * team's barrier behind it): they are counted where the chunk lands, and
 * the arrival that completes the chunk raises its flag there. Pull: the
 * inbox, its counters and every reader of them are on this GPU, so the
 * device scope. Push: the pieces crossed to the W - 1 peers: one system
 * fence (the release of every count), the counts in flight together
 * (relaxed), and, where one completed a chunk, a second fence (their
 * acquire, the flags' release) before its flags. A system fence and an
 * acquire-release count a chunk and peer took 5-7 us after each chunk of
 * a pull and ~19 us after a push to three peers (timelines, 128 x 4096 x
 * 14336 on four H100s), where the pieces took 2-4 us to move. */
__device__ __forceinline__ void chunk_arrivals_pushed(const struct launch *L, long at, unsigned int n)
{
	int to[PEERS];
	unsigned int before[PEERS];
	bool done = false;
	peers_of(L->rank, to);
	fgo_fence_system(); /* the team's stores, before its arrivals */
#pragma unroll
	for (int s = 0; s < WORLD - 1; s++)
		before[s] = fgo_count_arrivals_relaxed(flags_of(L, to[s]) + COUNTER0 + at, n);
#pragma unroll
	for (int s = 0; s < WORLD - 1; s++)
		done = done || before[s] + n == PIECES;
	if (!done)
		return;
	fgo_fence_system();
#pragma unroll
	for (int s = 0; s < WORLD - 1; s++)
		if (before[s] + n == PIECES) {
			flags_of(L, to[s])[COUNTER0 + at] = 0; /* for the next launch */
			fgo_flag_set(flags_of(L, to[s]) + at, L->epoch);
		}
}
/* The same where the team's pieces crossed to one peer, to. */
__device__ __forceinline__ void chunk_arrivals_pushed_to(const struct launch *L, int to, long at,
							 unsigned int n)
{
	unsigned int *count = flags_of(L, to) + COUNTER0 + at;
	fgo_fence_system(); /* the team's stores, before its arrivals */
	if (fgo_count_arrivals_relaxed(count, n) + n != PIECES)
		return;
	fgo_fence_system();
	*count = 0; /* for the next launch */
	fgo_flag_set(flags_of(L, to) + at, L->epoch);
}
__device__ __forceinline__ void chunk_arrivals_here(const struct launch *L, long at, unsigned int n)
{
	unsigned int *count = flags_of(L, L->rank) + COUNTER0 + at;
	__threadfence(); /* the team's stores into the inbox, before its arrivals */
	if (fgo_count_arrivals_gpu(count, n) + n == PIECES) {
		*count = 0; /* for the next launch */
		fgo_flag_release_gpu(flags_of(L, L->rank) + at, L->epoch);
	}
}

/* Chunk c of source p's shard, by team t, its pieces j = first,
 * first + step, ... of a sequence in which this chunk's PIECES start at
 * lo: push (p is this rank) copies them into peer dest's inbox (every
 * peer's where dest < 0) and counts them there; pull copies them from p's
 * shard (a peer's, or this rank's own where a block holds several
 * sources) into this rank's inbox and counts them here. Then, once, the system fence and the
 * arrivals, all n at once: a CTA pushing eight pieces of a small shard
 * paid a fence and a remote round trip for each, the tail of a 45 us
 * launch. Traced as a put (a pull's: a0 the peer it read). */
template <class Team>
__device__ __forceinline__ void gather_chunk(const Team &t, const struct launch *L, int p, long c,
					     long lo, long first, long step, bool push, int dest = -1)
{
	const long hi = lo + PIECES;
	long j = first >= lo ? first : first + (lo - first + step - 1) / step * step;
	if (j >= hi)
		return;
	/* traced by the team's thread 0: lane 0 for a CTA, 2 for the side warps */
	const bool tr = t.tid() == 0;
	const int lane = t.size() == THREADS ? 0 : 2;
	const unsigned int n = (unsigned int)((hi - j + step - 1) / step);
	const long row0 = c * CHUNK_ROWS * K_; /* the chunk in a shard */
	long e0, e1, bytes = 0;
	(void)tr;
	(void)lane;
#ifdef FGO_TRACE
	for (long i = j; i < hi; i += step) { /* the trace's bytes: the span's own */
		piece_span(c, i - lo, &e0, &e1);
		bytes += (e1 - e0) * (long)sizeof(elem_t);
	}
#endif
	(void)bytes;
	FGO_TRACE_IF(tr, lane, FGO_TR_PUT, push ? -1 : p, bytes, c, -1, -1);
	for (; j < hi; j += step) {
		piece_span(c, j - lo, &e0, &e1);
		if (e1 <= e0)
			continue;
		if (push && dest >= 0) { /* contiguous rows: one long row */
			const elem_t *from[1] = { heap_at(L, L->rank, L->a_off) + row0 + e0 };
			elem_t *to[1] = { heap_at(L, dest, L->work_off) + (long)L->rank * OWN_M * K_ + row0 + e0 };
			block_sum<Team, 1, 1, team_depth<Team>::value>(t, to, from, e1 - e0, 1, (int)(e1 - e0));
		} else if (push) {
			team_copy_to_peers(t, L, heap_at(L, L->rank, L->a_off) + row0 + e0, L->work_off,
					   (long)L->rank * OWN_M * K_ + row0 + e0, e1 - e0, 1, (int)(e1 - e0));
		} else {
			const elem_t *from[1] = { heap_at(L, p, L->a_off) + row0 + e0 };
			elem_t *to[1] = { heap_at(L, L->rank, L->work_off) + (long)p * OWN_M * K_ + row0 + e0 };
			block_sum<Team, 1, 1, team_depth<Team>::value>(t, to, from, e1 - e0, 1, (int)(e1 - e0));
		}
	}
	t.sync();
	FGO_TRACE_IF(tr, lane, FGO_TR_PUT | FGO_TR_END, push ? -1 : p, bytes, c, -1, -1);
	if (t.tid() == 0 && push && dest >= 0)
		chunk_arrivals_pushed_to(L, dest, (long)p * CHUNKS + c, n);
	else if (t.tid() == 0 && push)
		chunk_arrivals_pushed(L, (long)p * CHUNKS + c, n);
	else if (t.tid() == 0)
		chunk_arrivals_here(L, (long)p * CHUNKS + c, n);
}
#endif

/* The chunks a tile (tm) of block q reads, waited for by wait_chunks(first
 * flag, count): none for this rank's own shard alone (GROUP = 1); the
 * chunks holding its rows where a block is one source; every chunk of
 * every source where it holds several (a block is then one tile's rows).
 * False when a wait gave up. */
template <class Wait>
__device__ __forceinline__ bool tile_chunks(const struct launch *L, int q, long tm, Wait wait_chunks)
{
	const int g = block_group(L, q);
	if (GROUP > 1) {
		for (int i = 0; i < GROUP; i++)
			if (!wait_chunks((long)(g * GROUP + i) * CHUNKS, (int)CHUNKS))
				return false;
		return true;
	}
	if (g == L->rank)
		return true;
	const long r0 = tm * BLK_M, last = r0 + tile_rows(tm, M_) - 1;
	return wait_chunks((long)g * CHUNKS + r0 / CHUNK_ROWS, (int)(last / CHUNK_ROWS - r0 / CHUNK_ROWS + 1));
}

/* Comm-only mode, on either core: what the fused kernel moves, without
 * the GEMM, for the virtual tiles v = first, first + step, ...: (its chunks
 * already pushed or being pulled) it waits for the chunks each tile
 * reads. */
__device__ __forceinline__ void gather_comm_only(const struct launch *L, const struct sched_grid *g,
						 long first, long step)
{
	for (long v = first; v < (long)BLOCKS * g->tiles; v += step) {
		long tm, tn;
		sched_tile_coords(g, GSIZE_M, v % g->tiles, &tm, &tn);
		if (!tile_chunks(L, (int)(v / g->tiles), tm,
				 [&](long f, int n) { return cta_wait(L, f, n, 1); }))
			return;
	}
}

#if PUSH || MMA == 64
/* This team's pieces (first, first + step, ... of the sequence) of what
 * this rank moves, chunk by chunk in the order the walks read them, so
 * the first chunks land first: push, its own shard's CHUNKS x PIECES;
 * pull on the wgmma core, the peers' shards in the walk's block order,
 * (W - 1) x CHUNKS x PIECES. Where a block holds several sources (GROUP >
 * 1), this rank's own shard into its inbox first, as a pull from itself. */
template <class Team>
__device__ __forceinline__ void gather_chunks(const Team &t, const struct launch *L, long first,
					      long step)
{
	if (L->mode == MODE_GEMM_ONLY || WORLD < 2)
		return;
#if PUSH
	/* peer by peer, in the order the peers read this shard: first the one
	 * whose walk takes it first (sched_peer: this rank is step q of peer
	 * rank - q), as pull reads its sources. Every chunk to every peer at
	 * once had each peer's first source block complete only when all
	 * were: at W=4 push took 1.19-1.23x pull's time from 4096 rows. */
	if (GROUP == 1) {
		for (int q = 1; q < WORLD; q++)
			for (long c = 0; c < CHUNKS; c++)
				gather_chunk(t, L, L->rank, c, ((q - 1) * (long)CHUNKS + c) * PIECES, first, step,
					     true, sched_peer(L->rank, WORLD, WORLD - q));
		return;
	}
	for (long c = 0; c < CHUNKS; c++)
		gather_chunk(t, L, L->rank, c, c * PIECES, first, step, true);
	if (GROUP > 1) /* then into this rank's own inbox */
		for (long c = 0; c < CHUNKS; c++)
			gather_chunk(t, L, L->rank, c, (CHUNKS + c) * PIECES, first, step, false);
#else
	const int q0 = GROUP > 1 ? 0 : 1; /* sources from q0 on, pulled (or copied) */
	for (int q = q0; q < WORLD; q++)
		for (long c = 0; c < CHUNKS; c++)
			gather_chunk(t, L, sched_peer(L->rank, WORLD, q), c,
				     ((q - q0) * (long)CHUNKS + c) * PIECES, first, step, false);
#endif
}
#endif

#if MMA == 64
/* Block q's A: the rows of its group of sources, through the map the host
 * built for that group (gpu_tma.c: a peer's rows in the inbox, this rank's
 * own in its A where a block is one source, every source's in the inbox
 * where it holds several; GEMM-only: this rank's own shard where a block
 * is one source); they are read once their chunks' flags arrived, and the
 * proxy fence orders those acquires before the TMA unit's loads. */
struct gather_in {
	const struct fgo_tmaps *maps;
	const struct launch *L;
	__device__ const struct fgo_tmap *map_a(int q) const
	{
		return &maps->m[L->mode == MODE_GEMM_ONLY && GROUP == 1 ? L->rank : block_group(L, q)];
	}
	__device__ bool ready(int q, long tm) const
	{
		if (L->mode == MODE_GEMM_ONLY)
			return true;
		/* traced: the producer's waits, lane 3 */
		const int g = block_group(L, q);
		FGO_TRACE_EV(3, FGO_TR_WAIT, (long)g * GROUP * CHUNKS, g, -1, -1, -1);
		if (!tile_chunks(L, q, tm, [&](long f, int n) {
			    for (int i = 0; i < n; i++)
				    if (!wait_flag(L, f + i))
					    return false;
			    return true;
		    }))
			return false;
		FGO_TRACE_EV(3, FGO_TR_WAIT | FGO_TR_END, (long)g * GROUP * CHUNKS, g, -1, -1, -1);
		asm volatile("fence.proxy.async.global;" ::: "memory");
		return true;
	}
};

/* Block q's parts to this rank's C rows of its group; nothing to publish. */
struct gather_out {
	const struct fgo_tmaps *maps;
	const struct launch *L;
	__device__ void store(const struct wg_part &p, int q, long) const
	{
		wg_store_boxes(&maps->m[block_group(L, q)], p);
	}
	__device__ bool publishes() const { return false; }
	__device__ void publish(long) const {}
};

/* Who moves the chunks (push: this rank's shard out; pull: the peers'
 * shards in). A CTA whose first segment is a peer's (not of the walk's
 * block 0, this rank's own shard) can do nothing until a chunk has
 * arrived: where the shard is small and a quarter of the grid or more is
 * such, those CTAs move every piece with all their threads before their
 * walk (movers of them, this one the mine-th), and the others compute at
 * once. Elsewhere every CTA's side warps move its pieces while its
 * consumers compute. Measured on push: pushed by the whole CTA before its
 * walk, the pieces held every CTA's first tile back until the shard was
 * out (two H100s, 4096 x 4096 x 14336: 0.75x the time by the side warps);
 * by the side warps where most CTAs only wait, a 1.8 MB shard's chunk
 * took 30 us longer (128 x 4096 x 14336, 16 of 32 CTAs: 1.06-1.14x the
 * time of the build before at W=2 and 4, the waiting CTAs 0.99-1.02x).
 * With larger shards the waiting CTAs were the slower (four H100s, 7.3 MB:
 * 1.10x the time against the side warps' 1.02x; 29 MB: 1.32x against
 * 1.00x). Pull on the wgmma core moves its chunks the same way (before,
 * the copy engine copied them, peer after peer and chunk after chunk).
 * Not solved: a small grid has too few side warps to keep the link busy
 * (pull at 1024 x 4096 x 14336 with 128 x 256 tiles, 64 CTAs and a
 * 14.7 MB shard: 1.31-1.41x the copy engine's time at W=2, 1.73x at W=4;
 * the 64 x 128 tiles there gain 0.72-0.97x). */
#define SMALL_SHARD ((long)OWN_M * K_ * (long)sizeof(elem_t) <= (4L << 20))
/* Pull of a large shard: the copy engine copies it (schedule.h's rule,
 * which the host's engine_copies follows too). */
#define PULL_BY_ENGINE (!PUSH && sched_pull_by_engine((long)OWN_M * K_ * (long)sizeof(elem_t), GROUP))
struct mover_plan {
	bool by_ctas; /* the waiting CTAs move the pieces, not the side warps */
	int movers, mine; /* mine: this CTA's index among them, -1: not one */
};

__device__ __forceinline__ struct mover_plan mover_plan_make(const struct wg_walk &walk, long tiles)
{
	struct mover_plan mp;
	int waiting = 0, before = 0;
	bool me = false;
	for (int c0 = 0; c0 < (int)gridDim.x; c0 += THREADS) { /* a thread a CTA of the grid */
		const int c = c0 + (int)threadIdx.x;
		struct sched_seg sg;
		/* where a block holds several sources, its own too waits for peers */
		const bool w = c < (int)gridDim.x &&
			       (GROUP > 1 || !sched_walk_first(&walk.w, c, &sg) || sg.tile >= tiles);
		waiting += __syncthreads_count(w);
		before += __syncthreads_count(w && c < (int)blockIdx.x);
		me = me || __syncthreads_or(w && c == (int)blockIdx.x);
	}
	mp.by_ctas = SMALL_SHARD && 4 * waiting >= (int)gridDim.x;
	mp.movers = waiting;
	mp.mine = me ? before : -1;
	return mp;
}

/* The side warps move this CTA's pieces while the consumers compute,
 * unless the waiting CTAs move them all (mover_plan). */
struct mover_side : wg_side_base {
	enum { producer_regs = 80 };
	const struct launch *L;
	bool on;
	template <class Walk> __device__ void run(const struct wg_side_team &t, const Walk &) const
	{
		if (on)
			gather_chunks(t, L, blockIdx.x, gridDim.x);
	}
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

	const struct wg_walk walk = wg_walk_make(&L);
	/* a CTA's moves wait for nothing, and they are out (or under way on
	 * its side warps) before its first wait: no cycle */
	const struct mover_plan mp = mover_plan_make(walk, g.tiles);
	struct mover_side side;
	side.L = &L;
	side.on = mode != MODE_COMM_ONLY && !mp.by_ctas && !PULL_BY_ENGINE;
	if (!PULL_BY_ENGINE && mode == MODE_COMM_ONLY) /* else the copy engine moves them */
		gather_chunks(cta_team(), &L, blockIdx.x, gridDim.x);
	else if (!PULL_BY_ENGINE && mp.by_ctas && mp.mine >= 0)
		gather_chunks(cta_team(), &L, mp.mine, mp.movers);
	if (mode == MODE_COMM_ONLY)
		gather_comm_only(&L, &g, blockIdx.x, gridDim.x);
	else
		wgmma_gemm_walk(in, &map_b, watch, out, side, walk);
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
		gather_chunks(cta_team(), &L, (long)blockIdx.x - gemm, COMM_SMS);
	else if (COMM_SMS == 0)
		gather_chunks(cta_team(), &L, blockIdx.x, gemm);
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
					  : heap_at(&L, rank, work_off) + (long)p * OWN_M * K_;
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
