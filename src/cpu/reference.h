/* cpu/reference.h: the CPU backend's check with the work done once per
 * problem: the exact reference of a rank's C shard (check.c's
 * reference_exact, kept as floats in host memory) and every element of a
 * run's output compared with it (check_add's rule). */
#ifndef FGO_CPU_REFERENCE_H
#define FGO_CPU_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "algo.h"
#include "backend/check.h"

struct cpu_reference {
	long rows, cols; /* the shard's shape; 0 x 0 when none is kept */
	float *want, *scale;
};

/* Replaces the kept reference with lay->c's. FGO_OK, FGO_EUSAGE (host
 * memory too small: the reason gives the bytes) or FGO_EFAIL. */
int cpu_reference_make(struct cpu_reference *r, uint64_t seed, const struct fgo_config *cfg,
		       const struct fgo_layout *lay, char *err, size_t len);
int cpu_reference_rows(const struct cpu_reference *r, const long *rows, long count, float *want,
		       float *scale, char *err, size_t len);
/* Compares c (lay->c's shard as stored, dtype of cfg) with the reference. */
int cpu_output_compare(const struct cpu_reference *r, const void *c, const struct fgo_config *cfg,
		       const struct fgo_layout *lay, double tol, struct fgo_check *res, char *err,
		       size_t len);
double cpu_reference_bytes(const struct fgo_config *cfg, const struct fgo_layout *lay);
void cpu_reference_free(struct cpu_reference *r);

#endif
