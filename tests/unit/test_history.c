/* test_history.c: the change-point fit (changepoint.h) on synthetic series,
 * table-driven, and history_load (history.h) on a store of ten synthetic
 * nights written through the store API: the step is found at the night it
 * was put, with its size and its revision range; other specs and other
 * configurations stay out. */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "fgo.h"
#include "stats.h"
#include "store/store.h"
#include "testlib.h"
#include "views/changepoint.h"
#include "views/history.h"

#define NMAX 64

/* A deterministic wobble in [-amp, +amp]: no two neighbours alike, no
 * random seed to make a failure hard to repeat. */
static double wobble(size_t i, double amp)
{
	static const double pattern[] = { 0.3, -0.8, 1.0, -0.2, -1.0, 0.6, 0.1, -0.5, 0.9, -0.7 };
	return amp * pattern[i % FGO_ARRAY_SIZE(pattern)];
}

struct fit_case {
	const char *id;
	size_t n;
	double noise;            /* relative wobble of every night */
	size_t at[3];            /* nights (0-based) where the level changes, 0 = none */
	double factor[3];        /* the level after each change, relative to 1 */
	double threshold_pct;    /* steps listed above this */
	size_t want_steps;       /* listed steps expected */
};

static const struct fit_case fit_cases[] = {
	{ "cp-1.1 flat, no noise", 10, 0, { 0 }, { 0 }, 5, 0 },
	{ "cp-1.2 flat, 1% noise", 10, 0.01, { 0 }, { 0 }, 5, 0 },
	{ "cp-1.3 flat, 1% noise, 30 nights", 30, 0.01, { 0 }, { 0 }, 5, 0 },
	{ "cp-2.1 +20% at night 7 of 10", 10, 0.01, { 6 }, { 1.2 }, 5, 1 },
	{ "cp-2.2 -15% at night 4 of 10", 10, 0.01, { 3 }, { 0.85 }, 5, 1 },
	{ "cp-2.3 +10% at night 2 of 10", 10, 0.005, { 1 }, { 1.1 }, 5, 1 },
	{ "cp-2.4 +30% on the last night", 10, 0.01, { 9 }, { 1.3 }, 5, 1 },
	{ "cp-2.5 +8% at night 16 of 30", 30, 0.01, { 15 }, { 1.08 }, 5, 1 },
	{ "cp-3.1 up at 5, back down at 9 of 12", 12, 0.01, { 4, 8 }, { 1.25, 1.0 }, 5, 2 },
	{ "cp-3.2 two steps up", 15, 0.01, { 5, 10 }, { 1.1, 1.25 }, 5, 2 },
	{ "cp-4.1 +3% step stays under a 5% threshold", 10, 0.002, { 5 }, { 1.03 }, 5, 0 },
	{ "cp-4.2 the same step over a 2% threshold", 10, 0.002, { 5 }, { 1.03 }, 2, 1 },
};

static void series(const struct fit_case *c, double *y)
{
	double level = 1.0;
	for (size_t i = 0; i < c->n; i++) {
		for (int j = 0; j < 3; j++)
			if (c->at[j] && c->at[j] == i)
				level = c->factor[j];
		y[i] = level * (1 + wobble(i, c->noise));
	}
}

static void check_fit_case(const struct fit_case *c)
{
	double y[NMAX];
	struct cp_fit f;
	char id[128];
	series(c, y);
	int rc = changepoint_fit(y, NULL, c->n, 0, &f);
	snprintf(id, sizeof id, "%s: fits", c->id);
	T_EQ_INT(id, rc, 0);
	size_t listed = 0, matched = 0;
	for (size_t j = 0; j < f.nsteps; j++) {
		if (fabs(f.steps[j].change_pct) <= c->threshold_pct)
			continue;
		listed++;
		for (int k = 0; k < 3; k++)
			matched += c->at[k] && f.steps[j].at == c->at[k];
	}
	snprintf(id, sizeof id, "%s: steps listed", c->id);
	T_EQ_INT(id, listed, c->want_steps);
	snprintf(id, sizeof id, "%s: at the nights put", c->id);
	T_EQ_INT(id, matched, c->want_steps);
	changepoint_free(&f);
}

/* The fitted levels are the segment means and the step's size is theirs. */
static void check_levels(void)
{
	double y[10];
	for (int i = 0; i < 10; i++)
		y[i] = i < 6 ? 2.0 : 2.5;
	struct cp_fit f;
	T_EQ_INT("cp-5.1 exact step fits", changepoint_fit(y, NULL, 10, 0, &f), 0);
	T_EQ_INT("cp-5.2 one boundary", f.nsteps, 1);
	if (f.nsteps == 1) {
		T_EQ_INT("cp-5.3 at night 7", f.steps[0].at, 6);
		T_NEAR("cp-5.4 level before", f.steps[0].before, 2.0, 1e-12);
		T_NEAR("cp-5.5 level after", f.steps[0].after, 2.5, 1e-12);
		T_NEAR("cp-5.6 change", f.steps[0].change_pct, 25.0, 1e-9);
	}
	T_NEAR("cp-5.7 level of night 1", f.level[0], 2.0, 1e-12);
	T_NEAR("cp-5.8 level of night 10", f.level[9], 2.5, 1e-12);
	changepoint_free(&f);

	/* a huge penalty buys no step at all */
	T_EQ_INT("cp-5.9 stiff fit", changepoint_fit(y, NULL, 10, 1e12, &f), 0);
	T_EQ_INT("cp-5.10 stiff fit has no step", f.nsteps, 0);
	T_NEAR("cp-5.11 stiff level is the mean", f.level[3], 2.2, 1e-12);
	changepoint_free(&f);
}

/* One odd night: believed when its spread is small, discounted when large. */
static void check_spread_weights(void)
{
	double y[10], tight[10], loose[10];
	for (int i = 0; i < 10; i++) {
		y[i] = 1.0 + wobble((size_t)i, 0.005);
		tight[i] = loose[i] = 0.002;
	}
	y[4] = 1.3;
	loose[4] = 1.0; /* that night's samples were all over the place */
	struct cp_fit f;
	changepoint_fit(y, tight, 10, 0, &f);
	T_EQ_INT("cp-6.1 a sure outlier is a step up and down", f.nsteps, 2);
	changepoint_free(&f);
	changepoint_fit(y, loose, 10, 0, &f);
	T_EQ_INT("cp-6.2 an unsure outlier is no step", f.nsteps, 0);
	changepoint_free(&f);
}

static void check_edges(void)
{
	struct cp_fit f;
	double one = 3.0, bad[3] = { 1, NAN, 1 };
	T_EQ_INT("cp-7.1 no nights", changepoint_fit(NULL, NULL, 0, 0, &f), 0);
	T_EQ_INT("cp-7.2 no nights, no steps", f.nsteps, 0);
	changepoint_free(&f);
	T_EQ_INT("cp-7.3 one night", changepoint_fit(&one, NULL, 1, 0, &f), 0);
	T_EQ_INT("cp-7.4 one night, no steps", f.nsteps, 0);
	T_NEAR("cp-7.5 one night's level", f.level[0], 3.0, 0);
	changepoint_free(&f);
	T_EQ_INT("cp-7.6 NaN refused", changepoint_fit(bad, NULL, 3, 0, &f), -1);
	T_NEAR("cp-7.7 default penalty of 10 nights", changepoint_default_penalty(10),
	       3 * log(10.0) + 3, 1e-12);
	T_NEAR("cp-7.8 default penalty of one night", changepoint_default_penalty(1), 3, 0);

	double q[] = { 4, 1, 3, 2, 5 };
	T_NEAR("cp-7.9 median", history_quantile_sorted(q, 5, 0.5), 3, 0);
	T_NEAR("cp-7.10 first quartile", history_quantile_sorted(q, 5, 0.25), 2, 0);
	T_NEAR("cp-7.11 quartile between samples", history_quantile_sorted(q, 4, 0.5), 2.5, 0);
}

/* ---- history_load on a synthetic store ---- */

static char dir[64], db_path[128];

static struct fgo_config config_blk(int blk_m)
{
	struct fgo_config c;
	config_defaults(&c);
	snprintf(c.algorithm, sizeof c.algorithm, "all_scatter");
	c.dtype = FGO_FP16;
	c.world = 2;
	c.m = 256;
	c.n = 256;
	c.k = 256;
	c.blk_m = blk_m;
	c.blk_n = 64;
	c.blk_k = 32;
	return c;
}

/* Stores one ok run of cfg with 12 samples around median_ms. */
static int put_run(struct fgo_store *st, int64_t sweep, const struct fgo_config *cfg,
		   double median_ms, size_t night)
{
	char err[256];
	int64_t run;
	double ms[12];
	struct fgo_result r;
	for (size_t i = 0; i < 12; i++)
		ms[i] = median_ms * (1 + wobble(i + night, 0.01));
	result_init(&r);
	r.status = FGO_STATUS_OK;
	r.iterations = 12;
	r.fused.n = 12;
	r.fused.ms = malloc(sizeof ms);
	memcpy(r.fused.ms, ms, sizeof ms);
	r.fused.median = stats_median(ms, 12);
	r.fused.min = stats_min(ms, 12);
	r.fused.max = stats_max(ms, 12);
	int rc = store_run_started(st, sweep, cfg, 12, 1, &run, err, sizeof err) ||
		 store_run_finish(st, run, 0, &r, err, sizeof err);
	if (rc)
		printf("note: storing a run failed: %s\n", err);
	result_free(&r);
	return rc;
}

/* Ten nights of spec "nightly" on host "lab": BLK_M 32 at 2.0 ms, +25%
 * from night 7 (revision rev-07 brought it); BLK_M 64 at 2.2 ms, steady.
 * In between, sweeps of another spec and of another host, which hold a
 * far faster run of the same configuration and must not be followed. */
static int make_store(void)
{
	char err[256];
	struct fgo_store *st;
	snprintf(dir, sizeof dir, "/tmp/fgo-test-history.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(db_path, sizeof db_path, "%s/h.db", dir);
	if (store_open(db_path, FGO_STORE_WRITE, &st, err, sizeof err)) {
		printf("note: %s\n", err);
		return -1;
	}
	struct fgo_config c32 = config_blk(32), c64 = config_blk(64);
	int rc = 0;
	for (size_t night = 1; night <= 10 && !rc; night++) {
		char tag[32], rev[32];
		snprintf(tag, sizeof tag, "nightly-%02zu", night);
		snprintf(rev, sizeof rev, "rev-%02zu", night);
		struct fgo_sweep_info in = {
			.tag = tag, .spec_name = "nightly", .spec_hash = "aaaa1111bbbb2222",
			.host = "lab", .git_revision = rev, .version = "0.1.0", .backend = "cpu",
			.mpi_ranks = 2, .iterations = 12, .warmup = 1,
		};
		int64_t sweep;
		rc = store_sweep_begin(st, &in, &sweep, err, sizeof err) ||
		     put_run(st, sweep, &c32, night >= 7 ? 2.5 : 2.0, night) ||
		     put_run(st, sweep, &c64, 2.2, night) ||
		     store_sweep_end(st, sweep, "done", err, sizeof err);
		if (night == 5 && !rc) {
			struct fgo_sweep_info other = in;
			other.spec_hash = "cccc3333dddd4444";
			other.spec_name = "other";
			rc = store_sweep_begin(st, &other, &sweep, err, sizeof err) ||
			     put_run(st, sweep, &c32, 0.5, night);
			other = in;
			other.host = "elsewhere";
			rc = rc || store_sweep_begin(st, &other, &sweep, err, sizeof err) ||
			     put_run(st, sweep, &c32, 0.5, night);
		}
	}
	store_close(st);
	return rc;
}

static void check_load(void)
{
	struct history_query q;
	struct history h;
	char err[512];

	history_query_defaults(&q);
	q.db = db_path;
	q.algorithm = "all_scatter";
	q.m = q.n = q.k = 256;
	q.config = "32x64x32 s2 w4 g8 sm0+0";
	int rc = history_load(&q, &h, err, sizeof err);
	T_CHECK("hist-1.1 loads", rc == FGO_OK, "rc %d: %s", rc, err);
	T_EQ_INT("hist-1.2 ten nights, other specs and hosts left out", h.count, 10);
	T_EQ_STR("hist-1.3 spec", h.spec_name, "nightly");
	T_EQ_STR("hist-1.4 host", h.host, "lab");
	T_EQ_INT("hist-1.5 one step", h.nsteps, 1);
	if (h.nsteps == 1 && h.count == 10) {
		T_EQ_INT("hist-1.6 the step starts at night 7", h.steps[0].at + 1, 7);
		T_NEAR("hist-1.7 its size", h.steps[0].change_pct, 25, 1.0);
		T_EQ_STR("hist-1.8 revision before", h.nights[h.steps[0].at - 1].revision, "rev-06");
		T_EQ_STR("hist-1.9 revision after", h.nights[h.steps[0].at].revision, "rev-07");
		T_EQ_INT("hist-1.10 night 7 marked", h.nights[6].step, 1);
		T_EQ_INT("hist-1.11 night 6 not marked", h.nights[5].step, 0);
		T_EQ_STR("hist-1.12 night tag", h.nights[6].tag, "nightly-07");
		T_EQ_INT("hist-1.13 samples", h.nights[0].samples, 12);
		T_CHECK("hist-1.14 quartiles around the median",
			h.nights[0].q1 <= h.nights[0].median && h.nights[0].median <= h.nights[0].q3 &&
				h.nights[0].min <= h.nights[0].q1 && h.nights[0].q3 <= h.nights[0].max,
			"min %g q1 %g median %g q3 %g max %g", h.nights[0].min, h.nights[0].q1,
			h.nights[0].median, h.nights[0].q3, h.nights[0].max);
	}
	history_free(&h);

	/* the steady configuration: no step */
	q.config = "all_scatter/fp16/w2/m256n256k256/b64x64x32/s2/wp4/mma16/g8/sm0+0/c0x0";
	rc = history_load(&q, &h, err, sizeof err);
	T_CHECK("hist-2.1 loads by config key", rc == FGO_OK, "rc %d: %s", rc, err);
	T_EQ_INT("hist-2.2 ten nights", h.count, 10);
	T_EQ_INT("hist-2.3 no step", h.nsteps, 0);
	history_free(&h);

	/* each night's best: BLK_M 32 until night 6, then BLK_M 64 (2.5 > 2.2) */
	q.config = NULL;
	rc = history_load(&q, &h, err, sizeof err);
	T_CHECK("hist-3.1 loads the best", rc == FGO_OK, "rc %d: %s", rc, err);
	if (rc == FGO_OK && h.count == 10) {
		T_EQ_INT("hist-3.2 night 1's best", h.nights[0].cfg.blk_m, 32);
		T_EQ_INT("hist-3.3 night 7's best", h.nights[6].cfg.blk_m, 64);
		T_EQ_INT("hist-3.4 the best got 10% slower at night 7", h.nsteps, 1);
		if (h.nsteps == 1)
			T_NEAR("hist-3.5 by 10%", h.steps[0].change_pct, 10, 1.0);
	}
	history_free(&h);

	/* the other spec, by name: one night, the fast one */
	q.spec = "other";
	rc = history_load(&q, &h, err, sizeof err);
	T_CHECK("hist-4.1 another spec by name", rc == FGO_OK && h.count == 1 &&
		fabs(h.nights[0].median - 0.5) < 0.02, "rc %d, %zu nights: %s", rc, h.count, err);
	history_free(&h);
	q.spec = "cccc33";
	rc = history_load(&q, &h, err, sizeof err);
	T_CHECK("hist-4.2 another spec by hash prefix", rc == FGO_OK && h.count == 1,
		"rc %d, %zu nights: %s", rc, h.count, err);
	history_free(&h);

	static const struct {
		const char *id, *spec, *config, *algorithm, *want;
		long m;
	} bad[] = {
		{ "hist-5.1 unknown spec", "nope", NULL, "all_scatter", "no sweep of spec \"nope\"", 256 },
		{ "hist-5.2 unknown config", NULL, "1x1x1 s1 w1 g1 sm0+0", "all_scatter",
		  "no ok run of configuration", 256 },
		{ "hist-5.3 unknown shape", NULL, NULL, "all_scatter", "no ok run of all_scatter", 999 },
		{ "hist-5.4 unknown algorithm", NULL, NULL, "gemm", "no ok run of gemm", 256 },
	};
	for (size_t i = 0; i < FGO_ARRAY_SIZE(bad); i++) {
		q.spec = bad[i].spec;
		q.config = bad[i].config;
		q.algorithm = bad[i].algorithm;
		q.m = bad[i].m;
		rc = history_load(&q, &h, err, sizeof err);
		T_CHECK(bad[i].id, rc == FGO_EUSAGE && strstr(err, bad[i].want),
			"expected exit 2 and \"%s\", got %d and \"%s\"", bad[i].want, rc, err);
		history_free(&h);
	}
}

int main(void)
{
	for (size_t i = 0; i < FGO_ARRAY_SIZE(fit_cases); i++)
		check_fit_case(&fit_cases[i]);
	check_levels();
	check_spread_weights();
	check_edges();
	if (make_store() == 0) {
		check_load();
	} else {
		T_CHECK("hist-0 synthetic store", 0, "could not build the store in %s", dir);
	}
	unlink(db_path);
	rmdir(dir);
	T_DONE();
}
