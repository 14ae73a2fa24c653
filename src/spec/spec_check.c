/* spec_check.c: what the JSON parser lets through but a spec must not
 * hold, checked around cJSON: a NUL character (\u0000) in a string, which
 * cJSON keeps but every C reader after it stops at ("all_scatter\u0000;
 * evil" would read as all_scatter); nesting deeper than cJSON's limit,
 * which cJSON reports as a generic syntax error; and a key given twice in
 * one object, where cJSON keeps both and the readers would take one
 * silently. Keys are compared as the readers compare them (ignoring
 * case), so {"M": 64, "m": 128} is a duplicate too. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fgo.h"
#include "spec/spec_ctx.h"

#ifndef CJSON_NESTING_LIMIT
#define CJSON_NESTING_LIMIT 1000
#endif

int spec_check_text(struct spec_ctx *c)
{
	const char *t = c->text;
	int depth = 0, in_string = 0;
	for (size_t i = 0; t[i]; i++) {
		if (in_string) {
			if (t[i] == '"')
				in_string = 0;
			else if (t[i] == '\\' && t[i + 1] == 'u' && strncmp(t + i + 2, "0000", 4) == 0)
				return spec_fail_at(c, i, "a NUL character (\\u0000) in a string: names"
						    " and values are text without NULs");
			else if (t[i] == '\\' && t[i + 1])
				i++;
			continue;
		}
		if (t[i] == '"') {
			in_string = 1;
		} else if (t[i] == '{' || t[i] == '[') {
			if (++depth > CJSON_NESTING_LIMIT)
				return spec_fail_at(c, i, "nested deeper than %d levels of { and [ (the"
						    " limit of the JSON reader; a spec needs 4)",
						    CJSON_NESTING_LIMIT);
		} else if (t[i] == '}' || t[i] == ']') {
			depth--;
		}
	}
	return FGO_OK;
}

struct key {
	const cJSON *node;
	size_t order; /* place in the object, so the later of two equal keys is the one named */
};

static int by_name(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	int d = strcasecmp(x->node->string, y->node->string);
	return d ? d : (x->order > y->order) - (x->order < y->order);
}

static int check_object(struct spec_ctx *c, const cJSON *obj)
{
	size_t n = 0, i = 0;
	for (const cJSON *ch = obj->child; ch; ch = ch->next)
		n++;
	if (n < 2)
		return FGO_OK;
	struct key *keys = malloc(n * sizeof *keys);
	if (!keys)
		return spec_fail(c, "out of memory checking the keys");
	for (const cJSON *ch = obj->child; ch; ch = ch->next, i++)
		keys[i] = (struct key){ ch, i };
	qsort(keys, n, sizeof *keys, by_name);
	const cJSON *first = NULL, *again = NULL;
	for (i = 1; i < n && !again; i++)
		if (strcasecmp(keys[i].node->string, keys[i - 1].node->string) == 0) {
			first = keys[i - 1].node;
			again = keys[i].node;
		}
	free(keys);
	if (!again)
		return FGO_OK;
	int line, col;
	spec_pos_line_col(c->text, spec_pos_find(c->text, c->root, first, 1), &line, &col);
	return spec_fail_node(c, again, 1, "duplicate key \"%s\" (already given as \"%s\" at %d:%d;"
			      " give each key once)", again->string, first->string, line, col);
}

/* Depth is bounded by spec_check_text's limit, so recursion is safe. */
static int check_node(struct spec_ctx *c, const cJSON *node)
{
	int rc = cJSON_IsObject(node) ? check_object(c, node) : FGO_OK;
	for (const cJSON *ch = node->child; ch && rc == FGO_OK; ch = ch->next)
		rc = check_node(c, ch);
	return rc;
}

int spec_check_tree(struct spec_ctx *c)
{
	return check_node(c, c->root);
}
