/* calibrate_fit.c: the part of `fgobench calibrate` that fits the cost
 * model (src/model.h) of every GEMM core to the host's stored runs, after
 * measuring or alone (`calibrate --fit`), and stores a stated link
 * (--link-bw) first; cmd_calibrate.c measures. */
#include <stdio.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "fgo.h"
#include "store/store.h"
#include "tune/model_refit.h"

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
	store_close(st);
	return FGO_OK;
}
