/* algos/kit.h: what every algorithm family shares: heap addressing, the
 * epoch flags (release/acquire, no reset between launches), tile geometry,
 * heap layout placement and the validity rules families have in common. */
#ifndef FGO_ALGOS_KIT_H
#define FGO_ALGOS_KIT_H

#include <stddef.h>

#include "algo.h"
#include "config.h"
#include "fgo.h"
#include "schedule.h"

/* Alignment of every buffer a layout places in the heap. */
#define KIT_ALIGN 64

/* Rank's heap (as addressable from this rank) at offset. */
static inline char *kit_heap(const struct fgo_exec *ex, int rank, size_t offset)
{
	return ex->heap[rank] + offset;
}

/* Address of local element (row, col) of matrix m (shard-relative indices)
 * in rank's heap; the same offset on every rank, so it names the peer's copy. */
static inline char *kit_at(const struct fgo_exec *ex, int rank, const struct fgo_matrix *m,
			   long row, long col)
{
	return kit_heap(ex, rank, m->offset) +
	       ((size_t)row * (size_t)m->ld + (size_t)col) * dtype_size(ex->cfg->dtype);
}

/* x rounded up to KIT_ALIGN. */
static inline size_t kit_align(size_t x)
{
	return (x + KIT_ALIGN - 1) / KIT_ALIGN * KIT_ALIGN;
}

/* The smallest power of two >= x (1 for x <= 1). */
long kit_pow2_ceil(long x);

/* Layout building: returns the next KIT_ALIGN-aligned offset at or after
 * *cursor and moves *cursor past bytes from there. */
static inline size_t kit_place(size_t *cursor, size_t bytes)
{
	size_t at = (*cursor + KIT_ALIGN - 1) / KIT_ALIGN * KIT_ALIGN;
	*cursor = at + bytes;
	return at;
}

/* The exchange area of the walk (kernels/schedule.h) when it needs one,
 * placed at the cursor, its flags after the family's flags_count (which
 * grows by them); call it before placing the flags. Nothing when neither:
 *   split_k > 1: the fp32 sums of the `tiles` tiles (BLK_M x BLK_N each;
 *     with deterministic, split_k - 1 slots a tile, tile * (split_k - 1) +
 *     slice) and 2 x (split_k - 1) flags a tile (one per consumer warpgroup of the
 *     wgmma core and slice before the last), xchg_flag0 + (tile * 2 + c) *
 *     (split_k - 1) + slice;
 *   Stream-K (kit_walk_streamk: gemm_sms > 0): room for one fp32 slot of
 *     BLK_M x BLK_N per GEMM CTA (gemm_sms of them: the CPU's hand-overs)
 *     and for one fp32 sum per Stream-K tile (the wgmma core adds the
 *     pieces of a tile there), and one flag per CTA, xchg_flag0 + cta,
 *     raised once the CTA's hand-over is in. */
void kit_xchg_place(const struct fgo_config *cfg, long tiles, struct fgo_layout *lay,
		    size_t *cursor);

/* Whether cfg's walk is Stream-K (gemm_sms > 0, no split): the hybrid
 * data-parallel + Stream-K schedule, the sk_* families' too (every tile
 * Stream-K finished every tile near the end, so their communication CTAs
 * waited and then ran serial: 0.43-0.80x the vendor sequence on two
 * H100s). */
static inline int kit_walk_streamk(const struct fgo_config *cfg)
{
	return cfg->gemm_sms > 0 && cfg->split_k <= 1;
}

/* Bytes of a rows x cols matrix of dtype t, rounded up to KIT_ALIGN. */
static inline size_t kit_matrix_bytes(long rows, long cols, enum fgo_dtype t)
{
	size_t b = (size_t)rows * (size_t)cols * dtype_size(t);
	return (b + KIT_ALIGN - 1) / KIT_ALIGN * KIT_ALIGN;
}

/* Sets m to the block [row0, row0+rows) x [col0, col0+cols), dense (ld =
 * cols), placed at the next aligned offset of *cursor. */
void kit_matrix(struct fgo_matrix *m, long row0, long rows, long col0, long cols,
		enum fgo_dtype t, size_t *cursor);

/* One output tile of a tile space: its grid coordinates and the element
 * rectangle it covers (edge tiles are partial: rows/cols may be < BLK). */
struct kit_tile {
	long tm, tn;   /* tile coordinates in the grid */
	long r0, c0;   /* first row and column, relative to the tile space */
	int rows, cols; /* extent, <= blk_m x blk_n */
};

/* The tile-th tile in grouped launch order (sched_tile_coords with
 * cfg->gsize_m) of a rows x cols tile space tiled by cfg's BLK_M x BLK_N. */
void kit_tile_at(const struct fgo_config *cfg, const struct sched_grid *g, long rows, long cols,
		 long tile, struct kit_tile *t);

/* The tile at grid coordinates (tm, tn). */
void kit_tile_rc(const struct fgo_config *cfg, long rows, long cols, long tm, long tn,
		 struct kit_tile *t);

/* Flags: uint32_t at lay->flags_offset, index flag_index. A writer publishes
 * ex->epoch with a release store after its data stores; a reader sees the
 * data once an acquire load gives a value >= ex->epoch. */
void kit_flag_publish(const struct fgo_exec *ex, int rank, long flag_index);
/* Own flag >= epoch now (acquire load, no wait). */
int kit_flag_ready(const struct fgo_exec *ex, long flag_index);
/* Waits (yielding the CPU) for the own flag: FGO_OK, or FGO_ETIMEOUT after ex->deadline. */
int kit_flag_wait(const struct fgo_exec *ex, long flag_index);
/* The same on rank's copy of the flag (pull-style algorithms read peers' flags). */
int kit_flag_ready_at(const struct fgo_exec *ex, int rank, long flag_index);
int kit_flag_wait_at(const struct fgo_exec *ex, int rank, long flag_index);

/* The walk of cfg's GEMM over `blocks` x the tiles of grid g (one block's,
 * in the family's order), as the CPU runs it: the hybrid Stream-K
 * (kit_walk_streamk) over gemm_sms virtual CTAs; else split_k slices (1:
 * data-parallel) walked by one virtual CTA, or with cfg->cluster > 1 by one
 * cluster of that many virtual CTAs (sched_walk_make_clustered: the GPU's
 * tile order; kit_walk_run skips its ghost segments), in the GPU's order. */
struct sched_walk kit_walk_of(const struct fgo_config *cfg, const struct sched_grid *g, long blocks);

/* Whether the wgmma core hands a Stream-K walk's pieces over through slots
 * (each piece's fp32 partial stored in its CTA's slot, the CTA that ends
 * the tile adding them in order: the code deterministic runs) rather than
 * one sum a tile (16-byte atomics in L2, read back and zeroed): where a
 * tile is cut into at most KIT_SK_SLOTS_PIECES pieces (w->sk_pieces, the
 * hybrid walk's last partial wave spread over the CTAs), the take-over's
 * few reads cost less than the atomics and the zeroing (docs/heldout.md:
 * 6091 x 1520 x 2416 128x256 over 132 CTAs, 24 Stream-K tiles of 5 pieces,
 * 80.7 and 81.1 us against 86.0 and 86.5 on one H100). The bound is that
 * measured point: with 33 pieces the reads in turn took twice the sum's
 * time (wgmma_walk.h), and between them nothing is measured yet
 * (tests/gpu/sk_pieces.json measures 1 to 33). The kernel is compiled so
 * (gpu_jit_defines: WG_SK_SLOTS); the layout has room for either
 * (kit_xchg_place). */
#define KIT_SK_SLOTS_PIECES 5
int kit_sk_slots(const struct fgo_config *cfg, const struct sched_walk *w);

/* Tracing (kernels/trace.h), a no-op when ex->trace is NULL: one event of
 * the virtual CTA recording now, timestamped CLOCK_MONOTONIC. The walk
 * records each segment's GEMM, hand-over and take-over; the families
 * record their puts, waits and reductions. */
void kit_trace(const struct fgo_exec *ex, unsigned int what, int a0, int a1, int a2, int a3,
	       int a4);
/* Makes cta the virtual CTA that records (the comm CTAs of a family, the
 * walk's CTAs); returns the one before, for putting it back. */
static inline int kit_trace_as(const struct fgo_exec *ex, int cta)
{
	int was = ex->trace ? ex->trace->cta : 0;
	if (ex->trace)
		ex->trace->cta = cta;
	return was;
}
/* The flag wait of kit_flag_wait_at, recorded as FGO_TR_WAIT on the data
 * of `peer` when it has to wait (a flag already up records nothing). */
int kit_flag_wait_peer(const struct fgo_exec *ex, int rank, long flag_index, int peer);
/* A put of `bytes` of tile to peer (FGO_TR_PUT), begin or end. */
static inline void kit_trace_put(const struct fgo_exec *ex, int end, int peer, size_t bytes,
				 long tile)
{
	if (ex->trace)
		kit_trace(ex, FGO_TR_PUT | (end ? FGO_TR_END : 0u), peer, (int)bytes, (int)tile, -1,
			  -1);
}
/* A reduction of tile over `sources` ranks (FGO_TR_REDUCE), begin or end. */
static inline void kit_trace_reduce(const struct fgo_exec *ex, int end, long tile, int sources)
{
	if (ex->trace)
		kit_trace(ex, FGO_TR_REDUCE | (end ? FGO_TR_END : 0u), (int)tile, sources, -1, -1, -1);
}

/* A family's two steps of the walk, for kit_walk_run. */
struct kit_walk_ops {
	/* acc (*rows x *cols, ld *cols) = tile's MAC iterations [k0, k1); FGO_OK,
	 * or an error (a wait on a peer's data that gave up). NULL: nothing is
	 * computed (comm-only): finish gets every tile the walk ends, acc NULL,
	 * in the walk's order, with no exchange */
	int (*gemm)(void *ctx, long tile, long k0, long k1, float *acc, int *rows, int *cols);
	/* tile is whole in acc (or acc is NULL: see gemm): store it and pass it
	 * on (puts, flags, reductions); called once a tile, by the CTA that ends
	 * it. FGO_OK or an error */
	int (*finish)(void *ctx, long tile, const float *acc);
	/* (optional) the walk's enumeration; NULL: sched_walk_first and
	 * sched_walk_next (tests give a broken one) */
	int (*first)(const struct sched_walk *w, int cta, struct sched_seg *s);
	int (*next)(const struct sched_walk *w, int cta, struct sched_seg *s);
	/* (optional) the tile grid, for the traced GEMM's tile row and column
	 * (tile % tiles, grouped order); NULL: recorded as -1 */
	const struct sched_grid *grid;
};

/* Runs the w->ctas virtual CTAs of walk w on this rank through the
 * exchange of the layout (kit_xchg_place, on this rank's heap):
 *   SCHED_HAND_OVER: the CTA's fp32 partial into its slot (xchg_offset +
 *     cta * BLK_M * BLK_N floats, ld cols), then flag xchg_flag0 + cta;
 *   SCHED_TAKE_OVER: once the flags of take_first .. take_last are up, adds
 *     their slots in that order, then ops->finish;
 *   split-K: a slice before the last adds into the tile's fp32 sums
 *     (xchg_offset + tile * BLK_M * BLK_N floats) and raises its flags
 *     (kit_xchg_place, both consumers'); the last slice, once they are all
 *     up, adds the sums, zeroes them (the next launch starts from zero, as
 *     the backend left them) and calls ops->finish;
 *   SCHED_WHOLE: ops->finish.
 * One thread cannot block on itself, so the CTAs run as a progress loop:
 * each pass gives every CTA its next segment when that segment's flags are
 * already up, else skips it; a pass with no progress is a schedule bug and
 * fails (FGO_EFAIL, the reason in ex->err). Waits on other ranks stay in
 * the ops. FGO_OK or the first error. */
int kit_walk_run(const struct fgo_exec *ex, const struct sched_walk *w,
		 const struct kit_walk_ops *ops, void *ctx);

/* Sets ex->err (when there is one) to the printf-style reason of a failure. */
void kit_fail(const struct fgo_exec *ex, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The default tile fitted to the shape: a side neither a spec nor a flag
 * gave (cfg->given) that the "tile exceeds problem" rule below would
 * refuse shrinks to the longest it allows (the next power of two >= the
 * side of the tile space it cuts, at least the core's smallest side), so
 * the defaults plan every shape as valid, on every backend, and the CPU
 * and GPU agree (the GPU's own limits are src/gpu/gpu_shape.c's). */
void kit_fit_tile(struct fgo_config *cfg);

/* The best core of the target for a configuration that left the core to
 * the default (cfg->given): on Hopper (arch "sm_90...") fp16 and bf16 run on
 * wgmma, 1.6-2x faster there than mma.sync, with the core's BLK_K (64) and,
 * where not given, its warps (8, or 12 for two consumers) and stages (4, or
 * 3 for 128 x 256); elsewhere, and for fp32, nothing changes. 1 when cfg
 * changed. mma.sync stays an explicit choice (mma=16). */
int kit_fit_core(struct fgo_config *cfg, const char *arch);

/* The "tile exceeds problem" rule for a rows x cols tile space (and BLK_K
 * against cfg->k): a side longer than both 16 (the smallest MMA side) and
 * the next power of two >= the dimension it tiles is invalid. 0 when valid, else 1 with e.g.
 * "BLK_M=128 exceeds M=32 (use BLK_M <= 32)". */
int kit_check_tile(const struct fgo_config *cfg, long rows, long cols, char *reason, size_t len);
/* The same rule for BLK_K against a K extent kk (e.g. K/W of a K-sharded family). */
int kit_check_tile_k(const struct fgo_config *cfg, long kk, char *reason, size_t len);
/* 0 when value % world == 0, else 1 with "M=100 is not divisible by world=3". */
int kit_check_divisible(const char *what, long value, int world, char *reason, size_t len);
/* 0 when gemm_sms >= 1, else 1 with a reason: what the sk_* families (a
 * GEMM / communication split of the CTAs) require. Their comm_sms may be 0:
 * then the CTA that ends a tile communicates it (on the wgmma core and the
 * CPU backend; gpu_shape.c refuses it on the others). The other families
 * run gemm_sms = 0 data-parallel. */
int kit_check_sms(const struct fgo_config *cfg, char *reason, size_t len);

#endif
