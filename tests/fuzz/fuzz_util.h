/* fuzz_util.h: what the spec and dataset harnesses share: the input as a
 * C string, configuration flags picked by one byte, and spec_parse run
 * with the checks of spec.h's promises (a broken promise aborts, which
 * libFuzzer reports like a crash). Header-only: each harness is one file. */
#ifndef FGO_FUZZ_UTIL_H
#define FGO_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fgo.h"
#include "spec/spec.h"

/* Inputs past this are skipped: the readers' cost grows with the text, and
 * a big input only slows the search down. */
#define FUZZ_MAX_TEXT 65536

static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	if (size > FUZZ_MAX_TEXT)
		return NULL;
	char *text = malloc(size + 1);
	if (!text)
		return NULL;
	memcpy(text, data, size);
	text[size] = 0;
	return text;
}

/* Each bit of b gives one configuration flag, as `sweep --FLAG` would. */
static inline void fuzz_flags(uint8_t b, struct fgo_config *base, struct fgo_config_mask *set)
{
	config_defaults(base);
	memset(set, 0, sizeof *set);
	if (b & 1) {
		snprintf(base->algorithm, sizeof base->algorithm, "all_scatter");
		set->algorithm = 1;
	}
	if (b & 2) {
		base->dtype = FGO_BF16;
		set->dtype = 1;
	}
	if (b & 4) {
		base->world = 2;
		set->world = 1;
	}
	if (b & 8) {
		base->m = base->n = base->k = 64;
		set->m = set->n = set->k = 1;
	}
	if (b & 16) {
		base->blk_m = 32;
		set->blk_m = 1;
	}
	if (b & 32) {
		base->gemm_sms = 3;
		set->gemm_sms = 1;
	}
	if (b & 64) {
		base->comm_sms = 1;
		set->comm_sms = 1;
	}
	if (b & 128) {
		base->gsize_m = 4;
		set->gsize_m = 1;
	}
}

#define FUZZ_ASSERT(cond, ...)                                                   \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "fuzz check failed: %s: ", #cond);       \
			fprintf(stderr, __VA_ARGS__);                            \
			fputc('\n', stderr);                                     \
			abort();                                                 \
		}                                                                \
	} while (0)

/* Parses the n bytes of text as path (as spec_load would, so a NUL byte
 * is refused) and checks the result against spec.h. */
static inline void fuzz_check_parse(const char *path, const char *text, size_t n,
				    const struct fgo_config *base,
				    const struct fgo_config_mask *set)
{
	struct fgo_plan plan;
	char err[1024];
	memset(err, 'x', sizeof err);
	int rc = spec_parse_n(path, text, n, base, set, &plan, err, sizeof err);
	FUZZ_ASSERT(!memchr(text, 0, n) || (rc == FGO_EUSAGE && strstr(err, "a NUL byte")),
		    "a NUL byte in the input was not refused (rc %d)", rc);
	FUZZ_ASSERT(rc == FGO_OK || rc == FGO_EUSAGE, "spec_parse returned %d", rc);
	FUZZ_ASSERT(memchr(err, 0, sizeof err) != NULL, "the message is not NUL-terminated");
	if (rc != FGO_OK) {
		FUZZ_ASSERT(strncmp(err, path, strlen(path)) == 0 && err[strlen(path)] == ':',
			    "message \"%s\" does not start with the path", err);
		FUZZ_ASSERT(!strchr(err, '\n'), "message \"%s\" is not one line", err);
		FUZZ_ASSERT(plan.count == 0 && plan.items == NULL && plan.text == NULL,
			    "the plan is not empty after an error");
		return;
	}
	FUZZ_ASSERT(plan.count > 0 && plan.items, "an ok plan has no items");
	FUZZ_ASSERT(plan.text && strcmp(plan.text, text) == 0, "the plan's text is not the input");
	FUZZ_ASSERT(strlen(plan.hash) == 16, "hash \"%s\"", plan.hash);
	FUZZ_ASSERT(memchr(plan.name, 0, sizeof plan.name) != NULL, "name not terminated");
	for (size_t i = 0; i < plan.count; i++) {
		const struct fgo_plan_item *it = &plan.items[i];
		char key[FGO_KEY_MAX];
		FUZZ_ASSERT(it->valid == 0 || it->valid == 1, "item %zu valid=%d", i, it->valid);
		FUZZ_ASSERT(it->valid || it->reason[0], "invalid item %zu has no reason", i);
		FUZZ_ASSERT(memchr(it->reason, 0, sizeof it->reason) != NULL, "reason not terminated");
		FUZZ_ASSERT(it->cfg.world <= plan.max_world, "item %zu world %d > max_world %d", i,
			    it->cfg.world, plan.max_world);
		FUZZ_ASSERT(memchr(it->cfg.algorithm, 0, sizeof it->cfg.algorithm) != NULL,
			    "algorithm not terminated");
		config_key(&it->cfg, key, sizeof key);
		FUZZ_ASSERT(key[0] != 0, "item %zu has an empty key", i);
	}
	plan_free(&plan);
}

#endif
