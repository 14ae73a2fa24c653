/* schedule.h: tile order, Stream-K split and chunk ownership as pure
 * functions, shared by the CPU backend (C11) and the GPU kernels (HIP/CUDA
 * C++), so both walk exactly the same schedule. Only <stdint.h>, no C-only syntax. */
#ifndef FGO_SCHEDULE_H
#define FGO_SCHEDULE_H

#if !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__) && !defined(FGO_HIPRTC)
#include <stdint.h> /* run-time compilers have no C library headers */
#endif

#if defined(__HIPCC__) || defined(__CUDACC__) || defined(__HIPCC_RTC__) || defined(__CUDACC_RTC__) || defined(FGO_HIPRTC)
#define SCHED_FN __host__ __device__ static inline
#else
#define SCHED_FN static inline
#endif

/* The tile space of one GEMM: tiles_m x tiles_n output tiles, each needing
 * k_iters = ceil(k / blk_k) MAC iterations (one BLK_K slice each). */
struct sched_grid {
	long tiles_m, tiles_n, tiles, k_iters;
};

SCHED_FN long sched_ceil_div(long a, long b)
{
	return (a + b - 1) / b;
}

SCHED_FN struct sched_grid sched_grid_make(long m, long n, long k, int blk_m, int blk_n, int blk_k)
{
	struct sched_grid g;
	g.tiles_m = sched_ceil_div(m, blk_m);
	g.tiles_n = sched_ceil_div(n, blk_n);
	g.tiles = g.tiles_m * g.tiles_n;
	g.k_iters = sched_ceil_div(k, blk_k);
	return g;
}

/* Grouped ("swizzled") order: the tile-th tile in launch order -> (tile_m,
 * tile_n). Groups of gsize_m tile rows walk all tile columns column by
 * column, so consecutive tiles reuse the same B panel; the last group may
 * have fewer rows. A bijection on [0, tiles); gsize_m < 1 counts as 1. */
SCHED_FN void sched_tile_coords(const struct sched_grid *g, int gsize_m, long tile, long *tile_m,
				long *tile_n)
{
	long gs = gsize_m < 1 ? 1 : gsize_m;
	long per_group = gs * g->tiles_n;
	long group = tile / per_group;
	long first_m = group * gs;
	long rows = g->tiles_m - first_m;
	long in_group = tile - group * per_group;
	if (rows > gs)
		rows = gs;
	*tile_m = first_m + in_group % rows;
	*tile_n = in_group / rows;
}

/* Data-parallel: CTA cta of ctas owns tiles cta, cta+ctas, ...; how many. */
SCHED_FN long sched_dp_count(const struct sched_grid *g, int ctas, int cta)
{
	if (cta < 0 || cta >= ctas || cta >= g->tiles)
		return 0;
	return (g->tiles - cta - 1) / ctas + 1;
}

/* Stream-K: the tiles * k_iters MAC iterations, in tile order, split into
 * ctas contiguous ranges whose sizes differ by at most one (the first
 * total % ctas CTAs get one more); CTA cta gets [*begin, *end), possibly empty. */
SCHED_FN void sched_streamk_range(const struct sched_grid *g, int ctas, int cta, long *begin,
				  long *end)
{
	long total = g->tiles * g->k_iters;
	long base = total / ctas, rem = total % ctas;
	long c = cta;
	*begin = c * base + (c < rem ? c : rem);
	*end = *begin + base + (c < rem ? 1 : 0);
}

/* The CTA whose Stream-K range holds iteration iter (0 <= iter < tiles * k_iters). */
SCHED_FN int sched_streamk_cta(const struct sched_grid *g, int ctas, long iter)
{
	long total = g->tiles * g->k_iters;
	long base = total / ctas, rem = total % ctas;
	long big = rem * (base + 1); /* iterations held by the CTAs with one extra */
	if (iter < big)
		return (int)(iter / (base + 1));
	return (int)(rem + (iter - big) / base); /* base > 0 here: iter < total */
}

/* Where Stream-K range [begin, end) stops ending tiles: the start of its
 * last segment when that segment stops short of its tile's end (the head
 * of a tile a later CTA finishes, which the GPU kernels compute first: the
 * later CTA waits for it at its very first segment), else end. */
SCHED_FN long sched_streamk_head(const struct sched_grid *g, long begin, long end)
{
	long start;
	if (begin >= end || end % g->k_iters == 0)
		return end;
	start = (end - 1) / g->k_iters * g->k_iters;
	return start > begin ? start : begin;
}

/* Split-K: slice `slice` of `slices` of a tile's k_iters MAC iterations,
 * [*k0, *k1), the sizes differing by at most one. Every slice is
 * non-empty when slices <= k_iters (the host refuses more). */
SCHED_FN void sched_splitk_range(long k_iters, int slices, int slice, long *k0, long *k1)
{
	*k0 = (long)slice * k_iters / slices;
	*k1 = (long)(slice + 1) * k_iters / slices;
}

/* Two-shot / reduce-scatter ownership: the rank that reduces tile `tile`.
 * Round-robin, so every rank reduces the same number of tiles (+-1). */
SCHED_FN int sched_tile_owner(long tile, int world)
{
	return (int)(tile % world);
}

/* Peer for step s (0..world-1) of rank: step 0 is the local shard and ranks
 * start on different peers, so no link is hit by everyone at once. */
SCHED_FN int sched_peer(int rank, int world, int step)
{
	return (rank + step) % world;
}

/* rows rows cut into chunks of chunk_rows (the last one partial). */
SCHED_FN long sched_chunk_count(long rows, long chunk_rows)
{
	return sched_ceil_div(rows, chunk_rows);
}

SCHED_FN void sched_chunk_rows(long rows, long chunk_rows, long c, long *r0, long *r1)
{
	*r0 = c * chunk_rows;
	*r1 = *r0 + chunk_rows < rows ? *r0 + chunk_rows : rows;
}

#endif
