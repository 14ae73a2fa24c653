/* cpu/reference.c: the CPU backend's reference of a C shard and the
 * comparison of every output element with it (see cpu/reference.h). */
#include "cpu/reference.h"

#include <stdio.h>
#include <stdlib.h>

#include "dtype.h"
#include "fgo.h"

void cpu_reference_free(struct cpu_reference *r)
{
	free(r->want);
	free(r->scale);
	r->want = r->scale = NULL;
	r->rows = r->cols = 0;
}

double cpu_reference_bytes(const struct fgo_config *cfg, const struct fgo_layout *lay)
{
	(void)cfg;
	return 2.0 * sizeof(float) * (double)lay->c.rows * (double)lay->c.cols;
}

int cpu_reference_make(struct cpu_reference *r, uint64_t seed, const struct fgo_config *cfg,
		       const struct fgo_layout *lay, char *err, size_t len)
{
	size_t n = (size_t)lay->c.rows * (size_t)lay->c.cols;
	cpu_reference_free(r);
	r->want = malloc(sizeof *r->want * (n ? n : 1));
	r->scale = malloc(sizeof *r->scale * (n ? n : 1));
	if (!r->want || !r->scale) {
		snprintf(err, len, "the reference of this problem needs %.1f MiB of host memory",
			 cpu_reference_bytes(cfg, lay) / 1048576.0);
		cpu_reference_free(r);
		return FGO_EUSAGE;
	}
	if (reference_exact(seed, cfg, &lay->c, r->want, r->scale) != FGO_OK) {
		snprintf(err, len, "out of host memory computing the reference");
		cpu_reference_free(r);
		return FGO_EFAIL;
	}
	r->rows = lay->c.rows;
	r->cols = lay->c.cols;
	return FGO_OK;
}

int cpu_reference_rows(const struct cpu_reference *r, const long *rows, long count, float *want,
		       float *scale, char *err, size_t len)
{
	for (long i = 0; i < count; i++) {
		if (rows[i] < 0 || rows[i] >= r->rows) {
			snprintf(err, len, "row %ld is not in the reference (%ld rows)", rows[i],
				 r->rows);
			return FGO_EFAIL;
		}
		for (long j = 0; j < r->cols; j++) {
			want[i * r->cols + j] = r->want[rows[i] * r->cols + j];
			scale[i * r->cols + j] = r->scale[rows[i] * r->cols + j];
		}
	}
	return FGO_OK;
}

int cpu_output_compare(const struct cpu_reference *r, const void *c, const struct fgo_config *cfg,
		       const struct fgo_layout *lay, double tol, struct fgo_check *res, char *err,
		       size_t len)
{
	const struct fgo_matrix *m = &lay->c;
	check_init(res);
	if (r->rows != m->rows || r->cols != m->cols || !r->want) {
		snprintf(err, len, "no reference of this %ld x %ld shard is kept", m->rows, m->cols);
		return FGO_EFAIL;
	}
	for (long i = 0; i < m->rows; i++)
		for (long j = 0; j < m->cols; j++) {
			double got = dtype_load(cfg->dtype, c, (size_t)i * (size_t)m->ld + (size_t)j);
			size_t at = (size_t)i * (size_t)m->cols + (size_t)j;
			check_add(res, got, r->want[at], r->scale[at], tol, m->row0 + i, m->col0 + j);
		}
	return FGO_OK;
}
