/* reduce_scatter.c: GEMM + reduce-scatter on the CPU. Each rank computes
 * the partial C of its K slice, one block of destinations' rows at a time
 * (peers first, its own last; a block is one owner's rows, or a group's
 * where M/W rows are fewer than a tile's, sched_owner_group), in the walk
 * of kernels/schedule.h (kit_walk_run); the rank owning a row block sums
 * its tiles from every rank and keeps rows [r*M/W, +M/W) of C. */
#include <stdlib.h>

#include "algos/ar_common.h"
#include "algos/kit.h"
#include "cpu/gemm.h"
#include "fgo.h"

/* Whether the GPU kernel pushes the partials into their owners' inboxes
 * (kernels/reduce_scatter.hip, RS_PUSH: the wgmma core where a block of
 * tiles is one owner's rows) rather than the owners pulling them. */
static int rs_pushes(const struct fgo_config *cfg)
{
	struct fgo_gemm_dims d;
	if (cfg->mma != FGO_MMA_WGMMA || cfg->world < 2)
		return 0;
	algo_gemm_dims(algo_find(cfg->algorithm), cfg, &d);
	return d.blocks == cfg->world;
}

/* Heap: A | B | C (M/W x N) | work: this rank's partial C (M x N, dtype),
 * then, where the kernel pushes (rs_pushes), its inbox (M x N: rank s's
 * partial of this rank's rows at s x M/W) | the walk's exchange over the W
 * x tiles virtual tiles (kit_xchg_place; none data-parallel) | flags:
 * [tile * W + p] = rank p's partial of tile (of the owner's row block,
 * launch order) is ready, on the owner; then the exchange's. The CPU
 * backend reads the partials where they were computed (the inbox unused). */
static void rs_layout(const struct fgo_config *cfg, int rank, struct fgo_layout *lay)
{
	long mw = cfg->m / cfg->world;
	struct sched_grid g = ar_grid(cfg, mw, cfg->n);
	size_t off = ar_layout_inputs(cfg, rank, rank * mw, mw, lay);
	size_t cursor;

	lay->work_offset = off;
	lay->work_bytes = (size_t)cfg->m * (size_t)cfg->n * dtype_size(cfg->dtype) * (rs_pushes(cfg) ? 2 : 1);
	lay->flags_count = (size_t)g.tiles * (size_t)cfg->world;
	cursor = off + lay->work_bytes;
	kit_xchg_place(cfg, g.tiles * cfg->world, lay, &cursor);
	lay->flags_offset = kit_place(&cursor, lay->flags_count * sizeof(uint32_t));
	lay->heap_bytes = kit_place(&cursor, 0);
}

/* The tile space is one block of rows, M/W x N, or the blocks of the
 * group of owners a tile holds where M/W is shorter than BLK_M
 * (sched_owner_group): the tile is judged against the rows it holds. */
static int rs_validate(const struct fgo_config *cfg, char *reason, size_t len)
{
	struct fgo_gemm_dims d;
	if (kit_check_divisible("M", cfg->m, cfg->world, reason, len))
		return 1;
	algo_gemm_dims(algo_find(cfg->algorithm), cfg, &d); /* d.m: the rows a block holds */
	return ar_validate(cfg, d.m, cfg->n, reason, len);
}

/* Rank r sends peer q the partial of q's row block: M/W x N elements. */
static double rs_link_bytes(const struct fgo_config *cfg)
{
	if (cfg->world < 2)
		return 0;
	return (double)(cfg->m / cfg->world) * (double)cfg->n * (double)dtype_size(cfg->dtype);
}

/* Owner: C tile = the sum of every rank's partial of its own tile. */
static void rs_reduce(const struct fgo_exec *ex, const struct sched_grid *g, long tile, float *acc)
{
	const struct fgo_config *cfg = ex->cfg;
	const struct fgo_matrix *c = &ex->lay->c;
	struct ar_tile t;
	ar_tile_at(cfg, g, c->row0, c->rows, cfg->n, tile, &t);
	ar_tile_sum(ex, ex->lay->work_offset, &t, acc);
	cpu_tile_store(kit_heap(ex, ex->rank, ar_elem_offset(cfg, c->offset, t.row0 - c->row0, t.col0)),
		       cfg->n, acc, t.rows, t.cols, cfg->dtype);
}

/* One launch: the walk (kit_walk_run) over the W x tiles virtual tiles,
 * virtual tile v being tile v % tiles of the row block of rank
 * sched_peer(rank, W, (v / tiles + 1) % W), peers' blocks first, its own
 * last (as the GPU numbers them); the CTA that ends one stores it in this
 * rank's work area and announces it on the block's owner, then this rank
 * reduces what is ready of its own block. */
struct rs_launch {
	const struct fgo_exec *ex;
	struct sched_grid g; /* of one block: group x M/W rows */
	int group;           /* owners a block holds */
	int comm;
	long done;  /* own tiles reduced so far */
	float *sum; /* the reduction's tile */
};

/* Virtual tile v: its rows and columns, and the block's first owner. */
static struct ar_tile rs_tile(const struct rs_launch *L, long v, int *first)
{
	const struct fgo_config *cfg = L->ex->cfg;
	const int blocks = L->ex->world / L->group;
	const long rows = L->group * (cfg->m / L->ex->world);
	const int block = sched_peer(L->ex->rank / L->group, blocks, (int)((v / L->g.tiles + 1) % blocks));
	struct ar_tile t;
	*first = block * L->group;
	ar_tile_at(cfg, &L->g, block * rows, rows, cfg->n, v % L->g.tiles, &t);
	return t;
}

static int rs_walk_gemm(void *ctx, long v, long k0, long k1, float *acc, int *rows, int *cols)
{
	const struct rs_launch *L = ctx;
	int first;
	struct ar_tile t = rs_tile(L, v, &first);
	ar_tile_gemm(L->ex, &t, k0, k1, acc);
	*rows = t.rows;
	*cols = t.cols;
	return FGO_OK;
}

static int rs_walk_finish(void *ctx, long v, const float *acc)
{
	struct rs_launch *L = ctx;
	const struct fgo_exec *ex = L->ex;
	const struct fgo_config *cfg = ex->cfg;
	int first;
	struct ar_tile t = rs_tile(L, v, &first);
	if (acc)
		cpu_tile_store(kit_heap(ex, ex->rank, ar_elem_offset(cfg, ex->lay->work_offset,
								     t.row0, t.col0)),
			       cfg->n, acc, t.rows, t.cols, cfg->dtype);
	if (!L->comm)
		return FGO_OK;
	/* with group > 1 the block is one row of tiles: an owner's tile has
	 * the index of the block's tile it lies in */
	for (int j = 0; j < L->group; j++)
		kit_flag_publish(ex, first + j, (v % L->g.tiles) * ex->world + ex->rank);
	while (L->done < L->g.tiles && ar_sources_ready(ex, L->done * ex->world))
		rs_reduce(ex, &L->g, L->done++, L->sum);
	return FGO_OK;
}

static int rs_run(const struct fgo_exec *ex, enum fgo_mode mode)
{
	const struct fgo_config *cfg = ex->cfg;
	struct fgo_gemm_dims d; /* d.blocks blocks of d.m rows, as the GPU walks them */
	algo_gemm_dims(algo_find(cfg->algorithm), cfg, &d);
	struct rs_launch L = { ex, ar_grid(cfg, d.m, cfg->n), ex->world / d.blocks,
			       mode != FGO_MODE_GEMM_ONLY, 0, NULL };
	struct kit_walk_ops ops = { mode == FGO_MODE_COMM_ONLY ? NULL : rs_walk_gemm,
				    rs_walk_finish, NULL, NULL, NULL };
	struct sched_walk w = kit_walk_of(cfg, &L.g, d.blocks);
	int rc;

	L.sum = malloc(sizeof *L.sum * (size_t)cfg->blk_m * (size_t)cfg->blk_n);
	if (!L.sum)
		return FGO_EFAIL;
	rc = kit_walk_run(ex, &w, &ops, &L);
	for (; L.comm && L.done < L.g.tiles && rc == FGO_OK; L.done++) {
		rc = ar_sources_wait(ex, L.done * ex->world);
		if (rc == FGO_OK)
			rs_reduce(ex, &L.g, L.done, L.sum);
	}
	free(L.sum);
	return rc;
}

static int rs_baseline(const struct fgo_exec *ex)
{
	return ar_baseline(ex, 1);
}

const struct fgo_algo algo_reduce_scatter = {
	.name = "reduce_scatter",
	.family = "reduce_scatter",
	.summary = "A cols and B rows K-sharded; partial tiles summed on the rank owning their rows; rank r keeps rows [r*M/W, +M/W) of C",
	.needs_comm = 1,
	.validate = rs_validate,
	.layout = rs_layout,
	.link_bytes = rs_link_bytes,
	.cpu_run = rs_run,
	.cpu_baseline = rs_baseline,
	.gpu_source = "kernels/reduce_scatter.hip",
	.space = FGO_SPACE_K_ROWS,
	.comm_ctas = FGO_COMM_CTAS_OPTIONAL,
	.split_k = 1,
};
