/* spec_sweep.c: the sweep spec reader. A JSON object whose tunables each
 * take a value, a list or a range; "shapes" gives explicit [M, N, K]
 * triples; "blocks" holds several objects that inherit the top level's
 * tunables (cartesian product inside a block, union across blocks);
 * "kernel" names a user kernel's manifest, whose tunables then replace the
 * built-in ones. Keys are case-insensitive ("BLK_M" and "blk_m" are the
 * same key). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "algo.h"
#include "fgo.h"
#include "spec/spec_manifest.h"
#include "spec/spec_readers.h"

/* Keys that are not tunables. */
static const char *const setting_keys[] = {
	"name", "description", "iterations", "warmup", "validate", "blocks", "shapes", "config",
	"baseline", "kernel", "auto_trials",
};
#define N_SETTINGS (sizeof setting_keys / sizeof setting_keys[0])

/* The values one block gives a field: the JSON node (NULL: from the
 * defaults) and, once read, the expanded list. */
struct field_values {
	const cJSON *node;
	long *v;
	size_t n;
};

struct block {
	struct field_values f[SF_COUNT];
	const cJSON *shapes;
	long (*shape)[3];
	size_t nshapes;
};

static int field_by_key(const char *key)
{
	for (int f = 0; f < SF_COUNT; f++)
		if (strcasecmp(key, spec_fields[f].name) == 0)
			return f;
	return -1;
}

static int setting_by_key(const char *key)
{
	for (size_t i = 0; i < N_SETTINGS; i++)
		if (strcasecmp(key, setting_keys[i]) == 0)
			return (int)i;
	return -1;
}

static int unknown_key(struct spec_ctx *c, const cJSON *item)
{
	const char *names[SF_COUNT + N_SETTINGS];
	size_t n = 0;
	for (int f = 0; f < SF_COUNT; f++)
		names[n++] = spec_fields[f].name;
	for (size_t i = 0; i < N_SETTINGS; i++)
		names[n++] = setting_keys[i];
	const char *near = spec_suggest(item->string, names, n);
	if (near)
		return spec_fail_node(c, item, 1, "unknown key \"%s\" (did you mean \"%s\"?)",
				      item->string, near);
	return spec_fail_node(c, item, 1, "unknown key \"%s\" (`man fgobench-sweep` lists the keys)",
			      item->string);
}

static int push(struct spec_ctx *c, struct field_values *fv, long v)
{
	if (fv->n >= SPEC_MAX_CONFIGS)
		return spec_fail_node(c, fv->node, 0, "too many values (more than %d)",
				      SPEC_MAX_CONFIGS);
	if ((fv->n & (fv->n - 1)) == 0) { /* grow at powers of two */
		long *bigger = realloc(fv->v, sizeof *bigger * (fv->n ? fv->n * 2 : 1));
		if (!bigger)
			return spec_fail(c, "out of memory reading the spec");
		fv->v = bigger;
	}
	fv->v[fv->n++] = v;
	return FGO_OK;
}

/* An "algorithm" value that is no index: ALGO_CHOICE, the shot chosen later. */
#define SPEC_ALGO_CHOICE (-1L)

/* One scalar: an integer, an algorithm name (its registry index, or
 * SPEC_ALGO_CHOICE) or a dtype. */
static int read_scalar(struct spec_ctx *c, enum spec_field f, const char *key, const cJSON *v,
		       long *out)
{
	if (f == SF_ALGORITHM) {
		const char *name;
		int rc = spec_json_algorithm(c, v, key, &name);
		if (rc)
			return rc;
		if (!strcmp(name, ALGO_CHOICE))
			*out = SPEC_ALGO_CHOICE;
		for (long i = 0; fgo_algos[i]; i++)
			if (strcmp(fgo_algos[i]->name, name) == 0)
				*out = i;
		return FGO_OK;
	}
	if (f == SF_DTYPE) {
		enum fgo_dtype t;
		int rc = spec_json_dtype(c, v, key, &t);
		*out = (long)t;
		return rc;
	}
	return spec_json_int(c, v, key, f, out);
}

/* {"from": a, "to": b, "mul": m} or {"from": a, "to": b, "step": s}. */
static int read_range(struct spec_ctx *c, enum spec_field f, const char *key, const cJSON *obj,
		      struct field_values *fv)
{
	const cJSON *from = NULL, *to = NULL, *mul = NULL, *step = NULL, *item;
	long a, b, m = 0, s = 0;
	int rc;

	if (f == SF_ALGORITHM || f == SF_DTYPE)
		return spec_fail_node(c, obj, 0, "\"%s\" takes a name or a list of names, not a range",
				      key);
	cJSON_ArrayForEach(item, obj) {
		if (strcmp(item->string, "from") == 0)
			from = item;
		else if (strcmp(item->string, "to") == 0)
			to = item;
		else if (strcmp(item->string, "mul") == 0)
			mul = item;
		else if (strcmp(item->string, "step") == 0)
			step = item;
		else
			return spec_fail_node(c, item, 1,
					      "unknown range key \"%s\" (a range is {\"from\", \"to\", \"mul\" or \"step\"})",
					      item->string);
	}
	if (!from || !to || !!mul == !!step)
		return spec_fail_node(c, obj, 0,
				      "a range for \"%s\" needs \"from\", \"to\" and one of \"mul\" or \"step\"",
				      key);
	if ((rc = spec_json_int(c, from, key, f, &a)) || (rc = spec_json_int(c, to, key, f, &b)))
		return rc;
	if (b < a)
		return spec_fail_node(c, to, 0, "range for \"%s\" ends (%ld) before it starts (%ld)", key,
				      b, a);
	if (mul && (!cJSON_IsNumber(mul) || mul->valuedouble < 2 || mul->valuedouble > 1024 ||
		    mul->valuedouble != (double)(long)mul->valuedouble))
		return spec_fail_node(c, mul, 0, "\"mul\" must be an integer from 2 to 1024");
	/* bounds before the cast: a double past long's range has no long value */
	if (step && (!cJSON_IsNumber(step) || step->valuedouble < 1 ||
		     step->valuedouble > (double)spec_fields[f].max ||
		     step->valuedouble != (double)(long)step->valuedouble))
		return spec_fail_node(c, step, 0, "\"step\" must be a positive integer up to %ld",
				      spec_fields[f].max);
	if (mul)
		m = (long)mul->valuedouble;
	else
		s = (long)step->valuedouble;
	if (a == 0 && m)
		return spec_fail_node(c, from, 0, "a \"mul\" range cannot start at 0");
	for (long x = a; x <= b; x = m ? x * m : x + s)
		if ((rc = push(c, fv, x)))
			return rc;
	return FGO_OK;
}

static int read_values(struct spec_ctx *c, enum spec_field f, struct field_values *fv)
{
	const cJSON *node = fv->node, *item;
	const char *key = node->string;
	long v;
	int rc;

	if (cJSON_IsObject(node))
		return read_range(c, f, key, node, fv);
	if (!cJSON_IsArray(node)) {
		if ((rc = read_scalar(c, f, key, node, &v)))
			return rc;
		return push(c, fv, v);
	}
	if (!cJSON_GetArraySize(node))
		return spec_fail_node(c, node, 0, "\"%s\" is an empty list (give at least one value)",
				      key);
	cJSON_ArrayForEach(item, node) {
		if ((rc = read_scalar(c, f, key, item, &v)) || (rc = push(c, fv, v)))
			return rc;
	}
	return FGO_OK;
}

static int read_shapes(struct spec_ctx *c, struct block *b)
{
	const cJSON *s, *d;
	static const enum spec_field dims[3] = { SF_M, SF_N, SF_K };

	if (!cJSON_IsArray(b->shapes) || !cJSON_GetArraySize(b->shapes))
		return spec_fail_node(c, b->shapes, 0,
				      "\"shapes\" expects a non-empty list of [M, N, K] triples");
	b->nshapes = (size_t)cJSON_GetArraySize(b->shapes);
	b->shape = calloc(b->nshapes, sizeof *b->shape);
	if (!b->shape)
		return spec_fail(c, "out of memory reading the spec");
	size_t i = 0;
	cJSON_ArrayForEach(s, b->shapes) {
		if (!cJSON_IsArray(s) || cJSON_GetArraySize(s) != 3)
			return spec_fail_node(c, s, 0, "a shape is a list [M, N, K], got %s",
					      spec_json_type(s));
		int j = 0;
		cJSON_ArrayForEach(d, s) {
			int rc = spec_json_int(c, d, spec_fields[dims[j]].name, dims[j], &b->shape[i][j]);
			if (rc)
				return rc;
			j++;
		}
		i++;
	}
	return FGO_OK;
}

/* "kernel": the manifest of a user kernel (a path relative to the spec),
 * read and registered; every configuration then runs it. The --kernel flag
 * wins over it. */
static int read_kernel(struct spec_ctx *c, const cJSON *item)
{
	char path[PATH_MAX], err[1024];
	if (!cJSON_IsString(item) || !item->valuestring[0])
		return spec_fail_node(c, item, 0, "\"kernel\" expects the path of a kernel's manifest"
				      " (relative to the spec), got %s", spec_json_type(item));
	if (c->set && c->set->kernel)
		return FGO_OK;
	if (manifest_path_join(c->path, item->valuestring, path, sizeof path) != FGO_OK)
		return spec_fail_node(c, item, 0, "\"kernel\": the path is too long");
	if (access(path, R_OK) != 0)
		return spec_fail_node(c, item, 0, "cannot read the kernel's manifest %s: %s (the path"
				      " is relative to the spec's folder)", path, strerror(errno));
	if (manifest_use(path, &c->kernel, err, sizeof err) != FGO_OK) {
		snprintf(c->err, c->errlen, "%s", err); /* positioned in the manifest */
		return FGO_EUSAGE;
	}
	return FGO_OK;
}

/* With a user kernel the spec gives only problems (dtype, world, M, N, K,
 * shapes): the algorithm is the kernel and its tunables are the
 * manifest's. A spec naming a kernel and other fields is refused; under
 * --kernel they are left out (the spec may be one written for the
 * built-in families). */
static int is_problem_field(int f)
{
	return f == SF_DTYPE || f == SF_WORLD || f == SF_M || f == SF_N || f == SF_K;
}

static int check_kernel_fields(struct spec_ctx *c, const struct block *b)
{
	if (!c->kernel || (c->set && c->set->kernel))
		return FGO_OK;
	for (int f = 0; f < SF_COUNT; f++)
		if (b->f[f].node && !is_problem_field(f))
			return spec_fail_node(c, b->f[f].node, 1,
					      "\"%s\" does not apply to the kernel of \"kernel\" (%s):"
					      " its tunables are its manifest's; give only dtype, world,"
					      " M, N, K or shapes", b->f[f].node->string,
					      c->kernel->algorithm);
	return FGO_OK;
}

/* Reads the settings and the tunables of obj into b (on top of what b
 * already holds from the top level). */
static int read_object(struct spec_ctx *c, const cJSON *obj, struct block *b, int top,
		       const cJSON **blocks)
{
	const cJSON *item;
	cJSON_ArrayForEach(item, obj) {
		int f = field_by_key(item->string), s = setting_by_key(item->string);
		if (f >= 0) {
			b->f[f].node = item;
			continue;
		}
		if (s < 0)
			return unknown_key(c, item);
		const char *key = setting_keys[s];
		if (strcmp(key, "shapes") == 0) {
			b->shapes = item;
			continue;
		}
		if (!top)
			return spec_fail_node(c, item, 1, "\"%s\" belongs at the top level, not in a block",
					      item->string);
		if (strcmp(key, "blocks") == 0) {
			if (!cJSON_IsArray(item) || !cJSON_GetArraySize(item))
				return spec_fail_node(c, item, 0, "\"blocks\" expects a non-empty list of objects");
			*blocks = item;
		} else if (strcmp(key, "name") == 0 || strcmp(key, "description") == 0) {
			if (!cJSON_IsString(item))
				return spec_fail_node(c, item, 0, "\"%s\" expects a string, got %s", key,
						      spec_json_type(item));
			if (strcmp(key, "name") == 0)
				snprintf(c->plan->name, sizeof c->plan->name, "%s", item->valuestring);
		} else if (strcmp(key, "validate") == 0) {
			if (!cJSON_IsBool(item))
				return spec_fail_node(c, item, 0, "\"validate\" expects true or false, got %s",
						      spec_json_type(item));
			c->plan->validate = cJSON_IsTrue(item);
		} else if (strcmp(key, "baseline") == 0) {
			/* when the vendor baseline is timed: once per problem, or by
			 * every run in turns with its fused launches (the nightly
			 * gate's control, from the same moments of the machine) */
			int once = cJSON_IsString(item) && !strcmp(item->valuestring, "once");
			int inter = cJSON_IsString(item) && !strcmp(item->valuestring, "interleaved");
			if (!once && !inter)
				return spec_fail_node(c, item, 0,
						      "\"baseline\" expects \"once\" (timed once per problem,"
						      " the default) or \"interleaved\" (every run times its own,"
						      " in turns with the fused launches), got %s%s%s",
						      cJSON_IsString(item) ? "\"" : spec_json_type(item),
						      cJSON_IsString(item) ? item->valuestring : "",
						      cJSON_IsString(item) ? "\"" : "");
			c->plan->interleave_baseline = inter;
		} else if (strcmp(key, "kernel") == 0) {
			int rc = read_kernel(c, item);
			if (rc)
				return rc;
		} else if (strcmp(key, "config") == 0) {
			/* where the tile of a configuration that gives none comes from */
			if (!cJSON_IsString(item) || fgo_pick_parse(item->valuestring, &c->plan->pick))
				return spec_fail_node(c, item, 0,
						      "\"config\" expects \"table\" (the defaults table, the"
						      " default) or \"auto\" (this machine's cost model), got %s%s%s",
						      cJSON_IsString(item) ? "\"" : spec_json_type(item),
						      cJSON_IsString(item) ? item->valuestring : "",
						      cJSON_IsString(item) ? "\"" : "");
		} else if (strcmp(key, "auto_trials") == 0) {
			/* how many of config auto's ranked configurations run at a shape */
			double d = item->valuedouble;
			if (!cJSON_IsNumber(item) || d < 1 || d > FGO_AUTO_TRIALS_MAX || d != (double)(long)d)
				return spec_fail_node(c, item, 0,
						      "\"auto_trials\" expects an integer from 1 (the ranking's"
						      " first alone) to %d", FGO_AUTO_TRIALS_MAX);
			c->plan->auto_trials = (int)d;
		} else {
			double d = item->valuedouble;
			int min = strcmp(key, "warmup") == 0 ? 0 : 1;
			if (!cJSON_IsNumber(item) || d < min || d > 1000000 || d != (double)(long)d)
				return spec_fail_node(c, item, 0, "\"%s\" expects an integer from %d to 1000000",
						      key, min);
			*(strcmp(key, "warmup") == 0 ? &c->plan->warmup : &c->plan->iterations) = (int)d;
		}
	}
	return FGO_OK;
}

static void block_free(struct block *b)
{
	for (int f = 0; f < SF_COUNT; f++)
		free(b->f[f].v);
	free(b->shape);
}

/* Adds the cartesian product of b's values, fastest field last. */
static int expand(struct spec_ctx *c, const struct block *b, struct fgo_config *cfg, int f,
		  size_t *count)
{
	if (f == SF_COUNT) {
		struct fgo_config one = *cfg;
		spec_apply_overrides(c, &one);
		if (++*count > SPEC_MAX_CONFIGS)
			return spec_fail(c, "the spec expands to more than %d configurations (split it)",
					 SPEC_MAX_CONFIGS);
		return spec_add(c, &one);
	}
	if ((b->shape && (f == SF_N || f == SF_K)) || (c->kernel && !is_problem_field(f)))
		return expand(c, b, cfg, f + 1, count);
	if (b->shape && f == SF_M) {
		for (size_t i = 0; i < b->nshapes; i++) {
			cfg->m = b->shape[i][0];
			cfg->n = b->shape[i][1];
			cfg->k = b->shape[i][2];
			int rc = expand(c, b, cfg, f + 1, count);
			if (rc)
				return rc;
		}
		return FGO_OK;
	}
	const struct field_values *fv = &b->f[f];
	if (!fv->n)
		return expand(c, b, cfg, f + 1, count);
	for (size_t i = 0; i < fv->n; i++) {
		if (f == SF_ALGORITHM)
			snprintf(cfg->algorithm, sizeof cfg->algorithm, "%s",
				 fv->v[i] == SPEC_ALGO_CHOICE ? ALGO_CHOICE : fgo_algos[fv->v[i]]->name);
		else
			spec_field_put(cfg, (enum spec_field)f, fv->v[i]);
		int rc = expand(c, b, cfg, f + 1, count);
		if (rc)
			return rc;
	}
	return FGO_OK;
}

/* A block needs an algorithm and a shape, unless flags give them. */
static int check_complete(struct spec_ctx *c, const struct block *b, const cJSON *where)
{
	static const enum spec_field required[] = { SF_ALGORITHM, SF_M, SF_N, SF_K };
	for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
		enum spec_field f = required[i];
		if (b->f[f].node || spec_field_given(c->set, f) || (f != SF_ALGORITHM && b->shapes) ||
		    (f == SF_ALGORITHM && c->kernel))
			continue;
		const char *hint = f == SF_ALGORITHM ? "add \"algorithm\" or pass --algorithm"
						     : "add it, \"shapes\", or pass the flag";
		if (where == c->root)
			return spec_fail(c, "missing \"%s\" (%s)", spec_fields[f].name, hint);
		return spec_fail_node(c, where, 0, "this block has no \"%s\" (%s)", spec_fields[f].name,
				      hint);
	}
	return FGO_OK;
}

static int has_dims(const struct block *b)
{
	return b->f[SF_M].node || b->f[SF_N].node || b->f[SF_K].node;
}

/* "shapes" and M/N/K in the same object contradict each other. */
static int check_shapes(struct spec_ctx *c, const struct block *b)
{
	if (!b->shapes || !has_dims(b))
		return FGO_OK;
	const cJSON *dim = b->f[SF_M].node ? b->f[SF_M].node
					   : b->f[SF_N].node ? b->f[SF_N].node : b->f[SF_K].node;
	return spec_fail_node(c, dim, 1, "give either \"shapes\" or \"%s\", not both", dim->string);
}

/* Expands one block: obj's tunables over the top level's (a block's
 * "shapes" replaces inherited M/N/K and the other way round). */
static int run_block(struct spec_ctx *c, const struct block *top, const cJSON *obj, size_t *count)
{
	struct block own = { 0 }, b = { 0 };
	const cJSON *none = NULL;
	int rc = FGO_OK;

	if (obj != c->root && ((rc = read_object(c, obj, &own, 0, &none)) ||
			       (rc = check_shapes(c, &own))))
		return rc;
	for (int f = 0; f < SF_COUNT; f++)
		b.f[f].node = own.f[f].node ? own.f[f].node : top->f[f].node;
	b.shapes = top->shapes;
	if (own.shapes) {
		b.shapes = own.shapes;
		b.f[SF_M].node = b.f[SF_N].node = b.f[SF_K].node = NULL;
	} else if (has_dims(&own)) {
		b.shapes = NULL;
	}
	if ((rc = check_complete(c, &b, obj)) || (rc = check_kernel_fields(c, &b)))
		goto out;
	for (int f = 0; f < SF_COUNT; f++)
		if (b.f[f].node && (rc = read_values(c, (enum spec_field)f, &b.f[f])))
			goto out;
	if (b.shapes && (rc = read_shapes(c, &b)))
		goto out;
	struct fgo_config cfg = *c->base;
	rc = expand(c, &b, &cfg, 0, count);
out:
	block_free(&b);
	return rc;
}

int spec_sweep(struct spec_ctx *c)
{
	struct block top = { 0 };
	const cJSON *blocks = NULL, *obj;
	size_t count = 0;
	int rc = read_object(c, c->root, &top, 1, &blocks);

	if (rc || (rc = check_shapes(c, &top)))
		return rc;
	if (!blocks)
		return run_block(c, &top, c->root, &count);
	cJSON_ArrayForEach(obj, blocks) {
		if (!cJSON_IsObject(obj))
			return spec_fail_node(c, obj, 0, "a block is an object of tunables, got %s",
					      spec_json_type(obj));
		if ((rc = run_block(c, &top, obj, &count)))
			return rc;
	}
	return FGO_OK;
}
