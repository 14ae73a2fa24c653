/* spec_manifest.c: a user kernel's manifest read into a struct
 * fgo_user_kernel (spec_manifest.h), with the spec reader's positioned
 * errors (spec_ctx.h). What it checks: the keys (and their case), the
 * name, the family (one of the built-in families: its registry entry gives
 * the sharding, inputs, reference, baseline and bytes), the sources (read
 * and hashed; paths relative to the manifest; the manifest, sources and
 * headers plain files: a FIFO, a device or a folder is refused at once,
 * never waited on), the entry and macro names
 * (C identifiers: they reach a compiler as -D and dlsym names, never a
 * shell), the tunables' values and every expression, down to its column. */
#include "spec/spec_manifest.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fgo.h"
#include "spec/spec_ctx.h"

#define MANIFEST_MAX_BYTES (1L << 20) /* a manifest is a page of JSON */
#define SOURCE_MAX_BYTES (16L << 20)  /* a kernel source */

const char *const manifest_keys[] = {
	"name", "description", "family", "source", "headers", "entry", "tunables", "grid",
	"block", "shared_memory", "flags", "workspace", "modes", "shape_macros", NULL,
};

/* Reads path whole into a malloc'd, NUL-terminated *text; NULL on failure
 * with why (errno's text, or the reason). Only a plain file is read (a
 * link to one is followed): a FIFO would block the sweep forever and a
 * device never ends, so the open does not wait and the kind is checked
 * before the first byte. */
static char *read_text(const char *path, long max, char *why, size_t len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat sb;
	char *text = NULL;
	size_t got = 0;
	if (fd < 0) {
		snprintf(why, len, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &sb) != 0) {
		snprintf(why, len, "%s", strerror(errno));
	} else if (S_ISDIR(sb.st_mode)) {
		snprintf(why, len, "it is a folder, not a file");
	} else if (!S_ISREG(sb.st_mode)) {
		snprintf(why, len, "it is %s, not a plain file", S_ISFIFO(sb.st_mode) ? "a FIFO (a named pipe)" :
			 S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? "a device" :
			 S_ISSOCK(sb.st_mode) ? "a socket" : "not a file");
	} else if (sb.st_size > max) {
		snprintf(why, len, "larger than %ld MiB", max >> 20);
	} else if (!(text = malloc((size_t)sb.st_size + 1))) {
		snprintf(why, len, "out of memory");
	} else {
		while (got < (size_t)sb.st_size) {
			ssize_t n = read(fd, text + got, (size_t)sb.st_size - got);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		text[got] = 0;
		if (got != (size_t)sb.st_size) {
			snprintf(why, len, "a read error (%zu of %lld bytes)", got, (long long)sb.st_size);
		} else if (memchr(text, 0, got)) {
			snprintf(why, len, "it holds a NUL byte (is it text?)");
		} else {
			close(fd);
			return text;
		}
		free(text);
		text = NULL;
	}
	close(fd);
	return NULL;
}

int manifest_path_clean(const char *path, char *out, size_t len)
{
	char copy[PATH_MAX * 2];
	const char *part[PATH_MAX / 2];
	size_t plen[PATH_MAX / 2], n = 0, at = 0;
	int absolute = path[0] == '/';
	snprintf(copy, sizeof copy, "%s", path);
	for (char *p = copy; *p;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		size_t l = strcspn(p, "/");
		if ((l == 1 && p[0] == '.') || (l == 2 && !strncmp(p, "..", 2) && absolute && !n)) {
			/* nothing ("/.." is "/") */
		} else if (l == 2 && p[0] == '.' && p[1] == '.' && n &&
			   !(plen[n - 1] == 2 && !strncmp(part[n - 1], "..", 2))) {
			n--;
		} else if (n < FGO_ARRAY_SIZE(part)) {
			part[n] = p;
			plen[n++] = l;
		}
		p += l;
	}
	out[0] = 0;
	if (absolute)
		at = (size_t)snprintf(out, len, "/");
	for (size_t i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(out + at, len - at, "%s%.*s", i ? "/" : "", (int)plen[i], part[i]);
	if (!n && !absolute)
		at = (size_t)snprintf(out, len, ".");
	return at < len ? FGO_OK : FGO_EUSAGE;
}

int manifest_path_join(const char *file, const char *rel, char *out, size_t len)
{
	char joined[PATH_MAX * 2], clean[PATH_MAX * 2];
	struct stat a, b;
	const char *slash = strrchr(file, '/');
	int n = rel[0] == '/' || !slash ? snprintf(joined, sizeof joined, "%s", rel)
					: snprintf(joined, sizeof joined, "%.*s/%s", (int)(slash - file),
						   file, rel);
	if (n < 0 || (size_t)n >= sizeof joined)
		return FGO_EUSAGE;
	/* the shorter name only where it is the same file: "dir/.." is not
	 * the folder before dir when dir is a link */
	const char *use = joined;
	if (manifest_path_clean(joined, clean, sizeof clean) == FGO_OK && stat(joined, &a) == 0 &&
	    stat(clean, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		use = clean;
	n = snprintf(out, len, "%s", use);
	return n >= 0 && (size_t)n < len ? FGO_OK : FGO_EUSAGE;
}

/* name with a C identifier's characters, 1 to max of them. */
static int is_ident(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n < 1 || n > max || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

static int want_string(struct spec_ctx *c, const cJSON *v, const char *key)
{
	if (cJSON_IsString(v) && v->valuestring[0])
		return FGO_OK;
	return spec_fail_node(c, v, 0, "\"%s\" expects %s, got %s", key,
			      cJSON_IsString(v) ? "a string that is not empty" : "a string",
			      cJSON_IsString(v) ? "\"\"" : spec_json_type(v));
}

/* The byte offset in c->text of character col (1-based) of the string
 * value v: its opening quote, then one character per plain byte or escape. */
static size_t string_char_offset(struct spec_ctx *c, const cJSON *v, int col)
{
	size_t at = spec_pos_find(c->text, c->root, v, 0);
	if (c->text[at] != '"')
		return at;
	at++;
	for (int i = 1; i < col && c->text[at] && c->text[at] != '"'; i++) {
		if (c->text[at] == '\\')
			at += c->text[at + 1] == 'u' ? 6 : 2;
		else
			do
				at++;
			while (((unsigned char)c->text[at] & 0xc0) == 0x80);
	}
	return at;
}

/* An expression: a string, or an integer as a constant. */
static int read_expr(struct spec_ctx *c, const struct fgo_user_kernel *k, const cJSON *v,
		     const char *key, struct user_expr *e)
{
	const char *names[USER_FIXED_NAMES + USER_TUNABLES_MAX];
	int nnames = user_names(k, names), col;
	char why[512];
	if (cJSON_IsNumber(v)) {
		if (v->valuedouble != floor(v->valuedouble) || fabs(v->valuedouble) > 0x1p62)
			return spec_fail_node(c, v, 0, "\"%s\" expects an integer or an expression, got %g",
					      key, v->valuedouble);
		user_expr_constant(e, (long long)v->valuedouble);
		return FGO_OK;
	}
	if (!cJSON_IsString(v))
		return spec_fail_node(c, v, 0, "\"%s\" expects an expression (a string such as"
				      " \"ceil_div(M, BLOCK_M)\") or an integer, got %s", key,
				      spec_json_type(v));
	if (user_expr_parse(v->valuestring, names, nnames, e, &col, why, sizeof why) != FGO_OK)
		return spec_fail_at(c, string_char_offset(c, v, col), "bad expression in \"%s\": %s",
				    key, why);
	return FGO_OK;
}

/* "grid" / "block": one expression (x; y = z = 1) or a list of 1 to 3. */
static int read_dims(struct spec_ctx *c, struct fgo_user_kernel *k, const cJSON *v,
		     const char *key, int first)
{
	int n = 0, rc;
	for (int d = 0; d < 3; d++)
		user_expr_constant(&k->rule[first + d], 1);
	if (!cJSON_IsArray(v))
		return read_expr(c, k, v, key, &k->rule[first]);
	if (cJSON_GetArraySize(v) < 1 || cJSON_GetArraySize(v) > 3)
		return spec_fail_node(c, v, 0, "\"%s\" is one expression or a list of 1 to 3 (x, y,"
				      " z), got %d", key, cJSON_GetArraySize(v));
	const cJSON *d;
	cJSON_ArrayForEach(d, v) {
		if ((rc = read_expr(c, k, d, key, &k->rule[first + n++])))
			return rc;
	}
	return FGO_OK;
}

/* A path of the manifest (relative to its folder) read into *text. */
static int read_source(struct spec_ctx *c, const cJSON *v, const char *key, char *path,
		       size_t plen, char **text)
{
	char why[256];
	int rc = want_string(c, v, key);
	if (rc)
		return rc;
	for (const unsigned char *p = (const unsigned char *)v->valuestring; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return spec_fail_node(c, v, 0, "\"%s\": a path without control characters", key);
	if (manifest_path_join(c->path, v->valuestring, path, plen) != FGO_OK)
		return spec_fail_node(c, v, 0, "\"%s\": the path is too long", key);
	if (!(*text = read_text(path, SOURCE_MAX_BYTES, why, sizeof why)))
		return spec_fail_node(c, v, 0, "cannot read %s: %s (paths are relative to the"
				      " manifest's folder)", path, why);
	return FGO_OK;
}

static int read_sources(struct spec_ctx *c, struct fgo_user_kernel *k, const cJSON *v)
{
	const cJSON *item;
	int rc;
	if (!cJSON_IsObject(v))
		return spec_fail_node(c, v, 0, "\"source\" expects an object {\"c\": \"kernel.c\","
				      " \"gpu\": \"kernel.cu\"}, got %s", spec_json_type(v));
	cJSON_ArrayForEach(item, v) {
		if (!strcmp(item->string, "c"))
			rc = read_source(c, item, "c", k->c_source, sizeof k->c_source, &k->c_text);
		else if (!strcmp(item->string, "gpu"))
			rc = read_source(c, item, "gpu", k->gpu_source, sizeof k->gpu_source, &k->gpu_text);
		else
			rc = spec_fail_node(c, item, 1, "unknown source \"%s\" (\"c\": the C form for the"
					    " CPU backend, \"gpu\": the CUDA/HIP form)", item->string);
		if (rc)
			return rc;
	}
	if (!k->c_text && !k->gpu_text)
		return spec_fail_node(c, v, 0, "\"source\" names no form: give \"c\", \"gpu\" or both");
	return FGO_OK;
}

static int read_headers(struct spec_ctx *c, struct fgo_user_kernel *k, const cJSON *v)
{
	const cJSON *item;
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) > USER_HEADERS_MAX)
		return spec_fail_node(c, v, 0, "\"headers\" expects a list of up to %d paths (files the"
				      " sources include, hashed with them)", USER_HEADERS_MAX);
	cJSON_ArrayForEach(item, v) {
		int rc = read_source(c, item, "headers", k->headers[k->nheaders],
				     sizeof k->headers[0], &k->header_text[k->nheaders]);
		if (rc)
			return rc;
		k->nheaders++;
	}
	return FGO_OK;
}

static int read_values(struct spec_ctx *c, struct user_tunable *t, const cJSON *v)
{
	const cJSON *item;
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1 ||
	    cJSON_GetArraySize(v) > USER_VALUES_MAX)
		return spec_fail_node(c, v, 0, "tunable \"%s\" expects a list of 1 to %d integers, got"
				      " %s", t->name, USER_VALUES_MAX, spec_json_type(v));
	cJSON_ArrayForEach(item, v) {
		double d = item->valuedouble;
		if (!cJSON_IsNumber(item) || d != floor(d) || d < INT_MIN || d > INT_MAX)
			return spec_fail_node(c, item, 0, "tunable \"%s\": a value is an integer from %d"
					      " to %d, got %s", t->name, INT_MIN, INT_MAX,
					      cJSON_IsNumber(item) ? "a fraction or more" : spec_json_type(item));
		for (int i = 0; i < t->nvalues; i++)
			if (t->values[i] == (long long)d)
				return spec_fail_node(c, item, 0, "tunable \"%s\" lists %lld twice", t->name,
						      (long long)d);
		t->values[t->nvalues++] = (long long)d;
	}
	return FGO_OK;
}

/* Names an expression cannot mean as a tunable. */
static int reserved(const char *name)
{
	static const char *const words[] = { "M", "N", "K", "W", "min", "max", "ceil_div" };
	for (size_t i = 0; i < FGO_ARRAY_SIZE(words); i++)
		if (!strcmp(name, words[i]))
			return 1;
	return !strncmp(name, "FGO_", 4);
}

static int read_tunables(struct spec_ctx *c, struct fgo_user_kernel *k, const cJSON *v)
{
	const cJSON *item;
	if (!cJSON_IsObject(v))
		return spec_fail_node(c, v, 0, "\"tunables\" expects an object {\"NAME\": [values], ...},"
				      " got %s", spec_json_type(v));
	if (cJSON_GetArraySize(v) > USER_TUNABLES_MAX)
		return spec_fail_node(c, v, 0, "more than %d tunables", USER_TUNABLES_MAX);
	cJSON_ArrayForEach(item, v) {
		struct user_tunable *t = &k->tunable[k->ntunables];
		int rc;
		if (!is_ident(item->string, USER_IDENT_MAX) || reserved(item->string))
			return spec_fail_node(c, item, 1, "tunable name \"%s\": a C identifier of up to %d"
					      " characters, not M, N, K, W, min, max, ceil_div or FGO_*",
					      item->string, USER_IDENT_MAX);
		for (int i = 0; i < k->ntunables; i++)
			if (!strcmp(k->tunable[i].name, item->string))
				return spec_fail_node(c, item, 1, "tunable \"%s\" given twice", item->string);
		snprintf(t->name, sizeof t->name, "%s", item->string);
		snprintf(t->macro, sizeof t->macro, "%s", item->string);
		if (cJSON_IsArray(item)) {
			rc = read_values(c, t, item);
		} else if (cJSON_IsObject(item)) {
			const cJSON *f, *values = NULL;
			rc = FGO_OK;
			cJSON_ArrayForEach(f, item) {
				if (!strcmp(f->string, "values")) {
					values = f;
				} else if (!strcmp(f->string, "macro")) {
					if ((rc = want_string(c, f, "macro")))
						return rc;
					if (!is_ident(f->valuestring, USER_IDENT_MAX) ||
					    !strncmp(f->valuestring, "FGO_", 4))
						return spec_fail_node(c, f, 0, "\"macro\" \"%s\": a C identifier of"
								      " up to %d characters, not FGO_*",
								      f->valuestring, USER_IDENT_MAX);
					snprintf(t->macro, sizeof t->macro, "%s", f->valuestring);
				} else {
					return spec_fail_node(c, f, 1, "unknown key \"%s\" in tunable \"%s\""
							      " (\"values\" and \"macro\")", f->string, t->name);
				}
			}
			if (!values)
				return spec_fail_node(c, item, 0, "tunable \"%s\" has no \"values\"", t->name);
			rc = read_values(c, t, values);
		} else {
			rc = spec_fail_node(c, item, 0, "tunable \"%s\" expects a list of values or"
					    " {\"values\": [...], \"macro\": \"NAME\"}, got %s", t->name,
					    spec_json_type(item));
		}
		if (rc)
			return rc;
		k->ntunables++;
	}
	return FGO_OK;
}

/* The family: a built-in family's name (all_scatter, all_reduce, ...),
 * taken as its first registered algorithm (all_reduce_one_shot,
 * all_gather_gemm_pull): the family decides the sharding, the inputs, the
 * reference, the vendor sequence and the bytes, which its variants share. */
static int read_family(struct spec_ctx *c, struct fgo_user_kernel *k, const cJSON *v)
{
	const char *families[16];
	size_t n = 0;
	char list[256] = "";
	int rc = want_string(c, v, "family");
	if (rc)
		return rc;
	for (const struct fgo_algo *const *a = fgo_algos; *a; a++) {
		size_t i = 0;
		while (i < n && strcmp(families[i], (*a)->family))
			i++;
		if (i == n && n < FGO_ARRAY_SIZE(families))
			families[n++] = (*a)->family;
		if (!k->family && !strcmp((*a)->family, v->valuestring))
			k->family = *a;
	}
	if (k->family) {
		snprintf(k->family_name, sizeof k->family_name, "%s", k->family->family);
		return FGO_OK;
	}
	for (size_t i = 0, at = 0; i < n && at < sizeof list; i++)
		at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", families[i]);
	const char *near = spec_suggest(v->valuestring, families, n);
	if (near)
		return spec_fail_node(c, v, 0, "unknown family \"%s\" (did you mean \"%s\"? the families"
				      " are %s)", v->valuestring, near, list);
	return spec_fail_node(c, v, 0, "unknown family \"%s\" (the families are %s)", v->valuestring,
			      list);
}

static int unknown_key(struct spec_ctx *c, const cJSON *item)
{
	size_t n = 0;
	while (manifest_keys[n])
		n++;
	const char *near = spec_suggest(item->string, manifest_keys, n);
	if (near)
		return spec_fail_node(c, item, 1, "unknown key \"%s\" (did you mean \"%s\"?)",
				      item->string, near);
	return spec_fail_node(c, item, 1, "unknown key \"%s\" (README \"Your own kernel\" lists the"
			      " manifest's keys)", item->string);
}

/* Reads the keys in two passes: the tunables first, since every expression
 * may name them wherever they stand in the file. */
static int read_manifest(struct spec_ctx *c, struct fgo_user_kernel *k)
{
	const cJSON *item, *grid = NULL, *block = NULL, *src = NULL;
	const cJSON *exprs[3] = { NULL, NULL, NULL }; /* shared_memory, flags, workspace */
	int rc = FGO_OK, have_name = 0, have_entry = 0, have_family = 0;
	if (!cJSON_IsObject(c->root))
		return spec_fail_node(c, c->root, 0, "a manifest is a JSON object, got %s",
				      spec_json_type(c->root));
	cJSON_ArrayForEach(item, c->root) {
		const char *key = item->string;
		size_t i = 0;
		while (manifest_keys[i] && strcmp(manifest_keys[i], key))
			i++;
		if (!manifest_keys[i])
			return unknown_key(c, item);
		if (!strcmp(key, "tunables") && (rc = read_tunables(c, k, item)))
			return rc;
	}
	cJSON_ArrayForEach(item, c->root) {
		const char *key = item->string;
		if (!strcmp(key, "name")) {
			if ((rc = want_string(c, item, key)))
				return rc;
			const char *s = item->valuestring;
			size_t ok = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					      "0123456789_-.");
			if (ok != strlen(s) || strlen(s) > USER_NAME_MAX || !isalnum((unsigned char)s[0]))
				return spec_fail_node(c, item, 0, "\"name\" \"%.40s\": 1 to %d letters,"
						      " digits, _ - or ., starting with a letter or digit",
						      s, USER_NAME_MAX);
			snprintf(k->name, sizeof k->name, "%s", s);
			snprintf(k->algorithm, sizeof k->algorithm, USER_ALGO_PREFIX "%s", s);
			have_name = 1;
		} else if (!strcmp(key, "description")) {
			if (!cJSON_IsString(item))
				return spec_fail_node(c, item, 0, "\"description\" expects a string, got %s",
						      spec_json_type(item));
		} else if (!strcmp(key, "family")) {
			if ((rc = read_family(c, k, item)))
				return rc;
			have_family = 1;
		} else if (!strcmp(key, "source")) {
			src = item;
			if ((rc = read_sources(c, k, item)))
				return rc;
		} else if (!strcmp(key, "headers")) {
			if ((rc = read_headers(c, k, item)))
				return rc;
		} else if (!strcmp(key, "entry")) {
			if ((rc = want_string(c, item, key)))
				return rc;
			if (!is_ident(item->valuestring, USER_IDENT_MAX))
				return spec_fail_node(c, item, 0, "\"entry\" \"%.40s\": the kernel function's"
						      " name, a C identifier of up to %d characters",
						      item->valuestring, USER_IDENT_MAX);
			snprintf(k->entry, sizeof k->entry, "%s", item->valuestring);
			have_entry = 1;
		} else if (!strcmp(key, "grid")) {
			grid = item;
		} else if (!strcmp(key, "block")) {
			block = item;
		} else if (!strcmp(key, "shared_memory")) {
			exprs[0] = item;
		} else if (!strcmp(key, "flags")) {
			exprs[1] = item;
		} else if (!strcmp(key, "workspace")) {
			exprs[2] = item;
		} else if (!strcmp(key, "modes")) {
			if (!cJSON_IsBool(item))
				return spec_fail_node(c, item, 0, "\"modes\" expects true (the kernel compiles"
						      " out a half under FGO_MODE) or false, got %s",
						      spec_json_type(item));
			k->modes = cJSON_IsTrue(item);
		} else if (!strcmp(key, "shape_macros")) {
			if (!cJSON_IsBool(item))
				return spec_fail_node(c, item, 0, "\"shape_macros\" expects true (the problem"
						      " as macros FGO_M, FGO_N, FGO_K, FGO_W: one compile a"
						      " problem) or false, got %s", spec_json_type(item));
			k->shape_macros = cJSON_IsTrue(item);
		}
	}
	static const char *const required[] = { "name", "family", "source", "entry", "grid", "block" };
	const int have[] = { have_name, have_family, src != NULL, have_entry, grid != NULL,
			     block != NULL };
	for (size_t i = 0; i < FGO_ARRAY_SIZE(required); i++)
		if (!have[i])
			return spec_fail(c, "missing \"%s\" (README \"Your own kernel\" shows a whole"
					 " manifest)", required[i]);
	if ((rc = read_dims(c, k, grid, "grid", USER_GRID_X)) ||
	    (rc = read_dims(c, k, block, "block", USER_BLOCK_X)))
		return rc;
	static const char *const names[3] = { "shared_memory", "flags", "workspace" };
	static const enum user_rule rules[3] = { USER_SMEM, USER_FLAGS, USER_WORKSPACE };
	for (int i = 0; i < 3; i++) {
		user_expr_constant(&k->rule[rules[i]], 0);
		if (exprs[i] && (rc = read_expr(c, k, exprs[i], names[i], &k->rule[rules[i]])))
			return rc;
	}
	return FGO_OK;
}

/* FNV-1a of the manifest and every source, each after a separator, so
 * moving text from one file to another changes it. */
static void hash_kernel(struct fgo_user_kernel *k, const char *manifest_text)
{
	const char *parts[3 + USER_HEADERS_MAX] = { manifest_text, k->c_text, k->gpu_text };
	int n = 3;
	for (int i = 0; i < k->nheaders; i++)
		parts[n++] = k->header_text[i];
	uint64_t h = 0xcbf29ce484222325ull;
	for (int i = 0; i < n; i++) {
		const char *p = parts[i] ? parts[i] : "";
		h = (h ^ fnv1a64(p, strlen(p))) * 0x100000001b3ull;
	}
	snprintf(k->hash, sizeof k->hash, "%016llx", (unsigned long long)h);
}

int manifest_parse(const char *path, const char *text, struct fgo_user_kernel **out, char *err,
		   size_t len)
{
	struct fgo_user_kernel *k = calloc(1, sizeof *k);
	struct spec_ctx c = { .path = path, .text = text, .err = err, .errlen = len };
	cJSON *root = NULL;
	int rc;
	*out = NULL;
	if (!k) {
		snprintf(err, len, "%s: out of memory", path);
		return FGO_EUSAGE;
	}
	snprintf(k->manifest, sizeof k->manifest, "%s", path);
	if ((rc = spec_parse_json(&c, &root)) == FGO_OK) {
		c.root = root;
		rc = spec_check_tree(&c);
		if (rc == FGO_OK)
			rc = read_manifest(&c, k);
	}
	cJSON_Delete(root);
	if (rc != FGO_OK) {
		user_kernel_free(k);
		return FGO_EUSAGE;
	}
	hash_kernel(k, text);
	*out = k;
	return FGO_OK;
}

int manifest_load(const char *path, struct fgo_user_kernel **out, char *err, size_t len)
{
	char why[256];
	char *text = read_text(path, MANIFEST_MAX_BYTES, why, sizeof why);
	*out = NULL;
	if (!text) {
		snprintf(err, len, "%s: cannot read the kernel's manifest: %s", path, why);
		return FGO_EUSAGE;
	}
	int rc = manifest_parse(path, text, out, err, len);
	free(text);
	return rc;
}

int manifest_use(const char *path, const struct fgo_user_kernel **out, char *err, size_t len)
{
	struct fgo_user_kernel *k;
	char why[512];
	int rc = manifest_load(path, &k, err, len);
	if (rc != FGO_OK)
		return rc;
	if (user_kernel_register(k, out, why, sizeof why) != FGO_OK) {
		snprintf(err, len, "%s: %s", path, why);
		user_kernel_free(k);
		return FGO_EUSAGE;
	}
	return FGO_OK;
}
