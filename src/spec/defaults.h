/* spec/defaults.h: the default configuration of a problem whose spec and
 * flags give no tile: a table of rows in defaults.c, chosen from
 * measurements per GEMM core and shape class (the README's "Default
 * tiles" names each row's evidence), looked up by the core, the family,
 * and the per-rank GEMM it runs (algo_gemm_dims: its rows, its C and its
 * K). Pure: tests drive it with any target name.
 *
 * A row sets the tile (BLK_M, BLK_N, BLK_K, stages, warps) only where none
 * of those was given, and with it the split and the gather chunk where
 * those were not given either; a core without rows (the CPU backend's,
 * mma.sync, SIMT, AMD's MFMA today) keeps its own default tile. */
#ifndef FGO_SPEC_DEFAULTS_H
#define FGO_SPEC_DEFAULTS_H

#include <stddef.h>

#include "config.h"

struct defaults_row {
	const char *core;     /* defaults_core's name: "wgmma", "mma16", "mma32", "simt", "cpu" */
	const char *family;   /* NULL: every family; else names separated by '|', each one */
			      /* algorithm or a prefix ending in '*' ("sk_*": names starting sk_) */
	long rows_min;        /* the per-rank GEMM's rows (M, M/W for the row-sharded spaces) >= */
	long rows_max;        /* ... <= (0: no bound) */
	long cols_max;        /* its columns over all its blocks <= (0: no bound) */
	long elems_max;       /* its C, rows x cols x blocks, <= (0: no bound) */
	long k_min;           /* its K (K/W where K-sharded) >= */
	int blk_m, blk_n, blk_k, num_stages, num_warps;
	int split_k;          /* 1: no split */
	int comm_blk_m;       /* 0: the GEMM tile's rows */
	const char *evidence; /* the measurements the row is chosen from */
};

/* The rows, in lookup order (the first that matches wins). */
extern const struct defaults_row defaults_table[];
extern const size_t defaults_table_rows;

/* The core cfg runs on at target arch ("sm_90a", "gfx942", or a CPU's
 * machine name: "cpu"): "wgmma", "mma16", "mma32", "simt" (fp32 on an
 * NVIDIA GPU) or "cpu". */
const char *defaults_core(const struct fgo_config *cfg, const char *arch);

/* The per-rank GEMM defaults are keyed on: rows, cols x blocks, K. */
void defaults_gemm(const struct fgo_config *cfg, long *rows, long *cols, long *k);

/* The index of the first row for cfg's problem on core, or -1 when none
 * matches (or cfg's algorithm is unknown). */
int defaults_lookup(const struct fgo_config *cfg, const char *core);

/* cfg with row r applied: the tile where none of its fields was given,
 * split_k where not given (and no gemm_sms: the hybrid walk given is the
 * walk), comm_blk_m where the family has a gather chunk and it was not
 * given. */
void defaults_apply(struct fgo_config *cfg, const struct defaults_row *r);

/* Why cfg (a row's pick) cannot run on arch: the same validation as any
 * configuration (config_validate) and, on a GPU, its launch shape
 * (gpu_shape_check: shared memory, threads). 0 when it can, else 1 with
 * the reason. */
int defaults_check(const struct fgo_config *cfg, const char *arch, char *reason, size_t len);

/* How a plan item got its configuration (spec.h's fgo_plan_item). */
enum defaults_how {
	DEFAULTS_GIVEN = 0,    /* the spec or flags gave the tile, or the core has no row */
	DEFAULTS_TABLE = 1,    /* the table's row */
	DEFAULTS_FALLBACK = 2, /* the row's pick could not run: the core's small legal tile */
	DEFAULTS_MODEL = 3,    /* config auto: the cost model's first */
};

/* The default of cfg (the core fitted already, kit_fit_core) on arch:
 * where the tile was left to the default and a row matches, cfg becomes
 * the row's pick if it can run (DEFAULTS_TABLE), else stays
 * (DEFAULTS_FALLBACK); *row gets the row's index (-1 without). */
enum defaults_how defaults_fit(struct fgo_config *cfg, const char *arch, int *row);

/* One line for the run's output: "default tile for wgmma, per-rank GEMM
 * 128 x 2048 x 14336: 64x64x64 s6 w8 split 4 (table row 7)"; for a
 * fallback the row's pick and why it could not run, then the tile run.
 * cfg is the configuration as it runs. */
void defaults_describe(const struct fgo_config *cfg, const char *arch, enum defaults_how how,
		       int row, char *out, size_t len);

/* "64x64x64 s6 w8 split 4 comm_blk_m 512": cfg's tile, walk and chunk. */
void defaults_tile_text(const struct fgo_config *cfg, char *out, size_t len);

#endif
