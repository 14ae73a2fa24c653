/* sk_all_reduce.c: Stream-K GEMM + all-reduce on the CPU, one-shot at
 * W <= 2 and for a small C, two-shot from W = 3 on (SCHED_SK_TWO_SHOT, as
 * the kernel).
 * The partial GEMM of this rank's K slice is split evenly over gemm_sms
 * virtual CTAs (the hybrid walk of kernels/schedule.h, run by
 * kit_walk_run); comm_sms virtual CTAs sum finished tiles (one-shot: all,
 * on every rank; two-shot: the tiles this rank owns, pushed to every peer)
 * as they become ready, polled after every tile a GEMM CTA ends. With
 * comm_sms = 0 (on the GPU the side warps of the CTA that ends a tile sum
 * it) one virtual summer does: the sums are the same, in the same rank
 * order. */
#include <stdio.h>
#include <stdlib.h>

#include "algos/ar_common.h"
#include "algos/kit.h"
#include "cpu/gemm.h"
#include "fgo.h"

/* Heap: A | B | C | work: partial C (M x N, dtype, read by the summers)
 * then the walk's exchange (kit_xchg_place, at the next 64-byte boundary:
 * one fp32 BLK_M x BLK_N slot per GEMM CTA, the head of a split tile, read
 * by the CTA that ends the tile; work_bytes spans both, as before) | flags:
 * [tile * W + p] = rank p's partial of tile is ready; two-shot adds
 * [tiles * W + tile] = the sum of tile arrived; then [xchg_flag0 + cta] =
 * slot of cta is written. */
static void sk_layout(const struct fgo_config *cfg, int rank, struct fgo_layout *lay)
{
	struct sched_grid g = ar_grid(cfg, cfg->m, cfg->n);
	size_t off = ar_layout_inputs(cfg, rank, 0, cfg->m, lay);
	size_t cursor = off + (size_t)cfg->m * (size_t)cfg->n * dtype_size(cfg->dtype);

	lay->work_offset = off;
	lay->flags_count = (size_t)g.tiles * (size_t)(cfg->world + algo_sk_two_shot(cfg));
	kit_xchg_place(cfg, g.tiles, lay, &cursor);
	lay->work_bytes = cursor - off;
	lay->flags_offset = kit_place(&cursor, lay->flags_count * sizeof(uint32_t));
	lay->heap_bytes = kit_place(&cursor, 0);
}

static int sk_validate(const struct fgo_config *cfg, char *reason, size_t len)
{
	if (kit_check_sms(cfg, reason, len))
		return 1;
	return ar_validate(cfg, cfg->m, cfg->n, reason, len);
}

/* As one-shot (every peer reads this rank's whole partial C once) or
 * two-shot. */
static double sk_link_bytes(const struct fgo_config *cfg)
{
	if (cfg->world < 2)
		return 0;
	if (algo_sk_two_shot(cfg))
		return ar_two_shot_link_bytes(cfg);
	return (double)cfg->m * (double)cfg->n * (double)dtype_size(cfg->dtype);
}

struct sk_launch {
	const struct fgo_exec *ex;
	enum fgo_mode mode;
	struct sched_grid g;
	int ctas, comms;  /* GEMM CTAs, comm CTAs */
	int two_shot;
	long summed;      /* tiles this rank sums: all (one-shot), its own (two-shot) */
	long *next;       /* next[c]: the next of them comm CTA c sums (c, c + comms, ...) */
	float *sum;       /* comm CTAs' reduction tile */
};

static struct ar_tile tile_of(const struct sk_launch *L, long tile)
{
	const struct fgo_config *cfg = L->ex->cfg;
	struct ar_tile t;
	ar_tile_at(cfg, &L->g, 0, cfg->m, cfg->n, tile, &t);
	return t;
}

/* The i-th tile this rank sums: every tile (one-shot), the ones it owns
 * (two-shot). */
static long summed_tile(const struct sk_launch *L, long i)
{
	return L->two_shot ? sched_owned_tile(i, L->ex->rank, L->ex->world) : i;
}

/* Comm CTA c sums tile: into this rank's C (one-shot), or, its owner, into
 * every rank's C (two-shot). */
static void reduce(const struct sk_launch *L, long tile)
{
	struct ar_tile t;
	if (L->two_shot)
		ar_reduce_push(L->ex, &L->g, tile, L->sum);
	else
		ar_reduce_tile(L->ex, &L->g, tile, L->sum, &t);
}

/* One pass over the comm CTAs: each reduces its tiles, in order, for as
 * long as all ranks' partials of the next one are ready. */
static void comm_poll(struct sk_launch *L)
{
	int w = L->ex->world;
	for (int c = 0; c < L->comms; c++) {
		while (L->next[c] < L->summed &&
		       ar_sources_ready(L->ex, summed_tile(L, L->next[c]) * w)) {
			reduce(L, summed_tile(L, L->next[c]));
			L->next[c] += L->comms;
		}
	}
}

/* The comm CTAs' remaining tiles, waiting for each; two-shot, then the
 * sums other ranks own. */
static int comm_finish(struct sk_launch *L)
{
	int w = L->ex->world;
	for (int c = 0; c < L->comms; c++) {
		for (; L->next[c] < L->summed; L->next[c] += L->comms) {
			int rc = ar_sources_wait(L->ex, summed_tile(L, L->next[c]) * w);
			if (rc != FGO_OK)
				return rc;
			reduce(L, summed_tile(L, L->next[c]));
		}
	}
	return L->two_shot ? ar_sums_wait(L->ex, &L->g) : FGO_OK;
}

/* This rank's partial of tile is complete in its work area: tell every rank
 * (one-shot) or the tile's owner (two-shot). */
static void publish_partial(struct sk_launch *L, long tile)
{
	ar_publish_partial(L->ex, tile, L->two_shot);
	comm_poll(L);
}

/* The walk's steps (kit_walk_run): the partial GEMM of a tile segment,
 * and a whole partial stored in this rank's work area (not in comm-only)
 * and (but in GEMM-only) announced. */
static int sk_tile_gemm(void *ctx, long tile, long k0, long k1, float *acc, int *rows, int *cols)
{
	struct sk_launch *L = ctx;
	struct ar_tile t = tile_of(L, tile);
	ar_tile_gemm(L->ex, &t, k0, k1, acc);
	*rows = t.rows;
	*cols = t.cols;
	return FGO_OK;
}

static int sk_tile_finish(void *ctx, long tile, const float *acc)
{
	struct sk_launch *L = ctx;
	const struct fgo_exec *ex = L->ex;
	struct ar_tile t = tile_of(L, tile);
	if (acc)
		cpu_tile_store(kit_heap(ex, ex->rank, ar_elem_offset(ex->cfg, ex->lay->work_offset,
								     t.row0, t.col0)),
			       ex->cfg->n, acc, t.rows, t.cols, ex->cfg->dtype);
	if (L->mode != FGO_MODE_GEMM_ONLY)
		publish_partial(L, tile);
	return FGO_OK;
}

static int sk_run(const struct fgo_exec *ex, enum fgo_mode mode)
{
	const struct fgo_config *cfg = ex->cfg;
	struct sk_launch L = {
		.ex = ex,
		.mode = mode,
		.g = ar_grid(cfg, cfg->m, cfg->n),
		.ctas = cfg->gemm_sms,
		.comms = cfg->comm_sms > 0 ? cfg->comm_sms : 1,
		.two_shot = algo_sk_two_shot(cfg),
	};
	/* comm-only: the same flags, in the order the GEMM CTAs end tiles */
	struct kit_walk_ops ops = { mode == FGO_MODE_COMM_ONLY ? NULL : sk_tile_gemm,
				    sk_tile_finish, NULL, NULL, NULL };
	struct sched_walk w = kit_walk_of(cfg, &L.g, 1);
	int rc = FGO_OK;

	L.next = malloc(sizeof *L.next * (size_t)L.comms); /* comms >= 1 */
	L.sum = malloc(sizeof *L.sum * (size_t)cfg->blk_m * (size_t)cfg->blk_n);
	if (!L.next || !L.sum) {
		rc = FGO_EFAIL;
		goto out;
	}
	L.summed = L.two_shot ? sched_owned_count(L.g.tiles, ex->rank, ex->world) : L.g.tiles;
	for (int c = 0; c < L.comms; c++)
		L.next[c] = c;
	rc = kit_walk_run(ex, &w, &ops, &L);
	if (rc == FGO_OK && mode != FGO_MODE_GEMM_ONLY)
		rc = comm_finish(&L);
out:
	free(L.next);
	free(L.sum);
	return rc;
}

static int sk_baseline(const struct fgo_exec *ex)
{
	return ar_baseline(ex, 0);
}

const struct fgo_algo algo_sk_all_reduce = {
	.name = "sk_all_reduce",
	.family = "all_reduce",
	.summary = "as all_reduce_one_shot (two-shot from W = 3 on unless C is small), with the partial GEMM split Stream-K over gemm_sms CTAs and comm_sms CTAs summing ready tiles (0: the CTA that ends a tile sums it)",
	.needs_comm = 1,
	.validate = sk_validate,
	.layout = sk_layout,
	.link_bytes = sk_link_bytes,
	.cpu_run = sk_run,
	.cpu_baseline = sk_baseline,
	.gpu_source = "kernels/sk_all_reduce.hip",
	.space = FGO_SPACE_K,
	.comm_ctas = FGO_COMM_CTAS_REQUIRED,
	.base = "all_reduce_one_shot",
	.base_two_shot = "all_reduce_two_shot",
};
