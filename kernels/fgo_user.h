/* fgo_user.h: the contract between fgobench and a kernel engineer's own
 * fused kernel. A kernel written against this header alone (plus its
 * manifest, README "Your own kernel") is swept, validated, timed against the
 * vendor sequence and stored like fgobench's own families.
 *
 * What fgobench does: it reads the manifest beside the source, picks the
 * family whose semantics the kernel implements ("family": all_scatter,
 * all_reduce, reduce_scatter, all_gather_gemm or gemm), lays out every rank's
 * symmetric heap as that family does (its sharding of A, B and C, its work
 * area), fills A and B, poisons C, launches the kernel once per rank, checks
 * every element of C against the family's reference, then times it. The
 * manifest adds what only the kernel knows: its tunables (each one a macro),
 * its launch (grid, block, dynamic shared memory as expressions of M, N, K,
 * W and the tunables), how many flags it needs and how much scratch.
 *
 * Entry points (the manifest's "entry" names them):
 *   C form (the CPU backend; compiled by fgobench with the system compiler
 *   into a shared object and loaded with dlopen):
 *       int ENTRY(const struct fgo_user_args *args, const struct fgo_user_cta *cta);
 *     called once per CTA of the grid, in order 0 .. count-1, one rank per
 *     process; returns FGO_USER_OK, FGO_USER_TIMEOUT (a wait gave up) or
 *     FGO_USER_FAILED (after writing why into args->err). CTAs run one after
 *     another on one thread: a CTA may wait for another rank's flags, or for
 *     flags of CTAs numbered below it, never for a later CTA of its own rank.
 *   GPU form (NVRTC / hiprtc, compiled like fgobench's own kernels):
 *       extern "C" __global__ void ENTRY(struct fgo_user_args args);
 *     CTAs that wait for each other's flags must all be resident at once
 *     (a waiter holding the SM its producer needs never ends): keep such
 *     a grid within what the GPU holds, as the shipped kernels do.
 *
 * Macros the compiler is given: each tunable's macro (its value), FGO_DTYPE
 * (FGO_USER_FP32, _FP16 or _BF16: the problem's element type) and, when the
 * manifest says "modes": true, FGO_MODE (FGO_USER_FUSED, _GEMM_ONLY or
 * _COMM_ONLY): the kernel then compiles out one half in the other two modes,
 * which gives t_gemm, t_comm and overlap like the shipped families; without
 * "modes" only the fused launch is timed. With "shape_macros": true the
 * problem is given too, as long constants: FGO_M, FGO_N, FGO_K (the global
 * problem, args->m, n, k) and FGO_W (the world), for a kernel whose loops
 * and addressing want them at compile time (as the shipped kernels'
 * M_, N_, K_ are); such a kernel is compiled once a problem (the kernel
 * cache keys it by them), one without once for every problem.
 *
 * Flags: FGO_USER_FLAGS(args) holds args->flags_count (the manifest's
 * "flags") unsigned ints on every rank, zero before the first launch of a
 * configuration and never reset after: a writer raises a flag to the
 * launch's epoch with fgo_user_raise after its data stores, a reader waits
 * with fgo_user_wait until it is at least the epoch (epochs only grow). A
 * wait gives up after the sweep's --timeout: the run is stored as a timeout
 * naming the flag.
 *
 * Only C11 (or CUDA / HIP C++) and this header: no other fgobench header is
 * needed. Including schedule.h and the other headers of kernels/ works too
 * (fgobench puts them on the include path). */
#ifndef FGO_USER_H
#define FGO_USER_H

#define FGO_USER_ABI 1 /* args->abi: what this header describes */

/* Element types (FGO_DTYPE, args->dtype): enum fgo_dtype's values. */
#define FGO_USER_FP32 0
#define FGO_USER_FP16 1
#define FGO_USER_BF16 2

/* Modes (FGO_MODE). */
#define FGO_USER_FUSED 0
#define FGO_USER_GEMM_ONLY 1
#define FGO_USER_COMM_ONLY 2
#ifndef FGO_MODE
#define FGO_MODE FGO_USER_FUSED
#endif
/* What this compilation does: both halves fused, or one of them. */
#define FGO_USER_DO_GEMM (FGO_MODE != FGO_USER_COMM_ONLY)
#define FGO_USER_DO_COMM (FGO_MODE != FGO_USER_GEMM_ONLY)

/* What the C form returns. */
#define FGO_USER_OK 0
#define FGO_USER_FAILED 1
#define FGO_USER_TIMEOUT 3

#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__HIPCC__) || defined(__HIPCC_RTC__)
#define FGO_USER_GPU 1
#include "hip_port.h" /* system-scope flag stores and loads, the GPU's clock */
#define FGO_USER_FN __device__ __forceinline__
#else
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#define FGO_USER_FN static inline
#endif

/* One rank's shard of a global matrix, row-major: element (i, j) of the
 * shard (global row row0 + i, column col0 + j) is at byte offset
 * (i * ld + j) * element size from the start of the shard. */
struct fgo_user_matrix {
	long long offset;     /* where the shard starts, in bytes from every rank's heap base */
	long long row0, rows; /* global rows held */
	long long col0, cols; /* global columns held */
	long long ld;         /* leading dimension, elements */
};

/* The one argument of every launch. The same offsets hold on every rank
 * (symmetric heap): peer r's copy of a buffer is fgo_user_at(args, r, offset). */
struct fgo_user_args {
	int abi;                        /* FGO_USER_ABI */
	int rank, world;                /* this rank and the ranks of the run */
	int dtype;                      /* FGO_DTYPE */
	long long m, n, k;              /* the global problem: C (M x N) = A (M x K) x B (K x N) */
	struct fgo_user_matrix a, b, c; /* this rank's shards, as the family shards them */
	long long work_offset;          /* the family's work area (all_reduce, reduce_scatter: a
					   partial C in dtype; all_gather_gemm: the gathered A) */
	long long work_bytes;           /*   0 where the family has none */
	long long workspace_offset;     /* the manifest's "workspace" bytes, 64-byte aligned */
	long long workspace_bytes;
	long long flags_offset;         /* the manifest's "flags" unsigned ints */
	long long flags_count;
	unsigned int epoch;             /* this launch's number: flags compare against it */
	unsigned int reserved;          /* 0 */
	char *const *heap;              /* heap[r]: rank r's heap base as this rank addresses it */
	long long deadline_ns;          /* C form: CLOCK_MONOTONIC time a wait gives up at */
	long long timeout_ns;           /* GPU form: how long a wait may take */
	char *err;                      /* C form: where a failing kernel says why (NUL-terminated) */
	long long err_len;              /*   its size; GPU form: NULL, 0 */
	unsigned int *status;           /* GPU form: this rank's status words (a timed-out wait
					   writes 1 and the flag's index + 1); C form: NULL */
};

/* The CTA a C-form call is (its blockIdx) and the launch around it. */
struct fgo_user_cta {
	int index;           /* blockIdx.x + grid[0] * (blockIdx.y + grid[1] * blockIdx.z) */
	int count;           /* grid[0] * grid[1] * grid[2] */
	int grid[3];         /* the manifest's "grid" */
	int block[3];        /* the manifest's "block" (threads a GPU CTA would have) */
	void *smem;          /* "shared_memory" bytes of scratch for this CTA (not zeroed) */
	long long smem_bytes;
};

/* Rank r's copy of the buffer at heap offset offset. */
FGO_USER_FN void *fgo_user_at(const struct fgo_user_args *a, int r, long long offset)
{
	return (void *)(a->heap[r] + offset);
}

/* This rank's shards and buffers. */
#define FGO_USER_A(args) fgo_user_at((args), (args)->rank, (args)->a.offset)
#define FGO_USER_B(args) fgo_user_at((args), (args)->rank, (args)->b.offset)
#define FGO_USER_C(args) fgo_user_at((args), (args)->rank, (args)->c.offset)
#define FGO_USER_FLAGS(args) ((unsigned int *)fgo_user_at((args), (args)->rank, (args)->flags_offset))

/* Bytes of one element of dtype. */
FGO_USER_FN int fgo_user_elem_size(int dtype)
{
	return dtype == FGO_USER_FP32 ? 4 : 2;
}

/* ---- elements: fp16 (IEEE binary16) and bf16 (the top half of a binary32)
 * to and from float, rounding to nearest even: the rounding fgobench's
 * reference and its own kernels use ---- */

#if defined(FGO_USER_GPU)
FGO_USER_FN unsigned int fgo_user_bits(float f)
{
	return __float_as_uint(f);
}
FGO_USER_FN float fgo_user_float(unsigned int u)
{
	return __uint_as_float(u);
}
#else
FGO_USER_FN unsigned int fgo_user_bits(float f)
{
	unsigned int u;
	memcpy(&u, &f, sizeof u);
	return u;
}
FGO_USER_FN float fgo_user_float(unsigned int u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}
#endif

FGO_USER_FN float fgo_user_from_fp16(unsigned short h)
{
	unsigned int sign = (unsigned int)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu,
		     man = h & 0x3ffu, u;
	if (exp == 0 && man == 0) {
		u = sign;
	} else if (exp == 0) { /* subnormal: normalise */
		int e = -1;
		do {
			e++;
			man <<= 1;
		} while (!(man & 0x400u));
		u = sign | ((unsigned int)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
	} else if (exp == 0x1f) {
		u = sign | 0x7f800000u | (man << 13);
	} else {
		u = sign | ((exp + 127 - 15) << 23) | (man << 13);
	}
	return fgo_user_float(u);
}

FGO_USER_FN unsigned short fgo_user_to_fp16(float f)
{
	unsigned int u = fgo_user_bits(f), absu = u & 0x7fffffffu;
	unsigned short sign = (unsigned short)((u >> 16) & 0x8000u);
	if (absu >= 0x7f800000u) /* inf or NaN */
		return (unsigned short)(sign | 0x7c00u | (absu > 0x7f800000u ? 0x200u : 0));
	if (absu >= 0x477ff000u) /* rounds past 65504 */
		return (unsigned short)(sign | 0x7c00u);
	if (absu < 0x38800000u) { /* subnormal or zero in fp16 */
		if (absu < 0x33000000u)
			return sign;
		unsigned int man = (absu & 0x7fffffu) | 0x800000u;
		int shift = 126 - (int)(absu >> 23);
		unsigned int half = 1u << (shift - 1), rest = man & ((1u << shift) - 1), r = man >> shift;
		if (rest > half || (rest == half && (r & 1u)))
			r++;
		return (unsigned short)(sign | r);
	}
	unsigned int r = absu - 0x38000000u; /* exponent 127 -> 15 */
	r += 0xfffu + ((r >> 13) & 1u);
	return (unsigned short)(sign | (r >> 13));
}

FGO_USER_FN float fgo_user_from_bf16(unsigned short h)
{
	return fgo_user_float((unsigned int)h << 16);
}

FGO_USER_FN unsigned short fgo_user_to_bf16(float f)
{
	unsigned int u = fgo_user_bits(f);
	if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu))
		return (unsigned short)((u >> 16) | 0x40); /* a NaN stays a NaN */
	u += 0x7fffu + ((u >> 16) & 1u);
	return (unsigned short)(u >> 16);
}

/* Element i of a buffer of dtype, as float. */
FGO_USER_FN float fgo_user_load(const void *p, long long i, int dtype)
{
	if (dtype == FGO_USER_FP16)
		return fgo_user_from_fp16(((const unsigned short *)p)[i]);
	if (dtype == FGO_USER_BF16)
		return fgo_user_from_bf16(((const unsigned short *)p)[i]);
	return ((const float *)p)[i];
}

/* Element i of a buffer of dtype = v, rounded to the dtype. */
FGO_USER_FN void fgo_user_store(void *p, long long i, float v, int dtype)
{
	if (dtype == FGO_USER_FP16)
		((unsigned short *)p)[i] = fgo_user_to_fp16(v);
	else if (dtype == FGO_USER_BF16)
		((unsigned short *)p)[i] = fgo_user_to_bf16(v);
	else
		((float *)p)[i] = v;
}

/* ---- flags ---- */

#if defined(FGO_USER_GPU)
/* Flag `index` of rank r raised to the epoch, after this thread's stores
 * (system scope: a peer GPU reads it). Call it from one thread, after a
 * barrier over the threads whose stores it announces. */
FGO_USER_FN void fgo_user_raise(const struct fgo_user_args *a, int r, long long index)
{
	fgo_fence_system();
	fgo_flag_release((unsigned int *)fgo_user_at(a, r, a->flags_offset) + index, a->epoch);
}

/* Waits until this rank's flag `index` reaches the epoch: FGO_USER_OK, or
 * FGO_USER_TIMEOUT after args->timeout_ns (or at once once another wait of
 * the launch gave up); the first to give up writes the status words. */
FGO_USER_FN int fgo_user_wait(const struct fgo_user_args *a, long long index)
{
	const unsigned int *f = (const unsigned int *)fgo_user_at(a, a->rank, a->flags_offset) + index;
	if ((int)(fgo_flag_acquire(f) - a->epoch) >= 0)
		return FGO_USER_OK;
	unsigned long long start = fgo_now_ns();
	while ((int)(fgo_flag_acquire(f) - a->epoch) < 0) {
		if (*(volatile unsigned int *)a->status)
			return FGO_USER_TIMEOUT;
		if (fgo_now_ns() - start > (unsigned long long)a->timeout_ns) {
			if (atomicCAS(a->status, 0u, 1u) == 0u)
				a->status[1] = (unsigned int)(index + 1);
			return FGO_USER_TIMEOUT;
		}
		fgo_sleep();
	}
	return FGO_USER_OK;
}
#else
/* Flag `index` of rank r raised to the epoch, after every store before it
 * (a release store). */
FGO_USER_FN void fgo_user_raise(const struct fgo_user_args *a, int r, long long index)
{
	unsigned int *f = (unsigned int *)fgo_user_at(a, r, a->flags_offset) + index;
	__atomic_store_n(f, a->epoch, __ATOMIC_RELEASE);
}

FGO_USER_FN long long fgo_user_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* Waits (yielding the core: ranks may share one) until this rank's flag
 * `index` reaches the epoch, then the data stored before it is visible (an
 * acquire load). FGO_USER_OK, or FGO_USER_TIMEOUT at args->deadline_ns with
 * args->err naming the flag. */
FGO_USER_FN int fgo_user_wait(const struct fgo_user_args *a, long long index)
{
	const unsigned int *f = (const unsigned int *)fgo_user_at(a, a->rank, a->flags_offset) + index;
	for (unsigned long spins = 0;; spins++) {
		unsigned int v = __atomic_load_n(f, __ATOMIC_ACQUIRE);
		if ((int)(v - a->epoch) >= 0)
			return FGO_USER_OK;
		if ((spins & 63) == 63 && fgo_user_now_ns() > a->deadline_ns) {
			if (a->err && a->err_len > 0)
				snprintf(a->err, (size_t)a->err_len,
					 "flag %lld of rank %d (of %lld) stayed at %u, waiting for epoch %u",
					 index, a->rank, a->flags_count, v, a->epoch);
			return FGO_USER_TIMEOUT;
		}
		sched_yield();
	}
}
#endif

#endif
