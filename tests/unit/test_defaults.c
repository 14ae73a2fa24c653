/* test_defaults.c: the defaults table (src/spec/defaults.c): each shape
 * class's boundaries on wgmma, the families whose tile space is M/W rows,
 * the Stream-K forms, K deciding the split, no row for the CPU or
 * mma.sync, a pick that cannot run falling back with its reason,
 * plan_fit_target on the seed's decode dataset, the arch's shared memory
 * limit. Config auto's pick is test_auto_pick.c's. */
#include <string.h>

#include "fgo.h"
#include "gpu/gpu_shape.h"
#include "model.h"
#include "spec/defaults.h"
#include "spec/spec.h"
#include "testlib.h"

static struct fgo_config problem(const char *algo, int world, long m, long n, long k)
{
	struct fgo_config c;
	config_defaults(&c);
	snprintf(c.algorithm, sizeof c.algorithm, "%s", algo);
	c.dtype = FGO_BF16;
	c.world = world;
	c.m = m;
	c.n = n;
	c.k = k;
	c.mma = FGO_MMA_WGMMA;
	return c;
}

/* One case: the row (1-based as printed, 0: none) and its pick. */
static const struct {
	const char *id, *algo;
	int world;
	long m, n, k;
	int row, blk_m, blk_n, split, chunk;
} cases[] = {
	/* all_scatter W=2 N=4096 K=14336 (the seed's decode dataset): per-rank 2048 columns */
	{ "as-m1", "all_scatter", 2, 1, 4096, 14336, 6, 32, 64, 2, 0 },
	{ "as-m32", "all_scatter", 2, 32, 4096, 14336, 6, 32, 64, 2, 0 },
	{ "as-m33", "all_scatter", 2, 33, 4096, 14336, 17, 64, 64, 2, 0 },
	{ "as-m128", "all_scatter", 2, 128, 4096, 14336, 17, 64, 64, 2, 0 },
	{ "as-m256", "all_scatter", 2, 256, 4096, 14336, 15, 64, 128, 2, 0 },
	{ "as-m257", "all_scatter", 2, 257, 4096, 14336, 16, 128, 128, 2, 0 },
	{ "as-m512", "all_scatter", 2, 512, 4096, 14336, 16, 128, 128, 2, 0 },
	{ "as-m513", "all_scatter", 2, 513, 4096, 14336, 25, 128, 128, 1, 0 },
	{ "as-m1024", "all_scatter", 2, 1024, 4096, 14336, 25, 128, 128, 1, 0 },
	{ "as-m1025", "all_scatter", 2, 1025, 4096, 14336, 26, 128, 256, 1, 0 },
	{ "as-m16384", "all_scatter", 2, 16384, 4096, 14336, 26, 128, 256, 1, 0 },
	/* K decides the split: 256 rows x 2048 at K 7168 and one less */
	{ "as-k7168", "all_scatter", 2, 256, 4096, 7168, 15, 64, 128, 2, 0 },
	{ "as-k7167", "all_scatter", 2, 256, 4096, 7167, 20, 64, 64, 1, 0 },
	{ "as-128-k4096", "all_scatter", 2, 128, 4096, 4096, 19, 64, 64, 4, 0 },
	{ "as-128-k4095", "all_scatter", 2, 128, 4096, 4095, 20, 64, 64, 1, 0 },
	/* few columns: more slices (gemm W=1, per-rank table) */
	{ "gemm-n512", "gemm", 1, 64, 512, 14336, 13, 64, 64, 16, 0 },
	{ "gemm-n513", "gemm", 1, 64, 513, 14336, 14, 64, 64, 8, 0 },
	{ "gemm-n1024-k8191", "gemm", 1, 128, 1024, 8191, 18, 64, 64, 4, 0 },
	{ "gemm-n1024-k7167", "gemm", 1, 128, 1024, 7167, 19, 64, 64, 4, 0 },
	{ "gemm-m129-n1024", "gemm", 1, 129, 1024, 8192, 18, 64, 64, 4, 0 },
	/* K-sharded: K/W decides (7168 at K=14336, W=2) */
	{ "ar-m128", "all_reduce_one_shot", 2, 128, 4096, 14336, 10, 64, 128, 2, 0 },
	{ "ar-m64", "all_reduce_two_shot", 2, 64, 4096, 14336, 11, 64, 64, 2, 0 },
	{ "ar-w4-m16", "all_reduce_one_shot", 4, 16, 4096, 14336, 3, 16, 64, 1, 0 },
	{ "ar-w4-m33", "all_reduce_one_shot", 4, 33, 4096, 14336, 11, 64, 64, 2, 0 },
	{ "ar-w4-m64", "all_reduce_two_shot", 4, 64, 4096, 14336, 11, 64, 64, 2, 0 },
	{ "ar-m1024", "all_reduce_two_shot", 2, 1024, 4096, 14336, 26, 128, 256, 1, 0 },
	/* M/W rows: reduce_scatter and the gathers */
	{ "rs-m128", "reduce_scatter", 2, 128, 4096, 14336, 12, 64, 128, 2, 0 },
	{ "rs-m64", "reduce_scatter", 2, 64, 4096, 14336, 12, 64, 128, 2, 0 },
	/* W=4, K/W 3584: the K-sharded families at M = 128 split 2 on 64x128,
	 * reduce_scatter down to 4 rows a rank (M = 16); below, the next row */
	{ "ar-w4-m128", "all_reduce_one_shot", 4, 128, 4096, 14336, 10, 64, 128, 2, 0 },
	{ "ar-w4-k3583", "all_reduce_two_shot", 4, 128, 4096, 14332, 20, 64, 64, 1, 0 },
	{ "rs-w4-m128", "reduce_scatter", 4, 128, 4096, 14336, 12, 64, 128, 2, 0 },
	{ "rs-w4-m16", "reduce_scatter", 4, 16, 4096, 14336, 8, 32, 64, 1, 0 },
	{ "rs-w4-m36", "reduce_scatter", 4, 36, 4096, 14336, 12, 64, 128, 2, 0 },
	{ "rs-w4-m8", "reduce_scatter", 4, 8, 4096, 14336, 8, 32, 64, 1, 0 },
	{ "rs-m1024", "reduce_scatter", 2, 1024, 4096, 14336, 26, 128, 256, 1, 0 },
	{ "push-m1024", "all_gather_gemm_push", 2, 1024, 4096, 14336, 25, 128, 128, 1, 0 },
	{ "pull-m128", "all_gather_gemm_pull", 2, 128, 4096, 14336, 18, 64, 64, 4, 0 },
	{ "pull-m1022", "all_gather_gemm_pull", 2, 1022, 4096, 14336, 25, 128, 128, 1, 0 },
	{ "pull-m1024", "all_gather_gemm_pull", 2, 1024, 4096, 14336, 21, 64, 128, 1, 512 },
	{ "pull-m4096", "all_gather_gemm_pull", 2, 4096, 4096, 14336, 22, 128, 256, 1, 512 },
	/* W=4: 1024 rows of 1024 columns, K 14336: the deeper 128x128 split 2 */
	{ "as-w4-m1024", "all_scatter", 4, 1024, 4096, 14336, 23, 128, 128, 2, 0 },
	{ "gemm-1024-k7167", "gemm", 1, 1024, 1024, 7167, 24, 64, 128, 1, 0 },
	/* decode rows, A and B swapped: up to 32 rows a rank for gemm and
	 * all_scatter (columns and K decide the split), the all-reduces; the
	 * row-sharded families up to 8 rows a rank (M/W) only */
	{ "gemm-m1-n512", "gemm", 1, 1, 512, 14336, 4, 16, 64, 16, 0 },
	{ "gemm-m16-n1024", "gemm", 1, 16, 1024, 8192, 5, 32, 64, 8, 0 },
	{ "gemm-m32-n4096", "gemm", 1, 32, 4096, 4096, 6, 32, 64, 2, 0 },
	{ "as-w4-m32", "all_scatter", 4, 32, 4096, 14336, 5, 32, 64, 8, 0 },
	{ "ar-m32", "all_reduce_two_shot", 2, 32, 4096, 14336, 3, 16, 64, 1, 0 },
	{ "pull-w4-m32", "all_gather_gemm_pull", 4, 32, 4096, 14336, 7, 32, 64, 8, 0 },
	{ "rs-m16", "reduce_scatter", 2, 16, 4096, 14336, 8, 32, 64, 1, 0 },
	{ "push-m16", "all_gather_gemm_push", 2, 16, 4096, 14336, 7, 32, 64, 8, 0 },
	{ "rs-m32", "reduce_scatter", 2, 32, 4096, 14336, 12, 64, 128, 2, 0 },
	{ "push-m18", "all_gather_gemm_push", 2, 18, 4096, 14336, 18, 64, 64, 4, 0 },
	/* each row's upper bound of rows from inside (issue 52: a rows_max
	 * 128 -> 64 went unseen where every case sat at 64 rows or fewer):
	 * reduce_scatter 128 rows a rank (M/W) of 2 x 2048 columns, and one more; gemm 128 rows of
	 * 512 columns, 96 of 1024, 32 of 512 on the decode row; 256 rows of
	 * 1024 at K 4096 */
	{ "rs-m256-n2048", "reduce_scatter", 2, 256, 2048, 14336, 12, 64, 128, 2, 0 },
	{ "rs-m258-n2048", "reduce_scatter", 2, 258, 2048, 14336, 24, 64, 128, 1, 0 },
	{ "gemm-m128-n512", "gemm", 1, 128, 512, 14336, 13, 64, 64, 16, 0 },
	{ "gemm-m96-n1024", "gemm", 1, 96, 1024, 8192, 14, 64, 64, 8, 0 },
	{ "gemm-m32-n512", "gemm", 1, 32, 512, 14336, 4, 16, 64, 16, 0 },
	{ "gemm-m256-n1024-k4096", "gemm", 1, 256, 1024, 4096, 19, 64, 64, 4, 0 },
	/* Stream-K forms: no split; up to 32 rows the swapped decode row */
	{ "sk-as-m1", "sk_all_scatter", 2, 1, 4096, 14336, 9, 16, 64, 1, 0 },
	{ "sk-ar-w4-m32", "sk_all_reduce", 4, 32, 4096, 14336, 9, 16, 64, 1, 0 },
	{ "sk-ar-m33", "sk_all_reduce", 2, 33, 4096, 14336, 1, 64, 64, 1, 0 },
	{ "sk-as-m32-n65536", "sk_all_scatter", 2, 32, 65536, 4096, 9, 16, 64, 1, 0 },
	{ "sk-as-m128", "sk_all_scatter", 2, 128, 4096, 14336, 1, 64, 64, 1, 0 },
	{ "sk-ar-m128", "sk_all_reduce", 2, 128, 4096, 14336, 1, 64, 64, 1, 0 },
	{ "sk-ar-w4-m128", "sk_all_reduce", 4, 128, 4096, 14336, 1, 64, 64, 1, 0 },
	{ "sk-ar-m129", "sk_all_reduce", 2, 129, 4096, 14336, 2, 128, 128, 1, 0 },
	{ "sk-ar-m1024", "sk_all_reduce", 2, 1024, 4096, 14336, 2, 128, 128, 1, 0 },
	{ "sk-as-w4-m4096", "sk_all_scatter", 4, 4096, 4096, 14336, 2, 128, 128, 1, 0 },
	{ "sk-ar-m1025", "sk_all_reduce", 2, 1025, 4096, 14336, 26, 128, 256, 1, 0 },
	{ "sk-as-m8192", "sk_all_scatter", 2, 8192, 8192, 8192, 26, 128, 256, 1, 0 },
};

static void check_lookup(void)
{
	char id[96];
	for (size_t i = 0; i < FGO_ARRAY_SIZE(cases); i++) {
		struct fgo_config c = problem(cases[i].algo, cases[i].world, cases[i].m, cases[i].n,
					      cases[i].k);
		int row = defaults_lookup(&c, "wgmma");
		snprintf(id, sizeof id, "lookup-%s", cases[i].id);
		T_EQ_INT(id, row + 1, cases[i].row);
		if (row < 0)
			continue;
		defaults_apply(&c, &defaults_table[row]);
		snprintf(id, sizeof id, "pick-%s", cases[i].id);
		T_CHECK(id,
			c.blk_m == cases[i].blk_m && c.blk_n == cases[i].blk_n &&
				c.split_k == cases[i].split && c.comm_blk_m == cases[i].chunk,
			"%dx%d split %d chunk %d, want %dx%d split %d chunk %d", c.blk_m, c.blk_n,
			c.split_k, c.comm_blk_m, cases[i].blk_m, cases[i].blk_n, cases[i].split,
			cases[i].chunk);
	}
}

/* Every row is reachable, names its evidence, and no core but wgmma has
 * rows (the CPU's and mma.sync's defaults stay the core's). */
static void check_table(void)
{
	struct fgo_config c = problem("all_scatter", 2, 128, 4096, 14336);
	int other = 0;
	for (size_t i = 0; i < defaults_table_rows; i++)
		other += strcmp(defaults_table[i].core, "wgmma") != 0 || !defaults_table[i].evidence ||
			 !defaults_table[i].evidence[0];
	T_EQ_INT("table-wgmma-only-with-evidence", other, 0);
	T_EQ_INT("table-cpu-none", defaults_lookup(&c, "cpu"), -1);
	T_EQ_INT("table-mma16-none", defaults_lookup(&c, "mma16"), -1);
	T_EQ_STR("core-cpu", defaults_core(&c, "x86_64"), "cpu");
	T_EQ_STR("core-wgmma", defaults_core(&c, "sm_90a"), "wgmma");
	c.mma = FGO_MMA_SYNC;
	T_EQ_STR("core-mma16", defaults_core(&c, "sm_90a"), "mma16");
}

/* What was given stays: a given tile keeps every field (no row), a given
 * split or chunk keeps its own, a given hybrid walk takes no split. */
static void check_given(void)
{
	struct fgo_config c = problem("all_gather_gemm_pull", 2, 1024, 4096, 14336);
	int row;
	c.blk_m = 128;
	c.given = FGO_GIVEN_BLK_M;
	T_EQ_INT("given-tile-no-row", defaults_fit(&c, "sm_90a", &row), DEFAULTS_GIVEN);
	T_EQ_INT("given-tile-kept", c.blk_m, 128);

	c = problem("all_gather_gemm_pull", 2, 1024, 4096, 14336);
	c.comm_blk_m = 64;
	c.given = FGO_GIVEN_COMM_BLK;
	defaults_apply(&c, &defaults_table[defaults_lookup(&c, "wgmma")]);
	T_EQ_INT("given-chunk-kept", c.comm_blk_m, 64);

	c = problem("all_scatter", 2, 128, 4096, 14336);
	c.split_k = 3;
	c.given = FGO_GIVEN_SPLIT_K;
	defaults_apply(&c, &defaults_table[defaults_lookup(&c, "wgmma")]);
	T_CHECK("given-split-kept", c.split_k == 3 && c.blk_m == 64 && c.num_stages == 12,
		"split %d tile %d stages %d", c.split_k, c.blk_m, c.num_stages);

	c = problem("all_scatter", 2, 128, 4096, 14336);
	c.gemm_sms = 132;
	c.given = FGO_GIVEN_SMS;
	defaults_apply(&c, &defaults_table[defaults_lookup(&c, "wgmma")]);
	T_EQ_INT("given-hybrid-no-split", c.split_k, 1);
}

/* A row's pick that cannot run on the shape: the core's tile stays, and
 * the description says which row, why, and what runs instead. */
static void check_fallback(void)
{
	/* 16384 rows x 32 columns: 512K elements, the 64x128 row, BLK_N 128 > 64 */
	struct fgo_config c = problem("all_scatter", 2, 32768, 64, 4096), before;
	char line[512];
	int row;
	c.blk_n = 64;
	before = c;
	enum defaults_how how = defaults_fit(&c, "sm_90a", &row);
	T_EQ_INT("fallback-how", how, DEFAULTS_FALLBACK);
	T_EQ_INT("fallback-row", row + 1, 24);
	T_CHECK("fallback-tile-kept", c.blk_m == before.blk_m && c.blk_n == 64 && c.split_k == 1,
		"%dx%d split %d", c.blk_m, c.blk_n, c.split_k);
	defaults_describe(&c, "sm_90a", how, row, line, sizeof line);
	T_CONTAINS("fallback-says-row", line, "table row 24's 64x128x64 s4 w8 cannot run");
	T_CONTAINS("fallback-says-why", line, "BLK_N=128 exceeds");
	T_CONTAINS("fallback-says-tile", line, "so the core's small legal tile 64x64");

	c = problem("all_scatter", 2, 128, 4096, 14336);
	how = defaults_fit(&c, "sm_90a", &row);
	defaults_describe(&c, "sm_90a", how, row, line, sizeof line);
	T_EQ_STR("describe-table", line,
		 "default tile for wgmma, per-rank GEMM 128 x 2048 x 14336: 64x64x64 s12 w8 split 2"
		 " (table row 17)");
}

/* The seed's decode dataset on sm_90a: every shape valid on wgmma with the
 * table's tile; on the CPU nothing changes (the core has no rows). */
static void check_plan(void)
{
	static const char dataset[] =
		"[{\"m\": 1, \"n\": 4096, \"k\": 14336}, {\"m\": 128, \"n\": 4096, \"k\": 14336},"
		" {\"m\": 512, \"n\": 4096, \"k\": 14336}, {\"m\": 1024, \"n\": 4096, \"k\": 14336}]";
	static const int blk_m[] = { 32, 64, 128, 128 }, blk_n[] = { 64, 64, 128, 128 },
			 split[] = { 2, 2, 2, 1 };
	struct fgo_config base;
	struct fgo_config_mask set;
	struct fgo_plan p;
	char err[512];
	config_defaults(&base);
	base.dtype = FGO_BF16;
	memset(&set, 0, sizeof set);
	set.dtype = 1;
	if (spec_parse("decode.json", dataset, &base, &set, &p, err, sizeof err) != FGO_OK) {
		T_CHECK("plan-parse", 0, "%s", err);
		return;
	}
	plan_fit_target(&p, "x86_64");
	T_CHECK("plan-cpu-unchanged",
		p.items[3].cfg.blk_m == 64 && p.items[3].cfg.blk_k == 32 && p.items[3].cfg.split_k == 1 &&
			p.items[3].default_how == DEFAULTS_GIVEN,
		"%dx%dx%d split %d how %d", p.items[3].cfg.blk_m, p.items[3].cfg.blk_n,
		p.items[3].cfg.blk_k, p.items[3].cfg.split_k, p.items[3].default_how);
	plan_fit_target(&p, "sm_90a");
	for (size_t i = 0; i < p.count; i++) {
		const struct fgo_config *c = &p.items[i].cfg;
		char id[64];
		snprintf(id, sizeof id, "plan-sm90-%zu", i);
		T_CHECK(id,
			p.items[i].valid && p.items[i].default_how == DEFAULTS_TABLE &&
				c->mma == FGO_MMA_WGMMA && c->blk_m == blk_m[i] && c->blk_n == blk_n[i] &&
				c->split_k == split[i],
			"valid %d how %d mma %d %dx%d split %d (%s)", p.items[i].valid,
			p.items[i].default_how, c->mma, c->blk_m, c->blk_n, c->split_k, p.items[i].reason);
	}
	plan_free(&p);
}

/* A configuration past the arch's shared memory is refused by name where
 * the arch is known (--config auto once ran 128x256 s6 on an H100: 361600
 * bytes, where a CTA may have 232448), and left to the launch where not. */
static void check_smem(void)
{
	struct fgo_config c = problem("all_scatter", 2, 1024, 4096, 14336);
	char why[FGO_REASON_MAX];
	c.blk_m = 128;
	c.blk_n = 256;
	c.blk_k = 64;
	c.num_warps = 12;
	c.num_stages = 6;
	T_EQ_INT("smem-sm90-refused", defaults_check(&c, "sm_90a", why, sizeof why), 1);
	T_CONTAINS("smem-sm90-says", why, "the GPU allows 232448 per block");
	T_EQ_INT("smem-unknown-arch", defaults_check(&c, NULL, why, sizeof why), 0);
	c.num_stages = 3;
	T_EQ_INT("smem-sm90-s3-fits", defaults_check(&c, "sm_90a", why, sizeof why), 0);
	T_EQ_INT("smem-limit-sm80", gpu_arch_smem_limit("sm_80"), 166912);
	T_EQ_INT("smem-limit-amd", gpu_arch_smem_limit("gfx942"), 0);
}

/* The Stream-K forms without gemm_sms or comm_sms take the device's
 * compute units and no communication CTAs (plan_fit_units), valid then;
 * one that gives either keeps what it gave (and its refusal), the other
 * families are untouched, and without a count nothing changes. */
static void check_units(void)
{
	struct fgo_plan p;
	struct fgo_plan_item items[4];
	memset(&p, 0, sizeof p);
	memset(items, 0, sizeof items);
	items[0].cfg = problem("sk_all_reduce", 2, 1024, 4096, 14336);
	items[1].cfg = problem("sk_all_scatter", 2, 1024, 4096, 14336);
	items[1].cfg.comm_sms = 8;
	items[1].cfg.given |= FGO_GIVEN_SMS;
	items[2].cfg = problem("all_scatter", 2, 1024, 4096, 14336);
	items[3].cfg = problem("sk_all_scatter", 2, 1024, 4096, 14336);
	for (int i = 0; i < 4; i++)
		items[i].valid = !config_validate(&items[i].cfg, items[i].reason, sizeof items[i].reason);
	p.items = items;
	p.count = 4;
	T_EQ_INT("units-refused-before", items[0].valid, 0);
	T_EQ_INT("units-none", (int)plan_fit_units(&p, 0), 0);
	T_EQ_INT("units-none-refused", items[0].valid, 0);
	T_EQ_INT("units-taken", (int)plan_fit_units(&p, 132), 2);
	T_CHECK("units-sk", items[0].valid && items[0].cfg.gemm_sms == 132 && items[0].cfg.comm_sms == 0,
		"valid %d %d + %d (%s)", items[0].valid, items[0].cfg.gemm_sms, items[0].cfg.comm_sms,
		items[0].reason);
	T_CHECK("units-given-kept", !items[1].valid && items[1].cfg.gemm_sms == 0 &&
		items[1].cfg.comm_sms == 8, "valid %d %d + %d", items[1].valid, items[1].cfg.gemm_sms,
		items[1].cfg.comm_sms);
	T_CONTAINS("units-given-says", items[1].reason, "needs gemm_sms >= 1");
	T_EQ_INT("units-dp-untouched", items[2].cfg.gemm_sms, 0);
	T_EQ_INT("units-sk-scatter", items[3].cfg.gemm_sms, 132);
	T_EQ_INT("units-again", (int)plan_fit_units(&p, 132), 0);
	T_EQ_INT("units-arch-h100", gpu_arch_units("sm_90a"), 132);
	T_EQ_INT("units-arch-mi300", gpu_arch_units("gfx942"), 304);
	T_EQ_INT("units-arch-unknown", gpu_arch_units("x86_64"), 0);
}

int main(void)
{
	check_smem();
	check_lookup();
	check_table();
	check_given();
	check_fallback();
	check_plan();
	check_units();
	T_DONE();
}
