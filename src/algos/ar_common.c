/* ar_common.c: the shared half of the K-sharded families (all_reduce
 * one/two shot, sk_all_reduce, reduce_scatter); see ar_common.h. */
#include "algos/ar_common.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/kit.h"
#include "cpu/gemm.h"
#include "fgo.h"

static long min_long(long a, long b)
{
	return a < b ? a : b;
}

struct sched_grid ar_grid(const struct fgo_config *cfg, long rows, long cols)
{
	return sched_grid_make(rows, cols, cfg->k / cfg->world, cfg->blk_m, cfg->blk_n, cfg->blk_k);
}

void ar_tile_at(const struct fgo_config *cfg, const struct sched_grid *g, long row_base,
		long rows, long cols, long tile, struct ar_tile *t)
{
	long tm, tn;
	sched_tile_coords(g, cfg->gsize_m, tile, &tm, &tn);
	long r0 = tm * cfg->blk_m, c0 = tn * cfg->blk_n;
	t->row0 = row_base + r0;
	t->col0 = c0;
	t->rows = (int)min_long(cfg->blk_m, rows - r0);
	t->cols = (int)min_long(cfg->blk_n, cols - c0);
}

size_t ar_layout_inputs(const struct fgo_config *cfg, int rank, long c_row0, long c_rows,
			struct fgo_layout *lay)
{
	size_t es = dtype_size(cfg->dtype);
	long ks = cfg->k / cfg->world;

	memset(lay, 0, sizeof *lay);
	lay->a = (struct fgo_matrix){ .offset = 0, .row0 = 0, .rows = cfg->m,
				      .col0 = rank * ks, .cols = ks, .ld = ks };
	size_t off = kit_align((size_t)cfg->m * (size_t)ks * es);
	lay->b = (struct fgo_matrix){ .offset = off, .row0 = rank * ks, .rows = ks,
				      .col0 = 0, .cols = cfg->n, .ld = cfg->n };
	off = kit_align(off + (size_t)ks * (size_t)cfg->n * es);
	lay->c = (struct fgo_matrix){ .offset = off, .row0 = c_row0, .rows = c_rows,
				      .col0 = 0, .cols = cfg->n, .ld = cfg->n };
	return kit_align(off + (size_t)c_rows * (size_t)cfg->n * es);
}

void ar_tile_gemm(const struct fgo_exec *ex, const struct ar_tile *t, long k_begin, long k_end,
		  float *acc)
{
	const struct fgo_config *cfg = ex->cfg;
	const struct fgo_layout *lay = ex->lay;
	size_t es = dtype_size(cfg->dtype);
	long ks = lay->a.cols;
	long k0 = k_begin * cfg->blk_k, k1 = min_long(k_end * cfg->blk_k, ks);

	memset(acc, 0, sizeof *acc * (size_t)t->rows * (size_t)t->cols);
	if (k1 <= k0)
		return;
	const char *a = kit_heap(ex, ex->rank, lay->a.offset) +
			((size_t)t->row0 * (size_t)lay->a.ld + (size_t)k0) * es;
	const char *b = kit_heap(ex, ex->rank, lay->b.offset) +
			((size_t)k0 * (size_t)lay->b.ld + (size_t)t->col0) * es;
	cpu_gemm_acc(acc, t->rows, t->cols, k1 - k0, a, lay->a.ld, b, lay->b.ld, cfg->dtype);
}

size_t ar_elem_offset(const struct fgo_config *cfg, size_t base, long row, long col)
{
	return base + ((size_t)row * (size_t)cfg->n + (size_t)col) * dtype_size(cfg->dtype);
}

void ar_tile_sum(const struct fgo_exec *ex, size_t base, const struct ar_tile *t, float *acc)
{
	size_t at = ar_elem_offset(ex->cfg, base, t->row0, t->col0);

	memset(acc, 0, sizeof *acc * (size_t)t->rows * (size_t)t->cols);
	for (int s = 0; s < ex->world; s++) {
		int p = sched_peer(ex->rank, ex->world, s);
		cpu_tile_load_add(acc, kit_heap(ex, p, at), ex->cfg->n, t->rows, t->cols,
				  ex->cfg->dtype);
	}
}

int ar_sources_ready(const struct fgo_exec *ex, long first)
{
	for (int p = 0; p < ex->world; p++)
		if (!kit_flag_ready(ex, first + p))
			return 0;
	return 1;
}

int ar_sources_wait(const struct fgo_exec *ex, long first)
{
	for (int p = 0; p < ex->world; p++) {
		int rc = kit_flag_wait_peer(ex, ex->rank, first + p, p);
		if (rc != FGO_OK)
			return rc;
	}
	return FGO_OK;
}

int ar_validate(const struct fgo_config *cfg, long rows, long cols, char *reason, size_t len)
{
	if (kit_check_divisible("K", cfg->k, cfg->world, reason, len))
		return 1;
	if (kit_check_tile(cfg, rows, cols, reason, len))
		return 1;
	/* BLK_K tiles this rank's K slice, not the global K. */
	return kit_check_tile_k(cfg, cfg->k / cfg->world, reason, len);
}

double ar_two_shot_link_bytes(const struct fgo_config *cfg)
{
	if (cfg->world < 2)
		return 0;
	/* Rank r sends peer q the partial tiles q owns, then pushes the tiles r
	 * owns, reduced: area(q) + area(r) elements. The busiest link is the
	 * one between the two owners with the most area. */
	double *area = calloc((size_t)cfg->world, sizeof *area);
	if (!area)
		return 0;
	struct sched_grid g = ar_grid(cfg, cfg->m, cfg->n);
	for (long tile = 0; tile < g.tiles; tile++) {
		struct ar_tile t;
		ar_tile_at(cfg, &g, 0, cfg->m, cfg->n, tile, &t);
		area[sched_tile_owner(tile, cfg->world)] += (double)t.rows * (double)t.cols;
	}
	double top1 = 0, top2 = 0;
	for (int r = 0; r < cfg->world; r++) {
		if (area[r] > top1) {
			top2 = top1;
			top1 = area[r];
		} else if (area[r] > top2) {
			top2 = area[r];
		}
	}
	free(area);
	return (top1 + top2) * (double)dtype_size(cfg->dtype);
}

/* C (rows x N, ld N, dtype) = src (rows x N fp32), in row blocks so the
 * int extents of cpu_tile_store never overflow. */
static void store_rows(void *c, const float *src, long rows, long n, enum fgo_dtype t)
{
	size_t es = dtype_size(t);
	long step = n > 0 ? (INT_MAX / 2) / n : rows;
	if (step < 1)
		step = 1;
	for (long r = 0; r < rows; r += step) {
		long h = min_long(step, rows - r);
		cpu_tile_store((char *)c + (size_t)r * (size_t)n * es, n, src + (size_t)r * (size_t)n,
			       (int)h, (int)n, t);
	}
}

int ar_baseline(const struct fgo_exec *ex, int scatter)
{
	const struct fgo_config *cfg = ex->cfg;
	const struct fgo_layout *lay = ex->lay;
	long m = cfg->m, n = cfg->n;
	size_t all = (size_t)m * (size_t)n, mine = (size_t)lay->c.rows * (size_t)n;

	/* Reduce_scatter_block takes one int count; every rank sees the same
	 * sizes, so they all give up together. */
	if (scatter && mine > INT_MAX)
		return FGO_EFAIL;
	float *part = malloc(sizeof *part * (all ? all : 1));
	float *out = scatter ? malloc(sizeof *out * (mine ? mine : 1)) : part;
	int ok = part && out;
	/* Agree first: a rank that could not allocate must not leave the others
	 * inside a collective. */
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, ex->comm);
	if (!ok) {
		free(part);
		if (scatter)
			free(out);
		return FGO_EFAIL;
	}
	cpu_gemm(part, n, m, n, lay->a.cols, kit_heap(ex, ex->rank, lay->a.offset), lay->a.ld,
		 kit_heap(ex, ex->rank, lay->b.offset), lay->b.ld, cfg->dtype);
	if (scatter) {
		MPI_Reduce_scatter_block(part, out, (int)mine, MPI_FLOAT, MPI_SUM, ex->comm);
	} else {
		for (size_t at = 0; at < all; at += INT_MAX / 2) {
			size_t count = all - at < INT_MAX / 2 ? all - at : INT_MAX / 2;
			MPI_Allreduce(MPI_IN_PLACE, part + at, (int)count, MPI_FLOAT, MPI_SUM,
				      ex->comm);
		}
	}
	store_rows(kit_heap(ex, ex->rank, lay->c.offset), out, lay->c.rows, n, cfg->dtype);
	free(part);
	if (scatter)
		free(out);
	return FGO_OK;
}

void ar_reduce_tile(const struct fgo_exec *ex, const struct sched_grid *g, long tile, float *acc,
		    struct ar_tile *t)
{
	const struct fgo_config *cfg = ex->cfg;
	ar_tile_at(cfg, g, 0, cfg->m, cfg->n, tile, t);
	kit_trace_reduce(ex, 0, tile, ex->world);
	ar_tile_sum(ex, ex->lay->work_offset, t, acc);
	cpu_tile_store(kit_heap(ex, ex->rank, ar_elem_offset(cfg, ex->lay->c.offset, t->row0, t->col0)),
		       cfg->n, acc, t->rows, t->cols, cfg->dtype);
	kit_trace_reduce(ex, 1, tile, ex->world);
}

long ar_next_owned(const struct fgo_exec *ex, const struct sched_grid *g, long from)
{
	while (from < g->tiles && sched_tile_owner(from, ex->world) != ex->rank)
		from++;
	return from;
}

void ar_publish_partial(const struct fgo_exec *ex, long tile, int two_shot)
{
	if (two_shot)
		kit_flag_publish(ex, sched_tile_owner(tile, ex->world), tile * ex->world + ex->rank);
	else
		for (int s = 0; s < ex->world; s++)
			kit_flag_publish(ex, sched_peer(ex->rank, ex->world, s),
					 tile * ex->world + ex->rank);
}

void ar_reduce_push(const struct fgo_exec *ex, const struct sched_grid *g, long tile, float *acc)
{
	const struct fgo_config *cfg = ex->cfg;
	struct ar_tile t;
	ar_reduce_tile(ex, g, tile, acc, &t);
	size_t at = ar_elem_offset(cfg, ex->lay->c.offset, t.row0, t.col0);
	size_t bytes = (size_t)t.rows * (size_t)t.cols * dtype_size(cfg->dtype);
	for (int s = 1; s < ex->world; s++) {
		int q = sched_peer(ex->rank, ex->world, s);
		kit_trace_put(ex, 0, q, bytes, tile);
		cpu_tile_copy(kit_heap(ex, q, at), cfg->n, kit_heap(ex, ex->rank, at), cfg->n,
			      t.rows, t.cols, cfg->dtype);
		kit_flag_publish(ex, q, g->tiles * ex->world + tile);
		kit_trace_put(ex, 1, q, bytes, tile);
	}
}

int ar_sums_wait(const struct fgo_exec *ex, const struct sched_grid *g)
{
	int rc = FGO_OK;
	for (long tile = 0; tile < g->tiles && rc == FGO_OK; tile++)
		if (sched_tile_owner(tile, ex->world) != ex->rank)
			rc = kit_flag_wait_peer(ex, ex->rank, g->tiles * ex->world + tile,
						sched_tile_owner(tile, ex->world));
	return rc;
}
