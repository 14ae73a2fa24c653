/* plot_kinds.h: the three kinds of `fgobench plot`, each writing
 * DIR/<kind>_w<W>[...].{dat,gp,png,svg} for one world size. */
#ifndef FGO_PLOT_KINDS_H
#define FGO_PLOT_KINDS_H

#include <stddef.h>

#include "store/store.h"

struct plot_query {
	struct fgo_store *store;
	int world;                           /* the world size plotted */
	const char *tag, *algorithm, *dtype; /* filters (NULL: any) */
	const char *dir;                     /* output directory (exists) */
	int *floor_drawn;                    /* (optional) set to 1 when plot_roofline drew
					      * the read-floor panel too */
};

/* plot_roofline.c: X = M*N*K, Y = TFLOP/s, a colour per family and a mark
 * per tile (one legend entry each), calibrated peaks as lines; then
 * plot_floor's panel when there is one to draw. */
int plot_roofline(const struct plot_query *q);
/* plot_floor.c: DIR/floor_wW.*: the memory-bound runs' time against their
 * per-rank GEMM's bytes beside the read floor of the newest sweep's
 * machine; *drawn 0 and nothing written when it has no curve or no run is
 * memory-bound. */
int plot_floor(const struct plot_query *q, int *drawn);
/* Per problem, the best configuration's GEMM-only, comm-only, fused and baseline times. */
int plot_overlap(const struct plot_query *q);
/* Per (algorithm, dtype): the best tile of every (M, N x K) shape. */
int plot_heatmap(const struct plot_query *q);

/* The file name (no extension) of the heatmap of algo and dtype at world:
 * both come from a store, so only file-safe characters are kept. */
void plot_heatmap_base(int world, const char *algo, const char *dtype, char *out, size_t len);

/* The world sizes with ok runs matching q's filters (q->world ignored if 0). */
int plot_worlds(const struct plot_query *q, int *worlds, int max, int *n);

/* plot_timeline.c: DIR/timeline_NAME.{dat,gp,png,svg} of the trace-event
 * JSON at file (`run --trace`): one row per CTA and lane, ranks stacked,
 * one colour per event kind; the image paths on stdout. dir exists.
 * FGO_OK, FGO_EUSAGE (not a trace) or FGO_EFAIL, the message printed. */
int plot_timeline(const char *file, const char *dir);
/* The base name plot_timeline gives file's drawing: timeline_NAME, NAME
 * the file's own name without its folder and .json, file-safe. */
void plot_timeline_base(const char *file, char *out, size_t len);

#endif
