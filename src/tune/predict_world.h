/* predict_world.h: a fused family's time at W ranks (and its speedup over
 * the GEMM then the collective) from what one GPU can measure: the
 * per-rank GEMM's time, the family's bytes per peer and a link ceiling.
 * Pure, so tests feed it numbers; best --predict --world prints, stores
 * and checks it against measured runs (src/cmd/predict_world_view.c).
 *
 * The model, per family at W ranks (bytes from the family's link_bytes,
 * the bytes it puts on one peer's link, times the W - 1 peers: the egress
 * of one rank, against link_gbps, the egress bandwidth of one GPU storing
 * to all its peers at once):
 *   comm    = (W - 1) x link_bytes / link_gbps
 *   reduce  = the partial sums a rank adds (all_reduce one-shot: W x M x N
 *             elements; two-shot and reduce_scatter: W x M x N / W) read
 *             at mem_gbps; 0 for the others
 *   fused   = max(gemm, comm) + min(gemm, comm) / units + reduce: the
 *             communication of tile i hides behind the GEMM of tile i + 1,
 *             so one unit of the shorter side stays exposed (units: the
 *             per-rank GEMM's output tiles)
 *   baseline = gemm + the collective, ring-modelled at the same egress:
 *             all-gather (all_scatter: C) and reduce-scatter (W - 1) / W x
 *             the buffer, all-reduce 2 (W - 1) / W; all_gather_gemm
 *             gathers A (M x K) before its GEMM
 *   speedup = baseline / fused. */
#ifndef FGO_PREDICT_WORLD_H
#define FGO_PREDICT_WORLD_H

#include "config.h"

struct world_inputs {
	double gemm_ms;   /* the per-rank GEMM (predict_world_gemm_shape) */
	double link_gbps; /* egress of one GPU to all its peers at once, GB/s */
	double mem_gbps;  /* memory bandwidth, GB/s (the reduction's reads) */
	long units;       /* the per-rank GEMM's output tiles (>= 1) */
};

struct world_prediction {
	double comm_bytes;       /* one rank's egress */
	double comm_ms, reduce_ms, fused_ms;
	double collective_bytes; /* the baseline collective's egress per rank */
	double collective_ms, baseline_ms, speedup;
};

/* The per-rank GEMM of cfg (its family at cfg->world, the shape): one GEMM
 * of *m x *n x *k doing the same MACs (the blocks of all_gather_gemm side
 * by side in M). 0 when the family is unknown. */
int predict_world_gemm_shape(const struct fgo_config *cfg, long *m, long *n, long *k);

/* cfg's family at cfg->world from in (see above). 0 when the family is
 * unknown or an input is not > 0. */
int predict_world(const struct fgo_config *cfg, const struct world_inputs *in,
		  struct world_prediction *out);

#endif
