/* trace/timeline.h: a traced launch on every rank, from the per-CTA event
 * buffers the backends fill (kernels/trace.h) to spans on one timeline,
 * the Chrome/Perfetto trace-event JSON, and the summary the store keeps.
 *
 * Ranks are put on one timeline by their reference event: each rank's
 * backend takes a device timestamp right after the barrier before the
 * traced launch, and every event of the rank is measured from it, so the
 * ranks' zeros are the barrier's exit (good to the barrier's skew, a few
 * microseconds). Pure: no MPI, no backend; the unit tests drive it. */
#ifndef FGO_TRACE_TIMELINE_H
#define FGO_TRACE_TIMELINE_H

#include <stddef.h>

#include "trace.h" /* kernels/trace.h: the events */

/* One span: a begin and its end on one CTA and lane, in microseconds from
 * the rank's reference. */
struct fgo_span {
	int rank, cta, lane, kind;
	double t0, t1;
	int a[5];
	int sm; /* the CTA's SM (CPU: core), -1 when not known */
};

struct fgo_spans {
	struct fgo_span *s;
	size_t n, cap;
	long events;   /* events read */
	long dropped;  /* past a CTA's capacity */
	long unpaired; /* a begin without its end or an end without its begin */
};

/* The kinds' names, as the JSON's "cat" and "name" and the plot's legend:
 * "kernel", "gemm", "handover", "takeover", "put", "wait", "reduce". */
const char *trace_kind_name(int kind);
/* The kind of a name, or -1. */
int trace_kind_of(const char *name);

/* Appends the spans of r (begin and end paired per CTA and lane, in time
 * order) to out. FGO_OK or FGO_EFAIL (out of memory). */
int trace_spans_add(struct fgo_spans *out, const struct fgo_trace_rank *r);
/* Appends one span (the JSON reader, the tests). */
int trace_spans_push(struct fgo_spans *out, const struct fgo_span *s);
void trace_spans_free(struct fgo_spans *sp);

/* Per peer: the flag waits of one rank on another's data. */
struct fgo_trace_wait {
	int rank, peer; /* peer -1: waits on several ranks at once */
	double us;      /* summed */
	long count;
};

struct fgo_trace_rank_sum {
	int rank;
	double start_us, end_us; /* first CTA begin, last CTA end */
	double tail_us;          /* last GEMM end to the last CTA end */
	double gemm_pct;         /* of the rank's CTA time */
	double hidden_pct;       /* of its communication time, under its GEMM (NaN: none) */
};

/* What the store keeps of a traced run. CTA time is the sum over CTAs of
 * their kernel spans; each instant of a CTA's span counts once, for the
 * first of gemm, comm (puts and reductions), xchg (Stream-K and split-K
 * hand-overs and take-overs), wait (flag waits) it is busy with in any
 * lane, else for idle: the five shares add up to 100. */
struct fgo_trace_summary {
	int world, ctas;
	long events, dropped, unpaired;
	long tiles;          /* tiles computed: GEMM spans that start a tile (k0 = 0) */
	double kernel_us;    /* first CTA begin to last CTA end over the ranks */
	double gemm_pct, comm_pct, xchg_pct, wait_pct, idle_pct;
	double hidden_pct;   /* communication time under GEMM on its rank, % (NaN: no communication) */
	double tail_us;      /* the largest rank tail */
	double skew_us;      /* the latest rank start less the earliest */
	double traced_ms, untraced_ms, overhead_pct; /* medians of the fused launch (NaN: not timed) */
	struct fgo_trace_rank_sum *ranks; /* world */
	struct fgo_trace_wait *waits;     /* nwaits, by rank then peer */
	int nwaits;
};

/* The summary of spans over world ranks. FGO_OK or FGO_EFAIL. */
int trace_summarise(const struct fgo_spans *sp, int world, struct fgo_trace_summary *out);
void trace_summary_free(struct fgo_trace_summary *s);

/* Writes the spans as Chrome/Perfetto trace-event JSON to path (a
 * temporary name, then renamed): pid = rank, tid = CTA x 4 + lane, ts and
 * dur in microseconds, "ph":"X" complete events with their arguments, and
 * metadata naming each rank and CTA (with its SM). about: a line on the
 * run (the configuration), kept under otherData. FGO_OK or FGO_EFAIL with
 * the reason in err. */
/* A qsort_r comparator of span indices (size_t into arg, the spans) by
 * rank, CTA and lane: the rows of a timeline. */
int trace_span_by_track(const void *a, const void *b, void *arg);

int trace_json_write(const char *path, const struct fgo_spans *sp, int world, const char *about,
		     const struct fgo_trace_summary *sum, char *err, size_t len);

/* Reads the "X" events of a trace-event JSON written by trace_json_write
 * (or any with the same kinds as "cat") back into spans; events of other
 * kinds are skipped. *world = the number of ranks (largest pid + 1).
 * FGO_OK, or FGO_EUSAGE with the reason (not JSON, no traceEvents). */
int trace_json_read(const char *path, struct fgo_spans *out, int *world, char *err, size_t len);

#endif
