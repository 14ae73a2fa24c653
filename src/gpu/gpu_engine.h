/* gpu_engine.h: copies the copy engine makes beside a kernel (fgo_algo's
 * engine_copies): on a stream of their own, forked from the launch's stream
 * and joined back after the kernel, each followed by a flag the stream
 * writes itself, so the kernel keeps every SM while peer bytes cross the
 * link, and waits only for the chunks it reads. */
#ifndef FGO_GPU_ENGINE_H
#define FGO_GPU_ENGINE_H

#include <stddef.h>

#include "algo.h"
#include "hip_port.h"

struct gpu_engine {
	hipStream_t stream; /* NULL until the first copy */
	hipEvent_t fork, join;
};

/* The copies algo makes for cfg on this rank, in *out (malloc'd; NULL and
 * 0 when there are none or world is 1). FGO_OK, or FGO_EFAIL with err. */
int gpu_engine_plan(const struct fgo_algo *algo, const struct fgo_config *cfg,
		    const struct fgo_layout *lay, int rank, struct fgo_engine_copy **out, int *n,
		    char *err, size_t len);

/* After what `main` has queued: the n copies into this rank's heap (bases:
 * every rank's heap as addressable here), each followed by flag c[i].flag
 * at flags (this rank's flag array) set to epoch. What `main` queues next
 * runs beside them until gpu_engine_join. */
int gpu_engine_fork(struct gpu_engine *e, hipStream_t main, char *const *bases, int rank,
		    unsigned int *flags, const struct fgo_engine_copy *c, int n, unsigned int epoch,
		    char *err, size_t len);

/* What `main` queues next waits for the copies. */
int gpu_engine_join(struct gpu_engine *e, hipStream_t main, char *err, size_t len);

void gpu_engine_close(struct gpu_engine *e);

#endif
