/* all_scatter.c: GEMM + all-scatter on the CPU, and plain GEMM, which is
 * the same computation without the scatter.
 *
 * Sharding: every rank holds all of A (M x K) and the column block
 * B[:, r*N/W, +N/W); rank r computes C[:, r*N/W, +N/W) tile by tile. In
 * all_scatter each finished tile is copied into the same place of every
 * peer's C (push), with a flag per (source, tile), so every rank ends with
 * all of C. gemm keeps only its own column block. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "algos/all_scatter.h"
#include "algos/kit.h"
#include "cpu/gemm.h"
#include "fgo.h"

struct sched_grid as_grid(const struct fgo_config *cfg)
{
	return sched_grid_make(cfg->m, cfg->n / cfg->world, cfg->k, cfg->blk_m, cfg->blk_n,
			       cfg->blk_k);
}

size_t as_layout_inputs(const struct fgo_config *cfg, int rank, int full_c,
			struct fgo_layout *lay)
{
	long nw = cfg->n / cfg->world;
	size_t cursor = 0;

	memset(lay, 0, sizeof *lay);
	kit_matrix(&lay->a, 0, cfg->m, 0, cfg->k, cfg->dtype, &cursor);
	kit_matrix(&lay->b, 0, cfg->k, rank * nw, nw, cfg->dtype, &cursor);
	if (full_c)
		kit_matrix(&lay->c, 0, cfg->m, 0, cfg->n, cfg->dtype, &cursor);
	else
		kit_matrix(&lay->c, 0, cfg->m, rank * nw, nw, cfg->dtype, &cursor);
	return kit_place(&cursor, 0);
}

int as_validate(const struct fgo_config *cfg, char *reason, size_t len)
{
	if (kit_check_divisible("N", cfg->n, cfg->world, reason, len))
		return 1;
	return kit_check_tile(cfg, cfg->m, cfg->n / cfg->world, reason, len);
}

double as_link_bytes(const struct fgo_config *cfg)
{
	if (cfg->world < 2)
		return 0;
	return (double)cfg->m * (double)(cfg->n / cfg->world) * (double)dtype_size(cfg->dtype);
}

/* The C column where this rank's block starts, as an index into lay->c. */
static long own_col0(const struct fgo_exec *ex)
{
	return ex->rank * (ex->cfg->n / ex->world) - ex->lay->c.col0;
}

void as_tile_gemm(const struct fgo_exec *ex, const struct kit_tile *t, long k_begin, long k_end,
		  float *acc)
{
	const struct fgo_config *cfg = ex->cfg;
	const struct fgo_layout *lay = ex->lay;
	long k0 = k_begin * cfg->blk_k;
	long k1 = k_end * cfg->blk_k < cfg->k ? k_end * cfg->blk_k : cfg->k;

	memset(acc, 0, sizeof *acc * (size_t)t->rows * (size_t)t->cols);
	if (k1 > k0)
		cpu_gemm_acc(acc, t->rows, t->cols, k1 - k0, kit_at(ex, ex->rank, &lay->a, t->r0, k0),
			     lay->a.ld, kit_at(ex, ex->rank, &lay->b, k0, t->c0), lay->b.ld,
			     cfg->dtype);
}

void as_seg_gemm(const struct fgo_exec *ex, const struct sched_grid *g, long tile, long k0,
		 long k1, float *acc, int *rows, int *cols)
{
	struct kit_tile t;
	kit_tile_at(ex->cfg, g, ex->cfg->m, ex->cfg->n / ex->world, tile, &t);
	as_tile_gemm(ex, &t, k0, k1, acc);
	*rows = t.rows;
	*cols = t.cols;
}

void as_tile_store(const struct fgo_exec *ex, const struct kit_tile *t, const float *acc)
{
	const struct fgo_matrix *c = &ex->lay->c;
	cpu_tile_store(kit_at(ex, ex->rank, c, t->r0, own_col0(ex) + t->c0), c->ld, acc, t->rows,
		       t->cols, ex->cfg->dtype);
}

void as_tile_push(const struct fgo_exec *ex, const struct sched_grid *g, long tile)
{
	const struct fgo_matrix *c = &ex->lay->c;
	struct kit_tile t;
	kit_tile_at(ex->cfg, g, c->rows, ex->cfg->n / ex->world, tile, &t);
	char *src = kit_at(ex, ex->rank, c, t.r0, own_col0(ex) + t.c0);
	size_t bytes = (size_t)t.rows * (size_t)t.cols * dtype_size(ex->cfg->dtype);
	for (int s = 1; s < ex->world; s++) {
		int peer = sched_peer(ex->rank, ex->world, s);
		kit_trace_put(ex, 0, peer, bytes, tile);
		cpu_tile_copy(kit_at(ex, peer, c, t.r0, own_col0(ex) + t.c0), c->ld, src, c->ld,
			      t.rows, t.cols, ex->cfg->dtype);
		kit_flag_publish(ex, peer, (long)ex->rank * g->tiles + tile);
		kit_trace_put(ex, 1, peer, bytes, tile);
	}
}

int as_wait_peers(const struct fgo_exec *ex, const struct sched_grid *g)
{
	for (int s = 1; s < ex->world; s++) {
		int src = sched_peer(ex->rank, ex->world, ex->world - s);
		for (long tile = 0; tile < g->tiles; tile++) {
			int rc = kit_flag_wait_peer(ex, ex->rank, (long)src * g->tiles + tile, src);
			if (rc != FGO_OK)
				return rc;
		}
	}
	return FGO_OK;
}

int as_baseline(const struct fgo_exec *ex)
{
	const struct fgo_config *cfg = ex->cfg;
	const struct fgo_layout *lay = ex->lay;
	long m = cfg->m, nw = cfg->n / ex->world;
	size_t es = dtype_size(cfg->dtype), block = (size_t)m * (size_t)nw;
	int full = lay->c.cols == cfg->n;
	float *part = malloc(sizeof *part * (block ? block : 1));
	char *mine = malloc(block * es + 1);
	char *all = full ? malloc(block * es * (size_t)ex->world + 1) : NULL;
	int ok = part && mine && (!full || all) && block * es <= INT_MAX;

	/* Agree first, so no rank is left alone inside the collective. */
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, ex->comm);
	if (!ok) {
		free(part);
		free(mine);
		free(all);
		return FGO_EFAIL;
	}
	cpu_gemm(part, nw, m, nw, cfg->k, kit_heap(ex, ex->rank, lay->a.offset), lay->a.ld,
		 kit_heap(ex, ex->rank, lay->b.offset), lay->b.ld, cfg->dtype);
	for (long r = 0; r < m; r++)
		cpu_tile_store(mine + (size_t)r * (size_t)nw * es, nw, part + (size_t)r * (size_t)nw,
			       1, (int)nw, cfg->dtype);
	if (!full) {
		for (long r = 0; r < m; r++)
			memcpy(kit_at(ex, ex->rank, &lay->c, r, 0), mine + (size_t)r * (size_t)nw * es,
			       (size_t)nw * es);
	} else {
		MPI_Allgather(mine, (int)(block * es), MPI_BYTE, all, (int)(block * es), MPI_BYTE,
			      ex->comm);
		for (int p = 0; p < ex->world; p++)
			for (long r = 0; r < m; r++)
				memcpy(kit_at(ex, ex->rank, &lay->c, r, p * nw),
				       all + ((size_t)p * block + (size_t)r * (size_t)nw) * es,
				       (size_t)nw * es);
	}
	free(part);
	free(mine);
	free(all);
	return FGO_OK;
}

/* Heap: A | B | C (M x N) | the walk's exchange (kit_xchg_place: split-K
 * sums or Stream-K slots) | flags [p * tiles + tile] = source p's tile
 * arrived, then the exchange's. */
static void scatter_layout(const struct fgo_config *cfg, int rank, struct fgo_layout *lay)
{
	size_t cursor = as_layout_inputs(cfg, rank, 1, lay);
	lay->flags_count = (size_t)as_grid(cfg).tiles * (size_t)cfg->world;
	kit_xchg_place(cfg, as_grid(cfg).tiles, lay, &cursor);
	lay->flags_offset = kit_place(&cursor, lay->flags_count * sizeof(uint32_t));
	lay->heap_bytes = kit_place(&cursor, 0);
}

/* One launch of gemm or all_scatter: the walk over this rank's tiles
 * (kit_walk_run); a tile it ends is stored and, in all_scatter, pushed. */
struct as_launch {
	const struct fgo_exec *ex;
	struct sched_grid g;
	int push; /* all_scatter outside GEMM-only */
};

static int as_walk_gemm(void *ctx, long tile, long k0, long k1, float *acc, int *rows, int *cols)
{
	const struct as_launch *L = ctx;
	as_seg_gemm(L->ex, &L->g, tile, k0, k1, acc, rows, cols);
	return FGO_OK;
}

static int as_walk_finish(void *ctx, long tile, const float *acc)
{
	const struct as_launch *L = ctx;
	if (acc) {
		struct kit_tile t;
		kit_tile_at(L->ex->cfg, &L->g, L->ex->cfg->m, L->ex->cfg->n / L->ex->world, tile, &t);
		as_tile_store(L->ex, &t, acc);
	}
	if (L->push)
		as_tile_push(L->ex, &L->g, tile);
	return FGO_OK;
}

static int as_walk(const struct fgo_exec *ex, enum fgo_mode mode, int push)
{
	struct as_launch L = { ex, as_grid(ex->cfg), push && mode != FGO_MODE_GEMM_ONLY };
	struct sched_walk w = kit_walk_of(ex->cfg, &L.g, 1);
	struct kit_walk_ops ops = { mode == FGO_MODE_COMM_ONLY ? NULL : as_walk_gemm,
				    as_walk_finish, NULL, NULL, &L.g };
	return kit_walk_run(ex, &w, &ops, &L);
}

static int scatter_run(const struct fgo_exec *ex, enum fgo_mode mode)
{
	struct sched_grid g = as_grid(ex->cfg);
	int rc = as_walk(ex, mode, 1);
	if (rc != FGO_OK || mode == FGO_MODE_GEMM_ONLY)
		return rc;
	return as_wait_peers(ex, &g);
}

const struct fgo_algo algo_all_scatter = {
	.name = "all_scatter",
	.family = "all_scatter",
	.summary = "A full, B column-sharded (N/W); each finished C tile is pushed into every peer's C, so every rank ends with all of C",
	.needs_comm = 1,
	.validate = as_validate,
	.layout = scatter_layout,
	.link_bytes = as_link_bytes,
	.cpu_run = scatter_run,
	.cpu_baseline = as_baseline,
	.gpu_source = "kernels/all_scatter.hip",
	.split_k = 1,
};

/* Heap: A | B | C (M x N/W, own columns) | the walk's exchange and its flags
 * (kit_xchg_place; none when data-parallel). */
static void gemm_layout(const struct fgo_config *cfg, int rank, struct fgo_layout *lay)
{
	size_t cursor = as_layout_inputs(cfg, rank, 0, lay);
	kit_xchg_place(cfg, as_grid(cfg).tiles, lay, &cursor);
	lay->flags_offset = kit_place(&cursor, lay->flags_count * sizeof(uint32_t));
	lay->heap_bytes = kit_place(&cursor, 0);
}

static int gemm_run(const struct fgo_exec *ex, enum fgo_mode mode)
{
	return mode == FGO_MODE_COMM_ONLY ? FGO_OK : as_walk(ex, mode, 0);
}

static double gemm_link_bytes(const struct fgo_config *cfg)
{
	(void)cfg;
	return 0;
}

const struct fgo_algo algo_gemm = {
	.name = "gemm",
	.family = "gemm",
	.summary = "plain tiled GEMM, no communication: A full, B and C column-sharded (N/W per rank)",
	.needs_comm = 0,
	.validate = as_validate,
	.layout = gemm_layout,
	.link_bytes = gemm_link_bytes,
	.cpu_run = gemm_run,
	.cpu_baseline = as_baseline,
	.gpu_source = "kernels/gemm.hip",
	.split_k = 1,
};
