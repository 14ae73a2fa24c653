/* all_reduce.c: GEMM + all-reduce, one-shot and two-shot, on the CPU.
 * Each rank computes the partial C of its K slice tile by tile (grouped
 * order) into its work area; one-shot then sums every tile from all ranks on
 * every rank, two-shot sums each tile once on its owner and pushes it out. */
#include <stdlib.h>

#include "ar_common.h"
#include "cpu/gemm.h"
#include "fgo.h"
#include "kit.h"

/* Heap: A | B | C (M x N) | work: this rank's partial C (M x N, dtype) | flags.
 * Flags: [tile * W + p] = rank p's partial of tile is ready (on the reducer);
 * two-shot adds [tiles * W + tile] = the reduced tile arrived (on non-owners). */
static void layout(const struct fgo_config *cfg, int rank, struct fgo_layout *lay, int two_shot)
{
	struct sched_grid g = ar_grid(cfg, cfg->m, cfg->n);
	size_t off = ar_layout_inputs(cfg, rank, 0, cfg->m, lay);

	lay->work_offset = off;
	lay->work_bytes = (size_t)cfg->m * (size_t)cfg->n * dtype_size(cfg->dtype);
	lay->flags_offset = kit_align(off + lay->work_bytes);
	lay->flags_count = (size_t)g.tiles * (size_t)(cfg->world + (two_shot ? 1 : 0));
	lay->heap_bytes = kit_align(lay->flags_offset + lay->flags_count * sizeof(uint32_t));
}

static void one_shot_layout(const struct fgo_config *cfg, int rank, struct fgo_layout *lay)
{
	layout(cfg, rank, lay, 0);
}

static void two_shot_layout(const struct fgo_config *cfg, int rank, struct fgo_layout *lay)
{
	layout(cfg, rank, lay, 1);
}

static int validate(const struct fgo_config *cfg, char *reason, size_t len)
{
	return ar_validate(cfg, cfg->m, cfg->n, reason, len);
}

/* One-shot: every rank reads the whole partial C of every peer, so each
 * link carries one partial C (M x N elements) per launch. */
static double one_shot_link_bytes(const struct fgo_config *cfg)
{
	if (cfg->world < 2)
		return 0;
	return (double)cfg->m * (double)cfg->n * (double)dtype_size(cfg->dtype);
}

/* Computes partial tile `tile` into this rank's work area. */
static void partial_tile(const struct fgo_exec *ex, const struct sched_grid *g, long tile,
			 float *acc)
{
	const struct fgo_config *cfg = ex->cfg;
	struct ar_tile t;
	ar_tile_at(cfg, g, 0, cfg->m, cfg->n, tile, &t);
	ar_tile_gemm(ex, &t, 0, g->k_iters, acc);
	cpu_tile_store(kit_heap(ex, ex->rank, ar_elem_offset(cfg, ex->lay->work_offset, t.row0, t.col0)),
		       cfg->n, acc, t.rows, t.cols, cfg->dtype);
}

/* C tile = sum of every rank's partial tile; returns the tile for pushes. */
static void reduce_tile(const struct fgo_exec *ex, const struct sched_grid *g, long tile,
			float *acc, struct ar_tile *t)
{
	const struct fgo_config *cfg = ex->cfg;
	ar_tile_at(cfg, g, 0, cfg->m, cfg->n, tile, t);
	ar_tile_sum(ex, ex->lay->work_offset, t, acc);
	cpu_tile_store(kit_heap(ex, ex->rank, ar_elem_offset(cfg, ex->lay->c.offset, t->row0, t->col0)),
		       cfg->n, acc, t->rows, t->cols, cfg->dtype);
}

static int one_shot_run(const struct fgo_exec *ex, enum fgo_mode mode)
{
	const struct fgo_config *cfg = ex->cfg;
	struct sched_grid g = ar_grid(cfg, cfg->m, cfg->n);
	float *acc = malloc(sizeof *acc * (size_t)cfg->blk_m * (size_t)cfg->blk_n);
	struct ar_tile t;
	long done = 0; /* tiles reduced so far, in launch order */
	int rc = FGO_OK;

	if (!acc)
		return FGO_EFAIL;
	for (long tile = 0; tile < g.tiles; tile++) {
		if (mode != FGO_MODE_COMM_ONLY)
			partial_tile(ex, &g, tile, acc);
		if (mode == FGO_MODE_GEMM_ONLY)
			continue;
		for (int s = 0; s < ex->world; s++)
			kit_flag_publish(ex, sched_peer(ex->rank, ex->world, s),
					 tile * ex->world + ex->rank);
		/* Reduce what every peer has finished, without waiting. */
		while (done <= tile && ar_sources_ready(ex, done * ex->world))
			reduce_tile(ex, &g, done++, acc, &t);
	}
	if (mode != FGO_MODE_GEMM_ONLY) {
		for (; done < g.tiles && rc == FGO_OK; done++) {
			rc = ar_sources_wait(ex, done * ex->world);
			if (rc == FGO_OK)
				reduce_tile(ex, &g, done, acc, &t);
		}
	}
	free(acc);
	return rc;
}

/* Next tile at or after `from` that this rank owns (g->tiles when none). */
static long next_owned(const struct fgo_exec *ex, const struct sched_grid *g, long from)
{
	while (from < g->tiles && sched_tile_owner(from, ex->world) != ex->rank)
		from++;
	return from;
}

/* Owner: reduce tile into own C, then push it into every peer's C and
 * publish its arrival there. */
static void reduce_push(const struct fgo_exec *ex, const struct sched_grid *g, long tile,
			float *acc)
{
	const struct fgo_config *cfg = ex->cfg;
	struct ar_tile t;
	reduce_tile(ex, g, tile, acc, &t);
	size_t at = ar_elem_offset(cfg, ex->lay->c.offset, t.row0, t.col0);
	for (int s = 1; s < ex->world; s++) {
		int q = sched_peer(ex->rank, ex->world, s);
		cpu_tile_copy(kit_heap(ex, q, at), cfg->n, kit_heap(ex, ex->rank, at), cfg->n,
			      t.rows, t.cols, cfg->dtype);
		kit_flag_publish(ex, q, g->tiles * ex->world + tile);
	}
}

static int two_shot_run(const struct fgo_exec *ex, enum fgo_mode mode)
{
	const struct fgo_config *cfg = ex->cfg;
	struct sched_grid g = ar_grid(cfg, cfg->m, cfg->n);
	float *acc = malloc(sizeof *acc * (size_t)cfg->blk_m * (size_t)cfg->blk_n);
	long own = next_owned(ex, &g, 0); /* next owned tile to reduce */
	int rc = FGO_OK;

	if (!acc)
		return FGO_EFAIL;
	for (long tile = 0; tile < g.tiles; tile++) {
		if (mode != FGO_MODE_COMM_ONLY)
			partial_tile(ex, &g, tile, acc);
		if (mode == FGO_MODE_GEMM_ONLY)
			continue;
		kit_flag_publish(ex, sched_tile_owner(tile, ex->world), tile * ex->world + ex->rank);
		while (own <= tile && ar_sources_ready(ex, own * ex->world)) {
			reduce_push(ex, &g, own, acc);
			own = next_owned(ex, &g, own + 1);
		}
	}
	if (mode != FGO_MODE_GEMM_ONLY) {
		while (own < g.tiles && rc == FGO_OK) {
			rc = ar_sources_wait(ex, own * ex->world);
			if (rc == FGO_OK)
				reduce_push(ex, &g, own, acc);
			own = next_owned(ex, &g, own + 1);
		}
		/* The launch ends when the tiles other ranks own have arrived. */
		for (long tile = 0; tile < g.tiles && rc == FGO_OK; tile++)
			if (sched_tile_owner(tile, ex->world) != ex->rank)
				rc = kit_flag_wait(ex, g.tiles * ex->world + tile);
	}
	free(acc);
	return rc;
}

static int baseline(const struct fgo_exec *ex)
{
	return ar_baseline(ex, 0);
}

const struct fgo_algo algo_all_reduce_one_shot = {
	.name = "all_reduce_one_shot",
	.family = "all_reduce",
	.summary = "A cols and B rows K-sharded; every rank reads all peers' partial tiles and sums them (full C everywhere)",
	.needs_comm = 1,
	.validate = validate,
	.layout = one_shot_layout,
	.link_bytes = one_shot_link_bytes,
	.cpu_run = one_shot_run,
	.cpu_baseline = baseline,
	.gpu_source = "kernels/all_reduce.hip",
	.space = FGO_SPACE_K,
	.comm_ctas = FGO_COMM_CTAS_OPTIONAL,
};

const struct fgo_algo algo_all_reduce_two_shot = {
	.name = "all_reduce_two_shot",
	.family = "all_reduce",
	.summary = "A cols and B rows K-sharded; each tile summed on its owner rank, then pushed to every peer (full C everywhere)",
	.needs_comm = 1,
	.validate = validate,
	.layout = two_shot_layout,
	.link_bytes = ar_two_shot_link_bytes,
	.cpu_run = two_shot_run,
	.cpu_baseline = baseline,
	.gpu_source = "kernels/all_reduce.hip",
	.space = FGO_SPACE_K,
	.gpu_variant = "TWO_SHOT",
	.comm_ctas = FGO_COMM_CTAS_OPTIONAL,
};
