/* test_auto_pick.c: config auto's pick (src/tune/auto_pick.c) on synthetic
 * runs: best --predict's first where the store covers the shape (even
 * when it beats the defaults table's pick by less than the fit's median
 * error, which the rule before issue 49 kept), the table's pick kept
 * where it does not (no other shape, only the query's own, the nearest
 * farther than PREDICT_FAR, no fit of the candidates' core), a candidate
 * skipped where it changes a given field, needs more CTAs than the
 * machine has, or overflows the arch's shared memory. */
#include <string.h>

#include "fgo.h"
#include "model.h"
#include "spec/defaults.h"
#include "testlib.h"
#include "tune/auto_pick.h"
#include "tune/predict.h"

/* gemm bf16 W=1 on the wgmma core at m x n x k with the tile given. */
static struct fgo_config gemm(long m, long n, long k, int bm, int bn, int stages, int split)
{
	struct fgo_config c;
	config_defaults(&c);
	snprintf(c.algorithm, sizeof c.algorithm, "gemm");
	c.dtype = FGO_BF16;
	c.world = 1;
	c.m = m;
	c.n = n;
	c.k = k;
	c.mma = FGO_MMA_WGMMA;
	c.blk_m = bm;
	c.blk_n = bn;
	c.blk_k = 64;
	c.num_stages = stages;
	c.num_warps = bm == 128 ? 12 : 8;
	c.split_k = split;
	return c;
}

/* A wgmma fit whose time is its launch term alone (the same for every
 * configuration), median error err: the ranking is then by each
 * configuration's own measured / model near the query. */
static void flat_model(struct predict_model *pm, double err)
{
	memset(pm, 0, sizeof *pm);
	pm->ncores = 1;
	snprintf(pm->core[0].core, sizeof pm->core[0].core, "wgmma");
	pm->core[0].coef[MT_LAUNCH] = 0.01;
	pm->core[0].median_err = err;
	model_machine_fill(&pm->machine);
}

/* The query and its four nearest measured shapes (each at distance 1). */
#define QM 256
#define QN 4096
#define QK 4096
static const long near_shapes[][3] = {
	{ 128, 4096, 4096 }, { 512, 4096, 4096 }, { 256, 2048, 4096 }, { 256, 4096, 8192 },
};

/* cfg measured at every near shape at factor x its model time. */
static size_t measure(struct predict_obs *obs, size_t n, const struct fgo_config *cfg, double factor)
{
	for (size_t s = 0; s < FGO_ARRAY_SIZE(near_shapes); s++) {
		obs[n].cfg = *cfg;
		obs[n].cfg.m = near_shapes[s][0];
		obs[n].cfg.n = near_shapes[s][1];
		obs[n].cfg.k = near_shapes[s][2];
		obs[n].cfg.given = 0;
		obs[n].ms = 0.01 * factor;
		n++;
	}
	return n;
}

/* The table's pick at the query: the item as the plan hands it to auto. */
static struct fgo_config table_pick(void)
{
	struct fgo_config c = gemm(QM, QN, QK, 64, 64, 2, 1);
	int row = defaults_lookup(&c, "wgmma");
	if (row >= 0)
		defaults_apply(&c, &defaults_table[row]);
	return c;
}

static int same_tile(const struct fgo_config *a, const struct fgo_config *b)
{
	return a->blk_m == b->blk_m && a->blk_n == b->blk_n && a->blk_k == b->blk_k &&
	       a->num_stages == b->num_stages && a->num_warps == b->num_warps &&
	       a->split_k == b->split_k && a->gemm_sms == b->gemm_sms && a->mma == b->mma;
}

/* The brief's case: the table's pick measured at the near shapes, and a
 * candidate 3% faster there; the fit's median error 10%. The rule before
 * kept the table's pick (not faster by more than 10%); auto now takes
 * best --predict's first, the candidate, and says how it ranked it. */
static void check_within_error(void)
{
	struct predict_obs obs[32];
	struct predict_model pm;
	struct predict_result r;
	struct auto_pick p;
	struct fgo_config item = table_pick(), cand = gemm(QM, QN, QK, 128, 128, 5, 1);
	size_t n = 0;
	cand.num_warps = 8;
	T_CHECK("within-table-row", item.given == 0 && !same_tile(&item, &cand),
		"table pick %dx%d s%d split %d", item.blk_m, item.blk_n, item.num_stages, item.split_k);
	n = measure(obs, n, &item, 1.00);
	n = measure(obs, n, &cand, 0.97);
	flat_model(&pm, 0.10);
	T_EQ_INT("within-rc", auto_pick_one(&item, "sm_90a", obs, n, &pm, &p), FGO_OK);
	T_EQ_INT("within-ranked", p.source, AUTO_RANKED);
	T_CHECK("within-takes-candidate", same_tile(&p.cfg, &cand) && p.place == 1,
		"picked %dx%d s%d w%d split %d, place %zu", p.cfg.blk_m, p.cfg.blk_n, p.cfg.num_stages,
		p.cfg.num_warps, p.cfg.split_k, p.place);
	T_NEAR("within-predicted", p.predicted_ms, 0.01 * 0.97, 1e-12);
	T_CHECK("within-shape-kept", p.cfg.m == QM && p.cfg.n == QN && p.cfg.k == QK && p.count == 2 &&
		p.nnear == 4 && p.nsupport == 4, "%ldx%ldx%ld, %zu ranked, %d near, %d support",
		p.cfg.m, p.cfg.n, p.cfg.k, p.count, p.nnear, p.nsupport);
	/* the same as best --predict's first */
	T_CHECK("within-as-predict", predict_rank_model(obs, n, &item, &pm, &r) == FGO_OK && r.count &&
		same_tile(&r.cand[0].cfg, &p.cfg), "best --predict's first differs");
	predict_free(&r);
	/* the candidate slower there: the table's pick, ranked first itself */
	n = 0;
	n = measure(obs, n, &item, 1.00);
	n = measure(obs, n, &cand, 1.03);
	auto_pick_one(&item, "sm_90a", obs, n, &pm, &p);
	T_CHECK("within-table-ranked-first", p.source == AUTO_RANKED && same_tile(&p.cfg, &item),
		"source %d, %dx%d", p.source, p.cfg.blk_m, p.cfg.blk_n);
}

/* No coverage: the item as it was, with the reason. */
static void check_no_coverage(void)
{
	struct predict_obs obs[32];
	struct predict_model pm;
	struct auto_pick p;
	struct fgo_config item = table_pick(), cand = gemm(QM, QN, QK, 128, 128, 5, 1), own;
	size_t n;
	flat_model(&pm, 0.10);
	T_EQ_INT("none-rc", auto_pick_one(&item, "sm_90a", obs, 0, &pm, &p), FGO_OK);
	T_CHECK("none-table", p.source == AUTO_TABLE && same_tile(&p.cfg, &item) && p.cfg.m == QM,
		"source %d", p.source);
	T_CONTAINS("none-says", p.why, "no ok run of this problem at another shape");
	/* only the query's own shape measured: left out as best --predict
	 * leaves it */
	own = cand;
	own.given = 0;
	obs[0].cfg = own;
	obs[0].ms = 0.001;
	auto_pick_one(&item, "sm_90a", obs, 1, &pm, &p);
	T_CHECK("own-shape-left-out", p.source == AUTO_TABLE && same_tile(&p.cfg, &item),
		"source %d, %dx%d", p.source, p.cfg.blk_m, p.cfg.blk_n);
	/* the nearest measured shape 2.32 away (M 5x): a guess, the table */
	n = 0;
	for (int i = 0; i < 2; i++) {
		obs[n].cfg = i ? cand : item;
		obs[n].cfg.m = QM * 5;
		obs[n++].ms = i ? 0.005 : 0.01;
	}
	auto_pick_one(&item, "sm_90a", obs, n, &pm, &p);
	T_CHECK("far-table", p.source == AUTO_TABLE && same_tile(&p.cfg, &item) && p.count == 2,
		"source %d, %zu ranked", p.source, p.count);
	T_CONTAINS("far-says", p.why, "1280x4096x4096, is 2.32 away");
	/* M 4x (distance 2.00): not past PREDICT_FAR, ranked */
	for (size_t i = 0; i < n; i++)
		obs[i].cfg.m = QM * 4;
	auto_pick_one(&item, "sm_90a", obs, n, &pm, &p);
	T_CHECK("far-edge-ranked", p.source == AUTO_RANKED && same_tile(&p.cfg, &cand),
		"source %d, %dx%d", p.source, p.cfg.blk_m, p.cfg.blk_n);
	/* no fit of the candidates' core: nothing ranked */
	snprintf(pm.core[0].core, sizeof pm.core[0].core, "mma16");
	auto_pick_one(&item, "sm_90a", obs, n, &pm, &p);
	T_CHECK("no-fit-table", p.source == AUTO_TABLE && p.count == 0, "source %d, %zu ranked",
		p.source, p.count);
	T_CONTAINS("no-fit-says", p.why, "is valid at this one with a fit of its core");
}

/* What the spec or flags gave is kept: a given split skips the faster
 * candidate with another; deterministic is never changed. */
static void check_given(void)
{
	struct predict_obs obs[32];
	struct predict_model pm;
	struct auto_pick p;
	struct fgo_config item = table_pick(), fast = gemm(QM, QN, QK, 64, 128, 8, 2),
			  slow = gemm(QM, QN, QK, 128, 128, 5, 1);
	size_t n = 0;
	slow.num_warps = 8;
	n = measure(obs, n, &fast, 0.8);
	n = measure(obs, n, &slow, 0.9);
	flat_model(&pm, 0.05);
	auto_pick_one(&item, "sm_90a", obs, n, &pm, &p);
	T_CHECK("given-free", p.source == AUTO_RANKED && same_tile(&p.cfg, &fast), "%dx%d split %d",
		p.cfg.blk_m, p.cfg.blk_n, p.cfg.split_k);
	item.split_k = 1;
	item.given |= FGO_GIVEN_SPLIT_K;
	auto_pick_one(&item, "sm_90a", obs, n, &pm, &p);
	T_CHECK("given-split-kept", p.source == AUTO_RANKED && same_tile(&p.cfg, &slow) &&
		p.place == 2 && p.cfg.given == item.given, "%dx%d split %d place %zu given %d",
		p.cfg.blk_m, p.cfg.blk_n, p.cfg.split_k, p.place, p.cfg.given);
	item.split_k = 4;
	auto_pick_one(&item, "sm_90a", obs, n, &pm, &p);
	T_CHECK("given-none-keeps", p.source == AUTO_TABLE && p.cfg.split_k == 4,
		"source %d split %d", p.source, p.cfg.split_k);
	T_CONTAINS("given-none-says", p.why, "(2 change a given field, 0 cannot run)");
	item = table_pick();
	item.deterministic = 1;
	auto_pick_one(&item, "sm_90a", obs, n, &pm, &p);
	T_CHECK("given-deterministic", p.source == AUTO_TABLE, "source %d", p.source);
}

/* A Stream-K walk's CTAs must all be resident: 132 + 0 skipped on 128
 * units, 128 + 0 fills them exactly and is taken; a tile past the arch's
 * shared memory is skipped where the arch is known. */
static void check_runs_here(void)
{
	struct predict_obs obs[32];
	struct predict_model pm;
	struct auto_pick p;
	struct fgo_config item = table_pick(), sk132 = gemm(QM, QN, QK, 64, 128, 4, 1), sk128,
			  big = gemm(QM, QN, QK, 128, 256, 6, 1);
	size_t n = 0;
	sk132.gemm_sms = 132;
	sk128 = sk132;
	sk128.gemm_sms = 128;
	n = measure(obs, n, &big, 0.7);
	n = measure(obs, n, &sk132, 0.8);
	n = measure(obs, n, &sk128, 0.85);
	n = measure(obs, n, &item, 1.0);
	flat_model(&pm, 0.05);
	pm.machine.cus = 128;
	auto_pick_one(&item, "sm_90a", obs, n, &pm, &p);
	T_CHECK("resident-fills-exactly", p.source == AUTO_RANKED && p.cfg.gemm_sms == 128 &&
		p.place == 3, "gemm_sms %d, %dx%d, place %zu", p.cfg.gemm_sms, p.cfg.blk_m, p.cfg.blk_n,
		p.place);
	pm.machine.cus = 132;
	auto_pick_one(&item, "sm_90a", obs, n, &pm, &p);
	T_CHECK("resident-132", p.source == AUTO_RANKED && p.cfg.gemm_sms == 132 && p.place == 2,
		"gemm_sms %d, place %zu", p.cfg.gemm_sms, p.place);
	/* 128x256 s6 needs 361600 bytes: fine where the arch is not known */
	auto_pick_one(&item, "x86_64", obs, n, &pm, &p);
	T_CHECK("smem-unknown-arch", p.source == AUTO_RANKED && same_tile(&p.cfg, &big), "%dx%d s%d",
		p.cfg.blk_m, p.cfg.blk_n, p.cfg.num_stages);
}

/* auto_pick_some: the first want of the ranking that keep what was given
 * and run here, in its order, each with its place; fewer where fewer are
 * ranked; want 1 is auto_pick_one's pick alone. */
static void check_trials(void)
{
	struct predict_obs obs[32];
	struct predict_model pm;
	struct auto_pick p;
	struct fgo_config item = table_pick(), a = gemm(QM, QN, QK, 64, 128, 8, 2),
			  b = gemm(QM, QN, QK, 128, 128, 5, 1), c = gemm(QM, QN, QK, 128, 64, 6, 1);
	size_t n = 0;
	b.num_warps = 8;
	n = measure(obs, n, &a, 0.7);
	n = measure(obs, n, &b, 0.8);
	n = measure(obs, n, &c, 0.9);
	n = measure(obs, n, &item, 1.0);
	flat_model(&pm, 0.05);
	T_EQ_INT("trials-rc", auto_pick_some(&item, "sm_90a", obs, n, &pm, 3, &p), FGO_OK);
	T_CHECK("trials-three-in-order", p.source == AUTO_RANKED && p.ntrials == 3 &&
		same_tile(&p.trial[0], &a) && same_tile(&p.trial[1], &b) && same_tile(&p.trial[2], &c) &&
		same_tile(&p.cfg, &a) && p.trial_place[0] == 1 && p.trial_place[1] == 2 &&
		p.trial_place[2] == 3, "%d trials: %dx%d, %dx%d, %dx%d", p.ntrials, p.trial[0].blk_m,
		p.trial[0].blk_n, p.trial[1].blk_m, p.trial[1].blk_n, p.trial[2].blk_m, p.trial[2].blk_n);
	T_CHECK("trials-at-the-shape", p.trial[2].m == QM && p.trial[2].n == QN && p.trial[2].k == QK,
		"%ldx%ldx%ld", p.trial[2].m, p.trial[2].n, p.trial[2].k);
	auto_pick_some(&item, "sm_90a", obs, n, &pm, 16, &p);
	T_EQ_INT("trials-as-many-as-ranked", p.ntrials, 4);
	auto_pick_some(&item, "sm_90a", obs, n, &pm, 1, &p);
	T_CHECK("trials-one", p.ntrials == 1 && same_tile(&p.trial[0], &a), "%d trials", p.ntrials);
	/* a given split: the ranked that change it are skipped, places kept */
	item.split_k = 1;
	item.given |= FGO_GIVEN_SPLIT_K;
	auto_pick_some(&item, "sm_90a", obs, n, &pm, 3, &p);
	T_CHECK("trials-keep-given", p.ntrials == 3 && same_tile(&p.trial[0], &b) &&
		same_tile(&p.trial[1], &c) && p.trial_place[0] == 2 && p.trial_place[1] == 3 &&
		p.trial_place[2] == 4 && p.trial[0].given == item.given, "%d trials, places %zu %zu %zu",
		p.ntrials, p.trial_place[0], p.trial_place[1], p.trial_place[2]);
}

/* Past the first half, each trial another tile: the ranking's second
 * and third places are the first's tile at other stage counts, which
 * the third trial skips for the next tile; where the ranking holds too
 * few tiles, its skipped places fill the rest in order. */
static void check_spread(void)
{
	struct predict_obs obs[32];
	struct predict_model pm;
	struct auto_pick p;
	struct fgo_config item = table_pick(), a = gemm(QM, QN, QK, 64, 128, 8, 2), a6 = a, a4 = a,
			  b = gemm(QM, QN, QK, 128, 128, 5, 1);
	size_t n = 0;
	a6.num_stages = 6;
	a4.num_stages = 4;
	b.num_warps = 8;
	n = measure(obs, n, &a, 0.6);
	n = measure(obs, n, &a6, 0.7);
	n = measure(obs, n, &a4, 0.8);
	n = measure(obs, n, &b, 0.9);
	flat_model(&pm, 0.05);
	/* 3 trials: 2 as ranked (a, a6), then the next tile (b, place 4) */
	auto_pick_some(&item, "sm_90a", obs, n, &pm, 3, &p);
	T_CHECK("spread-next-tile", p.ntrials == 3 && p.trial[1].num_stages == 6 &&
		same_tile(&p.trial[2], &b) && p.trial_place[0] == 1 && p.trial_place[1] == 2 &&
		p.trial_place[2] == 4, "%d trials, places %zu %zu %zu", p.ntrials, p.trial_place[0],
		p.trial_place[1], p.trial_place[2]);
	/* 4: a, a6, then b, the one other tile; a4 (place 3) fills the
	 * fourth */
	auto_pick_some(&item, "sm_90a", obs, n, &pm, 4, &p);
	T_CHECK("spread-fills", p.ntrials == 4 && p.trial[3].num_stages == 4 && p.trial_place[3] == 3,
		"%d trials, place %zu", p.ntrials, p.trial_place[3]);
	/* 2 trials: the first half is 1, the second another tile */
	auto_pick_some(&item, "sm_90a", obs, n, &pm, 2, &p);
	T_CHECK("spread-two", p.ntrials == 2 && same_tile(&p.trial[1], &b), "%d trials, %dx%d",
		p.ntrials, p.trial[1].blk_m, p.trial[1].blk_n);
}

/* A tile is its block, split, walk and core: the same block at another
 * split, or as a Stream-K walk, is another tile for the spread. */
static void check_spread_tiles(void)
{
	struct predict_obs obs[32];
	struct predict_model pm;
	struct auto_pick p;
	struct fgo_config item = table_pick(), a = gemm(QM, QN, QK, 64, 128, 8, 2), a6 = a, a4 = a,
			  k4 = a, sk = a, b = gemm(QM, QN, QK, 128, 128, 5, 1);
	size_t n = 0;
	a6.num_stages = 6;
	a4.num_stages = 4;
	k4.split_k = 4;
	sk.split_k = 1;
	sk.gemm_sms = 128;
	b.num_warps = 8;
	n = measure(obs, n, &a, 0.6);
	n = measure(obs, n, &a6, 0.65);
	n = measure(obs, n, &a4, 0.7);
	n = measure(obs, n, &k4, 0.75);
	n = measure(obs, n, &sk, 0.8);
	n = measure(obs, n, &b, 0.9);
	flat_model(&pm, 0.05);
	auto_pick_some(&item, "sm_90a", obs, n, &pm, 5, &p);
	T_CHECK("spread-split-walk", p.ntrials == 5 && p.trial[3].split_k == 4 &&
		p.trial[3].num_stages == 8 && p.trial[4].gemm_sms == 128 && p.trial_place[3] == 4 &&
		p.trial_place[4] == 5, "%d trials, places %zu %zu", p.ntrials, p.trial_place[3],
		p.trial_place[4]);
}

int main(void)
{
	check_within_error();
	check_no_coverage();
	check_given();
	check_runs_here();
	check_trials();
	check_spread();
	check_spread_tiles();
	T_DONE();
}
