/* test_config.c: one configuration (src/config.c): defaults, the dtype
 * names, config_validate for good and bad configurations (generic and
 * per-family rules), the canonical key and its hash, the reproduce line (it
 * must parse back, through the run/sweep flag parser, to the same
 * configuration) and the FLOP count. */
#include <ctype.h>
#include <stdlib.h>

#include "algo.h"
#include "cmd/cmd.h"
#include "config.h"
#include "fgo.h"
#include "testlib.h"

/* all_scatter, fp16, 2 ranks, 256^3, default tiles: valid for every family
 * once gemm_sms and comm_sms are set. */
static struct fgo_config good(void)
{
	struct fgo_config c;
	config_defaults(&c);
	c.m = c.n = c.k = 256;
	return c;
}

static void check_defaults(void)
{
	struct fgo_config c;
	memset(&c, 0x5a, sizeof c); /* defaults must set every field, whatever was there */
	config_defaults(&c);
	T_EQ_STR("defaults-algorithm", c.algorithm, "all_scatter");
	T_EQ_INT("defaults-dtype", c.dtype, FGO_FP16);
	T_EQ_INT("defaults-world", c.world, 2);
	T_CHECK("defaults-shape-unset", c.m == 0 && c.n == 0 && c.k == 0, "M N K = %ld %ld %ld", c.m,
		c.n, c.k);
	T_CHECK("defaults-tile", c.blk_m == 64 && c.blk_n == 64 && c.blk_k == 32, "tile %dx%dx%d",
		c.blk_m, c.blk_n, c.blk_k);
	T_EQ_INT("defaults-num_stages", c.num_stages, 2);
	T_EQ_INT("defaults-num_warps", c.num_warps, 4);
	T_EQ_INT("defaults-mma", c.mma, 16);
	T_EQ_INT("defaults-gsize_m", c.gsize_m, 8);
	T_CHECK("defaults-sms-zero", c.gemm_sms == 0 && c.comm_sms == 0, "sms %d+%d", c.gemm_sms,
		c.comm_sms);
	T_CHECK("defaults-comm-tile-zero", c.comm_blk_m == 0 && c.comm_blk_n == 0, "comm tile %dx%d",
		c.comm_blk_m, c.comm_blk_n);
	T_EQ_INT("defaults-cluster", c.cluster, 1);
	char reason[FGO_REASON_MAX] = "";
	T_CHECK("defaults-without-shape-invalid", config_validate(&c, reason, sizeof reason) == 1,
		"defaults with M=N=K=0 validated");
	T_CONTAINS("defaults-without-shape-reason", reason, "sizes must be > 0");
	c.m = c.n = c.k = 256;
	reason[0] = 0;
	T_CHECK("defaults-with-shape-valid", config_validate(&c, reason, sizeof reason) == 0,
		"defaults at 256^3 invalid: %s", reason);
}

static void check_dtype(void)
{
	static const struct {
		const char *s;
		enum fgo_dtype t;
	} ok[] = {
		{ "fp32", FGO_FP32 }, { "float32", FGO_FP32 }, { "f32", FGO_FP32 }, { "FP32", FGO_FP32 },
		{ "fp16", FGO_FP16 }, { "float16", FGO_FP16 }, { "f16", FGO_FP16 }, { "half", FGO_FP16 },
		{ "Fp16", FGO_FP16 }, { "bf16", FGO_BF16 }, { "bfloat16", FGO_BF16 },
		{ "BFloat16", FGO_BF16 },
	};
	static const char *const bad[] = { "fp8", "", "fp16 ", " fp16", "bf", "float", "int8", "fp64" };
	char id[64];
	for (size_t i = 0; i < FGO_ARRAY_SIZE(ok); i++) {
		enum fgo_dtype t = (enum fgo_dtype)99;
		int rc = dtype_parse(ok[i].s, &t);
		snprintf(id, sizeof id, "dtype_parse-%s", ok[i].s);
		T_CHECK(id, rc == 0 && t == ok[i].t, "rc %d, type %d (want 0, %d)", rc, (int)t,
			(int)ok[i].t);
	}
	for (size_t i = 0; i < FGO_ARRAY_SIZE(bad); i++) {
		enum fgo_dtype t = FGO_BF16;
		int rc = dtype_parse(bad[i], &t);
		snprintf(id, sizeof id, "dtype_parse-rejects-\"%s\"", bad[i]);
		T_CHECK(id, rc != 0 && t == FGO_BF16, "rc %d, type changed to %d", rc, (int)t);
	}
	T_EQ_STR("dtype_name-fp32", dtype_name(FGO_FP32), "fp32");
	T_EQ_STR("dtype_name-fp16", dtype_name(FGO_FP16), "fp16");
	T_EQ_STR("dtype_name-bf16", dtype_name(FGO_BF16), "bf16");
	T_EQ_STR("dtype_name-out-of-range", dtype_name((enum fgo_dtype)7), "?");
	T_EQ_INT("dtype_size-fp32", dtype_size(FGO_FP32), 4);
	T_EQ_INT("dtype_size-fp16", dtype_size(FGO_FP16), 2);
	T_EQ_INT("dtype_size-bf16", dtype_size(FGO_BF16), 2);
	long roundtrip_bad = 0;
	for (int t = FGO_FP32; t <= FGO_BF16; t++) {
		enum fgo_dtype back = (enum fgo_dtype)99;
		roundtrip_bad += dtype_parse(dtype_name((enum fgo_dtype)t), &back) != 0 || (int)back != t;
	}
	T_EQ_INT("dtype-name-parse-roundtrip", roundtrip_bad, 0);
}

static void expect_valid(const char *id, const struct fgo_config *c)
{
	char reason[FGO_REASON_MAX];
	snprintf(reason, sizeof reason, "(untouched)");
	int rc = config_validate(c, reason, sizeof reason);
	T_CHECK(id, rc == 0, "%s m%ld n%ld k%ld w%d tile %dx%dx%d: invalid: %s", c->algorithm, c->m,
		c->n, c->k, c->world, c->blk_m, c->blk_n, c->blk_k, reason);
}

static void expect_invalid(const char *id, const struct fgo_config *c, const char *what)
{
	char reason[FGO_REASON_MAX], name[96];
	reason[0] = 0;
	int rc = config_validate(c, reason, sizeof reason);
	snprintf(name, sizeof name, "%s-rc", id);
	T_EQ_INT(name, rc, 1);
	snprintf(name, sizeof name, "%s-reason", id);
	T_CONTAINS(name, reason, what);
	size_t n = strlen(reason);
	snprintf(name, sizeof name, "%s-one-line", id);
	T_CHECK(name, n > 0 && reason[n - 1] != '.' && !strchr(reason, '\n'),
		"reason \"%s\" is empty, ends with a period or has a newline", reason);
}

static void check_validate_good(void)
{
	char id[96];
	/* every registered family at a size that suits them all */
	for (const struct fgo_algo *const *a = fgo_algos; *a; a++) {
		struct fgo_config c = good();
		snprintf(c.algorithm, sizeof c.algorithm, "%s", (*a)->name);
		c.gemm_sms = 4;
		c.comm_sms = (*a)->comm_ctas == FGO_COMM_CTAS_NONE ? 0 : 2;
		snprintf(id, sizeof id, "valid-%s", (*a)->name);
		expect_valid(id, &c);
		/* the sk_* forms without comm CTAs: the CTA that ends a tile communicates */
		if ((*a)->comm_ctas == FGO_COMM_CTAS_REQUIRED) {
			c.comm_sms = 0;
			snprintf(id, sizeof id, "valid-%s-comm0", (*a)->name);
			expect_valid(id, &c);
		}
	}
	/* every family but sk_* splits K (K/W when K-sharded); Stream-K past the
	 * iterations there are is fine (idle CTAs) */
	for (const struct fgo_algo *const *a = fgo_algos; *a; a++) {
		struct fgo_config c = good();
		if (strncmp((*a)->name, "sk_", 3) == 0)
			continue;
		snprintf(c.algorithm, sizeof c.algorithm, "%s", (*a)->name);
		c.split_k = 4;
		snprintf(id, sizeof id, "valid-split-%s", (*a)->name);
		expect_valid(id, &c);
		c.split_k = 1;
		c.gemm_sms = 100000;
		snprintf(id, sizeof id, "valid-stream-k-idle-%s", (*a)->name);
		expect_valid(id, &c);
	}
	struct fgo_config c = good();
	c.world = 1;
	expect_valid("valid-world-1", &c);
	c = good();
	c.world = 1024;
	c.n = 1024L * 64;
	expect_valid("valid-world-1024", &c);
	c = good();
	c.m = 1; /* decode: a 16-row tile is how a GPU does M=1 */
	c.blk_m = 16;
	expect_valid("valid-m1-blk16", &c);
	c = good();
	c.m = 20; /* BLK_M up to the next power of two of M */
	c.blk_m = 32;
	expect_valid("valid-m20-blk32", &c);
	c = good();
	c.m = c.k = 512;
	c.n = 1024;
	c.blk_m = c.blk_n = c.blk_k = 512;
	expect_valid("valid-tile-512", &c);
	c = good();
	c.blk_m = c.blk_n = c.blk_k = 16;
	expect_valid("valid-tile-16", &c);
	c = good();
	c.mma = 32;
	expect_valid("valid-mma32", &c);
	c = good();
	c.mma = FGO_MMA_WGMMA; /* a producer and two consumer warpgroups */
	c.num_warps = 12;
	c.blk_k = 64;
	expect_valid("valid-wgmma-12-warps", &c);
	{
		int mma = 0;
		T_EQ_INT("mma-parse-wgmma", mma_parse("wgmma", &mma) == 0 && mma == FGO_MMA_WGMMA, 1);
		T_EQ_INT("mma-parse-64", mma_parse("64", &mma) == 0 && mma == FGO_MMA_WGMMA, 1);
		T_EQ_INT("mma-parse-16", mma_parse("16", &mma) == 0 && mma == 16, 1);
		T_EQ_INT("mma-parse-bad", mma_parse("hgmma", &mma), -1);
		T_EQ_STR("mma-name-wgmma", mma_name(FGO_MMA_WGMMA), "wgmma");
		T_EQ_STR("mma-name-32", mma_name(32), "32");
	}
	c = good();
	c.num_stages = 8;
	c.num_warps = 32;
	expect_valid("valid-stages8-warps32", &c);
	c = good();
	c.num_stages = 1;
	c.num_warps = 1;
	expect_valid("valid-stages1-warps1", &c);
	c = good();
	c.comm_blk_m = 128;
	c.comm_blk_n = 32;
	expect_valid("valid-comm-tile", &c);
	c = good();
	c.dtype = FGO_BF16;
	expect_valid("valid-bf16", &c);
	c = good();
	snprintf(c.algorithm, sizeof c.algorithm, "reduce_scatter");
	c.world = 3;
	c.m = 96;
	c.k = 96;
	c.blk_m = c.blk_n = c.blk_k = 16;
	expect_valid("valid-reduce_scatter-w3", &c);
	c = good(); /* the Hopper core with A and B swapped: 8-row tiles */
	c.blk_m = 8;
	c.mma = FGO_MMA_WGMMA;
	expect_valid("valid-blk-m-8-wgmma", &c);
	c = good(); /* the Hopper core's widths between the powers of two */
	c.blk_m = 128;
	c.blk_n = 80;
	c.mma = FGO_MMA_WGMMA;
	expect_valid("valid-blk-n-80-wgmma", &c);
	c.blk_m = 80; /* A and B swapped */
	c.blk_n = 64;
	expect_valid("valid-blk-m-80-wgmma", &c);
	c.blk_m = 128;
	c.n = 512; /* all_scatter's N/W = 256 */
	c.blk_n = 240;
	expect_valid("valid-blk-n-240-wgmma", &c);
}

static void check_validate_bad(void)
{
	struct fgo_config c;
#define BAD(id, what, ...)                 \
	do {                               \
		c = good();                \
		__VA_ARGS__;               \
		expect_invalid(id, &c, what); \
	} while (0)
#define ALGO(name) snprintf(c.algorithm, sizeof c.algorithm, "%s", name)

	BAD("bad-algorithm-typo", "unknown algorithm \"all_scater\" (did you mean \"all_scatter\"?)",
	    ALGO("all_scater"));
	BAD("bad-algorithm-unknown", "unknown algorithm \"zzzzzzzzzz\" (`fgobench info` lists them)",
	    ALGO("zzzzzzzzzz"));
	BAD("bad-algorithm-empty", "unknown algorithm \"\"", ALGO(""));
	BAD("bad-dtype", "unknown datatype 3", c.dtype = (enum fgo_dtype)3);
	BAD("bad-world-0", "world=0 must be between 1 and 1024", c.world = 0);
	BAD("bad-world-1025", "world=1025 must be between 1 and 1024", c.world = 1025);
	BAD("bad-m-0", "sizes must be > 0 (M=0 N=256 K=256)", c.m = 0);
	BAD("bad-k-negative", "sizes must be > 0", c.k = -5);
	BAD("bad-blk-not-pow2", "tile 48x64x32: BLK_M, BLK_N and BLK_K must be powers of two",
	    c.blk_m = 48);
	BAD("bad-blk-zero", "must be powers of two", c.blk_n = 0);
	BAD("bad-blk-n-80-mma16", "tile 64x80x32: BLK_M, BLK_N and BLK_K must be powers of two (BLK_M and"
	    " BLK_N multiples of 16 with mma=wgmma)", c.blk_n = 80);
	BAD("bad-blk-n-72-wgmma", "BLK_N multiples of 16 with mma=wgmma", (c.blk_n = 72, c.mma = FGO_MMA_WGMMA));
	BAD("bad-blk-m-72-wgmma", "BLK_M and BLK_N multiples of 16 with mma=wgmma", (c.blk_m = 72, c.mma = FGO_MMA_WGMMA));
	BAD("bad-blk-small", "tile 64x64x8: each side must be between 16 and 512", c.blk_k = 8);
	BAD("bad-blk-m-8", "tile 8x64x32: each side must be between 16 and 512 (BLK_M 8 with mma=wgmma)",
	    c.blk_m = 8); /* mma.sync's 16-row instructions */
	BAD("bad-blk-m-4-wgmma", "each side must be between 16 and 512", (c.blk_m = 4, c.mma = FGO_MMA_WGMMA));
	BAD("bad-blk-large", "each side must be between 16 and 512", c.blk_n = 1024);
	BAD("bad-stages-0", "num_stages=0 must be between 1 and 8", c.num_stages = 0);
	BAD("bad-stages-9", "num_stages=9 must be between 1 and 8", c.num_stages = 9);
	BAD("bad-stages-17-wgmma", "num_stages=17 must be between 1 and 16",
	    (c.mma = FGO_MMA_WGMMA, c.blk_k = 64, c.num_warps = 8, c.num_stages = 17));
	BAD("bad-warps-6", "num_warps=6 must be a power of two up to 32", c.num_warps = 6);
	BAD("bad-warps-64", "num_warps=64 must be a power of two up to 32", c.num_warps = 64);
	BAD("bad-warps-0", "num_warps=0", c.num_warps = 0);
	BAD("bad-too-many-elements", "a matrix of more than 2^50 elements", c.m = c.n = 1L << 26);
	BAD("bad-mma-8", "mma=8 must be 16, 32 or wgmma", c.mma = 8);
	BAD("bad-blk_k-vs-mma", "BLK_K=16 is not a multiple of the instruction's K (32)", c.mma = 32; c.blk_k = 16);
	BAD("bad-warps-12-mma-sync", "num_warps=12 must be a power of two", c.num_warps = 12);
	BAD("bad-warps-6-wgmma", "num_warps=6 must be a multiple of 4 (whole warpgroups)",
	    c.mma = FGO_MMA_WGMMA; c.num_warps = 6);
	BAD("bad-gsize_m-0", "gsize_m=0 must be >= 1", c.gsize_m = 0);
	BAD("bad-gemm_sms-negative", "gemm_sms=-1 and comm_sms=0 must be >= 0", c.gemm_sms = -1);
	BAD("bad-comm_sms-negative", "must be >= 0", c.comm_sms = -3);
	BAD("bad-comm-tile-not-pow2", "comm tile 48x0", c.comm_blk_m = 48);
	BAD("bad-comm-tile-negative", "comm tile", c.comm_blk_n = -16);

	/* per-family rules */
	BAD("bad-all_scatter-n-divisible", "N=256 is not divisible by world=3", c.world = 3);
	BAD("bad-reduce_scatter-m-divisible", "M=100 is not divisible by world=3",
	    ALGO("reduce_scatter"); c.world = 3; c.m = 100; c.k = 96; c.blk_m = c.blk_n = c.blk_k = 16);
	BAD("bad-all_reduce-k-divisible", "K=100 is not divisible by world=3",
	    ALGO("all_reduce_one_shot"); c.world = 3; c.k = 100);
	BAD("bad-all_gather-m-divisible", "M=99 is not divisible by world=2",
	    ALGO("all_gather_gemm_pull"); c.m = 99);
	BAD("bad-blk_m-exceeds-m", "BLK_M=128 exceeds M=32 (use BLK_M <= 32)", c.m = 32; c.blk_m = 128);
	BAD("bad-blk_m-exceeds-m1", "BLK_M=32 exceeds M=1 (use BLK_M <= 16)", c.m = 1; c.blk_m = 32);
	BAD("bad-blk_m-exceeds-m20", "BLK_M=64 exceeds M=20 (use BLK_M <= 32)", c.m = 20);
	BAD("bad-blk_n-exceeds-shard", "BLK_N=128 exceeds N/W=64 (use BLK_N <= 64)",
	    c.n = 128; c.blk_n = 128);
	BAD("bad-blk_k-exceeds-k", "BLK_K=64 exceeds K=20 (use BLK_K <= 32)", c.k = 20; c.blk_k = 64);
	BAD("bad-blk_k-exceeds-k-slice", "BLK_K=64 exceeds K/W=32 (use BLK_K <= 32)",
	    ALGO("all_reduce_two_shot"); c.k = 64; c.blk_k = 64);
	BAD("bad-all_scatter-comm-ctas", "all_scatter has no communication CTAs (comm_sms=2 must be 0)",
	    ALGO("all_scatter"); c.comm_sms = 2);
	BAD("bad-sk_all_scatter-sms",
	    "sk_all_scatter needs gemm_sms >= 1, its Stream-K GEMM CTAs (got gemm_sms=0); beside"
	    " them comm_sms >= 0 CTAs communicate (0: the CTA that ends a tile does)",
	    ALGO("sk_all_scatter"); c.comm_sms = 2);
	BAD("bad-sk_all_reduce-sms", "sk_all_reduce needs gemm_sms >= 1, its Stream-K GEMM CTAs",
	    ALGO("sk_all_reduce"); c.comm_sms = 0);
	BAD("bad-sk_all_reduce-comm-negative", "gemm_sms=4 and comm_sms=-1 must be >= 0",
	    ALGO("sk_all_reduce"); c.gemm_sms = 4; c.comm_sms = -1);
	/* the walk: split-K or data-parallel + Stream-K, never both; none split on sk_* */
	BAD("bad-split-with-gemm_sms",
	    "split_k=2 and gemm_sms=4: pick one walk, split-K (gemm_sms=0) or data-parallel +"
	    " Stream-K over gemm_sms CTAs (split_k=1)",
	    c.split_k = 2; c.gemm_sms = 4);
	BAD("bad-split-with-gemm_sms-reduce", "pick one walk",
	    ALGO("reduce_scatter"); c.split_k = 3; c.gemm_sms = 1);
	BAD("bad-split-sk_all_scatter",
	    "sk_all_scatter has no split-K form (split_k=2 must be 1): its walk is Stream-K over"
	    " gemm_sms CTAs",
	    ALGO("sk_all_scatter"); c.gemm_sms = 4; c.comm_sms = 1; c.split_k = 2);
	BAD("bad-split-sk_all_reduce", "sk_all_reduce has no split-K form (split_k=3 must be 1)",
	    ALGO("sk_all_reduce"); c.split_k = 3);
	BAD("bad-split-past-k", "split_k=9 exceeds the 8 BLK_K slices of K=256 (use split_k <= 8)",
	    c.split_k = 9);
	BAD("bad-split-past-k-slice",
	    "split_k=5 exceeds the 4 BLK_K slices of K/W=128 (use split_k <= 4)",
	    ALGO("all_reduce_one_shot"); c.split_k = 5);
	BAD("bad-ag-push-comm_blk_m", "comm_blk_m=128 exceeds",
	    ALGO("all_gather_gemm_push"); c.m = 128; c.comm_blk_m = 128);
	/* a cluster: 1, 2, 4 or 8 CTAs, none taken by Stream-K or by communication;
	 * with split_k > 1 its CTAs are the slices (split_k = cluster) */
	BAD("bad-cluster-3", "cluster=3 must be 1, 2, 4 or 8", c.cluster = 3);
	BAD("bad-cluster-16", "cluster=16 must be 1, 2, 4 or 8", c.cluster = 16);
	BAD("bad-cluster-negative", "cluster=-1 must be 1, 2, 4 or 8", c.cluster = -1);
	BAD("bad-cluster-split", "split_k=4 and cluster=2: with split_k > 1 a cluster holds the K slices",
	    c.cluster = 2; c.split_k = 4);
	BAD("bad-cluster-with-gemm_sms", "cluster=2 and gemm_sms=4: a cluster's CTAs walk whole tiles",
	    c.cluster = 2; c.gemm_sms = 4);
	BAD("bad-cluster-with-comm_sms",
	    "cluster=4 and comm_sms=2: the communication CTAs would split a cluster",
	    ALGO("all_reduce_one_shot"); c.cluster = 4; c.comm_sms = 2);
#undef BAD
#undef ALGO

	/* the reason is cut to len, never overflowing */
	char small[12];
	memset(small, 'x', sizeof small);
	c = good();
	c.world = 0;
	int rc = config_validate(&c, small, 10);
	T_CHECK("bad-reason-truncated", rc == 1 && memchr(small, 0, 10) && strlen(small) == 9 &&
						small[10] == 'x',
		"rc %d, reason \"%.9s\"", rc, small);
}

/* Every field of the configuration, changed one at a time. */
static void mutate(struct fgo_config *c, int field)
{
	switch (field) {
	case 0: snprintf(c->algorithm, sizeof c->algorithm, "gemm"); break;
	case 1: c->dtype = FGO_BF16; break;
	case 2: c->world = 4; break;
	case 3: c->m = 512; break;
	case 4: c->n = 512; break;
	case 5: c->k = 512; break;
	case 6: c->blk_m = 32; break;
	case 7: c->blk_n = 32; break;
	case 8: c->blk_k = 64; break;
	case 9: c->num_stages = 3; break;
	case 10: c->num_warps = 8; break;
	case 11: c->mma = 32; break;
	case 12: c->gsize_m = 4; break;
	case 13: c->gemm_sms = 1; break;
	case 14: c->comm_sms = 1; break;
	case 15: c->comm_blk_m = 64; break;
	case 16: c->comm_blk_n = 64; break;
	case 17: c->cluster = 2; break;
	}
}
static const char *const field_names[] = {
	"algorithm", "dtype", "world", "m", "n", "k", "blk_m", "blk_n", "blk_k", "num_stages",
	"num_warps", "mma", "gsize_m", "gemm_sms", "comm_sms", "comm_blk_m", "comm_blk_n",
	"cluster",
};

static int is_hex16(const char *h)
{
	if (strlen(h) != 16)
		return 0;
	for (int i = 0; i < 16; i++)
		if (!isxdigit((unsigned char)h[i]) || isupper((unsigned char)h[i]))
			return 0;
	return 1;
}

static void check_key_and_hash(void)
{
	char ka[FGO_KEY_MAX], kb[FGO_KEY_MAX], ha[17], hb[17], id[96];

	/* Equal configurations: the same key and hash, whatever lies in the
	 * algorithm buffer after the name. */
	struct fgo_config a, b;
	memset(&a, 0, sizeof a);
	memset(&b, 0x7f, sizeof b);
	config_defaults(&a);
	config_defaults(&b);
	memset(b.algorithm, 'z', sizeof b.algorithm);
	snprintf(b.algorithm, sizeof b.algorithm, "all_scatter");
	a.m = b.m = 256;
	a.n = b.n = 128;
	a.k = b.k = 64;
	config_key(&a, ka, sizeof ka);
	config_key(&b, kb, sizeof kb);
	T_EQ_STR("key-equal-configs", kb, ka);
	T_CONTAINS("key-names-algorithm", ka, "all_scatter");
	T_CONTAINS("key-names-dtype", ka, "fp16");
	config_hash(&a, ha);
	config_hash(&b, hb);
	T_EQ_STR("hash-equal-configs", hb, ha);
	T_CHECK("hash-16-hex", is_hex16(ha), "hash \"%s\" is not 16 lower-case hex digits", ha);
	config_hash(&a, hb);
	T_EQ_STR("hash-stable", hb, ha);
	char want[17];
	snprintf(want, sizeof want, "%016llx", (unsigned long long)fnv1a64(ka, strlen(ka)));
	T_EQ_STR("hash-is-fnv1a-of-key", ha, want);

	/* FNV-1a 64 reference values, so hashes stay the same across builds. */
	char h[17];
	snprintf(h, sizeof h, "%016llx", (unsigned long long)fnv1a64("", 0));
	T_EQ_STR("fnv1a64-empty", h, "cbf29ce484222325");
	snprintf(h, sizeof h, "%016llx", (unsigned long long)fnv1a64("a", 1));
	T_EQ_STR("fnv1a64-a", h, "af63dc4c8601ec8c");
	snprintf(h, sizeof h, "%016llx", (unsigned long long)fnv1a64("foobar", 6));
	T_EQ_STR("fnv1a64-foobar", h, "85944171f73967e8");

	/* One field changed: another key, another hash. */
	long seen_dup = 0;
	char keys[FGO_ARRAY_SIZE(field_names)][FGO_KEY_MAX];
	for (int f = 0; f < (int)FGO_ARRAY_SIZE(field_names); f++) {
		struct fgo_config c = a;
		mutate(&c, f);
		config_key(&c, keys[f], sizeof keys[f]);
		config_hash(&c, hb);
		snprintf(id, sizeof id, "key-differs-%s", field_names[f]);
		T_CHECK(id, strcmp(keys[f], ka) != 0, "changing %s leaves the key \"%s\"", field_names[f],
			ka);
		snprintf(id, sizeof id, "hash-differs-%s", field_names[f]);
		T_CHECK(id, strcmp(hb, ha) != 0 && is_hex16(hb), "changing %s leaves the hash %s",
			field_names[f], ha);
		for (int g = 0; g < f; g++)
			seen_dup += strcmp(keys[g], keys[f]) == 0;
	}
	T_EQ_INT("key-all-mutations-distinct", seen_dup, 0);

	/* Digits cannot run together: M=1 N=23 is not M=12 N=3. */
	struct fgo_config c1 = a, c2 = a;
	c1.m = 1;
	c1.n = 23;
	c2.m = 12;
	c2.n = 3;
	config_key(&c1, ka, sizeof ka);
	config_key(&c2, kb, sizeof kb);
	T_CHECK("key-no-run-together", strcmp(ka, kb) != 0, "both keys are \"%s\"", ka);

	/* A cluster is in the key only when there is one (> 1), so the keys of
	 * the runs stored before it stay; 0 and 1 both mean none. */
	struct fgo_config cl = a;
	config_key(&cl, ka, sizeof ka);
	T_CHECK("key-cluster-1-no-suffix", strstr(ka, "/cl") == NULL, "key \"%s\"", ka);
	cl.cluster = 0;
	config_key(&cl, kb, sizeof kb);
	T_EQ_STR("key-cluster-0-is-1", kb, ka);
	cl.cluster = 2;
	config_key(&cl, kb, sizeof kb);
	T_CONTAINS("key-cluster-2-suffix", kb, "/cl2");
	cl.cluster = 4;
	config_key(&cl, kb, sizeof kb);
	T_CONTAINS("key-cluster-4-suffix", kb, "/cl4");

	/* A short buffer is cut, never overrun. */
	char tiny[8];
	memset(tiny, 'x', sizeof tiny);
	config_key(&a, tiny, 5);
	T_CHECK("key-truncated", memchr(tiny, 0, 5) && strlen(tiny) == 4 && tiny[5] == 'x',
		"key cut to 5 bytes: \"%.4s\"", tiny);
}

/* Parses the flags of a reproduce line back into a configuration with the
 * `run`/`sweep` option parser; 0 on success. */
static int parse_back(const char *line, struct fgo_config *out, char *bad, size_t badlen)
{
	char buf[1024];
	char *argv[64];
	int argc = 0;
	snprintf(buf, sizeof buf, "%s", line);
	for (char *tok = strtok(buf, " "); tok && argc < 63; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	/* "mpirun -np W fgobench run" and then the configuration flags */
	if (argc < 5 || strcmp(argv[0], "mpirun") || strcmp(argv[1], "-np") ||
	    strcmp(argv[3], "fgobench") || strcmp(argv[4], "run")) {
		snprintf(bad, badlen, "does not start with \"mpirun -np W fgobench run\"");
		return 1;
	}
	struct fgo_config_mask set;
	memset(&set, 0, sizeof set);
	config_defaults(out);
	for (int i = 5; i < argc; i++) {
		int rc = cmd_config_flag("run", argc, argv, &i, out, &set);
		if (rc != 1) {
			snprintf(bad, badlen, "flag \"%s\" not taken (rc %d)", argv[i], rc);
			return 1;
		}
	}
	if (!set.algorithm || !set.m || !set.n || !set.k || !set.world || !set.dtype) {
		snprintf(bad, badlen, "algorithm, shape, world or datatype missing");
		return 1;
	}
	return 0;
}

static void check_reproduce(void)
{
	struct fgo_config c = good();
	char line[512], key[FGO_KEY_MAX], back_key[FGO_KEY_MAX], bad[128];
	snprintf(c.algorithm, sizeof c.algorithm, "gemm");
	c.dtype = FGO_BF16;
	c.world = 4;
	c.m = 256;
	c.n = 512;
	c.k = 128;
	c.blk_m = 32;
	c.blk_n = 64;
	c.blk_k = 32;
	c.num_stages = 3;
	c.num_warps = 8;
	c.gsize_m = 4;
	c.gemm_sms = 6;
	c.comm_sms = 2;
	config_reproduce_line(&c, line, sizeof line);
	T_CHECK("reproduce-mpirun", strncmp(line, "mpirun -np 4 fgobench run ", 26) == 0,
		"line \"%s\"", line);
	T_CONTAINS("reproduce-algorithm", line, "--algorithm gemm");
	T_CONTAINS("reproduce-m", line, " -m 256 ");
	T_CONTAINS("reproduce-n", line, " -n 512 ");
	T_CONTAINS("reproduce-k", line, " -k 128 ");
	T_CONTAINS("reproduce-datatype", line, "--datatype bf16");
	T_CONTAINS("reproduce-world", line, "--world 4");
	T_CONTAINS("reproduce-tile", line, "--BLK_M 32 --BLK_N 64 --BLK_K 32");
	T_CONTAINS("reproduce-stages", line, "--num_stages 3");
	T_CONTAINS("reproduce-warps", line, "--num_warps 8");
	T_CONTAINS("reproduce-mma", line, "--mma 16");
	c.mma = FGO_MMA_WGMMA;
	config_reproduce_line(&c, line, sizeof line);
	T_CONTAINS("reproduce-mma-wgmma", line, "--mma wgmma");
	T_CONTAINS("reproduce-gsize_m", line, "--gsize_m 4");
	T_CONTAINS("reproduce-sms", line, "--gemm_sms 6 --comm_sms 2");
	T_CHECK("reproduce-no-comm-tile", strstr(line, "comm_blk") == NULL,
		"comm tile flags with a 0x0 comm tile: \"%s\"", line);
	T_CHECK("reproduce-one-line", !strchr(line, '\n'), "newline in \"%s\"", line);

	/* the line parses back to the same configuration */
	struct fgo_config back;
	int rc = parse_back(line, &back, bad, sizeof bad);
	T_CHECK("reproduce-parses", rc == 0, "%s: \"%s\"", bad, line);
	if (rc == 0) {
		config_key(&c, key, sizeof key);
		config_key(&back, back_key, sizeof back_key);
		T_EQ_STR("reproduce-roundtrip", back_key, key);
	}

	c.comm_blk_m = 64;
	config_reproduce_line(&c, line, sizeof line);
	T_CONTAINS("reproduce-comm-tile", line, "--comm_blk_m 64 --comm_blk_n 0");
	rc = parse_back(line, &back, bad, sizeof bad);
	T_CHECK("reproduce-comm-parses", rc == 0, "%s: \"%s\"", bad, line);
	if (rc == 0) {
		config_key(&c, key, sizeof key);
		config_key(&back, back_key, sizeof back_key);
		T_EQ_STR("reproduce-comm-roundtrip", back_key, key);
	}

	/* a cluster: --cluster N only when there is one, and it parses back */
	struct fgo_config cl = good();
	snprintf(cl.algorithm, sizeof cl.algorithm, "gemm");
	config_reproduce_line(&cl, line, sizeof line);
	T_CHECK("reproduce-no-cluster", strstr(line, "--cluster") == NULL, "line \"%s\"", line);
	cl.cluster = 2;
	expect_valid("valid-cluster-2", &cl);
	config_reproduce_line(&cl, line, sizeof line);
	T_CONTAINS("reproduce-cluster", line, " --cluster 2");
	rc = parse_back(line, &back, bad, sizeof bad);
	T_CHECK("reproduce-cluster-parses", rc == 0 && back.cluster == 2 &&
						    (back.given & FGO_GIVEN_CLUSTER),
		"%s: \"%s\" (cluster %d)", rc ? bad : "parsed", line, back.cluster);
	if (rc == 0) {
		config_key(&cl, key, sizeof key);
		config_key(&back, back_key, sizeof back_key);
		T_EQ_STR("reproduce-cluster-roundtrip", back_key, key);
	}
	/* no size past 8 gets through the flag (3 does: config_validate says why) */
	char *flag8[] = { "run", "--cluster", "16", NULL };
	struct fgo_config_mask set8;
	memset(&set8, 0, sizeof set8);
	int at = 1;
	T_EQ_INT("flag-cluster-16-refused", cmd_config_flag("run", 3, flag8, &at, &back, &set8),
		 FGO_EUSAGE);

	/* every family and dtype round-trips */
	long fails = 0;
	for (const struct fgo_algo *const *a = fgo_algos; *a; a++)
		for (int t = FGO_FP32; t <= FGO_BF16; t++) {
			struct fgo_config d = good();
			snprintf(d.algorithm, sizeof d.algorithm, "%s", (*a)->name);
			d.dtype = (enum fgo_dtype)t;
			d.comm_blk_n = 32;
			config_reproduce_line(&d, line, sizeof line);
			config_key(&d, key, sizeof key);
			if (parse_back(line, &back, bad, sizeof bad)) {
				fails++;
				continue;
			}
			config_key(&back, back_key, sizeof back_key);
			fails += strcmp(key, back_key) != 0;
		}
	T_EQ_INT("reproduce-roundtrip-all", fails, 0);

	/* a short buffer is cut, never overrun */
	char tiny[32];
	memset(tiny, 'x', sizeof tiny);
	config_reproduce_line(&c, tiny, 24);
	T_CHECK("reproduce-truncated",
		memchr(tiny, 0, 24) && strlen(tiny) == 23 && tiny[24] == 'x' &&
			strncmp(tiny, "mpirun -np 4 fgobench r", 23) == 0,
		"cut to 24 bytes: \"%.23s\"", tiny);
}

static void check_flops(void)
{
	struct fgo_config c = good();
	T_NEAR("flops-256", config_flops(&c), 2.0 * 256 * 256 * 256, 0);
	c.m = 1;
	c.n = 4096;
	c.k = 14336;
	T_NEAR("flops-decode", config_flops(&c), 117440512.0, 0);
	c.m = c.n = c.k = 1L << 20; /* 2^61: no integer overflow on the way */
	T_NEAR("flops-large", config_flops(&c), 2305843009213693952.0, 0);
	c.m = 0;
	T_NEAR("flops-zero", config_flops(&c), 0.0, 0);
}

int main(void)
{
	check_defaults();
	check_dtype();
	check_validate_good();
	check_validate_bad();
	check_key_and_hash();
	check_reproduce();
	check_flops();
	T_DONE();
}
