/* cmd_history.c: `fgobench history`: options, the nights as a table on
 * stdout, the steps and the plot's path on stderr; the work is in
 * history.c (load and fit) and history_plot.c (the gnuplot plot). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "fgo.h"
#include "sink.h"
#include "views/history.h"
#include "views/table.h"
#include "views/views.h"

const char cmd_history_usage[] =
	"usage: fgobench history (--shape M,N,K | -m M -n N -k K) --algorithm A\n"
	"       [--world W] [--dtype D] [--config best|KEY] [--spec S] [--host H]\n"
	"       [--threshold PCT] [--penalty P] [-o DIR] [--no-plot]\n"
	"       [--format table|md|csv|json] [--db F]\n"
	"\n"
	"One problem's fused time over every stored sweep of one spec on one machine,\n"
	"a row per sweep (a night), oldest first: the configuration followed, the\n"
	"median, quartiles, min and max of its samples, and the level of a\n"
	"piecewise-constant fit of the medians. KEY follows one configuration (its\n"
	"config_key, or its tile text as `fgobench best` prints it, in full as in its\n"
	"csv or brief as in its table); best, the\n"
	"default, follows each night's fastest. The fit weighs each night by the\n"
	"uncertainty of its median (the spread of its samples and the scatter between\n"
	"nights) and pays a penalty for every extra step; a step larger than the\n"
	"threshold is listed on stderr and in the step columns, with the first night\n"
	"at the new level and the revision range that introduced it. The spec and\n"
	"machine are the newest matching sweep's unless --spec names a spec or\n"
	"--host a machine (a store merged from several machines holds each one's\n"
	"nights: `fgobench merge`). The plot (gnuplot) is\n"
	"DIR/history_wW_ALGO_DTYPE_MxNxK_CONFIG.png and .svg (only file-safe\n"
	"characters in the name), written the way `fgobench plot` writes.\n"
	"The table fits 120 columns: the config brief as `fgobench best` shows it,\n"
	"without the sweep id, samples, quartiles, min and max (md, csv and json\n"
	"have every column).\n"
	"\n"
	"  --shape M,N,K    the global problem (required, or all three of:)\n"
	"  -m M, --m M      its rows (M)\n"
	"  -n N, --n N      its columns (N)\n"
	"  -k K, --k K      its depth (K)\n"
	"  --algorithm A    the algorithm (required; any case, - for _, short names such\n"
	"                   as gemm_rs; a family name such as all_reduce lists its\n"
	"                   algorithms)\n"
	"  --world W        the world size (needed when several were stored)\n"
	"  --dtype D        the element type (needed when several were stored)\n"
	"  --config C       best (default), a config_key, or a tile text\n"
	"  --spec S         a spec name or a prefix of a spec hash\n"
	"  --host H         the machine: only sweeps run on host H\n"
	"  --threshold PCT  smallest step listed, percent of the level before (default 5)\n"
	"  --penalty P      cost of an extra step in the fit (default 3 ln nights + 3)\n"
	"  -o DIR           where the plot goes, created when missing (default fgobench-out)\n"
	"  --no-plot        no plot\n"
	"  --format F       table, md, csv or json (default table)\n"
	"  --db F           the store (default $FGOBENCH_DB or ./fgobench.db)\n";

static const char *const headers[] = { "night",  "sweep",  "tag",    "started", "revision",
				       "config", "samples", "median ms", "q1 ms", "q3 ms",
				       "min ms", "max ms", "level ms", "step %", "revisions",
				       "config" };
/* The terminal's table, within 120 columns: the config brief (the last
 * column), no sweep id, samples, quartiles, min or max (md, csv and json
 * have them). */
static const int term_cols[] = { 0, 2, 3, 4, 15, 7, 12, 13, 14 };
enum { NCOLS_OUT = 15 };

/* "M,N,K" (or "MxNxK") into three positive sizes. */
static int parse_shape(const char *text, long *m, long *n, long *k)
{
	long *out[] = { m, n, k };
	const char *p = text;
	for (int i = 0; i < 3; i++) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (end == p || errno || v <= 0 || v > (1L << 40))
			return -1;
		*out[i] = v;
		if (i < 2 && *end != ',' && *end != 'x')
			return -1;
		if (i == 2 && *end)
			return -1;
		p = end + 1;
	}
	return 0;
}

struct history_opts {
	struct history_query q;
	const char *db, *dir;
	int plot;
	enum fgo_format format;
};

static int parse(int argc, char **argv, struct history_opts *o)
{
	static const char *const opts[] = { "--shape",  "--algorithm", "--world", "--dtype",
					    "--config", "--spec",      "--threshold", "--penalty",
					    "-o",       "--format",    "--db",        "-m",
					    "--m",      "-n",          "--n",         "-k",
					    "--k",      "--host" };
	long *side[] = { &o->q.m, &o->q.m, &o->q.n, &o->q.n, &o->q.k, &o->q.k };
	int shape = 0, sides = 0;
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;
		enum fgo_dtype t;
		int rc = FGO_OK;
		if (!strcmp(argv[i], "--no-plot")) {
			o->plot = 0;
			continue;
		}
		int j = cmd_match_option("history", argc, argv, &i, opts, (int)FGO_ARRAY_SIZE(opts), &v);
		if (j == 17) { /* after -m .. --k, which are 11 to 16 */
			o->q.host = v;
			continue;
		}
		if (j >= 11) {
			if (cmd_parse_long("history", opts[j], v, 1, 1L << 40, side[j - 11]) != FGO_OK)
				return FGO_EUSAGE;
			sides |= 1 << ((j - 11) / 2);
			continue;
		}
		switch (j) {
		case -2: return FGO_EUSAGE;
		case -1:
			return cmd_usage_error("history", cmd_history_usage, "unknown option \"%s\"",
					       argv[i]);
		case 0:
			if (parse_shape(v, &o->q.m, &o->q.n, &o->q.k))
				return cmd_usage_error("history", cmd_history_usage,
						       "--shape expects M,N,K (three positive sizes),"
						       " got \"%s\"", v);
			shape = 1;
			break;
		case 1:
			if (!(o->q.algorithm = cmd_algorithm_filter("history", v)))
				return FGO_EUSAGE;
			break;
		case 2: rc = cmd_parse_int("history", "--world", v, 1, 1 << 20, &o->q.world); break;
		case 3:
			if (dtype_parse(v, &t))
				return cmd_usage_error("history", cmd_history_usage,
						       "--dtype expects fp32, fp16 or bf16, got \"%s\"", v);
			o->q.dtype = dtype_name(t);
			break;
		case 4: o->q.config = v; break;
		case 5: o->q.spec = v; break;
		case 6:
			rc = cmd_parse_double("history", "--threshold", v, 0, 1e6, &o->q.threshold_pct);
			break;
		case 7: rc = cmd_parse_double("history", "--penalty", v, 1e-9, 1e9, &o->q.penalty); break;
		case 8: o->dir = v; break;
		case 9:
			if (format_parse(v, &o->format))
				return cmd_usage_error("history", cmd_history_usage,
						       "--format expects table, md, csv or json, got \"%s\"", v);
			break;
		default: o->db = v;
		}
		if (rc != FGO_OK)
			return FGO_EUSAGE;
	}
	if (shape && sides)
		return cmd_usage_error("history", cmd_history_usage,
				       "give the shape once: --shape M,N,K or -m, -n and -k");
	if (!shape && sides && sides != 7)
		return cmd_usage_error("history", cmd_history_usage,
				       "-m, -n and -k go together (or --shape M,N,K)");
	if ((!shape && !sides) || !o->q.algorithm)
		return cmd_usage_error("history", cmd_history_usage,
				       "both --shape and --algorithm are needed (-m, -n and -k may"
				       " give the shape)");
	return FGO_OK;
}

static struct fgo_table *nights_table(const struct history *h)
{
	struct fgo_table *t = table_new((int)FGO_ARRAY_SIZE(headers), headers);
	for (size_t i = 0; t && i < h->count; i++) {
		const struct history_night *n = &h->nights[i];
		char tile[96], brief[96];
		view_tile_text(&n->cfg, tile, sizeof tile);
		view_tile_brief(&n->cfg, brief, sizeof brief);
		table_add(t, "%zu", i + 1);
		table_add(t, "%lld", (long long)n->sweep_id);
		table_add(t, "%s", n->tag);
		table_add(t, "%s", n->started);
		table_add(t, "%s", n->revision);
		table_add(t, "%s", tile);
		table_add(t, "%zu", n->samples);
		table_add(t, "%.4g", n->median);
		table_add(t, "%.4g", n->q1);
		table_add(t, "%.4g", n->q3);
		table_add(t, "%.4g", n->min);
		table_add(t, "%.4g", n->max);
		table_add(t, "%.4g", n->level);
		if (n->step) {
			table_add(t, "%+.1f", (n->level - h->nights[i - 1].level) /
						      h->nights[i - 1].level * 100.0);
			if (strcmp(h->nights[i - 1].revision, n->revision))
				table_add(t, "%s..%s", h->nights[i - 1].revision, n->revision);
			else
				table_add(t, "%s (unchanged)", n->revision);
		} else {
			table_add(t, "%s", "");
			table_add(t, "%s", "");
		}
		table_add(t, "%s", brief);
	}
	return t;
}

/* The table in format: every column but the brief config, or for the
 * terminal those of term_cols fitted to 120 columns, a timestamp and a
 * revision kept whole. 0, or -1 on a write error. */
static int print_nights(const struct fgo_table *t, enum fgo_format format)
{
	int cols[NCOLS_OUT], n = 0;
	if (format == FGO_FMT_TABLE)
		for (size_t i = 0; i < FGO_ARRAY_SIZE(term_cols); i++)
			cols[n++] = term_cols[i];
	else
		for (int i = 0; i < NCOLS_OUT; i++)
			cols[n++] = i;
	struct fgo_table *shown = table_select(t, cols, n, NULL);
	if (format == FGO_FMT_TABLE) {
		table_fit(shown, FGO_TABLE_COLUMNS);
		table_nowrap(shown, 2);
		table_nowrap(shown, 3);
	}
	int rc = shown ? table_print(shown, format, stdout) : -1;
	table_free(shown);
	return rc;
}

/* The summary and one line per step, on stderr. */
static void say_steps(const struct history *h, const struct history_query *q)
{
	char skipped[96] = "";
	if (h->skipped)
		snprintf(skipped, sizeof skipped, " (%d sweep%s of it without an ok run left out)",
			 h->skipped, h->skipped == 1 ? "" : "s");
	note("%zu night%s of spec %s (%.12s) on %s%s; fit: %zu boundar%s, noise %.3g ms,"
	     " penalty %.3g; %zu step%s above %g%%", h->count, h->count == 1 ? "" : "s",
	     h->spec_name[0] ? h->spec_name : "?", h->spec_hash, h->host, skipped, h->boundaries,
	     h->boundaries == 1 ? "y" : "ies", h->noise, h->penalty, h->nsteps,
	     h->nsteps == 1 ? "" : "s", q->threshold_pct);
	for (size_t j = 0; j < h->nsteps; j++) {
		const struct cp_step *s = &h->steps[j];
		const struct history_night *first = &h->nights[s->at], *prev = &h->nights[s->at - 1];
		char range[256];
		if (strcmp(prev->revision, first->revision))
			snprintf(range, sizeof range, "revisions %s..%s (`git log %s..%s`)",
				 prev->revision, first->revision, prev->revision, first->revision);
		else
			snprintf(range, sizeof range, "the same revision %s on both nights (the"
				 " machine changed, not fgobench)", first->revision);
		char tag[256];
		sink_terminal(first->tag, tag, sizeof tag); /* a stored tag, on one line */
		note("step %+.1f%% (%.4g -> %.4g ms) from night %zu: sweep %lld%s%s, %s; %s",
		     s->change_pct, s->before, s->after, s->at + 1, (long long)first->sweep_id,
		     tag[0] ? " " : "", tag, first->started, range);
	}
}

int cmd_history(int argc, char **argv)
{
	struct history_opts o = { .dir = "fgobench-out", .plot = 1, .format = FGO_FMT_TABLE };
	struct history h;
	char err[1024], png[4096];
	int rc;

	if (cmd_wants_help(argc, argv))
		return cmd_help(cmd_history_usage);
	history_query_defaults(&o.q);
	if ((rc = parse(argc, argv, &o)))
		return rc;
	if (o.plot && sink_check_dir("-o", o.dir, err, sizeof err) != FGO_OK)
		return cmd_usage_error("history", cmd_history_usage, "%s", err);
	o.q.db = cmd_db_path(o.db);
	rc = history_load(&o.q, &h, err, sizeof err);
	if (rc != FGO_OK) {
		error("%s", err);
		history_free(&h);
		return rc;
	}
	struct fgo_table *t = nights_table(&h);
	if (!t || print_nights(t, o.format) != 0)
		rc = FGO_EFAIL;
	table_free(t);
	say_steps(&h, &o.q);
	if (rc == FGO_OK && o.plot) {
		if ((rc = make_dirs(o.dir, err, sizeof err)) == FGO_OK)
			rc = history_plot(&h, &o.q, o.dir, png, sizeof png, err, sizeof err);
		if (rc == FGO_OK)
			note("plot: %s (and .svg)", png);
		else
			error("%s", err);
	}
	history_free(&h);
	return cmd_finish_stdout(rc);
}
