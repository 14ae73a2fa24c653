/* sk_all_scatter.c: Stream-K GEMM + all-scatter on the CPU. The MAC
 * iterations of this rank's tile space are split evenly over gemm_sms
 * virtual CTAs; comm_sms virtual CTAs push finished tiles to every peer.
 * On one CPU rank the CTAs run one after another: GEMM CTAs in index order,
 * the comm CTAs polled after every finished tile. */
#include <stdlib.h>

#include "all_scatter.h"
#include "cpu/gemm.h"
#include "fgo.h"
#include "kit.h"

/* Heap: A | B | C (M x N) | work: one fp32 BLK_M x BLK_N slot per GEMM CTA
 * (the head of a tile split between CTAs) | flags: [p * tiles + tile] =
 * source p's tile arrived; [W * tiles + tile] = own tile finished;
 * [W * tiles + tiles + cta] = slot of cta written. */
static size_t slot_bytes(const struct fgo_config *cfg)
{
	return kit_matrix_bytes(cfg->blk_m, cfg->blk_n, FGO_FP32);
}

static void sk_layout(const struct fgo_config *cfg, int rank, struct fgo_layout *lay)
{
	size_t cursor = as_layout_inputs(cfg, rank, 1, lay);
	long tiles = as_grid(cfg).tiles;
	int ctas = cfg->gemm_sms > 0 ? cfg->gemm_sms : 1;

	lay->work_bytes = (size_t)ctas * slot_bytes(cfg);
	lay->work_offset = kit_place(&cursor, lay->work_bytes);
	lay->flags_count = (size_t)tiles * (size_t)(cfg->world + 1) + (size_t)ctas;
	lay->flags_offset = kit_place(&cursor, lay->flags_count * sizeof(uint32_t));
	lay->heap_bytes = kit_place(&cursor, 0);
}

static int sk_validate(const struct fgo_config *cfg, char *reason, size_t len)
{
	return kit_check_sms(cfg, reason, len) || as_validate(cfg, reason, len);
}

struct sk_launch {
	const struct fgo_exec *ex;
	enum fgo_mode mode;
	struct sched_grid g;
	int ctas, comms;
	long *next;  /* next[c]: next tile comm CTA c pushes (c, c + comms, ...) */
	float *acc;
};

static long done_flag(const struct sk_launch *L, long tile)
{
	return (long)L->ex->world * L->g.tiles + tile;
}

static long slot_flag(const struct sk_launch *L, int cta)
{
	return (long)(L->ex->world + 1) * L->g.tiles + cta;
}

/* Each comm CTA pushes its tiles, in order, while the next one is finished. */
static void comm_poll(struct sk_launch *L)
{
	for (int c = 0; c < L->comms; c++)
		while (L->next[c] < L->g.tiles && kit_flag_ready(L->ex, done_flag(L, L->next[c]))) {
			as_tile_push(L->ex, &L->g, L->next[c]);
			L->next[c] += L->comms;
		}
}

static int comm_finish(struct sk_launch *L)
{
	for (int c = 0; c < L->comms; c++)
		for (; L->next[c] < L->g.tiles; L->next[c] += L->comms) {
			int rc = kit_flag_wait(L->ex, done_flag(L, L->next[c]));
			if (rc != FGO_OK)
				return rc;
			as_tile_push(L->ex, &L->g, L->next[c]);
		}
	return as_wait_peers(L->ex, &L->g);
}

/* The Stream-K tile steps (kit_streamk_cta): the partial GEMM of a tile of
 * this rank's column block, and a whole tile stored, announced and (fused)
 * pushed by the comm CTAs that are ready. */
static void tile_at(const struct sk_launch *L, long tile, struct kit_tile *t)
{
	const struct fgo_config *cfg = L->ex->cfg;
	kit_tile_at(cfg, &L->g, cfg->m, cfg->n / L->ex->world, tile, t);
}

static void sk_tile_gemm(void *ctx, long tile, long k0, long k1, float *acc, int *rows, int *cols)
{
	struct sk_launch *L = ctx;
	struct kit_tile t;
	tile_at(L, tile, &t);
	as_tile_gemm(L->ex, &t, k0, k1, acc);
	*rows = (int)t.rows;
	*cols = (int)t.cols;
}

static int sk_tile_finish(void *ctx, long tile, const float *acc, int rows, int cols)
{
	struct sk_launch *L = ctx;
	struct kit_tile t;
	(void)rows, (void)cols; /* t has them */
	tile_at(L, tile, &t);
	as_tile_store(L->ex, &t, acc);
	kit_flag_publish(L->ex, L->ex->rank, done_flag(L, tile));
	if (L->mode == FGO_MODE_FUSED)
		comm_poll(L);
	return FGO_OK;
}

static const struct kit_streamk_ops sk_ops = { sk_tile_gemm, sk_tile_finish };

static int gemm_cta(struct sk_launch *L, int cta)
{
	return kit_streamk_cta(L->ex, &L->g, L->ctas, cta, L->ex->lay->work_offset,
			       slot_bytes(L->ex->cfg), slot_flag(L, 0), L->acc, &sk_ops, L);
}

static int sk_run(const struct fgo_exec *ex, enum fgo_mode mode)
{
	const struct fgo_config *cfg = ex->cfg;
	struct sk_launch L = {
		.ex = ex,
		.mode = mode,
		.g = as_grid(cfg),
		.ctas = cfg->gemm_sms,
		.comms = cfg->comm_sms,
	};
	int rc = FGO_OK;

	L.next = malloc(sizeof *L.next * (size_t)L.comms);
	L.acc = malloc(sizeof *L.acc * (size_t)cfg->blk_m * (size_t)cfg->blk_n);
	if (!L.next || !L.acc) {
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
			kit_flag_publish(ex, ex->rank, done_flag(&L, tile));
	}
	if (rc == FGO_OK && mode != FGO_MODE_GEMM_ONLY)
		rc = comm_finish(&L);
out:
	free(L.next);
	free(L.acc);
	return rc;
}

const struct fgo_algo algo_sk_all_scatter = {
	.name = "sk_all_scatter",
	.family = "all_scatter",
	.summary = "as all_scatter, with the GEMM split Stream-K over gemm_sms CTAs and comm_sms CTAs pushing finished tiles",
	.needs_comm = 1,
	.validate = sk_validate,
	.layout = sk_layout,
	.link_bytes = as_link_bytes,
	.cpu_run = sk_run,
	.cpu_baseline = as_baseline,
	.gpu_source = "kernels/sk_all_scatter.hip",
	.comm_ctas = FGO_COMM_CTAS_REQUIRED,
};
