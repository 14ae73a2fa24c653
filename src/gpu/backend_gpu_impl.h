/* backend_gpu_impl.h: what backend_gpu.c and backend_gpu_calib.c share and
 * nobody else needs: the backend's context and runnable, and the
 * calibration operations the backend's table points at. */
#ifndef FGO_BACKEND_GPU_IMPL_H
#define FGO_BACKEND_GPU_IMPL_H

#include "backend/backend.h"
#include "fgo.h"
#include "gpu/gpu_engine.h"
#include "gpu/gpu_trace.h"
#include "hip_port.h"

struct gpu_vendor;
struct gpu_nvml;
struct gpu_check;
struct gpu_tma_map;
struct fgo_engine_copy;
struct gpu_user_launch;

struct fgo_backend_ctx {
	int device, sms, smem_optin;
	size_t l2_bytes;
	char *l2_flush; /* 2 x L2 bytes, written before each timed launch of a small problem */
	char arch[16];
	hipStream_t stream;
	hipEvent_t start, stop;
	struct gpu_vendor *vendor;
	struct gpu_nvml *nvml; /* clocks, temperature, power; NULL: not stored */
	struct gpu_check *check; /* the check on the device: kernels, the kept reference */
	struct gpu_engine engine; /* the copy engine's stream, for families that use it */
};


struct fgo_runnable {
	const struct fgo_algo *algo;
	struct fgo_config cfg;
	struct fgo_layout lay;
	struct fgo_heap *heap;
	hipModule_t module;
	hipFunction_t main;
	unsigned int grid, threads, smem;
	void *scratch;            /* baseline buffers, allocated on first use */
	struct gpu_tma_map *maps; /* the wgmma core's tensor maps (wgmma_maps; NULL: other cores) */
	struct gpu_trace trace;   /* prepare_traced's buffer (trace.dev NULL: not traced) */
	struct fgo_engine_copy *copies; /* the copy engine's part of a launch (n_copies; NULL: none) */
	int n_copies;
	struct gpu_user_launch *user; /* a user kernel's modules and launch (gpu_user.h; NULL: none) */
};

/* The calibration of backend.h on this rank's device (backend_gpu_calib.c:
 * gpu_calibrate.c's measurements on the context's stream and events). */
int gpu_matrix_peak(struct fgo_backend_ctx *ctx, enum fgo_dtype dtype, double *tflops, char *err,
		    size_t len);
int gpu_link_egress(struct fgo_backend_ctx *ctx, struct fgo_heap *heap, double *gbps, char *err,
		    size_t len);
int gpu_link_bandwidth(struct fgo_backend_ctx *ctx, struct fgo_heap *heap, double *sm_gbps,
		       double *ce_gbps, char *err, size_t len);
int gpu_memory_bandwidth(struct fgo_backend_ctx *ctx, double *gbps, char *err, size_t len);
int gpu_read_floor(struct fgo_backend_ctx *ctx, const size_t *bytes, int n, int reps,
		   double *seconds, char *method, size_t method_len, char *err, size_t len);
int gpu_collective_curve(struct fgo_backend_ctx *ctx, struct fgo_heap *heap,
			 enum fgo_collective kind, const size_t *bytes, int n, int reps,
			 double *seconds, char *method, size_t method_len, char *err, size_t len);

#endif
