/* tune_model.c: the cost model of a tune space from the store (see
 * tune_model.h). */
#include "tune/tune_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "fgo.h"
#include "store/store.h"
#include "store/store_sql.h"

/* The index of core in m, added when new; -1 past MODEL_CORES. */
static int core_index(struct tune_model *m, const char *core)
{
	for (int g = 0; g < m->ncores; g++)
		if (!strcmp(m->core[g], core))
			return g;
	if (m->ncores == MODEL_CORES)
		return -1;
	snprintf(m->core[m->ncores], sizeof m->core[0], "%s", core);
	return m->ncores++;
}

/* The ok configurations of cfg's family and dtype on machine and backend
 * (the newest run of each; not of ranks sharing a GPU): what a fit made
 * now would learn this problem from. -1 when the store cannot be read. */
static long family_runs(struct fgo_store *st, const char *machine, const char *backend,
			const struct fgo_config *cfg)
{
	sqlite3_stmt *q;
	long n = -1;
	if (sqlite3_prepare_v2(store_db(st),
			       "SELECT count(DISTINCT r.config_key) FROM runs r JOIN sweeps s"
			       " ON s.id = r.sweep_id WHERE r.status = 'ok' AND r.t_fused_ms > 0"
			       " AND r.algorithm = ?3 AND r.dtype = ?4 AND s.host = ?1 AND s.backend = ?2"
			       " AND NOT (s.backend = 'gpu' AND s.devices LIKE '%x %' AND s.mpi_ranks >"
			       "  CAST(substr(s.devices, 1, instr(s.devices, 'x ') - 1) AS INTEGER))",
			       -1, &q, NULL) != SQLITE_OK)
		return -1;
	store_sql_bind_text(q, 1, machine);
	store_sql_bind_text(q, 2, backend);
	store_sql_bind_text(q, 3, cfg->algorithm);
	store_sql_bind_text(q, 4, dtype_name(cfg->dtype));
	if (sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return n;
}

/* The cores still missing a fit, fitted now to the host's runs (as best
 * --predict does) where the problem's family and dtype have enough runs.
 * FGO_OK (m->missing "" when every core has one now), FGO_EFAIL. */
static int fit_missing_now(struct fgo_store *st, const struct tune_space *s,
			   struct tune_model *m, struct model_machine *machine, char *err,
			   size_t len)
{
	struct model_core_fit fits[MODEL_CORES];
	int n = 0;
	long runs = s->n ? family_runs(st, m->machine, m->backend, &s->plan->items[s->item[0]].cfg) : 0;
	if (runs < 0) {
		snprintf(err, len, "reading the runs of %s failed: %s", m->machine,
			 sqlite3_errmsg(store_db(st)));
		return FGO_EFAIL;
	}
	m->family_runs = (size_t)runs;
	if (runs < MODEL_MIN_RUNS)
		return FGO_OK;
	if (model_refit(st, m->machine, m->backend, NULL, fits, &n, err, len) != FGO_OK)
		return FGO_EFAIL;
	m->missing[0] = 0;
	for (int g = 0; g < m->ncores; g++) {
		int found = 0;
		for (int i = 0; i < n && !found; i++)
			if (!strcmp(fits[i].core, m->core[g]) && fits[i].fitted) {
				if (m->fit[g].runs == 0 || m->fitted_at[g][0] == 0) {
					m->fit[g] = fits[i].fit;
					memcpy(m->coef + (size_t)g * MODEL_TERMS, fits[i].fit.coef,
					       sizeof fits[i].fit.coef);
					snprintf(m->fitted_at[g], sizeof m->fitted_at[g], "now");
					if (model_machine_load(st, m->machine, m->backend, &machine[g], err,
							       len) != FGO_OK)
						return FGO_EFAIL;
					m->fitted_now = 1;
				}
				found = 1;
			}
		if (!found && !m->missing[0])
			snprintf(m->missing, sizeof m->missing, "%s", m->core[g]);
	}
	return FGO_OK;
}

int tune_model_load(const char *db_path, const char *backend, const struct tune_space *s,
		    int fit_now, struct tune_model *m, char *err, size_t len)
{
	const struct fgo_backend *be = backend_find(backend);
	struct model_machine machine[MODEL_CORES];
	struct fgo_store *st = NULL;
	memset(m, 0, sizeof *m);
	gethostname(m->machine, sizeof m->machine - 1);
	snprintf(m->backend, sizeof m->backend, "%s", be ? be->name : backend);
	m->terms = malloc(sizeof *m->terms * MODEL_TERMS * (s->n + 1));
	m->group = calloc(s->n + 1, 1);
	if (!m->terms || !m->group) {
		snprintf(err, len, "out of memory for the cost model of %zu candidates", s->n);
		return FGO_EFAIL;
	}
	for (size_t c = 0; c < s->n; c++) {
		int g = core_index(m, model_core(&s->plan->items[s->item[c]].cfg));
		if (g < 0) {
			snprintf(err, len, "a space of more than %d GEMM cores", MODEL_CORES);
			return FGO_EFAIL;
		}
		m->group[c] = (unsigned char)g;
	}
	if (access(db_path, F_OK) != 0) { /* no store, no fit: nothing to read */
		snprintf(m->missing, sizeof m->missing, "%s", m->ncores ? m->core[0] : "?");
		return FGO_OK;
	}
	if (store_open(db_path, FGO_STORE_READ, &st, err, len) != FGO_OK)
		return FGO_EFAIL;
	for (int g = 0; g < m->ncores; g++) {
		int found = 0;
		if (store_model_get(st, m->machine, m->backend, m->core[g], &machine[g], &m->fit[g],
				    m->fitted_at[g], &found, err, len) != FGO_OK) {
			store_close(st);
			return FGO_EFAIL;
		}
		if (!found) {
			if (!m->missing[0])
				snprintf(m->missing, sizeof m->missing, "%s", m->core[g]);
			memset(&m->fit[g], 0, sizeof m->fit[g]);
			m->fitted_at[g][0] = 0;
			continue;
		}
		memcpy(m->coef + (size_t)g * MODEL_TERMS, m->fit[g].coef, sizeof m->fit[g].coef);
	}
	if (m->missing[0] && fit_now && fit_missing_now(st, s, m, machine, err, len) != FGO_OK) {
		store_close(st);
		return FGO_EFAIL;
	}
	store_close(st);
	if (m->missing[0])
		return FGO_OK;
	for (int g = 0; g < m->ncores; g++)
		model_machine_fill(&machine[g]);
	for (size_t c = 0; c < s->n; c++)
		model_terms(&s->plan->items[s->item[c]].cfg, &machine[m->group[c]],
			    m->terms + c * MODEL_TERMS);
	return FGO_OK;
}

void tune_model_free(struct tune_model *m)
{
	free(m->terms);
	free(m->group);
	m->terms = NULL;
	m->group = NULL;
}
