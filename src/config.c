/* config.c: defaults, generic validation, canonical key and reproduce line
 * of one configuration. Algorithm-specific rules live with the algorithm
 * (algo->validate); this file checks what holds for every family. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "algo.h"
#include "fgo.h"
#include "sink.h"

void config_defaults(struct fgo_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	snprintf(cfg->algorithm, sizeof cfg->algorithm, "%s", "all_scatter");
	cfg->dtype = FGO_FP16;
	cfg->world = 2;
	cfg->blk_m = 64;
	cfg->blk_n = 64;
	cfg->blk_k = 32;
	cfg->num_stages = 2;
	cfg->num_warps = 4;
	cfg->mma = 16;
	cfg->gsize_m = 8;
	cfg->split_k = 1;
	cfg->cluster = 1;
}

static const char *const dtype_names[] = { "fp32", "fp16", "bf16" };

const char *dtype_name(enum fgo_dtype t)
{
	return (unsigned)t < FGO_ARRAY_SIZE(dtype_names) ? dtype_names[t] : "?";
}

int dtype_parse(const char *s, enum fgo_dtype *t)
{
	static const struct {
		const char *name;
		enum fgo_dtype t;
	} names[] = {
		{ "fp32", FGO_FP32 }, { "float32", FGO_FP32 }, { "f32", FGO_FP32 },
		{ "fp16", FGO_FP16 }, { "float16", FGO_FP16 }, { "f16", FGO_FP16 }, { "half", FGO_FP16 },
		{ "bf16", FGO_BF16 }, { "bfloat16", FGO_BF16 },
	};
	for (size_t i = 0; i < FGO_ARRAY_SIZE(names); i++) {
		if (strcasecmp(s, names[i].name) == 0) {
			*t = names[i].t;
			return 0;
		}
	}
	return -1;
}

size_t dtype_size(enum fgo_dtype t)
{
	return t == FGO_FP32 ? 4 : 2;
}

int mma_parse(const char *s, int *mma)
{
	if (strcasecmp(s, "wgmma") == 0 || strcmp(s, "64") == 0)
		*mma = FGO_MMA_WGMMA;
	else if (strcmp(s, "16") == 0)
		*mma = FGO_MMA_SYNC;
	else if (strcmp(s, "32") == 0)
		*mma = FGO_MMA_K32;
	else
		return -1;
	return 0;
}

const char *mma_name(int mma)
{
	switch (mma) {
	case FGO_MMA_SYNC: return "16";
	case FGO_MMA_K32: return "32";
	case FGO_MMA_WGMMA: return "wgmma";
	default: return "?";
	}
}

static int is_pow2(long x)
{
	return x > 0 && (x & (x - 1)) == 0;
}

#define INVALID(...)                                  \
	do {                                          \
		snprintf(reason, len, __VA_ARGS__);   \
		return 1;                             \
	} while (0)

int config_validate(const struct fgo_config *cfg, char *reason, size_t len)
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	if (!algo) {
		/* stored and planned names are the registered ones: a spelling
		 * algo_resolve would take is still suggested, not taken */
		char why[256];
		const struct fgo_algo *meant = algo_resolve(cfg->algorithm, why, sizeof why);
		if (meant)
			INVALID("unknown algorithm \"%s\" (did you mean \"%s\"?)", cfg->algorithm,
				meant->name);
		INVALID("%s", why);
	}
	if ((unsigned)cfg->dtype > FGO_BF16)
		INVALID("unknown datatype %d", (int)cfg->dtype);
	if (cfg->world < 1 || cfg->world > 1024)
		INVALID("world=%d must be between 1 and 1024", cfg->world);
	if (cfg->m <= 0 || cfg->n <= 0 || cfg->k <= 0)
		INVALID("sizes must be > 0 (M=%ld N=%ld K=%ld)", cfg->m, cfg->n, cfg->k);
	/* element counts and offsets are longs everywhere (kernels/schedule.h
	 * too): a matrix of more than 2^50 elements is beyond any memory and
	 * would overflow them */
	if ((double)cfg->m * (double)cfg->n > 0x1p50 || (double)cfg->m * (double)cfg->k > 0x1p50 ||
	    (double)cfg->k * (double)cfg->n > 0x1p50)
		INVALID("M=%ld N=%ld K=%ld: a matrix of more than 2^50 elements (M x N, M x K or K x N)"
			" is beyond any machine's memory",
			cfg->m, cfg->n, cfg->k);
	/* the Hopper core also takes sizes between the powers of two (80, 96,
	 * ...: tile counts that fill the machine's SMs where 64, 128 and 256
	 * leave a third idle, issue 49; BLK_M as A and B swapped) */
	if (!is_pow2(cfg->blk_k) || (!is_pow2(cfg->blk_m) && (cfg->mma != FGO_MMA_WGMMA || cfg->blk_m % 16)) ||
	    (!is_pow2(cfg->blk_n) && (cfg->mma != FGO_MMA_WGMMA || cfg->blk_n % 16)))
		INVALID("tile %dx%dx%d: BLK_M, BLK_N and BLK_K must be powers of two (BLK_M and BLK_N"
			" multiples of 16 with mma=wgmma)",
			cfg->blk_m, cfg->blk_n, cfg->blk_k);
	/* BLK_M 8 on the Hopper core: A and B swapped (kernels/core_wgmma.h) */
	if (cfg->blk_m < (cfg->mma == FGO_MMA_WGMMA ? 8 : 16) || cfg->blk_n < 16 || cfg->blk_k < 16 ||
	    cfg->blk_m > 512 || cfg->blk_n > 512 || cfg->blk_k > 512)
		INVALID("tile %dx%dx%d: each side must be between 16 and 512 (BLK_M 8 with mma=wgmma)", cfg->blk_m,
			cfg->blk_n, cfg->blk_k);
	/* the Hopper core's ring is mbarriers and TMA, as deep as shared memory
	 * allows (gpu_shape_check refuses what does not fit): skinny tiles
	 * keep more loads in flight with it; the other cores' cp.async groups
	 * stay at 8 */
	if (cfg->num_stages < 1 || cfg->num_stages > (cfg->mma == FGO_MMA_WGMMA ? 16 : 8))
		INVALID("num_stages=%d must be between 1 and %d", cfg->num_stages,
			cfg->mma == FGO_MMA_WGMMA ? 16 : 8);
	if (cfg->mma != FGO_MMA_SYNC && cfg->mma != FGO_MMA_K32 && cfg->mma != FGO_MMA_WGMMA)
		INVALID("mma=%d must be 16, 32 or wgmma", cfg->mma);
	/* wgmma's CTAs are whole warpgroups: 8 or 12 warps are natural there */
	if (cfg->mma == FGO_MMA_WGMMA ? cfg->num_warps % 4 != 0 || cfg->num_warps > 32
				      : !is_pow2(cfg->num_warps) || cfg->num_warps > 32)
		INVALID("num_warps=%d must be %s up to 32", cfg->num_warps,
			cfg->mma == FGO_MMA_WGMMA ? "a multiple of 4 (whole warpgroups)" : "a power of two");
	if (cfg->blk_k % (cfg->mma == FGO_MMA_WGMMA ? 16 : cfg->mma) != 0)
		INVALID("BLK_K=%d is not a multiple of the instruction's K (%d)", cfg->blk_k,
			cfg->mma == FGO_MMA_WGMMA ? 16 : cfg->mma);
	if (cfg->gsize_m < 1)
		INVALID("gsize_m=%d must be >= 1", cfg->gsize_m);
	if (cfg->gemm_sms < 0 || cfg->comm_sms < 0)
		INVALID("gemm_sms=%d and comm_sms=%d must be >= 0", cfg->gemm_sms, cfg->comm_sms);
	if (cfg->comm_blk_m < 0 || cfg->comm_blk_n < 0 ||
	    (cfg->comm_blk_m && !is_pow2(cfg->comm_blk_m)) ||
	    (cfg->comm_blk_n && !is_pow2(cfg->comm_blk_n)))
		INVALID("comm tile %dx%d: each side must be 0 (the GEMM tile) or a power of two",
			cfg->comm_blk_m, cfg->comm_blk_n);
	if (cfg->split_k < 1 || cfg->split_k > FGO_SPLIT_K_MAX)
		INVALID("split_k=%d must be between 1 and %d", cfg->split_k, FGO_SPLIT_K_MAX);
	if (cfg->split_k > 1) {
		/* the slices of the K a rank's GEMM runs over (K/W when K-sharded) */
		struct fgo_gemm_dims d;
		algo_gemm_dims(algo, cfg, &d);
		long k_iters = (d.k + cfg->blk_k - 1) / cfg->blk_k;
		if (!algo->split_k)
			INVALID("%s has no split-K form (split_k=%d must be 1): its walk is Stream-K"
				" over gemm_sms CTAs",
				cfg->algorithm, cfg->split_k);
		if (cfg->gemm_sms > 0)
			INVALID("split_k=%d and gemm_sms=%d: pick one walk, split-K (gemm_sms=0) or"
				" data-parallel + Stream-K over gemm_sms CTAs (split_k=1)",
				cfg->split_k, cfg->gemm_sms);
		if (d.k > 0 && cfg->split_k > k_iters)
			INVALID("split_k=%d exceeds the %ld BLK_K slices of %s=%ld (use split_k <= %ld)",
				cfg->split_k, k_iters, d.k == cfg->k ? "K" : "K/W", d.k, k_iters);
	}
	if (cfg->deterministic != 0 && cfg->deterministic != 1)
		INVALID("deterministic=%d must be 0 or 1", cfg->deterministic);
	if (cfg->deterministic && cfg->split_k <= 1 && cfg->gemm_sms <= 0)
		INVALID("deterministic=1 fixes the order of split-K or Stream-K partial sums; this"
			" walk has none (give split_k > 1 or gemm_sms > 0, or deterministic=0)");
	if (cfg->cluster != 0 && cfg->cluster != 1 && cfg->cluster != 2 && cfg->cluster != 4 &&
	    cfg->cluster != 8)
		INVALID("cluster=%d must be 1, 2, 4 or 8 (CTAs of a thread block cluster)", cfg->cluster);
	/* a cluster holds what its CTAs share: tile rows and their B panels
	 * (split_k 1), or the K slices of one tile (kernels/schedule.h) */
	if (cfg->cluster > 1 && cfg->split_k > 1 && cfg->split_k != cfg->cluster)
		INVALID("split_k=%d and cluster=%d: with split_k > 1 a cluster holds the K slices of"
			" one tile, summed on chip (give split_k = cluster, or cluster=1 to sum them"
			" through L2)",
			cfg->split_k, cfg->cluster);
	if (cfg->cluster > 1 && cfg->gemm_sms > 0)
		INVALID("cluster=%d and gemm_sms=%d: a cluster's CTAs walk whole tiles or split-K"
			" slices together; the Stream-K walk over gemm_sms CTAs takes cluster=1",
			cfg->cluster, cfg->gemm_sms);
	if (cfg->cluster > 1 && cfg->comm_sms > 0)
		INVALID("cluster=%d and comm_sms=%d: the communication CTAs would split a cluster"
			" (give comm_sms=0 or cluster=1)",
			cfg->cluster, cfg->comm_sms);
	if (cfg->cluster > 1 && algo->user)
		INVALID("cluster=%d: a user kernel launches its own grid (cluster must be 1)",
			cfg->cluster);
	if (cfg->comm_sms > 0 && algo->comm_ctas == FGO_COMM_CTAS_NONE)
		INVALID("%s has no communication CTAs (comm_sms=%d must be 0)", cfg->algorithm,
			cfg->comm_sms);
	if (algo->validate)
		return algo->validate(cfg, reason, len);
	return 0;
}

void config_key(const struct fgo_config *cfg, char *key, size_t len)
{
	snprintf(key, len,
		 "%s/%s/w%d/m%ldn%ldk%ld/b%dx%dx%d/s%d/wp%d/mma%d/g%d/sm%d+%d/c%dx%d",
		 cfg->algorithm, dtype_name(cfg->dtype), cfg->world, cfg->m, cfg->n, cfg->k,
		 cfg->blk_m, cfg->blk_n, cfg->blk_k, cfg->num_stages, cfg->num_warps, cfg->mma,
		 cfg->gsize_m, cfg->gemm_sms, cfg->comm_sms, cfg->comm_blk_m, cfg->comm_blk_n);
	/* only when split: the keys of every run stored before split_k stay */
	size_t n = strlen(key);
	if (cfg->split_k != 1 && n < len)
		n += (size_t)snprintf(key + n, len - n, "/sk%d", cfg->split_k);
	if (cfg->deterministic && n < len)
		n += (size_t)snprintf(key + n, len - n, "/det");
	if (cfg->cluster > 1 && n < len) /* as split_k: older keys stay */
		n += (size_t)snprintf(key + n, len - n, "/cl%d", cfg->cluster);
	/* a user kernel's tunables, then the version of its sources: an edited
	 * kernel is another configuration (regress pairs them without it) */
	if (cfg->params[0] && n < len)
		n += (size_t)snprintf(key + n, len - n, "/u:%s", cfg->params);
	if (cfg->source_hash[0] && n < len)
		snprintf(key + n, len - n, FGO_KEY_SOURCE "%s", cfg->source_hash);
}

size_t config_key_sans_source(const char *key)
{
	const char *at = strstr(key, FGO_KEY_SOURCE);
	return at ? (size_t)(at - key) : strlen(key);
}

void config_hash(const struct fgo_config *cfg, char out[17])
{
	char key[FGO_KEY_MAX];
	config_key(cfg, key, sizeof key);
	snprintf(out, 17, "%016llx", (unsigned long long)fnv1a64(key, strlen(key)));
}

void config_reproduce_user(const struct fgo_config *cfg, const char *spec, const char *manifest,
			   char *out, size_t len)
{
	char s[1024], m[1024];
	sink_shell(spec, s, sizeof s); /* from a store: pasted into a shell */
	sink_shell(manifest, m, sizeof m);
	snprintf(out, len,
		 "mpirun -np %d fgobench sweep %s --kernel %s --datatype %s --world %d -m %ld -n %ld"
		 " -k %ld",
		 cfg->world, s, m, dtype_name(cfg->dtype), cfg->world, cfg->m, cfg->n, cfg->k);
}

void config_reproduce_line(const struct fgo_config *cfg, char *out, size_t len)
{
	char algo[4 * sizeof cfg->algorithm + 8];
	if (cfg->params[0] || !strncmp(cfg->algorithm, "user:", 5)) {
		const struct fgo_algo *a = algo_find(cfg->algorithm);
		config_reproduce_user(cfg, "SPEC", a && a->manifest ? a->manifest : "MANIFEST", out, len);
		return;
	}
	sink_shell(cfg->algorithm, algo, sizeof algo); /* from a store: pasted into a shell */
	int n = snprintf(out, len,
			 "mpirun -np %d fgobench run --algorithm %s --datatype %s --world %d"
			 " -m %ld -n %ld -k %ld --BLK_M %d --BLK_N %d --BLK_K %d"
			 " --num_stages %d --num_warps %d --mma %s --gsize_m %d"
			 " --gemm_sms %d --comm_sms %d",
			 cfg->world, algo, dtype_name(cfg->dtype), cfg->world, cfg->m,
			 cfg->n, cfg->k, cfg->blk_m, cfg->blk_n, cfg->blk_k, cfg->num_stages,
			 cfg->num_warps, mma_name(cfg->mma), cfg->gsize_m, cfg->gemm_sms, cfg->comm_sms);
	if (n > 0 && (size_t)n < len && (cfg->comm_blk_m || cfg->comm_blk_n))
		n += snprintf(out + n, len - (size_t)n, " --comm_blk_m %d --comm_blk_n %d",
			      cfg->comm_blk_m, cfg->comm_blk_n);
	if (n > 0 && (size_t)n < len && cfg->split_k != 1)
		n += snprintf(out + n, len - (size_t)n, " --split_k %d", cfg->split_k);
	if (n > 0 && (size_t)n < len && cfg->deterministic)
		n += snprintf(out + n, len - (size_t)n, " --deterministic 1");
	if (n > 0 && (size_t)n < len && cfg->cluster > 1)
		snprintf(out + n, len - (size_t)n, " --cluster %d", cfg->cluster);
}

double config_flops(const struct fgo_config *cfg)
{
	return 2.0 * (double)cfg->m * (double)cfg->n * (double)cfg->k;
}
