/* test_check.c: the output comparison (src/backend/check.c's check_add,
 * walked over a whole shard by src/cpu/reference.c's cpu_output_compare):
 * an element beyond the tolerance, NaN, +Inf and -Inf are wrong; one wrong
 * element among thousands is found, counted once and located; elements
 * within the tolerance, and a correct output rounded to fp16 or bf16, pass.
 * Every case fails if the comparison is loosened (a factor on the
 * tolerance, non-finite values let through, a wrong element forgotten). */
#include <math.h>
#include <stdlib.h>

#include "backend/check.h"
#include "cpu/reference.h"
#include "dtype.h"
#include "fgo.h"
#include "testlib.h"

#define TOL 1e-3

/* The element rule alone: (got, want, scale) against TOL. */
static void check_rule(void)
{
	static const struct {
		const char *id;
		double got, want, scale;
		int bad;
	} cases[] = {
		{ "rule-1.1 exact", 3.0, 3.0, 10.0, 0 },
		{ "rule-1.2 within the tolerance", 3.0 + 0.5 * TOL * 10, 3.0, 10.0, 0 },
		{ "rule-1.3 just within", 3.0 + 0.99 * TOL * 10, 3.0, 10.0, 0 },
		{ "rule-1.4 just beyond", 3.0 + 1.01 * TOL * 10, 3.0, 10.0, 1 },
		{ "rule-1.5 twice the tolerance, below", 3.0 - 2 * TOL * 10, 3.0, 10.0, 1 },
		{ "rule-1.6 relative to the scale, not the value", 1e-3 + 2 * TOL, 1e-3, 1.0, 1 },
		{ "rule-1.7 NaN", NAN, 3.0, 10.0, 1 },
		{ "rule-1.8 +Inf", INFINITY, 3.0, 10.0, 1 },
		{ "rule-1.9 -Inf", -INFINITY, 3.0, 10.0, 1 },
		{ "rule-1.10 a sign flip", -3.0, 3.0, 10.0, 1 },
		{ "rule-1.11 zero scale: any error is wrong", 1e-20, 0.0, 0.0, 1 },
	};
	for (size_t i = 0; i < FGO_ARRAY_SIZE(cases); i++) {
		struct fgo_check r;
		check_init(&r);
		check_add(&r, cases[i].got, cases[i].want, cases[i].scale, TOL, 7, 9);
		T_CHECK(cases[i].id,
			r.checked == 1 && r.bad == cases[i].bad &&
				(cases[i].bad ? r.first_bad_row == 7 && r.first_bad_col == 9
					      : r.first_bad_row == -1),
			"got=%g want=%g scale=%g: expected bad %d, got bad %ld at (%ld, %ld)",
			cases[i].got, cases[i].want, cases[i].scale, cases[i].bad, r.bad,
			r.first_bad_row, r.first_bad_col);
		if (isfinite(cases[i].got) && cases[i].scale > 0)
			T_NEAR("rule-1.12 max_rel_err", r.max_rel_err,
			       fabs(cases[i].got - cases[i].want) / cases[i].scale, 1e-12);
		else if (!isfinite(cases[i].got))
			T_CHECK("rule-1.13 a non-finite element's error is infinite",
				isinf(r.max_abs_err) && isinf(r.max_rel_err), "abs %g rel %g",
				r.max_abs_err, r.max_rel_err);
	}
	/* out of order (blocks visit elements so): the first bad in row-major order */
	struct fgo_check r;
	check_init(&r);
	check_add(&r, 99, 0, 1, TOL, 5, 1);
	check_add(&r, 0, 0, 1, TOL, 0, 0);
	check_add(&r, NAN, 0, 1, TOL, 2, 7);
	check_add(&r, 99, 0, 1, TOL, 2, 3);
	T_CHECK("rule-2.1 the first bad element in row-major order",
		r.bad == 3 && r.checked == 4 && r.first_bad_row == 2 && r.first_bad_col == 3,
		"bad %ld checked %ld first (%ld, %ld)", r.bad, r.checked, r.first_bad_row,
		r.first_bad_col);
}

/* A whole shard: a 48 x 40 block of C (rows 16.., columns 8..) of a
 * 64 x 64 x 96 GEMM, stored with ld 44, compared by cpu_output_compare. */
struct shard {
	struct fgo_config cfg;
	struct fgo_layout lay;
	struct cpu_reference ref;
	void *c;
};

static int shard_make(struct shard *s, enum fgo_dtype t)
{
	char err[256];
	memset(s, 0, sizeof *s);
	config_defaults(&s->cfg);
	snprintf(s->cfg.algorithm, sizeof s->cfg.algorithm, "gemm");
	s->cfg.dtype = t;
	s->cfg.world = 1;
	s->cfg.m = 64;
	s->cfg.n = 64;
	s->cfg.k = 96;
	s->lay.c = (struct fgo_matrix){ .row0 = 16, .rows = 48, .col0 = 8, .cols = 40, .ld = 44 };
	if (cpu_reference_make(&s->ref, 42, &s->cfg, &s->lay, err, sizeof err) != FGO_OK) {
		printf("FAIL shard: %s\n", err);
		return -1;
	}
	s->c = calloc((size_t)(48 * 44), dtype_size(t));
	if (!s->c)
		return -1;
	/* the correct output, rounded to the output type; the padding poisoned */
	output_poison(&s->lay.c, t, s->c);
	for (long i = 0; i < 48; i++)
		for (long j = 0; j < 40; j++)
			dtype_store(t, s->c, (size_t)(i * 44 + j), s->ref.want[i * 40 + j]);
	return 0;
}

static void shard_free(struct shard *s)
{
	cpu_reference_free(&s->ref);
	free(s->c);
}

static struct fgo_check compare(struct shard *s)
{
	struct fgo_check r;
	char err[256];
	double tol = check_tolerance(s->cfg.dtype, s->cfg.k, s->cfg.world);
	if (cpu_output_compare(&s->ref, s->c, &s->cfg, &s->lay, tol, &r, err, sizeof err) != FGO_OK) {
		printf("FAIL compare: %s\n", err);
		check_init(&r);
		r.bad = -1;
	}
	return r;
}

static void check_shard(void)
{
	static const enum fgo_dtype types[] = { FGO_FP32, FGO_FP16, FGO_BF16 };
	for (size_t d = 0; d < FGO_ARRAY_SIZE(types); d++) {
		struct shard s;
		char id[96];
		const char *dn = dtype_name(types[d]);
		if (shard_make(&s, types[d]) != 0)
			continue;
		double tol = check_tolerance(types[d], s.cfg.k, s.cfg.world);
		struct fgo_check r = compare(&s);
		snprintf(id, sizeof id, "shard-1.1 %s: the correct output passes, every element", dn);
		T_CHECK(id, r.bad == 0 && r.checked == 48 * 40 && r.first_bad_row == -1,
			"bad %ld of %ld checked (first at %ld, %ld), max_rel_err %g, tol %g", r.bad,
			r.checked, r.first_bad_row, r.first_bad_col, r.max_rel_err, tol);

		/* one element among 1920, by twice the tolerance: found, once, where it is */
		long i = 29, j = 17;
		size_t at = (size_t)(i * 44 + j);
		float good = dtype_load(types[d], s.c, at);
		float off = (float)(2 * tol * s.ref.scale[i * 40 + j]);
		dtype_store(types[d], s.c, at, good + (good >= 0 ? off : -off) * 1.5f);
		r = compare(&s);
		snprintf(id, sizeof id, "shard-2.1 %s: one wrong element among 1920", dn);
		T_CHECK(id, r.bad == 1 && r.first_bad_row == 16 + i && r.first_bad_col == 8 + j,
			"bad %ld, first at (%ld, %ld), want 1 at (%ld, %ld)", r.bad, r.first_bad_row,
			r.first_bad_col, 16 + i, 8 + j);
		const float specials[] = { NAN, INFINITY, -INFINITY };
		const char *names[] = { "NaN", "+Inf", "-Inf" };
		for (int k = 0; k < 3; k++) {
			dtype_store(types[d], s.c, at, specials[k]);
			r = compare(&s);
			snprintf(id, sizeof id, "shard-2.%d %s: one %s among 1920", 2 + k, dn, names[k]);
			T_CHECK(id, r.bad == 1 && r.first_bad_row == 16 + i && r.first_bad_col == 8 + j &&
					    isinf(r.max_rel_err),
				"bad %ld, first at (%ld, %ld), max_rel_err %g", r.bad, r.first_bad_row,
				r.first_bad_col, r.max_rel_err);
		}
		/* the last element of the shard: the walk reaches it */
		dtype_store(types[d], s.c, at, good);
		dtype_store(types[d], s.c, (size_t)(47 * 44 + 39), NAN);
		r = compare(&s);
		snprintf(id, sizeof id, "shard-2.5 %s: the shard's last element is compared", dn);
		T_CHECK(id, r.bad == 1 && r.first_bad_row == 16 + 47 && r.first_bad_col == 8 + 39,
			"bad %ld, first at (%ld, %ld)", r.bad, r.first_bad_row, r.first_bad_col);
		shard_free(&s);
	}
	/* a wrong tile: a 16 x 16 block computed without half of K (W = 2's
	 * missing slice): most of its elements must be caught in bf16, the
	 * loosest type (check.c's argument: about 70% at W = 4) */
	struct shard s;
	if (shard_make(&s, FGO_BF16) == 0) {
		struct fgo_config half = s.cfg;
		half.k = 48;
		float *want = malloc(sizeof *want * 48 * 40), *scale = malloc(sizeof *scale * 48 * 40);
		if (want && scale && reference_exact(42, &half, &s.lay.c, want, scale) == FGO_OK) {
			for (long i = 0; i < 16; i++)
				for (long j = 0; j < 16; j++)
					dtype_store(FGO_BF16, s.c, (size_t)((8 + i) * 44 + 8 + j),
						    want[(8 + i) * 40 + 8 + j]);
			struct fgo_check r = compare(&s);
			T_CHECK("shard-3.1 bf16: a tile missing half of K is caught", r.bad >= 128,
				"%ld of 256 elements caught", r.bad);
		}
		free(want);
		free(scale);
		shard_free(&s);
	}
}

int main(void)
{
	check_rule();
	check_shard();
	T_DONE();
}
