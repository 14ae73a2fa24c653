/* test_spec.c: sweep specs and dataset files expanded into a plan by
 * spec_parse (src/spec*.c), from in-memory strings: expansion counts and
 * order (value, list, range, cartesian product, blocks, shapes, union with
 * duplicates removed first-wins), case-insensitive keys, the plan settings,
 * flags overriding a spec, the JSON and CSV datasets, every error with its
 * "PATH:LINE:COL" position, and invalid configurations kept with a reason. */
#include <stdlib.h>

#include "fgo.h"
#include "spec.h"
#include "testlib.h"

#define ERR_LEN 512

/* Parses text and checks it succeeded; the plan is the caller's to free. */
static int parse_ok(const char *id, const char *path, const char *text,
		    const struct fgo_config *base, const struct fgo_config_mask *mask,
		    struct fgo_plan *p)
{
	char err[ERR_LEN];
	int rc = spec_parse(path, text, base, mask, p, err, sizeof err);
	T_CHECK(id, rc == FGO_OK, "spec_parse returned %d: %s", rc, err);
	return rc == FGO_OK;
}

/* Parses text, expects FGO_EUSAGE with a message starting with where (e.g.
 * "t.json:3:7: ") and containing what, and an empty plan. */
static void expect_error(const char *id, const char *path, const char *text, const char *where,
			 const char *what)
{
	struct fgo_plan p;
	char err[ERR_LEN], name[128];
	memset(err, 'x', sizeof err);
	int rc = spec_parse(path, text, NULL, NULL, &p, err, sizeof err);
	snprintf(name, sizeof name, "%s-rc", id);
	T_EQ_INT(name, rc, FGO_EUSAGE);
	snprintf(name, sizeof name, "%s-position", id);
	T_CHECK(name, memchr(err, 0, sizeof err) && strncmp(err, where, strlen(where)) == 0,
		"expected the message to start with \"%s\", got \"%.*s\"", where, ERR_LEN - 1, err);
	snprintf(name, sizeof name, "%s-message", id);
	T_CHECK(name, memchr(err, 0, sizeof err) && strstr(err, what) != NULL,
		"expected \"%s\" in \"%.*s\"", what, ERR_LEN - 1, err);
	snprintf(name, sizeof name, "%s-one-line", id);
	T_CHECK(name, memchr(err, 0, sizeof err) && !strchr(err, '\n'), "message has a newline: \"%s\"",
		err);
	snprintf(name, sizeof name, "%s-plan-empty", id);
	T_CHECK(name, p.count == 0 && p.items == NULL && p.text == NULL,
		"plan after an error: %zu items, items %p, text %p", p.count, (void *)p.items,
		(void *)p.text);
	plan_free(&p);
}

static size_t count_valid(const struct fgo_plan *p)
{
	size_t n = 0;
	for (size_t i = 0; i < p->count; i++)
		n += p->items[i].valid != 0;
	return n;
}

#define SHAPE256 "\"M\": 256, \"N\": 256, \"K\": 256"

static void check_value_list_range(void)
{
	struct fgo_plan p;
	struct fgo_config d;
	config_defaults(&d);

	/* A single value: one configuration, everything else from the defaults. */
	if (parse_ok("value-parse", "t.json", "{\"algorithm\": \"gemm\", \"M\": 256, \"N\": 512, \"K\": 128}",
		     NULL, NULL, &p)) {
		T_EQ_INT("value-count", p.count, 1);
		const struct fgo_config *c = &p.items[0].cfg;
		T_EQ_STR("value-algorithm", c->algorithm, "gemm");
		T_CHECK("value-shape", c->m == 256 && c->n == 512 && c->k == 128,
			"shape %ldx%ldx%ld, want 256x512x128", c->m, c->n, c->k);
		T_CHECK("value-defaults",
			c->dtype == d.dtype && c->world == d.world && c->blk_m == d.blk_m &&
				c->blk_n == d.blk_n && c->blk_k == d.blk_k &&
				c->num_stages == d.num_stages && c->num_warps == d.num_warps &&
				c->mma == d.mma && c->gsize_m == d.gsize_m && c->gemm_sms == 0 &&
				c->comm_sms == 0 && c->comm_blk_m == 0 && c->comm_blk_n == 0,
			"fields the spec leaves out are not the defaults");
		T_EQ_INT("value-valid", p.items[0].valid, 1);
		T_EQ_STR("value-reason-empty", p.items[0].reason, "");
		T_EQ_INT("value-max_world", p.max_world, 2);
		T_CHECK("value-text-kept", p.text && strstr(p.text, "\"gemm\"") != NULL,
			"plan.text is not the input");
		plan_free(&p);
	}

	/* A list: one configuration per value, in list order. */
	if (parse_ok("list-parse", "t.json",
		     "{\"algorithm\": \"all_scatter\", " SHAPE256 ", \"BLK_M\": [64, 16, 32]}", NULL,
		     NULL, &p)) {
		T_EQ_INT("list-count", p.count, 3);
		if (p.count == 3)
			T_CHECK("list-order",
				p.items[0].cfg.blk_m == 64 && p.items[1].cfg.blk_m == 16 &&
					p.items[2].cfg.blk_m == 32,
				"BLK_M order %d %d %d, want 64 16 32", p.items[0].cfg.blk_m,
				p.items[1].cfg.blk_m, p.items[2].cfg.blk_m);
		plan_free(&p);
	}

	/* Duplicates inside a list are removed. */
	if (parse_ok("list-dup-parse", "t.json",
		     "{\"algorithm\": \"all_scatter\", " SHAPE256 ", \"BLK_N\": [32, 32, 64, 32]}",
		     NULL, NULL, &p)) {
		T_EQ_INT("list-dup-count", p.count, 2);
		plan_free(&p);
	}

	/* Range with mul: 1, 2, 4, ..., 1024 (11 values); up to 1000 stops at 512. */
	if (parse_ok("range-mul-parse", "t.json",
		     "{\"algorithm\": \"gemm\", \"M\": {\"from\": 1, \"to\": 1024, \"mul\": 2}, "
		     "\"N\": 256, \"K\": 256}",
		     NULL, NULL, &p)) {
		T_EQ_INT("range-mul-count", p.count, 11);
		long bad = 0;
		for (size_t i = 0; i < p.count; i++)
			bad += p.items[i].cfg.m != 1L << i;
		T_EQ_INT("range-mul-values", bad, 0);
		plan_free(&p);
	}
	if (parse_ok("range-mul-inexact-parse", "t.json",
		     "{\"algorithm\": \"gemm\", \"M\": {\"from\": 3, \"to\": 1000, \"mul\": 4}, "
		     "\"N\": 256, \"K\": 256}",
		     NULL, NULL, &p)) {
		T_EQ_INT("range-mul-inexact-count", p.count, 5); /* 3 12 48 192 768 */
		if (p.count == 5)
			T_EQ_INT("range-mul-inexact-last", p.items[4].cfg.m, 768);
		plan_free(&p);
	}

	/* Range with step: 64..256 step 64 = 4 values; to 250 = 3 values. */
	if (parse_ok("range-step-parse", "t.json",
		     "{\"algorithm\": \"gemm\", \"M\": 256, \"N\": 256, "
		     "\"K\": {\"from\": 64, \"to\": 256, \"step\": 64}}",
		     NULL, NULL, &p)) {
		T_EQ_INT("range-step-count", p.count, 4);
		if (p.count == 4)
			T_CHECK("range-step-values",
				p.items[0].cfg.k == 64 && p.items[1].cfg.k == 128 &&
					p.items[2].cfg.k == 192 && p.items[3].cfg.k == 256,
				"K = %ld %ld %ld %ld", p.items[0].cfg.k, p.items[1].cfg.k,
				p.items[2].cfg.k, p.items[3].cfg.k);
		plan_free(&p);
	}
	if (parse_ok("range-step-inexact-parse", "t.json",
		     "{\"algorithm\": \"gemm\", \"M\": 256, \"N\": 256, "
		     "\"K\": {\"from\": 64, \"to\": 250, \"step\": 64}}",
		     NULL, NULL, &p)) {
		T_EQ_INT("range-step-inexact-count", p.count, 3);
		plan_free(&p);
	}
	/* A one-point range. */
	if (parse_ok("range-point-parse", "t.json",
		     "{\"algorithm\": \"gemm\", \"M\": 256, \"N\": 256, "
		     "\"K\": {\"from\": 96, \"to\": 96, \"step\": 7}}",
		     NULL, NULL, &p)) {
		T_CHECK("range-point", p.count == 1 && p.items[0].cfg.k == 96, "%zu items", p.count);
		plan_free(&p);
	}

	/* dtype takes names, a list of them, and the long spellings. */
	if (parse_ok("dtype-list-parse", "t.json",
		     "{\"algorithm\": \"gemm\", " SHAPE256 ", \"dtype\": [\"float32\", \"bf16\", \"fp32\"]}",
		     NULL, NULL, &p)) {
		T_EQ_INT("dtype-list-count", p.count, 2);
		if (p.count == 2)
			T_CHECK("dtype-list-values",
				p.items[0].cfg.dtype == FGO_FP32 && p.items[1].cfg.dtype == FGO_BF16,
				"dtypes %d %d", (int)p.items[0].cfg.dtype, (int)p.items[1].cfg.dtype);
		plan_free(&p);
	}
}

static void check_product_and_blocks(void)
{
	struct fgo_plan p;

	/* 2 algorithms x 2 worlds x 2 M x 2 BLK_M = 16, algorithm slowest, BLK_M
	 * fastest; algorithms in list order (not registry order). */
	if (parse_ok("product-parse", "t.json",
		     "{\"algorithm\": [\"gemm\", \"all_scatter\"], \"world\": [2, 4], "
		     "\"M\": [256, 512], \"N\": 256, \"K\": 256, \"BLK_M\": [32, 64]}",
		     NULL, NULL, &p)) {
		T_EQ_INT("product-count", p.count, 16);
		if (p.count == 16) {
			const struct fgo_config *a = &p.items[0].cfg, *b = &p.items[1].cfg,
						*c = &p.items[2].cfg, *z = &p.items[15].cfg;
			T_CHECK("product-first",
				!strcmp(a->algorithm, "gemm") && a->world == 2 && a->m == 256 &&
					a->blk_m == 32,
				"item 0: %s w%d m%ld BLK_M %d", a->algorithm, a->world, a->m, a->blk_m);
			T_CHECK("product-fastest-blk_m",
				!strcmp(b->algorithm, "gemm") && b->world == 2 && b->m == 256 &&
					b->blk_m == 64,
				"item 1: %s w%d m%ld BLK_M %d", b->algorithm, b->world, b->m, b->blk_m);
			T_CHECK("product-then-m", c->m == 512 && c->blk_m == 32 && c->world == 2,
				"item 2: w%d m%ld BLK_M %d", c->world, c->m, c->blk_m);
			T_CHECK("product-last",
				!strcmp(z->algorithm, "all_scatter") && z->world == 4 && z->m == 512 &&
					z->blk_m == 64,
				"item 15: %s w%d m%ld BLK_M %d", z->algorithm, z->world, z->m, z->blk_m);
			T_EQ_STR("product-algorithm-switch", p.items[8].cfg.algorithm, "all_scatter");
		}
		T_EQ_INT("product-max_world", p.max_world, 4);
		plan_free(&p);
	}

	/* Blocks inherit the top level; a block's own value wins. */
	if (parse_ok("blocks-inherit-parse", "t.json",
		     "{\"algorithm\": \"all_scatter\", \"dtype\": \"bf16\", \"world\": 4,\n"
		     " \"M\": 512, \"N\": 512, \"K\": 512, \"num_stages\": 3,\n"
		     " \"blocks\": [{\"BLK_M\": [32, 64]}, {\"algorithm\": \"gemm\", \"world\": 2}]}",
		     NULL, NULL, &p)) {
		T_EQ_INT("blocks-inherit-count", p.count, 3);
		if (p.count == 3) {
			long bad = 0;
			for (size_t i = 0; i < 3; i++)
				bad += p.items[i].cfg.dtype != FGO_BF16 || p.items[i].cfg.m != 512 ||
				       p.items[i].cfg.num_stages != 3;
			T_EQ_INT("blocks-inherit-top", bad, 0);
			T_CHECK("blocks-inherit-block1",
				!strcmp(p.items[0].cfg.algorithm, "all_scatter") &&
					p.items[0].cfg.world == 4 && p.items[0].cfg.blk_m == 32 &&
					p.items[1].cfg.blk_m == 64,
				"block 1: %s w%d BLK_M %d %d", p.items[0].cfg.algorithm,
				p.items[0].cfg.world, p.items[0].cfg.blk_m, p.items[1].cfg.blk_m);
			T_CHECK("blocks-inherit-block2",
				!strcmp(p.items[2].cfg.algorithm, "gemm") && p.items[2].cfg.world == 2 &&
					p.items[2].cfg.blk_m == 64,
				"block 2: %s w%d BLK_M %d", p.items[2].cfg.algorithm,
				p.items[2].cfg.world, p.items[2].cfg.blk_m);
		}
		T_EQ_INT("blocks-inherit-max_world", p.max_world, 4);
		plan_free(&p);
	}

	/* A block's "shapes" replaces the inherited M, N and K. */
	if (parse_ok("blocks-shapes-parse", "t.json",
		     "{\"algorithm\": \"gemm\", \"M\": [128, 256], \"N\": 256, \"K\": 256,\n"
		     " \"blocks\": [{\"BLK_N\": 32}, {\"shapes\": [[64, 64, 64], [96, 64, 32]]}]}",
		     NULL, NULL, &p)) {
		T_EQ_INT("blocks-shapes-count", p.count, 4);
		if (p.count == 4) {
			T_CHECK("blocks-shapes-block1",
				p.items[0].cfg.m == 128 && p.items[1].cfg.m == 256 &&
					p.items[0].cfg.blk_n == 32 && p.items[1].cfg.n == 256,
				"block 1: M %ld %ld BLK_N %d", p.items[0].cfg.m, p.items[1].cfg.m,
				p.items[0].cfg.blk_n);
			const struct fgo_config *a = &p.items[2].cfg, *b = &p.items[3].cfg;
			T_CHECK("blocks-shapes-replace",
				a->m == 64 && a->n == 64 && a->k == 64 && b->m == 96 && b->n == 64 &&
					b->k == 32,
				"block 2: %ldx%ldx%ld and %ldx%ldx%ld, want 64x64x64 and 96x64x32", a->m,
				a->n, a->k, b->m, b->n, b->k);
			T_EQ_INT("blocks-shapes-blk_n-default", b->blk_n, 64);
		}
		plan_free(&p);
	}

	/* And the other way round: a block's M/N/K replace the top level's shapes. */
	if (parse_ok("blocks-dims-parse", "t.json",
		     "{\"algorithm\": \"gemm\", \"shapes\": [[64, 64, 64]],\n"
		     " \"blocks\": [{}, {\"M\": 128, \"N\": 128, \"K\": [32, 64]}]}",
		     NULL, NULL, &p)) {
		T_EQ_INT("blocks-dims-count", p.count, 3);
		if (p.count == 3)
			T_CHECK("blocks-dims-values",
				p.items[0].cfg.m == 64 && p.items[1].cfg.m == 128 &&
					p.items[1].cfg.k == 32 && p.items[2].cfg.k == 64,
				"M %ld %ld K %ld %ld", p.items[0].cfg.m, p.items[1].cfg.m,
				p.items[1].cfg.k, p.items[2].cfg.k);
		plan_free(&p);
	}

	/* Union across blocks; a configuration met twice keeps its first place. */
	if (parse_ok("blocks-union-parse", "t.json",
		     "{\"algorithm\": \"all_scatter\", " SHAPE256 ",\n"
		     " \"blocks\": [{\"BLK_M\": [32, 64]}, {\"BLK_M\": [128, 64, 32, 16]}]}",
		     NULL, NULL, &p)) {
		T_EQ_INT("blocks-union-count", p.count, 4);
		if (p.count == 4)
			T_CHECK("blocks-union-first-wins",
				p.items[0].cfg.blk_m == 32 && p.items[1].cfg.blk_m == 64 &&
					p.items[2].cfg.blk_m == 128 && p.items[3].cfg.blk_m == 16,
				"BLK_M order %d %d %d %d, want 32 64 128 16", p.items[0].cfg.blk_m,
				p.items[1].cfg.blk_m, p.items[2].cfg.blk_m, p.items[3].cfg.blk_m);
		plan_free(&p);
	}

	/* Thousands of configurations (the dedup table grows past its first size),
	 * two overlapping blocks: 1..3000 then 2001..4000 gives 4000. */
	if (parse_ok("blocks-large-parse", "t.json",
		     "{\"algorithm\": \"gemm\", \"N\": 64, \"K\": 64, \"blocks\": [\n"
		     " {\"M\": {\"from\": 1, \"to\": 3000, \"step\": 1}},\n"
		     " {\"M\": {\"from\": 2001, \"to\": 4000, \"step\": 1}}]}",
		     NULL, NULL, &p)) {
		T_EQ_INT("blocks-large-count", p.count, 4000);
		long bad = 0;
		for (size_t i = 0; i < p.count; i++)
			bad += p.items[i].cfg.m != (long)i + 1;
		T_EQ_INT("blocks-large-order", bad, 0);
		plan_free(&p);
	}
}

static void check_keys_and_settings(void)
{
	struct fgo_plan p, q;
	char ka[FGO_KEY_MAX], kb[FGO_KEY_MAX];

	/* Keys are case-insensitive: "blk_m" is "BLK_M", "m" is "M". */
	int a = parse_ok("case-upper-parse", "t.json",
			 "{\"algorithm\": \"gemm\", \"M\": 128, \"N\": 128, \"K\": 128, \"BLK_M\": 32, "
			 "\"num_stages\": 3}",
			 NULL, NULL, &p);
	int b = parse_ok("case-lower-parse", "t.json",
			 "{\"ALGORITHM\": \"gemm\", \"m\": 128, \"n\": 128, \"k\": 128, \"blk_m\": 32, "
			 "\"Num_Stages\": 3, \"ITERATIONS\": 4, \"WarmUp\": 1}",
			 NULL, NULL, &q);
	if (a && b) {
		T_CHECK("case-counts", p.count == 1 && q.count == 1, "%zu and %zu items", p.count,
			q.count);
		T_CHECK("case-blk_m", q.items[0].cfg.blk_m == 32 && q.items[0].cfg.num_stages == 3,
			"blk_m %d num_stages %d", q.items[0].cfg.blk_m, q.items[0].cfg.num_stages);
		config_key(&p.items[0].cfg, ka, sizeof ka);
		config_key(&q.items[0].cfg, kb, sizeof kb);
		T_EQ_STR("case-same-config", kb, ka);
		T_CHECK("case-settings", q.iterations == 4 && q.warmup == 1,
			"iterations %d warmup %d", q.iterations, q.warmup);
	}
	if (a)
		plan_free(&p);
	if (b)
		plan_free(&q);

	/* Settings and their defaults. */
	if (parse_ok("settings-default-parse", "sweeps/ag_gemm.json",
		     "{\"algorithm\": \"gemm\", " SHAPE256 "}", NULL, NULL, &p)) {
		T_EQ_INT("settings-default-iterations", p.iterations, 10);
		T_EQ_INT("settings-default-warmup", p.warmup, 2);
		T_EQ_INT("settings-default-validate", p.validate, 1);
		T_EQ_STR("settings-default-name", p.name, "ag_gemm");
		plan_free(&p);
	}
	if (parse_ok("settings-parse", "sweeps/x.json",
		     "{\"name\": \"nightly-2\", \"description\": \"d\", \"iterations\": 7, \"warmup\": 0,"
		     " \"validate\": false, \"algorithm\": \"gemm\", " SHAPE256 "}",
		     NULL, NULL, &p)) {
		T_EQ_INT("settings-iterations", p.iterations, 7);
		T_EQ_INT("settings-warmup-zero", p.warmup, 0);
		T_EQ_INT("settings-validate-false", p.validate, 0);
		T_EQ_STR("settings-name", p.name, "nightly-2");
		plan_free(&p);
	}
	if (parse_ok("settings-validate-true-parse", "x.json",
		     "{\"validate\": true, \"algorithm\": \"gemm\", " SHAPE256 "}", NULL, NULL, &p)) {
		T_EQ_INT("settings-validate-true", p.validate, 1);
		plan_free(&p);
	}
	if (parse_ok("settings-name-dots-parse", "dir.d/my.sweep.json",
		     "{\"algorithm\": \"gemm\", " SHAPE256 "}", NULL, NULL, &p)) {
		T_EQ_STR("settings-name-dots", p.name, "my.sweep");
		plan_free(&p);
	}

	/* The hash: FNV-1a of the text as 16 hex digits, the same every time. */
	const char *text = "{\"algorithm\": \"gemm\", " SHAPE256 "}";
	if (parse_ok("hash-parse", "x.json", text, NULL, NULL, &p)) {
		char want[17];
		snprintf(want, sizeof want, "%016llx", (unsigned long long)fnv1a64(text, strlen(text)));
		T_EQ_STR("hash-fnv1a-of-text", p.hash, want);
		T_EQ_STR("hash-text-kept", p.text, text);
		plan_free(&p);
	}
}

static void check_overrides(void)
{
	struct fgo_plan p;
	struct fgo_config base;
	struct fgo_config_mask mask;
	const char *text =
		"{\"algorithm\": \"all_scatter\", " SHAPE256 ", \"BLK_M\": [32, 64], \"num_stages\": 4}";

	/* Flags (base + mask) win over the spec: both BLK_M become 128 (one config). */
	config_defaults(&base);
	snprintf(base.algorithm, sizeof base.algorithm, "gemm");
	base.blk_m = 128;
	base.num_stages = 2;
	memset(&mask, 0, sizeof mask);
	mask.algorithm = 1;
	mask.blk_m = 1;
	if (parse_ok("override-parse", "x.json", text, &base, &mask, &p)) {
		T_EQ_INT("override-count", p.count, 1);
		if (p.count == 1) {
			T_EQ_STR("override-algorithm", p.items[0].cfg.algorithm, "gemm");
			T_EQ_INT("override-blk_m", p.items[0].cfg.blk_m, 128);
			T_EQ_INT("override-unmasked-spec-wins", p.items[0].cfg.num_stages, 4);
		}
		char plain_hash[17];
		struct fgo_plan q;
		if (parse_ok("override-hash-plain-parse", "x.json", text, NULL, NULL, &q)) {
			snprintf(plain_hash, sizeof plain_hash, "%s", q.hash);
			T_CHECK("override-hash-differs", strcmp(plain_hash, p.hash) != 0,
				"the same spec with and without flags has hash %s", p.hash);
			plan_free(&q);
		}
		base.blk_m = 256;
		if (parse_ok("override-hash-value-parse", "x.json", text, &base, &mask, &q)) {
			T_CHECK("override-hash-value-differs", strcmp(q.hash, p.hash) != 0,
				"--BLK_M 128 and --BLK_M 256 give the same hash %s", p.hash);
			plan_free(&q);
		}
		base.blk_m = 128;
		if (parse_ok("override-hash-stable-parse", "x.json", text, &base, &mask, &q)) {
			T_EQ_STR("override-hash-stable", q.hash, p.hash);
			plan_free(&q);
		}
		plan_free(&p);
	}

	/* A base without a mask: the spec wins; what it leaves out comes from base. */
	config_defaults(&base);
	base.blk_m = 128;
	base.blk_n = 32;
	base.gsize_m = 3;
	if (parse_ok("base-nomask-parse", "x.json", text, &base, NULL, &p)) {
		T_EQ_INT("base-nomask-count", p.count, 2);
		if (p.count == 2)
			T_CHECK("base-nomask-values",
				p.items[0].cfg.blk_m == 32 && p.items[1].cfg.blk_m == 64 &&
					p.items[0].cfg.blk_n == 32 && p.items[1].cfg.gsize_m == 3,
				"BLK_M %d %d BLK_N %d gsize_m %d", p.items[0].cfg.blk_m,
				p.items[1].cfg.blk_m, p.items[0].cfg.blk_n, p.items[1].cfg.gsize_m);
		plan_free(&p);
	}

	/* Flags supply what the spec lacks (no "algorithm" in the file). */
	config_defaults(&base);
	snprintf(base.algorithm, sizeof base.algorithm, "reduce_scatter");
	memset(&mask, 0, sizeof mask);
	mask.algorithm = 1;
	if (parse_ok("override-missing-parse", "x.json", "{" SHAPE256 "}", &base, &mask, &p)) {
		T_CHECK("override-missing-algorithm",
			p.count == 1 && !strcmp(p.items[0].cfg.algorithm, "reduce_scatter"),
			"%zu items, first %s", p.count, p.count ? p.items[0].cfg.algorithm : "-");
		plan_free(&p);
	}

	/* -m over "shapes": every shape gets M=512; two shapes then differ only in
	 * what the flag replaced, so one configuration is left. */
	config_defaults(&base);
	base.m = 512;
	memset(&mask, 0, sizeof mask);
	mask.m = 1;
	if (parse_ok("override-shapes-parse", "x.json",
		     "{\"algorithm\": \"gemm\", \"shapes\": [[64, 64, 64], [128, 64, 64], [64, 32, 64]]}",
		     &base, &mask, &p)) {
		T_EQ_INT("override-shapes-count", p.count, 2);
		if (p.count == 2)
			T_CHECK("override-shapes-m",
				p.items[0].cfg.m == 512 && p.items[1].cfg.m == 512 &&
					p.items[1].cfg.n == 32,
				"M %ld %ld N %ld", p.items[0].cfg.m, p.items[1].cfg.m, p.items[1].cfg.n);
		plan_free(&p);
	}
}

static void check_datasets(void)
{
	struct fgo_plan p;
	struct fgo_config base;
	struct fgo_config_mask mask;

	config_defaults(&base);
	snprintf(base.algorithm, sizeof base.algorithm, "gemm");
	base.world = 4;
	base.blk_n = 32;
	base.comm_sms = 2;
	const char *json =
		"[\n"
		"  {\"m\": 128, \"n\": 256, \"k\": 64, \"num_sms\": 4, \"datatype\": \"bf16\"},\n"
		"  {\"M\": 64, \"N\": 64, \"K\": 64, \"BLK_M\": 32, \"gsize_m\": 4},\n"
		"  {\"m\": 128, \"n\": 256, \"k\": 64, \"num_sms\": 4, \"datatype\": \"bf16\"}\n"
		"]\n";
	if (parse_ok("dataset-json-parse", "data/shapes.json", json, &base, NULL, &p)) {
		T_EQ_INT("dataset-json-count", p.count, 2); /* row 3 repeats row 1 */
		if (p.count == 2) {
			const struct fgo_config *a = &p.items[0].cfg, *b = &p.items[1].cfg;
			T_CHECK("dataset-json-shape", a->m == 128 && a->n == 256 && a->k == 64,
				"row 1: %ldx%ldx%ld", a->m, a->n, a->k);
			T_EQ_INT("dataset-json-num_sms", a->gemm_sms, 4);
			T_EQ_INT("dataset-json-datatype", a->dtype, FGO_BF16);
			T_CHECK("dataset-json-base-fields",
				!strcmp(a->algorithm, "gemm") && a->world == 4 && a->blk_m == 64 &&
					a->blk_n == 32 && a->comm_sms == 2,
				"row 1 from base: %s w%d BLK_M %d BLK_N %d comm_sms %d", a->algorithm,
				a->world, a->blk_m, a->blk_n, a->comm_sms);
			T_CHECK("dataset-json-row2",
				b->m == 64 && b->blk_m == 32 && b->gsize_m == 4 && b->gemm_sms == 0 &&
					b->dtype == FGO_FP16,
				"row 2: m%ld BLK_M %d gsize_m %d gemm_sms %d dtype %d", b->m, b->blk_m,
				b->gsize_m, b->gemm_sms, (int)b->dtype);
		}
		T_EQ_STR("dataset-json-name", p.name, "shapes");
		T_EQ_INT("dataset-json-max_world", p.max_world, 4);
		plan_free(&p);
	}
	/* A flag beats the file's datatype. */
	base.dtype = FGO_FP32;
	memset(&mask, 0, sizeof mask);
	mask.dtype = 1;
	if (parse_ok("dataset-json-flag-parse", "shapes.json", json, &base, &mask, &p)) {
		T_CHECK("dataset-json-flag-dtype",
			p.count == 2 && p.items[0].cfg.dtype == FGO_FP32 &&
				p.items[1].cfg.dtype == FGO_FP32,
			"%zu items, dtypes %d %d", p.count, p.count ? (int)p.items[0].cfg.dtype : -1,
			p.count > 1 ? (int)p.items[1].cfg.dtype : -1);
		plan_free(&p);
	}
	/* Flags giving m, n and k let rows leave them out. */
	config_defaults(&base);
	base.m = base.n = base.k = 96;
	memset(&mask, 0, sizeof mask);
	mask.m = mask.n = mask.k = 1;
	if (parse_ok("dataset-json-flag-dims-parse", "s.json", "[{\"BLK_M\": 16}, {\"BLK_M\": 32}]",
		     &base, &mask, &p)) {
		T_CHECK("dataset-json-flag-dims",
			p.count == 2 && p.items[0].cfg.m == 96 && p.items[1].cfg.k == 96 &&
				p.items[1].cfg.blk_m == 32,
			"%zu items", p.count);
		plan_free(&p);
	}

	/* CSV, header form 1. */
	config_defaults(&base);
	snprintf(base.algorithm, sizeof base.algorithm, "all_reduce_one_shot");
	base.blk_k = 64;
	if (parse_ok("csv-form1-parse", "d.csv", "m,n,k,datatype\n128,256,64,bf16\n64,64,64,fp32\n",
		     &base, NULL, &p)) {
		T_EQ_INT("csv-form1-count", p.count, 2);
		if (p.count == 2) {
			const struct fgo_config *a = &p.items[0].cfg, *b = &p.items[1].cfg;
			T_CHECK("csv-form1-row1",
				a->m == 128 && a->n == 256 && a->k == 64 && a->dtype == FGO_BF16,
				"row 1: %ldx%ldx%ld dtype %d", a->m, a->n, a->k, (int)a->dtype);
			T_CHECK("csv-form1-row2", b->m == 64 && b->dtype == FGO_FP32,
				"row 2: m%ld dtype %d", b->m, (int)b->dtype);
			T_CHECK("csv-form1-base",
				!strcmp(a->algorithm, "all_reduce_one_shot") && a->blk_k == 64 &&
					b->blk_m == 64,
				"from base: %s BLK_K %d", a->algorithm, a->blk_k);
		}
		T_EQ_STR("csv-form1-name", p.name, "d");
		plan_free(&p);
	}
	/* CSV, header form 2. */
	if (parse_ok("csv-form2-parse", "d.csv",
		     "m,n,k,blk_m,blk_n,blk_k,gemm_sms,comm_sms\n"
		     "256,256,256,32,64,32,6,2\n"
		     "512,256,128,64,128,64,0,0\n",
		     NULL, NULL, &p)) {
		T_EQ_INT("csv-form2-count", p.count, 2);
		if (p.count == 2) {
			const struct fgo_config *a = &p.items[0].cfg, *b = &p.items[1].cfg;
			T_CHECK("csv-form2-row1",
				a->m == 256 && a->blk_m == 32 && a->blk_n == 64 && a->blk_k == 32 &&
					a->gemm_sms == 6 && a->comm_sms == 2,
				"row 1: m%ld tile %dx%dx%d sms %d+%d", a->m, a->blk_m, a->blk_n,
				a->blk_k, a->gemm_sms, a->comm_sms);
			T_CHECK("csv-form2-row2",
				b->m == 512 && b->k == 128 && b->blk_n == 128 && b->gemm_sms == 0,
				"row 2: m%ld k%ld BLK_N %d gemm_sms %d", b->m, b->k, b->blk_n,
				b->gemm_sms);
			T_CHECK("csv-form2-defaults",
				!strcmp(a->algorithm, "all_scatter") && a->dtype == FGO_FP16 &&
					a->num_stages == 2,
				"defaults: %s dtype %d", a->algorithm, (int)a->dtype);
		}
		plan_free(&p);
	}
	/* Any column order, blanks, CRLF, comments, an upper-case header; the
	 * reader is picked by content when the name is neither .csv nor .json. */
	if (parse_ok("csv-loose-parse", "shapes.txt",
		     "# shapes for the test\r\nK , M , N\r\n\r\n16, 32, 48\r\n  # done\r\n 16 ,32,48\r\n",
		     NULL, NULL, &p)) {
		T_EQ_INT("csv-loose-count", p.count, 1);
		if (p.count == 1)
			T_CHECK("csv-loose-order",
				p.items[0].cfg.k == 16 && p.items[0].cfg.m == 32 && p.items[0].cfg.n == 48,
				"M %ld N %ld K %ld, want 32 48 16", p.items[0].cfg.m, p.items[0].cfg.n,
				p.items[0].cfg.k);
		plan_free(&p);
	}
	/* A UTF-8 byte order mark before the header (CSV) or the object (JSON). */
	if (parse_ok("csv-bom-parse", "d.csv", "\xef\xbb\xbfm,n,k\n32,64,128\n", NULL, NULL, &p)) {
		T_CHECK("csv-bom", p.count == 1 && p.items[0].cfg.m == 32 && p.items[0].cfg.k == 128,
			"%zu items", p.count);
		plan_free(&p);
	}
	if (parse_ok("json-bom-parse", "d.json", "\xef\xbb\xbf{\"algorithm\": \"gemm\", " SHAPE256 "}",
		     NULL, NULL, &p)) {
		T_EQ_INT("json-bom", p.count, 1);
		plan_free(&p);
	}
	/* A CSV flag override: --world 8 for every row. */
	config_defaults(&base);
	base.world = 8;
	memset(&mask, 0, sizeof mask);
	mask.world = 1;
	if (parse_ok("csv-flag-parse", "d.csv", "m,n,k,world\n64,64,64,2\n", &base, &mask, &p)) {
		T_CHECK("csv-flag-world", p.count == 1 && p.items[0].cfg.world == 8, "world %d",
			p.count ? p.items[0].cfg.world : -1);
		plan_free(&p);
	}
}

static void check_errors(void)
{
	/* malformed JSON: "N" 2 (missing colon) on line 3, column 7 */
	expect_error("err-json-colon", "t.json", "{\n  \"M\": 1,\n  \"N\" 2\n}", "t.json:3:7: ",
		     "malformed JSON");
	expect_error("err-json-comma", "t.json",
		     "{\n  \"algorithm\": \"gemm\"\n  \"M\": 1\n}\n", "t.json:3:3: ", "malformed JSON");
	/* the text ends inside a list: the position is the end of the text */
	expect_error("err-json-unclosed", "t.json", "{\n  \"M\": [1, 2\n", "t.json:3:1: ",
		     "ends early");
	/* one '}' too many at the very end (no final newline): the text does not
	 * end early, it goes on too long; the message must point at the '}' */
	expect_error("err-json-extra-brace", "t.json",
		     "{\"algorithm\":\"gemm\",\"M\":1,\"N\":2,\"K\":3}}", "t.json:1:39: ",
		     "near '}'");
	expect_error("err-json-not-object", "t.json", "42", "t.json:1:1: ", "got a number");

	/* unknown keys, with and without a suggestion */
	expect_error("err-unknown-key", "t.json",
		     "{\n  \"algorithm\": \"gemm\",\n  \"BLK_MM\": 32,\n  \"M\": 64, \"N\": 64, \"K\": 64\n}",
		     "t.json:3:3: ", "unknown key \"BLK_MM\" (did you mean \"BLK_M\"?)");
	expect_error("err-unknown-key-lower", "t.json",
		     "{\"algorithm\": \"gemm\", \"M\": 64, \"N\": 64, \"K\": 64, \"blkm\": 32}",
		     "t.json:1:50: ", "did you mean \"BLK_M\"");
	expect_error("err-unknown-key-none", "t.json", "{\"zzzzzz\": 1}", "t.json:1:2: ",
		     "unknown key \"zzzzzz\" (`man fgobench-sweep`");
	/* a UTF-8 byte order mark is not a column: "x" is at column 39 as an
	 * editor shows it */
	expect_error("err-bom-column", "t.json",
		     "\xef\xbb\xbf{\"algorithm\":\"gemm\",\"M\":1,\"N\":2,\"K\":3,\"x\":1}",
		     "t.json:1:39: ", "unknown key \"x\"");
	/* positions count characters, not bytes (é is two bytes, one column) */
	expect_error("err-unknown-key-utf8", "t.json", "{\"description\": \"\xc3\xa9\", \"BLKM\": 1}",
		     "t.json:1:22: ", "did you mean \"BLK_M\"");
	/* strings with escaped quotes and brackets before the error, in a block */
	expect_error("err-block-position", "t.json",
		     "{\"name\": \"a \\\"}{[\", \"algorithm\": \"gemm\", \"M\": 64, \"N\": 64, \"K\": 64,\n"
		     " \"blocks\": [{}, {\"BLK_M\": 16}, {\"BLK_M\": \"x\"}]}",
		     "t.json:2:42: ", "\"BLK_M\" expects an integer, got a string");

	/* wrong types */
	expect_error("err-type-string", "t.json",
		     "{\n  \"M\": \"big\",\n  \"N\": 1, \"K\": 1, \"algorithm\": \"gemm\"\n}",
		     "t.json:2:8: ", "\"M\" expects an integer, got a string");
	expect_error("err-type-fraction", "t.json",
		     "{\"algorithm\": \"gemm\", " SHAPE256 ", \"BLK_M\": 32.5}", "t.json:1:62: ",
		     "expects an integer, got 32.5");
	expect_error("err-type-algorithm", "t.json", "{\"algorithm\": 5, " SHAPE256 "}",
		     "t.json:1:15: ", "expects an algorithm name, got a number");
	expect_error("err-type-validate", "t.json",
		     "{\"validate\": 1, \"algorithm\": \"gemm\", " SHAPE256 "}", "t.json:1:14: ",
		     "\"validate\" expects true or false");
	expect_error("err-type-range-algorithm", "t.json",
		     "{\"algorithm\": {\"from\": 1, \"to\": 2, \"step\": 1}, " SHAPE256 "}",
		     "t.json:1:15: ", "not a range");

	/* empty list, zero, out-of-range settings */
	expect_error("err-empty-list", "t.json",
		     "{\n  \"BLK_N\": [],\n  \"algorithm\": \"gemm\", " SHAPE256 "\n}", "t.json:2:12: ",
		     "\"BLK_N\" is an empty list");
	expect_error("err-zero", "t.json",
		     "{\n  \"BLK_K\": [32, 0],\n  \"algorithm\": \"gemm\", " SHAPE256 "\n}",
		     "t.json:2:17: ", "\"BLK_K\" must be a positive integer, got 0");
	expect_error("err-zero-world", "t.json", "{\"world\": 0, \"algorithm\": \"gemm\", " SHAPE256 "}",
		     "t.json:1:11: ", "\"world\" must be a positive integer");
	expect_error("err-negative-sms", "t.json",
		     "{\"gemm_sms\": -1, \"algorithm\": \"gemm\", " SHAPE256 "}", "t.json:1:14: ",
		     "\"gemm_sms\" must be >= 0");
	expect_error("err-iterations-zero", "t.json",
		     "{\"iterations\": 0, \"algorithm\": \"gemm\", " SHAPE256 "}", "t.json:1:16: ",
		     "\"iterations\" expects an integer from 1");

	/* unknown algorithm, with a suggestion, inside a list */
	expect_error("err-algorithm", "t.json",
		     "{\n  \"algorithm\": [\"gemm\", \"all_scater\"],\n  " SHAPE256 "\n}",
		     "t.json:2:25: ", "unknown algorithm \"all_scater\" (did you mean \"all_scatter\"?)");
	expect_error("err-dtype", "t.json", "{\"algorithm\": \"gemm\", \"dtype\": \"fp8\", " SHAPE256 "}",
		     "t.json:1:32: ", "unknown dtype \"fp8\"");

	/* ranges */
	expect_error("err-range-backwards", "t.json",
		     "{\n  \"M\": {\"from\": 512, \"to\": 256, \"mul\": 2},\n"
		     "  \"N\": 1, \"K\": 1, \"algorithm\": \"gemm\"\n}",
		     "t.json:2:28: ", "ends (256) before it starts (512)");
	expect_error("err-range-both", "t.json",
		     "{\"algorithm\": \"gemm\", \"N\": 1, \"K\": 1, "
		     "\"M\": {\"from\": 1, \"to\": 8, \"mul\": 2, \"step\": 1}}",
		     "t.json:1:44: ", "one of \"mul\" or \"step\"");
	expect_error("err-range-mul-1", "t.json",
		     "{\"algorithm\": \"gemm\", \"N\": 1, \"K\": 1, \"M\": {\"from\": 1, \"to\": 8, \"mul\": 1}}",
		     "t.json:1:72: ", "\"mul\" must be an integer from 2 to 1024");
	expect_error("err-range-key", "t.json",
		     "{\"algorithm\": \"gemm\", \"N\": 1, \"K\": 1, \"M\": {\"from\": 1, \"until\": 8}}",
		     "t.json:1:56: ", "unknown range key \"until\"");

	/* structure */
	expect_error("err-missing-n", "t.json", "{\"algorithm\": \"gemm\", \"M\": 1, \"K\": 1}", "t.json: ",
		     "missing \"N\"");
	expect_error("err-block-missing", "t.json",
		     "{\"algorithm\": \"gemm\", \"shapes\": [[1, 1, 1]],\n \"blocks\": [{}, {\"M\": 4}]}",
		     "t.json:2:17: ", "this block has no \"N\"");
	expect_error("err-block-not-object", "t.json",
		     "{\"algorithm\": \"gemm\", " SHAPE256 ", \"blocks\": [[1]]}", "t.json:1:64: ",
		     "a block is an object");
	expect_error("err-block-setting", "t.json",
		     "{\"algorithm\": \"gemm\", " SHAPE256 ", \"blocks\": [{\"iterations\": 3}]}",
		     "t.json:1:65: ", "belongs at the top level");
	expect_error("err-shapes-and-m", "t.json",
		     "{\"algorithm\": \"gemm\", \"shapes\": [[1, 1, 1]], \"M\": 4}", "t.json:1:46: ",
		     "give either \"shapes\" or \"M\"");
	expect_error("err-shape-pair", "t.json",
		     "{\"algorithm\": \"gemm\", \"shapes\": [[1, 1, 1], [2, 2]]}", "t.json:1:45: ",
		     "a shape is a list [M, N, K]");

	/* datasets (JSON) */
	expect_error("err-dataset-empty", "t.json", "[]", "t.json:1:1: ", "the dataset list is empty");
	expect_error("err-dataset-row", "t.json",
		     "[\n  {\"m\": 1, \"n\": 2, \"k\": 3},\n  {\"m\": 1, \"n\": 2}\n]", "t.json:3:3: ",
		     "needs \"m\", \"n\" and \"k\"");
	expect_error("err-dataset-key", "t.json", "[{\"m\": 1, \"n\": 2, \"k\": 3, \"blkm\": 16}]",
		     "t.json:1:27: ", "unknown key \"blkm\" (did you mean \"blk_m\"?)");
	expect_error("err-dataset-zero", "t.json", "[{\"m\": 0, \"n\": 2, \"k\": 3}]", "t.json:1:8: ",
		     "\"m\" must be a positive integer");
	expect_error("err-dataset-not-object", "t.json", "[{\"m\": 1, \"n\": 2, \"k\": 3}, 7]",
		     "t.json:1:28: ", "a dataset row is an object");

	/* CSV */
	expect_error("err-csv-field", "t.csv", "m,n,k\n128,128,128\n64,x4,64\n", "t.csv:3:4: ",
		     "N expects an integer, got \"x4\"");
	expect_error("err-csv-field-blanks", "t.csv", "m, n, k\n 1, 2 , 3x\n", "t.csv:2:9: ",
		     "K expects an integer, got \"3x\"");
	expect_error("err-csv-field-after-comments", "t.csv",
		     "# shapes\nm,n,k\n\n128,128,128\n# x\n1,1,z\n", "t.csv:6:5: ",
		     "K expects an integer, got \"z\"");
	expect_error("err-csv-zero", "t.csv", "m,n,k\n0,64,64\n", "t.csv:2:1: ", "M must be between 1");
	expect_error("err-csv-count", "t.csv", "m,n,k\n1,2,3\n1,2\n", "t.csv:3:1: ",
		     "2 fields where the header has 3");
	expect_error("err-csv-dtype", "t.csv", "m,n,k,datatype\n1,2,3,fp8\n", "t.csv:2:7: ",
		     "unknown datatype \"fp8\"");
	/* a row whose first field is empty is a bad row, not a blank line */
	expect_error("err-csv-empty-first-field", "t.csv", "m,n,k\n128,128,128\n,64,64\n",
		     "t.csv:3:1: ", "M expects an integer");
	expect_error("err-csv-column", "t.csv", "m,n,k,blk_mm\n1,1,1,16\n", "t.csv:1:7: ",
		     "unknown column \"blk_mm\" (did you mean \"blk_m\"?)");
	expect_error("err-csv-header-no-k", "t.csv", "\nm,n,blk_k\n1,1,16\n", "t.csv:2:1: ",
		     "must name the columns m, n and k");
	expect_error("err-csv-no-rows", "t.csv", "m,n,k\n", "t.csv: ", "no configurations");

	/* empty files */
	expect_error("err-empty", "t.json", "", "t.json: ", "the file is empty");
	expect_error("err-empty-blanks", "t.json", "  \n\t\n", "t.json: ", "the file is empty");
	expect_error("err-empty-csv", "t.csv", "\n", "t.csv: ", "the file is empty");
}

static void check_invalid_kept(void)
{
	struct fgo_plan p;

	/* reduce_scatter on 3 ranks: M=96 splits, M=100 does not; both stay. */
	if (parse_ok("invalid-divisible-parse", "t.json",
		     "{\"algorithm\": \"reduce_scatter\", \"world\": 3, \"M\": [96, 100], \"N\": 64,"
		     " \"K\": 96, \"BLK_M\": 16, \"BLK_N\": 16, \"BLK_K\": 16}",
		     NULL, NULL, &p)) {
		T_EQ_INT("invalid-divisible-count", p.count, 2);
		if (p.count == 2) {
			T_CHECK("invalid-divisible-good", p.items[0].valid == 1 && !p.items[0].reason[0],
				"M=96 on 3 ranks: valid %d reason \"%s\"", p.items[0].valid,
				p.items[0].reason);
			T_EQ_INT("invalid-divisible-bad", p.items[1].valid, 0);
			T_CONTAINS("invalid-divisible-reason", p.items[1].reason, "divisible");
			T_CONTAINS("invalid-divisible-reason-names", p.items[1].reason, "M=100");
		}
		T_EQ_INT("invalid-divisible-max_world", p.max_world, 3);
		plan_free(&p);
	}

	/* BLK_M larger than M: all_scatter at M=32 takes BLK_M 16 and 32, not 128. */
	if (parse_ok("invalid-exceeds-parse", "t.json",
		     "{\"algorithm\": \"all_scatter\", \"M\": 32, \"N\": 256, \"K\": 64,"
		     " \"BLK_M\": [16, 32, 128]}",
		     NULL, NULL, &p)) {
		T_EQ_INT("invalid-exceeds-count", p.count, 3);
		T_EQ_INT("invalid-exceeds-valid", count_valid(&p), 2);
		if (p.count == 3) {
			T_EQ_INT("invalid-exceeds-bad", p.items[2].valid, 0);
			T_CONTAINS("invalid-exceeds-reason", p.items[2].reason, "exceeds");
			T_CONTAINS("invalid-exceeds-reason-blk", p.items[2].reason, "BLK_M=128");
		}
		plan_free(&p);
	}

	/* Invalid worlds still count towards max_world; Stream-K needs SMs. */
	if (parse_ok("invalid-world-parse", "t.json",
		     "{\"algorithm\": [\"gemm\", \"sk_all_scatter\"], \"world\": [2, 2048], " SHAPE256 "}",
		     NULL, NULL, &p)) {
		T_EQ_INT("invalid-world-count", p.count, 4);
		T_EQ_INT("invalid-world-max_world", p.max_world, 2048);
		T_EQ_INT("invalid-world-valid", count_valid(&p), 1);
		if (p.count == 4) {
			T_CONTAINS("invalid-world-reason", p.items[1].reason, "world=2048");
			T_CONTAINS("invalid-sk-reason", p.items[2].reason, "gemm_sms >= 1");
		}
		plan_free(&p);
	}
}

int main(void)
{
	check_value_list_range();
	check_product_and_blocks();
	check_keys_and_settings();
	check_overrides();
	check_datasets();
	check_errors();
	check_invalid_kept();
	T_DONE();
}
