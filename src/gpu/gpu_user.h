/* gpu_user.h: a user kernel's GPU form on the GPU backend (gpu_user.c):
 * compiled with NVRTC / hiprtc like the shipped kernels (its text, the
 * tunables' macros, FGO_DTYPE, FGO_MODE; kernels/'s headers and the
 * manifest's "headers" offered to it), loaded per mode, launched with the
 * manifest's grid, block and shared memory and one struct fgo_user_args
 * (kernels/fgo_user.h) by value. Built with GPU=cuda|hip only. */
#ifndef FGO_GPU_USER_H
#define FGO_GPU_USER_H

#include <stddef.h>

#include "algo.h"
#include "gpu/gpu_compile.h"
#include "hip_port.h"
#include "user/user.h"

/* Compiles cfg's GPU form for arch into the kernel cache, every mode the
 * kernel has (the fused launch's outcome in *out, its image kept with
 * keep_image). smem_limit: the device's dynamic shared memory a CTA (0:
 * not checked). FGO_OK; FGO_EUSAGE (no GPU form: SKIPPED; a launch the
 * device cannot take: INVALID; the compiler rejected it: ERROR, its log in
 * err) or FGO_EFAIL, as gpu_compile_config. */
int gpu_user_compile(const struct fgo_user_kernel *k, const struct fgo_config *cfg,
		     const char *arch, int smem_limit, int keep_image, struct gpu_compiled *out,
		     char *err, size_t len);

/* A prepared launch: a module and function per mode, the launch shape. */
struct gpu_user_launch {
	hipModule_t module[3];
	hipFunction_t fn[3];
	unsigned int grid[3], block[3], smem;
	int modes; /* 3, or 1 without "modes" (fused only) */
};

/* Compiles (or finds) and loads cfg's GPU form into *out (malloc'd;
 * gpu_user_free it). registers: of the fused function. FGO_OK, FGO_EUSAGE
 * (stored as invalid) or FGO_EFAIL with the reason. */
int gpu_user_prepare(const struct fgo_user_kernel *k, const struct fgo_config *cfg,
		     const char *arch, int smem_limit, struct gpu_user_launch **out, int *registers,
		     char *reason, size_t len);

/* Enqueues one launch of mode on stream with the contract's argument.
 * heap_bases: the device's table of every rank's heap base; status: this
 * rank's status words (device). FGO_OK or FGO_EFAIL. */
int gpu_user_enqueue(const struct gpu_user_launch *l, const struct fgo_config *cfg,
		     const struct fgo_layout *lay, int mode, int rank, int world, unsigned int epoch,
		     char *const *heap_bases, unsigned int *status, double timeout_s,
		     hipStream_t stream, char *err, size_t len);

void gpu_user_free(struct gpu_user_launch *l);

#endif
