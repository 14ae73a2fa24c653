/* plot_floor.c: the read-floor panel drawn with `fgobench plot roofline`:
 * the memory-bound runs' times against their per-rank GEMM's bytes, with
 * the read floor of the newest sweep's machine and backend (floor.h) as a
 * line, 1.1x it dashed and the calibrated points marked. Runs of another
 * machine are left out (their floor is not this one); without a curve or
 * a memory-bound run nothing is drawn and nothing is said. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "floor.h"
#include "sink.h"
#include "views/plot.h"
#include "views/plot_kinds.h"
#include "views/plot_ticks.h"
#include "views/views.h"

/* The newest ok run of each configuration with the command's filters, as
 * plot_kinds.c's LATEST_CTE. */
static const char runs_sql[] =
	"WITH latest AS ("
	"  SELECT r.*, s.host AS host, s.backend AS backend,"
	"    row_number() OVER (PARTITION BY r.config_key ORDER BY r.id DESC) AS recency"
	"  FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
	"  WHERE r.status = 'ok' AND r.t_fused_ms > 0 AND (?1 IS NULL OR r.world = ?1)"
	"    AND (?2 IS NULL OR s.tag = ?2) AND (?3 IS NULL OR r.algorithm = ?3)"
	"    AND (?4 IS NULL OR r.dtype = ?4)"
	"), cur AS (SELECT * FROM latest WHERE recency = 1),"
	" newest AS (SELECT host, backend FROM cur ORDER BY id DESC LIMIT 1)"
	" SELECT " VIEW_CONFIG_COLUMNS ", t_fused_ms, host, backend FROM cur"
	" WHERE host = (SELECT host FROM newest) AND backend = (SELECT backend FROM newest)"
	" ORDER BY algorithm, dtype, m, n, k, t_fused_ms";

#define CURVE_SAMPLES 80

struct panel {
	FILE *dat, *cmd;
	size_t series, points;
	double x_min, x_max, worst, best;
	double us_min, us_max;   /* the runs' times, for the y range */
	char prev[96];
	char dat_name[80];       /* the data file's bare name */
};

/* One memory-bound run into the data, opening its series' block (one per
 * algorithm and dtype) when it is the first of it. */
static void add_point(struct panel *p, const struct fgo_config *c, double bytes, double ms,
		      double floor_s)
{
	char algo[64], name[96];
	sink_plot(c->algorithm, algo, sizeof algo);
	snprintf(name, sizeof name, "%s %s", algo, dtype_name(c->dtype));
	if (strcmp(name, p->prev) != 0) {
		fprintf(p->dat, "\n\n# %s: bytes  us  x_floor  M N K\n", name);
		fprintf(p->cmd, ", \\\n     '%s' index %zu using 1:2 with points pt %zu lc %zu"
			     " title '%s'", p->dat_name, p->series + 2, 5 + 2 * (p->series % 5),
			p->series + 1, name);
		snprintf(p->prev, sizeof p->prev, "%s", name);
		p->series++;
	}
	double x = ms * 1e-3 / floor_s;
	fprintf(p->dat, "%.6g %.6g %.4g %ld %ld %ld\n", bytes, ms * 1e3, x, c->m, c->n, c->k);
	p->x_min = p->points == 0 || bytes < p->x_min ? bytes : p->x_min;
	p->x_max = p->points == 0 || bytes > p->x_max ? bytes : p->x_max;
	p->us_min = p->points == 0 || ms * 1e3 < p->us_min ? ms * 1e3 : p->us_min;
	p->us_max = p->points == 0 || ms * 1e3 > p->us_max ? ms * 1e3 : p->us_max;
	p->worst = p->points == 0 || x > p->worst ? x : p->worst;
	p->best = p->points == 0 || x < p->best ? x : p->best;
	p->points++;
}

/* Blocks 0 (the floor sampled over the plotted bytes, with 1.1x) and 1
 * (the calibrated points), written once the runs' range is known. */
static void write_curve(FILE *dat, const struct fgo_floor *f, double lo, double hi)
{
	lo = fmin(lo, f->bytes[0]);
	hi = fmax(hi, f->bytes[f->n - 1]);
	fprintf(dat, "# read floor: bytes  us  1.1 x us\n");
	for (int i = 0; i <= CURVE_SAMPLES; i++) {
		double b = exp(log(lo) + (log(hi) - log(lo)) * i / CURVE_SAMPLES);
		double us = floor_seconds(f, b) * 1e6;
		fprintf(dat, "%.6g %.6g %.6g\n", b, us, 1.1 * us);
	}
	fprintf(dat, "\n\n# calibrated points: bytes  us\n");
	for (int i = 0; i < f->n; i++)
		fprintf(dat, "%.6g %.6g\n", f->bytes[i], f->seconds[i] * 1e6);
}

int plot_floor(const struct plot_query *q, int *drawn)
{
	static struct fgo_floor floor; /* ~1 KB: not on the stack */
	char base[64], host[128] = "", backend[16] = "", err[512], title[512], safe_host[128];
	char *cmd_text = NULL, *plot_text = NULL, *runs_text = NULL;
	size_t cmd_len = 0, runs_len = 0;
	struct panel p = { .dat = NULL };
	struct atomic_file af;
	sqlite3_stmt *st;
	int step, rc;

	*drawn = 0;
	snprintf(base, sizeof base, "floor_w%d", q->world);
	snprintf(p.dat_name, sizeof p.dat_name, "%s.dat", base);
	if ((rc = view_prepare(q->store, runs_sql, &st)))
		return rc;
	if (q->world > 0)
		sqlite3_bind_int(st, 1, q->world);
	if (q->tag)
		sqlite3_bind_text(st, 2, q->tag, -1, SQLITE_STATIC);
	if (q->algorithm)
		sqlite3_bind_text(st, 3, q->algorithm, -1, SQLITE_STATIC);
	if (q->dtype)
		sqlite3_bind_text(st, 4, q->dtype, -1, SQLITE_STATIC);
	/* the runs go to memory first: no file unless there is something to draw */
	p.dat = open_memstream(&runs_text, &runs_len);
	p.cmd = open_memstream(&cmd_text, &cmd_len);
	floor.n = 0;
	while (p.dat && p.cmd && (step = sqlite3_step(st)) == SQLITE_ROW) {
		struct fgo_config c;
		double floor_s, bytes;
		view_config(st, 0, &c);
		if (!host[0]) {
			view_text(st, VIEW_CONFIG_NCOLS + 1, host, sizeof host);
			view_text(st, VIEW_CONFIG_NCOLS + 2, backend, sizeof backend);
			if (store_floor_get(store_db(q->store), host, backend, &floor, err, sizeof err)) {
				error("%s", err);
				step = SQLITE_ERROR;
				break;
			}
		}
		if (floor_of_run(&floor, &c, &floor_s, &bytes))
			add_point(&p, &c, bytes, sqlite3_column_double(st, VIEW_CONFIG_NCOLS), floor_s);
	}
	rc = !p.dat || !p.cmd ? FGO_EFAIL : step == SQLITE_DONE ? FGO_OK : FGO_EFAIL;
	if (rc != FGO_OK && step != SQLITE_ERROR)
		error("reading the store failed: %s", sqlite3_errmsg(store_db(q->store)));
	sqlite3_finalize(st);
	if (p.dat)
		fclose(p.dat);
	if (p.cmd)
		fclose(p.cmd);
	if (rc != FGO_OK || p.points == 0)
		goto out; /* no curve, or no memory-bound run: nothing to say */

	char err2[512];
	if (plot_open_data(q->dir, base, &af, err2, sizeof err2) != FGO_OK) {
		error("%s", err2);
		rc = FGO_EUSAGE;
		goto out;
	}
	write_curve(af.f, &floor, p.x_min, p.x_max);
	fputs(runs_text, af.f);
	if (plot_commit_data(&af, err2, sizeof err2) != FGO_OK) {
		error("%s", err2);
		rc = FGO_EFAIL;
		goto out;
	}
	char when[64], *axes_text = NULL;
	size_t axes_len = 0;
	sink_plot(floor.measured_at, when, sizeof when);
	/* Ranges from what is drawn (the curve spans the calibrated sizes and
	 * the runs), ticks on round numbers: gnuplot's own log autoscale
	 * widened a 5-150 us panel to 0.1-10000. */
	FILE *axes = open_memstream(&axes_text, &axes_len);
	if (!axes) {
		rc = FGO_EFAIL;
		goto out;
	}
	double x_lo = fmin(p.x_min, floor.bytes[0]), x_hi = fmax(p.x_max, floor.bytes[floor.n - 1]);
	double y_lo = fmin(p.us_min, floor_seconds(&floor, x_lo) * 1e6);
	double y_hi = fmax(p.us_max, 1.1 * floor_seconds(&floor, x_hi) * 1e6);
	fprintf(axes, "set xrange [%.6g:%.6g]\n", x_lo / 1.3, x_hi * 1.3);
	plot_log_axis(axes, "y", y_lo / 1.4, y_hi * 1.4, PLOT_TICKS_PLAIN);
	fclose(axes);
	if (asprintf(&plot_text,
		     "%splot '%s' index 0 using 1:2 with lines lw 2.5 lc rgb '#000000'"
		     " title 'read floor', \\\n"
		     "     '%s' index 0 using 1:3 with lines dt 2 lw 1.5 lc rgb '#7f7f7f'"
		     " title '1.1 x read floor', \\\n"
		     "     '%s' index 1 using 1:2 with points pt 2 ps 0.8 lc rgb '#000000'"
		     " title 'calibrated points'%s\n",
		     axes_text, p.dat_name, p.dat_name, p.dat_name, cmd_text) < 0) {
		plot_text = NULL;
		free(axes_text);
		rc = FGO_EFAIL;
		goto out;
	}
	free(axes_text);
	sink_plot(host, safe_host, sizeof safe_host);
	snprintf(title, sizeof title,
		 "fgobench read floor: world %d, %zu memory-bound runs on %s (%s): time / floor"
		 " %.2f to %.2f; floor calibrated %s", q->world, p.points, safe_host,
		 backend[0] == 'g' ? "gpu" : "cpu", p.best, p.worst, when);
	struct plot_field f[] = { { "TITLE", title }, { "PLOT", plot_text } };
	if (plot_render("plots/floor.gp", q->dir, base, f, 2, err2, sizeof err2) != FGO_OK) {
		error("%s", err2);
		rc = FGO_EFAIL;
		goto out;
	}
	printf("%s/%s.png\n%s/%s.svg\n", q->dir, base, q->dir, base);
	*drawn = 1;
out:
	free(runs_text);
	free(cmd_text);
	free(plot_text);
	return rc;
}
