/* world_fixture.h: the per-rank GEMM model the world tests predict with
 * (test_world_rank.c, test_world_copy.c, test_world_fit_family.c) and the
 * configurations they make runs of: one wgmma core on an H100-like
 * machine (900 TFLOP/s bf16, 3000 GB/s, 132 units), known coefficients,
 * so synthetic runs made from it are predicted exactly. */
#ifndef FGO_TEST_WORLD_FIXTURE_H
#define FGO_TEST_WORLD_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "model.h"
#include "tune/world_rank.h"

static void world_fixture_gemm_model(struct world_gemm_model *gm)
{
	memset(gm, 0, sizeof *gm);
	gm->machine.peak_tflops[FGO_BF16] = 900;
	gm->machine.mem_gbps = 3000;
	gm->machine.cus = 132;
	gm->ncores = 1;
	snprintf(gm->core[0], sizeof gm->core[0], "wgmma");
	gm->coef[0][MT_LAUNCH] = 0.005;
	gm->coef[0][MT_COMPUTE] = 1.5;
	gm->coef[0][MT_MEMORY] = 1.1;
}

/* A wgmma bf16 configuration of algo at W=2, M x 4096 x 8192, 128 x 128 x 64
 * tiles: the shapes the world tests make their synthetic runs of. */
static inline struct fgo_config world_fixture_cfg(const char *algo, long m)
{
	struct fgo_config c;
	config_defaults(&c);
	snprintf(c.algorithm, sizeof c.algorithm, "%s", algo);
	c.dtype = FGO_BF16;
	c.mma = FGO_MMA_WGMMA;
	c.world = 2;
	c.m = m;
	c.n = 4096;
	c.k = 8192;
	c.blk_m = c.blk_n = 128;
	c.blk_k = 64;
	return c;
}

#endif
