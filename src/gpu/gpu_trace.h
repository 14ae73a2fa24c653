/* gpu_trace.h: the GPU side of a traced launch (kernels/trace.h): the
 * device buffer a traced module's fgo_trace_buf points at, the reference
 * timestamp launched before each traced launch, and the buffer read back
 * with the SM clocks turned into device nanoseconds. Built with
 * GPU=cuda|hip; backend_gpu.c keeps one per traced runnable.
 *
 * Every function returns FGO_OK or FGO_EFAIL with a one-line reason. */
#ifndef FGO_GPU_TRACE_H
#define FGO_GPU_TRACE_H

#include <stddef.h>

#include "hip_port.h"
#include "trace.h"

struct gpu_trace {
	char *dev;             /* the device buffer (NULL: not traced) */
	size_t bytes;          /* its size */
	hipFunction_t ref;     /* fgo_trace_ref of the module */
	char *host;            /* the copy gpu_trace_read fills */
	struct fgo_trace_rank tr;
};

/* A buffer for ctas CTAs of cap events each, zeroed, the module's
 * fgo_trace_buf pointing at it; t zeroed first. On failure t holds
 * nothing (gpu_trace_close is still fine). */
int gpu_trace_open(struct gpu_trace *t, hipModule_t module, int rank, int ctas, int cap,
		   char *err, size_t len);
void gpu_trace_close(struct gpu_trace *t); /* an unopened (zeroed) one is fine */

/* On stream, before the traced launch: the counters zeroed, then the
 * reference timestamp (fgo_trace_ref), right after the runner's barrier. */
int gpu_trace_begin(struct gpu_trace *t, hipStream_t stream, char *err, size_t len);

/* After the launch: the buffer read back (stream finished first), the
 * events in device nanoseconds; *out points into t. */
int gpu_trace_read(struct gpu_trace *t, hipStream_t stream, struct fgo_trace_rank **out,
		   char *err, size_t len);

#endif
