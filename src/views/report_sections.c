/* report_sections.c: the sections of `fgobench report`, each read from the
 * store for one sweep and added to the document (report_sections.h). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fgo.h"
#include "floor.h"
#include "views/plot_kinds.h"
#include "views/report_sections.h"
#include "views/table.h"
#include "views/views.h"

/* ---- comparison ---- */

void report_section_regress(struct report_doc *doc, const struct fgo_regress_report *rep,
			    const char *base_text)
{
	doc_heading(doc, 2, "Regressions and improvements");
	if (!rep) {
		doc_para(doc, "Against %s: no configuration has ok runs on both sides, so nothing"
			 " was compared.", base_text);
		return;
	}
	struct fgo_table *t = table_new(REGRESS_COLUMNS, regress_headers);
	int changed = 0;
	for (size_t i = 0; t && i < rep->count; i++) {
		if (rep->pairs[i].verdict == FGO_SAME)
			continue;
		regress_table_row(t, &rep->pairs[i]);
		changed++;
	}
	doc_para(doc, "Against %s: %zu configuration%s compared by %s.", base_text, rep->count,
		 rep->count == 1 ? "" : "s",
		 rep->gate.on ? "the nightly gate (each night's level: the median of its rounds)"
			      : "their fused samples");
	if (changed)
		doc_table(doc, t, REGRESS_COLUMNS, regress_headers);
	else {
		table_free(t);
		doc_para(doc, "%s", rep->gate.on && rep->gate.blind
				      ? "No verdict: the night was too noisy to judge (see the summary)."
				      : "No regression and no improvement: every change is within the"
					" threshold or not significant.");
	}
	doc_para(doc, "%zu unchanged; %d configuration%s with ok runs only in the base, %d only in"
		 " this sweep.", rep->count - (size_t)changed, rep->only_base,
		 rep->only_base == 1 ? "" : "s", rep->only_head);
}

/* ---- runs that are not ok ---- */

static const char *const status_headers[] = { "status", "runs", "meaning" };
static const char *const reason_headers[] = { "status", "runs", "reason", "example" };

static const char reasons_sql[] =
	"WITH g AS (SELECT status AS st, coalesce(reason, '') AS why, count(*) AS runs,"
	"  min(id) AS example FROM runs WHERE sweep_id = ?1 AND status != 'ok' GROUP BY st, why)"
	" SELECT g.st, g.why, g.runs, " VIEW_CONFIG_COLUMNS
	" FROM g JOIN runs r ON r.id = g.example ORDER BY g.st, g.runs DESC, g.why LIMIT 100";

int report_section_not_ok(struct report_doc *doc, sqlite3 *db, const struct report_sweep *s,
			  const struct report_counts *c, char *err, size_t len)
{
	static const struct {
		const char *status, *meaning;
		size_t offset;
	} rows[] = {
		{ "invalid", "configuration refused before launch (does not fit, bad tile)",
		  offsetof(struct report_counts, invalid) },
		{ "mismatch", "ran, but the result differs from the reference",
		  offsetof(struct report_counts, mismatch) },
		{ "failed", "the launch or the backend failed", offsetof(struct report_counts, failed) },
		{ "timeout", "a launch took longer than --timeout", offsetof(struct report_counts, timeout) },
		{ "started", "never finished: the sweep was interrupted",
		  offsetof(struct report_counts, started) },
	};
	doc_heading(doc, 2, "Runs that did not succeed");
	if (c->ok == c->total) {
		if (c->total == 1)
			doc_para(doc, "Its one run is ok.");
		else
			doc_para(doc, "Every one of the %d runs is ok.", c->total);
		return FGO_OK;
	}
	struct fgo_table *t = table_new((int)FGO_ARRAY_SIZE(status_headers), status_headers);
	for (size_t i = 0; t && i < FGO_ARRAY_SIZE(rows); i++) {
		int n = *(const int *)((const char *)c + rows[i].offset);
		table_add(t, "%s", rows[i].status);
		table_add(t, "%d", n);
		table_add(t, "%s", rows[i].meaning);
	}
	doc_table(doc, t, (int)FGO_ARRAY_SIZE(status_headers), status_headers);

	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, reasons_sql, -1, &st, NULL) != SQLITE_OK)
		return report_sql_failed(db, err, len);
	sqlite3_bind_int64(st, 1, s->id);
	t = table_new((int)FGO_ARRAY_SIZE(reason_headers), reason_headers);
	int step;
	while (t && (step = sqlite3_step(st)) == SQLITE_ROW) {
		struct fgo_config cfg;
		char tile[96];
		view_config(st, 3, &cfg);
		view_tile_text(&cfg, tile, sizeof tile);
		table_add(t, "%s", (const char *)sqlite3_column_text(st, 0));
		table_add(t, "%d", sqlite3_column_int(st, 2));
		/* a reason is one line; a long one (a compiler log) is cut */
		const unsigned char *why = sqlite3_column_text(st, 1);
		table_add(t, "%.300s%s", why && *why ? (const char *)why : "(none recorded)",
			  why && strlen((const char *)why) > 300 ? "..." : "");
		table_add(t, "%s %s w%d %ldx%ldx%ld %s", cfg.algorithm, dtype_name(cfg.dtype), cfg.world,
			  cfg.m, cfg.n, cfg.k, tile);
	}
	sqlite3_finalize(st);
	if (!t || step != SQLITE_DONE) {
		table_free(t);
		return report_sql_failed(db, err, len);
	}
	doc_heading(doc, 3, "Reasons");
	doc_table(doc, t, (int)FGO_ARRAY_SIZE(reason_headers), reason_headers);
	return FGO_OK;
}

/* ---- best configuration per problem ---- */

static const char *const best_headers[] = { "algorithm", "dtype", "M",       "N",   "K",
					    "config",    "ms",    "TFLOPS",  "speedup", "sol",
					    "overlap",   "tried", "run",     "x floor" };
#define BEST_COLS_NO_FLOOR 13 /* without the read floor's column */

static const char best_sql[] =
	"WITH ranked AS ("
	"  SELECT *, row_number() OVER fastest AS place,"
	"    count(*) OVER (PARTITION BY algorithm, dtype, m, n, k) AS tried"
	"  FROM runs WHERE sweep_id = ?1 AND world = ?2 AND status = 'ok' AND t_fused_ms > 0"
	"  WINDOW fastest AS (PARTITION BY algorithm, dtype, m, n, k ORDER BY t_fused_ms, id))"
	" SELECT " VIEW_CONFIG_COLUMNS ", t_fused_ms, tflops_total, speedup, sol, overlap, tried, id"
	" FROM ranked WHERE place = 1 ORDER BY algorithm, dtype, m, n, k";

static void add_number(struct fgo_table *t, sqlite3_stmt *st, int col, const char *fmt)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		table_add(t, "%s", "");
	else
		table_add(t, fmt, sqlite3_column_double(st, col));
}

/* One table per world; f: the sweep's machine's read floor (n 0: none,
 * and no column for it). */
static int best_world(struct report_doc *doc, sqlite3 *db, int64_t sweep, int world,
		      const struct fgo_floor *f, char *err, size_t len)
{
	int cols = f->n > 0 ? (int)FGO_ARRAY_SIZE(best_headers) : BEST_COLS_NO_FLOOR;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, best_sql, -1, &st, NULL) != SQLITE_OK)
		return report_sql_failed(db, err, len);
	sqlite3_bind_int64(st, 1, sweep);
	sqlite3_bind_int(st, 2, world);
	struct fgo_table *t = table_new(cols, best_headers);
	int step, c = VIEW_CONFIG_NCOLS;
	while (t && (step = sqlite3_step(st)) == SQLITE_ROW) {
		struct fgo_config cfg;
		char tile[96];
		view_config(st, 0, &cfg);
		view_tile_text(&cfg, tile, sizeof tile);
		table_add(t, "%s", cfg.algorithm);
		table_add(t, "%s", dtype_name(cfg.dtype));
		table_add(t, "%ld", cfg.m);
		table_add(t, "%ld", cfg.n);
		table_add(t, "%ld", cfg.k);
		table_add(t, "%s", tile);
		add_number(t, st, c, "%.4g");
		add_number(t, st, c + 1, "%.4g");
		add_number(t, st, c + 2, "%.2f");
		add_number(t, st, c + 3, "%.2f");
		add_number(t, st, c + 4, "%.2f");
		table_add(t, "%d", sqlite3_column_int(st, c + 5));
		table_add(t, "%lld", (long long)sqlite3_column_int64(st, c + 6));
		double floor_s, bytes;
		if (f->n > 0 && floor_of_run(f, &cfg, &floor_s, &bytes))
			table_add(t, "%.2f", sqlite3_column_double(st, c) * 1e-3 / floor_s);
		else if (f->n > 0)
			table_add(t, "%s", "");
	}
	sqlite3_finalize(st);
	if (!t || step != SQLITE_DONE) {
		table_free(t);
		return report_sql_failed(db, err, len);
	}
	doc_heading(doc, 3, "World size %d", world);
	doc_table(doc, t, cols, best_headers);
	return FGO_OK;
}

/* The world sizes with ok runs in the sweep, at most max. */
static int worlds_of(sqlite3 *db, int64_t sweep, int *worlds, int max, int *n, char *err,
		     size_t len)
{
	sqlite3_stmt *st;
	*n = 0;
	if (sqlite3_prepare_v2(db, "SELECT DISTINCT world FROM runs WHERE sweep_id = ?1 AND"
				   " status = 'ok' AND t_fused_ms > 0 ORDER BY world", -1, &st, NULL))
		return report_sql_failed(db, err, len);
	sqlite3_bind_int64(st, 1, sweep);
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		if (*n < max)
			worlds[(*n)++] = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? FGO_OK : report_sql_failed(db, err, len);
}

#define WORLDS_MAX 64

int report_section_best(struct report_doc *doc, sqlite3 *db, const struct report_sweep *s,
			char *err, size_t len)
{
	int worlds[WORLDS_MAX], n, rc;
	doc_heading(doc, 2, "Best configuration per problem");
	if ((rc = worlds_of(db, s->id, worlds, WORLDS_MAX, &n, err, len)))
		return rc;
	if (n == 0) {
		doc_para(doc, "No ok run: nothing to rank.");
		return FGO_OK;
	}
	static struct fgo_floor floor; /* ~1 KB: not on the stack */
	if ((rc = store_floor_get(db, s->host, s->backend, &floor, err, len)))
		return rc;
	doc_para(doc, "The fastest configuration of each problem by median fused time; TFLOPS of all"
		 " ranks together; speedup over the baseline (vendor GEMM, then the collective);"
		 " sol = limit / time from the calibrated ceilings (the matrix peak, a pair's link,"
		 " the link egress at W with every rank sending at once); overlap 1 = communication fully"
		 " hidden; tried = configurations with ok runs.%s",
		 floor.n > 0 ? " x floor: a memory-bound run's time / the read floor of its bytes (its"
			       " per-rank GEMM's A + B + C read once, timed as runs are, from this"
			       " machine's calibrate); empty for compute-bound runs." : "");
	for (int w = 0; w < n && rc == FGO_OK; w++)
		rc = best_world(doc, db, s->id, worlds[w], &floor, err, len);
	return rc;
}

/* ---- plots ---- */

/* Points the connection's `runs` at one sweep: a TEMP view of that name
 * hides the table for unqualified names (SQLite looks in temp first), so
 * the plot code's queries read this sweep's runs and nothing else. The
 * store itself is never written (main stays read-only). */
static int scope_to_sweep(sqlite3 *db, int64_t sweep, int on, char *err, size_t len)
{
	char sql[256];
	if (on)
		snprintf(sql, sizeof sql, "PRAGMA query_only = OFF;"
			 " CREATE TEMP VIEW runs AS SELECT * FROM main.runs WHERE sweep_id = %lld;"
			 " PRAGMA query_only = ON;", (long long)sweep);
	else
		snprintf(sql, sizeof sql, "PRAGMA query_only = OFF; DROP VIEW IF EXISTS temp.runs;"
			 " PRAGMA query_only = ON;");
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK)
		return FGO_OK;
	return report_sql_failed(db, err, len);
}

static int file_exists(const char *dir, const char *name)
{
	char path[4096];
	struct stat sb;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return stat(path, &sb) == 0 && sb.st_size > 0;
}

/* Adds image name when the plot call rc succeeded and it is there. */
static void add_plot(struct report_doc *doc, const char *dir, int rc, const char *name,
		     const char *caption, int small, int *drawn, int *missing)
{
	if (rc == FGO_OK && file_exists(dir, name)) {
		doc_image(doc, name, caption, small);
		(*drawn)++;
	} else {
		(*missing)++;
	}
}

static int heatmaps(struct report_doc *doc, struct plot_query *q, sqlite3 *db, int64_t sweep,
		    int *drawn, int *missing, char *err, size_t len)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT DISTINCT algorithm, dtype FROM runs WHERE sweep_id = ?1"
				   " AND world = ?2 AND status = 'ok' AND t_fused_ms > 0"
				   " ORDER BY algorithm, dtype", -1, &st, NULL) != SQLITE_OK)
		return report_sql_failed(db, err, len);
	sqlite3_bind_int64(st, 1, sweep);
	sqlite3_bind_int(st, 2, q->world);
	int rc = plot_heatmap(q), step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		char name[320], base[256], caption[768], algo[512], dtype[64];
		const unsigned char *a = sqlite3_column_text(st, 0), *d = sqlite3_column_text(st, 1);
		/* as plot_heatmap names it (same truncation, same file-safe name) */
		snprintf(algo, sizeof algo, "%s", a ? (const char *)a : "");
		snprintf(dtype, sizeof dtype, "%s", d ? (const char *)d : "");
		plot_heatmap_base(q->world, algo, dtype, base, sizeof base);
		snprintf(name, sizeof name, "%s.png", base);
		snprintf(caption, sizeof caption, "Heatmap, %s %s, world %d: the best tile of each"
			 " shape, coloured by TFLOP/s", algo, dtype, q->world);
		add_plot(doc, q->dir, rc, name, caption, 1, drawn, missing);
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? FGO_OK : report_sql_failed(db, err, len);
}

int report_section_plots(struct report_doc *doc, struct fgo_store *store,
			 const struct report_sweep *s, const char *dir, int *drawn, char *err,
			 size_t len)
{
	sqlite3 *db = store_db(store);
	int worlds[WORLDS_MAX], n, rc, missing = 0;
	int floor_drawn = 0;
	struct plot_query q = { .store = store, .dir = dir, .floor_drawn = &floor_drawn };
	*drawn = 0;
	doc_heading(doc, 2, "Plots");
	if ((rc = worlds_of(db, s->id, worlds, WORLDS_MAX, &n, err, len)))
		return rc;
	if (n == 0) {
		doc_para(doc, "No ok run: nothing to draw.");
		return FGO_OK;
	}
	if ((rc = scope_to_sweep(db, s->id, 1, err, len)))
		return rc;
	for (int w = 0; w < n && rc == FGO_OK; w++) {
		char name[64], caption[256];
		q.world = worlds[w];
		doc_heading(doc, 3, "World size %d", q.world);
		snprintf(name, sizeof name, "roofline_w%d.png", q.world);
		snprintf(caption, sizeof caption, "Roofline, world %d: every configuration's throughput"
			 " against problem size, calibrated peaks as lines", q.world);
		add_plot(doc, dir, plot_roofline(&q), name, caption, 0, drawn, &missing);
		if (floor_drawn) {
			snprintf(name, sizeof name, "floor_w%d.png", q.world);
			snprintf(caption, sizeof caption, "Read floor, world %d: each memory-bound run's"
				 " time against the bytes of its per-rank GEMM (A + B + C), beside the"
				 " fastest read of those bytes from calibrate (1.1x dashed)", q.world);
			add_plot(doc, dir, FGO_OK, name, caption, 0, drawn, &missing);
		}
		snprintf(name, sizeof name, "overlap_w%d.png", q.world);
		snprintf(caption, sizeof caption, "Overlap, world %d: the best configuration of each"
			 " problem, GEMM only, communication only, fused and baseline", q.world);
		add_plot(doc, dir, plot_overlap(&q), name, caption, 0, drawn, &missing);
		rc = heatmaps(doc, &q, db, s->id, drawn, &missing, err, len);
	}
	int unscoped = scope_to_sweep(db, s->id, 0, err, len);
	if (rc == FGO_OK)
		rc = unscoped;
	if (missing)
		doc_para(doc, "%d plot%s could not be drawn (gnuplot's message went to stderr; `make"
			 " deps` installs gnuplot-nox).", missing, missing == 1 ? "" : "s");
	doc_para(doc, "Each plot is also there as SVG, with its data (.dat) and its gnuplot script"
		 " (.gp), in the report's directory.");
	return rc;
}

/* ---- environment ---- */

static const char *const env_headers[] = { "what", "value" };

/* Labels of env_sql's columns, in order. */
static const char *const env_labels[] = {
	"sweep", "tag", "status", "started", "ended", "spec", "spec hash", "spec file", "host",
	"backend", "devices", "driver", "runtime", "arch", "MPI ranks", "iterations", "warm-up",
	"fgobench", "command line",
};

static const char env_sql[] =
	"SELECT id, tag, status, started_at, ended_at, spec_name, spec_hash, spec_path, host,"
	" backend, devices, driver, runtime, arch, mpi_ranks, iterations, warmup,"
	" coalesce(fgobench_version, '?') || ' (git ' || coalesce(git_revision, '?') || ')',"
	" command_line FROM sweeps WHERE id = ?1";

/* Clocks, temperature and power over the sweep's ok runs (NULL when the
 * backend cannot read them). */
static const char telemetry_sql[] =
	"SELECT avg(sm_clock_mhz), min(sm_clock_mhz), max(sm_clock_mhz), avg(mem_clock_mhz),"
	" min(mem_clock_mhz), max(mem_clock_mhz), max(temp_c), avg(power_w), max(power_w)"
	" FROM runs WHERE sweep_id = ?1 AND status = 'ok'";

/* Where the sweep's time went: the phase times of its runs (schema 3;
 * none in runs stored before) and the wall from the first run's start to
 * the last one's end. */
static const char phases_sql[] =
	"SELECT count(*), sum(load_s), sum(inputs_s), sum(validate_s), sum(time_s),"
	" sum(baseline_s), sum(store_s),"
	" (julianday(max(ended_at)) - julianday(min(started_at))) * 86400"
	" FROM runs WHERE sweep_id = ?1 AND load_s IS NOT NULL";

static void add_phases(struct fgo_table *t, sqlite3_stmt *st)
{
	static const char *const names[] = { "load", "inputs", "validate", "time", "baseline",
					     "store" };
	char line[256];
	double sum = 0, wall = sqlite3_column_double(st, 7);
	int runs = sqlite3_column_int(st, 0);
	for (int i = 0; i < 6; i++)
		sum += sqlite3_column_double(st, 1 + i);
	int at = snprintf(line, sizeof line, "%d run%s in %.0f s (%.3g runs/s); of their %.1f s:",
			  runs, runs == 1 ? "" : "s", wall, wall > 0 ? runs / wall : 0.0, sum);
	for (int i = 0; i < 6 && at < (int)sizeof line; i++)
		at += snprintf(line + at, sizeof line - (size_t)at, " %s %.0f%%", names[i],
			       sum > 0 ? 100.0 * sqlite3_column_double(st, 1 + i) / sum : 0.0);
	table_add(t, "%s", "where the time went");
	table_add(t, "%s", line);
}

static void add_range(struct fgo_table *t, sqlite3_stmt *st, int col, const char *what,
		      const char *unit, const char *backend)
{
	table_add(t, "%s", what);
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		table_add(t, "not reported (the %s backend cannot read it)", backend);
	else
		table_add(t, "%.0f %s (%.0f to %.0f)", sqlite3_column_double(st, col), unit,
			  sqlite3_column_double(st, col + 1), sqlite3_column_double(st, col + 2));
}

int report_section_environment(struct report_doc *doc, sqlite3 *db, const struct report_sweep *s,
			       char *err, size_t len)
{
	sqlite3_stmt *st;
	doc_heading(doc, 2, "Environment");
	if (sqlite3_prepare_v2(db, env_sql, -1, &st, NULL) != SQLITE_OK)
		return report_sql_failed(db, err, len);
	sqlite3_bind_int64(st, 1, s->id);
	struct fgo_table *t = table_new(2, env_headers);
	int step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		for (int c = 0; c < (int)FGO_ARRAY_SIZE(env_labels); c++) {
			const unsigned char *v = sqlite3_column_text(st, c);
			table_add(t, "%s", env_labels[c]);
			table_add(t, "%s", v ? (const char *)v : "");
		}
	sqlite3_finalize(st);
	if (step != SQLITE_ROW || sqlite3_prepare_v2(db, telemetry_sql, -1, &st, NULL) != SQLITE_OK) {
		table_free(t);
		return report_sql_failed(db, err, len);
	}
	sqlite3_bind_int64(st, 1, s->id);
	if ((step = sqlite3_step(st)) == SQLITE_ROW) {
		add_range(t, st, 0, "compute clock (SM or CPU core)", "MHz", s->backend);
		add_range(t, st, 3, "memory clock", "MHz", s->backend);
		table_add(t, "%s", "temperature");
		if (sqlite3_column_type(st, 6) == SQLITE_NULL)
			table_add(t, "not reported (the %s backend cannot read it)", s->backend);
		else
			table_add(t, "at most %.0f C", sqlite3_column_double(st, 6));
		table_add(t, "%s", "board power");
		if (sqlite3_column_type(st, 7) == SQLITE_NULL)
			table_add(t, "not reported (the %s backend cannot read it)", s->backend);
		else
			table_add(t, "%.0f W mean, %.0f W at most", sqlite3_column_double(st, 7),
				  sqlite3_column_double(st, 8));
	}
	sqlite3_finalize(st);
	if (step != SQLITE_ROW || sqlite3_prepare_v2(db, phases_sql, -1, &st, NULL) != SQLITE_OK) {
		table_free(t);
		return report_sql_failed(db, err, len);
	}
	sqlite3_bind_int64(st, 1, s->id);
	if ((step = sqlite3_step(st)) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0)
		add_phases(t, st);
	sqlite3_finalize(st);
	if (step != SQLITE_ROW) {
		table_free(t);
		return report_sql_failed(db, err, len);
	}
	doc_table(doc, t, 2, env_headers);
	return FGO_OK;
}
