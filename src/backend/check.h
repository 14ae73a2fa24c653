/* check.h: random inputs and the reference check, the same for every backend.
 *
 * Inputs are a pure function of (seed, matrix, global row, global column), so
 * every rank fills its own shard and any rank can recompute any element of
 * the reference C = A x B without communication. */
#ifndef FGO_CHECK_H
#define FGO_CHECK_H

#include <stdint.h>

#include "algo.h"
#include "config.h"

enum fgo_operand { FGO_A = 0, FGO_B = 1 };

/* Writes the shard m of operand `which` into dst (rows x ld elements of dtype). */
void input_fill(uint64_t seed, enum fgo_operand which, const struct fgo_matrix *m,
		enum fgo_dtype t, void *dst);

/* Poison: fills rows x ld elements with a NaN pattern so unwritten output shows. */
void output_poison(const struct fgo_matrix *m, enum fgo_dtype t, void *dst);

struct fgo_check {
	double max_abs_err;   /* largest |got - want| */
	double max_rel_err;   /* largest |got - want| / scale, scale = sum |a_ik b_kj| (>0) */
	long checked;         /* elements compared */
	long bad;             /* elements over tolerance (NaN counts as bad) */
	long first_bad_row, first_bad_col; /* global coordinates of the first bad element, -1 if none */
	uint64_t digest;      /* wrapping sum of fgo_output_digest over the compared elements:
			       * equal for equal bits (one backend's launches of one run) */
};

void check_init(struct fgo_check *res);

/* The comparison rule of one element (the same rule as kernels/check.hip's
 * compare): |got - want| / scale over tol, or got not finite, is wrong;
 * (row, col) are global, the first wrong one in row-major order is kept. */
void check_add(struct fgo_check *res, double got, double want, double scale, double tol,
	       long row, long col);

/* The rows and columns (local to m, increasing) a check of m visits: all
 * of them when m has at most `samples` elements, else a stratified grid of
 * about that many chosen by seed (corners included). *rows and *cols are
 * malloc'd (free them); FGO_OK or FGO_EFAIL (out of memory). */
int check_pick(uint64_t seed, const struct fgo_matrix *m, long samples, long **rows, long *nr,
	       long **cols, long *nc);

/* The exact reference of shard m: want = sum a_ik b_kj and scale = sum
 * |a_ik b_kj| in double, stored as floats (m->rows x m->cols, row-major).
 * What the CPU backend compares every run of a problem against. */
int reference_exact(uint64_t seed, const struct fgo_config *cfg, const struct fgo_matrix *m,
		    float *want, float *scale);

/* Checks a reference made by a backend (a vendor GEMM in fp32) against the
 * exact values on the grid rows x cols (check_pick): want and scale hold
 * the reference's rows `rows` whole (nr x m->cols). FGO_OK when every
 * element is within check_tolerance_exact and every scale within its fp32
 * rounding, FGO_EFAIL (res says where) otherwise. */
int reference_verify(uint64_t seed, const struct fgo_config *cfg, const struct fgo_matrix *m,
		     const long *rows, long nr, const long *cols, long nc, const float *want,
		     const float *scale, struct fgo_check *res);

/* Tolerance of an fp32 reference against the exact value. */
double check_tolerance_exact(long k);

/* Tolerance of a run's output against an fp32 reference: check_tolerance
 * plus the reference's own error. */
double check_tolerance_reference(enum fgo_dtype t, long k, int world);

/* Tolerance on max_rel_err for a dtype and K (accumulation in fp32, one
 * rounding to the output type, up to `world` partial sums). */
double check_tolerance(enum fgo_dtype t, long k, int world);

#endif
