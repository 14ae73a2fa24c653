/* gpu_jit.h: run-time compilation of the embedded kernel sources with
 * NVRTC / hiprtc, and the on-disk kernel cache. Built with GPU=cuda|hip. */
#ifndef FGO_GPU_JIT_H
#define FGO_GPU_JIT_H

#include <stddef.h>

#include "algo.h"
#include "config.h"
#include "hip_port.h"

/* The -D options of cfg for algo's kernel: every tunable, the GEMM
 * dimensions of the family's tile space (algo_gemm_dims) and its variant switch. */
void gpu_jit_defines(const struct fgo_algo *algo, const struct fgo_config *cfg, char *out,
		     size_t len);

/* Compiles (or finds in the cache) kernels/`source` with defines for arch
 * (e.g. "sm_90a"). On success *image is a malloc'd cubin / code object of
 * *size bytes and *cached tells whether it came from the cache. A cache
 * entry is verified (length and hash); one that is damaged, or of an
 * fgobench before the check, is compiled again and replaced atomically,
 * with one note per process on stderr. Returns
 * FGO_OK, FGO_EUSAGE with the compiler log's first lines in err (the
 * configuration does not compile: stored as invalid), or FGO_EFAIL. */
int gpu_jit_compile(const char *source, const char *defines, const char *arch, void **image,
		    size_t *size, int *cached, char *err, size_t len);

/* The same for a source that is not embedded (a user kernel's GPU form):
 * source names it in messages, text is what is compiled, and the n_extra
 * headers extra_names / extra_texts are offered besides kernels/'s (by the
 * names the source includes them with). */
int gpu_jit_compile_text(const char *source, const char *text, int n_extra,
			 const char *const *extra_names, const char *const *extra_texts,
			 const char *defines, const char *arch, void **image, size_t *size,
			 int *cached, char *err, size_t len);

/* A helper kernel source of the tool's own (calibrate.hip, check.hip):
 * compiled (or found in the cache) with defines for arch and loaded into
 * *mod. FGO_OK, or FGO_EFAIL with the reason. */
int gpu_jit_load(const char *source, const char *defines, const char *arch, hipModule_t *mod,
		 char *err, size_t len);
/* Kernel `name` of mod (loaded from source, for the message). */
int gpu_jit_function(hipModule_t mod, const char *source, const char *name, hipFunction_t *fn,
		     char *err, size_t len);

/* The cache folder (kcache.h: $FGOBENCH_CACHE, else
 * $XDG_CACHE_HOME/fgobench, else ~/.cache/fgobench; never /tmp) into out,
 * made where missing and checked: the user's own, writable by nobody else.
 * FGO_OK, or FGO_EUSAGE naming the path and the fix. */
int gpu_jit_cache_dir(char *out, size_t len, char *err, size_t elen);

#endif
