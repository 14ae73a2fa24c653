/* hostile.c: a kernel that goes wrong on purpose (tests/e2e/93_contain.sh),
 * the C form of my_all_scatter (kernels/user/) with a tunable FAULT. FAULT 0
 * and 9 compute the right C; the others misbehave on rank BAD_RANK (rank 0
 * alone), in its first CTA:
 *   1 dereferences NULL          5 loops for ever
 *   2 calls abort()              6 computes C, then writes into its own B
 *   3 calls exit(0)              7 computes C, then writes into a peer's A
 *   4 calls exit(3)              8 waits for a flag nobody raises */
#include <stdlib.h>

#include "fgo_user.h"

#ifndef BAD_RANK
#define BAD_RANK 1
#endif

static int misbehave(const struct fgo_user_args *a)
{
	switch (FAULT) {
	case 1: *(volatile int *)0 = 1; break;
	case 2: abort();
	case 3: exit(0);
	case 4: exit(3);
	case 5: for (volatile int spin = 1; spin;) {} break;
	case 8: return fgo_user_wait(a, a->flags_count - 1); /* the manifest's spare flag */
	}
	return FGO_USER_OK;
}

static void corrupt(const struct fgo_user_args *a)
{
	if (FAULT == 6) {
		char *b = (char *)FGO_USER_B(a);
		b[0] = b[1] = 0x7f; /* the same bytes each launch: an even count undoes no XOR */
	}
	if (FAULT == 7) {
		char *peer_a = fgo_user_at(a, (a->rank + 1) % a->world, a->a.offset);
		peer_a[0] = peer_a[1] = 0x7f;
	}
}

int hostile(const struct fgo_user_args *a, const struct fgo_user_cta *cta)
{
	const long long nw = a->n / a->world;
	const long long tiles_n = (nw + 31) / 32;
	const long long tiles = cta->count;
	const long long r0 = cta->index / tiles_n * 32, c0 = cta->index % tiles_n * 32;
	const long long rows = a->m - r0 < 32 ? a->m - r0 : 32;
	const long long cols = nw - c0 < 32 ? nw - c0 : 32;
	const int es = fgo_user_elem_size(FGO_DTYPE);
	const long long ccol = a->rank * nw + c0;
	/* alone (W = 1), rank 0 misbehaves */
	const int bad = a->rank == (a->world > 1 ? BAD_RANK : 0) && cta->index == 0;

	if (bad && FAULT != 6 && FAULT != 7) {
		int rc = misbehave(a);
		if (rc != FGO_USER_OK)
			return rc;
	}
	const char *A = FGO_USER_A(a), *B = FGO_USER_B(a);
	char *C = FGO_USER_C(a);
	for (long long i = 0; i < rows; i++)
		for (long long j = 0; j < cols; j++) {
			float acc = 0;
			for (long long k = 0; k < a->k; k++)
				acc += fgo_user_load(A, (r0 + i) * a->a.ld + k, FGO_DTYPE) *
				       fgo_user_load(B, k * a->b.ld + c0 + j, FGO_DTYPE);
			fgo_user_store(C, (r0 + i) * a->c.ld + ccol + j, acc, FGO_DTYPE);
		}
	for (int p = 0; p < a->world; p++) {
		if (p == a->rank)
			continue;
		char *theirs = fgo_user_at(a, p, a->c.offset);
		for (long long i = 0; i < rows; i++) {
			long long at = ((r0 + i) * a->c.ld + ccol) * es;
			for (long long b = 0; b < cols * es; b++)
				theirs[at + b] = C[at + b];
		}
		fgo_user_raise(a, p, (long long)a->rank * tiles + cta->index);
	}
	for (int p = 0; p < a->world; p++) {
		if (p == a->rank)
			continue;
		int rc = fgo_user_wait(a, (long long)p * tiles + cta->index);
		if (rc != FGO_USER_OK)
			return rc;
	}
	if (bad)
		corrupt(a);
	return FGO_USER_OK;
}
