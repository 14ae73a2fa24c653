/* runner.c: runs a plan under MPI (see runner.h): node groups per world
 * size, one symmetric heap per group, then per configuration: prepare,
 * random inputs, poisoned output, one validated launch, and the timed
 * measurements (runner_measure.c). */
#include "run/runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fgo.h"
#include "run/flight.h"
#include "run/runner_impl.h"
#include "stats.h"


/* The groups of W ranks this rank belongs to, for one world size. */
struct groups {
	MPI_Comm comm;   /* this rank's group, MPI_COMM_NULL when it idles */
	int index;       /* this rank's group number, -1 when idle */
	int count;       /* groups over all nodes */
	int *leader;     /* leader[g]: rank in the runner's comm of group g's rank 0 */
};

/* This rank's node: the ranks of comm that share its memory. Tests only:
 * FGOBENCH_TEST_NODES=N (N > 1) splits the ranks into N pretend nodes by
 * rank modulo N instead (as `mpirun --map-by node` places them), so a sweep
 * over several nodes runs on one host; returns N then (rank 0's value, so
 * every rank agrees), else 0. Collective. */
static int runner_node_comm(MPI_Comm comm, MPI_Comm *node)
{
	const char *env = getenv("FGOBENCH_TEST_NODES");
	int rank, pretend = env ? atoi(env) : 0;
	MPI_Comm_rank(comm, &rank);
	MPI_Bcast(&pretend, 1, MPI_INT, 0, comm);
	if (pretend > 1) {
		MPI_Comm_split(comm, rank % pretend, rank, node);
		return pretend;
	}
	MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, node);
	return 0;
}

int runner_node_ranks(MPI_Comm comm)
{
	MPI_Comm node;
	int size, min;
	runner_node_comm(comm, &node);
	MPI_Comm_size(node, &size);
	MPI_Comm_free(&node);
	MPI_Allreduce(&size, &min, 1, MPI_INT, MPI_MIN, comm);
	return min;
}

uint64_t runner_seed(const struct fgo_config *cfg)
{
	/* the problem's, not the tile's: every configuration of a problem
	 * computes the same C from the same inputs */
	char key[160];
	snprintf(key, sizeof key, "%s/w%d/%ldx%ldx%ld", dtype_name(cfg->dtype), cfg->world, cfg->m,
		 cfg->n, cfg->k);
	return fnv1a64(key, strlen(key));
}

int runner_same_problem(const struct fgo_config *a, const struct fgo_config *b)
{
	return strcmp(a->algorithm, b->algorithm) == 0 && a->dtype == b->dtype &&
	       a->world == b->world && a->m == b->m && a->n == b->n && a->k == b->k;
}

/* Splits comm into groups of w ranks that never cross a node boundary. */
static void groups_make(MPI_Comm comm, int w, struct groups *g)
{
	MPI_Comm node;
	int rank, size, node_rank, node_size, node_leader;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	int pretend = runner_node_comm(comm, &node);
	MPI_Comm_rank(node, &node_rank);
	MPI_Comm_size(node, &node_size);
	node_leader = rank;
	MPI_Bcast(&node_leader, 1, MPI_INT, 0, node);
	MPI_Comm_free(&node);

	int per_node = node_size / w;
	int mine = node_rank < per_node * w ? node_rank / w : -1;
	int color = mine >= 0 ? node_leader * size + mine : MPI_UNDEFINED;
	MPI_Comm_split(comm, color, node_rank, &g->comm);

	int lead = -1, grank = -1;
	if (g->comm != MPI_COMM_NULL)
		MPI_Comm_rank(g->comm, &grank);
	if (grank == 0)
		lead = rank;
	int *all = malloc(sizeof *all * (size_t)size);
	MPI_Allgather(&lead, 1, MPI_INT, all, 1, MPI_INT, comm);
	g->leader = malloc(sizeof *g->leader * (size_t)size);
	g->count = 0;
	for (int r = 0; r < size; r++)
		if (all[r] >= 0)
			g->leader[g->count++] = all[r];
	free(all);
	if (pretend && rank == 0) { /* what the test of the hook reads */
		char text[512] = "";
		for (int i = 0, at = 0; i < g->count && at < (int)sizeof text; i++)
			at += snprintf(text + at, sizeof text - (size_t)at, "%s%d (node %d)",
				       i ? ", " : "", g->leader[i], g->leader[i] % pretend);
		note("FGOBENCH_TEST_NODES=%d: world %d: %d group%s, led by rank %s", pretend, w,
		     g->count, g->count == 1 ? "" : "s", text);
	}

	g->index = -1;
	if (g->comm != MPI_COMM_NULL) {
		int my_leader = rank;
		MPI_Bcast(&my_leader, 1, MPI_INT, 0, g->comm);
		for (int i = 0; i < g->count; i++)
			if (g->leader[i] == my_leader)
				g->index = i;
	}
}

static void groups_free(struct groups *g)
{
	if (g->comm != MPI_COMM_NULL)
		MPI_Comm_free(&g->comm);
	free(g->leader);
}

/* Agrees on a result code over comm: the largest one wins, and the reason
 * of the lowest rank that reported it is copied to every rank. */
int runner_agree(MPI_Comm comm, int rc, char *reason, size_t len)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	int in[2] = { rc, -rank }, out[2];
	MPI_Allreduce(in, out, 1, MPI_2INT, MPI_MAXLOC, comm);
	if (out[0] != FGO_OK && reason)
		MPI_Bcast(reason, (int)len, MPI_CHAR, -out[1], comm);
	return out[0];
}

static enum fgo_status status_of(int rc)
{
	return rc == FGO_ETIMEOUT ? FGO_TIMEOUT : rc == FGO_EUSAGE ? FGO_INVALID : FGO_FAILED;
}

/* The ratios of DESIGN.md, from the medians. */
static void derive(const struct fgo_runner_opts *o, const struct fgo_algo *algo,
		   const struct fgo_config *cfg, struct fgo_result *r)
{
	double tf = r->fused.median * 1e-3;
	if (r->fused.n == 0 || tf <= 0)
		return;
	double bytes = algo->needs_comm && algo->link_bytes ? algo->link_bytes(cfg) : 0;
	r->tflops_total = config_flops(cfg) / tf / 1e12;
	r->tflops_per_rank = r->tflops_total / cfg->world;
	r->link_gbps = bytes / tf / 1e9;
	if (r->gemm.n && r->comm.n)
		r->overlap = result_overlap(r->gemm.median, r->comm.median, r->fused.median,
					    cfg->world, o->backend->timer_resolution_ms);
	if (r->baseline.n)
		r->speedup = r->baseline.median / r->fused.median;
	double peak = o->ceilings.matrix_peak[cfg->dtype];
	if (peak > 0) {
		/* the longest of: the MACs at the peak, the bytes to one peer at
		 * the slowest pair's rate, the bytes to all peers at the egress
		 * measured with every rank sending at once (runner.h) */
		double limit = config_flops(cfg) / cfg->world / (peak * 1e12), pair = 0, all = 0;
		double egress = cfg->world <= FGO_EGRESS_W_MAX ? o->ceilings.egress_bw[cfg->world] : 0;
		if (bytes > 0 && o->ceilings.link_bw > 0)
			pair = bytes / (o->ceilings.link_bw * 1e9);
		if (bytes > 0 && egress > 0)
			all = (cfg->world - 1) * bytes / (egress * 1e9);
		int link = pair > limit || all > limit;
		limit = fmax(limit, fmax(pair, all));
		r->sol = limit / tf;
		/* a ceiling below what a run reached is the ceiling's error: the
		 * run's sol is left unknown and says why, never above 1 */
		if (r->sol > 1.0) {
			char why[200];
			if (!link)
				snprintf(why, sizeof why, "the calibrated %s peak of %.3g TFLOP/s is below"
					 " this run's %.3g (run `fgobench calibrate` again)",
					 dtype_name(cfg->dtype), peak, r->tflops_per_rank);
			else if (all >= pair)
				snprintf(why, sizeof why, "the calibrated link egress at W=%d of %.3g GB/s is"
					 " below this run's %.3g (run `fgobench calibrate` again)",
					 cfg->world, egress, (cfg->world - 1) * r->link_gbps);
			else
				snprintf(why, sizeof why, "the calibrated link of %.3g GB/s a pair is below"
					 " this run's %.3g (run `fgobench calibrate` again)",
					 o->ceilings.link_bw, r->link_gbps);
			runner_unavailable(r, "sol", why);
			r->sol = NAN;
		}
	}
}

/* run_item without the flight record around it. */
static int run_item_flown(const struct fgo_runner_opts *o, MPI_Comm comm, struct fgo_heap *heap,
			  unsigned long heap_gen, struct fgo_problem_cache *p,
			  const struct fgo_config *cfg, struct fgo_result *r)
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	struct fgo_layout lay;
	struct fgo_runnable *run = NULL;
	char mismatch[FGO_REASON_MAX] = "";
	uint64_t digest = 0;
	int rank;

	MPI_Comm_rank(comm, &rank);
	r->iterations = o->iterations;
	r->warmup = o->warmup;
	algo->layout(cfg, rank, &lay);

	double t0 = now_seconds();
	int rc = o->backend->prepare(o->ctx, algo, cfg, heap, &run, &r->kernel, r->reason,
				     sizeof r->reason);
	rc = runner_agree(comm, rc, r->reason, sizeof r->reason);
	r->phase_s[FGO_PHASE_LOAD] = seconds_since(t0);
	if (rc == FGO_OK)
		rc = runner_problem_begin(o, comm, heap, heap_gen, cfg, &lay, p, r);
	if (rc == FGO_OK)
		rc = runner_inputs_digest_take(o, comm, heap, cfg, &lay, p, r);
	if (rc == FGO_OK && o->validate) {
		t0 = now_seconds();
		rc = runner_validate_output(o, comm, heap, run, cfg, &lay, r, &digest);
		r->phase_s[FGO_PHASE_VALIDATE] += seconds_since(t0);
		if (r->status == FGO_MISMATCH)
			snprintf(mismatch, sizeof mismatch, "%s", r->reason);
	}
	if (rc == FGO_OK && o->benchmark)
		rc = runner_measure(o, comm, run, algo, p, r);
	/* a fixed order of the partial sums is a promise: checked after the
	 * timed launches, which interleave the CTAs in other ways */
	if (rc == FGO_OK && o->validate && r->status != FGO_MISMATCH && runner_repeat_checked(cfg)) {
		t0 = now_seconds();
		rc = runner_check_repeatable(o, comm, heap, run, cfg, &lay, digest, r);
		r->phase_s[FGO_PHASE_VALIDATE] += seconds_since(t0);
		if (r->status == FGO_MISMATCH)
			snprintf(mismatch, sizeof mismatch, "%s", r->reason);
	}
	if (rc == FGO_OK)
		runner_inputs_digest_check(o, comm, heap, cfg, &lay, p, r);
	r->problem.seed = p->info.seed;
	r->problem.reference = p->info.reference;
	r->problem.reference_checked = p->info.reference_checked;
	r->problem.reference_max_rel_err = p->info.reference_max_rel_err;
	r->problem.inputs_s = p->info.inputs_s;
	r->problem.reference_s = p->info.reference_s;
	r->problem.baseline_s = p->info.baseline_s;
	if (run)
		o->backend->release(o->ctx, run);
	/* a wrong output says more than a later failure (no NCCL for the
	 * baseline, say): the run stays a mismatch, with its reason */
	if (rc != FGO_OK && r->status == FGO_MISMATCH) {
		snprintf(r->reason, sizeof r->reason, "%s", mismatch);
		return 0;
	}
	if (rc != FGO_OK) {
		r->status = status_of(rc);
		/* a kernel that lost its GPU context is what the run is */
		return runner_device_lost(o, comm, r);
	}
	if (r->status == FGO_CORRUPTED)
		return 0;
	if (r->status == FGO_STARTED)
		r->status = FGO_STATUS_OK;
	derive(o, algo, cfg, r);
	/* an ok run's reason notes what could not be measured here (derive's
	 * too) */
	if (r->status == FGO_STATUS_OK)
		snprintf(r->reason, sizeof r->reason, "%s", r->note);
	return 0;
}

/* Runs one configuration on a group (collective over comm); the result is
 * complete on every rank of the group. Returns 1 when a rank of the group
 * lost its device in it (runner_device_lost): nothing more can run in
 * this process. */
static int run_item(const struct fgo_runner_opts *o, MPI_Comm comm, struct fgo_heap *heap,
		    unsigned long heap_gen, struct fgo_problem_cache *p,
		    const struct fgo_config *cfg, struct fgo_result *r)
{
	char key[FGO_KEY_MAX];
	config_key(cfg, key, sizeof key);
	flight_begin(key);
	int lost = run_item_flown(o, comm, heap, heap_gen, p, cfg, r);
	flight_end();
	return lost;
}

/* Result transport from a group leader to rank 0: the struct, then the
 * samples of each measurement. */
#define TIMINGS 5

static struct fgo_timing *timings(struct fgo_result *r, int i)
{
	struct fgo_timing *all[TIMINGS] = { &r->fused, &r->gemm, &r->comm, &r->baseline, &r->bulk };
	return all[i];
}

static void result_send(struct fgo_result *r, int dest, MPI_Comm comm)
{
	MPI_Send(r, (int)sizeof *r, MPI_BYTE, dest, 1, comm);
	for (int i = 0; i < TIMINGS; i++)
		if (timings(r, i)->n)
			MPI_Send(timings(r, i)->ms, timings(r, i)->n, MPI_DOUBLE, dest, 2 + i, comm);
}

static void result_recv(struct fgo_result *r, int src, MPI_Comm comm)
{
	MPI_Recv(r, (int)sizeof *r, MPI_BYTE, src, 1, comm, MPI_STATUS_IGNORE);
	for (int i = 0; i < TIMINGS; i++) {
		struct fgo_timing *t = timings(r, i);
		t->ms = NULL;
		if (!t->n)
			continue;
		t->ms = malloc(sizeof *t->ms * (size_t)t->n);
		MPI_Recv(t->ms, t->n, MPI_DOUBLE, src, 2 + i, comm, MPI_STATUS_IGNORE);
	}
}

/* What cfg needs within the heap limit per rank: its heap, and under the
 * default limit (the node's memory per rank) its reference as well. */
static double runner_rank_need(const struct fgo_runner_opts *o, const struct fgo_config *cfg,
			       const struct fgo_layout *lay)
{
	double need = runner_heap_need(cfg, lay);
	if (o->heap_default && o->validate)
		need += runner_reference_need(o->backend, cfg, lay);
	return need;
}

/* Items of world w to run, and the heap they need; items too big for the
 * heap limit are reported to the sink as invalid right away (rank 0). */
static size_t items_of_world(const struct fgo_plan *plan, const unsigned char *todo,
			     const struct fgo_runner_opts *o, int w, size_t *list,
			     size_t *heap_bytes, size_t *too_big, size_t *n_too_big)
{
	size_t n = 0;
	*heap_bytes = 0;
	*n_too_big = 0;
	for (size_t i = 0; i < plan->count; i++) {
		const struct fgo_config *cfg = &plan->items[i].cfg;
		if (!todo[i] || !plan->items[i].valid || cfg->world != w)
			continue;
		struct fgo_layout lay;
		if (!runner_layout_of(cfg, &lay) || runner_rank_need(o, cfg, &lay) > (double)o->heap_limit) {
			too_big[(*n_too_big)++] = i;
			continue;
		}
		if (lay.heap_bytes > *heap_bytes)
			*heap_bytes = lay.heap_bytes;
		list[n++] = i;
	}
	return n;
}

static int report_too_big(const struct fgo_plan *plan, const struct fgo_runner_opts *o,
			  const size_t *too_big, size_t n, const struct fgo_runner_sink *sink)
{
	for (size_t j = 0; j < n; j++) {
		const struct fgo_config *cfg = &plan->items[too_big[j]].cfg;
		struct fgo_layout lay;
		struct fgo_result r;
		runner_layout_of(cfg, &lay);
		result_init(&r);
		r.status = FGO_INVALID;
		char need[32], ref[32], limit[32];
		double heap = runner_heap_need(cfg, &lay);
		fmt_bytes(heap, need, sizeof need);
		fmt_bytes(runner_rank_need(o, cfg, &lay) - heap, ref, sizeof ref);
		fmt_bytes((double)o->heap_limit, limit, sizeof limit);
		if (o->heap_default)
			snprintf(r.reason, sizeof r.reason,
				 "needs %s of heap and %s for its reference per rank, more than the %s"
				 " this node's memory gives a rank (the default --heap-size)",
				 need, ref, limit);
		else
			snprintf(r.reason, sizeof r.reason,
				 "needs %s of heap per rank, more than the limit of %s (raise --heap-size)",
				 need, limit);
		if (sink->started(sink->arg, &too_big[j], 1) || sink->finished(sink->arg, too_big[j], &r))
			return FGO_EFAIL;
	}
	return FGO_OK;
}

/* Deals the items of list (one world size) to the groups so that each
 * group runs whole problems back to back: the items are grouped by
 * problem in order of first appearance, and each problem goes to the
 * group with the fewest items so far. queue[g] lists group g's items in
 * the order it runs them (queue[g][0..len[g]), one malloc'd block).
 * Every rank computes the same queues. */
static int deal_problems(const struct fgo_plan *plan, const size_t *list, size_t n, int groups,
			 size_t **queue, size_t *len)
{
	size_t *sorted = malloc(sizeof *sorted * (n + 1));
	unsigned char *taken = calloc(n + 1, 1);
	size_t *block = malloc(sizeof *block * (n + 1));
	if (!sorted || !taken || !block) {
		free(sorted);
		free(taken);
		free(block);
		return FGO_EFAIL;
	}
	for (int g = 0; g < groups; g++)
		len[g] = 0;
	/* problems in order of first appearance, each one's items in plan order */
	size_t count = 0, *load = calloc((size_t)groups, sizeof *load);
	int *owner = malloc(sizeof *owner * (n + 1));
	size_t *starts = malloc(sizeof *starts * (n + 2));
	size_t problems = 0;
	if (!load || !owner || !starts) {
		free(sorted);
		free(taken);
		free(block);
		free(load);
		free(owner);
		free(starts);
		return FGO_EFAIL;
	}
	for (size_t i = 0; i < n; i++) {
		if (taken[i])
			continue;
		const struct fgo_config *first = &plan->items[list[i]].cfg;
		starts[problems] = count;
		size_t before = count;
		for (size_t j = i; j < n; j++)
			if (!taken[j] && runner_same_problem(first, &plan->items[list[j]].cfg)) {
				taken[j] = 1;
				sorted[count++] = list[j];
			}
		int best = 0;
		for (int g = 1; g < groups; g++)
			if (load[g] < load[best])
				best = g;
		load[best] += count - before;
		owner[problems++] = best;
	}
	starts[problems] = count;
	/* the queues, one after another in block */
	size_t at = 0;
	for (int g = 0; g < groups; g++) {
		queue[g] = block + at;
		for (size_t q = 0; q < problems; q++)
			if (owner[q] == g)
				for (size_t j = starts[q]; j < starts[q + 1]; j++)
					queue[g][len[g]++] = sorted[j];
		at += len[g];
	}
	free(sorted);
	free(taken);
	free(load);
	free(owner);
	free(starts);
	return FGO_OK;
}

/* Items of group g's queue from position r to the end of the problem that
 * starts there (the 'started' rows written before a problem runs). */
static size_t problem_span(const struct fgo_plan *plan, const size_t *queue, size_t len, size_t r)
{
	size_t end = r + 1;
	while (end < len &&
	       runner_same_problem(&plan->items[queue[r]].cfg, &plan->items[queue[end]].cfg))
		end++;
	return end - r;
}

/* Heaps get a new number each, so a problem's inputs are made again in a
 * new heap (the memory may be the same). */
static unsigned long heap_generation;

unsigned long runner_heap_generation_next(void)
{
	return ++heap_generation;
}

/* One world size: groups, heap, then rounds of one item per group, each
 * group walking its own queue of whole problems. Before a group starts a
 * problem, rank 0 writes the 'started' rows of all its configurations
 * (one transaction; a crash leaves them as the trace --resume explains). */
static int run_world(MPI_Comm comm, const struct fgo_plan *plan, const unsigned char *todo,
		     const struct fgo_runner_opts *o, const struct fgo_runner_sink *sink, int w,
		     struct fgo_problem_cache *cache)
{
	int rank;
	MPI_Comm_rank(comm, &rank);
	size_t *list = malloc(sizeof *list * (plan->count + 1));
	size_t *too_big = malloc(sizeof *too_big * (plan->count + 1));
	size_t heap_bytes, n_too_big;
	size_t n = items_of_world(plan, todo, o, w, list, &heap_bytes, too_big, &n_too_big);
	int rc = FGO_OK;
	if (rank == 0)
		rc = report_too_big(plan, o, too_big, n_too_big, sink);
	MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
	free(too_big);
	if (rc != FGO_OK || n == 0) {
		free(list);
		return rc;
	}

	struct groups g;
	groups_make(comm, w, &g);
	size_t **queue = calloc((size_t)g.count, sizeof *queue);
	size_t *len = calloc((size_t)g.count, sizeof *len);
	size_t *starting = malloc(sizeof *starting * (n + 1));
	struct fgo_result *round = calloc((size_t)g.count, sizeof *round);
	if (!queue || !len || !starting || !round ||
	    deal_problems(plan, list, n, g.count, queue, len)) {
		if (rank == 0)
			error("out of host memory planning the runs");
		free(round);
		free(queue);
		free(len);
		free(starting);
		free(list);
		groups_free(&g);
		return FGO_EFAIL;
	}
	size_t rounds = 0;
	for (int q = 0; q < g.count; q++)
		rounds = len[q] > rounds ? len[q] : rounds;

	struct fgo_heap heap;
	memset(&heap, 0, sizeof heap);
	char heap_err[FGO_REASON_MAX] = "";
	int heap_rc = FGO_OK;
	unsigned long heap_gen = runner_heap_generation_next();
	if (g.comm != MPI_COMM_NULL) {
		heap_rc = o->backend->heap_alloc(o->ctx, g.comm, heap_bytes, &heap, heap_err,
						 sizeof heap_err);
		heap_rc = runner_agree(g.comm, heap_rc, heap_err, sizeof heap_err);
	}

	for (size_t r = 0; r < rounds && rc == FGO_OK; r++) {
		if (rank == 0) {
			size_t count = 0;
			for (int q = 0; q < g.count; q++)
				if (r < len[q] &&
				    (r == 0 || !runner_same_problem(&plan->items[queue[q][r]].cfg,
								   &plan->items[queue[q][r - 1]].cfg))) {
					size_t span = problem_span(plan, queue[q], len[q], r);
					memcpy(starting + count, queue[q] + r, sizeof *starting * span);
					count += span;
				}
			if (count)
				rc = sink->started(sink->arg, starting, count) ? FGO_EFAIL : FGO_OK;
		}
		MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
		if (rc != FGO_OK)
			break;

		struct fgo_result mine;
		result_init(&mine);
		int lost = 0;
		int active = g.index >= 0 && r < len[g.index];
		if (active) {
			const struct fgo_config *cfg = &plan->items[queue[g.index][r]].cfg;
			if (heap_rc != FGO_OK) {
				mine.status = FGO_FAILED;
				snprintf(mine.reason, sizeof mine.reason, "%s", heap_err);
			} else {
				lost = run_item(o, g.comm, &heap, heap_gen, cache, cfg, &mine);
			}
		}
		if (rank == 0) {
			for (int q = 0; q < g.count; q++) {
				result_init(&round[q]);
				if (r >= len[q])
					continue;
				if (q == g.index)
					round[q] = mine;
				else
					result_recv(&round[q], g.leader[q], comm);
			}
			for (int q = 0; q < g.count && rc == FGO_OK; q++)
				if (r < len[q])
					rc = sink->finished(sink->arg, queue[q][r], &round[q]) ? FGO_EFAIL
											     : FGO_OK;
			for (int q = 0; q < g.count; q++)
				result_free(&round[q]);
		} else {
			if (active && g.leader[g.index] == rank)
				result_send(&mine, 0, comm);
			result_free(&mine);
		}
		MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
		/* the round's results are stored; a rank whose device is lost
		 * can run nothing more, so the sweep goes on in a fresh process */
		MPI_Allreduce(MPI_IN_PLACE, &lost, 1, MPI_INT, MPI_MAX, comm);
		if (lost && rc == FGO_OK)
			rc = FGO_ERESTART;
	}
	if (g.comm != MPI_COMM_NULL && heap_rc == FGO_OK)
		o->backend->heap_free(o->ctx, &heap);
	groups_free(&g);
	free(queue[0]); /* the block all queues are in */
	free(queue);
	free(round);
	free(len);
	free(starting);
	free(list);
	return rc;
}

int runner_run(MPI_Comm comm, const struct fgo_plan *plan, const unsigned char *todo,
	       const struct fgo_runner_opts *o, const struct fgo_runner_sink *sink)
{
	int size, rank;
	MPI_Comm_size(comm, &size);
	MPI_Comm_rank(comm, &rank);
	int node_ranks = runner_node_ranks(comm);
	/* the caller's problem cache (tune keeps it over its batches), else one
	 * for this call */
	struct fgo_problem_cache local;
	memset(&local, 0, sizeof local);
	struct fgo_problem_cache *cache = o->problems ? o->problems : &local;
	for (int w = 1; w <= plan->max_world; w++) {
		int wanted = 0;
		for (size_t i = 0; i < plan->count && !wanted; i++)
			wanted = todo[i] && plan->items[i].cfg.world == w;
		if (!wanted)
			continue;
		if (w > node_ranks) {
			if (rank == 0)
				error("world=%d needs %d ranks on one node, but the smallest node has %d"
				      " (run with more ranks per node: mpirun -np %d ...)",
				      w, w, node_ranks, w);
			return FGO_EUSAGE;
		}
		int rc = run_world(comm, plan, todo, o, sink, w, cache);
		if (rc != FGO_OK) {
			if (!o->problems)
				runner_problems_free(cache);
			return rc;
		}
	}
	(void)size;
	if (!o->problems)
		runner_problems_free(cache);
	return FGO_OK;
}
