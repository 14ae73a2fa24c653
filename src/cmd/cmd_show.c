/* cmd_show.c: `fgobench show RUN_ID`: every stored field of one run, the
 * environment of its sweep, its samples in brief, and the line that
 * reproduces it. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "cmd/cmd.h"
#include "fgo.h"
#include "sink.h"
#include "store/store.h"
#include "views/table.h"
#include "views/views.h"

const char cmd_show_usage[] =
	"usage: fgobench show RUN_ID [--wide] [--format table|md|csv|json] [--db F]\n"
	"\n"
	"Every stored field of run RUN_ID (the run column of `best`, or the ids in\n"
	"the store): configuration, status and reason, times (bulk too, where the\n"
	"backend measures it), TFLOPS, bandwidth, overlap, speedup, sol, validation\n"
	"errors, device telemetry (clocks, temperature, power); the sweep's\n"
	"environment (host, backend, devices, versions, git revision, command\n"
	"line); the number of stored samples per measurement; the problem it\n"
	"shares its inputs, reference and baseline with (seed, how outputs were\n"
	"checked, the reference's own check, the baseline's samples); and the\n"
	"`mpirun ... fgobench run` line that reproduces it. A traced run (`run\n"
	"--trace`, `sweep --trace best`) adds its timeline's summary: the JSON file,\n"
	"GEMM-busy % (share of CTA time in tile GEMMs), the shares of CTA time\n"
	"(gemm, comm, xchg, wait, idle: they add up to 100), communication hidden\n"
	"behind GEMM %, tail (last tile end to kernel end), skew between ranks,\n"
	"traced vs untraced time (the tracing overhead), per-rank times and the\n"
	"flag waits per peer. With csv or json: one record with every field.\n"
	"\n"
	"The table fits 120 columns: numbers to 4 significant digits (the timer's\n"
	"resolution and the spread of the samples leave no more), long values\n"
	"continued on the next line, and the reproduce line under the table, whole.\n"
	"--wide: one line per field however long, the numbers as stored (as csv\n"
	"and json have them).\n"
	"\n"
	"  --wide      the table with every value on one line, numbers as stored\n"
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

/* A traced run's summary (store_trace_get), as extra fields. */
#define TRACE_FIELDS 16
struct extra {
	int n;
	const char *name[TRACE_FIELDS];
	char value[TRACE_FIELDS][1024];
};

static void extra_add(struct extra *x, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void extra_add(struct extra *x, const char *name, const char *fmt, ...)
{
	va_list ap;
	if (x->n >= TRACE_FIELDS)
		return;
	x->name[x->n] = name;
	va_start(ap, fmt);
	vsnprintf(x->value[x->n], sizeof x->value[x->n], fmt, ap);
	va_end(ap);
	x->n++;
}

/* "" for NaN (not measured), else the number. */
static const char *num(char *buf, size_t len, double v, const char *fmt)
{
	if (isnan(v))
		buf[0] = 0;
	else
		snprintf(buf, len, fmt, v);
	return buf;
}

static int trace_fields(sqlite3 *db, long id, struct extra *x)
{
	struct fgo_trace_summary s;
	char file[1024], err[512], a[32];
	int found = 0;
	if (store_trace_get(db, id, &s, file, sizeof file, &found, err, sizeof err) != FGO_OK) {
		error("%s", err);
		return FGO_EFAIL;
	}
	if (!found)
		return FGO_OK;
	extra_add(x, "trace_file", "%s", file);
	extra_add(x, "trace_ctas", "%d", s.ctas);
	extra_add(x, "trace_events", "%ld (%ld dropped)", s.events, s.dropped);
	extra_add(x, "trace_tiles", "%ld", s.tiles);
	extra_add(x, "trace_kernel_us", "%s", num(a, sizeof a, s.kernel_us, "%.3f"));
	extra_add(x, "trace_gemm_busy_pct", "%s", num(a, sizeof a, s.gemm_pct, "%.2f"));
	extra_add(x, "trace_shares_pct",
		  "gemm %.2f + comm %.2f + xchg %.2f + wait %.2f + idle %.2f = %.2f", s.gemm_pct,
		  s.comm_pct, s.xchg_pct, s.wait_pct, s.idle_pct,
		  s.gemm_pct + s.comm_pct + s.xchg_pct + s.wait_pct + s.idle_pct);
	extra_add(x, "trace_comm_hidden_pct", "%s", num(a, sizeof a, s.hidden_pct, "%.2f"));
	extra_add(x, "trace_tail_us", "%s", num(a, sizeof a, s.tail_us, "%.3f"));
	extra_add(x, "trace_skew_us", "%s", num(a, sizeof a, s.skew_us, "%.3f"));
	extra_add(x, "trace_traced_ms", "%s", num(a, sizeof a, s.traced_ms, "%.6g"));
	extra_add(x, "trace_untraced_ms", "%s", num(a, sizeof a, s.untraced_ms, "%.6g"));
	extra_add(x, "trace_overhead_pct", "%s", num(a, sizeof a, s.overhead_pct, "%+.2f"));
	/* one field each for the per-rank times and the waits per peer */
	char *v = x->value[x->n];
	size_t at = 0, cap = sizeof x->value[0];
	v[0] = 0;
	for (int r = 0; r < s.world && at < cap; r++) {
		const struct fgo_trace_rank_sum *q = &s.ranks[r];
		at += (size_t)snprintf(v + at, cap - at, "%sr%d %.1f-%.1f us tail %.1f gemm %.1f%%",
				       r ? "; " : "", r, q->start_us, q->end_us, q->tail_us,
				       q->gemm_pct);
	}
	x->name[x->n++] = "trace_ranks";
	v = x->value[x->n];
	at = 0;
	v[0] = 0;
	for (int i = 0; i < s.nwaits && at < cap; i++) {
		const struct fgo_trace_wait *w = &s.waits[i];
		if (w->peer >= 0)
			at += (size_t)snprintf(v + at, cap - at, "%sr%d on r%d %.1f us (%ld)",
					       i ? "; " : "", w->rank, w->peer, w->us, w->count);
		else
			at += (size_t)snprintf(v + at, cap - at, "%sr%d on several %.1f us (%ld)",
					       i ? "; " : "", w->rank, w->us, w->count);
	}
	x->name[x->n++] = "trace_waits";
	trace_summary_free(&s);
	return FGO_OK;
}

/* The fields `run` prints (brief): what was run, how it went, the times
 * and the ratios; `show` prints the rest. */
static const char *const brief_fields[] = {
	"id",	     "algorithm",     "dtype",	     "world",	    "m",	   "n",
	"k",	     "config_key",    "status",	     "reason",	    "t_fused_ms",  "t_gemm_ms",
	"t_comm_ms", "t_baseline_ms", "t_bulk_ms",   "tflops_total", "tflops_per_rank",
	"overlap",   "speedup",	      "sol",	     "validated",   "max_rel_err", "trace_file",
};

static int is_brief(const char *name)
{
	for (size_t i = 0; i < FGO_ARRAY_SIZE(brief_fields); i++)
		if (!strcmp(name, brief_fields[i]))
			return 1;
	return 0;
}

/* A stored value as the table shows it: a real number to 4 significant
 * digits (unless wide: as stored), NULL as "". */
static void add_value(struct fgo_table *t, sqlite3_stmt *st, int c, int wide)
{
	const unsigned char *v = sqlite3_column_text(st, c);
	if (!wide && sqlite3_column_type(st, c) == SQLITE_FLOAT)
		table_add(t, "%.4g", sqlite3_column_double(st, c));
	else
		table_add(t, "%s", v ? (const char *)v : "");
}

/* The fields in one record, plus summary and reproduce, for any format:
 * table and md a field per row (with reproduce a row only when wide or
 * md: the table prints it under itself), csv and json one record. */
/* The line that reproduces the run of st's row: for a user kernel's, a
 * sweep of the spec and the manifest the row names. */
static void reproduce(sqlite3_stmt *st, const struct fgo_config *cfg, char *line, size_t len)
{
	const char *spec = NULL, *manifest = NULL, *command = NULL;
	for (int c = 0; c < sqlite3_column_count(st); c++) {
		if (!strcmp(sqlite3_column_name(st, c), "spec_path"))
			spec = (const char *)sqlite3_column_text(st, c);
		else if (!strcmp(sqlite3_column_name(st, c), "kernel_manifest"))
			manifest = (const char *)sqlite3_column_text(st, c);
		else if (!strcmp(sqlite3_column_name(st, c), "command_line"))
			command = (const char *)sqlite3_column_text(st, c);
	}
	view_reproduce(cfg, spec, manifest, command, line, len);
}

static struct fgo_table *record(sqlite3_stmt *st, const struct fgo_config *cfg,
				enum fgo_format format, int wide, int brief, const struct extra *x)
{
	int n = sqlite3_column_count(st);
	const char *summary = algo_find(cfg->algorithm) ? algo_find(cfg->algorithm)->summary : "";
	char line[2048];
	if (!summary[0] && cfg->params[0])
		summary = "a user kernel (kernel_manifest: its manifest, whose family gives the"
			  " sharding, reference and baseline)";
	reproduce(st, cfg, line, sizeof line);

	if (format == FGO_FMT_TABLE || format == FGO_FMT_MD) {
		static const char *const kv[] = { "field", "value" };
		struct fgo_table *t = table_new(2, kv);
		for (int c = 0; t && c < n; c++) {
			if (brief && !is_brief(sqlite3_column_name(st, c)))
				continue;
			table_add(t, "%s", sqlite3_column_name(st, c));
			add_value(t, st, c, wide || format == FGO_FMT_MD);
		}
		if (t && !brief) {
			table_add(t, "%s", "algorithm_summary");
			table_add(t, "%s", summary);
		}
		if (t && (wide || format == FGO_FMT_MD)) {
			table_add(t, "%s", "reproduce");
			table_add(t, "%s", line);
		}
		for (int i = 0; t && i < x->n; i++) {
			if (brief && !is_brief(x->name[i]))
				continue;
			table_add(t, "%s", x->name[i]);
			table_add(t, "%s", x->value[i]);
		}
		if (t && format == FGO_FMT_TABLE && !wide)
			table_fit(t, FGO_TABLE_COLUMNS);
		return t;
	}
	const char **names = calloc((size_t)(n + 2 + x->n), sizeof *names);
	if (!names)
		return NULL;
	for (int c = 0; c < n; c++)
		names[c] = sqlite3_column_name(st, c);
	names[n] = "algorithm_summary";
	names[n + 1] = "reproduce";
	for (int i = 0; i < x->n; i++)
		names[n + 2 + i] = x->name[i];
	struct fgo_table *t = table_new(n + 2 + x->n, names);
	free(names);
	for (int c = 0; t && c < n; c++) {
		const unsigned char *v = sqlite3_column_text(st, c);
		table_add(t, "%s", v ? (const char *)v : "");
	}
	if (t) {
		table_add(t, "%s", summary);
		table_add(t, "%s", line);
		for (int i = 0; i < x->n; i++)
			table_add(t, "%s", x->value[i]);
	}
	return t;
}

/* Under the fitted table: the reproduce line whole (it is to be copied),
 * shown as the table shows cells; brief adds where the rest is. */
static void print_tail(sqlite3_stmt *st, const struct fgo_config *cfg, long id, const char *db,
		       int brief)
{
	char line[2048];
	reproduce(st, cfg, line, sizeof line);
	printf("\nreproduce:\n");
	view_print_command(stdout, line, FGO_TABLE_COLUMNS);
	if (brief) {
		char word[4200] = "";
		if (db)
			sink_shell(db, word, sizeof word); /* a line to paste */
		printf("\nevery field: fgobench show %ld%s%s\n", id, db ? " --db " : "", word);
	}
}

int show_run(const char *db, long id, enum fgo_format format, int wide, int brief)
{
	struct fgo_store *store = NULL;
	sqlite3_stmt *st = NULL, *cst = NULL;
	struct fgo_table *t = NULL;
	struct fgo_config cfg;
	int rc;

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
	static struct extra x; /* 16 KiB: not on the stack */
	memset(&x, 0, sizeof x);
	if ((rc = trace_fields(store_db(store), id, &x)))
		goto out;
	t = record(st, &cfg, format, wide, brief, &x);
	if (!t || table_print(t, format, stdout) != 0)
		rc = FGO_EFAIL;
	else if (format == FGO_FMT_TABLE && !wide)
		print_tail(st, &cfg, id, db, brief);
out:
	table_free(t);
	sqlite3_finalize(st);
	sqlite3_finalize(cst);
	store_close(store);
	return rc;
}

int cmd_show(int argc, char **argv)
{
	static const char *const opts[] = { "--format", "--db" };
	const char *db = NULL, *id_text = NULL;
	enum fgo_format format = FGO_FMT_TABLE;
	long id = 0;
	int wide = 0;

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
			if (!strcmp(argv[i], "--wide")) {
				wide = 1;
				break;
			}
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
	return cmd_finish_stdout(show_run(db, id, format, wide, 0));
}
