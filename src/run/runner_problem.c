/* runner_problem.c: the work the configurations of one problem share
 * (runner.h's struct fgo_problem_cache): the inputs made once per heap, the
 * reference made by the backend and checked on the host once, and each
 * run's whole output compared with it where it lives. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/check.h"
#include "dtype.h"
#include "fgo.h"
#include "run/flight.h"
#include "run/runner_impl.h"

/* Reference elements checked against double on the host. */
#define CHECK_SAMPLES 4096L

/* The element a test plants in every run's output after its validated
 * launch, from FGOBENCH_PLANT_WRONG="ROW,COL" (global coordinates; the
 * runs of the ranks whose C holds it must then be mismatches that name
 * it). FGOBENCH_PLANT_WRONG_REFERENCE does the same to the reference as
 * read back for its host check. Nothing else reads these. */
static int planted(const char *var, long *row, long *col)
{
	const char *v = getenv(var);
	return v && sscanf(v, "%ld,%ld", row, col) == 2;
}

static int plant_output(const struct fgo_runner_opts *o, struct fgo_heap *heap,
			const struct fgo_config *cfg, const struct fgo_layout *lay)
{
	long row, col;
	const struct fgo_matrix *c = &lay->c;
	if (!planted("FGOBENCH_PLANT_WRONG", &row, &col) || row < c->row0 ||
	    row >= c->row0 + c->rows || col < c->col0 || col >= c->col0 + c->cols)
		return FGO_OK;
	unsigned char value[4];
	dtype_store(cfg->dtype, value, 0, 1000.0f);
	size_t at = ((size_t)(row - c->row0) * (size_t)c->ld + (size_t)(col - c->col0)) *
		    dtype_size(cfg->dtype);
	return o->backend->copy_in(o->ctx, heap, c->offset + at, value, dtype_size(cfg->dtype));
}

static void problem_reset(struct fgo_problem_cache *p, const struct fgo_config *cfg)
{
	free(p->baseline.ms);
	memset(p, 0, sizeof *p);
	p->key = *cfg;
	p->info.seed = runner_seed(cfg);
	p->info.reference_max_rel_err = NAN;
}

void runner_problems_free(struct fgo_problem_cache *p)
{
	free(p->baseline.ms);
	memset(p, 0, sizeof *p);
}

/* Checks the reference the backend made against the exact values on the
 * host, on a sampled grid (check_pick; its rows fetched whole). */
static int reference_check(const struct fgo_runner_opts *o, const struct fgo_config *cfg,
			   const struct fgo_layout *lay, struct fgo_problem_cache *p, char *reason,
			   size_t len)
{
	const struct fgo_matrix *m = &lay->c;
	long *rows, *cols, nr, nc;
	if (check_pick(p->info.seed, m, CHECK_SAMPLES, &rows, &nr, &cols, &nc) != FGO_OK) {
		snprintf(reason, len, "out of host memory checking the reference");
		return FGO_EFAIL;
	}
	size_t n = (size_t)nr * (size_t)m->cols;
	float *want = malloc(sizeof *want * (n ? n : 1)), *scale = malloc(sizeof *scale * (n ? n : 1));
	int rc = want && scale ? FGO_OK : FGO_EFAIL;
	if (rc != FGO_OK)
		snprintf(reason, len, "out of host memory checking the reference");
	if (rc == FGO_OK && nr)
		rc = o->backend->reference_rows(o->ctx, rows, nr, want, scale, reason, len);
	long prow, pcol;
	if (rc == FGO_OK && planted("FGOBENCH_PLANT_WRONG_REFERENCE", &prow, &pcol))
		for (long i = 0; i < nr; i++)
			if (rows[i] == prow - m->row0 && pcol >= m->col0 && pcol < m->col0 + m->cols)
				want[i * m->cols + pcol - m->col0] += 1000.0f;
	struct fgo_check chk;
	check_init(&chk);
	if (rc == FGO_OK &&
	    reference_verify(p->info.seed, cfg, m, rows, nr, cols, nc, want, scale, &chk) != FGO_OK) {
		snprintf(reason, len,
			 "the reference of this problem is wrong: %ld of %ld checked elements differ"
			 " from the host's double-precision values, first at C[%ld][%ld]; max rel err"
			 " %.3g > %.3g",
			 chk.bad, chk.checked, chk.first_bad_row, chk.first_bad_col, chk.max_rel_err,
			 check_tolerance_exact(cfg->k));
		rc = FGO_EFAIL;
	}
	p->info.reference_checked = chk.checked;
	p->info.reference_max_rel_err = chk.max_rel_err;
	free(want);
	free(scale);
	free(rows);
	free(cols);
	return rc;
}

/* The problem-level work of cfg's problem, done once per group and kept
 * in p: the inputs (again after the heap changed), and with validation the
 * reference, made by the backend and checked on the host. A failure is
 * kept too: every run of the problem fails with its reason. Collective
 * over comm; returns the agreed code. */
int runner_problem_begin(const struct fgo_runner_opts *o, MPI_Comm comm, struct fgo_heap *heap,
			 unsigned long heap_gen, const struct fgo_config *cfg,
			 const struct fgo_layout *lay, struct fgo_problem_cache *p,
			 struct fgo_result *r)
{
	const struct fgo_backend *be = o->backend;
	if (!runner_same_problem(&p->key, cfg) || p->key.world == 0)
		problem_reset(p, cfg);
	if (p->rc == FGO_OK && p->heap_gen != heap_gen) {
		double t0 = now_seconds();
		p->rc = be->inputs_fill(o->ctx, heap, cfg, lay, p->info.seed, p->reason,
					sizeof p->reason);
		p->rc = runner_agree(comm, p->rc, p->reason, sizeof p->reason);
		p->heap_gen = heap_gen;
		r->phase_s[FGO_PHASE_INPUTS] = seconds_since(t0);
		p->info.inputs_s += r->phase_s[FGO_PHASE_INPUTS];
		r->problem.first = 1;
	}
	if (p->rc == FGO_OK && o->validate && !p->reference_made) {
		double t0 = now_seconds();
		p->rc = be->reference_make(o->ctx, cfg, lay, p->info.seed, p->reason, sizeof p->reason);
		if (p->rc == FGO_OK)
			p->rc = reference_check(o, cfg, lay, p, p->reason, sizeof p->reason);
		p->rc = runner_agree(comm, p->rc, p->reason, sizeof p->reason);
		double checked = (double)p->info.reference_checked, err = p->info.reference_max_rel_err;
		MPI_Allreduce(MPI_IN_PLACE, &checked, 1, MPI_DOUBLE, MPI_SUM, comm);
		MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_MAX, comm);
		p->info.reference_checked = (long)checked;
		p->info.reference_max_rel_err = err;
		p->info.reference = 1;
		p->reference_made = 1;
		r->phase_s[FGO_PHASE_VALIDATE] += seconds_since(t0);
		p->info.reference_s = seconds_since(t0);
		r->problem.first = 1;
	}
	if (p->rc != FGO_OK)
		snprintf(r->reason, sizeof r->reason, "%s", p->reason);
	return p->rc;
}

/* One validated launch: the output poisoned, the fused kernel run, every
 * element compared with the problem's reference where the output lives;
 * a wrong element anywhere makes the run a mismatch. */
int runner_validate_output(const struct fgo_runner_opts *o, MPI_Comm comm, struct fgo_heap *heap,
			   struct fgo_runnable *run, const struct fgo_config *cfg,
			   const struct fgo_layout *lay, struct fgo_result *r, uint64_t *digest)
{
	const struct fgo_backend *be = o->backend;
	double ms;
	int rc = be->output_poison(o->ctx, heap, cfg, lay, r->reason, sizeof r->reason);
	/* every rank's C is poisoned before any peer writes into it */
	rc = runner_agree(comm, rc, r->reason, sizeof r->reason);
	if (rc == FGO_OK) {
		flight_arm(flight_launch_limit(o->timeout_s));
		rc = be->launch(o->ctx, run, FGO_MODE_FUSED, o->timeout_s, &ms, r->reason,
				sizeof r->reason);
		flight_disarm();
	}
	rc = runner_agree(comm, rc, r->reason, sizeof r->reason);
	if (rc != FGO_OK)
		return rc;

	double tol = check_tolerance_reference(cfg->dtype, cfg->k, cfg->world);
	struct fgo_check chk;
	check_init(&chk);
	rc = plant_output(o, heap, cfg, lay);
	if (rc == FGO_OK)
		rc = be->output_compare(o->ctx, heap, cfg, lay, tol, &chk, r->reason, sizeof r->reason);
	rc = runner_agree(comm, rc, r->reason, sizeof r->reason);
	if (rc != FGO_OK)
		return rc;

	int rank, bad = chk.bad > 0;
	MPI_Comm_rank(comm, &rank);
	if (bad)
		snprintf(r->reason, sizeof r->reason,
			 "%ld of %ld checked elements wrong on rank %d, first at C[%ld][%ld];"
			 " max rel err %.3g > tolerance %.3g",
			 chk.bad, chk.checked, rank, chk.first_bad_row, chk.first_bad_col,
			 chk.max_rel_err, tol);
	double errs[2] = { chk.max_abs_err, chk.max_rel_err };
	MPI_Allreduce(MPI_IN_PLACE, errs, 2, MPI_DOUBLE, MPI_MAX, comm);
	r->max_abs_err = errs[0];
	r->max_rel_err = errs[1];
	r->validated = 1;
	*digest = chk.digest;
	if (runner_agree(comm, bad ? FGO_EFAIL : FGO_OK, r->reason, sizeof r->reason) != FGO_OK)
		r->status = FGO_MISMATCH;
	return FGO_OK;
}

int runner_repeat_checked(const struct fgo_config *cfg)
{
	const char *every = getenv("FGOBENCH_CHECK_REPEAT");
	return cfg->deterministic ||
	       (every && strcmp(every, "1") == 0 && (cfg->split_k > 1 || cfg->gemm_sms > 0));
}

int runner_check_repeatable(const struct fgo_runner_opts *o, MPI_Comm comm, struct fgo_heap *heap,
			    struct fgo_runnable *run, const struct fgo_config *cfg,
			    const struct fgo_layout *lay, uint64_t digest, struct fgo_result *r)
{
	uint64_t again = 0;
	int rc = runner_validate_output(o, comm, heap, run, cfg, lay, r, &again);
	if (rc != FGO_OK || r->status == FGO_MISMATCH)
		return rc;
	int rank, differs[2];
	MPI_Comm_rank(comm, &rank);
	differs[0] = again != digest;
	differs[1] = differs[0] ? rank : -1;
	MPI_Allreduce(MPI_IN_PLACE, differs, 2, MPI_INT, MPI_MAX, comm);
	if (differs[0]) {
		r->status = FGO_MISMATCH;
		snprintf(r->reason, sizeof r->reason,
			 "%s a later launch wrote other bits than the validated one (rank %d's"
			 " output digest changed)%s",
			 cfg->deterministic ? "deterministic=1, but" : "repeat check:", differs[1],
			 cfg->deterministic ? ": the partial sums were not added in a fixed order"
					    : ": the partial sums meet in arrival order (deterministic=0)");
	}
	return FGO_OK;
}

int runner_timing_copy(struct fgo_timing *dst, const struct fgo_timing *src)
{
	*dst = *src;
	dst->ms = NULL;
	if (!src->n)
		return FGO_OK;
	dst->ms = malloc(sizeof *dst->ms * (size_t)src->n);
	if (!dst->ms) {
		dst->n = 0;
		return FGO_EFAIL;
	}
	memcpy(dst->ms, src->ms, sizeof *dst->ms * (size_t)src->n);
	return FGO_OK;
}

