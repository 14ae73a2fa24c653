/* tune_space.c: the candidates `fgobench tune` searches (see tune.h): the
 * items of a plan that pass the sweep's validation, their coordinates
 * along each tunable, one-step neighbours, and each family's default
 * space as a sweep spec. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "fgo.h"
#include "tune/tune.h"

const char *const tune_dim_names[TUNE_DIMS] = {
	"BLK_M", "BLK_N", "BLK_K", "num_stages", "num_warps", "mma", "gsize_m",
	"gemm_sms", "comm_sms", "comm_blk_m", "comm_blk_n", "split_k", "deterministic",
	"cluster",
};

int tune_dim_get(const struct fgo_config *cfg, int dim)
{
	const int v[TUNE_DIMS] = { cfg->blk_m,    cfg->blk_n,   cfg->blk_k,    cfg->num_stages,
				   cfg->num_warps, cfg->mma,    cfg->gsize_m,  cfg->gemm_sms,
				   cfg->comm_sms, cfg->comm_blk_m, cfg->comm_blk_n, cfg->split_k,
				   cfg->deterministic, cfg->cluster };
	return dim >= 0 && dim < TUNE_DIMS ? v[dim] : 0;
}

int tune_prune_reason(const struct fgo_config *cfg, size_t heap_limit, char *reason,
		      size_t len)
{
	if (config_validate(cfg, reason, len))
		return 1;
	/* the runner's check (items_of_world), made before the run instead */
	struct fgo_layout lay;
	algo_find(cfg->algorithm)->layout(cfg, 0, &lay);
	if (heap_limit && lay.heap_bytes > heap_limit) {
		char need[32], limit[32];
		snprintf(reason, len,
			 "needs %s of heap per rank, more than the limit of %s (raise --heap-size)",
			 fmt_bytes((double)lay.heap_bytes, need, sizeof need),
			 fmt_bytes((double)heap_limit, limit, sizeof limit));
		return 1;
	}
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static size_t coord_slot(const struct tune_space *s, const unsigned char *c)
{
	return (size_t)fnv1a64(c, TUNE_DIMS) & (s->nslots - 1);
}

/* The candidate at coordinates c, or (size_t)-1. */
static size_t find_coord(const struct tune_space *s, const unsigned char *c)
{
	for (size_t k = coord_slot(s, c); s->slots[k]; k = (k + 1) & (s->nslots - 1))
		if (memcmp(s->coord + (s->slots[k] - 1) * TUNE_DIMS, c, TUNE_DIMS) == 0)
			return s->slots[k] - 1;
	return (size_t)-1;
}

/* Sorted distinct values of each tunable, then every candidate's indices. */
static int fill_coords(struct tune_space *s)
{
	for (int d = 0; d < TUNE_DIMS; d++) {
		int *v = malloc(sizeof *v * (s->n + 1));
		if (!v)
			return FGO_EFAIL;
		for (size_t i = 0; i < s->n; i++)
			v[i] = tune_dim_get(&s->plan->items[s->item[i]].cfg, d);
		qsort(v, s->n, sizeof *v, cmp_int);
		int k = 0;
		for (size_t i = 0; i < s->n; i++)
			if (k == 0 || v[k - 1] != v[i])
				v[k++] = v[i];
		if (k > 255) { /* coordinates are bytes; no real space comes near */
			free(v);
			return FGO_EFAIL;
		}
		s->vals[d] = v;
		s->nvals[d] = k;
	}
	for (size_t i = 0; i < s->n; i++)
		for (int d = 0; d < TUNE_DIMS; d++) {
			int x = tune_dim_get(&s->plan->items[s->item[i]].cfg, d);
			const int *at = bsearch(&x, s->vals[d], (size_t)s->nvals[d], sizeof x, cmp_int);
			s->coord[i * TUNE_DIMS + (size_t)d] = (unsigned char)(at - s->vals[d]);
		}
	for (size_t i = 0; i < s->n; i++) {
		size_t k = coord_slot(s, s->coord + i * TUNE_DIMS);
		while (s->slots[k])
			k = (k + 1) & (s->nslots - 1);
		s->slots[k] = i + 1;
	}
	return FGO_OK;
}

int tune_space_build(const struct fgo_plan *plan, size_t heap_limit, struct tune_space *s)
{
	memset(s, 0, sizeof *s);
	s->plan = plan;
	s->item = malloc(sizeof *s->item * (plan->count + 1));
	s->cand_of = malloc(sizeof *s->cand_of * (plan->count + 1));
	if (!s->item || !s->cand_of)
		goto fail;
	for (size_t i = 0; i < plan->count; i++) {
		const struct fgo_plan_item *it = &plan->items[i];
		char reason[FGO_REASON_MAX];
		int bad = !it->valid;
		if (bad)
			snprintf(reason, sizeof reason, "%s", it->reason);
		else
			bad = tune_prune_reason(&it->cfg, heap_limit, reason, sizeof reason);
		s->cand_of[i] = bad ? (size_t)-1 : s->n;
		if (!bad)
			s->item[s->n++] = i;
		else if (s->pruned++ == 0)
			snprintf(s->first_reason, sizeof s->first_reason, "%s", reason);
	}
	for (s->nslots = 16; s->nslots < 2 * s->n; s->nslots *= 2)
		;
	s->slots = calloc(s->nslots, sizeof *s->slots);
	s->coord = calloc(s->n + 1, TUNE_DIMS);
	if (!s->slots || !s->coord || fill_coords(s) != FGO_OK)
		goto fail;
	return FGO_OK;
fail:
	tune_space_free(s);
	return FGO_EFAIL;
}

void tune_space_free(struct tune_space *s)
{
	free(s->item);
	free(s->cand_of);
	free(s->coord);
	free(s->slots);
	for (int d = 0; d < TUNE_DIMS; d++)
		free(s->vals[d]);
	memset(s, 0, sizeof *s);
}

size_t tune_space_neighbour(const struct tune_space *s, size_t cand, int dim, int step)
{
	unsigned char c[TUNE_DIMS];
	memcpy(c, s->coord + cand * TUNE_DIMS, TUNE_DIMS);
	int to = c[dim] + step;
	if (to < 0 || to >= s->nvals[dim])
		return (size_t)-1;
	c[dim] = (unsigned char)to;
	return find_coord(s, c);
}

/* The tiles, pipeline and tile order every family takes; the Stream-K
 * forms add their split of CTAs (gemm_sms >= 1; comm_sms 0 has the CTA
 * that ends a tile communicate it, on the wgmma core and the CPU). */
#define SPACE_COMMON                                                              \
	"\"BLK_M\": [16, 32, 64, 128, 256], \"BLK_N\": [16, 32, 64, 128, 256],"    \
	" \"BLK_K\": [16, 32, 64, 128], \"num_stages\": [1, 2, 3, 4],"              \
	" \"num_warps\": [4, 8], \"gsize_m\": [1, 4, 8]"

const char *tune_default_space(const char *algorithm)
{
	static const char plain[] = "{\"name\": \"tune-default\", " SPACE_COMMON "}\n";
	static const char stream_k[] =
		"{\"name\": \"tune-default\", " SPACE_COMMON
		", \"gemm_sms\": [4, 8, 16, 32, 64, 128], \"comm_sms\": [0, 1, 2, 4, 8]}\n";
	const struct fgo_algo *a = algo_find(algorithm);
	return a && a->comm_ctas == FGO_COMM_CTAS_REQUIRED ? stream_k : plain;
}
