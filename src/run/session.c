/* session.c: a plan run and stored as one sweep (see session.h). Rank 0
 * owns the store; every decision it takes (resume mask, ceilings, errors)
 * is broadcast so all ranks go the same way. */
#include "run/session.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algo.h"
#include "backend/backend.h"
#include "embed.h"
#include "fgo.h"
#include "run/flight.h"
#include "run/interrupt.h"
#include "run/runner.h"
#include "sink.h"
#include "store/store.h"

struct progress {
	struct fgo_store *store;
	const struct fgo_plan *plan;
	int64_t sweep_id;
	int64_t *run_ids;      /* per plan item, set when its row is written */
	double *fused_ms;      /* per plan item: an ok run's fused median (0: none), for --trace */
	size_t total, done;
	size_t counts[FGO_STATUSES];
	double started;
	int show, tty;
	int64_t last_run_id;
	double phases[FGO_PHASES]; /* seconds per phase over the runs */
	double batch_started;      /* when the open batch of run writes began (0: none) */
	int complete;              /* --resume found the sweep finished: nothing runs */
	const struct fgo_session *s;
	int ended;                 /* end() closed the sweep: a signal has nothing to record */
};

/* Run writes are committed once per problem (the next 'started' rows) or
 * after this long, whichever comes first. */
#define BATCH_SECONDS 1.0

static int batch_commit(struct progress *p)
{
	char err[FGO_REASON_MAX];
	if (!p->batch_started)
		return 0;
	p->batch_started = 0;
	if (store_batch_commit(p->store, err, sizeof err)) {
		error("%s", err);
		return 1;
	}
	return 0;
}

void format_duration(double s, char *out, size_t len)
{
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(out, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(out, len, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(out, len, "%lds", t);
}

static int sink_started(void *arg, const size_t *items, size_t count)
{
	struct progress *p = arg;
	char err[FGO_REASON_MAX];
	/* the finished runs before these first, then the new rows in one
	 * transaction of their own, so a crash leaves them as a trace */
	if (batch_commit(p))
		return 1;
	if (store_batch_begin(p->store, err, sizeof err)) {
		error("%s", err);
		return 1;
	}
	p->batch_started = now_seconds();
	for (size_t j = 0; j < count; j++) {
		const struct fgo_config *cfg = &p->plan->items[items[j]].cfg;
		if (store_run_started(p->store, p->sweep_id, cfg, p->plan->iterations,
				      p->plan->warmup, &p->run_ids[items[j]], err, sizeof err)) {
			error("%s", err);
			return 1;
		}
	}
	return batch_commit(p);
}

static void progress_line(struct progress *p, const struct fgo_config *cfg,
			  const struct fgo_result *r)
{
	char what[160], eta[48] = "";
	double elapsed = now_seconds() - p->started;
	if (p->done < p->total) {
		char d[16];
		format_duration(elapsed / (double)p->done * (double)(p->total - p->done), d, sizeof d);
		snprintf(eta, sizeof eta, "  %.3g/s ETA %s", (double)p->done / elapsed, d);
	}
	char reason[2 * FGO_REASON_MAX]; /* a kernel's own words: shown, never obeyed */
	sink_terminal(r->reason, reason, sizeof reason);
	if (r->status == FGO_STATUS_OK)
		snprintf(what, sizeof what, "%.3g ms %.3g TFLOPS", r->fused.median, r->tflops_total);
	else if (r->fused.n == 0)
		snprintf(what, sizeof what, "%s: %.110s", status_name(r->status), reason);
	else
		snprintf(what, sizeof what, "%s (%.3g ms): %.90s", status_name(r->status),
			 r->fused.median, reason);
	char tile[FGO_PARAMS_MAX + 8];
	if (cfg->params[0]) /* a user kernel's own tunables */
		snprintf(tile, sizeof tile, "%s", cfg->params);
	else
		snprintf(tile, sizeof tile, "BLK=%dx%dx%d s%d w%d", cfg->blk_m, cfg->blk_n, cfg->blk_k,
			 cfg->num_stages, cfg->num_warps);
	fprintf(stderr, "%s[%zu/%zu] %s %s W=%d M=%ld N=%ld K=%ld %s -> %s%s%s",
		p->tty ? "\r\033[K" : "", p->done, p->total, cfg->algorithm,
		dtype_name(cfg->dtype), cfg->world, cfg->m, cfg->n, cfg->k, tile, what, eta,
		p->tty && r->status == FGO_STATUS_OK ? "" : "\n");
	fflush(stderr);
}

static int sink_finished(void *arg, size_t item, const struct fgo_result *r)
{
	struct progress *p = arg;
	char err[FGO_REASON_MAX];
	int64_t problem;
	double t0 = now_seconds();
	if (!p->batch_started) {
		if (store_batch_begin(p->store, err, sizeof err)) {
			error("%s", err);
			return 1;
		}
		p->batch_started = t0;
	}
	/* the store's phase is this write, known once it is done: added after */
	if (store_problem_of(p->store, p->sweep_id, &p->plan->items[item].cfg, r, &problem, err,
			     sizeof err) ||
	    store_run_finish(p->store, p->run_ids[item], problem, r, err, sizeof err) ||
	    store_run_store_time(p->store, p->run_ids[item], now_seconds() - t0, err, sizeof err)) {
		error("%s", err);
		return 1;
	}
	if (now_seconds() - p->batch_started >= BATCH_SECONDS && batch_commit(p))
		return 1;
	for (int i = 0; i < FGO_PHASES; i++)
		p->phases[i] += r->phase_s[i];
	p->phases[FGO_PHASE_STORE] += now_seconds() - t0;
	p->last_run_id = p->run_ids[item];
	if (r->status == FGO_STATUS_OK && r->fused.n > 0)
		p->fused_ms[item] = r->fused.median;
	p->done++;
	p->counts[r->status]++;
	if (p->show)
		progress_line(p, &p->plan->items[item].cfg, r);
	return 0;
}

/* Rank 0, on the watcher thread with the lock held (interrupt.h): the
 * runs finished so far committed, the sweep marked interrupted and what
 * was stored said, with the command that resumes it. The runs in flight
 * keep their 'started' rows: --resume runs them again. */
static int stop_sweep(void *arg, int sig)
{
	struct progress *p = arg;
	char err[FGO_REASON_MAX];
	long runs = 0, ok = 0;
	if (p->ended)
		return 0;
	if (p->show && p->tty && p->done)
		fputc('\n', stderr);
	batch_commit(p);
	if (store_sweep_end(p->store, p->sweep_id, "interrupted", err, sizeof err) ||
	    store_sweep_stored(p->store, p->sweep_id, &runs, &ok, err, sizeof err))
		error("%s", err);
	p->ended = 1;
	/* said before the store is closed: closing checkpoints the WAL, which
	 * mpirun's SIGKILL, a second after its SIGTERM, may cut short. A job
	 * fgobench launched is started again by its supervisor, which says so. */
	char flights[4096];
	flight_dir(p->s->db_path, flights, sizeof flights);
	int asked = getenv("FGOBENCH_SUPERVISED") ? flight_stop_read(flights) : sig;
	if (asked)
		sig = asked;
	if (!asked)
		note("sweep %lld: job stopped (%s): %ld of %zu runs stored (%ld ok)",
		     (long long)p->sweep_id, interrupt_signal_name(sig), runs, p->plan->count, ok);
	else
		note("sweep %lld%s%s%s interrupted (%s): %ld of %zu runs stored (%ld ok) in %s%s%s",
	     (long long)p->sweep_id, p->s->tag ? " (tag " : "", p->s->tag ? p->s->tag : "",
	     p->s->tag ? ")" : "", interrupt_signal_name(sig), runs, p->plan->count, ok, p->s->db_path,
	     p->s->resume_command ? "; resume with: " : "",
	     p->s->resume_command ? p->s->resume_command : "");
	store_close(p->store);
	return 1;
}

/* Rank 0: opens the store, starts or resumes the sweep, stores invalid
 * items and decides which items run (todo). When --resume finds the newest
 * sweep of the spec (and tag) done, it says so, closes the store and sets
 * p->complete: resuming is idempotent, only a plain sweep starts anew. */
static int begin(const struct fgo_plan *plan, const struct fgo_session *s,
		 const struct fgo_backend *be, struct fgo_backend_ctx *ctx, int ranks,
		 struct progress *p, unsigned char *todo, struct fgo_ceilings *ceil)
{
	char err[512], host[128] = "unknown";
	struct fgo_env env;
	memset(&env, 0, sizeof env);
	gethostname(host, sizeof host - 1);
	be->describe(ctx, &env);

	if (store_open(s->db_path, FGO_STORE_WRITE, &p->store, err, sizeof err)) {
		error("%s", err);
		return FGO_EUSAGE;
	}
	int64_t id = 0;
	const char *relaunch = getenv("FGOBENCH_RESUME_SWEEP"); /* the supervisor's (launch/) */
	if (relaunch && *relaunch) {
		id = strtoll(relaunch, NULL, 10);
	} else if (s->resume) {
		int done = 0;
		if (store_sweep_find_latest(p->store, plan->hash, s->tag, &id, &done, err, sizeof err))
			goto fail;
		if (done && !s->retry_crashed) {
			if (s->tag)
				note("sweep %lld (tag %s) is already complete: nothing to resume (without"
				     " --resume, a new sweep starts)",
				     (long long)id, s->tag);
			else
				note("sweep %lld of %s is already complete: nothing to resume (without"
				     " --resume, a new sweep starts)",
				     (long long)id, plan->name);
			p->sweep_id = id;
			p->complete = 1;
			store_close(p->store);
			p->store = NULL;
			return FGO_OK;
		}
		if (id == 0)
			note("no sweep of %s%s%s to resume; starting a new one", plan->name,
			     s->tag ? " with tag " : "", s->tag ? s->tag : "");
	}
	if (id) {
		int stale = 0;
		char dir[4096];
		/* what the last job's kernels did to it first: those runs are
		 * results, not runs to try again */
		long retried = 0;
		flight_dir(s->db_path, dir, sizeof dir);
		if (session_blame(p->store, id, dir, err, sizeof err) ||
		    (s->retry_crashed &&
		     store_sweep_retry_faults(p->store, id, &retried, err, sizeof err)) ||
		    store_sweep_reopen(p->store, id, &stale, err, sizeof err))
			goto fail;
		if (retried)
			note("%ld crashed, hung or corrupted run%s of sweep %lld run again (--retry-crashed)",
			     retried, retried == 1 ? "" : "s", (long long)id);
		note("resuming sweep %lld%s", (long long)id,
		     stale ? " (runs a crash or a signal interrupted are marked failed and run again)" : "");
	} else {
		struct fgo_sweep_info info = {
			.tag = s->tag, .spec_path = s->spec_path, .spec_name = plan->name,
			.spec_text = plan->text, .spec_hash = plan->hash,
			.command_line = s->command_line, .host = host, .version = FGO_VERSION,
			.git_revision = fgo_git_revision, .backend = be->name,
			.devices = env.devices, .driver = env.driver, .runtime = env.runtime,
			.arch = env.arch, .mpi_ranks = ranks, .iterations = plan->iterations,
			.warmup = plan->warmup,
		};
		if (store_sweep_begin(p->store, &info, &id, err, sizeof err))
			goto fail;
	}
	p->sweep_id = id;

	for (size_t i = 0; i < plan->count; i++) {
		int status = -1;
		int64_t run_id = 0;
		if (store_run_lookup(p->store, id, &plan->items[i].cfg, &status, &run_id, err,
				     sizeof err))
			goto fail;
		todo[i] = plan->items[i].valid && status != FGO_STATUS_OK &&
			  (status < 0 || !status_is_fault((enum fgo_status)status));
		if (!plan->items[i].valid && status != FGO_INVALID &&
		    store_run_invalid(p->store, id, &plan->items[i].cfg, plan->items[i].reason, err,
				      sizeof err))
			goto fail;
		if (!plan->items[i].valid)
			p->counts[FGO_INVALID]++;
		if (todo[i])
			p->total++;
	}

	if (ceilings_load(p->store, host, be->name, plan->max_world, ceil, err, sizeof err))
		goto fail;
	return FGO_OK;
fail:
	error("%s", err);
	store_close(p->store);
	p->store = NULL;
	return FGO_EFAIL;
}

/* Rank 0: the wall time of the runs, configurations per second and each
 * phase's share. Groups run side by side, so the phases can add up to
 * more than the wall: shares are of the larger of the two, and what the
 * phases leave of the wall (MPI, the host between runs) is "other". */
static void where_the_time_went(const struct progress *p)
{
	double wall = now_seconds() - p->started, sum = 0;
	for (int i = 0; i < FGO_PHASES; i++)
		sum += p->phases[i];
	double whole = wall > sum ? wall : sum;
	char line[512];
	int at = snprintf(line, sizeof line, "%zu run%s in %.1f s, %.3g runs/s;", p->done,
			  p->done == 1 ? "" : "s", wall,
			  wall > 0 ? (double)p->done / wall : 0.0);
	for (int i = 0; i < FGO_PHASES && at < (int)sizeof line; i++)
		at += snprintf(line + at, sizeof line - (size_t)at, " %s %.0f%%",
			       phase_name((enum fgo_phase)i),
			       whole > 0 ? 100.0 * p->phases[i] / whole : 0.0);
	if (at < (int)sizeof line)
		snprintf(line + at, sizeof line - (size_t)at, " other %.0f%%",
			 whole > 0 ? 100.0 * (whole - sum) / whole : 0.0);
	note("where the time went: %s", line);
}

size_t session_fastest(size_t count, const int64_t *run_ids, const double *fused_ms)
{
	size_t best = count;
	for (size_t i = 0; i < count; i++)
		if (fused_ms[i] > 0 && run_ids[i] > 0 && (best == count || fused_ms[i] < fused_ms[best]))
			best = i;
	return best;
}

/* Rank 0: closes the sweep and prints the summary; returns the exit status.
 * rc FGO_ERESTART (a rank's device lost): the sweep is left interrupted,
 * to go on in a fresh process. */
static int end(struct progress *p, const struct fgo_session *s, int rc)
{
	char err[512];
	const char *status = rc == FGO_OK ? "done" : rc == FGO_ERESTART ? "interrupted" : "failed";
	interrupt_lock();
	if (batch_commit(p))
		rc = FGO_EFAIL;
	if (store_sweep_end(p->store, p->sweep_id, status, err, sizeof err)) {
		error("%s", err);
		rc = FGO_EFAIL;
	}
	long faults[3] = { 0, 0, 0 };
	if (store_sweep_faults(p->store, p->sweep_id, faults, err, sizeof err) != FGO_OK) {
		error("%s", err);
		rc = FGO_EFAIL;
	}
	store_close(p->store);
	p->ended = 1;
	interrupt_unlock();
	interrupt_unwatch();
	if (p->show && p->tty && p->done)
		fputc('\n', stderr);
	size_t bad = p->counts[FGO_MISMATCH] + p->counts[FGO_FAILED] + p->counts[FGO_TIMEOUT] +
		     (size_t)(faults[0] + faults[1] + faults[2]);
	char took[32], tag[256] = "";
	format_duration(now_seconds() - p->started, took, sizeof took);
	if (s->tag)
		sink_terminal(s->tag, tag + 1, sizeof tag - 1), tag[0] = ' ';
	note("sweep %lld%s: %zu run%s in %s: %zu ok, %zu invalid, %zu mismatch, %zu failed,"
	     " %zu timeout, %zu crashed, %zu hung, %zu corrupted; stored in %s",
	     (long long)p->sweep_id, tag, p->done, p->done == 1 ? "" : "s", took,
	     p->counts[FGO_STATUS_OK], p->counts[FGO_INVALID], p->counts[FGO_MISMATCH],
	     p->counts[FGO_FAILED], p->counts[FGO_TIMEOUT], p->counts[FGO_CRASHED],
	     p->counts[FGO_HUNG], p->counts[FGO_CORRUPTED], s->db_path);
	session_faults_say(p->sweep_id, p->counts, faults);
	if (rc == FGO_ERESTART)
		note("the sweep goes on in a fresh process (a rank's GPU context is lost)%s%s",
		     getenv("FGOBENCH_SUPERVISED") ? "" : ": resume it with ",
		     getenv("FGOBENCH_SUPERVISED") ? "" : s->resume_command ? s->resume_command : "--resume");
	if (p->done)
		where_the_time_went(p);
	if (s->sweep_id)
		*s->sweep_id = p->sweep_id;
	if (s->last_run_id)
		*s->last_run_id = p->last_run_id;
	if (rc != FGO_OK)
		return rc == FGO_ERESTART ? FGO_EFAIL : rc;
	return bad ? FGO_EFAIL : FGO_OK;
}

/* The algorithm of item i when the item is to run and be has something to
 * compile for it (a GPU kernel of this build, a user kernel), else NULL. */
static const struct fgo_algo *kernel_of(const struct fgo_plan *plan, const unsigned char *todo,
					size_t i, const struct fgo_backend *be)
{
	const struct fgo_algo *algo = todo[i] ? algo_find(plan->items[i].cfg.algorithm) : NULL;
	if (algo && algo->user)
		return algo;
	return algo && be->compiles_families && algo->gpu_source && embedded_text(algo->gpu_source)
		       ? algo
		       : NULL;
}

/* Compiles the kernels of the items to run before any timing, the ranks of
 * a node sharing them: node-local rank r of L takes kernels r, r+L, r+2L,
 * ... into the kernel cache (where prepare finds them), then the node
 * waits for all. Nothing for backends without precompile. Collective over
 * comm. */
static void precompile(MPI_Comm comm, MPI_Comm node, const struct fgo_plan *plan,
		       const unsigned char *todo, const struct fgo_backend *be,
		       struct fgo_backend_ctx *ctx, int show)
{
	int rank, local, locals;
	size_t n = 0, k = 0;
	long failed = 0, all_failed = 0;
	char err[FGO_REASON_MAX];

	if (!be->precompile)
		return;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_rank(node, &local);
	MPI_Comm_size(node, &locals);
	for (size_t i = 0; i < plan->count; i++)
		n += kernel_of(plan, todo, i, be) != NULL;
	if (n == 0)
		return;
	double t0 = now_seconds();
	if (rank == 0 && show) {
		fprintf(stderr, "fgobench: compiling %zu kernel%s on %d rank%s ...", n, n == 1 ? "" : "s",
			locals, locals == 1 ? "" : "s");
		fflush(stderr);
	}
	for (size_t i = 0; i < plan->count; i++) {
		const struct fgo_algo *algo = kernel_of(plan, todo, i, be);
		if (!algo || k++ % (size_t)locals != (size_t)local)
			continue;
		if (be->precompile(ctx, algo, &plan->items[i].cfg, err, sizeof err) != FGO_OK)
			failed++;
	}
	/* the node barrier: a sum over the node (every node compiles the whole
	 * list), then the worst node for rank 0 */
	MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_LONG, MPI_SUM, node);
	MPI_Reduce(&failed, &all_failed, 1, MPI_LONG, MPI_MAX, 0, comm);
	if (rank == 0 && show) {
		fprintf(stderr, " done in %.1f s", now_seconds() - t0);
		if (all_failed)
			fprintf(stderr, " (%ld cannot launch or do not compile here: each is stored as"
				" invalid, or as failed where a user kernel does not compile, when it runs)",
				all_failed);
		fputc('\n', stderr);
	}
}

/* Whether any item of the plan can run. A plan with none is bad input, not
 * an empty success: rank 0 says why, each reason once with its count (the
 * items of a dataset usually share one), and nothing is stored. Every rank
 * holds the same plan, so all return the same. */
static int plan_has_valid(const struct fgo_plan *plan, const char *path, int rank)
{
	struct plan_reason r[8];
	size_t invalid = 0;
	for (size_t i = 0; i < plan->count; i++)
		if (plan->items[i].valid)
			return 1;
	if (rank != 0)
		return 0;
	size_t groups = plan_invalid_reasons(plan, r, FGO_ARRAY_SIZE(r), &invalid);
	if (invalid == 1)
		error("%s: its one configuration cannot run, so nothing ran and nothing was stored;"
		      " the reason:", path);
	else
		error("%s: none of its %zu configurations can run, so nothing ran and nothing was"
		      " stored; the reasons:", path, invalid);
	for (size_t i = 0; i < groups && i < FGO_ARRAY_SIZE(r); i++)
		note("  %zu x %s", r[i].count, r[i].reason);
	if (groups > FGO_ARRAY_SIZE(r))
		note("  and %zu other reasons", groups - FGO_ARRAY_SIZE(r));
	note("change the spec or the flags that set those fields (a dataset's algorithm: --algorithm);"
	     " `fgobench sweep %s --dry-run` lists every configuration with its reason", path);
	return 0;
}

int session_run(MPI_Comm comm, struct fgo_plan *plan, const struct fgo_session *s)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);

	int node_ranks = runner_node_ranks(comm);
	if (plan->max_world > size || plan->max_world > node_ranks) {
		if (rank == 0) {
			if (plan->max_world > size)
				error("%s needs world=%d but mpirun started %d rank%s (run: mpirun -np %d"
				      " fgobench ...)",
				      s->spec_path, plan->max_world, size, size == 1 ? "" : "s",
				      plan->max_world);
			else
				error("%s needs world=%d on one node but a node has only %d ranks"
				      " (put %d ranks on each node)",
				      s->spec_path, plan->max_world, node_ranks, plan->max_world);
		}
		return FGO_EUSAGE;
	}

	const struct fgo_backend *be;
	struct fgo_backend_ctx *ctx;
	MPI_Comm node;
	size_t heap_limit = s->heap_limit; /* 0: the default, set by the open */
	int rc = runner_backend_open(comm, s->backend, plan, &heap_limit, s->spec_path, &be, &ctx,
				     &node);
	if (rc != FGO_OK)
		return rc;
	/* on every rank, before any key is looked up or stored: the best core
	 * of this backend's target where the spec and the flags left it to the
	 * default */
	struct fgo_env env;
	memset(&env, 0, sizeof env);
	be->describe(ctx, &env);
	size_t sk = plan_fit_units(plan, env.compute_units);
	if (sk && rank == 0)
		note("%zu Stream-K configuration%s without gemm_sms or comm_sms: %d GEMM CTAs (every %s)"
		     " + 0 communication CTAs", sk, sk == 1 ? "" : "s", env.compute_units,
		     strcmp(be->name, "gpu") ? "core" : "SM");
	plan_fit_target(plan, env.arch);
	if (session_defaults(comm, plan, s, env.arch, be->name) != FGO_OK) {
		be->finish(ctx);
		MPI_Comm_free(&node);
		return FGO_EUSAGE;
	}
	if (!plan_has_valid(plan, s->spec_path, rank)) {
		be->finish(ctx);
		MPI_Comm_free(&node);
		return FGO_EUSAGE;
	}

	struct progress p;
	memset(&p, 0, sizeof p);
	p.plan = plan;
	p.s = s;
	p.run_ids = calloc(plan->count + 1, sizeof *p.run_ids);
	p.fused_ms = calloc(plan->count + 1, sizeof *p.fused_ms);
	p.show = s->progress;
	p.tty = isatty(2);
	unsigned char *todo = calloc(plan->count + 1, 1);
	struct fgo_runner_opts o = {
		.backend = be, .ctx = ctx, .iterations = plan->iterations, .warmup = plan->warmup,
		.validate = s->validate, .benchmark = s->benchmark, .timeout_s = s->timeout_s,
		.heap_limit = heap_limit, .heap_default = s->heap_limit == 0,
		.interleave_baseline = plan->interleave_baseline,
	};
	/* begin's status, and whether the sweep is complete already */
	int go[2] = { FGO_OK, 0 };
	if (rank == 0) {
		go[0] = begin(plan, s, be, ctx, size, &p, todo, &o.ceilings);
		go[1] = p.complete;
	}
	MPI_Bcast(go, 2, MPI_INT, 0, comm);
	rc = go[0];
	/* a supervised job (launch/) says where it is in the job file */
	int supervised = getenv("FGOBENCH_SUPERVISED") != NULL;
	char flights[4096];
	flight_dir(s->db_path, flights, sizeof flights);
	if (rc == FGO_OK && go[1] && rank == 0 && s->sweep_id)
		*s->sweep_id = p.sweep_id;
	if (rc == FGO_OK && go[1] && rank == 0 && supervised)
		flight_job_write(flights, p.sweep_id, 1, FGO_OK, 0);
	if (rc == FGO_OK && !go[1]) {
		int world_rank;
		MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
		MPI_Bcast(&p.sweep_id, 1, MPI_INT64_T, 0, comm);
		flight_open(flights, p.sweep_id, world_rank);
		if (rank == 0 && supervised)
			flight_job_write(flights, p.sweep_id, 0, FGO_OK, 0);
		MPI_Bcast(todo, (int)plan->count, MPI_UNSIGNED_CHAR, 0, comm);
		MPI_Bcast(&o.ceilings, (int)sizeof o.ceilings, MPI_BYTE, 0, comm);
		struct fgo_runner_sink plain = { sink_started, sink_finished, &p }, sink;
		interrupt_locked_sink(&plain, &sink); /* the store's writes under the interrupt lock */
		/* a signal from here on marks the sweep interrupted (interrupt.h) */
		if (rank == 0)
			interrupt_watch(stop_sweep, &p);
		else
			interrupt_follow();
		if (rank == 0 && p.show)
			note("%zu configurations to run (%zu invalid), world up to %d, backend %s",
			     p.total, p.counts[FGO_INVALID], plan->max_world, be->name);
		precompile(comm, node, plan, todo, be, ctx, p.show);
		p.started = now_seconds();
		rc = runner_run(comm, plan, todo, &o, &sink);
		int restart = rc == FGO_ERESTART;
		if (rank == 0) {
			rc = end(&p, s, rc);
			session_auto_say(plan, p.fused_ms);
			if (s->fastest_run_id) {
				size_t f = session_fastest(plan->count, p.run_ids, p.fused_ms);
				*s->fastest_run_id = f < plan->count ? p.run_ids[f] : 0;
			}
		} else {
			interrupt_unwatch();
		}
		MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
		flight_close();
		if (rank == 0 && supervised)
			flight_job_write(flights, p.sweep_id, 1, rc, restart);
		if ((s->trace_file || s->trace_dir) && !restart) { /* nothing runs on a lost device */
			int traced = session_trace(comm, plan, s, &o, p.run_ids, p.fused_ms);
			if (rc == FGO_OK)
				rc = traced;
		}
	}
	be->finish(ctx);
	MPI_Comm_free(&node);
	free(todo);
	free(p.run_ids);
	free(p.fused_ms);
	return rc;
}
