/* test_timeline.c: the timeline of a traced launch (src/trace/): events
 * paired into spans per CTA and lane, the summary's arithmetic on a
 * timeline worked out by hand (shares of CTA time adding up to 100,
 * communication hidden under GEMM, waits per peer, tail, skew), dropped
 * and unpaired events counted, and the trace-event JSON read back. */
#include <stdlib.h>
#include <unistd.h>

#include "fgo.h"
#include "testlib.h"
#include "trace/timeline.h"

#define CAP 32

struct rank_buf {
	struct fgo_trace_rank r;
	struct fgo_trace_cta head[4];
	struct fgo_trace_event ev[4 * CAP];
};

static void rank_init(struct rank_buf *b, int rank, int ctas, unsigned long long ref_ns)
{
	memset(b, 0, sizeof *b);
	b->r.rank = rank;
	b->r.ctas = ctas;
	b->r.cap = CAP;
	b->r.ref_ns = ref_ns;
	b->r.head = b->head;
	b->r.ev = b->ev;
}

/* A span [t0, t1] (microseconds after the reference) of kind on cta, lane. */
static void span(struct rank_buf *b, int cta, int lane, int kind, double t0, double t1, int a0,
		 int a1, int a2, int a3, int a4)
{
	unsigned int l = (unsigned int)lane << FGO_TR_LANE_SHIFT;
	unsigned long long z = b->r.ref_ns;
	fgo_trace_host_rec(&b->r, cta, (unsigned int)kind | l, z + (unsigned long long)(t0 * 1000),
			   a0, a1, a2, a3, a4);
	fgo_trace_host_rec(&b->r, cta, (unsigned int)kind | FGO_TR_END | l,
			   z + (unsigned long long)(t1 * 1000), a0, a1, a2, a3, a4);
}

/* The worked example: one rank, two CTAs.
 *   CTA 0: kernel [0,100]; gemm tile 0 [0,40]; put to peer 1 [40,50];
 *          gemm tile 1 [50,90]; idle [90,100].
 *   CTA 1: kernel [0,100]; lane 0: wait on peer 1 [0,30], reduce [30,60];
 *          lane 1: put [20,45] (overlapping the wait and the reduction).
 * CTA time 200: gemm 80 (40%); comm = [40,50] + [20,60] = 50 (25%);
 * wait = [0,20] = 20 (10%, the rest of it is under comm); idle 50 (25%).
 * Communication of the rank [20,60] (40), under GEMM [20,40] + [50,60]
 * (30): 75%. Tail 100 - 90 = 10. */
static void example(struct rank_buf *b)
{
	rank_init(b, 0, 2, 1000000);
	span(b, 0, 0, FGO_TR_KERNEL, 0, 100, 7, 0, -1, -1, -1);
	span(b, 0, 0, FGO_TR_GEMM, 0, 40, 0, 0, 0, 0, 4);
	span(b, 0, 0, FGO_TR_PUT, 40, 50, 1, 8192, 0, -1, -1);
	span(b, 0, 0, FGO_TR_GEMM, 50, 90, 1, 0, 1, 0, 4);
	span(b, 1, 0, FGO_TR_KERNEL, 0, 100, 9, 0, -1, -1, -1);
	span(b, 1, 0, FGO_TR_WAIT, 0, 30, 3, 1, -1, -1, -1);
	span(b, 1, 0, FGO_TR_REDUCE, 30, 60, 0, 2, -1, -1, -1);
	span(b, 1, 1, FGO_TR_PUT, 20, 45, -1, 8192, 1, -1, -1);
}

static void check_example(void)
{
	struct rank_buf b;
	struct fgo_spans sp;
	struct fgo_trace_summary s;
	memset(&sp, 0, sizeof sp);
	example(&b);
	T_EQ_INT("tl-1.1-add", trace_spans_add(&sp, &b.r), FGO_OK);
	T_EQ_INT("tl-1.2-spans", sp.n, 8);
	T_EQ_INT("tl-1.3-events", sp.events, 16);
	T_EQ_INT("tl-1.4-unpaired", sp.unpaired, 0);
	int sm_ok = 1;
	for (size_t i = 0; i < sp.n; i++)
		sm_ok &= sp.s[i].sm == (sp.s[i].cta == 0 ? 7 : 9);
	T_CHECK("tl-1.5-sm", sm_ok, "every span names its CTA's SM (7, 9)");
	T_EQ_INT("tl-1.6-summarise", trace_summarise(&sp, 1, &s), FGO_OK);
	T_EQ_INT("tl-1.7-ctas", s.ctas, 2);
	T_NEAR("tl-1.8-gemm", s.gemm_pct, 40, 1e-9);
	T_NEAR("tl-1.9-comm", s.comm_pct, 25, 1e-9);
	T_NEAR("tl-1.10-wait", s.wait_pct, 10, 1e-9);
	T_NEAR("tl-1.11-xchg", s.xchg_pct, 0, 1e-9);
	T_NEAR("tl-1.12-idle", s.idle_pct, 25, 1e-9);
	T_NEAR("tl-1.13-shares-add-up", s.gemm_pct + s.comm_pct + s.wait_pct + s.xchg_pct + s.idle_pct,
	       100, 1e-9);
	T_NEAR("tl-1.14-hidden", s.hidden_pct, 75, 1e-9);
	T_NEAR("tl-1.15-tail", s.tail_us, 10, 1e-9);
	T_NEAR("tl-1.16-kernel", s.kernel_us, 100, 1e-9);
	T_NEAR("tl-1.17-skew", s.skew_us, 0, 1e-9);
	T_EQ_INT("tl-1.18-tiles", s.tiles, 2);
	T_CHECK("tl-1.19-waits", s.nwaits == 1 && s.waits[0].rank == 0 && s.waits[0].peer == 1 &&
					 fabs(s.waits[0].us - 30) < 1e-9 && s.waits[0].count == 1,
		"one wait of rank 0 on peer 1, 30 us (got %d)", s.nwaits);
	T_NEAR("tl-1.20-rank-gemm", s.ranks[0].gemm_pct, 40, 1e-9);
	T_NEAR("tl-1.21-rank-hidden", s.ranks[0].hidden_pct, 75, 1e-9);

	/* the JSON, written and read back: the same spans, the kinds by name */
	char path[] = "/tmp/fgobench-tl-XXXXXX";
	int fd = mkstemp(path);
	char err[256] = "";
	struct fgo_spans back;
	int world = 0;
	if (fd >= 0)
		close(fd);
	T_EQ_INT("tl-2.1-write", trace_json_write(path, &sp, 1, "a \"quoted\"\nline", &s, err,
						  sizeof err),
		 FGO_OK);
	T_EQ_INT("tl-2.2-read", trace_json_read(path, &back, &world, err, sizeof err), FGO_OK);
	T_EQ_INT("tl-2.3-read-spans", back.n, sp.n);
	T_EQ_INT("tl-2.4-read-world", world, 1);
	struct fgo_trace_summary s2;
	if (back.n == sp.n && trace_summarise(&back, 1, &s2) == FGO_OK) {
		T_NEAR("tl-2.5-read-same-gemm", s2.gemm_pct, 40, 1e-6);
		T_NEAR("tl-2.6-read-same-hidden", s2.hidden_pct, 75, 1e-6);
		trace_summary_free(&s2);
	}
	trace_spans_free(&back);
	unlink(path);
	/* not a trace: refused with the reason */
	char bad[] = "/tmp/fgobench-tl-XXXXXX";
	fd = mkstemp(bad);
	if (fd >= 0) {
		T_CHECK("tl-2.7-write-bad", write(fd, "{\"x\":1}", 7) == 7, "wrote the file");
		close(fd);
	}
	T_EQ_INT("tl-2.8-not-a-trace", trace_json_read(bad, &back, &world, err, sizeof err),
		 FGO_EUSAGE);
	T_CONTAINS("tl-2.9-not-a-trace-says", err, "traceEvents");
	unlink(bad);
	T_EQ_INT("tl-2.10-kind-names", trace_kind_of(trace_kind_name(FGO_TR_TAKEOVER)), FGO_TR_TAKEOVER);
	T_EQ_INT("tl-2.11-unknown-kind", trace_kind_of("process_name"), -1);
	trace_summary_free(&s);
	trace_spans_free(&sp);
}

/* Two ranks: rank 1's CTA starts 5 us after rank 0's (each from its own
 * reference: the barrier); an unclosed begin and events past the capacity
 * are counted, not paired. */
static void check_ranks(void)
{
	struct rank_buf *a = malloc(sizeof *a), *b = malloc(sizeof *b);
	struct fgo_spans sp;
	struct fgo_trace_summary s;
	memset(&sp, 0, sizeof sp);
	if (!a || !b) {
		T_CHECK("tl-3.0-alloc", 0, "out of memory");
		free(a);
		free(b);
		return;
	}
	rank_init(a, 0, 1, 5000000);
	span(a, 0, 0, FGO_TR_KERNEL, 0, 50, 1, 0, -1, -1, -1);
	span(a, 0, 0, FGO_TR_GEMM, 0, 50, 0, 0, 0, 0, 2);
	rank_init(b, 1, 1, 123456789);
	span(b, 0, 0, FGO_TR_KERNEL, 5, 60, 2, 0, -1, -1, -1);
	span(b, 0, 0, FGO_TR_GEMM, 5, 30, 0, 0, 0, 0, 1);
	span(b, 0, 0, FGO_TR_GEMM, 30, 55, 0, 0, 0, 1, 2); /* the tile's second segment: not a new tile */
	fgo_trace_host_rec(&b->r, 0, FGO_TR_WAIT, b->r.ref_ns + 56000, 0, 0, -1, -1, -1);
	T_CHECK("tl-3.1-add", trace_spans_add(&sp, &a->r) == FGO_OK &&
				      trace_spans_add(&sp, &b->r) == FGO_OK,
		"both ranks added");
	T_EQ_INT("tl-3.2-unpaired", sp.unpaired, 1);
	T_EQ_INT("tl-3.3-summarise", trace_summarise(&sp, 2, &s), FGO_OK);
	T_NEAR("tl-3.4-skew", s.skew_us, 5, 1e-9);
	T_NEAR("tl-3.5-kernel", s.kernel_us, 60, 1e-9);
	T_NEAR("tl-3.6-rank1-start", s.ranks[1].start_us, 5, 1e-9);
	T_NEAR("tl-3.7-tail", s.tail_us, 5, 1e-9);
	T_EQ_INT("tl-3.8-tiles", s.tiles, 2);
	/* 50 of 50 and 50 of 55 us in GEMM */
	T_NEAR("tl-3.9-gemm", s.gemm_pct, 100.0 * 100 / 105, 1e-9);
	T_CHECK("tl-3.10-no-comm", isnan(s.hidden_pct), "no communication: hidden is NaN, got %g",
		s.hidden_pct);
	trace_summary_free(&s);
	trace_spans_free(&sp);

	/* past the capacity: counted as dropped */
	rank_init(a, 0, 1, 0);
	for (int i = 0; i < CAP + 6; i++)
		fgo_trace_host_rec(&a->r, 0, FGO_TR_GEMM | (i % 2 ? FGO_TR_END : 0u),
				   (unsigned long long)i * 1000, 0, 0, 0, 0, 1);
	T_EQ_INT("tl-3.11-add", trace_spans_add(&sp, &a->r), FGO_OK);
	T_EQ_INT("tl-3.12-dropped", sp.dropped, 6);
	T_EQ_INT("tl-3.13-kept", sp.n, CAP / 2);
	trace_spans_free(&sp);
	free(a);
	free(b);
}

int main(void)
{
	check_example();
	check_ranks();
	T_DONE();
}
