/* floor.h: the read floor. For a small memory-bound GEMM (decode shapes) the
 * honest bound is not the bandwidth roofline but the time of the fastest
 * streaming read of the same bytes, timed as runs are timed: a launch alone
 * costs microseconds and loads need time to ramp. `fgobench calibrate`
 * measures that time against bytes (read_floors, read_floor_points); the
 * views show each memory-bound run's time against the floor of its bytes.
 *
 * floor.c: pure functions over a curve (interpolation, a run's bytes and
 * FLOPs, memory-bound or not), so tests feed them synthetic curves.
 * store_floor.c: the curve in the store and a small cache for the views. */
#ifndef FGO_FLOOR_H
#define FGO_FLOOR_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

#define FLOOR_POINTS_MAX 64
#define FLOOR_MIN_BYTES ((size_t)1 << 20) /* the curve's first point: 1 MiB */

/* One curve and the ceilings it is read with (same machine and backend). */
struct fgo_floor {
	int64_t id;                      /* read_floors.id; 0: no curve */
	int n;                           /* points, bytes strictly ascending */
	double bytes[FLOOR_POINTS_MAX];
	double seconds[FLOOR_POINTS_MAX]; /* best read of bytes[i] */
	char measured_at[32];
	double matrix_peak[3];           /* newest TFLOP/s per rank by enum fgo_dtype; 0: unknown */
	double memory_bw;                /* newest memory_bw ceiling, GB/s; 0: unknown */
};

/* Seconds of the floor at bytes: log-log linear between the two points
 * around it; below the first point the first point's time (no read is
 * faster than the smallest one timed); above the last, the last time plus
 * the bytes past it at the last segment's bandwidth (that of the last
 * point itself when the last segment does not rise). NaN without points or
 * for bytes <= 0. */
double floor_seconds(const struct fgo_floor *f, double bytes);

/* The per-rank GEMM of cfg (its family's tile space, algo_gemm_dims): A +
 * B + C bytes in cfg's dtype and 2 m n k FLOPs. An unknown algorithm
 * counts as a plain GEMM of M x N x K. */
void floor_gemm_work(const struct fgo_config *cfg, double *bytes, double *flops);

/* The ridge in FLOP per byte for dtype: matrix peak / memory bandwidth
 * (the memory_bw ceiling, else the curve's bandwidth at its largest point);
 * 0 when the peak or both bandwidths are unknown. */
double floor_ridge(const struct fgo_floor *f, enum fgo_dtype dtype);

/* 1 when f has a curve and cfg's per-rank GEMM is memory-bound (its
 * arithmetic intensity under the ridge): then *floor_s is the floor of its
 * bytes and *bytes those bytes. 0 otherwise (nothing to say). */
int floor_of_run(const struct fgo_floor *f, const struct fgo_config *cfg, double *floor_s,
		 double *bytes);

/* The sizes calibrate reads: 1, 1.5, 2, 3, 4, 6, ... MiB (powers of two and
 * their midpoints) up to max_bytes, at most cap of them; returns how many. */
int floor_sizes(size_t max_bytes, size_t *out, int cap);

/* ---- store_floor.c ---- */

struct fgo_store;

/* One curve of n points (bytes ascending, seconds > 0) for machine and
 * backend, with its devices, method and repetitions. One transaction, or
 * part of an open batch (store_batch_begin): calibrate stores the curve
 * with the ceilings, all or nothing. */
int store_floor_put(struct fgo_store *st, const char *machine, const char *backend,
		    const char *devices, const char *method, int repetitions, const double *bytes,
		    const double *seconds, int n, char *err, size_t len);

/* The newest curve of machine and backend into f with the newest matrix
 * peaks and memory bandwidth of the same (f->n = 0 when there is no curve).
 * A store older than schema 4 read as it is answers no curve. FGO_OK or
 * FGO_EFAIL with err. */
int store_floor_get(sqlite3 *db, const char *machine, const char *backend, struct fgo_floor *f,
		    char *err, size_t len);

/* The views' lookups: the curves of the few (machine, backend) pairs a view
 * meets, each read once. */
#define FLOOR_CACHE_MAX 8
struct floor_cache {
	int count, next;
	struct {
		char machine[128], backend[16];
		struct fgo_floor f;
	} e[FLOOR_CACHE_MAX];
};

/* The curve of machine and backend (f->n 0: none), or NULL when reading
 * the store failed (err says why). */
const struct fgo_floor *floor_cache_find(struct floor_cache *c, sqlite3 *db, const char *machine,
					 const char *backend, char *err, size_t len);

#endif
