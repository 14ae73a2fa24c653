/* runner_trace.c: one configuration run traced (runner.h, runner_trace):
 * timed untraced and traced alike for the overhead, the traced kernel's
 * output checked, and the last traced launch's events of every rank
 * gathered on rank 0 as spans on one timeline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "run/runner_impl.h"

/* Rank 0 of comm receives each rank's buffer (ctas, cap, reference, the
 * per-CTA heads, the events kept) and pairs them into spans. */
static int gather(MPI_Comm comm, const struct fgo_trace_rank *mine, struct fgo_spans *spans,
		  char *reason, size_t len)
{
	int rank, world, rc = FGO_OK;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &world);
	long long shape[3] = { mine->ctas, mine->cap, (long long)mine->ref_ns };
	size_t nev = (size_t)mine->ctas * (size_t)mine->cap;
	if (rank != 0) {
		MPI_Send(shape, 3, MPI_LONG_LONG, 0, 40, comm);
		MPI_Send(mine->head, (int)(sizeof *mine->head * (size_t)mine->ctas), MPI_BYTE, 0, 41,
			 comm);
		/* in CTA-sized messages: a count of bytes must fit an int */
		for (int c = 0; c < mine->ctas; c++)
			MPI_Send(mine->ev + (size_t)c * (size_t)mine->cap,
				 (int)(sizeof *mine->ev * (size_t)mine->cap), MPI_BYTE, 0, 42, comm);
		return FGO_OK;
	}
	(void)nev;
	if (trace_spans_add(spans, mine) != FGO_OK)
		rc = FGO_EFAIL;
	for (int r = 1; r < world; r++) {
		struct fgo_trace_rank t = { .rank = r };
		MPI_Recv(shape, 3, MPI_LONG_LONG, r, 40, comm, MPI_STATUS_IGNORE);
		t.ctas = (int)shape[0];
		t.cap = (int)shape[1];
		t.ref_ns = (unsigned long long)shape[2];
		t.head = malloc(sizeof *t.head * (size_t)(t.ctas > 0 ? t.ctas : 1));
		t.ev = malloc(sizeof *t.ev * (size_t)(t.cap > 0 ? t.cap : 1));
		struct fgo_trace_event *all =
			malloc(sizeof *all * ((size_t)t.ctas * (size_t)t.cap + 1));
		MPI_Recv(t.head ? (void *)t.head : (void *)shape,
			 t.head ? (int)(sizeof *t.head * (size_t)t.ctas) : 0, MPI_BYTE, r, 41, comm,
			 MPI_STATUS_IGNORE);
		for (int c = 0; c < t.ctas; c++) {
			if (all)
				MPI_Recv(all + (size_t)c * (size_t)t.cap,
					 (int)(sizeof *all * (size_t)t.cap), MPI_BYTE, r, 42, comm,
					 MPI_STATUS_IGNORE);
			else if (t.ev)
				MPI_Recv(t.ev, (int)(sizeof *t.ev * (size_t)t.cap), MPI_BYTE, r, 42, comm,
					 MPI_STATUS_IGNORE);
		}
		free(t.ev);
		t.ev = all;
		if (!t.head || !all) {
			snprintf(reason, len, "out of host memory for rank %d's trace", r);
			rc = FGO_EFAIL;
		} else if (rc == FGO_OK && trace_spans_add(spans, &t) != FGO_OK) {
			rc = FGO_EFAIL;
		}
		free(t.head);
		free(all);
	}
	if (rc == FGO_EFAIL && !reason[0])
		snprintf(reason, len, "out of host memory for the timeline");
	return rc;
}

/* The traced run on the group comm (cfg->world ranks). */
static int trace_group(MPI_Comm comm, const struct fgo_config *cfg,
		       const struct fgo_runner_opts *o, int cap, struct fgo_spans *spans,
		       double *traced_ms, double *untraced_ms, char *reason, size_t len)
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	const struct fgo_backend *be = o->backend;
	struct fgo_problem_cache p;
	struct fgo_layout lay;
	struct fgo_heap heap;
	struct fgo_result r;
	struct fgo_kernel_info info;
	struct fgo_runnable *run = NULL;
	struct fgo_timing t;
	int rank, rc;

	MPI_Comm_rank(comm, &rank);
	memset(&p, 0, sizeof p);
	memset(&heap, 0, sizeof heap);
	memset(&t, 0, sizeof t);
	result_init(&r);
	algo->layout(cfg, rank, &lay);
	rc = be->heap_alloc(o->ctx, comm, (size_t)runner_heap_need(cfg, &lay), &heap, reason, len);
	rc = runner_agree(comm, rc, reason, len);
	if (rc != FGO_OK)
		return rc;
	unsigned long gen = runner_heap_generation_next();
	rc = runner_problem_begin(o, comm, &heap, gen, cfg, &lay, &p, &r);
	if (rc != FGO_OK)
		snprintf(reason, len, "%s", r.reason);

	/* untraced first, as the run measured it */
	if (rc == FGO_OK) {
		rc = be->prepare(o->ctx, algo, cfg, &heap, &run, &info, reason, len);
		rc = runner_agree(comm, rc, reason, len);
	}
	if (rc == FGO_OK) {
		rc = runner_time_fused(o, comm, run, &t, reason, len);
		*untraced_ms = t.median;
		free(t.ms);
		memset(&t, 0, sizeof t);
	}
	if (run)
		be->release(o->ctx, run);
	run = NULL;

	if (rc == FGO_OK) {
		rc = be->prepare_traced(o->ctx, algo, cfg, &heap, cap, &run, &info, reason, len);
		rc = runner_agree(comm, rc, reason, len);
	}
	if (rc == FGO_OK && o->validate) {
		uint64_t digest;
		rc = runner_validate_output(o, comm, &heap, run, cfg, &lay, &r, &digest);
		if (rc == FGO_OK && r.status == FGO_MISMATCH) {
			snprintf(reason, len, "the traced kernel's output is wrong: %s", r.reason);
			rc = FGO_EFAIL;
		} else if (rc != FGO_OK) {
			snprintf(reason, len, "%s", r.reason);
		}
	}
	/* the last timed launch is the one read back: a barrier was just before it */
	if (rc == FGO_OK) {
		rc = runner_time_fused(o, comm, run, &t, reason, len);
		*traced_ms = t.median;
		free(t.ms);
	}
	struct fgo_trace_rank *tr = NULL;
	if (rc == FGO_OK) {
		rc = be->trace_read(o->ctx, run, &tr, reason, len);
		rc = runner_agree(comm, rc, reason, len);
	}
	if (rc == FGO_OK) {
		tr->rank = rank;
		rc = gather(comm, tr, spans, reason, len);
		MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
	}
	if (run)
		be->release(o->ctx, run);
	be->heap_free(o->ctx, &heap);
	runner_problems_free(&p);
	result_free(&r);
	return rc;
}

int runner_trace(MPI_Comm comm, const struct fgo_config *cfg, const struct fgo_runner_opts *o,
		 int cap, struct fgo_spans *spans, double *traced_ms, double *untraced_ms,
		 char *reason, size_t len)
{
	int rank, size, rc = FGO_OK;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	*traced_ms = *untraced_ms = 0;
	reason[0] = 0;
	if (!algo_find(cfg->algorithm) || cfg->world > size) {
		snprintf(reason, len, "cannot trace %s at world=%d on %d ranks", cfg->algorithm,
			 cfg->world, size);
		return FGO_EUSAGE;
	}
	if (!o->backend->prepare_traced || !o->backend->trace_read) {
		snprintf(reason, len, "the %s backend cannot trace", o->backend->name);
		return FGO_EUSAGE;
	}
	MPI_Comm group;
	MPI_Comm_split(comm, rank < cfg->world ? 0 : MPI_UNDEFINED, rank, &group);
	if (group != MPI_COMM_NULL) {
		rc = trace_group(group, cfg, o, cap, spans, traced_ms, untraced_ms, reason, len);
		MPI_Comm_free(&group);
	}
	MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
	return rc;
}
