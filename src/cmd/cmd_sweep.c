/* cmd_sweep.c: `fgobench sweep`: expand a spec (or a dataset plus flags)
 * into a plan, print it (--dry-run) or run and store it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "fgo.h"
#include "run/interrupt.h"
#include "run/session.h"
#include "tune/auto_pick.h"
#include "tune/shot_pick.h"
#include "user/user.h"
#include "sink.h"
#include "views/table.h"
#include "views/views.h"

const char cmd_sweep_usage[] =
	"usage: fgobench sweep SPEC [--tag T] [--db F] [--resume [--retry-crashed]]\n"
	"       [--dry-run] [--config table|auto] [--auto-trials N] [--kernel MANIFEST]\n"
	"       [--backend cpu|gpu|auto] [--timeout S] [--compile-timeout S]\n"
	"       [--heap-size BYTES] [--ranks N] [--quiet]\n"
	"       [--format table|md|csv|json] [--trace best [--trace-dir DIR]]\n"
	"       [CONFIG FLAGS]\n"
	"\n"
	"Expands SPEC into configurations, runs each one under MPI (validated, then\n"
	"timed: fused, GEMM only, comm only, baseline) and stores every run in the\n"
	"store. SPEC is a sweep spec (JSON object), a dataset (JSON list of\n"
	"{\"m\",\"n\",\"k\"} objects) or a CSV with a header m,n,k,...; configuration\n"
	"flags fill what a dataset leaves out and override a spec. Run as it is,\n"
	"fgobench starts the ranks the spec needs (its largest world size) with\n"
	"mpirun and supervises them; under `mpirun -np N` (N at least that world\n"
	"size) or srun it runs as one of the ranks.\n"
	"A configuration whose kernel kills its process (a signal, exit()), loses\n"
	"its GPU context or runs past its limit (twice --timeout, at least\n"
	"--timeout + 5 s) is stored as crashed or hung with the reason, and the\n"
	"supervised sweep goes on in a new job; a user kernel that writes into\n"
	"its inputs is stored as corrupted (docs/reliability.md). --resume does\n"
	"not run such configurations again unless --retry-crashed is given.\n"
	"The configurations of one problem (algorithm, dtype, world, M, N, K) run\n"
	"back to back and share its inputs, its reference (checked once against\n"
	"double precision on the host) and its baseline; every element of each\n"
	"run's output is compared with the reference. Runs are stored in batches\n"
	"(a problem's 'started' rows first); the sweep ends with a line saying\n"
	"where the time went (load, inputs, validate, time, baseline, store).\n"
	"\n"
	"A sweep spec's keys (README \"Sweep specs\"; any case): name, description,\n"
	"iterations, warmup, validate, baseline, config, auto_trials, kernel, blocks,\n"
	"shapes, and the tunables, each a value, a list or a range {\"from\", \"to\",\n"
	"\"mul\" or \"step\"}: algorithm, dtype, world, M, N, K, BLK_M, BLK_N, BLK_K,\n"
	"num_stages, num_warps, mma, gsize_m, gemm_sms, comm_sms, comm_blk_m,\n"
	"comm_blk_n, split_k, deterministic and cluster; the configuration flags below\n"
	"of the same names say what each means (cluster: 1, 2, 4 or 8 CTAs of a\n"
	"thread block cluster; a spec's 3 or 16 is refused with its position).\n"
	"\n"
	"Ctrl-C or SIGTERM stops a sweep cleanly: the runs finished are stored,\n"
	"the runs in flight are abandoned (--resume runs them again), the sweep is\n"
	"marked interrupted, and one line gives the runs stored and the command\n"
	"that resumes it. Exit status: 0 every run ok or invalid; 1 some run\n"
	"mismatched, failed, timed out, crashed, hung or corrupted (in the\n"
	"sweep, earlier jobs' too); 2 bad input, or a plan none of whose\n"
	"configurations can run (each reason printed once with its count, nothing\n"
	"stored); 130 (SIGINT) or 143 (SIGTERM) interrupted. Open MPI's mpirun\n"
	"turns a Ctrl-C into SIGTERM to the ranks (SIGKILL a second later) and\n"
	"itself exits 1.\n"
	"\n"
	"  --tag T            label the sweep (e.g. nightly-2026-11-21)\n"
	"  --db F             the store (default $FGOBENCH_DB or ./fgobench.db)\n"
	"  --resume           continue the newest sweep of this spec (and tag) where it\n"
	"                     stopped; when that sweep is done, say so and run nothing\n"
	"                     (exit 0): only a sweep without --resume starts a new one\n"
	"  --retry-crashed    with --resume: run the sweep's crashed, hung and corrupted\n"
	"                     configurations again (once; a crash again is stored again)\n"
	"  --dry-run          print the plan (valid and invalid configurations) and stop\n"
	"  --config C         where a configuration that gives no tile gets one: table\n"
	"                     (the defaults table of the core, README \"Default tiles\";\n"
	"                     the default) or auto (ranks as `best --predict` does from\n"
	"                     this host's runs and fit; the default where the store does\n"
	"                     not cover the shape; exit 2 without a fit: run `fgobench\n"
	"                     calibrate --fit`); overrides the spec's \"config\"\n"
	"  --auto-trials N    config auto times N (1-16, default 6) of its ranking (the\n"
	"                     first half, then other tiles) and the table's pick at\n"
	"                     each shape, all stored, the fastest its pick (1: the\n"
	"                     ranking's first alone);\n"
	"                     overrides the spec's \"auto_trials\"\n"
	"  --kernel MANIFEST  sweep your own kernel (README \"Your own kernel\"): the\n"
	"                     manifest's tunables over SPEC's problems (dtype, world,\n"
	"                     M, N, K, shapes; its algorithm and tunables are left\n"
	"                     out), validated against the manifest's family, stored\n"
	"                     as algorithm user:NAME; overrides the spec's \"kernel\"\n"
	"  --backend B        cpu, gpu or auto (default: gpu when devices are visible)\n"
	"  --timeout S        seconds a kernel may wait on a flag (another rank's signal)\n"
	"                     or a pipeline barrier before it gives up; the launch then\n"
	"                     ends and the run is stored as timeout (a barrier: failed).\n"
	"                     It does not bound a launch's compute: a kernel that waits\n"
	"                     on nothing runs to its end, as a GPU kernel cannot be\n"
	"                     stopped from the host (120)\n"
	"  --ranks N          ranks fgobench starts (default: the spec's largest world);\n"
	"                     more run groups of each world side by side (one GPU each)\n"
	"  --compile-timeout S  seconds a user kernel's C compile may take before the\n"
	"                     compiler is stopped and the run stored as failed (default\n"
	"                     $FGOBENCH_COMPILE_TIMEOUT, else 300)\n"
	"  --heap-size BYTES  symmetric heap limit per rank, e.g. 512M, 4G: configurations\n"
	"                     that need more are stored as invalid; one within it that\n"
	"                     the node's memory cannot hold is refused (exit 2). Default:\n"
	"                     the node's memory per rank (a GPU's, less an eighth, at\n"
	"                     least 2 GiB, over the ranks sharing it; on the CPU three\n"
	"                     quarters of the available host memory over the node's\n"
	"                     ranks), the reference counting too\n"
	"  --iterations N     timed launches per measurement (default: the spec's, 10)\n"
	"  --warmup N         untimed launches before each measurement (default: the spec's, 2)\n"
	"  --no-validate      skip the reference check\n"
	"  --quiet            no progress lines\n"
	"  --format F         output format of --dry-run (table, md, csv, json)\n"
	"  --trace best       after the sweep, run the fastest ok configuration of each\n"
	"                     problem once more with the per-CTA trace compiled in: its\n"
	"                     timeline as trace-event JSON in DIR/run-ID.json and its\n"
	"                     summary stored with the run (`show ID`, `plot timeline`)\n"
	"  --trace-dir DIR    where --trace best writes (default traces)\n"
	"  --trace-events N   events kept per CTA when tracing (default: enough for the\n"
	"                     configuration on the CPU, 4096 on a GPU)\n";

/* The tile with the split and the cluster where the key has them (/kS,
 * /clN), so two items never read the same. */
static const char *tile_cell(const struct fgo_config *c, char *out, size_t len)
{
	int n = snprintf(out, len, "%dx%dx%d", c->blk_m, c->blk_n, c->blk_k);
	if (n > 0 && (size_t)n < len && c->split_k != 1)
		n += snprintf(out + n, len - (size_t)n, "/k%d", c->split_k);
	if (n > 0 && (size_t)n < len && c->cluster > 1)
		snprintf(out + n, len - (size_t)n, "/cl%d", c->cluster);
	return out;
}

static int print_plan(const struct fgo_plan *plan, const char *path, enum fgo_format fmt)
{
	char tile[64];
	static const char *const headers[] = { "item", "algorithm", "dtype", "world", "M", "N",
					       "K", "tile", "stages", "warps", "mma", "gsize_m",
					       "sms", "comm_tile", "valid", "reason" };
	struct fgo_table *t = table_new((int)FGO_ARRAY_SIZE(headers), headers);
	size_t valid = 0, units = 0;
	for (size_t i = 0; i < plan->count; i++) {
		const struct fgo_config *c = &plan->items[i].cfg;
		const char *why = plan->items[i].reason;
		char probe_why[FGO_REASON_MAX];
		int ok = plan->items[i].valid, takes = config_takes_units(c);
		if (takes) { /* its CTAs come from the device at the sweep (plan_fit_units) */
			ok = !config_validate_planned(c, probe_why, sizeof probe_why);
			why = probe_why;
			units++;
		}
		valid += ok ? 1 : 0;
		table_add(t, "%zu", i + 1);
		view_problem_cells(t, c);
		if (c->params[0]) /* a user kernel's own tunables */
			table_add(t, "%s", c->params);
		else
			table_add(t, "%s", tile_cell(c, tile, sizeof tile));
		if (c->params[0]) { /* the built-in tunables mean nothing to it */
			for (int i = 0; i < 6; i++)
				table_add(t, "%s", "");
		} else {
			table_add(t, "%d", c->num_stages);
			table_add(t, "%d", c->num_warps);
			table_add(t, "%s", mma_name(c->mma));
			table_add(t, "%d", c->gsize_m);
			if (takes)
				table_add(t, "%s", "all+0");
			else
				table_add(t, "%d+%d", c->gemm_sms, c->comm_sms);
			table_add(t, "%dx%d", c->comm_blk_m, c->comm_blk_n);
		}
		table_add(t, "%s", ok ? "yes" : "no");
		table_add(t, "%s", ok ? "" : why);
	}
	table_fit(t, FGO_TABLE_COLUMNS);
	int rc = table_print(t, fmt, stdout) ? FGO_EFAIL : FGO_OK;
	table_free(t);
	note("%s: %zu configurations, %zu valid, %zu invalid, world up to %d (%d rank%s: fgobench"
	     " starts them, or mpirun -np %d)",
	     path, plan->count, valid, plan->count - valid, plan->max_world, plan->max_world,
	     plan->max_world == 1 ? "" : "s", plan->max_world);
	if (units)
		note("sms all+0: %zu Stream-K configuration%s without gemm_sms or comm_sms, given every"
		     " SM of the GPU (every core of the CPU) as GEMM CTAs when the sweep runs", units,
		     units == 1 ? "" : "s");
	size_t shots = 0;
	for (size_t i = 0; i < plan->count; i++)
		shots += plan->items[i].shot_choice;
	if (shots)
		note("%zu configuration%s name all_reduce: the shot is chosen when the sweep runs, from"
		     " its store (listed here as one-shot)", shots, shots == 1 ? "" : "s");
	return rc;
}

/* What the command line says (sweep_parse). */
struct sweep_cmd {
	struct fgo_session s;
	struct fgo_config base;
	struct fgo_config_mask set;
	const char *spec, *db, *trace_dir;
	int dry_run, iterations, warmup, pick, auto_trials;
	int ranks;                 /* --ranks: how many fgobench starts (0: the largest world) */
	enum fgo_format fmt;
	struct fgo_plan plan;
};

/* Parses the arguments and loads the spec into c->plan; every error said
 * (only where fgo_mute allows). FGO_OK or FGO_EUSAGE. */
static int sweep_parse(int argc, char **argv, struct sweep_cmd *c)
{
	struct fgo_session defaults = {
		.db_path = NULL, .backend = "auto", .validate = 1, .benchmark = 1,
		.timeout_s = 120, .heap_limit = 0, .progress = 1,
	};
	memset(c, 0, sizeof *c);
	c->s = defaults;
	config_defaults(&c->base);
	c->warmup = -1;
	c->pick = -1;
	c->fmt = FGO_FMT_TABLE;
	struct fgo_session *s = &c->s;
	int trace_dir_given = 0, traced = 0;
	int rc = FGO_OK;
	char err[1024] = "";
	for (int i = 1; i < argc && rc == FGO_OK; i++) {
		const char *a = argv[i];
		int more = i + 1 < argc;
		int used = cmd_config_flag("sweep", argc, argv, &i, &c->base, &c->set);
		if (used < 0 || used == FGO_EUSAGE) {
			rc = FGO_EUSAGE;
		} else if (used) {
			continue;
		} else if (!strcmp(a, "--tag") && more) {
			s->tag = argv[++i];
		} else if (!strcmp(a, "--db") && more) {
			c->db = argv[++i];
		} else if (!strcmp(a, "--backend") && more) {
			s->backend = argv[++i];
		} else if (!strcmp(a, "--timeout") && more) {
			rc = cmd_parse_double("sweep", a, argv[++i], 0.001, 1e6, &s->timeout_s);
		} else if (!strcmp(a, "--heap-size") && more) {
			rc = cmd_parse_bytes("sweep", "--heap-size", argv[++i], &s->heap_limit);
		} else if (!strcmp(a, "--ranks") && more) {
			rc = cmd_parse_int("sweep", a, argv[++i], 1, 4096, &c->ranks);
		} else if (!strcmp(a, "--compile-timeout") && more) {
			double limit = 0;
			rc = cmd_parse_double("sweep", a, argv[++i], 0.001, 1e6, &limit);
			if (rc == FGO_OK)
				user_cc_set_compile_timeout(limit);
		} else if (!strcmp(a, "--iterations") && more) {
			rc = cmd_parse_int("sweep", a, argv[++i], 1, 100000, &c->iterations);
		} else if (!strcmp(a, "--warmup") && more) {
			rc = cmd_parse_int("sweep", a, argv[++i], 0, 100000, &c->warmup);
		} else if (!strcmp(a, "--format") && more) {
			if (format_parse(argv[++i], &c->fmt))
				rc = cmd_usage_error("sweep", cmd_sweep_usage,
						     "unknown format \"%s\" (table, md, csv, json)",
						     argv[i]);
		} else if (!strcmp(a, "--trace") && more) {
			if (strcmp(argv[++i], "best"))
				rc = cmd_usage_error("sweep", cmd_sweep_usage,
						     "--trace takes \"best\" (got \"%s\"); `run --trace FILE`"
						     " traces one configuration",
						     argv[i]);
			else if (!c->trace_dir)
				c->trace_dir = "traces";
		} else if (!strcmp(a, "--trace-dir") && more) {
			c->trace_dir = argv[++i];
			trace_dir_given = 1;
		} else if (!strcmp(a, "--trace-events") && more) {
			rc = cmd_parse_int("sweep", a, argv[++i], 16, 1 << 20, &s->trace_events);
		} else if (!strcmp(a, "--config") && more) {
			rc = cmd_parse_pick("sweep", argv[++i], &c->pick);
		} else if (!strcmp(a, "--auto-trials") && more) {
			rc = cmd_parse_int("sweep", a, argv[++i], 1, FGO_AUTO_TRIALS_MAX, &c->auto_trials);
		} else if (!strcmp(a, "--kernel") && more) {
			c->set.kernel = argv[++i];
		} else if (!strcmp(a, "--resume")) {
			s->resume = 1;
		} else if (!strcmp(a, "--retry-crashed")) {
			s->retry_crashed = 1;
		} else if (!strcmp(a, "--dry-run")) {
			c->dry_run = 1;
		} else if (!strcmp(a, "--no-validate")) {
			s->validate = 0;
		} else if (!strcmp(a, "--quiet")) {
			s->progress = 0;
		} else if (a[0] == '-' && a[1]) {
			rc = cmd_usage_error("sweep", cmd_sweep_usage, "%s \"%s\"",
					     more || strncmp(a, "--", 2) ? "unknown option"
									: "missing value for",
					     a);
		} else if (!c->spec) {
			c->spec = a;
		} else {
			rc = cmd_usage_error("sweep", cmd_sweep_usage, "one SPEC only (got \"%s\" and \"%s\")",
					     c->spec, a);
		}
	}
	if (rc == FGO_OK && !c->spec)
		rc = cmd_usage_error("sweep", cmd_sweep_usage,
				     "missing SPEC (e.g. sweeps/smoke.json)");
	/* --trace-dir alone names where, --trace best says whether */
	for (int i = 1; i < argc; i++)
		traced |= !strcmp(argv[i], "--trace") && i + 1 < argc && !strcmp(argv[i + 1], "best");
	if (rc == FGO_OK && trace_dir_given && !traced)
		rc = cmd_usage_error("sweep", cmd_sweep_usage, "--trace-dir needs --trace best");
	if (rc == FGO_OK && traced) {
		if (!c->trace_dir || sink_check_dir("--trace-dir", c->trace_dir, err, sizeof err) != FGO_OK)
			rc = cmd_usage_error("sweep", cmd_sweep_usage, "%s", err);
		s->trace_dir = c->trace_dir;
	}
	if (rc == FGO_OK && strcmp(s->backend, "cpu") && strcmp(s->backend, "gpu") &&
	    strcmp(s->backend, "auto"))
		rc = cmd_usage_error("sweep", cmd_sweep_usage,
				     "unknown backend \"%s\" (cpu, gpu or auto)", s->backend);
	if (rc == FGO_OK && spec_load(c->spec, &c->base, &c->set, &c->plan, err, sizeof err) != FGO_OK) {
		error("%s", err);
		rc = FGO_EUSAGE;
	}
	return rc;
}

int cmd_sweep_ranks(int argc, char **argv, int *np)
{
	struct sweep_cmd c;
	*np = 0;
	if (cmd_wants_help(argc, argv))
		return FGO_OK; /* said in-process */
	int rc = sweep_parse(argc, argv, &c);
	if (rc == FGO_OK && !c.dry_run)
		*np = c.plan.max_world > 0 ? c.plan.max_world : 1;
	if (rc == FGO_OK && !c.dry_run && c.ranks) {
		if (c.ranks < *np) {
			error("--ranks %d is fewer than the world size %d the spec needs (give at least %d)",
			      c.ranks, *np, *np);
			rc = FGO_EUSAGE;
		}
		*np = c.ranks;
	}
	plan_free(&c.plan);
	return rc;
}

int cmd_sweep(int argc, char **argv)
{
	int rank, ranks;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &ranks);
	if (cmd_wants_help(argc, argv)) {
		if (rank == 0 && cmd_help(cmd_sweep_usage) == 0)
			fputs(cmd_config_flags_help, stdout);
		return 0;
	}

	/* Every rank parses the same arguments; only rank 0 speaks. */
	fgo_mute = rank != 0;
	struct sweep_cmd c;
	int rc = sweep_parse(argc, argv, &c);
	fgo_mute = 0;
	if (rc != FGO_OK) {
		plan_free(&c.plan);
		return rc;
	}
	struct fgo_session s = c.s;
	struct fgo_plan plan = c.plan;
	const char *spec = c.spec, *db = c.db;
	int iterations = c.iterations, warmup = c.warmup, pick = c.pick, dry_run = c.dry_run;
	int auto_trials = c.auto_trials;
	enum fgo_format fmt = c.fmt;
	if (iterations)
		plan.iterations = iterations;
	if (warmup >= 0)
		plan.warmup = warmup;
	if (pick >= 0) /* the flag wins over the spec's "config" */
		plan.pick = (enum fgo_pick)pick;
	if (auto_trials > 0) /* and over its "auto_trials" */
		plan.auto_trials = auto_trials;
	if (dry_run) {
		rc = rank == 0 ? print_plan(&plan, spec, fmt) : FGO_OK;
		plan_free(&plan);
		return cmd_finish_stdout(rc);
	}

	char line[2048], resume[2400];
	cmd_command_line(argc, argv, ranks, line, sizeof line);
	s.db_path = cmd_db_path(db);
	s.spec_path = spec;
	s.command_line = line;
	interrupt_resume_command(line, s.resume, db ? NULL : s.db_path, resume, sizeof resume);
	s.resume_command = resume;
	s.pick_model = auto_pick_plan;
	s.pick_shot = shot_pick_plan;
	if (!plan.validate)
		s.validate = 0;
	rc = session_run(MPI_COMM_WORLD, &plan, &s);
	plan_free(&plan);
	return rc;
}
