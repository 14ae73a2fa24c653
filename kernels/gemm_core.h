/* gemm_core.h: the tunable tile GEMM every fused kernel is built on.
 * Compiled at run time with -D for every tunable:
 *   DTYPE (0 fp32, 1 fp16, 2 bf16), M_, N_ (this rank's tile space width),
 *   K_, LDA, LDB, BLK_M, BLK_N, BLK_K, NUM_STAGES, NUM_WARPS, GSIZE_M.
 * One CTA computes one BLK_M x BLK_N output tile at a time (persistent over
 * tiles in grouped order, kernels/schedule.h). Two cores share one interface:
 *
 *   gemm_tile(a, b, r0, c0, acc)    acc = A[r0.., :] x B[:, c0..] (fp32)
 *   gemm_tile_k(a, b, r0, c0, kb, ke, acc)   the same over BLK_K slices [kb, ke)
 *   store_tile(c, ldc, r0, c0, acc) C tile = acc, rounded to elem_t, masked
 *
 * where acc is float[ELEMS], ELEMS = BLK_M * BLK_N / THREADS, in a layout
 * only the core knows. fp16 and bf16 on NVIDIA use the tensor-core core
 * (core_mma.h: mma.sync m16n8k16, ldmatrix, cp.async pipeline); on AMD
 * CDNA2/CDNA3 (gfx90a, gfx942) every dtype uses the matrix-core core
 * (core_mfma.h: v_mfma 16x16 or 32x32 by MMA); fp32 on NVIDIA and every
 * other AMD target use the SIMT core (core_simt.h), which is also the
 * reference the others are checked against.
 * With MMA=64 (Hopper, sm_90a) the core is core_wgmma.h instead: TMA, a
 * producer warpgroup and wgmma consumers, whole tiles at a time, behind
 * its own interface (wgmma_gemm with where A comes from and where C goes).
 * Edges are masked, so any M, N, K is exact. */
#ifndef FGO_GEMM_CORE_H
#define FGO_GEMM_CORE_H

#include "hip_port.h"
#include "schedule.h"
#include "tile_shape.h"

/* The AMD targets with the matrix cores core_mfma.h uses (the host's list:
 * gpu_arch_mfma in src/gpu/gpu_shape.c): CDNA2 and CDNA3. */
#if defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#define FGO_MFMA_TARGET 1
#else
#define FGO_MFMA_TARGET 0
#endif

/* A warp is a wavefront of 64 lanes on AMD (the host sizes the launch the
 * same way: src/gpu/gpu_shape.c) */
#if defined(__AMDGCN__)
#define THREADS (NUM_WARPS * FGO_LANES_AMD)
#else
#define THREADS (NUM_WARPS * FGO_LANES_NVIDIA)
#endif
#define K_ITERS ((int)((K_ + BLK_K - 1) / BLK_K))
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

/* Two adjacent outputs as one 4-byte store when C's layout allows it. */
struct alignas(4) elem_pair {
	elem_t x, y;
};

/* C[r][col] = v0, C[r][col + 1] = v1, rounded to elem_t, masked at the M
 * and N edges; one 4-byte store when `pairs` (C's rows and base are 4-byte
 * aligned) and both columns are inside. */
__device__ __forceinline__ void store_pair(elem_t *c, long ldc, long r, long col, float v0, float v1,
					   bool pairs)
{
	if (r >= M_)
		return;
	if (pairs && col + 1 < N_) {
		struct elem_pair e;
		e.x = from_float(v0);
		e.y = from_float(v1);
		*(struct elem_pair *)&c[r * ldc + col] = e;
	} else {
		if (col < N_)
			c[r * ldc + col] = from_float(v0);
		if (col + 1 < N_)
			c[r * ldc + col + 1] = from_float(v1);
	}
}

#if DTYPE != 0 && (defined(__CUDACC_RTC__) || defined(__CUDACC__)) && MMA == 64
#include "core_wgmma.h" /* its own interface: wgmma_gemm_walk (wgmma_walk.h) */
#else
#if DTYPE != 0 && (defined(__CUDACC_RTC__) || defined(__CUDACC__))
#include "core_mma.h"
#elif FGO_MFMA_TARGET && (MMA == 16 || MMA == 32)
#include "core_mfma.h"
#else
#include "core_simt.h"
#endif

__device__ __forceinline__ void gemm_tile(const elem_t *a, const elem_t *b, long r0, long c0,
					  float (&acc)[ELEMS])
{
	gemm_tile_k(a, b, r0, c0, 0, K_ITERS, acc);
}
#endif

__device__ __forceinline__ struct sched_grid tile_grid(void)
{
	return sched_grid_make(M_, N_, K_, BLK_M, BLK_N, BLK_K);
}

/* Launch parameters every fgobench kernel takes (the host passes them in
 * this order): the heap bases of all ranks, this rank, the launch epoch,
 * the mode (0 fused, 1 GEMM only, 2 comm only) and the layout offsets
 * (work_off: the family's scratch; status_off: the status words a wait
 * that gives up writes, see comm.h). */
#define FGO_KERNEL_PARAMS                                                              \
	char *const *bases, int rank, unsigned int epoch, int mode, unsigned long long a_off, \
		unsigned long long b_off, unsigned long long c_off, unsigned long long work_off, \
		unsigned long long flags_off, unsigned long long status_off,                   \
		unsigned long long timeout_ns

#endif
