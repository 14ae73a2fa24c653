/* predict_world.h: a fused family's time at W ranks (and its speedup over
 * the GEMM then the collective) from what one GPU can measure: the
 * per-rank GEMM's time, the family's bytes per peer and a link ceiling.
 * Pure, so tests feed it numbers; best --predict --world prints, stores
 * and checks it against measured runs (src/cmd/predict_world_view.c).
 * The same formula with a coefficient per term is fitted to a family's
 * stored runs at W (the second half of this file; world_refit.c reads
 * them), and the baseline's collective comes from calibrate's curve
 * (coll_curve.h) where one was measured.
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
	/* (optional) the fitted coefficients (WORLD_TERMS of them, below);
	 * NULL: the ceilings' (world_coef_default), the formula above */
	const double *coef;
	/* (optional) the baseline's collective, ms (a measured curve's); 0:
	 * the ring at link_gbps (or, without one, at the fitted link rate) */
	double collective_ms;
	/* (optional) the Stream-K forms: the comm CTAs' copy time, ms
	 * (world_copy.h); > 0: the link side is coef's link x this, not the
	 * bytes at a rate */
	double copy_ms;
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
 * unknown, gemm_ms is not > 0, or, without in->coef, a rate the terms
 * need is unknown (link_gbps or mem_gbps not > 0). in->coef is taken as
 * it is (a coefficient of 0: the runs saw no cost; the caller decides
 * whether a coefficient from unknown ceilings may stand). */
int predict_world(const struct fgo_config *cfg, const struct world_inputs *in,
		  struct world_prediction *out);


/* ---- the multi-GPU terms, fitted to runs at W on W devices (issue 33) ----
 *
 *   fused = max(c_gemm g, link) + (c_tile / units + c_share) S
 *           + c_wait x 1 us + c_reduce R
 *   link  = c_link L + c_latency x 1 us
 *   S     = min(c_gemm g, c_link L), the shorter side (its bytes only)
 *
 * g: the per-rank GEMM's ms (for a stored run, its own t_gemm: the same
 * configuration with the communication compiled out; for a prediction,
 * the GEMM measured at W=1 or the cost model's); L: one rank's egress in
 * ms at 1 GB/s, so 1 / c_link is the achieved GB/s; R: the reduction's
 * reads in ms at 1 GB/s (1 / c_reduce: their GB/s, no more than the
 * memory's: a fit keeps c_reduce >= 1 / mem_gbps where that is known,
 * since reads faster than memory say the runs hid them, not that they
 * are free at a shape with more C per FLOP); units: the per-rank
 * GEMM's output tiles (the first tile computed before anything is sent,
 * the last one sent after the GEMM: one unit of the shorter side
 * exposed); share: the part of the shorter side that stays exposed
 * whatever the tiles (the GEMM and the transfers slowing each other: on
 * four H100s at W=2 all_scatter's fused runs took their GEMM's time and
 * 35-60% of their comm-only time, at 256 or 900 tiles alike); S leaves
 * the latency out (paid once, not a share); wait: flags, fences and the
 * first handshake, in us; latency:
 * the link side's time at no bytes, in us (a comm-only run of a few KB
 * takes 10-28 us on H100s: launch, flags, the first round trip), so
 * 1 / c_link is the rate of the large transfers, not one slowed by the
 * small ones' latency. The comm-only runs (t_comm: the same pattern with
 * the GEMM compiled out) are the link side alone: the fit takes each as
 * one more row, c_link L + c_latency x 1 us against its t_comm, so the
 * link's rate and latency are what the link measured, not what a fused
 * run's excess over its GEMM would have them be (a link 3x slower than
 * its comm-only runs explained the all_scatter and push runs at W=2 that
 * lose 5-20% to their GEMM, and then priced a held-out large shape on
 * the link side: 1.3-1.7x its time). The ceilings' coefficients
 * (world_coef_default: 1, 1 / link_gbps, 1, 0, 1 / mem_gbps, 0, 0) give
 * predict_world's formula above. The Stream-K forms' link side is their
 * comm CTAs' copy time times c_link instead (their rate moves with
 * comm_sms and the tile, world_copy.h): c_link is then the fused
 * kernel's link side over its comm-only time (default 1), whose latency
 * is in it (no latency term), and their units are 1 (no share term:
 * c_tile is their share). */
enum world_term { WT_GEMM, WT_LINK, WT_TILE, WT_WAIT, WT_REDUCE, WT_LATENCY, WT_SHARE, WORLD_TERMS };
/* gemm link tile wait reduce latency share */
extern const char *const world_term_names[WORLD_TERMS];

/* Runs a (family, W) needs before it is fitted: twice the coefficients
 * every family's fused times pin, the terms before WT_LATENCY (the
 * latency and the share are pinned by the comm-only times too, or not at
 * all: a Stream-K form has neither). */
#define WORLD_MIN_RUNS (2 * WT_LATENCY)

/* What one run (or one prediction) puts into the terms. */
struct world_obs {
	double gemm_ms;  /* g */
	double egress;   /* bytes one rank sends: (W - 1) x the family's link_bytes */
	double reduced;  /* bytes of partial sums one rank reads (0: no reduction) */
	long units;      /* the per-rank GEMM's output tiles, >= 1 */
	double ms;       /* the measured fused time (fits and errors only) */
	double comm_ms;  /* the measured comm-only time; 0: none (fits only: the link side's row) */
	/* the Stream-K forms (world_copy.h): the comm CTAs' copy time, ms (a
	 * run's own t_comm; at a new shape the copy model's). > 0: the link
	 * side is c_link x copy_ms (c_link a factor on the comm-only time, 1
	 * its default), not c_link x egress; 0: the bytes at the link's rate */
	double copy_ms;
	/* the wait's ms at c_wait 1; 0: 1 us (a fixed wait: flags, fences, the
	 * first handshake). The Stream-K forms (world_obs_of): 1 us x one
	 * output tile's MACs (blk_m x blk_n x the per-rank K) over a 128 x 128
	 * x 8192 tile's, so c_wait reads as the us of such a tile: what stays
	 * exposed after their GEMM is the last tile's K loop and its sum or
	 * copy, which moves with the tile (H100, W=2: 18, 27, 46 us for 64x128,
	 * 128x128, 128x256 at 128 x 4096 x 14336, 22, 31, 50 at 1024 rows),
	 * not with the problem's size; a fixed wait fitted at M >= 1024 was 26
	 * us too much at M = 128 */
	double wait_basis;
};

/* The wait's ms at c_wait 1 of o (its wait_basis, else 1 us). */
double world_wait_basis(const struct world_obs *o);

/* cfg's obs at cfg->world from the per-rank GEMM's gemm_ms and units
 * (ms, comm_ms 0). 0 when the family is unknown or has no link bytes. */
int world_obs_of(const struct fgo_config *cfg, double gemm_ms, long units, struct world_obs *o);

/* The per-rank GEMM's output tiles of cfg's tile (>= 1); 1 for the Stream-K forms
 * (world_copy_family: their exposed part is a share of the shorter side). */
long world_units(const struct fgo_config *cfg);

/* The ceilings' coefficients; a rate not > 0 gives 0 for its term (the
 * caller says it is unknown). */
void world_coef_default(double link_gbps, double mem_gbps, double c[WORLD_TERMS]);

/* The link side's ms at c_link 1: o's copy_ms where > 0, else its egress
 * in ms at 1 GB/s. */
double world_link_basis(const struct world_obs *o);

/* The link side's ms at c_latency 1: 1 us where o sends bytes at a rate
 * (egress > 0, no copy_ms); 0 otherwise (nothing sent; the Stream-K
 * forms' copy time has its latency in it). */
double world_latency_basis(const struct world_obs *o);

/* The link side of o under c, ms: c_link x world_link_basis + c_latency
 * x world_latency_basis (what its comm-only run takes, modelled). */
double world_link_ms(const struct world_obs *o, const double c[WORLD_TERMS]);

/* The fused ms of o under c (the formula above). */
double world_time(const struct world_obs *o, const double c[WORLD_TERMS]);

/* One fit of a family at one W. */
struct world_fit {
	int world;
	double coef[WORLD_TERMS];
	unsigned fitted;       /* bit t: the runs pinned term t; else coef[t] is def's */
	size_t runs;
	double rms_rel_err;    /* sqrt(mean(predicted / measured - 1)^2) over the runs */
	double max_rel_err;    /* max |predicted / measured - 1| */
};

/* Fits c >= 0 (c_reduce >= def's, the memory's ceiling) to n runs by
 * least squares on relative error, each run's
 * comm-only time (comm_ms > 0, at a rate: world_latency_basis) one more
 * row against its link side: the formula
 * is linear in c once each run's longer side (GEMM or link) is known, so
 * the sides and the fit are alternated until the sides hold, from a few
 * starts of the link's rate (def's, and what the runs' comm-only times
 * and fused times say), the best kept. A term whose column is 0 on fewer
 * than 2 runs (no reduction; every run on one side) is not fitted and
 * keeps def's coefficient. out->world is left 0. FGO_OK; FGO_EUSAGE when
 * n is 0 or a time or a GEMM time is not > 0. */
int world_fit(const struct world_obs *o, size_t n, const double def[WORLD_TERMS],
	      struct world_fit *out);

/* The errors of c on n runs: rms and max of predicted / measured - 1
 * (as world_fit), and the range of predicted / measured. 0s when n is 0. */
struct world_errors {
	size_t runs;
	double rms_rel_err, max_rel_err, ratio_lo, ratio_hi;
};
void world_errors_of(const struct world_obs *o, size_t n, const double c[WORLD_TERMS],
		     struct world_errors *out);

/* The coefficients at world from a family's fits at several W: each
 * term from the fit at world that pinned it, else from the nearest W
 * whose fit did (the smaller on a tie: extrapolated), else def's (the
 * ceilings). from[t]: the W its coefficient was fitted at, 0 for def. */
struct world_coef {
	double c[WORLD_TERMS];
	int from[WORLD_TERMS];
};
void world_coef_at(const struct world_fit *fits, int n, int world, const double def[WORLD_TERMS],
		   struct world_coef *out);

/* "gemm, link fitted at W=2; tile from W=2 (extrapolated); reduce:
 * the ceilings (not fitted)": where each term of r came from at world,
 * for notes and the store. absent: terms the family does not have (bit
 * t: its column is 0 for every configuration, e.g. reduce without a
 * reduction), said as such. The latency and the share are said where a
 * fit pinned them ("gemm, link, tile, wait, latency, share fitted at
 * W=2"), not as ceilings (they have none: 0) nor as absent. */
void world_coef_text(const struct world_coef *r, int world, unsigned absent, char *out,
		     size_t len);

#endif
