/* user_cc_cache.c: the kernel cache's record of one compile of a user
 * kernel's C form (user_cc.h). A record says what the compile made (the
 * object's size and content hash, or the compiler's verdict and whole
 * message) and what it read (every file the compiler's dependency list
 * names but system headers, with their hashes), so a cached object is
 * loaded only when it is the bytes that were written and no file it was
 * built from has changed since: a header the manifest does not list
 * included, edited, compiles again rather than leave a stale object.
 *
 * The format, text, written whole by rename:
 *   fgobench-cc 1 object|error
 *   object HASH SIZE          (an object: KEY.sum beside KEY.so)
 *   status N / reason TEXT    (an error: KEY.err)
 *   deps known|unknown
 *   dep HASH SIZE PATH        (one a file)
 *   log N, then N bytes       (an error: the compiler's message)
 *   check HASH                (fnv1a64 of every byte before this line) */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "fgo.h"
#include "kcache.h"
#include "sink.h"
#include "user/user_cc.h"

#define DEPS_MAX 256          /* files a compile may read besides system headers */
#define DEP_MAX_BYTES (64L << 20)
#define RECORD_MAX (DEPS_MAX * (PATH_MAX + 64) + CC_LOG_MAX * 8)
#define MAGIC "fgobench-cc 1 "

void cc_record_free(struct cc_record *r)
{
	for (int i = 0; i < r->ndeps; i++)
		free(r->deps[i].path);
	free(r->deps);
	free(r->log);
	memset(r, 0, sizeof *r);
}

/* The hash and size of the plain file at path (a link followed: a user's
 * headers may be links; a FIFO or a device is not read); -1 when it is
 * not one or cannot be read. */
static int hash_file(const char *path, uint64_t *hash, long long *size)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat sb;
	char *data = NULL;
	size_t got = 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size > DEP_MAX_BYTES ||
	    !(data = malloc((size_t)sb.st_size + 1))) {
		close(fd);
		return -1;
	}
	while (got < (size_t)sb.st_size) {
		ssize_t n = read(fd, data + got, (size_t)sb.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	*hash = fnv1a64(data, got);
	*size = (long long)got;
	free(data);
	return got == (size_t)sb.st_size ? 0 : -1;
}

static int add_dep(struct cc_record *r, const char *path)
{
	struct cc_dep d = { 0, 0, NULL };
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return -1; /* one line of the record each */
	if (r->ndeps >= DEPS_MAX || hash_file(path, &d.hash, &d.size) != 0 || !(d.path = strdup(path)))
		return -1;
	if (!(r->ndeps & 15)) {
		struct cc_dep *more = realloc(r->deps, (size_t)(r->ndeps + 16) * sizeof *more);
		if (!more) {
			free(d.path);
			return -1;
		}
		r->deps = more;
	}
	r->deps[r->ndeps++] = d;
	return 0;
}

/* The next path of a make rule at *p (gcc's escapes: "\ " a space, "\#"
 * a '#', "$$" a '$', backslash-newline a blank) into out; 0 at the end. */
static int next_word(const char **p, char *out, size_t len)
{
	const char *s = *p;
	size_t n = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
		if (s[0] == '\\' && (s[1] == '\n' || (s[1] == '\r' && s[2] == '\n')))
			s += s[1] == '\n' ? 2 : 3;
		else
			break;
	}
	if (!*s)
		return 0;
	while (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') {
		char c = *s++;
		if (c == '\\' && (*s == ' ' || *s == '#' || *s == '\\'))
			c = *s++;
		else if (c == '\\' && *s == '\n')
			break;
		else if (c == '$' && *s == '$')
			s++;
		if (n + 1 < len)
			out[n++] = c;
	}
	out[n] = 0;
	*p = s;
	return 1;
}

void cc_deps_read(const char *depfile, struct cc_record *r)
{
	FILE *f = fopen(depfile, "rb");
	char *text = malloc(RECORD_MAX), word[PATH_MAX];
	size_t n = 0;
	r->deps_known = 0;
	if (!f || !text) {
		if (f)
			fclose(f);
		free(text);
		return;
	}
	n = fread(text, 1, RECORD_MAX - 1, f);
	int whole = feof(f) && !ferror(f);
	fclose(f);
	text[n] = 0;
	const char *p = text;
	/* "fgobench: SOURCE DEP DEP ..." (-MT fgobench) */
	if (!whole || strncmp(p, "fgobench:", 9)) {
		free(text);
		return;
	}
	p += 9;
	int first = 1, ok = 1;
	while (ok && next_word(&p, word, sizeof word)) {
		if (first) { /* the source: the copy in the compile's folder */
			first = 0;
			continue;
		}
		if (!strncmp(word, "/usr/", 5))
			continue;
		ok = add_dep(r, word) == 0;
	}
	free(text);
	r->deps_known = ok && !first;
}

const char *cc_deps_changed(const struct cc_record *r)
{
	if (!r->deps_known)
		return "";
	for (int i = 0; i < r->ndeps; i++) {
		uint64_t h;
		long long size;
		if (hash_file(r->deps[i].path, &h, &size) != 0 || h != r->deps[i].hash ||
		    size != r->deps[i].size)
			return r->deps[i].path;
	}
	return NULL;
}

int cc_record_write(const char *path, const struct cc_record *r, char *err, size_t len)
{
	size_t cap = RECORD_MAX, at = 0;
	char *text = malloc(cap);
	struct atomic_file af;
	if (!text) {
		snprintf(err, len, "out of memory");
		return FGO_EFAIL;
	}
#define PUT(...) (at += at < cap ? (size_t)snprintf(text + at, cap - at, __VA_ARGS__) : 0)
	PUT(MAGIC "%s\n", r->error ? "error" : "object");
	if (r->error)
		PUT("status %d\nreason %s\n", r->status, r->reason);
	else
		PUT("object %016" PRIx64 " %lld\n", r->object_hash, r->object_size);
	PUT("deps %s\n", r->deps_known ? "known" : "unknown");
	for (int i = 0; i < r->ndeps; i++)
		PUT("dep %016" PRIx64 " %lld %s\n", r->deps[i].hash, r->deps[i].size, r->deps[i].path);
	if (r->error)
		PUT("log %zu\n%s\n", strlen(r->log ? r->log : ""), r->log ? r->log : "");
	if (at >= cap) {
		free(text);
		snprintf(err, len, "the record of %s is too long", path);
		return FGO_EFAIL;
	}
	uint64_t h = fnv1a64(text, at);
	PUT("check %016" PRIx64 "\n", h);
#undef PUT
	int rc = at < cap ? atomic_open(&af, path, err, len) : FGO_EFAIL;
	if (rc == FGO_OK) {
		if (fwrite(text, 1, at, af.f) != at) {
			atomic_abort(&af);
			snprintf(err, len, "cannot write %s", path);
			rc = FGO_EFAIL;
		} else {
			rc = atomic_commit(&af, err, len);
		}
	}
	free(text);
	return rc == FGO_OK ? FGO_OK : FGO_EFAIL;
}

/* The line at *p (its newline replaced by a NUL) and *p past it; NULL at the end. */
static char *take_line(char **p)
{
	char *s = *p, *nl;
	if (!*s)
		return NULL;
	if ((nl = strchr(s, '\n'))) {
		*nl = 0;
		*p = nl + 1;
	} else {
		*p = s + strlen(s);
	}
	return s;
}

static int parse(char *text, size_t size, struct cc_record *r)
{
	char *check = NULL, *p = text, *line;
	/* the last line is the check of every byte before it */
	for (char *s = strstr(text, "\ncheck "); s; s = strstr(s + 1, "\ncheck "))
		check = s + 1;
	if (!check || strncmp(text, MAGIC, strlen(MAGIC)))
		return -1;
	unsigned long long want;
	char tail;
	if (sscanf(check, "check %16llx%c", &want, &tail) != 2 || tail != '\n' ||
	    check + 23 != text + size || fnv1a64(text, (size_t)(check - text)) != want)
		return -1;
	*check = 0;
	line = take_line(&p);
	r->error = !strcmp(line + strlen(MAGIC), "error");
	if (!r->error && strcmp(line + strlen(MAGIC), "object"))
		return -1;
	int have = 0;
	while ((line = take_line(&p))) {
		unsigned long long h;
		long long size_;
		size_t nlog;
		int off = 0;
		if (sscanf(line, "object %16llx %lld", &h, &size_) == 2) {
			r->object_hash = h;
			r->object_size = size_;
			have |= 1;
		} else if (sscanf(line, "status %d", &r->status) == 1) {
			have |= 2;
		} else if (!strncmp(line, "reason ", 7)) {
			snprintf(r->reason, sizeof r->reason, "%s", line + 7);
		} else if (!strcmp(line, "deps known") || !strcmp(line, "deps unknown")) {
			r->deps_known = !strcmp(line, "deps known");
			have |= 4;
		} else if (sscanf(line, "dep %16llx %lld %n", &h, &size_, &off) == 2 && off > 0) {
			if (r->ndeps >= DEPS_MAX)
				return -1;
			if (!(r->ndeps & 15)) {
				struct cc_dep *more = realloc(r->deps, (size_t)(r->ndeps + 16) * sizeof *more);
				if (!more)
					return -1;
				r->deps = more;
			}
			struct cc_dep *d = &r->deps[r->ndeps];
			if (!(d->path = strdup(line + off)))
				return -1;
			d->hash = h;
			d->size = size_;
			r->ndeps++;
		} else if (sscanf(line, "log %zu", &nlog) == 1 && nlog <= (size_t)(check - p) && !r->log) {
			if (!(r->log = malloc(nlog + 1)))
				return -1;
			memcpy(r->log, p, nlog);
			r->log[nlog] = 0;
			p += nlog;
			if (*p == '\n')
				p++;
			have |= 8;
		} else {
			return -1;
		}
	}
	return have == (r->error ? 2 | 4 | 8 : 1 | 4) ? 0 : -1;
}

int cc_record_read(const char *path, struct cc_record *r, char *err, size_t len)
{
	char *text;
	size_t size;
	memset(r, 0, sizeof *r);
	if (kcache_read(path, RECORD_MAX, &text, &size, err, len) != FGO_OK)
		return CC_RECORD_REFUSED;
	if (!text)
		return access(path, F_OK) == 0 ? CC_RECORD_DAMAGED : CC_RECORD_ABSENT;
	int bad = strlen(text) != size || parse(text, size, r) != 0;
	free(text);
	if (bad) {
		cc_record_free(r);
		return CC_RECORD_DAMAGED;
	}
	/* data, whoever wrote it: no control character reaches a terminal or
	 * the store (cleaned when written too) */
	char clean[sizeof r->reason];
	sink_terminal(r->reason, clean, sizeof clean);
	snprintf(r->reason, sizeof r->reason, "%s", clean);
	if (r->log) {
		size_t cap = strlen(r->log) * 4 + 1;
		char *c = malloc(cap);
		if (c) {
			cc_clean(r->log, c, cap);
			free(r->log);
			r->log = c;
		}
	}
	return CC_RECORD_OK;
}
