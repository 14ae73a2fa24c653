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

/* Value of element (row, col) of global operand `which`: uniform in [-1, 1),
 * never all zeros, already rounded to dtype. */
float input_value(uint64_t seed, enum fgo_operand which, long row, long col, enum fgo_dtype t);

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
};

/* Compares the output shard got (layout m, dtype of cfg) with A x B computed
 * in double from input_value(). Checks every element when the shard has at
 * most max_full elements, else `samples` elements chosen by seed (always
 * including the four corners). Returns 0 when all are within tolerance. */
int output_check(uint64_t seed, const struct fgo_config *cfg, const struct fgo_matrix *m,
		 const void *got, long max_full, long samples, struct fgo_check *res);

/* Tolerance on max_rel_err for a dtype and K (accumulation in fp32, one
 * rounding to the output type, up to `world` partial sums). */
double check_tolerance(enum fgo_dtype t, long k, int world);

#endif
