/* calibrate_fit.c: the part of `fgobench calibrate` that fits the cost
 * model (src/model.h) of every GEMM core to the host's stored runs, then
 * the multi-GPU terms (src/tune/predict_world.h) of every fused family at
 * every W > 1 with runs on W devices, after measuring or alone (`calibrate
 * --fit`), and stores a stated link (--link-bw) first; cmd_calibrate.c
 * measures. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "fgo.h"
#include "store/store.h"
#include "tune/model_refit.h"
#include "tune/world_copy.h"
#include "tune/world_refit.h"

/* A rate's coefficient (ms per ms at 1 GB/s) as GB/s, "hidden" at 0. */
static void rate_text(double coef, char *out, size_t len)
{
	if (coef > 0)
		snprintf(out, len, "%.3g GB/s", 1 / coef);
	else
		snprintf(out, len, "hidden");
}

/* One line per (family, W): the link's achieved rate, the exposed tile,
 * the waits, the reduction's reads, each "-" where the runs could not pin
 * it (the ceilings' value holds), and the error. */
static void print_world_fit(const struct world_refit *r)
{
	const struct world_fit *f = &r->fit;
	char terms[WORLD_TERMS][48];
	for (int t = 0; t < WORLD_TERMS; t++)
		snprintf(terms[t], sizeof terms[t], "-");
	if (f->fitted & (1u << WT_GEMM))
		snprintf(terms[WT_GEMM], sizeof terms[0], "%.3g", f->coef[WT_GEMM]);
	/* a rate fitted at 0 ms per byte: the runs saw no cost (all hidden) */
	struct fgo_config c;
	config_defaults(&c);
	snprintf(c.algorithm, sizeof c.algorithm, "%.31s", r->algorithm);
	c.world = f->world;
	c.comm_sms = 1;
	if ((f->fitted & (1u << WT_LINK)) && world_copy_family(&c)) /* a factor on the copy time */
		snprintf(terms[WT_LINK], sizeof terms[0], "x%.3g of the comm-only time",
			 f->coef[WT_LINK]);
	else if (f->fitted & (1u << WT_LINK))
		rate_text(f->coef[WT_LINK], terms[WT_LINK], sizeof terms[0]);
	if (f->fitted & (1u << WT_TILE))
		snprintf(terms[WT_TILE], sizeof terms[0], "%.3g", f->coef[WT_TILE]);
	/* the Stream-K forms' wait is one output tile's (predict_world.h) */
	if ((f->fitted & (1u << WT_WAIT)) && world_copy_family(&c))
		snprintf(terms[WT_WAIT], sizeof terms[0], "%.3g us a 128x128x8192 tile",
			 f->coef[WT_WAIT]);
	else if (f->fitted & (1u << WT_WAIT))
		snprintf(terms[WT_WAIT], sizeof terms[0], "%.3g us", f->coef[WT_WAIT]);
	if (f->fitted & (1u << WT_REDUCE))
		rate_text(f->coef[WT_REDUCE], terms[WT_REDUCE], sizeof terms[0]);
	/* the link's latency (us a run) and the share of the shorter side left
	 * exposed, where the runs pinned them (predict_world.h) */
	char extra[96] = "";
	if (f->fitted & (1u << WT_LATENCY))
		snprintf(extra, sizeof extra, ", link latency %.3g us", f->coef[WT_LATENCY]);
	if (f->fitted & (1u << WT_SHARE))
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra), ", exposed share x%.3g",
			 f->coef[WT_SHARE]);
	printf("world %s W=%d %zu runs: error rms %.1f%%, max %.1f%%; gemm x%s, link %s, tile x%s,"
	       " wait %s, reduce reads %s%s\n",
	       r->algorithm, f->world, f->runs, 100 * f->rms_rel_err, 100 * f->max_rel_err,
	       terms[WT_GEMM], terms[WT_LINK], terms[WT_TILE], terms[WT_WAIT], terms[WT_REDUCE], extra);
}

/* The multi-GPU terms of every (family, W) of host and backend. */
static int fit_worlds(struct fgo_store *st, const char *host, const char *backend,
		      const char *source)
{
	struct world_refit fits[WORLD_REFITS_MAX];
	char err[512];
	int n = 0;
	if (world_refit(st, host, backend, source, fits, WORLD_REFITS_MAX, &n, err, sizeof err) !=
	    FGO_OK) {
		error("%s", err);
		return FGO_EFAIL;
	}
	/* the vendor collective from the runs' own baselines: what best
	 * --predict --world uses where calibrate measured no curve */
	struct coll_curve curves[COLL_CURVES_MAX];
	int ncurves = 0, runs[COLL_CURVES_MAX];
	double rms[COLL_CURVES_MAX];
	if (world_curves_fit(st, host, backend, curves, COLL_CURVES_MAX, &ncurves, runs, rms, err,
			     sizeof err) != FGO_OK) {
		error("%s", err);
		return FGO_EFAIL;
	}
	for (int i = 0; i < ncurves; i++) {
		const struct coll_curve *c = &curves[i];
		int last = c->n - 1;
		double per_byte = (c->seconds[last] - c->seconds[0]) / (c->bytes[last] - c->bytes[0]);
		printf("collective %s W=%d fitted to %d runs' baselines (t_bulk - t_gemm; used where"
		       " calibrate measured no curve): latency %.1f us, %.3g GB/s, error rms %.1f%%\n",
		       fgo_collective_names[c->kind], c->world, runs[i],
		       (c->seconds[0] - per_byte * c->bytes[0]) * 1e6,
		       per_byte > 0 ? 1e-9 / per_byte : 0, 100 * rms[i]);
	}
	for (int i = 0; i < n; i++) {
		if (fits[i].fitted)
			print_world_fit(&fits[i]);
		else
			note("multi-GPU terms of %s at W=%d: %zu runs with their GEMM timed, too few to"
			     " fit (%d needed)",
			     fits[i].algorithm, fits[i].fit.world, fits[i].fit.runs, WORLD_MIN_RUNS);
	}
	return FGO_OK;
}

/* The stated link (--link-bw, when > 0), then the cost model of every core
 * fitted to this host's stored runs, stored and printed. */
int calibrate_fit_models(const char *db, const char *backend, const char *machine, double link_bw,
		      const char *source)
{
	char host[128] = "unknown", err[512];
	if (machine)
		snprintf(host, sizeof host, "%s", machine);
	else
		gethostname(host, sizeof host - 1);
	struct fgo_store *st;
	struct model_core_fit fits[MODEL_CORES];
	int n = 0;
	if (store_open(db, FGO_STORE_WRITE, &st, err, sizeof err)) {
		error("%s", err);
		return FGO_EUSAGE;
	}
	int rc = FGO_OK;
	if (link_bw > 0) {
		rc = store_ceiling_put(st, host, backend, "link_bw", "", link_bw, "GB/s stated", err,
				       sizeof err);
		if (rc == FGO_OK)
			printf("%-12s %-6s %12.4g  GB/s rank to rank, stated (--link-bw)\n", "link_bw",
			       "-", link_bw);
	}
	if (rc == FGO_OK)
		rc = model_refit(st, host, backend, source, fits, &n, err, sizeof err);
	if (rc != FGO_OK) {
		error("%s", err);
		store_close(st);
		return rc;
	}
	if (n == 0)
		note("no ok runs of %s (%s backend) in %s to fit the cost model to yet: sweep, then"
		     " `fgobench calibrate --fit`",
		     host, backend, db);
	for (int i = 0; i < n; i++) {
		const struct model_core_fit *f = &fits[i];
		if (!f->fitted) {
			note("cost model %s: %zu runs, too few to fit (%d needed)", f->core, f->fit.runs,
			     MODEL_MIN_RUNS);
			continue;
		}
		printf("model %-6s %zu runs: error rms %.1f%%, median %.1f%%, max %.1f%%; coefficients",
		       f->core, f->fit.runs, 100 * f->fit.rms_rel_err, 100 * f->fit.median_rel_err,
		       100 * f->fit.max_rel_err);
		for (int t = 0; t < MODEL_TERMS; t++)
			printf(" %s %.3g", model_term_names[t], f->fit.coef[t]);
		printf("\n");
	}
	rc = fit_worlds(st, host, backend, source);
	store_close(st);
	return rc;
}
