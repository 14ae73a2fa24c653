/* algos/kit.c: epoch flags on the symmetric heap, tile geometry, layout
 * placement and the validity rules shared by the algorithm families. */
#include "kit.h"

#include "cpu/gemm.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

int kit_flag_wait(const struct fgo_exec *ex, long flag_index)
{
	return kit_flag_wait_at(ex, ex->rank, flag_index);
}

int kit_streamk_fixup(const struct fgo_exec *ex, const struct sched_grid *g, int ctas, long tile,
		      int cta, size_t slots, size_t slot_bytes, long slot_flag0, float *acc,
		      int rows, int cols)
{
	for (int c = sched_streamk_cta(g, ctas, tile * g->k_iters); c < cta; c++) {
		long b, e;
		sched_streamk_range(g, ctas, c, &b, &e);
		if (b >= e)
			continue;
		int rc = kit_flag_wait(ex, slot_flag0 + c);
		if (rc != FGO_OK)
			return rc;
		cpu_tile_load_add(acc, kit_heap(ex, ex->rank, slots + (size_t)c * slot_bytes), cols,
				  rows, cols, FGO_FP32);
	}
	return FGO_OK;
}

int kit_streamk_cta(const struct fgo_exec *ex, const struct sched_grid *g, int ctas, int cta,
		    size_t slots, size_t slot_bytes, long slot_flag0, float *acc,
		    const struct kit_streamk_ops *ops, void *ctx)
{
	long kt = g->k_iters, it, end;

	sched_streamk_range(g, ctas, cta, &it, &end);
	while (it < end) {
		long tile = it / kt, k0 = it % kt;
		long stop = (tile + 1) * kt < end ? (tile + 1) * kt : end;
		int rows, cols, rc = FGO_OK;
		ops->gemm(ctx, tile, k0, stop - tile * kt, acc, &rows, &cols);
		if (stop < (tile + 1) * kt) {
			memcpy(kit_heap(ex, ex->rank, slots + (size_t)cta * slot_bytes), acc,
			       sizeof(float) * (size_t)rows * (size_t)cols);
			kit_flag_publish(ex, ex->rank, slot_flag0 + cta);
		} else {
			if (k0 > 0)
				rc = kit_streamk_fixup(ex, g, ctas, tile, cta, slots, slot_bytes,
						       slot_flag0, acc, rows, cols);
			if (rc == FGO_OK)
				rc = ops->finish(ctx, tile, acc, rows, cols);
			if (rc != FGO_OK)
				return rc;
		}
		it = stop;
	}
	return FGO_OK;
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
 * mma.sync (m16n8k16) and the others, 64 for wgmma (m64nNk16, and its
 * 64-column TMA boxes), so a 16- or 64-row tile is how a GPU handles M=1
 * (decode); the loads fill the rows past the edge with zeros and the
 * stores clip them. */
static int smallest_side(const struct fgo_config *cfg)
{
	return cfg->mma == FGO_MMA_WGMMA ? 64 : 16;
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
	if (cfg->gemm_sms >= 1 && cfg->comm_sms >= 1)
		return 0;
	snprintf(reason, len,
		 "%s needs gemm_sms >= 1 and comm_sms >= 1 (got gemm_sms=%d comm_sms=%d)",
		 cfg->algorithm, cfg->gemm_sms, cfg->comm_sms);
	return 1;
}

void kit_xchg_place(const struct fgo_config *cfg, long tiles, struct fgo_layout *lay,
		    size_t *cursor)
{
	size_t tile_bytes = (size_t)cfg->blk_m * (size_t)cfg->blk_n * sizeof(float);
	if (cfg->split_k > 1) {
		lay->xchg_bytes = (size_t)tiles * tile_bytes;
		lay->xchg_offset = kit_place(cursor, lay->xchg_bytes);
		lay->xchg_flag0 = lay->flags_count;
		lay->flags_count += (size_t)tiles * 2 * (size_t)(cfg->split_k - 1);
	} else if (kit_walk_streamk(cfg)) {
		lay->xchg_bytes = (size_t)cfg->gemm_sms * tile_bytes;
		lay->xchg_offset = kit_place(cursor, lay->xchg_bytes);
		lay->xchg_flag0 = lay->flags_count;
		lay->flags_count += (size_t)cfg->gemm_sms;
	}
}

void kit_tile_split(const struct fgo_config *cfg, long k_iters,
		    void (*gemm)(void *ctx, long k_begin, long k_end, float *acc), void *ctx,
		    float *acc, float *part, size_t n)
{
	if (cfg->split_k <= 1) {
		gemm(ctx, 0, k_iters, acc);
		return;
	}
	for (int s = 0; s < cfg->split_k; s++) {
		long k0, k1;
		sched_splitk_range(k_iters, cfg->split_k, s, &k0, &k1);
		gemm(ctx, k0, k1, s == 0 ? acc : part);
		if (s > 0)
			for (size_t i = 0; i < n; i++)
				acc[i] += part[i];
	}
}
