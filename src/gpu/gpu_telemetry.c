/* gpu_telemetry.c: NVML through dlopen (see gpu_telemetry.h). The few NVML
 * types and entry points used are declared here, as in nvml.h (which the
 * CUDA toolkit does not always ship): every call returns an nvmlReturn_t,
 * 0 being NVML_SUCCESS, and the enums are passed as int. CUDA builds; the
 * HIP build reads ROCm SMI instead (gpu_telemetry_hip.c). */
#if !defined(FGO_GPU_HIP)
#include "gpu/gpu_telemetry.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "fgo.h"

typedef int nvml_return;               /* nvmlReturn_t */
typedef struct nvml_device *nvml_device; /* nvmlDevice_t */

enum {
	NVML_SUCCESS = 0,
	NVML_CLOCK_SM = 1,         /* nvmlClockType_t */
	NVML_CLOCK_MEM = 2,
	NVML_TEMPERATURE_GPU = 0,  /* nvmlTemperatureSensors_t */
};

struct nvml_api {
	nvml_return (*init)(void);                                  /* nvmlInit_v2 */
	nvml_return (*shutdown)(void);                              /* nvmlShutdown */
	nvml_return (*by_pci_bus_id)(const char *id, nvml_device *dev); /* ..._v2 */
	nvml_return (*clock_info)(nvml_device dev, int type, unsigned int *mhz);
	nvml_return (*temperature)(nvml_device dev, int sensor, unsigned int *celsius);
	nvml_return (*power_usage)(nvml_device dev, unsigned int *milliwatts);
	const char *(*error_string)(nvml_return r);
};

struct gpu_nvml {
	void *lib;
	struct nvml_api api;
	nvml_device dev;
};

/* The newest name of an entry point, else the older one. */
static void *symbol(void *lib, const char *name, const char *older)
{
	void *p = dlsym(lib, name);
	return p || !older ? p : dlsym(lib, older);
}

static const char *nvml_text(const struct gpu_nvml *n, nvml_return r)
{
	return n->api.error_string ? n->api.error_string(r) : "error";
}

int gpu_telemetry_open(int device, struct gpu_nvml **out, char *err, size_t len)
{
	char bus_id[32] = "";
	nvml_return r;
	struct gpu_nvml *n = calloc(1, sizeof *n);

	*out = NULL;
	if (!n) {
		snprintf(err, len, "out of memory");
		return FGO_EFAIL;
	}
	n->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!n->lib) {
		snprintf(err, len, "libnvidia-ml.so.1 (NVML, part of the driver) was not found");
		free(n);
		return FGO_EFAIL;
	}
	*(void **)&n->api.init = symbol(n->lib, "nvmlInit_v2", "nvmlInit");
	*(void **)&n->api.shutdown = symbol(n->lib, "nvmlShutdown", NULL);
	*(void **)&n->api.by_pci_bus_id =
		symbol(n->lib, "nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId");
	*(void **)&n->api.clock_info = symbol(n->lib, "nvmlDeviceGetClockInfo", NULL);
	*(void **)&n->api.temperature = symbol(n->lib, "nvmlDeviceGetTemperature", NULL);
	*(void **)&n->api.power_usage = symbol(n->lib, "nvmlDeviceGetPowerUsage", NULL);
	*(void **)&n->api.error_string = symbol(n->lib, "nvmlErrorString", NULL);
	if (!n->api.init || !n->api.shutdown || !n->api.by_pci_bus_id) {
		snprintf(err, len, "libnvidia-ml.so.1 lacks nvmlInit or nvmlDeviceGetHandleByPciBusId");
		dlclose(n->lib);
		free(n);
		return FGO_EFAIL;
	}
	if ((r = n->api.init()) != NVML_SUCCESS) {
		snprintf(err, len, "NVML would not start: %s", nvml_text(n, r));
		dlclose(n->lib);
		free(n);
		return FGO_EFAIL;
	}
	if (cudaDeviceGetPCIBusId(bus_id, (int)sizeof bus_id, device) != cudaSuccess) {
		snprintf(err, len, "no PCI bus id for CUDA device %d", device);
		gpu_telemetry_close(n);
		return FGO_EFAIL;
	}
	if ((r = n->api.by_pci_bus_id(bus_id, &n->dev)) != NVML_SUCCESS) {
		snprintf(err, len, "NVML does not know the GPU at %s (CUDA device %d): %s", bus_id,
			 device, nvml_text(n, r));
		gpu_telemetry_close(n);
		return FGO_EFAIL;
	}
	*out = n;
	return FGO_OK;
}

int gpu_telemetry_read(struct gpu_nvml *n, struct fgo_telemetry *out)
{
	unsigned int sm = 0, mem = 0, temp = 0, mw = 0;
	int got = 0;

	memset(out, 0, sizeof *out);
	if (!n)
		return FGO_EFAIL;
	if (n->api.clock_info && n->api.clock_info(n->dev, NVML_CLOCK_SM, &sm) == NVML_SUCCESS) {
		out->sm_clock_mhz = sm;
		got++;
	}
	if (n->api.clock_info && n->api.clock_info(n->dev, NVML_CLOCK_MEM, &mem) == NVML_SUCCESS) {
		out->mem_clock_mhz = mem;
		got++;
	}
	if (n->api.temperature &&
	    n->api.temperature(n->dev, NVML_TEMPERATURE_GPU, &temp) == NVML_SUCCESS) {
		out->temp_c = temp;
		got++;
	}
	if (n->api.power_usage && n->api.power_usage(n->dev, &mw) == NVML_SUCCESS) {
		out->power_w = mw / 1000.0;
		got++;
	}
	return got ? FGO_OK : FGO_EFAIL;
}

void gpu_telemetry_close(struct gpu_nvml *n)
{
	if (!n)
		return;
	n->api.shutdown();
	dlclose(n->lib);
	free(n);
}

#endif
