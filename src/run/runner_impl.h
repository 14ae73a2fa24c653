/* runner_impl.h: what runner.c, runner_problem.c, runner_memory.c and
 * runner_measure.c share and nobody else needs. */
#ifndef FGO_RUNNER_IMPL_H
#define FGO_RUNNER_IMPL_H

#include "fgo.h"
#include "run/runner.h"

/* Agrees on a result code over comm: the largest one wins, and the reason
 * of the lowest rank that reported it is copied to every rank. */
int runner_agree(MPI_Comm comm, int rc, char *reason, size_t len);

static inline double seconds_since(double t0)
{
	return now_seconds() - t0;
}

/* cfg's layout on rank 0; 0 with *lay zeroed when the shape is too large
 * to lay out. */
int runner_layout_of(const struct fgo_config *cfg, struct fgo_layout *lay);
/* Bytes of heap cfg needs per rank (a double, so that it cannot wrap). */
double runner_heap_need(const struct fgo_config *cfg, const struct fgo_layout *lay);
/* Bytes one rank keeps for cfg's reference beside the heap (host memory on
 * the CPU backend, device memory on a GPU); 0 when be does not say. */
double runner_reference_need(const struct fgo_backend *be, const struct fgo_config *cfg,
			     const struct fgo_layout *lay);

/* The problem-level work of cfg's problem (inputs once per heap; with
 * validation the reference, made by the backend and checked on the host),
 * kept in p with its failure, if any: every run of the problem fails with
 * it. Collective over comm; the agreed code. */
int runner_problem_begin(const struct fgo_runner_opts *o, MPI_Comm comm, struct fgo_heap *heap,
			 unsigned long heap_gen, const struct fgo_config *cfg,
			 const struct fgo_layout *lay, struct fgo_problem_cache *p,
			 struct fgo_result *r);

/* One validated launch: the output poisoned, the fused kernel run, every
 * element compared with the problem's reference; a wrong element makes
 * r a mismatch. *digest: this rank's digest of the output's bits
 * (struct fgo_check). Collective; FGO_OK unless the launch or compare
 * failed. */
int runner_validate_output(const struct fgo_runner_opts *o, MPI_Comm comm, struct fgo_heap *heap,
			   struct fgo_runnable *run, const struct fgo_config *cfg,
			   const struct fgo_layout *lay, struct fgo_result *r, uint64_t *digest);

/* Whether cfg's output is checked for the same bits twice
 * (runner_check_repeatable): when it is deterministic, and, for a test,
 * with FGOBENCH_CHECK_REPEAT=1 every walk with partial sums (split-K,
 * Stream-K), so the GPU shows what the promise is worth without it
 * (tests/gpu/walk.sh's det step). */
int runner_repeat_checked(const struct fgo_config *cfg);

/* For cfg->deterministic: one more validated launch (after the timed
 * ones), whose output must have the same bits as the first's (digest, this
 * rank's) on every rank, else r is a mismatch saying so. Collective;
 * FGO_OK unless the launch or compare failed. */
int runner_check_repeatable(const struct fgo_runner_opts *o, MPI_Comm comm, struct fgo_heap *heap,
			    struct fgo_runnable *run, const struct fgo_config *cfg,
			    const struct fgo_layout *lay, uint64_t digest, struct fgo_result *r);

/* runner_guard.c. For a user kernel's problem: this rank's inputs'
 * digests taken once they are made (collective; the agreed code), and
 * compared after a run: a run that changed A or B on any rank becomes
 * FGO_CORRUPTED saying where, and the problem's inputs are made again
 * before its next run (collective). Nothing for the built-in families. */
int runner_inputs_digest_take(const struct fgo_runner_opts *o, MPI_Comm comm,
			      struct fgo_heap *heap, const struct fgo_config *cfg,
			      const struct fgo_layout *lay, struct fgo_problem_cache *p,
			      struct fgo_result *r);
void runner_inputs_digest_check(const struct fgo_runner_opts *o, MPI_Comm comm,
				struct fgo_heap *heap, const struct fgo_config *cfg,
				const struct fgo_layout *lay, struct fgo_problem_cache *p,
				struct fgo_result *r);
/* After a failed run: 1 when a rank of comm lost its device (the
 * backend's health), r then FGO_CRASHED saying which rank and why; 0 when
 * every rank can go on. Collective. */
int runner_device_lost(const struct fgo_runner_opts *o, MPI_Comm comm, struct fgo_result *r);

/* A new heap generation (heaps the problem cache's inputs belong to). */
unsigned long runner_heap_generation_next(void);

/* The fused launch of run timed as a sweep times it (warm-up, then
 * o->iterations launches between barriers, the slowest rank's each), into
 * t (its samples malloc'd). Collective; the agreed result code. */
int runner_time_fused(const struct fgo_runner_opts *o, MPI_Comm comm, struct fgo_runnable *run,
		      struct fgo_timing *t, char *reason, size_t len);

/* The timed measurements of one run (runner_measure.c), into r: the fused
 * launch, its GEMM-only and comm-only modes where the algorithm
 * communicates, the vendor baseline (the problem's, measured once into p
 * and copied; or with o->interleave_baseline the run's own, launched in
 * turns with the fused kernel), the backend's bulk sequence where it has
 * one, and the telemetry read around them. A baseline or bulk that cannot
 * be measured here is noted in r and the run stands. Collective; the
 * agreed code (r->reason says why on failure). */
int runner_measure(const struct fgo_runner_opts *o, MPI_Comm comm, struct fgo_runnable *run,
		   const struct fgo_algo *algo, struct fgo_problem_cache *p, struct fgo_result *r);

/* Notes in an ok run's reason what could not be measured here and why. */
void runner_unavailable(struct fgo_result *r, const char *what, const char *why);

/* dst = a copy of src with its own samples. */
int runner_timing_copy(struct fgo_timing *dst, const struct fgo_timing *src);

#endif
