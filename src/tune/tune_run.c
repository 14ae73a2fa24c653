/* tune_run.c: a tune session under MPI (see tune_run.h). Rank 0 asks the
 * search for the next trials, all ranks run them through runner_run (the
 * sweep's runner: validation, timing, every measurement), rank 0 stores
 * each result and tells the search. Decisions travel by MPI_Bcast. */
#include "tune/tune_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "fgo.h"
#include "sink.h"
#include "run/flight.h"
#include "run/interrupt.h"
#include "run/runner.h"
#include "run/session.h"
#include "store/store.h"
#include "views/views.h"

#define MAX_SWEEPS 8

/* Rank 0's side of a session. */
struct driver {
	const struct fgo_plan *plan;
	const struct tune_space *space;
	const struct tune_opts *o;
	struct fgo_store *store;
	struct tune_state *st;
	char hash[17];                      /* the session's spec_hash */
	struct { int iterations; int64_t id; } sweeps[MAX_SWEEPS];
	int nsweeps;
	struct fgo_sweep_info info;         /* template for the sweeps it starts */
	struct fgo_env env;
	char host[128];
	char *spec_text;
	int64_t *run_ids;                   /* per plan item, for the batch running */
	int batch_iterations, warmup;
	size_t printed;                     /* events already shown */
	long failed;
	int complete;                       /* --resume of a finished session: nothing runs */
	int ended;                          /* the sweeps are closed: a signal records nothing */
};

static int store_error(const char *err)
{
	error("%s", err);
	return FGO_EFAIL;
}

/* The session's sweep for an iteration count, started on first use. */
static int sweep_for(struct driver *d, int iterations, int64_t *id)
{
	char err[512];
	for (int i = 0; i < d->nsweeps; i++)
		if (d->sweeps[i].iterations == iterations) {
			*id = d->sweeps[i].id;
			return FGO_OK;
		}
	if (d->nsweeps == MAX_SWEEPS) {
		error("a tune session measures at most %d iteration counts", MAX_SWEEPS);
		return FGO_EFAIL;
	}
	struct fgo_sweep_info info = d->info;
	info.iterations = iterations;
	if (store_sweep_begin(d->store, &info, id, err, sizeof err))
		return store_error(err);
	d->sweeps[d->nsweeps].iterations = iterations;
	d->sweeps[d->nsweeps++].id = *id;
	return FGO_OK;
}

/* --resume: reopens the session's unfinished sweeps (newest per iteration
 * count; none when the session is complete) and preloads every result it
 * stored, newest first. Returns the number of results preloaded in *found. */
static int resume_session(struct driver *d, long *found)
{
	static const char sweeps_sql[] =
		"SELECT id, iterations FROM sweeps WHERE tag = ?1 AND spec_hash = ?2"
		" AND status != 'done' ORDER BY id DESC";
	static const char runs_sql[] =
		"SELECT " VIEW_CONFIG_COLUMNS ", r.iterations, r.status, r.t_fused_ms"
		" FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
		" WHERE s.tag = ?1 AND s.spec_hash = ?2 AND (r.status IN ('ok', 'invalid', 'mismatch',"
		" 'timeout', 'crashed', 'hung', 'corrupted') OR (r.status = 'failed' AND r.reason NOT LIKE 'interrupted:%'))"
		" ORDER BY r.id DESC";
	sqlite3 *db = store_db(d->store);
	sqlite3_stmt *q = NULL;
	char err[512];
	int rc = FGO_OK, step;
	*found = 0;

	if (sqlite3_prepare_v2(db, sweeps_sql, -1, &q, NULL) != SQLITE_OK)
		goto sql_fail;
	sqlite3_bind_text(q, 1, d->o->tag, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, d->hash, -1, SQLITE_STATIC);
	while (rc == FGO_OK && !d->complete && (step = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0);
		int it = sqlite3_column_int(q, 1), seen = 0, stale = 0;
		for (int i = 0; i < d->nsweeps; i++)
			seen |= d->sweeps[i].iterations == it;
		if (seen || d->nsweeps == MAX_SWEEPS)
			continue;
		if (store_sweep_reopen(d->store, id, &stale, err, sizeof err))
			rc = store_error(err);
		d->sweeps[d->nsweeps].iterations = it;
		d->sweeps[d->nsweeps++].id = id;
		if (stale)
			note("sweep %lld: %d run%s a crash or a signal interrupted marked failed; they run again",
			     (long long)id, stale, stale == 1 ? "" : "s");
	}
	sqlite3_finalize(q);
	q = NULL;
	if (rc != FGO_OK)
		return rc;

	if (sqlite3_prepare_v2(db, runs_sql, -1, &q, NULL) != SQLITE_OK)
		goto sql_fail;
	sqlite3_bind_text(q, 1, d->o->tag, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, d->hash, -1, SQLITE_STATIC);
	char want[FGO_KEY_MAX], key[FGO_KEY_MAX];
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		struct fgo_config cfg;
		view_config(q, 0, &cfg);
		config_key(&cfg, key, sizeof key);
		/* the space is small next to a store: a linear match is fine */
		for (size_t c = 0; c < d->space->n; c++) {
			config_key(&d->plan->items[d->space->item[c]].cfg, want, sizeof want);
			if (strcmp(want, key) != 0)
				continue;
			const char *status = (const char *)sqlite3_column_text(q, VIEW_CONFIG_NCOLS + 1);
			double ms = sqlite3_column_double(q, VIEW_CONFIG_NCOLS + 2);
			int ok = status && !strcmp(status, "ok") && ms > 0;
			tune_preload(d->st, c, sqlite3_column_int(q, VIEW_CONFIG_NCOLS), ok ? ms : INFINITY);
			(*found)++;
			break;
		}
	}
	sqlite3_finalize(q);
	if (step == SQLITE_DONE)
		return FGO_OK;
	q = NULL;
sql_fail:
	error("%s: cannot read the tune session: %s", d->o->db_path, sqlite3_errmsg(db));
	sqlite3_finalize(q);
	return FGO_EFAIL;
}

static int load_ceilings(struct driver *d, const char *backend, int world, struct fgo_ceilings *c)
{
	char err[512];
	if (ceilings_load(d->store, d->host, backend, world, c, err, sizeof err))
		return store_error(err);
	return FGO_OK;
}

/* The session hash: the plan's (spec text and overrides), strategy and seed. */
static void session_hash(const struct fgo_plan *plan, const struct tune_opts *o, char out[17])
{
	char text[128];
	snprintf(text, sizeof text, "tune;%s;%s;%llu", plan->hash, tune_kind_name(o->kind),
		 (unsigned long long)o->seed);
	snprintf(out, 17, "%016llx", (unsigned long long)fnv1a64(text, strlen(text)));
}

/* The session's flight records are named by its hash (the sweeps come
 * and go with the iteration counts): a positive id from it. */
static int64_t flight_id(const char *hash)
{
	return (int64_t)(strtoull(hash, NULL, 16) & (uint64_t)INT64_MAX);
}

/* --resume: what the last job's candidates did to it (run/flight.h),
 * stored as crashed or hung in whichever of the session's sweeps holds the
 * candidate, before the stored results are read: a crashing candidate is a
 * failed candidate, never run again. */
static int blame_candidates(struct driver *d)
{
	static const char sql[] = "SELECT id FROM sweeps WHERE tag = ?1 AND spec_hash = ?2";
	char dir[4096], err[512];
	struct flight_blame *b = NULL;
	size_t n = 0;
	int stopped = 0, rc = FGO_OK;
	int64_t fid = flight_id(d->hash);
	flight_dir(d->o->db_path, dir, sizeof dir);
	if (flight_read(dir, fid, &b, &n, &stopped) != FGO_OK || n == 0) {
		free(b);
		return FGO_OK;
	}
	sqlite3 *db = store_db(d->store);
	for (size_t i = 0; i < n && rc == FGO_OK; i++) {
		sqlite3_stmt *q;
		int found = 0;
		if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
			rc = store_error(sqlite3_errmsg(db));
			break;
		}
		sqlite3_bind_text(q, 1, d->o->tag, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 2, d->hash, -1, SQLITE_STATIC);
		while (rc == FGO_OK && !found && sqlite3_step(q) == SQLITE_ROW)
			if (store_run_fault(d->store, sqlite3_column_int64(q, 0), b[i].key, b[i].status,
					    b[i].reason, &found, err, sizeof err))
				rc = store_error(err);
		sqlite3_finalize(q);
		if (found) {
			char key[FGO_KEY_MAX + 64], why[2 * FGO_REASON_MAX];
			d->failed++; /* counted as this session's, as if it had returned */
			sink_terminal(b[i].key, key, sizeof key);
			sink_terminal(b[i].reason, why, sizeof why);
			note("candidate %s: %s; stored as %s, a failed candidate", key, why,
			     status_name((enum fgo_status)b[i].status));
		}
	}
	free(b);
	if (rc == FGO_OK)
		flight_forget(dir, fid);
	return rc;
}

/* Rank 0: the store, the sweep template, the search, the resumed results. */
static int begin(struct driver *d, const struct fgo_backend *be, struct fgo_backend_ctx *ctx,
		 int ranks, struct fgo_ceilings *ceil)
{
	char err[512];
	be->describe(ctx, &d->env);
	gethostname(d->host, sizeof d->host - 1);
	session_hash(d->plan, d->o, d->hash);
	size_t n = strlen(d->plan->text) + 256;
	d->spec_text = malloc(n);
	d->run_ids = calloc(d->plan->count + 1, sizeof *d->run_ids);
	d->st = tune_new(d->o->kind, d->space, d->o->seed, d->plan->iterations, d->o->budget);
	if (!d->spec_text || !d->run_ids || !d->st) {
		error("out of memory starting the tune session");
		return FGO_EFAIL;
	}
	if (d->o->kind == TUNE_MODEL) {
		const struct tune_model *m = d->o->model;
		if (!m || !m->terms || m->missing[0]) {
			error("tune --strategy model needs the space's cost model (tune_model_load)");
			return FGO_EFAIL;
		}
		if (tune_set_model(d->st, m->terms, m->group, m->coef, m->ncores,
				   TUNE_MODEL_PRIOR_WEIGHT) != FGO_OK) {
			error("out of memory for the cost model of the tune session");
			return FGO_EFAIL;
		}
	}
	snprintf(d->spec_text, n, "# fgobench tune: strategy %s, seed %llu\n%s",
		 tune_kind_name(d->o->kind), (unsigned long long)d->o->seed, d->plan->text);
	d->info = (struct fgo_sweep_info){
		.tag = d->o->tag, .spec_path = d->o->space_path, .spec_name = "tune",
		.spec_text = d->spec_text, .spec_hash = d->hash, .command_line = d->o->command_line,
		.host = d->host, .version = FGO_VERSION, .git_revision = fgo_git_revision,
		.backend = be->name, .devices = d->env.devices, .driver = d->env.driver,
		.runtime = d->env.runtime, .arch = d->env.arch, .mpi_ranks = ranks,
		.warmup = d->plan->warmup,
	};
	if (store_open(d->o->db_path, FGO_STORE_WRITE, &d->store, err, sizeof err)) {
		error("%s", err);
		return FGO_EUSAGE;
	}
	if (load_ceilings(d, be->name, d->plan->max_world, ceil))
		return FGO_EFAIL;
	if (!d->o->resume)
		return FGO_OK;
	/* a finished session (its newest sweep done) is answered from the
	 * store alone: resuming is idempotent, a plain tune starts anew */
	int64_t latest = 0;
	if (store_sweep_find_latest(d->store, d->hash, d->o->tag, &latest, &d->complete, err,
				    sizeof err))
		return store_error(err);
	long found = 0;
	int rc = blame_candidates(d);
	if (rc == FGO_OK)
		rc = resume_session(d, &found);
	if (rc == FGO_OK && d->complete)
		note("tune session %s (sweep %lld) is already complete: nothing to resume; its %ld"
		     " stored result%s answer (without --resume, a new session starts)",
		     d->o->tag, (long long)latest, found, found == 1 ? "" : "s");
	else if (rc == FGO_OK && found == 0 && d->nsweeps == 0)
		note("no earlier tune session tagged %s with this space, strategy and seed; starting one",
		     d->o->tag);
	else if (rc == FGO_OK)
		note("resuming tune session %s: %ld stored result%s, answered without running again",
		     d->o->tag, found, found == 1 ? "" : "s");
	return rc;
}

static void progress_event(struct driver *d, const struct tune_event *e, const char *what)
{
	char tile[96], best_tile[96], budget[32] = "";
	struct tune_event best;
	view_tile_text(&d->plan->items[d->space->item[e->t.cand]].cfg, tile, sizeof tile);
	if (tune_budget(d->st))
		snprintf(budget, sizeof budget, "/%ld", tune_budget(d->st));
	fprintf(stderr, "[%ld%s] %s it%d -> ", e->run, budget, tile, e->t.iterations);
	if (what)
		fprintf(stderr, "%s", what);
	else
		fprintf(stderr, "%.4g ms", e->ms);
	if (e->source == TUNE_STORED)
		fputs(" (stored)", stderr);
	if (tune_winner(d->st, &best) == 0) {
		view_tile_text(&d->plan->items[d->space->item[best.t.cand]].cfg, best_tile,
			       sizeof best_tile);
		fprintf(stderr, "  best %.4g ms %s", best.ms, best_tile);
	}
	fputc('\n', stderr);
	fflush(stderr);
}

/* Shows the results answered from the store since the last call. */
static void progress_stored(struct driver *d)
{
	size_t n;
	const struct tune_event *ev = tune_events(d->st, &n);
	for (; d->printed < n; d->printed++)
		if (d->o->progress)
			progress_event(d, &ev[d->printed], isfinite(ev[d->printed].ms) ? NULL : "not ok");
}

static int sink_started(void *arg, const size_t *items, size_t count)
{
	struct driver *d = arg;
	char err[512];
	int64_t sweep;
	if (sweep_for(d, d->batch_iterations, &sweep))
		return 1;
	for (size_t j = 0; j < count; j++)
		if (store_run_started(d->store, sweep, &d->plan->items[items[j]].cfg,
				      d->batch_iterations, d->warmup, &d->run_ids[items[j]], err,
				      sizeof err))
			return store_error(err);
	return 0;
}

static int sink_finished(void *arg, size_t item, const struct fgo_result *r)
{
	struct driver *d = arg;
	char err[512], what[160];
	int64_t sweep, problem;
	if (sweep_for(d, d->batch_iterations, &sweep))
		return 1;
	if (store_problem_of(d->store, sweep, &d->plan->items[item].cfg, r, &problem, err,
			     sizeof err) ||
	    store_run_finish(d->store, d->run_ids[item], problem, r, err, sizeof err))
		return store_error(err);
	int ok = r->status == FGO_STATUS_OK && r->fused.n > 0 && r->fused.median > 0;
	if (r->status == FGO_MISMATCH || r->status == FGO_FAILED || r->status == FGO_TIMEOUT ||
	    status_is_fault(r->status))
		d->failed++; /* a crashing candidate is a failed candidate */
	struct tune_trial t = { d->space->cand_of[item], d->batch_iterations };
	tune_tell(d->st, &t, ok ? r->fused.median : INFINITY);
	char reason[128]; /* a kernel's err, as the terminal may show it */
	sink_terminal(r->reason, reason, sizeof reason);
	snprintf(what, sizeof what, "%s: %.100s", status_name(r->status), reason);
	size_t n;
	const struct tune_event *ev = tune_events(d->st, &n);
	for (; d->printed < n; d->printed++)
		if (d->o->progress)
			progress_event(d, &ev[d->printed], ok ? NULL : what);
	return 0;
}

/* Rank 0, on the watcher thread with the lock held (interrupt.h): the
 * session's sweeps marked interrupted, what they hold said and the
 * command that resumes them. */
static int stop_session(void *arg, int sig)
{
	struct driver *d = arg;
	char err[512];
	long runs = 0, ok = 0;
	if (d->ended)
		return 0;
	for (int i = 0; i < d->nsweeps; i++) {
		long r, k;
		if (store_sweep_end(d->store, d->sweeps[i].id, "interrupted", err, sizeof err) ||
		    store_sweep_stored(d->store, d->sweeps[i].id, &r, &k, err, sizeof err)) {
			error("%s", err);
			continue;
		}
		runs += r;
		ok += k;
	}
	d->ended = 1;
	note("tune session %s interrupted (%s): %ld run%s stored (%ld ok) in %s%s%s", d->o->tag,
	     interrupt_signal_name(sig), runs, runs == 1 ? "" : "s", ok, d->o->db_path,
	     d->o->resume_command ? "; resume with: " : "",
	     d->o->resume_command ? d->o->resume_command : "");
	store_close(d->store);
	return 1;
}

/* The winner's run row: its id and TFLOPS. */
static void winner_row(struct driver *d, struct tune_outcome *out)
{
	static const char sql[] =
		"SELECT r.id, r.tflops_total FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
		" WHERE s.tag = ?1 AND s.spec_hash = ?2 AND r.config_key = ?3 AND r.iterations = ?4"
		" AND r.status = 'ok' ORDER BY r.id DESC LIMIT 1";
	sqlite3_stmt *q;
	char key[FGO_KEY_MAX];
	config_key(&out->winner, key, sizeof key);
	if (sqlite3_prepare_v2(store_db(d->store), sql, -1, &q, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_text(q, 1, d->o->tag, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, d->hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, key, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 4, out->iterations);
	if (sqlite3_step(q) == SQLITE_ROW) {
		out->run_id = sqlite3_column_int64(q, 0);
		out->tflops = sqlite3_column_double(q, 1);
	}
	sqlite3_finalize(q);
}

/* Rank 0: closes the sweeps and fills the outcome; returns the status. */
static int end(struct driver *d, int rc, struct tune_outcome *out)
{
	char err[512];
	/* a candidate that lost the GPU context leaves the session to resume */
	const char *status = rc == FGO_OK ? "done" : rc == FGO_ERESTART ? "interrupted" : "failed";
	for (int i = 0; i < d->nsweeps; i++)
		if (store_sweep_end(d->store, d->sweeps[i].id, status, err, sizeof err))
			rc = store_error(err);
	if (rc == FGO_ERESTART) {
		note("a candidate lost the GPU context (stored as crashed): nothing more can run in"
		     " this process; continue with: %s",
		     d->o->resume_command ? d->o->resume_command : "tune ... --resume");
		rc = FGO_EFAIL;
	}
	struct tune_event w;
	size_t n;
	const struct tune_event *ev = tune_events(d->st, &n);
	out->runs = tune_runs(d->st);
	out->budget = tune_budget(d->st);
	out->failed = d->failed;
	for (size_t i = 0; i < n; i++)
		out->stored += ev[i].source == TUNE_STORED;
	if (tune_winner(d->st, &w) == 0) {
		out->found = 1;
		out->winner = d->plan->items[d->space->item[w.t.cand]].cfg;
		out->ms = w.ms;
		out->iterations = w.t.iterations;
		out->found_at = w.run;
		winner_row(d, out);
	}
	out->complete = d->complete;
	if (rc != FGO_OK)
		return rc;
	if (d->complete)
		return FGO_OK;
	return out->found && !d->failed ? FGO_OK : FGO_EFAIL;
}

/* Rank 0: the next batch into todo; its size and iterations in cmd. */
static void next_batch(struct driver *d, double started, size_t parallel, unsigned char *todo,
		       int cmd[2])
{
	struct tune_trial *t = malloc(sizeof *t * parallel);
	size_t n = 0;
	cmd[0] = cmd[1] = 0;
	if (!t)
		return;
	memset(todo, 0, d->plan->count);
	for (int tries = 0; tries < 2 && n == 0; tries++) {
		if (d->o->time_s > 0 && now_seconds() - started >= d->o->time_s)
			break;
		n = tune_ask(d->st, t, parallel);
		progress_stored(d);
		/* --time and the first trial came from the store: plan with the
		 * whole space, the clock stops it */
		if (n == 0 && tune_budget(d->st) == 0 && !tune_done(d->st))
			tune_set_budget(d->st, (long)d->space->n);
	}
	for (size_t i = 0; i < n; i++)
		todo[d->space->item[t[i].cand]] = 1;
	cmd[0] = (int)n;
	cmd[1] = n ? t[0].iterations : 0;
	free(t);
}

int tune_run(MPI_Comm comm, const struct fgo_plan *plan, const struct tune_space *space,
	     const struct tune_opts *o, struct tune_outcome *out)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	memset(out, 0, sizeof *out);
	int world = plan->max_world, node_ranks = runner_node_ranks(comm);
	if (world > size || world > node_ranks) {
		if (rank == 0)
			error("world=%d needs %d ranks on one node, but %s (run: mpirun -np %d fgobench"
			      " tune ...)",
			      world, world, world > size ? "mpirun started fewer" : "a node has fewer",
			      world);
		return FGO_EUSAGE;
	}
	/* as a sweep: the backend, and a space too big for the node's memory
	 * refused before anything is allocated */
	const struct fgo_backend *be;
	struct fgo_backend_ctx *ctx;
	MPI_Comm node;
	size_t heap_limit = o->heap_limit; /* 0: the default, set by the open */
	int rc = runner_backend_open(comm, o->backend, plan, &heap_limit, NULL, &be, &ctx, &node);
	if (rc != FGO_OK)
		return rc;

	struct driver d = { .plan = plan, .space = space, .o = o, .warmup = plan->warmup,
			    };
	struct fgo_runner_opts ro = {
		.backend = be, .ctx = ctx, .warmup = plan->warmup, .validate = o->validate,
		.benchmark = 1, .timeout_s = o->timeout_s, .heap_limit = heap_limit,
		.heap_default = o->heap_limit == 0,
	};
	/* the inputs, reference and baseline of the problem outlive the batches */
	struct fgo_problem_cache problems;
	memset(&problems, 0, sizeof problems);
	ro.problems = &problems;
	unsigned char *todo = calloc(plan->count + 1, 1);
	rc = todo ? FGO_OK : FGO_EFAIL;
	if (rank == 0 && rc == FGO_OK)
		rc = begin(&d, be, ctx, size, &ro.ceilings);
	MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
	MPI_Bcast(&ro.ceilings, (int)sizeof ro.ceilings, MPI_BYTE, 0, comm);
	/* every rank keeps a flight record of the candidate it runs, named by
	 * the session; a supervised job (launch/) says where it is in the job
	 * file */
	int64_t fid = rank == 0 ? flight_id(d.hash) : 0;
	int world_rank, supervised = getenv("FGOBENCH_SUPERVISED") != NULL;
	char flights[4096];
	MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
	MPI_Bcast(&fid, 1, MPI_INT64_T, 0, comm);
	flight_dir(o->db_path, flights, sizeof flights);
	if (rc == FGO_OK)
		flight_open(flights, fid, world_rank);
	if (rc == FGO_OK && rank == 0 && supervised)
		flight_job_write(flights, fid, 0, FGO_OK, 0);
	/* groups of `world` ranks run side by side: that many trials at once */
	size_t parallel = (size_t)(size / (world > 0 ? world : 1));
	double started = now_seconds();
	struct fgo_runner_sink plain = { sink_started, sink_finished, &d }, sink;
	interrupt_locked_sink(&plain, &sink); /* the store's writes under the interrupt lock */
	/* a signal from here on marks the session's sweeps interrupted */
	if (rc == FGO_OK && rank == 0)
		interrupt_watch(stop_session, &d);
	else if (rc == FGO_OK)
		interrupt_follow();
	while (rc == FGO_OK) {
		int cmd[2] = { 0, 0 };
		if (rank == 0)
			next_batch(&d, started, parallel, todo, cmd);
		if (rank == 0 && d.complete && cmd[0]) {
			note("the search asks for more than the finished session stored (a larger"
			     " --budget or --time?): nothing runs; without --resume, a new session"
			     " starts");
			cmd[0] = 0;
		}
		MPI_Bcast(cmd, 2, MPI_INT, 0, comm);
		if (cmd[0] == 0)
			break;
		MPI_Bcast(todo, (int)plan->count, MPI_UNSIGNED_CHAR, 0, comm);
		ro.iterations = d.batch_iterations = cmd[1];
		double t0 = now_seconds();
		rc = runner_run(comm, plan, todo, &ro, &sink);
		/* --time alone: the budget is what the time holds at the first run's pace */
		if (rank == 0 && rc == FGO_OK && tune_budget(d.st) == 0) {
			double per_run = (now_seconds() - t0) / cmd[0];
			double fit = o->time_s / (per_run > 1e-6 ? per_run : 1e-6);
			tune_set_budget(d.st, fit < (double)space->n ? (long)fit + 1 : (long)space->n);
		}
		MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
	}
	int restart = rc == FGO_ERESTART;
	if (rank == 0 && d.store) {
		interrupt_lock();
		rc = end(&d, rc, out);
		store_close(d.store);
		d.ended = 1;
		interrupt_unlock();
	}
	interrupt_unwatch();
	MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
	flight_close();
	if (rank == 0 && supervised)
		flight_job_write(flights, fid, 1, rc, restart);
	be->finish(ctx);
	MPI_Comm_free(&node);
	tune_free(d.st);
	free(d.run_ids);
	free(d.spec_text);
	free(todo);
	runner_problems_free(&problems);
	return rc;
}
