/* test_spec.c: sweep specs expanded into a plan by spec_parse (src/spec/),
 * from in-memory strings: expansion counts and order (value, list, range,
 * cartesian product, blocks, shapes, union with duplicates removed
 * first-wins), case-insensitive keys, the plan settings, and flags
 * overriding a spec. Datasets and errors: test_spec_errors.c. */
#include "spec_fixture.h"

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
			/* the default BLK_N (64), fitted to this rank's N/W = 32 */
			T_EQ_INT("blocks-shapes-blk_n-default", b->blk_n, 32);
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

	/* "mma" takes the instruction's name as well as its number. */
	if (parse_ok("mma-name-parse", "t.json",
		     "{\"algorithm\": \"gemm\", " SHAPE256 ", \"mma\": [16, \"wgmma\"]}", NULL, NULL,
		     &p)) {
		T_CHECK("mma-name-values",
			p.count == 2 && p.items[0].cfg.mma == 16 && p.items[1].cfg.mma == FGO_MMA_WGMMA,
			"%zu items", p.count);
		plan_free(&p);
	}

	/* Settings and their defaults. */
	if (parse_ok("settings-default-parse", "sweeps/ag_gemm.json",
		     "{\"algorithm\": \"gemm\", " SHAPE256 "}", NULL, NULL, &p)) {
		T_EQ_INT("settings-default-iterations", p.iterations, 10);
		T_EQ_INT("settings-default-warmup", p.warmup, 2);
		T_EQ_INT("settings-default-validate", p.validate, 1);
		T_EQ_INT("settings-default-baseline-once", p.interleave_baseline, 0);
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
	if (parse_ok("settings-baseline-parse", "x.json",
		     "{\"baseline\": \"interleaved\", \"algorithm\": \"gemm\", " SHAPE256 "}", NULL,
		     NULL, &p)) {
		T_EQ_INT("settings-baseline-interleaved", p.interleave_baseline, 1);
		plan_free(&p);
	}
	if (parse_ok("settings-baseline-once-parse", "x.json",
		     "{\"baseline\": \"once\", \"algorithm\": \"gemm\", " SHAPE256 "}", NULL, NULL,
		     &p)) {
		T_EQ_INT("settings-baseline-once", p.interleave_baseline, 0);
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

/* The default tile fitted to the shape (kit_fit_tile): the field's
 * decode-to-prefill dataset (M = 1, 2, 4, ..., 1024 at N = 4096, K =
 * 14336) plans every shape as valid with default flags, on the mma.sync
 * core (BLK_M 16 up to M = 16, 32 at M = 32, the default 64 from M = 64)
 * and on the wgmma core (64-row tiles for every M); a side a spec gives is
 * kept, and refused with the reason where it exceeds the shape. */
static void check_default_tile_fit(void)
{
	const char *dataset = "[{\"m\": 1, \"n\": 4096, \"k\": 14336}, {\"m\": 2, \"n\": 4096, \"k\": 14336},"
			      " {\"m\": 4, \"n\": 4096, \"k\": 14336}, {\"m\": 8, \"n\": 4096, \"k\": 14336},"
			      " {\"m\": 16, \"n\": 4096, \"k\": 14336}, {\"m\": 32, \"n\": 4096, \"k\": 14336},"
			      " {\"m\": 64, \"n\": 4096, \"k\": 14336}, {\"m\": 128, \"n\": 4096, \"k\": 14336},"
			      " {\"m\": 256, \"n\": 4096, \"k\": 14336}, {\"m\": 512, \"n\": 4096, \"k\": 14336},"
			      " {\"m\": 1024, \"n\": 4096, \"k\": 14336}]";
	static const int want_m[] = { 16, 16, 16, 16, 16, 32, 64, 64, 64, 64, 64 };
	struct fgo_plan p;
	if (parse_ok("fit-decode-parse", "decode.json", dataset, NULL, NULL, &p)) {
		size_t valid = 0, right = 0;
		for (size_t i = 0; i < p.count; i++) {
			valid += p.items[i].valid;
			right += i < FGO_ARRAY_SIZE(want_m) && p.items[i].cfg.blk_m == want_m[i];
		}
		T_EQ_INT("fit-decode-count", p.count, 11);
		T_EQ_INT("fit-decode-all-valid", valid, 11);
		T_EQ_INT("fit-decode-blk_m", right, 11);
		plan_free(&p);
	}
	struct fgo_config base;
	struct fgo_config_mask mask;
	config_defaults(&base);
	memset(&mask, 0, sizeof mask);
	base.mma = FGO_MMA_WGMMA; /* as --mma wgmma would */
	mask.mma = 1;
	if (parse_ok("fit-decode-wgmma-parse", "decode.json", dataset, &base, &mask, &p)) {
		size_t valid = 0, rows64 = 0;
		for (size_t i = 0; i < p.count; i++) {
			valid += p.items[i].valid;
			rows64 += p.items[i].cfg.blk_m == 64;
		}
		T_EQ_INT("fit-decode-wgmma-all-valid", valid, 11);
		T_EQ_INT("fit-decode-wgmma-blk_m-64", rows64, 11);
		plan_free(&p);
	}
	/* the dataset with default flags on an sm_90 GPU: every shape on the
	 * Hopper core, the table's tiles (not the 16-row tiles fitted for
	 * mma.sync) */
	if (parse_ok("fit-decode-target-parse", "decode.json", dataset, NULL, NULL, &p)) {
		size_t valid = 0, wgmma32 = 0, wgmma64 = 0;
		plan_fit_target(&p, "sm_90a");
		for (size_t i = 0; i < p.count; i++) {
			valid += p.items[i].valid;
			wgmma32 += p.items[i].cfg.mma == FGO_MMA_WGMMA && p.items[i].cfg.blk_m == 32;
			wgmma64 += p.items[i].cfg.mma == FGO_MMA_WGMMA && p.items[i].cfg.blk_m == 64;
		}
		T_EQ_INT("fit-decode-target-all-valid", valid, 11);
		/* the defaults table's tiles (spec/defaults.c): 32 rows with A and
		 * B swapped up to M=32, 64 rows at 64..256, 128 x 128 at M=512 and
		 * 1024 (test_defaults has each row) */
		T_EQ_INT("fit-decode-target-wgmma-32", wgmma32, 6);
		T_EQ_INT("fit-decode-target-wgmma-64", wgmma64, 3);
		plan_free(&p);
	}
	if (parse_ok("fit-given-parse", "t.json",
		     "{\"algorithm\": \"gemm\", \"world\": 1, \"M\": 1, \"N\": 40, \"K\": 64, \"BLK_M\": 64}",
		     NULL, NULL, &p)) {
		T_EQ_INT("fit-given-kept", p.items[0].cfg.blk_m, 64);
		T_EQ_INT("fit-given-refused", p.items[0].valid, 0);
		T_CONTAINS("fit-given-reason", p.items[0].reason, "BLK_M=64 exceeds M=1");
		T_EQ_INT("fit-default-n", p.items[0].cfg.blk_n, 64); /* N=40: the next power of two */
		plan_free(&p);
	}
}

/* The best core of the target (plan_fit_target, kit_fit_core): on sm_90a
 * the items that left the core to the default run on wgmma (the defaults
 * table's tile where none is given; 12 warps and 3 stages for a given
 * 128 x 256; a swapped height a consumer per 64 columns), fp32 and an
 * explicit mma stay, and on the CPU nothing changes. */
static void check_core_fit(void)
{
	struct fgo_plan p;
	if (parse_ok("core-parse", "t.json",
		     "{\"algorithm\": \"gemm\", \"world\": 1, \"M\": 4096, \"N\": 4096, \"K\": 4096,"
		     " \"blocks\": [{\"dtype\": [\"bf16\", \"fp32\"]},"
		     " {\"dtype\": \"fp16\", \"mma\": 16},"
		     " {\"dtype\": \"bf16\", \"BLK_M\": 128, \"BLK_N\": 256},"
		     " {\"dtype\": \"bf16\", \"BLK_M\": 80, \"BLK_N\": 128},"
		     " {\"dtype\": \"bf16\", \"BLK_M\": 144, \"BLK_N\": 64}]}",
		     NULL, NULL, &p)) {
		T_EQ_INT("core-count", p.count, 6);
		plan_fit_target(&p, "x86_64");
		T_EQ_INT("core-cpu-unchanged", p.items[0].cfg.mma, 16);
		plan_fit_target(&p, "sm_90a");
		const struct fgo_config *bf = &p.items[0].cfg, *f32 = &p.items[1].cfg, *pinned = &p.items[2].cfg,
					*big = &p.items[3].cfg;
		/* 4096^3: the defaults table's large tile (spec/defaults.c) */
		T_CHECK("core-bf16-wgmma",
			bf->mma == FGO_MMA_WGMMA && bf->blk_k == 64 && bf->num_warps == 12 && bf->num_stages == 3 &&
				bf->blk_m == 128 && bf->blk_n == 256 && p.items[0].valid,
			"mma %d BLK_K %d warps %d stages %d valid %d (%s)", bf->mma, bf->blk_k, bf->num_warps,
			bf->num_stages, p.items[0].valid, p.items[0].reason);
		T_EQ_INT("core-fp32-simt", f32->mma, 16);
		T_EQ_INT("core-explicit-kept", pinned->mma, 16);
		T_CHECK("core-128x256", big->mma == FGO_MMA_WGMMA && big->num_warps == 12 && big->num_stages == 3 &&
						p.items[3].valid,
			"mma %d warps %d stages %d valid %d (%s)", big->mma, big->num_warps, big->num_stages,
			p.items[3].valid, p.items[3].reason);
		/* swapped heights (no multiple of 64): a consumer per 64 columns,
		 * whatever the height (two for 80 x 128, one for 144 x 64, where
		 * the rule for the other tiles would give 8 and 12 warps) */
		const struct fgo_config *pair = &p.items[4].cfg, *one = &p.items[5].cfg;
		T_CHECK("core-swap-80x128", pair->mma == FGO_MMA_WGMMA && pair->num_warps == 12 && p.items[4].valid,
			"mma %d warps %d valid %d (%s)", pair->mma, pair->num_warps, p.items[4].valid,
			p.items[4].reason);
		T_CHECK("core-swap-144x64", one->mma == FGO_MMA_WGMMA && one->num_warps == 8 && p.items[5].valid,
			"mma %d warps %d valid %d (%s)", one->mma, one->num_warps, p.items[5].valid, p.items[5].reason);
		plan_free(&p);
	}
}

/* plan_invalid_reasons: each reason once with its count, most frequent
 * first, ties in plan order, valid items ignored, past max counted only. */
static void check_invalid_reasons(void)
{
	static const char *const why[] = { "b", "", "a", "c", "a", "", "c", "a" }; /* "": valid */
	struct fgo_plan_item items[FGO_ARRAY_SIZE(why)];
	struct fgo_plan p = { .items = items, .count = FGO_ARRAY_SIZE(why) };
	struct plan_reason r[4];
	size_t invalid = 0;
	memset(items, 0, sizeof items);
	for (size_t i = 0; i < p.count; i++) {
		items[i].valid = !why[i][0];
		snprintf(items[i].reason, sizeof items[i].reason, "%s", why[i]);
	}
	size_t n = plan_invalid_reasons(&p, r, FGO_ARRAY_SIZE(r), &invalid);
	T_EQ_INT("reasons-groups", n, 3);
	T_EQ_INT("reasons-invalid", invalid, 6);
	if (n == 3)
		T_CHECK("reasons-order",
			!strcmp(r[0].reason, "a") && r[0].count == 3 && !strcmp(r[1].reason, "c") &&
				r[1].count == 2 && !strcmp(r[2].reason, "b") && r[2].count == 1,
			"got %s x%zu, %s x%zu, %s x%zu; want a x3, c x2, b x1", r[0].reason, r[0].count,
			r[1].reason, r[1].count, r[2].reason, r[2].count);
	/* a tie keeps plan order: b (item 0) before d (item 5) */
	snprintf(items[5].reason, sizeof items[5].reason, "d");
	items[5].valid = 0;
	n = plan_invalid_reasons(&p, r, 2, &invalid);
	T_EQ_INT("reasons-max-groups", n, 4);
	T_CHECK("reasons-max-kept", !strcmp(r[0].reason, "a") && !strcmp(r[1].reason, "c"),
		"got %s, %s; want a, c", r[0].reason, r[1].reason);
	n = plan_invalid_reasons(&p, r, FGO_ARRAY_SIZE(r), &invalid);
	T_CHECK("reasons-tie-plan-order", n == 4 && !strcmp(r[2].reason, "b") && !strcmp(r[3].reason, "d"),
		"got %zu groups, third %s, fourth %s; want b then d", n, r[2].reason, r[3].reason);
	for (size_t i = 0; i < p.count; i++)
		items[i].valid = 1;
	T_EQ_INT("reasons-none", plan_invalid_reasons(&p, r, FGO_ARRAY_SIZE(r), &invalid), 0);
	T_EQ_INT("reasons-none-invalid", invalid, 0);
}

/* "cluster": a value or a list like every tunable, marked given, in the
 * key; a flag overrides it; a size no cluster has is refused at its
 * position; a cluster with Stream-K stays in the plan as invalid. */
static void check_cluster(void)
{
	struct fgo_plan p;
	if (parse_ok("cluster-parse", "t.json", "{\"algorithm\": \"gemm\", " SHAPE256 ", \"cluster\": 2}",
		     NULL, NULL, &p)) {
		char key[FGO_KEY_MAX] = "";
		if (p.count == 1)
			config_key(&p.items[0].cfg, key, sizeof key);
		T_CHECK("cluster-value", p.count == 1 && p.items[0].cfg.cluster == 2 &&
						 (p.items[0].cfg.given & FGO_GIVEN_CLUSTER) && p.items[0].valid,
			"%zu items, cluster %d", p.count, p.count ? p.items[0].cfg.cluster : -1);
		T_CONTAINS("cluster-in-key", key, "/cl2");
		plan_free(&p);
	}
	if (parse_ok("cluster-absent-parse", "t.json", "{\"algorithm\": \"gemm\", " SHAPE256 "}", NULL,
		     NULL, &p)) {
		T_CHECK("cluster-absent-default", p.count == 1 && p.items[0].cfg.cluster == 1 &&
							  !(p.items[0].cfg.given & FGO_GIVEN_CLUSTER),
			"cluster %d given %#x", p.count ? p.items[0].cfg.cluster : -1,
			p.count ? p.items[0].cfg.given : 0u);
		plan_free(&p);
	}
	const char *list = "{\"algorithm\": \"gemm\", " SHAPE256 ", \"Cluster\": [1, 2, 4]}";
	if (parse_ok("cluster-list-parse", "t.json", list, NULL, NULL, &p)) {
		T_CHECK("cluster-list", p.count == 3 && p.items[0].cfg.cluster == 1 &&
						p.items[1].cfg.cluster == 2 && p.items[2].cfg.cluster == 4,
			"%zu items", p.count);
		plan_free(&p);
	}
	struct fgo_config base;
	struct fgo_config_mask mask;
	config_defaults(&base);
	base.cluster = 4;
	memset(&mask, 0, sizeof mask);
	mask.cluster = 1;
	if (parse_ok("cluster-override-parse", "t.json", list, &base, &mask, &p)) {
		T_CHECK("cluster-override", p.count == 1 && p.items[0].cfg.cluster == 4,
			"%zu items, cluster %d", p.count, p.count ? p.items[0].cfg.cluster : -1);
		plan_free(&p);
	}
	if (parse_ok("cluster-stream-k-parse", "t.json",
		     "{\"algorithm\": \"gemm\", " SHAPE256 ", \"cluster\": 2, \"gemm_sms\": 4}", NULL,
		     NULL, &p)) {
		T_CHECK("cluster-stream-k-invalid", p.count == 1 && !p.items[0].valid &&
							    strstr(p.items[0].reason, "cluster=2 and gemm_sms=4"),
			"%zu items, reason \"%s\"", p.count, p.count ? p.items[0].reason : "");
		plan_free(&p);
	}
	expect_error("cluster-3", "t.json", "{\"algorithm\": \"gemm\", " SHAPE256 ",\n \"cluster\": 3}",
		     "t.json:2:13: ", "\"cluster\" must be 1, 2, 4 or 8 (CTAs of a thread block cluster");
	expect_error("cluster-list-16", "t.json",
		     "{\"algorithm\": \"gemm\", " SHAPE256 ",\n \"cluster\": [1, 16]}", "t.json:2:17: ",
		     "got 16");
	expect_error("cluster-string", "t.json", "{\"algorithm\": \"gemm\", " SHAPE256 ",\n \"cluster\": \"2\"}",
		     "t.json:2:13: ", "\"cluster\" expects an integer, got a string");
}

int main(void)
{
	check_invalid_reasons();
	check_cluster();
	check_value_list_range();
	check_product_and_blocks();
	check_keys_and_settings();
	check_overrides();
	check_default_tile_fit();
	check_core_fit();
	T_DONE();
}
