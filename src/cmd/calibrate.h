/* calibrate.h: the parts of `fgobench calibrate` beside cmd_calibrate.c,
 * which measures the ceilings and stores everything in one transaction:
 * the read floor (calibrate_floor.c), the vendor collective's curve at
 * every world size rank 0's node can form (calibrate_curve.c), and the
 * fits of the cost model and the multi-GPU terms (calibrate_fit.c,
 * declared in cmd.h). */
#ifndef FGO_CALIBRATE_H
#define FGO_CALIBRATE_H

#include <mpi.h>

#include "backend/backend.h"
#include "floor.h"
#include "run/runner.h"
#include "store/store.h"
#include "tune/coll_curve.h"

/* ---- the read floor ---- */

#define FLOOR_REPS_GPU 10
#define FLOOR_REPS_CPU 5

struct floor_results {
	int n;                           /* sizes measured; 0: no curve */
	size_t bytes[FLOOR_POINTS_MAX];
	double seconds[FLOOR_POINTS_MAX]; /* the slowest rank's best read */
	int reps;
	char method[256];
};

/* Collective over MPI_COMM_WORLD: the read floor up to max_mib. On GPUs
 * every rank reads its own device, all at once, and rank 0 keeps the
 * slowest rank's time per size; on CPU rank 0 reads alone (the ranks
 * share the machine's memory). Returns the failures (on every rank). */
int calibrate_floor_measure(const struct fgo_backend *be, struct fgo_backend_ctx *ctx, int rank,
			    int gpu, long max_mib, struct floor_results *fl);

/* Rank 0: the curve on stdout, with the bandwidth each size reaches. */
void calibrate_floor_print(const struct floor_results *fl, double memory_bw);

/* ---- the groups of W ranks the per-W measurements run on ---- */

/* Collective over MPI_COMM_WORLD: the ranks of rank 0's node (the
 * per-W measurements stay in one node, as the runner's groups do). */
int calibrate_lead_node(MPI_Comm node);

/* Collective over MPI_COMM_WORLD: the first world ranks of rank 0's node
 * as a communicator (MPI_COMM_NULL on every other rank; free it). */
MPI_Comm calibrate_group(MPI_Comm node, int world);

/* ---- the vendor collective's curve ---- */

#define CURVE_POINTS 5       /* sizes per curve, log-spaced */
#define CURVE_STEP_GPU 16    /* between sizes: 8 KiB .. 512 MiB by default */
#define CURVE_STEP_CPU 8     /* 1 KiB .. 4 MiB */
#define CURVE_MAX_GPU ((size_t)512 << 20)
#define CURVE_MAX_CPU ((size_t)4 << 20)
#define CURVE_REPS_GPU 10
#define CURVE_REPS_CPU 5

/* What rank 0 keeps. */
struct calibrate_curves {
	int n;    /* curves measured */
	int reps; /* timed calls per point */
	struct {
		enum fgo_collective kind;
		int world, points;
		double bytes[CURVE_POINTS], seconds[CURVE_POINTS];
		char method[256];
	} c[COLL_CURVES_MAX];
};

/* Collective over MPI_COMM_WORLD (node: this rank's node): for W = 2 up to
 * the ranks of rank 0's node, the first W of them time each collective at
 * CURVE_POINTS sizes up to max_bytes (0: the backend's default) through
 * be->collective_curve; rank 0 keeps the curves in out and says where
 * there is no real link (ranks sharing a GPU: nothing kept). Returns the
 * failures (on rank 0; 0 elsewhere). Nothing when the backend has no
 * collective_curve or there is one rank. */
int calibrate_curves_measure(const struct fgo_backend *be, struct fgo_backend_ctx *ctx,
			     MPI_Comm node, int gpu, size_t max_bytes, struct calibrate_curves *out);

/* Rank 0: the curves on stdout, one row per collective and W. */
void calibrate_curves_print(const struct calibrate_curves *c);

/* Rank 0: every curve into the store (inside the caller's batch). */
int calibrate_curves_store(struct fgo_store *st, const char *host, const char *backend,
			   const char *devices, const struct calibrate_curves *c, char *err,
			   size_t len);

/* ---- the link egress: every rank to all its peers at once (issue 51) ---- */

#define EGRESS_HEAP_GPU ((size_t)512 << 20) /* half of it written by the W ranks */
#define EGRESS_HEAP_CPU ((size_t)32 << 20)

/* What rank 0 keeps: the slowest rank's egress at each W measured. */
struct calibrate_egress {
	int n;
	int world[FGO_EGRESS_W_MAX];
	double gbps[FGO_EGRESS_W_MAX];
	double pair_gbps; /* the slowest pair's rate (link_bw), for the table; 0: none */
};

/* Collective over MPI_COMM_WORLD (node: this rank's node): for W = 2 up to
 * the ranks of rank 0's node, the first W of them measure be->link_egress
 * on a heap of their own; rank 0 keeps the slowest rank's rate of each W
 * and says where there is no real link (ranks sharing a GPU: nothing
 * kept). Returns the failures (on rank 0; 0 elsewhere). Nothing when the
 * backend has no link_egress or there is one rank. */
int calibrate_egress_measure(const struct fgo_backend *be, struct fgo_backend_ctx *ctx,
			     MPI_Comm node, int gpu, struct calibrate_egress *out);

/* Rank 0: the rates on stdout, beside W - 1 times the pair's. */
void calibrate_egress_print(const struct calibrate_egress *e);

/* Rank 0: each W's rate into the store as link_bw "egress w=W" (inside the
 * caller's batch). */
int calibrate_egress_store(struct fgo_store *st, const char *host, const char *backend,
			   const struct calibrate_egress *e, char *err, size_t len);

#endif
