/* config.h: one kernel configuration (problem shape, algorithm, tunables),
 * its validation, its canonical key and its reproduce line.
 *
 * A configuration is plain data: the spec expands into an array of them,
 * the runner runs them, the store keeps every field as its own column. */
#ifndef FGO_CONFIG_H
#define FGO_CONFIG_H

#include <stddef.h>
#include <stdint.h>

enum fgo_dtype {
	FGO_FP32 = 0,
	FGO_FP16 = 1,
	FGO_BF16 = 2,
};

#define FGO_ALGO_NAME_MAX 32
#define FGO_KEY_MAX 512 /* a user kernel's params and source hash make keys long */
#define FGO_PARAMS_MAX 304 /* a user kernel's "NAME=V,...": 8 tunables, 24-character names, int values */
#define FGO_SPLIT_K_MAX 256
#define FGO_REASON_MAX 256

struct fgo_config {
	char algorithm[FGO_ALGO_NAME_MAX]; /* registry name, e.g. "all_reduce_one_shot" */
	enum fgo_dtype dtype;              /* element type of A, B and C; accumulation is fp32 */
	int world;                         /* ranks (GPUs) taking part */
	long m, n, k;                      /* global problem: C(MxN) = A(MxK) x B(KxN) */
	int blk_m, blk_n, blk_k;           /* GEMM tile */
	int num_stages;                    /* software pipeline depth */
	int num_warps;                     /* warps per CTA */
	int mma;                           /* matrix instruction: FGO_MMA_* (16: mma.sync m16n8k16) */
	int gsize_m;                       /* grouped tile order: tiles of GSIZE_M rows share B */
	int gemm_sms;                      /* CTAs doing GEMM work (0: one per tile, no Stream-K) */
	int comm_sms;                      /* CTAs doing communication (0: fused into GEMM CTAs) */
	int comm_blk_m, comm_blk_n;        /* communication tile (0: the GEMM tile) */
	int split_k;                       /* K cut into split_k slices per tile, summed in fp32 (1: none) */
	int deterministic;                 /* 1: split-K / Stream-K partial sums added in a fixed order,
					    * bitwise repeatable (0: as they arrive, atomics on the GPU) */
	int cluster;                       /* CTAs per thread block cluster, stacked along M: their
					    * tiles share a B panel, loaded once per cluster (TMA
					    * multicast on the wgmma core); 1 (or 0): no cluster */
	/* A user kernel's (algorithm "user:NAME", src/user/user.h): its
	 * tunables' values as "NAME=V,NAME=V" in its manifest's order, and the
	 * FNV-1a of its manifest and sources; "" for the built-in families.
	 * Both are in the key. */
	char params[FGO_PARAMS_MAX];
	char source_hash[17];
	/* Not part of the configuration (not in its key): which of these a spec
	 * or a flag gave (FGO_GIVEN_*). What is left to the default is fitted:
	 * the core to the target (kit_fit_core), the tile to the shape
	 * (kit_fit_tile), the tile, split and gather chunk to the defaults
	 * table (spec/defaults.h). */
	unsigned short given;
};
#define FGO_GIVEN_BLK_M 1
#define FGO_GIVEN_BLK_N 2
#define FGO_GIVEN_BLK_K 4
#define FGO_GIVEN_WARPS 8
#define FGO_GIVEN_STAGES 16
#define FGO_GIVEN_MMA 32
#define FGO_GIVEN_SPLIT_K 64
#define FGO_GIVEN_COMM_BLK 128 /* comm_blk_m or comm_blk_n */
#define FGO_GIVEN_SMS 256      /* gemm_sms or comm_sms */
#define FGO_GIVEN_CLUSTER 512
/* The fields a default tile is: none of them given, the table may set the
 * tile (spec/defaults.h). */
#define FGO_GIVEN_TILE                                                                    \
	(FGO_GIVEN_BLK_M | FGO_GIVEN_BLK_N | FGO_GIVEN_BLK_K | FGO_GIVEN_WARPS |          \
	 FGO_GIVEN_STAGES)

/* Whether cfg's cluster holds the K slices of one tile (split_k = cluster,
 * summed in distributed shared memory) rather than tile rows sharing B
 * (split_k 1): the walk, the grid, shared memory and the cost model follow. */
static inline int config_cluster_k(const struct fgo_config *cfg)
{
	return cfg->cluster > 1 && cfg->split_k == cfg->cluster;
}

/* The matrix instruction a configuration's GEMM core uses. The stored
 * value is 16 for mma.sync (NVIDIA) and for AMD's 16 x 16 MFMA, 32 for the
 * 32 x 32 MFMA (M = N of the instruction on AMD), and 64 for Hopper's wgmma
 * (its M: m64nNk16), so runs stored before wgmma existed keep their meaning
 * and key. */
#define FGO_MMA_SYNC 16  /* mma.sync m16n8k16 (NVIDIA), v_mfma_f32_16x16x16 (AMD) */
#define FGO_MMA_K32 32   /* v_mfma_f32_32x32x8 (AMD gfx90a, gfx942) */
#define FGO_MMA_WGMMA 64 /* wgmma.mma_async m64nNk16 (Hopper, sm_90a) */

/* "16", "32", "wgmma" (or "64") -> *mma; 0 ok, -1 unknown. */
int mma_parse(const char *s, int *mma);
/* The name of an mma value: "16", "32", "wgmma". */
const char *mma_name(int mma);

/* Defaults for tunables a spec or the command line leaves out. */
void config_defaults(struct fgo_config *cfg);

const char *dtype_name(enum fgo_dtype t);          /* "fp32", "fp16", "bf16" */
int dtype_parse(const char *s, enum fgo_dtype *t); /* 0 ok; accepts fp32|fp16|bf16|float32|float16|bfloat16 */
size_t dtype_size(enum fgo_dtype t);

/* Checks everything that makes a configuration impossible: sizes <= 0,
 * tiles that exceed the problem, divisibility the algorithm needs, an
 * unknown algorithm. Returns 0 when valid, else 1 with a one-line reason
 * (no trailing period) written to reason. */
int config_validate(const struct fgo_config *cfg, char *reason, size_t len);

/* Canonical key: every field in a fixed order, so two equal configurations
 * always have the same key. Writes at most len bytes; returns reason-free. */
void config_key(const struct fgo_config *cfg, char *key, size_t len);

/* Where a key's source hash starts (a user kernel's, "/src:" and 16 hex
 * digits at the end): the length of the key without it, strlen(key) when
 * there is none. regress pairs an edited kernel's runs with the ones
 * before by the key without it. */
#define FGO_KEY_SOURCE "/src:"
size_t config_key_sans_source(const char *key);

/* 16 hex digits of FNV-1a over the key. */
void config_hash(const struct fgo_config *cfg, char out[17]);

/* The `fgobench run ...` command line that reproduces cfg; for a user
 * kernel's, config_reproduce_user's with SPEC (and MANIFEST where this
 * process has not read the kernel) left for the reader to fill. */
void config_reproduce_line(const struct fgo_config *cfg, char *out, size_t len);
/* The line that sweeps a user kernel again at cfg's problem: spec (its
 * shapes replaced by cfg's) with --kernel manifest, every tunable value
 * set of the manifest (fgobench run has no --kernel). */
void config_reproduce_user(const struct fgo_config *cfg, const char *spec, const char *manifest,
			   char *out, size_t len);

/* FLOPs of the global problem: 2*M*N*K. */
double config_flops(const struct fgo_config *cfg);

#endif
