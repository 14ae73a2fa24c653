/* check.hip: the check's device half (src/gpu_check.c): the inputs made
 * where they live, the output poison, and every element of an output
 * compared with a kept fp32 reference. The fill uses kernels/inputs.h, the
 * generator the host uses too, so the device's inputs are the host's to
 * the bit; the compare is check_add's rule (src/check.c) in double.
 *
 * Matrices are row-major, rows x cols with leading dimension ld; dtype is
 * enum fgo_dtype (0 fp32, 1 fp16, 2 bf16). Loops are grid-stride over a
 * 2D grid (x: columns, y: rows), so no thread divides a 64-bit index and
 * any grid covers any size. */
#include "hip_port.h"
#include "inputs.h"

#ifndef CHECK_THREADS
#error "CHECK_THREADS (threads per CTA, a power of two) comes from the host: src/gpu_check.c"
#endif

/* Bits of floats and doubles (neither compiler declares the intrinsics
 * everywhere, hip_port.h says). */
union check_f32 {
	float f;
	unsigned int u;
};
union check_f64 {
	double d;
	unsigned long long u;
};

__device__ __forceinline__ void check_store(void *dst, int dtype, unsigned long long i, float v)
{
	if (dtype == 0)
		((float *)dst)[i] = v;
	else if (dtype == FGO_INPUTS_FP16)
		((fgo_half *)dst)[i] = fgo_float2half(v);
	else
		((fgo_bf16 *)dst)[i] = fgo_float2bf16(v);
}

__device__ __forceinline__ float check_load(const void *src, int dtype, unsigned long long i)
{
	if (dtype == 0)
		return ((const float *)src)[i];
	if (dtype == FGO_INPUTS_FP16)
		return fgo_half2float(((const fgo_half *)src)[i]);
	return fgo_bf162float(((const fgo_bf16 *)src)[i]);
}

/* Element (i, j) = input (seed, which, row0 + i, col0 + j) rounded to
 * dtype_in, stored as dtype_out (exact: the value is one of dtype_in's,
 * and dtype_out is dtype_in or fp32), |v| when absolute (the reference's
 * scale); columns cols..ld-1 zeroed, as input_fill does. */
extern "C" __global__ void __launch_bounds__(CHECK_THREADS)
	fgo_check_fill(void *dst, long rows, long cols, long ld, long row0, long col0,
		       unsigned long long seed, int which, int dtype_in, int dtype_out, int absolute)
{
	for (long i = blockIdx.y; i < rows; i += gridDim.y) {
		/* one row state per row and thread: two mixes, amortised over
		 * the row's columns */
		fgo_inputs_u64 state = fgo_input_row_state(seed, which, row0 + i);
		unsigned long long base = (unsigned long long)i * (unsigned long long)ld;
		for (long j = (long)blockIdx.x * blockDim.x + threadIdx.x; j < ld;
		     j += (long)gridDim.x * blockDim.x) {
			float v = 0.0f;
			if (j < cols) {
				v = fgo_input_at(state, col0 + j, dtype_in);
				if (absolute && v < 0.0f)
					v = -v;
			}
			check_store(dst, dtype_out, base + (unsigned long long)j, v);
		}
	}
}

/* n elements at dst set to output_poison's NaN pattern (src/check.c). */
extern "C" __global__ void __launch_bounds__(CHECK_THREADS)
	fgo_check_poison(void *dst, unsigned long long n, int dtype)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	const unsigned short nan16 = dtype == FGO_INPUTS_FP16 ? 0x7e00 : 0x7fc0;
	if (dtype == 0)
		for (; i < n; i += stride)
			((unsigned int *)dst)[i] = 0x7fc0bad0u;
	else
		for (; i < n; i += stride)
			((unsigned short *)dst)[i] = nan16;
}

/* The compare's running answer, one per thread, then per CTA. */
struct check_acc {
	unsigned long long bad, first, digest;
	double max_abs, max_rel;
};

/* check_add's rule for one element: g as stored (in float), w and s the
 * reference's want and scale, at the local row-major index. */
__device__ __forceinline__ void check_one(struct check_acc *acc, float g, double w, double s,
					  double tol, unsigned long long index)
{
	union check_f32 b;
	union check_f64 inf;
	b.f = g;
	inf.u = 0x7ff0000000000000ull;
	acc->digest += fgo_output_digest(index, g);
	const int finite = (b.u & 0x7f800000u) != 0x7f800000u;
	double abs_err = fabs((double)g - w);
	double rel_err = abs_err / (s > 1e-30 ? s : 1e-30);
	if (!finite)
		abs_err = rel_err = inf.d;
	if (abs_err > acc->max_abs)
		acc->max_abs = abs_err;
	if (rel_err > acc->max_rel)
		acc->max_rel = rel_err;
	/* a thread visits its elements in increasing index order: its first
	 * bad one is its least */
	if ((!finite || rel_err > tol) && acc->bad++ == 0)
		acc->first = index;
}

/* Every element of got (rows x cols, ld, dtype) against want and scale
 * (rows x cols, contiguous), by check_add's rule: abs = |got - want| and
 * rel = abs / max(scale, 1e-30) in double, both +inf for a got that is not
 * finite; bad when not finite or rel > tol. Into out (the host zeroes
 * [0..2] and sets [3] to ~0 first):
 *   out[0] += bad elements;
 *   out[1], out[2] = max abs, max rel, as the bits of non-negative
 *     doubles (+inf included), which order like the doubles themselves;
 *   out[3] = min of row * cols + col over bad elements (the first in
 *     row-major order);
 *   out[4] += the digest of every element (fgo_output_digest: the bits,
 *     whatever the order of the visit; the host zeroes it too).
 * Each thread keeps its own four, the CTA reduces them in shared memory,
 * and only then does one thread per CTA touch out: five atomics per CTA
 * (the host launches a few CTAs per SM), not per element. A NaN abs or rel
 * (a NaN want) compares false, as on the host: it raises no maximum.
 *
 * Memory-bound: a thread loads CHECK_UNROLL elements of a row (a stride of
 * the grid's width apart, so a warp's loads stay contiguous) before it
 * compares any, to keep enough loads in flight; the host sizes the grid's
 * width so a row gives each thread about that many. */
#define CHECK_UNROLL 4
extern "C" __global__ void __launch_bounds__(CHECK_THREADS)
	fgo_check_compare(const void *got, int dtype, long rows, long cols, long ld,
			  const float *__restrict__ want, const float *__restrict__ scale, double tol,
			  unsigned long long *out)
{
	__shared__ unsigned long long s_bad[CHECK_THREADS], s_first[CHECK_THREADS];
	__shared__ double s_abs[CHECK_THREADS], s_rel[CHECK_THREADS];
	__shared__ unsigned long long s_dig[CHECK_THREADS];
	const unsigned int t = threadIdx.x;
	const long step = (long)gridDim.x * blockDim.x;
	struct check_acc acc = { 0, ~0ull, 0, 0.0, 0.0 };

	for (long i = blockIdx.y; i < rows; i += gridDim.y) {
		const unsigned long long row = (unsigned long long)i * (unsigned long long)cols;
		const unsigned long long grow = (unsigned long long)i * (unsigned long long)ld;
		for (long j = (long)blockIdx.x * blockDim.x + t; j < cols; j += CHECK_UNROLL * step) {
			float g[CHECK_UNROLL], w[CHECK_UNROLL], s[CHECK_UNROLL];
#pragma unroll
			for (int u = 0; u < CHECK_UNROLL; u++) {
				const long ju = j + u * step;
				if (ju < cols) {
					g[u] = check_load(got, dtype, grow + (unsigned long long)ju);
					w[u] = want[row + (unsigned long long)ju];
					s[u] = scale[row + (unsigned long long)ju];
				}
			}
#pragma unroll
			for (int u = 0; u < CHECK_UNROLL; u++)
				if (j + u * step < cols)
					check_one(&acc, g[u], w[u], s[u], tol,
						  row + (unsigned long long)(j + u * step));
		}
	}
	s_bad[t] = acc.bad;
	s_first[t] = acc.first;
	s_abs[t] = acc.max_abs;
	s_rel[t] = acc.max_rel;
	s_dig[t] = acc.digest;
	__syncthreads();
	for (unsigned int half = CHECK_THREADS / 2; half > 0; half /= 2) {
		if (t < half) {
			s_bad[t] += s_bad[t + half];
			s_dig[t] += s_dig[t + half];
			if (s_first[t + half] < s_first[t])
				s_first[t] = s_first[t + half];
			if (s_abs[t + half] > s_abs[t])
				s_abs[t] = s_abs[t + half];
			if (s_rel[t + half] > s_rel[t])
				s_rel[t] = s_rel[t + half];
		}
		__syncthreads();
	}
	if (t == 0) {
		union check_f64 a, r;
		a.d = s_abs[0];
		r.d = s_rel[0];
		atomicAdd(&out[4], s_dig[0]);
		if (s_bad[0]) {
			atomicAdd(&out[0], s_bad[0]);
			atomicMin(&out[3], s_first[0]);
		}
		/* +0.0 is the start value: no atomic needed */
		if (a.u)
			atomicMax(&out[1], a.u);
		if (r.u)
			atomicMax(&out[2], r.u);
	}
}

/* A test hook's delay (FGOBENCH_PLANT_SLOW_NS, src/backend_gpu.c): one
 * thread spins on the global timer for ns nanoseconds, on the run's stream
 * after its kernel, so the timed launch is that much slower. */
extern "C" __global__ void fgo_check_spin(unsigned long long ns)
{
	const unsigned long long start = fgo_now_ns();
	while (fgo_now_ns() - start < ns)
		;
}
