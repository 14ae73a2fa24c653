/* hostile.cu: a GPU kernel that goes wrong on purpose (tests/gpu/contain.sh),
 * my_all_scatter's GPU form (kernels/user/) with a tunable FAULT. FAULT 0 and
 * 9 compute the right C; the others misbehave on rank BAD_RANK, in CTA 0:
 *   1 stores to address 0x10 (an illegal address: the context is lost)
 *   2 executes a trap (a launch failure: the context is lost)
 *   3 loops for ever (the host waits for it for ever)
 *   4 computes C, then writes into its own B */
#include "fgo_user.h"

#ifndef BAD_RANK
#define BAD_RANK 1
#endif

extern "C" __global__ void hostile(struct fgo_user_args a)
{
	const long long nw = a.n / a.world;
	const long long tiles_n = (nw + 31) / 32;
	const long long tiles = (long long)gridDim.x;
	const long long t = blockIdx.x;
	const long long r0 = t / tiles_n * 32, c0 = t % tiles_n * 32;
	const long long rows = a.m - r0 < 32 ? a.m - r0 : 32;
	const long long cols = nw - c0 < 32 ? nw - c0 : 32;
	const long long ccol = a.rank * nw + c0;
	const int es = fgo_user_elem_size(FGO_DTYPE);
	const int bad = a.rank == BAD_RANK && t == 0 && threadIdx.x == 0;

	if (bad && FAULT == 1)
		*(volatile int *)0x10 = 1;
	if (bad && FAULT == 2)
		__trap();
	/* a sleep in the loop: a spin on a volatile local compiled to a loop
	 * over a register (NVRTC's PTX) and ended on an H100; a nanosleep
	 * is an instruction no compiler may drop */
	if (bad && FAULT == 3)
		for (;;)
			fgo_sleep();
	const char *A = (const char *)FGO_USER_A(&a), *B = (const char *)FGO_USER_B(&a);
	char *C = (char *)FGO_USER_C(&a);
	for (long long e = threadIdx.x; e < rows * cols; e += blockDim.x) {
		long long i = e / cols, j = e % cols;
		float s = 0;
		for (long long k = 0; k < a.k; k++)
			s += fgo_user_load(A, (r0 + i) * a.a.ld + k, FGO_DTYPE) *
			     fgo_user_load(B, k * a.b.ld + c0 + j, FGO_DTYPE);
		fgo_user_store(C, (r0 + i) * a.c.ld + ccol + j, s, FGO_DTYPE);
	}
	__syncthreads();
	for (int p = 0; p < a.world; p++) {
		if (p == a.rank)
			continue;
		char *theirs = (char *)fgo_user_at(&a, p, a.c.offset);
		for (long long e = threadIdx.x; e < rows * cols * es; e += blockDim.x) {
			long long i = e / (cols * es), b = e % (cols * es);
			long long at = ((r0 + i) * a.c.ld + ccol) * es + b;
			theirs[at] = C[at];
		}
		__syncthreads();
		if (threadIdx.x == 0)
			fgo_user_raise(&a, p, (long long)a.rank * tiles + t);
	}
	if (threadIdx.x == 0)
		for (int p = 0; p < a.world; p++)
			if (p != a.rank && fgo_user_wait(&a, (long long)p * tiles + t) != FGO_USER_OK)
				break;
	__syncthreads();
	if (bad && FAULT == 4)
		((char *)FGO_USER_B(&a))[0] = 0x7f, ((char *)FGO_USER_B(&a))[1] = 0x7f;
}
