/* result.h: what one run produced, as the runner hands it to the store. */
#ifndef FGO_RESULT_H
#define FGO_RESULT_H

#include "backend.h"
#include "config.h"

enum fgo_status {
	FGO_STARTED = 0,
	FGO_STATUS_OK,
	FGO_INVALID,
	FGO_MISMATCH,
	FGO_FAILED,
	FGO_TIMEOUT,
};

const char *status_name(enum fgo_status s); /* "started", "ok", ... as stored */

/* One measured quantity: every sample (max over ranks per iteration) and
 * its summary. n == 0 means not measured (stored as NULL). */
struct fgo_timing {
	int n;
	double *ms;      /* n samples, owned by the result */
	double median, min, max, stddev;
};

struct fgo_result {
	enum fgo_status status;
	char reason[FGO_REASON_MAX];
	int iterations, warmup;
	struct fgo_timing fused, gemm, comm, baseline;
	struct fgo_timing bulk;  /* own GEMM then vendor collective (n == 0: backend has no bulk) */
	double tflops_total, tflops_per_rank; /* from fused median; 0 when not ok */
	double link_gbps;
	double overlap;   /* NaN when not defined (plain gemm) */
	double speedup;
	double sol;       /* NaN without calibrated ceilings */
	int validated;
	double max_abs_err, max_rel_err;
	struct fgo_kernel_info kernel;
	/* Read around the timed iterations on every rank: clocks and power the
	 * means over ranks and readings, temp_c the highest; NaN where no
	 * reading could tell (stored as NULL). */
	struct fgo_telemetry telemetry;
};

void result_init(struct fgo_result *r);
void result_free(struct fgo_result *r); /* frees the sample arrays */

#endif
