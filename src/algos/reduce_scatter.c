/* reduce_scatter.c: GEMM + reduce-scatter on the CPU. Each rank computes
 * the partial C of its K slice, one destination's row block at a time
 * (peers first, its own last); the rank owning a row block sums its tiles
 * from every rank and keeps rows [r*M/W, +M/W) of C. */
#include <stdlib.h>

#include "ar_common.h"
#include "cpu/gemm.h"
#include "fgo.h"
#include "kit.h"

/* Heap: A | B | C (M/W x N) | work: this rank's partial C (M x N, dtype) |
 * flags: [tile * W + p] = rank p's partial of tile (of the owner's row
 * block, launch order) is ready, on the owner. */
static void rs_layout(const struct fgo_config *cfg, int rank, struct fgo_layout *lay)
{
	long mw = cfg->m / cfg->world;
	struct sched_grid g = ar_grid(cfg, mw, cfg->n);
	size_t off = ar_layout_inputs(cfg, rank, rank * mw, mw, lay);

	lay->work_offset = off;
	lay->work_bytes = (size_t)cfg->m * (size_t)cfg->n * dtype_size(cfg->dtype);
	lay->flags_offset = kit_align(off + lay->work_bytes);
	lay->flags_count = (size_t)g.tiles * (size_t)cfg->world;
	lay->heap_bytes = kit_align(lay->flags_offset + lay->flags_count * sizeof(uint32_t));
}

/* Tiles never straddle two ranks' row blocks: the tile space is one row
 * block, M/W x N. */
static int rs_validate(const struct fgo_config *cfg, char *reason, size_t len)
{
	if (kit_check_divisible("M", cfg->m, cfg->world, reason, len))
		return 1;
	return ar_validate(cfg, cfg->m / cfg->world, cfg->n, reason, len);
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

static int rs_run(const struct fgo_exec *ex, enum fgo_mode mode)
{
	const struct fgo_config *cfg = ex->cfg;
	long mw = cfg->m / ex->world;
	struct sched_grid g = ar_grid(cfg, mw, cfg->n);
	float *acc = malloc(sizeof *acc * (size_t)cfg->blk_m * (size_t)cfg->blk_n);
	long done = 0; /* own tiles reduced so far */
	int rc = FGO_OK;

	if (!acc)
		return FGO_EFAIL;
	/* Peers' blocks first, so their reductions can start early; own last. */
	for (int s = 1; s <= ex->world; s++) {
		int dest = sched_peer(ex->rank, ex->world, s % ex->world);
		for (long tile = 0; tile < g.tiles; tile++) {
			struct ar_tile t;
			ar_tile_at(cfg, &g, dest * mw, mw, cfg->n, tile, &t);
			if (mode != FGO_MODE_COMM_ONLY) {
				ar_tile_gemm(ex, &t, 0, g.k_iters, acc);
				cpu_tile_store(kit_heap(ex, ex->rank, ar_elem_offset(cfg, ex->lay->work_offset,
										    t.row0, t.col0)),
					       cfg->n, acc, t.rows, t.cols, cfg->dtype);
			}
			if (mode == FGO_MODE_GEMM_ONLY)
				continue;
			kit_flag_publish(ex, dest, tile * ex->world + ex->rank);
			while (done < g.tiles && ar_sources_ready(ex, done * ex->world))
				rs_reduce(ex, &g, done++, acc);
		}
	}
	if (mode != FGO_MODE_GEMM_ONLY) {
		for (; done < g.tiles && rc == FGO_OK; done++) {
			rc = ar_sources_wait(ex, done * ex->world);
			if (rc == FGO_OK)
				rs_reduce(ex, &g, done, acc);
		}
	}
	free(acc);
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
};
