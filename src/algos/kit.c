/* algos/kit.c: epoch flags on the symmetric heap, tile geometry, layout
 * placement and the validity rules shared by the algorithm families. */
#include "algos/kit.h"

#include "cpu/gemm.h"

#include <assert.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tile_shape.h"

void kit_matrix(struct fgo_matrix *m, long row0, long rows, long col0, long cols,
		enum fgo_dtype t, size_t *cursor)
{
	m->row0 = row0;
	m->rows = rows;
	m->col0 = col0;
	m->cols = cols;
	m->ld = cols;
	m->offset = kit_place(cursor, kit_matrix_bytes(rows, cols, t));
}

void kit_tile_rc(const struct fgo_config *cfg, long rows, long cols, long tm, long tn,
		 struct kit_tile *t)
{
	t->tm = tm;
	t->tn = tn;
	t->r0 = tm * cfg->blk_m;
	t->c0 = tn * cfg->blk_n;
	t->rows = (int)(rows - t->r0 < cfg->blk_m ? rows - t->r0 : cfg->blk_m);
	t->cols = (int)(cols - t->c0 < cfg->blk_n ? cols - t->c0 : cfg->blk_n);
}

void kit_tile_at(const struct fgo_config *cfg, const struct sched_grid *g, long rows, long cols,
		 long tile, struct kit_tile *t)
{
	long tm, tn;
	sched_tile_coords(g, cfg->gsize_m, tile, &tm, &tn);
	kit_tile_rc(cfg, rows, cols, tm, tn, t);
}

/* The heap is plain memory shared between processes; the flags are only
 * ever accessed through these atomics, so the cast is the whole protocol. */
static _Atomic uint32_t *flag_ptr(const struct fgo_exec *ex, int rank, long flag_index)
{
	return (_Atomic uint32_t *)(void *)(kit_heap(ex, rank, ex->lay->flags_offset) +
					    (size_t)flag_index * sizeof(uint32_t));
}

void kit_flag_publish(const struct fgo_exec *ex, int rank, long flag_index)
{
	atomic_store_explicit(flag_ptr(ex, rank, flag_index), ex->epoch, memory_order_release);
}

int kit_flag_ready_at(const struct fgo_exec *ex, int rank, long flag_index)
{
	return atomic_load_explicit(flag_ptr(ex, rank, flag_index), memory_order_acquire) >=
	       ex->epoch;
}

int kit_flag_ready(const struct fgo_exec *ex, long flag_index)
{
	return kit_flag_ready_at(ex, ex->rank, flag_index);
}

/* Yields on every miss: ranks may be oversubscribed on few cores, and the
 * writer we wait for needs the CPU to make progress. */
int kit_flag_wait_at(const struct fgo_exec *ex, int rank, long flag_index)
{
	while (!kit_flag_ready_at(ex, rank, flag_index)) {
		if (now_seconds() > ex->deadline)
			return FGO_ETIMEOUT;
		sched_yield();
	}
	return FGO_OK;
}

void kit_trace(const struct fgo_exec *ex, unsigned int what, int a0, int a1, int a2, int a3,
	       int a4)
{
	struct fgo_trace_rank *t = ex->trace;
	struct timespec now;
	if (!t || t->ctas < 1)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	fgo_trace_host_rec(t, t->cta < 0 ? 0 : t->cta >= t->ctas ? t->ctas - 1 : t->cta, what,
			   (unsigned long long)now.tv_sec * 1000000000ull +
				   (unsigned long long)now.tv_nsec,
			   a0, a1, a2, a3, a4);
}

int kit_flag_wait_peer(const struct fgo_exec *ex, int rank, long flag_index, int peer)
{
	if (!ex->trace || kit_flag_ready_at(ex, rank, flag_index))
		return kit_flag_wait_at(ex, rank, flag_index);
	kit_trace(ex, FGO_TR_WAIT, (int)flag_index, peer, -1, -1, -1);
	int rc = kit_flag_wait_at(ex, rank, flag_index);
	kit_trace(ex, FGO_TR_WAIT | FGO_TR_END, (int)flag_index, peer, -1, -1, -1);
	return rc;
}

int kit_flag_wait(const struct fgo_exec *ex, long flag_index)
{
	return kit_flag_wait_at(ex, ex->rank, flag_index);
}

long kit_pow2_ceil(long x)
{
	long p = 1;
	while (p < x)
		p <<= 1;
	return p;
}

/* Names the extent the way the user sees it: the global size, or the
 * per-rank share when the tile space is a shard. */
static const char *extent_name(char *buf, size_t len, char dim, long extent, long global,
			       int world)
{
	if (extent == global)
		snprintf(buf, len, "%c=%ld", dim, extent);
	else if (world > 1 && extent * world == global)
		snprintf(buf, len, "%c/W=%ld", dim, extent);
	else
		snprintf(buf, len, "%ld (the %c extent of a rank's tile space)", extent, dim);
	return buf;
}

/* A tile side is never too large while it is the core's smallest: 16 for
 * mma.sync (m16n8k16) and the others, 32 for AMD's 32x32x8 MFMA (mma=32),
 * 64 for wgmma (m64nNk16, and its 64-column TMA boxes), so a 16-, 32- or
 * 64-row tile is how a GPU handles M=1 (decode); the loads fill the rows
 * past the edge with zeros and the stores clip them. */
static int smallest_side(const struct fgo_config *cfg)
{
	return cfg->mma == FGO_MMA_WGMMA ? 64 : cfg->mma == FGO_MMA_K32 ? 32 : 16;
}

int kit_fit_core(struct fgo_config *cfg, const char *arch)
{
	if ((cfg->given & FGO_GIVEN_MMA) || !arch || strncmp(arch, "sm_90", 5) != 0 ||
	    cfg->dtype == FGO_FP32 || cfg->mma == FGO_MMA_WGMMA)
		return 0;
	cfg->mma = FGO_MMA_WGMMA;
	/* the default tile sides again, for kit_fit_tile to fit to this core
	 * (a fit to mma.sync's 16-row tiles is not one for wgmma's 64) */
	if (!(cfg->given & FGO_GIVEN_BLK_M))
		cfg->blk_m = 64;
	if (!(cfg->given & FGO_GIVEN_BLK_N))
		cfg->blk_n = 64;
	if (!(cfg->given & FGO_GIVEN_BLK_K))
		cfg->blk_k = 64; /* the core's K slice: 64 16-bit elements, one 128-byte TMA row */
	/* one consumer warpgroup up to 128 x 128 accumulators, two beyond;
	 * swapped (a height no multiple of 64), one consumer per 64 columns */
	if (!(cfg->given & FGO_GIVEN_WARPS))
		cfg->num_warps = FGO_WGMMA_SWAPPED(cfg->blk_m)
					 ? (cfg->blk_n > 64 ? 12 : 8)
					 : cfg->blk_m > 128 || (cfg->blk_m == 128 && cfg->blk_n > 128) ? 12 : 8;
	/* 128 x 256 with its staged tile fits 3 stages in shared memory */
	if (!(cfg->given & FGO_GIVEN_STAGES))
		cfg->num_stages = cfg->blk_m * cfg->blk_n >= 128 * 256 ? 3 : 4;
	return 1;
}

void kit_fit_tile(struct fgo_config *cfg)
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	struct fgo_gemm_dims d;
	long side;
	if (!algo || cfg->m < 1 || cfg->n < 1 || cfg->k < 1 || cfg->world < 1)
		return;
	algo_gemm_dims(algo, cfg, &d);
	if (!(cfg->given & FGO_GIVEN_BLK_M) && d.m >= 1) {
		side = kit_pow2_ceil(d.m) < smallest_side(cfg) ? smallest_side(cfg) : kit_pow2_ceil(d.m);
		if (cfg->blk_m > side)
			cfg->blk_m = (int)side;
	}
	if (!(cfg->given & FGO_GIVEN_BLK_N) && d.n >= 1) {
		side = kit_pow2_ceil(d.n) < smallest_side(cfg) ? smallest_side(cfg) : kit_pow2_ceil(d.n);
		if (cfg->blk_n > side)
			cfg->blk_n = (int)side;
	}
}

static int check_side(const char *blk, int side, char dim, long extent, long global, int world,
		      int smallest, char *reason, size_t len)
{
	char what[64];
	long limit = kit_pow2_ceil(extent) < smallest ? smallest : kit_pow2_ceil(extent);
	if (side <= limit)
		return 0;
	snprintf(reason, len, "%s=%d exceeds %s (use %s <= %ld)", blk, side,
		 extent_name(what, sizeof what, dim, extent, global, world), blk, limit);
	return 1;
}

int kit_check_tile(const struct fgo_config *cfg, long rows, long cols, char *reason, size_t len)
{
	const int least = smallest_side(cfg);
	return check_side("BLK_M", cfg->blk_m, 'M', rows, cfg->m, cfg->world, least, reason, len) ||
	       check_side("BLK_N", cfg->blk_n, 'N', cols, cfg->n, cfg->world, least, reason, len) ||
	       check_side("BLK_K", cfg->blk_k, 'K', cfg->k, cfg->k, cfg->world, least, reason, len);
}

int kit_check_tile_k(const struct fgo_config *cfg, long kk, char *reason, size_t len)
{
	return check_side("BLK_K", cfg->blk_k, 'K', kk, cfg->k, cfg->world, smallest_side(cfg),
			  reason, len);
}

int kit_check_divisible(const char *what, long value, int world, char *reason, size_t len)
{
	if (world >= 1 && value % world == 0)
		return 0;
	snprintf(reason, len, "%s=%ld is not divisible by world=%d", what, value, world);
	return 1;
}

int kit_check_sms(const struct fgo_config *cfg, char *reason, size_t len)
{
	if (cfg->gemm_sms >= 1)
		return 0;
	snprintf(reason, len,
		 "%s needs gemm_sms >= 1, its Stream-K GEMM CTAs (got gemm_sms=%d); beside them"
		 " comm_sms >= 0 CTAs communicate (0: the CTA that ends a tile does)",
		 cfg->algorithm, cfg->gemm_sms);
	return 1;
}

void kit_xchg_place(const struct fgo_config *cfg, long tiles, struct fgo_layout *lay,
		    size_t *cursor)
{
	size_t tile_bytes = (size_t)cfg->blk_m * (size_t)cfg->blk_n * sizeof(float);
	if (cfg->split_k > 1) {
		/* a sum per tile, or with deterministic a slot per tile and
		 * slice before the last */
		lay->xchg_bytes = (size_t)tiles * tile_bytes *
				  (cfg->deterministic ? (size_t)(cfg->split_k - 1) : 1);
		lay->xchg_offset = kit_place(cursor, lay->xchg_bytes);
		lay->xchg_flag0 = lay->flags_count;
		lay->flags_count += (size_t)tiles * 2 * (size_t)(cfg->split_k - 1);
	} else if (kit_walk_streamk(cfg)) {
		/* a slot per CTA (the CPU), or a sum per Stream-K tile (the
		 * wgmma core, kernels/wgmma_walk.h): room for either */
		long sk = sched_walk_sk_tiles(tiles, cfg->gemm_sms, 0);
		lay->xchg_bytes = (size_t)(sk > cfg->gemm_sms ? sk : cfg->gemm_sms) * tile_bytes;
		lay->xchg_offset = kit_place(cursor, lay->xchg_bytes);
		lay->xchg_flag0 = lay->flags_count;
		lay->flags_count += (size_t)cfg->gemm_sms;
	}
}

void kit_fail(const struct fgo_exec *ex, const char *fmt, ...)
{
	va_list ap;
	if (!ex->err || ex->err_len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(ex->err, ex->err_len, fmt, ap);
	va_end(ap);
}

int kit_sk_slots(const struct fgo_config *cfg, const struct sched_walk *w)
{
	return cfg->mma == FGO_MMA_WGMMA && kit_walk_streamk(cfg) && !cfg->deterministic &&
	       w->sk_tiles > 0 && w->sk_pieces >= 1 && w->sk_pieces <= KIT_SK_SLOTS_PIECES;
}

struct sched_walk kit_walk_of(const struct fgo_config *cfg, const struct sched_grid *g, long blocks)
{
	int streamk = kit_walk_streamk(cfg);
	if (cfg->cluster > 1 && !streamk) /* config_validate refuses Stream-K clusters */
		return sched_walk_make_clustered(g, blocks, cfg->gsize_m, cfg->cluster, cfg->split_k,
						 cfg->cluster);
	return sched_walk_make(blocks * g->tiles, g->k_iters, streamk ? cfg->gemm_sms : 1,
			       cfg->split_k, streamk, 0);
}

/* What kit_walk_run needs while it walks. */
struct walk_run {
	const struct fgo_exec *ex;
	const struct sched_walk *w;
	const struct kit_walk_ops *ops;
	void *ctx;
	size_t tile_elems; /* BLK_M x BLK_N: one slot or one tile's sums */
	float *acc;
};

static float *xchg_tile(const struct walk_run *R, long i)
{
	return (float *)(void *)kit_heap(R->ex, R->ex->rank,
					 R->ex->lay->xchg_offset +
						 (size_t)i * R->tile_elems * sizeof(float));
}

/* Flag of split-K slice `slice` (< split - 1) of tile for consumer c (kit_xchg_place). */
static long split_flag(const struct walk_run *R, long tile, int c, int slice)
{
	return (long)R->ex->lay->xchg_flag0 + (tile * 2 + c) * (R->w->split - 1) + slice;
}

/* The first flag segment s waits for that is not up, or -1 when none. */
static long seg_blocker(const struct walk_run *R, const struct sched_seg *s)
{
	const struct sched_walk *w = R->w;
	if (!R->ops->gemm)
		return -1;
	if (w->split > 1) {
		if (s->slice != w->split - 1)
			return -1;
		for (int slice = 0; slice < w->split - 1; slice++)
			for (int c = 0; c < 2; c++)
				if (!kit_flag_ready(R->ex, split_flag(R, s->tile, c, slice)))
					return split_flag(R, s->tile, c, slice);
		return -1;
	}
	if (s->role == SCHED_TAKE_OVER)
		for (int o = s->take_first; o <= s->take_last; o++)
			if (!kit_flag_ready(R->ex, (long)R->ex->lay->xchg_flag0 + o))
				return (long)R->ex->lay->xchg_flag0 + o;
	return -1;
}

/* The traced GEMM of segment s, begin or end: tile, its row and column
 * in the grid when the family gave it, k range. */
static void trace_gemm(const struct walk_run *R, const struct sched_seg *s, int end)
{
	long tm = -1, tn = -1;
	if (!R->ex->trace)
		return;
	if (R->ops->grid && R->ops->grid->tiles > 0)
		sched_tile_coords(R->ops->grid, R->ex->cfg->gsize_m, s->tile % R->ops->grid->tiles, &tm,
				  &tn);
	kit_trace(R->ex, FGO_TR_GEMM | (end ? FGO_TR_END : 0u), (int)s->tile, (int)tm, (int)tn,
		  (int)s->k0, (int)s->k1);
}

/* A traced hand-over or take-over of segment s, begin or end. */
static void trace_xchg(const struct walk_run *R, unsigned int kind, const struct sched_seg *s,
		       int end)
{
	if (!R->ex->trace)
		return;
	if (kind == FGO_TR_HANDOVER)
		kit_trace(R->ex, kind | (end ? FGO_TR_END : 0u), (int)s->tile, (int)s->k0, (int)s->k1,
			  -1, -1);
	else
		kit_trace(R->ex, kind | (end ? FGO_TR_END : 0u), (int)s->tile,
			  R->w->split > 1 ? 0 : s->take_first, R->w->split > 1 ? s->slice : s->take_last,
			  -1, -1);
}

/* CTA cta computes segment s (its flags are up) and passes it on. */
static int seg_run(const struct walk_run *R, int cta, const struct sched_seg *s)
{
	const struct sched_walk *w = R->w;
	int rows, cols, rc;
	size_t n;

	if (!R->ops->gemm)
		return sched_seg_ends(w, s) ? R->ops->finish(R->ctx, s->tile, NULL) : FGO_OK;
	trace_gemm(R, s, 0);
	rc = R->ops->gemm(R->ctx, s->tile, s->k0, s->k1, R->acc, &rows, &cols);
	trace_gemm(R, s, 1);
	if (rc != FGO_OK)
		return rc;
	n = (size_t)rows * (size_t)cols;
	assert(n <= R->tile_elems);
	if (w->split > 1 && R->ex->cfg->deterministic) {
		/* a slot per slice before the last, added by the last in slice
		 * order (kernels/wgmma_walk.h's DETERMINISTIC protocol) */
		if (s->slice < w->split - 1) {
			memcpy(xchg_tile(R, s->tile * (w->split - 1) + s->slice), R->acc,
			       n * sizeof(float));
			for (int c = 0; c < 2; c++)
				kit_flag_publish(R->ex, R->ex->rank, split_flag(R, s->tile, c, s->slice));
			return FGO_OK;
		}
		for (int slice = 0; slice < w->split - 1; slice++) {
			const float *slot = xchg_tile(R, s->tile * (w->split - 1) + slice);
			for (size_t i = 0; i < n; i++)
				R->acc[i] += slot[i];
		}
		return R->ops->finish(R->ctx, s->tile, R->acc);
	}
	if (w->split > 1) {
		float *sum = xchg_tile(R, s->tile);
		if (s->slice < w->split - 1) {
			trace_xchg(R, FGO_TR_HANDOVER, s, 0);
			for (size_t i = 0; i < n; i++)
				sum[i] += R->acc[i];
			for (int c = 0; c < 2; c++)
				kit_flag_publish(R->ex, R->ex->rank, split_flag(R, s->tile, c, s->slice));
			trace_xchg(R, FGO_TR_HANDOVER, s, 1);
			return FGO_OK;
		}
		trace_xchg(R, FGO_TR_TAKEOVER, s, 0);
		for (size_t i = 0; i < n; i++) {
			R->acc[i] += sum[i];
			sum[i] = 0;
		}
		trace_xchg(R, FGO_TR_TAKEOVER, s, 1);
		return R->ops->finish(R->ctx, s->tile, R->acc);
	}
	switch (s->role) {
	case SCHED_HAND_OVER:
		trace_xchg(R, FGO_TR_HANDOVER, s, 0);
		memcpy(xchg_tile(R, cta), R->acc, n * sizeof(float));
		kit_flag_publish(R->ex, R->ex->rank, (long)R->ex->lay->xchg_flag0 + cta);
		trace_xchg(R, FGO_TR_HANDOVER, s, 1);
		return FGO_OK;
	case SCHED_TAKE_OVER:
		trace_xchg(R, FGO_TR_TAKEOVER, s, 0);
		for (int o = s->take_first; o <= s->take_last; o++) {
			const float *slot = xchg_tile(R, o);
			for (size_t i = 0; i < n; i++)
				R->acc[i] += slot[i];
		}
		trace_xchg(R, FGO_TR_TAKEOVER, s, 1);
		return R->ops->finish(R->ctx, s->tile, R->acc);
	default:
		return R->ops->finish(R->ctx, s->tile, R->acc);
	}
}

int kit_walk_run(const struct fgo_exec *ex, const struct sched_walk *w,
		 const struct kit_walk_ops *ops, void *ctx)
{
	int (*first)(const struct sched_walk *, int, struct sched_seg *) =
		ops->first ? ops->first : sched_walk_first;
	int (*next)(const struct sched_walk *, int, struct sched_seg *) =
		ops->next ? ops->next : sched_walk_next;
	struct walk_run R = { ex, w, ops, ctx,
			      (size_t)ex->cfg->blk_m * (size_t)ex->cfg->blk_n, NULL };
	struct sched_seg *seg = malloc(sizeof *seg * (size_t)w->ctas);
	char *live = malloc((size_t)w->ctas);
	long left = 0;
	int rc = FGO_OK;

	R.acc = malloc(sizeof *R.acc * R.tile_elems);
	if (!seg || !live || !R.acc) {
		kit_fail(ex, "out of memory for the walk of %d CTAs", w->ctas);
		rc = FGO_EFAIL;
		goto out;
	}
	for (int c = 0; c < w->ctas; c++) {
		live[c] = (char)(first(w, c, &seg[c]) != 0);
		/* a cluster's ghosts (kernels/schedule.h) have no tile here */
		while (live[c] && seg[c].ghost)
			live[c] = (char)(next(w, c, &seg[c]) != 0);
		left += live[c];
	}
	while (left > 0 && rc == FGO_OK) {
		long ran = 0;
		for (int c = 0; c < w->ctas && rc == FGO_OK; c++) {
			if (!live[c] || seg_blocker(&R, &seg[c]) >= 0)
				continue;
			kit_trace_as(ex, c);
			rc = seg_run(&R, c, &seg[c]);
			ran++;
			do
				live[c] = (char)(next(w, c, &seg[c]) != 0);
			while (live[c] && seg[c].ghost);
			if (!live[c])
				left--;
		}
		if (ran == 0 && rc == FGO_OK) {
			int c = 0;
			while (!live[c])
				c++;
			kit_fail(ex,
				 "the walk made no progress (a schedule bug): %ld of %d CTAs left, CTA %d"
				 " waits at tile %ld, iterations [%ld, %ld), for flag %ld, which no CTA"
				 " can raise",
				 left, w->ctas, c, seg[c].tile, seg[c].k0, seg[c].k1,
				 seg_blocker(&R, &seg[c]));
			rc = FGO_EFAIL;
		}
	}
out:
	kit_trace_as(ex, 0); /* what the family does after the walk: the first CTA's */
	free(seg);
	free(live);
	free(R.acc);
	return rc;
}
