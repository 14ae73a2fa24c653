/* gpu_check.h: the GPU backend's half of the check done where the data
 * lives (backend.h: inputs_fill, output_poison, reference_make,
 * reference_rows, output_compare, reference_bytes). The kernels are
 * kernels/check.hip, JIT-compiled for the device's arch on first use; the
 * reference is the vendor GEMM in true fp32 over the whole K, kept on the
 * device (outside the heap) until the next reference_make. Built with
 * GPU=cuda|hip; backend_gpu.c wraps these as its members, passing this
 * rank's heap base (its own device allocation).
 *
 * Every function returns FGO_OK or FGO_EFAIL (reference_make also
 * FGO_EUSAGE) with a one-line reason in err, and has finished its work on
 * the stream when it returns (peers read the inputs right after). */
#ifndef FGO_GPU_CHECK_H
#define FGO_GPU_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "algo.h"
#include "backend/check.h"
#include "config.h"
#include "hip_port.h"

struct gpu_check;
struct gpu_vendor;

/* Per-rank state on the caller's device: kernels go on stream, the
 * reference's GEMM through vendor (whose BLAS works on that stream too),
 * grids sized for sms multiprocessors, code compiled for arch. Compiles
 * nothing yet. */
int gpu_check_open(struct gpu_check **out, const char *arch, int sms, hipStream_t stream,
		   struct gpu_vendor *vendor, char *err, size_t len);
void gpu_check_close(struct gpu_check *c); /* NULL is fine */

/* A test hook: enqueues a spin of ns nanoseconds on the check's stream
 * (the runs' stream), see FGOBENCH_PLANT_SLOW_NS in src/gpu/backend_gpu.c. */
int gpu_check_spin(struct gpu_check *c, unsigned long long ns, char *err, size_t len);

/* lay->a and lay->b at heap + their offsets, in cfg->dtype. */
int gpu_check_inputs_fill(struct gpu_check *c, char *heap, const struct fgo_config *cfg,
			  const struct fgo_layout *lay, uint64_t seed, char *err, size_t len);
/* lay->c.rows x lay->c.ld elements at heap + lay->c.offset. */
int gpu_check_output_poison(struct gpu_check *c, char *heap, const struct fgo_config *cfg,
			    const struct fgo_layout *lay, char *err, size_t len);
int gpu_check_reference_make(struct gpu_check *c, const struct fgo_config *cfg,
			     const struct fgo_layout *lay, uint64_t seed, char *err, size_t len);
int gpu_check_reference_rows(struct gpu_check *c, const long *rows, long count, float *want,
			     float *scale, char *err, size_t len);
/* FGO_OK when the comparison ran (res->bad counts the wrong elements),
 * FGO_EFAIL when it could not (no reference of lay->c kept, a GPU error). */
int gpu_check_output_compare(struct gpu_check *c, const char *heap, const struct fgo_config *cfg,
			     const struct fgo_layout *lay, double tol, struct fgo_check *res,
			     char *err, size_t len);
double gpu_check_reference_bytes(const struct fgo_config *cfg, const struct fgo_layout *lay);

#endif
