/* core_mfma.h: the matrix-core GEMM core for AMD CDNA2 (gfx90a: MI250X)
 * and CDNA3 (gfx942: MI300X, MI325X), included by gemm_core.h for those
 * targets. Same interface as the mma.sync core (gemm_tile_k, store_tile,
 * acc[ELEMS]), so every family runs on it unchanged.
 *
 * MMA 16 -> v_mfma_f32_16x16x16 (f16, bf16), MMA 32 -> v_mfma_f32_32x32x8;
 * fp32 runs on v_mfma_f32_16x16x4_f32 / v_mfma_f32_32x32x2_f32. Which lane
 * holds which element of A, B and D, and how the tile is split over the
 * wavefronts, is kernels/mfma_layout.h (host-compilable: the unit test
 * tests/unit/test_mfma.c runs the same functions in an emulator of the
 * instructions).
 *
 * NUM_WARPS wavefronts of 64 lanes (THREADS = 64 * NUM_WARPS on AMD).
 * Global -> LDS: 16-byte chunks through registers into a ring of
 * NUM_STAGES stages (gfx9 has no asynchronous copy into LDS a compiler
 * builtin reaches): the chunks of slice i + NUM_STAGES - 1 are loaded into
 * registers before slice i is multiplied and written to their stage after,
 * one barrier a slice. Out-of-range elements are zero-filled, so the inner
 * loop has no edges; store_tile clips. With K, N or a leading dimension not
 * a multiple of a chunk (8 16-bit or 4 fp32 elements) the loads go element
 * by element: slower, exact.
 *
 * LDS: A panel BLK_M x BLK_K (K contiguous), B panel BLK_K x BLK_N (N
 * contiguous), rows padded by 16 bytes (FGO_MFMA_STAGE_BYTES). A lane
 * reads its A fragment as one 8-byte word (4 consecutive K), its B
 * fragment element by element (4 rows of one column). */
#ifndef FGO_CORE_MFMA_H
#define FGO_CORE_MFMA_H

#include "mfma_layout.h"

#define MFMA_MN (MMA == 32 ? 32 : 16)
#define MFMA_ES ((int)sizeof(elem_t))
static constexpr struct mfma_tile MFT =
	mfma_tile_make(BLK_M, BLK_N, NUM_WARPS, MFMA_MN, MFMA_ES);
static constexpr int MF_K = MFT.k, MF_KPL = MFT.kpl, MF_REGS = MFT.regs;
static constexpr int MF_MI = MFT.mi, MF_NI = MFT.ni;
static constexpr int MF_VEC = 16 / MFMA_ES;            /* elements in a 16-byte chunk */
static constexpr int LDS_A = BLK_K + MF_VEC;           /* padded row pitches, in elements */
static constexpr int LDS_B = BLK_N + MF_VEC;
static constexpr int STAGE_ELEMS = BLK_M * LDS_A + BLK_K * LDS_B;
static constexpr int A_CHUNKS = BLK_M * BLK_K / MF_VEC, B_CHUNKS = BLK_K * BLK_N / MF_VEC;
static constexpr int A_LOADS = (A_CHUNKS + THREADS - 1) / THREADS;
static constexpr int B_LOADS = (B_CHUNKS + THREADS - 1) / THREADS;
#define ROWS_16B (K_ % MF_VEC == 0 && N_ % MF_VEC == 0 && LDA % MF_VEC == 0 && LDB % MF_VEC == 0)

static_assert(MFT.waves_m * MFT.waves_n == NUM_WARPS && MF_MI * MFT.mn * MFT.waves_m == BLK_M &&
		      MF_NI * MFT.mn * MFT.waves_n == BLK_N,
	      "the wavefronts' instruction tiles must cover the CTA tile (src/gpu/gpu_shape.c)");
static_assert(MF_MI * MF_NI * MF_REGS == ELEMS, "accumulators per thread");
static_assert(BLK_K % MF_K == 0 && BLK_K % MF_VEC == 0 && BLK_N % MF_VEC == 0,
	      "BLK_K must be a multiple of the instruction's K and of a 16-byte chunk");
static_assert(STAGE_ELEMS * MFMA_ES * NUM_STAGES == FGO_MFMA_SMEM_BYTES(BLK_M, BLK_N, BLK_K, MFMA_ES, NUM_STAGES),
	      "the host sizes the LDS with tile_shape.h");

typedef float fgo_mf_f4 __attribute__((ext_vector_type(4)));
typedef float fgo_mf_f16 __attribute__((ext_vector_type(16)));
typedef short fgo_mf_s4 __attribute__((ext_vector_type(4)));
typedef _Float16 fgo_mf_h4 __attribute__((ext_vector_type(4)));
#if DTYPE == 0
typedef float mf_frag; /* one fp32 of K per lane */
#else
typedef fgo_mf_s4 mf_frag; /* four 16-bit elements of K per lane */
#endif

/* acc[at .. at + MF_REGS) += a x b: one instruction on this wavefront. */
__device__ __forceinline__ void mfma_step(float *acc, mf_frag a, mf_frag b)
{
#if MFMA_MN == 16
	fgo_mf_f4 c = { acc[0], acc[1], acc[2], acc[3] };
#if DTYPE == 0
	c = __builtin_amdgcn_mfma_f32_16x16x4f32(a, b, c, 0, 0, 0);
#elif DTYPE == 1
	c = __builtin_amdgcn_mfma_f32_16x16x16f16(__builtin_bit_cast(fgo_mf_h4, a),
						   __builtin_bit_cast(fgo_mf_h4, b), c, 0, 0, 0);
#else
	c = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, c, 0, 0, 0);
#endif
#pragma unroll
	for (int r = 0; r < 4; r++)
		acc[r] = c[r];
#else
	fgo_mf_f16 c;
#pragma unroll
	for (int r = 0; r < 16; r++)
		c[r] = acc[r];
#if DTYPE == 0
	c = __builtin_amdgcn_mfma_f32_32x32x2f32(a, b, c, 0, 0, 0);
#elif DTYPE == 1
	c = __builtin_amdgcn_mfma_f32_32x32x8f16(__builtin_bit_cast(fgo_mf_h4, a),
						  __builtin_bit_cast(fgo_mf_h4, b), c, 0, 0, 0);
#else
	c = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c, 0, 0, 0);
#endif
#pragma unroll
	for (int r = 0; r < 16; r++)
		acc[r] = c[r];
#endif
}

/* This thread's chunks of the slice at k0 into registers, zeros past the
 * edges. Chunk c of the A panel is row c / (BLK_K / VEC), columns
 * c % (BLK_K / VEC) * VEC ..; of the B panel likewise with BLK_N. */
__device__ __forceinline__ void mf_load(const elem_t *a, const elem_t *b, long r0, long c0, long k0,
					uint4 (&ra)[A_LOADS], uint4 (&rb)[B_LOADS])
{
#pragma unroll
	for (int p = 0; p < A_LOADS; p++) {
		const int c = (int)threadIdx.x + p * THREADS;
		const long r = r0 + c / (BLK_K / MF_VEC), k = k0 + c % (BLK_K / MF_VEC) * MF_VEC;
		uint4 u = make_uint4(0, 0, 0, 0);
		if (A_CHUNKS % THREADS != 0 && c >= A_CHUNKS) {
		} else if (ROWS_16B) {
			if (r < M_ && k < K_)
				u = *(const uint4 *)(a + r * LDA + k);
		} else {
			elem_t e[MF_VEC];
#pragma unroll
			for (int v = 0; v < MF_VEC; v++)
				e[v] = r < M_ && k + v < K_ ? a[r * LDA + k + v] : from_float(0.f);
			__builtin_memcpy(&u, e, 16);
		}
		ra[p] = u;
	}
#pragma unroll
	for (int p = 0; p < B_LOADS; p++) {
		const int c = (int)threadIdx.x + p * THREADS;
		const long k = k0 + c / (BLK_N / MF_VEC), col = c0 + c % (BLK_N / MF_VEC) * MF_VEC;
		uint4 u = make_uint4(0, 0, 0, 0);
		if (B_CHUNKS % THREADS != 0 && c >= B_CHUNKS) {
		} else if (ROWS_16B) {
			if (k < K_ && col < N_)
				u = *(const uint4 *)(b + k * LDB + col);
		} else {
			elem_t e[MF_VEC];
#pragma unroll
			for (int v = 0; v < MF_VEC; v++)
				e[v] = k < K_ && col + v < N_ ? b[k * LDB + col + v] : from_float(0.f);
			__builtin_memcpy(&u, e, 16);
		}
		rb[p] = u;
	}
}

/* The registers of mf_load into the stage at st. */
__device__ __forceinline__ void mf_store(elem_t *st, const uint4 (&ra)[A_LOADS],
					 const uint4 (&rb)[B_LOADS])
{
#pragma unroll
	for (int p = 0; p < A_LOADS; p++) {
		const int c = (int)threadIdx.x + p * THREADS;
		if (A_CHUNKS % THREADS == 0 || c < A_CHUNKS)
			*(uint4 *)(st + c / (BLK_K / MF_VEC) * LDS_A + c % (BLK_K / MF_VEC) * MF_VEC) = ra[p];
	}
#pragma unroll
	for (int p = 0; p < B_LOADS; p++) {
		const int c = (int)threadIdx.x + p * THREADS;
		if (B_CHUNKS % THREADS == 0 || c < B_CHUNKS)
			*(uint4 *)(st + BLK_M * LDS_A + c / (BLK_N / MF_VEC) * LDS_B +
				   c % (BLK_N / MF_VEC) * MF_VEC) = rb[p];
	}
}

/* acc += the stage's A panel x B panel for this wavefront's part of the
 * tile, BLK_K / MF_K instruction steps. */
__device__ __forceinline__ void mf_stage(const elem_t *st, float (&acc)[ELEMS])
{
	const int lane = (int)threadIdx.x % MFMA_LANES, wave = (int)threadIdx.x / MFMA_LANES;
	const int wm0 = wave / MFT.waves_n * MFT.wave_m, wn0 = wave % MFT.waves_n * MFT.wave_n;
	const elem_t *as = st + (wm0 + mfma_a_row(MFMA_MN, lane)) * LDS_A + mfma_a_k(MFMA_MN, MF_KPL, lane, 0);
	const elem_t *bs = st + BLK_M * LDS_A + wn0 + mfma_b_col(MFMA_MN, lane);
#pragma unroll
	for (int s = 0; s < BLK_K / MF_K; s++) {
		mf_frag af[MF_MI], bf[MF_NI];
#pragma unroll
		for (int i = 0; i < MF_MI; i++) {
			const elem_t *p = as + i * MFMA_MN * LDS_A + s * MF_K;
#if DTYPE == 0
			af[i] = *p;
#else
			af[i] = *(const fgo_mf_s4 *)p; /* 8 bytes: the K elements are adjacent */
#endif
		}
#pragma unroll
		for (int j = 0; j < MF_NI; j++) {
#if DTYPE == 0
			bf[j] = bs[(s * MF_K + mfma_b_k(MFMA_MN, MF_KPL, lane, 0)) * LDS_B + j * MFMA_MN];
#else
#pragma unroll
			for (int v = 0; v < MF_KPL; v++)
				bf[j][v] = *(const short *)&bs[(s * MF_K + mfma_b_k(MFMA_MN, MF_KPL, lane, v)) * LDS_B +
							      j * MFMA_MN];
#endif
		}
#pragma unroll
		for (int i = 0; i < MF_MI; i++)
#pragma unroll
			for (int j = 0; j < MF_NI; j++)
				mfma_step(&acc[(i * MF_NI + j) * MF_REGS], af[i], bf[j]);
	}
}

/* acc = A[r0.., k] x B[k, c0..] over the BLK_K slices [kb, ke). */
__device__ __forceinline__ void gemm_tile_k(const elem_t *a, const elem_t *b, long r0, long c0,
					    int kb, int ke, float (&acc)[ELEMS])
{
	extern __shared__ __align__(16) unsigned char smem_raw[];
	elem_t *const lds = (elem_t *)smem_raw;
	uint4 ra[A_LOADS], rb[B_LOADS];
	const int n = ke - kb;
#pragma unroll
	for (int i = 0; i < ELEMS; i++)
		acc[i] = 0.f;
	__syncthreads(); /* every wavefront is done with the previous tile's stages */
#if NUM_STAGES == 1
	for (int i = 0; i < n; i++) {
		mf_load(a, b, r0, c0, (long)(kb + i) * BLK_K, ra, rb);
		mf_store(lds, ra, rb);
		__syncthreads();
		mf_stage(lds, acc);
		__syncthreads();
	}
#else
	/* slot (i + NUM_STAGES - 1) % NUM_STAGES, written after slice i is
	 * multiplied, is the one slice i - 1 was read from: the barrier that
	 * ends each slice frees it */
	for (int s = 0; s < NUM_STAGES - 1 && s < n; s++) {
		mf_load(a, b, r0, c0, (long)(kb + s) * BLK_K, ra, rb);
		mf_store(lds + s * STAGE_ELEMS, ra, rb);
	}
	__syncthreads();
	for (int i = 0; i < n; i++) {
		const bool ahead = i + NUM_STAGES - 1 < n;
		if (ahead) /* in flight while the matrix cores work */
			mf_load(a, b, r0, c0, (long)(kb + i + NUM_STAGES - 1) * BLK_K, ra, rb);
		mf_stage(lds + i % NUM_STAGES * STAGE_ELEMS, acc);
		if (ahead)
			mf_store(lds + (i + NUM_STAGES - 1) % NUM_STAGES * STAGE_ELEMS, ra, rb);
		__syncthreads();
	}
#endif
}

__device__ __forceinline__ void store_tile(elem_t *c, long ldc, long r0, long c0,
					   const float (&acc)[ELEMS])
{
	constexpr struct mfma_tile t = MFT; /* a copy: device code cannot take a host variable's address */
#pragma unroll
	for (int e = 0; e < ELEMS; e++) {
		int row = 0, col = 0;
		mfma_acc_coords(&t, (int)threadIdx.x, e, &row, &col);
		if (r0 + row < M_ && c0 + col < N_)
			c[(r0 + row) * ldc + c0 + col] = from_float(acc[e]);
	}
}

#endif
