/* world_refit.c: the multi-GPU terms against a store (see world_refit.h). */
#include "tune/world_refit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "fgo.h"
#include "store/store_sql.h"
#include "tune/model_refit.h"
#include "tune/world_copy.h"
#include "views/views.h"

_Static_assert(STORE_WORLD_TERMS == WORLD_TERMS, "world_fits has one column per term");

/* The newest ok run of every configuration at W > 1 (of one family and
 * W when ?3, ?4 are given) with its GEMM measured alone; on the GPU
 * backend ("Nx NAME (S SMs)") not from sweeps with more ranks than GPUs. */
static const char runs_sql[] =
	"WITH latest AS ("
	"  SELECT r.*, row_number() OVER (PARTITION BY r.config_key ORDER BY r.id DESC) AS recency"
	"  FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
	"  WHERE r.status = 'ok' AND r.t_fused_ms > 0 AND r.t_gemm_ms > 0 AND r.world > 1"
	"    AND s.host = ?1 AND s.backend = ?2 AND (?3 IS NULL OR r.algorithm = ?3)"
	"    AND (?4 IS NULL OR r.world = ?4)"
	"    AND NOT (s.backend = 'gpu' AND s.devices LIKE '%x %' AND s.mpi_ranks >"
	"             CAST(substr(s.devices, 1, instr(s.devices, 'x ') - 1) AS INTEGER))"
	") SELECT " VIEW_CONFIG_COLUMNS ", t_fused_ms, t_gemm_ms, t_comm_ms FROM latest"
	" WHERE recency = 1 ORDER BY algorithm, world, id";

/* The runs of one (family, W) as the terms see them. */
struct group {
	char algorithm[32];
	int world;
	struct world_obs *o;
	size_t n, cap;
};

static int group_add(struct group *g, const struct world_obs *o)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 64;
		struct world_obs *more = realloc(g->o, cap * sizeof *more);
		if (!more)
			return FGO_EFAIL;
		g->o = more;
		g->cap = cap;
	}
	g->o[g->n++] = *o;
	return FGO_OK;
}

/* Every run of the query into groups (one per fit family and W:
 * world_fit_family, so a Stream-K form's runs with comm_sms 0 join their
 * base family's, in no order the query gives); with algorithm, only the
 * runs whose fit family it is (filtered here, not in the SQL: the
 * family's name in the runs is not its fit family's); *ng how many. */
static int load_groups(struct fgo_store *st, const char *machine, const char *backend,
		       const char *algorithm, int world, struct group *groups, int cap, int *ng,
		       char *err, size_t len)
{
	sqlite3_stmt *q;
	int step, rc = FGO_OK;
	*ng = 0;
	if (store_sql_prepare(store_db(st), runs_sql, &q, "read the runs at W > 1", err, len))
		return FGO_EFAIL;
	store_sql_bind_text(q, 1, machine);
	store_sql_bind_text(q, 2, backend);
	if (world > 1)
		sqlite3_bind_int(q, 4, world);
	while (rc == FGO_OK && (step = sqlite3_step(q)) == SQLITE_ROW) {
		struct fgo_config cfg;
		struct world_obs o;
		view_config(q, 0, &cfg);
		const char *fam = world_fit_family(&cfg);
		if (algorithm && strcmp(fam, algorithm))
			continue;
		if (!world_obs_of(&cfg, sqlite3_column_double(q, VIEW_CONFIG_NCOLS + 1),
				  world_units(&cfg), &o))
			continue; /* a family this fgobench does not know */
		o.ms = sqlite3_column_double(q, VIEW_CONFIG_NCOLS);
		o.comm_ms = sqlite3_column_double(q, VIEW_CONFIG_NCOLS + 2);
		/* the Stream-K forms: the link side is the run's own comm-only
		 * time (world_copy.h) */
		o.copy_ms = world_copy_family(&cfg) && o.comm_ms > 0 ? o.comm_ms : 0;
		int i = 0;
		while (i < *ng && !(!strcmp(groups[i].algorithm, fam) && groups[i].world == cfg.world))
			i++;
		if (i == *ng) {
			if (*ng == cap)
				continue; /* more (family, W) than one report holds */
			memset(&groups[(*ng)++], 0, sizeof groups[i]);
			snprintf(groups[i].algorithm, sizeof groups[i].algorithm, "%s", fam);
			groups[i].world = cfg.world;
		}
		struct group *g = &groups[i];
		if (group_add(g, &o) != FGO_OK) {
			snprintf(err, len, "out of memory for the runs at W > 1");
			rc = FGO_EFAIL;
		}
	}
	sqlite3_finalize(q);
	if (rc == FGO_OK && step != SQLITE_DONE)
		rc = store_sql_fail(store_db(st), err, len, "read the runs at W > 1");
	return rc;
}

static void groups_free(struct group *groups, int n)
{
	for (int i = 0; i < n; i++)
		free(groups[i].o);
}

/* The ceilings' coefficients of machine and backend. */
static int defaults_of(struct fgo_store *st, const char *machine, const char *backend,
		       double def[WORLD_TERMS], char *err, size_t len)
{
	struct model_machine m;
	if (model_machine_load(st, machine, backend, &m, err, len) != FGO_OK)
		return FGO_EFAIL;
	world_coef_default(m.link_gbps, m.mem_gbps, def);
	return FGO_OK;
}

/* "gemm link tile wait" of a fit's pinned terms. */
static void fitted_names(unsigned fitted, char *out, size_t len)
{
	size_t at = 0;
	out[0] = 0;
	for (int t = 0; t < WORLD_TERMS; t++)
		if (fitted & (1u << t))
			at += (size_t)snprintf(out + at, at < len ? len - at : 0, "%s%s", at ? " " : "",
					       world_term_names[t]);
}

static unsigned fitted_bits(const char *names)
{
	unsigned bits = 0;
	char copy[64], *save = NULL;
	snprintf(copy, sizeof copy, "%s", names);
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
		for (int t = 0; t < WORLD_TERMS; t++)
			if (!strcmp(w, world_term_names[t]))
				bits |= 1u << t;
	return bits;
}

int world_refit(struct fgo_store *st, const char *machine, const char *backend,
		const char *source, struct world_refit *out, int cap, int *nout, char *err,
		size_t len)
{
	struct group *groups = calloc((size_t)cap + 1, sizeof *groups);
	double def[WORLD_TERMS];
	int ng = 0, rc;
	*nout = 0;
	if (!groups) {
		snprintf(err, len, "out of memory for the runs at W > 1");
		return FGO_EFAIL;
	}
	rc = defaults_of(st, machine, backend, def, err, len);
	if (rc == FGO_OK)
		rc = load_groups(st, machine, backend, NULL, 0, groups, cap, &ng, err, len);
	for (int i = 0; rc == FGO_OK && i < ng; i++) {
		struct world_refit *r = &out[(*nout)++];
		memset(r, 0, sizeof *r);
		snprintf(r->algorithm, sizeof r->algorithm, "%s", groups[i].algorithm);
		r->fit.world = groups[i].world;
		r->fit.runs = groups[i].n;
		if (groups[i].n < WORLD_MIN_RUNS)
			continue;
		rc = world_fit(groups[i].o, groups[i].n, def, &r->fit);
		r->fit.world = groups[i].world;
		if (rc != FGO_OK) {
			snprintf(err, len, "fitting %s at W=%d failed", r->algorithm, r->fit.world);
			rc = FGO_EFAIL;
			break;
		}
		r->fitted = 1;
		if (!source)
			continue;
		struct store_world_fit f = { .world = r->fit.world, .runs = (long)r->fit.runs,
					     .rms_rel_err = r->fit.rms_rel_err,
					     .max_rel_err = r->fit.max_rel_err };
		snprintf(f.algorithm, sizeof f.algorithm, "%s", r->algorithm);
		memcpy(f.coef, r->fit.coef, sizeof f.coef);
		fitted_names(r->fit.fitted, f.fitted, sizeof f.fitted);
		rc = store_world_fit_put(st, machine, backend, source, &f, err, len);
	}
	groups_free(groups, ng);
	free(groups);
	return rc;
}

/* Whether algorithm's link side is its comm CTAs' copy time (its
 * configurations all have comm CTAs: the Stream-K forms). */
static int copy_algo(const char *algorithm)
{
	struct fgo_config c;
	config_defaults(&c);
	snprintf(c.algorithm, sizeof c.algorithm, "%s", algorithm);
	c.world = 2;
	c.comm_sms = 1;
	return world_copy_family(&c);
}

/* The terms a family has none of, whatever its configuration: no
 * reduction (all_scatter, the gathers), or nothing to send; no latency
 * and no share for the Stream-K forms (their copy time has its latency;
 * their tile term is their share, world_units). */
static unsigned absent_terms(const char *algorithm, int world)
{
	struct fgo_config c;
	struct world_obs o;
	config_defaults(&c);
	snprintf(c.algorithm, sizeof c.algorithm, "%s", algorithm);
	c.world = world > 1 ? world : 2;
	c.m = c.n = c.k = 1024;
	if (!world_obs_of(&c, 1, 1, &o))
		return 0;
	return (o.reduced > 0 ? 0 : 1u << WT_REDUCE) |
	       (o.egress > 0 ? 0 : 1u << WT_LINK | 1u << WT_LATENCY | 1u << WT_SHARE) |
	       (copy_algo(algorithm) ? 1u << WT_LATENCY | 1u << WT_SHARE : 0);
}

/* A link coefficient fitted at another W than world moves to world at
 * the rate the measured curves say a GPU's links reach there
 * (coll_link_scale; W=4 from W=2 fits predicted the large-C shapes
 * 1.15-1.54x too slow on four H100s); the copy families' link term is a
 * time, not a rate, and stays. So does a link side fitted with its
 * latency at that W (its rate and latency the comm-only runs', schema
 * 9): the fused kernels' own pattern does not gain the links NCCL's
 * algorithms do (per GPU's egress, comm-only, four H100s: all_scatter
 * 330 GB/s at W=2, 288 at W=4; push 330, 301), and scaled by the curves
 * it put W=4 within 10% on 19 of 69 (family, shape), not 24. */
static int link_scale(struct fgo_store *st, const char *machine, const char *backend,
		      const char *algorithm, int world, struct world_model *out, char *err, size_t len)
{
	const int from = out->coef.from[WT_LINK];
	struct fgo_config c;
	enum fgo_collective kind;
	double bytes;
	config_defaults(&c);
	snprintf(c.algorithm, sizeof c.algorithm, "%s", algorithm);
	c.world = world;
	if (from <= 0 || from == world || copy_algo(algorithm) || (out->absent & (1u << WT_LINK)) ||
	    out->coef.from[WT_LATENCY] == from || /* the comm-only runs' link (above) */
	    !algo_collective(&c, 2, &kind, &bytes)) /* its vendor sequence's collective */
		return FGO_OK;
	struct coll_curve *curves = calloc(COLL_CURVES_MAX, sizeof *curves);
	int nc = 0;
	if (!curves) {
		snprintf(err, len, "out of memory for the collective curves");
		return FGO_EFAIL;
	}
	int rc = world_curves_load(st, machine, backend, curves, COLL_CURVES_MAX, &nc, err, len);
	double scale = rc == FGO_OK ? coll_link_scale(curves, nc, kind, world, from) : 0;
	free(curves);
	if (scale > 0) {
		size_t at = strlen(out->terms);
		out->coef.c[WT_LINK] /= scale;
		snprintf(out->terms + at, sizeof out->terms - at,
			 "; link x%.2f, the measured %s curves' bus bandwidth at W=%d over W=%d", scale,
			 fgo_collective_names[kind], world, from);
	}
	return rc;
}

int world_model_load(struct fgo_store *st, const char *machine, const char *backend,
		     const char *algorithm, int world, double link_gbps, double mem_gbps,
		     struct world_model *out, char *err, size_t len)
{
	struct store_world_fit stored[32];
	struct world_fit fits[32];
	double def[WORLD_TERMS];
	int n = 0, ng = 0;
	struct group g;
	memset(out, 0, sizeof *out);
	world_coef_default(link_gbps, mem_gbps, def);
	if (copy_algo(algorithm))
		def[WT_LINK] = 1; /* the copy time as it is (world_copy.h) */
	if (store_world_fits_get(st, machine, backend, algorithm, stored, 32, &n, err, len) != FGO_OK)
		return FGO_EFAIL;
	for (int i = 0; i < n; i++) {
		memset(&fits[i], 0, sizeof fits[i]);
		fits[i].world = stored[i].world;
		memcpy(fits[i].coef, stored[i].coef, sizeof fits[i].coef);
		fits[i].fitted = fitted_bits(stored[i].fitted);
		fits[i].runs = (size_t)stored[i].runs;
	}
	out->nfits = n;
	out->absent = absent_terms(algorithm, world);
	world_coef_at(fits, n, world, def, &out->coef);
	world_coef_text(&out->coef, world, out->absent, out->terms, sizeof out->terms);
	if (link_scale(st, machine, backend, algorithm, world, out, err, len) != FGO_OK)
		return FGO_EFAIL;
	int rc = load_groups(st, machine, backend, algorithm, world, &g, 1, &ng, err, len);
	if (rc == FGO_OK && ng)
		world_errors_of(g.o, g.n, out->coef.c, &out->err);
	groups_free(&g, ng);
	return rc;
}

/* The runs at W > 1 whose baseline timed the vendor collective after
 * their own GEMM (t_bulk), not from sweeps with more ranks than GPUs. */
static const char bulk_sql[] =
	"WITH latest AS ("
	"  SELECT r.*, row_number() OVER (PARTITION BY r.config_key ORDER BY r.id DESC) AS recency"
	"  FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
	"  WHERE r.status = 'ok' AND r.t_bulk_ms > r.t_gemm_ms AND r.t_gemm_ms > 0 AND r.world > 1"
	"    AND s.host = ?1 AND s.backend = ?2"
	"    AND NOT (s.backend = 'gpu' AND s.devices LIKE '%x %' AND s.mpi_ranks >"
	"             CAST(substr(s.devices, 1, instr(s.devices, 'x ') - 1) AS INTEGER))"
	") SELECT " VIEW_CONFIG_COLUMNS ", t_bulk_ms - t_gemm_ms FROM latest"
	" WHERE recency = 1 ORDER BY world, id";

/* The points of one collective at one W. */
struct bulk_points {
	enum fgo_collective kind;
	int world;
	double *bytes, *seconds;
	size_t n, cap;
};

static int bulk_add(struct bulk_points *p, double bytes, double seconds)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		double *b = realloc(p->bytes, cap * sizeof *b);
		if (!b)
			return FGO_EFAIL;
		p->bytes = b;
		double *t = realloc(p->seconds, cap * sizeof *t);
		if (!t)
			return FGO_EFAIL;
		p->seconds = t;
		p->cap = cap;
	}
	p->bytes[p->n] = bytes;
	p->seconds[p->n++] = seconds;
	return FGO_OK;
}

/* The runs' baseline collectives of machine and backend, one set of
 * points per (collective, W) into pts (at most COLL_CURVES_MAX), *np of
 * them (each point's arrays malloc'd: bulk_free). */
static int bulk_load(struct fgo_store *st, const char *machine, const char *backend,
		     struct bulk_points *pts, int *np, char *err, size_t len)
{
	int step, rc = FGO_OK;
	sqlite3_stmt *q;
	*np = 0;
	if (store_sql_prepare(store_db(st), bulk_sql, &q, "read the runs' baselines", err, len))
		return FGO_EFAIL;
	store_sql_bind_text(q, 1, machine);
	store_sql_bind_text(q, 2, backend);
	/* the CPU baselines sum in fp32 (MPI_FLOAT); the GPU's in the dtype */
	int cpu = !strcmp(backend, "cpu");
	while (rc == FGO_OK && (step = sqlite3_step(q)) == SQLITE_ROW) {
		struct fgo_config cfg;
		enum fgo_collective kind;
		double bytes;
		view_config(q, 0, &cfg);
		if (!algo_find(cfg.algorithm) ||
		    !algo_collective(&cfg, cpu ? 4 : dtype_size(cfg.dtype), &kind, &bytes) || !(bytes > 0))
			continue;
		int i = 0;
		while (i < *np && !(pts[i].kind == kind && pts[i].world == cfg.world))
			i++;
		if (i == *np) {
			if (*np == COLL_CURVES_MAX)
				continue;
			memset(&pts[(*np)++], 0, sizeof pts[0]);
			pts[i].kind = kind;
			pts[i].world = cfg.world;
		}
		if (bulk_add(&pts[i], bytes, sqlite3_column_double(q, VIEW_CONFIG_NCOLS) * 1e-3)) {
			snprintf(err, len, "out of memory for the runs' baselines");
			rc = FGO_EFAIL;
		}
	}
	sqlite3_finalize(q);
	if (rc == FGO_OK && step != SQLITE_DONE)
		rc = store_sql_fail(store_db(st), err, len, "read the runs' baselines");
	return rc;
}

static void bulk_free(struct bulk_points *pts, int np)
{
	for (int i = 0; i < np; i++) {
		free(pts[i].bytes);
		free(pts[i].seconds);
	}
}

int world_curves_fit(struct fgo_store *st, const char *machine, const char *backend,
		     struct coll_curve *out, int cap, int *n, int *runs, double *rms, char *err,
		     size_t len)
{
	struct bulk_points pts[COLL_CURVES_MAX];
	int np = 0;
	*n = 0;
	int rc = bulk_load(st, machine, backend, pts, &np, err, len);
	for (int i = 0; i < np; i++) {
		double r = 0;
		if (rc == FGO_OK && *n < cap &&
		    coll_curve_fit(pts[i].kind, pts[i].world, pts[i].bytes, pts[i].seconds, pts[i].n,
				   &out[*n], NULL, NULL, &r)) {
			if (runs)
				runs[*n] = (int)pts[i].n;
			if (rms)
				rms[*n] = r;
			(*n)++;
		}
	}
	bulk_free(pts, np);
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* How much of c's time the runs' baselines at c's W do not see (p: their
 * points of c's collective at that W): the median of c's time less
 * theirs, held within [0, c's smallest time]. calibrate times one call
 * alone, its launch and the barrier's skew in it; the baseline's
 * collective is queued behind its GEMM and hides them (on four H100s its
 * 1 MiB all-gather took 11 us inside the runs, 22 us alone). */
static double hidden_of(const struct coll_curve *c, const struct bulk_points *p)
{
	double *d = malloc(sizeof *d * (p->n ? p->n : 1)), h = 0;
	size_t k = 0;
	if (!d)
		return 0;
	for (size_t i = 0; i < p->n; i++) {
		double t = coll_curve_seconds(c, p->bytes[i], NULL);
		if (t > 0 && p->seconds[i] > 0)
			d[k++] = t - p->seconds[i];
	}
	if (k) {
		qsort(d, k, sizeof *d, cmp_double);
		h = k % 2 ? d[k / 2] : 0.5 * (d[k / 2 - 1] + d[k / 2]);
	}
	free(d);
	return fmax(0, fmin(h, c->seconds[0]));
}

/* Each measured curve less what the runs' baselines hide of it
 * (hidden_of): from the runs at its W, else from the nearest W that
 * has both runs and a measured curve of that collective (the smaller on
 * a tie; a launch is the same at any W). */
static int curves_hide(struct fgo_store *st, const char *machine, const char *backend,
		       struct coll_curve *c, int n, char *err, size_t len)
{
	struct bulk_points pts[COLL_CURVES_MAX];
	double hidden[COLL_CURVES_MAX];
	int np = 0, known[COLL_CURVES_MAX] = { 0 };
	int rc = bulk_load(st, machine, backend, pts, &np, err, len);
	for (int i = 0; rc == FGO_OK && i < n && i < COLL_CURVES_MAX; i++)
		for (int j = 0; j < np && !c[i].fitted; j++)
			if (pts[j].kind == c[i].kind && pts[j].world == c[i].world && pts[j].n) {
				hidden[i] = hidden_of(&c[i], &pts[j]);
				known[i] = 1;
			}
	for (int i = 0; rc == FGO_OK && i < n && i < COLL_CURVES_MAX; i++) {
		int from = known[i] ? i : -1;
		for (int j = 0; from != i && j < n && j < COLL_CURVES_MAX; j++) {
			if (!known[j] || c[j].kind != c[i].kind)
				continue;
			int d = abs(c[j].world - c[i].world), bd = from < 0 ? 0 : abs(c[from].world - c[i].world);
			if (from < 0 || d < bd || (d == bd && c[j].world < c[from].world))
				from = j;
		}
		if (c[i].fitted || from < 0 || !(hidden[from] > 0))
			continue;
		c[i].hidden_s = hidden[from];
		c[i].hidden_from = c[from].world;
		for (int p = 0; p < c[i].n; p++)
			c[i].seconds[p] = fmax(c[i].seconds[p] - hidden[from], 0.05 * c[i].seconds[p]);
	}
	bulk_free(pts, np);
	return rc;
}

int world_curves_load(struct fgo_store *st, const char *machine, const char *backend,
		      struct coll_curve *out, int cap, int *n, char *err, size_t len)
{
	struct store_coll_curve *stored = calloc((size_t)cap + 1, sizeof *stored);
	int ns = 0;
	*n = 0;
	if (!stored) {
		snprintf(err, len, "out of memory for the collective curves");
		return FGO_EFAIL;
	}
	int rc = store_coll_curves_get(st, machine, backend, stored, cap, &ns, err, len);
	for (int i = 0; rc == FGO_OK && i < ns; i++) {
		struct coll_curve *c = &out[*n];
		int kind = -1;
		for (int k = 0; k < FGO_COLLECTIVES; k++)
			if (!strcmp(stored[i].collective, fgo_collective_names[k]))
				kind = k;
		if (kind < 0 || stored[i].n < 1)
			continue;
		memset(c, 0, sizeof *c);
		c->kind = (enum fgo_collective)kind;
		c->world = stored[i].world;
		c->n = stored[i].n < COLL_POINTS_MAX ? stored[i].n : COLL_POINTS_MAX;
		memcpy(c->bytes, stored[i].bytes, sizeof(double) * (size_t)c->n);
		memcpy(c->seconds, stored[i].seconds, sizeof(double) * (size_t)c->n);
		(*n)++;
	}
	free(stored);
	if (rc == FGO_OK && *n)
		rc = curves_hide(st, machine, backend, out, *n, err, len);
	/* where calibrate measured none (a store older than its curves), the
	 * curve the runs' baselines say */
	struct coll_curve fit[COLL_CURVES_MAX];
	int nfit = 0;
	if (rc == FGO_OK)
		rc = world_curves_fit(st, machine, backend, fit, COLL_CURVES_MAX, &nfit, NULL, NULL, err,
				      len);
	for (int i = 0; rc == FGO_OK && i < nfit && *n < cap; i++) {
		int measured = 0;
		for (int j = 0; j < *n; j++)
			measured |= !out[j].fitted && out[j].kind == fit[i].kind &&
				    out[j].world == fit[i].world;
		if (!measured)
			out[(*n)++] = fit[i];
	}
	return rc;
}

int world_runs_load(struct fgo_store *st, const char *machine, const char *backend,
		    const char *algorithm, int world, struct world_run **out, size_t *n, char *err,
		    size_t len)
{
	sqlite3_stmt *q;
	size_t cap = 0;
	int step, rc = FGO_OK;
	*out = NULL;
	*n = 0;
	if (store_sql_prepare(store_db(st), runs_sql, &q, "read the runs at W > 1", err, len))
		return FGO_EFAIL;
	store_sql_bind_text(q, 1, machine);
	store_sql_bind_text(q, 2, backend);
	store_sql_bind_text(q, 3, algorithm);
	sqlite3_bind_int(q, 4, world);
	while (rc == FGO_OK && (step = sqlite3_step(q)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			struct world_run *more = realloc(*out, cap * sizeof *more);
			if (!more) {
				snprintf(err, len, "out of memory for the runs at W > 1");
				rc = FGO_EFAIL;
				break;
			}
			*out = more;
		}
		struct world_run *r = &(*out)[(*n)++];
		view_config(q, 0, &r->cfg);
		r->ms = sqlite3_column_double(q, VIEW_CONFIG_NCOLS);
		r->gemm_ms = sqlite3_column_double(q, VIEW_CONFIG_NCOLS + 1);
		r->comm_ms = sqlite3_column_double(q, VIEW_CONFIG_NCOLS + 2);
	}
	sqlite3_finalize(q);
	if (rc == FGO_OK && step != SQLITE_DONE)
		rc = store_sql_fail(store_db(st), err, len, "read the runs at W > 1");
	if (rc != FGO_OK || *n == 0) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

int world_gemm_model_load(struct fgo_store *st, const char *machine, const char *backend,
			  struct world_gemm_model *gm, char *err, size_t len)
{
	static const char *const cores[MODEL_CORES] = { "wgmma", "mma16", "mma32", "simt" };
	_Static_assert(MODEL_CORES <= WORLD_RANK_CORES, "one slot per core");
	memset(gm, 0, sizeof *gm);
	for (int c = 0; c < MODEL_CORES; c++) {
		struct model_fit f;
		char at[32];
		int found = 0;
		if (store_model_get(st, machine, backend, cores[c], &gm->machine, &f, at, &found, err,
				    len) != FGO_OK)
			return FGO_EFAIL;
		if (!found)
			continue;
		snprintf(gm->core[gm->ncores], sizeof gm->core[0], "%s", cores[c]);
		memcpy(gm->coef[gm->ncores++], f.coef, sizeof f.coef);
	}
	if (gm->ncores)
		return FGO_OK;
	/* none stored: fitted now, as best --predict does */
	struct model_core_fit fits[MODEL_CORES];
	int n = 0;
	if (model_refit(st, machine, backend, NULL, fits, &n, err, len) != FGO_OK ||
	    model_machine_load(st, machine, backend, &gm->machine, err, len) != FGO_OK)
		return FGO_EFAIL;
	for (int i = 0; i < n; i++) {
		if (!fits[i].fitted)
			continue;
		snprintf(gm->core[gm->ncores], sizeof gm->core[0], "%.7s", fits[i].core);
		memcpy(gm->coef[gm->ncores++], fits[i].fit.coef, sizeof fits[i].fit.coef);
	}
	return FGO_OK;
}
