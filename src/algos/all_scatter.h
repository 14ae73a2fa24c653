/* all_scatter.h: what all_scatter, sk_all_scatter and gemm share: A full,
 * B column-sharded, the tile space M x N/W of this rank's columns of C,
 * the tile GEMM, the push of a finished tile to every peer, and the MPI
 * baseline (reference GEMM, then MPI_Allgather of the column blocks). */
#ifndef FGO_ALGOS_ALL_SCATTER_H
#define FGO_ALGOS_ALL_SCATTER_H

#include <stddef.h>

#include "algo.h"
#include "algos/kit.h"

/* Tile grid of this rank's output block, M x N/W, full K. */
struct sched_grid as_grid(const struct fgo_config *cfg);

/* Fills lay->a (M x K), lay->b (K x N/W, this rank's columns) and lay->c
 * (all M x N when full_c, else this rank's M x N/W); returns the first free
 * aligned offset after them. */
size_t as_layout_inputs(const struct fgo_config *cfg, int rank, int full_c,
			struct fgo_layout *lay);

/* N divisible by world, tile against M x N/W. */
int as_validate(const struct fgo_config *cfg, char *reason, size_t len);

/* Each peer receives this rank's M x N/W block once. */
double as_link_bytes(const struct fgo_config *cfg);

/* acc (t->rows x t->cols) = A x B over MAC iterations [k_begin, k_end) of
 * tile t (coordinates relative to this rank's block). */
void as_tile_gemm(const struct fgo_exec *ex, const struct kit_tile *t, long k_begin, long k_end,
		  float *acc);

/* The walk's GEMM step (kit_walk_ops.gemm) for tile `tile` (launch order)
 * of grid g: acc = its MAC iterations [k0, k1), *rows x *cols its extent. */
void as_seg_gemm(const struct fgo_exec *ex, const struct sched_grid *g, long tile, long k0,
		 long k1, float *acc, int *rows, int *cols);

/* This rank's C at tile t = acc, rounded to the dtype. */
void as_tile_store(const struct fgo_exec *ex, const struct kit_tile *t, const float *acc);

/* Copies finished tile `tile` (launch order) from this rank's C into every
 * peer's C and raises flag rank * tiles + tile there. */
void as_tile_push(const struct fgo_exec *ex, const struct sched_grid *g, long tile);

/* Waits until every peer's every tile has arrived: FGO_OK or FGO_ETIMEOUT. */
int as_wait_peers(const struct fgo_exec *ex, const struct sched_grid *g);

/* Reference GEMM of this rank's block, then MPI_Allgather when C is full. */
int as_baseline(const struct fgo_exec *ex);

#endif
