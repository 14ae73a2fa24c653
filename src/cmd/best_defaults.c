/* best_defaults.c: `fgobench best --defaults` (best_defaults.h): reads the
 * store's ok, validated runs of the Hopper core (wgmma), groups them into
 * problems, maps each problem to the table row a run without a tile takes
 * (defaults_lookup), hands the numbers to defaults_derive.c and prints a
 * line per row; with --write, the table's include with the rows the
 * store's numbers replace. */
#include "cmd/best_defaults.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "algo.h"
#include "atomic_file.h"
#include "cmd/cmd.h"
#include "fgo.h"
#include "model.h"
#include "spec/defaults.h"
#include "spec/defaults_derive.h"
#include "store/store.h"
#include "views/views.h"

/* The newest ok, validated run of each configuration of the wgmma core
 * (mma ?5), as best counts them, in problem order. */
static const char query[] =
	"WITH latest AS ("
	"  SELECT r.*, row_number() OVER (PARTITION BY r.config_key ORDER BY r.id DESC) AS recency"
	"  FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
	"  WHERE r.status = 'ok' AND r.validated = 1 AND r.t_fused_ms > 0 AND r.mma = ?5"
	"    AND (?1 IS NULL OR r.algorithm = ?1) AND (?2 IS NULL OR r.world = ?2)"
	"    AND (?3 IS NULL OR r.dtype = ?3) AND (?4 IS NULL OR s.tag = ?4)"
	") SELECT " VIEW_CONFIG_COLUMNS ", t_fused_ms FROM latest WHERE recency = 1"
	"  ORDER BY algorithm, dtype, world, m, n, k, id";

/* Whether the filters match any ok run at all (of any core). */
static const char any_query[] =
	"SELECT count(*) FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
	"  WHERE r.status = 'ok' AND r.t_fused_ms > 0"
	"    AND (?1 IS NULL OR r.algorithm = ?1) AND (?2 IS NULL OR r.world = ?2)"
	"    AND (?3 IS NULL OR r.dtype = ?3) AND (?4 IS NULL OR s.tag = ?4)";

struct run {
	struct fgo_config cfg;
	double ms;
};

/* What was read: the runs, then the problems and the measurements of the
 * configurations a row can express. */
struct store_data {
	struct run *runs;
	size_t nruns;
	struct derive_problem *problems;
	struct fgo_config *problem_cfg; /* a run of each problem, for its name */
	size_t nproblems;
	struct derive_meas *meas;
	size_t nmeas;
};

static void store_data_free(struct store_data *d)
{
	free(d->runs);
	free(d->problems);
	free(d->problem_cfg);
	free(d->meas);
}

static void bind_filters(sqlite3_stmt *st, const struct best_defaults_opts *o)
{
	if (o->algorithm)
		sqlite3_bind_text(st, 1, o->algorithm, -1, SQLITE_STATIC);
	if (o->world > 0)
		sqlite3_bind_int(st, 2, o->world);
	if (o->dtype)
		sqlite3_bind_text(st, 3, o->dtype, -1, SQLITE_STATIC);
	if (o->tag)
		sqlite3_bind_text(st, 4, o->tag, -1, SQLITE_STATIC);
}

static int same_problem(const struct fgo_config *a, const struct fgo_config *b)
{
	return !strcmp(a->algorithm, b->algorithm) && a->dtype == b->dtype && a->world == b->world &&
	       a->m == b->m && a->n == b->n && a->k == b->k;
}

/* 1 when the family's walk takes the device's CTAs (the Stream-K forms:
 * a run without gemm_sms gets every SM, comm_sms 0). */
static int takes_units(const char *algorithm)
{
	const struct fgo_algo *a = algo_find(algorithm);
	return a && a->comm_ctas == FGO_COMM_CTAS_REQUIRED;
}

/* 1 when every tunable a row does not set is what a run without a tile
 * takes: gsize_m's default, no communication tile columns, no
 * determinism, no cluster, no user kernel's parameters, and the default
 * walk: no Stream-K CTAs, or for a Stream-K form all of units (the most
 * CTAs any run of its problem used: every SM of the machine). */
static int default_walk(const struct fgo_config *c, int units)
{
	struct fgo_config d;
	config_defaults(&d);
	return c->gsize_m == d.gsize_m && c->comm_blk_n == 0 && !c->deterministic &&
	       c->cluster <= 1 && !c->params[0] && c->comm_sms == 0 &&
	       c->gemm_sms == (takes_units(c->algorithm) ? units : 0);
}

/* 1 when every problem of row takes the device's CTAs (a Stream-K form's
 * row: no split, its walk is the walk); a row that problems of both kinds
 * take is judged as the data-parallel families take it (the table's rows
 * that Stream-K problems reach have no split, so the two agree). */
static int row_takes_units(const struct store_data *d, int row)
{
	int any = 0;
	for (size_t q = 0; q < d->nproblems; q++) {
		if (d->problems[q].row != row)
			continue;
		if (!takes_units(d->problem_cfg[q].algorithm))
			return 0;
		any = 1;
	}
	return any;
}

/* Reads the runs and makes the problems and measurements. */
static int load(struct fgo_store *store, const struct best_defaults_opts *o, struct store_data *d)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int step, rc = view_prepare(store, query, &st);
	if (rc)
		return rc;
	bind_filters(st, o);
	sqlite3_bind_int(st, 5, FGO_MMA_WGMMA);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct run r;
		view_config(st, 0, &r.cfg);
		r.ms = sqlite3_column_double(st, VIEW_CONFIG_NCOLS);
		if (strcmp(model_core(&r.cfg), "wgmma")) /* fp32 runs on wgmma builds: SIMT */
			continue;
		if (d->nruns == cap) {
			struct run *grown = realloc(d->runs, (cap = cap ? 2 * cap : 256) * sizeof *grown);
			if (!grown) {
				sqlite3_finalize(st);
				error("out of memory reading the store");
				return FGO_EFAIL;
			}
			d->runs = grown;
		}
		d->runs[d->nruns++] = r;
	}
	if (step != SQLITE_DONE) {
		error("reading the store failed: %s", sqlite3_errmsg(store_db(store)));
		sqlite3_finalize(st);
		return FGO_EFAIL;
	}
	sqlite3_finalize(st);
	d->problems = calloc(d->nruns + 1, sizeof *d->problems);
	d->problem_cfg = calloc(d->nruns + 1, sizeof *d->problem_cfg);
	d->meas = calloc(d->nruns + 1, sizeof *d->meas);
	if (!d->problems || !d->problem_cfg || !d->meas) {
		error("out of memory reading the store");
		return FGO_EFAIL;
	}
	/* a problem's runs are consecutive (the query's order) */
	for (size_t i = 0, end; i < d->nruns; i = end) {
		int units = 0;
		struct derive_problem *p = &d->problems[d->nproblems];
		struct fgo_config untiled = d->runs[i].cfg;
		for (end = i; end < d->nruns && same_problem(&d->runs[end].cfg, &d->runs[i].cfg); end++) {
			const struct run *r = &d->runs[end];
			if (r->cfg.gemm_sms + r->cfg.comm_sms > units)
				units = r->cfg.gemm_sms + r->cfg.comm_sms;
			if (p->best_ms <= 0 || r->ms < p->best_ms)
				p->best_ms = r->ms;
		}
		/* the row a run of this problem without a tile would take */
		untiled.given = 0;
		p->row = defaults_lookup(&untiled, "wgmma");
		d->problem_cfg[d->nproblems] = d->runs[i].cfg;
		for (size_t j = i; j < end; j++) {
			const struct fgo_config *c = &d->runs[j].cfg;
			struct derive_meas *m = &d->meas[d->nmeas];
			if (!default_walk(c, units))
				continue;
			m->problem = (int)d->nproblems;
			derive_pick_of(c, &m->pick);
			m->ms = d->runs[j].ms;
			d->nmeas++;
		}
		d->nproblems++;
	}
	return FGO_OK;
}

/* The number of ok runs (any core) the filters match; -1 on an error. */
static long count_any(struct fgo_store *store, const struct best_defaults_opts *o)
{
	sqlite3_stmt *st = NULL;
	long n = -1;
	if (view_prepare(store, any_query, &st))
		return -1;
	bind_filters(st, o);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	else
		error("reading the store failed: %s", sqlite3_errmsg(store_db(store)));
	sqlite3_finalize(st);
	return n;
}

static const char *const headers[] = {
	"row",             "family",          "pick",          "problems",       "pick_measured",
	"pick_geomean",    "pick_worst",      "pick_worst_at", "derived",        "derived_measured",
	"derived_geomean", "derived_worst",   "derived_vs_pick", "verdict",
};
enum { NCOLS = 14 };

static void add_ratio(struct fgo_table *t, double v)
{
	if (v > 0)
		table_add(t, "%.3f", v);
	else
		table_add(t, "%s", "");
}

/* A pick as the table's tile column names it ("64x64x64 s12 w8 split 2"):
 * applied as a row to a configuration that gave nothing, as a run takes it. */
static void pick_text(const struct defaults_pick *p, char *text, size_t len)
{
	struct defaults_row r = { 0 };
	struct fgo_config c;
	config_defaults(&c);
	derive_pick_to_row(p, &r);
	defaults_apply(&c, &r);
	defaults_tile_text(&c, text, len);
}

/* One row's line. */
static void add_line(struct fgo_table *t, size_t i, const struct derive_row *dr,
		     const struct store_data *d)
{
	const struct defaults_row *r = &defaults_table[i];
	char text[256];
	table_add(t, "%zu", i + 1);
	table_add(t, "%s", r->family ? r->family : "any");
	pick_text(&dr->current, text, sizeof text);
	table_add(t, "%s", text);
	table_add(t, "%d", dr->problems);
	table_add(t, "%d", dr->cur.measured);
	add_ratio(t, dr->cur.geomean);
	add_ratio(t, dr->cur.worst);
	if (dr->cur.worst_at >= 0) {
		const struct fgo_config *p = &d->problem_cfg[dr->cur.worst_at];
		table_add(t, "%s %s W=%d %ldx%ldx%ld", p->algorithm, dtype_name(p->dtype), p->world,
			  p->m, p->n, p->k);
	} else {
		table_add(t, "%s", "");
	}
	if (dr->have_derived) {
		pick_text(&dr->derived, text, sizeof text);
		table_add(t, "%s", text);
		table_add(t, "%d", dr->der.measured);
	} else {
		table_add(t, "%s", "");
		table_add(t, "%s", "");
	}
	add_ratio(t, dr->der.geomean);
	add_ratio(t, dr->der.worst);
	add_ratio(t, dr->vs_current);
	derive_verdict_text(dr, text, sizeof text);
	table_add(t, "%s", text);
}

/* csv and json: every column. The terminal table fits 120 columns without
 * pick_worst_at and with shorter names. */
static int print_rows(const struct fgo_table *t, const struct best_defaults_opts *o)
{
	static const int term_cols[] = { 0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13 };
	static const char *const term_names[] = { "row", "family", "pick", "probs", "meas",
						  "geomean", "worst", "derived", "meas", "geomean",
						  "worst", "vs_pick", "verdict" };
	int all[NCOLS];
	int fit = o->format == FGO_FMT_TABLE && !o->wide;
	for (int i = 0; i < NCOLS; i++)
		all[i] = i;
	struct fgo_table *out = fit ? table_select(t, term_cols, (int)FGO_ARRAY_SIZE(term_cols), term_names)
				    : table_select(t, all, NCOLS, NULL);
	if (!out)
		return -1;
	table_fit(out, fit ? FGO_TABLE_COLUMNS : 0);
	int rc = table_print(out, o->format, stdout);
	table_free(out);
	return rc;
}

/* The table's include with the replaced rows, written whole or not at all,
 * never through a symbolic link. */
static int write_table(const struct best_defaults_opts *o, const struct derive_row *dr)
{
	struct defaults_row *rows = calloc(defaults_table_rows, sizeof *rows);
	char (*evidence)[512] = calloc(defaults_table_rows, sizeof *evidence);
	char name[512], err[1024], list[512] = "";
	const char *db = cmd_db_path(o->db), *base = strrchr(db, '/');
	struct atomic_file af;
	struct stat sb;
	int replaced = 0, rc;

	if (!rows || !evidence) {
		free(rows);
		free(evidence);
		error("out of memory writing %s", o->write);
		return FGO_EFAIL;
	}
	if (lstat(o->write, &sb) == 0 && S_ISLNK(sb.st_mode)) {
		free(rows);
		free(evidence);
		error("--write %s: a symbolic link; --write never writes through a link (name the file"
		      " itself)", o->write);
		return FGO_EUSAGE;
	}
	snprintf(name, sizeof name, "%s%s%s%s", base ? base + 1 : db, o->tag ? " (tag " : "",
		 o->tag ? o->tag : "", o->tag ? ")" : "");
	for (size_t i = 0; i < defaults_table_rows; i++) {
		rows[i] = defaults_table[i];
		if (dr[i].verdict != DERIVE_REPLACE)
			continue;
		derive_pick_to_row(&dr[i].derived, &rows[i]);
		derive_evidence(&dr[i], name, evidence[i], sizeof evidence[i]);
		rows[i].evidence = evidence[i];
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%zu", replaced ? ", " : "",
			 i + 1);
		replaced++;
	}
	rc = atomic_open(&af, o->write, err, sizeof err);
	if (rc == FGO_OK) {
		if (defaults_rows_write(af.f, rows, defaults_table_rows)) {
			atomic_abort(&af);
			snprintf(err, sizeof err, "cannot write %s: a write failed", o->write);
			rc = FGO_EFAIL;
		} else {
			rc = atomic_commit(&af, err, sizeof err);
		}
	}
	if (rc != FGO_OK)
		error("%s", err);
	else if (replaced)
		note("wrote %s: row%s %s replaced by the derived pick, the other %zu as they were",
		     o->write, replaced == 1 ? "" : "s", list, defaults_table_rows - (size_t)replaced);
	else
		note("wrote %s: no row replaced (the table as it is)", o->write);
	free(rows);
	free(evidence);
	return rc;
}

int best_defaults(const struct best_defaults_opts *o)
{
	struct fgo_store *store = NULL;
	struct store_data d = { 0 };
	struct derive_row *dr = NULL;
	struct fgo_table *t = NULL;
	int rc, unmapped = 0;
	long any;

	if ((rc = view_open(o->db, &store)))
		return rc;
	if ((any = count_any(store, o)) < 0) {
		rc = FGO_EFAIL;
		goto out;
	}
	if (any == 0) { /* a typo in a filter, or an empty store: said as best says it */
		char why[1024];
		struct view_filter f = { .world = o->world, .algorithm = o->algorithm,
					 .dtype = o->dtype, .tag = o->tag };
		view_why_empty(store_db(store), cmd_db_path(o->db), &f, why, sizeof why);
		error("%s", why);
		rc = FGO_EUSAGE;
		goto out;
	}
	if ((rc = load(store, o, &d)))
		goto out;
	for (size_t q = 0; q < d.nproblems; q++)
		unmapped += d.problems[q].row < 0;
	if (!d.nproblems)
		note("no ok, validated run of the Hopper core (wgmma) in %s%s: every row kept as it is",
		     cmd_db_path(o->db), o->tag || o->algorithm || o->world || o->dtype
						? " that the filters match" : "");
	else
		note("%zu problem%s of the Hopper core (wgmma) in %s, %zu runs (ok, validated, the newest"
		     " of each configuration)%s; ratios are time / the problem's best", d.nproblems,
		     d.nproblems == 1 ? "" : "s", cmd_db_path(o->db), d.nruns,
		     unmapped ? ", some mapped to no row (a user kernel's)" : "");
	dr = calloc(defaults_table_rows, sizeof *dr);
	t = table_new(NCOLS, headers);
	if (!dr || !t) {
		error("out of memory");
		rc = FGO_EFAIL;
		goto out;
	}
	for (size_t i = 0; i < defaults_table_rows; i++) {
		struct defaults_pick cur;
		derive_row_pick(&defaults_table[i], row_takes_units(&d, (int)i), &cur);
		if (derive_row(d.problems, d.nproblems, d.meas, d.nmeas, (int)i, &cur, &dr[i])) {
			error("out of memory");
			rc = FGO_EFAIL;
			goto out;
		}
		add_line(t, i, &dr[i], &d);
	}
	if (print_rows(t, o) != 0)
		rc = FGO_EFAIL;
	if (rc == FGO_OK && o->write)
		rc = write_table(o, dr);
out:
	table_free(t);
	free(dr);
	store_data_free(&d);
	store_close(store);
	return cmd_finish_stdout(rc);
}
