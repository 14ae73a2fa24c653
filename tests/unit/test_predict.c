/* test_predict.c: `best --predict` on synthetic data: predict_rank picks
 * the configuration the data makes best near the query, weighs the nearest
 * shapes most, corrects for tile padding, leaves the query's own runs out;
 * and predict_view, on a synthetic store, prints that configuration first
 * and says it is a prediction. */
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/predict_view.h"
#include "fgo.h"
#include "store/store.h"
#include "testlib.h"
#include "tune/predict.h"

static struct fgo_config shape_cfg(long m, long n, long k, int bm, int bn, int bk)
{
	struct fgo_config c;
	config_defaults(&c); /* all_scatter fp16 W=2 */
	c.m = m;
	c.n = n;
	c.k = k;
	c.blk_m = bm;
	c.blk_n = bn;
	c.blk_k = bk;
	return c;
}

/* The synthetic truth: 64x64x32 is best at small M, 128x64x32 at large M
 * (>= 1024); others are 10-40% slower. */
static double truth(const struct fgo_config *c)
{
	double base = (double)c->m * c->n * c->k * 1e-8;
	int large = c->m >= 1024;
	if (c->blk_m == (large ? 128 : 64) && c->blk_n == 64 && c->blk_k == 32)
		return base;
	return base * (1.1 + 0.1 * ((c->blk_m / 16 + c->blk_n / 16 + c->blk_k / 16) % 4));
}

static const int tiles[][3] = {
	{ 32, 32, 32 }, { 64, 64, 32 }, { 128, 64, 32 }, { 64, 32, 64 }, { 128, 128, 32 },
};

static size_t fill(struct predict_obs *obs, const long (*shapes)[3], size_t nshapes)
{
	size_t n = 0;
	for (size_t s = 0; s < nshapes; s++)
		for (size_t t = 0; t < FGO_ARRAY_SIZE(tiles); t++) {
			obs[n].cfg = shape_cfg(shapes[s][0], shapes[s][1], shapes[s][2], tiles[t][0],
					       tiles[t][1], tiles[t][2]);
			obs[n].ms = truth(&obs[n].cfg);
			n++;
		}
	return n;
}

static const long shapes[][3] = {
	{ 256, 256, 256 }, { 512, 256, 256 }, { 256, 512, 256 },
	{ 2048, 512, 256 }, { 4096, 512, 256 }, { 2048, 1024, 512 },
};

static void test_rank(void)
{
	struct predict_obs obs[64];
	size_t n = fill(obs, shapes, FGO_ARRAY_SIZE(shapes));
	struct predict_result r;
	struct fgo_config q = shape_cfg(384, 384, 256, 0, 0, 0);

	T_EQ_INT("rank-1.1", predict_rank(obs, n, &q, 1, &r), FGO_OK);
	T_EQ_INT("rank-1.2", r.nshapes, 6);
	T_EQ_INT("rank-1.3", r.nnear, PREDICT_NEAR);
	T_CHECK("rank-1.4", r.count >= 1 && r.cand[0].cfg.blk_m == 64 && r.cand[0].cfg.blk_n == 64 &&
				    r.cand[0].cfg.blk_k == 32,
		"small M: expected 64x64x32 first, got %dx%dx%d", r.count ? r.cand[0].cfg.blk_m : 0,
		r.count ? r.cand[0].cfg.blk_n : 0, r.count ? r.cand[0].cfg.blk_k : 0);
	T_CHECK("rank-1.5", r.count && r.cand[0].cfg.m == 384 && r.cand[0].cfg.n == 384,
		"the candidate is not at the query's shape");
	T_NEAR("rank-1.6", r.count ? r.cand[0].score : 0, 1.0, 1e-12);
	T_CHECK("rank-1.7", r.count > 1 && r.cand[1].score > 1.0, "runner-up not slower: %g",
		r.count > 1 ? r.cand[1].score : 0);
	/* nearest first: 256x512x256 and 512x256x256 (0.72, ties by M), then 256^3 (0.83) */
	T_CHECK("rank-1.8", r.near[0].m == 256 && r.near[0].n == 512 && r.near[1].m == 512 &&
				    r.near[2].m == 256 && r.near[2].n == 256,
		"nearest %ldx%ld, %ldx%ld, %ldx%ld", r.near[0].m, r.near[0].n, r.near[1].m,
		r.near[1].n, r.near[2].m, r.near[2].n);
	T_NEAR("rank-1.9", r.near[0].distance, sqrt(log2(1.5) * log2(1.5) + log2(4 / 3.0) * log2(4 / 3.0)),
	       1e-12);
	T_NEAR("rank-1.10", predict_distance(256, 256, 256, 512, 256, 256), 1.0, 1e-12);
	T_CHECK("rank-1.11", r.count && r.cand[0].nsupport == PREDICT_NEAR && r.cand[0].coverage > 0.999 &&
				     r.cand[0].support[0].place == 1 && r.cand[0].support[0].rel == 1.0,
		"support of the winner: %d shapes, coverage %g", r.count ? r.cand[0].nsupport : 0,
		r.count ? r.cand[0].coverage : 0);
	predict_free(&r);

	/* large M: the large shapes are nearest and make 128x64x32 best */
	q = shape_cfg(3072, 768, 256, 0, 0, 0);
	predict_rank(obs, n, &q, 1, &r);
	T_CHECK("rank-2.1", r.count && r.cand[0].cfg.blk_m == 128 && r.cand[0].cfg.blk_n == 64,
		"large M: expected 128x64x32 first, got %dx%dx%d", r.count ? r.cand[0].cfg.blk_m : 0,
		r.count ? r.cand[0].cfg.blk_n : 0, r.count ? r.cand[0].cfg.blk_k : 0);
	predict_free(&r);

	/* a measured shape: its own runs are left out (leave-one-out) */
	q = shape_cfg(256, 256, 256, 0, 0, 0);
	predict_rank(obs, n, &q, 1, &r);
	T_EQ_INT("rank-3.1", r.nshapes, 5);
	T_CHECK("rank-3.2", r.near[0].distance > 0, "the query's own shape was used");
	predict_free(&r);

	/* another dtype has no data: nothing to rank */
	q.dtype = FGO_BF16;
	predict_rank(obs, n, &q, 1, &r);
	T_EQ_INT("rank-4.1", r.count, 0);
	T_EQ_INT("rank-4.2", r.nshapes, 0);
	predict_free(&r);
}

/* Tile efficiency: padding of edge tiles, and the last wave over compute units. */
static void test_efficiency(void)
{
	struct fgo_config c = shape_cfg(256, 256, 256, 64, 64, 32); /* N/W = 128 */
	T_NEAR("eff-1.1", predict_tile_efficiency(&c, 1), 1.0, 1e-12);
	c.m = 320; /* 5 tiles of 64 rows: no padding */
	T_NEAR("eff-1.2", predict_tile_efficiency(&c, 1), 1.0, 1e-12);
	c.blk_m = 128; /* 3 tiles of 128 for 320 rows: 320/384 */
	T_NEAR("eff-1.3", predict_tile_efficiency(&c, 1), 320.0 / 384.0, 1e-12);
	c = shape_cfg(256, 256, 256, 64, 64, 32); /* 4 x 2 = 8 tiles */
	T_NEAR("eff-1.4", predict_tile_efficiency(&c, 6), 8.0 / 12.0, 1e-12);
	T_NEAR("eff-1.5", predict_tile_efficiency(&c, 8), 1.0, 1e-12);

	/* a tile that wins by a little where it fits, but pads half its rows at
	 * the query, loses there */
	struct predict_obs obs[4];
	obs[0].cfg = shape_cfg(256, 256, 256, 128, 64, 32);
	obs[0].ms = 1.00;
	obs[1].cfg = shape_cfg(256, 256, 256, 64, 64, 32);
	obs[1].ms = 1.05;
	struct fgo_config q = shape_cfg(192, 256, 256, 0, 0, 0);
	struct predict_result r;
	predict_rank(obs, 2, &q, 1, &r);
	T_CHECK("eff-2.1", r.count == 2 && r.cand[0].cfg.blk_m == 64,
		"expected the 64-row tile first at M=192 (128 pads 256/192), got %d",
		r.count ? r.cand[0].cfg.blk_m : 0);
	predict_free(&r);
}

/* The model's ranking: runs made by a known cost model, each tile with a
 * quality of its own (its time the model's x the quality, as a real core's
 * tiles differ in ways no term has); the model with the right coefficients
 * and the near shapes' correction ranks the true best first at a shape
 * never measured, and a tile never measured near gets the shapes'
 * correction. */
static void test_model_rank(void)
{
	static const int mtiles[][2] = { { 64, 64 }, { 64, 128 }, { 128, 128 }, { 128, 256 } };
	static const double quality[] = { 1.3, 1.0, 0.9, 1.15 };
	static const long mshapes[][3] = { { 512, 4096, 4096 }, { 1024, 4096, 4096 },
					   { 2048, 4096, 8192 }, { 4096, 4096, 4096 },
					   { 128, 8192, 8192 } };
	struct predict_model pm;
	memset(&pm, 0, sizeof pm);
	pm.machine = (struct model_machine){ { 60, 790, 790 }, 3000, 0, 132 };
	pm.ncores = 1;
	snprintf(pm.core[0].core, sizeof pm.core[0].core, "wgmma");
	const double coef[MODEL_TERMS] = { 0.004, 1.3, 1.1, 0.08, 1.5, 0.6, 1.2, 1.4 };
	memcpy(pm.core[0].coef, coef, sizeof coef);
	struct predict_obs obs[64];
	size_t n = 0;
	for (size_t s = 0; s < FGO_ARRAY_SIZE(mshapes); s++)
		for (size_t t = 0; t < FGO_ARRAY_SIZE(mtiles); t++) {
			struct fgo_config c = shape_cfg(mshapes[s][0], mshapes[s][1], mshapes[s][2],
						       mtiles[t][0], mtiles[t][1], 64);
			c.dtype = FGO_BF16;
			c.world = 1;
			c.mma = FGO_MMA_WGMMA;
			c.num_warps = 8;
			c.num_stages = 4;
			obs[n].cfg = c;
			obs[n].ms = predict_model_ms(&pm, &c) * quality[t];
			n++;
		}
	struct fgo_config q = obs[0].cfg;
	q.m = 3072;
	q.n = 4096;
	q.k = 6144;
	/* the truth at the query */
	int best = 0;
	double best_ms = INFINITY;
	for (int t = 0; t < 4; t++) {
		struct fgo_config c = obs[t].cfg;
		c.m = q.m;
		c.n = q.n;
		c.k = q.k;
		double ms = predict_model_ms(&pm, &c) * quality[t];
		if (ms < best_ms) {
			best_ms = ms;
			best = t;
		}
	}
	struct predict_result r;
	int rc = predict_rank_model(obs, n, &q, &pm, &r);
	T_CHECK("model-rank-1.1", rc == FGO_OK && r.count == 4, "rc %d, %zu candidates", rc, r.count);
	T_CHECK("model-rank-1.2", r.count && r.cand[0].cfg.blk_m == mtiles[best][0] &&
		r.cand[0].cfg.blk_n == mtiles[best][1],
		"first %dx%d, truth %dx%d", r.count ? r.cand[0].cfg.blk_m : 0,
		r.count ? r.cand[0].cfg.blk_n : 0, mtiles[best][0], mtiles[best][1]);
	T_CHECK("model-rank-1.3", r.count && fabs(r.cand[0].predicted_ms / best_ms - 1) < 1e-9 &&
		r.cand[0].nsupport == PREDICT_NEAR,
		"predicted %g, truth %g", r.count ? r.cand[0].predicted_ms : 0, best_ms);
	predict_free(&r);

	/* 64x64 measured at one shape only, far away: ranked by the shapes'
	 * correction (the mean quality, 1.0875), not its own */
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (obs[i].cfg.blk_m != 64 || obs[i].cfg.blk_n != 64 || obs[i].cfg.m == 128)
			obs[m++] = obs[i];
	rc = predict_rank_model(obs, m, &q, &pm, &r);
	const struct predict_candidate *c64 = NULL;
	for (size_t i = 0; i < r.count; i++)
		if (r.cand[i].cfg.blk_m == 64 && r.cand[i].cfg.blk_n == 64)
			c64 = &r.cand[i];
	T_CHECK("model-rank-2.1", rc == FGO_OK && c64 && c64->nsupport == 0 &&
		fabs(c64->correction - exp((log(1.0) + log(0.9) + log(1.15)) / 3)) < 1e-9,
		"64x64: %s, correction %g", c64 ? "found" : "missing", c64 ? c64->correction : 0);
	predict_free(&r);

	/* a core without a fit: no candidates from it */
	snprintf(pm.core[0].core, sizeof pm.core[0].core, "mma16");
	rc = predict_rank_model(obs, m, &q, &pm, &r);
	T_CHECK("model-rank-3.1", rc == FGO_OK && r.count == 0, "%zu candidates", r.count);
	predict_free(&r);
}

static void set_fused(struct fgo_result *r, double ms)
{
	r->status = FGO_STATUS_OK;
	r->fused.n = 1;
	r->fused.ms = malloc(sizeof *r->fused.ms);
	r->fused.ms[0] = ms;
	r->fused.median = r->fused.min = r->fused.max = ms;
	r->tflops_total = 1;
}

/* predict_view on a synthetic store: stdout goes to a file we read back. */
static void test_view(void)
{
	char dir[] = "/tmp/fgo-test-predict-XXXXXX", db[128], out[160], err[512];
	if (!mkdtemp(dir)) {
		printf("FAIL view-setup: mkdtemp\n");
		return;
	}
	snprintf(db, sizeof db, "%s/p.db", dir);
	snprintf(out, sizeof out, "%s/out.csv", dir);
	struct fgo_store *st;
	int64_t sweep, run;
	int rc = store_open(db, FGO_STORE_WRITE, &st, err, sizeof err);
	struct fgo_sweep_info info = { .tag = "synthetic", .spec_name = "synthetic", .host = "h",
				       .version = FGO_VERSION, .backend = "cpu",
				       .devices = "cpu: 2 cores", .mpi_ranks = 2, .iterations = 10 };
	if (rc == FGO_OK)
		rc = store_sweep_begin(st, &info, &sweep, err, sizeof err);
	for (size_t s = 0; rc == FGO_OK && s < FGO_ARRAY_SIZE(shapes); s++)
		for (size_t t = 0; rc == FGO_OK && t < FGO_ARRAY_SIZE(tiles); t++) {
			struct fgo_config c = shape_cfg(shapes[s][0], shapes[s][1], shapes[s][2],
						       tiles[t][0], tiles[t][1], tiles[t][2]);
			struct fgo_result r;
			result_init(&r);
			set_fused(&r, truth(&c));
			rc = store_run_started(st, sweep, &c, 10, 2, &run, err, sizeof err);
			if (rc == FGO_OK)
				rc = store_run_finish(st, run, 0, &r, err, sizeof err);
			result_free(&r);
		}
	if (rc == FGO_OK)
		rc = store_sweep_end(st, sweep, "done", err, sizeof err);
	store_close(st);
	T_CHECK("view-1.1", rc == FGO_OK, "filling the synthetic store: %s", err);

	struct predict_view_opts o = { .db = db, .algorithm = "all_scatter", .m = 384, .n = 384,
				       .k = 256, .top = 2, .format = FGO_FMT_CSV };
	fflush(stdout);
	int saved = dup(1);
	FILE *f = freopen(out, "w", stdout);
	rc = f ? predict_view(&o) : -1;
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	T_EQ_INT("view-1.2", rc, FGO_OK);
	char text[4096] = "";
	f = fopen(out, "r");
	size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
	text[len] = 0;
	if (f)
		fclose(f);
	/* 30 runs of one core: a cost model fitted on the spot ranks them */
	T_CONTAINS("view-1.3", text, "#,config,predicted_us,vs_first,model_us,correction,coverage,measured near,reproduce\n1,64x64x32 s2 w4 g8 sm0+0,");
	T_CONTAINS("view-1.3b", text, ",100%,256x512x256 #1 +0.0%; 512x256x256 #1 +0.0%;"
		   " 256x256x256 #1 +0.0%; 2048x512x256 #2 +30.0%,mpirun");
	T_CONTAINS("view-1.4", text, "-m 384 -n 384 -k 256 --BLK_M 64 --BLK_N 64 --BLK_K 32");
	T_CHECK("view-1.5", strstr(text, "\n3,") == NULL, "--top 2 printed a third row: %s", text);

	/* another algorithm: nothing to predict from, a usage error */
	o.algorithm = "reduce_scatter";
	T_EQ_INT("view-2.1", predict_view(&o), FGO_EUSAGE);
	unlink(out);
	t_store_unlink(db);
	T_CHECK("view-cleanup", rmdir(dir) == 0, "%s left behind", dir);
}

int main(void)
{
	test_rank();
	test_efficiency();
	test_model_rank();
	test_view();
	T_DONE();
}
