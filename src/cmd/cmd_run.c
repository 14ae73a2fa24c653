/* cmd_run.c: `fgobench run`: one configuration from the flags the field's
 * scripts use, validated and timed like a sweep item, stored, and shown. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "algos/kit.h"
#include "cmd/cmd.h"
#include "fgo.h"
#include "run/session.h"
#include "tune/auto_pick.h"
#include "tune/shot_pick.h"
#include "sink.h"

const char cmd_run_usage[] =
	"usage: fgobench run [-m M] [-n N] [-k K] [--algorithm A] [--datatype D]\n"
	"       [--world W] [--BLK_M B] [--BLK_N B] [--BLK_K B] [--num_stages S]\n"
	"       [--num_warps W] [--mma X] [--gsize_m G] [--gemm_sms S] [--comm_sms S]\n"
	"       [--comm_blk_m B] [--comm_blk_n B] [--validate] [--benchmark]\n"
	"       [--iterations N] [--warmup N] [--backend B] [--tag T] [--db F]\n"
	"       [--trace FILE] [--trace-events N] [--wide] [--config table|auto]\n"
	"       [--auto-trials N]\n"
	"\n"
	"Runs one configuration under MPI (mpirun -np W), stores it as a sweep of one\n"
	"run (tag \"run\" unless --tag) and prints its result: the configuration,\n"
	"status, times, ratios and validation, in 120 columns, then the line that\n"
	"reproduces it (`fgobench show RUN` has every field; --wide prints them).\n"
	"--validate checks the output against the reference, --benchmark times it;\n"
	"with neither, both are done. Unset tunables take the defaults below; with\n"
	"no tile given (BLK_M, BLK_N, BLK_K, stages, warps) the tile, split and\n"
	"gather chunk come from the core's defaults table, or with --config auto\n"
	"from this machine's cost model; the run says which. Auto times the first\n"
	"three of its ranking and the table's pick, stores each and shows the fastest\n"
	"(--auto-trials 1: the ranking's first alone).\n"
	"--trace FILE runs it once more with the per-CTA trace compiled in and writes\n"
	"the timeline as Chrome/Perfetto trace-event JSON (`fgobench plot timeline\n"
	"FILE` draws it); its summary is stored with the run and `show` prints it.\n"
	"\n";

static int parse_run(int argc, char **argv, struct fgo_config *cfg, struct fgo_session *s,
		     const char **db, int *iterations, int *warmup, int *wide, int *pick, int *trials)
{
	struct fgo_config_mask set;
	memset(&set, 0, sizeof set);
	int validate = 0, benchmark = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int more = i + 1 < argc;
		int used = cmd_config_flag("run", argc, argv, &i, cfg, &set);
		if (used == FGO_EUSAGE)
			return FGO_EUSAGE;
		if (used)
			continue;
		int rc = FGO_OK;
		if (!strcmp(a, "--validate"))
			validate = 1;
		else if (!strcmp(a, "--benchmark"))
			benchmark = 1;
		else if (!strcmp(a, "--wide"))
			*wide = 1;
		else if (!strcmp(a, "--tag") && more)
			s->tag = argv[++i];
		else if (!strcmp(a, "--db") && more)
			*db = argv[++i];
		else if (!strcmp(a, "--backend") && more)
			s->backend = argv[++i];
		else if (!strcmp(a, "--trace") && more)
			s->trace_file = argv[++i];
		else if (!strcmp(a, "--config") && more)
			rc = cmd_parse_pick("run", argv[++i], pick);
		else if (!strcmp(a, "--auto-trials") && more)
			rc = cmd_parse_int("run", a, argv[++i], 1, FGO_AUTO_TRIALS_MAX, trials);
		else if (!strcmp(a, "--trace-events") && more)
			rc = cmd_parse_int("run", a, argv[++i], 16, 1 << 20, &s->trace_events);
		else if (!strcmp(a, "--iterations") && more)
			rc = cmd_parse_int("run", a, argv[++i], 1, 100000, iterations);
		else if (!strcmp(a, "--warmup") && more)
			rc = cmd_parse_int("run", a, argv[++i], 0, 100000, warmup);
		else if (!strcmp(a, "--timeout") && more)
			rc = cmd_parse_double("run", a, argv[++i], 0.001, 1e6, &s->timeout_s);
		else
			rc = cmd_usage_error("run", cmd_run_usage, "%s \"%s\"",
					     a[0] == '-' ? (more || strncmp(a, "--", 2) ? "unknown option"
											 : "missing value for")
							 : "unexpected argument",
					     a);
		if (rc != FGO_OK)
			return rc;
	}
	s->validate = validate || !benchmark;
	s->benchmark = benchmark || !validate;
	if (s->trace_file) {
		char err[FGO_REASON_MAX];
		if (sink_check_file("--trace", s->trace_file, err, sizeof err) != FGO_OK)
			return cmd_usage_error("run", cmd_run_usage, "%s", err);
	}
	return FGO_OK;
}

/* --algorithm all_reduce: the configuration is one-shot's until the
 * session picks the shot (tune/shot_pick.h); 1 when it was asked for. */
static int take_choice(struct fgo_config *cfg)
{
	if (strcmp(cfg->algorithm, ALGO_CHOICE))
		return 0;
	snprintf(cfg->algorithm, sizeof cfg->algorithm, "%s", ALGO_CHOICE_FIRST);
	return 1;
}

int cmd_run_ranks(int argc, char **argv, int *np)
{
	struct fgo_config cfg;
	struct fgo_session s;
	const char *db = NULL;
	int iterations = 10, warmup = 2, wide = 0, pick = FGO_PICK_TABLE, trials = 0;
	char why[FGO_REASON_MAX];
	*np = 0;
	if (cmd_wants_help(argc, argv))
		return FGO_OK;
	memset(&s, 0, sizeof s);
	config_defaults(&cfg);
	int rc = parse_run(argc, argv, &cfg, &s, &db, &iterations, &warmup, &wide, &pick, &trials);
	if (rc != FGO_OK)
		return rc;
	take_choice(&cfg);
	kit_fit_tile(&cfg);
	if (config_validate_planned(&cfg, why, sizeof why)) {
		error("invalid configuration: %s", why);
		return FGO_EUSAGE;
	}
	*np = cfg.world;
	return FGO_OK;
}

int cmd_run(int argc, char **argv)
{
	int rank, ranks;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &ranks);
	if (cmd_wants_help(argc, argv)) {
		if (rank == 0) {
			cmd_help(cmd_run_usage);
			fputs(cmd_config_flags_help, stdout);
			fputs("  --validate         check the output against the reference\n"
			      "  --benchmark        time fused, GEMM only, comm only and baseline\n"
			      "  --iterations N     timed launches per measurement (10)\n"
			      "  --warmup N         untimed launches before each measurement (2)\n"
			      "  --backend B        cpu, gpu or auto\n"
			      "  --tag T            tag of the stored sweep (default run)\n"
			      "  --trace FILE       trace the run per CTA into FILE (trace-event JSON)\n"
			      "  --trace-events N   events kept per CTA when tracing (default: enough\n"
			      "                     for the configuration on the CPU, 4096 on a GPU)\n"
			      "  --wide             print every stored field, one line each (as show --wide)\n"
			      "  --config C         the tile where none is given: table (the core's\n"
			      "                     defaults table, the default) or auto (this\n"
			      "                     machine's cost model; exit 2 without a fit)\n"
			      "  --auto-trials N    config auto times N (1-16, default 6) of its ranking\n"
			      "                     (the first half, then other tiles) and the table's\n"
			      "                     pick at the shape and shows the fastest; 1: the\n"
			      "                     ranking's first alone\n"
			      "  --db F             the store (default $FGOBENCH_DB or ./fgobench.db)\n",
			      stdout);
		}
		return cmd_finish_stdout(0);
	}

	fgo_mute = rank != 0;
	struct fgo_config cfg;
	config_defaults(&cfg);
	struct fgo_session s = {
		.backend = "auto", .timeout_s = 120, .heap_limit = 0, .progress = 0,
		.tag = "run",
	};
	const char *db = NULL;
	int iterations = 10, warmup = 2, wide = 0, pick = FGO_PICK_TABLE, trials = 0;
	int rc = parse_run(argc, argv, &cfg, &s, &db, &iterations, &warmup, &wide, &pick, &trials);
	fgo_mute = 0;
	if (rc != FGO_OK)
		return rc;

	struct fgo_plan plan;
	memset(&plan, 0, sizeof plan);
	int choice = take_choice(&cfg);
	kit_fit_tile(&cfg); /* a default tile side fitted to the shape, as a sweep's */
	/* on the heap: config auto's trials grow the plan (auto_pick_plan) */
	struct fgo_plan_item *item = calloc(1, sizeof *item);
	if (!item) {
		error("out of memory");
		return FGO_EFAIL;
	}
	*item = (struct fgo_plan_item){ .cfg = cfg, .valid = 1, .shot_choice = (unsigned char)choice };
	/* a Stream-K form without its CTAs gets the device's (session_run) */
	if (config_validate_planned(&cfg, item->reason, sizeof item->reason)) {
		if (rank == 0)
			error("invalid configuration: %s", item->reason);
		free(item);
		return FGO_EUSAGE;
	}
	char key[FGO_KEY_MAX], line[2048];
	config_key(&cfg, key, sizeof key);
	config_reproduce_line(&cfg, line, sizeof line);
	plan.items = item;
	plan.count = 1;
	plan.auto_trials = trials;
	plan.max_world = cfg.world;
	plan.iterations = iterations;
	plan.warmup = warmup;
	plan.validate = 1;
	plan.pick = (enum fgo_pick)pick;
	item->default_row = -1;
	s.pick_model = auto_pick_plan;
	s.pick_shot = shot_pick_plan;
	snprintf(plan.name, sizeof plan.name, "run");
	plan.text = line;
	snprintf(plan.hash, sizeof plan.hash, "%016llx",
		 (unsigned long long)fnv1a64(key, strlen(key)));

	int64_t run_id = 0, fastest_id = 0;
	s.db_path = cmd_db_path(db);
	s.spec_path = "fgobench run";
	s.command_line = line;
	s.last_run_id = &run_id;
	s.fastest_run_id = &fastest_id;
	rc = session_run(MPI_COMM_WORLD, &plan, &s);
	if (plan.count > 1 && fastest_id > 0) /* config auto timed trials: its pick */
		run_id = fastest_id;
	free(plan.items);
	if (rank == 0 && run_id > 0) {
		int shown = cmd_finish_stdout(show_run(db, (long)run_id, FGO_FMT_TABLE, wide, !wide));
		if (shown != FGO_OK && rc == FGO_OK)
			rc = shown;
	}
	return rc;
}
