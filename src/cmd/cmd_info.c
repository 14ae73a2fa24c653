/* cmd_info.c: `fgobench info`: version, backends, devices, where the tile
 * of a problem that gives none comes from on this machine, algorithms and
 * the store, so a bug report can start with one paste. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "algo.h"
#include "algos/kit.h"
#include "backend/backend.h"
#include "cmd/cmd.h"
#include "fgo.h"
#include "gpu/gpu_shape.h"
#include "model.h"
#include "run/session.h"
#include "spec/defaults.h"
#include "store/store.h"
#include "views/table.h"
#include "views/views.h"

const char cmd_info_usage[] =
	"usage: fgobench info [--db F]\n"
	"\n"
	"Prints the fgobench version and git revision, the backends built in and\n"
	"which one `auto` picks here, this node's devices and library versions,\n"
	"where a problem that gives no tile gets one here (the defaults table,\n"
	"measured on H100s, or `--config auto` with this host's cost model fit in\n"
	"the store, and whether one exists), every algorithm with its sharding,\n"
	"and the store's schema version, in lines of at most 120 columns.\n"
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

/* Describes be; *out gets its environment when it started (else unchanged). */
static void describe_backend(const struct fgo_backend *be, MPI_Comm node, struct fgo_env *out)
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
	*out = env;
}

/* The GPU the defaults table's rows were measured on (src/spec/defaults.c
 * names the runs behind each row). */
static const char table_gpu[] = "H100";

/* Where the tile of a bf16 or fp16 problem that gives none comes from on
 * backend (env: its devices and arch): the defaults table's rows for the
 * core, or the core's own tile where it has none; what `--config auto`
 * would rank with (this host's fit of the core in the store at db, or
 * none); and which of them suits this machine. */
static void describe_tiles(const char *backend, const struct fgo_env *env, const char *db)
{
	struct fgo_config c;
	struct model_machine machine;
	struct model_fit fit;
	struct fgo_store *st = NULL;
	char host[128] = "", at[32] = "", err[512], text[1024], fit_text[320];
	int found = 0;
	size_t rows = 0;
	memset(&fit, 0, sizeof fit);
	config_defaults(&c);
	snprintf(c.algorithm, sizeof c.algorithm, "gemm");
	c.dtype = FGO_BF16;
	c.world = 1;
	kit_fit_core(&c, env->arch);
	const char *table_core = defaults_core(&c, env->arch), *fit_core = model_core(&c);
	for (size_t r = 0; r < defaults_table_rows; r++)
		rows += !strcmp(defaults_table[r].core, table_core);
	gethostname(host, sizeof host - 1);
	if (access(db, F_OK) == 0 && store_open(db, FGO_STORE_READ, &st, err, sizeof err) == FGO_OK) {
		if (store_model_get(st, host, backend, fit_core, &machine, &fit, at, &found, err,
				    sizeof err) != FGO_OK)
			found = 0;
		store_close(st);
	}
	if (found)
		snprintf(fit_text, sizeof fit_text, "this host's %s fit (%s, %zu runs, median error"
			 " %.1f%%) ranks as `best --predict` where the store has runs near the shape, the"
			 " default elsewhere", fit_core, at, fit.runs, 100 * fit.median_rel_err);
	else
		snprintf(fit_text, sizeof fit_text, "no %s fit of this host (%s, %s backend) in %s yet, so"
			 " it exits 2: `fgobench calibrate` (or `calibrate --fit` after a sweep) makes one",
			 fit_core, host, backend, db);
	const int table_machine = strstr(env->devices, table_gpu) != NULL;
	const char *advice = !rows ? (found ? "--config auto ranks for this machine"
					    : "the core's tile until this host has a fit")
			     : table_machine ? "the defaults table, measured on this kind of GPU"
			     : found	      ? "--config auto: the table was measured on other GPUs"
					      : "calibrate, then --config auto: the table was measured on"
						" other GPUs";
	if (rows)
		snprintf(text, sizeof text, "no tile given: the defaults table (%zu %s rows, measured on"
			 " %ss; this machine: %s); --config auto: %s. Suits this machine: %s",
			 rows, table_core, table_gpu, env->devices, fit_text, advice);
	else
		snprintf(text, sizeof text, "no tile given: the %s core's own default tile (the defaults"
			 " table has no %s rows); --config auto: %s. Suits this machine: %s",
			 table_core, table_core, fit_text, advice);
	view_print_wrapped(stdout, "tiles         ", text, 14, FGO_TABLE_COLUMNS);
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
	struct fgo_env env_cpu, env_gpu;
	memset(&env_cpu, 0, sizeof env_cpu);
	memset(&env_gpu, 0, sizeof env_gpu);
	describe_backend(&fgo_backend_cpu, node, &env_cpu);
	if (gpu)
		describe_backend(gpu, node, &env_gpu);
	else
		printf("backend gpu   not built in (build with `make GPU=cuda` or `make GPU=hip`)\n");
	printf("auto picks    %s\n", pick ? pick->name : "none");
	MPI_Comm_free(&node);
	const struct fgo_env *env = pick == &fgo_backend_cpu ? &env_cpu : &env_gpu;
	if (pick && env->arch[0]) /* else it did not start, and said so */
		describe_tiles(pick->name, env, cmd_db_path(db));

	printf("\nalgorithms:\n");
	for (int i = 0; fgo_algos[i]; i++) {
		char lead[64];
		snprintf(lead, sizeof lead, "  %-22s ", fgo_algos[i]->name);
		view_print_wrapped(stdout, lead, fgo_algos[i]->summary, 25, FGO_TABLE_COLUMNS);
	}
	char lead[64];
	snprintf(lead, sizeof lead, "  %-22s ", ALGO_CHOICE);
	view_print_wrapped(stdout, lead, "run and sweep pick all_reduce_one_shot or all_reduce_two_shot"
			   " per problem: the store's runs of both, best --predict's ranking, else"
			   " C's size, W and K/W (`best --predict --algorithm all_reduce` says which)",
			   25, FGO_TABLE_COLUMNS);

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
