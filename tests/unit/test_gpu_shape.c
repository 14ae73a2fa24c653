/* test_gpu_shape.c: the GPU launch shape of a configuration (src/gpu/gpu_shape.c),
 * decided without a GPU: which core, threads, shared memory, and the reasons
 * a configuration cannot launch. The numbers are the ones the kernels
 * compute from kernels/tile_shape.h. */
#include "algo.h"
#include "config.h"
#include "fgo.h"
#include "gpu/gpu_shape.h"
#include "testlib.h"
#include "tile_shape.h"

static struct fgo_config gemm(enum fgo_dtype t, int bm, int bn, int bk, int stages, int warps)
{
	struct fgo_config c;
	config_defaults(&c);
	c.dtype = t;
	c.m = c.n = c.k = 4096;
	c.blk_m = bm;
	c.blk_n = bn;
	c.blk_k = bk;
	c.num_stages = stages;
	c.num_warps = warps;
	return c;
}

/* A bf16 gemm at W=1 on the Hopper core: the tile rules' subject. */
static struct fgo_config wgmma_gemm(int bm, int bn, int stages, int warps)
{
	struct fgo_config c = gemm(FGO_BF16, bm, bn, 64, stages, warps);
	snprintf(c.algorithm, sizeof c.algorithm, "gemm");
	c.world = 1;
	c.mma = FGO_MMA_WGMMA;
	return c;
}

static void check_warp_split(void)
{
	T_EQ_INT("warps-4", FGO_WARPS_M(4, 128, 128), 2);
	T_EQ_INT("warps-8-tall", FGO_WARPS_M(8, 256, 128), 4);
	T_EQ_INT("warps-8-wide", FGO_WARPS_M(8, 128, 256), 2);
	T_EQ_INT("warps-16", FGO_WARPS_M(16, 256, 128) * FGO_WARPS_N(16, 256, 128), 16);
	T_EQ_INT("warps-1", FGO_WARPS_M(1, 32, 32), 1);
}

static void check_mma(void)
{
	char why[256] = "";
	struct gpu_shape s;
	struct fgo_config c = gemm(FGO_BF16, 128, 256, 64, 3, 8);
	T_EQ_INT("mma-ok", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
	T_EQ_INT("mma-core", s.core, GPU_CORE_MMA);
	T_EQ_INT("mma-threads", s.threads, 256);
	/* 3 stages of (128 x (64+8) + 64 x (256+8)) 16-bit elements */
	T_EQ_INT("mma-smem", s.smem_bytes, 3 * 2 * (128 * 72 + 64 * 264));

	c = gemm(FGO_BF16, 256, 128, 64, 4, 8);
	T_EQ_INT("mma-smem-limit", gpu_shape_check(&c, NULL, 200000, &s, why, sizeof why), FGO_EUSAGE);
	T_CONTAINS("mma-smem-limit-reason", why, "shared memory");
	T_EQ_INT("mma-smem-unknown-limit", gpu_shape_check(&c, NULL, 0, &s, why, sizeof why), FGO_OK);

	c = gemm(FGO_FP16, 32, 32, 32, 2, 8); /* 8 warps: 4 x 2, warp tile 8 x 16 */
	T_EQ_INT("mma-warp-tile-too-small", gpu_shape_check(&c, NULL, 0, &s, why, sizeof why), FGO_EUSAGE);
	T_CONTAINS("mma-warp-tile-reason", why, "16 per warp");

	c = gemm(FGO_BF16, 128, 128, 32, 2, 4);
	c.mma = 32;
	T_EQ_INT("mma-amd-shape", gpu_shape_check(&c, NULL, 0, &s, why, sizeof why), FGO_EUSAGE);
	T_CONTAINS("mma-amd-shape-reason", why, "m16n8k16");

	c = gemm(FGO_BF16, 256, 256, 32, 2, 4); /* 4 warps of 128 x 128: 512 accumulators */
	T_EQ_INT("mma-too-many-accumulators", gpu_shape_check(&c, NULL, 0, &s, why, sizeof why), FGO_EUSAGE);
	T_CONTAINS("mma-accumulators-reason", why, "accumulators");
}

/* The Hopper core: its tile rules, its shared memory, and the reasons. */
static void check_wgmma(void)
{
	char why[256] = "";
	struct gpu_shape s;
	struct fgo_config c = wgmma_gemm(128, 256, 3, 12);
	T_EQ_INT("wgmma-ok", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
	T_EQ_INT("wgmma-core", s.core, GPU_CORE_WGMMA);
	T_EQ_INT("wgmma-threads", s.threads, 384);
	/* 3 stages of a 128-row A and a 256-row B panel of 128 bytes and two
	 * 8-byte barriers, the 128 x 256 tile of C staged, 1 KiB to align */
	/* (+ the staged and freed barriers of two consumers) */
	T_EQ_INT("wgmma-smem", s.smem_bytes, 3 * (128 * 128 + 256 * 128 + 16) + 128 * 256 * 2 + 32 + 1024);
	/* 4 x 48 KiB and the 64 KiB of C do not fit in 227 KiB: C is staged
	 * in halves, 32 KiB (tile_shape.h's FGO_WGMMA_STAGE_SPLIT) */
	c.num_stages = 4;
	T_EQ_INT("wgmma-half-staging-ok", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
	T_EQ_INT("wgmma-half-staging-smem", s.smem_bytes,
		 4 * (128 * 128 + 256 * 128 + 16) + 128 * 256 * 2 / 2 + 32 + 1024);
	T_EQ_INT("wgmma-half-staging-split-s4", FGO_WGMMA_STAGE_SPLIT(128, 256, 64, 4), 2);
	T_EQ_INT("wgmma-half-staging-split-s3", FGO_WGMMA_STAGE_SPLIT(128, 256, 64, 3), 1);
	T_EQ_INT("wgmma-half-staging-split-n64", FGO_WGMMA_STAGE_SPLIT(64, 64, 64, 16), 1);
	/* BLK_K 128: two K slices a stage, 96 KiB; two stages fit with C
	 * staged in halves, three not at all */
	c.blk_k = 128;
	c.num_stages = 2;
	T_EQ_INT("wgmma-bk128-ok", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
	T_EQ_INT("wgmma-bk128-smem", s.smem_bytes,
		 2 * (2 * (128 * 128 + 256 * 128) + 16) + 128 * 256 * 2 / 2 + 32 + 1024);
	T_EQ_INT("wgmma-bk128-split-s2", FGO_WGMMA_STAGE_SPLIT(128, 256, 128, 2), 2);
	c.num_stages = 3;
	T_EQ_INT("wgmma-bk128-s3-smem-limit", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_EUSAGE);
	c.blk_n = 128; /* 128x128: 64 KiB a stage, three stages and C whole */
	T_EQ_INT("wgmma-bk128-128-ok", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
	T_EQ_INT("wgmma-bk128-128-smem", s.smem_bytes,
		 3 * (2 * (128 * 128 + 128 * 128) + 16) + 128 * 128 * 2 + 32 + 1024);
	c.blk_n = 256;
	c.blk_k = 64;
	c.num_stages = 5; /* 5 x 48 KiB: the ring alone is past the limit */
	T_EQ_INT("wgmma-smem-limit", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_EUSAGE);
	T_CONTAINS("wgmma-smem-limit-reason", why, "shared memory");

#define WG_BAD(id, text, change)                                                          \
	do {                                                                              \
		struct fgo_config b_ = c;                                                 \
		b_.num_stages = 3;                                                        \
		change;                                                                   \
		T_EQ_INT(id, gpu_shape_check(&b_, NULL, 232448, &s, why, sizeof why), FGO_EUSAGE); \
		T_CONTAINS(id "-reason", why, text);                                      \
	} while (0)
	WG_BAD("wgmma-fp32", "fp16 or bf16", b_.dtype = FGO_FP32);
	WG_BAD("wgmma-blk-k", "BLK_K must be 64 or 128", b_.blk_k = 32);
	WG_BAD("wgmma-blk-k-256", "BLK_K must be 64 or 128", b_.blk_k = 256);
	WG_BAD("wgmma-warps", "num_warps=8 or 12", b_.num_warps = 4);
	WG_BAD("wgmma-rows", "64 or 128 rows each", b_.blk_m = 512);
	WG_BAD("wgmma-blk-n-72", "a multiple of 16 up to 256", b_.blk_n = 72);
	WG_BAD("wgmma-blk-n-272", "a multiple of 16 up to 256", b_.blk_n = 272);
	WG_BAD("wgmma-accumulators", "at most 128", b_.num_warps = 8); /* 128 x 256 on one consumer */
	WG_BAD("wgmma-unknown-family", "no algorithm named", snprintf(b_.algorithm, sizeof b_.algorithm, "all_reduce"));
	WG_BAD("wgmma-comm-ctas", "comm_sms must be 0",
	       (snprintf(b_.algorithm, sizeof b_.algorithm, "all_scatter"), b_.comm_sms = 4));
	WG_BAD("wgmma-tma-rows", "multiples of 8", b_.k = 4100);
	/* A and B swapped (BLK_M 8, 16, 32, 48, 80, ...): BLK_N 64 a consumer
	 * (64 on one, 128 on two), no cluster, every family; other small
	 * BLK_M refused with the sizes */
	WG_BAD("wgmma-swap-rows", "BLK_M of 8 or a multiple of 16 up to 240", (b_.blk_m = 24, b_.blk_n = 64, b_.num_warps = 8));
	WG_BAD("wgmma-swap-rows-272", "BLK_M of 8 or a multiple of 16 up to 240", (b_.blk_m = 272, b_.blk_n = 64, b_.num_warps = 8));
	WG_BAD("wgmma-swap-80-n", "64 columns a consumer warpgroup and no cluster", (b_.blk_m = 80, b_.blk_n = 128, b_.num_warps = 8));
	WG_BAD("wgmma-swap-80-warps", "not BLK_N=64 with 12", (b_.blk_m = 80, b_.blk_n = 64));
	WG_BAD("wgmma-swap-80-n192", "not BLK_N=192 with 12", (b_.blk_m = 80, b_.blk_n = 192));
	WG_BAD("wgmma-192-rows", "64 or 128 rows each", (b_.blk_m = 192, b_.blk_n = 64));
	WG_BAD("wgmma-swap-n", "BLK_N=128 with num_warps=12, not BLK_N=128 with 8", (b_.blk_m = 16, b_.blk_n = 128, b_.num_warps = 8));
	WG_BAD("wgmma-swap-warps", "BLK_N=64 with num_warps=8", (b_.blk_m = 32, b_.blk_n = 64));
	WG_BAD("wgmma-swap-cluster", "no cluster", (b_.blk_m = 8, b_.blk_n = 64, b_.num_warps = 8, b_.cluster = 2));
#undef WG_BAD
	/* Widths between the powers of two (issue 49): B's panel and C's
	 * staging in boxes of 64, 32 or 16 columns, the shared memory of the
	 * width itself (128 bytes a column of a K slice) */
	c = wgmma_gemm(128, 80, 4, 12);
	T_EQ_INT("wgmma-n80-ok", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
	T_EQ_INT("wgmma-n80-smem", s.smem_bytes, 4 * (128 * 128 + 80 * 128 + 16) + 128 * 80 * 2 + 32 + 1024);
	c.blk_n = 16;
	T_EQ_INT("wgmma-n16-ok", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
	c.blk_n = 240; /* 2 consumers x 64 rows x 240 / 2: 120 accumulators a thread */
	c.num_stages = 3;
	T_EQ_INT("wgmma-n240-ok", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
	T_EQ_INT("wgmma-box-16", FGO_WGMMA_BOX_COLS(80), 16);
	T_EQ_INT("wgmma-box-16-112", FGO_WGMMA_BOX_COLS(112), 16);
	T_EQ_INT("wgmma-box-32", FGO_WGMMA_BOX_COLS(96), 32);
	T_EQ_INT("wgmma-box-32-160", FGO_WGMMA_BOX_COLS(160), 32);
	T_EQ_INT("wgmma-box-64", FGO_WGMMA_BOX_COLS(192), 64);
	T_EQ_INT("wgmma-box-64-256", FGO_WGMMA_BOX_COLS(256), 64);
	/* C in halves only where a half is whole boxes: 192 (halves of 96)
	 * with 5 stages splits, 240 (halves of 120) never does */
	T_EQ_INT("wgmma-split-192-s5", FGO_WGMMA_STAGE_SPLIT(128, 192, 64, 5), 2);
	T_EQ_INT("wgmma-split-240-s4", FGO_WGMMA_STAGE_SPLIT(128, 240, 64, 4), 1);
	c.num_stages = 4; /* 240 whole with 4 stages: past the limit, refused */
	/* swapped, 80 rows (issue 49: cuBLAS's tile height at mid M): one
	 * m64n80 a k16, the A panel 80 rows of 128 bytes a stage */
	c = wgmma_gemm(80, 64, 6, 8);
	T_EQ_INT("wgmma-swap-80-ok", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
	T_EQ_INT("wgmma-swap-80-smem", s.smem_bytes, 6 * (80 * 128 + 64 * 128 + 16) + 80 * 64 * 2 + 32 + 1024);
	c.blk_m = 240; /* 6 stages of 240 + 64 rows are past the limit, 4 fit */
	T_EQ_INT("wgmma-swap-240-s6-smem-limit", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_EUSAGE);
	c.num_stages = 4;
	T_EQ_INT("wgmma-swap-240-ok", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
	/* swapped on two consumers (BLK_N 128: each 64 of the columns and
	 * every row, one m64nBLK_Mk16 a k16 each; cuBLAS's 224 x 128 at
	 * 2194 x 1600 x 1968, issue 49) */
	c = wgmma_gemm(80, 128, 4, 12);
	T_EQ_INT("wgmma-swap2-80-ok", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
	T_EQ_INT("wgmma-swap2-80-smem", s.smem_bytes, 4 * (80 * 128 + 128 * 128 + 16) + 80 * 128 * 2 + 32 + 1024);
	T_EQ_INT("wgmma-part-rows-swap2", FGO_WGMMA_PART_ROWS(80, 2), 80);
	T_EQ_INT("wgmma-part-cols-swap2", FGO_WGMMA_PART_COLS(80, 128, 2), 64);
	T_EQ_INT("wgmma-part-rows-swap1", FGO_WGMMA_PART_ROWS(80, 1), 80);
	T_EQ_INT("wgmma-part-cols-swap1", FGO_WGMMA_PART_COLS(80, 64, 1), 64);
	T_EQ_INT("wgmma-part-rows", FGO_WGMMA_PART_ROWS(128, 2), 64);
	T_EQ_INT("wgmma-part-cols", FGO_WGMMA_PART_COLS(128, 256, 2), 256);
	/* 224 x 128 with 4 stages and the whole C is past the limit: C is
	 * staged in halves of 112 rows (swapped halves are rows) */
	c.blk_m = 224;
	T_EQ_INT("wgmma-swap2-224-ok", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
	T_EQ_INT("wgmma-swap2-224-split", FGO_WGMMA_STAGE_SPLIT(224, 128, 64, 4), 2);
	T_EQ_INT("wgmma-swap2-224-staged-rows", FGO_WGMMA_STAGED_ROWS(224, 128, 64, 4, 2), 112);
	T_EQ_INT("wgmma-swap2-224-staged-cols", FGO_WGMMA_STAGED_COLS(224, 128, 64, 4, 2), 64);
	T_EQ_INT("wgmma-swap2-224-smem", s.smem_bytes, 4 * (224 * 128 + 128 * 128 + 16) + 224 * 128 + 32 + 1024);
	T_EQ_INT("wgmma-swap2-224-s3-split", FGO_WGMMA_STAGE_SPLIT(224, 128, 64, 3), 1);
	c.num_stages = 5; /* five stages of 240 + 128 rows alone are past it */
	c.blk_m = 240;
	T_EQ_INT("wgmma-swap2-240-s5-smem-limit", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_EUSAGE);
	/* decode rows on two consumers; 8 rows never split (rows come in 8s) */
	c = wgmma_gemm(8, 128, 8, 12);
	T_EQ_INT("wgmma-swap2-8-ok", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
	T_EQ_INT("wgmma-swap2-8-halves", FGO_WGMMA_HALVES(8, 128), 0);
	c = wgmma_gemm(128, 240, 4, 12);
	T_EQ_INT("wgmma-n240-s4-smem-limit", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_EUSAGE);
	T_CONTAINS("wgmma-n240-s4-smem-reason", why, "shared memory");
	for (int bm = 8; bm <= 32; bm *= 2) {
		struct fgo_config sw = c;
		char id[48];
		sw.blk_m = bm;
		sw.blk_n = 64;
		sw.num_warps = 8;
		sw.num_stages = 16;
		snprintf(id, sizeof id, "wgmma-swap-%d", bm);
		T_EQ_INT(id, gpu_shape_check(&sw, NULL, 232448, &s, why, sizeof why), FGO_OK);
		/* 16 stages of a BLK_M-row A and a 64-row B panel, the BLK_M x 64 C */
		snprintf(id, sizeof id, "wgmma-swap-%d-smem", bm);
		T_EQ_INT(id, s.smem_bytes, 16 * (bm * 128 + 64 * 128 + 16) + bm * 64 * 2 + 32 + 1024);
		/* the fused families too: their epilogues read the staged C */
		sw.world = 2;
		snprintf(sw.algorithm, sizeof sw.algorithm, "%s",
			 bm == 8 ? "all_scatter" : bm == 16 ? "all_reduce_one_shot" : "all_gather_gemm_push");
		snprintf(id, sizeof id, "wgmma-swap-%d-%s", bm, sw.algorithm);
		T_EQ_INT(id, gpu_shape_check(&sw, NULL, 232448, &s, why, sizeof why), FGO_OK);
	}
	c.num_stages = 3;
	c.blk_m = 128; /* one consumer of 128 rows x 128: two m64 instructions */
	c.blk_n = 128;
	c.num_warps = 8;
	T_EQ_INT("wgmma-one-consumer", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
	T_EQ_INT("wgmma-one-consumer-threads", s.threads, 256);
	c.world = 4; /* all_scatter: this rank's 64 of 256 columns */
	snprintf(c.algorithm, sizeof c.algorithm, "all_scatter");
	T_EQ_INT("wgmma-all-scatter", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
	c.n = 4 * 68; /* 68 columns a rank: its block of C would not start on 16 bytes */
	T_EQ_INT("wgmma-all-scatter-align", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_EUSAGE);
	T_CONTAINS("wgmma-all-scatter-align-reason", why, "multiples of 8");
	c.n = 4096;
	snprintf(c.algorithm, sizeof c.algorithm, "all_gather_gemm_push");
	T_EQ_INT("wgmma-all-gather", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
	/* the Stream-K forms keep their communication CTAs */
	snprintf(c.algorithm, sizeof c.algorithm, "sk_all_scatter");
	c.gemm_sms = 120;
	c.comm_sms = 8;
	T_EQ_INT("wgmma-stream-k", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
	c.gemm_sms = 0;
	c.comm_sms = 0;
	/* the K-sharded families: their K slice (K/W) must start rows on 16 bytes */
	c.k = 4096;
	const char *k_sharded[] = { "reduce_scatter", "all_reduce_one_shot", "all_reduce_two_shot" };
	for (size_t i = 0; i < sizeof k_sharded / sizeof *k_sharded; i++) {
		snprintf(c.algorithm, sizeof c.algorithm, "%s", k_sharded[i]);
		c.k = 4096;
		T_EQ_INT(k_sharded[i], gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
		c.k = 4 * 1028; /* 1028 of K a rank: rows of 2056 bytes */
		T_EQ_INT("wgmma-k-slice-align", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_EUSAGE);
		T_CONTAINS("wgmma-k-slice-align-reason", why, "multiples of 8");
	}
}

static void check_simt(void)
{
	char why[256] = "";
	struct gpu_shape s;
	struct fgo_config c = gemm(FGO_FP32, 64, 64, 32, 2, 4);
	T_EQ_INT("simt-ok", gpu_shape_check(&c, NULL, 49152, &s, why, sizeof why), FGO_OK);
	T_EQ_INT("simt-core", s.core, GPU_CORE_SIMT);
	T_EQ_INT("simt-smem", s.smem_bytes, 4 * (64 * 32 + 32 * 64));
	c = gemm(FGO_FP32, 256, 256, 32, 2, 1); /* 2048 outputs per thread */
	T_EQ_INT("simt-too-many-outputs", gpu_shape_check(&c, NULL, 0, &s, why, sizeof why), FGO_EUSAGE);
	c = gemm(FGO_FP32, 64, 64, 32, 2, 64);
	T_EQ_INT("threads-over-1024", gpu_shape_check(&c, NULL, 0, &s, why, sizeof why), FGO_EUSAGE);
	T_CONTAINS("threads-reason", why, "1024");
}

/* The persistent grid: tiles of the family's own tile space, the comm CTAs
 * beside them, and the residency rule for CTAs that wait on each other. */
/* AMD (gfx90a, gfx942): the MFMA core for every dtype, 64-lane wavefronts,
 * 64 KiB of LDS; other AMD targets the SIMT core. */
static void check_mfma(void)
{
	char why[256] = "";
	struct gpu_shape s;
	struct fgo_config c = gemm(FGO_BF16, 128, 128, 32, 2, 4);
	T_EQ_INT("mfma-arch", gpu_arch_mfma("gfx942") + gpu_arch_mfma("gfx90a:xnack-") +
				      gpu_arch_mfma("gfx1100") + gpu_arch_mfma("sm_90a") + gpu_arch_mfma(NULL), 2);
	T_EQ_INT("mfma-ok", gpu_shape_check(&c, "gfx942", 0, &s, why, sizeof why), FGO_OK);
	T_EQ_STR("mfma-core", gpu_core_name(s.core), "mfma");
	T_EQ_INT("mfma-threads", s.threads, 256);
	/* 2 stages of (128 x (32 + 8) + 32 x (128 + 8)) 16-bit elements */
	T_EQ_INT("mfma-lds", s.smem_bytes, 2 * 2 * (128 * 40 + 32 * 136));
	c.mma = 32;
	T_EQ_INT("mfma-32-ok", gpu_shape_check(&c, "gfx90a", 0, &s, why, sizeof why), FGO_OK);
	c.dtype = FGO_FP32;
	c.num_stages = 1; /* two stages of fp32 panels are 70656 bytes: over 64 KiB */
	T_EQ_INT("mfma-fp32-ok", gpu_shape_check(&c, "gfx942", 0, &s, why, sizeof why), FGO_OK);
	T_EQ_STR("mfma-fp32-core", gpu_core_name(s.core), "mfma");
	T_EQ_INT("mfma-fp32-lds", s.smem_bytes, 4 * (128 * 36 + 32 * 132));
	c.dtype = FGO_FP16;
	c.num_stages = 4; /* 75776 bytes */
	T_EQ_INT("mfma-lds-64k", gpu_shape_check(&c, "gfx942", 0, &s, why, sizeof why), FGO_EUSAGE);
	T_CONTAINS("mfma-lds-64k-why", why, "bytes of LDS (num_stages=4), a workgroup on gfx942 has at most 65536");
	c = gemm(FGO_FP16, 32, 64, 32, 2, 4);
	c.mma = 32; /* one 32-row instruction tile, 4 wavefronts along 64 columns: 16 each */
	T_EQ_INT("mfma-32-split", gpu_shape_check(&c, "gfx942", 0, &s, why, sizeof why), FGO_EUSAGE);
	T_CONTAINS("mfma-32-split-why", why, "num_warps=4 wavefronts split the tile");
	c = gemm(FGO_FP16, 64, 64, 32, 2, 32);
	T_EQ_INT("mfma-threads-1024", gpu_shape_check(&c, "gfx942", 0, &s, why, sizeof why), FGO_EUSAGE);
	T_CONTAINS("mfma-threads-1024-why", why, "2048 threads");
	c = gemm(FGO_FP16, 256, 256, 32, 1, 1);
	T_EQ_INT("mfma-agprs", gpu_shape_check(&c, "gfx942", 0, &s, why, sizeof why), FGO_EUSAGE);
	T_CONTAINS("mfma-agprs-why", why, "at most 256 AGPRs");
	c = gemm(FGO_BF16, 64, 64, 64, 2, 8);
	c.mma = FGO_MMA_WGMMA;
	T_EQ_INT("mfma-no-wgmma", gpu_shape_check(&c, "gfx942", 0, &s, why, sizeof why), FGO_EUSAGE);
	/* an AMD target without the matrix cores: SIMT, 64-lane wavefronts */
	c = gemm(FGO_FP16, 64, 64, 32, 2, 4);
	T_EQ_INT("amd-simt-ok", gpu_shape_check(&c, "gfx1100", 0, &s, why, sizeof why), FGO_OK);
	T_EQ_INT("amd-simt", s.core * 1000 + (int)s.threads, GPU_CORE_SIMT * 1000 + 256);
	c.mma = 32;
	T_EQ_INT("amd-simt-no-32", gpu_shape_check(&c, "gfx1100", 0, &s, why, sizeof why), FGO_EUSAGE);
}

static void check_grid(void)
{
	char why[256] = "";
	unsigned int grid = 0;
	struct fgo_config c = gemm(FGO_BF16, 128, 128, 64, 3, 4);
	const struct fgo_algo *gemm_algo = algo_find("gemm"), *ar = algo_find("all_reduce_one_shot");
	const struct fgo_algo *rs = algo_find("reduce_scatter"), *sk = algo_find("sk_all_reduce");

	/* 4096^2 on W=2: gemm tiles M x N/W (32 x 16), all_reduce M x N (32 x 32),
	 * reduce_scatter W blocks of M/W x N (2 x 16 x 32) */
	c.world = 2;
	T_EQ_INT("grid-gemm-tiles", gpu_grid_size(gemm_algo, &c, 1000, &grid, why, sizeof why), FGO_OK);
	T_EQ_INT("grid-gemm-tiles-n", grid, 512);
	gpu_grid_size(ar, &c, 1000, &grid, why, sizeof why);
	T_EQ_INT("grid-all_reduce-tiles", grid, 1000);
	gpu_grid_size(ar, &c, 2000, &grid, why, sizeof why);
	T_EQ_INT("grid-all_reduce-all-tiles", grid, 1024);
	gpu_grid_size(rs, &c, 2000, &grid, why, sizeof why);
	T_EQ_INT("grid-reduce_scatter-blocks", grid, 1024);

	c.comm_sms = 4; /* the GEMM CTAs fill what the comm CTAs leave */
	T_EQ_INT("grid-comm-fits", gpu_grid_size(ar, &c, 132, &grid, why, sizeof why), FGO_OK);
	T_EQ_INT("grid-comm-fits-n", grid, 132);
	c.comm_sms = 132;
	T_EQ_INT("grid-no-gemm-cta", gpu_grid_size(ar, &c, 132, &grid, why, sizeof why), FGO_EUSAGE);
	T_CONTAINS("grid-no-gemm-cta-reason", why, "no room for a GEMM CTA");

	c.gemm_sms = 130;
	c.comm_sms = 3;
	T_EQ_INT("grid-not-resident", gpu_grid_size(sk, &c, 132, &grid, why, sizeof why), FGO_EUSAGE);
	T_CONTAINS("grid-not-resident-reason", why, "130 GEMM + 3 comm CTAs wait on each other");
	c.comm_sms = 2;
	T_EQ_INT("grid-resident", gpu_grid_size(sk, &c, 132, &grid, why, sizeof why), FGO_OK);
	T_EQ_INT("grid-resident-n", grid, 132);

	/* plain gemm with gemm_sms > 0 is the Stream-K walk: its CTAs wait on
	 * each other too, so they must all be resident */
	c.comm_sms = 0;
	T_EQ_INT("grid-gemm-streamk-over-resident",
		 gpu_grid_size(gemm_algo, &c, 100, &grid, why, sizeof why), FGO_EUSAGE);
	T_CONTAINS("grid-gemm-streamk-over-resident-reason", why, "130 GEMM + 0 comm CTAs wait on each other");
	T_EQ_INT("grid-gemm-streamk-resident", gpu_grid_size(gemm_algo, &c, 132, &grid, why, sizeof why),
		 FGO_OK);
	T_EQ_INT("grid-gemm-streamk-resident-n", grid, 130);
}

/* The gathers on the wgmma core: where a source's M/W rows are fewer than a
 * tile's, a block holds the rows of as many sources as fit
 * (sched_owner_group), so B is streamed once for all of them; elsewhere (and
 * on the other cores) a block is one source's rows. */
static void check_gather_groups(void)
{
	char why[256] = "";
	unsigned int grid = 0;
	struct fgo_config c = gemm(FGO_BF16, 64, 128, 64, 4, 8);
	const struct fgo_algo *pull = algo_find("all_gather_gemm_pull");
	struct fgo_gemm_dims d;
	c.mma = FGO_MMA_WGMMA;
	c.world = 4;
	c.m = 16; /* 4 rows a source: the four in one 64-row block */
	c.n = 4096;
	c.k = 14336;
	algo_gemm_dims(pull, &c, &d);
	T_EQ_INT("gather-group-w4-m16-blocks", d.blocks, 1);
	T_EQ_INT("gather-group-w4-m16-rows", (int)d.m, 16);
	T_EQ_INT("gather-group-w4-m16-grid", gpu_grid_size(pull, &c, 1000, &grid, why, sizeof why), FGO_OK);
	T_EQ_INT("gather-group-w4-m16-grid-n", grid, 8); /* 1 block x 1 x 1024 / 128 */
	c.m = 128; /* 32 rows a source: two in a 64-row block */
	algo_gemm_dims(pull, &c, &d);
	T_EQ_INT("gather-group-w4-m128-blocks", d.blocks, 2);
	T_EQ_INT("gather-group-w4-m128-rows", (int)d.m, 64);
	c.m = 256; /* 64 rows a source: one a block, as before */
	algo_gemm_dims(pull, &c, &d);
	T_EQ_INT("gather-group-w4-m256-blocks", d.blocks, 4);
	T_EQ_INT("gather-group-w4-m256-rows", (int)d.m, 64);
	c.m = 16;
	c.mma = 16; /* mma.sync: one source a block at any M */
	algo_gemm_dims(pull, &c, &d);
	T_EQ_INT("gather-group-mma-blocks", d.blocks, 4);
	T_EQ_INT("gather-group-mma-rows", (int)d.m, 4);
}

/* Clusters: the grid is whole clusters over cluster tiles (M-stacked:
 * ceil(tiles_m / C) x tiles_n; K slices: one cluster a tile), never more
 * than the resident clusters; refused off the wgmma core, and where a
 * tile's K slots do not fit in shared memory. */
static void check_cluster(void)
{
	char why[256] = "";
	unsigned int grid = 0;
	struct gpu_shape s;
	const struct fgo_algo *gemm_algo = algo_find("gemm");
	/* 5 x 4 tiles of 128 x 128 (640 x 512), W=1 */
	struct fgo_config c = gemm(FGO_BF16, 128, 128, 64, 4, 12);
	snprintf(c.algorithm, sizeof c.algorithm, "gemm");
	c.world = 1;
	c.m = 640;
	c.n = 512;
	c.k = 4096;
	c.mma = FGO_MMA_WGMMA;
	c.cluster = 2; /* 3 cluster rows (one with a ghost) x 4 columns: 12 clusters */
	T_EQ_INT("cluster-grid", gpu_grid_size(gemm_algo, &c, 132, &grid, why, sizeof why), FGO_OK);
	T_EQ_INT("cluster-grid-n", grid, 24);
	T_EQ_INT("cluster-grid-resident", gpu_grid_size(gemm_algo, &c, 10, &grid, why, sizeof why), FGO_OK);
	T_EQ_INT("cluster-grid-resident-n", grid, 10); /* 5 whole clusters fit in 10 */
	gpu_grid_size(gemm_algo, &c, 9, &grid, why, sizeof why);
	T_EQ_INT("cluster-grid-whole", grid, 8); /* 9 CTAs hold 4 whole clusters */
	c.split_k = 2; /* a cluster per tile: 20 tiles, 40 CTAs */
	gpu_grid_size(gemm_algo, &c, 132, &grid, why, sizeof why);
	T_EQ_INT("cluster-k-grid", grid, 40);
	T_EQ_INT("cluster-k-fits", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
	T_EQ_INT("cluster-k-smem", s.smem_bytes,
		 FGO_WGMMA_SMEM_BYTES(128, 128, 64, 4) + FGO_WGMMA_CLUSTER_K_BYTES(128, 128, 2));
	c.num_stages = 6; /* 6 x 32 KiB, 32 KiB of C and a 64 KiB slot: past 227 KiB */
	T_EQ_INT("cluster-k-smem-limit", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_EUSAGE);
	T_CONTAINS("cluster-k-smem-limit-reason", why, "shared memory");
	c = gemm(FGO_BF16, 64, 64, 32, 2, 4); /* mma.sync */
	c.cluster = 2;
	T_EQ_INT("cluster-mma-sync", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_EUSAGE);
	T_CONTAINS("cluster-mma-sync-reason", why, "cluster=2 shares B panels through TMA multicast");
}

/* The sk_* forms with comm_sms = 0 (the CTA that ends a tile sends or sums
 * it): the wgmma core's storer and side warps do; the mma.sync core has no
 * such path and refuses with the reason. */
static void check_sk_comm0(void)
{
	char why[256] = "";
	unsigned int grid = 0;
	struct gpu_shape s;
	struct fgo_config c = gemm(FGO_BF16, 128, 128, 64, 4, 12);
	snprintf(c.algorithm, sizeof c.algorithm, "sk_all_reduce");
	c.world = 2;
	c.m = 1024;
	c.n = 4096;
	c.k = 14336;
	c.mma = FGO_MMA_WGMMA;
	c.gemm_sms = 132;
	c.comm_sms = 0;
	T_EQ_INT("sk-comm0-wgmma", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
	T_EQ_INT("sk-comm0-grid", gpu_grid_size(algo_find("sk_all_reduce"), &c, 132, &grid, why, sizeof why),
		 FGO_OK);
	T_EQ_INT("sk-comm0-grid-n", grid, 132); /* every SM a GEMM CTA */
	c.comm_sms = 8; /* 132 + 8 cannot all be resident */
	T_EQ_INT("sk-comm8-grid", gpu_grid_size(algo_find("sk_all_reduce"), &c, 132, &grid, why, sizeof why),
		 FGO_EUSAGE);
	c = gemm(FGO_BF16, 64, 64, 32, 2, 4); /* mma.sync */
	snprintf(c.algorithm, sizeof c.algorithm, "sk_all_scatter");
	c.gemm_sms = 8;
	c.comm_sms = 0;
	T_EQ_INT("sk-comm0-mma-sync", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_EUSAGE);
	T_CONTAINS("sk-comm0-mma-sync-reason", why,
		   "comm_sms=0 (the CTA that ends a tile communicates it) runs on the wgmma core");
	c.comm_sms = 2;
	T_EQ_INT("sk-comm2-mma-sync", gpu_shape_check(&c, NULL, 232448, &s, why, sizeof why), FGO_OK);
}

int main(void)
{
	check_warp_split();
	check_mma();
	check_wgmma();
	check_simt();
	check_mfma();
	check_grid();
	check_gather_groups();
	check_cluster();
	check_sk_comm0();
	T_DONE();
}
