/* gpu_shape.h: which GEMM core a configuration gets on the GPU and whether
 * it can launch there (threads, warp tiles, shared memory), decided without
 * a GPU, so `fgobench compile` and the backend agree. */
#ifndef FGO_GPU_SHAPE_H
#define FGO_GPU_SHAPE_H

#include <stddef.h>

#include "algo.h"
#include "config.h"

enum gpu_core {
	GPU_CORE_SIMT = 0, /* FFMA on fp32 panels: fp32 inputs */
	GPU_CORE_MMA = 1,  /* mma.sync m16n8k16 (NVIDIA) for fp16 and bf16 */
	GPU_CORE_WGMMA = 2, /* TMA + wgmma, warp-specialised (Hopper, sm_90a): mma=wgmma */
	GPU_CORE_MFMA = 3,  /* v_mfma 16x16 or 32x32 (AMD gfx90a, gfx942): mma=16|32, every dtype */
};

/* 1 when arch is an AMD target ("gfx..."), whose warps are 64-lane wavefronts. */
int gpu_arch_amd(const char *arch);
/* 1 when arch has the matrix cores core_mfma.h uses: gfx90a (CDNA2) and
 * gfx940/941/942 (CDNA3), with or without target features (gfx90a:xnack-).
 * The kernels decide the same from the target's macros (kernels/gemm_core.h). */
int gpu_arch_mfma(const char *arch);
/* "mfma", "mma.sync", "wgmma", "simt". */
const char *gpu_core_name(enum gpu_core core);

struct gpu_shape {
	enum gpu_core core;
	unsigned int threads;    /* per CTA */
	unsigned int smem_bytes; /* dynamic shared memory per CTA */
};

/* The dynamic shared memory a CTA may opt into on NVIDIA's arch ("sm_90a",
 * "sm_80", ...), known without the GPU at hand; 0 where not known (AMD,
 * NULL, an arch not listed): the check is then left to the launch. */
int gpu_arch_smem_limit(const char *arch);

/* The compute units (SMs, CUs) of the usual GPU of arch, for `compile`,
 * which has no GPU at hand: H100 SXM and H200 for sm_90 (an H100 PCIe
 * has 114), A100 for sm_80, MI300X for gfx942, an MI250X GCD for gfx90a;
 * 0 where not known. A sweep takes its own device's count instead. */
int gpu_arch_units(const char *arch);

/* Fills shape for cfg on target arch ("sm_90a", "gfx942"; NULL: an NVIDIA
 * GPU). Returns FGO_OK, or FGO_EUSAGE with a one-line reason when cfg
 * cannot launch on a GPU allowing smem_limit bytes of shared memory per
 * block (pass 0 to skip that check, as for a GPU not at hand; an AMD
 * target is held to its 64 KiB of LDS either way). */
int gpu_shape_check(const struct fgo_config *cfg, const char *arch, int smem_limit,
		    struct gpu_shape *shape, char *reason, size_t len);

/* The persistent grid of algo's kernel for cfg on a GPU that holds
 * `resident` CTAs of it at once: gemm_sms GEMM CTAs (0: one per tile of the
 * family's tile space, up to what fits beside the comm CTAs) plus comm_sms
 * communication CTAs. CTAs that wait on each other's flags must all be
 * resident, or a waiter could hold the SM its producer needs, so such a grid
 * over `resident` is refused, as is one without a GEMM CTA. FGO_OK with
 * *grid, or FGO_EUSAGE with a one-line reason. */
int gpu_grid_size(const struct fgo_algo *algo, const struct fgo_config *cfg, long resident,
		  unsigned int *grid, char *reason, size_t len);

#endif
