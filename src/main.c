/* main.c: argument dispatch only. One sorted table of subcommands; what a
 * command needs before it runs (MPI) is a flag handled here, once. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "fgo.h"
#include "launch/launch.h"
#include "run/session.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	unsigned flags;
	const char *usage;
	const char *summary;
	/* (optional) the ranks the command's work needs, from its arguments
	 * (input errors said here, before any launch): run outside an MPI
	 * launcher, fgobench starts them itself (launch/launch.h); *np 0:
	 * nothing to launch (--help, --dry-run) */
	int (*ranks)(int argc, char **argv, int *np);
};

static const struct command commands[] = {
	{ "best", cmd_best, 0, cmd_best_usage, "best configuration per shape from the store", NULL },
	{ "calibrate", cmd_calibrate, FGO_NEEDS_MPI, cmd_calibrate_usage,
	  "measure this machine's ceilings and collective curves; fit its models", NULL },
	{ "compile", cmd_compile, 0, cmd_compile_usage,
	  "JIT-compile a spec's GPU kernels into the cache (no GPU needed)", NULL },
	{ "history", cmd_history, 0, cmd_history_usage,
	  "one problem's median night by night, with its change points", NULL },
	{ "info", cmd_info, FGO_NEEDS_MPI, cmd_info_usage, "backends, devices, algorithms, versions", NULL },
	{ "list", cmd_list, 0, cmd_list_usage, "sweeps in the store", NULL },
	{ "merge", cmd_merge, 0, cmd_merge_usage, "join stores from several machines into one", NULL },
	{ "plot", cmd_plot, 0, cmd_plot_usage, "roofline, overlap and heatmap plots (gnuplot)", NULL },
	{ "regress", cmd_regress, 0, cmd_regress_usage,
	  "compare two sweeps; exit 1 on a significant slowdown", NULL },
	{ "report", cmd_report, 0, cmd_report_usage,
	  "one sweep's report (Markdown, HTML); exit 1 on a regression", NULL },
	{ "run", cmd_run, FGO_NEEDS_MPI, cmd_run_usage, "run one configuration", cmd_run_ranks },
	{ "show", cmd_show, 0, cmd_show_usage, "every field of one stored run", NULL },
	{ "sweep", cmd_sweep, FGO_NEEDS_MPI, cmd_sweep_usage, "run a sweep spec and store every run",
	  cmd_sweep_ranks },
	{ "tune", cmd_tune, FGO_NEEDS_MPI, cmd_tune_usage,
	  "search a problem's configurations for the fastest within a budget", cmd_tune_ranks },
};

static const char main_usage[] = "usage: fgobench COMMAND [ARGS] [--help]\n"
				 "       fgobench --version\n";

static void print_commands(FILE *f)
{
	fputs(main_usage, f);
	fputs("\ncommands:\n", f);
	for (size_t i = 0; i < FGO_ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("\nEveryday use:\n"
	      "  fgobench sweep sweeps/smoke.json                run a sweep, every run stored\n"
	      "  fgobench best --m 512                           best tile per shape\n"
	      "  fgobench plot roofline --world 2                roofline PNG + SVG\n"
	      "  fgobench regress --base A --head B              exit 1 on a real slowdown\n"
	      "\n`fgobench COMMAND --help` describes each command, `fgobench help COMMAND` shows\n"
	      "its manual page.\n",
	      f);
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < FGO_ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int unknown_command(const char *name)
{
	const char *best = NULL;
	int best_d = 3;
	for (size_t i = 0; i < FGO_ARRAY_SIZE(commands); i++) {
		int d = edit_distance(name, commands[i].name);
		if (d < best_d) {
			best_d = d;
			best = commands[i].name;
		}
	}
	if (best)
		error("unknown command \"%s\" (did you mean \"%s\"?)", name, best);
	else
		error("unknown command \"%s\" (`fgobench --help` lists the commands)", name);
	return FGO_EUSAGE;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		print_commands(stderr);
		return FGO_EUSAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		if (argc > 2 && find_command(argv[2]))  /* the manual, else the usage */
			return cmd_finish_stdout(cmd_manual(argv[2], find_command(argv[2])->usage));
		print_commands(stdout);
		return cmd_finish_stdout(0);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("fgobench %s (git %s)\n", FGO_VERSION, fgo_git_revision);
		return cmd_finish_stdout(0);
	}
	const struct command *cmd = find_command(argv[1]);
	if (!cmd)
		return unknown_command(argv[1]);

	if (!(cmd->flags & FGO_NEEDS_MPI))
		return cmd->fn(argc - 1, argv + 1);
	if (cmd->ranks && !launch_under_launcher()) {
		int np = 0, rc = cmd->ranks(argc - 1, argv + 1, &np);
		if (rc != FGO_OK)
			return rc;
		if (np > 0)
			return launch_supervise(argc - 1, argv + 1, np);
	}

	if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
		error("MPI_Init failed (is OpenMPI installed? `make deps`)");
		return FGO_EFAIL;
	}
	/* MPI errors stay fatal (the default): a crash mid-sweep leaves
	 * 'started' rows that `sweep --resume` explains and reruns. */
	int rc = cmd->fn(argc - 1, argv + 1);
	/* All ranks agree on the exit status, so mpirun reports one. */
	int worst;
	MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		rc = cmd_finish_stdout(worst);
	else
		rc = worst;
	MPI_Finalize();
	return rc;
}
