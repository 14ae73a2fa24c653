/* spec_ctx.h: what the spec*.c files share and nobody else needs: the
 * parse context, errors with positions, the fields a file may set and the
 * plan under construction (deduplicated as it grows). Written by
 * spec_ctx.c, spec_pos.c and spec_check.c; below spec.c and the readers
 * (spec_readers.h), which use it. */
#ifndef FGO_SPEC_CTX_H
#define FGO_SPEC_CTX_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "spec/spec.h"

/* The configuration fields a spec, a dataset or a flag can set, in
 * expansion order (algorithm slowest ... comm_blk_n fastest). */
enum spec_field {
	SF_ALGORITHM, SF_DTYPE, SF_WORLD, SF_M, SF_N, SF_K, SF_BLK_M, SF_BLK_N, SF_BLK_K,
	SF_NUM_STAGES, SF_NUM_WARPS, SF_MMA, SF_GSIZE_M, SF_GEMM_SMS, SF_COMM_SMS,
	SF_COMM_BLK_M, SF_COMM_BLK_N, SF_SPLIT_K, SF_DETERMINISTIC, SF_CLUSTER,
	SF_COUNT
};

struct spec_field_info {
	const char *name; /* as documented: "BLK_M", "M", "num_stages" */
	long min, max;    /* bounds of a numeric value (hard errors outside) */
};
extern const struct spec_field_info spec_fields[SF_COUNT];

/* Largest expansion of one input; past it a spec is almost surely a typo. */
#define SPEC_MAX_CONFIGS 1000000

struct spec_ctx {
	const char *path;                  /* for messages */
	const char *text;                  /* the whole input, NUL-terminated */
	const cJSON *root;                 /* the parsed JSON (NULL for CSV) */
	const struct fgo_config *base;     /* flags and defaults: datasets start from it */
	const struct fgo_config_mask *set; /* fields given as flags: they win over the file */
	struct fgo_plan *plan;             /* items grow here */
	size_t cap;                        /* items allocated */
	size_t *slots;                     /* dedup table: item index + 1, 0 = empty */
	size_t nslots;                     /* power of two */
	char *err;
	size_t errlen;
	/* the user kernel every configuration runs (the spec's "kernel" or the
	 * --kernel flag; src/user/user.h), NULL for the built-in families */
	const struct fgo_user_kernel *kernel;
};

/* Errors: each writes one line to c->err and returns FGO_EUSAGE.
 * spec_fail_at: "PATH:LINE:COL: msg" for byte offset off of c->text;
 * spec_fail_node: the same at a JSON node's value (key = 0) or its key (1);
 * spec_fail: "PATH: msg", for what has no position. */
int spec_fail_at(struct spec_ctx *c, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int spec_fail_node(struct spec_ctx *c, const cJSON *node, int key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int spec_fail(struct spec_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends cfg unless an equal configuration is already there (first wins).
 * FGO_OK, or FGO_EFAIL (message written) when memory runs out. */
int spec_add(struct spec_ctx *c, const struct fgo_config *cfg);

/* Field access by enum; dtype reads and writes as its enum value, algorithm
 * is not numeric (0 / ignored). */
int spec_field_given(const struct fgo_config_mask *set, enum spec_field f);
long spec_field_get(const struct fgo_config *cfg, enum spec_field f);
void spec_field_put(struct fgo_config *cfg, enum spec_field f, long v);

/* Copies every field marked in c->set from c->base into cfg. */
void spec_apply_overrides(const struct spec_ctx *c, struct fgo_config *cfg);

/* The candidate closest to word (case-insensitive), or NULL when none is
 * close enough to be a likely typo. */
const char *spec_suggest(const char *word, const char *const *names, size_t n);

/* "a string", "a list", "an object", ... for type errors. */
const char *spec_json_type(const cJSON *v);

/* Reads v as an integer of field f (bounds from spec_fields); what names the
 * key as the user wrote it. FGO_OK or a positioned FGO_EUSAGE. */
int spec_json_int(struct spec_ctx *c, const cJSON *v, const char *what, enum spec_field f,
		  long *out);

/* Reads v (a string) as an algorithm name or a dtype; unknown names are hard
 * errors at v's position, with a suggestion. */
int spec_json_algorithm(struct spec_ctx *c, const cJSON *v, const char *what, const char **out);
int spec_json_dtype(struct spec_ctx *c, const cJSON *v, const char *what, enum fgo_dtype *out);

/* spec.c: c->text parsed as JSON into *root (cJSON_Delete it), with the
 * checks of spec_check_text first; FGO_OK or a positioned FGO_EUSAGE
 * naming what is malformed (a trailing comma, the text ending early). */
int spec_parse_json(struct spec_ctx *c, cJSON **root);

/* spec_pos.c: where a node of root (parsed from text) starts in text: its
 * value (key = 0) or, for an object member, its key's opening quote. */
size_t spec_pos_find(const char *text, const cJSON *root, const cJSON *node, int key);
/* 1-based line and column (in characters) of byte offset off. */
void spec_pos_line_col(const char *text, size_t off, int *line, int *col);

/* spec_check.c: on the text before cJSON parses it, a \u0000 in a string
 * and nesting past cJSON's limit; on the tree, a key given twice in one
 * object (ignoring case). FGO_OK or the positioned error. */
int spec_check_text(struct spec_ctx *c);
int spec_check_tree(struct spec_ctx *c);

#endif
