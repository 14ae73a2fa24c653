/* gpu_trace.c: the device buffer of a traced launch (see gpu_trace.h). */
#include "gpu/gpu_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"

#define CHECK FGO_HIP_CHECK

/* The module global fgo_trace_buf (kernels/trace.h) = buf. */
static int set_trace_global(hipModule_t module, char *buf)
{
#if defined(FGO_GPU_CUDA)
	CUdeviceptr at = 0;
	size_t bytes = 0;
	if (cuModuleGetGlobal(&at, &bytes, module, "fgo_trace_buf") != CUDA_SUCCESS ||
	    bytes != sizeof buf)
		return FGO_EFAIL;
	return cuMemcpyHtoD(at, &buf, sizeof buf) == CUDA_SUCCESS ? FGO_OK : FGO_EFAIL;
#else
	hipDeviceptr_t at = 0;
	size_t bytes = 0;
	if (hipModuleGetGlobal(&at, &bytes, module, "fgo_trace_buf") != hipSuccess ||
	    bytes != sizeof buf)
		return FGO_EFAIL;
	return hipMemcpyHtoD(at, &buf, sizeof buf) == hipSuccess ? FGO_OK : FGO_EFAIL;
#endif
}

int gpu_trace_open(struct gpu_trace *t, hipModule_t module, int rank, int ctas, int cap,
		   char *err, size_t len)
{
	memset(t, 0, sizeof *t);
	t->tr.rank = rank;
	t->tr.ctas = ctas;
	t->tr.cap = cap;
	t->bytes = FGO_TRACE_HEAD_BYTES + (size_t)ctas * sizeof(struct fgo_trace_cta) +
		   (size_t)ctas * (size_t)cap * sizeof(struct fgo_trace_event);
	t->host = malloc(t->bytes);
	if (!t->host || hipMalloc((void **)&t->dev, t->bytes) != hipSuccess ||
	    hipMemset(t->dev, 0, t->bytes) != hipSuccess) {
		snprintf(err, len, "no memory for the trace of %d CTAs x %d events (%zu bytes)", ctas,
			 cap, t->bytes);
		gpu_trace_close(t);
		return FGO_EFAIL;
	}
	if (set_trace_global(module, t->dev) != FGO_OK ||
	    fgo_cu(hipModuleGetFunction(&t->ref, module, "fgo_trace_ref")) != hipSuccess) {
		snprintf(err, len, "the traced kernel has no fgo_trace_buf or fgo_trace_ref"
			 " (kernels/trace.h)");
		gpu_trace_close(t);
		return FGO_EFAIL;
	}
	return FGO_OK;
}

void gpu_trace_close(struct gpu_trace *t)
{
	if (t->dev)
		hipFree(t->dev);
	free(t->host);
	memset(t, 0, sizeof *t);
}

int gpu_trace_begin(struct gpu_trace *t, hipStream_t stream, char *err, size_t len)
{
	CHECK(hipMemsetAsync(t->dev, 0,
			     FGO_TRACE_HEAD_BYTES + (size_t)t->tr.ctas * sizeof(struct fgo_trace_cta),
			     stream),
	      "clearing the trace");
	fgo_drv_result r = hipModuleLaunchKernel(t->ref, 1, 1, 1, 1, 1, 1, 0, stream, NULL, NULL);
	if (fgo_cu(r) != hipSuccess) {
		snprintf(err, len, "launching fgo_trace_ref failed: %s", fgo_cu_text(r));
		return FGO_EFAIL;
	}
	return FGO_OK;
}

int gpu_trace_read(struct gpu_trace *t, hipStream_t stream, struct fgo_trace_rank **out,
		   char *err, size_t len)
{
	CHECK(hipStreamSynchronize(stream), "finishing the traced launch");
	CHECK(hipMemcpy(t->host, t->dev, t->bytes, hipMemcpyDeviceToHost), "reading the trace");
	struct fgo_trace_rank *r = &t->tr;
	memcpy(&r->ref_ns, t->host, sizeof r->ref_ns);
	r->head = (struct fgo_trace_cta *)(void *)(t->host + FGO_TRACE_HEAD_BYTES);
	r->ev = (struct fgo_trace_event *)(void *)(t->host + FGO_TRACE_HEAD_BYTES +
						   (size_t)r->ctas * sizeof(struct fgo_trace_cta));
	for (int c = 0; c < r->ctas; c++) /* SM clocks to device nanoseconds */
		fgo_trace_to_ns(&r->head[c], r->ev + (size_t)c * (size_t)r->cap,
				(int)(r->head[c].count < (unsigned int)r->cap ? r->head[c].count
									: (unsigned int)r->cap));
	*out = r;
	return FGO_OK;
}
