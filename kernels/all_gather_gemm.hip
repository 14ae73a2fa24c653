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
 * pushes are out: no cycle. */
#include "comm.h"

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

extern "C" __global__ void __launch_bounds__(THREADS) fgo_main(FGO_KERNEL_PARAMS)
{
	const struct launch L = FGO_LAUNCH;
	const struct sched_grid g = tile_grid();
	const elem_t *b = heap_at(&L, rank, b_off);
	const int gemm = gemm_ctas();
	float acc[ELEMS];

#if PUSH
	if (mode != MODE_GEMM_ONLY && WORLD > 1) {
		/* producers: the comm CTAs, else every CTA before its tiles */
		const int first = COMM_SMS > 0 ? gemm : 0, n = COMM_SMS > 0 ? COMM_SMS : gemm;
		if ((int)blockIdx.x >= first)
			for (long c = (long)blockIdx.x - first; c < CHUNKS; c += n)
				push_chunk(&L, c);
	}
#endif
	if ((int)blockIdx.x >= gemm)
		return;
	for (long v = blockIdx.x; v < (long)WORLD * g.tiles; v += gemm) {
		const int p = sched_peer(rank, WORLD, (int)(v / g.tiles));
		long tm, tn;
		sched_tile_coords(&g, GSIZE_M, v % g.tiles, &tm, &tn);
		const long r0 = tm * BLK_M;
		const int rows = tile_rows(tm, M_);
#if PUSH
		const elem_t *a = p == rank ? heap_at(&L, rank, a_off)
					    : heap_at(&L, rank, work_off) + (long)p * M_ * K_;
		if (p != rank && mode != MODE_GEMM_ONLY &&
		    !cta_wait(&L, (long)p * CHUNKS + r0 / CHUNK_ROWS,
			      (int)((r0 + rows - 1) / CHUNK_ROWS - r0 / CHUNK_ROWS + 1), 1))
			return;
#else
		const elem_t *a = heap_at(&L, mode == MODE_GEMM_ONLY ? rank : p, a_off);
		if (mode == MODE_COMM_ONLY) {
			if (p != rank) {
				const elem_t *src[1] = { a + r0 * K_ };
				elem_t *dst[1] = { heap_at(&L, rank, work_off) };
				block_sum(dst, src, (long)rows * K_, 1, rows * (int)K_);
			}
			continue;
		}
#endif
		if (mode == MODE_COMM_ONLY)
			continue;
		gemm_tile(a, b, r0, tn * BLK_N, acc);
		store_tile(c_block(&L, p), N_, r0, tn * BLK_N, acc);
	}
}
