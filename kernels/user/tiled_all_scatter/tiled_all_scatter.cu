/* tiled_all_scatter.cu: the GPU form of tiled_all_scatter.c, on the same
 * kernels/schedule.h (its functions are __host__ __device__ under NVRTC and
 * hiprtc): CTAS persistent CTAs walk this rank's tiles in grouped order,
 * compute each in shared memory (a plain SIMT loop), store it into their
 * own C and every peer's, raise its flag on each peer, then wait for the
 * same tiles of every peer. */
#include "fgo_user.h"
#include "schedule.h"

extern "C" __global__ void tiled_all_scatter(struct fgo_user_args a)
{
	extern __shared__ float acc[]; /* BLK_M x BLK_N: the manifest's shared_memory */
	const long nw = a.n / a.world;
	const struct sched_grid g = sched_grid_make(a.m, nw, a.k, BLK_M, BLK_N, 64);
	const long mine = sched_dp_count(&g, (int)gridDim.x, (int)blockIdx.x);
	const int es = fgo_user_elem_size(FGO_DTYPE);
	char *C = (char *)FGO_USER_C(&a);
	const char *A = (const char *)FGO_USER_A(&a), *B = (const char *)FGO_USER_B(&a);

	for (long i = 0; i < mine; i++) {
		long tile = blockIdx.x + i * gridDim.x, tm, tn;
		sched_tile_coords(&g, GSIZE_M, tile, &tm, &tn);
		long r0 = tm * BLK_M, c0 = tn * BLK_N, ccol = a.rank * nw + c0;
		int rows = (int)(a.m - r0 < BLK_M ? a.m - r0 : BLK_M);
		int cols = (int)(nw - c0 < BLK_N ? nw - c0 : BLK_N);
		if (FGO_USER_DO_GEMM) {
			for (int e = threadIdx.x; e < rows * cols; e += blockDim.x) {
				int r = e / cols, j = e % cols;
				float s = 0;
				for (long k = 0; k < a.k; k++)
					s += fgo_user_load(A, (r0 + r) * a.a.ld + k, FGO_DTYPE) *
					     fgo_user_load(B, k * a.b.ld + c0 + j, FGO_DTYPE);
				acc[e] = s;
				fgo_user_store(C, (r0 + r) * a.c.ld + ccol + j, s, FGO_DTYPE);
			}
			__syncthreads();
		}
		if (!FGO_USER_DO_COMM)
			continue;
		for (int s = 1; s < a.world; s++) {
			int p = sched_peer(a.rank, a.world, s);
			char *theirs = (char *)fgo_user_at(&a, p, a.c.offset);
			for (long e = threadIdx.x; e < (long)rows * cols * es; e += blockDim.x) {
				long r = e / ((long)cols * es), b = e % ((long)cols * es);
				long at = ((r0 + r) * a.c.ld + ccol) * es + b;
				theirs[at] = C[at];
			}
			__syncthreads();
			if (threadIdx.x == 0)
				fgo_user_raise(&a, p, (long long)a.rank * g.tiles + tile);
		}
	}
	if (!FGO_USER_DO_COMM || threadIdx.x != 0)
		return;
	for (long i = 0; i < mine; i++) {
		long tile = blockIdx.x + i * gridDim.x;
		for (int s = 1; s < a.world; s++)
			if (fgo_user_wait(&a, (long long)sched_peer(a.rank, a.world, a.world - s) * g.tiles +
						     tile) != FGO_USER_OK)
				return;
	}
}
