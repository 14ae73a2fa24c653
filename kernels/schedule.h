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

/* The inverse of sched_tile_coords: the launch-order index of tile
 * (tile_m, tile_n). */
SCHED_FN long sched_tile_index(const struct sched_grid *g, int gsize_m, long tile_m, long tile_n)
{
	long gs = gsize_m < 1 ? 1 : gsize_m;
	long group = tile_m / gs, first_m = group * gs, rows = g->tiles_m - first_m;
	if (rows > gs)
		rows = gs;
	return group * gs * g->tiles_n + tile_n * rows + (tile_m - first_m);
}

/* Data-parallel: CTA cta of ctas owns tiles cta, cta+ctas, ...; how many. */
SCHED_FN long sched_dp_count(const struct sched_grid *g, int ctas, int cta)
{
	if (cta < 0 || cta >= ctas || cta >= g->tiles)
		return 0;
	return (g->tiles - cta - 1) / ctas + 1;
}

/* Split-K: slice `slice` of `slices` of a tile's k_iters MAC iterations,
 * [*k0, *k1), the sizes differing by at most one. Every slice is
 * non-empty when slices <= k_iters (the host refuses more). */
SCHED_FN void sched_splitk_range(long k_iters, int slices, int slice, long *k0, long *k1)
{
	*k0 = (long)slice * k_iters / slices;
	*k1 = (long)(slice + 1) * k_iters / slices;
}

/* ---- The walk: which segments of which tiles a CTA computes ----
 *
 * One schedule for every family and core. `tiles` tiles (all blocks of a
 * family, in the core's order) of k_iters MAC iterations each, walked by
 * `ctas` GEMM CTAs in one of three forms:
 *   data-parallel (ctas = the grid): CTA c computes whole tiles c, c + ctas, ...
 *   split-K (sched_walk_make's split > 1): see sched_splitk_range; the walk
 *     gives the slices of a tile as whole-tile segments with k ranges, the
 *     exchange is the caller's (per-tile fp32 sums, last slice ends the tile);
 *   hybrid data-parallel + Stream-K (streamk != 0): the whole waves of tiles
 *     ([0, dp_tiles), tile c + i * ctas to CTA c) data-parallel, then the
 *     last partial wave ([dp_tiles, tiles)) spread Stream-K over all ctas:
 *     its sk_tiles * k_iters iterations cut into ctas even ranges
 *     (the first total % ctas one iteration longer). With `pure` every tile is Stream-K (the
 *     sk_* families). When the Stream-K tiles are no more than the CTAs,
 *     each is instead cut into the same sk_pieces = ctas / sk_tiles pieces
 *     (sched_splitk_range's rule; CTA c takes piece c % sk_pieces of tile
 *     c / sk_pieces), so the CTAs that share a panel of A or B read it at
 *     the same K offsets, at the same time, as in the data-parallel waves:
 *     with ranges cut evenly over all ctas each CTA starts at its own
 *     offset and the panels are read again from memory (measured on one
 *     H100: 0.57-0.80x the data-parallel time). The few CTAs beyond
 *     sk_tiles x sk_pieces sit out the last wave.
 * A CTA walks its data-parallel tiles first, then its Stream-K range from
 * its start. A Stream-K segment is one of:
 *   SCHED_WHOLE      the whole tile: computed and stored, no exchange;
 *   SCHED_HAND_OVER  the tile's iterations [k0, k1) with k0 > 0: only the
 *                    first segment of a range can be one, so a CTA hands
 *                    over at most once per launch: its partial into the
 *                    exchange (the CPU backend: the CTA's own slot; the
 *                    wgmma core: added into the tile's fp32 sum), then its
 *                    flag (one flag per CTA);
 *   SCHED_TAKE_OVER  iterations [0, k1) with k1 < k_iters: the last segment
 *                    of the range; the CTA owning a tile's first iteration
 *                    ends it, after adding what the CTAs [take_first,
 *                    take_last] handed over, once their flags are up.
 * The CTAs it waits for handed over at the very start of their Stream-K
 * ranges, right after the same number of data-parallel tiles, so a
 * take-over hardly waits, a tile split over many CTAs waits for none in
 * turn, and the walk cannot deadlock with every CTA resident. */
enum sched_role { SCHED_WHOLE = 0, SCHED_HAND_OVER = 1, SCHED_TAKE_OVER = 2 };

struct sched_walk {
	long tiles, k_iters;
	int ctas;
	long dp_tiles;  /* [0, dp_tiles): whole tiles, data-parallel */
	long sk_tiles;  /* [dp_tiles, tiles): Stream-K */
	long sk_pieces; /* > 0: every Stream-K tile in that many pieces; 0: even ranges */
	int split;      /* split-K slices (1: none); excludes Stream-K */
	/* clusters (sched_walk_make_clustered; cluster 1: none): `tiles` are
	 * then cluster tiles, placed on the tile grid below, or with cluster_k
	 * tiles whose split slices are the cluster's CTAs */
	int cluster, cluster_k, gsize_m;
	struct sched_grid grid; /* one block's tiles */
};

struct sched_seg {
	long tile;      /* 0 .. tiles - 1 */
	long k0, k1;    /* MAC iterations [k0, k1) of the tile */
	int role;       /* enum sched_role */
	int slice;      /* split-K: the slice (0 .. split - 1); else 0 */
	int take_first, take_last; /* SCHED_TAKE_OVER: the CTAs that hand over the rest */
	int ghost;      /* clusters: this rank's tile row lies past the grid; `tile` is
			 * the tile of rank 0 of its cluster (same column and slice) */
	long pos;       /* the walk's cursor (private) */
};

/* The tiles a hybrid walk leaves to Stream-K: the last partial wave (none
 * when the tiles fill whole waves), every tile when there is less than
 * one wave or `pure`. */
SCHED_FN long sched_walk_sk_tiles(long tiles, int ctas, int pure)
{
	if (ctas < 1)
		return 0;
	if (pure || tiles < ctas)
		return tiles;
	return tiles % ctas;
}

/* split > 1: split-K (streamk ignored); else streamk != 0: the hybrid
 * (pure: all Stream-K); else data-parallel. */
SCHED_FN struct sched_walk sched_walk_make(long tiles, long k_iters, int ctas, int split,
					   int streamk, int pure)
{
	struct sched_walk w;
	w.tiles = tiles;
	w.k_iters = k_iters;
	w.ctas = ctas < 1 ? 1 : ctas;
	w.split = split < 1 ? 1 : split;
	w.sk_tiles = (w.split == 1 && streamk) ? sched_walk_sk_tiles(tiles, w.ctas, pure) : 0;
	w.dp_tiles = tiles - w.sk_tiles;
	w.sk_pieces = 0;
	w.cluster = 1;
	w.cluster_k = 0;
	w.gsize_m = 1;
	w.grid.tiles_m = w.grid.tiles = tiles;
	w.grid.tiles_n = 1;
	w.grid.k_iters = k_iters;
	if (w.sk_tiles > 0 && w.sk_tiles <= w.ctas) {
		w.sk_pieces = w.ctas / w.sk_tiles;
		if (w.sk_pieces > k_iters) /* no empty pieces */
			w.sk_pieces = k_iters;
	}
	return w;
}

/* CTA cta's Stream-K range over the sk_tiles * k_iters iterations,
 * possibly empty. */
SCHED_FN void sched_walk_sk_range(const struct sched_walk *w, int cta, long *begin, long *end)
{
	long total = w->sk_tiles * w->k_iters, c = cta;
	if (w->sk_pieces > 0) {
		long lt = c / w->sk_pieces, k0, k1;
		if (lt >= w->sk_tiles) {
			*begin = *end = total;
			return;
		}
		sched_splitk_range(w->k_iters, (int)w->sk_pieces, (int)(c % w->sk_pieces), &k0, &k1);
		*begin = lt * w->k_iters + k0;
		*end = lt * w->k_iters + k1;
		return;
	}
	{
		long base = total / w->ctas, rem = total % w->ctas;
		*begin = c * base + (c < rem ? c : rem);
		*end = *begin + base + (c < rem ? 1 : 0);
	}
}

/* The CTA whose Stream-K range holds iteration it (0 <= it < sk_tiles * k_iters). */
SCHED_FN int sched_walk_sk_cta(const struct sched_walk *w, long it)
{
	if (w->sk_pieces > 0) {
		long lt = it / w->k_iters, kk = it - lt * w->k_iters;
		long p = kk * w->sk_pieces / w->k_iters, k0, k1;
		for (;;) { /* the estimate is off by at most one */
			sched_splitk_range(w->k_iters, (int)w->sk_pieces, (int)p, &k0, &k1);
			if (kk < k0)
				p--;
			else if (kk >= k1)
				p++;
			else
				return (int)(lt * w->sk_pieces + p);
		}
	}
	{
		long total = w->sk_tiles * w->k_iters;
		long base = total / w->ctas, rem = total % w->ctas;
		long big = rem * (base + 1);
		if (it < big)
			return (int)(it / (base + 1));
		return (int)(rem + (it - big) / base);
	}
}

/* The Stream-K segment of cta's range [.., end) starting at iteration it. */
SCHED_FN void sched_walk_sk_seg(const struct sched_walk *w, long it, long end, struct sched_seg *s)
{
	long lt = it / w->k_iters, tile_end = (lt + 1) * w->k_iters;
	long stop = end < tile_end ? end : tile_end;
	s->tile = w->dp_tiles + lt;
	s->k0 = it - lt * w->k_iters;
	s->k1 = stop - lt * w->k_iters;
	s->slice = 0;
	s->pos = -1 - it; /* negative: in the Stream-K range */
	s->take_first = s->take_last = -1;
	s->ghost = 0;
	if (s->k0 > 0) {
		s->role = SCHED_HAND_OVER;
	} else if (s->k1 == w->k_iters) {
		s->role = SCHED_WHOLE;
	} else {
		s->role = SCHED_TAKE_OVER;
		s->take_first = sched_walk_sk_cta(w, stop);
		s->take_last = sched_walk_sk_cta(w, tile_end - 1);
	}
}

/* The data-parallel (or split-K) unit u of the walk as a segment: split-K
 * units are slice-major (every tile's slice 0, then slice 1, ...), so a
 * tile's last slice comes after its others. */
SCHED_FN void sched_walk_unit_seg(const struct sched_walk *w, long u, struct sched_seg *s)
{
	s->pos = u;
	s->role = SCHED_WHOLE;
	s->take_first = s->take_last = -1;
	s->ghost = 0;
	if (w->split > 1) {
		s->slice = (int)(u / w->tiles);
		s->tile = u - s->slice * w->tiles;
		sched_splitk_range(w->k_iters, w->split, s->slice, &s->k0, &s->k1);
	} else {
		s->slice = 0;
		s->tile = u;
		s->k0 = 0;
		s->k1 = w->k_iters;
	}
}

/* ---- Clusters: CTAs stacked along M that share B ----
 *
 * A walk made by sched_walk_make_clustered with cluster C > 1 runs over
 * cluster tiles: C tile rows by one tile column of one block, in grouped
 * order on the cluster grid (ceil(tiles_m / C) rows, groups of
 * ceil(gsize_m / C) cluster rows, so a group covers the same tile rows).
 * The clusters (CTAs c * C .. c * C + C - 1 are cluster c; CTAs past the
 * last whole cluster have nothing) walk the cluster tiles as CTAs walk
 * tiles: data-parallel, or split-K slice-major. Rank r of a cluster takes
 * tile row tmc * C + r of each, so the C CTAs of a cluster compute one
 * tile column over the same K slices in step, and each B panel they read
 * can be loaded once for all of them (the wgmma core's TMA multicast). A
 * rank whose row lies past the grid's last is a ghost for that segment
 * (seg.ghost; seg.tile is rank 0's tile): on the GPU it still loads its
 * share of B for the others and stores nothing; the CPU backend skips it.
 * Segments carry real tile indices (grouped order on the tile grid, block
 * by block), so the exchange, flags and epilogues are the same as without
 * clusters. Stream-K over clusters is not a form (the host refuses it).
 *
 * With split = C (cluster_k), a cluster holds the C split-K slices of one
 * tile instead: the clusters walk the tiles data-parallel, rank r computes
 * slice r, and rank C - 1, whose slice is the last, ends the tile (on the
 * GPU the others' partial sums reach it through distributed shared memory,
 * kernels/wgmma_cluster_k.h; the CPU backend's exchange is split-K's). */
SCHED_FN struct sched_walk sched_walk_make_clustered(const struct sched_grid *g, long blocks,
						     int gsize_m, int ctas, int split, int cluster)
{
	const long c = cluster < 1 ? 1 : cluster;
	const int k_mode = c > 1 && split == c;
	const long c_rows = k_mode ? g->tiles_m : sched_ceil_div(g->tiles_m, c);
	struct sched_walk w = sched_walk_make(blocks * c_rows * g->tiles_n, g->k_iters, ctas, split, 0, 0);
	w.cluster = (int)c;
	w.cluster_k = k_mode;
	w.gsize_m = gsize_m < 1 ? 1 : gsize_m;
	w.grid = *g;
	return w;
}

/* The unit segment *s of a clustered walk (its tile a cluster tile) placed
 * on the tile grid for rank `rank` of the cluster. */
SCHED_FN void sched_cluster_place(const struct sched_walk *w, int rank, struct sched_seg *s)
{
	struct sched_grid gc;
	long q, u, tmc, tn, tm;
	gc.tiles_m = sched_ceil_div(w->grid.tiles_m, w->cluster);
	gc.tiles_n = w->grid.tiles_n;
	gc.tiles = gc.tiles_m * gc.tiles_n;
	gc.k_iters = w->grid.k_iters;
	q = s->tile / gc.tiles;
	u = s->tile - q * gc.tiles;
	sched_tile_coords(&gc, (int)sched_ceil_div(w->gsize_m, w->cluster), u, &tmc, &tn);
	tm = tmc * w->cluster + rank;
	s->ghost = tm >= w->grid.tiles_m;
	if (s->ghost)
		tm = tmc * w->cluster;
	s->tile = q * w->grid.tiles + sched_tile_index(&w->grid, w->gsize_m, tm, tn);
}

/* A clustered walk's first (next: after *s) segment of CTA cta. */
SCHED_FN int sched_cluster_step(const struct sched_walk *w, int cta, struct sched_seg *s, int first)
{
	long units = w->split > 1 && !w->cluster_k ? w->tiles * w->split : w->tiles;
	long clusters = w->ctas / w->cluster, u;
	if (cta < 0 || cta / w->cluster >= clusters)
		return 0;
	u = first ? cta / w->cluster : s->pos + clusters;
	if (u >= units)
		return 0;
	if (w->cluster_k) { /* tile u, slice = rank */
		s->pos = u;
		s->tile = u;
		s->role = SCHED_WHOLE;
		s->take_first = s->take_last = -1;
		s->ghost = 0;
		s->slice = cta % w->cluster;
		sched_splitk_range(w->k_iters, w->split, s->slice, &s->k0, &s->k1);
		return 1;
	}
	sched_walk_unit_seg(w, u, s);
	sched_cluster_place(w, cta % w->cluster, s);
	return 1;
}

/* CTA cta's first segment: 1 and *s, or 0 when it has none. */
SCHED_FN int sched_walk_first(const struct sched_walk *w, int cta, struct sched_seg *s)
{
	long units = w->split > 1 ? w->tiles * w->split : w->dp_tiles, b, e;
	if (w->cluster > 1)
		return sched_cluster_step(w, cta, s, 1);
	if (cta < 0 || cta >= w->ctas)
		return 0;
	if (cta < units) {
		sched_walk_unit_seg(w, cta, s);
		return 1;
	}
	if (w->sk_tiles == 0)
		return 0;
	sched_walk_sk_range(w, cta, &b, &e);
	if (b >= e)
		return 0;
	sched_walk_sk_seg(w, b, e, s);
	return 1;
}

/* The segment after *s of CTA cta: 1 and *s, or 0 at the end of its walk. */
SCHED_FN int sched_walk_next(const struct sched_walk *w, int cta, struct sched_seg *s)
{
	long units = w->split > 1 ? w->tiles * w->split : w->dp_tiles, b, e;
	if (w->cluster > 1)
		return sched_cluster_step(w, cta, s, 0);
	if (s->pos >= 0 && s->pos + w->ctas < units) {
		sched_walk_unit_seg(w, s->pos + w->ctas, s);
		return 1;
	}
	if (w->sk_tiles == 0)
		return 0;
	sched_walk_sk_range(w, cta, &b, &e);
	if (s->pos >= 0) { /* the data-parallel part is done: the Stream-K range */
		if (b >= e)
			return 0;
		sched_walk_sk_seg(w, b, e, s);
		return 1;
	}
	{
		long it = (s->tile - w->dp_tiles) * w->k_iters + s->k1;
		if (it >= e)
			return 0;
		sched_walk_sk_seg(w, it, e, s);
		return 1;
	}
}

/* Whether segment s ends its tile (stores it): whole, a take-over, or a
 * split's last slice. */
SCHED_FN int sched_seg_ends(const struct sched_walk *w, const struct sched_seg *s)
{
	if (w->split > 1)
		return s->slice == w->split - 1;
	return s->role != SCHED_HAND_OVER;
}

/* Two-shot / reduce-scatter ownership: the rank that reduces tile `tile`.
 * Round-robin, so every rank reduces the same number of tiles (+-1). */
SCHED_FN int sched_tile_owner(long tile, int world)
{
	return (int)(tile % world);
}

/* The tiles rank owns by that rule, in order: how many of tiles, and the
 * i-th (the CPU's sk_all_reduce hands them to its summers in turn). */
SCHED_FN long sched_owned_count(long tiles, int rank, int world)
{
	return tiles > rank ? (tiles - rank + world - 1) / world : 0;
}
SCHED_FN long sched_owned_tile(long i, int rank, int world)
{
	return i * world + rank;
}

/* sk_all_reduce's all-reduce, of a C of c_bytes: one-shot reads (W - 1) x C
 * into every GPU, two-shot 2 (W - 1) / W x C but waits twice (for the
 * owner's sum, after the partials). At W <= 2 the bytes are the same:
 * one-shot. From W = 3 on two-shot, unless the bytes one-shot adds,
 * (W - 1) (W - 2) / W x C, are under 1 MiB, about what the second wait
 * costs (~3 us at the 370 GB/s of NVLink between two H100s): on four H100s
 * at 16 and 64 x 4096 x 14336 (C 128 and 512 KB) two-shot took 33.1 and
 * 35.5 us where one-shot took 30.2 and 34.6, at 128 rows (1 MB, 1.5 MB
 * added) 39.0 against 40.1 (the families all_reduce_two_shot and
 * _one_shot, session 9's store); sk_all_reduce itself at W = 3, 192 x
 * 4096 (1 MiB added) one-shot 1.006-1.041x two-shot's time, so the line
 * leaves it two-shot. The kernel (C = M_ x N_ elements) and the CPU
 * backend (src/algos/sk_all_reduce.c) both read it here. */
#define SCHED_SK_TWO_SHOT(world, c_bytes)                                              \
	((world) >= 3 && (long long)((world) - 1) * ((world) - 2) * (long long)(c_bytes) >= \
				 ((long long)(world) << 20))

/* Two-shot on the GPU (kernels/all_reduce.hip): the rank that reduces tile
 * `tile` when `ctas` CTAs walk the tiles data-parallel (tile c, c + ctas,
 * ... to CTA c). With tile % world alone and world dividing ctas (132 CTAs
 * at W = 2 or 4), every tile of a CTA had one owner, so a rank's sums fell
 * on the side warps of 1/world of its CTAs (two-shot at W=4 took 1.7-1.8x
 * the time it takes now). The owner turns with the wave by a shift s
 * chosen so that one CTA's next tile, ctas + s further on, is the next
 * owner ((ctas + s) % world == 1): every CTA reduces every world-th tile it
 * ends, whatever the grid, and each wave is shared among the ranks as
 * tile % world shares it. (At 132 CTAs and W = 2 or 4, s = 1.) */
SCHED_FN int sched_tile_owner_waved(long tile, int world, long ctas)
{
	const long shift = ((1 - ctas % world) % world + world) % world;
	return (int)((tile + tile / ctas * shift) % world);
}

/* Peer for step s (0..world-1) of rank: step 0 is the local shard and ranks
 * start on different peers, so no link is hit by everyone at once. */
SCHED_FN int sched_peer(int rank, int world, int step)
{
	return (rank + step) % world;
}

/* Row blocks in one tile (reduce_scatter's owners; the gathers' sources on
 * the wgmma core): when a rank's block of rows rows (M/W) is shorter than
 * a tile of blk_m rows, a tile holds the blocks of the `group` consecutive
 * ranks that fit in it, the largest divisor of world that does (1 when
 * none: blk_m <= 0, before a tile is chosen, too).
 * Each block alone in a tile left its other rows empty: 32-row blocks in
 * the wgmma core's 64-row tiles (M = 128, W = 4) computed twice the rows.
 * Owners' blocks are consecutive rows, so a group is one block of group x
 * rows rows, and every tile of it sends each owner its own rows. */
SCHED_FN int sched_owner_group(int world, long rows, int blk_m)
{
	int group = 1;
	for (int d = 2; d <= world; d++)
		if (world % d == 0 && d * rows <= blk_m)
			group = d;
	return group;
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

/* Whether all_gather_gemm_pull's copies of a shard of shard_bytes go to
 * the copy engine beside the kernel rather than to the kernel's own CTAs
 * on the wgmma core (the host's engine_copies, src/algos/all_gather_gemm.c,
 * and the kernel decide it from this one rule). The CTAs' reads won 0.79-
 * 0.81x the time at W=4, M = 1024 and 4096 on four H100s (the engine
 * copies the peers one after another) and 0.95-0.99x at W=2 up to a 67 MB
 * shard, but took 1.15-1.16x the engine's time with 235 MB (16384 x 4096 x
 * 14336, W=2). */
SCHED_FN int sched_pull_by_engine(long shard_bytes, int group)
{
	/* group: sources a block of tiles holds (sched_owner_group); where
	 * several, this rank's own shard goes into the inbox too, as the
	 * kernel's CTAs move it */
	return group == 1 && shard_bytes > (128L << 20);
}

/* A chunk of elems elements cut into pieces (kernels/all_gather_gemm.hip
 * moves each by a team of one CTA): piece i holds [e0, e1), ceil(elems /
 * pieces) elements rounded up to whole vectors of vec, the last ones short
 * or empty, so the pieces cover the chunk once. (Rounding elems / pieces
 * down before the vectors left up to pieces - 1 elements at the chunk's
 * end uncovered: 32 pieces of 58 x 296.) */
SCHED_FN void sched_piece_span(long elems, long pieces, long vec, long i, long *e0, long *e1)
{
	const long per = ((elems + pieces - 1) / pieces + vec - 1) / vec * vec;
	*e0 = i * per < elems ? i * per : elems;
	*e1 = (i + 1) * per < elems ? (i + 1) * per : elems;
}

#endif
