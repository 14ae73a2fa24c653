/* bad.c: a kernel with the bugs people make, one chosen by the BUG macro
 * (tests/e2e/38_user_kernel.sh): 0 none, 1 a wrong element (C[3][5] on
 * rank 0), 2 a flag never raised (it waits for flag 0, which nobody
 * raises), 3 a failure it reports itself. The GEMM is the plainest one:
 * one CTA computes this rank's columns of C (family all_scatter; at world
 * 1, all of C). */
#include "fgo_user.h"

int bad(const struct fgo_user_args *a, const struct fgo_user_cta *cta)
{
	const long long nw = a->n / a->world, c0 = a->rank * nw;
	const char *A = FGO_USER_A(a), *B = FGO_USER_B(a);
	char *C = FGO_USER_C(a);
	(void)cta;
	if (BUG == 2)
		return fgo_user_wait(a, 0);
	if (BUG == 3) {
		snprintf(a->err, (size_t)a->err_len, "bad: failing on purpose (BUG=3)");
		return FGO_USER_FAILED;
	}
	for (long long i = 0; i < a->m; i++)
		for (long long j = 0; j < nw; j++) {
			float s = 0;
			for (long long k = 0; k < a->k; k++)
				s += fgo_user_load(A, i * a->a.ld + k, FGO_DTYPE) *
				     fgo_user_load(B, k * a->b.ld + j, FGO_DTYPE);
			fgo_user_store(C, i * a->c.ld + c0 + j, s, FGO_DTYPE);
		}
	if (BUG == 1 && a->rank == 0)
		fgo_user_store(C, 3 * a->c.ld + 5, 1000.0f, FGO_DTYPE);
	return FGO_USER_OK;
}
