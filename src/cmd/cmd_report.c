/* cmd_report.c: `fgobench report`: options, then report.c writes the
 * files; the paths written go to stdout, the verdict to stderr. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "fgo.h"
#include "sink.h"
#include "views/report.h"

const char cmd_report_usage[] =
	"usage: fgobench report [--tag T | --sweep ID] [--against TAG|ID|auto] [-o DIR]\n"
	"       [--format md|html] [--threshold PCT] [--alpha A] [--junit FILE]\n"
	"       [--gate] [--no-plots] [--db F]\n"
	"\n"
	"Writes one sweep's report to DIR/index.md, and with --format html also\n"
	"DIR/index.html (one static page: no scripts, nothing fetched from\n"
	"elsewhere). It holds a summary with the verdict; the regressions and\n"
	"improvements against an earlier run, judged as `fgobench regress` judges\n"
	"them; the runs that are not ok, counted by status, with their reasons; the\n"
	"best configuration of each problem per world size (with `x floor`, a\n"
	"memory-bound run's time / the read floor of its bytes, when the sweep's\n"
	"machine has one from `fgobench calibrate`); the roofline (and read floor),\n"
	"overlap and heatmap plots of this sweep's runs (PNG and SVG beside the\n"
	"page); its traced runs (`sweep --trace best`, `run --trace`), each with its\n"
	"timeline's summary, its trace-event JSON named and drawn (plot timeline)\n"
	"when the file is still there; and\n"
	"the environment (host, devices, driver, clocks, fgobench revision). The\n"
	"sweep is the newest tagged T, sweep ID, or the newest in the store; auto\n"
	"compares with the newest earlier sweep of the same spec hash on the same\n"
	"host (none on a first night: nothing compared). The files written go to\n"
	"stdout. Exit status 1 when the comparison found a regression, 0 otherwise\n"
	"(also NO VERDICT: a night the gate found too noisy to judge, said in the\n"
	"report and on stderr), 2 for bad input.\n"
	"\n"
	"  --tag T          report the newest sweep tagged T\n"
	"  --sweep ID       report sweep ID\n"
	"  --against S      compare with a tag, a sweep id, or auto (default: no comparison)\n"
	"  -o DIR           output directory, created when missing (default fgobench-out/report)\n"
	"  --format F       md (index.md) or html (index.md and index.html); default md\n"
	"  --threshold PCT  smallest change that counts, in percent (default 5)\n"
	"  --alpha A        largest p-value that counts as significant (default 0.01)\n"
	"  --junit FILE     also write the comparison as JUnit XML (with --against)\n"
	"  --gate           judge as the nightly gate (`fgobench regress --gate`): the\n"
	"                   sweep's whole tag against the previous night's (auto: the\n"
	"                   newest earlier sweep of the spec and host with another tag)\n"
	"  --no-plots       no plots (no gnuplot needed)\n"
	"  --db F           the store (default $FGOBENCH_DB or ./fgobench.db)\n";

static int parse(int argc, char **argv, struct report_opts *o)
{
	static const char *const opts[] = { "--tag",       "--sweep", "--against", "-o",
					    "--format",    "--threshold", "--alpha", "--junit",
					    "--db" };
	long sweep = 0;
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;
		int rc = FGO_OK;
		if (!strcmp(argv[i], "--no-plots")) {
			o->plots = 0;
			continue;
		}
		if (!strcmp(argv[i], "--gate")) {
			o->gate = 1;
			continue;
		}
		switch (cmd_match_option("report", argc, argv, &i, opts, (int)FGO_ARRAY_SIZE(opts), &v)) {
		case -2: return FGO_EUSAGE;
		case -1:
			return cmd_usage_error("report", cmd_report_usage, "unknown option \"%s\"", argv[i]);
		case 0: o->tag = v; break;
		case 1:
			rc = cmd_parse_long("report", "--sweep", v, 1, 1L << 62, &sweep);
			o->sweep_id = sweep;
			break;
		case 2:
			if (!*v)
				return cmd_usage_error("report", cmd_report_usage,
						       "--against expects a tag, a sweep id or auto");
			o->against = v;
			break;
		case 3: o->dir = v; break;
		case 4:
			if (!strcmp(v, "html"))
				o->html = 1;
			else if (strcmp(v, "md") && strcmp(v, "markdown"))
				return cmd_usage_error("report", cmd_report_usage,
						       "--format expects md or html, got \"%s\"", v);
			break;
		case 5:
			rc = cmd_parse_double("report", "--threshold", v, 0, 1e6, &o->threshold_pct);
			break;
		case 6: rc = cmd_parse_double("report", "--alpha", v, 1e-300, 1, &o->alpha); break;
		case 7: o->junit = v; break;
		default: o->db = v;
		}
		if (rc != FGO_OK)
			return FGO_EUSAGE;
	}
	if (o->tag && o->sweep_id)
		return cmd_usage_error("report", cmd_report_usage, "give --tag or --sweep, not both");
	if (o->junit && !o->against)
		return cmd_usage_error("report", cmd_report_usage,
				       "--junit writes the comparison: it needs --against");
	char err[512];
	if (sink_check_dir("-o", o->dir, err, sizeof err) != FGO_OK)
		return cmd_usage_error("report", cmd_report_usage, "%s", err);
	return FGO_OK;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o;
	struct report_result r;
	char err[1024];
	char base[256];
	int rc;

	if (cmd_wants_help(argc, argv))
		return cmd_help(cmd_report_usage);
	report_opts_defaults(&o);
	if ((rc = parse(argc, argv, &o)))
		return rc;
	o.db = cmd_db_path(o.db);
	rc = report_write(&o, &r, err, sizeof err);
	if (rc != FGO_OK) {
		error("%s", err);
		return cmd_finish_stdout(rc);
	}
	printf("%s\n", r.md_path);
	if (r.html_path[0])
		printf("%s\n", r.html_path);
	if (o.junit)
		printf("%s\n", o.junit);
	sink_terminal(r.base, base, sizeof base); /* a stored tag, on one line */
	if (!o.against)
		note("report of sweep %lld: %d run%s not ok (%d failed, mismatched or timed out);"
		     " no comparison", (long long)r.sweep_id, r.not_ok, r.not_ok == 1 ? "" : "s",
		     r.failed);
	else if (!r.base[0])
		note("report of sweep %lld: nothing to compare with (no earlier sweep of its spec on"
		     " this host)", (long long)r.sweep_id);
	else
		note("report of sweep %lld against %s: %d compared, %d regression%s, %d improvement%s;"
		     " %d run%s not ok%s", (long long)r.sweep_id, base, r.compared, r.regressions,
		     r.regressions == 1 ? "" : "s", r.improvements, r.improvements == 1 ? "" : "s",
		     r.not_ok, r.not_ok == 1 ? "" : "s",
		     r.no_verdict ? "; NO VERDICT: the gate found the night too noisy to judge" : "");
	return cmd_finish_stdout(r.regressions > 0 ? FGO_EFAIL : FGO_OK);
}
