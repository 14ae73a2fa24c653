/* my_all_scatter.cu: GEMM + all-scatter, the GPU form (NVRTC / hiprtc),
 * written against kernels/fgo_user.h alone; the same algorithm as
 * my_all_scatter.c. CTA t computes tile t of this rank's M x N/W block of
 * C in shared memory (a plain SIMT loop: the point is the contract, not
 * the speed), stores it into its own C and every peer's C (peer memory is
 * addressed directly: NVLink or PCIe peer access), raises flag
 * rank * tiles + t on each peer, then waits for tile t of every peer. */
#include "fgo_user.h"

extern "C" __global__ void my_all_scatter(struct fgo_user_args a)
{
	extern __shared__ float acc[]; /* BLOCK_M x BLOCK_N: the manifest's shared_memory */
	const long long nw = a.n / a.world;
	const long long tiles_n = (nw + BLOCK_N - 1) / BLOCK_N;
	const long long tiles = (long long)gridDim.x;
	const long long t = blockIdx.x;
	const long long r0 = t / tiles_n * BLOCK_M, c0 = t % tiles_n * BLOCK_N;
	const long long rows = a.m - r0 < BLOCK_M ? a.m - r0 : BLOCK_M;
	const long long cols = nw - c0 < BLOCK_N ? nw - c0 : BLOCK_N;
	const long long ccol = a.rank * nw + c0;
	const int es = fgo_user_elem_size(FGO_DTYPE);

	if (FGO_USER_DO_GEMM) {
		const char *A = (const char *)FGO_USER_A(&a), *B = (const char *)FGO_USER_B(&a);
		char *C = (char *)FGO_USER_C(&a);
		for (long long e = threadIdx.x; e < rows * cols; e += blockDim.x) {
			long long i = e / cols, j = e % cols;
			float s = 0;
			for (long long k = 0; k < a.k; k++)
				s += fgo_user_load(A, (r0 + i) * a.a.ld + k, FGO_DTYPE) *
				     fgo_user_load(B, k * a.b.ld + c0 + j, FGO_DTYPE);
			acc[e] = s;
			fgo_user_store(C, (r0 + i) * a.c.ld + ccol + j, s, FGO_DTYPE);
		}
		__syncthreads();
	}
	if (!FGO_USER_DO_COMM)
		return;
	const char *mine = (const char *)FGO_USER_C(&a);
	for (int p = 0; p < a.world; p++) {
		if (p == a.rank)
			continue;
		char *theirs = (char *)fgo_user_at(&a, p, a.c.offset);
		for (long long e = threadIdx.x; e < rows * cols * es; e += blockDim.x) {
			long long i = e / (cols * es), b = e % (cols * es);
			long long at = ((r0 + i) * a.c.ld + ccol) * es + b;
			theirs[at] = mine[at];
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
}
