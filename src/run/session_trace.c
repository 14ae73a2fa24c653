/* session_trace.c: the traced runs of a stored sweep (`run --trace FILE`,
 * `sweep --trace best`): which runs, their timelines written as
 * trace-event JSON, and their summaries stored with them (session.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "run/runner.h"
#include "run/session.h"
#include "sink.h"
#include "store/store.h"

/* Rank 0: the plan items to trace, into pick (returns how many): the one
 * configuration of `run` (the fastest of config auto's trials), or the
 * fastest ok run of each problem. */
static int choose(const struct fgo_plan *plan, const struct fgo_session *s,
		  const int64_t *run_ids, const double *fused_ms, int *pick)
{
	int n = 0;
	if (s->trace_file) {
		size_t f = session_fastest(plan->count, run_ids, fused_ms);
		if (f < plan->count)
			pick[n++] = (int)f;
		return n;
	}
	for (size_t i = 0; i < plan->count; i++) {
		if (!(fused_ms[i] > 0) || run_ids[i] <= 0)
			continue;
		int j = 0;
		while (j < n && !runner_same_problem(&plan->items[pick[j]].cfg, &plan->items[i].cfg))
			j++;
		if (j == n)
			pick[n++] = (int)i;
		else if (fused_ms[i] < fused_ms[pick[j]])
			pick[j] = (int)i;
	}
	return n;
}

/* Rank 0: summary, JSON and store row of one traced run. */
static int keep(const struct fgo_session *s, const struct fgo_config *cfg, int64_t run_id,
		const char *path, const struct fgo_spans *spans, double traced_ms,
		double untraced_ms)
{
	struct fgo_trace_summary sum;
	struct fgo_store *st = NULL;
	char err[FGO_REASON_MAX], about[2048];
	if (trace_summarise(spans, cfg->world, &sum) != FGO_OK) {
		error("out of memory summarising the trace of run %lld", (long long)run_id);
		return FGO_EFAIL;
	}
	if (sum.events == 0) {
		/* every family's kernel records events on every core; none is a
		 * kernel that lost its trace points, not a timeline to keep */
		error("run %lld: the traced kernel recorded no events (%s on this core has no trace points:"
		      " a fault of fgobench, please report it); no timeline written or stored",
		      (long long)run_id, cfg->algorithm);
		trace_summary_free(&sum);
		return FGO_EFAIL;
	}
	sum.traced_ms = traced_ms;
	sum.untraced_ms = untraced_ms;
	sum.overhead_pct = untraced_ms > 0 ? 100.0 * (traced_ms / untraced_ms - 1) : NAN;
	config_reproduce_line(cfg, about, sizeof about);
	int rc = trace_json_write(path, spans, cfg->world, about, &sum, err, sizeof err);
	if (rc == FGO_OK)
		rc = store_open(s->db_path, FGO_STORE_WRITE, &st, err, sizeof err);
	if (rc == FGO_OK) {
		rc = store_trace_put(st, run_id, path, &sum, err, sizeof err);
		store_close(st);
	}
	if (rc != FGO_OK) {
		error("%s", err);
	} else {
		char shown[512];
		sink_terminal(path, shown, sizeof shown);
		note("trace of run %lld: %s (%ld events%s; GEMM-busy %.1f%%, traced %.3g ms vs %.3g ms"
		     " untraced: %+.1f%%)",
		     (long long)run_id, shown, sum.events, sum.dropped ? ", some dropped" : "",
		     sum.gemm_pct, traced_ms, untraced_ms, sum.overhead_pct);
		if (sum.dropped)
			warning("run %lld: %ld events past a CTA's buffer were dropped (give --trace-events"
				" more than %d)",
				(long long)run_id, sum.dropped, s->trace_events);
	}
	trace_summary_free(&sum);
	return rc;
}

int session_trace(MPI_Comm comm, const struct fgo_plan *plan, const struct fgo_session *s,
		  const struct fgo_runner_opts *o, const int64_t *run_ids, const double *fused_ms)
{
	int rank, n = 0, failed = 0;
	int *pick = calloc(plan->count + 1, sizeof *pick);
	int ok = pick != NULL;
	MPI_Comm_rank(comm, &rank);
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
	if (!ok) {
		if (rank == 0)
			error("out of host memory choosing the runs to trace");
		free(pick);
		return FGO_EFAIL;
	}
	if (rank == 0) {
		n = choose(plan, s, run_ids, fused_ms, pick);
		if (n == 0)
			warning("nothing to trace: %s", s->trace_file ? "the run did not succeed"
									: "no run of the sweep succeeded");
	}
	MPI_Bcast(&n, 1, MPI_INT, 0, comm);
	MPI_Bcast(pick, n, MPI_INT, 0, comm);
	if (s->trace_dir && rank == 0) {
		char err[FGO_REASON_MAX];
		if (make_dirs(s->trace_dir, err, sizeof err) != FGO_OK) {
			error("%s", err);
			n = -1;
		}
	}
	MPI_Bcast(&n, 1, MPI_INT, 0, comm);
	if (n < 0) {
		free(pick);
		return FGO_EFAIL;
	}
	for (int i = 0; i < n; i++) {
		const struct fgo_config *cfg = &plan->items[pick[i]].cfg;
		struct fgo_spans spans;
		double traced = 0, untraced = 0;
		char reason[FGO_REASON_MAX];
		memset(&spans, 0, sizeof spans);
		int rc = runner_trace(comm, cfg, o, s->trace_events, &spans, &traced, &untraced,
				      reason, sizeof reason);
		if (rank == 0) {
			int64_t id = run_ids[pick[i]];
			char path[1200];
			if (s->trace_file)
				snprintf(path, sizeof path, "%s", s->trace_file);
			else
				snprintf(path, sizeof path, "%s/run-%lld.json", s->trace_dir, (long long)id);
			if (rc != FGO_OK)
				error("tracing run %lld failed: %s", (long long)id, reason);
			else
				rc = keep(s, cfg, id, path, &spans, traced, untraced);
			failed += rc != FGO_OK;
		}
		trace_spans_free(&spans);
	}
	free(pick);
	MPI_Bcast(&failed, 1, MPI_INT, 0, comm);
	return failed ? FGO_EFAIL : FGO_OK;
}
