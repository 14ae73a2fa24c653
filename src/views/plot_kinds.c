/* plot_kinds.c: the data behind the overlap and heatmap plots, read from
 * the store's newest ok run of every configuration and written as gnuplot
 * data plus the template fields that depend on it (the roofline has its
 * own file, plot_roofline.c). */
#include "views/plot_kinds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "sink.h"
#include "views/plot.h"
#include "views/plot_query.h"
#include "views/plot_ticks.h"
#include "views/views.h"

#define OVERLAP_MAX 48

static const char overlap_sql[] = LATEST_CTE
	"SELECT " VIEW_CONFIG_COLUMNS ", t_gemm_ms, t_comm_ms, t_fused_ms, t_baseline_ms FROM ("
	"  SELECT *, row_number() OVER (PARTITION BY algorithm, dtype, m, n, k ORDER BY t_fused_ms, id)"
	"    AS place FROM cur) WHERE place = 1"
	" ORDER BY algorithm, dtype, m, n, k";

/* Writes column c's time (or ? where there is none) and widens [*lo, *hi]
 * to the positive times, which the log axis must hold. */
static void column_or_missing(FILE *f, sqlite3_stmt *st, int c, double *lo, double *hi)
{
	double v = sqlite3_column_double(st, c);
	if (sqlite3_column_type(st, c) == SQLITE_NULL) {
		fputs(" ?", f);
		return;
	}
	fprintf(f, " %.6g", v);
	if (v > 0) {
		*lo = *lo > 0 ? fmin(*lo, v) : v;
		*hi = fmax(*hi, v);
	}
}

int plot_overlap(const struct plot_query *q)
{
	char base[64], title[512], filters[256], tile[96];
	char algo[96], *axis_text = NULL;
	size_t axis_len = 0;
	double lo = 0, hi = 0;
	sqlite3_stmt *st;
	int step, rc, rows = 0, total = 0;
	struct atomic_file af;
	FILE *dat;

	snprintf(base, sizeof base, "overlap_w%d", q->world);
	if ((rc = plot_query_prepare(q, overlap_sql, &st)))
		return rc;
	if (!(dat = plot_query_open_data(q, base, &af))) {
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
			column_or_missing(dat, st, VIEW_CONFIG_NCOLS + i, &lo, &hi);
		fprintf(dat, "  # %s\n", tile);
		rows++;
	}
	rc = plot_query_step_failed(q, step);
	sqlite3_finalize(st);
	rc = plot_query_close_data(&af, rc);
	if (rc == FGO_OK && rows == 0) {
		error("nothing to plot for world %d (no ok runs match)", q->world);
		return FGO_EUSAGE;
	}
	if (rc != FGO_OK)
		return rc;
	if (total > rows)
		note("overlap: showing the first %d of %d problems (narrow with --algorithm, --dtype or --tag)",
		     rows, total);
	/* A log axis: communication of a microsecond beside a GEMM of a
	 * millisecond (a CPU's, or a small problem's) is a bar one can see,
	 * not a line on the axis. */
	FILE *axis = open_memstream(&axis_text, &axis_len);
	if (!axis)
		return FGO_EFAIL;
	fputs("set logscale y\n", axis);
	if (hi > 0)
		plot_log_axis(axis, "y", lo / 1.5, hi * 1.3, PLOT_TICKS_PLAIN);
	fclose(axis);
	snprintf(title, sizeof title,
		 "fgobench overlap: world %d, best configuration of each problem (MxNxK)%s", q->world,
		 plot_query_filters(q, filters, sizeof filters));
	char width[24];
	snprintf(width, sizeof width, "%d", rows * 36 + 300 > 1500 ? rows * 36 + 300 : 1500);
	struct plot_field f[] = { { "TITLE", title }, { "AXIS", axis_text }, { "WIDTH", width } };
	rc = plot_query_render(q, "plots/overlap.gp", base, f, 3);
	free(axis_text);
	return rc;
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

static long at_most(long a, long b)
{
	return a < b ? a : b;
}

/* The cell of shape (m, n, n*k = nk), or NULL. */
static const struct cell *find_cell(const struct cell *c, long ncells, long m, long n, long nk)
{
	for (long i = 0; i < ncells; i++)
		if (c[i].m == m && c[i].n == n && c[i].n * c[i].k == nk)
			return &c[i];
	return NULL;
}

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

	if ((rc = plot_query_prepare(q, cells_sql, &st)))
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
	rc = cells ? plot_query_step_failed(q, step) : FGO_EFAIL;
	sqlite3_finalize(st);
	FILE *dat = NULL, *tics = NULL, *empties = NULL;
	char *tics_text = NULL, *empty_text = NULL;
	size_t tics_len = 0, empty_len = 0;
	plot_heatmap_base(q->world, algo, dtype, base, sizeof base);
	if (rc == FGO_OK && !(dat = plot_query_open_data(q, base, &af)))
		rc = FGO_EUSAGE;
	if (rc == FGO_OK && !(tics = open_memstream(&tics_text, &tics_len)))
		rc = FGO_EFAIL;
	if (rc == FGO_OK && !(empties = open_memstream(&empty_text, &empty_len)))
		rc = FGO_EFAIL;
	if (rc == FGO_OK) {
		/* Columns in order of N*K (then N) as the query returned them per M;
		 * sort them so the axis reads left to right. */
		for (long a = 1; a < ncol; a++)
			for (long b = a; b > 0 && (nk[b] < nk[b - 1] || (nk[b] == nk[b - 1] && ns[b] < ns[b - 1])); b--) {
				long t = nk[b]; nk[b] = nk[b - 1]; nk[b - 1] = t;
				t = ns[b]; ns[b] = ns[b - 1]; ns[b - 1] = t;
			}
		/* block 0: the cells with a run, coloured by the palette, each
		 * label black on the light (high) end of it and white on the dark
		 * end; block 1: the cells without one, NaN, drawn apart (hatched
		 * grey) so that no empty cell reads as a slow one */
		double top = 0;
		long empty = 0;
		for (long i = 0; i < ncells; i++)
			top = fmax(top, cells[i].tflops);
		fprintf(dat, "# column row TFLOP/s \"tile\\nTFLOP/s\" label_colour (the best run of each shape)\n");
		for (long r = 0; r < nm; r++)
			for (long col = 0; col < ncol; col++) {
				const struct cell *hit = find_cell(cells, ncells, ms[r], ns[col], nk[col]);
				char value[32];
				if (!hit) {
					empty++;
					continue;
				}
				plot_number(hit->tflops, 3, value, sizeof value);
				fprintf(dat, "%ld %ld %.6g \"%s\\n%s\" %s\n", col, r, hit->tflops, hit->tile,
					value, top > 0 && hit->tflops / top >= 0.55 ? "0x000000" : "0xffffff");
			}
		fprintf(dat, "\n\n# no run of these shapes: column row NaN\n");
		for (long r = 0; r < nm; r++)
			for (long col = 0; col < ncol; col++)
				if (!find_cell(cells, ncells, ms[r], ns[col], nk[col]))
					fprintf(dat, "%ld %ld NaN \"no run\"\n", col, r);
		if (empty)
			fprintf(empties, ", \\\n     '' index 1 using 1:2:($1-0.5):($1+0.5):($2-0.5):($2+0.5)"
					 " with boxxy fc rgb '#969696' fs pattern 2 border lc rgb '#ffffff' notitle"
					 ", \\\n     '' index 1 using 1:2:4 with labels font \",13\" tc rgb '#404040' notitle");
		fprintf(tics, "set cbrange [0:%.6g]\n", top > 0 ? top : 1);
		fprintf(tics, "set xtics (");
		for (long col = 0; col < ncol; col++)
			fprintf(tics, "%s'%ldx%ld' %ld", col ? ", " : "", ns[col], nk[col] / ns[col], col);
		fprintf(tics, ")\nset ytics (");
		for (long r = 0; r < nm; r++)
			fprintf(tics, "%s'%ld' %ld", r ? ", " : "", ms[r], r);
		fprintf(tics, ")\nset xrange [-0.5:%ld.5]\nset yrange [-0.5:%ld.5]\n", ncol - 1, nm - 1);
	}
	if (dat)
		rc = plot_query_close_data(&af, rc);
	if (tics)
		fclose(tics);
	if (empties)
		fclose(empties);
	if (rc == FGO_OK) {
		sink_plot(algo, safe_algo, sizeof safe_algo);
		sink_plot(dtype, safe_dtype, sizeof safe_dtype);
		snprintf(title, sizeof title, "fgobench heatmap: %s %s, world %d: best tile per shape%s",
			 safe_algo, safe_dtype, q->world, plot_query_filters(q, filters, sizeof filters));
		/* ~125 px a column and 56 a row hold a label's two lines at 13 pt */
		char width[24], height[24];
		snprintf(width, sizeof width, "%ld", ncol > 8 ? at_most(350 + 125 * ncol, 8000) : 1400);
		snprintf(height, sizeof height, "%ld", nm > 11 ? at_most(250 + 56 * nm, 8000) : 900);
		struct plot_field f[] = { { "TITLE", title }, { "TICS", tics_text }, { "EMPTY", empty_text },
					  { "WIDTH", width }, { "HEIGHT", height } };
		rc = plot_query_render(q, "plots/heatmap.gp", base, f, 5);
	}
	free(tics_text);
	free(empty_text);
	free(cells);
	free(ms);
	free(nk);
	free(ns);
	return rc;
}

int plot_heatmap(const struct plot_query *q)
{
	sqlite3_stmt *st;
	int step, rc = plot_query_prepare(q, groups_sql, &st), drawn = 0;
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
		rc = plot_query_step_failed(q, step);
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
	int step, rc = plot_query_prepare(q, worlds_sql, &st);
	*n = 0;
	if (rc)
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		if (*n < max)
			worlds[(*n)++] = sqlite3_column_int(st, 0);
	rc = plot_query_step_failed(q, step);
	sqlite3_finalize(st);
	return rc;
}
