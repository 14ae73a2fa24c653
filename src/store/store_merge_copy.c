/* store_merge_copy.c: the copy behind `fgobench merge` (store_merge.h),
 * inside the output's transaction: the sources' sweeps added under new ids,
 * each with every row that depends on it, unless the same sweep is there;
 * the machine-wide rows added unless an equal row is there; then the
 * output's foreign keys and integrity checked. The columns copied are the
 * embedded schema's, so a column added to db/schema.sql is copied too.
 * Whether a sweep is there already: store_merge_same.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed.h"
#include "fgo.h"
#include "store/store_merge.h"

/* The id maps of one copy: a table's old id -> its new id. */
enum { M_SWEEP, M_PROBLEM, M_RUN, M_FLOOR, M_CURVE, M_COUNT };

struct table {
	const char *name;
	int own;            /* the map of its own column "id" (-1: no id of its own) */
	const char *ref[2]; /* columns naming a parent row (NULL: none) */
	int ref_map[2];
	const char *rows;   /* which rows of the source: a condition on ?1 */
};

#define RUNS_OF "run_id IN (SELECT id FROM runs WHERE sweep_id = ?1)"

/* A sweep and what depends on it, parents first. */
static const struct table sweep_tables[] = {
	{ "sweeps", M_SWEEP, { NULL, NULL }, { 0, 0 }, "id = ?1" },
	{ "problems", M_PROBLEM, { "sweep_id", NULL }, { M_SWEEP, 0 }, "sweep_id = ?1" },
	{ "problem_samples", -1, { "problem_id", NULL }, { M_PROBLEM, 0 },
	  "problem_id IN (SELECT id FROM problems WHERE sweep_id = ?1)" },
	{ "runs", M_RUN, { "sweep_id", "problem_id" }, { M_SWEEP, M_PROBLEM }, "sweep_id = ?1" },
	{ "samples", -1, { "run_id", NULL }, { M_RUN, 0 }, RUNS_OF },
	{ "traces", -1, { "run_id", NULL }, { M_RUN, 0 }, RUNS_OF },
	{ "trace_ranks", -1, { "run_id", NULL }, { M_RUN, 0 }, RUNS_OF },
	{ "trace_waits", -1, { "run_id", NULL }, { M_RUN, 0 }, RUNS_OF },
};

/* Rows of a machine (host name in their machine column), each added unless
 * an equal row is there (all of them: "?1 = 0" with key 0); a parent's
 * points follow it. machine_child[i]: the index of table i's points, 0 for
 * none, -1 for the points themselves (copied with their parent). */
static const struct table machine_tables[] = {
	{ "ceilings", -1, { NULL, NULL }, { 0, 0 }, "?1 = 0" },
	{ "model_fits", -1, { NULL, NULL }, { 0, 0 }, "?1 = 0" },
	{ "world_fits", -1, { NULL, NULL }, { 0, 0 }, "?1 = 0" },
	{ "world_predictions", -1, { NULL, NULL }, { 0, 0 }, "?1 = 0" },
	{ "read_floors", M_FLOOR, { NULL, NULL }, { 0, 0 }, "?1 = 0" },
	{ "read_floor_points", -1, { "floor_id", NULL }, { M_FLOOR, 0 }, "floor_id = ?1" },
	{ "coll_curves", M_CURVE, { NULL, NULL }, { 0, 0 }, "?1 = 0" },
	{ "coll_curve_points", -1, { "curve_id", NULL }, { M_CURVE, 0 }, "curve_id = ?1" },
};
static const int machine_child[] = { 0, 0, 0, 0, 5, -1, 7, -1 };

struct idmap {
	int64_t (*v)[2]; /* (old, new), sorted by old id before a search */
	size_t n, cap;
	int unsorted;
};

struct merge {
	sqlite3 *ref;               /* the embedded schema, in memory: the columns to copy */
	sqlite3 *dst;
	const char *out;            /* for messages */
	struct idmap map[M_COUNT];  /* of the sweep or machine rows being copied; problems:
				       unused (problems[cur]) */
	struct idmap *sweeps;       /* per source: each sweep's in the output (copied, or the
				       equal one found there) */
	struct idmap *problems;     /* per source: the problems copied from it so far */
	int cur;                    /* the source being copied */
	char *err;
	size_t len;
};

static struct idmap *map_of(struct merge *m, int which)
{
	return which == M_PROBLEM ? &m->problems[m->cur] : &m->map[which];
}

static int fail(struct merge *m, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct merge *m, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->err, m->len, fmt, ap);
	va_end(ap);
	return rc;
}

static int sql_fail(struct merge *m, sqlite3 *db, const char *path)
{
	return fail(m, FGO_EFAIL, "%s: merging failed: %s; nothing was written", path,
		    store_failure(db));
}

static int idmap_put(struct idmap *m, int64_t old, int64_t now)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 256;
		int64_t(*v)[2] = realloc(m->v, cap * sizeof *v);
		if (!v)
			return -1;
		m->v = v;
		m->cap = cap;
	}
	m->unsorted |= m->n && m->v[m->n - 1][0] > old;
	m->v[m->n][0] = old;
	m->v[m->n++][1] = now;
	return 0;
}

static int cmp_pair(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* The new id of old, 0 when it was not copied. */
static int64_t idmap_get(struct idmap *m, int64_t old)
{
	if (m->unsorted)
		qsort(m->v, m->n, sizeof *m->v, cmp_pair);
	m->unsorted = 0;
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->v[mid][0] == old)
			return m->v[mid][1];
		if (m->v[mid][0] < old)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* One table's copy from a source: get reads the rows (the schema's
 * columns), put inserts one without its id, find (machine rows) looks for
 * an equal row in the output. */
struct copier {
	const struct table *t;
	sqlite3_stmt *get, *put, *find;
	int ncols, own_col, ref_col[2];
};

static void copier_close(struct copier *c)
{
	sqlite3_finalize(c->get);
	sqlite3_finalize(c->put);
	sqlite3_finalize(c->find);
	memset(c, 0, sizeof *c);
}

/* Prepares c for table t from src into the output (dedupe: with find);
 * the column names are the embedded schema's, quoted all the same. */
static int copier_open(struct merge *m, struct copier *c, const struct table *t, sqlite3 *src,
		       const char *src_path, int dedupe)
{
	sqlite3_stmt *q;
	sqlite3_str *cols = sqlite3_str_new(NULL), *marks = sqlite3_str_new(NULL);
	sqlite3_str *same = sqlite3_str_new(NULL), *all = sqlite3_str_new(NULL);
	memset(c, 0, sizeof *c);
	c->t = t;
	c->own_col = c->ref_col[0] = c->ref_col[1] = -1;
	if (sqlite3_prepare_v2(m->ref, "SELECT name FROM pragma_table_info(?1) ORDER BY cid", -1, &q,
			       NULL) != SQLITE_OK)
		return sql_fail(m, m->ref, m->out);
	sqlite3_bind_text(q, 1, t->name, -1, SQLITE_STATIC);
	int put_cols = 0;
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(q, 0);
		int i = c->ncols++;
		sqlite3_str_appendf(all, "%s\"%w\"", i ? ", " : "", name);
		if (!strcmp(name, "id")) { /* an INTEGER PRIMARY KEY: the output numbers it */
			c->own_col = i;
			continue;
		}
		for (int r = 0; r < 2; r++)
			if (t->ref[r] && !strcmp(name, t->ref[r]))
				c->ref_col[r] = i;
		sqlite3_str_appendf(cols, "%s\"%w\"", put_cols ? ", " : "", name);
		sqlite3_str_appendf(marks, "%s?", put_cols ? ", " : "");
		sqlite3_str_appendf(same, "%s\"%w\" IS ?%d", put_cols ? " AND " : "", name, put_cols + 1);
		put_cols++;
	}
	sqlite3_finalize(q);
	char *a = sqlite3_str_finish(all), *k = sqlite3_str_finish(cols);
	char *v = sqlite3_str_finish(marks), *s = sqlite3_str_finish(same);
	char *get = NULL, *put = NULL, *find = NULL;
	int rc = FGO_OK;
	if (!a || !k || !v || !s || c->ncols == 0) {
		rc = fail(m, FGO_EFAIL, "%s: merging failed: out of memory, or no table %s in the"
			  " schema; nothing was written", m->out, t->name);
		goto out;
	}
	get = sqlite3_mprintf("SELECT %s FROM \"%w\" WHERE %s%s", a, t->name, t->rows,
			      t->own >= 0 ? " ORDER BY id" : "");
	put = sqlite3_mprintf("INSERT INTO \"%w\" (%s) VALUES (%s)", t->name, k, v);
	find = sqlite3_mprintf("SELECT %s FROM \"%w\" WHERE %s LIMIT 1", t->own >= 0 ? "id" : "1",
			       t->name, s);
	if (!get || !put || !find)
		rc = fail(m, FGO_EFAIL, "%s: merging failed: out of memory", m->out);
	else if (sqlite3_prepare_v2(src, get, -1, &c->get, NULL) != SQLITE_OK)
		rc = fail(m, FGO_EUSAGE, "%s: cannot read table %s: %s (a damaged store?); nothing"
			  " was written", src_path, t->name, sqlite3_errmsg(src));
	else if (sqlite3_prepare_v2(m->dst, put, -1, &c->put, NULL) != SQLITE_OK ||
		 (dedupe && sqlite3_prepare_v2(m->dst, find, -1, &c->find, NULL) != SQLITE_OK))
		rc = sql_fail(m, m->dst, m->out);
out:
	sqlite3_free(a);
	sqlite3_free(k);
	sqlite3_free(v);
	sqlite3_free(s);
	sqlite3_free(get);
	sqlite3_free(put);
	sqlite3_free(find);
	if (rc != FGO_OK)
		copier_close(c);
	return rc;
}

/* The output's id of problem old of the source being copied, when it is
 * not one of the problems copied from it: stores made by hand (tests,
 * scripts) let a sweep's runs share another sweep's problem. Found
 * through that sweep's counterpart in the output (copied before, or
 * found there) and the problem's key; 0 when there is none yet. */
static int64_t problem_elsewhere(struct merge *m, sqlite3 *src, int64_t old)
{
	sqlite3_stmt *q, *d;
	int64_t now = 0;
	if (sqlite3_prepare_v2(src, "SELECT sweep_id, algorithm, dtype, world, m, n, k FROM problems"
			       " WHERE id = ?1", -1, &q, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_prepare_v2(m->dst, "SELECT id FROM problems WHERE sweep_id = ?1"
			       " AND algorithm = ?2 AND dtype = ?3 AND world = ?4 AND m = ?5"
			       " AND n = ?6 AND k = ?7", -1, &d, NULL) != SQLITE_OK) {
		sqlite3_finalize(q);
		return 0;
	}
	sqlite3_bind_int64(q, 1, old);
	if (sqlite3_step(q) == SQLITE_ROW) {
		int64_t sweep = idmap_get(&m->sweeps[m->cur], sqlite3_column_int64(q, 0));
		sqlite3_bind_int64(d, 1, sweep);
		for (int i = 1; i < 7; i++)
			sqlite3_bind_value(d, i + 1, sqlite3_column_value(q, i));
		if (sweep && sqlite3_step(d) == SQLITE_ROW)
			now = sqlite3_column_int64(d, 0);
	}
	sqlite3_finalize(q);
	sqlite3_finalize(d);
	return now;
}

/* Binds the row get stands on into q (put or find), its id left out and
 * its parents' ids mapped; FGO_EUSAGE for a parent that was not copied. */
static int bind_row(struct merge *m, const struct copier *c, sqlite3_stmt *q, const char *src_path)
{
	int at = 1;
	for (int i = 0; i < c->ncols; i++) {
		if (i == c->own_col)
			continue;
		int r = i == c->ref_col[0] ? 0 : i == c->ref_col[1] ? 1 : -1;
		if (r < 0 || sqlite3_column_type(c->get, i) == SQLITE_NULL) {
			sqlite3_bind_value(q, at++, sqlite3_column_value(c->get, i));
			continue;
		}
		int64_t old = sqlite3_column_int64(c->get, i);
		int64_t now = idmap_get(map_of(m, c->t->ref_map[r]), old);
		if (!now && c->t->ref_map[r] == M_PROBLEM)
			now = problem_elsewhere(m, sqlite3_db_handle(c->get), old);
		if (!now)
			return fail(m, FGO_EUSAGE, "%s: a row of %s names %s %lld, which is not part of"
				    " what is copied with it (a damaged store?); nothing was written",
				    src_path, c->t->name, c->t->ref[r], (long long)old);
		sqlite3_bind_int64(q, at++, now);
	}
	return FGO_OK;
}

/* Copies the rows of c->t selected by key; those equal to a row of the
 * output (with c->find) are counted in *there and not copied. */
static int copier_run(struct merge *m, struct copier *c, int64_t key, const char *src_path,
		      long *added, long *there)
{
	int step, rc = FGO_OK;
	sqlite3_reset(c->get);
	sqlite3_bind_int64(c->get, 1, key);
	while (rc == FGO_OK && (step = sqlite3_step(c->get)) == SQLITE_ROW) {
		if (c->find) {
			sqlite3_reset(c->find);
			rc = bind_row(m, c, c->find, src_path);
			int hit = rc == FGO_OK ? sqlite3_step(c->find) : SQLITE_DONE;
			if (hit == SQLITE_ROW) {
				(*there)++;
				continue;
			}
			if (hit != SQLITE_DONE)
				return sql_fail(m, m->dst, m->out);
		}
		sqlite3_reset(c->put);
		if (rc == FGO_OK)
			rc = bind_row(m, c, c->put, src_path);
		if (rc != FGO_OK)
			break;
		if (sqlite3_step(c->put) != SQLITE_DONE)
			return sql_fail(m, m->dst, m->out);
		(*added)++;
		if (c->t->own >= 0 &&
		    idmap_put(map_of(m, c->t->own), sqlite3_column_int64(c->get, c->own_col),
			      sqlite3_last_insert_rowid(m->dst)))
			return fail(m, FGO_EFAIL, "%s: merging failed: out of memory", m->out);
	}
	if (rc == FGO_OK && step != SQLITE_DONE)
		rc = fail(m, FGO_EUSAGE, "%s: cannot read table %s: %s; nothing was written",
			  src_path, c->t->name, sqlite3_errmsg(sqlite3_db_handle(c->get)));
	return rc;
}

/* ---- copying ---- */

/* Adds sweep id of src with every row that depends on it; *runs counts
 * its runs. reuse > 0: the sweep takes that id (of the earlier state it
 * replaces, so it keeps its place among its machine's nights). */
static int copy_sweep(struct merge *m, sqlite3 *src, const char *src_path, int64_t id,
		      int64_t reuse, long *runs)
{
	int rc = FGO_OK;
	m->map[M_SWEEP].n = m->map[M_RUN].n = 0;
	for (size_t i = 0; rc == FGO_OK && i < FGO_ARRAY_SIZE(sweep_tables); i++) {
		struct copier c;
		long added = 0, there = 0;
		rc = copier_open(m, &c, &sweep_tables[i], src, src_path, 0);
		if (rc == FGO_OK)
			rc = copier_run(m, &c, id, src_path, &added, &there);
		if (sweep_tables[i].own == M_RUN)
			*runs += added;
		copier_close(&c);
		/* the sweep's row alone is in: nothing names its new id yet */
		if (rc == FGO_OK && i == 0 && reuse > 0) {
			sqlite3_stmt *q;
			if (sqlite3_prepare_v2(m->dst, "UPDATE sweeps SET id = ?1 WHERE id = ?2", -1, &q,
					       NULL) != SQLITE_OK)
				return sql_fail(m, m->dst, m->out);
			sqlite3_bind_int64(q, 1, reuse);
			sqlite3_bind_int64(q, 2, m->map[M_SWEEP].v[0][1]);
			int step = sqlite3_step(q);
			sqlite3_finalize(q);
			if (step != SQLITE_DONE)
				return sql_fail(m, m->dst, m->out);
			m->map[M_SWEEP].v[0][1] = reuse;
		}
	}
	return rc;
}

/* Removes sweep id of the output and every row that depends on it
 * (children first: sweep_tables backwards); *runs gets how many runs it had. */
static int drop_sweep(struct merge *m, int64_t id, long *runs)
{
	for (size_t i = FGO_ARRAY_SIZE(sweep_tables); i-- > 0;) {
		sqlite3_stmt *q;
		char *sql = sqlite3_mprintf("DELETE FROM \"%w\" WHERE %s", sweep_tables[i].name,
					    sweep_tables[i].rows);
		int step = SQLITE_ERROR;
		if (sql && sqlite3_prepare_v2(m->dst, sql, -1, &q, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(q, 1, id);
			step = sqlite3_step(q);
			sqlite3_finalize(q);
		}
		sqlite3_free(sql);
		if (step != SQLITE_DONE)
			return sql_fail(m, m->dst, m->out);
		if (sweep_tables[i].own == M_RUN)
			*runs = sqlite3_changes(m->dst);
	}
	return FGO_OK;
}

/* Adds the machine-wide rows of src that the output lacks, each new
 * parent with its points. */
static int copy_machine_rows(struct merge *m, sqlite3 *src, struct store_merge_source *s)
{
	int rc = FGO_OK;
	for (size_t i = 0; rc == FGO_OK && i < FGO_ARRAY_SIZE(machine_tables); i++) {
		const struct table *t = &machine_tables[i];
		struct copier c, kid;
		long added = 0, ignored = 0;
		if (machine_child[i] < 0)
			continue; /* points, copied with their parent */
		if (t->own >= 0)
			m->map[t->own].n = 0;
		rc = copier_open(m, &c, t, src, s->path, 1);
		if (rc == FGO_OK)
			rc = copier_run(m, &c, 0, s->path, &s->rows_added, &s->rows_there);
		copier_close(&c);
		if (rc != FGO_OK || !machine_child[i])
			continue;
		rc = copier_open(m, &kid, &machine_tables[machine_child[i]], src, s->path, 0);
		for (size_t p = 0; rc == FGO_OK && p < m->map[t->own].n; p++)
			rc = copier_run(m, &kid, m->map[t->own].v[p][0], s->path, &added, &ignored);
		copier_close(&kid);
	}
	return rc;
}

/* A sweep of one of the sources, to be added in order of start. */
struct pending {
	int src;
	int64_t id;
	char started[40];
};

static int cmp_pending(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;
	int c = strcmp(x->started, y->started);
	if (c)
		return c;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Every sweep of the sources, oldest first (ties in source order): the
 * sweeps of one machine get ids in the order they ran, which is the order
 * the views read as night after night. */
static int list_sweeps(struct merge *m, sqlite3 **db, struct store_merge_source *s, int n,
		       struct pending **out, size_t *count)
{
	size_t cap = 0;
	*out = NULL;
	*count = 0;
	for (int i = 0; i < n; i++) {
		sqlite3_stmt *q;
		if (!db[i])
			continue;
		if (sqlite3_prepare_v2(db[i], "SELECT id, started_at FROM sweeps ORDER BY id", -1, &q,
				       NULL) != SQLITE_OK)
			return fail(m, FGO_EUSAGE, "%s: cannot read its sweeps: %s", s[i].path,
				    sqlite3_errmsg(db[i]));
		int step;
		while ((step = sqlite3_step(q)) == SQLITE_ROW) {
			if (*count == cap) {
				cap = cap ? 2 * cap : 64;
				struct pending *more = realloc(*out, cap * sizeof *more);
				if (!more) {
					sqlite3_finalize(q);
					return fail(m, FGO_EFAIL, "out of memory merging");
				}
				*out = more;
			}
			struct pending *p = &(*out)[(*count)++];
			p->src = i;
			p->id = sqlite3_column_int64(q, 0);
			snprintf(p->started, sizeof p->started, "%s",
				 sqlite3_column_text(q, 1) ? (const char *)sqlite3_column_text(q, 1) : "");
		}
		sqlite3_finalize(q);
		if (step != SQLITE_DONE)
			return fail(m, FGO_EUSAGE, "%s: cannot read its sweeps: %s", s[i].path,
				    sqlite3_errmsg(db[i]));
	}
	if (*count)
		qsort(*out, *count, sizeof **out, cmp_pending);
	return FGO_OK;
}

/* "a, b" of the distinct hosts of db's sweeps (out "" when none), and how many. */
static long hosts_of(sqlite3 *db, char *out, size_t len)
{
	sqlite3_stmt *q;
	long n = 0;
	out[0] = 0;
	if (sqlite3_prepare_v2(db, "SELECT count(*), group_concat(h, ', ') FROM (SELECT DISTINCT"
			       " coalesce(host, '?') AS h FROM sweeps ORDER BY 1)", -1, &q,
			       NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(q) == SQLITE_ROW) {
		n = sqlite3_column_int(q, 0);
		if (sqlite3_column_text(q, 1))
			snprintf(out, len, "%s", (const char *)sqlite3_column_text(q, 1));
	}
	sqlite3_finalize(q);
	return n;
}

/* Every table of the schema is one the merge copies, or meta (each
 * store's own: what it is, its version, the hints said to its readers):
 * a table added to db/schema.sql without a line here must not be dropped
 * silently by a merge. */
static int tables_known(struct merge *m)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(m->ref, "SELECT name FROM sqlite_schema WHERE type = 'table'"
			       " AND name NOT LIKE 'sqlite_%'", -1, &q, NULL) != SQLITE_OK)
		return sql_fail(m, m->ref, m->out);
	int rc = FGO_OK;
	while (rc == FGO_OK && sqlite3_step(q) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(q, 0);
		int known = !strcmp(name, "meta");
		for (size_t i = 0; !known && i < FGO_ARRAY_SIZE(sweep_tables); i++)
			known = !strcmp(name, sweep_tables[i].name);
		for (size_t i = 0; !known && i < FGO_ARRAY_SIZE(machine_tables); i++)
			known = !strcmp(name, machine_tables[i].name);
		if (!known)
			rc = fail(m, FGO_EFAIL, "merge does not know table %s of schema %d (a bug:"
				  " src/store/store_merge.c lists the tables it copies); nothing was"
				  " written", name, FGO_SCHEMA_VERSION);
	}
	sqlite3_finalize(q);
	return rc;
}

/* The output's foreign keys and SQLite's integrity check, before commit. */
static int check_output(struct merge *m)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(m->dst, "PRAGMA foreign_key_check", -1, &q, NULL) != SQLITE_OK)
		return sql_fail(m, m->dst, m->out);
	int step = sqlite3_step(q);
	char table[64] = "";
	if (step == SQLITE_ROW)
		snprintf(table, sizeof table, "%s", (const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	if (step == SQLITE_ROW)
		return fail(m, FGO_EFAIL, "%s: the merge left a row of %s without its parent (a bug);"
			    " nothing was written", m->out, table);
	if (step != SQLITE_DONE || sqlite3_prepare_v2(m->dst, "PRAGMA integrity_check", -1, &q,
						      NULL) != SQLITE_OK)
		return sql_fail(m, m->dst, m->out);
	char verdict[160] = "";
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
		snprintf(verdict, sizeof verdict, "%s", (const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	if (strcmp(verdict, "ok") != 0)
		return fail(m, FGO_EFAIL, "%s: the integrity check failed after merging (%s); nothing"
			    " was written", m->out, verdict[0] ? verdict : store_failure(m->dst));
	return FGO_OK;
}

int store_merge_copy(sqlite3 *dst, const char *out, sqlite3 **db, struct store_merge_source *s,
		     int n, struct store_merge_total *total, char *err, size_t len)
{
	struct merge mm = { .dst = dst, .out = out, .err = err, .len = len }, *m = &mm;
	const char *schema = embedded_text("db/schema.sql");
	if (!schema || sqlite3_open_v2(":memory:", &m->ref, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    sqlite3_exec(m->ref, schema, NULL, NULL, NULL) != SQLITE_OK) {
		sqlite3_close(m->ref);
		return fail(m, FGO_EFAIL, "%s: merging failed: this build's schema cannot be read"
			    " (rebuild fgobench with `make`); nothing was written", out);
	}
	struct pending *p = NULL;
	size_t count = 0;
	m->sweeps = calloc((size_t)(n > 0 ? n : 1), sizeof *m->sweeps);
	m->problems = calloc((size_t)(n > 0 ? n : 1), sizeof *m->problems);
	int rc = m->sweeps && m->problems ? tables_known(m)
					  : fail(m, FGO_EFAIL, "out of memory merging");
	if (rc == FGO_OK)
		rc = list_sweeps(m, db, s, n, &p, &count);
	for (size_t i = 0; rc == FGO_OK && i < count; i++) {
		struct store_merge_source *from = &s[p[i].src];
		int64_t found;
		int state;
		long dropped = 0, copied = 0;
		m->cur = p[i].src;
		rc = store_merge_sweep_there(db[p[i].src], from->path, p[i].id, m->dst, m->out,
					     &found, &state, m->err, m->len);
		if (rc == FGO_OK && (state == MERGE_SAME || state == MERGE_EARLIER)) {
			from->sweeps_there++;
			if (idmap_put(&m->sweeps[m->cur], p[i].id, found))
				rc = fail(m, FGO_EFAIL, "out of memory merging");
			continue;
		}
		if (rc == FGO_OK && state == MERGE_LATER)
			rc = drop_sweep(m, found, &dropped);
		if (rc == FGO_OK)
			rc = copy_sweep(m, db[p[i].src], from->path, p[i].id,
					state == MERGE_LATER ? found : 0, &copied);
		if (rc == FGO_OK && idmap_put(&m->sweeps[m->cur], p[i].id,
					      idmap_get(&m->map[M_SWEEP], p[i].id)))
			rc = fail(m, FGO_EFAIL, "out of memory merging");
		from->runs_added += copied - dropped;
		if (rc == FGO_OK && state == MERGE_LATER)
			from->sweeps_updated++;
		else if (rc == FGO_OK)
			from->sweeps_added++;
		if (rc == FGO_OK) {
			sqlite3_stmt *q;
			if (sqlite3_prepare_v2(m->dst, "SELECT status = 'running' FROM sweeps WHERE id = ?1",
					       -1, &q, NULL) == SQLITE_OK) {
				sqlite3_bind_int64(q, 1, idmap_get(&m->map[M_SWEEP], p[i].id));
				if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0))
					from->running++;
				sqlite3_finalize(q);
			}
		}
	}
	free(p);
	for (int i = 0; rc == FGO_OK && i < n; i++)
		if (db[i])
			rc = copy_machine_rows(m, db[i], &s[i]);
	if (rc == FGO_OK)
		rc = check_output(m);
	if (rc == FGO_OK) {
		sqlite3_stmt *q;
		if (sqlite3_prepare_v2(m->dst, "SELECT count(*) FROM sweeps", -1, &q, NULL) == SQLITE_OK) {
			if (sqlite3_step(q) == SQLITE_ROW)
				total->sweeps = sqlite3_column_int64(q, 0);
			sqlite3_finalize(q);
		}
		total->hosts = hosts_of(m->dst, total->host_list, sizeof total->host_list);
	}
	for (int i = 0; rc == FGO_OK && i < n; i++)
		if (db[i])
			hosts_of(db[i], s[i].hosts, sizeof s[i].hosts);
	for (int i = 0; i < M_COUNT; i++)
		free(m->map[i].v);
	for (int i = 0; i < n && m->sweeps && m->problems; i++) {
		free(m->sweeps[i].v);
		free(m->problems[i].v);
	}
	free(m->sweeps);
	free(m->problems);
	sqlite3_close(m->ref);
	return rc;
}
