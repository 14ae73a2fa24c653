/* core_simt.h: the SIMT (FFMA) GEMM core, included by gemm_core.h. A and B
 * panels go through shared memory BLK_K at a time as fp32; thread t owns
 * outputs e = t + i * THREADS (row e / BLK_N, column e % BLK_N). Correct for
 * every dtype on every GPU: the reference for the tensor-core cores. */
#ifndef FGO_CORE_SIMT_H
#define FGO_CORE_SIMT_H

/* Dynamic shared memory: A panel BLK_M x BLK_K, then B panel BLK_K x BLK_N,
 * as fp32 (the host computes the same size: FGO_SIMT_SMEM_BYTES). */
#define SMEM_A 0
#define SMEM_B (BLK_M * BLK_K)

/* acc = A[r0.., k] x B[k, c0..] over the BLK_K slices [kb, ke). */
__device__ __forceinline__ void gemm_tile_k(const elem_t *a, const elem_t *b, long r0, long c0,
					    int kb, int ke, float (&acc)[ELEMS])
{
	extern __shared__ float smem[];
	float *as = smem + SMEM_A, *bs = smem + SMEM_B;
#pragma unroll
	for (int i = 0; i < ELEMS; i++)
		acc[i] = 0.f;
	for (long k0 = (long)kb * BLK_K; k0 < (long)ke * BLK_K; k0 += BLK_K) {
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

#endif
