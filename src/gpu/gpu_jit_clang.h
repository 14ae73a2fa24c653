/* gpu_jit_clang.h: HIP kernels compiled by clang alone, without ROCm
 * (Debian's clang-19: `-x hip -nogpulib -nogpuinc --cuda-device-only`,
 * kernels/hip_bare.h in place of the HIP headers), for AMD targets hiprtc
 * cannot reach here (gfx942 needs a newer LLVM than Debian's HIP 5.2). The
 * image is a linked code object, what hipModuleLoadData takes. */
#ifndef FGO_GPU_JIT_CLANG_H
#define FGO_GPU_JIT_CLANG_H

#include <stddef.h>

/* The AMD compiler of this process: "hiprtc", or a clang++ command. Chosen
 * once: $FGOBENCH_HIP_COMPILER when set ("hiprtc", or a clang++ to run);
 * else hiprtc where ROCm is installed (/opt/rocm); else the first of
 * clang++-19, clang++-20, clang++-18 on PATH; else hiprtc. */
const char *gpu_hip_compiler(void);

/* What identifies the compiler in the kernel cache key: clang's version
 * line ("" when it cannot be run). */
const char *gpu_clang_version(const char *clang);

/* Compiles `text` (named `source`, kernels/ headers names[i] with texts[i]
 * beside it) with options opts (the -D options, blank-separated) for arch
 * with clang. FGO_OK with a malloc'd *image of *size bytes; FGO_EUSAGE with
 * the compiler's first error lines in err; FGO_EFAIL when clang could not
 * be run. */
int gpu_clang_compile(const char *clang, const char *source, const char *text, int n_headers,
		      const char **names, const char **texts, const char *opts,
		      const char *arch, void **image, size_t *size, char *err, size_t len);

#endif
