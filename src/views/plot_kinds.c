/* plot_kinds.c: the data behind each kind of plot (roofline, overlap,
 * heatmap), read from the store's newest ok run of every configuration and
 * written as gnuplot data plus the template fields that depend on it. */
#include "views/plot_kinds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "sink.h"
#include "views/plot.h"
#include "views/views.h"

/* Newest ok run of each configuration, with the command's filters. */
#define LATEST_CTE                                                                           \
	"WITH latest AS ("                                                                   \
	"  SELECT r.*, s.host AS host, s.backend AS backend,"                                \
	"    row_number() OVER (PARTITION BY r.config_key ORDER BY r.id DESC) AS recency"     \
	"  FROM runs r JOIN sweeps s ON s.id = r.sweep_id"                                   \
	"  WHERE r.status = 'ok' AND r.t_fused_ms > 0 AND (?1 IS NULL OR r.world = ?1)"      \
	"    AND (?2 IS NULL OR s.tag = ?2) AND (?3 IS NULL OR r.algorithm = ?3)"            \
	"    AND (?4 IS NULL OR r.dtype = ?4)"                                               \
	"), cur AS (SELECT * FROM latest WHERE recency = 1) "

static int prepare(const struct plot_query *q, const char *sql, sqlite3_stmt **st)
{
	int rc = view_prepare(q->store, sql, st);
	if (rc)
		return rc;
	if (q->world > 0)
		sqlite3_bind_int(*st, 1, q->world);
	if (q->tag)
		sqlite3_bind_text(*st, 2, q->tag, -1, SQLITE_STATIC);
	if (q->algorithm)
		sqlite3_bind_text(*st, 3, q->algorithm, -1, SQLITE_STATIC);
	if (q->dtype)
		sqlite3_bind_text(*st, 4, q->dtype, -1, SQLITE_STATIC);
	return FGO_OK;
}

static int step_failed(const struct plot_query *q, int step)
{
	if (step == SQLITE_DONE)
		return FGO_OK;
	error("reading the store failed: %s", sqlite3_errmsg(store_db(q->store)));
	return FGO_EFAIL;
}

static int render(const struct plot_query *q, const char *tmpl, const char *base,
		  const struct plot_field *f, int n)
{
	char err[512];
	if (plot_render(tmpl, q->dir, base, f, n, err, sizeof err) != FGO_OK) {
		error("%s", err);
		return FGO_EFAIL;
	}
	printf("%s/%s.png\n%s/%s.svg\n", q->dir, base, q->dir, base);
	return FGO_OK;
}

static FILE *open_data(const struct plot_query *q, const char *base, struct atomic_file *af)
{
	char err[512];
	if (plot_open_data(q->dir, base, af, err, sizeof err) != FGO_OK) {
		error("%s", err);
		return NULL;
	}
	return af->f;
}

/* Renames the data into place when rc is FGO_OK, else removes it. */
static int close_data(struct atomic_file *af, int rc)
{
	char err[512];
	if (rc != FGO_OK) {
		plot_abort_data(af);
		return rc;
	}
	if (plot_commit_data(af, err, sizeof err) != FGO_OK) {
		error("%s", err);
		return FGO_EFAIL;
	}
	return FGO_OK;
}

/* ", tag T, all_scatter, fp16" for the filters given, for titles. */
static const char *filter_text(const struct plot_query *q, char *out, size_t len)
{
	char tag[80], algo[64], dtype[16];
	sink_plot(q->tag, tag, sizeof tag);
	sink_plot(q->algorithm, algo, sizeof algo);
	sink_plot(q->dtype, dtype, sizeof dtype);
	snprintf(out, len, "%s%s%s%s%s%s", q->tag ? ", tag " : "", tag, q->algorithm ? ", " : "",
		 algo, q->dtype ? ", " : "", dtype);
	return out;
}

/* Text of column c of the current row made safe for gnuplot ("" for NULL). */
static const char *plot_column(sqlite3_stmt *st, int c, char *out, size_t len)
{
	sink_plot((const char *)sqlite3_column_text(st, c), out, len);
	return out;
}

/* Ceiling lines: the newest calibrated matrix peak of each dtype plotted,
 * for the host and backend of the newest sweep plotted, times the world. */
static const char ceilings_sql[] = LATEST_CTE
	"SELECT c.dtype, c.value FROM ceilings c"
	" WHERE c.what = 'matrix_peak' AND c.dtype IN (SELECT dtype FROM cur)"
	"   AND c.machine = (SELECT host FROM cur ORDER BY id DESC LIMIT 1)"
	"   AND c.backend = (SELECT backend FROM cur ORDER BY id DESC LIMIT 1)"
	"   AND c.id = (SELECT max(id) FROM ceilings d WHERE d.what = c.what AND d.dtype = c.dtype"
	"               AND d.machine = c.machine AND d.backend = c.backend)"
	" ORDER BY c.dtype";

static int roofline_ceilings(const struct plot_query *q, FILE *cmd)
{
	sqlite3_stmt *st;
	int step, rc = prepare(q, ceilings_sql, &st);
	if (rc)
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		char dtype[32];
		double peak = sqlite3_column_double(st, 1) * q->world;
		fprintf(cmd, ", \\\n     %.6g with lines dt 2 lw 2 lc rgb '#d62728'"
			     " title '%s matrix peak x %d rank%s (calibrated): %.3g TFLOP/s'",
			peak, plot_column(st, 0, dtype, sizeof dtype), q->world,
			q->world == 1 ? "" : "s", peak);
	}
	rc = step_failed(q, step);
	sqlite3_finalize(st);
	return rc;
}

static const char roofline_sql[] = LATEST_CTE
	"SELECT " VIEW_CONFIG_COLUMNS ", m * n * k, tflops_total FROM cur"
	" ORDER BY algorithm, dtype, blk_m, blk_n, blk_k, num_stages, num_warps, mma, gsize_m,"
	"   gemm_sms, comm_sms, comm_blk_m, comm_blk_n, split_k, deterministic, m * n * k";

/* The series key of a configuration: everything but the shape (safe for
 * gnuplot: the algorithm comes from a store). */
static void series_name(const struct fgo_config *c, char *out, size_t len)
{
	char tile[96], algo[64];
	view_tile_text(c, tile, sizeof tile);
	sink_plot(c->algorithm, algo, sizeof algo);
	snprintf(out, len, "%s %s %s", algo, dtype_name(c->dtype), tile);
}

int plot_roofline(const struct plot_query *q)
{
	char base[64], title[512], filters[256], name[192], prev[192] = "";
	char *cmd_text = NULL, *plot_text = NULL;
	size_t cmd_len = 0, series = 0, points = 0;
	double x_min = 0, x_max = 0;
	sqlite3_stmt *st;
	int step = SQLITE_DONE, rc;
	struct atomic_file af;
	FILE *dat, *cmd;

	snprintf(base, sizeof base, "roofline_w%d", q->world);
	if ((rc = prepare(q, roofline_sql, &st)))
		return rc;
	if (!(dat = open_data(q, base, &af))) {
		sqlite3_finalize(st);
		return FGO_EUSAGE;
	}
	cmd = open_memstream(&cmd_text, &cmd_len);
	fprintf(dat, "# M*N*K  TFLOP/s  (one block per configuration)\n");
	while (cmd && (step = sqlite3_step(st)) == SQLITE_ROW) {
		struct fgo_config c;
		view_config(st, 0, &c);
		series_name(&c, name, sizeof name);
		if (strcmp(name, prev) != 0) {
			/* Every configuration its own colour (a palette index) and
			 * one of five point shapes, so neighbours differ twice. */
			fprintf(dat, "%s# %s\n", series ? "\n\n" : "", name);
			fprintf(cmd, "%s'%s.dat' index %zu using 1:2 with points pt %zu"
				     " lc palette cb %zu title '%s'",
				series ? ", \\\n     " : "plot ", base, series,
				5 + 2 * (series % 5), series, name);
			snprintf(prev, sizeof prev, "%s", name);
			series++;
		}
		double x = sqlite3_column_double(st, VIEW_CONFIG_NCOLS);
		fprintf(dat, "%.6g %.6g\n", x, sqlite3_column_double(st, VIEW_CONFIG_NCOLS + 1));
		x_min = points == 0 || x < x_min ? x : x_min;
		x_max = points == 0 || x > x_max ? x : x_max;
		points++;
	}
	rc = cmd ? step_failed(q, step) : FGO_EFAIL;
	sqlite3_finalize(st);
	rc = close_data(&af, rc);
	if (rc == FGO_OK && points == 0) {
		error("nothing to plot for world %d (no ok runs match)", q->world);
		rc = FGO_EUSAGE;
	}
	if (rc == FGO_OK)
		rc = roofline_ceilings(q, cmd);
	if (cmd)
		fclose(cmd);
	if (rc == FGO_OK &&
	    asprintf(&plot_text, "set cbrange [0:%zu]\n%s%s\n", series > 1 ? series - 1 : 1,
		     /* factor-of-two ticks collide over more than a few decades */
		     x_max > 64 * x_min ? "set xtics 10\nset format x \"10^{%L}\"\n" : "", cmd_text) < 0)
		rc = FGO_EFAIL;
	if (rc == FGO_OK) {
		snprintf(title, sizeof title, "fgobench roofline: world %d, %zu runs, %zu configurations%s",
			 q->world, points, series, filter_text(q, filters, sizeof filters));
		struct plot_field f[] = { { "TITLE", title }, { "PLOT", plot_text } };
		rc = render(q, "plots/roofline.gp", base, f, 2);
	}
	free(plot_text);
	free(cmd_text);
	int floor_drawn = 0;
	if (rc == FGO_OK)
		rc = plot_floor(q, &floor_drawn);
	if (q->floor_drawn)
		*q->floor_drawn = floor_drawn;
	return rc;
}

#define OVERLAP_MAX 48

static const char overlap_sql[] = LATEST_CTE
	"SELECT " VIEW_CONFIG_COLUMNS ", t_gemm_ms, t_comm_ms, t_fused_ms, t_baseline_ms FROM ("
	"  SELECT *, row_number() OVER (PARTITION BY algorithm, dtype, m, n, k ORDER BY t_fused_ms, id)"
	"    AS place FROM cur) WHERE place = 1"
	" ORDER BY algorithm, dtype, m, n, k";

static void column_or_missing(FILE *f, sqlite3_stmt *st, int c)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL)
		fputs(" ?", f);
	else
		fprintf(f, " %.6g", sqlite3_column_double(st, c));
}

int plot_overlap(const struct plot_query *q)
{
	char base[64], title[512], filters[256], tile[96];
	char algo[96];
	sqlite3_stmt *st;
	int step, rc, rows = 0, total = 0;
	struct atomic_file af;
	FILE *dat;

	snprintf(base, sizeof base, "overlap_w%d", q->world);
	if ((rc = prepare(q, overlap_sql, &st)))
		return rc;
	if (!(dat = open_data(q, base, &af))) {
		sqlite3_finalize(st);
		return FGO_EUSAGE;
	}
	fprintf(dat, "# problem  gemm_ms  comm_ms  fused_ms  baseline_ms  (best configuration: tile)\n");
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct fgo_config c;
		if (++total > OVERLAP_MAX)
			continue;
		view_config(st, 0, &c);
		view_tile_text(&c, tile, sizeof tile);
		sink_plot(c.algorithm, algo, sizeof algo); /* no quote can end the label */
		fprintf(dat, "\"%s %s %ldx%ldx%ld\"", algo, dtype_name(c.dtype), c.m, c.n, c.k);
		for (int i = 0; i < 4; i++)
			column_or_missing(dat, st, VIEW_CONFIG_NCOLS + i);
		fprintf(dat, "  # %s\n", tile);
		rows++;
	}
	rc = step_failed(q, step);
	sqlite3_finalize(st);
	rc = close_data(&af, rc);
	if (rc == FGO_OK && rows == 0) {
		error("nothing to plot for world %d (no ok runs match)", q->world);
		return FGO_EUSAGE;
	}
	if (rc != FGO_OK)
		return rc;
	if (total > rows)
		note("overlap: showing the first %d of %d problems (narrow with --algorithm, --dtype or --tag)",
		     rows, total);
	snprintf(title, sizeof title,
		 "fgobench overlap: world %d, best configuration of each problem (MxNxK)%s", q->world,
		 filter_text(q, filters, sizeof filters));
	struct plot_field f[] = { { "TITLE", title } };
	return render(q, "plots/overlap.gp", base, f, 1);
}

/* Heatmap: one per (algorithm, dtype). */
static const char groups_sql[] = LATEST_CTE
	"SELECT DISTINCT algorithm, dtype FROM cur ORDER BY algorithm, dtype";

static const char cells_sql[] = LATEST_CTE
	"SELECT m, n, k, " VIEW_CONFIG_COLUMNS ", tflops_total FROM ("
	"  SELECT *, row_number() OVER (PARTITION BY m, n, k ORDER BY t_fused_ms, id) AS place"
	"  FROM cur WHERE algorithm = ?5 AND dtype = ?6) WHERE place = 1 ORDER BY m, n * k, n";

struct cell {
	long m, n, k;
	double tflops;
	char tile[32];
};

static long index_of(const long *v, long n, long x)
{
	for (long i = 0; i < n; i++)
		if (v[i] == x)
			return i;
	return -1;
}

void plot_heatmap_base(int world, const char *algo, const char *dtype, char *out, size_t len)
{
	char name[1024];
	snprintf(name, sizeof name, "heatmap_w%d_%s_%s", world, algo, dtype);
	sink_filename(name, out, len);
}

static int heatmap_one(const struct plot_query *q, const char *algo, const char *dtype)
{
	char base[256], title[512], filters[256], safe_algo[96], safe_dtype[32];
	struct atomic_file af;
	struct cell *cells = NULL;
	long ncells = 0, cap = 0, *ms = NULL, *nk = NULL, *ns = NULL, nm = 0, ncol = 0;
	sqlite3_stmt *st;
	int step, rc;

	if ((rc = prepare(q, cells_sql, &st)))
		return rc;
	sqlite3_bind_text(st, 5, algo, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, dtype, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (ncells == cap) {
			cap = cap ? cap * 2 : 64;
			struct cell *more = realloc(cells, sizeof *cells * (size_t)cap);
			long *m2 = realloc(ms, sizeof *ms * (size_t)cap);
			if (m2)
				ms = m2;
			long *k2 = realloc(nk, sizeof *nk * (size_t)cap);
			if (k2)
				nk = k2;
			long *n2 = realloc(ns, sizeof *ns * (size_t)cap);
			if (n2)
				ns = n2;
			if (!more || !m2 || !k2 || !n2) {
				free(more ? more : cells);
				cells = NULL;
				break;
			}
			cells = more;
		}
		struct cell *c = &cells[ncells++];
		struct fgo_config cfg;
		c->m = (long)sqlite3_column_int64(st, 0);
		c->n = (long)sqlite3_column_int64(st, 1);
		c->k = (long)sqlite3_column_int64(st, 2);
		view_config(st, 3, &cfg);
		c->tflops = sqlite3_column_double(st, 3 + VIEW_CONFIG_NCOLS);
		snprintf(c->tile, sizeof c->tile, "%dx%dx%d", cfg.blk_m, cfg.blk_n, cfg.blk_k);
		if (index_of(ms, nm, c->m) < 0)
			ms[nm++] = c->m;
		int seen = 0;
		for (long j = 0; j < ncol; j++)
			seen |= nk[j] == c->n * c->k && ns[j] == c->n;
		if (!seen) {
			nk[ncol] = c->n * c->k;
			ns[ncol++] = c->n;
		}
	}
	rc = cells ? step_failed(q, step) : FGO_EFAIL;
	sqlite3_finalize(st);
	FILE *dat = NULL, *tics = NULL;
	char *tics_text = NULL;
	size_t tics_len = 0;
	plot_heatmap_base(q->world, algo, dtype, base, sizeof base);
	if (rc == FGO_OK && !(dat = open_data(q, base, &af)))
		rc = FGO_EUSAGE;
	if (rc == FGO_OK && !(tics = open_memstream(&tics_text, &tics_len)))
		rc = FGO_EFAIL;
	if (rc == FGO_OK) {
		/* Columns in order of N*K (then N) as the query returned them per M;
		 * sort them so the axis reads left to right. */
		for (long a = 1; a < ncol; a++)
			for (long b = a; b > 0 && (nk[b] < nk[b - 1] || (nk[b] == nk[b - 1] && ns[b] < ns[b - 1])); b--) {
				long t = nk[b]; nk[b] = nk[b - 1]; nk[b - 1] = t;
				t = ns[b]; ns[b] = ns[b - 1]; ns[b - 1] = t;
			}
		fprintf(dat, "# column row TFLOP/s tile\n");
		for (long r = 0; r < nm; r++) {
			for (long col = 0; col < ncol; col++) {
				const struct cell *hit = NULL;
				for (long i = 0; i < ncells && !hit; i++)
					if (cells[i].m == ms[r] && cells[i].n == ns[col] &&
					    cells[i].n * cells[i].k == nk[col])
						hit = &cells[i];
				if (hit)
					fprintf(dat, "%ld %ld %.6g \"%s\"\n", col, r, hit->tflops, hit->tile);
				else
					fprintf(dat, "%ld %ld ? \"\"\n", col, r);
			}
			fputc('\n', dat);
		}
		fprintf(tics, "set xtics (");
		for (long col = 0; col < ncol; col++)
			fprintf(tics, "%s'%ldx%ld' %ld", col ? ", " : "", ns[col], nk[col] / ns[col], col);
		fprintf(tics, ")\nset ytics (");
		for (long r = 0; r < nm; r++)
			fprintf(tics, "%s'%ld' %ld", r ? ", " : "", ms[r], r);
		fprintf(tics, ")\nset xrange [-0.5:%ld.5]\nset yrange [-0.5:%ld.5]\n", ncol - 1, nm - 1);
	}
	if (dat)
		rc = close_data(&af, rc);
	if (tics)
		fclose(tics);
	if (rc == FGO_OK) {
		sink_plot(algo, safe_algo, sizeof safe_algo);
		sink_plot(dtype, safe_dtype, sizeof safe_dtype);
		snprintf(title, sizeof title, "fgobench heatmap: %s %s, world %d: best tile per shape%s",
			 safe_algo, safe_dtype, q->world, filter_text(q, filters, sizeof filters));
		struct plot_field f[] = { { "TITLE", title }, { "TICS", tics_text } };
		rc = render(q, "plots/heatmap.gp", base, f, 2);
	}
	free(tics_text);
	free(cells);
	free(ms);
	free(nk);
	free(ns);
	return rc;
}

int plot_heatmap(const struct plot_query *q)
{
	sqlite3_stmt *st;
	int step, rc = prepare(q, groups_sql, &st), drawn = 0;
	if (rc)
		return rc;
	while (rc == FGO_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		char algo[512], dtype[64];
		const unsigned char *a = sqlite3_column_text(st, 0), *d = sqlite3_column_text(st, 1);
		snprintf(algo, sizeof algo, "%s", a ? (const char *)a : "");
		snprintf(dtype, sizeof dtype, "%s", d ? (const char *)d : "");
		rc = heatmap_one(q, algo, dtype);
		drawn++;
	}
	if (rc == FGO_OK)
		rc = step_failed(q, step);
	sqlite3_finalize(st);
	if (rc == FGO_OK && !drawn) {
		error("nothing to plot for world %d (no ok runs match)", q->world);
		rc = FGO_EUSAGE;
	}
	return rc;
}

static const char worlds_sql[] = LATEST_CTE "SELECT DISTINCT world FROM cur ORDER BY world";

int plot_worlds(const struct plot_query *q, int *worlds, int max, int *n)
{
	sqlite3_stmt *st;
	int step, rc = prepare(q, worlds_sql, &st);
	*n = 0;
	if (rc)
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		if (*n < max)
			worlds[(*n)++] = sqlite3_column_int(st, 0);
	rc = step_failed(q, step);
	sqlite3_finalize(st);
	return rc;
}
