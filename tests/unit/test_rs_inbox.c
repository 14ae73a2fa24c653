/* test_rs_inbox.c: reduce_scatter's work area (src/algos/reduce_scatter.c):
 * where the GPU kernel pushes the partials into their owners' inboxes
 * (kernels/reduce_scatter.hip, RS_PUSH: the wgmma core, W > 1, a block of
 * tiles holding one owner's rows) the work area is the partial C and the
 * inbox, 2 x M x N; elsewhere (another core, W = 1, a tile holding the
 * rows of several owners) the partial C alone. The flags and the walk's
 * exchange lie after it either way, inside the heap. */
#include <stdio.h>

#include "algo.h"
#include "config.h"
#include "fgo.h"
#include "testlib.h"

static void check(int world, long m, int mma, int blk_m, int inbox)
{
	const struct fgo_algo *rs = algo_find("reduce_scatter");
	struct fgo_config cfg;
	char id[128];
	config_defaults(&cfg);
	snprintf(cfg.algorithm, sizeof cfg.algorithm, "%s", rs->name);
	cfg.world = world;
	cfg.m = m;
	cfg.n = 96;
	cfg.k = 64L * world;
	cfg.mma = mma;
	cfg.blk_m = blk_m;
	cfg.blk_n = 64;
	cfg.blk_k = 64;
	cfg.dtype = FGO_BF16;
	const size_t partial = (size_t)m * (size_t)cfg.n * dtype_size(cfg.dtype);
	for (int rank = 0; rank < world; rank++) {
		struct fgo_layout lay;
		rs->layout(&cfg, rank, &lay);
		snprintf(id, sizeof id, "w%d-m%ld-mma%d-blk%d-r%d", world, m, mma, blk_m, rank);
		T_CHECK(id, lay.work_bytes == partial * (inbox ? 2 : 1),
			"work area %zu bytes, expected %s (%zu)", lay.work_bytes,
			inbox ? "the partial C and the inbox" : "the partial C alone", partial * (inbox ? 2 : 1));
		T_CHECK(id, lay.flags_offset >= lay.work_offset + lay.work_bytes &&
				    lay.flags_offset + lay.flags_count * sizeof(uint32_t) <= lay.heap_bytes,
			"flags at %zu overlap the work area [%zu, +%zu) or leave the heap (%zu)",
			lay.flags_offset, lay.work_offset, lay.work_bytes, lay.heap_bytes);
	}
}

int main(void)
{
	for (int world = 2; world <= 4; world++) {
		check(world, 256L * world, FGO_MMA_WGMMA, 128, 1); /* one owner a block: pushed */
		check(world, 200L * world, FGO_MMA_WGMMA, 64, 1);  /* ragged M/W, still one owner */
		check(world, 256L * world, 16, 32, 0);              /* mma.sync: pulled */
	}
	check(4, 128, FGO_MMA_WGMMA, 64, 0); /* 32 rows an owner: two owners a 64-row tile */
	check(1, 512, FGO_MMA_WGMMA, 128, 0); /* no peers */
	return testlib_failed ? 1 : 0;
}
