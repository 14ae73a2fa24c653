/* test_world_fit_family.c: a Stream-K form's configuration with comm_sms 0
 * is its base family's mechanism in the multi-GPU model
 * (world_fit_family, src/tune/world_copy.c): its runs are fitted with the
 * base family's (world_refit groups them there, world_model_load judges
 * the base family on them), and world_rank predicts it from the base
 * family's coefficients; one with comm CTAs keeps its own family's and
 * the copy model. Table of cases, one line each. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/result.h"
#include "fgo.h"
#include "testlib.h"
#include "world_fixture.h"
#include "store/store.h"
#include "tune/predict_world.h"
#include "tune/world_copy.h"
#include "tune/world_rank.h"
#include "tune/world_refit.h"

static struct fgo_config sk(const char *algo, long m, int comm)
{
	struct fgo_config c = world_fixture_cfg(algo, m);
	if (strncmp(algo, "sk_", 3) == 0) {
		c.gemm_sms = 132 - comm;
		c.comm_sms = comm;
	}
	return c;
}

static void check_names(void)
{
	struct fgo_config c = sk("sk_all_reduce", 1024, 0);
	T_EQ_STR("name-1.1", world_fit_family(&c), "all_reduce_one_shot");
	c = sk("sk_all_scatter", 1024, 0);
	T_EQ_STR("name-1.2", world_fit_family(&c), "all_scatter");
	c = sk("sk_all_reduce", 1024, 8);
	T_EQ_STR("name-1.3", world_fit_family(&c), "sk_all_reduce");
	c = sk("sk_all_scatter", 1024, 16);
	T_EQ_STR("name-1.4", world_fit_family(&c), "sk_all_scatter");
	c = sk("all_scatter", 1024, 0);
	T_EQ_STR("name-1.5", world_fit_family(&c), "all_scatter");
	c = sk("all_reduce_one_shot", 1024, 0);
	c.comm_sms = 0;
	T_EQ_STR("name-1.6", world_fit_family(&c), "all_reduce_one_shot");
	/* sk_all_reduce's all-reduce is two-shot from W = 3 on (for C of 8 MB
	 * here): so is its base */
	c = sk("sk_all_reduce", 1024, 0);
	c.world = 2;
	T_EQ_STR("name-1.7", world_fit_family(&c), "all_reduce_one_shot");
	c.world = 3;
	T_EQ_STR("name-1.8", world_fit_family(&c), "all_reduce_two_shot");
	c.world = 4;
	T_EQ_STR("name-1.9", world_fit_family(&c), "all_reduce_two_shot");
	c = sk("sk_all_scatter", 1024, 0);
	c.world = 4;
	T_EQ_STR("name-1.10", world_fit_family(&c), "all_scatter");
	/* ... but one-shot while the bytes one-shot adds, (W - 1) (W - 2) / W
	 * x C, are under 1 MiB (SCHED_SK_TWO_SHOT): bf16 x 4096 columns, at
	 * W = 4 up to 85 rows (M = 64: 768 KiB added, M = 128: 1.5 MiB), at
	 * W = 3 up to 191 (M = 128: 682 KiB; M = 192: 1 MiB, two-shot) */
	static const struct { long m; int world; const char *base; } small[] = {
		{ 16, 4, "all_reduce_one_shot" }, { 64, 4, "all_reduce_one_shot" },
		{ 85, 4, "all_reduce_one_shot" }, { 86, 4, "all_reduce_two_shot" },
		{ 128, 4, "all_reduce_two_shot" }, { 128, 3, "all_reduce_one_shot" },
		{ 191, 3, "all_reduce_one_shot" }, { 192, 3, "all_reduce_two_shot" },
		{ 16, 8, "all_reduce_one_shot" }, { 32, 8, "all_reduce_two_shot" },
	};
	for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
		char name[32];
		c = sk("sk_all_reduce", small[i].m, 0);
		c.world = small[i].world;
		snprintf(name, sizeof name, "name-2.%zu", i + 1);
		T_EQ_STR(name, world_fit_family(&c), small[i].base);
	}
}

/* the base family's terms (a link at 300 GB/s) and the sk family's (its
 * link side a factor on the copy time, a larger wait): far apart, so a
 * candidate predicted with the wrong ones is far off */
static const double c_base[WORLD_TERMS] = { 1.0, 1 / 300.0, 1.0, 3, 1 / 3000.0 };
static const double c_sk[WORLD_TERMS] = { 1.1, 1.2, 0.3, 30, 1 / 3000.0 };
/* the comm CTAs' copy: one CTA's rate alone (few runs fit only that) */
static const double copy_truth[WORLD_COPY_TERMS] = { 0, 0, 1 / 10e6, 0 };

/* a run of cfg made with the terms its fit family has */
static void make_run(const struct world_gemm_model *gm, const struct fgo_config *cfg,
		     struct world_run *r)
{
	struct world_copy t = { .fitted = 1 };
	struct world_obs o;
	memcpy(t.coef, copy_truth, sizeof copy_truth);
	r->cfg = *cfg;
	r->gemm_ms = world_gemm_model_ms(gm, cfg);
	world_obs_of(cfg, r->gemm_ms, world_units(cfg), &o);
	r->comm_ms = o.copy_ms = world_copy_ms(&t, cfg);
	r->ms = world_time(&o, world_copy_family(cfg) ? c_sk : c_base);
}

static void check_rank(void)
{
	static const long shapes[] = { 512, 1024, 4096, 8192 };
	struct world_gemm_model gm;
	struct world_run runs[8];
	size_t n = 0;
	world_fixture_gemm_model(&gm);
	for (int s = 0; s < 4; s++) {
		struct fgo_config c0 = sk("sk_all_reduce", shapes[s], 0),
				  c8 = sk("sk_all_reduce", shapes[s], 8);
		make_run(&gm, &c0, &runs[n++]);
		make_run(&gm, &c8, &runs[n++]);
	}
	T_CHECK("rank-0.1", runs[0].ms > 0 && runs[1].ms > 0 && runs[0].comm_ms == 0 &&
		runs[1].comm_ms > 0, "c0 %g ms (comm %g), c8 %g ms (comm %g)", runs[0].ms,
		runs[0].comm_ms, runs[1].ms, runs[1].comm_ms);

	/* held out: M = 2048; each candidate's time is its own mechanism's */
	struct fgo_config q = sk("sk_all_reduce", 2048, 8);
	struct world_cand *cand = NULL;
	size_t nc = 0;
	int rc = world_rank(runs, n, &q, &gm, c_sk, c_base, &cand, &nc);
	T_CHECK("rank-1.1", rc == FGO_OK && nc == 2, "rc %d, %zu ranked", rc, nc);
	double want0 = 0, want8 = 0, got0 = 0, got8 = 0;
	struct world_run at;
	struct fgo_config a0 = sk("sk_all_reduce", 2048, 0), a8 = sk("sk_all_reduce", 2048, 8);
	make_run(&gm, &a0, &at);
	want0 = at.ms;
	make_run(&gm, &a8, &at);
	want8 = at.ms;
	for (size_t i = 0; i < nc; i++)
		*(cand[i].cfg.comm_sms ? &got8 : &got0) = cand[i].fused_ms;
	T_CHECK("rank-1.2", fabs(got0 / want0 - 1) < 1e-6, "comm_sms 0: %g ms, its base family's %g",
		got0, want0);
	T_CHECK("rank-1.3", fabs(got8 / want8 - 1) < 1e-6, "comm_sms 8: %g ms, the copy model's %g",
		got8, want8);
	free(cand);

	/* without the base family's terms every candidate takes the sk
	 * family's: comm_sms 0 is then far off (its link at 1 GB/s), comm_sms
	 * 8 unchanged */
	rc = world_rank(runs, n, &q, &gm, c_sk, NULL, &cand, &nc);
	double off0 = 0, off8 = 0;
	for (size_t i = 0; rc == FGO_OK && i < nc; i++)
		*(cand[i].cfg.comm_sms ? &off8 : &off0) = cand[i].fused_ms;
	T_CHECK("rank-2.1", rc == FGO_OK && fabs(off0 / want0 - 1) > 0.25 &&
		fabs(off8 / want8 - 1) < 1e-6, "comm_sms 0 %g (true %g), comm_sms 8 %g (true %g)",
		off0, want0, off8, want8);
	free(cand);
}

/* One ok run of cfg at W=2 on the cpu backend: fused, GEMM and comm
 * times as given (comm 0: none measured). */
static int put_run(struct fgo_store *st, int64_t sweep, const struct world_run *w, char *err,
		   size_t len)
{
	struct fgo_result r;
	int64_t run;
	result_init(&r);
	r.status = FGO_STATUS_OK;
	struct fgo_timing *t[3] = { &r.fused, &r.gemm, &r.comm };
	double v[3] = { w->ms, w->gemm_ms, w->comm_ms };
	for (int i = 0; i < 3; i++) {
		if (!(v[i] > 0))
			continue; /* not measured */
		if (!(t[i]->ms = malloc(sizeof *t[i]->ms)))
			return FGO_EFAIL;
		t[i]->n = 1;
		t[i]->ms[0] = t[i]->median = t[i]->min = t[i]->max = v[i];
	}
	r.tflops_total = 1;
	int rc = store_run_started(st, sweep, &w->cfg, 10, 2, &run, err, len);
	if (rc == FGO_OK)
		rc = store_run_finish(st, run, 0, &r, err, len);
	result_free(&r);
	return rc;
}

/* A store with 12 runs of all_reduce_one_shot, 12 of sk_all_reduce with
 * comm_sms 0 and 12 with comm_sms 8: the fit has 24 runs of the base
 * family and 12 of sk_all_reduce */
static void check_fit(void)
{
	char dir[] = "/tmp/fgo-test-wff-XXXXXX", db[128], err[512] = "";
	if (!mkdtemp(dir)) {
		printf("FAIL fit-setup: mkdtemp\n");
		return;
	}
	snprintf(db, sizeof db, "%s/w.db", dir);
	struct world_gemm_model gm;
	struct fgo_store *st = NULL;
	int64_t sweep;
	world_fixture_gemm_model(&gm);
	int rc = store_open(db, FGO_STORE_WRITE, &st, err, sizeof err);
	struct fgo_sweep_info info = { .tag = "synthetic", .spec_name = "synthetic", .host = "h",
				       .version = FGO_VERSION, .backend = "cpu",
				       .devices = "cpu: 2 cores", .mpi_ranks = 2, .iterations = 10 };
	if (rc == FGO_OK)
		rc = store_sweep_begin(st, &info, &sweep, err, sizeof err);
	static const long ms_[] = { 256, 512, 1024, 2048, 4096, 8192 };
	static const long ns_[] = { 4096, 8192 };
	for (int s = 0; rc == FGO_OK && s < 6; s++)
		for (int b = 0; rc == FGO_OK && b < 2; b++) {
			struct world_run r;
			struct fgo_config c[3] = { sk("all_reduce_one_shot", ms_[s], 0),
						   sk("sk_all_reduce", ms_[s], 0),
						   sk("sk_all_reduce", ms_[s], 8) };
			for (int i = 0; rc == FGO_OK && i < 3; i++) {
				c[i].n = ns_[b];
				make_run(&gm, &c[i], &r);
				rc = put_run(st, sweep, &r, err, sizeof err);
			}
		}
	if (rc == FGO_OK)
		rc = store_sweep_end(st, sweep, "done", err, sizeof err);
	T_CHECK("fit-0.1", rc == FGO_OK, "filling the store: %s", err);

	struct world_refit fits[WORLD_REFITS_MAX];
	int nf = 0;
	if (rc == FGO_OK)
		rc = world_refit(st, "h", "cpu", NULL, fits, WORLD_REFITS_MAX, &nf, err, sizeof err);
	size_t base_runs = 0, sk_runs = 0;
	int base_fitted = 0, sk_fitted = 0, others = 0;
	for (int i = 0; rc == FGO_OK && i < nf; i++) {
		if (!strcmp(fits[i].algorithm, "all_reduce_one_shot")) {
			base_runs = fits[i].fit.runs;
			base_fitted = fits[i].fitted;
		} else if (!strcmp(fits[i].algorithm, "sk_all_reduce")) {
			sk_runs = fits[i].fit.runs;
			sk_fitted = fits[i].fitted;
		} else {
			others++;
		}
	}
	T_CHECK("fit-1.1", rc == FGO_OK && nf == 2 && others == 0, "rc %d (%s), %d fits", rc, err,
		nf);
	T_CHECK("fit-1.2", base_runs == 24 && base_fitted, "all_reduce_one_shot: %zu runs, fitted %d",
		base_runs, base_fitted);
	T_CHECK("fit-1.3", sk_runs == 12 && sk_fitted, "sk_all_reduce: %zu runs, fitted %d", sk_runs,
		sk_fitted);

	/* best --predict --world judges each family on the runs it fits */
	struct world_model wm;
	if (rc == FGO_OK)
		rc = world_model_load(st, "h", "cpu", "all_reduce_one_shot", 2, 300, 3000, &wm, err,
				      sizeof err);
	T_CHECK("fit-2.1", rc == FGO_OK && wm.err.runs == 24, "rc %d, %zu runs judged", rc,
		rc == FGO_OK ? wm.err.runs : 0);
	if (rc == FGO_OK)
		rc = world_model_load(st, "h", "cpu", "sk_all_reduce", 2, 300, 3000, &wm, err,
				      sizeof err);
	T_CHECK("fit-2.2", rc == FGO_OK && wm.err.runs == 12, "rc %d, %zu runs judged", rc,
		rc == FGO_OK ? wm.err.runs : 0);
	store_close(st);
	t_store_unlink(db);
	T_CHECK("fit-cleanup", rmdir(dir) == 0, "%s left behind", dir);
}

int main(void)
{
	check_names();
	check_rank();
	check_fit();
	T_DONE();
}
