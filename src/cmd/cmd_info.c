/* cmd_info.c: `fgobench info`: version, backends, devices, algorithms and
 * the store, so a bug report can start with one paste. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "algo.h"
#include "backend/backend.h"
#include "cmd/cmd.h"
#include "fgo.h"
#include "gpu/gpu_shape.h"
#include "run/session.h"
#include "store/store.h"
#include "views/table.h"
#include "views/views.h"

const char cmd_info_usage[] =
	"usage: fgobench info [--db F]\n"
	"\n"
	"Prints the fgobench version and git revision, the backends built in and\n"
	"which one `auto` picks here, this node's devices and library versions,\n"
	"every algorithm with its sharding, and the store's schema version, in\n"
	"lines of at most 120 columns.\n"
	"\n"
	"  --db F   the store to describe (default $FGOBENCH_DB or ./fgobench.db)\n";

/* Which GEMM core each dtype runs on, for a backend and architecture
 * (src/gpu/gpu_shape.c decides; this says it in words). */
static const char *cores_of(const char *backend, const char *arch)
{
	if (strcmp(backend, "gpu") != 0)
		return "fp16, bf16, fp32: the CPU tile GEMM (fp32 accumulation); mma picks nothing here";
	if (!strncmp(arch, "sm_90", 5))
		return "fp16, bf16: wgmma + TMA (mma=wgmma, the default here: the fastest) or mma.sync"
		       " (mma=16, when asked for); fp32: the SIMT core";
	if (!strncmp(arch, "sm_", 3))
		return "fp16, bf16: mma.sync (mma=16); fp32: the SIMT core";
	if (gpu_arch_mfma(arch))
		return "fp16, bf16, fp32: the MFMA core (mma=16: v_mfma_f32_16x16x16, the default;"
		       " mma=32: v_mfma_f32_32x32x8; fp32 on 16x16x4 / 32x32x2; compiled and"
		       " layout-checked without AMD hardware, not yet run on it)";
	return "fp16, bf16, fp32: the SIMT core (no matrix cores fgobench uses on this target)";
}

static void describe_backend(const struct fgo_backend *be, MPI_Comm node)
{
	struct fgo_backend_ctx *ctx = NULL;
	char err[FGO_REASON_MAX] = "";
	if (!be->available()) {
		printf("backend %-4s  not available on this machine\n", be->name);
		return;
	}
	if (be->init(&ctx, node, err, sizeof err) != FGO_OK) {
		char lead[64];
		snprintf(lead, sizeof lead, "backend %-4s  failed to start: ", be->name);
		view_print_wrapped(stdout, lead, err, 14, FGO_TABLE_COLUMNS);
		return;
	}
	struct fgo_env env;
	memset(&env, 0, sizeof env);
	be->describe(ctx, &env);
	char lead[32], text[1024];
	snprintf(lead, sizeof lead, "backend %-4s  ", be->name);
	view_print_wrapped(stdout, lead, env.devices, 14, FGO_TABLE_COLUMNS);
	snprintf(text, sizeof text, "arch %s%s%s, runtime %s", env.arch,
		 env.driver[0] ? ", driver " : "", env.driver, env.runtime);
	view_print_wrapped(stdout, "              ", text, 14, FGO_TABLE_COLUMNS);
	snprintf(text, sizeof text, "cores: %s", cores_of(be->name, env.arch));
	view_print_wrapped(stdout, "              ", text, 21, FGO_TABLE_COLUMNS);
	be->finish(ctx);
}

int cmd_info(int argc, char **argv)
{
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (cmd_wants_help(argc, argv))
		return rank == 0 ? cmd_help(cmd_info_usage) : 0;
	const char *db = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--db") && i + 1 < argc)
			db = argv[++i];
		else
			return rank == 0 ? cmd_usage_error("info", cmd_info_usage,
							   "unknown option \"%s\"", argv[i])
					 : FGO_EUSAGE;
	}
	MPI_Comm node;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	if (rank != 0) {
		MPI_Comm_free(&node);
		return FGO_OK;
	}
	printf("fgobench %s (git %s)\n", FGO_VERSION, fgo_git_revision);
	const struct fgo_backend *gpu = backend_find("gpu");
	const struct fgo_backend *pick = backend_find("auto");
	describe_backend(&fgo_backend_cpu, node);
	if (gpu)
		describe_backend(gpu, node);
	else
		printf("backend gpu   not built in (build with `make GPU=cuda` or `make GPU=hip`)\n");
	printf("auto picks    %s\n", pick ? pick->name : "none");
	MPI_Comm_free(&node);

	printf("\nalgorithms:\n");
	for (int i = 0; fgo_algos[i]; i++) {
		char lead[64];
		snprintf(lead, sizeof lead, "  %-22s ", fgo_algos[i]->name);
		view_print_wrapped(stdout, lead, fgo_algos[i]->summary, 25, FGO_TABLE_COLUMNS);
	}

	const char *path = cmd_db_path(db);
	struct fgo_store *st;
	char err[512];
	printf("\nstore: %s", path);
	if (store_open(path, FGO_STORE_READ, &st, err, sizeof err) == FGO_OK) {
		printf(" (schema version %d)\n", FGO_SCHEMA_VERSION);
		store_close(st);
	} else {
		printf(" (%s)\n", strstr(err, ": ") ? strstr(err, ": ") + 2 : err);
	}
	return FGO_OK;
}
