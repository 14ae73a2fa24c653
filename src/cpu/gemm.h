/* cpu/gemm.h: the CPU tile GEMM, the reference every CPU algorithm and
 * baseline computes with: fp32 accumulation, 16-bit inputs converted per
 * panel, one rounding to the output type on store. */
#ifndef FGO_CPU_GEMM_H
#define FGO_CPU_GEMM_H

#include "config.h"

/* acc[bm x bn] (row-major, ld bn) += A[0:bm, 0:kk] x B[0:kk, 0:bn]; a points
 * at A's first element (lda elements per row), b at B's (ldb). */
void cpu_gemm_acc(float *acc, int bm, int bn, long kk, const void *a, long lda, const void *b,
		  long ldb, enum fgo_dtype t);

/* Plain reference GEMM of a whole block into float: c[m x n] (ldc) = A x B
 * (blocked, uses cpu_gemm_acc). */
void cpu_gemm(float *c, long ldc, long m, long n, long kk, const void *a, long lda, const void *b,
	      long ldb, enum fgo_dtype t);

/* dst (ld elements per row) = acc[bm x bn] (ld bn), rounded to t. */
void cpu_tile_store(void *dst, long ld, const float *acc, int bm, int bn, enum fgo_dtype t);

/* acc[bm x bn] (ld bn) += src (ld elements per row, type t). */
void cpu_tile_load_add(float *acc, const void *src, long ld, int bm, int bn, enum fgo_dtype t);

/* dst (ldd) = src (lds), bm x bn elements of type t, no conversion. */
void cpu_tile_copy(void *dst, long ldd, const void *src, long lds, int bm, int bn,
		   enum fgo_dtype t);

#endif
