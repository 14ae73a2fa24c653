/* check.c: the random inputs every rank fills its shards with, the output
 * poison, and the reference check of an output shard against A x B computed
 * in double (see check.h). Exports input_fill, output_poison, the element
 * rule (check_add), the sampled grid, the exact reference and its check of
 * a backend's reference, and the tolerances. */
#include "backend/check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "fgo.h"
#include "inputs.h"

#define GOLDEN FGO_INPUTS_GOLDEN

static uint64_t mix64(uint64_t z)
{
	return fgo_mix64(z);
}

static uint64_t row_state(uint64_t seed, enum fgo_operand which, long row)
{
	return fgo_input_row_state(seed, (int)which, row);
}

static float value_at(uint64_t state, long col, enum fgo_dtype t)
{
	return fgo_input_at(state, col, (int)t);
}

void input_fill(uint64_t seed, enum fgo_operand which, const struct fgo_matrix *m,
		enum fgo_dtype t, void *dst)
{
	size_t esize = dtype_size(t);
	for (long i = 0; i < m->rows; i++) {
		uint64_t state = row_state(seed, which, m->row0 + i);
		size_t base = (size_t)i * (size_t)m->ld;
		for (long j = 0; j < m->cols; j++)
			dtype_store(t, dst, base + (size_t)j, value_at(state, m->col0 + j, t));
		/* Padding is zeroed so a copy of the whole buffer is deterministic. */
		if (m->ld > m->cols)
			memset((char *)dst + (base + (size_t)m->cols) * esize, 0,
			       (size_t)(m->ld - m->cols) * esize);
	}
}

void output_poison(const struct fgo_matrix *m, enum fgo_dtype t, void *dst)
{
	size_t n = (size_t)m->rows * (size_t)m->ld;
	if (t == FGO_FP32) {
		uint32_t nan = 0x7fc0bad0u; /* a quiet NaN with a payload that is easy to spot */
		for (size_t i = 0; i < n; i++)
			memcpy((char *)dst + 4 * i, &nan, 4);
	} else {
		uint16_t nan = t == FGO_FP16 ? 0x7e00u : 0x7fc0u;
		uint16_t *p = dst;
		for (size_t i = 0; i < n; i++)
			p[i] = nan;
	}
}

/* Tolerance, relative to scale = sum_k |a_ik b_kj|.
 *
 * Inputs are uniform on [-1, 1) (variance 1/3), so a product has mean |ab|
 * of 1/4 and variance 1/9: scale ~ K/4, while a sum of n products is ~ N(0,
 * n/9). The worst-case bounds (K u for fp32 accumulation, one output ulp of
 * the scale per rounding) are too loose to catch a wrong tile once K is in
 * the thousands, so each term below bounds the sums by Z = 8 standard
 * deviations instead (a chance below 1e-15 per sum), capped by the
 * worst case where that is smaller (small K):
 *
 * - fp32 accumulation: an addition errs by at most u32 |S_i| with S_i the
 *   running sum, |S_i| <= Z sqrt(i) / 3; summed with aligned signs over K
 *   steps that is u32 (2Z/9) K^1.5, i.e. u32 (8Z/9) sqrt(K) of the scale.
 *   Plus one fp32 rounding of each product (fp32 inputs): u32 of the scale.
 * - rounding to the output type, unit roundoff u (2^-24 fp32, 2^-11 fp16,
 *   2^-8 bf16): the W partial sums over K/W terms together are at most
 *   Z sqrt(K W) / 3, i.e. (4Z/3) sqrt(W/K) of the scale; each of up to W
 *   further rounded sums (a reduction done in the output type, the final
 *   result, a Stream-K partial) is at most Z sqrt(K) / 3, (4Z/3) / sqrt(K).
 *   So u (4Z/3) (sqrt(W) + W) / sqrt(K), capped at the certain 2W u.
 *
 * A wrong tile errs by a whole sum: a missing K/W slice by (4/3)|z| /
 * sqrt(W K) of the scale with z ~ N(0, 1), an element of another tile or
 * rank by ~(4/3)sqrt(2)|z| / sqrt(K). Both fall with K as the rounding terms
 * do, so the ratio does not depend on K: in bf16 at W = 4 about 70% of a
 * tile's elements exceed the tolerance, in fp16 over 95%. TF32 or fp16
 * accumulation would not pass in fp32 and fp16: they are not what the
 * configuration asks for. */
#define TOL_Z 8.0

double check_tolerance(enum fgo_dtype t, long k, int world)
{
	double u32 = 0x1p-24;
	double u = t == FGO_FP16 ? 0x1p-11 : t == FGO_BF16 ? 0x1p-8 : u32;
	double kk = k > 1 ? (double)k : 1.0;
	double w = world > 1 ? (double)world : 1.0;

	double accumulate = u32 * (1.0 + 8.0 * TOL_Z / 9.0 * sqrt(kk));
	double roundings = 4.0 * TOL_Z / 3.0 * (sqrt(w) + w) / sqrt(kk);
	if (roundings > 2.0 * w)
		roundings = 2.0 * w;
	return accumulate + u * roundings;
}

double check_tolerance_reference(enum fgo_dtype t, long k, int world)
{
	/* the reference's own error: fp32 accumulation over K and one
	 * rounding to fp32 (the first term of check_tolerance, plus u32) */
	double u32 = 0x1p-24, kk = k > 1 ? (double)k : 1.0;
	return check_tolerance(t, k, world) + u32 * (2.0 + 8.0 * TOL_Z / 9.0 * sqrt(kk));
}

void check_add(struct fgo_check *r, double got, double want, double scale, double tol, long row,
	       long col)
{
	double abs_err = fabs(got - want);
	double rel_err = abs_err / (scale > 1e-30 ? scale : 1e-30);
	int finite = isfinite(got);
	if (!finite)
		abs_err = rel_err = INFINITY;
	r->checked++;
	r->digest += fgo_output_digest((uint64_t)row << 32 ^ (uint64_t)col, (float)got);
	if (abs_err > r->max_abs_err)
		r->max_abs_err = abs_err;
	if (rel_err > r->max_rel_err)
		r->max_rel_err = rel_err;
	if (!finite || rel_err > tol) {
		/* blocks visit elements out of order: keep the first bad
		 * element in row-major order */
		if (r->bad++ == 0 || row < r->first_bad_row ||
		    (row == r->first_bad_row && col < r->first_bad_col)) {
			r->first_bad_row = row;
			r->first_bad_col = col;
		}
	}
}

void check_init(struct fgo_check *r)
{
	memset(r, 0, sizeof *r);
	r->first_bad_row = r->first_bad_col = -1;
}

/* Up to ~64 MiB of cached input values (float: exact for every dtype) per
 * block of a grid. */
#define CACHE_FLOATS (1L << 24)

/* What a grid walk does with each element's exact value: (li, lj) are
 * local to the shard, want = sum a_ik b_kj and scale = sum |a_ik b_kj|, in
 * double. */
typedef void (*grid_visit)(void *arg, long li, long lj, double want, double scale);

/* Visits every (rows[i], cols[j]) pair, both lists local to the shard m and
 * increasing. A rows and B columns are evaluated once per block into float
 * arrays, so the inner loop is a plain dot product. */
static int walk_grid(uint64_t seed, const struct fgo_config *cfg, const struct fgo_matrix *m,
		     const long *rows, long nr, const long *cols, long nc, grid_visit visit,
		     void *arg)
{
	long k = cfg->k;
	enum fgo_dtype t = cfg->dtype;
	long per = CACHE_FLOATS / 2 / (k > 0 ? k : 1);
	if (per < 1)
		per = 1;
	long rb = nr < per ? nr : per, cb = nc < per ? nc : per;
	float *a = malloc(sizeof *a * (size_t)rb * (size_t)k + 1);
	float *bt = malloc(sizeof *bt * (size_t)cb * (size_t)k + 1);
	uint64_t *b_state = malloc(sizeof *b_state * (size_t)(k > 0 ? k : 1));
	if (!a || !bt || !b_state) {
		free(a);
		free(bt);
		free(b_state);
		return FGO_EFAIL;
	}
	for (long x = 0; x < k; x++)
		b_state[x] = row_state(seed, FGO_B, x);
	for (long j0 = 0; j0 < nc; j0 += cb) {
		long jn = nc - j0 < cb ? nc - j0 : cb;
		for (long jj = 0; jj < jn; jj++)
			for (long x = 0; x < k; x++)
				bt[jj * k + x] = value_at(b_state[x], m->col0 + cols[j0 + jj], t);
		for (long i0 = 0; i0 < nr; i0 += rb) {
			long in = nr - i0 < rb ? nr - i0 : rb;
			for (long ii = 0; ii < in; ii++) {
				uint64_t st = row_state(seed, FGO_A, m->row0 + rows[i0 + ii]);
				for (long x = 0; x < k; x++)
					a[ii * k + x] = value_at(st, x, t);
			}
			for (long ii = 0; ii < in; ii++) {
				const float *ar = a + ii * k;
				for (long jj = 0; jj < jn; jj++) {
					const float *bc = bt + jj * k;
					/* Two accumulator pairs: products of floats are
					 * exact in double, the order does not matter. */
					double s0 = 0, s1 = 0, g0 = 0, g1 = 0;
					long x = 0;
					for (; x + 1 < k; x += 2) {
						double p0 = (double)ar[x] * bc[x];
						double p1 = (double)ar[x + 1] * bc[x + 1];
						s0 += p0;
						s1 += p1;
						g0 += fabs(p0);
						g1 += fabs(p1);
					}
					if (x < k) {
						double p = (double)ar[x] * bc[x];
						s0 += p;
						g0 += fabs(p);
					}
					visit(arg, rows[i0 + ii], cols[j0 + jj], s0 + s1, g0 + g1);
				}
			}
		}
	}
	free(a);
	free(bt);
	free(b_state);
	return FGO_OK;
}

/* Picks about want indices out of [0, n): 0, n - 1 and one pseudo-random
 * index in each of want equal strata, increasing and distinct. Strata mean
 * every band of n / want consecutive rows (or columns) is visited. */
static long pick_lines(uint64_t *rng, long n, long want, long *out)
{
	long count = 0;
	if (want >= n) {
		for (long i = 0; i < n; i++)
			out[count++] = i;
		return count;
	}
	out[count++] = 0;
	for (long s = 0; s < want; s++) {
		long lo = (long)((double)n * (double)s / (double)want);
		long hi = (long)((double)n * (double)(s + 1) / (double)want);
		if (hi <= lo)
			continue;
		*rng += GOLDEN;
		long i = lo + (long)(mix64(*rng) % (uint64_t)(hi - lo));
		if (i > out[count - 1])
			out[count++] = i;
	}
	if (out[count - 1] != n - 1)
		out[count++] = n - 1;
	return count;
}

int check_pick(uint64_t seed, const struct fgo_matrix *m, long samples, long **rows,
	       long *nr_out, long **cols, long *nc_out)
{
	long nr = m->rows, nc = m->cols;
	*rows = *cols = NULL;
	*nr_out = *nc_out = 0;
	if (m->rows <= 0 || m->cols <= 0)
		return FGO_OK;
	if ((double)m->rows * (double)m->cols > (double)samples) {
		/* Sampled: a grid of about sqrt(samples) rows by as many columns.
		 * A grid costs (rows + columns) * K input values where independent
		 * elements would cost 2 * samples * K, and with stratified lines
		 * it still meets every tile of a shard up to sqrt(samples) tiles
		 * on a side. First and last lines give the four corners. */
		long side = (long)ceil(sqrt((double)(samples > 4 ? samples : 4)));
		nr = m->rows < side ? m->rows : side;
		nc = samples / nr;
		if (nc < 2)
			nc = 2;
		if (nc > m->cols)
			nc = m->cols;
		if (nc == m->cols && samples / nc > nr)
			nr = samples / nc < m->rows ? samples / nc : m->rows;
	}
	*rows = malloc(sizeof **rows * (size_t)(nr + 2));
	*cols = malloc(sizeof **cols * (size_t)(nc + 2));
	if (!*rows || !*cols) {
		free(*rows);
		free(*cols);
		*rows = *cols = NULL;
		return FGO_EFAIL;
	}
	uint64_t rng = mix64(seed ^ 0x2545f4914f6cdd1dull);
	*nr_out = pick_lines(&rng, m->rows, nr, *rows);
	*nc_out = pick_lines(&rng, m->cols, nc, *cols);
	return FGO_OK;
}

/* reference_exact's visit: stores want and scale as floats, row-major. */
struct store_arg {
	long cols;
	float *want, *scale;
};

static void store_visit(void *arg, long li, long lj, double want, double scale)
{
	struct store_arg *s = arg;
	s->want[li * s->cols + lj] = (float)want;
	s->scale[li * s->cols + lj] = (float)scale;
}

int reference_exact(uint64_t seed, const struct fgo_config *cfg, const struct fgo_matrix *m,
		    float *want, float *scale)
{
	long *rows = malloc(sizeof *rows * (size_t)(m->rows + 1));
	long *cols = malloc(sizeof *cols * (size_t)(m->cols + 1));
	int rc = FGO_EFAIL;
	if (rows && cols) {
		for (long i = 0; i < m->rows; i++)
			rows[i] = i;
		for (long j = 0; j < m->cols; j++)
			cols[j] = j;
		struct store_arg s = { m->cols, want, scale };
		rc = walk_grid(seed, cfg, m, rows, m->rows, cols, m->cols, store_visit, &s);
	}
	free(rows);
	free(cols);
	return rc;
}

/* reference_verify's visit: a reference row fetched from the backend
 * against the exact values. The walk visits the rows in increasing order
 * within each column block, so a cursor finds a row's place in the fetched
 * ones (and starts again at the next block). */
struct verify_arg {
	const long *rows;
	long nr, cols;
	const float *want, *scale;
	double tol, scale_tol;
	const struct fgo_matrix *m;
	struct fgo_check *res;
	long cursor;
};

static void verify_visit(void *arg, long li, long lj, double want, double scale)
{
	struct verify_arg *v = arg;
	if (v->rows[v->cursor] != li)
		for (v->cursor = 0; v->cursor < v->nr - 1 && v->rows[v->cursor] != li; v->cursor++)
			;
	long at = v->cursor * v->cols + lj;
	double got = v->want[at];
	/* a wrong scale would loosen or tighten every later check of this
	 * element: it makes the element wrong too */
	if (!(fabs((double)v->scale[at] - scale) <= v->scale_tol * scale))
		got = NAN;
	check_add(v->res, got, want, scale, v->tol, v->m->row0 + li, v->m->col0 + lj);
}

double check_tolerance_exact(long k)
{
	/* fp32 accumulation and one rounding to fp32 (the first term of
	 * check_tolerance, plus u32), with a margin of 4: a wrong element
	 * errs by ~1/sqrt(K) of its scale, thousands of times more */
	double kk = k > 1 ? (double)k : 1.0;
	return 4.0 * 0x1p-24 * (2.0 + 8.0 * TOL_Z / 9.0 * sqrt(kk));
}

int reference_verify(uint64_t seed, const struct fgo_config *cfg, const struct fgo_matrix *m,
		     const long *rows, long nr, const long *cols, long nc, const float *want,
		     const float *scale, struct fgo_check *res)
{
	check_init(res);
	if (nr <= 0 || nc <= 0)
		return FGO_OK;
	struct verify_arg v = {
		.rows = rows, .nr = nr, .cols = m->cols, .want = want, .scale = scale,
		.tol = check_tolerance_exact(cfg->k),
		/* a sum of K positive terms, each product rounded at most once */
		.scale_tol = ((double)cfg->k + 2.0) * 0x1p-24, .m = m, .res = res,
	};
	int rc = walk_grid(seed, cfg, m, rows, nr, cols, nc, verify_visit, &v);
	if (rc != FGO_OK)
		return rc;
	return res->bad ? FGO_EFAIL : FGO_OK;
}
