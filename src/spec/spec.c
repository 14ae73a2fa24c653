/* spec.c: reads a sweep spec or dataset (see spec.h), picks the reader by
 * content (spec_readers.h), validates every item and hashes the plan. What
 * the readers share (positioned errors, field access, the deduplicated
 * plan) is spec_ctx.c, below them. */
#include "spec/spec.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "algo.h"
#include "algos/kit.h"
#include "fgo.h"
#include "gpu/gpu_shape.h"
#include "spec/defaults.h"
#include "spec/spec_manifest.h"
#include "spec/spec_readers.h"

const char *const spec_keys[] = {
	"name", "description", "iterations", "warmup", "validate", "blocks", "baseline",
	"algorithm", "dtype", "world", "m", "n", "k", "shapes",
	"blk_m", "blk_n", "blk_k", "num_stages", "num_warps", "mma", "gsize_m",
	"gemm_sms", "comm_sms", "comm_blk_m", "comm_blk_n", "split_k", "deterministic", "config",
	"cluster", "kernel", "auto_trials", NULL,
};

int fgo_pick_parse(const char *s, enum fgo_pick *pick)
{
	if (!strcmp(s, "table"))
		*pick = FGO_PICK_TABLE;
	else if (!strcmp(s, "auto"))
		*pick = FGO_PICK_MODEL;
	else
		return -1;
	return 0;
}

void plan_fit_target(struct fgo_plan *plan, const char *arch)
{
	for (size_t i = 0; i < plan->count; i++) {
		struct fgo_plan_item *it = &plan->items[i];
		struct fgo_config best = it->cfg;
		struct gpu_shape shape;
		char why[FGO_REASON_MAX];
		int row, changed = 0;
		it->default_how = DEFAULTS_GIVEN;
		it->default_row = -1;
		/* the best core only where the item's own tile suits it (a spec's
		 * 32-row tile stays on mma.sync, where it is valid) */
		if (kit_fit_core(&best, arch)) {
			kit_fit_tile(&best);
			if (config_validate(&best, why, sizeof why) ||
			    gpu_shape_check(&best, arch, 0, &shape, why, sizeof why) != FGO_OK)
				best = it->cfg;
			else
				changed = 1;
		}
		/* then the tile of that core for this shape, where none was given */
		it->default_how = (unsigned char)defaults_fit(&best, arch, &row);
		it->default_row = (short)row;
		if (!changed && it->default_how != DEFAULTS_TABLE)
			continue;
		it->cfg = best;
		it->valid = !config_validate(&it->cfg, it->reason, sizeof it->reason);
		if (it->valid)
			it->reason[0] = 0;
	}
}

int config_takes_units(const struct fgo_config *cfg)
{
	const struct fgo_algo *a = algo_find(cfg->algorithm);
	return a && a->comm_ctas == FGO_COMM_CTAS_REQUIRED && !(cfg->given & FGO_GIVEN_SMS) &&
	       cfg->gemm_sms == 0;
}

int config_validate_planned(const struct fgo_config *cfg, char *reason, size_t len)
{
	struct fgo_config probe = *cfg;
	if (config_takes_units(&probe))
		probe.gemm_sms = 1; /* any count: the device's is >= 1 */
	return config_validate(&probe, reason, len);
}

size_t plan_fit_units(struct fgo_plan *plan, int units)
{
	size_t n = 0;
	if (units < 1)
		return 0;
	for (size_t i = 0; i < plan->count; i++) {
		struct fgo_plan_item *it = &plan->items[i];
		if (!config_takes_units(&it->cfg))
			continue;
		it->cfg.gemm_sms = units;
		it->cfg.comm_sms = 0;
		it->valid = !config_validate(&it->cfg, it->reason, sizeof it->reason);
		if (it->valid)
			it->reason[0] = 0;
		n++;
	}
	return n;
}

void plan_free(struct fgo_plan *plan)
{
	free(plan->items);
	free(plan->text);
	memset(plan, 0, sizeof *plan);
}

/* Invalid items by reason, then in plan order (qsort of item pointers). */
static int by_reason(const void *a, const void *b)
{
	const struct fgo_plan_item *x = *(const struct fgo_plan_item *const *)a;
	const struct fgo_plan_item *y = *(const struct fgo_plan_item *const *)b;
	int c = strcmp(x->reason, y->reason);
	return c ? c : (x > y) - (x < y);
}

/* A reason's group: more items first, then the one met first in the plan. */
struct reason_group {
	struct plan_reason r;
	const struct fgo_plan_item *first;
};

static int by_count(const void *a, const void *b)
{
	const struct reason_group *x = a, *y = b;
	if (x->r.count != y->r.count)
		return x->r.count < y->r.count ? 1 : -1;
	return (x->first > y->first) - (x->first < y->first);
}

size_t plan_invalid_reasons(const struct fgo_plan *plan, struct plan_reason *out, size_t max,
			    size_t *invalid)
{
	size_t bad = 0, groups = 0;
	for (size_t i = 0; i < plan->count; i++)
		bad += !plan->items[i].valid;
	if (invalid)
		*invalid = bad;
	/* sorted, so a plan of many thousand invalid items stays n log n */
	const struct fgo_plan_item **items = malloc((bad + 1) * sizeof *items);
	struct reason_group *g = malloc((bad + 1) * sizeof *g);
	if (!items || !g) {
		free(items);
		free(g);
		return 0;
	}
	for (size_t i = 0, n = 0; i < plan->count; i++)
		if (!plan->items[i].valid)
			items[n++] = &plan->items[i];
	qsort(items, bad, sizeof *items, by_reason);
	for (size_t i = 0; i < bad; i++) {
		if (groups && !strcmp(g[groups - 1].r.reason, items[i]->reason)) {
			g[groups - 1].r.count++;
			continue;
		}
		g[groups].r.reason = items[i]->reason;
		g[groups].r.count = 1;
		g[groups++].first = items[i];
	}
	qsort(g, groups, sizeof *g, by_count);
	for (size_t i = 0; i < groups && i < max; i++)
		out[i] = g[i].r;
	free(items);
	free(g);
	return groups;
}

/* "name=value;" for every flag that overrides the file, in field order, so
 * the same file swept with other flags is another sweep (for --resume). */
static size_t overrides_text(const struct spec_ctx *c, char *out, size_t len)
{
	size_t n = 0;
	out[0] = 0;
	for (int f = 0; f < SF_COUNT && n < len; f++) {
		if (!spec_field_given(c->set, (enum spec_field)f))
			continue;
		if (f == SF_ALGORITHM)
			n += (size_t)snprintf(out + n, len - n, "algorithm=%s;", c->base->algorithm);
		else if (f == SF_DTYPE)
			n += (size_t)snprintf(out + n, len - n, "dtype=%s;", dtype_name(c->base->dtype));
		else
			n += (size_t)snprintf(out + n, len - n, "%s=%ld;", spec_fields[f].name,
					      spec_field_get(c->base, (enum spec_field)f));
	}
	if (c->set && c->set->kernel && c->kernel && n < len)
		n += (size_t)snprintf(out + n, len - n, "kernel=%s@%s;", c->kernel->manifest,
				      c->kernel->hash);
	return n < len ? n : len - 1;
}

static void plan_hash(const struct spec_ctx *c, const char *text)
{
	char over[1024];
	uint64_t h = fnv1a64(text, strlen(text));
	size_t n = overrides_text(c, over, sizeof over);
	if (n) {
		/* continue the same FNV-1a stream over "\n#overrides " + the list */
		static const char sep[] = "\n#overrides ";
		const char *parts[2] = { sep, over };
		for (int i = 0; i < 2; i++)
			for (const unsigned char *p = (const unsigned char *)parts[i]; *p; p++) {
				h ^= *p;
				h *= 0x100000001b3ull;
			}
	}
	snprintf(c->plan->hash, sizeof c->plan->hash, "%016llx", (unsigned long long)h);
}

/* The file's base name without its extension. */
static void default_name(const char *path, char *out, size_t len)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	const char *dot = strrchr(b, '.');
	size_t n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
	snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), b);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

/* Where text has a comma that only whitespace separates from the '}' or
 * ']' after it (JSON allows none; cJSON then reports the end of the text
 * or the bracket): its offset + 1, or 0 when there is none. Strings are
 * skipped, with their escapes. */
static size_t trailing_comma(const char *text)
{
	for (const char *p = text; *p; p++) {
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				return 0;
			continue;
		}
		if (*p != ',')
			continue;
		const char *q = p + 1;
		while (*q && isspace((unsigned char)*q))
			q++;
		if (*q == '}' || *q == ']')
			return (size_t)(p - text) + 1;
	}
	return 0;
}

int spec_parse_json(struct spec_ctx *c, cJSON **root)
{
	const char *end = NULL;
	*root = NULL;
	if (spec_check_text(c))
		return FGO_EUSAGE;
	*root = cJSON_ParseWithOpts(c->text, &end, 1);
	if (*root)
		return FGO_OK;
	size_t off = end && end >= c->text ? (size_t)(end - c->text) : 0;
	size_t comma = trailing_comma(c->text);
	/* a comma the parser stopped at or after is the error (one before
	 * it that the parser passed cannot be: it would have stopped there) */
	if (comma && comma - 1 <= off) {
		size_t at = comma;
		while (isspace((unsigned char)c->text[at]))
			at++;
		return spec_fail_at(c, comma - 1,
				    "malformed JSON: a comma before '%c' with nothing after it (JSON allows"
				    " no trailing comma: delete it)",
				    c->text[at]);
	}
	size_t rest = off;
	while (c->text[rest] && isspace((unsigned char)c->text[rest]))
		rest++;
	if (!c->text[rest])
		return spec_fail_at(c, off, "malformed JSON: the text ends early (an unclosed { [ or \"?)");
	return spec_fail_at(c, off, "malformed JSON near '%c' (check for a missing or extra comma, quote or bracket)",
			    isprint((unsigned char)c->text[off]) ? c->text[off] : '?');
}

static int fill(struct spec_ctx *c)
{
	const char *t = c->text;
	if ((unsigned char)t[0] == 0xef && (unsigned char)t[1] == 0xbb && (unsigned char)t[2] == 0xbf)
		t += 3;
	while (*t && isspace((unsigned char)*t))
		t++;
	if (!*t)
		return spec_fail(c, "the file is empty (expected a sweep spec, a dataset list or a CSV with a header)");
	if (ends_with(c->path, ".csv") || (*t != '{' && *t != '[' && !ends_with(c->path, ".json")))
		return spec_dataset_csv(c);
	cJSON *root;
	int rc = spec_parse_json(c, &root);
	if (rc)
		return rc;
	c->root = root;
	if ((rc = spec_check_tree(c)))
		;
	else if (cJSON_IsObject(root))
		rc = spec_sweep(c);
	else if (cJSON_IsArray(root))
		rc = spec_dataset_json(c);
	else
		rc = spec_fail_node(c, root, 0, "expected a sweep spec (a JSON object) or a dataset (a list), got %s",
				    spec_json_type(root));
	cJSON_Delete(root);
	c->root = NULL;
	return rc;
}

int spec_parse(const char *path, const char *text, const struct fgo_config *base,
	       const struct fgo_config_mask *base_set, struct fgo_plan *plan, char *err, size_t len)
{
	struct fgo_config defaults;
	config_defaults(&defaults);
	memset(plan, 0, sizeof *plan);
	plan->iterations = 10;
	plan->warmup = 2;
	plan->validate = 1;
	default_name(path, plan->name, sizeof plan->name);
	struct spec_ctx c = {
		.path = path, .text = text, .base = base ? base : &defaults,
		.set = base ? base_set : NULL, .plan = plan, .err = err, .errlen = len,
	};
	if (len)
		err[0] = 0;
	int rc = FGO_OK;
	/* --kernel: read (and registered) before the file, whose readers expand it */
	if (base_set && base_set->kernel && manifest_use(base_set->kernel, &c.kernel, err, len))
		rc = FGO_EUSAGE;
	if (rc == FGO_OK)
		rc = fill(&c);
	free(c.slots);
	if (rc == FGO_OK && plan->count == 0)
		rc = spec_fail(&c, "no configurations (the spec expands to nothing)");
	if (rc == FGO_OK && !(plan->text = strdup(text)))
		rc = spec_fail(&c, "out of memory");
	if (rc != FGO_OK) {
		plan_free(plan);
		return FGO_EUSAGE;
	}
	for (size_t i = 0; i < plan->count; i++) {
		struct fgo_plan_item *it = &plan->items[i];
		it->valid = !config_validate(&it->cfg, it->reason, sizeof it->reason);
		if (it->valid)
			it->reason[0] = 0;
		if (it->cfg.world > plan->max_world)
			plan->max_world = it->cfg.world;
	}
	plan_hash(&c, text);
	return FGO_OK;
}

int spec_parse_n(const char *path, const char *text, size_t n, const struct fgo_config *base,
		 const struct fgo_config_mask *base_set, struct fgo_plan *plan, char *err,
		 size_t len)
{
	/* Everything after a NUL would be invisible to the readers. */
	const char *nul = memchr(text, 0, n);
	if (nul) {
		int line, col;
		memset(plan, 0, sizeof *plan);
		spec_pos_line_col(text, (size_t)(nul - text), &line, &col);
		snprintf(err, len, "%s:%d:%d: a NUL byte in the file (a spec or dataset is text;"
			 " is this the right file?)", path, line, col);
		return FGO_EUSAGE;
	}
	return spec_parse(path, text, base, base_set, plan, err, len);
}

#define SPEC_MAX_BYTES (64L << 20)

int spec_load(const char *path, const struct fgo_config *base,
	      const struct fgo_config_mask *base_set, struct fgo_plan *plan, char *err, size_t len)
{
	memset(plan, 0, sizeof *plan);
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, len, "%s: cannot read: %s", path, strerror(errno));
		return FGO_EUSAGE;
	}
	size_t cap = 65536, n = 0;
	char *text = malloc(cap);
	while (text) {
		n += fread(text + n, 1, cap - 1 - n, f);
		if (n < cap - 1 || (long)cap > SPEC_MAX_BYTES)
			break;
		char *bigger = realloc(text, cap * 2);
		if (!bigger) {
			free(text);
			text = NULL;
			break;
		}
		text = bigger;
		cap *= 2;
	}
	int bad = ferror(f), saved = errno;
	fclose(f);
	if (!text || bad || (long)n >= SPEC_MAX_BYTES) {
		if (bad)
			snprintf(err, len, "%s: cannot read: %s", path, strerror(saved));
		else
			snprintf(err, len, "%s: cannot read: %s", path,
				 text ? "larger than 64 MiB (split it)" : "out of memory");
		free(text);
		return FGO_EUSAGE;
	}
	text[n] = 0;
	int rc = spec_parse_n(path, text, n, base, base_set, plan, err, len);
	free(text);
	return rc;
}
