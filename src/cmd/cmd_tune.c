/* cmd_tune.c: `fgobench tune`: find a good configuration for one problem
 * in a fraction of the runs a sweep of its space takes. Parses the
 * options, expands the space, prunes it, runs the session (tune_run.c)
 * and prints the winner with its reproduce line. */
#include <assert.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "cmd/cmd.h"
#include "fgo.h"
#include "run/interrupt.h"
#include "tune/tune.h"
#include "tune/tune_model.h"
#include "tune/tune_run.h"
#include "views/table.h"
#include "views/views.h"

const char cmd_tune_usage[] =
	"usage: fgobench tune --algorithm A -m M -n N -k K [--world W] [--dtype D]\n"
	"       [--space SPEC.json] [--kernel MANIFEST]\n"
	"       [--strategy grid|random|anneal|halving|model]\n"
	"       [--budget RUNS] [--time SECONDS] [--seed S] [--tag T] [--resume]\n"
	"       [--db F] [--backend B] [--dry-run] [--quiet] [--format F] [TUNABLE FLAGS]\n"
	"\n"
	"Searches the configurations of one problem (algorithm, dtype, world, M, N, K)\n"
	"for the fastest, in a fraction of the runs a sweep of the whole space takes.\n"
	"The space is a sweep spec whose tunables are searched (the problem comes\n"
	"from the flags); without --space, the family's full space. Configurations\n"
	"that cannot be valid are pruned before any run by the sweep's validation.\n"
	"Every trial is an ordinary run, validated and timed like a sweep's and\n"
	"stored in sweeps tagged with the session, so best, plot and regress see it.\n"
	"A line per trial shows the best so far; at the end, the winner in 120\n"
	"columns with the line that reproduces it under it (csv, json and md: every\n"
	"column, the reproduce line in one; a user kernel's winner is reproduced by\n"
	"a sweep of the --space spec with --kernel, or without one by this tune\n"
	"command), and how many runs it took. Run under `mpirun -np W`.\n"
	"\n"
	"Strategies: grid tries every configuration in spec order; random a seeded\n"
	"uniform sample; anneal tries a quarter of the budget at random, then walks\n"
	"from the best one step along one tunable at a time, taking a slower step\n"
	"with a probability that falls over the budget; halving runs many\n"
	"configurations at few iterations, the faster half at twice as many, and so\n"
	"on until the last two run at the full iterations; model ranks the whole\n"
	"space by this machine's cost model (fitted by `fgobench calibrate`, or now\n"
	"from the stored runs), runs the best predicted (an eighth of the budget,\n"
	"then a quarter at a time), refits the model to what ran and ranks the\n"
	"rest again, each prediction scaled by how far off it was on the\n"
	"configuration's measured neighbours.\n"
	"No strategy runs a configuration twice. The same seed makes the same\n"
	"choices for the same results.\n"
	"\n"
	"Exit status: 0 when a winner was found and no run failed; 1 when a run\n"
	"mismatched, failed or timed out, or none was ok; 2 on bad input; 130\n"
	"(SIGINT) or 143 (SIGTERM) when interrupted: the runs finished are stored,\n"
	"the session's sweeps marked interrupted, and one line gives the command\n"
	"that resumes it (under Open MPI's mpirun, a Ctrl-C reaches the ranks as\n"
	"SIGTERM and mpirun exits 1).\n"
	"\n"
	"  --algorithm A      the algorithm (`fgobench info` lists them; any case, - for\n"
	"                     _, short names such as gemm_rs or ag_gemm_pull; a family\n"
	"                     name such as all_gather_gemm lists its algorithms; tune\n"
	"                     searches one algorithm, so all_reduce is refused: name the\n"
	"                     shot)\n"
	"  -m M, -n N, -k K   the global problem (also --m M, --n N, --k K)\n"
	"  --world W          ranks taking part (default 2)\n"
	"  --dtype D          fp32, fp16 or bf16 (default fp16; also --datatype)\n"
	"  --kernel MANIFEST  search your own kernel (README \"Your own kernel\"): the space\n"
	"                     is its manifest's tunables over the problem of the flags\n"
	"                     (or a --space spec's problems run with it); --algorithm\n"
	"                     may be left out or name it (user:NAME); strategies grid,\n"
	"                     random, anneal and halving (the cost model knows only the\n"
	"                     shipped kernels)\n"
	"  --space SPEC       a sweep spec giving the tunables' values (default: the\n"
	"                     family's space: tiles 16-256, BLK_K 16-128, 1-4 stages,\n"
	"                     4 or 8 warps, gsize_m 1, 4, 8; Stream-K forms add\n"
	"                     gemm_sms and comm_sms); its iterations and warmup count\n"
	"  --strategy S       grid, random, anneal, halving or model (default: model\n"
	"                     where this host has a cost model of the space's GEMM\n"
	"                     cores, else anneal; the choice is printed). model\n"
	"                     without one fits one on the spot (not stored, as best\n"
	"                     --predict does) where the store has 16 or more ok runs\n"
	"                     of the problem's family and dtype on this host; with\n"
	"                     fewer it exits 2 and says how many it has: sweep more,\n"
	"                     or run `fgobench calibrate` (or `calibrate --fit`)\n"
	"  --budget RUNS      runs at most (default: the whole space for grid, 15% of\n"
	"                     it and at least 10 for the others)\n"
	"  --time SECONDS     start no run after this long; alone, the budget is what\n"
	"                     the time holds at the first run's pace\n"
	"  --seed S           seed of random, anneal and halving, and of the order\n"
	"                     model takes equal predictions in (default 1)\n"
	"  --tag T            the session's tag (default tune-ALGO-DTYPE-wW-MxNxK-STRATEGY-sSEED)\n"
	"  --resume           continue the session with this tag, space, strategy and\n"
	"                     seed: stored trials are not run again; when the session\n"
	"                     is done, nothing runs: its stored results give the winner\n"
	"                     (exit 0), and only tune without --resume starts anew\n"
	"  --db F             the store (default $FGOBENCH_DB or ./fgobench.db)\n"
	"  --backend B        cpu, gpu or auto (default: gpu when devices are visible)\n"
	"  --timeout S        seconds a kernel may wait on a flag or pipeline barrier\n"
	"                     before it gives up (the trial is a timeout); not a bound\n"
	"                     on a launch's compute (120)\n"
	"  --heap-size BYTES  symmetric heap limit per rank, e.g. 512M: configurations\n"
	"                     that need more are pruned. Default: the node's memory per\n"
	"                     rank, as for sweep (what it cannot hold is stored invalid)\n"
	"  --iterations N     timed launches of a full run (default: the spec's, 10)\n"
	"  --warmup N         untimed launches before each measurement (spec's, 2)\n"
	"  --no-validate      skip the reference check\n"
	"  --dry-run          list the space with what is pruned and why, and stop\n"
	"  --quiet            no line per trial\n"
	"  --format F         table, md, csv or json for the result (default table)\n"
	"  --BLK_K B, ...     a tunable flag of `fgobench run` fixes that tunable\n";

struct tune_args {
	struct fgo_config base;
	struct fgo_config_mask set;
	struct tune_opts o;
	const char *space, *db, *strategy;
	const char *user_algorithm; /* --algorithm user:NAME, checked against --kernel's */
	int dry_run, iterations, warmup, budget_given;
	enum fgo_format format;
	char tag[160];
};

static int parse_option(struct tune_args *a, int argc, char **argv, int *i)
{
	static const char *const opts[] = { "--space", "--strategy", "--budget", "--time",
					    "--seed", "--tag", "--db", "--backend",
					    "--timeout", "--heap-size", "--iterations", "--warmup",
					    "--format", "--kernel" };
	const char *v = NULL;
	long l;
	switch (cmd_match_option("tune", argc, argv, i, opts, (int)FGO_ARRAY_SIZE(opts), &v)) {
	case -2: return FGO_EUSAGE;
	case -1: break;
	case 0: a->space = v; return FGO_OK;
	case 1: a->strategy = v; return FGO_OK;
	case 2:
		a->budget_given = 1;
		return cmd_parse_long("tune", "--budget (runs, at least 1)", v, 1, 1000000000L,
				      &a->o.budget);
	case 3: return cmd_parse_double("tune", "--time (seconds)", v, 0.001, 1e9, &a->o.time_s);
	case 4:
		if (cmd_parse_long("tune", "--seed", v, 0, 2147483647L, &l))
			return FGO_EUSAGE;
		a->o.seed = (uint64_t)l;
		return FGO_OK;
	case 5: a->o.tag = v; return FGO_OK;
	case 6: a->db = v; return FGO_OK;
	case 7: a->o.backend = v; return FGO_OK;
	case 8: return cmd_parse_double("tune", "--timeout", v, 0.001, 1e6, &a->o.timeout_s);
	case 9: return cmd_parse_bytes("tune", "--heap-size", v, &a->o.heap_limit);
	case 10: return cmd_parse_int("tune", "--iterations", v, 1, 100000, &a->iterations);
	case 11: return cmd_parse_int("tune", "--warmup", v, 0, 100000, &a->warmup);
	case 13: a->set.kernel = v; return FGO_OK;
	default:
		if (format_parse(v, &a->format))
			return cmd_usage_error("tune", cmd_tune_usage,
					       "--format expects table, md, csv or json, got \"%s\"", v);
		return FGO_OK;
	}
	const char *s = argv[*i];
	if (!strcmp(s, "--resume"))
		a->o.resume = 1;
	else if (!strcmp(s, "--dry-run"))
		a->dry_run = 1;
	else if (!strcmp(s, "--quiet"))
		a->o.progress = 0;
	else if (!strcmp(s, "--no-validate"))
		a->o.validate = 0;
	else
		return cmd_usage_error("tune", cmd_tune_usage, "%s \"%s\"",
				       s[0] == '-' ? "unknown option" : "unexpected argument", s);
	return FGO_OK;
}

/* Everything the command line says, checked; FGO_EUSAGE after a message. */
static int parse(int argc, char **argv, struct tune_args *a)
{
	for (int i = 1; i < argc; i++) {
		/* a user kernel's name is known once --kernel's manifest is read */
		if ((!strcmp(argv[i], "--algorithm") || !strcmp(argv[i], "--algo")) && i + 1 < argc &&
		    !strncmp(argv[i + 1], "user:", 5)) {
			a->user_algorithm = argv[++i];
			continue;
		}
		int used = cmd_config_flag("tune", argc, argv, &i, &a->base, &a->set);
		if (used == FGO_EUSAGE)
			return FGO_EUSAGE;
		if (!used && parse_option(a, argc, argv, &i) != FGO_OK)
			return FGO_EUSAGE;
	}
	static const char *const kinds = "grid, random, anneal, halving or model";
	if (a->strategy && tune_kind_parse(a->strategy, &a->o.kind)) {
		const char *names[] = { "grid", "random", "anneal", "halving", "model" };
		for (size_t j = 0; j < FGO_ARRAY_SIZE(names); j++)
			if (edit_distance(a->strategy, names[j]) <= 2)
				return cmd_usage_error("tune", cmd_tune_usage,
						       "unknown strategy \"%s\" (did you mean \"%s\"? %s)",
						       a->strategy, names[j], kinds);
		return cmd_usage_error("tune", cmd_tune_usage, "unknown strategy \"%s\" (use %s)",
				       a->strategy, kinds);
	}
	if (a->user_algorithm && !a->set.kernel)
		return cmd_usage_error("tune", cmd_tune_usage,
				       "--algorithm %s is a user kernel: give its manifest with --kernel"
				       " MANIFEST (README \"Your own kernel\")", a->user_algorithm);
	if (a->set.kernel && a->set.algorithm)
		return cmd_usage_error("tune", cmd_tune_usage,
				       "--kernel runs the manifest's kernel: --algorithm %s cannot apply"
				       " (leave it out, or give the kernel's user:NAME)",
				       a->base.algorithm);
	if (a->set.kernel && a->o.kind == TUNE_MODEL && a->strategy)
		return cmd_usage_error("tune", cmd_tune_usage,
				       "--strategy model ranks the shipped kernels by the cost model; for"
				       " --kernel use grid, random, anneal or halving");
	if (!a->set.algorithm && !a->set.kernel)
		return cmd_usage_error("tune", cmd_tune_usage,
				       "missing --algorithm (`fgobench info` lists them)");
	if (!a->set.kernel && !strcmp(a->base.algorithm, ALGO_CHOICE))
		return cmd_usage_error("tune", cmd_tune_usage,
				       "tune searches the space of one algorithm: give all_reduce_one_shot"
				       " or all_reduce_two_shot (run and sweep choose the shot of"
				       " --algorithm all_reduce)");
	/* cmd_config_flag took only a name algo_resolve knows, or all_reduce */
	assert(a->set.kernel || algo_find(a->base.algorithm));
	if (!a->set.m || !a->set.n || !a->set.k)
		return cmd_usage_error("tune", cmd_tune_usage,
				       "missing the problem size: give -m, -n and -k");
	if (strcmp(a->o.backend, "cpu") && strcmp(a->o.backend, "gpu") &&
	    strcmp(a->o.backend, "auto"))
		return cmd_usage_error("tune", cmd_tune_usage,
				       "unknown backend \"%s\" (cpu, gpu or auto)", a->o.backend);
	/* the problem is the flags', never the spec's */
	a->set.algorithm = a->set.dtype = a->set.world = a->set.m = a->set.n = a->set.k = 1;
	return FGO_OK;
}

/* The strategy when --strategy is model or not given (rank 0 reads the
 * store, every rank hears): model where every GEMM core of the space has
 * a cost model fitted on this host, else anneal. On rank 0, m holds the
 * model for tune_run. FGO_EUSAGE when model was asked for without a fit
 * or the store cannot be read (message printed). */
static int choose_strategy(struct tune_args *a, const struct tune_space *s, struct tune_model *m,
			   int rank)
{
	char err[1024];
	int msg[2] = { FGO_OK, (int)a->o.kind };
	if (rank == 0) {
		/* asked for by name: fit one now where the store has the runs */
		if (tune_model_load(a->o.db_path, a->o.backend, s, a->strategy != NULL, m, err,
				    sizeof err) != FGO_OK) {
			error("%s", err);
			msg[0] = FGO_EUSAGE;
		} else if (m->missing[0] && a->strategy) {
			const struct fgo_config *c = s->n ? &s->plan->items[s->item[0]].cfg : NULL;
			error("no cost model of the %s core for %s (%s backend) in %s, and %zu ok run%s of"
			      " %s %s there: too few to fit one now (%d needed): sweep more of it, or run"
			      " `fgobench calibrate` (or `fgobench calibrate --fit` after a sweep) first",
			      m->missing, m->machine, m->backend, a->o.db_path, m->family_runs,
			      m->family_runs == 1 ? "" : "s", c ? c->algorithm : "?",
			      c ? dtype_name(c->dtype) : "?", MODEL_MIN_RUNS);
			msg[0] = FGO_EUSAGE;
		} else if (m->missing[0]) {
			msg[1] = TUNE_ANNEAL;
			note("strategy anneal (the default without a cost model: %s has none of the %s core"
			     " for the %s backend; `fgobench calibrate --fit` after a sweep fits one)",
			     m->machine, m->missing, m->backend);
		} else {
			msg[1] = TUNE_MODEL;
			for (int g = 0; g < m->ncores; g++) {
				if (!strcmp(m->fitted_at[g], "now"))
					note("strategy model: the %s cost model of %s (%s backend) fitted now to"
					     " %zu run%s (%zu of them of this family and dtype; not stored:"
					     " `fgobench calibrate --fit` keeps it), rms error %.1f%%",
					     m->core[g], m->machine, m->backend, m->fit[g].runs,
					     m->fit[g].runs == 1 ? "" : "s", m->family_runs, 100 * m->fit[g].rms_rel_err);
				else
					note("strategy model%s: the %s cost model of %s (%s backend), fitted %s to"
					     " %zu run%s, rms error %.1f%%",
					     a->strategy ? "" : " (the default where a cost model is fitted)",
					     m->core[g], m->machine, m->backend, m->fitted_at[g], m->fit[g].runs,
					     m->fit[g].runs == 1 ? "" : "s", 100 * m->fit[g].rms_rel_err);
			}
		}
	}
	MPI_Bcast(msg, 2, MPI_INT, 0, MPI_COMM_WORLD);
	a->o.kind = (enum tune_kind)msg[1];
	a->o.model = rank == 0 && a->o.kind == TUNE_MODEL ? m : NULL;
	return msg[0];
}

/* The space as a plan: the spec file, or the family's default. */
static int load_space(struct tune_args *a, struct fgo_plan *plan)
{
	char err[1024];
	int rc;
	if (a->space)
		rc = spec_load(a->space, &a->base, &a->set, plan, err, sizeof err);
	else if (a->set.kernel) /* the manifest's tunables over the flags' problem */
		rc = spec_parse("(the kernel's space)", "{}", &a->base, &a->set, plan, err, sizeof err);
	else
		rc = spec_parse("(default space)", tune_default_space(a->base.algorithm), &a->base,
				&a->set, plan, err, sizeof err);
	if (rc != FGO_OK) {
		error("%s", err);
		return FGO_EUSAGE;
	}
	if (a->set.kernel && plan->count) {
		/* the problem's algorithm is the kernel's from here on (tag, lines) */
		const char *name = plan->items[0].cfg.algorithm;
		if (a->user_algorithm && strcmp(a->user_algorithm, name)) {
			error("--algorithm %s, but %s is the kernel %s (give its name or leave"
			      " --algorithm out)", a->user_algorithm, a->set.kernel, name);
			return FGO_EUSAGE;
		}
		snprintf(a->base.algorithm, sizeof a->base.algorithm, "%s", name);
	}
	if (a->iterations)
		plan->iterations = a->iterations;
	if (a->warmup >= 0)
		plan->warmup = a->warmup;
	if (!plan->validate)
		a->o.validate = 0;
	return FGO_OK;
}

static void problem_text(const struct fgo_config *c, char *out, size_t len)
{
	snprintf(out, len, "%s %s W=%d M=%ld N=%ld K=%ld", c->algorithm, dtype_name(c->dtype),
		 c->world, c->m, c->n, c->k);
}

/* --dry-run: every configuration of the space, candidate or pruned and why. */
static int print_space(const struct tune_space *s, size_t heap_limit, enum fgo_format fmt)
{
	static const char *const headers[] = { "item", "config", "candidate", "reason" };
	struct fgo_table *t = table_new((int)FGO_ARRAY_SIZE(headers), headers);
	for (size_t i = 0; t && i < s->plan->count; i++) {
		char tile[96], reason[FGO_REASON_MAX] = "";
		const struct fgo_plan_item *it = &s->plan->items[i];
		int pruned = s->cand_of[i] == (size_t)-1;
		if (pruned)
			tune_prune_reason(&it->cfg, heap_limit, reason, sizeof reason);
		view_tile_text(&it->cfg, tile, sizeof tile);
		table_add(t, "%zu", i + 1);
		table_add(t, "%s", tile);
		table_add(t, "%s", pruned ? "no" : "yes");
		table_add(t, "%s", reason);
	}
	table_fit(t, FGO_TABLE_COLUMNS); /* a long reason continues on the next line */
	int rc = t && table_print(t, fmt, stdout) == 0 ? FGO_OK : FGO_EFAIL;
	table_free(t);
	return rc;
}

/* The winner: csv, json and md every column with the reproduce line; the
 * terminal's table within 120 columns (W, MxNxK, the brief config, no
 * seed, "found at" as found), the
 * reproduce line under it on lines of its own, continued as a shell reads
 * them. command: this session's command line (a user kernel's winner is
 * reproduced by it when no --space spec names a file). */
static int print_outcome(const struct tune_args *a, const struct tune_space *s,
			 const struct tune_outcome *r, const char *command)
{
	static const char *const headers[] = { "algorithm", "dtype", "world", "M", "N", "K",
					       "strategy", "seed", "runs", "space", "found at",
					       "config", "ms", "TFLOPS", "run", "reproduce",
					       "W", "MxNxK", "config", "found" };
	enum { NCOLS_OUT = 16 };
	/* the seed is in the session's first line and its tag */
	static const int term_cols[] = { 0, 1, 16, 17, 6, 8, 9, 19, 18, 12, 13, 14 };
	char tile[96], brief[96], line[2560];
	view_tile_text(&r->winner, tile, sizeof tile);
	view_tile_brief(&r->winner, brief, sizeof brief);
	view_reproduce(&r->winner, a->space, a->set.kernel, command, line, sizeof line);
	struct fgo_table *t = table_new((int)FGO_ARRAY_SIZE(headers), headers);
	if (!t)
		return FGO_EFAIL;
	view_problem_cells(t, &r->winner);
	table_add(t, "%s", tune_kind_name(a->o.kind));
	table_add(t, "%llu", (unsigned long long)a->o.seed);
	table_add(t, "%ld", r->runs);
	table_add(t, "%zu", s->n);
	table_add(t, "%ld", r->found_at);
	table_add(t, "%s", tile);
	table_add(t, "%.4g", r->ms);
	table_add(t, "%.4g", r->tflops);
	table_add(t, "%lld", (long long)r->run_id);
	table_add(t, "%s", line);
	table_add(t, "%d", r->winner.world);
	table_add(t, "%ldx%ldx%ld", r->winner.m, r->winner.n, r->winner.k);
	table_add(t, "%s", brief);
	table_add(t, "%ld", r->found_at);
	int cols[NCOLS_OUT], n = 0;
	if (a->format == FGO_FMT_TABLE)
		for (size_t i = 0; i < FGO_ARRAY_SIZE(term_cols); i++)
			cols[n++] = term_cols[i];
	else
		for (int i = 0; i < NCOLS_OUT; i++)
			cols[n++] = i;
	struct fgo_table *shown = table_select(t, cols, n, NULL);
	table_fit(shown, FGO_TABLE_COLUMNS);
	int rc = shown && table_print(shown, a->format, stdout) == 0 ? FGO_OK : FGO_EFAIL;
	if (rc == FGO_OK && a->format == FGO_FMT_TABLE) {
		printf("\nreproduce:\n");
		view_print_command(stdout, line, FGO_TABLE_COLUMNS);
	}
	table_free(shown);
	table_free(t);
	return rc;
}

/* The default budget: all of it for grid, else 15% (at least 10). */
static long default_budget(enum tune_kind kind, size_t n)
{
	long b = kind == TUNE_GRID ? (long)n : (long)((double)n * 0.15 + 0.999);
	if (b < 10)
		b = 10;
	return b < (long)n ? b : (long)n;
}

int cmd_tune_ranks(int argc, char **argv, int *np)
{
	struct tune_args a = {
		.warmup = -1, .format = FGO_FMT_TABLE,
		.o = { .kind = TUNE_ANNEAL, .backend = "auto", .seed = 1, .progress = 1, .validate = 1,
		       .timeout_s = 120, .heap_limit = 0 },
	};
	struct fgo_plan plan;
	*np = 0;
	if (cmd_wants_help(argc, argv))
		return FGO_OK;
	config_defaults(&a.base);
	memset(&plan, 0, sizeof plan);
	int rc = parse(argc, argv, &a);
	if (rc == FGO_OK)
		rc = load_space(&a, &plan);
	if (rc == FGO_OK && !a.dry_run)
		*np = a.base.world > 0 ? a.base.world : 1;
	plan_free(&plan);
	return rc;
}

int cmd_tune(int argc, char **argv)
{
	int rank, ranks;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &ranks);
	if (cmd_wants_help(argc, argv))
		return rank == 0 ? cmd_help(cmd_tune_usage) : 0;

	struct tune_args a = {
		.warmup = -1, .format = FGO_FMT_TABLE,
		.o = { .kind = TUNE_ANNEAL, .backend = "auto", .seed = 1, .progress = 1, .validate = 1,
		       .timeout_s = 120, .heap_limit = 0 },
	};
	config_defaults(&a.base);
	fgo_mute = rank != 0;
	struct fgo_plan plan;
	struct tune_space space;
	struct tune_model model;
	memset(&plan, 0, sizeof plan);
	memset(&space, 0, sizeof space);
	memset(&model, 0, sizeof model);
	char problem[256], line[2048], resume[2400];
	int rc = parse(argc, argv, &a);
	if (rc == FGO_OK)
		rc = load_space(&a, &plan);
	if (rc == FGO_OK && tune_space_build(&plan, a.o.heap_limit, &space) != FGO_OK) {
		error("out of memory building the space");
		rc = FGO_EFAIL;
	}
	problem_text(&a.base, problem, sizeof problem);
	if (rc == FGO_OK && space.n == 0 && !a.dry_run) {
		error("no configuration of %s can run %s: all %zu pruned, e.g. %s (change the shape or"
		      " the space; --dry-run lists every reason)",
		      a.space ? a.space : "the default space", problem, plan.count,
		      space.first_reason);
		rc = FGO_EUSAGE;
	}
	fgo_mute = 0;
	if (rc != FGO_OK || a.dry_run) {
		if (rc == FGO_OK && rank == 0) {
			rc = print_space(&space, a.o.heap_limit, a.format);
			note("%s: %zu configuration%s, %zu candidate%s, %zu pruned", problem, plan.count,
			     plan.count == 1 ? "" : "s", space.n, space.n == 1 ? "" : "s", space.pruned);
		}
		tune_space_free(&space);
		plan_free(&plan);
		return rc == FGO_OK && rank == 0 ? cmd_finish_stdout(rc) : rc;
	}

	a.o.db_path = cmd_db_path(a.db);
	if (a.set.kernel && !a.strategy)
		a.o.kind = TUNE_ANNEAL; /* the cost model knows only the shipped kernels */
	else if (!a.strategy || a.o.kind == TUNE_MODEL)
		rc = choose_strategy(&a, &space, &model, rank);
	if (rc != FGO_OK) {
		tune_model_free(&model);
		tune_space_free(&space);
		plan_free(&plan);
		return rc;
	}
	if (!a.o.tag) {
		snprintf(a.tag, sizeof a.tag, "tune-%s-%s-w%d-%ldx%ldx%ld-%s-s%llu", a.base.algorithm,
			 dtype_name(a.base.dtype), a.base.world, a.base.m, a.base.n, a.base.k,
			 tune_kind_name(a.o.kind), (unsigned long long)a.o.seed);
		for (char *c = a.tag; *c; c++) /* user:NAME: a tag that names files too */
			if (*c == ':')
				*c = '-';
		a.o.tag = a.tag;
	}
	if (!a.budget_given && a.o.time_s <= 0)
		a.o.budget = default_budget(a.o.kind, space.n);
	if (a.o.budget > (long)space.n && a.o.kind != TUNE_HALVING)
		a.o.budget = (long)space.n;
	cmd_command_line(argc, argv, ranks, line, sizeof line);
	a.o.space_path = a.space ? a.space : "(default space)";
	a.o.command_line = line;
	/* a default strategy is named in the resume line: a fit made meanwhile
	 * must not turn the session into another */
	char named[sizeof line + 32];
	snprintf(named, sizeof named, "%s%s%s", line, a.strategy ? "" : " --strategy ",
		 a.strategy ? "" : tune_kind_name(a.o.kind));
	interrupt_resume_command(named, a.o.resume, a.db ? NULL : a.o.db_path, resume, sizeof resume);
	a.o.resume_command = resume;
	if (rank == 0 && a.o.progress) {
		char budget[96];
		if (a.o.budget && a.o.time_s > 0)
			snprintf(budget, sizeof budget, "%ld run%s or %g s", a.o.budget,
				 a.o.budget == 1 ? "" : "s", a.o.time_s);
		else if (a.o.budget)
			snprintf(budget, sizeof budget, "%ld run%s", a.o.budget, a.o.budget == 1 ? "" : "s");
		else
			snprintf(budget, sizeof budget, "%g s", a.o.time_s);
		note("tune %s: %s, seed %llu, %zu candidate%s (%zu pruned), budget %s; tag %s",
		     problem, tune_kind_name(a.o.kind), (unsigned long long)a.o.seed, space.n,
		     space.n == 1 ? "" : "s", space.pruned, budget, a.o.tag);
	}

	struct tune_outcome r;
	rc = tune_run(MPI_COMM_WORLD, &plan, &space, &a.o, &r);
	if (rank == 0 && r.found) {
		char tile[96];
		view_tile_text(&r.winner, tile, sizeof tile);
		int printed = print_outcome(&a, &space, &r, named);
		note("winner %s: %.4g ms over %d iterations, found at run %ld of %ld (%ld from the"
		     " store, %ld failed) in a space of %zu; stored with tag %s in %s",
		     tile, r.ms, r.iterations, r.found_at, r.runs, r.stored, r.failed, space.n,
		     a.o.tag, a.o.db_path);
		if (printed != FGO_OK && rc == FGO_OK)
			rc = printed;
	} else if (rank == 0 && rc != FGO_EUSAGE && !r.complete) {
		error("no run of %s was ok in %ld run%s (`fgobench list` and `fgobench show` tell why)",
		      problem, r.runs, r.runs == 1 ? "" : "s");
	}
	tune_model_free(&model);
	tune_space_free(&space);
	plan_free(&plan);
	return rc;
}
