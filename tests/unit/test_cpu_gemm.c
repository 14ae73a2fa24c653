/* test_cpu_gemm.c: the CPU tile GEMM and tile helpers against a naive
 * triple loop in double, for odd sizes, strided operands and every dtype. */
#include <stdint.h>
#include <stdlib.h>

#include "config.h"
#include "cpu/gemm.h"
#include "dtype.h"
#include "fgo.h"
#include "testlib.h"

/* Deterministic values in [-1, 1), rounded to t on store. */
static void fill(void *p, long n, enum fgo_dtype t, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 12345u;
	for (long i = 0; i < n; i++) {
		x = x * 1664525u + 1013904223u;
		dtype_store(t, p, (size_t)i, (float)(x >> 8) / (float)(1u << 23) - 1.0f);
	}
}

/* Largest |got - want| / sum |a_ik b_kj| over the m x n block. */
static double rel_err(const float *got, long ldg, long m, long n, long k, const void *a, long lda,
		      const void *b, long ldb, enum fgo_dtype t, double base_acc)
{
	double worst = 0;
	for (long i = 0; i < m; i++)
		for (long j = 0; j < n; j++) {
			double want = base_acc, scale = 1e-30;
			for (long p = 0; p < k; p++) {
				double x = dtype_load(t, a, (size_t)(i * lda + p));
				double y = dtype_load(t, b, (size_t)(p * ldb + j));
				want += x * y;
				scale += fabs(x * y);
			}
			double e = fabs(got[i * ldg + j] - want) / scale;
			if (!(e <= worst)) /* NaN-safe */
				worst = isnan(e) ? INFINITY : e;
		}
	return worst;
}

struct shape {
	long m, n, k;
	long pad;  /* extra elements per row of each operand: strided access */
};

static const struct shape shapes[] = {
	{ 1, 1, 1, 0 },   { 3, 5, 7, 0 },    { 4, 8, 128, 0 }, { 17, 33, 129, 3 },
	{ 64, 64, 64, 0 }, { 65, 127, 257, 5 }, { 31, 9, 300, 1 }, { 130, 140, 70, 2 },
};

int main(void)
{
	char id[64];
	for (int t = FGO_FP32; t <= FGO_BF16; t++) {
		for (size_t s = 0; s < FGO_ARRAY_SIZE(shapes); s++) {
			const struct shape *sh = &shapes[s];
			long lda = sh->k + sh->pad, ldb = sh->n + sh->pad, ldc = sh->n + sh->pad;
			size_t es = dtype_size((enum fgo_dtype)t);
			void *a = malloc((size_t)(sh->m * lda) * es);
			void *b = malloc((size_t)(sh->k * ldb) * es);
			float *c = malloc((size_t)(sh->m * ldc) * sizeof *c);
			fill(a, sh->m * lda, (enum fgo_dtype)t, (uint32_t)s + 1);
			fill(b, sh->k * ldb, (enum fgo_dtype)t, (uint32_t)s + 100);
			for (long i = 0; i < sh->m * ldc; i++)
				c[i] = NAN; /* cpu_gemm must overwrite, not accumulate */

			/* fp32 accumulation of k products: error ~ k * 2^-24 of the scale */
			double tol = 1e-6 * (double)(sh->k + 8);
			cpu_gemm(c, ldc, sh->m, sh->n, sh->k, a, lda, b, ldb, (enum fgo_dtype)t);
			snprintf(id, sizeof id, "gemm-%s-%ldx%ldx%ld", dtype_name((enum fgo_dtype)t),
				 sh->m, sh->n, sh->k);
			double e = rel_err(c, ldc, sh->m, sh->n, sh->k, a, lda, b, ldb,
					   (enum fgo_dtype)t, 0);
			T_CHECK(id, e <= tol, "relative error %.3g > %.3g", e, tol);

			/* cpu_gemm_acc accumulates onto what is there (acc = 1 + A x B). */
			if (sh->m <= 512 && sh->n <= 512) {
				float *acc = malloc((size_t)(sh->m * sh->n) * sizeof *acc);
				for (long i = 0; i < sh->m * sh->n; i++)
					acc[i] = 1.0f;
				cpu_gemm_acc(acc, (int)sh->m, (int)sh->n, sh->k, a, lda, b, ldb,
					     (enum fgo_dtype)t);
				snprintf(id, sizeof id, "acc-%s-%ldx%ldx%ld",
					 dtype_name((enum fgo_dtype)t), sh->m, sh->n, sh->k);
				e = rel_err(acc, sh->n, sh->m, sh->n, sh->k, a, lda, b, ldb,
					    (enum fgo_dtype)t, 1.0);
				T_CHECK(id, e <= tol + 1e-6, "relative error %.3g", e);
				free(acc);
			}
			free(a);
			free(b);
			free(c);
		}
	}

	/* Tile helpers: store rounds to the type, load_add adds back, copy is exact. */
	for (int t = FGO_FP32; t <= FGO_BF16; t++) {
		enum fgo_dtype dt = (enum fgo_dtype)t;
		float acc[3 * 5], back[3 * 5];
		uint16_t buf16[3 * 7];
		float buf32[3 * 7];
		void *dst = dt == FGO_FP32 ? (void *)buf32 : (void *)buf16;
		void *copy = malloc(sizeof buf32);
		for (int i = 0; i < 15; i++) {
			acc[i] = 0.1f * (float)(i - 7);
			back[i] = 1.0f;
		}
		for (int i = 0; i < 21; i++)
			dtype_store(dt, dst, (size_t)i, -99.0f); /* the gap columns must stay */
		cpu_tile_store(dst, 7, acc, 3, 5, dt);
		cpu_tile_load_add(back, dst, 7, 3, 5, dt);
		double worst = 0;
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 5; j++) {
				double want = 1.0 + (double)(dtype_load(dt, dst, (size_t)(i * 7 + j)));
				double e = fabs(back[i * 5 + j] - want);
				worst = e > worst ? e : worst;
			}
		snprintf(id, sizeof id, "tile-load-add-%s", dtype_name(dt));
		T_NEAR(id, worst, 0, 1e-6);
		snprintf(id, sizeof id, "tile-store-round-%s", dtype_name(dt));
		double tol = dt == FGO_FP32 ? 0 : dt == FGO_FP16 ? 1e-3 : 4e-3;
		T_NEAR(id, dtype_load(dt, dst, 1 * 7 + 4), acc[1 * 5 + 4], tol);
		snprintf(id, sizeof id, "tile-store-ld-%s", dtype_name(dt));
		T_NEAR(id, dtype_load(dt, dst, 5), -99.0, 0);
		cpu_tile_copy(copy, 7, dst, 7, 3, 5, dt);
		int same = 1;
		for (int i = 0; i < 3; i++)
			same &= memcmp((char *)copy + (size_t)i * 7 * dtype_size(dt),
				       (char *)dst + (size_t)i * 7 * dtype_size(dt),
				       5 * dtype_size(dt)) == 0;
		snprintf(id, sizeof id, "tile-copy-%s", dtype_name(dt));
		T_EQ_INT(id, same, 1);
		free(copy);
	}
	T_DONE();
}
