/* test_mfma.c: the MFMA core's lane layouts (kernels/mfma_layout.h, the
 * functions core_mfma.h compiles) run in a host emulator of the matrix
 * instructions, since no AMD GPU is at hand.
 *
 * The emulator's model of the hardware is written here on its own, from
 * AMD's tables, in the other direction (element -> lane and register):
 *   A[i][k] in lane i + mn * (k / kpl), element k % kpl
 *   B[k][j] in lane j + mn * (k / kpl), element k % kpl
 *   D[i][j] in lane j + mn * (i / 4 % (64 / mn)), register i / 4 / (64 / mn) * 4 + i % 4
 * for v_mfma_f32_16x16x16 (f16, bf16), 32x32x8, 16x16x4_f32 and 32x32x2_f32.
 * Checked:
 *   layout-*   every lane and register of the core's functions names a
 *              distinct element, all of them, and the one the model puts there
 *   tile-*     a whole CTA tile as the core computes it: LDS panels zero-filled
 *              past the M, N and K edges, every wavefront's fragments gathered
 *              by the core's functions, each k-step one emulated instruction,
 *              the accumulators stored by their coordinates and clipped; equal
 *              to the reference GEMM (small integers: exact), every element of
 *              the tile written once and nothing outside it
 *   mutant-*   the same tile with a deliberately wrong layout (A's lanes
 *              transposed, B's K groups reversed, D transposed, 32x32's D read
 *              as 16 consecutive rows) must fail: the emulator can tell */
#include <stdlib.h>

#include "fgo.h"
#include "mfma_layout.h"
#include "testlib.h"

/* ---- the hardware model ---- */

/* Which lane and element hold A[i][k] (or B[k][j] with j for i). */
static int hw_ab_lane(int mn, int kpl, int i, int k)
{
	return i + mn * (k / kpl);
}
static int hw_d_lane(int mn, int i, int j)
{
	return j + mn * (i / 4 % (MFMA_LANES / mn));
}
static int hw_d_reg(int mn, int i)
{
	return i / 4 / (MFMA_LANES / mn) * 4 + i % 4;
}

/* One instruction on one wavefront: d (64 lanes x regs) += a x b, the
 * operands' registers a[lane][v], b[lane][v] (v < kpl) read as the
 * hardware reads them. */
static void hw_mfma(int mn, int k, int kpl, const double (*a)[4], const double (*b)[4], double (*d)[16])
{
	for (int i = 0; i < mn; i++)
		for (int j = 0; j < mn; j++) {
			double s = 0;
			for (int kk = 0; kk < k; kk++)
				s += a[hw_ab_lane(mn, kpl, i, kk)][kk % kpl] * b[hw_ab_lane(mn, kpl, j, kk)][kk % kpl];
			d[hw_d_lane(mn, i, j)][hw_d_reg(mn, i)] += s;
		}
}

/* ---- layouts under test: the core's, and wrong ones ---- */

struct layout {
	const char *name;
	int (*a_row)(int mn, int lane);
	int (*a_k)(int mn, int kpl, int lane, int v);
	int (*b_col)(int mn, int lane);
	int (*b_k)(int mn, int kpl, int lane, int v);
	int (*d_row)(int mn, int lane, int r);
	int (*d_col)(int mn, int lane);
};

static int core_a_row(int mn, int lane) { return mfma_a_row(mn, lane); }
static int core_a_k(int mn, int kpl, int lane, int v) { return mfma_a_k(mn, kpl, lane, v); }
static int core_b_col(int mn, int lane) { return mfma_b_col(mn, lane); }
static int core_b_k(int mn, int kpl, int lane, int v) { return mfma_b_k(mn, kpl, lane, v); }
static int core_d_row(int mn, int lane, int r) { return mfma_d_row(mn, lane, r); }
static int core_d_col(int mn, int lane) { return mfma_d_col(mn, lane); }

static const struct layout core = { "core", core_a_row, core_a_k, core_b_col, core_b_k, core_d_row, core_d_col };

/* A's lanes transposed: row from the high lane bits, K group from the low */
static int tr_a_row(int mn, int lane) { return lane / (MFMA_LANES / mn); }
static int tr_a_k(int mn, int kpl, int lane, int v) { return lane % (MFMA_LANES / mn) * kpl + v; }
/* B's K groups in reverse order */
static int rev_b_k(int mn, int kpl, int lane, int v) { return (MFMA_LANES / mn - 1 - lane / mn) * kpl + v; }
/* D transposed */
static int tr_d_row(int mn, int lane, int r) { (void)r; return lane % mn; }
static int tr_d_col(int mn, int lane) { (void)mn; (void)lane; return -1; } /* set per register below */
/* 32x32's D as 16 consecutive rows per lane half (a reading seen in the wild) */
static int flat_d_row(int mn, int lane, int r) { return lane / mn * mfma_d_regs(mn) + r; }

static const struct layout mutants[] = {
	{ "a-lanes-transposed", tr_a_row, tr_a_k, core_b_col, core_b_k, core_d_row, core_d_col },
	{ "b-k-reversed", core_a_row, core_a_k, core_b_col, rev_b_k, core_d_row, core_d_col },
	{ "d-transposed", core_a_row, core_a_k, core_b_col, core_b_k, tr_d_row, tr_d_col },
	{ "d-rows-consecutive", core_a_row, core_a_k, core_b_col, core_b_k, flat_d_row, core_d_col },
};

/* Element (row, col) of an instruction tile that register r of lane holds
 * in layout L (D transposed swaps the core's row and column). */
static void d_coords(const struct layout *L, int mn, int lane, int r, int *row, int *col)
{
	if (L->d_row == tr_d_row) {
		*row = mfma_d_col(mn, lane);
		*col = mfma_d_row(mn, lane, r);
	} else {
		*row = L->d_row(mn, lane, r);
		*col = L->d_col(mn, lane);
	}
}

/* ---- layout tables ---- */

static void check_layout(int mn, int esize)
{
	const int k = mfma_k(mn, esize), kpl = mfma_kpl(esize), regs = mfma_d_regs(mn);
	char id[64];
	int seen_a[32 * 16] = { 0 }, seen_b[32 * 16] = { 0 }, seen_d[32 * 32] = { 0 };
	int bad_a = 0, bad_b = 0, bad_d = 0, range = 0;

	for (int lane = 0; lane < MFMA_LANES; lane++) {
		for (int v = 0; v < kpl; v++) {
			int i = mfma_a_row(mn, lane), ka = mfma_a_k(mn, kpl, lane, v);
			int j = mfma_b_col(mn, lane), kb = mfma_b_k(mn, kpl, lane, v);
			if (i < 0 || i >= mn || ka < 0 || ka >= k || j < 0 || j >= mn || kb < 0 || kb >= k) {
				range++;
				continue;
			}
			seen_a[i * k + ka]++;
			seen_b[kb * mn + j]++;
			bad_a += hw_ab_lane(mn, kpl, i, ka) != lane || ka % kpl != v;
			bad_b += hw_ab_lane(mn, kpl, j, kb) != lane || kb % kpl != v;
		}
		for (int r = 0; r < regs; r++) {
			int i = mfma_d_row(mn, lane, r), j = mfma_d_col(mn, lane);
			if (i < 0 || i >= mn || j < 0 || j >= mn) {
				range++;
				continue;
			}
			seen_d[i * mn + j]++;
			bad_d += hw_d_lane(mn, i, j) != lane || hw_d_reg(mn, i) != r;
		}
	}
	int once = 1;
	for (int e = 0; e < mn * k; e++)
		once &= seen_a[e] == 1 && seen_b[e] == 1;
	for (int e = 0; e < mn * mn; e++)
		once &= seen_d[e] == 1;
	snprintf(id, sizeof id, "layout-%dx%dx%d-%s", mn, mn, k, esize == 4 ? "f32" : "16bit");
	T_CHECK(id, !range && once && !bad_a && !bad_b && !bad_d,
		"%d out of range, every element once: %d, lanes unlike the model: A %d, B %d, D %d", range,
		once, bad_a, bad_b, bad_d);
}

/* ---- a whole tile ---- */

struct tile_case {
	const char *id;
	int mn, esize;      /* instruction */
	int bm, bn, bk, nw; /* BLK_M, BLK_N, BLK_K, num_warps (wavefronts) */
	long m, n, k;       /* the problem (ragged where not multiples) */
	long tm, tn;        /* the tile computed: rows tm * bm.., columns tn * bn.. */
	int kb, ke;         /* its BLK_K slices [kb, ke) (Stream-K ranges: part of K) */
};

/* Small integers, so every sum is exact in double and in fp32. */
static double elem_a(long r, long k) { return (double)((r * 5 + k * 3 + r * k) % 7 - 3); }
static double elem_b(long k, long c) { return (double)((k * 2 + c * 3 + k * c) % 5 - 2); }

/* Runs the tile as the core does with layout L. Returns the number of
 * wrong elements (value, written twice or never, or written outside the
 * tile's clipped extent); *why says what first went wrong. */
static long run_tile(const struct tile_case *tc, const struct layout *L, char *why, size_t len)
{
	const struct mfma_tile t = mfma_tile_make(tc->bm, tc->bn, tc->nw, tc->mn, tc->esize);
	const int threads = tc->nw * MFMA_LANES, elems = tc->bm * tc->bn / threads;
	const long r0 = tc->tm * tc->bm, c0 = tc->tn * tc->bn;
	double *acc = calloc((size_t)threads * (size_t)elems, sizeof *acc);
	double *as = calloc((size_t)tc->bm * (size_t)tc->bk, sizeof *as);
	double *bs = calloc((size_t)tc->bk * (size_t)tc->bn, sizeof *bs);
	double *out = calloc((size_t)tc->bm * (size_t)tc->bn, sizeof *out);
	int *writes = calloc((size_t)tc->bm * (size_t)tc->bn, sizeof *writes);
	long wrong = 0;

	why[0] = 0;
	if (!mfma_tile_ok(&t, tc->bm, tc->bn, tc->nw) || t.mi * t.ni * t.regs != elems) {
		snprintf(why, len, "the tile does not split over %d wavefronts", tc->nw);
		wrong = -1;
		goto done;
	}
	for (int s = tc->kb; s < tc->ke; s++) {
		const long k0 = (long)s * tc->bk;
		/* the LDS panels: zeros past the M, N and K edges */
		for (int r = 0; r < tc->bm; r++)
			for (int k = 0; k < tc->bk; k++)
				as[r * tc->bk + k] = r0 + r < tc->m && k0 + k < tc->k ? elem_a(r0 + r, k0 + k) : 0;
		for (int k = 0; k < tc->bk; k++)
			for (int c = 0; c < tc->bn; c++)
				bs[k * tc->bn + c] = k0 + k < tc->k && c0 + c < tc->n ? elem_b(k0 + k, c0 + c) : 0;
		for (int w = 0; w < tc->nw; w++) {
			const int wm0 = w / t.waves_n * t.wave_m, wn0 = w % t.waves_n * t.wave_n;
			for (int st = 0; st < tc->bk / t.k; st++)
				for (int i = 0; i < t.mi; i++)
					for (int j = 0; j < t.ni; j++) {
						double a[MFMA_LANES][4], b[MFMA_LANES][4], d[MFMA_LANES][16];
						for (int l = 0; l < MFMA_LANES; l++) {
							double *acc_l = acc + (size_t)(w * MFMA_LANES + l) * (size_t)elems;
							for (int v = 0; v < t.kpl; v++) {
								a[l][v] = as[(wm0 + i * t.mn + L->a_row(t.mn, l)) * tc->bk +
									     st * t.k + L->a_k(t.mn, t.kpl, l, v)];
								b[l][v] = bs[(st * t.k + L->b_k(t.mn, t.kpl, l, v)) * tc->bn +
									     wn0 + j * t.mn + L->b_col(t.mn, l)];
							}
							for (int r = 0; r < t.regs; r++)
								d[l][r] = acc_l[(i * t.ni + j) * t.regs + r];
						}
						hw_mfma(t.mn, t.k, t.kpl, a, b, d);
						for (int l = 0; l < MFMA_LANES; l++)
							for (int r = 0; r < t.regs; r++)
								acc[(size_t)(w * MFMA_LANES + l) * (size_t)elems +
								    (size_t)((i * t.ni + j) * t.regs + r)] = d[l][r];
					}
		}
	}
	/* store_tile: each accumulator to its element, clipped at M and N */
	for (int th = 0; th < threads; th++)
		for (int e = 0; e < elems; e++) {
			const int w = th / MFMA_LANES, l = th % MFMA_LANES, r = e % t.regs, ij = e / t.regs;
			int row, col;
			d_coords(L, t.mn, l, r, &row, &col);
			row += w / t.waves_n * t.wave_m + ij / t.ni * t.mn;
			col += w % t.waves_n * t.wave_n + ij % t.ni * t.mn;
			if (row < 0 || row >= tc->bm || col < 0 || col >= tc->bn) {
				if (!wrong++)
					snprintf(why, len, "thread %d acc %d names (%d, %d), outside the tile", th, e, row, col);
				continue;
			}
			if (r0 + row < tc->m && c0 + col < tc->n) {
				out[row * tc->bn + col] = acc[(size_t)th * (size_t)elems + (size_t)e];
				writes[row * tc->bn + col]++;
			}
		}
	for (int row = 0; row < tc->bm; row++)
		for (int col = 0; col < tc->bn; col++) {
			const int inside = r0 + row < tc->m && c0 + col < tc->n;
			double want = 0;
			for (long k = (long)tc->kb * tc->bk; inside && k < (long)tc->ke * tc->bk && k < tc->k; k++)
				want += elem_a(r0 + row, k) * elem_b(k, c0 + col);
			if (writes[row * tc->bn + col] != inside || (inside && out[row * tc->bn + col] != want)) {
				if (!wrong++)
					snprintf(why, len, "C[%ld][%ld]: written %d times (want %d), %g (want %g)",
						 r0 + row, c0 + col, writes[row * tc->bn + col], inside,
						 out[row * tc->bn + col], want);
			}
		}
done:
	free(acc);
	free(as);
	free(bs);
	free(out);
	free(writes);
	return wrong;
}

/* mfma_acc_coords (what store_tile calls) is the composition run_tile
 * makes from the core's functions, and a bijection onto the tile. */
static void check_acc_coords(const struct tile_case *tc)
{
	const struct mfma_tile t = mfma_tile_make(tc->bm, tc->bn, tc->nw, tc->mn, tc->esize);
	const int threads = tc->nw * MFMA_LANES, elems = tc->bm * tc->bn / threads;
	int *seen = calloc((size_t)tc->bm * (size_t)tc->bn, sizeof *seen);
	long bad = 0;
	char id[96];
	for (int th = 0; th < threads; th++)
		for (int e = 0; e < elems; e++) {
			int row, col, r2, c2;
			const int w = th / MFMA_LANES, l = th % MFMA_LANES, ij = e / t.regs;
			mfma_acc_coords(&t, th, e, &row, &col);
			d_coords(&core, t.mn, l, e % t.regs, &r2, &c2);
			r2 += w / t.waves_n * t.wave_m + ij / t.ni * t.mn;
			c2 += w % t.waves_n * t.wave_n + ij % t.ni * t.mn;
			if (row != r2 || col != c2 || row < 0 || row >= tc->bm || col < 0 || col >= tc->bn) {
				bad++;
				continue;
			}
			bad += seen[row * tc->bn + col]++ != 0;
		}
	snprintf(id, sizeof id, "acc-coords-%s", tc->id);
	T_CHECK(id, bad == 0, "%ld accumulators at the wrong element or twice", bad);
	free(seen);
}

static const struct tile_case tiles[] = {
	/* id                          mn es  bm   bn  bk nw    M    N    K  tm tn kb ke */
	{ "16x16x16-64x64x32-w4",      16, 2,  64,  64, 32, 4, 128, 128, 128, 1, 1, 0, 4 },
	{ "16x16x16-ragged-edges",     16, 2,  64,  64, 32, 4, 100,  90,  75, 1, 1, 0, 3 },
	{ "16x16x16-128x128x64-w8",    16, 2, 128, 128, 64, 8, 300, 200, 190, 2, 1, 0, 3 },
	{ "16x16x16-decode-16x64-w4",  16, 2,  16,  64, 32, 4,   1, 100,  64, 0, 1, 0, 2 },
	{ "16x16x16-one-wave",         16, 2,  32,  32, 16, 1,  40,  40,  40, 1, 0, 0, 3 },
	{ "16x16x16-streamk-slices",   16, 2,  64,  64, 32, 4, 128, 128, 200, 0, 1, 2, 5 },
	{ "32x32x8-128x128x32-w4",     32, 2, 128, 128, 32, 4, 256, 256, 128, 1, 1, 0, 4 },
	{ "32x32x8-ragged-edges",      32, 2,  64, 128, 32, 4,  77, 150,  45, 1, 1, 0, 2 },
	{ "32x32x8-64x64x32-w2",       32, 2,  64,  64, 32, 2,  64,  64,  96, 0, 0, 0, 3 },
	{ "32x32x8-256x128x64-w8",     32, 2, 256, 128, 64, 8, 256, 250, 130, 0, 1, 0, 3 },
	{ "16x16x4-f32-ragged",        16, 4,  64,  64, 16, 4,  70,  70,  30, 1, 1, 0, 2 },
	{ "32x32x2-f32-ragged",        32, 4,  64,  64, 16, 4,  50,  99,  33, 0, 1, 0, 3 },
};

int main(void)
{
	static const int shapes[][2] = { { 16, 2 }, { 32, 2 }, { 16, 4 }, { 32, 4 } };
	char why[256], id[96];

	for (size_t s = 0; s < FGO_ARRAY_SIZE(shapes); s++)
		check_layout(shapes[s][0], shapes[s][1]);
	T_EQ_INT("layout-k-16x16x16", mfma_k(16, 2), 16);
	T_EQ_INT("layout-k-32x32x8", mfma_k(32, 2), 8);
	T_EQ_INT("layout-k-16x16x4-f32", mfma_k(16, 4), 4);
	T_EQ_INT("layout-k-32x32x2-f32", mfma_k(32, 4), 2);

	for (size_t i = 0; i < FGO_ARRAY_SIZE(tiles); i++) {
		long wrong = run_tile(&tiles[i], &core, why, sizeof why);
		snprintf(id, sizeof id, "tile-%s", tiles[i].id);
		T_CHECK(id, wrong == 0, "%ld wrong elements; first: %s", wrong, why);
		check_acc_coords(&tiles[i]);
	}

	/* every wrong layout is caught on a 16x16 and a 32x32 tile (the
	 * consecutive-rows reading of D is the right one for 16 x 16, where a
	 * lane's 4 rows are consecutive: only 32 x 32 can refute it) */
	for (size_t m = 0; m < FGO_ARRAY_SIZE(mutants); m++)
		for (size_t i = 0; i < FGO_ARRAY_SIZE(tiles); i++) {
			const struct tile_case *tc = &tiles[i];
			if (i != 1 && i != 7)
				continue;
			if (mutants[m].d_row == flat_d_row && tc->mn == 16) {
				snprintf(id, sizeof id, "mutant-%s-is-the-16x16-layout", mutants[m].name);
				T_EQ_INT(id, run_tile(tc, &mutants[m], why, sizeof why), 0);
				continue;
			}
			snprintf(id, sizeof id, "mutant-%s-detected-%s", mutants[m].name, tc->id);
			T_CHECK(id, run_tile(tc, &mutants[m], why, sizeof why) > 0,
				"the emulator accepted a wrong layout");
		}
	T_DONE();
}
