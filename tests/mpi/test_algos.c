/* test_algos.c: every algorithm family on the CPU backend, through the real
 * runner, at world sizes 1 to 4 (3 included: nothing may assume a power of
 * two), on shapes whose tiles are partial at the edges, for every dtype:
 * each run's output must match the reference. Then a few timed runs, whose
 * four measurements and ratios must all be there, with the CPU's telemetry;
 * then the same through a CPU backend given a bulk and a telemetry that
 * answer known numbers per rank (the runner's maxima and means), and a bulk
 * that fails on one rank (the run is failed, what was measured is kept).
 * Run under `mpirun --oversubscribe -np 4`. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "backend/backend.h"
#include "fgo.h"
#include "run/runner.h"
#include "testlib.h"

struct outcome {
	const struct fgo_plan *plan;
	struct fgo_result *results; /* rank 0: one per item */
	int *seen;
};

static int on_started(void *arg, const size_t *items, size_t count)
{
	(void)arg;
	(void)items;
	(void)count;
	return 0;
}

static int on_finished(void *arg, size_t item, const struct fgo_result *r)
{
	struct outcome *o = arg;
	struct fgo_result *mine = &o->results[item];
	*mine = *r;
	/* The samples belong to the runner; keep only their count. */
	mine->fused.ms = mine->gemm.ms = mine->comm.ms = mine->baseline.ms = mine->bulk.ms = NULL;
	o->seen[item]++;
	return 0;
}

static void add(struct fgo_plan *p, size_t *cap, const struct fgo_config *cfg)
{
	if (p->count == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		p->items = realloc(p->items, *cap * sizeof *p->items);
	}
	struct fgo_plan_item *it = &p->items[p->count++];
	memset(it, 0, sizeof *it);
	it->cfg = *cfg;
	it->valid = !config_validate(cfg, it->reason, sizeof it->reason);
	if (cfg->world > p->max_world)
		p->max_world = cfg->world;
}

/* Shapes divisible by 1..4 where the families need it, with edge tiles. */
static const long shapes[][3] = { { 48, 96, 72 }, { 120, 72, 48 }, { 12, 24, 36 } };
static const int tiles[][3] = { { 16, 16, 16 }, { 32, 32, 32 } };

/* Stand-ins answering by world rank parity, so each group of two ranks
 * (0-1, 2-3) has one of each: bulk 1 or 2 ms (the runner keeps the
 * slowest, 2), SM clock 1000 or 1100 MHz (mean 1050), memory 2000, 40 or
 * 50 C (max 50), power unknown (0). */
static int world_rank(void)
{
	int r;
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	return r;
}

static int fake_bulk(struct fgo_backend_ctx *ctx, struct fgo_runnable *run, double timeout_s,
		     double *ms, char *err, size_t len)
{
	(void)ctx, (void)run, (void)timeout_s, (void)err, (void)len;
	*ms = 1.0 + world_rank() % 2;
	return FGO_OK;
}

static int failing_bulk(struct fgo_backend_ctx *ctx, struct fgo_runnable *run, double timeout_s,
			double *ms, char *err, size_t len)
{
	(void)ctx, (void)run, (void)timeout_s;
	*ms = 1.0;
	if (world_rank() % 2 == 0)
		return FGO_OK;
	snprintf(err, len, "bulk needs NCCL, which was not found");
	return FGO_EFAIL;
}

/* A baseline and a bulk that cannot run here on one rank of each group,
 * as ranks sharing a GPU (no NCCL between them) would see. */
static int unavailable_baseline(struct fgo_backend_ctx *ctx, struct fgo_runnable *run,
				double timeout_s, double *ms, char *err, size_t len)
{
	(void)ctx, (void)run, (void)timeout_s;
	*ms = 1.0;
	if (world_rank() % 2 == 0)
		return FGO_OK;
	snprintf(err, len, "ranks share a GPU: the vendor collective (NCCL) needs one GPU per rank");
	return FGO_EUNAVAILABLE;
}

static int unavailable_bulk(struct fgo_backend_ctx *ctx, struct fgo_runnable *run,
			    double timeout_s, double *ms, char *err, size_t len)
{
	return unavailable_baseline(ctx, run, timeout_s, ms, err, len);
}

static int fake_telemetry(struct fgo_backend_ctx *ctx, struct fgo_telemetry *t)
{
	(void)ctx;
	t->sm_clock_mhz = 1000 + 100 * (world_rank() % 2);
	t->mem_clock_mhz = 2000;
	t->temp_c = 40 + 10 * (world_rank() % 2);
	t->power_w = 0;
	return FGO_OK;
}

/* Whether /proc/cpuinfo has "cpu MHz" lines (the CPU backend's clock). */
static int cpuinfo_has_mhz(void)
{
	char line[256];
	int found = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");
	while (f && !found && fgets(line, sizeof line, f))
		found = strncmp(line, "cpu MHz", 7) == 0;
	if (f)
		fclose(f);
	return found;
}

static void build_plan(struct fgo_plan *p)
{
	size_t cap = 0;
	memset(p, 0, sizeof *p);
	for (const struct fgo_algo *const *a = fgo_algos; *a; a++)
		for (int w = 1; w <= 4; w++)
			for (size_t s = 0; s < FGO_ARRAY_SIZE(shapes); s++)
				for (size_t t = 0; t < FGO_ARRAY_SIZE(tiles); t++)
					for (int d = 0; d < 3; d++) {
						struct fgo_config c;
						/* every dtype on the first shape, fp16 on the rest */
						if (d != FGO_FP16 && s > 0)
							continue;
						config_defaults(&c);
						snprintf(c.algorithm, sizeof c.algorithm, "%s", (*a)->name);
						c.dtype = (enum fgo_dtype)d;
						c.world = w;
						c.m = shapes[s][0];
						c.n = shapes[s][1];
						c.k = shapes[s][2];
						c.blk_m = tiles[t][0];
						c.blk_n = tiles[t][1];
						c.blk_k = tiles[t][2];
						c.gsize_m = 1 + (int)(s + t);
						/* Stream-K: CTA counts that split tiles unevenly */
						c.gemm_sms = 1 + (int)(3 * s + 2 * t + w) % 7;
						c.comm_sms = (*a)->comm_ctas == FGO_COMM_CTAS_NONE
								     ? 0
								     : 1 + (int)(s + w) % 3;
						c.comm_blk_m = t ? 8 : 0;
						add(p, &cap, &c);
					}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);

	struct fgo_plan plan;
	build_plan(&plan);
	unsigned char *todo = malloc(plan.count);
	struct outcome o = { &plan, calloc(plan.count, sizeof *o.results),
			     calloc(plan.count, sizeof *o.seen) };
	size_t valid = 0;
	for (size_t i = 0; i < plan.count; i++) {
		todo[i] = (unsigned char)plan.items[i].valid;
		valid += plan.items[i].valid;
	}

	struct fgo_backend_ctx *ctx = NULL;
	char err[256];
	MPI_Comm node;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	fgo_backend_cpu.init(&ctx, node, err, sizeof err);
	struct fgo_runner_opts opts = {
		.backend = &fgo_backend_cpu,
		.ctx = ctx,
		.iterations = 2,
		.warmup = 0,
		.validate = 1,
		.benchmark = 0,
		.timeout_s = 60,
		.heap_limit = (size_t)64 << 20,
	};
	struct fgo_runner_sink sink = { on_started, on_finished, &o };
	int rc = runner_run(MPI_COMM_WORLD, &plan, todo, &opts, &sink);

	if (rank == 0) {
		char id[160];
		T_EQ_INT("algos-runner-rc", rc, FGO_OK);
		T_CHECK("algos-plan-has-valid-items", valid > 250, "only %zu valid items", valid);
		for (size_t i = 0; i < plan.count; i++) {
			const struct fgo_config *c = &plan.items[i].cfg;
			if (!plan.items[i].valid)
				continue;
			snprintf(id, sizeof id, "algos-%s-%s-w%d-%ldx%ldx%ld-blk%d", c->algorithm,
				 dtype_name(c->dtype), c->world, c->m, c->n, c->k, c->blk_m);
			const struct fgo_result *r = &o.results[i];
			T_CHECK(id, o.seen[i] == 1 && r->status == FGO_STATUS_OK && r->validated,
				"seen %d times, status %s: %s", o.seen[i], status_name(r->status),
				r->reason);
		}
	}

	/* A few timed runs: every measurement present, ratios defined. */
	memset(todo, 0, plan.count);
	size_t timed = 0;
	for (size_t i = 0; i < plan.count && timed < 12; i++)
		if (plan.items[i].valid && plan.items[i].cfg.world == 2 &&
		    plan.items[i].cfg.dtype == FGO_FP16 && plan.items[i].cfg.m == 120) {
			todo[i] = 1;
			timed++;
		}
	opts.benchmark = 1;
	memset(o.seen, 0, plan.count * sizeof *o.seen);
	rc = runner_run(MPI_COMM_WORLD, &plan, todo, &opts, &sink);
	if (rank == 0) {
		T_EQ_INT("algos-timed-rc", rc, FGO_OK);
		for (size_t i = 0; i < plan.count; i++) {
			if (!todo[i])
				continue;
			const struct fgo_result *r = &o.results[i];
			const struct fgo_algo *a = algo_find(plan.items[i].cfg.algorithm);
			char id[96];
			snprintf(id, sizeof id, "algos-timed-%s-%zu", a->name, i);
			/* overlap is NaN by design where the shorter half is below the
			 * timer's resolution (a pull's comm pass on a quiet cache can
			 * be); otherwise it is defined and clamped to [0, 1]. */
			double shorter = fmin(r->gemm.median, r->comm.median);
			int overlap_ok = isnan(r->overlap)
						 ? shorter < fgo_backend_cpu.timer_resolution_ms
						 : r->overlap >= 0 && r->overlap <= 1;
			int comm_ok = a->needs_comm ? r->gemm.n == 2 && r->comm.n == 2 && overlap_ok
						    : r->gemm.n == 0 && isnan(r->overlap);
			T_CHECK(id, r->status == FGO_STATUS_OK && r->fused.n == 2 && r->baseline.n == 2 &&
					    comm_ok && r->fused.median > 0 && r->tflops_total > 0 &&
					    r->speedup > 0 && r->bulk.n == 0,
				"status %s fused %d gemm %d comm %d baseline %d bulk %d overlap %g"
				" (gemm %g comm %g ms) speedup %g",
				status_name(r->status), r->fused.n, r->gemm.n, r->comm.n,
				r->baseline.n, r->bulk.n, r->overlap, r->gemm.median,
				r->comm.median, r->speedup);
			snprintf(id, sizeof id, "algos-timed-telemetry-%s-%zu", a->name, i);
			int mhz = cpuinfo_has_mhz();
			T_CHECK(id, (mhz ? r->telemetry.sm_clock_mhz > 0 : isnan(r->telemetry.sm_clock_mhz)) &&
					    isnan(r->telemetry.mem_clock_mhz) && isnan(r->telemetry.power_w) &&
					    (isnan(r->telemetry.temp_c) || r->telemetry.temp_c > 0),
				"cpu MHz in /proc/cpuinfo: %d; sm %g mem %g temp %g power %g", mhz,
				r->telemetry.sm_clock_mhz, r->telemetry.mem_clock_mhz,
				r->telemetry.temp_c, r->telemetry.power_w);
		}
	}

	/* "baseline": "interleaved": every run times its own baseline, in turns
	 * with its fused launches: as many samples of each, the ratio defined. */
	opts.interleave_baseline = 1;
	memset(o.seen, 0, plan.count * sizeof *o.seen);
	rc = runner_run(MPI_COMM_WORLD, &plan, todo, &opts, &sink);
	opts.interleave_baseline = 0;
	if (rank == 0) {
		T_EQ_INT("algos-interleaved-rc", rc, FGO_OK);
		for (size_t i = 0; i < plan.count; i++) {
			if (!todo[i])
				continue;
			const struct fgo_result *r = &o.results[i];
			char id[96];
			snprintf(id, sizeof id, "algos-interleaved-%s-%zu", plan.items[i].cfg.algorithm, i);
			T_CHECK(id, o.seen[i] == 1 && r->status == FGO_STATUS_OK && r->fused.n == 2 &&
					    r->baseline.n == 2 && r->baseline.median > 0 && r->speedup > 0,
				"seen %d status %s fused %d baseline %d (%g ms) speedup %g", o.seen[i],
				status_name(r->status), r->fused.n, r->baseline.n, r->baseline.median,
				r->speedup);
		}
	}

	/* A backend with bulk and telemetry: the slowest rank's bulk time per
	 * iteration, means over ranks and readings, the hottest reading. */
	struct fgo_backend with = fgo_backend_cpu;
	with.bulk = fake_bulk;
	with.telemetry = fake_telemetry;
	opts.backend = &with;
	rc = runner_run(MPI_COMM_WORLD, &plan, todo, &opts, &sink);
	if (rank == 0) {
		T_EQ_INT("bulk-timed-rc", rc, FGO_OK);
		for (size_t i = 0; i < plan.count; i++) {
			if (!todo[i])
				continue;
			const struct fgo_result *r = &o.results[i];
			char id[96];
			snprintf(id, sizeof id, "bulk-timed-%zu", i);
			T_CHECK(id, r->status == FGO_STATUS_OK && r->bulk.n == 2 && r->bulk.median == 2.0 &&
					    r->bulk.min == 2.0 && r->baseline.n == 2,
				"status %s bulk %d median %g min %g: %s", status_name(r->status),
				r->bulk.n, r->bulk.median, r->bulk.min, r->reason);
			snprintf(id, sizeof id, "bulk-telemetry-%zu", i);
			T_CHECK(id, r->telemetry.sm_clock_mhz == 1050 && r->telemetry.mem_clock_mhz == 2000 &&
					    r->telemetry.temp_c == 50 && isnan(r->telemetry.power_w),
				"sm %g mem %g temp %g power %g", r->telemetry.sm_clock_mhz,
				r->telemetry.mem_clock_mhz, r->telemetry.temp_c, r->telemetry.power_w);
		}
	}

	/* A bulk that fails on one rank of each group, as a missing NCCL
	 * would: the run fails with that reason and keeps what it measured. */
	with.bulk = failing_bulk;
	rc = runner_run(MPI_COMM_WORLD, &plan, todo, &opts, &sink);
	if (rank == 0) {
		T_EQ_INT("bulk-failing-rc", rc, FGO_OK);
		for (size_t i = 0; i < plan.count; i++) {
			if (!todo[i])
				continue;
			const struct fgo_result *r = &o.results[i];
			char id[96];
			snprintf(id, sizeof id, "bulk-failing-%zu", i);
			T_CHECK(id, r->status == FGO_FAILED && strstr(r->reason, "bulk needs NCCL") &&
					    r->fused.n == 2 && r->baseline.n == 2 && r->bulk.n == 0 &&
					    r->telemetry.sm_clock_mhz == 1050,
				"status %s reason \"%s\" fused %d baseline %d bulk %d sm %g",
				status_name(r->status), r->reason, r->fused.n, r->baseline.n, r->bulk.n,
				r->telemetry.sm_clock_mhz);
		}
	}

	/* A baseline and a bulk that cannot run here: the run stands, ok and
	 * timed, without them, and its reason says why (a fresh problem cache:
	 * the baseline above was measured once per problem and kept). */
	with.bulk = unavailable_bulk;
	with.baseline = unavailable_baseline;
	rc = runner_run(MPI_COMM_WORLD, &plan, todo, &opts, &sink);
	if (rank == 0) {
		T_EQ_INT("unavailable-rc", rc, FGO_OK);
		for (size_t i = 0; i < plan.count; i++) {
			if (!todo[i])
				continue;
			const struct fgo_result *r = &o.results[i];
			char id[96];
			snprintf(id, sizeof id, "unavailable-%zu", i);
			T_CHECK(id, r->status == FGO_STATUS_OK && r->fused.n == 2 && r->baseline.n == 0 &&
					    r->bulk.n == 0 && isnan(r->speedup) &&
					    strstr(r->reason, "baseline unavailable: ranks share a GPU") &&
					    strstr(r->reason, "; bulk unavailable: ranks share a GPU"),
				"status %s reason \"%s\" fused %d baseline %d bulk %d",
				status_name(r->status), r->reason, r->fused.n, r->baseline.n, r->bulk.n);
		}
	}
	fgo_backend_cpu.finish(ctx);
	MPI_Comm_free(&node);
	free(todo);
	free(o.results);
	free(o.seen);
	plan_free(&plan);
	MPI_Finalize();
	return rank == 0 ? testlib_failed != 0 : 0;
}
