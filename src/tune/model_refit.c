/* model_refit.c: the cost model against a store (see model_refit.h). */
#include "tune/model_refit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "store/store_sql.h"
#include "views/views.h"

int model_machine_load(struct fgo_store *st, const char *machine, const char *backend,
		       struct model_machine *m, char *err, size_t len)
{
	sqlite3_stmt *q;
	int found;
	memset(m, 0, sizeof *m);
	for (int t = FGO_FP32; t <= FGO_BF16; t++)
		if (store_ceiling_get(st, machine, backend, "matrix_peak", dtype_name((enum fgo_dtype)t),
				      &m->peak_tflops[t], &found, err, len) != FGO_OK)
			return FGO_EFAIL;
	if (store_ceiling_get(st, machine, backend, "memory_bw", "", &m->mem_gbps, &found, err,
			      len) != FGO_OK ||
	    store_ceiling_get(st, machine, backend, "link_bw", "", &m->link_gbps, &found, err,
			      len) != FGO_OK)
		return FGO_EFAIL;
	if (store_sql_prepare(store_db(st),
		    "SELECT devices FROM sweeps WHERE host = ?1 AND backend = ?2 AND devices LIKE '%SMs)%'"
		    " ORDER BY id DESC LIMIT 1",
		    &q, "read the sweeps", err, len))
		return FGO_EFAIL;
	store_sql_bind_text(q, 1, machine);
	store_sql_bind_text(q, 2, backend);
	if (sqlite3_step(q) == SQLITE_ROW) {
		const char *dev = (const char *)sqlite3_column_text(q, 0);
		const char *p = dev ? strrchr(dev, '(') : NULL;
		if (!p || sscanf(p, "(%d SMs)", &m->cus) != 1)
			m->cus = 1;
	}
	sqlite3_finalize(q);
	model_machine_fill(m);
	return FGO_OK;
}

/* The newest ok run of every configuration of the machine; on a GPU
 * backend ("Nx NAME (S SMs)") not from sweeps with more ranks than GPUs. */
static const char runs_sql[] =
	"WITH latest AS ("
	"  SELECT r.*, row_number() OVER (PARTITION BY r.config_key ORDER BY r.id DESC) AS recency"
	"  FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
	"  WHERE r.status = 'ok' AND r.t_fused_ms > 0 AND s.host = ?1 AND s.backend = ?2"
	"    AND NOT (s.devices LIKE '%x %' AND s.mpi_ranks >"
	"             CAST(substr(s.devices, 1, instr(s.devices, 'x ') - 1) AS INTEGER))"
	") SELECT " VIEW_CONFIG_COLUMNS ", t_fused_ms FROM latest WHERE recency = 1";

struct core_runs {
	double *x, *ms;
	size_t n, cap;
};

static int add_run(struct core_runs *c, const double x[MODEL_TERMS], double ms)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		double *nx = realloc(c->x, cap * MODEL_TERMS * sizeof *nx);
		if (!nx)
			return FGO_EFAIL;
		c->x = nx;
		double *nm = realloc(c->ms, cap * sizeof *nm);
		if (!nm)
			return FGO_EFAIL;
		c->ms = nm;
		c->cap = cap;
	}
	memcpy(c->x + c->n * MODEL_TERMS, x, sizeof(double) * MODEL_TERMS);
	c->ms[c->n++] = ms;
	return FGO_OK;
}

int model_refit(struct fgo_store *st, const char *machine, const char *backend,
		const char *source, struct model_core_fit out[MODEL_CORES], int *nout,
		char *err, size_t len)
{
	static const char *const cores[MODEL_CORES] = { "wgmma", "mma16", "mma32", "simt" };
	struct core_runs runs[MODEL_CORES];
	struct model_machine m;
	sqlite3_stmt *q;
	int rc = FGO_OK, step;

	*nout = 0;
	memset(runs, 0, sizeof runs);
	if (model_machine_load(st, machine, backend, &m, err, len) != FGO_OK)
		return FGO_EFAIL;
	if (store_sql_prepare(store_db(st), runs_sql, &q, "read the runs", err, len))
		return FGO_EFAIL;
	store_sql_bind_text(q, 1, machine);
	store_sql_bind_text(q, 2, backend);
	while (rc == FGO_OK && (step = sqlite3_step(q)) == SQLITE_ROW) {
		struct fgo_config cfg;
		double x[MODEL_TERMS];
		view_config(q, 0, &cfg);
		if (!model_terms(&cfg, &m, x))
			continue; /* a family this fgobench does not know */
		const char *core = model_core(&cfg);
		for (int c = 0; c < MODEL_CORES; c++)
			if (!strcmp(core, cores[c]))
				rc = add_run(&runs[c], x, sqlite3_column_double(q, VIEW_CONFIG_NCOLS));
	}
	sqlite3_finalize(q);
	if (rc == FGO_OK && step != SQLITE_DONE)
		rc = store_sql_fail(store_db(st), err, len, "read the runs");
	else if (rc != FGO_OK)
		snprintf(err, len, "out of memory for the runs to fit");
	for (int c = 0; rc == FGO_OK && c < MODEL_CORES; c++) {
		if (runs[c].n == 0)
			continue;
		struct model_core_fit *f = &out[(*nout)++];
		memset(f, 0, sizeof *f);
		snprintf(f->core, sizeof f->core, "%s", cores[c]);
		f->fit.runs = runs[c].n;
		if (runs[c].n < MODEL_MIN_RUNS)
			continue;
		rc = model_fit(runs[c].x, runs[c].ms, runs[c].n, NULL, 0, &f->fit);
		if (rc != FGO_OK) {
			snprintf(err, len, "fitting the %s model failed", cores[c]);
			break;
		}
		f->fitted = 1;
		if (source)
			rc = store_model_put(st, machine, backend, cores[c], source, &m, &f->fit, err, len);
	}
	for (int c = 0; c < MODEL_CORES; c++) {
		free(runs[c].x);
		free(runs[c].ms);
	}
	return rc;
}
