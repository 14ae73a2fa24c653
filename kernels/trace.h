/* trace.h: the events of a traced launch, one buffer per CTA, shared by
 * the GPU kernels (compiled with -DFGO_TRACE=1 -DFGO_TRACE_CAP=N only when
 * `run --trace` asks: without FGO_TRACE every hook below is an empty
 * statement and the kernels compile as they always did), the CPU backend
 * (src/algos/kit.c records the same events) and the tool, which reads them
 * back (src/trace/). Plain C on the host, HIP/CUDA C++ on the device.
 *
 * An event is a kind, begin or end (a span is a begin and its end on the
 * same CTA and lane), a timestamp and five arguments. The timestamp is the
 * device's nanoseconds (fgo_now_ns: s_memrealtime on AMD, CLOCK_MONOTONIC
 * on the CPU), except on NVIDIA, where it is the SM's clock (clock64), and
 * each CTA's head keeps %globaltimer and the clock at its start and end, so
 * the host turns the clocks into nanoseconds (fgo_trace_to_ns). A lane is one of the CTA's threads that records
 * on its own: on the wgmma core the consumers (0), the storer (1) and the
 * side warps (2) run side by side, so their spans overlap in time but
 * nest within each lane.
 *
 * The device buffer (fgo_trace_buf, set by the host before a launch):
 *   FGO_TRACE_HEAD_BYTES: the reference timestamp (fgo_trace_ref, a tiny
 *     kernel launched just before, after the ranks' barrier) at offset 0;
 *   gridDim.x x struct fgo_trace_cta: events recorded (may pass the
 *     capacity: the rest are dropped and counted), threads exited, SM, the
 *     start and end (time, clock) pairs;
 *   gridDim.x x FGO_TRACE_CAP x struct fgo_trace_event. */
#ifndef FGO_TRACE_H
#define FGO_TRACE_H

/* The kinds; the arguments a0 .. a4 each records (-1: not known). */
enum fgo_trace_kind {
	FGO_TR_KERNEL = 0,   /* the CTA's life: a0 SM (CPU: core), a1 mode */
	FGO_TR_GEMM = 1,     /* a tile's MAC iterations: a0 tile, a1 tile row, a2 tile column, a3 k0, a4 k1 */
	FGO_TR_HANDOVER = 2, /* a partial into the exchange and its flag: a0 tile, a1 k0, a2 k1 */
	FGO_TR_TAKEOVER = 3, /* the other CTAs' partials waited for and added: a0 tile, a1 first CTA, a2 last */
	FGO_TR_PUT = 4,      /* a tile sent and its flags raised: a0 peer (-1: every destination), a1 bytes, a2 tile */
	FGO_TR_WAIT = 5,     /* a flag wait: a0 flag, a1 peer whose data it waits for (-1: several) */
	FGO_TR_REDUCE = 6,   /* a tile summed over ranks: a0 tile, a1 sources */
	FGO_TR_KINDS = 7
};

/* what = kind | FGO_TR_END (the span's end, else its begin) | lane << FGO_TR_LANE_SHIFT */
#define FGO_TR_END 0x100u
#define FGO_TR_LANE_SHIFT 12
#define FGO_TR_LANES 4
#define FGO_TR_KIND_OF(what) ((int)((what) & 0xffu))
#define FGO_TR_LANE_OF(what) ((int)(((what) >> FGO_TR_LANE_SHIFT) & 0xfu))

struct fgo_trace_event {
	unsigned long long ts; /* device nanoseconds */
	unsigned int what;     /* see FGO_TR_END */
	int a[5];
};

struct fgo_trace_cta {
	unsigned int count;  /* events recorded, including those past the capacity */
	unsigned int exited; /* threads of the CTA that returned (the last one ends FGO_TR_KERNEL) */
	unsigned int sm, pad;
	/* an NVIDIA launch's events hold the SM's clock (a cheaper read than
	 * %globaltimer), not device nanoseconds: the device time and the clock
	 * at the CTA's start and end, from which the host converts them
	 * (fgo_trace_to_ns) */
	unsigned long long ns0, clk0, ns1, clk1;
};

/* Host: the events of CTA cta from SM clocks to device nanoseconds, by the
 * CTA's start and end pairs (nothing when they are not there: the CPU
 * backend records nanoseconds). */
static inline void fgo_trace_to_ns(const struct fgo_trace_cta *h, struct fgo_trace_event *ev, int n)
{
	if (!(h->clk1 > h->clk0) || h->ns1 < h->ns0)
		return;
	const double scale = (double)(h->ns1 - h->ns0) / (double)(h->clk1 - h->clk0);
	for (int i = 0; i < n; i++) {
		const double d = ((double)ev[i].ts - (double)h->clk0) * scale;
		ev[i].ts = h->ns0 + (unsigned long long)(d > 0 ? d + 0.5 : 0);
	}
}

#define FGO_TRACE_HEAD_BYTES 64

/* One rank's buffer as the host holds it: the CPU backend records into
 * one (src/algos/kit.c), the GPU backend copies the device's into one. */
struct fgo_trace_rank {
	int rank;
	int ctas;                   /* CTAs (virtual CTAs on the CPU) */
	int cap;                    /* events kept per CTA */
	int cta;                    /* CPU: the virtual CTA recording now */
	unsigned long long ref_ns;  /* the reference timestamp, at the barrier */
	struct fgo_trace_cta *head; /* ctas */
	struct fgo_trace_event *ev; /* ctas x cap */
};

#if !defined(__CUDACC_RTC__) && !defined(__CUDACC__) && !defined(__HIPCC_RTC__) && \
	!defined(__HIPCC__)
/* Host: one event of CTA cta at ts into t (past the capacity: counted only). */
static inline void fgo_trace_host_rec(struct fgo_trace_rank *t, int cta, unsigned int what,
				      unsigned long long ts, int a0, int a1, int a2, int a3, int a4)
{
	if (!t || cta < 0 || cta >= t->ctas)
		return;
	unsigned int i = t->head[cta].count++;
	if (i >= (unsigned int)t->cap)
		return;
	struct fgo_trace_event *e = &t->ev[(unsigned long)cta * (unsigned long)t->cap + i];
	e->ts = ts;
	e->what = what;
	e->a[0] = a0;
	e->a[1] = a1;
	e->a[2] = a2;
	e->a[3] = a3;
	e->a[4] = a4;
}
#endif

#if defined(FGO_TRACE) && (defined(__CUDACC_RTC__) || defined(__CUDACC__) || \
			   defined(__HIPCC_RTC__) || defined(__HIPCC__))
#include "hip_port.h" /* fgo_now_ns */
#ifndef FGO_TRACE_CAP
#define FGO_TRACE_CAP 4096
#endif
extern "C" {
__device__ char *fgo_trace_buf; /* the host sets it (module global) before each launch */
}

__device__ __forceinline__ unsigned int fgo_trace_sm(void)
{
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
	unsigned int sm;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
	return sm;
#elif defined(FGO_HIP_BARE)
	/* clang without ROCm has no __smid(): the CU from the HW_ID register
	 * (hwreg 4, all 32 bits; gfx9: CU_ID 11:8, SH_ID 12, SE_ID 15:13), the
	 * CU's index as HIP's __smid numbers it. Not run on AMD hardware yet. */
	const unsigned int id = (unsigned int)__builtin_amdgcn_s_getreg(4 | (31 << 11));
	return (((id >> 13) & 7u) * 2u + ((id >> 12) & 1u)) * 16u + ((id >> 8) & 15u);
#else
	return (unsigned int)__smid();
#endif
}

__device__ __forceinline__ struct fgo_trace_cta *fgo_trace_head(void)
{
	return (struct fgo_trace_cta *)(fgo_trace_buf + FGO_TRACE_HEAD_BYTES) + blockIdx.x;
}

/* This CTA's events so far, in shared memory: an atomic on the global
 * head's count waits a round trip to L2 per event, and the comm CTAs of
 * sk_all_scatter, which record a wait and a put per tile, took 24% longer
 * for it on one H100. The CTA's last thread copies it to the head. */
__shared__ unsigned int fgo_trace_n;

/* The clock events are stamped with: the SM's cycle counter on NVIDIA
 * (cheap; converted on the host by the CTA's start and end pairs), the
 * device time itself on AMD. */
__device__ __forceinline__ unsigned long long fgo_trace_clock(void)
{
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
	return (unsigned long long)clock64();
#else
	return fgo_now_ns();
#endif
}

/* One event of this CTA (any one thread calls it). */
__device__ __forceinline__ void fgo_trace_rec(unsigned int what, int a0, int a1, int a2, int a3,
					      int a4)
{
	const unsigned long long ts = fgo_trace_clock();
	if (!fgo_trace_buf)
		return;
	const unsigned int i = atomicAdd(&fgo_trace_n, 1u);
	if (i >= FGO_TRACE_CAP)
		return;
	struct fgo_trace_event *e =
		(struct fgo_trace_event *)(fgo_trace_buf + FGO_TRACE_HEAD_BYTES +
					   (unsigned long long)gridDim.x * sizeof(struct fgo_trace_cta)) +
		(unsigned long long)blockIdx.x * FGO_TRACE_CAP + i;
	e->ts = ts;
	e->what = what;
	e->a[0] = a0;
	e->a[1] = a1;
	e->a[2] = a2;
	e->a[3] = a3;
	e->a[4] = a4;
}

/* The CTA's life: its begin from thread 0 on entry, its end from the last
 * thread to return (every thread passes the destructor, whatever its role). */
struct fgo_trace_scope {
	int mode;
	__device__ explicit fgo_trace_scope(int m) : mode(m)
	{
		if (threadIdx.x == 0) {
			fgo_trace_n = 0;
			if (fgo_trace_buf) {
				struct fgo_trace_cta *h = fgo_trace_head();
				h->sm = fgo_trace_sm();
				h->clk0 = fgo_trace_clock();
				h->ns0 = fgo_now_ns();
			}
			fgo_trace_rec(FGO_TR_KERNEL, (int)fgo_trace_sm(), m, -1, -1, -1);
		}
		__syncthreads(); /* the count is zero before any thread records */
	}
	__device__ ~fgo_trace_scope()
	{
		if (!fgo_trace_buf)
			return;
		__threadfence_block(); /* this thread's events counted before it is */
		if (atomicAdd(&fgo_trace_head()->exited, 1u) == blockDim.x - 1) {
			fgo_trace_rec(FGO_TR_KERNEL | FGO_TR_END, (int)fgo_trace_sm(), mode, -1, -1, -1);
			struct fgo_trace_cta *h = fgo_trace_head();
			h->count = atomicAdd(&fgo_trace_n, 0u);
			h->ns1 = fgo_now_ns();
			h->clk1 = fgo_trace_clock();
		}
	}
};

/* The reference timestamp of the launch that follows, taken right after
 * the ranks' barrier (src/gpu/backend_gpu.c). */
extern "C" __global__ void fgo_trace_ref(void)
{
	if (fgo_trace_buf)
		*(unsigned long long *)fgo_trace_buf = fgo_now_ns();
}

#define FGO_TRACE_KERNEL(mode) struct fgo_trace_scope fgo_trace_scope_(mode)
#define FGO_TRACE_EV(lane, what, a0, a1, a2, a3, a4)                                             \
	fgo_trace_rec((unsigned int)(what) | ((unsigned int)(lane) << FGO_TR_LANE_SHIFT), (int)(a0), \
		      (int)(a1), (int)(a2), (int)(a3), (int)(a4))
/* the same from thread tid == 0 of a team only */
#define FGO_TRACE_IF(cond, lane, what, a0, a1, a2, a3, a4)            \
	do {                                                           \
		if (cond)                                              \
			FGO_TRACE_EV(lane, what, a0, a1, a2, a3, a4); \
	} while (0)
#else
#define FGO_TRACE_KERNEL(mode) \
	do {                   \
	} while (0)
#define FGO_TRACE_EV(lane, what, a0, a1, a2, a3, a4) \
	do {                                         \
	} while (0)
#define FGO_TRACE_IF(cond, lane, what, a0, a1, a2, a3, a4) \
	do {                                               \
	} while (0)
#endif

#endif
