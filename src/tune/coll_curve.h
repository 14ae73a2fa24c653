/* coll_curve.h: the vendor collective's time against its buffer's bytes,
 * one curve per collective and world size, as `fgobench calibrate`
 * measures them (coll_curves in the store; algo_collective says which
 * collective a family's baseline runs and how many bytes). The baseline of
 * best --predict --world is the per-rank GEMM then this time. Pure, so
 * tests feed it synthetic curves; world_refit.c reads them from the store. */
#ifndef FGO_COLL_CURVE_H
#define FGO_COLL_CURVE_H

#include <stddef.h>

#include "algo.h"

#define COLL_POINTS_MAX 32
#define COLL_CURVES_MAX 64 /* 3 collectives x W = 2 .. 22, more than a node has */

struct coll_curve {
	enum fgo_collective kind;
	int world;
	int n;                           /* points, bytes strictly ascending */
	double bytes[COLL_POINTS_MAX];
	double seconds[COLL_POINTS_MAX]; /* the slowest rank's best call */
	int fitted;                      /* 1: fitted to stored runs' baseline times
					  * (coll_curve_fit), not measured by calibrate */
	double hidden_s;                 /* taken off every point: what the runs'
					  * baselines do not see of a call timed alone
					  * (world_curves_load); 0: none */
	int hidden_from;                 /* the W whose runs said hidden_s */
};

/* The curve of kind at world from runs that timed the vendor collective
 * inside their baseline (on GPUs, t_bulk - t_gemm: the run's own GEMM,
 * then the collective; stores older than calibrate's curves have only
 * these): seconds = latency + bytes / rate, fitted by non-negative least
 * squares on relative error (so neither goes negative), written as
 * COLL_FIT_POINTS points from COLL_FIT_FLOOR bytes (or the smallest
 * seen, when smaller) to the largest seen (log-spaced; past them
 * coll_curve_seconds extrapolates as it does a measured curve), fitted
 * set. *latency_s, *gbps (may be NULL) and *rms
 * (relative, may be NULL) say what was fitted. 1 when fitted; 0 with
 * fewer than 3 points or fewer than 2 sizes (a rate needs two). */
#define COLL_FIT_POINTS 24
#define COLL_FIT_FLOOR 4096.0
int coll_curve_fit(enum fgo_collective kind, int world, const double *bytes,
		   const double *seconds, size_t n, struct coll_curve *out, double *latency_s,
		   double *gbps, double *rms);

/* Where a size fell against the measured ones. */
enum coll_reach {
	COLL_INSIDE = 0, /* between two points: linear in bytes (latency + bytes / rate) */
	COLL_BELOW = 1,  /* under the first: its time (latency bound; extrapolated) */
	COLL_ABOVE = 2,  /* past the last: its time plus the bytes past it at the
			  * last segment's rate (bandwidth bound; extrapolated) */
};

/* Seconds of c at bytes (see enum coll_reach); *reach where it fell (may
 * be NULL). NaN without points or for bytes <= 0. */
double coll_curve_seconds(const struct coll_curve *c, double bytes, enum coll_reach *reach);

/* The sizes calibrate measures: n of them from max_bytes down by a factor
 * step each, each rounded down to a multiple of align (and at least
 * align), ascending into out. Returns how many (n, or fewer where two
 * round to the same size). */
int coll_curve_sizes(size_t max_bytes, size_t step, int n, size_t align, size_t *out);

/* The bus factor of kind at world ranks (nccl-tests' busbw / algbw):
 * all-gather and reduce-scatter (W - 1) / W, all-reduce 2 (W - 1) / W: at
 * one buffer size a ring's time scales with it from one W to another. */
double coll_bus_factor(enum fgo_collective kind, int world);

/* The time of kind at world and bytes from the curves: the curve at world
 * where one was measured, else the nearest world's (the smaller on a tie)
 * scaled by the bus factors (extrapolated from another W). */
struct coll_estimate {
	int found;              /* 0: no curve of kind at any W */
	double seconds;
	int from_world;         /* the curve's W */
	int fitted;             /* the curve was fitted to runs (coll_curve_fit), not measured */
	enum coll_reach reach;  /* where bytes fell on it */
	double hidden_s;        /* the curve's hidden_s (already taken off seconds) */
	int hidden_from;
	double lo, hi;          /* its measured sizes */
};
void coll_estimate(const struct coll_curve *curves, int n, enum fgo_collective kind, int world,
		   double bytes, struct coll_estimate *out);

/* How much faster a GPU's links move kind's bytes at world than at from,
 * as calibrate's measured curves say it: the bus bandwidth (bus factor x
 * bytes / seconds) at the largest size both curves measured, world's over
 * from's (four H100s: all-gather and reduce-scatter 1.25x at W=4 over
 * W=2, all-reduce 1.10x: three links at once carry more than one). 0 when
 * either W has no measured curve of kind (a curve fitted to runs is not a
 * measurement of the links). */
double coll_link_scale(const struct coll_curve *curves, int n, enum fgo_collective kind, int world,
		       int from);

/* "the all_gather curve at W=2 (interpolated)", "... at W=2, scaled to
 * W=4 (extrapolated: another W)", "... (extrapolated: 64 MiB past its
 * largest, 4 MiB)": what e says, for notes and the store. */
void coll_estimate_text(const struct coll_estimate *e, enum fgo_collective kind, int world,
			double bytes, char *out, size_t len);

#endif
