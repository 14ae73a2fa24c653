/* gpu_telemetry.h: clocks, temperature and power of one NVIDIA GPU through
 * NVML, loaded with dlopen("libnvidia-ml.so.1") when opened: no link-time
 * dependency, so a machine without the driver's NVML still runs fgobench
 * (telemetry is then not stored). The device is found by the PCI bus id of
 * the CUDA device, so CUDA_VISIBLE_DEVICES renumbering cannot pick the
 * wrong one. Nothing here forks or runs nvidia-smi: that is unsafe once
 * CUDA is initialised. */
#ifndef FGO_GPU_TELEMETRY_H
#define FGO_GPU_TELEMETRY_H

#include <stddef.h>

#include "backend/backend.h"

struct gpu_nvml;

/* Opens NVML for CUDA device `device` (as numbered by the CUDA runtime).
 * Returns FGO_OK with *out set, or FGO_EFAIL with *out NULL and err saying
 * why (no libnvidia-ml.so.1, NVML would not start, no such device). */
int gpu_telemetry_open(int device, struct gpu_nvml **out, char *err, size_t len);

/* Reads the SM clock and the memory clock (MHz), the GPU temperature (C)
 * and the board power (W, from NVML's mW) now. A quantity NVML does not
 * give for this device is 0. Returns FGO_OK when at least one was read,
 * FGO_EFAIL when none was. */
int gpu_telemetry_read(struct gpu_nvml *n, struct fgo_telemetry *out);

/* Shuts NVML down for this handle and unloads it; NULL is fine. */
void gpu_telemetry_close(struct gpu_nvml *n);

#endif
