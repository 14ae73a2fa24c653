/* spec/defaults.c: the defaults table (see defaults.h) and its lookup. The
 * rows are data: a new measurement changes a row, never the code below. */
#include "spec/defaults.h"

#include <stdio.h>
#include <string.h>

#include "algo.h"
#include "algos/kit.h"
#include "fgo.h"
#include "gpu/gpu_shape.h"
#include "model.h"

#define K_ 1024L
#define M_ (1024L * 1024L)

/* Hopper's wgmma core, from two H100s over NVLink (W=2, bf16, every family
 * at 128..16384 x 4096 x 14336, 4096 x 14336 x 4096 and 8192^3 with 5-16
 * tile / split / walk choices each, and all_scatter at M = 1..1024: the
 * store behind the README's "Two GPUs over NVLink") and one H100's
 * per-rank GEMMs (W=1, sweeps/perrank.json, 42 shapes). What decides:
 * below a wave of tiles, split-K fills the SMs where K is long (the
 * fewer the columns, the more slices); above, the tile grows with the
 * per-rank C (128 tiles of 132 SMs at each step); the Stream-K forms
 * cannot split; all_gather_gemm_pull's copy engine pulls 512-row chunks
 * faster than tile-sized ones (push's SM copies do not gain). */
const struct defaults_row defaults_table[] = {
	/* core     family                  rows      cols  elems     K      tile           split chunk */
	{ "wgmma", "sk_*", 33, 0, 0, 512 * K_, 0, 64, 64, 64, 12, 8, 1, 0,
	  "W=2 and 4 M=128 x 4096 x 14336 at 132 + 0 CTAs (mgpu_sk_small_m.json): best 4 of 4,"
	  " 1.15-1.23x the vendor sequence; 64x128 s8, the row before, 0.96-1.21x" },
	/* larger C: the last row's 128x256 s3 (W=2 M = 1024..8192: sk_all_scatter
	 * best 4 of 4, sk_all_reduce 1.02-1.06x its best) */
	{ "wgmma", "sk_*", 33, 0, 0, 4096 * K_, 0, 128, 128, 64, 5, 12, 1, 0,
	  "W=2 M=512, 1024 x 4096 x 14336 (mgpu_sk_small_m.json): best 4 of 4, 1.15-1.27x;"
	  " W=4 best or within 6% 4 of 4 (1.12-1.42x); 128x256 s3, the row before, 0.82-1.27x" },
	/* decode rows: tiles of 8-32 rows with A and B swapped (core_wgmma.h's
	 * WG_SWAP), from four stores of 2026-11-27 (db/evidence/
	 * decode_swap_w2_4xh100, swap_small_m_w2_2xh100, swap_w4_4xh100,
	 * perrank_swap_h100_s11_1127): of every tile tried on the 48 (family,
	 * W, M <= 32) these rows take, their picks are within 8.1% of each
	 * problem's best, where the 64-row rows below reached 1.19x. The
	 * row-sharded families (the gathers, reduce_scatter: M/W rows a rank)
	 * take them up to 8 rows a rank only: at W=2, M = 64 a swapped tile
	 * took 1.06-1.18x the 64-row tile's time. The Stream-K forms' rows 1
	 * and 2 start at 33 rows, so theirs is the last of the block */
	{ "wgmma", "all_reduce_*", 0, 32, 0, 512 * K_, 3584, 16, 64, 64, 12, 8, 1, 0,
	  "W=2 and 4, M=1..32 x 4096 x 14336 (mgpu_swap_small_m.json): within 3.6% of the best 12 of 12,"
	  " one-shot 1.18-1.32x and two-shot 1.08-1.29x the vendor sequence; 64x64 s12 split 2 (the"
	  " row after) up to 1.086x the best" },
	{ "wgmma", "gemm|all_scatter", 0, 32, 512, 0, 8192, 16, 64, 64, 8, 8, 16, 0,
	  "W=1 gemm M=1, 16 x 512 x 14336 (perrank.json): within 0.9% of the best 2 of 2,"
	  " 1.05-1.11x cuBLAS" },
	{ "wgmma", "gemm|all_scatter", 0, 32, 1024, 0, 8192, 32, 64, 64, 8, 8, 8, 0,
	  "W=1 gemm M=1, 16 x 1024 x 8192..28672, W=4 all_scatter M=1..32 x 4096 x 14336:"
	  " within 4.3% of the best 9 of 9" },
	{ "wgmma", "gemm|all_scatter", 0, 32, 0, 512 * K_, 3584, 32, 64, 64, 12, 8, 2, 0,
	  "W=2 all_scatter M=1..32 (the seed's decode shapes, two stores), W=1 gemm M=1, 16 x"
	  " 2048 x 8192 and 4096 x 4096: within 8.1% of the best 13 of 13 (64x64 s6 split 4, the"
	  " row these took before, up to 1.19x)" },
	{ "wgmma", "all_gather_gemm_*", 0, 8, 0, 0, 8192, 32, 64, 64, 16, 8, 8, 0,
	  "W=2 pull and push M=2, 16, W=4 M=16, 32 x 4096 x 14336: within 4.8% of the best"
	  " 8 of 8 (split 2 up to 1.49x at W=4)" },
	{ "wgmma", "reduce_scatter", 0, 8, 0, 0, 3584, 32, 64, 64, 12, 8, 1, 0,
	  "W=2 M=2, 16, W=4 M=16, 32 x 4096 x 14336: within 2.3% of the best 4 of 4" },
	{ "wgmma", "sk_*", 0, 32, 0, 0, 0, 16, 64, 64, 12, 8, 1, 0,
	  "W=2 and 4 M=1, 16, 32 x 4096 x 14336 at 132 + 0 CTAs (mgpu_swap_small_m.json): within"
	  " 5.1% of the best 12 of 12; 64x64 s12 (row 1's, these problems' row until then) up to"
	  " 1.103x" },
	{ "wgmma", "all_reduce_*", 65, 128, 0, 512 * K_, 3584, 64, 128, 64, 8, 8, 2, 0,
	  "W=2 M=128 x 4096 x 14336: one-shot 1.02x and two-shot 0.93x the vendor sequence,"
	  " best of 14 tiles and splits (split 2 through slots); W=4 (K/W 3584, four H100s,"
	  " mgpu.json and mgpu_rs_m128_w4.json): best of each, one-shot 1.06-1.09x, two-shot 1.11x" },
	{ "wgmma", "all_reduce_*", 1, 64, 0, 512 * K_, 3584, 64, 64, 64, 12, 8, 2, 0,
	  "W=2 and 4 M=16, 64 x 4096 x 14336 (mgpu_small_m_all.json): best or within 1.2%"
	  " 8 of 8, one-shot 1.11-1.29x and two-shot 1.07-1.18x the vendor sequence; row 20's"
	  " 64x64 s6 unsplit at W=4 0.87-1.07x, row 18's split 4 at W=2 1.02-1.14x" },
	{ "wgmma", "reduce_scatter", 4, 128, 0, 512 * K_, 3584, 64, 128, 64, 8, 8, 2, 0,
	  "W=2 M=128 x 4096 x 14336 (64 rows a rank): 0.94x the vendor sequence, best of 12"
	  " tiles and splits; W=4 M=16..128 (4-32 rows a rank, a tile holding 2-4 owners' rows,"
	  " mgpu_rs_decode_w4.json): best or within 2% 4 of 4, 1.05-1.16x; W=2 M=16..64 as a"
	  " default 1.11-1.15x (mgpu_defaults_small_m.json; row 18's split 4 not in that run)" },
	{ "wgmma", NULL, 0, 128, 512, 0, 8192, 64, 64, 64, 6, 8, 16, 0,
	  "W=1 gemm M=1..128 x 512 x 14336: best 4 of 4" },
	{ "wgmma", NULL, 0, 128, 1024, 0, 8192, 64, 64, 64, 6, 8, 8, 0,
	  "W=1 gemm M=1..128 x 1024 x 8192..28672: best 12 of 12" },
	{ "wgmma", "all_scatter", 129, 256, 0, 512 * K_, 7168, 64, 128, 64, 8, 8, 2, 0,
	  "W=2 all_scatter fp16 M=256 x 4096 x 14336 (the seed's dataset, 4x H100): 64x128 s8"
	  " split 2 50.4 us, 64x64 s6 split 4 58.4, best of 184 (decode_prefill_grid.json)" },
	{ "wgmma", "all_scatter", 257, 512, 0, 1 * M_, 7168, 128, 128, 64, 6, 12, 2, 0,
	  "W=2 all_scatter fp16 M=512 x 4096 x 14336 (two H100s, two rounds): 128x128 s6 split 2"
	  " 64.0 us, 64x128 s8 (the row until 2026-11-27) 74.6, best of 349"
	  " (decode_prefill_grid.json widened)" },
	{ "wgmma", "all_scatter", 33, 128, 0, 512 * K_, 7168, 64, 64, 64, 12, 8, 2, 0,
	  "W=2 all_scatter M=64, 128 x 4096 x 14336: best 2 of 2 in the session-10 store (the row"
	  " after's 64x64 s6 split 4 1.04-1.06x), best or within 1.4% on the seed's dataset (fp16,"
	  " two runs of two rounds; s6 split 4 1.01-1.07x)" },
	{ "wgmma", NULL, 0, 256, 0, 512 * K_, 7168, 64, 64, 64, 6, 8, 4, 0,
	  "W=2 all_scatter M=1..256, the gathers, all-reduces, reduce_scatter at M=128 (K 14336):"
	  " best or within 3% 15 of 15; W=1 gemm M=1..128 x 2048 x 8192: best 4 of 4" },
	{ "wgmma", NULL, 0, 256, 0, 256 * K_, 4096, 64, 64, 64, 6, 8, 4, 0,
	  "W=1 gemm M=1..64 x 4096 x 4096: split 4 best 3 of 3" },
	{ "wgmma", NULL, 0, 0, 0, 512 * K_, 0, 64, 64, 64, 6, 8, 1, 0,
	  "W=1 gemm 128 x 4096 x 4096: best; W=2 all_scatter M=256 unsplit 1.09x the split" },
	{ "wgmma", "all_gather_gemm_pull", 512, 0, 0, 2 * M_, 0, 64, 128, 64, 4, 8, 1, 512,
	  "W=2 pull M=1024: best (0.94x the time of 512-row chunks' absence)" },
	{ "wgmma", "all_gather_gemm_pull", 512, 0, 0, 0, 0, 128, 256, 64, 3, 12, 1, 512,
	  "W=2 pull M=4096..8192: best 3 of 3 (tile-sized chunks 1.09-1.19x)" },
	{ "wgmma", NULL, 1024, 0, 0, 1 * M_, 7168, 128, 128, 64, 6, 12, 2, 0,
	  "W=4 all_scatter M=1024 x 4096 x 14336 (mgpu_w4_deep_rings.json): 1.36x the vendor"
	  " sequence (64x128 s8 1.19x); W=1 gemm 1024 x 1024 x 8192 and 14336: best" },
	{ "wgmma", NULL, 0, 0, 0, 1 * M_, 0, 64, 128, 64, 4, 8, 1, 0,
	  "W=2 all_scatter M=512: best; W=1 gemm 512 x 2048 x 8192, 1024 x 1024 x 8192: 64x128" },
	{ "wgmma", NULL, 0, 0, 0, 2 * M_, 0, 128, 128, 64, 5, 12, 1, 0,
	  "W=2 M=1024 x 4096 x 14336, 5 stages against 4 (mgpu_deep_rings.json): all_scatter 1.25x"
	  " the vendor sequence (1.19x), one-shot 1.25x (1.15x), two-shot 1.25x (1.17x),"
	  " reduce_scatter 1.01x (0.96x), push 1.07x (1.10x)" },
	{ "wgmma", NULL, 0, 0, 0, 0, 0, 128, 256, 64, 3, 12, 1, 0,
	  "W=2 every data-parallel family at M=4096..16384: best 20 of 20 shapes measured so;"
	  " all-reduces at M=1024 1.02x, reduce_scatter best; W=1 gemm M=4096: best" },
};
const size_t defaults_table_rows = FGO_ARRAY_SIZE(defaults_table);

const char *defaults_core(const struct fgo_config *cfg, const char *arch)
{
	if (!arch || (strncmp(arch, "sm_", 3) != 0 && strncmp(arch, "gfx", 3) != 0))
		return "cpu";
	return model_core(cfg);
}

void defaults_gemm(const struct fgo_config *cfg, long *rows, long *cols, long *k)
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	struct fgo_gemm_dims d;
	*rows = *cols = *k = 0;
	if (!algo)
		return;
	/* a tile not chosen yet: the classes do not move with the tile
	 * (reduce_scatter's tile holds several owners' blocks where it can,
	 * sched_owner_group; the table's rows are one owner's) */
	struct fgo_config untiled = *cfg;
	untiled.blk_m = 0;
	algo_gemm_dims(algo, &untiled, &d);
	*rows = d.m;
	*cols = d.n * (d.blocks > 0 ? d.blocks : 1);
	*k = d.k;
}

static int family_matches(const char *pattern, const char *algorithm)
{
	if (!pattern)
		return 1;
	/* names separated by '|', each whole or a prefix ending in '*' */
	for (const char *p = pattern; *p;) {
		size_t n = strcspn(p, "|");
		if (n && p[n - 1] == '*' ? strncmp(p, algorithm, n - 1) == 0
					 : strlen(algorithm) == n && strncmp(p, algorithm, n) == 0)
			return 1;
		p += n + (p[n] == '|');
	}
	return 0;
}

int defaults_lookup(const struct fgo_config *cfg, const char *core)
{
	long rows, cols, k;
	defaults_gemm(cfg, &rows, &cols, &k);
	if (rows < 1)
		return -1;
	for (size_t i = 0; i < defaults_table_rows; i++) {
		const struct defaults_row *r = &defaults_table[i];
		if (strcmp(r->core, core) || !family_matches(r->family, cfg->algorithm) ||
		    rows < r->rows_min || (r->rows_max && rows > r->rows_max) ||
		    (r->cols_max && cols > r->cols_max) ||
		    (r->elems_max && (double)rows * (double)cols > (double)r->elems_max) ||
		    k < r->k_min)
			continue;
		return (int)i;
	}
	return -1;
}

void defaults_apply(struct fgo_config *cfg, const struct defaults_row *r)
{
	if (!(cfg->given & FGO_GIVEN_TILE)) {
		cfg->blk_m = r->blk_m;
		cfg->blk_n = r->blk_n;
		cfg->blk_k = r->blk_k;
		cfg->num_stages = r->num_stages;
		cfg->num_warps = r->num_warps;
	}
	/* a split belongs to its tile; a given tile or a given hybrid walk
	 * (gemm_sms > 0, which excludes split-K) keeps its own */
	if (!(cfg->given & (FGO_GIVEN_SPLIT_K | FGO_GIVEN_TILE)) && cfg->gemm_sms == 0)
		cfg->split_k = r->split_k;
	if (!(cfg->given & FGO_GIVEN_COMM_BLK) && r->comm_blk_m)
		cfg->comm_blk_m = r->comm_blk_m;
}

int defaults_check(const struct fgo_config *cfg, const char *arch, char *reason, size_t len)
{
	struct gpu_shape shape;
	if (config_validate(cfg, reason, len))
		return 1;
	if (strcmp(defaults_core(cfg, arch), "cpu") != 0 &&
	    gpu_shape_check(cfg, arch, gpu_arch_smem_limit(arch), &shape, reason, len) != FGO_OK)
		return 1;
	return 0;
}

enum defaults_how defaults_fit(struct fgo_config *cfg, const char *arch, int *row)
{
	char why[FGO_REASON_MAX];
	struct fgo_config pick = *cfg;
	*row = -1;
	if (cfg->given & FGO_GIVEN_TILE)
		return DEFAULTS_GIVEN;
	*row = defaults_lookup(cfg, defaults_core(cfg, arch));
	if (*row < 0)
		return DEFAULTS_GIVEN;
	defaults_apply(&pick, &defaults_table[*row]);
	if (defaults_check(&pick, arch, why, sizeof why))
		return DEFAULTS_FALLBACK;
	*cfg = pick;
	return DEFAULTS_TABLE;
}

void defaults_tile_text(const struct fgo_config *cfg, char *out, size_t len)
{
	int n = snprintf(out, len, "%dx%dx%d s%d w%d", cfg->blk_m, cfg->blk_n, cfg->blk_k,
			 cfg->num_stages, cfg->num_warps);
	if (n > 0 && (size_t)n < len && cfg->split_k > 1)
		n += snprintf(out + n, len - (size_t)n, " split %d", cfg->split_k);
	if (n > 0 && (size_t)n < len && cfg->comm_blk_m)
		snprintf(out + n, len - (size_t)n, " comm_blk_m %d", cfg->comm_blk_m);
}

void defaults_describe(const struct fgo_config *cfg, const char *arch, enum defaults_how how,
		       int row, char *out, size_t len)
{
	long rows, cols, k;
	char tile[96], pick_tile[96], why[FGO_REASON_MAX];
	const char *core = defaults_core(cfg, arch);
	defaults_gemm(cfg, &rows, &cols, &k);
	defaults_tile_text(cfg, tile, sizeof tile);
	if (how == DEFAULTS_TABLE && row >= 0) {
		snprintf(out, len, "default tile for %s, per-rank GEMM %ld x %ld x %ld: %s (table row %d)",
			 core, rows, cols, k, tile, row + 1);
	} else if (how == DEFAULTS_FALLBACK && row >= 0) {
		struct fgo_config pick = *cfg;
		defaults_apply(&pick, &defaults_table[row]);
		defaults_tile_text(&pick, pick_tile, sizeof pick_tile);
		if (!defaults_check(&pick, arch, why, sizeof why))
			snprintf(why, sizeof why, "not valid here");
		snprintf(out, len,
			 "default tile for %s, per-rank GEMM %ld x %ld x %ld: table row %d's %s cannot"
			 " run (%s), so the core's small legal tile %s",
			 core, rows, cols, k, row + 1, pick_tile, why, tile);
	} else {
		snprintf(out, len, "default tile for %s, per-rank GEMM %ld x %ld x %ld: %s (the core's"
			 " default; the table has no row for it)", core, rows, cols, k, tile);
	}
}
