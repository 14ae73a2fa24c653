/* test_walk.c: the CPU's walker (kit_walk_run, src/algos/kit.c) over the
 * walks of kernels/schedule.h, on one rank's heap: data-parallel, split-K,
 * hybrid data-parallel + Stream-K and pure Stream-K, over ragged tile and
 * CTA counts. Every tile is ended exactly once, by the sum of all its MAC
 * iterations (each computed exactly once), through the real exchange and
 * epoch flags; a second launch is as right (flags by epoch, split sums
 * left at zero); comm-only ends every tile once without computing; an
 * error of a step stops the walk; a broken schedule (a take-over before
 * the hand-over it waits for, on the same CTA) fails with the reason
 * instead of hanging. With deterministic sums, split-K's slots are laid
 * out and added in slice order: the same bits however the CTAs interleave.
 * A flag wait gives up at the launch's deadline. */
#include <stdlib.h>
#include <string.h>

#include "algos/kit.h"
#include "fgo.h"
#include "testlib.h"

#define BLK 8         /* BLK_M = BLK_N */
#define MAX_TILES 16
#define MAX_K 12

/* What the fake family saw in one launch. */
struct probe {
	long tiles, k_iters;
	int rows, cols;        /* every tile's extent (a ragged edge: < BLK) */
	int computed[MAX_TILES][MAX_K]; /* MAC iteration (tile, k) computed */
	int ended[MAX_TILES];  /* finish calls per tile */
	long wrong;            /* finished with a wrong sum */
	long fail_tile;        /* gemm of this tile fails (-1: none) */
	int inexact;           /* terms whose fp32 sums depend on the order (no `wrong` check) */
	float got[MAX_TILES][BLK * BLK]; /* each tile's sums as finished */
};

/* The value iteration k of tile t adds to element i: small integers, so
 * fp32 sums are exact in any order. */
static float term(long t, long k, int i)
{
	return (float)((k + 1) * (i % 7 + 1) + t);
}

static int fake_gemm(void *ctx, long tile, long k0, long k1, float *acc, int *rows, int *cols)
{
	struct probe *P = ctx;
	if (tile == P->fail_tile)
		return FGO_ETIMEOUT;
	*rows = P->rows;
	*cols = P->cols;
	for (int i = 0; i < P->rows * P->cols; i++) {
		acc[i] = 0;
		for (long k = k0; k < k1; k++)
			acc[i] += P->inexact ? 1.0f / (float)(3 + 7 * k + i + tile) : term(tile, k, i);
	}
	for (long k = k0; k < k1; k++)
		if (tile >= 0 && tile < MAX_TILES && k < MAX_K)
			P->computed[tile][k]++;
	return FGO_OK;
}

static int fake_finish(void *ctx, long tile, const float *acc)
{
	struct probe *P = ctx;
	if (tile < 0 || tile >= MAX_TILES)
		return FGO_EFAIL;
	P->ended[tile]++;
	if (acc)
		memcpy(P->got[tile], acc, sizeof(float) * (size_t)(P->rows * P->cols));
	for (int i = 0; acc && !P->inexact && i < P->rows * P->cols; i++) {
		float want = 0;
		for (long k = 0; k < P->k_iters; k++)
			want += term(tile, k, i);
		P->wrong += acc[i] != want;
	}
	return FGO_OK;
}

/* One rank's heap with the exchange of cfg's walk over `tiles`. */
struct rig {
	struct fgo_config cfg;
	struct fgo_layout lay;
	char *heap[1];
	struct fgo_exec ex;
	char err[256];
};

static int rig_make(struct rig *r, long tiles, int split, int gemm_sms, int det)
{
	size_t cursor = 0;
	memset(r, 0, sizeof *r);
	config_defaults(&r->cfg);
	r->cfg.blk_m = r->cfg.blk_n = BLK;
	r->cfg.split_k = split;
	r->cfg.gemm_sms = gemm_sms;
	r->cfg.deterministic = det;
	r->cfg.world = 1;
	kit_xchg_place(&r->cfg, tiles, &r->lay, &cursor);
	r->lay.flags_offset = kit_place(&cursor, r->lay.flags_count * sizeof(uint32_t));
	r->lay.heap_bytes = kit_place(&cursor, 0);
	r->heap[0] = calloc(1, r->lay.heap_bytes + 1);
	r->ex = (struct fgo_exec){ .cfg = &r->cfg, .lay = &r->lay, .rank = 0, .world = 1,
				   .heap = r->heap, .epoch = 1, .deadline = now_seconds() + 10,
				   .err = r->err, .err_len = sizeof r->err };
	return r->heap[0] != NULL;
}

/* Whether the split-K sums are all zero again. */
static int sums_zero(const struct rig *r)
{
	const float *s = (const float *)(void *)(r->heap[0] + r->lay.xchg_offset);
	if (r->cfg.split_k <= 1 || r->cfg.deterministic) /* slots: overwritten, not summed into */
		return 1;
	for (size_t i = 0; i < r->lay.xchg_bytes / sizeof(float); i++)
		if (s[i] != 0)
			return 0;
	return 1;
}

static const char *const form_names[] = { "dp", "split", "hybrid", "pure", "split-det",
					  "hybrid-det", "cluster" };

/* One walk, two launches (epochs 1 and 2), then comm-only: all right.
 * Form 6: clusters of `cluster` CTAs over a column of `tiles` tile rows
 * (ghosts where the rows run out), data-parallel or split-K; with split =
 * cluster a cluster's CTAs are the slices of one tile. */
static void check_walk_c(int form, long tiles, long k_iters, int ctas, int split, int cluster)
{
	struct rig r;
	struct probe P;
	struct sched_walk w;
	struct kit_walk_ops ops = { fake_gemm, fake_finish, NULL, NULL, NULL };
	char id[128];
	int split_form = form == 1 || form == 4 || form == 6, streamk = form == 2 || form == 3 || form == 5;
	int sms = streamk ? ctas : 0;

	snprintf(id, sizeof id, "walk-%s-t%ld-k%ld-c%d-s%d-C%d", form_names[form], tiles, k_iters,
		 ctas, split, cluster);
	if (!rig_make(&r, tiles, split_form ? split : 1, sms, form >= 4)) {
		T_CHECK(id, 0, "out of memory");
		return;
	}
	if (form == 6) {
		const struct sched_grid g = sched_grid_make(tiles * BLK, BLK, k_iters * BLK, BLK, BLK, BLK);
		w = sched_walk_make_clustered(&g, 1, 8, ctas, split, cluster);
	} else {
		w = sched_walk_make(tiles, k_iters, ctas, split_form ? split : 1, streamk, form == 3);
	}
	for (int launch = 1; launch <= 2; launch++) {
		long holes = 0, twice = 0, unended = 0;
		int rc;
		memset(&P, 0, sizeof P);
		P.tiles = tiles;
		P.k_iters = k_iters;
		P.rows = BLK - 1;
		P.cols = BLK - 3;
		P.fail_tile = -1;
		r.ex.epoch = (uint32_t)launch;
		rc = kit_walk_run(&r.ex, &w, &ops, &P);
		for (long t = 0; t < tiles; t++) {
			unended += P.ended[t] != 1;
			for (long k = 0; k < k_iters; k++) {
				holes += P.computed[t][k] == 0;
				twice += P.computed[t][k] > 1;
			}
		}
		char lid[160];
		snprintf(lid, sizeof lid, "%s-launch%d", id, launch);
		T_CHECK(lid,
			rc == FGO_OK && !unended && !holes && !twice && !P.wrong && sums_zero(&r),
			"rc %d (%s), %ld tiles not ended once, %ld iterations never and %ld more than"
			" once computed, %ld wrong elements, split sums %s",
			rc, r.err, unended, holes, twice, P.wrong, sums_zero(&r) ? "zero" : "left over");
	}
	/* comm-only: no GEMM, every tile ended once, in the walk's order */
	memset(&P, 0, sizeof P);
	P.fail_tile = -1;
	ops.gemm = NULL;
	r.ex.epoch = 3;
	int rc = kit_walk_run(&r.ex, &w, &ops, &P);
	long unended = 0;
	for (long t = 0; t < tiles; t++)
		unended += P.ended[t] != 1;
	char cid[160];
	snprintf(cid, sizeof cid, "%s-comm-only", id);
	T_CHECK(cid, rc == FGO_OK && !unended, "rc %d, %ld tiles not ended once", rc, unended);
	free(r.heap[0]);
}

static void check_walk(int form, long tiles, long k_iters, int ctas, int split)
{
	check_walk_c(form, tiles, k_iters, ctas, split, 1);
}

static void check_forms(void)
{
	static const long tile_counts[] = { 1, 2, 3, 5, 7, 12 };
	static const long k_counts[] = { 1, 2, 3, 5, 11 };
	for (size_t a = 0; a < FGO_ARRAY_SIZE(tile_counts); a++)
		for (size_t b = 0; b < FGO_ARRAY_SIZE(k_counts); b++) {
			long tiles = tile_counts[a], k = k_counts[b];
			check_walk(0, tiles, k, 1, 1);
			check_walk(0, tiles, k, 3, 1);
			for (int split = 2; split <= 3 && split <= k; split++) {
				check_walk(1, tiles, k, 1, split);
				check_walk(1, tiles, k, 4, split);
				check_walk(4, tiles, k, 1, split);
				check_walk(4, tiles, k, 4, split);
			}
			for (int cluster = 2; cluster <= 4; cluster *= 2) {
				check_walk_c(6, tiles, k, cluster, 1, cluster);
				check_walk_c(6, tiles, k, 3 * cluster, 1, cluster);
				if (k >= 2)
					check_walk_c(6, tiles, k, 2 * cluster + 1, 2, cluster);
				if (k >= cluster) /* the cluster holds a tile's slices */
					check_walk_c(6, tiles, k, 2 * cluster, cluster, cluster);
			}
			for (int ctas = 1; ctas <= 8; ctas++) {
				check_walk(2, tiles, k, ctas, 1);
				check_walk(3, tiles, k, ctas, 1);
				check_walk(5, tiles, k, ctas, 1);
			}
		}
}

/* Deterministic split-K: a slot per tile and slice before the last (the
 * layout), and sums whose bits do not depend on how the CTAs interleave
 * (1, 2 or 4 of them) or on the launch, with terms whose fp32 sum depends
 * on the order of addition. */
static void check_deterministic(void)
{
	enum { TILES = 5, K = 11, SPLIT = 4 };
	static float first[TILES][BLK * BLK];
	struct kit_walk_ops ops = { fake_gemm, fake_finish, NULL, NULL, NULL };
	struct rig r;
	struct probe P;

	if (!rig_make(&r, TILES, SPLIT, 0, 1)) {
		T_CHECK("det-layout", 0, "out of memory");
		return;
	}
	T_CHECK("det-layout", r.lay.xchg_bytes == (size_t)TILES * (SPLIT - 1) * BLK * BLK * sizeof(float),
		"%zu bytes of slots for %d tiles of %d slices", r.lay.xchg_bytes, TILES, SPLIT);
	free(r.heap[0]);
	for (int ctas = 1, run = 0; ctas <= 4; ctas *= 2)
		for (int launch = 1; launch <= 2; launch++, run++) {
			struct sched_walk w = sched_walk_make(TILES, K, ctas, SPLIT, 0, 0);
			char id[64];
			rig_make(&r, TILES, SPLIT, 0, 1);
			memset(&P, 0, sizeof P);
			P.tiles = TILES;
			P.k_iters = K;
			P.rows = P.cols = BLK;
			P.fail_tile = -1;
			P.inexact = 1;
			r.ex.epoch = (uint32_t)launch;
			int rc = kit_walk_run(&r.ex, &w, &ops, &P);
			if (run == 0)
				memcpy(first, P.got, sizeof first);
			snprintf(id, sizeof id, "det-bits-c%d-launch%d", ctas, launch);
			T_CHECK(id, rc == FGO_OK && memcmp(first, P.got, sizeof first) == 0,
				"rc %d (%s); the sums' bits differ from 1 CTA's first launch", rc, r.err);
			free(r.heap[0]);
		}
}

/* A step's error stops the walk and comes back. */
static void check_error(void)
{
	struct rig r;
	struct probe P;
	struct kit_walk_ops ops = { fake_gemm, fake_finish, NULL, NULL, NULL };
	struct sched_walk w = sched_walk_make(5, 3, 4, 1, 1, 1);
	rig_make(&r, 5, 1, 4, 0);
	memset(&P, 0, sizeof P);
	P.tiles = 5;
	P.k_iters = 3;
	P.rows = P.cols = 2;
	P.fail_tile = 2;
	int rc = kit_walk_run(&r.ex, &w, &ops, &P);
	T_CHECK("walk-step-error", rc == FGO_ETIMEOUT && P.ended[2] == 0,
		"rc %d (want %d), tile 2 ended %d times", rc, FGO_ETIMEOUT, P.ended[2]);
	free(r.heap[0]);
}

/* A broken schedule: CTA 0 takes tile 0 over (waiting for its own slot)
 * before it hands over the rest of it; nothing else runs. */
static int broken_first(const struct sched_walk *w, int cta, struct sched_seg *s)
{
	(void)w;
	if (cta != 0)
		return 0;
	*s = (struct sched_seg){ .tile = 0, .k0 = 0, .k1 = 2, .role = SCHED_TAKE_OVER,
				 .take_first = 0, .take_last = 0, .pos = 0 };
	return 1;
}

static int broken_next(const struct sched_walk *w, int cta, struct sched_seg *s)
{
	(void)w, (void)cta;
	if (s->pos != 0)
		return 0;
	*s = (struct sched_seg){ .tile = 0, .k0 = 2, .k1 = 4, .role = SCHED_HAND_OVER,
				 .take_first = -1, .take_last = -1, .pos = 1 };
	return 1;
}

static void check_no_progress(void)
{
	struct rig r;
	struct probe P;
	struct kit_walk_ops ops = { fake_gemm, fake_finish, broken_first, broken_next, NULL };
	struct sched_walk w = sched_walk_make(1, 4, 2, 1, 1, 1);
	rig_make(&r, 1, 1, 2, 0);
	memset(&P, 0, sizeof P);
	P.tiles = 1;
	P.k_iters = 4;
	P.rows = P.cols = 2;
	P.fail_tile = -1;
	double t0 = now_seconds();
	int rc = kit_walk_run(&r.ex, &w, &ops, &P);
	T_EQ_INT("walk-stuck-rc", rc, FGO_EFAIL);
	T_CONTAINS("walk-stuck-reason", r.err, "the walk made no progress (a schedule bug)");
	T_CONTAINS("walk-stuck-where", r.err, "CTA 0 waits at tile 0, iterations [0, 2)");
	T_CHECK("walk-stuck-at-once", now_seconds() - t0 < 5 && P.ended[0] == 0,
		"took %.1f s, tile 0 ended %d times", now_seconds() - t0, P.ended[0]);
	free(r.heap[0]);
}

/* The CPU's walk of a configuration: Stream-K over gemm_sms CTAs, else one CTA. */
static void check_walk_of(void)
{
	struct fgo_config c;
	config_defaults(&c);
	/* 10 tiles (5 x 2) of 4 iterations */
	const struct sched_grid g = sched_grid_make(5 * 16, 2 * 16, 4 * 16, 16, 16, 16);
	struct sched_walk w = kit_walk_of(&c, &g, 1);
	T_CHECK("walk-of-dp", w.ctas == 1 && w.split == 1 && w.sk_tiles == 0,
		"ctas %d split %d sk_tiles %ld", w.ctas, w.split, w.sk_tiles);
	c.split_k = 3;
	w = kit_walk_of(&c, &g, 1);
	T_CHECK("walk-of-split", w.ctas == 1 && w.split == 3 && w.sk_tiles == 0,
		"ctas %d split %d sk_tiles %ld", w.ctas, w.split, w.sk_tiles);
	c.split_k = 1;
	c.gemm_sms = 4;
	w = kit_walk_of(&c, &g, 1);
	T_CHECK("walk-of-hybrid", w.ctas == 4 && w.dp_tiles == 8 && w.sk_tiles == 2,
		"ctas %d dp_tiles %ld sk_tiles %ld", w.ctas, w.dp_tiles, w.sk_tiles);
	/* the sk_* families walk the hybrid too: whole waves finish tiles
	 * early, for their communication CTAs to send under the GEMM */
	snprintf(c.algorithm, sizeof c.algorithm, "sk_all_scatter");
	w = kit_walk_of(&c, &g, 1);
	T_CHECK("walk-of-sk-hybrid", w.ctas == 4 && w.dp_tiles == 8 && w.sk_tiles == 2,
		"ctas %d dp_tiles %ld sk_tiles %ld", w.ctas, w.dp_tiles, w.sk_tiles);
	/* a cluster of 2: one cluster of 2 virtual CTAs over 3 x 2 cluster
	 * tiles of two blocks; with split 2, over the 10 x 2 tiles, a tile's
	 * two slices in the cluster */
	snprintf(c.algorithm, sizeof c.algorithm, "all_scatter");
	c.gemm_sms = 0;
	c.cluster = 2;
	w = kit_walk_of(&c, &g, 2);
	T_CHECK("walk-of-cluster", w.ctas == 2 && w.cluster == 2 && !w.cluster_k && w.split == 1 &&
					   w.tiles == 12,
		"ctas %d cluster %d (k %d) split %d tiles %ld", w.ctas, w.cluster, w.cluster_k, w.split,
		w.tiles);
	c.split_k = 2;
	w = kit_walk_of(&c, &g, 2);
	T_CHECK("walk-of-cluster-k", w.ctas == 2 && w.cluster_k && w.split == 2 && w.tiles == 20,
		"ctas %d cluster_k %d split %d tiles %ld", w.ctas, w.cluster_k, w.split, w.tiles);
}

/* The wgmma core's Stream-K exchange through slots where a tile is cut
 * into at most KIT_SK_SLOTS_PIECES (5) pieces: 6091 x 1520 x 2416 with
 * 128x256 over 132 CTAs (288 tiles: 24 Stream-K tiles of 5 pieces, where
 * the slots were measured faster) takes them; 22 Stream-K tiles (6
 * pieces) and 4 (32) keep the sum; so do deterministic (its own slots),
 * the mma.sync core, split-K, data-parallel and whole waves. */
static void check_sk_slots(void)
{
	struct fgo_config c;
	config_defaults(&c);
	c.mma = FGO_MMA_WGMMA;
	c.blk_m = 128;
	c.blk_n = 256;
	c.blk_k = 64;
	c.gemm_sms = 132;
	struct sched_grid g = sched_grid_make(6091, 1520, 2416, 128, 256, 64);
	struct sched_walk w = kit_walk_of(&c, &g, 1);
	T_CHECK("sk-slots-5-pieces", w.sk_tiles == 24 && w.sk_pieces == 5 && kit_sk_slots(&c, &w),
		"sk_tiles %ld pieces %ld slots %d", w.sk_tiles, w.sk_pieces, kit_sk_slots(&c, &w));
	g = sched_grid_make(128 * 22, 1536, 2048, 128, 256, 64); /* 132 tiles + 0: whole waves */
	w = kit_walk_of(&c, &g, 1);
	T_CHECK("sk-slots-whole-waves", w.sk_tiles == 0 && !kit_sk_slots(&c, &w), "sk_tiles %ld",
		w.sk_tiles);
	g = sched_grid_make(128 * 59, 1024, 2048, 128, 256, 64); /* 236 tiles: 104 Stream-K */
	w = kit_walk_of(&c, &g, 1);
	T_CHECK("sk-slots-1-piece", w.sk_pieces == 1 && kit_sk_slots(&c, &w), "pieces %ld",
		w.sk_pieces);
	g = sched_grid_make(128 * 77, 512, 2048, 128, 256, 64); /* 154 tiles: 22 Stream-K */
	w = kit_walk_of(&c, &g, 1);
	T_CHECK("sk-slots-6-pieces-sum", w.sk_pieces == 6 && !kit_sk_slots(&c, &w), "pieces %ld",
		w.sk_pieces);
	/* 136 tiles: 4 Stream-K, 33 pieces capped at the 32 K steps */
	g = sched_grid_make(128 * 34, 1024, 2048, 128, 256, 64);
	w = kit_walk_of(&c, &g, 1);
	T_CHECK("sk-slots-33-pieces-sum", w.sk_pieces == 32 && !kit_sk_slots(&c, &w),
		"pieces %ld", w.sk_pieces);
	g = sched_grid_make(6091, 1520, 2416, 128, 256, 64);
	w = kit_walk_of(&c, &g, 1);
	c.deterministic = 1;
	T_CHECK("sk-slots-not-deterministic", !kit_sk_slots(&c, &w), "slots");
	c.deterministic = 0;
	c.mma = FGO_MMA_SYNC;
	T_CHECK("sk-slots-wgmma-only", !kit_sk_slots(&c, &w), "slots");
	c.mma = FGO_MMA_WGMMA;
	c.gemm_sms = 0;
	w = kit_walk_of(&c, &g, 1);
	T_CHECK("sk-slots-data-parallel", !kit_sk_slots(&c, &w), "slots");
	c.gemm_sms = 132;
	c.split_k = 2;
	w = kit_walk_of(&c, &g, 1);
	T_CHECK("sk-slots-split-k", !kit_sk_slots(&c, &w), "slots");
}

/* flag-1: a wait on a flag gives up at the launch's deadline (--timeout:
 * a peer that never signals is a timeout naming the flag, not a run that
 * reads what was never written); a flag published in this launch's epoch
 * is there, one of an earlier launch is not. */
static void check_flag_wait(void)
{
	struct fgo_layout lay;
	struct fgo_config cfg;
	uint32_t flags[4] = { 0, 0, 0, 0 };
	char *heap[1] = { (char *)flags };
	memset(&lay, 0, sizeof lay);
	config_defaults(&cfg);
	lay.flags_offset = 0;
	struct fgo_exec ex = { .cfg = &cfg, .lay = &lay, .rank = 0, .world = 1, .heap = heap,
			       .epoch = 2, .deadline = now_seconds() + 0.05 };
	double t0 = now_seconds();
	int rc = kit_flag_wait(&ex, 1);
	double waited = now_seconds() - t0;
	T_CHECK("flag-1.1 a flag never raised: timeout at the deadline", rc == FGO_ETIMEOUT &&
		waited >= 0.04 && waited < 5, "rc %d after %.3f s", rc, waited);
	flags[2] = 1; /* raised in launch 1 */
	ex.deadline = now_seconds() + 0.05;
	T_EQ_INT("flag-1.2 one of an earlier launch: not yet", kit_flag_wait(&ex, 2), FGO_ETIMEOUT);
	kit_flag_publish(&ex, 0, 3);
	ex.deadline = now_seconds() + 5;
	T_CHECK("flag-1.3 one of this launch: there", kit_flag_wait(&ex, 3) == FGO_OK && flags[3] == 2,
		"flag %u", flags[3]);
}

int main(void)
{
	check_forms();
	check_error();
	check_no_progress();
	check_walk_of();
	check_deterministic();
	check_sk_slots();
	check_flag_wait();
	T_DONE();
}
