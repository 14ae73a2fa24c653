/* backend.c: picks a backend by name. The GPU backend is linked in only by
 * GPU builds; a weak reference keeps CPU-only builds linking. */
#include <stddef.h>
#include <string.h>

#include "backend.h"

extern const struct fgo_backend fgo_backend_gpu __attribute__((weak));

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
