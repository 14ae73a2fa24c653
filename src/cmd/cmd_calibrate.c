/* cmd_calibrate.c: `fgobench calibrate`: measures this machine's ceilings
 * and stores them for sol and the plots. A backend with matrix_peak and
 * link_bandwidth (GPU) measures them itself on every device at once and every
 * GPU pair in turn, printed as per-rank and W x W tables; otherwise (CPU)
 * they come from fgobench's own kernels (matrix peak per dtype from the plain
 * gemm family, rank-to-rank bandwidth from all_scatter's communication alone).
 * Memory bandwidth is the backend's memory_bandwidth. The read floor (floor.h)
 * is the backend's read_floor at sizes from 1 MiB up (calibrate_floor.c);
 * the vendor collective's curve at every W the node allows is
 * calibrate_curve.c's; both are stored with the ceilings in one
 * transaction. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algo.h"
#include "backend/backend.h"
#include "cmd/calibrate.h"
#include "cmd/cmd.h"
#include "fgo.h"
#include "run/runner.h"
#include "store/store.h"
#include "views/table.h"

const char cmd_calibrate_usage[] =
	"usage: fgobench calibrate [--backend cpu|gpu|auto] [--size N] [--floor-max MIB]\n"
	"       [--no-floor] [--curve-max SIZE] [--no-curve] [--link-bw GB/S]\n"
	"       [--fit [--machine HOST]] [--db F]\n"
	"\n"
	"Measures and stores this machine's ceilings for the backend: the matrix\n"
	"peak per dtype, the memory bandwidth of a device and the rank-to-rank link\n"
	"bandwidth. sol and the roofline plots use the newest values for this host\n"
	"and backend.\n"
	"\n"
	"On GPUs (one per rank) every rank measures its own device, all at once:\n"
	"  matrix peak  the vendor GEMM (cuBLAS GemmEx) at 8192x8192x8192, random\n"
	"               inputs, fp32 accumulation (fp32 inputs: CUBLAS_COMPUTE_32F,\n"
	"               no TF32), best of 10 after a warm-up, TFLOP/s per GPU\n"
	"  memory       a copy kernel over 1 GiB (16-byte loads and stores), bytes\n"
	"               read + written per second, best of 10\n"
	"then the ranks of each node measure every ordered pair of GPUs, one pair at\n"
	"a time while the others wait: the writer puts 256 MiB into the reader's\n"
	"memory by SM stores (a kernel, 4 CTAs per SM) and by the copy engine, best\n"
	"of 5. Printed: a table per rank and the W x W link matrices (row writes\n"
	"into column) of rank 0's node. Stored: the slowest rank's matrix peak and\n"
	"memory bandwidth, and as link_bw the slowest pair's SM-store bandwidth\n"
	"(the path fused kernels use).\n"
	"\n"
	"The link egress (sol's reachable bound at W > 1): for W = 2 up to the ranks\n"
	"of rank 0's node, the first W ranks all write into every peer at once (on\n"
	"GPUs one store kernel whose CTAs take the peers in turn, half the heap over\n"
	"W into each; on CPU memcpy into the shared heap), best of 5, the slowest\n"
	"rank; stored per W as link_bw \"egress w=W\". A pair's rate times W - 1\n"
	"overstates what all links reach at once (they share the device's ports).\n"
	"\n"
	"The read floor: the time of the fastest streaming read of N bytes, timed as\n"
	"runs are timed, at 1, 1.5, 2, 3, 4, 6, ... MiB up to --floor-max. On GPUs a\n"
	"read kernel (16-byte loads, grid-stride, the fastest of 2, 4 and 8 CTAs per\n"
	"SM), L2 flushed before each launch and events around it, best of 10 on\n"
	"every rank at once; the slowest rank's time per size is stored. On CPU one\n"
	"core of rank 0 reads, the clock around one read, best of 5. For a small\n"
	"memory-bound GEMM this, not the bandwidth roofline, is the bound (a launch\n"
	"alone costs microseconds): best, report and plot roofline show each\n"
	"memory-bound run's time against the floor of its bytes.\n"
	"\n"
	"The vendor collective's curve: all-gather, all-reduce and reduce-scatter\n"
	"timed alone at 5 sizes of their whole buffer (as nccl-tests counts a size:\n"
	"the gathered output, the summed buffer, the scattered input), log-spaced\n"
	"up to --curve-max (GPUs: NCCL, bf16, 8 KiB to 512 MiB by 16x, best of 10;\n"
	"CPU: the MPI calls the CPU baselines make, 1 KiB to 4 MiB by 8x, best of\n"
	"5), at every world size W = 2 .. the ranks of rank 0's node, on its first W\n"
	"ranks; each call from a barrier to its end, the slowest rank's. Stored per\n"
	"collective and W; best --predict --world reads the vendor baseline from it\n"
	"(log-log between the sizes, extrapolated beyond them and to other W, and\n"
	"says so). Ranks that share a GPU have no link between them: said, and no\n"
	"curve stored for them.\n"
	"\n"
	"On CPU: the matrix peak is the best of a few tiles of fgobench's own NxNxN\n"
	"GEMM on every rank at once (TFLOP/s per rank), the memory bandwidth that of\n"
	"one rank, the link bandwidth all_scatter with its GEMM compiled out (needs\n"
	"2 ranks).\n"
	"\n"
	"  --backend B  cpu, gpu or auto (default auto)\n"
	"  --size N     the CPU GEMM size (default 512; GPUs use 8192)\n"
	"  --floor-max MIB\n"
	"               the read floor's largest size in MiB (default 1024 on GPUs,\n"
	"               256 on CPU; 1 to 65536)\n"
	"  --no-floor   no read floor (the ceilings only)\n"
	"  --curve-max SIZE\n"
	"               the collective curve's largest buffer (512M on GPUs, 4M on\n"
	"               CPU; k, M, G: powers of 1024; 4K to 16G)\n"
	"  --no-curve   no collective curve\n"
	"  --link-bw GB/S\n"
	"               store this rank-to-rank link bandwidth (GB/s each way) as the\n"
	"               machine's link_bw, marked stated, where no second GPU can\n"
	"               measure it (a node's GPU-to-GPU egress): the cost model's\n"
	"               comm term and best --predict --world use it\n"
	"  --fit        measure nothing: fit the cost model and the multi-GPU terms\n"
	"               to the stored runs (and store --link-bw if given)\n"
	"  --machine HOST\n"
	"               with --fit: the runs and ceilings of that host (a store\n"
	"               brought from another machine; give --backend too, e.g. gpu)\n"
	"  --db F       the store (default $FGOBENCH_DB or ./fgobench.db)\n"
	"\n"
	"After measuring (or with --fit alone) the cost model of each GEMM core\n"
	"(wgmma, mma16, mma32, simt) is fitted to this host's stored ok runs of the\n"
	"backend, the newest of each configuration (runs of ranks sharing a GPU\n"
	"left out), and stored with its error: launch, compute (waves, Stream-K\n"
	"shares), memory, L2 reuse, work units, pipeline stall, split-K exchange and\n"
	"link terms, each weighted by a non-negative coefficient fitted on relative\n"
	"error. A core needs 16 runs. best --predict and tune --strategy model use\n"
	"it. Then the multi-GPU terms of each fused family at each W > 1 with 10 or\n"
	"more ok runs on W devices (with their GEMM timed alone, t_gemm; on the CPU\n"
	"backend every run counts): fused = max(a g, L / rate) + b min(...) / tiles\n"
	"+ waits + reads / read rate, with g the run's own GEMM, L its egress and\n"
	"the longer side decided per run: printed with the link's achieved GB/s,\n"
	"the exposed tile's factor, the waits in us, the reduction's read GB/s and\n"
	"the error, stored; a term the runs cannot pin keeps the ceilings' value.\n"
	"best --predict --world says which terms were fitted at its W.\n";

/* The calibration plan: gemm at world 1 over dtypes and tiles (unless the
 * backend has matrix_peak), then all_scatter at world 2 (when there are two
 * ranks and the backend has no link_bandwidth) for the link. */
static size_t calibration_plan(struct fgo_plan_item *items, long size, int ranks, int gpu,
			       int gemm, int link)
{
	static const int tiles[][3] = { { 64, 64, 32 }, { 128, 128, 64 } };
	size_t n = 0;
	for (int t = FGO_FP32; t <= FGO_BF16 && gemm; t++) {
		for (size_t j = 0; j < FGO_ARRAY_SIZE(tiles); j++) {
			struct fgo_config *c = &items[n].cfg;
			config_defaults(c);
			snprintf(c->algorithm, sizeof c->algorithm, "gemm");
			c->dtype = (enum fgo_dtype)t;
			c->world = 1;
			c->m = c->n = c->k = size;
			c->blk_m = tiles[j][0];
			c->blk_n = tiles[j][1];
			c->blk_k = tiles[j][2];
			items[n].valid = !config_validate(c, items[n].reason, sizeof items[n].reason);
			n++;
		}
	}
	if (link && ranks >= 2) {
		struct fgo_config *c = &items[n].cfg;
		config_defaults(c);
		c->dtype = gpu ? FGO_BF16 : FGO_FP32;
		c->world = 2;
		c->m = gpu ? 8192 : 2048;
		c->n = gpu ? 8192 : 2048;
		c->k = 64;
		c->blk_m = c->blk_n = 128;
		items[n].valid = !config_validate(c, items[n].reason, sizeof items[n].reason);
		n++;
	}
	return n;
}

struct collected {
	const struct fgo_plan *plan;
	struct fgo_ceilings best;
	int failures;
};

static int collect_started(void *arg, const size_t *items, size_t count)
{
	(void)arg, (void)items, (void)count;
	return 0;
}

static int collect_finished(void *arg, size_t item, const struct fgo_result *r)
{
	struct collected *c = arg;
	const struct fgo_config *cfg = &c->plan->items[item].cfg;
	if (r->status != FGO_STATUS_OK) {
		warning("calibration run %s %s failed: %s: %s", cfg->algorithm,
			dtype_name(cfg->dtype), status_name(r->status), r->reason);
		c->failures++;
		return 0;
	}
	if (cfg->world == 1 && r->tflops_per_rank > c->best.matrix_peak[cfg->dtype])
		c->best.matrix_peak[cfg->dtype] = r->tflops_per_rank;
	if (cfg->world == 2 && r->comm.n && r->comm.median > 0)
		c->best.link_bw = algo_find(cfg->algorithm)->link_bytes(cfg) /
				  (r->comm.median * 1e-3) / 1e9;
	return 0;
}

/* ---- the device path: backends that measure their own ceilings ---- */

/* matrix_peak is the vendor GEMM at this size (backend.h). */
#define DEVICE_GEMM_SIZE 8192
/* link_bandwidth writes half of each rank's heap into a peer from the
 * other half: 256 MiB per pair. */
#define LINK_HEAP_BYTES ((size_t)512 << 20)

/* What rank 0 gathers: per rank, then per pair of rank 0's node. */
struct device_results {
	int ranks;
	double *peak;    /* ranks x 3 TFLOP/s by enum fgo_dtype; 0: failed / not measured */
	double *memory;  /* ranks GB/s; 0: failed / not measured */
	int link_n;      /* GPUs in the link matrices; 0: not measured */
	int *link_rank;  /* link_n world ranks, the rows and columns */
	double *sm, *ce; /* link_n x link_n GB/s, row writes into column */
};

static void device_results_free(struct device_results *d)
{
	free(d->peak);
	free(d->memory);
	free(d->link_rank);
	free(d->sm);
	free(d->ce);
}

/* Collective over MPI_COMM_WORLD: each rank's matrix peak per dtype and
 * memory bandwidth, gathered into d on rank 0. Returns this rank's failures. */
static int device_per_rank(const struct fgo_backend *be, struct fgo_backend_ctx *ctx, int rank,
			   struct device_results *d)
{
	double mine[4] = { 0, 0, 0, 0 }, *all = NULL; /* fp32, fp16, bf16, memory */
	char err[FGO_REASON_MAX];
	int failures = 0;
	for (int t = FGO_FP32; t <= FGO_BF16 && be->matrix_peak; t++) {
		if (be->matrix_peak(ctx, (enum fgo_dtype)t, &mine[t], err, sizeof err) != FGO_OK) {
			warning("rank %d: matrix peak %s not measured: %s", rank,
				dtype_name((enum fgo_dtype)t), err);
			mine[t] = 0;
			failures++;
		}
	}
	if (be->memory_bandwidth && be->memory_bandwidth(ctx, &mine[3], err, sizeof err) != FGO_OK) {
		warning("rank %d: memory bandwidth not measured: %s", rank, err);
		mine[3] = 0;
		failures++;
	}
	int ok = 1;
	if (rank == 0) {
		all = calloc((size_t)d->ranks * 4, sizeof *all);
		d->peak = calloc((size_t)d->ranks * 3, sizeof *d->peak);
		d->memory = calloc((size_t)d->ranks, sizeof *d->memory);
		ok = all && d->peak && d->memory;
		if (!ok) {
			error("out of memory for the calibration tables");
			free(d->peak);
			free(d->memory);
			d->peak = d->memory = NULL;
			failures++;
		}
	}
	MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD); /* nobody gathers into nothing */
	if (ok)
		MPI_Gather(mine, 4, MPI_DOUBLE, all, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	for (int r = 0; ok && all && r < d->ranks; r++) {
		memcpy(&d->peak[r * 3], &all[r * 4], 3 * sizeof *all);
		d->memory[r] = all[r * 4 + 3];
	}
	free(all);
	return failures;
}

/* Collective over node: its ranks measure every ordered pair among them
 * on a dedicated heap; node rank 0 gathers the matrices into d (world rank
 * 0 prints its own node's). Returns this rank's failures. */
static int device_links(const struct fgo_backend *be, struct fgo_backend_ctx *ctx, MPI_Comm node,
			int rank, struct device_results *d)
{
	int nrank, n, ok, failures = 0, rc;
	double *sm, *ce;
	struct fgo_heap heap;
	char err[FGO_REASON_MAX] = "";

	MPI_Comm_rank(node, &nrank);
	MPI_Comm_size(node, &n);
	if (n < 2)
		return 0; /* one GPU on this node: no pair */
	sm = calloc((size_t)n, sizeof *sm);
	ce = calloc((size_t)n, sizeof *ce);
	ok = sm && ce;
	if (nrank == 0) {
		d->link_rank = calloc((size_t)n, sizeof *d->link_rank);
		d->sm = calloc((size_t)n * (size_t)n, sizeof *d->sm);
		d->ce = calloc((size_t)n * (size_t)n, sizeof *d->ce);
		ok = ok && d->link_rank && d->sm && d->ce;
	}
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, node);
	if (!ok) {
		error("rank %d: out of memory for the link tables", rank);
		failures = 1;
		goto done;
	}
	rc = be->heap_alloc(ctx, node, LINK_HEAP_BYTES, &heap, err, sizeof err);
	if (rc == FGO_OK) {
		rc = be->link_bandwidth(ctx, &heap, sm, ce, err, sizeof err);
		be->heap_free(ctx, &heap);
	}
	if (rc != FGO_OK) {
		warning("rank %d: link bandwidth not measured: %s", rank, err);
		failures = 1;
	}
	ok = rc == FGO_OK;
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, node);
	MPI_Gather(sm, n, MPI_DOUBLE, d->sm, n, MPI_DOUBLE, 0, node);
	MPI_Gather(ce, n, MPI_DOUBLE, d->ce, n, MPI_DOUBLE, 0, node);
	MPI_Gather(&rank, 1, MPI_INT, d->link_rank, 1, MPI_INT, 0, node);
	if (nrank == 0 && ok)
		d->link_n = n;
done:
	free(sm);
	free(ce);
	return failures;
}

/* The smallest of n values (stride apart), or 0 when one is not positive
 * (not measured: a ceiling from part of the devices would be a guess). */
static double slowest(const double *v, int n, int stride)
{
	double m = 0;
	for (int i = 0; i < n; i++) {
		if (!(v[i * stride] > 0))
			return 0;
		if (m == 0 || v[i * stride] < m)
			m = v[i * stride];
	}
	return m;
}

/* Rank 0: the ceilings to store from d (only those the device path measured). */
static void device_ceilings(const struct device_results *d, const struct fgo_backend *be,
			    struct fgo_ceilings *c, double *memory_bw)
{
	for (int t = FGO_FP32; t <= FGO_BF16 && be->matrix_peak && d->peak; t++)
		c->matrix_peak[t] = slowest(d->peak + t, d->ranks, 3);
	if (be->memory_bandwidth && d->memory)
		*memory_bw = slowest(d->memory, d->ranks, 1);
	if (be->link_bandwidth) {
		c->link_bw = 0;
		for (int i = 0; i < d->link_n; i++)
			for (int j = 0; j < d->link_n; j++) {
				double v = d->sm[i * d->link_n + j];
				if (i != j && (c->link_bw == 0 || v < c->link_bw))
					c->link_bw = v;
			}
	}
}

/* One cell: the value, or empty (printed "-") when not measured. */
static void add_value(struct fgo_table *t, double v)
{
	if (v > 0)
		table_add(t, "%.1f", v);
	else
		table_add(t, "%s", "");
}

static int print_link_matrix(const struct device_results *d, const double *m, const char *title)
{
	const char *headers[65];
	char names[64][16];
	int n = d->link_n < 64 ? d->link_n : 64, rc;
	headers[0] = "from\\to";
	for (int j = 0; j < n; j++) {
		snprintf(names[j], sizeof names[j], "%d", d->link_rank[j]);
		headers[j + 1] = names[j];
	}
	struct fgo_table *t = table_new(n + 1, headers);
	for (int i = 0; i < n; i++) {
		table_add(t, "%d", d->link_rank[i]);
		for (int j = 0; j < n; j++)
			add_value(t, i == j ? 0 : m[i * d->link_n + j]);
	}
	printf("\n%s\n", title);
	rc = table_print(t, FGO_FMT_TABLE, stdout);
	table_free(t);
	return rc;
}

/* Rank 0: the per-rank table and the link matrices on stdout. */
static int print_device_tables(const struct device_results *d, const struct fgo_backend *be)
{
	static const char *const headers[] = { "rank", "fp32 TFLOP/s", "fp16 TFLOP/s",
					       "bf16 TFLOP/s", "memory GB/s" };
	int rc = 0;
	if (d->peak && d->memory) {
		struct fgo_table *t = table_new(5, headers);
		for (int r = 0; r < d->ranks; r++) {
			table_add(t, "%d", r);
			for (int k = 0; k < 3; k++)
				add_value(t, d->peak[r * 3 + k]);
			add_value(t, d->memory[r]);
		}
		if (be->matrix_peak)
			printf("matrix peak per GPU: cuBLAS GemmEx %dx%dx%d, random inputs, fp32 accumulation"
			       " (fp32 inputs: CUBLAS_COMPUTE_32F, no TF32), best of 10\n",
			       DEVICE_GEMM_SIZE, DEVICE_GEMM_SIZE, DEVICE_GEMM_SIZE);
		if (be->memory_bandwidth)
			printf("memory bandwidth per GPU: copy kernel over 1 GiB, bytes read + written,"
			       " best of 10\n");
		rc = table_print(t, FGO_FMT_TABLE, stdout);
		table_free(t);
	}
	if (d->link_n > 1) {
		printf("\nlink bandwidth, GB/s one direction: the row's rank writes 256 MiB into the"
		       " column's,\none pair at a time while the others wait, best of 5\n");
		rc |= print_link_matrix(d, d->sm, "SM stores (a kernel, 4 CTAs per SM):");
		rc |= print_link_matrix(d, d->ce, "copy engine (hipMemcpyAsync into the peer's memory):");
		printf("\n");
	}
	return rc;
}

/* Per-pair link rows ("sm 0->1", "ce 0->1", world ranks) beside the
 * machine-wide link_bw the plots use. */
static int store_link_pairs(struct fgo_store *st, const char *host, const char *backend,
			    const struct device_results *d, char *err, size_t len)
{
	int rc = FGO_OK;
	for (int i = 0; d && i < d->link_n && rc == FGO_OK; i++)
		for (int j = 0; j < d->link_n && rc == FGO_OK; j++) {
			char detail[64];
			double sm = d->sm[i * d->link_n + j], ce = d->ce[i * d->link_n + j];
			if (i == j)
				continue;
			snprintf(detail, sizeof detail, "sm %d->%d", d->link_rank[i], d->link_rank[j]);
			if (sm > 0)
				rc = store_ceiling_put_detail(st, host, backend, "link_bw", "", detail, sm,
							      "GB/s", err, len);
			snprintf(detail, sizeof detail, "ce %d->%d", d->link_rank[i], d->link_rank[j]);
			if (rc == FGO_OK && ce > 0)
				rc = store_ceiling_put_detail(st, host, backend, "link_bw", "", detail, ce,
							      "GB/s", err, len);
		}
	return rc;
}

/* Everything measured, in one transaction: the ceilings, the link pairs
 * and the read floor are stored together or not at all. */
static int store_results(const char *db, const char *backend, const struct fgo_ceilings *c,
			 double memory_bw, const struct device_results *d,
			 const struct floor_results *fl, const struct calibrate_curves *cv,
			 const struct calibrate_egress *eg, const char *devices)
{
	char host[128] = "unknown", err[512];
	gethostname(host, sizeof host - 1);
	struct fgo_store *st;
	if (store_open(db, FGO_STORE_WRITE, &st, err, sizeof err)) {
		error("%s", err);
		return FGO_EUSAGE;
	}
	int rc = store_batch_begin(st, err, sizeof err);
	printf("%-12s %-6s %12s  %s\n", "what", "dtype", "value", "unit");
	for (int t = FGO_FP32; t <= FGO_BF16 && rc == FGO_OK; t++) {
		if (c->matrix_peak[t] <= 0)
			continue;
		rc = store_ceiling_put(st, host, backend, "matrix_peak", dtype_name((enum fgo_dtype)t),
				       c->matrix_peak[t], "TFLOP/s", err, sizeof err);
		printf("%-12s %-6s %12.4g  TFLOP/s per rank\n", "matrix_peak",
		       dtype_name((enum fgo_dtype)t), c->matrix_peak[t]);
	}
	if (rc == FGO_OK && memory_bw > 0) {
		rc = store_ceiling_put(st, host, backend, "memory_bw", "", memory_bw, "GB/s", err,
				       sizeof err);
		printf("%-12s %-6s %12.4g  GB/s\n", "memory_bw", "-", memory_bw);
	}
	if (rc == FGO_OK && c->link_bw > 0) {
		rc = store_ceiling_put(st, host, backend, "link_bw", "", c->link_bw, "GB/s", err,
				       sizeof err);
		printf("%-12s %-6s %12.4g  GB/s rank to rank\n", "link_bw", "-", c->link_bw);
	}
	if (rc == FGO_OK)
		rc = store_link_pairs(st, host, backend, d, err, sizeof err);
	if (rc == FGO_OK && eg->n > 0) {
		rc = calibrate_egress_store(st, host, backend, eg, err, sizeof err);
		printf("%-12s %-6s %12.4g  GB/s a rank to all peers at once, W=%d%s\n", "link_bw",
		       "egress", eg->gbps[eg->n - 1], eg->world[eg->n - 1],
		       eg->n > 1 ? " (and each W below)" : "");
	}
	if (rc == FGO_OK && fl->n > 0) {
		double b[FLOOR_POINTS_MAX];
		for (int i = 0; i < fl->n; i++)
			b[i] = (double)fl->bytes[i];
		rc = store_floor_put(st, host, backend, devices, fl->method, fl->reps, b, fl->seconds,
				     fl->n, err, sizeof err);
		printf("%-12s %-6s %12d  points, %g to %g MiB\n", "read_floor", "-", fl->n,
		       (double)fl->bytes[0] / (1 << 20), (double)fl->bytes[fl->n - 1] / (1 << 20));
	}
	if (rc == FGO_OK && cv->n > 0) {
		rc = calibrate_curves_store(st, host, backend, devices, cv, err, sizeof err);
		int lo = cv->c[0].world, hi = cv->c[cv->n - 1].world;
		if (hi > lo)
			printf("%-12s %-6s %12d  curves, W=%d to %d\n", "coll_curve", "-", cv->n, lo, hi);
		else
			printf("%-12s %-6s %12d  curves, W=%d\n", "coll_curve", "-", cv->n, lo);
	}
	if (rc == FGO_OK)
		rc = store_batch_commit(st, err, sizeof err);
	if (rc != FGO_OK)
		error("%s", err);
	else
		note("ceilings%s%s of %s (%s backend) stored in %s",
		     fl->n > 0 ? (cv->n > 0 ? ", read floor" : " and read floor") : "",
		     cv->n > 0 ? " and collective curves" : "", host, backend, db);
	store_close(st);
	return rc;
}

/* --curve-max SIZE: 4 KiB to 16 GiB. */
static int curve_max_parse(const char *text, size_t *out)
{
	int rc = cmd_parse_bytes("calibrate", "--curve-max", text, out);
	if (rc == FGO_OK && (*out < ((size_t)4 << 10) || *out > ((size_t)16 << 30)))
		rc = cmd_usage_error("calibrate", cmd_calibrate_usage,
				     "--curve-max %s is out of range (4K to 16G)", text);
	return rc;
}

int cmd_calibrate(int argc, char **argv)
{
	int rank, ranks;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &ranks);
	if (cmd_wants_help(argc, argv))
		return rank == 0 ? cmd_help(cmd_calibrate_usage) : 0;
	fgo_mute = rank != 0;
	const char *db = NULL, *backend = "auto", *machine = NULL;
	long size = 0, floor_max = 0;
	int no_floor = 0, fit_only = 0, no_curve = 0;
	size_t curve_max = 0;
	double link_bw = 0;
	int rc = FGO_OK;
	for (int i = 1; i < argc && rc == FGO_OK; i++) {
		if (!strcmp(argv[i], "--db") && i + 1 < argc)
			db = argv[++i];
		else if (!strcmp(argv[i], "--backend") && i + 1 < argc)
			backend = argv[++i];
		else if (!strcmp(argv[i], "--size") && i + 1 < argc)
			rc = cmd_parse_long("calibrate", "--size", argv[++i], 64, 65536, &size);
		else if (!strcmp(argv[i], "--floor-max") && i + 1 < argc)
			rc = cmd_parse_long("calibrate", "--floor-max", argv[++i], 1, 65536, &floor_max);
		else if (!strcmp(argv[i], "--no-floor"))
			no_floor = 1;
		else if (!strcmp(argv[i], "--no-curve"))
			no_curve = 1;
		else if (!strcmp(argv[i], "--curve-max") && i + 1 < argc)
			rc = curve_max_parse(argv[++i], &curve_max);
		else if (!strcmp(argv[i], "--fit"))
			fit_only = 1;
		else if (!strcmp(argv[i], "--machine") && i + 1 < argc)
			machine = argv[++i];
		else if (!strcmp(argv[i], "--link-bw") && i + 1 < argc)
			rc = cmd_parse_double("calibrate", "--link-bw", argv[++i], 0.001, 1e6, &link_bw);
		else
			rc = cmd_usage_error("calibrate", cmd_calibrate_usage, "unknown option \"%s\"",
					     argv[i]);
	}
	if (rc == FGO_OK && machine && !fit_only)
		rc = cmd_usage_error("calibrate", cmd_calibrate_usage,
				     "--machine names the runs to fit: it goes with --fit only");
	const struct fgo_backend *be = rc == FGO_OK ? backend_find(backend) : NULL;
	if (rc == FGO_OK && !be && fit_only && machine && strcmp(backend, "auto") != 0) {
		/* another machine's runs: the backend is only their key here */
	} else if (rc == FGO_OK && !be) {
		error("backend \"%s\" is not available here (cpu, gpu or auto)", backend);
		rc = FGO_EUSAGE;
	}
	fgo_mute = 0;
	if (rc != FGO_OK)
		return rc;
	if (fit_only) {
		if (rank == 0)
			rc = calibrate_fit_models(cmd_db_path(db), be ? be->name : backend, machine, link_bw, "fit");
		MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
		return rc;
	}

	int gpu = strcmp(be->name, "cpu") != 0;
	MPI_Comm node;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	struct fgo_backend_ctx *ctx = NULL;
	char err[FGO_REASON_MAX] = "";
	rc = be->init(&ctx, node, err, sizeof err);
	int worst;
	MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (worst != FGO_OK) {
		if (rc != FGO_OK)
			error("backend %s: %s", be->name, err);
		MPI_Comm_free(&node);
		return FGO_EUSAGE;
	}

	/* what the backend measures itself is left out of the kernel plan */
	int dev_peak = be->matrix_peak != NULL, dev_link = be->link_bandwidth != NULL;
	if (rank == 0 && size && dev_peak)
		warning("--size is for fgobench's own GEMM; the %s backend's matrix peak is its vendor"
			" GEMM at %d^3", be->name, DEVICE_GEMM_SIZE);
	struct fgo_plan_item items[8];
	memset(items, 0, sizeof items);
	int two = ranks >= 2 && runner_node_ranks(MPI_COMM_WORLD) >= 2;
	struct fgo_plan plan = {
		.items = items, .iterations = 10, .warmup = 2, .validate = 0,
		.count = calibration_plan(items, size ? size : gpu ? 8192 : 512, two ? 2 : 1, gpu,
					  !dev_peak, !dev_link),
		.max_world = two ? 2 : 1,
	};
	unsigned char todo[8];
	for (size_t i = 0; i < plan.count; i++)
		todo[i] = (unsigned char)items[i].valid;
	struct collected got = { .plan = &plan };
	struct fgo_runner_sink sink = { collect_started, collect_finished, &got };
	struct fgo_runner_opts o = {
		.backend = be, .ctx = ctx, .iterations = plan.iterations, .warmup = plan.warmup,
		.validate = 0, .benchmark = 1, .timeout_s = 300, .heap_limit = (size_t)8 << 30,
	};
	if (rank == 0 && !two)
		note("one rank per node: link bandwidth not measured (run under mpirun -np 2)");
	rc = plan.count ? runner_run(MPI_COMM_WORLD, &plan, todo, &o, &sink) : FGO_OK;

	double memory_bw = 0;
	struct device_results dev = { .ranks = ranks };
	if (rc == FGO_OK && gpu) {
		/* one device per rank: every rank measures its own, all at once */
		int mine = device_per_rank(be, ctx, rank, &dev), failures = 0;
		if (dev_link)
			mine += device_links(be, ctx, node, rank, &dev);
		MPI_Allreduce(&mine, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		got.failures += failures;
		if (rank == 0) {
			if (dev.link_n > 1 && dev.link_n < ranks)
				note("links are measured within each node; shown and stored: rank 0's node"
				     " (%d of %d ranks)", dev.link_n, ranks);
			if (print_device_tables(&dev, be) != 0)
				warning("writing the tables to stdout failed");
			device_ceilings(&dev, be, &got.best, &memory_bw);
			printf("ceilings: the slowest rank; link_bw the slowest pair's SM stores\n");
		}
	} else if (rc == FGO_OK && rank == 0 && be->memory_bandwidth &&
		   be->memory_bandwidth(ctx, &memory_bw, err, sizeof err) != FGO_OK) {
		warning("memory bandwidth not measured: %s", err);
		memory_bw = 0;
	}
	struct floor_results fl = { .n = 0 };
	if (rc == FGO_OK && be->read_floor && !no_floor) {
		int failed = calibrate_floor_measure(be, ctx, rank, gpu,
						     floor_max ? floor_max : gpu ? 1024 : 256, &fl);
		if (rank == 0) {
			got.failures += failed;
			if (fl.n > 0)
				calibrate_floor_print(&fl, memory_bw);
		}
	}
	static struct calibrate_curves curves; /* large: off the stack */
	memset(&curves, 0, sizeof curves);
	if (rc == FGO_OK && !no_curve && ranks > 1) {
		int failed = calibrate_curves_measure(be, ctx, node, gpu, curve_max, &curves);
		if (rank == 0) {
			got.failures += failed;
			calibrate_curves_print(&curves);
		}
	}
	static struct calibrate_egress egress;
	if (rc == FGO_OK && ranks > 1) {
		int failed = calibrate_egress_measure(be, ctx, node, gpu, &egress);
		if (rank == 0) {
			got.failures += failed;
			egress.pair_gbps = got.best.link_bw;
			calibrate_egress_print(&egress);
		}
	}
	if (rc == FGO_OK && rank == 0) {
		struct fgo_env env;
		memset(&env, 0, sizeof env);
		be->describe(ctx, &env);
		rc = store_results(cmd_db_path(db), be->name, &got.best, memory_bw, &dev, &fl, &curves,
				   &egress, env.devices);
		if (rc == FGO_OK)
			rc = calibrate_fit_models(cmd_db_path(db), be->name, NULL, link_bw, "calibrate");
	}
	device_results_free(&dev);
	if (rc == FGO_OK && rank == 0 && got.failures)
		rc = FGO_EFAIL;
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	be->finish(ctx);
	MPI_Comm_free(&node);
	return rc;
}
