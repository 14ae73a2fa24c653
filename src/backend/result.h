/* result.h: what one run produced, as the runner hands it to the store. */
#ifndef FGO_RESULT_H
#define FGO_RESULT_H

#include <stdint.h>

#include "backend/backend.h"
#include "config.h"

enum fgo_status {
	FGO_STARTED = 0,
	FGO_STATUS_OK,
	FGO_INVALID,
	FGO_MISMATCH,
	FGO_FAILED,
	FGO_TIMEOUT,
	/* The kernel, not the tool, ended the run (docs/reliability.md): */
	FGO_CRASHED,   /* it killed its process (a signal, exit(), a lost GPU context) */
	FGO_HUNG,      /* it ran past its time limit and its process was stopped */
	FGO_CORRUPTED, /* it wrote into inputs it must only read (A, B) */
	FGO_STATUSES   /* the count */
};

const char *status_name(enum fgo_status s); /* "started", "ok", ... as stored */

/* 1 for the statuses a bad kernel leaves (crashed, hung, corrupted): a
 * resumed sweep does not run them again unless asked (--retry-crashed). */
int status_is_fault(enum fgo_status s);

/* One measured quantity: every sample (max over ranks per iteration) and
 * its summary. n == 0 means not measured (stored as NULL). */
struct fgo_timing {
	int n;
	double *ms;      /* n samples, owned by the result */
	double median, min, max, stddev;
};

/* Where a run's wall time went (runner.c); the problem-level work (inputs,
 * reference, baseline) is counted in the first run of its problem on a
 * group. Stored as runs.load_s ... store_s. */
enum fgo_phase {
	FGO_PHASE_LOAD = 0, /* prepare: kernel from the cache, module load */
	FGO_PHASE_INPUTS,   /* the problem's inputs */
	FGO_PHASE_VALIDATE, /* reference (first run), poison, launch, compare */
	FGO_PHASE_TIME,     /* fused, gemm, comm and bulk measurements */
	FGO_PHASE_BASELINE, /* the vendor baseline (first run) */
	FGO_PHASE_STORE,    /* rank 0 writing the run (set by the sink) */
	FGO_PHASES
};

const char *phase_name(enum fgo_phase p); /* "load", "inputs", ... */

/* What the run's problem (algorithm, dtype, world, M, N, K) shared. */
struct fgo_problem_info {
	uint64_t seed;            /* of the inputs */
	int first;                /* this run made the problem's shared work */
	int reference;            /* the reference was made and checked on the host (0: the
				     problem's runs were not validated) */
	long reference_checked;   /* reference elements checked against double on the host */
	double reference_max_rel_err;
	double inputs_s, reference_s, baseline_s;
};

struct fgo_result {
	enum fgo_status status;
	char reason[FGO_REASON_MAX];
	char note[FGO_REASON_MAX]; /* what could not be measured here (an ok run's reason) */
	int iterations, warmup;
	struct fgo_timing fused, gemm, comm, baseline;
	struct fgo_timing bulk;  /* own GEMM then vendor collective (n == 0: backend has no bulk) */
	int baseline_own;        /* baseline timed by this run, in turns with its fused launches
				    ("baseline": "interleaved"): its samples stay with the run */
	double tflops_total, tflops_per_rank; /* from fused median; 0 when not ok */
	double link_gbps;
	double overlap;   /* result_overlap; NaN when not defined */
	double speedup;
	double sol;       /* NaN without calibrated ceilings */
	int validated;
	double max_abs_err, max_rel_err;
	struct fgo_kernel_info kernel;
	/* Read around the timed iterations on every rank: clocks and power the
	 * means over ranks and readings, temp_c the highest; NaN where no
	 * reading could tell (stored as NULL). */
	struct fgo_telemetry telemetry;
	double phase_s[FGO_PHASES];
	struct fgo_problem_info problem;
};

void result_init(struct fgo_result *r);

/* overlap = (t_gemm + t_comm - t_fused) / min(t_gemm, t_comm), the share of
 * the shorter half hidden under the longer: 1 = fully hidden, 0 = serial.
 * Clamped to [0, 1]: a fused kernel slower than the two halves in sequence
 * hides nothing (speedup shows what it costs), one faster than the longer
 * half alone is noise. NaN (stored NULL) where it means nothing: world 1
 * (no peer to talk to), a half not measured, or one below the timer's
 * resolution (resolution_ms), where the division would multiply noise. */
double result_overlap(double gemm_ms, double comm_ms, double fused_ms, int world,
		      double resolution_ms);
void result_free(struct fgo_result *r); /* frees the sample arrays */

#endif
