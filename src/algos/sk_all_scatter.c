/* sk_all_scatter.c: Stream-K GEMM + all-scatter on the CPU. The MAC
 * iterations of this rank's tile space are split over gemm_sms virtual
 * CTAs (the hybrid walk of kernels/schedule.h, run by kit_walk_run);
 * comm_sms virtual CTAs push finished tiles to every peer, polled after
 * every finished tile; with comm_sms = 0 the CTA that ends a tile pushes
 * it (all_scatter's way). */
#include <stdlib.h>

#include "algos/all_scatter.h"
#include "algos/kit.h"
#include "cpu/gemm.h"
#include "fgo.h"

/* Heap: A | B | C (M x N) | the walk's exchange (kit_xchg_place): one fp32
 * BLK_M x BLK_N slot per GEMM CTA (the head of a tile split between CTAs;
 * work_offset names the same bytes, as before) | flags: [p * tiles + tile]
 * = source p's tile arrived; [W * tiles + tile] = own tile finished;
 * [xchg_flag0 + cta] = [W * tiles + tiles + cta] = slot of cta written. */
static void sk_layout(const struct fgo_config *cfg, int rank, struct fgo_layout *lay)
{
	size_t cursor = as_layout_inputs(cfg, rank, 1, lay);
	long tiles = as_grid(cfg).tiles;

	lay->flags_count = (size_t)tiles * (size_t)(cfg->world + 1);
	kit_xchg_place(cfg, tiles, lay, &cursor);
	lay->work_offset = lay->xchg_offset;
	lay->work_bytes = lay->xchg_bytes;
	lay->flags_offset = kit_place(&cursor, lay->flags_count * sizeof(uint32_t));
	lay->heap_bytes = kit_place(&cursor, 0);
}

/* The walk is Stream-K over gemm_sms CTAs (split_k > 1 is refused by
 * config_validate: the family has no split-K form). */
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
};

static long done_flag(const struct sk_launch *L, long tile)
{
	return (long)L->ex->world * L->g.tiles + tile;
}

/* Each comm CTA pushes its tiles, in order, while the next one is finished. */
static void comm_poll(struct sk_launch *L)
{
	for (int c = 0; c < L->comms; c++) {
		/* traced as comm CTA c, after the GEMM CTAs */
		int was = kit_trace_as(L->ex, L->ctas + c);
		while (L->next[c] < L->g.tiles && kit_flag_ready(L->ex, done_flag(L, L->next[c]))) {
			as_tile_push(L->ex, &L->g, L->next[c]);
			L->next[c] += L->comms;
		}
		kit_trace_as(L->ex, was);
	}
}

static int comm_finish(struct sk_launch *L)
{
	for (int c = 0; c < L->comms; c++) {
		kit_trace_as(L->ex, L->ctas + c);
		for (; L->next[c] < L->g.tiles; L->next[c] += L->comms) {
			int rc = kit_flag_wait_peer(L->ex, L->ex->rank, done_flag(L, L->next[c]),
						    L->ex->rank);
			if (rc != FGO_OK)
				return rc;
			as_tile_push(L->ex, &L->g, L->next[c]);
		}
	}
	if (L->comms > 0) /* the arrivals, on the first comm CTA (else the first CTA's) */
		kit_trace_as(L->ex, L->ctas);
	return as_wait_peers(L->ex, &L->g);
}

/* The walk's steps (kit_walk_run): the GEMM of a tile segment of this
 * rank's column block, and a whole tile stored (not in comm-only),
 * announced and (fused) pushed by the comm CTAs that are ready. */
static int sk_tile_gemm(void *ctx, long tile, long k0, long k1, float *acc, int *rows, int *cols)
{
	struct sk_launch *L = ctx;
	as_seg_gemm(L->ex, &L->g, tile, k0, k1, acc, rows, cols);
	return FGO_OK;
}

static int sk_tile_finish(void *ctx, long tile, const float *acc)
{
	struct sk_launch *L = ctx;
	if (acc) {
		const struct fgo_config *cfg = L->ex->cfg;
		struct kit_tile t;
		kit_tile_at(cfg, &L->g, cfg->m, cfg->n / L->ex->world, tile, &t);
		as_tile_store(L->ex, &t, acc);
	}
	if (L->comms == 0) { /* no comm CTAs: the CTA that ends the tile sends it */
		if (L->mode != FGO_MODE_GEMM_ONLY)
			as_tile_push(L->ex, &L->g, tile);
		return FGO_OK;
	}
	kit_flag_publish(L->ex, L->ex->rank, done_flag(L, tile));
	if (L->mode == FGO_MODE_FUSED)
		comm_poll(L);
	return FGO_OK;
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
	/* comm-only: the same flags, in the order the GEMM CTAs end tiles */
	struct kit_walk_ops ops = { mode == FGO_MODE_COMM_ONLY ? NULL : sk_tile_gemm,
				    sk_tile_finish, NULL, NULL, &L.g };
	struct sched_walk w = kit_walk_of(cfg, &L.g, 1);
	int rc;

	L.next = malloc(sizeof *L.next * (size_t)(L.comms > 0 ? L.comms : 1));
	if (!L.next)
		return FGO_EFAIL;
	for (int c = 0; c < L.comms; c++)
		L.next[c] = c;
	rc = kit_walk_run(ex, &w, &ops, &L);
	if (rc == FGO_OK && mode != FGO_MODE_GEMM_ONLY)
		rc = comm_finish(&L);
	free(L.next);
	return rc;
}

const struct fgo_algo algo_sk_all_scatter = {
	.name = "sk_all_scatter",
	.family = "all_scatter",
	.summary = "as all_scatter, with the GEMM split Stream-K over gemm_sms CTAs and comm_sms CTAs pushing finished tiles (0: the CTA that ends a tile pushes it)",
	.needs_comm = 1,
	.validate = sk_validate,
	.layout = sk_layout,
	.link_bytes = as_link_bytes,
	.cpu_run = sk_run,
	.cpu_baseline = as_baseline,
	.gpu_source = "kernels/sk_all_scatter.hip",
	.comm_ctas = FGO_COMM_CTAS_REQUIRED,
	.base = "all_scatter",
};
