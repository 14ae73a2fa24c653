/* mfma_layout.h: which lane of a 64-lane wavefront holds which element of
 * an MFMA's A, B and D matrices (AMD CDNA2 gfx90a, CDNA3 gfx942), and how
 * the MFMA core (core_mfma.h) lays a CTA tile over its wavefronts. Pure
 * functions, shared by the core (HIP C++) and the host emulator that checks
 * them (tests/unit/test_mfma.c, C11), like schedule.h. Only plain C, no
 * headers.
 *
 * The instructions (M = N = mn, K per instruction k, kpl elements of K per
 * lane and register group):
 *   mn 16, 16-bit: v_mfma_f32_16x16x16_f16 / _bf16 (gfx90a: 16x16x16f16,
 *                  16x16x16bf16_1k)          k 16, kpl 4, 4 D registers
 *   mn 32, 16-bit: v_mfma_f32_32x32x8_f16 / _bf16   k 8,  kpl 4, 16 D registers
 *   mn 16, fp32:   v_mfma_f32_16x16x4_f32           k 4,  kpl 1, 4 D registers
 *   mn 32, fp32:   v_mfma_f32_32x32x2_f32           k 2,  kpl 1, 16 D registers
 * Layouts as AMD publishes them (the CDNA2/CDNA3 ISA guides' matrix core
 * chapters, AMD's matrix instruction calculator, and the same numbers as
 * composable_kernel's warp-GEMM attributes: A/B lanes along M/N = mn, along
 * K = 64 / mn lanes of kpl each; D lanes along N = mn, along M = 64 / mn
 * groups of 4 consecutive rows, repeated mn * mn / 256 times):
 *   A[i][k]:  lane i + mn * (k / kpl), element k % kpl of its register group
 *   B[k][j]:  lane j + mn * (k / kpl), element k % kpl
 *   D[i][j]:  lane j + mn * (i / 4 % (64 / mn)), register
 *             i / 4 / (64 / mn) * 4 + i % 4
 * The functions below go the other way (lane and register -> element), as
 * the core uses them. */
#ifndef FGO_MFMA_LAYOUT_H
#define FGO_MFMA_LAYOUT_H

/* constexpr in C++, so the core sizes its arrays with these very functions */
#if defined(__HIPCC__) || defined(__CUDACC__) || defined(__HIPCC_RTC__) || defined(__CUDACC_RTC__) || defined(FGO_HIPRTC)
#define MFMA_FN __host__ __device__ static inline constexpr
#elif defined(__cplusplus)
#define MFMA_FN static inline constexpr
#else
#define MFMA_FN static inline
#endif

#define MFMA_LANES 64

/* The instruction's K for M = N = mn and elements of esize bytes (2 or 4). */
MFMA_FN int mfma_k(int mn, int esize)
{
	return esize == 4 ? (mn == 16 ? 4 : 2) : (mn == 16 ? 16 : 8);
}

/* Elements of K one lane holds of A (and of B): 4 16-bit ones in a 64-bit
 * register pair, or one fp32. */
MFMA_FN int mfma_kpl(int esize)
{
	return esize == 4 ? 1 : 4;
}

/* fp32 D registers a lane holds: 4 (16 x 16) or 16 (32 x 32). */
MFMA_FN int mfma_d_regs(int mn)
{
	return mn * mn / MFMA_LANES;
}

/* A operand: lane holds row mfma_a_row of A and its K elements
 * mfma_a_k(.., v) for v < kpl. */
MFMA_FN int mfma_a_row(int mn, int lane)
{
	return lane % mn;
}
MFMA_FN int mfma_a_k(int mn, int kpl, int lane, int v)
{
	return lane / mn * kpl + v;
}

/* B operand (K x N): lane holds column mfma_b_col and K elements mfma_b_k. */
MFMA_FN int mfma_b_col(int mn, int lane)
{
	return lane % mn;
}
MFMA_FN int mfma_b_k(int mn, int kpl, int lane, int v)
{
	return lane / mn * kpl + v;
}

/* D (and C): register r of lane holds D[mfma_d_row][mfma_d_col]. Rows come
 * in groups of 4 per lane group; 32 x 32 repeats the two groups 4 times. */
MFMA_FN int mfma_d_row(int mn, int lane, int r)
{
	return r / 4 * (4 * MFMA_LANES / mn) + lane / mn * 4 + r % 4;
}
MFMA_FN int mfma_d_col(int mn, int lane)
{
	(void)mn;
	return lane % mn;
}

/* How the core spreads a BLK_M x BLK_N tile over its wavefronts: waves_m x
 * waves_n wavefronts, each wave_m x wave_n outputs as mi x ni instruction
 * tiles of mn x mn. waves_m is the split that keeps a wave's tile about
 * square (num_waves a power of two), but never fewer than mn rows a wave.
 * The tile is valid when waves_m * waves_n == num_waves and mi, ni >= 1 with
 * no remainder (mfma_tile_ok). */
struct mfma_tile {
	int mn, k, kpl, regs;  /* the instruction (see above) */
	int waves_m, waves_n;  /* wavefronts along M and N */
	int wave_m, wave_n;    /* a wave's outputs */
	int mi, ni;            /* its instruction tiles along M and N */
};

MFMA_FN int mfma_waves_m(int nw, int bm, int bn, int mn)
{
	int sq = nw >= 16 ? 4 : nw == 8 ? (bm >= bn ? 4 : 2) : nw == 4 ? 2 : nw == 2 ? (bm >= bn ? 2 : 1) : 1;
	if (sq * mn > bm)
		sq = bm >= 2 * mn ? bm / mn : 1;
	return sq;
}

MFMA_FN struct mfma_tile mfma_tile_make(int bm, int bn, int nw, int mn, int esize)
{
	struct mfma_tile t = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	t.mn = mn;
	t.k = mfma_k(mn, esize);
	t.kpl = mfma_kpl(esize);
	t.regs = mfma_d_regs(mn);
	t.waves_m = mfma_waves_m(nw, bm, bn, mn);
	t.waves_n = nw / t.waves_m;
	t.wave_m = bm / t.waves_m;
	t.wave_n = t.waves_n ? bn / t.waves_n : 0;
	t.mi = t.wave_m / mn;
	t.ni = t.wave_n / mn;
	return t;
}

MFMA_FN int mfma_tile_ok(const struct mfma_tile *t, int bm, int bn, int nw)
{
	return t->waves_m * t->waves_n == nw && t->mi >= 1 && t->ni >= 1 &&
	       t->mi * t->mn * t->waves_m == bm && t->ni * t->mn * t->waves_n == bn;
}

/* Accumulator e of thread `thread` (acc[(i * ni + j) * regs + r]) is the
 * tile's element (*row, *col). */
MFMA_FN void mfma_acc_coords(const struct mfma_tile *t, int thread, int e, int *row, int *col)
{
	int wave = thread / MFMA_LANES, lane = thread % MFMA_LANES;
	int r = e % t->regs, ij = e / t->regs;
	*row = wave / t->waves_n * t->wave_m + ij / t->ni * t->mn + mfma_d_row(t->mn, lane, r);
	*col = wave % t->waves_n * t->wave_n + ij % t->ni * t->mn + mfma_d_col(t->mn, lane);
}

#endif
