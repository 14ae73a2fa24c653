/* test_cluster_walk.c: the clustered walk of kernels/schedule.h
 * (sched_walk_make_clustered): over every CTA's segments, each MAC
 * iteration of each real tile computed exactly once and each tile ended
 * once; the C CTAs of a cluster walk the same tile column, block and K
 * slices in step (what lets one B panel serve them all), rank r on tile
 * row tmc * C + r; ghosts exactly where that row lies past the grid; no
 * work for CTAs past the last whole cluster. With split = cluster (the
 * cluster holds a tile's K slices): every rank of a cluster on the same
 * tile, rank r on slice r, the last rank ending it, each iteration once.
 * And sched_tile_index inverts sched_tile_coords. */
#include <stdlib.h>

#include "fgo.h"
#include "schedule.h"
#include "testlib.h"

static void check_index(void)
{
	static const long dims[] = { 1, 2, 3, 7, 16 };
	static const int gsizes[] = { 0, 1, 2, 3, 8 };
	long bad = 0;
	for (size_t a = 0; a < FGO_ARRAY_SIZE(dims); a++)
		for (size_t b = 0; b < FGO_ARRAY_SIZE(dims); b++)
			for (size_t s = 0; s < FGO_ARRAY_SIZE(gsizes); s++) {
				struct sched_grid g = sched_grid_make(dims[a] * 64, dims[b] * 64, 64, 64, 64, 64);
				for (long t = 0; t < g.tiles; t++) {
					long tm, tn;
					sched_tile_coords(&g, gsizes[s], t, &tm, &tn);
					bad += sched_tile_index(&g, gsizes[s], tm, tn) != t;
				}
			}
	T_CHECK("tile-index-inverse", bad == 0, "%ld tiles whose index is not their launch order", bad);
}

/* Each CTA's walk as a list, to compare the ranks of a cluster. */
struct seg_list {
	long n;
	struct sched_seg s[4096];
};

static void walk_of(const struct sched_walk *w, int cta, struct seg_list *l)
{
	struct sched_seg s;
	l->n = 0;
	for (int more = sched_walk_first(w, cta, &s); more && l->n < 4096; more = sched_walk_next(w, cta, &s))
		l->s[l->n++] = s;
}

static void check_one(long tm_tiles, long tn_tiles, long blocks, int gsize, int ctas, int split,
		      int cluster)
{
	struct sched_grid g = sched_grid_make(tm_tiles * 64 - 3, tn_tiles * 64, 6 * 64, 64, 64, 64);
	struct sched_walk w = sched_walk_make_clustered(&g, blocks, gsize, ctas, split, cluster);
	const long tiles = blocks * g.tiles, kt = g.k_iters;
	char *done = calloc((size_t)(tiles * kt), 1);
	int *ended = calloc((size_t)tiles, sizeof *ended);
	struct seg_list *lists = malloc(sizeof *lists * (size_t)cluster);
	long bad = 0, dup = 0, step = 0, ghost_bad = 0, idle_bad = 0, missing = 0, ends_bad = 0;
	char id[96];

	for (int c0 = 0; c0 < ctas; c0 += cluster) {
		if (c0 + cluster > ctas) { /* past the last whole cluster: nothing */
			for (int c = c0; c < ctas; c++) {
				walk_of(&w, c, &lists[0]);
				idle_bad += lists[0].n != 0;
			}
			break;
		}
		for (int r = 0; r < cluster; r++)
			walk_of(&w, c0 + r, &lists[r]);
		for (int r = 0; r < cluster; r++) {
			if (lists[r].n != lists[0].n) {
				step++;
				continue;
			}
			for (long i = 0; i < lists[r].n; i++) {
				const struct sched_seg *s = &lists[r].s[i], *s0 = &lists[0].s[i];
				long q = s->tile / g.tiles, tm, tn, q0 = s0->tile / g.tiles, tm0, tn0;
				if (s->tile < 0 || s->tile >= tiles || s->k0 < 0 || s->k1 > kt || s->k0 >= s->k1) {
					bad++;
					continue;
				}
				sched_tile_coords(&g, gsize, s->tile % g.tiles, &tm, &tn);
				sched_tile_coords(&g, gsize, s0->tile % g.tiles, &tm0, &tn0);
				/* in step with rank 0: block, column, slice; row + r */
				step += q != q0 || tn != tn0 || s->k0 != s0->k0 || s->k1 != s0->k1 ||
					s->slice != s0->slice || s0->ghost || tm0 % cluster != 0;
				ghost_bad += s->ghost != (tm0 + r >= g.tiles_m);
				if (s->ghost) {
					ghost_bad += s->tile != s0->tile;
					continue;
				}
				step += tm != tm0 + r;
				for (long k = s->k0; k < s->k1; k++)
					dup += done[s->tile * kt + k]++ != 0;
				ended[s->tile] += sched_seg_ends(&w, s);
			}
		}
	}
	for (long i = 0; i < tiles * kt; i++)
		missing += !done[i];
	for (long t = 0; t < tiles; t++)
		ends_bad += ended[t] != 1;
	snprintf(id, sizeof id, "cluster-walk-%ldx%ld-b%ld-g%d-c%d-s%d-C%d", tm_tiles, tn_tiles,
		 blocks, gsize, ctas, split, cluster);
	T_CHECK(id, !bad && !dup && !missing && !ends_bad && !step && !ghost_bad && !idle_bad,
		"%ld bad, %ld twice, %ld never, %ld tiles not ended once, %ld out of step, %ld ghosts"
		" wrong, %ld idle CTAs with work",
		bad, dup, missing, ends_bad, step, ghost_bad, idle_bad);
	free(done);
	free(ended);
	free(lists);
}

static void check_one_k(long tm_tiles, long tn_tiles, long blocks, int ctas, int cluster)
{
	struct sched_grid g = sched_grid_make(tm_tiles * 64 - 3, tn_tiles * 64, 11 * 64, 64, 64, 64);
	struct sched_walk w = sched_walk_make_clustered(&g, blocks, 8, ctas, cluster, cluster);
	const long tiles = blocks * g.tiles, kt = g.k_iters;
	char *done = calloc((size_t)(tiles * kt), 1);
	int *ended = calloc((size_t)tiles, sizeof *ended);
	struct seg_list *lists = malloc(sizeof *lists * (size_t)cluster);
	long bad = 0, dup = 0, step = 0, missing = 0, ends_bad = 0;
	char id[96];

	for (int c0 = 0; c0 + cluster <= ctas; c0 += cluster) {
		for (int r = 0; r < cluster; r++)
			walk_of(&w, c0 + r, &lists[r]);
		for (int r = 0; r < cluster; r++) {
			step += lists[r].n != lists[0].n;
			for (long i = 0; i < lists[r].n && i < lists[0].n; i++) {
				const struct sched_seg *s = &lists[r].s[i];
				if (s->tile < 0 || s->tile >= tiles || s->k0 < 0 || s->k1 > kt || s->k0 >= s->k1 ||
				    s->ghost) {
					bad++;
					continue;
				}
				step += s->tile != lists[0].s[i].tile || s->slice != r;
				for (long k = s->k0; k < s->k1; k++)
					dup += done[s->tile * kt + k]++ != 0;
				if (sched_seg_ends(&w, s)) {
					ended[s->tile]++;
					bad += r != cluster - 1;
				}
			}
		}
	}
	for (long i = 0; i < tiles * kt; i++)
		missing += !done[i];
	for (long t = 0; t < tiles; t++)
		ends_bad += ended[t] != 1;
	snprintf(id, sizeof id, "cluster-k-walk-%ldx%ld-b%ld-c%d-C%d", tm_tiles, tn_tiles, blocks, ctas,
		 cluster);
	T_CHECK(id, w.cluster_k && !bad && !dup && !missing && !ends_bad && !step,
		"cluster_k %d, %ld bad, %ld twice, %ld never, %ld tiles not ended once, %ld out of step",
		w.cluster_k, bad, dup, missing, ends_bad, step);
	free(done);
	free(ended);
	free(lists);
}

int main(void)
{
	static const long rows[] = { 1, 2, 3, 5, 8 };
	static const long cols[] = { 1, 3, 4 };
	static const int clusters[] = { 1, 2, 4 };
	static const int ctas[] = { 4, 7, 8, 132 };
	static const int splits[] = { 1, 3 };
	static const int k_clusters[] = { 2, 4, 8 };
	check_index();
	for (size_t a = 0; a < FGO_ARRAY_SIZE(rows); a++)
		for (size_t b = 0; b < FGO_ARRAY_SIZE(cols); b++)
			for (size_t c = 0; c < FGO_ARRAY_SIZE(k_clusters); c++)
				for (size_t d = 0; d < FGO_ARRAY_SIZE(ctas); d++)
					if (ctas[d] >= k_clusters[c])
						check_one_k(rows[a], cols[b], a % 2 ? 2 : 1, ctas[d], k_clusters[c]);
	for (size_t a = 0; a < FGO_ARRAY_SIZE(rows); a++)
		for (size_t b = 0; b < FGO_ARRAY_SIZE(cols); b++)
			for (size_t c = 0; c < FGO_ARRAY_SIZE(clusters); c++)
				for (size_t d = 0; d < FGO_ARRAY_SIZE(ctas); d++)
					for (size_t e = 0; e < FGO_ARRAY_SIZE(splits); e++) {
						if (ctas[d] < clusters[c])
							continue;
						check_one(rows[a], cols[b], a % 2 ? 2 : 1, a % 3 ? 8 : 1, ctas[d],
							  splits[e], clusters[c]);
					}
	/* an example: 3 tile rows, 2 columns, cluster 2 on 4 CTAs: cluster 0
	 * takes cluster tile 0 (rows 0-1, column 0), cluster 1 cluster tile 1
	 * (row 2 and a ghost, column 0) */
	{
		struct sched_grid g = sched_grid_make(3 * 64, 2 * 64, 128, 64, 64, 64);
		struct sched_walk w = sched_walk_make_clustered(&g, 1, 8, 4, 1, 2);
		struct sched_seg s;
		long tm, tn;
		sched_walk_first(&w, 3, &s);
		sched_tile_coords(&g, 8, s.tile, &tm, &tn);
		T_CHECK("cluster-example-ghost", s.ghost && tm == 2 && tn == 0,
			"CTA 3: ghost %d, tile (%ld, %ld)", s.ghost, tm, tn);
		sched_walk_first(&w, 2, &s);
		sched_tile_coords(&g, 8, s.tile, &tm, &tn);
		T_CHECK("cluster-example-row2", !s.ghost && tm == 2 && tn == 0,
			"CTA 2: ghost %d, tile (%ld, %ld)", s.ghost, tm, tn);
		T_CHECK("cluster-example-next", sched_walk_first(&w, 1, &s) && !s.ghost, "CTA 1 first");
		sched_walk_next(&w, 1, &s);
		sched_tile_coords(&g, 8, s.tile, &tm, &tn);
		T_CHECK("cluster-example-col1", tm == 1 && tn == 1, "CTA 1 next: (%ld, %ld)", tm, tn);
	}
	T_DONE();
}
