/* world_fixture.h: the per-rank GEMM model the world tests predict with
 * (test_world_rank.c, test_world_copy.c): one wgmma core on an H100-like
 * machine (900 TFLOP/s bf16, 3000 GB/s, 132 units), known coefficients,
 * so synthetic runs made from it are predicted exactly. */
#ifndef FGO_TEST_WORLD_FIXTURE_H
#define FGO_TEST_WORLD_FIXTURE_H

#include <stdio.h>
#include <string.h>

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

#endif
