/* ar_common.h: what the K-sharded families (all_reduce one/two shot,
 * sk_all_reduce, reduce_scatter) share: the layout of A, B and C, tile
 * geometry, the partial-tile GEMM, the sum of one partial tile over every
 * rank's heap, the per-source flag checks, link bytes and the MPI baseline.
 *
 * Sharding: rank r holds A[:, r*K/W, +K/W) (M x K/W) and B[r*K/W, +K/W), :]
 * (K/W x N), so its GEMM gives a partial C over all M x N; partial tiles
 * travel between ranks in the output dtype, as the GPU kernels store them. */
#ifndef FGO_AR_COMMON_H
#define FGO_AR_COMMON_H

#include <stddef.h>

#include "algo.h"
#include "schedule.h"

/* One output tile: its place in the global M x N and its (possibly
 * partial) extent. */
struct ar_tile {
	long row0, col0; /* global row and column of the tile's first element */
	int rows, cols;  /* rows x cols elements, <= BLK_M x BLK_N */
};

/* The tile grid over a block of rows x cols of the output, with this rank's
 * K slice (K/W) as the MAC dimension. */
struct sched_grid ar_grid(const struct fgo_config *cfg, long rows, long cols);

/* Tile `tile` (launch order, grouped by gsize_m) of grid g over the block
 * whose first global row is row_base; cols is the block's width, rows its
 * height, both for clipping the edge tiles. */
void ar_tile_at(const struct fgo_config *cfg, const struct sched_grid *g, long row_base,
		long rows, long cols, long tile, struct ar_tile *t);

/* Fills lay->a, lay->b (the K-sharded inputs) and lay->c (global rows
 * [c_row0, c_row0 + c_rows) x all N), packed from offset 0; returns the
 * first free 64-byte-aligned offset after them. */
size_t ar_layout_inputs(const struct fgo_config *cfg, int rank, long c_row0, long c_rows,
			struct fgo_layout *lay);

/* acc (t->rows x t->cols, ld t->cols) = this rank's A x B for tile t over
 * the K iterations [k_begin, k_end) of its slice (BLK_K each, last partial). */
void ar_tile_gemm(const struct fgo_exec *ex, const struct ar_tile *t, long k_begin, long k_end,
		  float *acc);

/* Byte offset of element (row, col) of an M x N matrix (ld N) of the
 * output dtype that starts at heap offset base. */
size_t ar_elem_offset(const struct fgo_config *cfg, size_t base, long row, long col);

/* acc = sum over every rank p of the tile t read from p's heap at the
 * partial matrix at heap offset base (M x N, ld N, output dtype). Peers are
 * read in sched_peer order, so ranks start on different peers. */
void ar_tile_sum(const struct fgo_exec *ex, size_t base, const struct ar_tile *t, float *acc);

/* The sum of tile over every rank's partial (the work area) into this
 * rank's C; t gets the tile's extent. */
void ar_reduce_tile(const struct fgo_exec *ex, const struct sched_grid *g, long tile, float *acc,
		    struct ar_tile *t);

/* Two-shot (sched_tile_owner: tile % world): the next tile at or after
 * `from` this rank owns (g->tiles when none); the owner's sum of tile into
 * its C, then into every peer's C, the tile's flag [tiles * W + tile] raised
 * there; the launch's end, once the tiles other ranks own have arrived
 * (FGO_OK / FGO_ETIMEOUT). */
long ar_next_owned(const struct fgo_exec *ex, const struct sched_grid *g, long from);
/* This rank's partial of tile is in its work area: flag [tile * W + rank]
 * on every rank (one-shot) or on the tile's owner (two-shot). */
void ar_publish_partial(const struct fgo_exec *ex, long tile, int two_shot);
void ar_reduce_push(const struct fgo_exec *ex, const struct sched_grid *g, long tile, float *acc);
int ar_sums_wait(const struct fgo_exec *ex, const struct sched_grid *g);

/* Per-source flags [first, first + world) of this rank: all ready now
 * (no wait), or wait for all of them (FGO_OK / FGO_ETIMEOUT). */
int ar_sources_ready(const struct fgo_exec *ex, long first);
int ar_sources_wait(const struct fgo_exec *ex, long first);

/* Rules every K-sharded family has: K divisible by world, the output tile
 * space rows x cols, and BLK_K against this rank's K slice. */
int ar_validate(const struct fgo_config *cfg, long rows, long cols, char *reason, size_t len);

/* Bytes one rank sends over its busiest link for the two-shot scheme:
 * partial tiles to each owner plus the owned reduced tiles to each peer. */
double ar_two_shot_link_bytes(const struct fgo_config *cfg);

/* Baseline: reference GEMM of this rank's slice into fp32, then
 * MPI_Allreduce (scatter = 0: C is all M x N) or MPI_Reduce_scatter_block
 * (scatter = 1: C is this rank's M/W rows), then C = the result in dtype. */
int ar_baseline(const struct fgo_exec *ex, int scatter);

#endif
