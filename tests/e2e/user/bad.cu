/* bad.cu: the GPU form of bad.c (tests/gpu/user_errors.sh): BUG 1 a wrong
 * element (C[3][5] on rank 0), BUG 2 a flag never raised (it waits for
 * flag 0, which nobody raises). One CTA computes this rank's columns of C
 * with plain loops. */
#include "fgo_user.h"

extern "C" __global__ void bad(struct fgo_user_args a)
{
	const long long nw = a.n / a.world, c0 = a.rank * nw;
	const char *A = (const char *)FGO_USER_A(&a), *B = (const char *)FGO_USER_B(&a);
	char *C = (char *)FGO_USER_C(&a);

	if (BUG == 2) {
		if (threadIdx.x == 0)
			fgo_user_wait(&a, 0);
		return;
	}
	for (long long e = threadIdx.x; e < a.m * nw; e += blockDim.x) {
		const long long i = e / nw, j = e % nw;
		float s = 0;
		for (long long k = 0; k < a.k; k++)
			s += fgo_user_load(A, i * a.a.ld + k, FGO_DTYPE) *
			     fgo_user_load(B, k * a.b.ld + j, FGO_DTYPE);
		fgo_user_store(C, i * a.c.ld + c0 + j, s, FGO_DTYPE);
	}
	__syncthreads();
	if (BUG == 1 && a.rank == 0 && threadIdx.x == 0)
		fgo_user_store(C, 3 * a.c.ld + 5, 1000.0f, FGO_DTYPE);
}
