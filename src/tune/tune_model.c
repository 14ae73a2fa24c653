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

int tune_model_load(const char *db_path, const char *backend, const struct tune_space *s,
		    struct tune_model *m, char *err, size_t len)
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
			snprintf(m->missing, sizeof m->missing, "%s", m->core[g]);
			break;
		}
		model_machine_fill(&machine[g]);
		memcpy(m->coef + (size_t)g * MODEL_TERMS, m->fit[g].coef, sizeof m->fit[g].coef);
	}
	store_close(st);
	if (m->missing[0])
		return FGO_OK;
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
