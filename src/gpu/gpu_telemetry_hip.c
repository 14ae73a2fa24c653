/* gpu_telemetry_hip.c: gpu_telemetry.h on AMD, through ROCm SMI
 * (librocm_smi64) loaded with dlopen when opened, as gpu_telemetry.c loads
 * NVML: a machine without it still runs fgobench, without telemetry. The
 * HIP device is matched to its ROCm SMI index by PCI address, so
 * HIP_VISIBLE_DEVICES renumbering cannot pick the wrong one. The few types
 * and entry points used are declared here as in rocm_smi.h: every call
 * returns an rsmi_status_t, 0 being success, and the enums are passed as
 * int. struct gpu_nvml (the header's name) holds the ROCm SMI state here.
 * HIP builds only. */
#if defined(FGO_GPU_HIP)
#include "gpu/gpu_telemetry.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "hip_port.h"

typedef int rsmi_status; /* rsmi_status_t: 0 is RSMI_STATUS_SUCCESS */

enum {
	RSMI_CLK_TYPE_SYS = 0,      /* rsmi_clk_type_t: the shader (SM) clock */
	RSMI_CLK_TYPE_MEM = 4,
	RSMI_TEMP_TYPE_EDGE = 0,    /* rsmi_temperature_type_t */
	RSMI_TEMP_TYPE_JUNCTION = 1,
	RSMI_TEMP_CURRENT = 0,      /* rsmi_temperature_metric_t */
};

/* rsmi_frequencies_t is read into this, zeroed first: it is larger than
 * either layout the struct has had (see current_mhz). */
#define FREQ_WORDS 64

struct rsmi_api {
	rsmi_status (*init)(uint64_t flags);
	rsmi_status (*shut_down)(void);
	rsmi_status (*num_devices)(uint32_t *n);               /* rsmi_num_monitor_devices */
	rsmi_status (*pci_id)(uint32_t dev, uint64_t *bdfid);  /* rsmi_dev_pci_id_get */
	rsmi_status (*clock)(uint32_t dev, int type, void *freqs);
	rsmi_status (*temperature)(uint32_t dev, int sensor, int metric, int64_t *millicelsius);
	rsmi_status (*power_ave)(uint32_t dev, uint32_t sensor, uint64_t *microwatts);
	rsmi_status (*socket_power)(uint32_t dev, uint64_t *microwatts); /* optional (MI300) */
	rsmi_status (*status_string)(rsmi_status s, const char **text);  /* optional */
};

struct gpu_nvml {
	void *lib;
	struct rsmi_api api;
	uint32_t dev; /* ROCm SMI's index of the HIP device */
};

/* The names ROCm SMI is found under: ROCm 6 (.so.7), ROCm 5 (.so.5), the
 * development link, then ROCm's default folder. */
static const char *const rsmi_files[] = {
	"librocm_smi64.so.7", "librocm_smi64.so.6", "librocm_smi64.so.5", "librocm_smi64.so",
	"/opt/rocm/lib/librocm_smi64.so.7", "/opt/rocm/lib/librocm_smi64.so.5", NULL,
};

static const char *rsmi_text(const struct gpu_nvml *n, rsmi_status r)
{
	const char *t = NULL;
	if (n->api.status_string && n->api.status_string(r, &t) == 0 && t)
		return t;
	return "error";
}

/* Frequencies in Hz a GPU clock can have. */
static int plausible_hz(uint64_t hz)
{
	return hz >= 1000000ull && hz <= 100000000000ull;
}

/* The current clock in MHz from an rsmi_frequencies_t in f, 0 when it
 * reads as neither layout: {u32 num_supported; u32 current; u64 frequency[32]}
 * in older ROCm SMI, {bool has_deep_sleep; u32 num_supported; u32 current;
 * u64 frequency[33]} in newer. Read as the old one, the new one has current
 * >= num_supported (and the reverse), so the two cannot be confused. */
static double current_mhz(const uint64_t *f)
{
	uint32_t w[3];
	memcpy(w, f, sizeof w);
	if (w[0] >= 1 && w[0] <= 33 && w[1] < w[0] && plausible_hz(f[1 + w[1]]))
		return (double)f[1 + w[1]] / 1e6;
	if (w[1] >= 1 && w[1] <= 33 && w[2] < w[1] && plausible_hz(f[2 + w[2]]))
		return (double)f[2 + w[2]] / 1e6;
	return 0;
}

/* ROCm SMI's index of the GPU at PCI address bus_id ("0000:c1:00.0"), by
 * its BDFID: domain << 32 | bus << 8 | device << 3 | function (bits 28-31
 * may hold an MI300 partition number, which is ignored). */
static int find_device(struct gpu_nvml *n, const char *bus_id, uint32_t *dev)
{
	unsigned int domain, bus, slot, fn;
	uint32_t count = 0;
	if (sscanf(bus_id, "%x:%x:%x.%x", &domain, &bus, &slot, &fn) != 4 ||
	    n->api.num_devices(&count) != 0)
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t id = 0;
		if (n->api.pci_id(i, &id) == 0 && (id >> 32) == domain && ((id >> 8) & 0xff) == bus &&
		    ((id >> 3) & 0x1f) == slot && (id & 0x7) == fn) {
			*dev = i;
			return 0;
		}
	}
	return -1;
}

int gpu_telemetry_open(int device, struct gpu_nvml **out, char *err, size_t len)
{
	char bus_id[32] = "";
	rsmi_status r;
	struct gpu_nvml *n = calloc(1, sizeof *n);

	*out = NULL;
	if (!n) {
		snprintf(err, len, "out of memory");
		return FGO_EFAIL;
	}
	for (const char *const *f = rsmi_files; *f && !n->lib; f++)
		n->lib = dlopen(*f, RTLD_NOW | RTLD_LOCAL);
	if (!n->lib) {
		snprintf(err, len, "librocm_smi64.so (ROCm SMI, part of ROCm) was not found");
		free(n);
		return FGO_EFAIL;
	}
	*(void **)&n->api.init = dlsym(n->lib, "rsmi_init");
	*(void **)&n->api.shut_down = dlsym(n->lib, "rsmi_shut_down");
	*(void **)&n->api.num_devices = dlsym(n->lib, "rsmi_num_monitor_devices");
	*(void **)&n->api.pci_id = dlsym(n->lib, "rsmi_dev_pci_id_get");
	*(void **)&n->api.clock = dlsym(n->lib, "rsmi_dev_gpu_clk_freq_get");
	*(void **)&n->api.temperature = dlsym(n->lib, "rsmi_dev_temp_metric_get");
	*(void **)&n->api.power_ave = dlsym(n->lib, "rsmi_dev_power_ave_get");
	*(void **)&n->api.socket_power = dlsym(n->lib, "rsmi_dev_current_socket_power_get");
	*(void **)&n->api.status_string = dlsym(n->lib, "rsmi_status_string");
	if (!n->api.init || !n->api.shut_down || !n->api.num_devices || !n->api.pci_id) {
		snprintf(err, len, "librocm_smi64.so lacks rsmi_init, rsmi_num_monitor_devices"
			 " or rsmi_dev_pci_id_get");
		dlclose(n->lib);
		free(n);
		return FGO_EFAIL;
	}
	if ((r = n->api.init(0)) != 0) {
		snprintf(err, len, "ROCm SMI would not start: %s", rsmi_text(n, r));
		dlclose(n->lib);
		free(n);
		return FGO_EFAIL;
	}
	if (hipDeviceGetPCIBusId(bus_id, (int)sizeof bus_id, device) != hipSuccess) {
		snprintf(err, len, "no PCI bus id for HIP device %d", device);
		gpu_telemetry_close(n);
		return FGO_EFAIL;
	}
	if (find_device(n, bus_id, &n->dev) != 0) {
		snprintf(err, len, "ROCm SMI does not know the GPU at %s (HIP device %d)", bus_id,
			 device);
		gpu_telemetry_close(n);
		return FGO_EFAIL;
	}
	*out = n;
	return FGO_OK;
}

int gpu_telemetry_read(struct gpu_nvml *n, struct fgo_telemetry *out)
{
	uint64_t freqs[FREQ_WORDS], uw = 0;
	int64_t mc = 0;
	int got = 0;

	memset(out, 0, sizeof *out);
	if (!n)
		return FGO_EFAIL;
	if (n->api.clock) {
		memset(freqs, 0, sizeof freqs);
		if (n->api.clock(n->dev, RSMI_CLK_TYPE_SYS, freqs) == 0 &&
		    (out->sm_clock_mhz = current_mhz(freqs)) > 0)
			got++;
		memset(freqs, 0, sizeof freqs);
		if (n->api.clock(n->dev, RSMI_CLK_TYPE_MEM, freqs) == 0 &&
		    (out->mem_clock_mhz = current_mhz(freqs)) > 0)
			got++;
	}
	/* the edge sensor where there is one (MI200), else the hottest spot (MI300) */
	if (n->api.temperature &&
	    (n->api.temperature(n->dev, RSMI_TEMP_TYPE_EDGE, RSMI_TEMP_CURRENT, &mc) == 0 ||
	     n->api.temperature(n->dev, RSMI_TEMP_TYPE_JUNCTION, RSMI_TEMP_CURRENT, &mc) == 0)) {
		out->temp_c = (double)mc / 1000.0;
		got++;
	}
	if ((n->api.power_ave && n->api.power_ave(n->dev, 0, &uw) == 0 && uw) ||
	    (n->api.socket_power && n->api.socket_power(n->dev, &uw) == 0 && uw)) {
		out->power_w = (double)uw / 1e6;
		got++;
	}
	return got ? FGO_OK : FGO_EFAIL;
}

void gpu_telemetry_close(struct gpu_nvml *n)
{
	if (!n)
		return;
	n->api.shut_down();
	dlclose(n->lib);
	free(n);
}

#endif
