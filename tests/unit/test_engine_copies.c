/* test_engine_copies.c: the copies all_gather_gemm_pull asks the copy
 * engine for (fgo_algo.engine_copies, run beside the kernel by
 * src/gpu/gpu_engine.c and by the CPU's pull itself): for W = 2..5, chunk
 * rows from 1 to more than a shard, ragged shards and K, every byte of
 * every peer's shard is copied exactly once, from inside that peer's A
 * into its rows of this rank's inbox (never this rank's own rows), the
 * peers in the order the walk reads them, each chunk's flag once and
 * inside the layout's flags, with push's chunk numbering. Push asks for
 * none. */
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "config.h"
#include "fgo.h"
#include "schedule.h"
#include "testlib.h"

static void check_layout(int world, long m, long k, int blk_m, int chunk)
{
	const struct fgo_algo *pull = algo_find("all_gather_gemm_pull");
	struct fgo_config cfg;
	char id[128];
	config_defaults(&cfg);
	snprintf(cfg.algorithm, sizeof cfg.algorithm, "%s", pull->name);
	cfg.world = world;
	cfg.m = m;
	cfg.n = 8L * world;
	cfg.k = k;
	cfg.blk_m = blk_m;
	cfg.blk_n = 8;
	cfg.comm_blk_m = chunk;
	cfg.dtype = FGO_BF16;
	const long mw = m / world, rows = chunk ? chunk : blk_m;
	const long chunks = sched_chunk_count(mw, rows);
	const size_t es = dtype_size(cfg.dtype), shard = (size_t)mw * (size_t)k * es;

	for (int rank = 0; rank < world; rank++) {
		struct fgo_layout lay;
		pull->layout(&cfg, rank, &lay);
		int n = pull->engine_copies(&cfg, &lay, rank, NULL, 0);
		snprintf(id, sizeof id, "copies-w%d-m%ld-k%ld-chunk%ld-r%d", world, m, k, rows, rank);
		struct fgo_engine_copy *c = calloc((size_t)(n > 0 ? n : 1), sizeof *c);
		unsigned char *covered = calloc((size_t)world * shard, 1);
		char *flag_seen = calloc(lay.flags_count + 1, 1);
		int bad = 0, order = 0;
		T_EQ_INT(id, n, (world - 1) * chunks);
		pull->engine_copies(&cfg, &lay, rank, c, n);
		for (int i = 0; i < n && !bad; i++) {
			const int p = c[i].src_rank;
			/* peers in the walk's order: block s reads sched_peer(rank, W, s) */
			const int step = (int)(i / chunks) + 1;
			order |= p != sched_peer(rank, world, step);
			/* from inside p's A shard, into p's rows of this rank's inbox */
			const size_t from = c[i].src_offset - lay.a.offset;
			const size_t to = c[i].dst_offset - (lay.work_offset + (size_t)p * shard);
			bad |= p == rank || p < 0 || p >= world || c[i].bytes == 0;
			bad |= c[i].src_offset < lay.a.offset || from + c[i].bytes > shard;
			bad |= c[i].dst_offset < lay.work_offset + (size_t)p * shard || to != from;
			bad |= c[i].flag != (long)p * chunks + (long)(i % chunks);
			bad |= c[i].flag < 0 || (size_t)c[i].flag >= lay.flags_count / 2;
			if (!bad) {
				bad |= flag_seen[c[i].flag]++ != 0;
				for (size_t b = 0; b < c[i].bytes; b++)
					bad |= covered[(size_t)p * shard + from + b]++ != 0;
			}
		}
		for (int p = 0; p < world && !bad; p++)
			for (size_t b = 0; b < shard; b++)
				bad |= covered[(size_t)p * shard + b] != (p == rank ? 0 : 1);
		snprintf(id, sizeof id, "copies-once-w%d-m%ld-k%ld-chunk%ld-r%d", world, m, k, rows, rank);
		T_CHECK(id, !bad, "a copy outside its shard or inbox rows, a byte copied twice or never,"
				  " or a flag wrong or twice");
		snprintf(id, sizeof id, "copies-order-w%d-m%ld-k%ld-chunk%ld-r%d", world, m, k, rows, rank);
		T_CHECK(id, !order, "the peers are not in the walk's order");
		free(c);
		free(covered);
		free(flag_seen);
	}
}

int main(void)
{
	const struct fgo_algo *push = algo_find("all_gather_gemm_push");
	T_CHECK("push-no-engine", push && push->engine_copies == NULL,
		"push sends its chunks from the SMs; it asks the copy engine for nothing");
	for (int world = 2; world <= 5; world++) {
		check_layout(world, 16L * world, 24, 8, 0);  /* chunk = BLK_M, 2 chunks */
		check_layout(world, 13L * world, 40, 8, 4);  /* ragged last chunk */
		check_layout(world, 6L * world, 8, 8, 16);   /* one chunk, larger than the shard */
		check_layout(world, 32L * world, 56, 16, 1); /* a chunk per row */
	}
	return testlib_failed ? 1 : 0;
}
