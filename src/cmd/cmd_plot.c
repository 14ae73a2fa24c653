/* cmd_plot.c: `fgobench plot roofline|overlap|heatmap`: options, then one
 * plot (or one per algorithm and dtype) per world size; see plot_roofline.c
 * and plot_kinds.c. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "fgo.h"
#include "sink.h"
#include "views/plot.h"
#include "views/plot_kinds.h"
#include "views/views.h"

const char cmd_plot_usage[] =
	"usage: fgobench plot roofline|overlap|heatmap [--world W] [--tag T]\n"
	"       [--algorithm A] [--dtype D] [-o DIR] [--db F]\n"
	"       fgobench plot timeline FILE [-o DIR]\n"
	"\n"
	"Draws the store's newest ok run of every configuration with gnuplot and\n"
	"writes, for each world size (or only W), DIR/KIND_wW.dat (the data),\n"
	"DIR/KIND_wW.gp (the filled template from plots/; gnuplot runs inside DIR,\n"
	"so redraw by hand with `cd DIR && gnuplot KIND_wW.gp`), DIR/KIND_wW.png and\n"
	"DIR/KIND_wW.svg; the image paths go to stdout. Every file is written to a\n"
	"temporary in DIR and renamed over the old one (a link there is replaced,\n"
	"never followed). Tags and names from the store reach gnuplot as text only:\n"
	"characters other than letters, digits, spaces and _-.:/+=@,()%* show as ?.\n"
	"  roofline  X = M*N*K (log), Y = TFLOP/s of all ranks (log), ticks on\n"
	"            round numbers (0.002, 50, 2k; 2x10^9); a colour per algorithm\n"
	"            (and dtype, when several; per configuration less the tile when\n"
	"            one algorithm is plotted), a mark per tile BLK_MxBLK_NxBLK_K,\n"
	"            each named once in the legend (past 12, the rest share \"other\");\n"
	"            calibrated matrix peaks as lines;\n"
	"            and DIR/floor_wW.*, when the newest sweep's machine has a read\n"
	"            floor (calibrate) and some runs are memory-bound: their time\n"
	"            against the bytes of their per-rank GEMM (A + B + C), beside\n"
	"            the floor (the fastest read of those bytes) and 1.1x it\n"
	"  overlap   per problem, its best configuration's GEMM-only, comm-only,\n"
	"            fused and baseline times as bars\n"
	"  heatmap   per algorithm and dtype (file KIND_wW_ALGO_DTYPE), the best tile\n"
	"            of each (M, NxK) shape, coloured by TFLOP/s\n"
	"  timeline  the trace-event JSON FILE of `run --trace` or `sweep --trace\n"
	"            best` (not the store): one row per CTA (and per lane of a CTA\n"
	"            whose threads record side by side: the wgmma core's consumers,\n"
	"            storer and side warps), ranks stacked, one colour per event\n"
	"            kind (kernel, gemm, hand-over, take-over, put, wait, reduce),\n"
	"            time in microseconds from the first event; DIR/timeline_NAME.*\n"
	"\n"
	"  --world W      only world size W (default: every world in the store)\n"
	"  --tag T        only runs of sweeps tagged T\n"
	"  --algorithm A  only algorithm A (any case, - for _, short names such as\n"
	"                 gemm_rs; a family name such as all_reduce lists its algorithms)\n"
	"  --dtype D      only element type D (fp32, fp16, bf16)\n"
	"  -o DIR         output directory, created when missing (default fgobench-out)\n"
	"  --db F         the store (default $FGOBENCH_DB or ./fgobench.db)\n";

/* `plot timeline FILE [-o DIR]`: the trace file, not the store. */
static int plot_timeline_cmd(int argc, char **argv)
{
	static const char *const opts[] = { "-o" };
	const char *dir = "fgobench-out", *file = NULL;
	char err[512];
	for (int i = 2; i < argc; i++) {
		const char *v = NULL;
		switch (cmd_match_option("plot", argc, argv, &i, opts, 1, &v)) {
		case -2: return FGO_EUSAGE;
		case 0: dir = v; break;
		default:
			if ((argv[i][0] == '-' && argv[i][1]) || file)
				return cmd_usage_error("plot", cmd_plot_usage,
						       "unexpected argument \"%s\" (plot timeline FILE [-o DIR])",
						       argv[i]);
			file = argv[i];
		}
	}
	if (!file)
		return cmd_usage_error("plot", cmd_plot_usage,
				       "plot timeline needs the FILE `run --trace` wrote");
	if (sink_check_dir("-o", dir, err, sizeof err) != FGO_OK)
		return cmd_usage_error("plot", cmd_plot_usage, "%s", err);
	if (make_dirs(dir, err, sizeof err) != FGO_OK) {
		error("%s", err);
		return FGO_EUSAGE;
	}
	return cmd_finish_stdout(plot_timeline(file, dir));
}

static const struct {
	const char *name;
	int (*draw)(const struct plot_query *q);
} kinds[] = {
	{ "roofline", plot_roofline },
	{ "overlap", plot_overlap },
	{ "heatmap", plot_heatmap },
};

#define WORLDS_MAX 64

int cmd_plot(int argc, char **argv)
{
	static const char *const opts[] = { "--world", "--tag", "--algorithm", "--dtype",
					    "-o",      "--db" };
	struct plot_query q = { .dir = "fgobench-out" };
	const char *db = NULL;
	int kind = -1, rc = FGO_OK, world = 0;

	if (cmd_wants_help(argc, argv))
		return cmd_help(cmd_plot_usage);
	if (argc > 1 && !strcmp(argv[1], "timeline"))
		return plot_timeline_cmd(argc, argv);
	for (int i = 1; i < argc && rc == FGO_OK; i++) {
		const char *v = NULL;
		enum fgo_dtype t;
		switch (cmd_match_option("plot", argc, argv, &i, opts, 6, &v)) {
		case -2: return FGO_EUSAGE;
		case 0: rc = cmd_parse_int("plot", "--world", v, 1, 1 << 20, &world); break;
		case 1: q.tag = v; break;
		case 2:
			if (!(q.algorithm = cmd_algorithm_filter("plot", v)))
				return FGO_EUSAGE;
			break;
		case 3:
			if (dtype_parse(v, &t))
				return cmd_usage_error("plot", cmd_plot_usage,
						       "--dtype expects fp32, fp16 or bf16, got \"%s\"", v);
			q.dtype = dtype_name(t);
			break;
		case 4: q.dir = v; break;
		case 5: db = v; break;
		default:
			if (argv[i][0] == '-' || kind >= 0)
				return cmd_usage_error("plot", cmd_plot_usage, "unexpected argument \"%s\"",
						       argv[i]);
			for (int k = 0; k < (int)FGO_ARRAY_SIZE(kinds); k++)
				if (strcmp(argv[i], kinds[k].name) == 0)
					kind = k;
			if (kind < 0)
				return cmd_usage_error("plot", cmd_plot_usage,
						       "unknown plot \"%s\" (roofline, overlap, heatmap or timeline)",
						       argv[i]);
		}
	}
	if (rc != FGO_OK)
		return rc;
	if (kind < 0)
		return cmd_usage_error("plot", cmd_plot_usage, "which plot? roofline, overlap, heatmap or timeline");

	char err[512];
	int worlds[WORLDS_MAX], n = 0;
	if (sink_check_dir("-o", q.dir, err, sizeof err) != FGO_OK)
		return cmd_usage_error("plot", cmd_plot_usage, "%s", err);
	if ((rc = view_open(db, &q.store)))
		return rc;
	if ((rc = make_dirs(q.dir, err, sizeof err))) {
		error("%s", err);
		goto out;
	}
	q.world = world;
	if ((rc = plot_worlds(&q, worlds, WORLDS_MAX, &n)))
		goto out;
	if (n == 0) { /* why, as best and list say it */
		char why[1024];
		view_why_empty(store_db(q.store), cmd_db_path(db),
			       &(struct view_filter){ .world = world, .algorithm = q.algorithm,
						      .dtype = q.dtype, .tag = q.tag },
			       why, sizeof why);
		error("%s", why);
		rc = FGO_EUSAGE;
		goto out;
	}
	for (int w = 0; w < n && rc == FGO_OK; w++) {
		q.world = worlds[w];
		rc = kinds[kind].draw(&q);
	}
out:
	store_close(q.store);
	return cmd_finish_stdout(rc);
}
