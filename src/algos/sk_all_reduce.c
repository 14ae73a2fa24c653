/* sk_all_reduce.c: Stream-K GEMM + one-shot all-reduce on the CPU. The
 * partial GEMM of this rank's K slice is split evenly over gemm_sms virtual
 * CTAs; comm_sms virtual CTAs sum finished tiles over all ranks as they
 * become ready. On one CPU rank the CTAs run one after the other, GEMM CTAs
 * in index order with the comm CTAs polled after every tile segment. */
#include <stdio.h>
#include <stdlib.h>

#include "ar_common.h"
#include "cpu/gemm.h"
#include "fgo.h"
#include "kit.h"

/* Heap: A | B | C | work: partial C (M x N, dtype, read by every peer) then
 * one fp32 BLK_M x BLK_N slot per GEMM CTA (the head of a split tile, read
 * by the CTA that finishes the tile) | flags: [tile * W + p] = rank p's
 * partial of tile is ready; [tiles * W + cta] = slot of cta is written. */
static size_t slots_offset(const struct fgo_config *cfg, const struct fgo_layout *lay)
{
	return lay->work_offset +
	       kit_align((size_t)cfg->m * (size_t)cfg->n * dtype_size(cfg->dtype));
}

static size_t slot_bytes(const struct fgo_config *cfg)
{
	return kit_align(sizeof(float) * (size_t)cfg->blk_m * (size_t)cfg->blk_n);
}

static void sk_layout(const struct fgo_config *cfg, int rank, struct fgo_layout *lay)
{
	struct sched_grid g = ar_grid(cfg, cfg->m, cfg->n);
	size_t off = ar_layout_inputs(cfg, rank, 0, cfg->m, lay);
	int ctas = cfg->gemm_sms > 0 ? cfg->gemm_sms : 1;

	lay->work_offset = off;
	lay->work_bytes = slots_offset(cfg, lay) - off + (size_t)ctas * slot_bytes(cfg);
	lay->flags_offset = kit_align(off + lay->work_bytes);
	lay->flags_count = (size_t)g.tiles * (size_t)cfg->world + (size_t)ctas;
	lay->heap_bytes = kit_align(lay->flags_offset + lay->flags_count * sizeof(uint32_t));
}

static int sk_validate(const struct fgo_config *cfg, char *reason, size_t len)
{
	if (cfg->gemm_sms < 1 || cfg->comm_sms < 1) {
		snprintf(reason, len,
			 "sk_all_reduce needs gemm_sms >= 1 and comm_sms >= 1 (got %d and %d)",
			 cfg->gemm_sms, cfg->comm_sms);
		return 1;
	}
	return ar_validate(cfg, cfg->m, cfg->n, reason, len);
}

/* As one-shot: every peer reads this rank's whole partial C once. */
static double sk_link_bytes(const struct fgo_config *cfg)
{
	if (cfg->world < 2)
		return 0;
	return (double)cfg->m * (double)cfg->n * (double)dtype_size(cfg->dtype);
}

struct sk_launch {
	const struct fgo_exec *ex;
	enum fgo_mode mode;
	struct sched_grid g;
	int ctas, comms;  /* GEMM CTAs, comm CTAs */
	long *next;       /* next[c]: next tile comm CTA c reduces (c, c + comms, ...) */
	float *acc, *sum; /* GEMM accumulator; comm CTAs' reduction tile */
};

static struct ar_tile tile_of(const struct sk_launch *L, long tile)
{
	const struct fgo_config *cfg = L->ex->cfg;
	struct ar_tile t;
	ar_tile_at(cfg, &L->g, 0, cfg->m, cfg->n, tile, &t);
	return t;
}

/* Comm CTA c sums tile into C. */
static void reduce(const struct sk_launch *L, long tile)
{
	const struct fgo_config *cfg = L->ex->cfg;
	struct ar_tile t = tile_of(L, tile);
	ar_tile_sum(L->ex, L->ex->lay->work_offset, &t, L->sum);
	cpu_tile_store(kit_heap(L->ex, L->ex->rank,
				ar_elem_offset(cfg, L->ex->lay->c.offset, t.row0, t.col0)),
		       cfg->n, L->sum, t.rows, t.cols, cfg->dtype);
}

/* One pass over the comm CTAs: each reduces its tiles, in order, for as
 * long as all ranks' partials of the next one are ready. */
static void comm_poll(struct sk_launch *L)
{
	int w = L->ex->world;
	for (int c = 0; c < L->comms; c++) {
		while (L->next[c] < L->g.tiles && ar_sources_ready(L->ex, L->next[c] * w)) {
			reduce(L, L->next[c]);
			L->next[c] += L->comms;
		}
	}
}

/* The comm CTAs' remaining tiles, waiting for each. */
static int comm_finish(struct sk_launch *L)
{
	int w = L->ex->world;
	for (int c = 0; c < L->comms; c++) {
		for (; L->next[c] < L->g.tiles; L->next[c] += L->comms) {
			int rc = ar_sources_wait(L->ex, L->next[c] * w);
			if (rc != FGO_OK)
				return rc;
			reduce(L, L->next[c]);
		}
	}
	return FGO_OK;
}

/* This rank's partial of tile is complete in its work area: tell every rank. */
static void publish_partial(struct sk_launch *L, long tile)
{
	const struct fgo_exec *ex = L->ex;
	for (int s = 0; s < ex->world; s++)
		kit_flag_publish(ex, sched_peer(ex->rank, ex->world, s), tile * ex->world + ex->rank);
	comm_poll(L);
}

/* The Stream-K tile steps (kit_streamk_cta): the partial GEMM of a tile,
 * and a whole partial stored in this rank's work area and announced. */
static void sk_tile_gemm(void *ctx, long tile, long k0, long k1, float *acc, int *rows, int *cols)
{
	struct sk_launch *L = ctx;
	struct ar_tile t = tile_of(L, tile);
	ar_tile_gemm(L->ex, &t, k0, k1, acc);
	*rows = (int)t.rows;
	*cols = (int)t.cols;
}

static int sk_tile_finish(void *ctx, long tile, const float *acc, int rows, int cols)
{
	struct sk_launch *L = ctx;
	const struct fgo_exec *ex = L->ex;
	struct ar_tile t = tile_of(L, tile);
	cpu_tile_store(kit_heap(ex, ex->rank, ar_elem_offset(ex->cfg, ex->lay->work_offset, t.row0,
							     t.col0)),
		       ex->cfg->n, acc, rows, cols, ex->cfg->dtype);
	if (L->mode == FGO_MODE_FUSED)
		publish_partial(L, tile);
	return FGO_OK;
}

static const struct kit_streamk_ops sk_ops = { sk_tile_gemm, sk_tile_finish };

/* GEMM CTA cta: its Stream-K range; slots and their flags follow the
 * reduction flags (layout above). */
static int gemm_cta(struct sk_launch *L, int cta)
{
	const struct fgo_exec *ex = L->ex;
	return kit_streamk_cta(ex, &L->g, L->ctas, cta, slots_offset(ex->cfg, ex->lay),
			       slot_bytes(ex->cfg), L->g.tiles * ex->world, L->acc, &sk_ops, L);
}

static int sk_run(const struct fgo_exec *ex, enum fgo_mode mode)
{
	const struct fgo_config *cfg = ex->cfg;
	struct sk_launch L = {
		.ex = ex,
		.mode = mode,
		.g = ar_grid(cfg, cfg->m, cfg->n),
		.ctas = cfg->gemm_sms,
		.comms = cfg->comm_sms,
	};
	size_t tile_elems = (size_t)cfg->blk_m * (size_t)cfg->blk_n;
	int rc = FGO_OK;

	L.next = malloc(sizeof *L.next * (size_t)L.comms);
	L.acc = malloc(sizeof *L.acc * tile_elems);
	L.sum = malloc(sizeof *L.sum * tile_elems);
	if (!L.next || !L.acc || !L.sum) {
		rc = FGO_EFAIL;
		goto out;
	}
	for (int c = 0; c < L.comms; c++)
		L.next[c] = c;
	if (mode != FGO_MODE_COMM_ONLY) {
		for (int cta = 0; cta < L.ctas && rc == FGO_OK; cta++)
			rc = gemm_cta(&L, cta);
	} else {
		/* The same flags, in the order the GEMM CTAs would finish tiles. */
		for (long tile = 0; tile < L.g.tiles; tile++)
			publish_partial(&L, tile);
	}
	if (rc == FGO_OK && mode != FGO_MODE_GEMM_ONLY)
		rc = comm_finish(&L);
out:
	free(L.next);
	free(L.acc);
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
	.summary = "as all_reduce_one_shot, with the partial GEMM split Stream-K over gemm_sms CTAs and comm_sms CTAs summing ready tiles",
	.needs_comm = 1,
	.validate = sk_validate,
	.layout = sk_layout,
	.link_bytes = sk_link_bytes,
	.cpu_run = sk_run,
	.cpu_baseline = sk_baseline,
	.gpu_source = "kernels/sk_all_reduce.hip",
	.space = FGO_SPACE_K,
	.comm_ctas = FGO_COMM_CTAS_REQUIRED,
};
