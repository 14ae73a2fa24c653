/* cmd_show.c: `fgobench show RUN_ID`: every stored field of one run, the
 * environment of its sweep, its samples in brief, and the line that
 * reproduces it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "cmd/cmd.h"
#include "fgo.h"
#include "views/table.h"
#include "views/views.h"

const char cmd_show_usage[] =
	"usage: fgobench show RUN_ID [--format table|md|csv|json] [--db F]\n"
	"\n"
	"Every stored field of run RUN_ID (the run column of `best`, or the ids in\n"
	"the store): configuration, status and reason, times (bulk too, where the\n"
	"backend measures it), TFLOPS, bandwidth, overlap, speedup, sol, validation\n"
	"errors, device telemetry (clocks, temperature, power); the sweep's\n"
	"environment (host, backend, devices, versions, git revision, command\n"
	"line); the number of stored samples per measurement; the problem it\n"
	"shares its inputs, reference and baseline with (seed, how outputs were\n"
	"checked, the reference's own check, the baseline's samples); and the\n"
	"`mpirun ... fgobench run` line that reproduces it. With csv or json: one\n"
	"record with every field.\n"
	"\n"
	"  --format F  table (field, value lines), md, csv or json (default table)\n"
	"  --db F      the store (default $FGOBENCH_DB or ./fgobench.db)\n";

static const char query[] =
	"SELECT r.*, s.tag AS sweep_tag, s.status AS sweep_status, s.spec_path, s.host, s.backend,"
	"  s.devices, s.driver, s.runtime, s.arch, s.mpi_ranks, s.fgobench_version, s.git_revision,"
	"  s.command_line,"
	"  (SELECT group_concat(kind || '=' || n, ' ') FROM (SELECT kind, count(*) AS n FROM samples"
	"     WHERE run_id = r.id GROUP BY kind ORDER BY kind)) AS samples,"
	"  p.seed AS problem_seed, p.check_method AS problem_check,"
	"  p.reference_checked AS problem_reference_checked,"
	"  p.reference_max_rel_err AS problem_reference_max_rel_err,"
	"  (SELECT count(*) FROM problem_samples WHERE problem_id = r.problem_id)"
	"    AS problem_baseline_samples"
	" FROM runs r JOIN sweeps s ON s.id = r.sweep_id LEFT JOIN problems p ON p.id = r.problem_id"
	" WHERE r.id = ?1";

static const char config_query[] = "SELECT " VIEW_CONFIG_COLUMNS " FROM runs WHERE id = ?1";

/* The fields in one record, plus summary and reproduce, for any format. */
static struct fgo_table *record(sqlite3_stmt *st, const struct fgo_config *cfg,
				enum fgo_format format)
{
	int n = sqlite3_column_count(st);
	const char *summary = algo_find(cfg->algorithm) ? algo_find(cfg->algorithm)->summary : "";
	char line[512];
	config_reproduce_line(cfg, line, sizeof line);

	if (format == FGO_FMT_TABLE || format == FGO_FMT_MD) {
		static const char *const kv[] = { "field", "value" };
		struct fgo_table *t = table_new(2, kv);
		for (int c = 0; t && c < n; c++) {
			const unsigned char *v = sqlite3_column_text(st, c);
			table_add(t, "%s", sqlite3_column_name(st, c));
			table_add(t, "%s", v ? (const char *)v : "");
		}
		if (t) {
			table_add(t, "%s", "algorithm_summary");
			table_add(t, "%s", summary);
			table_add(t, "%s", "reproduce");
			table_add(t, "%s", line);
		}
		return t;
	}
	const char **names = calloc((size_t)n + 2, sizeof *names);
	if (!names)
		return NULL;
	for (int c = 0; c < n; c++)
		names[c] = sqlite3_column_name(st, c);
	names[n] = "algorithm_summary";
	names[n + 1] = "reproduce";
	struct fgo_table *t = table_new(n + 2, names);
	free(names);
	for (int c = 0; t && c < n; c++) {
		const unsigned char *v = sqlite3_column_text(st, c);
		table_add(t, "%s", v ? (const char *)v : "");
	}
	if (t) {
		table_add(t, "%s", summary);
		table_add(t, "%s", line);
	}
	return t;
}

int cmd_show(int argc, char **argv)
{
	static const char *const opts[] = { "--format", "--db" };
	const char *db = NULL, *id_text = NULL;
	enum fgo_format format = FGO_FMT_TABLE;
	long id = 0;
	struct fgo_store *store = NULL;
	sqlite3_stmt *st = NULL, *cst = NULL;
	struct fgo_table *t = NULL;
	struct fgo_config cfg;
	int rc = FGO_OK;

	if (cmd_wants_help(argc, argv))
		return cmd_help(cmd_show_usage);
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;
		switch (cmd_match_option("show", argc, argv, &i, opts, 2, &v)) {
		case -2: return FGO_EUSAGE;
		case 0:
			if (format_parse(v, &format))
				return cmd_usage_error("show", cmd_show_usage,
						       "--format expects table, md, csv or json, got \"%s\"", v);
			break;
		case 1: db = v; break;
		default:
			if (argv[i][0] == '-' || id_text)
				return cmd_usage_error("show", cmd_show_usage, "unexpected argument \"%s\"",
						       argv[i]);
			id_text = argv[i];
		}
	}
	if (!id_text)
		return cmd_usage_error("show", cmd_show_usage, "which run? give a RUN_ID");
	if (cmd_parse_long("show", "RUN_ID", id_text, 1, 1L << 62, &id))
		return FGO_EUSAGE;
	if ((rc = view_open(db, &store)))
		return rc;
	if ((rc = view_prepare(store, query, &st)) || (rc = view_prepare(store, config_query, &cst)))
		goto out;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(cst, 1, id);
	if (sqlite3_step(cst) != SQLITE_ROW || sqlite3_step(st) != SQLITE_ROW) {
		error("no run %ld in %s (`fgobench list` shows the sweeps, `fgobench best` run ids)", id,
		      cmd_db_path(db));
		rc = FGO_EUSAGE;
		goto out;
	}
	view_config(cst, 0, &cfg);
	t = record(st, &cfg, format);
	if (!t || table_print(t, format, stdout) != 0)
		rc = FGO_EFAIL;
out:
	table_free(t);
	sqlite3_finalize(st);
	sqlite3_finalize(cst);
	store_close(store);
	return cmd_finish_stdout(rc);
}
