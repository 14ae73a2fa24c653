/* plot_roofline.c: `fgobench plot roofline`: every configuration's newest
 * ok runs as TFLOP/s against M*N*K, the calibrated matrix peaks as lines.
 * A roofline of 48 configurations with one legend entry each is a wall
 * nobody reads, so points are coloured by family (algorithm, and dtype
 * when several are plotted; by the rest of the configuration when only
 * one family is) and marked by tile shape, and the legend names each
 * colour and each mark once. Each dtype's peak line has its own colour and
 * dash and is named by a label on the line, not in the legend; a peak
 * below that dtype's best run (a CPU's calibrated peak often is) is drawn
 * at the best run instead and says so, as a ceiling under the points reads
 * as a broken plot. Axes carry round numbers (plot_ticks.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "sink.h"
#include "views/plot_kinds.h"
#include "views/plot_query.h"
#include "views/plot_ticks.h"

/* Colours told apart at a glance (Tableau's, less the red of the fp32 peak
 * line and the grey of "other"); the last key beyond them is "other". */
static const char *const colours[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
				       "#8c564b", "#e377c2", "#bcbd22", "#17becf",
				       "#393b79", "#637939", "#7b4173", "#000000" };
/* gnuplot point types: filled, then open square, circle, triangles, diamond; x, star */
static const int marks[] = { 5, 7, 9, 11, 13, 4, 6, 8, 10, 12, 2, 3 };
#define OTHER_COLOUR "#9a9a9a"
#define OTHER_MARK 1 /* + */
#define KEY_LEN 96

/* One configuration: one block of the data file, one plot clause. */
struct series {
	char algo[64];          /* from the store, through sink_plot */
	enum fgo_dtype dtype;
	int blk_m, blk_n, blk_k;
	char variant[KEY_LEN];  /* the configuration less the tile: "s4 w8 wgmma k4" */
};

/* The distinct texts of one legend group, sorted; nshown of them keep
 * their own colour or mark, the rest share "other". */
struct keys {
	char (*text)[KEY_LEN];
	int n, nshown;
};

struct roofline {
	struct series *s;
	size_t n, cap;
	size_t points;
	double x_min, x_max, y_min, y_max;
	double best[3]; /* per dtype (enum fgo_dtype): the highest TFLOP/s plotted */
};

/* A dtype's peak line: the newest calibrated matrix peak times the world,
 * or the dtype's best run where that is higher (raised). */
struct ceiling {
	enum fgo_dtype dtype;
	double calibrated, drawn;
	int raised;
};

/* Each dtype's line in its own colour and dash, the same on every plot:
 * fp32 dark red, solid; fp16 black, dashed; bf16 orange, dash-dot. */
static const struct {
	const char *colour;
	int dash; /* gnuplot dashtype */
} peak_style[] = {
	[FGO_FP32] = { "#b2182b", 1 },
	[FGO_FP16] = { "#111111", 2 },
	[FGO_BF16] = { "#d95f02", 4 },
};

static int add_series(struct roofline *r, const struct fgo_config *c)
{
	char brief[160];
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct series *more = realloc(r->s, sizeof *more * cap);
		if (!more)
			return FGO_EFAIL;
		r->s = more;
		r->cap = cap;
	}
	struct series *s = &r->s[r->n++];
	sink_plot(c->algorithm, s->algo, sizeof s->algo);
	s->dtype = c->dtype;
	s->blk_m = c->blk_m;
	s->blk_n = c->blk_n;
	s->blk_k = c->blk_k;
	view_tile_brief(c, brief, sizeof brief);
	const char *rest = strchr(brief, ' ');
	sink_plot(rest ? rest + 1 : "defaults", s->variant, sizeof s->variant);
	return FGO_OK;
}

static int by_text(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/* Tiles sort by size, not as text: 16x64x64 before 128x128x64. */
static int by_tile(const void *a, const void *b)
{
	int ma, na, ka, mb, nb, kb;
	if (sscanf(a, "%dx%dx%d", &ma, &na, &ka) != 3 || sscanf(b, "%dx%dx%d", &mb, &nb, &kb) != 3)
		return strcmp(a, b);
	return ma != mb ? (ma > mb) - (ma < mb) : na != nb ? (na > nb) - (na < nb) : (ka > kb) - (ka < kb);
}

static int key_index(const struct keys *k, const char *text)
{
	for (int i = 0; i < k->n; i++)
		if (strcmp(k->text[i], text) == 0)
			return i;
	return -1;
}

/* The text series i is keyed by in a group (what: 'f' family, 'v' variant, 't' tile). */
static void key_of(const struct roofline *r, size_t i, char what, int dtypes, char *out)
{
	const struct series *s = &r->s[i];
	if (what == 't')
		snprintf(out, KEY_LEN, "%dx%dx%d", s->blk_m, s->blk_n, s->blk_k);
	else if (what == 'v')
		snprintf(out, KEY_LEN, "%s", s->variant);
	else
		snprintf(out, KEY_LEN, "%s%s%s", s->algo, dtypes > 1 ? " " : "",
			 dtypes > 1 ? dtype_name(s->dtype) : "");
}

static int collect_keys(const struct roofline *r, char what, int dtypes, int shown,
			struct keys *k)
{
	char text[KEY_LEN];
	k->n = 0;
	if (!(k->text = malloc(sizeof *k->text * (r->n ? r->n : 1))))
		return FGO_EFAIL;
	for (size_t i = 0; i < r->n; i++) {
		key_of(r, i, what, dtypes, text);
		if (key_index(k, text) < 0)
			memcpy(k->text[k->n++], text, KEY_LEN);
	}
	qsort(k->text, (size_t)k->n, KEY_LEN, what == 't' ? by_tile : by_text);
	/* past the palette, one shared "other" entry keeps the legend short */
	k->nshown = k->n <= shown ? k->n : shown - 1;
	return FGO_OK;
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

/* Reads the peak of each dtype plotted into c (at most 3), each raised to
 * the dtype's best run where that is higher; *n how many. */
static int read_ceilings(const struct plot_query *q, const struct roofline *r,
			 struct ceiling *c, int *n)
{
	sqlite3_stmt *st;
	int step, rc = plot_query_prepare(q, ceilings_sql, &st);
	*n = 0;
	if (rc)
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW && *n < 3) {
		enum fgo_dtype t;
		const unsigned char *name = sqlite3_column_text(st, 0);
		double peak = sqlite3_column_double(st, 1) * q->world;
		if (!name || dtype_parse((const char *)name, &t) != 0 || !(peak > 0))
			continue; /* a log axis has no place for it */
		c[*n] = (struct ceiling){ t, peak, peak, 0 };
		if (r->best[t] > peak) {
			c[*n].drawn = r->best[t];
			c[*n].raised = 1;
		}
		(*n)++;
	}
	rc = step == SQLITE_ROW ? FGO_OK : plot_query_step_failed(q, step);
	sqlite3_finalize(st);
	return rc;
}

/* The label on each peak line, written before the plot command: the
 * dtype first, at the line's height, in its colour, above the line at its
 * right end. A label that would print over the one of the line just above
 * (closer than a text line at this axis's scale: decades is the y range
 * in powers of ten) moves to the left end, a third to the middle. Only
 * fgobench's own text (dtype names, numbers) is in them. */
static void ceiling_labels(FILE *out, const struct ceiling *c, int n, int world, double decades)
{
	static const struct {
		double x;
		const char *align;
	} spot[] = { { 0.985, "right" }, { 0.015, "left" }, { 0.5, "center" } };
	int order[3] = { 0, 1, 2 }, place = 0;
	for (int a = 1; a < n; a++) /* highest line first */
		for (int b = a; b > 0 && c[order[b]].drawn > c[order[b - 1]].drawn; b--) {
			int t = order[b];
			order[b] = order[b - 1];
			order[b - 1] = t;
		}
	for (int k = 0; k < n; k++) {
		const struct ceiling *e = &c[order[k]];
		char drawn[32], calibrated[32], text[160];
		/* ~700 px of graph height; a label is ~20 px tall */
		if (k > 0 && log10(c[order[k - 1]].drawn / e->drawn) * 700 / decades < 22)
			place = (place + 1) % 3;
		else
			place = 0;
		plot_number(e->drawn, 3, drawn, sizeof drawn);
		plot_number(e->calibrated, 3, calibrated, sizeof calibrated);
		if (e->raised)
			snprintf(text, sizeof text, "%s best run %s TFLOP/s (calibrated peak %s is lower)",
				 dtype_name(e->dtype), drawn, calibrated);
		else
			snprintf(text, sizeof text, "%s peak %s TFLOP/s (calibrated, %d rank%s)",
				 dtype_name(e->dtype), drawn, world, world == 1 ? "" : "s");
		fprintf(out, "set label %d '%s' at graph %.3f, first %.6g %s offset 0, 0.7"
			     " tc rgb '%s' font \",10\" front\n",
			k + 1, text, spot[place].x, e->drawn, spot[place].align,
			peak_style[e->dtype].colour);
	}
}

/* The peak lines' plot clauses (no legend entry: the labels name them). */
static void ceiling_lines(FILE *cmd, const struct ceiling *c, int n)
{
	for (int i = 0; i < n; i++)
		fprintf(cmd, ", \\\n     %.6g with lines dt %d lw 2 lc rgb '%s' notitle", c[i].drawn,
			peak_style[c[i].dtype].dash, peak_style[c[i].dtype].colour);
}

/* "; ceiling raised to the best run: fp32, fp16" for the title, or "". */
static const char *raised_note(const struct ceiling *c, int n, char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (int i = 0; i < n; i++)
		if (c[i].raised && used < len)
			used += (size_t)snprintf(out + used, len - used, "%s%s",
						 used ? ", " : "; ceiling raised to the best run: ",
						 dtype_name(c[i].dtype));
	return out;
}

static const char roofline_sql[] = LATEST_CTE
	"SELECT " VIEW_CONFIG_COLUMNS ", m * n * k, tflops_total FROM cur"
	" ORDER BY algorithm, dtype, blk_m, blk_n, blk_k, num_stages, num_warps, mma, gsize_m,"
	"   gemm_sms, comm_sms, comm_blk_m, comm_blk_n, split_k, deterministic, cluster,"
	"   m * n * k";

/* The name of a configuration's block in the data file (safe for gnuplot
 * and for a reader restyling by hand: everything but the shape). */
static void series_name(const struct fgo_config *c, char *out, size_t len)
{
	char tile[96], algo[64];
	view_tile_text(c, tile, sizeof tile);
	sink_plot(c->algorithm, algo, sizeof algo);
	snprintf(out, len, "%s %s %s", algo, dtype_name(c->dtype), tile);
}

/* Reads the runs into dat (one block per configuration) and r. */
static int read_runs(const struct plot_query *q, FILE *dat, struct roofline *r)
{
	char name[192], prev[192] = "";
	sqlite3_stmt *st;
	int step = SQLITE_DONE, rc = plot_query_prepare(q, roofline_sql, &st);
	if (rc)
		return rc;
	fprintf(dat, "# M*N*K  TFLOP/s  (one block per configuration)\n");
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct fgo_config c;
		view_config(st, 0, &c);
		series_name(&c, name, sizeof name);
		if (strcmp(name, prev) != 0) {
			if (add_series(r, &c) != FGO_OK) {
				sqlite3_finalize(st);
				return FGO_EFAIL;
			}
			fprintf(dat, "%s# %s\n", r->n > 1 ? "\n\n" : "", name);
			snprintf(prev, sizeof prev, "%s", name);
		}
		double x = sqlite3_column_double(st, VIEW_CONFIG_NCOLS);
		double y = sqlite3_column_double(st, VIEW_CONFIG_NCOLS + 1);
		fprintf(dat, "%.6g %.6g\n", x, y);
		if (x > 0 && y > 0) { /* what a log axis can show */
			int first = r->points++ == 0;
			r->x_min = first || x < r->x_min ? x : r->x_min;
			r->x_max = first || x > r->x_max ? x : r->x_max;
			r->y_min = first || y < r->y_min ? y : r->y_min;
			r->y_max = first || y > r->y_max ? y : r->y_max;
			if ((unsigned)c.dtype < 3)
				r->best[c.dtype] = fmax(r->best[c.dtype], y);
		}
	}
	rc = plot_query_step_failed(q, step);
	sqlite3_finalize(st);
	return rc;
}

/* [lo, hi] widened on a log scale by the fractions below and above of its
 * span (at least a factor 1.3 each way), so no point sits on the frame
 * and a lone shape still gets an axis with ticks. */
static void pad(double *lo, double *hi, double below, double above)
{
	double span = log10(*hi / *lo);
	*lo /= pow(10, fmax(below * span, log10(1.3)));
	*hi *= pow(10, fmax(above * span, log10(1.3)));
}

/* One legend group: a header, then a keyentry per shown key (colour or
 * mark), then "other (n)" when some share it. */
static void legend_group(FILE *cmd, const char *header, const struct keys *k, int by_colour)
{
	fprintf(cmd, ", \\\n     keyentry with lines lt nodraw title '%s'", header);
	for (int i = 0; i <= k->nshown && i < k->n; i++) {
		char other[48];
		int last = i == k->nshown;
		snprintf(other, sizeof other, "other (%d)", k->n - k->nshown);
		if (by_colour)
			fprintf(cmd, ", \\\n     keyentry with points pt 7 lc rgb '%s' title '%s'",
				last ? OTHER_COLOUR : colours[i], last ? other : k->text[i]);
		else
			fprintf(cmd, ", \\\n     keyentry with points pt %d lc rgb '#404040' title '%s'",
				last ? OTHER_MARK : marks[i], last ? other : k->text[i]);
	}
}

/* The whole plot command: axes, one clause per configuration, the legend. */
static int write_plot(const char *base, const struct roofline *r, const struct ceiling *ceil,
		      int nceil, FILE *cmd)
{
	char key[KEY_LEN], header[160];
	struct keys colour = { 0 }, mark = { 0 };
	int dtypes = 0, rc;
	char what = 'f';

	for (size_t i = 0; i < r->n; i++) {
		size_t j = 0;
		while (j < i && r->s[j].dtype != r->s[i].dtype)
			j++;
		dtypes += j == i;
	}
	rc = collect_keys(r, 'f', dtypes, FGO_ARRAY_SIZE(colours), &colour);
	if (rc == FGO_OK && colour.n == 1) {
		/* one family: its configurations (less the tile) are what tells
		 * points apart, when they differ at all */
		struct keys variant = { 0 };
		rc = collect_keys(r, 'v', dtypes, FGO_ARRAY_SIZE(colours), &variant);
		if (rc == FGO_OK && variant.n > 1) {
			free(colour.text);
			colour = variant;
			what = 'v';
		} else {
			free(variant.text);
		}
	}
	if (rc == FGO_OK)
		rc = collect_keys(r, 't', dtypes, FGO_ARRAY_SIZE(marks), &mark);
	for (size_t i = 0; rc == FGO_OK && i < r->n; i++) {
		key_of(r, i, what, dtypes, key);
		int c = key_index(&colour, key);
		key_of(r, i, 't', dtypes, key);
		int m = key_index(&mark, key);
		fprintf(cmd, "%s'%s.dat' index %zu using 1:2 with points pt %d lc rgb '%s' notitle",
			i ? ", \\\n     " : "plot ", base, i, m < mark.nshown ? marks[m] : OTHER_MARK,
			c < colour.nshown ? colours[c] : OTHER_COLOUR);
	}
	if (rc == FGO_OK) {
		if (what == 'v') {
			/* two header lines keep the legend narrow */
			key_of(r, 0, 'f', dtypes, key);
			fprintf(cmd, ", \\\n     keyentry with lines lt nodraw title 'colour: settings of'");
			snprintf(header, sizeof header, "%s %s", key, dtype_name(r->s[0].dtype));
		} else {
			snprintf(header, sizeof header, "colour: algorithm%s",
				 dtypes > 1 ? " and dtype" : "");
		}
		legend_group(cmd, header, &colour, 1);
		fprintf(cmd, ", \\\n     keyentry with lines lt nodraw title ' '");
		legend_group(cmd, "mark: tile BLK_MxBLK_NxBLK_K", &mark, 0);
		ceiling_lines(cmd, ceil, nceil);
	}
	free(colour.text);
	free(mark.text);
	return rc;
}

int plot_roofline(const struct plot_query *q)
{
	char base[64], title[512], filters[256], raised[64];
	struct ceiling ceil[3];
	int nceil = 0;
	char *cmd_text = NULL, *axes_text = NULL, *plot_text = NULL;
	size_t cmd_len = 0, axes_len = 0;
	struct roofline r = { 0 };
	struct atomic_file af;
	FILE *dat, *cmd = NULL, *axes = NULL;
	int rc;

	snprintf(base, sizeof base, "roofline_w%d", q->world);
	if (!(dat = plot_query_open_data(q, base, &af)))
		return FGO_EUSAGE;
	rc = read_runs(q, dat, &r);
	rc = plot_query_close_data(&af, rc);
	if (rc == FGO_OK && r.points == 0) {
		error("nothing to plot for world %d (no ok runs match)", q->world);
		rc = FGO_EUSAGE;
	}
	if (rc == FGO_OK)
		rc = read_ceilings(q, &r, ceil, &nceil);
	for (int i = 0; i < nceil; i++)
		r.y_max = fmax(r.y_max, ceil[i].drawn); /* the peaks may stand above every run */
	if (rc == FGO_OK && !(cmd = open_memstream(&cmd_text, &cmd_len)))
		rc = FGO_EFAIL;
	if (rc == FGO_OK)
		rc = write_plot(base, &r, ceil, nceil, cmd);
	if (cmd)
		fclose(cmd);
	if (rc == FGO_OK && !(axes = open_memstream(&axes_text, &axes_len)))
		rc = FGO_EFAIL;
	if (rc == FGO_OK) {
		double x_lo = r.x_min, x_hi = r.x_max, y_lo = r.y_min, y_hi = r.y_max;
		pad(&x_lo, &x_hi, 0.04, 0.04);
		pad(&y_lo, &y_hi, 0.06, 0.12);
		plot_log_axis(axes, "x", x_lo, x_hi, PLOT_TICKS_POWER);
		plot_log_range(&y_lo, &y_hi); /* as plot_log_axis will: the labels need the span */
		plot_log_axis(axes, "y", y_lo, y_hi, PLOT_TICKS_PLAIN);
		ceiling_labels(axes, ceil, nceil, q->world, log10(y_hi / y_lo));
		fclose(axes);
		if (asprintf(&plot_text, "%s%s\n", axes_text, cmd_text) < 0) {
			plot_text = NULL;
			rc = FGO_EFAIL;
		}
	}
	if (rc == FGO_OK) {
		snprintf(title, sizeof title, "fgobench roofline: world %d, %zu runs, %zu configurations%s%s",
			 q->world, r.points, r.n, plot_query_filters(q, filters, sizeof filters),
			 raised_note(ceil, nceil, raised, sizeof raised));
		struct plot_field f[] = { { "TITLE", title }, { "PLOT", plot_text } };
		rc = plot_query_render(q, "plots/roofline.gp", base, f, 2);
	}
	free(plot_text);
	free(axes_text);
	free(cmd_text);
	free(r.s);
	int floor_drawn = 0;
	if (rc == FGO_OK)
		rc = plot_floor(q, &floor_drawn);
	if (q->floor_drawn)
		*q->floor_drawn = floor_drawn;
	return rc;
}
