/* cmd_merge.c: `fgobench merge`: options, and what each store added as a
 * table on stdout; the work is in store_merge.c. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "fgo.h"
#include "sink.h"
#include "store/store.h"
#include "views/table.h"

const char cmd_merge_usage[] =
	"usage: fgobench merge STORE... -o OUT [--dry-run] [--format table|md|csv|json]\n"
	"\n"
	"Adds the sweeps of each STORE (stores written on other machines: CI hosts'\n"
	"nightlies, a cluster's nodes) to the store OUT, each with every row that\n"
	"depends on it (problems, runs, samples, traces) under new ids and its\n"
	"provenance as stored: host, devices, driver, fgobench version, git\n"
	"revision, command line. Sweeps are added oldest first. The machine-wide\n"
	"rows (ceilings, cost-model fits, read floors, collective curves,\n"
	"predictions) are added unless an equal row is there.\n"
	"\n"
	"A row per STORE on stdout: its schema version, its hosts, the sweeps\n"
	"added, there already (skipped) and updated, the runs added, and the\n"
	"machine-wide rows added and there already; the totals on stderr.\n"
	"\n"
	"A sweep of OUT with the same host, spec hash, tag and start time is the\n"
	"same sweep when the two share a finished run (the same configuration,\n"
	"status, times and median). With the same runs it is there already and\n"
	"skipped, so merging a store again adds nothing. A copy in OUT that is an\n"
	"earlier state of the STORE's (merged while still running, or resumed\n"
	"since: every finished run of it is in the STORE's, which has more or has\n"
	"finished) is updated to it, keeping its place; a later one is kept.\n"
	"Copies that each have finished runs the other lacks are refused: nothing\n"
	"is written (exit 2). A sweep that shares no finished run (another round\n"
	"started in the same second) is added.\n"
	"\n"
	"OUT is a new file, made whole under a temporary name beside it and linked\n"
	"into place (never over a file that appeared meanwhile), or an existing\n"
	"store, to which the sweeps are added in one transaction: all or nothing,\n"
	"readers see it before or after (merge into a store no sweep is writing:\n"
	"a sweep waits at most 10 s for the merge). Foreign keys and SQLite's\n"
	"integrity check are verified before anything is kept. An OUT that is a\n"
	"symbolic link or a file that is not a store is refused. A STORE of an\n"
	"older schema is read through an upgraded copy and left as it is; an older\n"
	"OUT is upgraded, as a sweep would upgrade it.\n"
	"\n"
	"The views read a merged store per machine: `history` follows one host\n"
	"(the newest sweep's, or --host's), `regress` compares one host's sweeps\n"
	"(a tag run on several hosts needs --host), `report --gate` the head\n"
	"sweep's host's nights.\n"
	"\n"
	"  -o OUT      the store to make or add to (required)\n"
	"  --dry-run   say what would be added; write nothing\n"
	"  --format F  table, md, csv or json (default table)\n";

/* "there": in OUT already (skipped); updated: an earlier state replaced;
 * rows: the machine-wide rows (ceilings, fits, curves, predictions) */
static const char *const headers[] = { "store",        "schema",       "hosts",
				       "sweeps added", "sweeps there", "sweeps updated",
				       "runs added",   "rows added",   "rows there" };

int cmd_merge(int argc, char **argv)
{
	static const char *const opts[] = { "-o", "--format" };
	enum { MAX_STORES = 256 };
	struct store_merge_source src[MAX_STORES];
	struct store_merge_total total;
	enum fgo_format format = FGO_FMT_TABLE;
	const char *out = NULL;
	int n = 0, dry_run = 0;
	char err[1024];

	if (cmd_wants_help(argc, argv))
		return cmd_help(cmd_merge_usage);
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;
		switch (cmd_match_option("merge", argc, argv, &i, opts, 2, &v)) {
		case -2: return FGO_EUSAGE;
		case 0: out = v; break;
		case 1:
			if (format_parse(v, &format))
				return cmd_usage_error("merge", cmd_merge_usage,
						       "--format expects table, md, csv or json, got \"%s\"", v);
			break;
		default:
			if (!strcmp(argv[i], "--dry-run")) {
				dry_run = 1;
			} else if (argv[i][0] == '-' && argv[i][1]) {
				return cmd_usage_error("merge", cmd_merge_usage, "unknown option \"%s\"",
						       argv[i]);
			} else if (n == MAX_STORES) {
				return cmd_usage_error("merge", cmd_merge_usage, "at most %d stores at once"
						       " (merge them in steps into one OUT)", MAX_STORES);
			} else {
				memset(&src[n], 0, sizeof src[n]);
				src[n++].path = argv[i];
			}
		}
	}
	if (!out)
		return cmd_usage_error("merge", cmd_merge_usage, "-o OUT is needed: the store to write");
	if (!n)
		return cmd_usage_error("merge", cmd_merge_usage, "no store to merge: name one or more");

	int rc = store_merge(out, src, n, dry_run, &total, err, sizeof err);
	if (rc != FGO_OK) {
		error("%s", err);
		return rc;
	}
	struct fgo_table *t = table_new((int)FGO_ARRAY_SIZE(headers), headers);
	long added = 0, updated = 0, running = 0;
	for (int i = 0; t && i < n; i++) {
		const struct store_merge_source *s = &src[i];
		table_add(t, "%s", s->path);
		if (s->is_output) {
			table_add(t, "%s", "");
			table_add(t, "%s", "(the output itself)");
		} else {
			table_add(t, "%d", s->version);
			table_add(t, "%s", s->hosts);
		}
		table_add(t, "%ld", s->sweeps_added);
		table_add(t, "%ld", s->sweeps_there);
		table_add(t, "%ld", s->sweeps_updated);
		table_add(t, "%ld", s->runs_added);
		table_add(t, "%ld", s->rows_added);
		table_add(t, "%ld", s->rows_there);
		added += s->sweeps_added;
		updated += s->sweeps_updated;
		running += s->running;
	}
	if (t)
		table_fit(t, FGO_TABLE_COLUMNS);
	if (!t || table_print(t, format, stdout) != 0)
		rc = FGO_EFAIL;
	table_free(t);
	char shown[512], hosts[300];
	sink_terminal(out, shown, sizeof shown);
	sink_terminal(total.host_list, hosts, sizeof hosts);
	if (running)
		note("%ld of the sweeps copied %s still running (or killed) in %s store: merge"
		     " again once %s done to bring %s up to date", running,
		     running == 1 ? "was" : "were", running == 1 ? "its" : "their",
		     running == 1 ? "it is" : "they are", running == 1 ? "it" : "them");
	note("%s%s (%s): %ld sweep%s added, %ld updated", dry_run ? "dry run, nothing written: " : "",
	     shown, total.created ? "a new store" : "an existing store", added,
	     added == 1 ? "" : "s", updated);
	note("%s holds %ld sweep%s of %ld host%s%s%s; foreign keys and integrity checked", shown,
	     total.sweeps, total.sweeps == 1 ? "" : "s", total.hosts, total.hosts == 1 ? "" : "s",
	     total.hosts ? ": " : "", hosts);
	return cmd_finish_stdout(rc);
}
