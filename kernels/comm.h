/* comm.h: what the fused kernels share besides the GEMM core: the launch
 * as one struct, CTA roles, bounded flag waits that say what they waited
 * for, publishing, sums and copies of tile-sized blocks over the ranks'
 * heaps, and the fp32 slots through which Stream-K CTAs hand over the head
 * of a tile they split.
 *
 * Flags follow DESIGN.md: the writer raises a flag to the launch's epoch
 * with a system-scope release after its data stores; the reader acquires it
 * before its loads; epochs only grow, so no launch resets a flag. */
#ifndef FGO_COMM_H
#define FGO_COMM_H

#include "gemm_core.h"
#include "trace.h" /* FGO_TRACE_*: nothing unless the kernel is traced */

/* Everything a kernel was launched with (FGO_KERNEL_PARAMS). */
struct launch {
	char *const *bases;
	int rank, mode;
	unsigned int epoch;
	unsigned long long a_off, b_off, c_off, work_off, flags_off;
	unsigned int *status; /* this rank's status words, see wait_flag */
	unsigned long long timeout_ns;
};

#define FGO_LAUNCH                                                                            \
	launch_make(bases, rank, epoch, mode, a_off, b_off, c_off, work_off, flags_off, status_off, \
		    timeout_ns)

__device__ __forceinline__ struct launch launch_make(char *const *bases, int rank,
						     unsigned int epoch, int mode,
						     unsigned long long a_off,
						     unsigned long long b_off,
						     unsigned long long c_off,
						     unsigned long long work_off,
						     unsigned long long flags_off,
						     unsigned long long status_off,
						     unsigned long long timeout_ns)
{
	struct launch L;
	L.bases = bases;
	L.rank = rank;
	L.mode = mode;
	L.epoch = epoch;
	L.a_off = a_off;
	L.b_off = b_off;
	L.c_off = c_off;
	L.work_off = work_off;
	L.flags_off = flags_off;
	L.status = (unsigned int *)(bases[rank] + status_off);
	L.timeout_ns = timeout_ns;
	return L;
}

enum { MODE_FUSED = 0, MODE_GEMM_ONLY = 1, MODE_COMM_ONLY = 2 };

/* Rank r's copy of the buffer at heap offset off. */
__device__ __forceinline__ elem_t *heap_at(const struct launch *L, int r, unsigned long long off)
{
	return (elem_t *)(L->bases[r] + off);
}

__device__ __forceinline__ unsigned int *flags_of(const struct launch *L, int r)
{
	return (unsigned int *)(L->bases[r] + L->flags_off);
}

/* Roles: with COMM_SMS > 0 the last COMM_SMS CTAs of the grid communicate
 * and the others compute (work-group specialization); with 0 every CTA
 * does both. */
__device__ __forceinline__ int gemm_ctas(void)
{
	return COMM_SMS > 0 ? (int)gridDim.x - COMM_SMS : (int)gridDim.x;
}

/* Waits (sleeping between polls) until flags[index] of this rank reaches
 * the epoch. False when it gives up: after timeout_ns, or at once when
 * another wait of this launch gave up (the launch is lost; end it fast).
 * The first to give up writes status[0] = 1 and status[1] = index + 1,
 * which the host reports ("gave up waiting for flag N"). */
__device__ __forceinline__ bool wait_flag(const struct launch *L, long index)
{
	const unsigned int *f = flags_of(L, L->rank) + index;
	if ((int)(fgo_flag_acquire(f) - L->epoch) >= 0)
		return true;
	unsigned long long start = fgo_now_ns();
	while ((int)(fgo_flag_acquire(f) - L->epoch) < 0) {
		if (*(volatile unsigned int *)L->status)
			return false;
		if (fgo_now_ns() - start > L->timeout_ns) {
			if (atomicCAS(L->status, 0u, 1u) == 0u)
				L->status[1] = (unsigned int)(index + 1);
			return false;
		}
		fgo_sleep();
	}
	return true;
}

/* Teams: the threads that wait for, sum, copy and publish one block
 * together. Each has size() threads numbered tid(), a barrier (sync) and a
 * barrier that ands a predicate over them (all). The CTA is one team;
 * the wgmma core adds its side warps, its consumer warpgroups and its
 * storer thread alone (core_wgmma.h). */
struct cta_team {
	__device__ int tid() const { return threadIdx.x; }
	__device__ int size() const { return THREADS; }
	__device__ void sync() const { __syncthreads(); }
	__device__ bool all(bool p) const { return __syncthreads_and(p) != 0; }
};

/* The team waits for this rank's flags first, first + stride, ... (count
 * of them); true, the same in every thread, when all arrived. */
template <class Team>
__device__ __forceinline__ bool team_wait(const Team &t, const struct launch *L, long first,
					  int count, long stride)
{
	bool ok = true;
	for (int i = t.tid(); i < count; i += t.size())
		ok = wait_flag(L, first + i * stride) && ok;
	return t.all(ok);
}

/* After the team's data stores: all its threads are past them (barrier),
 * they are made visible system-wide (one fence), then its thread 0 raises
 * flag `index` on each of the n ranks ranks[0..n) (fgo_flag_set: no fence
 * a flag). */
template <class Team>
__device__ __forceinline__ void team_publish(const Team &t, const struct launch *L, const int *ranks,
					     int n, long index)
{
	t.sync();
	if (t.tid() == 0) {
		fgo_fence_system();
		for (int i = 0; i < n; i++)
			fgo_flag_set(flags_of(L, ranks[i]) + index, L->epoch);
	}
}

/* Publishes on every rank (peers in sched_peer order, this rank first). */
template <class Team>
__device__ __forceinline__ void team_publish_all(const Team &t, const struct launch *L, long index)
{
	int ranks[WORLD];
#pragma unroll
	for (int s = 0; s < WORLD; s++)
		ranks[s] = sched_peer(L->rank, WORLD, s);
	team_publish(t, L, ranks, WORLD, index);
}

template <class Team>
__device__ __forceinline__ void team_publish_one(const Team &t, const struct launch *L, int r,
						 long index)
{
	team_publish(t, L, &r, 1, index);
}

/* The other ranks, in sched_peer order (steps 1 .. W - 1). */
#define PEERS (WORLD > 1 ? WORLD - 1 : 1)

/* The row-block families (reduce_scatter's owners, the gathers' sources):
 * the ranks whose M/W rows a block of tiles holds (BLOCKS = W / GROUP from
 * the host, sched_owner_group), and one rank's rows, OWN_M = M/W. */
#define GROUP (WORLD / BLOCKS)
#define OWN_M (M_ / GROUP)
__device__ __forceinline__ void peers_of(int rank, int (&peers)[PEERS])
{
#pragma unroll
	for (int s = 1; s < WORLD; s++)
		peers[s - 1] = sched_peer(rank, WORLD, s);
}

/* Publishes on every other rank. */
template <class Team>
__device__ __forceinline__ void team_publish_peers(const Team &t, const struct launch *L, long index)
{
	int peers[PEERS];
	peers_of(L->rank, peers);
	team_publish(t, L, peers, WORLD - 1, index);
}

/* The same inside this GPU (the exchange between the CTAs of one launch:
 * split-K sums, Stream-K slots): device-scope release and acquire, polled
 * without sleeping, since the CTAs waited for run in the same wave. */
__device__ __forceinline__ bool wait_flag_gpu(const struct launch *L, long index)
{
	const unsigned int *f = flags_of(L, L->rank) + index;
	if ((int)(fgo_flag_acquire_gpu(f) - L->epoch) >= 0)
		return true;
	const unsigned long long start = fgo_now_ns();
	while ((int)(fgo_flag_acquire_gpu(f) - L->epoch) < 0) {
		if (*(volatile unsigned int *)L->status)
			return false;
		if (fgo_now_ns() - start > L->timeout_ns) {
			if (atomicCAS(L->status, 0u, 1u) == 0u)
				L->status[1] = (unsigned int)(index + 1);
			return false;
		}
	}
	return true;
}
template <class Team>
__device__ __forceinline__ bool team_wait_gpu(const Team &t, const struct launch *L, long first,
					      int count)
{
	bool ok = true;
	for (int i = t.tid(); i < count; i += t.size())
		ok = wait_flag_gpu(L, first + i) && ok;
	return t.all(ok);
}
template <class Team>
__device__ __forceinline__ void team_publish_gpu(const Team &t, const struct launch *L, long index)
{
	t.sync();
	if (t.tid() == 0) {
		__threadfence();
		fgo_flag_release_gpu(flags_of(L, L->rank) + index, L->epoch);
	}
}

/* Whether flags[index] of this rank reached the epoch, looked at once, the
 * same in every thread of the CTA (an acquire by thread 0, then a barrier). */
__device__ __forceinline__ bool cta_flag_up(const struct launch *L, long index)
{
	bool up = false;
	if (threadIdx.x == 0)
		up = (int)(fgo_flag_acquire(flags_of(L, L->rank) + index) - L->epoch) >= 0;
	return !__syncthreads_and(!up); /* or, by the and every HIP path has */
}

/* The whole CTA as the team. */
__device__ __forceinline__ bool cta_wait(const struct launch *L, long first, int count, long stride)
{
	return team_wait(cta_team(), L, first, count, stride);
}
__device__ __forceinline__ void cta_publish_all(const struct launch *L, long index)
{
	team_publish_all(cta_team(), L, index);
}
__device__ __forceinline__ void cta_publish_one(const struct launch *L, int r, long index)
{
	team_publish_one(cta_team(), L, r, index);
}
__device__ __forceinline__ void cta_publish_peers(const struct launch *L, long index)
{
	team_publish_peers(cta_team(), L, index);
}

/* Elements in 16 bytes. */
#define VEC ((int)(16 / sizeof(elem_t)))

/* Vectors a thread of block_sum loads before it uses any: DEPTH loads in
 * flight (4 by default), so a sum waits for memory once per DEPTH / NS
 * vectors, not once per vector (a team of 64 threads sums a 128 x 256 tile
 * in 16 rounds, not 64); NS sources are NS loads already. */
#define SUM_UNROLL(ns, depth) ((ns) >= (depth) ? 1 : (depth) / (ns))
/* The depth of the communication CTAs' copies and sums on the wgmma core,
 * where a CTA holds 168 registers a thread anyway: with 4 loads in flight
 * a thread a CTA summed or copied one 128 x 256 tile every ~8 us over
 * NVLink (two H100s), so a handful of communication CTAs could not keep up
 * with the GEMM CTAs. The other cores keep 4: more registers there would
 * cost the GEMM CTAs occupancy. (The push of A by every CTA stays at 4:
 * at 16 it took 2.32 ms instead of 1.86 at 16384 x 4096 x 14336, W=2.) */
#if MMA == 64
#define COMM_DEPTH 16
#else
#define COMM_DEPTH 4
#endif

/* A team's depth where the caller names none: 4, and 8 for the wgmma
 * core's side warps (80 registers a thread: their sums of peer partials
 * were the bound of the K-sharded families where the partial C is large,
 * 4096 x 14336 x 4096 at W=2 reading 117 MB from the peer at ~235 GB/s). */
template <class Team> struct team_depth {
	enum { value = 4 };
};
#if MMA == 64
template <> struct team_depth<wg_side_team> {
	enum { value = 8 };
};
template <> struct team_depth<wg_tail_team> { /* the side warps are in it */
	enum { value = 8 };
};
template <> struct team_depth<wg_storer_team> { /* one warp: 4 KB in flight */
	enum { value = 8 };
};
template <> struct team_depth<wg_consumer_team> { /* reduce_scatter's sums after the walk */
	enum { value = 8 };
};
#endif

/* dst[d] = sum over s of src[s] for a rows x cols block, by team t; every
 * pointer is the block's first element, all with leading dimension ld. NS
 * sources and ND destinations are compile-time, so the pointers stay in
 * registers. Sums are fp32 with one rounding (NS = 1 is a plain copy);
 * 16-byte vectors where rows are aligned, elements for the rest. Sources
 * are read past L1 (other GPUs and CTAs wrote them during this launch). */
template <class Team, int NS, int ND, int DEPTH = 4>
__device__ __forceinline__ void block_sum(const Team &t, elem_t *const (&dst)[ND],
					  const elem_t *const (&src)[NS], long ld, int rows, int cols)
{
	constexpr int U = SUM_UNROLL(NS, DEPTH);
	unsigned long long align = (unsigned long long)ld * sizeof(elem_t);
#pragma unroll
	for (int s = 0; s < NS; s++)
		align |= (unsigned long long)src[s];
#pragma unroll
	for (int d = 0; d < ND; d++)
		align |= (unsigned long long)dst[d];
	int vpr = (align & 15) == 0 ? cols / VEC : 0; /* whole vectors per row */
	int tail = cols - vpr * VEC;
	const int vectors = rows * vpr;

	for (int i0 = t.tid(); i0 < vectors; i0 += U * t.size()) {
		uint4 in[U][NS];
#pragma unroll
		for (int u = 0; u < U; u++) {
			const int i = i0 + u * t.size();
			const long off = (long)(i / vpr) * ld + (long)(i % vpr) * VEC;
			if (i < vectors)
#pragma unroll
				for (int s = 0; s < NS; s++)
					in[u][s] = fgo_ldcg((const uint4 *)(src[s] + off));
		}
#pragma unroll
		for (int u = 0; u < U; u++) {
			const int i = i0 + u * t.size();
			if (i >= vectors)
				break;
			const long off = (long)(i / vpr) * ld + (long)(i % vpr) * VEC;
			uint4 out = in[u][0];
			if (NS > 1) {
				float sum[VEC];
#pragma unroll
				for (int j = 0; j < VEC; j++)
					sum[j] = 0.f;
#pragma unroll
				for (int s = 0; s < NS; s++) {
					const elem_t *e = (const elem_t *)&in[u][s];
#pragma unroll
					for (int j = 0; j < VEC; j++)
						sum[j] += to_float(e[j]);
				}
				elem_t *o = (elem_t *)&out;
#pragma unroll
				for (int j = 0; j < VEC; j++)
					o[j] = from_float(sum[j]);
			}
#pragma unroll
			for (int d = 0; d < ND; d++)
				*(uint4 *)(dst[d] + off) = out;
		}
	}
	for (int i = t.tid(); i < rows * tail; i += t.size()) {
		long off = (long)(i / tail) * ld + vpr * VEC + i % tail;
		float sum = 0.f;
#pragma unroll
		for (int s = 0; s < NS; s++)
			sum += to_float(fgo_ldcg(src[s] + off));
#pragma unroll
		for (int d = 0; d < ND; d++)
			dst[d][off] = from_float(sum);
	}
}

template <int NS, int ND, int DEPTH = 4>
__device__ __forceinline__ void block_sum(elem_t *const (&dst)[ND], const elem_t *const (&src)[NS],
					  long ld, int rows, int cols)
{
	block_sum<cta_team, NS, ND, DEPTH>(cta_team(), dst, src, ld, rows, cols);
}

/* The rows x cols block at src (leading dimension ld) into every other
 * rank's buffer at heap offset dst_off, element offset at: one read, W - 1
 * writes, by team t, DEPTH loads in flight a thread. */
template <class Team, int DEPTH = team_depth<Team>::value>
__device__ __forceinline__ void team_copy_to_peers(const Team &t, const struct launch *L,
						   const elem_t *src, unsigned long long dst_off,
						   long at, long ld, int rows, int cols)
{
	if (WORLD < 2)
		return;
	int peers[PEERS];
	peers_of(L->rank, peers);
	const elem_t *from[1] = { src };
	elem_t *to[PEERS];
#pragma unroll
	for (int p = 0; p < PEERS; p++)
		to[p] = heap_at(L, peers[p], dst_off) + at;
	block_sum<Team, 1, PEERS, DEPTH>(t, to, from, ld, rows, cols);
}

/* The same by the CTA. */
template <int DEPTH = 4>
__device__ __forceinline__ void copy_to_peers(const struct launch *L, const elem_t *src,
					      unsigned long long dst_off, long at, long ld, int rows,
					      int cols)
{
	team_copy_to_peers<cta_team, DEPTH>(cta_team(), L, src, dst_off, at, ld, rows, cols);
}

/* dst[d] = the sum, by team t, of the rows x cols block at element offset
 * at of every rank's buffer at heap offset src_off (leading dimension ld),
 * read in sched_peer order so the ranks start on different peers. */
template <class Team, int ND, int DEPTH = team_depth<Team>::value>
__device__ __forceinline__ void sum_over_ranks(const Team &t, const struct launch *L,
					       unsigned long long src_off, long at,
					       elem_t *const (&dst)[ND], long ld, int rows, int cols)
{
	const elem_t *src[WORLD];
#pragma unroll
	for (int s = 0; s < WORLD; s++)
		src[s] = heap_at(L, sched_peer(L->rank, WORLD, s), src_off) + at;
	block_sum<Team, WORLD, ND, DEPTH>(t, dst, src, ld, rows, cols);
}

/* The same by the CTA, DEPTH loads in flight a thread. */
template <int DEPTH, int ND>
__device__ __forceinline__ void sum_over_ranks(const struct launch *L, unsigned long long src_off,
					       long at, elem_t *const (&dst)[ND], long ld, int rows,
					       int cols)
{
	sum_over_ranks<cta_team, ND, DEPTH>(cta_team(), L, src_off, at, dst, ld, rows, cols);
}

/* The end of a launch whose output other ranks finish (the scatter
 * families, two-shot): the team waits for its share of the flags
 * flag_of(i), i = first + tid, + step, ... below count (flag_of < 0: none
 * to wait for), each CTA a share, so the launch ends once they are all up.
 * Every CTA of a launch that communicates is resident (the host sizes the
 * grid so), so a CTA that waits keeps none of its GPU's work from running,
 * and no second kernel is launched to wait (a launch cost microseconds at
 * small M). False when a wait gave up. */
template <class Team, class FlagOf>
__device__ __forceinline__ bool team_wait_share(const Team &t, const struct launch *L, long count,
						long first, long step, FlagOf flag_of)
{
	if (WORLD < 2 || L->mode == MODE_GEMM_ONLY)
		return true;
	/* traced by the team's thread 0: lane 0 for a CTA, 2 for side warps */
	const bool tr = t.tid() == 0;
	const int lane = t.size() == THREADS ? 0 : 2;
	(void)tr;
	(void)lane;
	FGO_TRACE_IF(tr, lane, FGO_TR_WAIT, flag_of(first), -1, -1, -1, -1);
	for (long i = first + t.tid(); i < count; i += step) {
		const long f = flag_of(i);
		if (f >= 0 && !wait_flag(L, f))
			return false;
	}
	FGO_TRACE_IF(tr, lane, FGO_TR_WAIT | FGO_TR_END, flag_of(first), -1, -1, -1, -1);
	return true;
}

/* The scatter families: every other source's every tile, flags [source *
 * tiles + tile]. */
template <class Team>
__device__ __forceinline__ bool team_wait_sources(const Team &t, const struct launch *L, long tiles,
						  long first, long step)
{
	return team_wait_share(t, L, (long)WORLD * tiles, first, step,
			       [&](long i) { return i / tiles == L->rank ? -1L : i; });
}

#if MMA == 64
/* The scatter families' side warps on the wgmma core, idle otherwise:
 * with on, they wait for this CTA's share of the peers' tiles while the
 * consumers compute, so the launch ends once every peer's every tile has
 * arrived; without (a Stream-K form's communication CTAs wait instead),
 * nothing. */
struct wg_sources_side : wg_side_base {
	enum { producer_regs = 40 };
	const struct launch *L;
	long tiles;
	bool on;
	template <class Walk> __device__ void run(const struct wg_side_team &t, const Walk &) const
	{
		if (on)
			team_wait_sources(t, L, tiles, (long)blockIdx.x * t.size(), (long)gridDim.x * t.size());
	}
};

/* Whether the scatter families (all_scatter, sk_all_scatter) send a tile
 * that is not their CTA's last to the peers by the storer's warp, from
 * this rank's C, rather than by TMA stores (wg_storer_warp in
 * core_wgmma.h): an SM's TMA unit pushing tiles over the link (132 SMs
 * sharing it) held up the next tile's loads behind them, so every GEMM
 * tile after the first wave took as long again as the pushes before it
 * (four H100s, 4096 x 4096 x 14336, 128x128: the second wave's tiles 135
 * us against the first's 85). The warp's copies pay where there are peers
 * enough or K enough to hide them: all_scatter at W=2 and K = 4096, one
 * warp copying a 128x128 tile took longer than the next tile's main loop
 * (1.03-1.07x the time); at W=4 or K >= 8192 0.77-0.99x
 * (sweeps/mgpu_scatter_push.json, 2026-11-27). */
#define WG_SCATTER_WARP (WORLD >= 4 || K_ >= 8192)

/* Their side warps: waiting for the peers' tiles, with 64 registers a
 * producer-warpgroup thread where the storer's warp copies (16-byte
 * vectors in flight). */
struct wg_scatter_side : wg_sources_side {
	enum { producer_regs = WG_SCATTER_WARP ? 64 : 40 };
};

#endif

/* The Stream-K forms' split of their tiles. The communication CTAs take
 * the walk's whole waves, [0, sk_comm_tiles), on the wgmma core, and every
 * tile elsewhere. The Stream-K tiles after the whole waves all end at the
 * kernel's end, so on the wgmma core the CTA that ends each communicates
 * it at once (its storer sends it, its side warps sum it): a few
 * communication CTAs taking that last wave one tile after another were
 * the kernel's tail (0.72-0.81x the vendor sequence at 1024 x 4096 x 14336
 * on two H100s, where half the tiles or all are in it). */
__device__ __forceinline__ long sk_comm_tiles(const struct sched_grid *g)
{
#if MMA == 64
	return sched_walk_make(g->tiles, g->k_iters, GEMM_SMS, 1, 1, 0).dp_tiles;
#else
	return g->tiles;
#endif
}
/* The first tile the CTA that ends it communicates itself (wgmma core):
 * sk_comm_tiles where communication CTAs take those before it, every tile
 * where there are none (COMM_SMS = 0). */
__device__ __forceinline__ long sk_ender_first(const struct sched_grid *g)
{
	return COMM_SMS > 0 ? sk_comm_tiles(g) : 0;
}

/* The extent of tile (tm, tn) in a rows x cols tile space. */
__device__ __forceinline__ int tile_rows(long tm, long rows)
{
	return (int)(rows - tm * BLK_M < BLK_M ? rows - tm * BLK_M : BLK_M);
}
__device__ __forceinline__ int tile_cols(long tn, long cols)
{
	return (int)(cols - tn * BLK_N < BLK_N ? cols - tn * BLK_N : BLK_N);
}

#if MMA == 64
/* Tile `tile` of this rank's column block, complete in this rank's C,
 * into every peer's C at the same place, by team t. */
template <class Team>
__device__ __forceinline__ void team_copy_tile_to_peers(const Team &t, const struct launch *L,
							const struct sched_grid *g, long tile)
{
	long tm, tn;
	sched_tile_coords(g, GSIZE_M, tile, &tm, &tn);
	const long at = tm * BLK_M * NFULL + (long)L->rank * N_ + tn * BLK_N;
	team_copy_to_peers(t, L, heap_at(L, L->rank, L->c_off) + at, L->c_off, at, NFULL,
			   tile_rows(tm, M_), tile_cols(tn, N_));
}
#endif

/* Stream-K slots: the fp32 head of a split tile, in the accumulator's own
 * per-thread order (coalesced; only CTAs of this launch read it). */
__device__ __forceinline__ void slot_store(float *slot, const float (&acc)[ELEMS])
{
#pragma unroll
	for (int e = 0; e < ELEMS; e++)
		slot[e * THREADS + threadIdx.x] = acc[e];
}

__device__ __forceinline__ void slot_add(const float *slot, float (&acc)[ELEMS])
{
#pragma unroll
	for (int e = 0; e < ELEMS; e++)
		acc[e] += fgo_ldcg(slot + e * THREADS + threadIdx.x);
}

/* The Stream-K GEMM role of CTA cta (of GEMM_SMS): its segments of the
 * walk (schedule.h: sched_walk, the hybrid). A hand-over leaves
 * the CTA's partial in its slot (slots + cta * BLK_M * BLK_N) and raises
 * flag slot_flag0 + cta; a take-over adds the slots of the CTAs that
 * handed over the rest of its tile, in CTA order, once their flags are up;
 * a segment that ends a tile calls finish(tile, tm, tn, acc). In comm-only
 * mode nothing is computed: finish is called for every tile the CTA ends,
 * with acc untouched. False when a wait gave up. */
template <typename Finish>
__device__ __forceinline__ bool streamk_gemm(const struct launch *L, const struct sched_grid *g,
					     int cta, const elem_t *a, const elem_t *b, float *slots,
					     long slot_flag0, float (&acc)[ELEMS], Finish finish)
{
	const struct sched_walk w = sched_walk_make(g->tiles, g->k_iters, GEMM_SMS, 1, 1, 0);
	struct sched_seg s;
	for (int more = sched_walk_first(&w, cta, &s); more; more = sched_walk_next(&w, cta, &s)) {
		long tm, tn;
		sched_tile_coords(g, GSIZE_M, s.tile, &tm, &tn);
		if (L->mode == MODE_COMM_ONLY) {
			if (s.role != SCHED_HAND_OVER)
				finish(s.tile, tm, tn, acc);
			continue;
		}
		const bool tr = threadIdx.x == 0; /* traced by thread 0, lane 0 */
		FGO_TRACE_IF(tr, 0, FGO_TR_GEMM, s.tile, tm, tn, s.k0, s.k1);
		gemm_tile_k(a, b, tm * BLK_M, tn * BLK_N, (int)s.k0, (int)s.k1, acc);
		FGO_TRACE_IF(tr, 0, FGO_TR_GEMM | FGO_TR_END, s.tile, tm, tn, s.k0, s.k1);
		if (s.role == SCHED_HAND_OVER) {
			FGO_TRACE_IF(tr, 0, FGO_TR_HANDOVER, s.tile, s.k0, s.k1, -1, -1);
			slot_store(slots + (long)cta * BLK_M * BLK_N, acc);
			team_publish_gpu(cta_team(), L, slot_flag0 + cta);
			FGO_TRACE_IF(tr, 0, FGO_TR_HANDOVER | FGO_TR_END, s.tile, s.k0, s.k1, -1, -1);
			continue;
		}
		if (s.role == SCHED_TAKE_OVER) {
			FGO_TRACE_IF(tr, 0, FGO_TR_TAKEOVER, s.tile, s.take_first, s.take_last, -1, -1);
			if (!team_wait_gpu(cta_team(), L, slot_flag0 + s.take_first,
					   s.take_last - s.take_first + 1))
				return false;
			for (int c = s.take_first; c <= s.take_last; c++)
				slot_add(slots + (long)c * BLK_M * BLK_N, acc);
			FGO_TRACE_IF(tr, 0, FGO_TR_TAKEOVER | FGO_TR_END, s.tile, s.take_first, s.take_last, -1, -1);
		}
		finish(s.tile, tm, tn, acc);
	}
	return true;
}

#endif
