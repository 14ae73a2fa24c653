/* all_gather_gemm.c: all-gather of A + GEMM on the CPU, pull and push.
 * A is row-sharded (M/W rows per rank), B column-sharded; rank r computes
 * C[:, r*N/W, +N/W) = A x B_r. Both gather each peer's shard once into a
 * local inbox, chunk by chunk with a flag per chunk, and a tile of a peer's
 * rows waits for the chunks it reads: pull copies the peers' chunks in
 * itself (on the GPU the kernel's CTAs do on the wgmma core, else the copy
 * engine beside the kernel: engine_copies), push has each rank copy its
 * shard into every peer's inbox. A peer's byte crosses the link once either way (a tile reading
 * peer memory in its K loop moved a shard N/W / BLK_N times: 2-4x slower
 * than the vendor sequence on two H100s). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/kit.h"
#include "cpu/gemm.h"
#include "fgo.h"
#include "schedule.h"

/* Tiles of one source's row block: M/W x N/W, full K. Tiles never straddle
 * two ranks' A shards, so a tile's A rows come from one rank. */
static struct sched_grid block_grid(const struct fgo_config *cfg)
{
	return sched_grid_make(cfg->m / cfg->world, cfg->n / cfg->world, cfg->k, cfg->blk_m,
			       cfg->blk_n, cfg->blk_k);
}

/* Rows of one chunk of a shard: what one flag announces. */
static long chunk_rows(const struct fgo_config *cfg)
{
	return cfg->comm_blk_m ? cfg->comm_blk_m : cfg->blk_m;
}

/* Heap: A shard (M/W x K) | B shard (K x N/W) | C (M x N/W) | work | the
 * walk's exchange over the W x tiles virtual tiles (kit_xchg_place: split-K
 * sums or Stream-K slots) | flags, the exchange's last. Work is the inbox,
 * all of A (M x K, peer p's rows at p*M/W); flags [p * chunks + c] = chunk
 * c of p's shard arrived, pull and push alike; then as many counters
 * (not epoch flags: [W * chunks + p * chunks + c], the pieces of that chunk
 * that arrived so far, zeroed by the last; the GPU's push). */
static void layout(const struct fgo_config *cfg, int rank, struct fgo_layout *lay)
{
	size_t es = dtype_size(cfg->dtype);
	long mw = cfg->m / cfg->world, nw = cfg->n / cfg->world;

	memset(lay, 0, sizeof *lay);
	lay->a = (struct fgo_matrix){ .offset = 0, .row0 = rank * mw, .rows = mw,
				      .col0 = 0, .cols = cfg->k, .ld = cfg->k };
	size_t off = kit_align((size_t)mw * (size_t)cfg->k * es);
	lay->b = (struct fgo_matrix){ .offset = off, .row0 = 0, .rows = cfg->k,
				      .col0 = rank * nw, .cols = nw, .ld = nw };
	off = kit_align(off + (size_t)cfg->k * (size_t)nw * es);
	lay->c = (struct fgo_matrix){ .offset = off, .row0 = 0, .rows = cfg->m,
				      .col0 = rank * nw, .cols = nw, .ld = nw };
	off = kit_align(off + (size_t)cfg->m * (size_t)nw * es);
	lay->work_offset = off;
	lay->work_bytes = (size_t)cfg->m * (size_t)cfg->k * es;
	lay->flags_count = 2 * (size_t)sched_chunk_count(mw, chunk_rows(cfg)) * (size_t)cfg->world;
	size_t cursor = off + lay->work_bytes;
	kit_xchg_place(cfg, block_grid(cfg).tiles * cfg->world, lay, &cursor);
	lay->flags_offset = kit_place(&cursor, lay->flags_count * sizeof(uint32_t));
	lay->heap_bytes = kit_place(&cursor, 0);
}

static int ag_validate(const struct fgo_config *cfg, char *reason, size_t len)
{
	struct fgo_gemm_dims d;
	if (kit_check_divisible("M", cfg->m, cfg->world, reason, len) ||
	    kit_check_divisible("N", cfg->n, cfg->world, reason, len))
		return 1;
	/* d.m: the rows a block holds (several sources' on the wgmma core
	 * where M/W is shorter than a tile) */
	algo_gemm_dims(algo_find(cfg->algorithm), cfg, &d);
	if (kit_check_tile(cfg, d.m, cfg->n / cfg->world, reason, len))
		return 1;
	long mw = cfg->m / cfg->world;
	if (cfg->comm_blk_m > kit_pow2_ceil(mw)) {
		snprintf(reason, len,
			 "comm_blk_m=%d exceeds the %ld rows of one A shard, M/world (use comm_blk_m <= %ld)",
			 cfg->comm_blk_m, mw, kit_pow2_ceil(mw));
		return 1;
	}
	return 0;
}

/* Every peer needs this rank's A shard once: M/W x K elements on each link,
 * and that is what crosses it, pull or push. */
static double link_bytes(const struct fgo_config *cfg)
{
	if (cfg->world < 2)
		return 0;
	return (double)(cfg->m / cfg->world) * (double)cfg->k * (double)dtype_size(cfg->dtype);
}

/* One tile of source p's row block in this rank's C, with its rows' A at
 * a (K elements per row, first row of the block's tile space). */
struct ag_tile {
	long row0, col0; /* row within the source's block, column within C */
	int rows, cols;
};

static struct ag_tile tile_at(const struct fgo_config *cfg, const struct sched_grid *g, long tile)
{
	long tm, tn, mw = cfg->m / cfg->world, nw = cfg->n / cfg->world;
	struct ag_tile t;
	sched_tile_coords(g, cfg->gsize_m, tile, &tm, &tn);
	t.row0 = tm * cfg->blk_m;
	t.col0 = tn * cfg->blk_n;
	t.rows = (int)(mw - t.row0 < cfg->blk_m ? mw - t.row0 : cfg->blk_m);
	t.cols = (int)(nw - t.col0 < cfg->blk_n ? nw - t.col0 : cfg->blk_n);
	return t;
}

/* acc = the tile's product over BLK_K slices [k_begin, k_end), its A
 * rows from a_block (the source's shard, K elements a row). */
static void ag_tile_gemm(const struct fgo_exec *ex, const struct ag_tile *t, const char *a_block,
			 long k_begin, long k_end, float *acc)
{
	const struct fgo_config *cfg = ex->cfg;
	const struct fgo_layout *lay = ex->lay;
	size_t es = dtype_size(cfg->dtype);
	long k0 = k_begin * cfg->blk_k, k1 = k_end * cfg->blk_k < cfg->k ? k_end * cfg->blk_k : cfg->k;

	memset(acc, 0, sizeof *acc * (size_t)t->rows * (size_t)t->cols);
	if (k1 > k0)
		cpu_gemm_acc(acc, t->rows, t->cols, k1 - k0,
			     a_block + ((size_t)t->row0 * (size_t)cfg->k + (size_t)k0) * es, cfg->k,
			     kit_heap(ex, ex->rank, lay->b.offset) +
				     ((size_t)k0 * (size_t)lay->b.ld + (size_t)t->col0) * es,
			     lay->b.ld, cfg->dtype);
}

/* C rows p*M/W + t rows, cols t = acc. */
static void store_tile(const struct fgo_exec *ex, int p, const struct ag_tile *t, const float *acc)
{
	const struct fgo_config *cfg = ex->cfg;
	const struct fgo_layout *lay = ex->lay;
	size_t es = dtype_size(cfg->dtype);
	long grow = p * (cfg->m / ex->world) + t->row0;

	cpu_tile_store(kit_heap(ex, ex->rank, lay->c.offset) +
			       ((size_t)grow * (size_t)lay->c.ld + (size_t)t->col0) * es,
		       lay->c.ld, acc, t->rows, t->cols, cfg->dtype);
}

/* One launch, pull or push: the walk (kit_walk_run) over the W x tiles
 * virtual tiles, virtual tile v being tile v % tiles of the block of source
 * sched_peer(rank, W, v / tiles) (local rows first, as the GPU numbers
 * them). A peer's rows are read from this rank's inbox once the chunks
 * holding them arrived. */
struct ag_launch {
	const struct fgo_exec *ex;
	enum fgo_mode mode;
	struct sched_grid g;
	long chunks; /* chunks of one A shard */
};

static int ag_source(const struct ag_launch *L, long v)
{
	return sched_peer(L->ex->rank, L->ex->world, (int)(v / L->g.tiles));
}

/* Waits for the chunks of source p that hold rows [r0, r1) of its shard. */
static int wait_rows(const struct fgo_exec *ex, long chunks, int p, long r0, long r1)
{
	long cr = chunk_rows(ex->cfg);
	for (long c = r0 / cr; c <= (r1 - 1) / cr; c++) {
		int rc = kit_flag_wait(ex, p * chunks + c);
		if (rc != FGO_OK)
			return rc;
	}
	return FGO_OK;
}

/* Where source p's shard lies in this rank's inbox. */
static size_t inbox_at(const struct fgo_exec *ex, int p)
{
	const struct fgo_config *cfg = ex->cfg;
	return ex->lay->work_offset +
	       (size_t)p * (size_t)(cfg->m / ex->world) * (size_t)cfg->k * dtype_size(cfg->dtype);
}

static int ag_walk_gemm(void *ctx, long v, long k0, long k1, float *acc, int *rows, int *cols)
{
	const struct ag_launch *L = ctx;
	const struct fgo_exec *ex = L->ex;
	const struct fgo_config *cfg = ex->cfg;
	struct ag_tile t = tile_at(cfg, &L->g, v % L->g.tiles);
	int p = ag_source(L, v);
	/* GEMM-only does the same FLOPs on the local shard */
	int src = L->mode == FGO_MODE_GEMM_ONLY ? ex->rank : p;
	const char *a_block = kit_heap(ex, src, ex->lay->a.offset);

	if (src != ex->rank) {
		int rc = wait_rows(ex, L->chunks, p, t.row0, t.row0 + t.rows);
		if (rc != FGO_OK)
			return rc;
		a_block = kit_heap(ex, ex->rank, inbox_at(ex, p));
	}
	ag_tile_gemm(ex, &t, a_block, k0, k1, acc);
	*rows = t.rows;
	*cols = t.cols;
	return FGO_OK;
}

/* A whole tile: stored in C. Comm-only (acc NULL): waits for the peer rows
 * the tile would read. */
static int ag_walk_finish(void *ctx, long v, const float *acc)
{
	const struct ag_launch *L = ctx;
	const struct fgo_exec *ex = L->ex;
	struct ag_tile t = tile_at(ex->cfg, &L->g, v % L->g.tiles);
	int p = ag_source(L, v);

	if (acc)
		store_tile(ex, p, &t, acc);
	else if (p != ex->rank)
		return wait_rows(ex, L->chunks, p, t.row0, t.row0 + t.rows);
	return FGO_OK;
}

static int ag_walk(const struct fgo_exec *ex, enum fgo_mode mode)
{
	const struct fgo_config *cfg = ex->cfg;
	struct ag_launch L = { ex, mode, block_grid(cfg),
			       sched_chunk_count(cfg->m / ex->world, chunk_rows(cfg)) };
	struct kit_walk_ops ops = { mode == FGO_MODE_COMM_ONLY ? NULL : ag_walk_gemm,
				    ag_walk_finish, NULL, NULL, NULL };
	struct sched_walk w = kit_walk_of(cfg, &L.g, ex->world);

	return kit_walk_run(ex, &w, &ops, &L);
}

/* Chunk c of source p's shard: its rows' bytes, and where they start in
 * p's A and in an inbox. */
static void chunk_span(const struct fgo_config *cfg, const struct fgo_layout *lay, int p, long c,
		       size_t *from, size_t *to, size_t *bytes)
{
	size_t es = dtype_size(cfg->dtype), row = (size_t)cfg->k * es;
	long mw = cfg->m / cfg->world, r0, r1;

	sched_chunk_rows(mw, chunk_rows(cfg), c, &r0, &r1);
	*from = lay->a.offset + (size_t)r0 * row;
	*to = lay->work_offset + (size_t)(p * mw + r0) * row;
	*bytes = (size_t)(r1 - r0) * row;
}

/* Pull's copies, in the order this rank's walk reads them: the peers in
 * sched_peer order (the walk's blocks 1 .. W - 1), each chunk by chunk;
 * chunk c of peer p lands at p's rows of this rank's inbox and raises flag
 * [p * chunks + c] here. The CPU's pull makes them itself; on the GPU
 * see engine_copies. */
static int pull_copies(const struct fgo_config *cfg, const struct fgo_layout *lay, int rank,
		       struct fgo_engine_copy *c, int max)
{
	long chunks = sched_chunk_count(cfg->m / cfg->world, chunk_rows(cfg));
	int n = 0;

	for (int s = 1; s < cfg->world; s++) {
		int p = sched_peer(rank, cfg->world, s);
		for (long k = 0; k < chunks; k++, n++) {
			if (!c || n >= max) /* counting only, or past the caller's room */
				continue;
			c[n].src_rank = p;
			c[n].flag = p * chunks + k;
			chunk_span(cfg, lay, p, k, &c[n].src_offset, &c[n].dst_offset, &c[n].bytes);
		}
	}
	return n;
}

/* The copies the GPU backend has the copy engine make beside the kernel
 * (fgo_algo.engine_copies): pull's, but on the wgmma core where its CTAs
 * read the shard themselves (sched_pull_by_engine, the kernel's rule too). */
static int engine_copies(const struct fgo_config *cfg, const struct fgo_layout *lay, int rank,
			 struct fgo_engine_copy *c, int max)
{
	long shard = cfg->m / cfg->world * cfg->k * (long)dtype_size(cfg->dtype);
	struct fgo_gemm_dims d;
	algo_gemm_dims(algo_find(cfg->algorithm), cfg, &d); /* sources a block: world / blocks */
	if (cfg->mma == FGO_MMA_WGMMA && !sched_pull_by_engine(shard, cfg->world / d.blocks))
		return 0;
	return pull_copies(cfg, lay, rank, c, max);
}

static int pull_run(const struct fgo_exec *ex, enum fgo_mode mode)
{
	if (mode != FGO_MODE_GEMM_ONLY) {
		int n = pull_copies(ex->cfg, ex->lay, ex->rank, NULL, 0);
		struct fgo_engine_copy *c = malloc(sizeof *c * (size_t)(n ? n : 1));
		if (!c) {
			kit_fail(ex, "out of memory");
			return FGO_EFAIL;
		}
		pull_copies(ex->cfg, ex->lay, ex->rank, c, n);
		for (int i = 0; i < n; i++) {
			memcpy(kit_heap(ex, ex->rank, c[i].dst_offset),
			       kit_heap(ex, c[i].src_rank, c[i].src_offset), c[i].bytes);
			kit_flag_publish(ex, ex->rank, c[i].flag);
		}
		free(c);
	}
	return ag_walk(ex, mode);
}

/* Copies chunk c of this rank's A shard into every peer's inbox, then
 * publishes it there. */
static void push_chunk(const struct fgo_exec *ex, long chunks, long c)
{
	size_t from, to, bytes;

	chunk_span(ex->cfg, ex->lay, ex->rank, c, &from, &to, &bytes);
	for (int s = 1; s < ex->world; s++) {
		int q = sched_peer(ex->rank, ex->world, s);
		memcpy(kit_heap(ex, q, to), kit_heap(ex, ex->rank, from), bytes);
		kit_flag_publish(ex, q, ex->rank * chunks + c);
	}
}

static int push_run(const struct fgo_exec *ex, enum fgo_mode mode)
{
	const struct fgo_config *cfg = ex->cfg;
	long chunks = sched_chunk_count(cfg->m / ex->world, chunk_rows(cfg));

	/* Every chunk to every peer before any wait, so ranks running one
	 * after another cannot deadlock; then the walk. */
	if (mode != FGO_MODE_GEMM_ONLY)
		for (long c = 0; c < chunks; c++)
			push_chunk(ex, chunks, c);
	return ag_walk(ex, mode);
}

/* MPI_Allgather of the A shards into a private M x K buffer, then the
 * reference GEMM into C. */
static int baseline(const struct fgo_exec *ex)
{
	const struct fgo_config *cfg = ex->cfg;
	const struct fgo_layout *lay = ex->lay;
	size_t es = dtype_size(cfg->dtype);
	size_t shard = (size_t)lay->a.rows * (size_t)cfg->k * es;
	size_t c_elems = (size_t)cfg->m * (size_t)lay->c.cols;
	char *a_all = malloc(shard * (size_t)ex->world + 1);
	float *c32 = malloc(sizeof *c32 * (c_elems ? c_elems : 1));
	int ok = a_all && c32 && shard <= (size_t)INT32_MAX;

	/* Agree first: no rank may be left alone inside the collective. */
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, ex->comm);
	if (!ok) {
		free(a_all);
		free(c32);
		return FGO_EFAIL;
	}
	MPI_Allgather(kit_heap(ex, ex->rank, lay->a.offset), (int)shard, MPI_BYTE, a_all, (int)shard,
		      MPI_BYTE, ex->comm);
	cpu_gemm(c32, lay->c.cols, cfg->m, lay->c.cols, cfg->k, a_all, cfg->k,
		 kit_heap(ex, ex->rank, lay->b.offset), lay->b.ld, cfg->dtype);
	char *c = kit_heap(ex, ex->rank, lay->c.offset);
	for (long r = 0; r < cfg->m; r += cfg->blk_m) {
		long h = cfg->m - r < cfg->blk_m ? cfg->m - r : cfg->blk_m;
		cpu_tile_store(c + (size_t)r * (size_t)lay->c.ld * es, lay->c.ld,
			       c32 + (size_t)r * (size_t)lay->c.cols, (int)h, (int)lay->c.cols,
			       cfg->dtype);
	}
	free(a_all);
	free(c32);
	return FGO_OK;
}

const struct fgo_algo algo_all_gather_gemm_pull = {
	.name = "all_gather_gemm_pull",
	.family = "all_gather_gemm",
	.summary = "A row-sharded, B column-sharded; each peer's A shard pulled once into a local inbox (on GPUs by the CTAs, or the copy engine), comm_blk_m-row chunks with a flag each",
	.needs_comm = 1,
	.validate = ag_validate,
	.layout = layout,
	.link_bytes = link_bytes,
	.cpu_run = pull_run,
	.cpu_baseline = baseline,
	.engine_copies = engine_copies,
	.gpu_source = "kernels/all_gather_gemm.hip",
	.space = FGO_SPACE_A_ROWS,
	.split_k = 1,
};

const struct fgo_algo algo_all_gather_gemm_push = {
	.name = "all_gather_gemm_push",
	.family = "all_gather_gemm",
	.summary = "A row-sharded, B column-sharded; each rank pushes its A shard in comm_blk_m-row chunks with a flag per chunk",
	.needs_comm = 1,
	.validate = ag_validate,
	.layout = layout,
	.link_bytes = link_bytes,
	.cpu_run = push_run,
	.cpu_baseline = baseline,
	.gpu_source = "kernels/all_gather_gemm.hip",
	.space = FGO_SPACE_A_ROWS,
	.gpu_variant = "PUSH",
	.comm_ctas = FGO_COMM_CTAS_OPTIONAL,
	.split_k = 1,
};
