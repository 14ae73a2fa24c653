/* test_schedule.c: the pure tile-schedule functions of kernels/schedule.h:
 * grouped order is a bijection, Stream-K ranges partition the MAC
 * iterations evenly, data-parallel ownership and row chunks are partitions,
 * the peer order is a permutation starting at self. */
#include <stdlib.h>

#include "fgo.h"
#include "schedule.h"
#include "testlib.h"

/* Grouped order: every (tile_m, tile_n) hit exactly once, in range; within a
 * group the tile rows change fastest (consecutive tiles share B columns). */
static void check_grouped(void)
{
	static const long dims[] = { 1, 2, 3, 5, 8, 13, 31 };
	static const int gsizes[] = { 0, 1, 2, 3, 4, 8, 40 };
	char id[64];
	for (size_t a = 0; a < FGO_ARRAY_SIZE(dims); a++)
		for (size_t b = 0; b < FGO_ARRAY_SIZE(dims); b++)
			for (size_t s = 0; s < FGO_ARRAY_SIZE(gsizes); s++) {
				long tm = dims[a], tn = dims[b];
				int gs = gsizes[s];
				/* tiles via sched_grid_make: m = tm*16 - 1 exercises the ceil */
				struct sched_grid g = sched_grid_make(tm * 16 - 1, tn * 32, 100, 16, 32, 32);
				char *seen = calloc((size_t)g.tiles, 1);
				long bad = 0, dup = 0, order = 0;
				for (long t = 0; t < g.tiles; t++) {
					long i, j;
					sched_tile_coords(&g, gs, t, &i, &j);
					if (i < 0 || i >= tm || j < 0 || j >= tn) {
						bad++;
						continue;
					}
					dup += seen[i * tn + j]++ != 0;
					if (t > 0 && gs > 1 && tm >= gs && t < gs) /* first group column */
						order += i != t;
				}
				snprintf(id, sizeof id, "grouped-%ldx%ld-g%d", tm, tn, gs);
				T_CHECK(id, g.tiles == tm * tn && !bad && !dup && !order,
					"tiles %ld (want %ld), %ld out of range, %ld repeated, %ld out of order",
					g.tiles, tm * tn, bad, dup, order);
				free(seen);
			}
	struct sched_grid g = sched_grid_make(100, 96, 64, 32, 32, 32);
	T_EQ_INT("grid-tiles_m", g.tiles_m, 4);
	T_EQ_INT("grid-tiles_n", g.tiles_n, 3);
	T_EQ_INT("grid-k_iters", g.k_iters, 2);
	long i, j;
	sched_tile_coords(&g, 2, 2, &i, &j); /* group 0 holds rows 0-1: tile 2 = (0, 1) */
	T_CHECK("grouped-example", i == 0 && j == 1, "tile 2 -> (%ld, %ld), want (0, 1)", i, j);
	sched_tile_coords(&g, 2, 7, &i, &j); /* group 1 (rows 2-3): 7 - 6 = 1 -> (3, 0) */
	T_CHECK("grouped-example-2", i == 3 && j == 0, "tile 7 -> (%ld, %ld), want (3, 0)", i, j);
}

/* The walk's Stream-K ranges (sched_walk_sk_range, sched_walk_sk_cta):
 * even ranges over all CTAs when the Stream-K tiles outnumber them, equal
 * pieces of each tile otherwise; both partition the iterations, and the
 * owner of each iteration is the CTA whose range holds it. */
static void check_streamk(void)
{
	static const long shapes[][3] = {
		{ 16, 16, 16 }, { 100, 96, 64 }, { 64, 64, 1000 }, { 33, 17, 250 }, { 512, 512, 512 },
	};
	char id[80];
	for (size_t s = 0; s < FGO_ARRAY_SIZE(shapes); s++) {
		struct sched_grid g = sched_grid_make(shapes[s][0], shapes[s][1], shapes[s][2], 16, 16, 32);
		long total = g.tiles * g.k_iters;
		long fails = 0, first_fail = -1;
		for (int ctas = 1; ctas <= 200; ctas++) {
			struct sched_walk w = sched_walk_make(g.tiles, g.k_iters, ctas, 1, 1, 1);
			long next = 0, lo = total, hi = 0, owner_bad = 0, order_bad = 0;
			for (int c = 0; c < ctas; c++) {
				long b, e;
				sched_walk_sk_range(&w, c, &b, &e);
				if (b == e)
					continue; /* idle past the pieces */
				order_bad += b != next || e < b;
				lo = e - b < lo ? e - b : lo;
				hi = e - b > hi ? e - b : hi;
				for (long it = b; it < e; it++)
					owner_bad += sched_walk_sk_cta(&w, it) != c;
				next = e;
			}
			/* even ranges differ by one at most; pieces by one within a tile */
			long spread = w.sk_pieces ? (g.k_iters + w.sk_pieces - 1) / w.sk_pieces -
							    g.k_iters / w.sk_pieces
						  : hi - lo;
			if (next != total || spread > 1 || owner_bad || order_bad) {
				fails++;
				if (first_fail < 0)
					first_fail = ctas;
			}
		}
		snprintf(id, sizeof id, "streamk-%ldx%ldx%ld-ctas1..200", shapes[s][0], shapes[s][1],
			 shapes[s][2]);
		T_CHECK(id, fails == 0, "%ld CTA counts fail, first at ctas=%ld (total %ld iterations)",
			fails, first_fail, total);
	}
	/* 10 iterations (5 tiles x 2) over 4 CTAs: even ranges 3, 3, 2, 2 */
	struct sched_walk w = sched_walk_make(5, 2, 4, 1, 1, 1);
	long b, e;
	sched_walk_sk_range(&w, 2, &b, &e);
	T_CHECK("streamk-example", b == 6 && e == 8, "cta 2 of 4: [%ld, %ld), want [6, 8)", b, e);
	T_EQ_INT("streamk-cta-example", sched_walk_sk_cta(&w, 8), 3);
	/* 1 tile x 2 iterations on 5 CTAs: 2 pieces of one iteration, 3 CTAs idle */
	w = sched_walk_make(1, 2, 5, 1, 1, 1);
	sched_walk_sk_range(&w, 1, &b, &e);
	T_CHECK("streamk-more-ctas-1", b == 1 && e == 2, "cta 1 of 5: [%ld, %ld), want [1, 2)", b, e);
	sched_walk_sk_range(&w, 4, &b, &e);
	T_CHECK("streamk-more-ctas-4", b == e, "cta 4 of 5: [%ld, %ld), want empty", b, e);
	T_EQ_INT("streamk-cta-of-1", sched_walk_sk_cta(&w, 1), 1);
}

static void check_dp_and_owner(void)
{
	char id[64];
	long fails = 0;
	for (long tiles_n = 1; tiles_n <= 40; tiles_n += 3)
		for (int ctas = 1; ctas <= 50; ctas++) {
			struct sched_grid g = sched_grid_make(16, tiles_n * 16, 16, 16, 16, 16);
			long sum = 0, owned_ok = 1;
			for (int c = 0; c < ctas; c++) {
				long cnt = sched_dp_count(&g, ctas, c), want = 0;
				for (long t = c; t < g.tiles; t += ctas)
					want++; /* tiles c, c + ctas, ... */
				owned_ok &= cnt == want;
				sum += cnt;
			}
			fails += sum != g.tiles || !owned_ok;
		}
	T_EQ_INT("dp-partition", fails, 0);
	struct sched_grid g = sched_grid_make(16, 16 * 10, 16, 16, 16, 16);
	T_EQ_INT("dp-count-example", sched_dp_count(&g, 4, 1), 3); /* tiles 1, 5, 9 */
	T_EQ_INT("dp-count-idle", sched_dp_count(&g, 12, 11), 0);

	for (int w = 1; w <= 8; w++) {
		long cnt[8] = { 0 };
		for (long t = 0; t < 37; t++)
			cnt[sched_tile_owner(t, w)]++;
		long lo = 37, hi = 0;
		for (int r = 0; r < w; r++) {
			lo = cnt[r] < lo ? cnt[r] : lo;
			hi = cnt[r] > hi ? cnt[r] : hi;
		}
		snprintf(id, sizeof id, "owner-balanced-w%d", w);
		T_CHECK(id, hi - lo <= 1, "owners of 37 tiles: %ld..%ld per rank", lo, hi);
	}

	/* the waved owner: each wave of ctas tiles split as tile % world splits
	 * it, and each CTA's tiles (c, c + ctas, ...) among every rank: W tiles
	 * in a row of one CTA have W owners (132 CTAs and 1792 tiles: two-shot
	 * at 4096 x 14336 x 4096 with 128x256 tiles) */
	const int worlds[] = { 2, 4, 8 }, grids[] = { 132, 128, 33, 7 };
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++) {
			const int w = worlds[i], ctas = grids[j];
			const long tiles = 1792;
			long per_wave_bad = 0, per_cta_bad = 0;
			for (long w0 = 0; w0 + ctas <= tiles; w0 += ctas) {
				long cnt[8] = { 0 }, plain[8] = { 0 };
				for (long t = w0; t < w0 + ctas; t++) {
					cnt[sched_tile_owner_waved(t, w, ctas)]++;
					plain[sched_tile_owner(t, w)]++;
				}
				long lo = ctas, hi = 0, plo = ctas, phi = 0;
				for (int r = 0; r < w; r++) {
					lo = cnt[r] < lo ? cnt[r] : lo;
					hi = cnt[r] > hi ? cnt[r] : hi;
					plo = plain[r] < plo ? plain[r] : plo;
					phi = plain[r] > phi ? plain[r] : phi;
				}
				per_wave_bad += hi - lo > phi - plo;
			}
			for (int c = 0; c < ctas; c++) {
				int seen = 0;
				for (long k = 0; k < w && c + k * ctas < tiles; k++)
					seen |= 1 << sched_tile_owner_waved(c + k * ctas, w, ctas);
				per_cta_bad += seen != (1 << w) - 1;
			}
			snprintf(id, sizeof id, "owner-waved-w%d-g%d", w, ctas);
			T_CHECK(id, per_wave_bad == 0 && per_cta_bad == 0,
				"%ld waves split worse than tile %% W, %ld CTAs whose first %d tiles miss an owner",
				per_wave_bad, per_cta_bad, w);
		}
	/* what tile % W did: all of CTA 0's tiles on rank 0 at W=4, 132 CTAs */
	int plain_seen = 0;
	for (long k = 0; k < 4; k++)
		plain_seen |= 1 << sched_tile_owner(k * 132, 4);
	T_EQ_INT("owner-plain-one-rank", plain_seen, 1);
}

static void check_peer_and_chunks(void)
{
	char id[64];
	for (int w = 1; w <= 8; w++) {
		long bad = 0;
		for (int r = 0; r < w; r++) {
			int seen[8] = { 0 };
			bad += sched_peer(r, w, 0) != r;
			for (int s = 0; s < w; s++) {
				int p = sched_peer(r, w, s);
				if (p < 0 || p >= w || seen[p]++)
					bad++;
			}
		}
		snprintf(id, sizeof id, "peer-permutation-w%d", w);
		T_EQ_INT(id, bad, 0);
	}
	static const long cases[][2] = { { 1, 1 }, { 10, 3 }, { 64, 16 }, { 65, 16 }, { 5, 100 }, { 100, 1 } };
	for (size_t i = 0; i < FGO_ARRAY_SIZE(cases); i++) {
		long rows = cases[i][0], cr = cases[i][1];
		long n = sched_chunk_count(rows, cr), next = 0, bad = 0;
		for (long c = 0; c < n; c++) {
			long r0, r1;
			sched_chunk_rows(rows, cr, c, &r0, &r1);
			bad += r0 != next || r1 <= r0 || r1 - r0 > cr;
			next = r1;
		}
		snprintf(id, sizeof id, "chunks-%ld-by-%ld", rows, cr);
		T_CHECK(id, !bad && next == rows && n == (rows + cr - 1) / cr,
			"%ld chunks cover [0, %ld), %ld bad", n, next, bad);
	}
}

/* A chunk's pieces (sched_piece_span) cover it once, in order, each
 * starting on a whole vector, for chunk sizes and piece counts of every
 * kind: the gather's chunks of 58 x 296 elements in 32 pieces (which the
 * floor-first rounding left 16 elements short of), one row, fewer elements
 * than pieces, exact multiples. */
static void check_pieces(void)
{
	static const long cases[][3] = { { 58 * 296, 32, 8 }, { 64 * 14336, 128, 8 }, { 122 * 296, 32, 8 },
					 { 17168, 16, 8 },     { 7, 16, 8 },           { 1, 1, 8 },
					 { 4096, 128, 8 },     { 4097, 128, 8 },       { 2048 * 14336, 4, 8 },
					 { 1000, 3, 4 } };
	char id[64];
	for (size_t i = 0; i < FGO_ARRAY_SIZE(cases); i++) {
		long elems = cases[i][0], pieces = cases[i][1], vec = cases[i][2], next = 0, bad = 0;
		for (long p = 0; p < pieces; p++) {
			long e0, e1;
			sched_piece_span(elems, pieces, vec, p, &e0, &e1);
			bad += e0 != next || e1 < e0 || (e0 < elems && e0 % vec != 0);
			next = e1;
		}
		snprintf(id, sizeof id, "pieces-%ld-in-%ld", elems, pieces);
		T_CHECK(id, !bad && next == elems, "%ld pieces cover [0, %ld) of %ld, %ld bad", pieces, next,
			elems, bad);
	}
}

/* reduce_scatter's owners a tile holds (sched_owner_group): as many as
 * fit in the tile and divide the world, 1 where a block fills a tile or no
 * tile is chosen yet; a group never holds more rows than the tile. */
static void check_owner_group(void)
{
	static const int cases[][4] = { /* world, rows an owner, BLK_M, group */
		{ 4, 32, 64, 2 },  { 4, 32, 128, 4 }, { 4, 16, 64, 4 },  { 4, 64, 64, 1 }, { 4, 25, 64, 2 },
		{ 4, 50, 64, 1 },  { 4, 50, 128, 2 }, { 2, 32, 64, 2 },  { 2, 48, 64, 1 }, { 3, 16, 64, 3 },
		{ 3, 32, 64, 1 },  { 6, 16, 64, 3 },  { 8, 16, 128, 8 }, { 8, 4, 16, 4 },  { 1, 1, 64, 1 },
		{ 4, 32, 0, 1 },   { 8, 16, 64, 4 },
	};
	char id[64];
	for (size_t i = 0; i < FGO_ARRAY_SIZE(cases); i++) {
		const int w = cases[i][0], rows = cases[i][1], blk = cases[i][2];
		const int g = sched_owner_group(w, rows, blk);
		snprintf(id, sizeof id, "owner-group-w%d-%d-in-%d", w, rows, blk);
		T_CHECK(id, g == cases[i][3] && w % g == 0 && (g == 1 || g * rows <= blk), "group %d, expected %d",
			g, cases[i][3]);
	}
}

/* The walk (sched_walk_*): over every CTA's segments, each MAC iteration of
 * each tile computed exactly once, each tile ended exactly once; a
 * hand-over only as the first Stream-K segment of a range, at most one a
 * CTA; a take-over's CTAs [take_first, take_last] are exactly those that
 * handed over parts of its tile, and together with it they cover the tile;
 * split-K units slice-major, a tile ended by its last slice; the
 * data-parallel tiles before the Stream-K ones in every CTA's order. */
static void check_walk_one(long tiles, long kt, int ctas, int split, int streamk, int pure,
			   char *id, size_t idlen)
{
	struct sched_walk w = sched_walk_make(tiles, kt, ctas, split, streamk, pure);
	char *done = calloc((size_t)(tiles * kt), 1);
	int *ended = calloc((size_t)tiles, sizeof *ended);
	int *hands = calloc((size_t)ctas, sizeof *hands);
	long *hand_tile = calloc((size_t)ctas, sizeof *hand_tile);
	long bad = 0, dup = 0, order = 0, take_bad = 0, segs = 0;
	for (int c = 0; c < ctas; c++)
		hand_tile[c] = -1;
	for (int c = 0; c < ctas; c++) {
		struct sched_seg s;
		int in_sk = 0, first_sk = 1;
		for (int more = sched_walk_first(&w, c, &s); more; more = sched_walk_next(&w, c, &s)) {
			segs++;
			if (s.tile < 0 || s.tile >= tiles || s.k0 < 0 || s.k1 > kt || s.k0 >= s.k1) {
				bad++;
				break;
			}
			for (long k = s.k0; k < s.k1; k++)
				dup += done[s.tile * kt + k]++ != 0;
			if (sched_seg_ends(&w, &s))
				ended[s.tile]++;
			if (s.tile >= w.dp_tiles) {
				if (s.role == SCHED_HAND_OVER) {
					bad += !first_sk || hands[c]++ > 0;
					hand_tile[c] = s.tile;
				}
				in_sk = 1;
				first_sk = 0;
			} else {
				order += in_sk; /* a data-parallel tile after the Stream-K range */
				bad += s.role != SCHED_WHOLE;
			}
			if (split > 1)
				bad += s.slice != (int)(s.pos / tiles) || s.role != SCHED_WHOLE;
			/* the tile's last slice ends it (its sum waits for the others') */
			if (split > 1 && sched_seg_ends(&w, &s))
				bad += s.slice != split - 1 || s.k1 != kt;
			/* in pieces: every Stream-K tile cut at the same offsets */
			if (w.sk_pieces > 0 && s.tile >= w.dp_tiles) {
				long k0, k1;
				sched_splitk_range(kt, (int)w.sk_pieces, (int)(c % w.sk_pieces), &k0, &k1);
				bad += s.k0 != k0 || s.k1 != k1 || s.tile - w.dp_tiles != c / w.sk_pieces;
			}
		}
	}
	/* the take-overs, against who handed over what */
	for (int c = 0; c < ctas; c++) {
		struct sched_seg s;
		for (int more = sched_walk_first(&w, c, &s); more; more = sched_walk_next(&w, c, &s)) {
			if (s.role != SCHED_TAKE_OVER)
				continue;
			int n = 0;
			for (int o = 0; o < ctas; o++)
				if (hand_tile[o] == s.tile) {
					n++;
					take_bad += o < s.take_first || o > s.take_last;
				}
			take_bad += n != s.take_last - s.take_first + 1 || s.take_first <= c;
		}
	}
	/* in pieces, no piece empty: every CTA of the pieces has iterations */
	if (w.sk_pieces > 0)
		for (int c = 0; c < ctas && c < w.sk_tiles * w.sk_pieces; c++) {
			long b, e;
			sched_walk_sk_range(&w, c, &b, &e);
			bad += b >= e;
		}
	long missing = 0, ends_bad = 0;
	for (long i = 0; i < tiles * kt; i++)
		missing += !done[i];
	for (long t = 0; t < tiles; t++)
		ends_bad += ended[t] != 1;
	snprintf(id, idlen, "walk-t%ld-k%ld-c%d-s%d-%s", tiles, kt, ctas, split,
		 pure ? "pure" : streamk ? "hybrid" : "dp");
	T_CHECK(id, !bad && !dup && !missing && !ends_bad && !order && !take_bad && segs > 0,
		"%ld bad segments, %ld iterations twice, %ld never, %ld tiles not ended once,"
		" %ld data-parallel after Stream-K, %ld wrong take-overs",
		bad, dup, missing, ends_bad, order, take_bad);
	free(done);
	free(ended);
	free(hands);
	free(hand_tile);
}

static void check_walk(void)
{
	static const long tiles[] = { 1, 2, 7, 16, 131, 132, 133, 300 };
	static const long kts[] = { 1, 2, 3, 16, 224 };
	static const int ctas[] = { 1, 3, 8, 132 };
	static const int splits[] = { 2, 3, 16 };
	char id[96];
	for (size_t a = 0; a < FGO_ARRAY_SIZE(tiles); a++)
		for (size_t b = 0; b < FGO_ARRAY_SIZE(kts); b++)
			for (size_t c = 0; c < FGO_ARRAY_SIZE(ctas); c++) {
				check_walk_one(tiles[a], kts[b], ctas[c], 1, 0, 0, id, sizeof id);
				check_walk_one(tiles[a], kts[b], ctas[c], 1, 1, 0, id, sizeof id);
				check_walk_one(tiles[a], kts[b], ctas[c], 1, 1, 1, id, sizeof id);
				for (size_t d = 0; d < FGO_ARRAY_SIZE(splits); d++)
					if (splits[d] <= kts[b])
						check_walk_one(tiles[a], kts[b], ctas[c], splits[d], 0, 0, id,
							       sizeof id);
			}
	/* the hybrid's split: 300 tiles on 132 CTAs: 2 whole waves, 36 Stream-K */
	struct sched_walk w = sched_walk_make(300, 16, 132, 1, 1, 0);
	T_EQ_INT("walk-hybrid-dp", w.dp_tiles, 264);
	T_EQ_INT("walk-hybrid-sk", w.sk_tiles, 36);
	w = sched_walk_make(264, 16, 132, 1, 1, 0);
	T_EQ_INT("walk-hybrid-whole-waves", w.sk_tiles, 0);
	w = sched_walk_make(16, 224, 132, 1, 1, 0);
	T_EQ_INT("walk-hybrid-under-a-wave", w.sk_tiles, 16);
	/* every tile Stream-K, 4 tiles of 4 iterations on 3 CTAs: even ranges
	 * [0, 6) [6, 11) [11, 16): CTA 0 ends tile 0 whole and takes over tile 1
	 * from CTA 1, which takes over tile 2 from CTA 2 */
	w = sched_walk_make(4, 4, 3, 1, 1, 1);
	struct sched_seg s;
	sched_walk_first(&w, 0, &s);
	T_CHECK("walk-example-0", s.tile == 0 && s.k0 == 0 && s.k1 == 4 && s.role == SCHED_WHOLE,
		"CTA 0: tile %ld [%ld, %ld) role %d", s.tile, s.k0, s.k1, s.role);
	sched_walk_next(&w, 0, &s);
	T_CHECK("walk-example-0b", s.tile == 1 && s.k0 == 0 && s.k1 == 2 && s.role == SCHED_TAKE_OVER &&
					   s.take_first == 1 && s.take_last == 1,
		"CTA 0 next: tile %ld [%ld, %ld) role %d takes %d..%d", s.tile, s.k0, s.k1, s.role,
		s.take_first, s.take_last);
	sched_walk_first(&w, 1, &s);
	T_CHECK("walk-example-1", s.tile == 1 && s.k0 == 2 && s.k1 == 4 && s.role == SCHED_HAND_OVER,
		"CTA 1 first: tile %ld [%ld, %ld) role %d", s.tile, s.k0, s.k1, s.role);
	sched_walk_next(&w, 1, &s);
	T_CHECK("walk-example-1b", s.tile == 2 && s.k0 == 0 && s.k1 == 3 && s.role == SCHED_TAKE_OVER &&
					   s.take_first == 2 && s.take_last == 2,
		"CTA 1 next: tile %ld [%ld, %ld) role %d takes %d..%d", s.tile, s.k0, s.k1, s.role,
		s.take_first, s.take_last);
	/* fewer Stream-K tiles than CTAs: 2 tiles of 4 iterations on 5 CTAs,
	 * each tile in 2 pieces at the same offsets, CTA 4 idle */
	w = sched_walk_make(2, 4, 5, 1, 1, 0);
	T_EQ_INT("walk-aligned-pieces", w.sk_pieces, 2);
	sched_walk_first(&w, 2, &s);
	T_CHECK("walk-aligned-2", s.tile == 1 && s.k0 == 0 && s.k1 == 2 && s.role == SCHED_TAKE_OVER &&
					  s.take_first == 3 && s.take_last == 3,
		"CTA 2: tile %ld [%ld, %ld) role %d takes %d..%d", s.tile, s.k0, s.k1, s.role,
		s.take_first, s.take_last);
	sched_walk_first(&w, 3, &s);
	T_CHECK("walk-aligned-3", s.tile == 1 && s.k0 == 2 && s.k1 == 4 && s.role == SCHED_HAND_OVER,
		"CTA 3: tile %ld [%ld, %ld) role %d", s.tile, s.k0, s.k1, s.role);
	T_EQ_INT("walk-aligned-idle", sched_walk_first(&w, 4, &s), 0);
}

int main(void)
{
	check_grouped();
	check_streamk();
	check_dp_and_owner();
	check_peer_and_chunks();
	check_pieces();
	check_owner_group();
	check_walk();
	T_DONE();
}
