/* gemm_core.h: the tunable tile GEMM every fused kernel is built on.
 * Compiled at run time with -D for every tunable:
 *   DTYPE (0 fp32, 1 fp16, 2 bf16), M_, N_ (this rank's tile space width),
 *   K_, LDA, LDB, BLK_M, BLK_N, BLK_K, NUM_WARPS, GSIZE_M.
 * One CTA computes one BLK_M x BLK_N output tile at a time (persistent over
 * tiles in grouped order, kernels/schedule.h); A and B panels go through
 * shared memory BLK_K at a time; each thread accumulates ELEMS outputs in
 * fp32 registers. Edges are masked, so any M, N, K is exact.
 *
 * This first core is plain SIMT (FFMA): correct everywhere, the reference
 * for the tensor-core paths (mma.sync, then wgmma) that replace its inner loop. */
#ifndef FGO_GEMM_CORE_H
#define FGO_GEMM_CORE_H

#include "hip_port.h"
#include "schedule.h"

#define THREADS (NUM_WARPS * 32)
#define ELEMS (BLK_M * BLK_N / THREADS)

#if DTYPE == 0
typedef float elem_t;
__device__ __forceinline__ float to_float(elem_t x) { return x; }
__device__ __forceinline__ elem_t from_float(float x) { return x; }
#elif DTYPE == 1
typedef fgo_half elem_t;
__device__ __forceinline__ float to_float(elem_t x) { return fgo_half2float(x); }
__device__ __forceinline__ elem_t from_float(float x) { return fgo_float2half(x); }
#else
typedef fgo_bf16 elem_t;
__device__ __forceinline__ float to_float(elem_t x) { return fgo_bf162float(x); }
__device__ __forceinline__ elem_t from_float(float x) { return fgo_float2bf16(x); }
#endif

/* Dynamic shared memory: A panel BLK_M x BLK_K, then B panel BLK_K x BLK_N,
 * as fp32 (the host computes the same size: gpu_shared_bytes). */
#define SMEM_A 0
#define SMEM_B (BLK_M * BLK_K)

__device__ __forceinline__ const elem_t *heap_elem(char *base, unsigned long long off)
{
	return (const elem_t *)(base + off);
}

/* acc[i] = sum over k of A[row][k] * B[k][col] for this thread's outputs
 * (output e = threadIdx.x + i * THREADS, row = e / BLK_N, col = e % BLK_N)
 * of the tile whose first element is (r0, c0). A is M_ x K_ (ld LDA), B is
 * K_ x N_ (ld LDB). */
__device__ __forceinline__ void gemm_tile(const elem_t *a, const elem_t *b, long r0, long c0,
					  float (&acc)[ELEMS])
{
	extern __shared__ float smem[];
	float *as = smem + SMEM_A, *bs = smem + SMEM_B;
#pragma unroll
	for (int i = 0; i < ELEMS; i++)
		acc[i] = 0.f;
	for (long k0 = 0; k0 < K_; k0 += BLK_K) {
		for (int e = threadIdx.x; e < BLK_M * BLK_K; e += THREADS) {
			long r = r0 + e / BLK_K, k = k0 + e % BLK_K;
			as[e] = r < M_ && k < K_ ? to_float(a[r * LDA + k]) : 0.f;
		}
		for (int e = threadIdx.x; e < BLK_K * BLK_N; e += THREADS) {
			long k = k0 + e / BLK_N, c = c0 + e % BLK_N;
			bs[e] = k < K_ && c < N_ ? to_float(b[k * LDB + c]) : 0.f;
		}
		__syncthreads();
#pragma unroll
		for (int i = 0; i < ELEMS; i++) {
			int e = threadIdx.x + i * THREADS, r = e / BLK_N, c = e % BLK_N;
			float s = acc[i];
#pragma unroll 8
			for (int k = 0; k < BLK_K; k++)
				s += as[r * BLK_K + k] * bs[k * BLK_N + c];
			acc[i] = s;
		}
		__syncthreads();
	}
}

/* Stores this thread's outputs of the tile at (r0, c0) into C (ld ldc),
 * masked at the edges. */
__device__ __forceinline__ void store_tile(elem_t *c, long ldc, long r0, long c0,
					   const float (&acc)[ELEMS])
{
#pragma unroll
	for (int i = 0; i < ELEMS; i++) {
		int e = threadIdx.x + i * THREADS;
		long r = r0 + e / BLK_N, col = c0 + e % BLK_N;
		if (r < M_ && col < N_)
			c[r * ldc + col] = from_float(acc[i]);
	}
}

/* Copies the tile at (r0, c0) from src to dst (both ld ldc), masked. */
__device__ __forceinline__ void copy_tile(elem_t *dst, const elem_t *src, long ldc, long r0,
					  long c0)
{
	for (int e = threadIdx.x; e < BLK_M * BLK_N; e += THREADS) {
		long r = r0 + e / BLK_N, col = c0 + e % BLK_N;
		if (r < M_ && col < N_)
			dst[r * ldc + col] = src[r * ldc + col];
	}
}

__device__ __forceinline__ struct sched_grid tile_grid(void)
{
	return sched_grid_make(M_, N_, K_, BLK_M, BLK_N, BLK_K);
}

/* Launch parameters every fgobench kernel takes (the host passes them in
 * this order): the heap bases of all ranks, this rank, the launch epoch,
 * the mode (0 fused, 1 GEMM only, 2 comm only) and the layout offsets. */
#define FGO_KERNEL_PARAMS                                                              \
	char *const *bases, int rank, unsigned int epoch, int mode, unsigned long long a_off, \
		unsigned long long b_off, unsigned long long c_off, unsigned long long flags_off, \
		unsigned long long status_off, unsigned long long timeout_ns

__device__ __forceinline__ unsigned long long fgo_now_ns(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

#endif
