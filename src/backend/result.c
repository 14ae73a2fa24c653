/* result.c: the result of one run (see result.h): status names as the store
 * writes them, a clean initial state, and freeing the per-iteration samples. */
#include "backend/result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"

/* Indexed by enum fgo_status; the strings are the CHECK values of
 * runs.status in db/schema.sql. */
static const char *const status_names[] = {
	[FGO_STARTED] = "started",
	[FGO_STATUS_OK] = "ok",
	[FGO_INVALID] = "invalid",
	[FGO_MISMATCH] = "mismatch",
	[FGO_FAILED] = "failed",
	[FGO_TIMEOUT] = "timeout",
	[FGO_CRASHED] = "crashed",
	[FGO_HUNG] = "hung",
	[FGO_CORRUPTED] = "corrupted",
};

static const char *const phase_names[FGO_PHASES] = {
	"load", "inputs", "validate", "time", "baseline", "store",
};

const char *phase_name(enum fgo_phase p)
{
	return (unsigned)p < FGO_PHASES ? phase_names[p] : "unknown";
}

const char *status_name(enum fgo_status s)
{
	return (unsigned)s < FGO_ARRAY_SIZE(status_names) ? status_names[s] : "unknown";
}

int status_is_fault(enum fgo_status s)
{
	return s == FGO_CRASHED || s == FGO_HUNG || s == FGO_CORRUPTED;
}

/* Quantities that are undefined until measured are NaN rather than 0, so a
 * missing value cannot pass for a measured zero (the store writes NULL for
 * them): overlap without both halves, speedup without a baseline, sol
 * without ceilings, the errors without a validated launch, telemetry
 * nobody read. */
void result_init(struct fgo_result *r)
{
	memset(r, 0, sizeof *r);
	r->status = FGO_STARTED;
	r->overlap = NAN;
	r->speedup = NAN;
	r->sol = NAN;
	r->max_abs_err = NAN;
	r->max_rel_err = NAN;
	r->telemetry.sm_clock_mhz = NAN;
	r->telemetry.mem_clock_mhz = NAN;
	r->telemetry.temp_c = NAN;
	r->telemetry.power_w = NAN;
	r->problem.reference_max_rel_err = NAN;
}

double result_overlap(double gemm_ms, double comm_ms, double fused_ms, int world,
		      double resolution_ms)
{
	double shorter = gemm_ms < comm_ms ? gemm_ms : comm_ms;
	if (world < 2 || !(shorter > 0) || shorter < resolution_ms || !(fused_ms > 0))
		return NAN;
	double v = (gemm_ms + comm_ms - fused_ms) / shorter;
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

void result_free(struct fgo_result *r)
{
	struct fgo_timing *all[] = { &r->fused, &r->gemm, &r->comm, &r->baseline, &r->bulk };
	for (size_t i = 0; i < FGO_ARRAY_SIZE(all); i++) {
		free(all[i]->ms);
		all[i]->ms = NULL;
		all[i]->n = 0;
	}
}
