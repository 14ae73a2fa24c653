/* runner.c: runs a plan under MPI (see runner.h): node groups per world
 * size, one symmetric heap per group, then per configuration: prepare,
 * random inputs, poisoned output, one validated launch, and the timed
 * measurements (fused, GEMM only, comm only, baseline as DESIGN.md says;
 * bulk where the backend has it) with device telemetry read around them. */
#include "runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fgo.h"
#include "stats.h"

/* Elements of one output shard checked in full; bigger shards are sampled. */
#define CHECK_FULL_MAX (1L << 18)
#define CHECK_SAMPLES 4096L

/* The groups of W ranks this rank belongs to, for one world size. */
struct groups {
	MPI_Comm comm;   /* this rank's group, MPI_COMM_NULL when it idles */
	int index;       /* this rank's group number, -1 when idle */
	int count;       /* groups over all nodes */
	int *leader;     /* leader[g]: rank in the runner's comm of group g's rank 0 */
};

int runner_node_ranks(MPI_Comm comm)
{
	MPI_Comm node;
	int size, min;
	MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	MPI_Comm_size(node, &size);
	MPI_Comm_free(&node);
	MPI_Allreduce(&size, &min, 1, MPI_INT, MPI_MIN, comm);
	return min;
}

uint64_t runner_seed(const struct fgo_config *cfg)
{
	char key[FGO_KEY_MAX];
	config_key(cfg, key, sizeof key);
	return fnv1a64(key, strlen(key));
}

/* Splits comm into groups of w ranks that never cross a node boundary. */
static void groups_make(MPI_Comm comm, int w, struct groups *g)
{
	MPI_Comm node;
	int rank, size, node_rank, node_size, node_leader;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
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
static int agree(MPI_Comm comm, int rc, char *reason, size_t len)
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

static void timing_summarise(struct fgo_timing *t)
{
	if (t->n == 0)
		return;
	t->median = stats_median(t->ms, (size_t)t->n);
	t->min = stats_min(t->ms, (size_t)t->n);
	t->max = stats_max(t->ms, (size_t)t->n);
	t->stddev = stats_stddev(t->ms, (size_t)t->n);
}

/* This rank's telemetry readings during one run: per quantity a sum and a
 * count of readings that told it (the backend reports 0 for what it cannot
 * tell), and the highest temperature. */
struct readings {
	double sum[3], n[3]; /* SM clock, memory clock, power */
	double temp_max;     /* 0 until a reading tells it */
};

static void telemetry_read(const struct fgo_runner_opts *o, struct readings *rd)
{
	struct fgo_telemetry t;
	memset(&t, 0, sizeof t);
	if (!o->backend->telemetry || o->backend->telemetry(o->ctx, &t) != FGO_OK)
		return;
	const double v[3] = { t.sm_clock_mhz, t.mem_clock_mhz, t.power_w };
	for (int i = 0; i < 3; i++)
		if (isfinite(v[i]) && v[i] > 0) {
			rd->sum[i] += v[i];
			rd->n[i]++;
		}
	if (isfinite(t.temp_c) && t.temp_c > rd->temp_max)
		rd->temp_max = t.temp_c;
}

/* Means over the group's ranks and readings, the highest temperature;
 * NaN where no reading told (collective over comm). */
static void telemetry_summarise(const struct fgo_runner_opts *o, MPI_Comm comm,
				const struct readings *rd, struct fgo_telemetry *out)
{
	if (!o->backend->telemetry)
		return;
	double all[6] = { rd->sum[0], rd->sum[1], rd->sum[2], rd->n[0], rd->n[1], rd->n[2] };
	double temp = rd->temp_max;
	MPI_Allreduce(MPI_IN_PLACE, all, 6, MPI_DOUBLE, MPI_SUM, comm);
	MPI_Allreduce(MPI_IN_PLACE, &temp, 1, MPI_DOUBLE, MPI_MAX, comm);
	out->sm_clock_mhz = all[3] > 0 ? all[0] / all[3] : NAN;
	out->mem_clock_mhz = all[4] > 0 ? all[1] / all[4] : NAN;
	out->power_w = all[5] > 0 ? all[2] / all[5] : NAN;
	out->temp_c = temp > 0 ? temp : NAN;
}

/* What measure() times: a launch of the runnable in a mode, the vendor
 * baseline, or the backend's bulk sequence. */
enum measurement { MEASURE_LAUNCH, MEASURE_BASELINE, MEASURE_BULK };

static int measure_once(const struct fgo_runner_opts *o, struct fgo_runnable *run,
			enum measurement what, enum fgo_mode mode, double *ms, char *reason,
			size_t len)
{
	const struct fgo_backend *be = o->backend;
	switch (what) {
	case MEASURE_BASELINE: return be->baseline(o->ctx, run, o->timeout_s, ms, reason, len);
	case MEASURE_BULK: return be->bulk(o->ctx, run, o->timeout_s, ms, reason, len);
	default: return be->launch(o->ctx, run, mode, o->timeout_s, ms, reason, len);
	}
}

/* Warm-up, then opts->iterations launches between barriers; each sample
 * is the slowest rank's time. Telemetry is read just before the timed
 * launches (after the warm-up has brought the clocks up) and just after.
 * Returns the agreed result code. */
static int measure(const struct fgo_runner_opts *o, MPI_Comm comm, struct fgo_runnable *run,
		   enum measurement what, enum fgo_mode mode, struct fgo_timing *t,
		   struct readings *rd, char *reason, size_t len)
{
	int total = o->warmup + o->iterations;
	t->ms = calloc((size_t)o->iterations, sizeof *t->ms);
	t->n = 0;
	for (int i = 0; i < total; i++) {
		double ms = 0, slowest;
		if (i == o->warmup)
			telemetry_read(o, rd);
		MPI_Barrier(comm);
		int rc = measure_once(o, run, what, mode, &ms, reason, len);
		rc = agree(comm, rc, reason, len);
		if (rc != FGO_OK)
			return rc;
		MPI_Allreduce(&ms, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
		if (i >= o->warmup)
			t->ms[t->n++] = slowest;
	}
	telemetry_read(o, rd);
	timing_summarise(t);
	return FGO_OK;
}

static enum fgo_status status_of(int rc)
{
	return rc == FGO_ETIMEOUT ? FGO_TIMEOUT : rc == FGO_EUSAGE ? FGO_INVALID : FGO_FAILED;
}

/* Fills this rank's inputs and poisons its output. */
static int load_inputs(const struct fgo_runner_opts *o, struct fgo_heap *heap,
		       const struct fgo_config *cfg, const struct fgo_layout *lay, uint64_t seed,
		       char *reason, size_t len)
{
	const struct fgo_matrix *mats[3] = { &lay->a, &lay->b, &lay->c };
	size_t esize = dtype_size(cfg->dtype);
	for (int i = 0; i < 3; i++) {
		size_t bytes = (size_t)mats[i]->rows * (size_t)mats[i]->ld * esize;
		void *host = malloc(bytes ? bytes : 1);
		if (!host) {
			snprintf(reason, len, "out of host memory for a %zu-byte input", bytes);
			return FGO_EFAIL;
		}
		if (i < 2)
			input_fill(seed, i == 0 ? FGO_A : FGO_B, mats[i], cfg->dtype, host);
		else
			output_poison(mats[i], cfg->dtype, host);
		int rc = o->backend->copy_in(o->ctx, heap, mats[i]->offset, host, bytes);
		free(host);
		if (rc != FGO_OK) {
			snprintf(reason, len, "copying inputs to the heap failed");
			return FGO_EFAIL;
		}
	}
	return FGO_OK;
}

/* One validated launch; a wrong element anywhere makes the run a mismatch. */
static int validate_output(const struct fgo_runner_opts *o, MPI_Comm comm, struct fgo_heap *heap,
			   struct fgo_runnable *run, const struct fgo_config *cfg,
			   const struct fgo_layout *lay, uint64_t seed, struct fgo_result *r)
{
	double ms;
	int rc = o->backend->launch(o->ctx, run, FGO_MODE_FUSED, o->timeout_s, &ms, r->reason,
				    sizeof r->reason);
	rc = agree(comm, rc, r->reason, sizeof r->reason);
	if (rc != FGO_OK)
		return rc;

	size_t bytes = (size_t)lay->c.rows * (size_t)lay->c.ld * dtype_size(cfg->dtype);
	void *host = malloc(bytes ? bytes : 1);
	struct fgo_check chk = { 0 };
	int bad = 1;
	if (host && o->backend->copy_out(o->ctx, heap, lay->c.offset, host, bytes) == FGO_OK)
		bad = output_check(seed, cfg, &lay->c, host, CHECK_FULL_MAX, CHECK_SAMPLES, &chk);
	free(host);

	int rank;
	MPI_Comm_rank(comm, &rank);
	if (bad)
		snprintf(r->reason, sizeof r->reason,
			 "%ld of %ld checked elements wrong on rank %d, first at C[%ld][%ld];"
			 " max rel err %.3g > tolerance %.3g",
			 chk.bad, chk.checked, rank, chk.first_bad_row, chk.first_bad_col,
			 chk.max_rel_err, check_tolerance(cfg->dtype, cfg->k, cfg->world));
	double errs[2] = { chk.max_abs_err, chk.max_rel_err };
	MPI_Allreduce(MPI_IN_PLACE, errs, 2, MPI_DOUBLE, MPI_MAX, comm);
	r->max_abs_err = errs[0];
	r->max_rel_err = errs[1];
	r->validated = 1;
	if (agree(comm, bad ? FGO_EFAIL : FGO_OK, r->reason, sizeof r->reason) != FGO_OK)
		r->status = FGO_MISMATCH;
	return FGO_OK;
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
	if (r->gemm.n && r->comm.n) {
		double tg = r->gemm.median, tc = r->comm.median;
		double shorter = tg < tc ? tg : tc;
		if (shorter > 0)
			r->overlap = (tg + tc - r->fused.median) / shorter;
	}
	if (r->baseline.n)
		r->speedup = r->baseline.median / r->fused.median;
	double peak = o->ceilings.matrix_peak[cfg->dtype];
	if (peak > 0) {
		double limit = config_flops(cfg) / cfg->world / (peak * 1e12);
		if (bytes > 0 && o->ceilings.link_bw > 0 && bytes / (o->ceilings.link_bw * 1e9) > limit)
			limit = bytes / (o->ceilings.link_bw * 1e9);
		r->sol = limit / tf;
	}
}

/* Runs one configuration on a group (collective over comm); the result is
 * complete on every rank of the group. */
static void run_item(const struct fgo_runner_opts *o, MPI_Comm comm, struct fgo_heap *heap,
		     const struct fgo_config *cfg, struct fgo_result *r)
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	struct fgo_layout lay;
	struct fgo_runnable *run = NULL;
	int rank;
	uint64_t seed = runner_seed(cfg);

	MPI_Comm_rank(comm, &rank);
	r->iterations = o->iterations;
	r->warmup = o->warmup;
	algo->layout(cfg, rank, &lay);

	int rc = o->backend->prepare(o->ctx, algo, cfg, heap, &run, &r->kernel, r->reason,
				     sizeof r->reason);
	rc = agree(comm, rc, r->reason, sizeof r->reason);
	if (rc == FGO_OK)
		rc = agree(comm, load_inputs(o, heap, cfg, &lay, seed, r->reason, sizeof r->reason),
			   r->reason, sizeof r->reason);
	if (rc == FGO_OK && o->validate)
		rc = validate_output(o, comm, heap, run, cfg, &lay, seed, r);
	if (rc == FGO_OK && o->benchmark) {
		struct readings rd;
		memset(&rd, 0, sizeof rd);
		rc = measure(o, comm, run, MEASURE_LAUNCH, FGO_MODE_FUSED, &r->fused, &rd, r->reason,
			     sizeof r->reason);
		if (rc == FGO_OK && algo->needs_comm)
			rc = measure(o, comm, run, MEASURE_LAUNCH, FGO_MODE_GEMM_ONLY, &r->gemm, &rd,
				     r->reason, sizeof r->reason);
		if (rc == FGO_OK && algo->needs_comm)
			rc = measure(o, comm, run, MEASURE_LAUNCH, FGO_MODE_COMM_ONLY, &r->comm, &rd,
				     r->reason, sizeof r->reason);
		/* A failing baseline or bulk (no NCCL, say) fails the run with its
		 * reason; what was measured before it is still stored. */
		if (rc == FGO_OK)
			rc = measure(o, comm, run, MEASURE_BASELINE, FGO_MODE_FUSED, &r->baseline, &rd,
				     r->reason, sizeof r->reason);
		if (rc == FGO_OK && o->backend->bulk)
			rc = measure(o, comm, run, MEASURE_BULK, FGO_MODE_FUSED, &r->bulk, &rd, r->reason,
				     sizeof r->reason);
		telemetry_summarise(o, comm, &rd, &r->telemetry);
	}
	if (run)
		o->backend->release(o->ctx, run);
	if (rc != FGO_OK) {
		r->status = status_of(rc);
		return;
	}
	if (r->status == FGO_STARTED) {
		r->status = FGO_STATUS_OK;
		r->reason[0] = '\0';
	}
	derive(o, algo, cfg, r);
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

/* Matrices past 2^50 elements are far beyond any memory; their tile counts
 * and byte counts would overflow the layouts' long and size_t arithmetic,
 * so such a configuration is never laid out (layout_of). */
#define ELEMENTS_MAX 1125899906842624.0

/* cfg's layout on rank 0; 0 with *lay zeroed when the shape is too large
 * to lay out. */
static int layout_of(const struct fgo_config *cfg, struct fgo_layout *lay)
{
	double m = (double)cfg->m, n = (double)cfg->n, k = (double)cfg->k;
	memset(lay, 0, sizeof *lay);
	if (m * n > ELEMENTS_MAX || m * k > ELEMENTS_MAX || k * n > ELEMENTS_MAX)
		return 0;
	algo_find(cfg->algorithm)->layout(cfg, 0, lay);
	return 1;
}

/* Bytes of heap cfg needs per rank: the layout's count or, when the shape
 * is so large that the layout's size_t arithmetic would wrap around (or it
 * has none), what every sharding holds at least (1/W of each of A, B and
 * C), whichever is more. A double, so that it cannot wrap itself. */
static double heap_need(const struct fgo_config *cfg, const struct fgo_layout *lay)
{
	double e = (double)dtype_size(cfg->dtype), m = (double)cfg->m, n = (double)cfg->n,
	       k = (double)cfg->k;
	double least = e * (m * n + m * k + k * n) / (double)cfg->world;
	return (double)lay->heap_bytes < least ? least : (double)lay->heap_bytes;
}

/* Host memory one rank needs for cfg on top of a CPU heap: the staging
 * buffer of its largest matrix (inputs are filled, the output read back,
 * one at a time). */
static double staging_need(const struct fgo_config *cfg, const struct fgo_layout *lay)
{
	const struct fgo_matrix *mats[3] = { &lay->a, &lay->b, &lay->c };
	double most = 0, e = (double)dtype_size(cfg->dtype);
	for (int i = 0; i < 3; i++) {
		double b = (double)mats[i]->rows * (double)mats[i]->ld * e;
		most = b > most ? b : most;
	}
	return most;
}

/* This node's memory in bytes: the physical memory, or a smaller cgroup
 * limit (a container, a batch job's allocation). */
static double node_memory(void)
{
	double bytes = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
	static const char *const limits[] = { "/sys/fs/cgroup/memory.max",
					      "/sys/fs/cgroup/memory/memory.limit_in_bytes" };
	for (size_t i = 0; i < FGO_ARRAY_SIZE(limits); i++) {
		FILE *f = fopen(limits[i], "r");
		double v = 0;
		if (!f)
			continue;
		if (fscanf(f, "%lf", &v) == 1 && v > 0 && v < bytes)
			bytes = v;
		fclose(f);
	}
	return bytes;
}

int runner_backend_open(MPI_Comm comm, const char *backend, const struct fgo_plan *plan,
			size_t heap_limit, const char *what, const struct fgo_backend **be,
			struct fgo_backend_ctx **ctx, MPI_Comm *node)
{
	char err[FGO_REASON_MAX] = "", big[512];
	int rank, rc, any;

	MPI_Comm_rank(comm, &rank);
	*ctx = NULL;
	*be = backend_find(backend);
	if (!*be) {
		if (rank == 0)
			error("backend \"%s\" is not available in this build (use --backend cpu)",
			      backend);
		return FGO_EUSAGE;
	}
	if (runner_memory_check(comm, plan, *be, heap_limit, big, sizeof big) != FGO_OK) {
		if (rank == 0)
			error("%s%s%s", what ? what : "", what ? ": " : "", big);
		return FGO_EUSAGE;
	}
	MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, node);
	rc = (*be)->init(ctx, *node, err, sizeof err);
	MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, comm);
	if (any != FGO_OK) {
		if (rc != FGO_OK)
			error("backend %s: %s", (*be)->name, err);
		if (*ctx)
			(*be)->finish(*ctx);
		*ctx = NULL;
		MPI_Comm_free(node);
		return FGO_EUSAGE;
	}
	return FGO_OK;
}

int runner_memory_check(MPI_Comm comm, const struct fgo_plan *plan,
			const struct fgo_backend *be, size_t heap_limit, char *err, size_t len)
{
	int node_ranks = runner_node_ranks(comm);
	double have = node_memory(), device = 0;
	size_t device_bytes = 0;
	int devices = 0;
	MPI_Allreduce(MPI_IN_PLACE, &have, 1, MPI_DOUBLE, MPI_MIN, comm);
	if (be->device_memory && be->device_memory(&device_bytes, &devices) == FGO_OK && devices > 0)
		device = (double)device_bytes;
	MPI_Allreduce(MPI_IN_PLACE, &device, 1, MPI_DOUBLE, MPI_MIN, comm);
	int heap_on_host = strcmp(be->name, "cpu") == 0;
	for (size_t i = 0; i < plan->count; i++) {
		const struct fgo_config *cfg = &plan->items[i].cfg;
		struct fgo_layout lay;
		if (!plan->items[i].valid || cfg->world > node_ranks)
			continue;
		layout_of(cfg, &lay);
		double heap = heap_need(cfg, &lay);
		if (heap > (double)heap_limit)
			continue; /* stored as invalid, never allocated */
		/* every group of the node allocates at once */
		int ranks = node_ranks / cfg->world * cfg->world;
		/* the heap on the devices: ranks share them round-robin */
		int per_device = devices > 0 ? (ranks + devices - 1) / devices : 0;
		if (device > 0 && heap * per_device > device) {
			snprintf(err, len,
				 "configuration %zu (%s %s W=%d M=%ld N=%ld K=%ld) needs %.1f GiB of GPU"
				 " memory per device (%d rank%s x %.1f GiB of heap), more than its %.1f GiB"
				 " (use smaller shapes, or a --heap-size under %.1fG to store such"
				 " configurations as invalid)",
				 i + 1, cfg->algorithm, dtype_name(cfg->dtype), cfg->world, cfg->m,
				 cfg->n, cfg->k, heap * per_device / 1073741824.0, per_device,
				 per_device == 1 ? "" : "s", heap / 1073741824.0, device / 1073741824.0,
				 device / per_device / 1073741824.0);
			return FGO_EUSAGE;
		}
		double per_rank = staging_need(cfg, &lay) + (heap_on_host ? heap : 0);
		if (per_rank * ranks <= have)
			continue;
		snprintf(err, len,
			 "configuration %zu (%s %s W=%d M=%ld N=%ld K=%ld) needs %.1f GiB of memory on"
			 " a node (%d rank%s x %.1f GiB), more than its %.1f GiB (use smaller shapes,"
			 " or a --heap-size under %.1fG to store such configurations as invalid)",
			 i + 1, cfg->algorithm, dtype_name(cfg->dtype), cfg->world, cfg->m,
			 cfg->n, cfg->k, per_rank * ranks / 1073741824.0, ranks, ranks == 1 ? "" : "s",
			 per_rank / 1073741824.0, have / 1073741824.0,
			 have / ranks / 1073741824.0);
		return FGO_EUSAGE;
	}
	return FGO_OK;
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
		if (!layout_of(cfg, &lay) || heap_need(cfg, &lay) > (double)o->heap_limit) {
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
		layout_of(cfg, &lay);
		result_init(&r);
		r.status = FGO_INVALID;
		snprintf(r.reason, sizeof r.reason,
			 "needs %.1f MiB of heap per rank, more than the limit of %.1f MiB"
			 " (raise --heap-size)",
			 heap_need(cfg, &lay) / 1048576.0, o->heap_limit / 1048576.0);
		if (sink->started(sink->arg, &too_big[j], 1) || sink->finished(sink->arg, too_big[j], &r))
			return FGO_EFAIL;
	}
	return FGO_OK;
}

/* One world size: groups, heap, then rounds of one item per group. */
static int run_world(MPI_Comm comm, const struct fgo_plan *plan, const unsigned char *todo,
		     const struct fgo_runner_opts *o, const struct fgo_runner_sink *sink, int w)
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
	struct fgo_heap heap;
	memset(&heap, 0, sizeof heap);
	char heap_err[FGO_REASON_MAX] = "";
	int heap_rc = FGO_OK;
	if (g.comm != MPI_COMM_NULL) {
		heap_rc = o->backend->heap_alloc(o->ctx, g.comm, heap_bytes, &heap, heap_err,
						 sizeof heap_err);
		heap_rc = agree(g.comm, heap_rc, heap_err, sizeof heap_err);
	}

	struct fgo_result *round = calloc((size_t)g.count, sizeof *round);
	for (size_t first = 0; first < n && rc == FGO_OK; first += (size_t)g.count) {
		size_t in_round = n - first < (size_t)g.count ? n - first : (size_t)g.count;
		if (rank == 0)
			rc = sink->started(sink->arg, &list[first], in_round) ? FGO_EFAIL : FGO_OK;
		MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
		if (rc != FGO_OK)
			break;

		struct fgo_result mine;
		result_init(&mine);
		int active = g.index >= 0 && (size_t)g.index < in_round;
		if (active) {
			const struct fgo_config *cfg = &plan->items[list[first + (size_t)g.index]].cfg;
			if (heap_rc != FGO_OK) {
				mine.status = FGO_FAILED;
				snprintf(mine.reason, sizeof mine.reason, "%s", heap_err);
			} else {
				run_item(o, g.comm, &heap, cfg, &mine);
			}
		}
		if (rank == 0) {
			for (size_t j = 0; j < in_round; j++) {
				result_init(&round[j]);
				if ((int)j == g.index)
					round[j] = mine;
				else
					result_recv(&round[j], g.leader[j], comm);
			}
			for (size_t j = 0; j < in_round && rc == FGO_OK; j++)
				rc = sink->finished(sink->arg, list[first + j], &round[j]) ? FGO_EFAIL
											: FGO_OK;
			for (size_t j = 0; j < in_round; j++)
				result_free(&round[j]);
		} else {
			if (active && g.leader[g.index] == rank)
				result_send(&mine, 0, comm);
			result_free(&mine);
		}
		MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
	}
	free(round);
	if (g.comm != MPI_COMM_NULL && heap_rc == FGO_OK)
		o->backend->heap_free(o->ctx, &heap);
	groups_free(&g);
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
		int rc = run_world(comm, plan, todo, o, sink, w);
		if (rc != FGO_OK)
			return rc;
	}
	(void)size;
	return FGO_OK;
}
