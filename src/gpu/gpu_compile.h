/* gpu_compile.h: one configuration compiled into the kernel cache, no GPU
 * needed: the checks the GPU backend's prepare makes before it compiles (the
 * algorithm has a kernel, the launch shape fits) and then the JIT
 * (gpu_jit.c). Shared by `fgobench compile` and the backend's precompile
 * pass, so both fill the cache under the keys prepare looks up. Built with
 * GPU=cuda|hip only. */
#ifndef FGO_GPU_COMPILE_H
#define FGO_GPU_COMPILE_H

#include <stddef.h>

#include "algo.h"
#include "config.h"
#include "gpu/gpu_shape.h"

/* What became of one configuration. */
enum gpu_compile_status {
	GPU_COMPILE_COMPILED = 0, /* compiled now and written to the cache */
	GPU_COMPILE_CACHED = 1,   /* already in the cache */
	GPU_COMPILE_SKIPPED = 2,  /* the algorithm has no GPU kernel in this build */
	GPU_COMPILE_INVALID = 3,  /* the launch shape is refused (gpu_shape_check) */
	GPU_COMPILE_ERROR = 4,    /* the compiler rejected the kernel */
	GPU_COMPILE_FAILED = 5,   /* could not try: out of memory, no compiler */
};

struct gpu_compiled {
	enum gpu_compile_status status;
	struct gpu_shape shape;  /* launch shape (valid from INVALID's check on) */
	int registers;           /* per thread of fgo_main, read from the image (0: unknown);
				    on AMD its arch VGPRs */
	int amd;                 /* the image is an AMDGPU code object: the fields below are read */
	int agprs;               /* AMD: accumulation VGPRs a lane */
	int scratch;             /* AMD: scratch bytes a lane (spills, stack) */
	int lds;                 /* AMD: LDS bytes a workgroup, static + dynamic */
	int waves;               /* AMD: wavefronts a SIMD holds (gpu_amd_waves_per_simd; 0: none fit) */
	size_t bytes;            /* size of the image (0: none) */
	double seconds;          /* spent compiling, or reading the cache */
	void *image;             /* the cubin / code object when keep_image (malloc'd) */
};

/* "compiled", "cached", "skipped", "invalid", "error", "failed". */
const char *gpu_compile_status_name(enum gpu_compile_status s);

/* Compiles cfg's kernel of algo for arch (e.g. "sm_90a") into the kernel
 * cache (gpu_jit_cache_dir), or finds it there. smem_limit is the shared
 * memory per block the GPU allows (0: not checked, as with no GPU at hand).
 * With keep_image the image stays in out->image for the caller to free.
 * Fills *out in every case. Returns FGO_OK (COMPILED, CACHED); FGO_EUSAGE
 * (SKIPPED, INVALID, ERROR) with the reason in err, for ERROR the compiler
 * log's first lines; FGO_EFAIL (FAILED) with the reason in err. */
int gpu_compile_config(const struct fgo_algo *algo, const struct fgo_config *cfg,
		       const char *arch, int smem_limit, int keep_image, struct gpu_compiled *out,
		       char *err, size_t len);

/* The same with the trace hooks compiled in (kernels/trace.h: -DFGO_TRACE=1
 * -DFGO_TRACE_CAP=trace_cap) when trace_cap > 0; trace_cap 0 is
 * gpu_compile_config, whose defines and cache keys have no trace in them. */
int gpu_compile_config_traced(const struct fgo_algo *algo, const struct fgo_config *cfg,
			      const char *arch, int smem_limit, int keep_image, int trace_cap,
			      struct gpu_compiled *out, char *err, size_t len);

/* The events per CTA a traced GPU kernel keeps when nobody says. */
#define GPU_TRACE_CAP_DEFAULT 4096

/* Checks that this build's compiler can target arch. FGO_OK, or FGO_EUSAGE
 * with "unknown architecture ... (supported: ...)" in err. */
int gpu_compile_arch_check(const char *arch, char *err, size_t len);

/* Registers per thread of kernel `name` in an NVIDIA cubin (ELF), 0 when
 * the image is not one or has no such kernel. */
int gpu_cubin_registers(const void *image, size_t size, const char *name);

#endif
