/* spec_ctx.c: what spec.c and the readers (spec_sweep.c, spec_dataset.c)
 * share, below all three: the fields a file may set, positioned errors,
 * field access, the JSON value readers and the deduplicated plan.
 * Exports spec_ctx.h (with spec_pos.c and spec_check.c). */
#include "spec/spec_ctx.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "algos/kit.h"
#include "fgo.h"
#include "user/user.h"

#define DIM_MAX (1L << 40) /* far beyond any memory, small enough for 2*M*N*K in a double */

const struct spec_field_info spec_fields[SF_COUNT] = {
	[SF_ALGORITHM] = { "algorithm", 0, 0 },   [SF_DTYPE] = { "dtype", 0, 0 },
	[SF_WORLD] = { "world", 1, INT_MAX },     [SF_M] = { "M", 1, DIM_MAX },
	[SF_N] = { "N", 1, DIM_MAX },             [SF_K] = { "K", 1, DIM_MAX },
	[SF_BLK_M] = { "BLK_M", 1, INT_MAX },     [SF_BLK_N] = { "BLK_N", 1, INT_MAX },
	[SF_BLK_K] = { "BLK_K", 1, INT_MAX },     [SF_NUM_STAGES] = { "num_stages", 1, INT_MAX },
	[SF_NUM_WARPS] = { "num_warps", 1, INT_MAX }, [SF_MMA] = { "mma", 1, INT_MAX },
	[SF_GSIZE_M] = { "gsize_m", 1, INT_MAX }, [SF_GEMM_SMS] = { "gemm_sms", 0, INT_MAX },
	[SF_COMM_SMS] = { "comm_sms", 0, INT_MAX }, [SF_COMM_BLK_M] = { "comm_blk_m", 0, INT_MAX },
	[SF_COMM_BLK_N] = { "comm_blk_n", 0, INT_MAX }, [SF_SPLIT_K] = { "split_k", 1, INT_MAX },
	[SF_DETERMINISTIC] = { "deterministic", 0, 1 },
	/* 0, 1, 2, 4 or 8: spec_json_int refuses the sizes between */
	[SF_CLUSTER] = { "cluster", 0, 8 },
};

static int vfail(struct spec_ctx *c, int has_pos, size_t off, const char *fmt, va_list ap)
{
	size_t n = 0;
	if (has_pos) {
		int line, col;
		spec_pos_line_col(c->text, off, &line, &col);
		n = (size_t)snprintf(c->err, c->errlen, "%s:%d:%d: ", c->path, line, col);
	} else {
		n = (size_t)snprintf(c->err, c->errlen, "%s: ", c->path);
	}
	if (n < c->errlen)
		vsnprintf(c->err + n, c->errlen - n, fmt, ap);
	/* A message is one line: keys and values quoted from the file may hold
	 * escaped newlines or other control characters. */
	for (char *p = c->err; c->errlen && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return FGO_EUSAGE;
}

int spec_fail_at(struct spec_ctx *c, size_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vfail(c, 1, off, fmt, ap);
	va_end(ap);
	return rc;
}

int spec_fail_node(struct spec_ctx *c, const cJSON *node, int key, const char *fmt, ...)
{
	size_t off = c->root ? spec_pos_find(c->text, c->root, node, key) : 0;
	va_list ap;
	va_start(ap, fmt);
	int rc = vfail(c, 1, off, fmt, ap);
	va_end(ap);
	return rc;
}

int spec_fail(struct spec_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vfail(c, 0, 0, fmt, ap);
	va_end(ap);
	return rc;
}

int spec_field_given(const struct fgo_config_mask *s, enum spec_field f)
{
	if (!s)
		return 0;
	switch (f) {
	case SF_ALGORITHM: return s->algorithm;
	case SF_DTYPE: return s->dtype;
	case SF_WORLD: return s->world;
	case SF_M: return s->m;
	case SF_N: return s->n;
	case SF_K: return s->k;
	case SF_BLK_M: return s->blk_m;
	case SF_BLK_N: return s->blk_n;
	case SF_BLK_K: return s->blk_k;
	case SF_NUM_STAGES: return s->num_stages;
	case SF_NUM_WARPS: return s->num_warps;
	case SF_MMA: return s->mma;
	case SF_GSIZE_M: return s->gsize_m;
	case SF_GEMM_SMS: return s->gemm_sms;
	case SF_COMM_SMS: return s->comm_sms;
	case SF_COMM_BLK_M: return s->comm_blk_m;
	case SF_COMM_BLK_N: return s->comm_blk_n;
	case SF_SPLIT_K: return s->split_k;
	case SF_DETERMINISTIC: return s->deterministic;
	case SF_CLUSTER: return s->cluster;
	default: return 0;
	}
}

/* The int members of the configuration, by field (NULL for the others). */
static int *int_member(struct fgo_config *cfg, enum spec_field f)
{
	switch (f) {
	case SF_WORLD: return &cfg->world;
	case SF_BLK_M: return &cfg->blk_m;
	case SF_BLK_N: return &cfg->blk_n;
	case SF_BLK_K: return &cfg->blk_k;
	case SF_NUM_STAGES: return &cfg->num_stages;
	case SF_NUM_WARPS: return &cfg->num_warps;
	case SF_MMA: return &cfg->mma;
	case SF_GSIZE_M: return &cfg->gsize_m;
	case SF_GEMM_SMS: return &cfg->gemm_sms;
	case SF_COMM_SMS: return &cfg->comm_sms;
	case SF_COMM_BLK_M: return &cfg->comm_blk_m;
	case SF_COMM_BLK_N: return &cfg->comm_blk_n;
	case SF_SPLIT_K: return &cfg->split_k;
	case SF_DETERMINISTIC: return &cfg->deterministic;
	case SF_CLUSTER: return &cfg->cluster;
	default: return NULL;
	}
}

long spec_field_get(const struct fgo_config *cfg, enum spec_field f)
{
	switch (f) {
	case SF_DTYPE: return (long)cfg->dtype;
	case SF_M: return cfg->m;
	case SF_N: return cfg->n;
	case SF_K: return cfg->k;
	default: break;
	}
	const int *p = int_member((struct fgo_config *)cfg, f);
	return p ? *p : 0;
}

void spec_field_put(struct fgo_config *cfg, enum spec_field f, long v)
{
	switch (f) {
	case SF_DTYPE: cfg->dtype = (enum fgo_dtype)v; return;
	case SF_M: cfg->m = v; return;
	case SF_N: cfg->n = v; return;
	case SF_K: cfg->k = v; return;
	default: break;
	}
	int *p = int_member(cfg, f);
	if (p)
		*p = (int)v;
	switch (f) {
	case SF_BLK_M: cfg->given |= FGO_GIVEN_BLK_M; break;
	case SF_BLK_N: cfg->given |= FGO_GIVEN_BLK_N; break;
	case SF_BLK_K: cfg->given |= FGO_GIVEN_BLK_K; break;
	case SF_NUM_WARPS: cfg->given |= FGO_GIVEN_WARPS; break;
	case SF_NUM_STAGES: cfg->given |= FGO_GIVEN_STAGES; break;
	case SF_MMA: cfg->given |= FGO_GIVEN_MMA; break;
	case SF_SPLIT_K: cfg->given |= FGO_GIVEN_SPLIT_K; break;
	case SF_CLUSTER: cfg->given |= FGO_GIVEN_CLUSTER; break;
	case SF_COMM_BLK_M: case SF_COMM_BLK_N: cfg->given |= FGO_GIVEN_COMM_BLK; break;
	case SF_GEMM_SMS: case SF_COMM_SMS: cfg->given |= FGO_GIVEN_SMS; break;
	default: break;
	}
}

void spec_apply_overrides(const struct spec_ctx *c, struct fgo_config *cfg)
{
	for (int f = 0; f < SF_COUNT; f++) {
		if (!spec_field_given(c->set, (enum spec_field)f))
			continue;
		if (f == SF_ALGORITHM)
			memcpy(cfg->algorithm, c->base->algorithm, sizeof cfg->algorithm);
		else
			spec_field_put(cfg, (enum spec_field)f, spec_field_get(c->base, (enum spec_field)f));
	}
}

const char *spec_suggest(const char *word, const char *const *names, size_t n)
{
	char w[64], cand[64];
	size_t i;
	for (i = 0; word[i] && i + 1 < sizeof w; i++)
		w[i] = (char)tolower((unsigned char)word[i]);
	w[i] = 0;
	const char *best = NULL;
	int best_d = INT_MAX;
	for (size_t j = 0; j < n; j++) {
		for (i = 0; names[j][i] && i + 1 < sizeof cand; i++)
			cand[i] = (char)tolower((unsigned char)names[j][i]);
		cand[i] = 0;
		int d = edit_distance(w, cand);
		size_t longer = strlen(w) > i ? strlen(w) : i;
		/* at most two edits, and fewer than half the word: "mm" is not "m" */
		if (d <= 2 && (size_t)d * 2 < longer && d < best_d) {
			best = names[j];
			best_d = d;
		}
	}
	return best;
}

const char *spec_json_type(const cJSON *v)
{
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsBool(v))
		return "a boolean";
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsArray(v))
		return "a list";
	if (cJSON_IsObject(v))
		return "an object";
	return "an unknown value";
}

int spec_json_int(struct spec_ctx *c, const cJSON *v, const char *what, enum spec_field f,
		  long *out)
{
	const struct spec_field_info *fi = &spec_fields[f];
	if (f == SF_MMA && cJSON_IsString(v)) { /* "mma": "wgmma" */
		int mma;
		if (mma_parse(v->valuestring, &mma) != 0)
			return spec_fail_node(c, v, 0, "unknown \"%s\" \"%s\" (use 16, 32 or \"wgmma\")",
					      what, v->valuestring);
		*out = mma;
		return FGO_OK;
	}
	if (!cJSON_IsNumber(v))
		return spec_fail_node(c, v, 0, "\"%s\" expects an integer, got %s", what,
				      spec_json_type(v));
	double d = v->valuedouble;
	if (!isfinite(d) || d != floor(d))
		return spec_fail_node(c, v, 0, "\"%s\" expects an integer, got %g", what, d);
	/* a size no cluster has (3, 16) is a typo, not a configuration to list
	 * as invalid; the bounds' words would not say which sizes there are */
	if (f == SF_CLUSTER && d != 0 && d != 1 && d != 2 && d != 4 && d != 8)
		return spec_fail_node(c, v, 0, "\"%s\" must be 1, 2, 4 or 8 (CTAs of a thread block"
				      " cluster; 0 also means none), got %.0f", what, d);
	if (d < (double)fi->min)
		return spec_fail_node(c, v, 0, "\"%s\" must be %s, got %.0f", what,
				      fi->min > 0 ? "a positive integer" : ">= 0", d);
	if (d > (double)fi->max)
		return spec_fail_node(c, v, 0, "\"%s\" is too large (%.0f; at most %ld)", what, d,
				      fi->max);
	*out = (long)d;
	return FGO_OK;
}

int spec_json_algorithm(struct spec_ctx *c, const cJSON *v, const char *what, const char **out)
{
	if (!cJSON_IsString(v))
		return spec_fail_node(c, v, 0, "\"%s\" expects an algorithm name, got %s", what,
				      spec_json_type(v));
	char why[512];
	if (algo_is_choice(v->valuestring)) { /* the shot chosen when it runs */
		*out = ALGO_CHOICE;
		return FGO_OK;
	}
	const struct fgo_algo *algo = algo_resolve(v->valuestring, why, sizeof why);
	if (!algo)
		return spec_fail_node(c, v, 0, "%s", why);
	*out = algo->name; /* the registered name, however it was spelled */
	return FGO_OK;
}

int spec_json_dtype(struct spec_ctx *c, const cJSON *v, const char *what, enum fgo_dtype *out)
{
	if (!cJSON_IsString(v))
		return spec_fail_node(c, v, 0, "\"%s\" expects a dtype name, got %s", what,
				      spec_json_type(v));
	if (dtype_parse(v->valuestring, out))
		return spec_fail_node(c, v, 0, "unknown dtype \"%s\" (use fp32, fp16 or bf16)",
				      v->valuestring);
	return FGO_OK;
}

/* The key a plan's duplicates are found by: the configuration's, with
 * ALGO_CHOICE for an item that named it (its shot is not picked yet, so it
 * repeats no shot the spec gives; the session drops it if its pick does). */
static void item_key(const struct fgo_config *cfg, int choice, char *key, size_t len)
{
	struct fgo_config named = *cfg;
	if (choice)
		snprintf(named.algorithm, sizeof named.algorithm, "%s", ALGO_CHOICE);
	config_key(&named, key, len);
}

static size_t key_slot(const struct spec_ctx *c, const char *key)
{
	return (size_t)fnv1a64(key, strlen(key)) & (c->nslots - 1);
}

static int grow_slots(struct spec_ctx *c)
{
	size_t n = c->nslots ? c->nslots * 2 : 1024;
	size_t *slots = calloc(n, sizeof *slots);
	if (!slots)
		return FGO_EFAIL;
	free(c->slots);
	c->slots = slots;
	c->nslots = n;
	char key[FGO_KEY_MAX];
	for (size_t i = 0; i < c->plan->count; i++) {
		item_key(&c->plan->items[i].cfg, c->plan->items[i].shot_choice, key, sizeof key);
		size_t s = key_slot(c, key);
		while (c->slots[s])
			s = (s + 1) & (n - 1);
		c->slots[s] = i + 1;
	}
	return FGO_OK;
}

static int add_one(struct spec_ctx *c, const struct fgo_config *given);

int spec_add(struct spec_ctx *c, const struct fgo_config *given)
{
	if (!c->kernel)
		return add_one(c, given);
	/* a user kernel: the problem as given, then every value set of the
	 * kernel's tunables; the built-in tunables keep their defaults, so
	 * they make no two configurations of one problem differ */
	struct fgo_config cfg;
	config_defaults(&cfg);
	cfg.dtype = given->dtype;
	cfg.world = given->world;
	cfg.m = given->m;
	cfg.n = given->n;
	cfg.k = given->k;
	long combos = user_combos(c->kernel);
	for (long i = 0; i < combos; i++) {
		user_config_set(c->kernel, i, &cfg);
		int rc = add_one(c, &cfg);
		if (rc)
			return rc;
		if (c->plan->count > SPEC_MAX_CONFIGS)
			return spec_fail(c, "the spec expands to more than %d configurations (split it)",
					 SPEC_MAX_CONFIGS);
	}
	return FGO_OK;
}

static int add_one(struct spec_ctx *c, const struct fgo_config *given)
{
	struct fgo_plan *p = c->plan;
	struct fgo_config fitted = *given, *cfg = &fitted;
	/* all_reduce: runs as one-shot until the session picks the shot */
	int choice = !strcmp(cfg->algorithm, ALGO_CHOICE);
	if (choice)
		snprintf(cfg->algorithm, sizeof cfg->algorithm, "%s", ALGO_CHOICE_FIRST);
	kit_fit_tile(cfg); /* a default tile side no longer than the shape allows */
	if ((p->count + 1) * 2 > c->nslots && grow_slots(c))
		return spec_fail(c, "out of memory expanding the plan");
	char key[FGO_KEY_MAX], other[FGO_KEY_MAX];
	item_key(cfg, choice, key, sizeof key);
	size_t s = key_slot(c, key);
	for (; c->slots[s]; s = (s + 1) & (c->nslots - 1)) {
		const struct fgo_plan_item *was = &p->items[c->slots[s] - 1];
		item_key(&was->cfg, was->shot_choice, other, sizeof other);
		if (strcmp(key, other) == 0)
			return FGO_OK;
	}
	if (p->count == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct fgo_plan_item *items = realloc(p->items, cap * sizeof *items);
		if (!items)
			return spec_fail(c, "out of memory expanding the plan");
		p->items = items;
		c->cap = cap;
	}
	struct fgo_plan_item *it = &p->items[p->count];
	memset(it, 0, sizeof *it);
	it->cfg = *cfg;
	it->default_row = -1;
	it->shot_choice = (unsigned char)choice;
	c->slots[s] = ++p->count;
	return FGO_OK;
}
