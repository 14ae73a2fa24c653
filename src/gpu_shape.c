/* gpu_shape.c: the GPU launch shape of a configuration (see gpu_shape.h). */
#include "gpu_shape.h"

#include <stdio.h>

#include "fgo.h"
#include "schedule.h"
#include "tile_shape.h"

#define REFUSE(...)                                 \
	do {                                        \
		snprintf(reason, len, __VA_ARGS__); \
		return FGO_EUSAGE;                  \
	} while (0)

int gpu_shape_check(const struct fgo_config *cfg, int smem_limit, struct gpu_shape *shape,
		    char *reason, size_t len)
{
	int nw = cfg->num_warps, threads = 32 * nw;

	shape->threads = (unsigned int)threads;
	if (threads > 1024)
		REFUSE("num_warps=%d is %d threads, a CTA has at most 1024", nw, threads);
	if (cfg->dtype == FGO_FP32) {
		/* every thread owns BLK_M*BLK_N/threads outputs in registers */
		int outputs = cfg->blk_m * cfg->blk_n;
		shape->core = GPU_CORE_SIMT;
		shape->smem_bytes = FGO_SIMT_SMEM_BYTES(cfg->blk_m, cfg->blk_n, cfg->blk_k);
		if (outputs % threads != 0 || outputs / threads > 256)
			REFUSE("BLK_M x BLK_N = %d outputs do not split over %d threads (num_warps=%d) into at most 256 each",
			       outputs, threads, nw);
	} else {
		int wm = FGO_WARPS_M(nw, cfg->blk_m, cfg->blk_n);
		int wn = FGO_WARPS_N(nw, cfg->blk_m, cfg->blk_n);
		shape->core = GPU_CORE_MMA;
		shape->smem_bytes = (unsigned int)cfg->num_stages *
				    FGO_MMA_STAGE_BYTES(cfg->blk_m, cfg->blk_n, cfg->blk_k);
		if (cfg->mma != 16)
			REFUSE("mma=%d is an AMD MFMA shape; NVIDIA's mma.sync is m16n8k16 (mma=16)",
			       cfg->mma);
		if (cfg->blk_m % (16 * wm) != 0 || cfg->blk_n % (16 * wn) != 0)
			REFUSE("num_warps=%d splits the tile %d x %d, and BLK_M=%d, BLK_N=%d are not multiples of %d x %d (16 per warp each way)",
			       nw, wm, wn, cfg->blk_m, cfg->blk_n, 16 * wm, 16 * wn);
		/* accumulators: (BLK_M/wm) x (BLK_N/wn) per warp, 32 lanes */
		if (cfg->blk_m / wm * (cfg->blk_n / wn) / 32 > 256)
			REFUSE("a warp tile of %d x %d needs %d fp32 accumulators per thread (at most 256)",
			       cfg->blk_m / wm, cfg->blk_n / wn, cfg->blk_m / wm * (cfg->blk_n / wn) / 32);
	}
	if (smem_limit > 0 && (int)shape->smem_bytes > smem_limit)
		REFUSE("needs %u bytes of shared memory (num_stages=%d), the GPU allows %d per block",
		       shape->smem_bytes, cfg->num_stages, smem_limit);
	return FGO_OK;
}

int gpu_grid_size(const struct fgo_algo *algo, const struct fgo_config *cfg, long resident,
		  unsigned int *grid, char *reason, size_t len)
{
	struct fgo_gemm_dims d;
	algo_gemm_dims(algo, cfg, &d);
	struct sched_grid t = sched_grid_make(d.m, d.n, d.k, cfg->blk_m, cfg->blk_n, cfg->blk_k);
	long tiles = t.tiles * d.blocks, comm = cfg->comm_sms;
	long gemm = cfg->gemm_sms > 0 ? cfg->gemm_sms : (tiles < resident - comm ? tiles : resident - comm);

	if (gemm < 1)
		REFUSE("%ld comm CTAs leave no room for a GEMM CTA: only %ld CTAs fit on the GPU at"
		       " once (lower comm_sms, or set gemm_sms)",
		       comm, resident);
	if (algo->needs_comm && gemm + comm > resident)
		REFUSE("%ld GEMM + %ld comm CTAs wait on each other but only %ld fit on the GPU at"
		       " once (lower gemm_sms or comm_sms, or the tile's shared memory)",
		       gemm, comm, resident);
	*grid = (unsigned int)(gemm + comm);
	return FGO_OK;
}
