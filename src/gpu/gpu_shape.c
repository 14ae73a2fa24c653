/* gpu_shape.c: the GPU launch shape of a configuration (see gpu_shape.h). */
#include "gpu/gpu_shape.h"

#include <stdio.h>
#include <string.h>

#include "fgo.h"
#include "mfma_layout.h"
#include "schedule.h"
#include "tile_shape.h"

#define REFUSE(...)                                 \
	do {                                        \
		snprintf(reason, len, __VA_ARGS__); \
		return FGO_EUSAGE;                  \
	} while (0)

/* The wgmma core (kernels/core_wgmma.h): one producer and one or two
 * consumer warpgroups, each consumer 64 or 128 rows by BLK_N (an
 * instruction N, a multiple of 16: kernels/tile_shape.h's boxes) with at
 * most 128 accumulators a thread, or with A and B swapped every row by 64
 * columns (BLK_M the instruction's N: at most 120); TMA needs rows of
 * A, B and C that start on 16 bytes. Every family runs on this core; its
 * producer, storer and side warps are the communication, so there are no
 * communication CTAs but in the Stream-K forms (their CU split). */
static int wgmma_shape_check(const struct fgo_config *cfg, struct gpu_shape *shape, char *reason,
			     size_t len)
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	int consumers = cfg->num_warps / 4 - 1, rows;
	struct fgo_gemm_dims d;

	shape->core = GPU_CORE_WGMMA;
	shape->smem_bytes = FGO_WGMMA_SMEM_BYTES(cfg->blk_m, cfg->blk_n, cfg->blk_k, cfg->num_stages);
	if (config_cluster_k(cfg)) /* the last slice's slots */
		shape->smem_bytes += FGO_WGMMA_CLUSTER_K_BYTES(cfg->blk_m, cfg->blk_n, cfg->cluster);
	if (!algo)
		REFUSE("no algorithm named %s", cfg->algorithm);
	/* the Stream-K forms keep their communication CTAs; the others
	 * communicate from the core's own threads */
	if (strncmp(algo->name, "sk_", 3) != 0 && cfg->comm_sms > 0)
		REFUSE("mma=wgmma communicates from its storer thread and side warps: comm_sms must be 0 for %s, not %d",
		       cfg->algorithm, cfg->comm_sms);
	if (cfg->dtype == FGO_FP32)
		REFUSE("mma=wgmma takes fp16 or bf16 (fp32 runs on the SIMT core, mma=16)");
	if (cfg->blk_k != 64 && cfg->blk_k != 128)
		REFUSE("mma=wgmma loads K in slices of 64 16-bit elements (128 bytes), one or two a stage:"
		       " BLK_K must be 64 or 128, not %d",
		       cfg->blk_k);
	if (cfg->num_warps != 8 && cfg->num_warps != 12)
		REFUSE("mma=wgmma needs num_warps=8 or 12 (a producer warpgroup and one or two consumers), not %d",
		       cfg->num_warps);
	rows = cfg->blk_m / consumers;
	if (FGO_WGMMA_SWAPPED(cfg->blk_m)) { /* A and B swapped (kernels/core_wgmma.h's WG_SWAP) */
		if (cfg->blk_m != 8 && (cfg->blk_m % 16 || cfg->blk_m > 240))
			REFUSE("mma=wgmma takes BLK_M of 8 or a multiple of 16 up to 240 (A and B swapped where"
			       " it is no multiple of 64: 8, 16, 32, 48, 80, 96, ...) or 64, 128 or 256 (64 or 128 rows a"
			       " consumer), not %d",
			       cfg->blk_m);
		if (cfg->blk_n != 64 * consumers || cfg->cluster > 1)
			REFUSE("BLK_M=%d (A and B swapped) takes 64 columns a consumer warpgroup and no cluster:"
			       " BLK_N=64 with num_warps=8 or BLK_N=128 with num_warps=12, not BLK_N=%d with %d",
			       cfg->blk_m, cfg->blk_n, cfg->num_warps);
	} else if (cfg->blk_m % consumers || (rows != 64 && rows != 128))
		REFUSE("BLK_M=%d over %d consumer warpgroups must give 64 or 128 rows each", cfg->blk_m,
		       consumers);
	if (cfg->blk_n % 16 || cfg->blk_n > 256)
		REFUSE("mma=wgmma needs BLK_N a multiple of 16 up to 256 (one instruction's N, B's panel"
		       " in whole boxes of 16, 32 or 64 columns), not %d",
		       cfg->blk_n);
	if (!FGO_WGMMA_SWAPPED(cfg->blk_m) && rows / 64 * cfg->blk_n / 2 > 128)
		REFUSE("a consumer's %d x %d part needs %d accumulators a thread (at most 128): lower BLK_N or add a consumer",
		       rows, cfg->blk_n, rows / 64 * cfg->blk_n / 2);
	algo_gemm_dims(algo, cfg, &d);
	if (d.k % 8 || d.n % 8 || d.lda % 8 || d.ldb % 8)
		REFUSE("mma=wgmma loads with TMA, whose rows must start on 16 bytes: K (%ld) and this rank's N (%ld) must be multiples of 8",
		       d.k, d.n);
	return FGO_OK;
}

int gpu_arch_amd(const char *arch)
{
	return arch && strncmp(arch, "gfx", 3) == 0;
}

int gpu_arch_mfma(const char *arch)
{
	static const char *const targets[] = { "gfx90a", "gfx940", "gfx941", "gfx942" };
	size_t base = arch ? strcspn(arch, ":") : 0;
	for (size_t i = 0; i < FGO_ARRAY_SIZE(targets); i++)
		if (base == strlen(targets[i]) && strncmp(arch, targets[i], base) == 0)
			return 1;
	return 0;
}

const char *gpu_core_name(enum gpu_core core)
{
	static const char *const names[] = { "simt", "mma.sync", "wgmma", "mfma" };
	return (unsigned)core < FGO_ARRAY_SIZE(names) ? names[core] : "?";
}

/* AMD's LDS per workgroup on gfx9 (CDNA): 64 KiB. */
#define AMD_LDS_BYTES 65536

/* The MFMA core (kernels/core_mfma.h): NUM_WARPS wavefronts, each a
 * square-ish part of the tile as whole mma x mma instruction tiles
 * (kernels/mfma_layout.h, the same functions the core sizes itself with). */
static int mfma_shape_check(const struct fgo_config *cfg, const char *arch, struct gpu_shape *shape,
			    char *reason, size_t len)
{
	const int es = (int)dtype_size(cfg->dtype), nw = cfg->num_warps, mn = cfg->mma;
	const struct mfma_tile t = mfma_tile_make(cfg->blk_m, cfg->blk_n, nw, mn, es);

	shape->core = GPU_CORE_MFMA;
	shape->smem_bytes = (unsigned int)FGO_MFMA_SMEM_BYTES(cfg->blk_m, cfg->blk_n, cfg->blk_k, es,
							      cfg->num_stages);
	if (!mfma_tile_ok(&t, cfg->blk_m, cfg->blk_n, nw))
		REFUSE("num_warps=%d wavefronts split the tile %d x %d, and BLK_M=%d, BLK_N=%d are not multiples of %d x %d (%d per wavefront each way, mma=%d)",
		       nw, t.waves_m, t.waves_n, cfg->blk_m, cfg->blk_n, mn * t.waves_m, mn * t.waves_n, mn, mn);
	if (cfg->blk_k % mfma_k(mn, es) || cfg->blk_k % (16 / es))
		REFUSE("BLK_K=%d must be a multiple of the instruction's K (%d) and of a 16-byte chunk (%d elements)",
		       cfg->blk_k, mfma_k(mn, es), 16 / es);
	/* accumulators live in the AGPRs: 256 a lane */
	if (t.mi * t.ni * t.regs > 256)
		REFUSE("a wavefront tile of %d x %d needs %d fp32 accumulators a lane (at most 256 AGPRs on %s)",
		       t.wave_m, t.wave_n, t.mi * t.ni * t.regs, arch);
	return FGO_OK;
}

/* A value per arch prefix ("sm_90" covers "sm_90a"); 0 where none. */
struct arch_value {
	const char *prefix;
	int value;
};

static int arch_lookup(const char *arch, const struct arch_value *t, size_t n)
{
	for (size_t i = 0; arch && i < n; i++)
		if (strncmp(arch, t[i].prefix, strlen(t[i].prefix)) == 0)
			return t[i].value;
	return 0;
}

int gpu_arch_smem_limit(const char *arch)
{
	/* cudaDevAttrMaxSharedMemoryPerBlockOptin of each generation */
	static const struct arch_value limits[] = { { "sm_90", 232448 }, { "sm_80", 166912 },
						    { "sm_87", 166912 }, { "sm_86", 101376 },
						    { "sm_89", 101376 } };
	return arch_lookup(arch, limits, sizeof limits / sizeof limits[0]);
}

int gpu_arch_units(const char *arch)
{
	static const struct arch_value units[] = { { "sm_90", 132 }, { "sm_80", 108 },
						   { "gfx942", 304 }, { "gfx90a", 110 } };
	return arch_lookup(arch, units, sizeof units / sizeof units[0]);
}

int gpu_shape_check(const struct fgo_config *cfg, const char *arch, int smem_limit,
		    struct gpu_shape *shape, char *reason, size_t len)
{
	const int amd = gpu_arch_amd(arch);
	int nw = cfg->num_warps, threads = (amd ? 64 : 32) * nw;

	shape->threads = (unsigned int)threads;
	if (threads > 1024)
		REFUSE("num_warps=%d is %d threads, a %s has at most 1024", nw, threads,
		       amd ? "workgroup (64-lane wavefronts)" : "CTA");
	if (amd && cfg->mma == FGO_MMA_WGMMA)
		REFUSE("mma=wgmma is Hopper's (sm_90a); on %s use mma=16 or 32", arch);
	if (cfg->split_k > 1 && cfg->mma != FGO_MMA_WGMMA)
		REFUSE("split_k=%d runs on the wgmma core (mma=wgmma) in this version; on mma=%s use"
		       " split_k=1", cfg->split_k, mma_name(cfg->mma));
	if (cfg->cluster > 1 && cfg->mma != FGO_MMA_WGMMA)
		REFUSE("cluster=%d shares B panels through TMA multicast, which the wgmma core does"
		       " (mma=wgmma, sm_90a); on mma=%s use cluster=1",
		       cfg->cluster, mma_name(cfg->mma));
	/* the hybrid Stream-K walk of the families that are not sk_* */
	if (cfg->gemm_sms > 0 && cfg->mma != FGO_MMA_WGMMA && strncmp(cfg->algorithm, "sk_", 3) != 0)
		REFUSE("Stream-K (gemm_sms=%d) of %s runs on the wgmma core (mma=wgmma) in this version;"
		       " on mma=%s use gemm_sms=0",
		       cfg->gemm_sms, cfg->algorithm, mma_name(cfg->mma));
	/* only the wgmma core's GEMM CTAs send or sum the tiles they end */
	if (cfg->comm_sms == 0 && cfg->mma != FGO_MMA_WGMMA && strncmp(cfg->algorithm, "sk_", 3) == 0)
		REFUSE("comm_sms=0 (the CTA that ends a tile communicates it) runs on the wgmma core"
		       " (mma=wgmma) in this version; on mma=%s give comm_sms >= 1",
		       mma_name(cfg->mma));
	if (cfg->mma == FGO_MMA_WGMMA) {
		if (wgmma_shape_check(cfg, shape, reason, len) != FGO_OK)
			return FGO_EUSAGE;
	} else if (gpu_arch_mfma(arch)) {
		if (mfma_shape_check(cfg, arch, shape, reason, len) != FGO_OK)
			return FGO_EUSAGE;
	} else if (amd && cfg->mma != FGO_MMA_SYNC) {
		REFUSE("mma=%d needs the matrix cores of gfx90a or gfx942, not %s", cfg->mma, arch);
	} else if (cfg->dtype == FGO_FP32 || amd) {
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
		if (cfg->mma != FGO_MMA_SYNC)
			REFUSE("mma=%d is an AMD MFMA shape; NVIDIA's mma.sync is m16n8k16 (mma=16)",
			       cfg->mma);
		if (wm * wn != nw || cfg->blk_m % (16 * wm) != 0 || cfg->blk_n % (16 * wn) != 0)
			REFUSE("num_warps=%d splits the tile %d x %d, and BLK_M=%d, BLK_N=%d are not multiples of %d x %d (16 per warp each way)",
			       nw, wm, wn, cfg->blk_m, cfg->blk_n, 16 * wm, 16 * wn);
		/* accumulators: (BLK_M/wm) x (BLK_N/wn) per warp, 32 lanes */
		if (cfg->blk_m / wm * (cfg->blk_n / wn) / 32 > 256)
			REFUSE("a warp tile of %d x %d needs %d fp32 accumulators per thread (at most 256)",
			       cfg->blk_m / wm, cfg->blk_n / wn, cfg->blk_m / wm * (cfg->blk_n / wn) / 32);
	}
	if (amd && (int)shape->smem_bytes > (smem_limit > 0 ? smem_limit : AMD_LDS_BYTES))
		REFUSE("needs %u bytes of LDS (num_stages=%d), a workgroup on %s has at most %d",
		       shape->smem_bytes, cfg->num_stages, arch, smem_limit > 0 ? smem_limit : AMD_LDS_BYTES);
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
	/* split-K: a unit of work is one K slice of a tile; Stream-K
	 * (gemm_sms > 0): gemm_sms GEMM CTAs share the tiles */
	/* clusters (kernels/schedule.h): the units are cluster tiles, the
	 * grid whole clusters; `resident` counts the CTAs of whole clusters */
	const long cl = cfg->cluster > 1 ? cfg->cluster : 1;
	const int k_cluster = config_cluster_k(cfg); /* a cluster per tile: its K slices */
	long tiles = (k_cluster ? t.tiles_m : sched_ceil_div(t.tiles_m, cl)) * t.tiles_n * d.blocks *
		     (cfg->split_k > 1 && !k_cluster ? cfg->split_k : 1),
	     comm = cfg->comm_sms;
	long gemm = cfg->gemm_sms > 0 ? cfg->gemm_sms
				      : (tiles < (resident - comm) / cl ? tiles : (resident - comm) / cl) * cl;
	int exchange = cfg->split_k > 1 || cfg->gemm_sms > 0;

	if (gemm < 1)
		REFUSE("%ld comm CTAs leave no room for a GEMM CTA: only %ld CTAs fit on the GPU at"
		       " once (lower comm_sms, or set gemm_sms)",
		       comm, resident);
	/* the CTAs that end a split or Stream-K tile wait for the others too */
	if ((algo->needs_comm || exchange) && gemm + comm > resident)
		REFUSE("%ld GEMM + %ld comm CTAs wait on each other but only %ld fit on the GPU at"
		       " once (lower gemm_sms or comm_sms, or the tile's shared memory)",
		       gemm, comm, resident);
	*grid = (unsigned int)(gemm + comm);
	return FGO_OK;
}
