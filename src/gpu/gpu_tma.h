/* gpu_tma.h: tensor maps for the Hopper copy engine (TMA), which the wgmma
 * core (kernels/core_wgmma.h) loads its tiles with. A map describes one
 * row-major matrix of 16-bit elements in device memory and the box one
 * copy moves; the kernel gets it by value as a __grid_constant__ parameter.
 * NVIDIA only: on AMD every call says there is no TMA. */
#ifndef FGO_GPU_TMA_H
#define FGO_GPU_TMA_H

#include <stddef.h>

#include "algo.h"
#include "config.h"

/* CUtensorMap's size and alignment, without the driver header here. */
struct gpu_tma_map {
	_Alignas(64) unsigned char bytes[128];
};

/* Describes rows x cols elements of dtype at base (16-byte aligned), rows
 * `pitch` elements apart (pitch * element size a multiple of 16), copied in
 * boxes of box_rows x box_cols columns (64, 32 or 16: rows of 128, 64 or 32
 * bytes of 16-bit elements) written to shared memory with the swizzle of
 * that width; parts of a box outside the matrix read as zeros. FGO_OK, or
 * FGO_EUSAGE with a reason. */
int gpu_tma_map_rows(struct gpu_tma_map *map, void *base, enum fgo_dtype dtype, long rows,
		     long cols, long pitch, int box_rows, int box_cols, char *err, size_t len);

/* The wgmma core's tensor maps of one configuration on rank `rank` of
 * `world` (bases: every rank's heap as this rank addresses it), in kernel
 * parameter order: A per block, B, C per block (see gpu_tma.c). */
int gpu_tma_wgmma_maps(const struct fgo_algo *algo, const struct fgo_config *cfg,
		       const struct fgo_layout *lay, char *const *bases, int rank, int world,
		       struct gpu_tma_map **out, char *err, size_t len);

#endif
