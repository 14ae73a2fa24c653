/* backend.c: picks a backend by name. The GPU backend exists only in GPU
 * builds (make GPU=cuda|hip), which reference it strongly so the linker
 * pulls it out of the archive; CPU builds see a weak, null reference. */
#include <stddef.h>
#include <string.h>

#include "backend/backend.h"

#if defined(FGO_GPU_CUDA) || defined(FGO_GPU_HIP)
extern const struct fgo_backend fgo_backend_gpu;
#else
extern const struct fgo_backend fgo_backend_gpu __attribute__((weak));
#endif

const struct fgo_backend *backend_find(const char *name)
{
	const struct fgo_backend *gpu = &fgo_backend_gpu;

	if (!name || strcmp(name, "auto") == 0)
		return gpu && gpu->available() ? gpu : &fgo_backend_cpu;
	if (strcmp(name, "cpu") == 0)
		return &fgo_backend_cpu;
	if (strcmp(name, "gpu") == 0)
		return gpu;
	return NULL;
}
