/* cmd_calibrate.c: `fgobench calibrate`: measures this machine's ceilings
 * with the backend's own kernels (matrix peak per dtype from the plain gemm
 * family, rank-to-rank bandwidth from all_scatter's communication alone,
 * memory bandwidth from the backend) and stores them for sol and the plots. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algo.h"
#include "backend.h"
#include "cmd.h"
#include "fgo.h"
#include "runner.h"
#include "store.h"

const char cmd_calibrate_usage[] =
	"usage: fgobench calibrate [--backend cpu|gpu|auto] [--size N] [--db F]\n"
	"\n"
	"Measures and stores this machine's ceilings for the backend: the matrix\n"
	"peak per dtype (best of a few tiles of an NxNxN GEMM on every rank at once,\n"
	"TFLOP/s per rank), the memory bandwidth of one device, and the rank-to-rank\n"
	"bandwidth (all_scatter with its GEMM compiled out, needs 2 ranks). sol and\n"
	"the roofline plots use the newest values for this host and backend.\n"
	"\n"
	"  --backend B  cpu, gpu or auto (default auto)\n"
	"  --size N     GEMM size (default 512 on cpu, 8192 on gpu)\n"
	"  --db F       the store (default $FGOBENCH_DB or ./fgobench.db)\n";

/* The calibration plan: gemm at world 1 over dtypes and tiles, then
 * all_scatter at world 2 (when there are two ranks) for the link. */
static size_t calibration_plan(struct fgo_plan_item *items, long size, int ranks, int gpu)
{
	static const int tiles[][3] = { { 64, 64, 32 }, { 128, 128, 64 } };
	size_t n = 0;
	for (int t = FGO_FP32; t <= FGO_BF16; t++) {
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
	if (ranks >= 2) {
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

static int store_results(const char *db, const char *backend, const struct fgo_ceilings *c,
			 double memory_bw)
{
	char host[128] = "unknown", err[512];
	gethostname(host, sizeof host - 1);
	struct fgo_store *st;
	if (store_open(db, FGO_STORE_WRITE, &st, err, sizeof err)) {
		error("%s", err);
		return FGO_EUSAGE;
	}
	int rc = FGO_OK;
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
	if (rc != FGO_OK)
		error("%s", err);
	else
		note("ceilings of %s (%s backend) stored in %s", host, backend, db);
	store_close(st);
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
	const char *db = NULL, *backend = "auto";
	long size = 0;
	int rc = FGO_OK;
	for (int i = 1; i < argc && rc == FGO_OK; i++) {
		if (!strcmp(argv[i], "--db") && i + 1 < argc)
			db = argv[++i];
		else if (!strcmp(argv[i], "--backend") && i + 1 < argc)
			backend = argv[++i];
		else if (!strcmp(argv[i], "--size") && i + 1 < argc)
			rc = cmd_parse_long("calibrate", "--size", argv[++i], 64, 65536, &size);
		else
			rc = cmd_usage_error("calibrate", cmd_calibrate_usage, "unknown option \"%s\"",
					     argv[i]);
	}
	const struct fgo_backend *be = rc == FGO_OK ? backend_find(backend) : NULL;
	if (rc == FGO_OK && !be) {
		error("backend \"%s\" is not available here (cpu, gpu or auto)", backend);
		rc = FGO_EUSAGE;
	}
	fgo_mute = 0;
	if (rc != FGO_OK)
		return rc;

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

	struct fgo_plan_item items[8];
	memset(items, 0, sizeof items);
	int two = ranks >= 2 && runner_node_ranks(MPI_COMM_WORLD) >= 2;
	struct fgo_plan plan = {
		.items = items, .iterations = 10, .warmup = 2, .validate = 0,
		.count = calibration_plan(items, size ? size : gpu ? 8192 : 512, two ? 2 : 1, gpu),
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
	rc = runner_run(MPI_COMM_WORLD, &plan, todo, &o, &sink);

	double memory_bw = 0;
	if (rc == FGO_OK && rank == 0 && be->memory_bandwidth &&
	    be->memory_bandwidth(ctx, &memory_bw, err, sizeof err) != FGO_OK) {
		warning("memory bandwidth not measured: %s", err);
		memory_bw = 0;
	}
	if (rc == FGO_OK && rank == 0)
		rc = store_results(cmd_db_path(db), be->name, &got.best, memory_bw);
	if (rc == FGO_OK && rank == 0 && got.failures)
		rc = FGO_EFAIL;
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	be->finish(ctx);
	MPI_Comm_free(&node);
	return rc;
}
