/* spec/defaults.c: the defaults table (see defaults.h) and its lookup. The
 * rows are data (defaults_rows.inc): a new measurement changes a row,
 * never the code below. */
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
 * faster than tile-sized ones (push's SM copies do not gain).
 *
 * The rows are src/spec/defaults_rows.inc, data only, written by `best
 * --defaults --write` (docs/defaults.md, "Deriving the table from a
 * store"). What the evidence strings do not say:
 * - rows 1 and 2 (the Stream-K forms from 33 rows a rank): larger C takes
 *   the last row's 128x256 s3 (W=2 M = 1024..8192: sk_all_scatter best 4
 *   of 4, sk_all_reduce 1.02-1.06x its best);
 * - rows 3 to 9, the decode rows: tiles of 8-32 rows with A and B swapped
 *   (core_wgmma.h's WG_SWAP), from four stores of 2026-11-27 (db/evidence/
 *   decode_swap_w2_4xh100, swap_small_m_w2_2xh100, swap_w4_4xh100,
 *   perrank_swap_h100_s11_1127): of every tile tried on the 48 (family,
 *   W, M <= 32) these rows take, their picks are within 8.1% of each
 *   problem's best, where the 64-row rows below reached 1.19x. The
 *   row-sharded families (the gathers, reduce_scatter: M/W rows a rank)
 *   take them up to 8 rows a rank only: at W=2, M = 64 a swapped tile
 *   took 1.06-1.18x the 64-row tile's time. The Stream-K forms' rows 1
 *   and 2 start at 33 rows, so theirs (row 9) is the last of the block. */
const struct defaults_row defaults_table[] = {
#include "spec/defaults_rows.inc"
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
