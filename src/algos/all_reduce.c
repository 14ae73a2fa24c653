/* all_reduce.c: GEMM + all-reduce, one-shot and two-shot, on the CPU.
 * Each rank computes the partial C of its K slice into its work area, in
 * the walk of kernels/schedule.h (data-parallel, split-K or data-parallel
 * + Stream-K; kit_walk_run); each tile the walk ends is announced, and
 * one-shot then sums every tile from all ranks on every rank, two-shot sums
 * each tile once on its owner and pushes it out. */
#include <stdlib.h>

#include "algos/ar_common.h"
#include "algos/kit.h"
#include "cpu/gemm.h"
#include "fgo.h"

/* Heap: A | B | C (M x N) | work: this rank's partial C (M x N, dtype) |
 * the walk's exchange (kit_xchg_place: split-K sums or Stream-K slots; none
 * data-parallel) | flags. Flags: [tile * W + p] = rank p's partial of tile
 * is ready (on the reducer); two-shot adds [tiles * W + tile] = the reduced
 * tile arrived (on non-owners); then the exchange's. */
static void layout(const struct fgo_config *cfg, int rank, struct fgo_layout *lay, int two_shot)
{
	struct sched_grid g = ar_grid(cfg, cfg->m, cfg->n);
	size_t off = ar_layout_inputs(cfg, rank, 0, cfg->m, lay);
	size_t cursor;

	lay->work_offset = off;
	lay->work_bytes = (size_t)cfg->m * (size_t)cfg->n * dtype_size(cfg->dtype);
	lay->flags_count = (size_t)g.tiles * (size_t)(cfg->world + (two_shot ? 1 : 0));
	cursor = off + lay->work_bytes;
	kit_xchg_place(cfg, g.tiles, lay, &cursor);
	lay->flags_offset = kit_place(&cursor, lay->flags_count * sizeof(uint32_t));
	lay->heap_bytes = kit_place(&cursor, 0);
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

/* One launch: the walk (kit_walk_run) computes the partial tiles; the CTA
 * that ends a tile stores it in this rank's work area and announces it
 * (to every rank, or to the owner), then reduces whatever is ready. */
struct ar_launch {
	const struct fgo_exec *ex;
	struct sched_grid g;
	int comm, two_shot;
	long next;  /* one-shot: next tile to reduce; two-shot: next owned tile */
	float *sum; /* the reduction's tile */
};

static int walk_gemm(void *ctx, long tile, long k0, long k1, float *acc, int *rows, int *cols)
{
	const struct ar_launch *L = ctx;
	struct ar_tile t;
	ar_tile_at(L->ex->cfg, &L->g, 0, L->ex->cfg->m, L->ex->cfg->n, tile, &t);
	ar_tile_gemm(L->ex, &t, k0, k1, acc);
	*rows = t.rows;
	*cols = t.cols;
	return FGO_OK;
}

/* Reduces, in order, the tiles whose partials are all in (no wait). */
static void reduce_ready(struct ar_launch *L)
{
	const struct fgo_exec *ex = L->ex;
	struct ar_tile t;
	while (L->next < L->g.tiles && ar_sources_ready(ex, L->next * ex->world)) {
		if (L->two_shot) {
			ar_reduce_push(ex, &L->g, L->next, L->sum);
			L->next = ar_next_owned(ex, &L->g, L->next + 1);
		} else {
			ar_reduce_tile(ex, &L->g, L->next++, L->sum, &t);
		}
	}
}

static int walk_finish(void *ctx, long tile, const float *acc)
{
	struct ar_launch *L = ctx;
	const struct fgo_exec *ex = L->ex;
	const struct fgo_config *cfg = ex->cfg;
	if (acc) {
		struct ar_tile t;
		ar_tile_at(cfg, &L->g, 0, cfg->m, cfg->n, tile, &t);
		cpu_tile_store(kit_heap(ex, ex->rank, ar_elem_offset(cfg, ex->lay->work_offset,
								     t.row0, t.col0)),
			       cfg->n, acc, t.rows, t.cols, cfg->dtype);
	}
	if (!L->comm)
		return FGO_OK;
	ar_publish_partial(ex, tile, L->two_shot);
	reduce_ready(L);
	return FGO_OK;
}

static int ar_run(const struct fgo_exec *ex, enum fgo_mode mode, int two_shot)
{
	const struct fgo_config *cfg = ex->cfg;
	struct ar_launch L = { ex, ar_grid(cfg, cfg->m, cfg->n), mode != FGO_MODE_GEMM_ONLY,
			       two_shot, 0, NULL };
	struct kit_walk_ops ops = { mode == FGO_MODE_COMM_ONLY ? NULL : walk_gemm, walk_finish,
				    NULL, NULL, &L.g };
	struct sched_walk w = kit_walk_of(cfg, &L.g, 1);
	int rc;

	L.sum = malloc(sizeof *L.sum * (size_t)cfg->blk_m * (size_t)cfg->blk_n);
	if (!L.sum)
		return FGO_EFAIL;
	L.next = two_shot ? ar_next_owned(ex, &L.g, 0) : 0;
	rc = kit_walk_run(ex, &w, &ops, &L);
	/* the tiles still to reduce, waiting for each */
	while (rc == FGO_OK && L.comm && L.next < L.g.tiles) {
		rc = ar_sources_wait(ex, L.next * ex->world);
		if (rc == FGO_OK)
			reduce_ready(&L);
	}
	if (rc == FGO_OK && two_shot && L.comm)
		rc = ar_sums_wait(ex, &L.g);
	free(L.sum);
	return rc;
}

static int one_shot_run(const struct fgo_exec *ex, enum fgo_mode mode)
{
	return ar_run(ex, mode, 0);
}

static int two_shot_run(const struct fgo_exec *ex, enum fgo_mode mode)
{
	return ar_run(ex, mode, 1);
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
	.split_k = 1,
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
	.split_k = 1,
};
