/* cmd_regress.c: `fgobench regress`: options, the comparison table on
 * stdout, the summary on stderr, the JUnit file; the work is in regress.c. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "fgo.h"
#include "sink.h"
#include "views/gate.h"
#include "views/regress.h"
#include "views/table.h"
#include "views/views.h"

const char cmd_regress_usage[] =
	"usage: fgobench regress --base TAG|SWEEP_ID --head TAG|SWEEP_ID [--threshold PCT]\n"
	"       [--alpha A] [--gate] [--history N] [--host H] [--junit FILE]\n"
	"       [--format table|md|csv|json] [--db F] [--base-db F]\n"
	"\n"
	"Compares the ok runs of two sweeps configuration by configuration (same\n"
	"algorithm, dtype, world, shape and tunables). A side is a sweep id when it\n"
	"is all digits and such a sweep exists, else a tag: every sweep with that tag,\n"
	"the newest ok run of each configuration. For each pair: the medians of the\n"
	"fused samples, the change (head - base) / base in percent, and the p-value\n"
	"of a Mann-Whitney U test of head samples against base samples. A pair is a\n"
	"regression when it is slower by more than the threshold and p < alpha, an\n"
	"improvement when faster by more than the threshold and p < alpha. Rows list\n"
	"regressions first; a summary goes to stderr. Exit status 1 when any\n"
	"regression was found, 0 otherwise, 2 when nothing could be compared or\n"
	"--junit names a file that cannot be written (checked before comparing).\n"
	"The table fits 120 columns (a long config continued on the next line).\n"
	"\n"
	"With --gate, the nightly gate judges instead (README, \"The nightly\n"
	"gate\"): a side is a night, every sweep of its tag a round; a\n"
	"configuration's level is the median of its rounds' medians, each round's\n"
	"common factor taken out. The median change over all configurations is the\n"
	"machine's: taken out of every change when it is within the threshold, or\n"
	"when the control (the vendor baseline, measured before every problem)\n"
	"moved with it (\"the machine changed\"); otherwise every configuration\n"
	"is judged as measured. A change counts above the threshold with a p (the\n"
	"change over its noise: the larger of its rounds' spread, its spread over\n"
	"up to N earlier nights of the base's spec on its host, and tonight's\n"
	"spread over all configurations) below alpha divided by the configurations\n"
	"compared. The change and p shown are those judged.\n"
	"\n"
	"A side is one machine's sweeps: in a store merged from several machines\n"
	"(`fgobench merge`) a tag run on several hosts is refused unless --host\n"
	"names the one to compare; the gate's earlier nights are the base's host's.\n"
	"\n"
	"  --base S       the reference: a tag or a sweep id\n"
	"  --head S       the candidate: a tag or a sweep id\n"
	"  --threshold P  smallest change that counts, in percent (default 5)\n"
	"  --alpha A      largest p-value that counts as significant (default 0.01;\n"
	"                 with --gate, for the whole night)\n"
	"  --gate         judge as the nightly gate (rounds, machine, control, history)\n"
	"  --history N    earlier nights the gate's noise model reads (default 10)\n"
	"  --host H       only the sweeps run on host H (the sweeps' host column)\n"
	"  --junit FILE   also write the result as JUnit XML (one testcase per pair)\n"
	"  --format F     table, md, csv or json (default table)\n"
	"  --db F         the store (default $FGOBENCH_DB or ./fgobench.db)\n"
	"  --base-db F    read the base side from another store (default: --db)\n";

static struct fgo_table *report_table(const struct fgo_regress_report *rep)
{
	struct fgo_table *t = table_new(REGRESS_COLUMNS, regress_headers);
	for (size_t i = 0; t && i < rep->count; i++)
		regress_table_row(t, &rep->pairs[i]);
	return t;
}

static int takes_value(const char *opt)
{
	static const char *const opts[] = { "--base",  "--head", "--threshold", "--alpha",
					    "--junit", "--db",   "--base-db",   "--format",
					    "--history", "--host" };
	for (size_t i = 0; i < FGO_ARRAY_SIZE(opts); i++)
		if (!strcmp(opt, opts[i]))
			return 1;
	return 0;
}

static const char *plural(int n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

int cmd_regress(int argc, char **argv)
{
	if (cmd_wants_help(argc, argv))
		return cmd_help(cmd_regress_usage);
	struct fgo_regress_opts o;
	regress_opts_defaults(&o);
	const char *db = NULL, *junit = NULL;
	enum fgo_format format = FGO_FMT_TABLE;
	int rc = FGO_OK;
	for (int i = 1; i < argc && rc == FGO_OK; i++) {
		const char *a = argv[i];
		if (takes_value(a) && i + 1 >= argc)
			rc = cmd_usage_error("regress", cmd_regress_usage, "%s needs a value", a);
		else if (!strcmp(a, "--base"))
			o.base = argv[++i];
		else if (!strcmp(a, "--head"))
			o.head = argv[++i];
		else if (!strcmp(a, "--threshold"))
			rc = cmd_parse_double("regress", a, argv[++i], 0, 1e6, &o.threshold_pct);
		else if (!strcmp(a, "--alpha"))
			rc = cmd_parse_double("regress", a, argv[++i], 1e-300, 1, &o.alpha);
		else if (!strcmp(a, "--gate"))
			o.gate = 1;
		else if (!strcmp(a, "--history")) {
			long n = 0;
			rc = cmd_parse_long("regress", a, argv[++i], 0, 1000, &n);
			o.history = (int)n;
		} else if (!strcmp(a, "--host"))
			o.host = argv[++i];
		else if (!strcmp(a, "--junit"))
			junit = argv[++i];
		else if (!strcmp(a, "--db"))
			db = argv[++i];
		else if (!strcmp(a, "--base-db"))
			o.base_db = argv[++i];
		else if (!strcmp(a, "--format")) {
			if (format_parse(argv[++i], &format))
				rc = cmd_usage_error("regress", cmd_regress_usage,
						     "--format expects table, md, csv or json, got \"%s\"",
						     argv[i]);
		} else {
			rc = cmd_usage_error("regress", cmd_regress_usage, "unknown option \"%s\"", a);
		}
	}
	if (rc == FGO_OK && (!o.base || !o.head))
		rc = cmd_usage_error("regress", cmd_regress_usage, "both --base and --head are needed");
	if (rc != FGO_OK)
		return rc;
	o.db = cmd_db_path(db);

	char err[1024];
	/* Before comparing: a JUnit path that cannot be written is bad usage
	 * (exit 2), not the 1 that tells a CI gate a regression was found. */
	if (junit && sink_check_file("--junit", junit, err, sizeof err) != FGO_OK) {
		error("%s", err);
		return FGO_EUSAGE;
	}
	struct fgo_regress_report rep;
	rc = regress_compare(&o, &rep, err, sizeof err);
	if (rc != FGO_OK) {
		error("%s", err);
		regress_report_free(&rep);
		return rc;
	}
	struct fgo_table *t = report_table(&rep);
	table_fit(t, FGO_TABLE_COLUMNS); /* a long config continues on the next line */
	if (!t || table_print(t, format, stdout) != 0)
		rc = FGO_EFAIL;
	table_free(t);
	if (rep.gate.on) {
		char text[1024];
		gate_describe(&rep.gate, rep.count, o.threshold_pct, o.alpha, text, sizeof text);
		note("%s", text);
	}
	note("%zu compared, %d %s, %d %s, %d only in base, %d only in head", rep.count,
	     rep.regressions, plural(rep.regressions, "regression", "regressions"), rep.improvements,
	     plural(rep.improvements, "improvement", "improvements"), rep.only_base, rep.only_head);
	if (junit && regress_write_junit(&rep, &o, junit, err, sizeof err) != FGO_OK) {
		error("%s", err);
		rc = FGO_EFAIL;
	}
	if (rc == FGO_OK)
		rc = regress_exit_code(&rep);
	regress_report_free(&rep);
	return cmd_finish_stdout(rc);
}
