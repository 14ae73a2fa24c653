/* spec_fixture.h: what the spec tests share: parse a string expecting
 * success, expect an error at a "PATH:LINE:COL" position, count the valid
 * items of a plan. Included by test_spec.c, test_spec_errors.c and
 * test_spec_hostile.c only. */
#ifndef FGO_SPEC_FIXTURE_H
#define FGO_SPEC_FIXTURE_H

#include <stdlib.h>

#include "fgo.h"
#include "spec/spec.h"
#include "testlib.h"

#define ERR_LEN 512

/* Parses text and checks it succeeded; the plan is the caller's to free. */
static inline int parse_ok(const char *id, const char *path, const char *text,
		    const struct fgo_config *base, const struct fgo_config_mask *mask,
		    struct fgo_plan *p)
{
	char err[ERR_LEN];
	int rc = spec_parse(path, text, base, mask, p, err, sizeof err);
	T_CHECK(id, rc == FGO_OK, "spec_parse returned %d: %s", rc, err);
	return rc == FGO_OK;
}

/* Parses text, expects FGO_EUSAGE with a message starting with where (e.g.
 * "t.json:3:7: ") and containing what, and an empty plan. */
static inline void expect_error(const char *id, const char *path, const char *text, const char *where,
			 const char *what)
{
	struct fgo_plan p;
	char err[ERR_LEN], name[128];
	memset(err, 'x', sizeof err);
	int rc = spec_parse(path, text, NULL, NULL, &p, err, sizeof err);
	snprintf(name, sizeof name, "%s-rc", id);
	T_EQ_INT(name, rc, FGO_EUSAGE);
	snprintf(name, sizeof name, "%s-position", id);
	T_CHECK(name, memchr(err, 0, sizeof err) && strncmp(err, where, strlen(where)) == 0,
		"expected the message to start with \"%s\", got \"%.*s\"", where, ERR_LEN - 1, err);
	snprintf(name, sizeof name, "%s-message", id);
	T_CHECK(name, memchr(err, 0, sizeof err) && strstr(err, what) != NULL,
		"expected \"%s\" in \"%.*s\"", what, ERR_LEN - 1, err);
	snprintf(name, sizeof name, "%s-one-line", id);
	T_CHECK(name, memchr(err, 0, sizeof err) && !strchr(err, '\n'), "message has a newline: \"%s\"",
		err);
	snprintf(name, sizeof name, "%s-plan-empty", id);
	T_CHECK(name, p.count == 0 && p.items == NULL && p.text == NULL,
		"plan after an error: %zu items, items %p, text %p", p.count, (void *)p.items,
		(void *)p.text);
	plan_free(&p);
}

static inline size_t count_valid(const struct fgo_plan *p)
{
	size_t n = 0;
	for (size_t i = 0; i < p->count; i++)
		n += p->items[i].valid != 0;
	return n;
}

#define SHAPE256 "\"M\": 256, \"N\": 256, \"K\": 256"

#endif
