/* tiled_all_scatter.c: GEMM + all-scatter on fgobench's own schedule, the
 * C form (CPU backend). kernels/schedule.h is the tile order the shipped
 * families walk on the CPU and the GPU alike: sched_grid_make cuts this
 * rank's M x N/W block of C into BLK_M x BLK_N tiles, sched_tile_coords
 * gives the grouped ("swizzled") order of GSIZE_M tile rows, sched_dp_count
 * the tiles of each persistent CTA, sched_peer the order the peers are
 * served in. CTA c computes tiles c, c + CTAS, ..., pushes each into every
 * peer's C, raises flag rank * tiles + tile there, then waits for the same
 * tiles of every peer. */
#include "fgo_user.h"
#include "schedule.h"

/* acc (rows x cols floats) = A[r0.., :] x B[:, c0..] of this rank. */
static void tile_gemm(const struct fgo_user_args *a, long r0, long c0, int rows, int cols,
		      float *acc)
{
	const char *A = FGO_USER_A(a), *B = FGO_USER_B(a);
	for (int i = 0; i < rows * cols; i++)
		acc[i] = 0;
	for (int i = 0; i < rows; i++)
		for (long k = 0; k < a->k; k++) {
			float x = fgo_user_load(A, (r0 + i) * a->a.ld + k, FGO_DTYPE);
			for (int j = 0; j < cols; j++)
				acc[i * cols + j] += x * fgo_user_load(B, k * a->b.ld + c0 + j, FGO_DTYPE);
		}
}

int tiled_all_scatter(const struct fgo_user_args *a, const struct fgo_user_cta *cta)
{
	const long nw = a->n / a->world;
	const struct sched_grid g = sched_grid_make(a->m, nw, a->k, BLK_M, BLK_N, 64);
	const long mine = sched_dp_count(&g, cta->count, cta->index);
	const int es = fgo_user_elem_size(FGO_DTYPE);
	char *C = FGO_USER_C(a);

	for (long i = 0; i < mine; i++) {
		long tile = cta->index + i * cta->count, tm, tn;
		sched_tile_coords(&g, GSIZE_M, tile, &tm, &tn);
		long r0 = tm * BLK_M, c0 = tn * BLK_N, ccol = a->rank * nw + c0;
		int rows = (int)(a->m - r0 < BLK_M ? a->m - r0 : BLK_M);
		int cols = (int)(nw - c0 < BLK_N ? nw - c0 : BLK_N);
		if (FGO_USER_DO_GEMM) {
			float *acc = cta->smem; /* the manifest's shared_memory */
			tile_gemm(a, r0, c0, rows, cols, acc);
			for (int r = 0; r < rows; r++)
				for (int j = 0; j < cols; j++)
					fgo_user_store(C, (r0 + r) * a->c.ld + ccol + j, acc[r * cols + j], FGO_DTYPE);
		}
		if (!FGO_USER_DO_COMM)
			continue;
		for (int s = 1; s < a->world; s++) {
			int p = sched_peer(a->rank, a->world, s);
			char *theirs = fgo_user_at(a, p, a->c.offset);
			for (int r = 0; r < rows; r++) {
				long at = ((r0 + r) * a->c.ld + ccol) * es;
				for (long b = 0; b < (long)cols * es; b++)
					theirs[at + b] = C[at + b];
			}
			fgo_user_raise(a, p, (long long)a->rank * g.tiles + tile);
		}
	}
	if (!FGO_USER_DO_COMM)
		return FGO_USER_OK;
	for (long i = 0; i < mine; i++) {
		long tile = cta->index + i * cta->count;
		for (int s = 1; s < a->world; s++) {
			int p = sched_peer(a->rank, a->world, a->world - s);
			int rc = fgo_user_wait(a, (long long)p * g.tiles + tile);
			if (rc != FGO_USER_OK)
				return rc;
		}
	}
	return FGO_USER_OK;
}
