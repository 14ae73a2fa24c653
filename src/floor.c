/* floor.c: the read floor as numbers: interpolation on a calibrated curve,
 * the bytes and FLOPs of a run's per-rank GEMM, the ridge that says which
 * runs are memory-bound, and the sizes calibrate measures (floor.h). */
#include "floor.h"

#include <math.h>

#include "algo.h"

double floor_seconds(const struct fgo_floor *f, double bytes)
{
	const int n = f ? f->n : 0;
	if (n <= 0 || !(bytes > 0))
		return NAN;
	const double *b = f->bytes, *t = f->seconds;
	if (bytes <= b[0])
		return t[0];
	if (bytes >= b[n - 1]) {
		double bw = b[n - 1] / t[n - 1];
		if (n >= 2 && t[n - 1] > t[n - 2])
			bw = (b[n - 1] - b[n - 2]) / (t[n - 1] - t[n - 2]);
		return t[n - 1] + (bytes - b[n - 1]) / bw;
	}
	int i = 0;
	while (i + 2 < n && bytes > b[i + 1])
		i++;
	double x = (log(bytes) - log(b[i])) / (log(b[i + 1]) - log(b[i]));
	return exp(log(t[i]) + x * (log(t[i + 1]) - log(t[i])));
}

void floor_gemm_work(const struct fgo_config *cfg, double *bytes, double *flops)
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	struct fgo_gemm_dims d = { cfg->m, cfg->n, cfg->k, cfg->k, cfg->n, 1 };
	if (algo)
		algo_gemm_dims(algo, cfg, &d);
	/* blocks of m x n over one k: A of every block, B shared, C of every block */
	double blocks = d.blocks > 0 ? d.blocks : 1, m = (double)d.m, n = (double)d.n, k = (double)d.k;
	*bytes = (blocks * m * k + k * n + blocks * m * n) * (double)dtype_size(cfg->dtype);
	*flops = 2.0 * blocks * m * n * k;
}

double floor_ridge(const struct fgo_floor *f, enum fgo_dtype dtype)
{
	if ((int)dtype < 0 || (int)dtype > 2 || !(f->matrix_peak[dtype] > 0))
		return 0;
	double gbps = f->memory_bw;
	if (!(gbps > 0) && f->n > 0)
		gbps = f->bytes[f->n - 1] / f->seconds[f->n - 1] / 1e9;
	if (!(gbps > 0))
		return 0;
	return f->matrix_peak[dtype] * 1e12 / (gbps * 1e9);
}

int floor_of_run(const struct fgo_floor *f, const struct fgo_config *cfg, double *floor_s,
		 double *bytes)
{
	double b, flops, ridge;
	if (!f || f->n <= 0)
		return 0;
	floor_gemm_work(cfg, &b, &flops);
	ridge = floor_ridge(f, cfg->dtype);
	if (!(ridge > 0) || !(b > 0) || !(flops / b < ridge))
		return 0;
	*floor_s = floor_seconds(f, b);
	*bytes = b;
	return *floor_s > 0;
}

int floor_sizes(size_t max_bytes, size_t *out, int cap)
{
	int n = 0;
	for (size_t v = FLOOR_MIN_BYTES; v <= max_bytes && n < cap; v *= 2) {
		out[n++] = v;
		if (v + v / 2 <= max_bytes && n < cap)
			out[n++] = v + v / 2;
	}
	return n;
}
