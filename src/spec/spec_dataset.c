/* spec_dataset.c: the field's dataset files, read unchanged.
 *   JSON: a list of {"m": .., "n": .., "k": ..} objects, each optionally with
 *         BLK_M, BLK_N, BLK_K, gsize_m, num_stages, num_warps, num_sms
 *         (= gemm_sms), comm_sms, datatype.
 *   CSV:  a header naming the columns (m,n,k,datatype or
 *         m,n,k,blk_m,blk_n,blk_k,gemm_sms,comm_sms, any order), one shape per line.
 * Every field a row leaves out comes from the flags and defaults (c->base);
 * fields given as flags win over the file, as for sweep specs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "algo.h"
#include "fgo.h"
#include "spec/spec_readers.h"

/* Column and key names a dataset may use, and the field each sets. */
static const struct {
	const char *name;
	enum spec_field field;
} dataset_keys[] = {
	{ "m", SF_M },           { "n", SF_N },           { "k", SF_K },
	{ "datatype", SF_DTYPE }, { "dtype", SF_DTYPE },   { "blk_m", SF_BLK_M },
	{ "blk_n", SF_BLK_N },   { "blk_k", SF_BLK_K },   { "gsize_m", SF_GSIZE_M },
	{ "num_stages", SF_NUM_STAGES }, { "num_warps", SF_NUM_WARPS },
	{ "num_sms", SF_GEMM_SMS }, { "gemm_sms", SF_GEMM_SMS }, { "comm_sms", SF_COMM_SMS },
	{ "world", SF_WORLD },   { "algorithm", SF_ALGORITHM },
};
#define N_KEYS (sizeof dataset_keys / sizeof dataset_keys[0])

static int key_field(const char *name)
{
	for (size_t i = 0; i < N_KEYS; i++)
		if (strcasecmp(name, dataset_keys[i].name) == 0)
			return (int)dataset_keys[i].field;
	return -1;
}

static const char *key_suggest(const char *name)
{
	const char *names[N_KEYS];
	for (size_t i = 0; i < N_KEYS; i++)
		names[i] = dataset_keys[i].name;
	return spec_suggest(name, names, N_KEYS);
}

/* Adds one row; a row must end up with M, N and K. */
static int add_row(struct spec_ctx *c, struct fgo_config *cfg, int has_shape)
{
	spec_apply_overrides(c, cfg);
	if (!has_shape && !(cfg->m && cfg->n && cfg->k))
		return FGO_EUSAGE;
	if (c->plan->count >= SPEC_MAX_CONFIGS)
		return spec_fail(c, "more than %d rows (split the file)", SPEC_MAX_CONFIGS);
	return spec_add(c, cfg);
}

int spec_dataset_json(struct spec_ctx *c)
{
	const cJSON *row, *item;

	if (!cJSON_GetArraySize(c->root))
		return spec_fail_node(c, c->root, 0, "the dataset list is empty");
	cJSON_ArrayForEach(row, c->root) {
		struct fgo_config cfg = *c->base;
		int dims = 0, rc;
		const cJSON *seen[SF_COUNT] = { 0 };
		if (!cJSON_IsObject(row))
			return spec_fail_node(c, row, 0, "a dataset row is an object {\"m\", \"n\", \"k\", ...}, got %s",
					      spec_json_type(row));
		cJSON_ArrayForEach(item, row) {
			int f = key_field(item->string);
			long v = 0;
			if (f < 0) {
				const char *near = key_suggest(item->string);
				return near ? spec_fail_node(c, item, 1, "unknown key \"%s\" (did you mean \"%s\"?)",
							     item->string, near)
					    : spec_fail_node(c, item, 1, "unknown key \"%s\" (a row has m, n, k, datatype, BLK_M, BLK_N, BLK_K, gsize_m, num_stages, num_warps, num_sms, comm_sms)",
							     item->string);
			}
			/* two names of one field (dtype and datatype): which would win? */
			if (seen[f])
				return spec_fail_node(c, item, 1, "\"%s\" gives the same field as \"%s\""
						      " in this row (give it once)", item->string,
						      seen[f]->string);
			seen[f] = item;
			if (f == SF_ALGORITHM) {
				const char *name;
				if ((rc = spec_json_algorithm(c, item, item->string, &name)))
					return rc;
				snprintf(cfg.algorithm, sizeof cfg.algorithm, "%s", name);
				continue;
			}
			if (f == SF_DTYPE) {
				enum fgo_dtype t;
				if ((rc = spec_json_dtype(c, item, item->string, &t)))
					return rc;
				v = (long)t;
			} else if ((rc = spec_json_int(c, item, item->string, (enum spec_field)f, &v))) {
				return rc;
			}
			spec_field_put(&cfg, (enum spec_field)f, v);
			dims |= f == SF_M ? 1 : f == SF_N ? 2 : f == SF_K ? 4 : 0;
		}
		if (dims != 7 && !(spec_field_given(c->set, SF_M) && spec_field_given(c->set, SF_N) &&
				   spec_field_given(c->set, SF_K)))
			return spec_fail_node(c, row, 0, "a dataset row needs \"m\", \"n\" and \"k\"");
		if ((rc = add_row(c, &cfg, 1)))
			return rc;
	}
	return FGO_OK;
}

/* CSV: fields split on commas, surrounding blanks ignored, no quoting (the
 * field's files have none). */
#define CSV_MAX_COLS 32

struct csv_line {
	size_t start[CSV_MAX_COLS]; /* byte offset of each field in the text */
	char *field[CSV_MAX_COLS];
	int n;
};

/* Splits the line at text[off] into buf; returns the offset of the next line. */
static size_t csv_split(const char *text, size_t off, char *buf, size_t cap, struct csv_line *l)
{
	size_t end = off;
	while (text[end] && text[end] != '\n')
		end++;
	size_t len = end - off < cap - 1 ? end - off : cap - 1;
	memcpy(buf, text + off, len);
	buf[len] = 0;
	if (len && buf[len - 1] == '\r')
		buf[--len] = 0;
	l->n = 0;
	char *p = buf;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (l->n < CSV_MAX_COLS) {
			l->start[l->n] = off + (size_t)(p - buf);
			l->field[l->n++] = p;
		}
		char *comma = strchr(p, ',');
		char *stop = comma ? comma : p + strlen(p);
		while (stop > p && (stop[-1] == ' ' || stop[-1] == '\t'))
			stop--;
		if (!comma) {
			*stop = 0;
			break;
		}
		*stop = 0;
		p = comma + 1;
	}
	return text[end] ? end + 1 : end;
}

/* The line starting at s is empty, blanks only, or a # comment. */
static int blank(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	return !*s || *s == '\n' || *s == '#';
}

static size_t next_line(const char *text, size_t off)
{
	while (text[off] && text[off] != '\n')
		off++;
	return text[off] ? off + 1 : off;
}

static int csv_value(struct spec_ctx *c, const struct csv_line *l, int col, enum spec_field f,
		     struct fgo_config *cfg)
{
	const char *s = l->field[col];
	const struct spec_field_info *fi = &spec_fields[f];
	if (f == SF_ALGORITHM) {
		char why[512];
		if (algo_is_choice(s)) { /* the shot chosen when it runs */
			snprintf(cfg->algorithm, sizeof cfg->algorithm, "%s", ALGO_CHOICE);
			return FGO_OK;
		}
		const struct fgo_algo *algo = algo_resolve(s, why, sizeof why);
		if (!algo)
			return spec_fail_at(c, l->start[col], "%s", why);
		snprintf(cfg->algorithm, sizeof cfg->algorithm, "%s", algo->name);
		return FGO_OK;
	}
	if (f == SF_DTYPE) {
		enum fgo_dtype t;
		if (dtype_parse(s, &t))
			return spec_fail_at(c, l->start[col], "unknown datatype \"%s\" (use fp32, fp16 or bf16)",
					    s);
		cfg->dtype = t;
		return FGO_OK;
	}
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (end == s || *end || errno)
		return spec_fail_at(c, l->start[col], "%s expects an integer, got \"%s\"", fi->name, s);
	if (v < fi->min || v > fi->max)
		return spec_fail_at(c, l->start[col], "%s must be between %ld and %ld, got %ld",
				    fi->name, fi->min, fi->max, v);
	spec_field_put(cfg, f, v);
	return FGO_OK;
}

int spec_dataset_csv(struct spec_ctx *c)
{
	size_t cap = strlen(c->text) + 1;
	char *buf = malloc(cap);
	struct csv_line l;
	int cols[CSV_MAX_COLS], ncols, dims = 0, rc = FGO_OK;
	size_t off = 0;

	if (!buf)
		return spec_fail(c, "out of memory reading the dataset");
	if ((unsigned char)c->text[0] == 0xef && (unsigned char)c->text[1] == 0xbb &&
	    (unsigned char)c->text[2] == 0xbf)
		off = 3; /* UTF-8 byte order mark (all three bytes: a lone 0xef is text) */
	while (c->text[off] && blank(c->text + off))
		off = next_line(c->text, off);
	size_t header = off;
	off = csv_split(c->text, off, buf, cap, &l);
	ncols = l.n;
	for (int i = 0; i < l.n; i++) {
		cols[i] = key_field(l.field[i]);
		if (cols[i] < 0) {
			const char *near = key_suggest(l.field[i]);
			rc = near ? spec_fail_at(c, l.start[i], "unknown column \"%s\" (did you mean \"%s\"?)",
						 l.field[i], near)
				  : spec_fail_at(c, l.start[i], "unknown column \"%s\" (the header names columns: m,n,k,datatype or m,n,k,blk_m,blk_n,blk_k,gemm_sms,comm_sms)",
						 l.field[i]);
			goto out;
		}
		for (int j = 0; j < i; j++)
			if (cols[j] == cols[i]) {
				rc = spec_fail_at(c, l.start[i], "column \"%s\" is named twice (column %d"
						  " is \"%s\"; name each column once)", l.field[i], j + 1,
						  l.field[j]);
				goto out;
			}
		dims |= cols[i] == SF_M ? 1 : cols[i] == SF_N ? 2 : cols[i] == SF_K ? 4 : 0;
	}
	if (dims != 7) {
		rc = spec_fail_at(c, header, "the CSV header must name the columns m, n and k");
		goto out;
	}
	while (c->text[off]) {
		size_t line = off;
		if (blank(c->text + off)) {
			off = next_line(c->text, off);
			continue;
		}
		off = csv_split(c->text, off, buf, cap, &l);
		if (l.n != ncols) {
			rc = spec_fail_at(c, line, "%d fields where the header has %d", l.n, ncols);
			goto out;
		}
		struct fgo_config cfg = *c->base;
		for (int i = 0; i < ncols && rc == FGO_OK; i++)
			rc = csv_value(c, &l, i, (enum spec_field)cols[i], &cfg);
		if (rc || (rc = add_row(c, &cfg, 1)))
			goto out;
	}
out:
	free(buf);
	return rc;
}
