/* my_all_scatter.c: GEMM + all-scatter, the C form (CPU backend), written
 * against kernels/fgo_user.h alone. Family all_scatter: every rank holds
 * all of A (M x K) and the columns [rank * N/W, +N/W) of B; every rank must
 * end with all of C (M x N).
 *
 * CTA t computes tile t of this rank's M x N/W block (BLOCK_M x BLOCK_N,
 * row-major over the tiles), stores it into its own C and into every
 * peer's C at the same place (plain stores into the peers' heaps), raises
 * flag rank * tiles + t on each peer, then waits until every peer's tile t
 * has arrived here. BLOCK_M, BLOCK_N, FGO_DTYPE and FGO_MODE come from
 * fgobench as macros. */
#include "fgo_user.h"

int my_all_scatter(const struct fgo_user_args *a, const struct fgo_user_cta *cta)
{
	const long long nw = a->n / a->world;               /* this rank's columns */
	const long long tiles_n = (nw + BLOCK_N - 1) / BLOCK_N;
	const long long tiles = cta->count;
	const long long r0 = cta->index / tiles_n * BLOCK_M, c0 = cta->index % tiles_n * BLOCK_N;
	const long long rows = a->m - r0 < BLOCK_M ? a->m - r0 : BLOCK_M;
	const long long cols = nw - c0 < BLOCK_N ? nw - c0 : BLOCK_N;
	const int es = fgo_user_elem_size(FGO_DTYPE);
	/* this rank's block starts at global column rank * nw of C */
	const long long ccol = a->rank * nw + c0;

	if (FGO_USER_DO_GEMM) {
		const char *A = FGO_USER_A(a), *B = FGO_USER_B(a);
		char *C = FGO_USER_C(a);
		float *acc = cta->smem; /* BLOCK_M x BLOCK_N floats: the manifest's shared_memory */
		for (long long i = 0; i < rows * cols; i++)
			acc[i] = 0;
		for (long long i = 0; i < rows; i++)
			for (long long k = 0; k < a->k; k++) {
				float x = fgo_user_load(A, (r0 + i) * a->a.ld + k, FGO_DTYPE);
				for (long long j = 0; j < cols; j++)
					acc[i * cols + j] += x * fgo_user_load(B, k * a->b.ld + c0 + j, FGO_DTYPE);
			}
		for (long long i = 0; i < rows; i++)
			for (long long j = 0; j < cols; j++)
				fgo_user_store(C, (r0 + i) * a->c.ld + ccol + j, acc[i * cols + j], FGO_DTYPE);
	}
	if (!FGO_USER_DO_COMM)
		return FGO_USER_OK;
	/* push the tile to every peer, then say so there */
	const char *mine = FGO_USER_C(a);
	for (int p = 0; p < a->world; p++) {
		if (p == a->rank)
			continue;
		char *theirs = fgo_user_at(a, p, a->c.offset);
		for (long long i = 0; i < rows; i++) {
			long long at = ((r0 + i) * a->c.ld + ccol) * es;
			for (long long b = 0; b < cols * es; b++)
				theirs[at + b] = mine[at + b];
		}
		fgo_user_raise(a, p, (long long)a->rank * tiles + cta->index);
	}
	/* the same tile of every peer, here */
	for (int p = 0; p < a->world; p++) {
		if (p == a->rank)
			continue;
		int rc = fgo_user_wait(a, (long long)p * tiles + cta->index);
		if (rc != FGO_USER_OK)
			return rc;
	}
	return FGO_USER_OK;
}
