/* cpu/gemm.c: the CPU tile GEMM. Operands are packed per K panel into fp32
 * (16-bit types converted once per panel, zero-padded to whole micro tiles)
 * and multiplied by a fixed-size register-blocked micro kernel whose
 * constant-trip inner loop the compiler vectorises at -O2. */
#include "cpu/gemm.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"

#define MR 4    /* micro tile rows: A values broadcast per step */
#define NR 8    /* micro tile columns: one or two vector registers wide */
#define KC 128  /* K panel: packed B panel of KC x NR stays in L1 per strip */

/* Packing buffers, grown on demand and kept: a rank calls this per tile,
 * and a malloc per call would show in the timings of small tiles. */
static _Thread_local float *pack_buf;
static _Thread_local size_t pack_cap;

static float *pack_space(size_t floats)
{
	if (floats > pack_cap) {
		float *p = realloc(pack_buf, floats * sizeof *p);
		if (!p)
			return NULL;
		pack_buf = p;
		pack_cap = floats;
	}
	return pack_buf;
}

/* dst[r * ldd + c] = float(src[r * lds + c]) for r < rows, c < cols. */
static void to_float(float *dst, long ldd, const void *src, long lds, long rows, long cols,
		     enum fgo_dtype t)
{
	for (long r = 0; r < rows; r++) {
		float *d = dst + r * ldd;
		if (t == FGO_FP32) {
			memcpy(d, (const float *)src + r * lds, (size_t)cols * sizeof *d);
		} else if (t == FGO_FP16) {
			const uint16_t *s = (const uint16_t *)src + r * lds;
			for (long c = 0; c < cols; c++)
				d[c] = fp16_to_float(s[c]);
		} else {
			const uint16_t *s = (const uint16_t *)src + r * lds;
			for (long c = 0; c < cols; c++)
				d[c] = bf16_to_float(s[c]);
		}
	}
}

/* c[MR x NR] (ldc) += ap[MR x kc] (ld kcp) x bp[kc x NR] (ld nbp). */
static void micro(float *restrict c, long ldc, const float *restrict ap, long kcp,
		  const float *restrict bp, long nbp, long kc, int rows, int cols)
{
	float r[MR][NR];
	memset(r, 0, sizeof r);
	for (long p = 0; p < kc; p++) {
		const float *restrict brow = bp + p * nbp;
		for (int i = 0; i < MR; i++) {
			float av = ap[i * kcp + p];
			for (int j = 0; j < NR; j++)
				r[i][j] += av * brow[j];
		}
	}
	if (rows == MR && cols == NR) {
		for (int i = 0; i < MR; i++)
			for (int j = 0; j < NR; j++)
				c[i * ldc + j] += r[i][j];
		return;
	}
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < cols; j++)
			c[i * ldc + j] += r[i][j];
}

void cpu_gemm_acc(float *acc, int bm, int bn, long kk, const void *a, long lda, const void *b,
		  long ldb, enum fgo_dtype t)
{
	long bmp = (bm + MR - 1) / MR * MR, bnp = (bn + NR - 1) / NR * NR;
	size_t es = dtype_size(t);
	float *ap = pack_space((size_t)(bmp + bnp) * KC);
	if (bm <= 0 || bn <= 0)
		return;
	if (!ap) { /* out of memory for the panels: slow but still correct */
		for (int i = 0; i < bm; i++)
			for (long p = 0; p < kk; p++) {
				float av = dtype_load(t, a, (size_t)(i * lda + p));
				for (int j = 0; j < bn; j++)
					acc[(long)i * bn + j] +=
						av * dtype_load(t, b, (size_t)(p * ldb + j));
			}
		return;
	}
	float *bp = ap + bmp * KC;

	for (long k0 = 0; k0 < kk; k0 += KC) {
		long kc = kk - k0 < KC ? kk - k0 : KC;
		/* A panel: bmp x kc (ld KC), pad rows zero; B panel: kc x bnp, pad columns zero. */
		to_float(ap, KC, (const char *)a + (size_t)k0 * es, lda, bm, kc, t);
		for (long i = bm; i < bmp; i++)
			memset(ap + i * KC, 0, (size_t)kc * sizeof *ap);
		to_float(bp, bnp, (const char *)b + (size_t)k0 * (size_t)ldb * es, ldb, kc, bn, t);
		if (bnp > bn)
			for (long p = 0; p < kc; p++)
				memset(bp + p * bnp + bn, 0, (size_t)(bnp - bn) * sizeof *bp);

		for (long j0 = 0; j0 < bn; j0 += NR) {
			int cols = bn - j0 < NR ? (int)(bn - j0) : NR;
			for (long i0 = 0; i0 < bm; i0 += MR) {
				int rows = bm - i0 < MR ? (int)(bm - i0) : MR;
				micro(acc + i0 * bn + j0, bn, ap + i0 * KC, KC, bp + j0, bnp, kc,
				      rows, cols);
			}
		}
	}
}

/* Blocks of the output small enough that their fp32 accumulator and the
 * packed panels stay in cache. */
#define GEMM_BM 64
#define GEMM_BN 128

void cpu_gemm(float *c, long ldc, long m, long n, long kk, const void *a, long lda, const void *b,
	      long ldb, enum fgo_dtype t)
{
	float acc[GEMM_BM * GEMM_BN];
	size_t es = dtype_size(t);
	for (long i0 = 0; i0 < m; i0 += GEMM_BM) {
		int bm = m - i0 < GEMM_BM ? (int)(m - i0) : GEMM_BM;
		for (long j0 = 0; j0 < n; j0 += GEMM_BN) {
			int bn = n - j0 < GEMM_BN ? (int)(n - j0) : GEMM_BN;
			memset(acc, 0, (size_t)bm * (size_t)bn * sizeof *acc);
			cpu_gemm_acc(acc, bm, bn, kk, (const char *)a + (size_t)(i0 * lda) * es,
				     lda, (const char *)b + (size_t)j0 * es, ldb, t);
			for (int i = 0; i < bm; i++)
				memcpy(c + (i0 + i) * ldc + j0, acc + i * bn,
				       (size_t)bn * sizeof *acc);
		}
	}
}

void cpu_tile_store(void *dst, long ld, const float *acc, int bm, int bn, enum fgo_dtype t)
{
	for (int i = 0; i < bm; i++) {
		const float *s = acc + (long)i * bn;
		if (t == FGO_FP32) {
			memcpy((float *)dst + i * ld, s, (size_t)bn * sizeof *s);
		} else if (t == FGO_FP16) {
			uint16_t *d = (uint16_t *)dst + i * ld;
			for (int j = 0; j < bn; j++)
				d[j] = float_to_fp16(s[j]);
		} else {
			uint16_t *d = (uint16_t *)dst + i * ld;
			for (int j = 0; j < bn; j++)
				d[j] = float_to_bf16(s[j]);
		}
	}
}

void cpu_tile_load_add(float *acc, const void *src, long ld, int bm, int bn, enum fgo_dtype t)
{
	for (int i = 0; i < bm; i++) {
		float *d = acc + (long)i * bn;
		if (t == FGO_FP32) {
			const float *s = (const float *)src + i * ld;
			for (int j = 0; j < bn; j++)
				d[j] += s[j];
		} else if (t == FGO_FP16) {
			const uint16_t *s = (const uint16_t *)src + i * ld;
			for (int j = 0; j < bn; j++)
				d[j] += fp16_to_float(s[j]);
		} else {
			const uint16_t *s = (const uint16_t *)src + i * ld;
			for (int j = 0; j < bn; j++)
				d[j] += bf16_to_float(s[j]);
		}
	}
}

void cpu_tile_copy(void *dst, long ldd, const void *src, long lds, int bm, int bn,
		   enum fgo_dtype t)
{
	size_t es = dtype_size(t);
	for (int i = 0; i < bm; i++)
		memcpy((char *)dst + (size_t)i * (size_t)ldd * es,
		       (const char *)src + (size_t)i * (size_t)lds * es, (size_t)bn * es);
}
