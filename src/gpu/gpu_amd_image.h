/* gpu_amd_image.h: what an AMDGPU code object says about one of its
 * kernels (registers, LDS, scratch), read from its metadata note, and the
 * occupancy that follows from it on CDNA (gfx90a, gfx942). Pure: no GPU
 * and no ROCm needed; the image is what hiprtc or clang wrote. */
#ifndef FGO_GPU_AMD_IMAGE_H
#define FGO_GPU_AMD_IMAGE_H

#include <stddef.h>

struct gpu_amd_kernel {
	int vgprs;       /* .vgpr_count: all VGPRs a lane, arch + acc (one file on gfx90a/942) */
	int agprs;       /* .agpr_count: of which accumulation registers (AGPRs) */
	int sgprs;       /* .sgpr_count */
	int lds;         /* .group_segment_fixed_size: static LDS bytes (dynamic LDS comes on top) */
	int scratch;     /* .private_segment_fixed_size: scratch bytes a lane (0: no spill, no stack) */
	int vgpr_spills; /* .vgpr_spill_count */
	int sgpr_spills; /* .sgpr_spill_count */
};

/* Fills *k for kernel `name` of the code object image (an ELF with the
 * AMDGPU metadata note, code object v3 to v5). Returns 1 when found, 0
 * when the image is not an AMDGPU code object or has no such kernel. */
int gpu_amd_kernel_info(const void *image, size_t size, const char *name, struct gpu_amd_kernel *k);

/* Wavefronts of this kernel a SIMD can hold at once on gfx90a/gfx942 (512
 * VGPRs a lane in granules of 8, at most 8 waves, 64 KiB of LDS a CU of 4
 * SIMDs), launched with `threads` threads a workgroup and lds_dynamic bytes
 * of dynamic LDS: the busiest SIMD's count, 0 when a workgroup does not fit
 * on a CU. An estimate from AMD's occupancy rules, not a measurement. */
int gpu_amd_waves_per_simd(const struct gpu_amd_kernel *k, int threads, int lds_dynamic);

#endif
