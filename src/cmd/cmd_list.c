/* cmd_list.c: `fgobench list`: the sweeps in the store, newest first, with
 * their runs counted by status. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "fgo.h"
#include "sink.h"
#include "views/table.h"
#include "views/views.h"

const char cmd_list_usage[] =
	"usage: fgobench list [--tag T] [--limit N] [--wide] [--format table|md|csv|json]\n"
	"       [--db F]\n"
	"\n"
	"The sweeps in the store, newest first: id, tag, spec, backend, MPI ranks,\n"
	"start time, duration, status, and the runs counted by status (ok, invalid,\n"
	"mismatch, failed, timeout, started = interrupted while running).\n"
	"\n"
	"The table fits 120 columns: the runs that are not ok in one column (\"2\n"
	"invalid, 1 failed\"), a long tag or spec name continued on the next line.\n"
	"--wide, md, csv and json have a column per status. No sweep to list (none\n"
	"tagged T, or an empty store) is said on stderr, with the stored tag T is\n"
	"likely a typo of, and exits 2.\n"
	"\n"
	"  --tag T     only sweeps tagged T\n"
	"  --limit N   at most N sweeps (default all)\n"
	"  --wide      the table with every column, however wide\n"
	"  --format F  table, md, csv or json (default table)\n"
	"  --db F      the store (default $FGOBENCH_DB or ./fgobench.db)\n";

static const char query[] =
	"SELECT s.id, coalesce(s.tag, ''), coalesce(s.spec_name, ''), s.backend, s.mpi_ranks,"
	"  s.started_at,"
	"  CAST(round((julianday(coalesce(s.ended_at, s.started_at)) - julianday(s.started_at)) * 86400) AS INTEGER),"
	"  s.status,"
	"  count(r.id),"
	"  sum(r.status = 'ok'), sum(r.status = 'invalid'), sum(r.status = 'mismatch'),"
	"  sum(r.status = 'failed'), sum(r.status = 'timeout'), sum(r.status = 'started')"
	" FROM sweeps s LEFT JOIN runs r ON r.sweep_id = s.id"
	" WHERE ?1 IS NULL OR s.tag = ?1"
	" GROUP BY s.id ORDER BY s.id DESC LIMIT ?2";

static const char *const headers[] = { "sweep",   "tag",     "spec",    "backend", "ranks",
				       "started", "seconds", "status",  "runs",    "ok",
				       "invalid", "mismatch", "failed", "timeout", "started runs" };
enum { COL_FIRST_NOT_OK = 10, NCOLS = 15 };

/* The terminal table: the columns up to ok, then the runs not ok in one
 * cell ("2 invalid, 1 failed", "" when none) in place of five columns that
 * are mostly 0. */
static int print_brief(const struct fgo_table *t)
{
	static const char *const names[] = { "sweep",   "tag",  "spec", "backend", "ranks", "started",
					     "seconds", "status", "runs", "ok",     "not ok" };
	struct fgo_table *brief = table_new(COL_FIRST_NOT_OK + 1, names);
	int rc = -1;
	for (int r = 0; brief && r < table_rows(t); r++) {
		char other[256] = "";
		size_t at = 0;
		for (int c = 0; c < COL_FIRST_NOT_OK; c++)
			table_add(brief, "%s", table_cell(t, r, c));
		for (int c = COL_FIRST_NOT_OK; c < NCOLS && at < sizeof other; c++) {
			const char *n = table_cell(t, r, c);
			if (strcmp(n, "0") != 0)
				at += (size_t)snprintf(other + at, sizeof other - at, "%s%s %s",
						       at ? ", " : "", n,
						       c == NCOLS - 1 ? "started" : headers[c]);
		}
		table_add(brief, "%s", other);
	}
	if (brief) {
		table_fit(brief, FGO_TABLE_COLUMNS);
		table_nowrap(brief, 5); /* a timestamp read in two pieces is misread */
		rc = table_print(brief, FGO_FMT_TABLE, stdout);
	}
	table_free(brief);
	return rc;
}

int cmd_list(int argc, char **argv)
{
	static const char *const opts[] = { "--tag", "--limit", "--format", "--db" };
	int wide = 0;
	const char *tag = NULL, *db = NULL;
	enum fgo_format format = FGO_FMT_TABLE;
	long limit = -1;
	struct fgo_store *store = NULL;
	sqlite3_stmt *st = NULL;
	struct fgo_table *t = NULL;
	int rc = FGO_OK, step = SQLITE_DONE;

	if (cmd_wants_help(argc, argv))
		return cmd_help(cmd_list_usage);
	for (int i = 1; i < argc && rc == FGO_OK; i++) {
		const char *v = NULL;
		switch (cmd_match_option("list", argc, argv, &i, opts, 4, &v)) {
		case -2: return FGO_EUSAGE;
		case -1:
			if (!strcmp(argv[i], "--wide")) {
				wide = 1;
				continue;
			}
			return cmd_usage_error("list", cmd_list_usage, "unknown option \"%s\"", argv[i]);
		case 0: tag = v; break;
		case 1: rc = cmd_parse_long("list", "--limit", v, 1, 1L << 40, &limit); break;
		case 2:
			if (format_parse(v, &format))
				return cmd_usage_error("list", cmd_list_usage,
						       "--format expects table, md, csv or json, got \"%s\"", v);
			break;
		default: db = v;
		}
	}
	if (rc != FGO_OK || (rc = view_open(db, &store)))
		return rc;
	if ((rc = view_prepare(store, query, &st)))
		goto out;
	if (tag)
		sqlite3_bind_text(st, 1, tag, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, limit);
	t = table_new((int)FGO_ARRAY_SIZE(headers), headers);
	while (t && (step = sqlite3_step(st)) == SQLITE_ROW)
		for (int c = 0; c < (int)FGO_ARRAY_SIZE(headers); c++) {
			const unsigned char *s = sqlite3_column_text(st, c);
			table_add(t, "%s", s ? (const char *)s : "0");
		}
	if (!t || step != SQLITE_DONE) {
		error("reading the store failed: %s", sqlite3_errmsg(store_db(store)));
		rc = FGO_EFAIL;
		goto out;
	}
	/* nothing to list is said and exits 2, as best and plot do: a tag
	 * with no sweep is most likely a typo */
	if (table_rows(t) == 0) {
		char hint[512] = "", shown[256];
		if (tag) {
			sink_terminal(tag, shown, sizeof shown);
			view_tag_hint(store_db(store), tag, hint, sizeof hint);
			error("no sweep tagged \"%s\" in %s%s", shown, cmd_db_path(db),
			      hint[0] ? hint : " (`fgobench list` shows every sweep)");
		} else {
			error("no sweep in %s yet (run one: `mpirun -np 2 fgobench sweep"
			      " sweeps/smoke.json`)", cmd_db_path(db));
		}
		rc = FGO_EUSAGE;
		goto out;
	}
	if ((format == FGO_FMT_TABLE && !wide ? print_brief(t) : table_print(t, format, stdout)) != 0)
		rc = FGO_EFAIL;
out:
	table_free(t);
	sqlite3_finalize(st);
	store_close(store);
	return cmd_finish_stdout(rc);
}
