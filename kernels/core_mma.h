/* core_mma.h: the tensor-core GEMM core for fp16 and bf16 on NVIDIA,
 * included by gemm_core.h.
 *
 * Global -> shared: cp.async 16-byte chunks into a ring of NUM_STAGES
 * stages, NUM_STAGES - 1 BLK_K slices in flight ahead of the one being
 * multiplied (out-of-range chunks are zero-filled, so edges cost nothing in
 * the inner loop). Shared -> registers: ldmatrix (.trans for B, which is
 * K x N row-major). Math: mma.sync m16n8k16 with fp32 accumulators.
 *
 * The warps of a CTA split the tile WARPS_M x WARPS_N (tile_shape.h); each
 * warp owns WARP_M x WARP_N outputs as MI x NI mma tiles of 16 x 8. Thread
 * layout of acc: acc[(i * NI + j) * 4 + q] is row i*16 + lane/4 (+8 for
 * q >= 2), column j*8 + (lane%4)*2 + (q & 1) of the warp's tile.
 *
 * When K or N is not a multiple of 8 (rows not 16-byte aligned), chunks are
 * loaded element by element with ordinary shared stores instead: slower,
 * exact. */
#ifndef FGO_CORE_MMA_H
#define FGO_CORE_MMA_H

#define WARPS_M FGO_WARPS_M(NUM_WARPS, BLK_M, BLK_N)
#define WARPS_N FGO_WARPS_N(NUM_WARPS, BLK_M, BLK_N)
#define WARP_M (BLK_M / WARPS_M)
#define WARP_N (BLK_N / WARPS_N)
#define MI (WARP_M / 16)
#define NI (WARP_N / 8)
#define LDS_A (BLK_K + FGO_SMEM_PAD) /* shared row pitches, in elements */
#define LDS_B (BLK_N + FGO_SMEM_PAD)
#define STAGE_ELEMS (BLK_M * LDS_A + BLK_K * LDS_B)
#define ROWS_16B (K_ % 8 == 0 && N_ % 8 == 0 && LDA % 8 == 0 && LDB % 8 == 0)

static_assert(MI * NI * 4 == ELEMS, "warp tiles must cover the CTA tile");
static_assert(BLK_K % 16 == 0, "BLK_K must be a multiple of the mma K (16)");
static_assert(NI % 2 == 0, "a warp's N extent must be a multiple of 16");

__device__ __forceinline__ unsigned int smem_addr(const void *p)
{
	return (unsigned int)__cvta_generic_to_shared(p);
}

/* 16 bytes global -> shared (at shared address dst), bypassing L1;
 * bytes = 0 writes zeros. */
__device__ __forceinline__ void cp_async16_at(unsigned int dst, const void *src, int bytes)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src),
		     "r"(bytes)
		     : "memory");
}
__device__ __forceinline__ void cp_async_commit(void)
{
	asm volatile("cp.async.commit_group;" ::: "memory");
}
template <int N> __device__ __forceinline__ void cp_async_wait(void)
{
	asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

__device__ __forceinline__ void ldmatrix_x4(unsigned int (&r)[4], unsigned int addr)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
		     : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned int (&r)[4], unsigned int addr)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
		     : "r"(addr));
}

/* d += a x b for one 16 x 8 x 16 tile. */
__device__ __forceinline__ void mma_16816(float *d, const unsigned int (&a)[4], unsigned int b0,
					  unsigned int b1)
{
#if DTYPE == 1
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
#else
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
#endif
		     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* Shared-memory layout of one stage: the A panel, then the B panel. */
#define STAGE_BYTES (2 * STAGE_ELEMS)
#define SB_OFF (2 * BLK_M * LDS_A)

/* Global -> shared chunk assignment. Thread t loads the 8-element chunks
 * t, t + THREADS, ... of each panel; when THREADS is a multiple of the
 * chunks per row, those chunks sit at the same column a whole number of
 * rows apart, so every address is one per-thread base plus a compile-time
 * offset (no index arithmetic in the main loop). */
#define A_CPR (BLK_K / 8) /* chunks per row */
#define B_CPR (BLK_N / 8)
#define A_RPP (THREADS / A_CPR) /* rows per pass */
#define B_RPP (THREADS / B_CPR)
#define A_PASSES ((BLK_M + A_RPP - 1) / A_RPP)
#define B_PASSES ((BLK_K + B_RPP - 1) / B_RPP)
#define FIXED_CHUNKS (ROWS_16B && THREADS % A_CPR == 0 && THREADS % B_CPR == 0)

struct tile_loader {
	const elem_t *a, *b; /* the operands */
	const elem_t *ga;    /* this thread's first A chunk at k = 0 */
	const elem_t *gb;    /* this thread's first B chunk at k = 0 */
	unsigned int sa, sb; /* its byte offsets within a stage */
	int ra, ca, rb, cb;  /* its first chunk: row and column in the panels */
	long r0, c0;
	bool mn_full;        /* the tile has no M or N edge */
};

__device__ __forceinline__ void loader_init(struct tile_loader *l, const elem_t *a,
					    const elem_t *b, long r0, long c0)
{
	int t = threadIdx.x;
	l->a = a;
	l->b = b;
	l->r0 = r0;
	l->c0 = c0;
	l->ra = t / A_CPR;
	l->ca = t % A_CPR * 8;
	l->rb = t / B_CPR;
	l->cb = t % B_CPR * 8;
	l->ga = a + (r0 + l->ra) * LDA + l->ca;
	l->gb = b + (long)l->rb * LDB + c0 + l->cb;
	l->sa = 2 * (l->ra * LDS_A + l->ca);
	l->sb = SB_OFF + 2 * (l->rb * LDS_B + l->cb);
	l->mn_full = r0 + BLK_M <= M_ && c0 + BLK_N <= N_;
}

/* Stage at shared address `stage` <- the BLK_K slice at k0. */
__device__ __forceinline__ void load_stage(const struct tile_loader *l, unsigned int stage, long k0)
{
#if FIXED_CHUNKS
	bool full = l->mn_full && k0 + BLK_K <= K_;
#pragma unroll
	for (int p = 0; p < A_PASSES; p++) {
		int row = l->ra + p * A_RPP;
		if (BLK_M % A_RPP != 0 && row >= BLK_M)
			break;
		const elem_t *src = l->ga + (long)p * A_RPP * LDA + k0;
		bool in = full || (l->r0 + row < M_ && k0 + l->ca < K_);
		cp_async16_at(stage + l->sa + 2 * p * A_RPP * LDS_A, in ? src : l->a, in ? 16 : 0);
	}
#pragma unroll
	for (int p = 0; p < B_PASSES; p++) {
		int row = l->rb + p * B_RPP;
		if (BLK_K % B_RPP != 0 && row >= BLK_K)
			break;
		const elem_t *src = l->gb + (k0 + (long)p * B_RPP) * LDB;
		bool in = full || (k0 + row < K_ && l->c0 + l->cb < N_);
		cp_async16_at(stage + l->sb + 2 * p * B_RPP * LDS_B, in ? src : l->b, in ? 16 : 0);
	}
#else
	/* rows not 16-byte aligned (or more chunks per row than threads):
	 * element by element, zeros past the edges */
	extern __shared__ __align__(16) unsigned char smem_raw[];
	elem_t *st = (elem_t *)(smem_raw + (stage - smem_addr(smem_raw)));
	for (int e = threadIdx.x; e < BLK_M * BLK_K; e += THREADS) {
		long r = l->r0 + e / BLK_K, k = k0 + e % BLK_K;
		st[e / BLK_K * LDS_A + e % BLK_K] =
			r < M_ && k < K_ ? l->a[r * LDA + k] : from_float(0.f);
	}
	for (int e = threadIdx.x; e < BLK_K * BLK_N; e += THREADS) {
		long k = k0 + e / BLK_N, c = l->c0 + e % BLK_N;
		st[BLK_M * LDS_A + e / BLK_N * LDS_B + e % BLK_N] =
			k < K_ && c < N_ ? l->b[k * LDB + c] : from_float(0.f);
	}
#endif
}

/* This thread's ldmatrix addresses within a stage (bytes), for kk = 0 and
 * the warp's first mma tile; the rest are compile-time offsets. */
struct frag_base {
	unsigned int a, b;
};

__device__ __forceinline__ struct frag_base frag_base_make(int wm0, int wn0)
{
	int lane = threadIdx.x & 31;
	struct frag_base f;
	f.a = 2 * ((wm0 + (lane & 15)) * LDS_A + (lane >> 4) * 8);
	f.b = SB_OFF + 2 * ((lane & 15) * LDS_B + wn0 + (lane >> 4) * 8);
	return f;
}

__device__ __forceinline__ void load_frags(unsigned int stage, struct frag_base f, int kk,
					   unsigned int (&af)[MI][4], unsigned int (&bf)[NI / 2][4])
{
#pragma unroll
	for (int i = 0; i < MI; i++)
		ldmatrix_x4(af[i], stage + f.a + 2 * (i * 16 * LDS_A + kk));
	/* one x4.trans gives the k16 fragments of two adjacent n8 tiles */
#pragma unroll
	for (int j = 0; j < NI / 2; j++)
		ldmatrix_x4_trans(bf[j], stage + f.b + 2 * (kk * LDS_B + j * 16));
}

/* acc += one k16 step of this warp's part of the tile. */
__device__ __forceinline__ void mma_step(const unsigned int (&af)[MI][4],
					 const unsigned int (&bf)[NI / 2][4], float (&acc)[ELEMS])
{
#pragma unroll
	for (int i = 0; i < MI; i++)
#pragma unroll
		for (int j = 0; j < NI; j++)
			mma_16816(&acc[(i * NI + j) * 4], af[i], bf[j / 2][(j & 1) * 2],
				  bf[j / 2][(j & 1) * 2 + 1]);
}

/* acc += the stage's A panel x B panel for this warp's part of the tile;
 * the fragments of step kk + 16 load while step kk multiplies (the
 * one-stage path; the ring prefetches across stages in gemm_tile_k). */
__device__ __forceinline__ void mma_stage(unsigned int stage, struct frag_base f,
					  float (&acc)[ELEMS])
{
	unsigned int af[2][MI][4], bf[2][NI / 2][4];
	load_frags(stage, f, 0, af[0], bf[0]);
#pragma unroll
	for (int s = 0; s < BLK_K / 16; s++) {
		if (s + 1 < BLK_K / 16)
			load_frags(stage, f, (s + 1) * 16, af[(s + 1) & 1], bf[(s + 1) & 1]);
		mma_step(af[s & 1], bf[s & 1], acc);
	}
}

__device__ __forceinline__ void warp_origin(int *wm0, int *wn0)
{
	int warp = threadIdx.x / 32;
	*wm0 = warp / WARPS_N * WARP_M;
	*wn0 = warp % WARPS_N * WARP_N;
}

/* acc = A[r0.., k] x B[k, c0..] over the BLK_K slices [kb, ke). */
__device__ __forceinline__ void gemm_tile_k(const elem_t *a, const elem_t *b, long r0, long c0,
					    int kb, int ke, float (&acc)[ELEMS])
{
	extern __shared__ __align__(16) unsigned char smem_raw[];
	const unsigned int smem = smem_addr(smem_raw);
	struct tile_loader l;
	int wm0, wn0;
	warp_origin(&wm0, &wn0);
	const struct frag_base f = frag_base_make(wm0, wn0);
	loader_init(&l, a, b, r0, c0);
#pragma unroll
	for (int i = 0; i < ELEMS; i++)
		acc[i] = 0.f;
	__syncthreads(); /* every warp is done with the previous tile's stages */
#if NUM_STAGES == 1
	for (int kt = kb; kt < ke; kt++) {
		load_stage(&l, smem, (long)kt * BLK_K);
		cp_async_commit();
		cp_async_wait<0>();
		__syncthreads();
		mma_stage(smem, f, acc);
		__syncthreads();
	}
#else
	/* The ring: slices kb .. kb + NUM_STAGES - 2 in flight before the
	 * first multiply. Fragments are double-buffered across steps and
	 * stages: during the last k16 step of a slice the first fragments of
	 * the next slice load, so the tensor pipe never waits on ldmatrix at a
	 * slice boundary. The barrier there also frees the slot the next
	 * cp.async batch (issued at step 0 of the next slice) overwrites: every
	 * warp has issued its reads of the slice before it. */
	const int n = ke - kb;
	/* The next slice's first fragments go to buffer (BLK_K / 16) & 1, which
	 * is buffer 0 of its step 0 only when a slice has an even number of
	 * k16 steps; with BLK_K = 16 each slice loads its own fragments. */
#define CROSS_PREFETCH (BLK_K / 16 % 2 == 0)
#pragma unroll
	for (int s = 0; s < NUM_STAGES - 1; s++) {
		if (s < n)
			load_stage(&l, smem + s * STAGE_BYTES, (long)(kb + s) * BLK_K);
		cp_async_commit(); /* empty groups keep the count uniform */
	}
	unsigned int af[2][MI][4], bf[2][NI / 2][4];
	int read = 0, write = NUM_STAGES - 1; /* ring slots */
	cp_async_wait<NUM_STAGES - 2>();
	__syncthreads();
	if (CROSS_PREFETCH && n > 0)
		load_frags(smem, f, 0, af[0], bf[0]);
	for (int i = 0; i < n; i++) {
		const unsigned int stage = smem + read * STAGE_BYTES;
#pragma unroll
		for (int s = 0; s < BLK_K / 16; s++) {
			/* first (with BLK_K = 16 the wait below needs this batch) */
			if (s == 0) {
				if (i + NUM_STAGES - 1 < n)
					load_stage(&l, smem + write * STAGE_BYTES,
						   (long)(kb + i + NUM_STAGES - 1) * BLK_K);
				cp_async_commit();
				write = write + 1 == NUM_STAGES ? 0 : write + 1;
			}
			if (!CROSS_PREFETCH && s == 0)
				load_frags(stage, f, 0, af[0], bf[0]);
			if (s == BLK_K / 16 - 1) {
				if (!CROSS_PREFETCH) /* multiply before waiting for the next slice */
					mma_step(af[s & 1], bf[s & 1], acc);
				cp_async_wait<NUM_STAGES - 2>(); /* slice i + 1 landed (this thread's part) */
				__syncthreads();                 /* ... everyone's; slice i's slot is free */
				read = read + 1 == NUM_STAGES ? 0 : read + 1;
				if (CROSS_PREFETCH && i + 1 < n)
					load_frags(smem + read * STAGE_BYTES, f, 0, af[(s + 1) & 1],
						   bf[(s + 1) & 1]);
			} else {
				load_frags(stage, f, (s + 1) * 16, af[(s + 1) & 1], bf[(s + 1) & 1]);
			}
			if (CROSS_PREFETCH || s != BLK_K / 16 - 1)
				mma_step(af[s & 1], bf[s & 1], acc);
		}
	}
	cp_async_wait<0>();
#endif
}

__device__ __forceinline__ void store_tile(elem_t *c, long ldc, long r0, long c0,
					   const float (&acc)[ELEMS])
{
	int lane = threadIdx.x & 31, wm0, wn0;
	bool pairs = (ldc & 1) == 0 && ((unsigned long long)c & 3) == 0;
	warp_origin(&wm0, &wn0);
#pragma unroll
	for (int i = 0; i < MI; i++)
#pragma unroll
		for (int j = 0; j < NI; j++)
#pragma unroll
			for (int h = 0; h < 2; h++) {
				const float *v = &acc[(i * NI + j) * 4 + h * 2];
				store_pair(c, ldc, r0 + wm0 + i * 16 + lane / 4 + h * 8,
					   c0 + wn0 + j * 8 + (lane & 3) * 2, v[0], v[1], pairs);
			}
}

#endif
