/* algos/registry.c: the table of algorithm families, sorted by name, and
 * lookup with "did you mean" suggestions. Adding a family: write
 * src/algos/<family>.c filling `const struct fgo_algo algo_<name>`, add the
 * extern and the table entry here (keep the order), add it to tests/mpi/test_algos.c. */
#include <string.h>

#include "algo.h"
#include "fgo.h"

extern const struct fgo_algo algo_all_gather_gemm_pull;
extern const struct fgo_algo algo_all_gather_gemm_push;
extern const struct fgo_algo algo_all_reduce_one_shot;
extern const struct fgo_algo algo_all_reduce_two_shot;
extern const struct fgo_algo algo_all_scatter;
extern const struct fgo_algo algo_gemm;
extern const struct fgo_algo algo_reduce_scatter;
extern const struct fgo_algo algo_sk_all_reduce;
extern const struct fgo_algo algo_sk_all_scatter;

const struct fgo_algo *const fgo_algos[] = {
	&algo_all_gather_gemm_pull,
	&algo_all_gather_gemm_push,
	&algo_all_reduce_one_shot,
	&algo_all_reduce_two_shot,
	&algo_all_scatter,
	&algo_gemm,
	&algo_reduce_scatter,
	&algo_sk_all_reduce,
	&algo_sk_all_scatter,
	NULL,
};

const struct fgo_algo *algo_find(const char *name)
{
	if (!name)
		return NULL;
	for (const struct fgo_algo *const *a = fgo_algos; *a; a++)
		if (strcmp((*a)->name, name) == 0)
			return *a;
	return NULL;
}

void algo_gemm_dims(const struct fgo_algo *algo, const struct fgo_config *cfg,
		    struct fgo_gemm_dims *d)
{
	int w = cfg->world > 0 ? cfg->world : 1;
	long mw = cfg->m / w, nw = cfg->n / w, kw = cfg->k / w;

	switch (algo->space) {
	case FGO_SPACE_K:
		*d = (struct fgo_gemm_dims){ cfg->m, cfg->n, kw, kw, cfg->n, 1 };
		break;
	case FGO_SPACE_K_ROWS:
		*d = (struct fgo_gemm_dims){ mw, cfg->n, kw, kw, cfg->n, w };
		break;
	case FGO_SPACE_A_ROWS:
		*d = (struct fgo_gemm_dims){ mw, nw, cfg->k, cfg->k, nw, w };
		break;
	default:
		*d = (struct fgo_gemm_dims){ cfg->m, nw, cfg->k, cfg->k, nw, 1 };
		break;
	}
}

/* The closest name within edit distance 3; failing that, the first name
 * that starts with or contains what was typed ("scatter" -> "all_scatter"). */
const char *algo_suggest(const char *name)
{
	const char *best = NULL;
	int best_d = 4;

	if (!name || !*name)
		return NULL;
	for (const struct fgo_algo *const *a = fgo_algos; *a; a++) {
		int d = edit_distance(name, (*a)->name);
		if (d < best_d) {
			best_d = d;
			best = (*a)->name;
		}
	}
	if (best)
		return best;
	for (const struct fgo_algo *const *a = fgo_algos; *a; a++)
		if (strncmp((*a)->name, name, strlen(name)) == 0)
			return (*a)->name;
	for (const struct fgo_algo *const *a = fgo_algos; *a; a++)
		if (strstr((*a)->name, name))
			return (*a)->name;
	return NULL;
}
