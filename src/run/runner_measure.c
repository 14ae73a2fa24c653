/* runner_measure.c: the timed part of a run (runner_impl.h's
 * runner_measure): warm-up and timed launches between barriers, the slowest
 * rank's time each; the fused kernel and its GEMM-only and comm-only modes,
 * the vendor baseline (once per problem, or interleaved with the fused
 * launches), the backend's bulk sequence, and the telemetry read around
 * them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "run/flight.h"
#include "run/runner_impl.h"
#include "stats.h"

static void timing_summarise(struct fgo_timing *t)
{
	if (t->n == 0)
		return;
	t->median = stats_median(t->ms, (size_t)t->n);
	t->min = stats_min(t->ms, (size_t)t->n);
	t->max = stats_max(t->ms, (size_t)t->n);
	t->stddev = stats_stddev(t->ms, (size_t)t->n);
}


/* This rank's telemetry readings during one run: per quantity a sum and a
 * count of readings that told it (the backend reports 0 for what it cannot
 * tell), and the highest temperature. */
struct readings {
	double sum[3], n[3]; /* SM clock, memory clock, power */
	double temp_max;     /* 0 until a reading tells it */
};

static void telemetry_read(const struct fgo_runner_opts *o, struct readings *rd)
{
	struct fgo_telemetry t;
	memset(&t, 0, sizeof t);
	if (!o->backend->telemetry || o->backend->telemetry(o->ctx, &t) != FGO_OK)
		return;
	const double v[3] = { t.sm_clock_mhz, t.mem_clock_mhz, t.power_w };
	for (int i = 0; i < 3; i++)
		if (isfinite(v[i]) && v[i] > 0) {
			rd->sum[i] += v[i];
			rd->n[i]++;
		}
	if (isfinite(t.temp_c) && t.temp_c > rd->temp_max)
		rd->temp_max = t.temp_c;
}

/* Means over the group's ranks and readings, the highest temperature;
 * NaN where no reading told (collective over comm). */
static void telemetry_summarise(const struct fgo_runner_opts *o, MPI_Comm comm,
				const struct readings *rd, struct fgo_telemetry *out)
{
	if (!o->backend->telemetry)
		return;
	double all[6] = { rd->sum[0], rd->sum[1], rd->sum[2], rd->n[0], rd->n[1], rd->n[2] };
	double temp = rd->temp_max;
	MPI_Allreduce(MPI_IN_PLACE, all, 6, MPI_DOUBLE, MPI_SUM, comm);
	MPI_Allreduce(MPI_IN_PLACE, &temp, 1, MPI_DOUBLE, MPI_MAX, comm);
	out->sm_clock_mhz = all[3] > 0 ? all[0] / all[3] : NAN;
	out->mem_clock_mhz = all[4] > 0 ? all[1] / all[4] : NAN;
	out->power_w = all[5] > 0 ? all[2] / all[5] : NAN;
	out->temp_c = temp > 0 ? temp : NAN;
}

/* What measure() times: a launch of the runnable in a mode, the vendor
 * baseline, or the backend's bulk sequence. */
enum measurement { MEASURE_LAUNCH, MEASURE_BASELINE, MEASURE_BULK };

static int measure_once(const struct fgo_runner_opts *o, struct fgo_runnable *run,
			enum measurement what, enum fgo_mode mode, double *ms, char *reason,
			size_t len)
{
	const struct fgo_backend *be = o->backend;
	int rc;
	/* a launch that never returns is stopped from outside (flight.h) */
	flight_arm(flight_launch_limit(o->timeout_s));
	switch (what) {
	case MEASURE_BASELINE: rc = be->baseline(o->ctx, run, o->timeout_s, ms, reason, len); break;
	case MEASURE_BULK: rc = be->bulk(o->ctx, run, o->timeout_s, ms, reason, len); break;
	default: rc = be->launch(o->ctx, run, mode, o->timeout_s, ms, reason, len); break;
	}
	flight_disarm();
	return rc;
}

/* One launch between barriers: the agreed code, and in *slowest the
 * slowest rank's time (only when the code is FGO_OK). Collective. */
static int sample(const struct fgo_runner_opts *o, MPI_Comm comm, struct fgo_runnable *run,
		  enum measurement what, enum fgo_mode mode, double *slowest, char *reason,
		  size_t len)
{
	double ms = 0;
	MPI_Barrier(comm);
	int rc = runner_agree(comm, measure_once(o, run, what, mode, &ms, reason, len), reason, len);
	if (rc == FGO_OK)
		MPI_Allreduce(&ms, slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
	return rc;
}

/* Warm-up, then opts->iterations launches between barriers; each sample
 * is the slowest rank's time. Telemetry is read just before the timed
 * launches (after the warm-up has brought the clocks up) and just after.
 * Returns the agreed result code. */
static int measure(const struct fgo_runner_opts *o, MPI_Comm comm, struct fgo_runnable *run,
		   enum measurement what, enum fgo_mode mode, struct fgo_timing *t,
		   struct readings *rd, char *reason, size_t len)
{
	int total = o->warmup + o->iterations;
	t->ms = calloc((size_t)o->iterations, sizeof *t->ms);
	t->n = 0;
	for (int i = 0; i < total; i++) {
		double slowest;
		if (i == o->warmup)
			telemetry_read(o, rd);
		int rc = sample(o, comm, run, what, mode, &slowest, reason, len);
		if (rc != FGO_OK)
			return rc;
		if (i >= o->warmup)
			t->ms[t->n++] = slowest;
	}
	telemetry_read(o, rd);
	timing_summarise(t);
	return FGO_OK;
}

/* Notes in an ok run's reason what could not be measured here and why. */
void runner_unavailable(struct fgo_result *r, const char *what, const char *why)
{
	size_t n = strlen(r->note);
	snprintf(r->note + n, sizeof r->note - n, "%s%s unavailable: %s", n ? "; " : "", what, why);
}


/* The vendor baseline depends only on the problem: measured by the
 * problem's first run that gets this far, then copied into every run. */
static int problem_baseline(const struct fgo_runner_opts *o, MPI_Comm comm,
			    struct fgo_runnable *run, struct fgo_problem_cache *p,
			    struct readings *rd, struct fgo_result *r)
{
	if (!p->baseline_done) {
		double t0 = now_seconds();
		p->baseline_rc = measure(o, comm, run, MEASURE_BASELINE, FGO_MODE_FUSED, &p->baseline,
					 rd, p->baseline_reason, sizeof p->baseline_reason);
		p->baseline_done = 1;
		r->phase_s[FGO_PHASE_BASELINE] = seconds_since(t0);
		p->info.baseline_s = r->phase_s[FGO_PHASE_BASELINE];
		r->problem.first = 1;
	}
	if (p->baseline_rc == FGO_EUNAVAILABLE) {
		/* not measurable here (ranks share a GPU, no NCCL): the run
		 * stands, without a baseline, and says why */
		runner_unavailable(r, "baseline", p->baseline_reason);
		return FGO_OK;
	}
	if (p->baseline_rc != FGO_OK) {
		snprintf(r->reason, sizeof r->reason, "%s", p->baseline_reason);
		return p->baseline_rc;
	}
	return runner_timing_copy(&r->baseline, &p->baseline);
}



/* The fused launch and the vendor baseline in turns ("baseline":
 * "interleaved"): warm-up of both, then o->iterations pairs, each launch
 * between barriers and the slowest rank's time kept. A slow moment of a
 * shared machine (seconds long on a busy VM) lands on both halves of the
 * pairs it covers, so the two medians come from the same moments and
 * their ratio keeps what the code did. The baseline's failure code is
 * kept apart in *baseline_rc (FGO_EUNAVAILABLE: none measurable here, the
 * fused samples then stand alone). Collective; the fused launch's agreed
 * code. */
static int measure_interleaved(const struct fgo_runner_opts *o, MPI_Comm comm,
			       struct fgo_runnable *run, struct fgo_timing *fused,
			       struct fgo_timing *baseline, int *baseline_rc, char *baseline_reason,
			       struct readings *rd, char *reason, size_t len)
{
	int total = o->warmup + o->iterations;
	fused->ms = calloc((size_t)o->iterations, sizeof *fused->ms);
	baseline->ms = calloc((size_t)o->iterations, sizeof *baseline->ms);
	fused->n = baseline->n = 0;
	*baseline_rc = FGO_OK;
	for (int i = 0; i < total; i++) {
		double slowest;
		if (i == o->warmup)
			telemetry_read(o, rd);
		int rc = sample(o, comm, run, MEASURE_LAUNCH, FGO_MODE_FUSED, &slowest, reason, len);
		if (rc != FGO_OK)
			return rc;
		if (i >= o->warmup)
			fused->ms[fused->n++] = slowest;
		if (*baseline_rc != FGO_OK)
			continue;
		*baseline_rc = sample(o, comm, run, MEASURE_BASELINE, FGO_MODE_FUSED, &slowest,
				      baseline_reason, FGO_REASON_MAX);
		if (*baseline_rc != FGO_OK)
			baseline->n = 0;
		else if (i >= o->warmup)
			baseline->ms[baseline->n++] = slowest;
	}
	telemetry_read(o, rd);
	timing_summarise(fused);
	timing_summarise(baseline);
	return FGO_OK;
}

int runner_measure(const struct fgo_runner_opts *o, MPI_Comm comm, struct fgo_runnable *run,
		   const struct fgo_algo *algo, struct fgo_problem_cache *p, struct fgo_result *r)
{
	struct readings rd;
	memset(&rd, 0, sizeof rd);
	double t0 = now_seconds();
	int rc, baseline_rc = FGO_OK;
	char baseline_reason[FGO_REASON_MAX] = "";
	if (o->interleave_baseline) {
		rc = measure_interleaved(o, comm, run, &r->fused, &r->baseline, &baseline_rc,
					 baseline_reason, &rd, r->reason, sizeof r->reason);
		if (rc == FGO_OK && baseline_rc != FGO_OK && baseline_rc != FGO_EUNAVAILABLE) {
			snprintf(r->reason, sizeof r->reason, "%s", baseline_reason);
			rc = baseline_rc;
		}
		if (rc == FGO_OK && baseline_rc == FGO_EUNAVAILABLE)
			runner_unavailable(r, "baseline", baseline_reason);
		r->baseline_own = rc == FGO_OK && baseline_rc == FGO_OK;
	} else {
		rc = measure(o, comm, run, MEASURE_LAUNCH, FGO_MODE_FUSED, &r->fused, &rd, r->reason,
			     sizeof r->reason);
	}
	/* the halves, where the kernel has them (a user kernel without
	 * "modes" has only its fused launch) */
	int halves = algo->needs_comm && !algo->fused_only;
	if (rc == FGO_OK && halves)
		rc = measure(o, comm, run, MEASURE_LAUNCH, FGO_MODE_GEMM_ONLY, &r->gemm, &rd,
			     r->reason, sizeof r->reason);
	if (rc == FGO_OK && halves)
		rc = measure(o, comm, run, MEASURE_LAUNCH, FGO_MODE_COMM_ONLY, &r->comm, &rd,
			     r->reason, sizeof r->reason);
	r->phase_s[FGO_PHASE_TIME] = seconds_since(t0);
	/* A failing baseline or bulk (no NCCL, say) fails the run with its
	 * reason; what was measured before it is still stored. */
	if (rc == FGO_OK && !o->interleave_baseline)
		rc = problem_baseline(o, comm, run, p, &rd, r);
	t0 = now_seconds();
	if (rc == FGO_OK && o->backend->bulk) {
		char why[FGO_REASON_MAX] = "";
		rc = measure(o, comm, run, MEASURE_BULK, FGO_MODE_FUSED, &r->bulk, &rd, why,
			     sizeof why);
		if (rc == FGO_EUNAVAILABLE) {
			r->bulk.n = 0;
			runner_unavailable(r, "bulk", why);
			rc = FGO_OK;
		} else if (rc != FGO_OK) {
			snprintf(r->reason, sizeof r->reason, "%s", why);
		}
	}
	r->phase_s[FGO_PHASE_TIME] += seconds_since(t0);
	telemetry_summarise(o, comm, &rd, &r->telemetry);
	return rc;
}

int runner_time_fused(const struct fgo_runner_opts *o, MPI_Comm comm, struct fgo_runnable *run,
		      struct fgo_timing *t, char *reason, size_t len)
{
	struct readings rd;
	memset(&rd, 0, sizeof rd);
	return measure(o, comm, run, MEASURE_LAUNCH, FGO_MODE_FUSED, t, &rd, reason, len);
}

