/* backend_gpu_calib.c: the GPU backend's calibration operations
 * (backend.h: matrix peak, link and memory bandwidth, read floor, the
 * vendor collective's curve), gpu_calibrate.c's measurements run on this
 * rank's device, stream and events. */
#include <stdio.h>

#include "gpu/backend_gpu_impl.h"
#include "gpu/gpu_calibrate.h"
#include "gpu/gpu_heap.h"
#include "gpu/gpu_vendor.h"

/* The calibration runs on this rank's device, stream and events. */
static struct gpu_calib_dev calib_dev(const struct fgo_backend_ctx *ctx)
{
	struct gpu_calib_dev d = { .device = ctx->device, .sms = ctx->sms, .arch = ctx->arch,
				   .stream = ctx->stream, .start = ctx->start, .stop = ctx->stop,
				   .l2_flush = ctx->l2_flush, .l2_bytes = ctx->l2_bytes };
	return d;
}

int gpu_matrix_peak(struct fgo_backend_ctx *ctx, enum fgo_dtype dtype, double *tflops, char *err,
		    size_t len)
{
	struct gpu_calib_dev d = calib_dev(ctx);
	return gpu_calib_matrix_peak(&d, dtype, GPU_CALIB_GEMM_SIZE, tflops, err, len);
}

int gpu_link_bandwidth(struct fgo_backend_ctx *ctx, struct fgo_heap *heap, double *sm_gbps,
		       double *ce_gbps, char *err, size_t len)
{
	struct gpu_calib_dev d = calib_dev(ctx);
	return gpu_calib_link_bandwidth(&d, heap, sm_gbps, ce_gbps, err, len);
}

/* As the curve: ranks on one GPU have no link between them to measure. */
int gpu_link_egress(struct fgo_backend_ctx *ctx, struct fgo_heap *heap, double *gbps, char *err,
		    size_t len)
{
	const struct gpu_heap *h = heap->priv;
	*gbps = 0;
	if (h->shared_gpu) {
		snprintf(err, len, "ranks share a GPU: no link between them to measure");
		return FGO_EUNAVAILABLE;
	}
	struct gpu_calib_dev d = calib_dev(ctx);
	return gpu_calib_link_egress(&d, heap, gbps, err, len);
}

/* The copy kernel of kernels/calibrate.hip (not hipMemcpy): what kernels reach. */
int gpu_memory_bandwidth(struct fgo_backend_ctx *ctx, double *gbps, char *err, size_t len)
{
	struct gpu_calib_dev d = calib_dev(ctx);
	return gpu_calib_memory_bandwidth(&d, GPU_CALIB_COPY_BYTES, gbps, err, len);
}

int gpu_read_floor(struct fgo_backend_ctx *ctx, const size_t *bytes, int n, int reps,
		   double *seconds, char *method, size_t method_len, char *err, size_t len)
{
	struct gpu_calib_dev d = calib_dev(ctx);
	return gpu_calib_read_floor(&d, bytes, n, reps, seconds, method, method_len, err, len);
}

/* The curve needs a real link: ranks on one GPU time-slice it, and their
 * "collective" is a copy within one device's memory (gpu_heap.c finds
 * them, as the baseline's refusal does). */
int gpu_collective_curve(struct fgo_backend_ctx *ctx, struct fgo_heap *heap,
			 enum fgo_collective kind, const size_t *bytes, int n, int reps,
			 double *seconds, char *method, size_t method_len, char *err, size_t len)
{
	struct gpu_heap *h = heap->priv;
	if (h->shared_gpu) {
		snprintf(err, len, "ranks share a GPU: no link between them to measure");
		return FGO_EUNAVAILABLE;
	}
	if (!h->coll) {
		snprintf(err, len, "%s was not found (%s)", gpu_vendor_ops.coll_name,
			 gpu_vendor_ops.coll_hint);
		return FGO_EUNAVAILABLE;
	}
	struct gpu_calib_dev d = calib_dev(ctx);
	int rc = gpu_calib_collective(&d, ctx->vendor, h->coll, heap->comm, kind, bytes, n, reps,
				      seconds, err, len);
	snprintf(method, method_len,
		 "%s %s, bf16, one GPU per rank: events around one call after an MPI barrier, the"
		 " slowest rank's best of %d after a warm-up",
		 gpu_vendor_ops.coll_name, fgo_collective_names[kind], reps);
	return rc;
}
