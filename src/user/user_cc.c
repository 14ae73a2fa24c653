/* user_cc.c: a user kernel's C form built for the CPU backend (user.h's
 * user_cc_build): compiled with the system compiler ($FGOBENCH_CC, else
 * cc) into a shared object in the kernel cache (kcache.h: the user's own
 * folder, checked before anything is read from it), keyed by a hash of the
 * compiler, its arguments (user_defines: the tunables' macros, FGO_DTYPE,
 * FGO_MODE, the problem's with "shape_macros"), the source and every
 * header the manifest lists, then loaded with dlopen. Beside each object a
 * record (user_cc_cache.c) holds its content hash and the hash of every
 * file the compile read: an object is loaded only when it is the bytes
 * written and none of those files changed. A compile error is cached too
 * (KEY.err, the compiler's whole message, with the same list), said in
 * full once a sweep for each message, from the cache as well as fresh.
 *
 * Text from manifests and sources is data: the compiler runs from an
 * argument vector (posix_spawn, no shell), no argument from a path starts
 * with '-' or '@' (relative folders are "./x": gcc reads "@file" as
 * options), the source it compiles is the text that was hashed (copied
 * into a private temporary folder, a #line keeping the user's path in
 * messages), the compile has a time limit (user_cc_run.c), and every file
 * enters the cache by rename, never by writing through a name that could
 * be a link. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fgo.h"
#include "kcache.h"
#include "sink.h"
#include "user/user.h"
#include "user/user_cc.h"

int user_cache_dir(char *out, size_t len, char *err, size_t elen)
{
	return kcache_dir("user", out, len, err, elen);
}

/* What this process loaded: one entry per kernel, tunables, dtype, mode
 * and, for a kernel with "shape_macros", problem. */
struct loaded {
	const struct fgo_user_kernel *k;
	char params[FGO_PARAMS_MAX];
	int dtype, mode;
	long m, n, kk;
	int world;
	void *handle;
	user_cpu_entry fn;
};

/* Whether entry e was compiled for cfg's problem: any problem, unless the
 * kernel takes it as macros. */
static int same_problem(const struct loaded *e, const struct fgo_config *cfg)
{
	return !e->k->shape_macros ||
	       (e->m == cfg->m && e->n == cfg->n && e->kk == cfg->k && e->world == cfg->world);
}
static struct loaded *table;
static size_t ntable, captable;

static struct loaded *loaded_find(const struct fgo_user_kernel *k, const struct fgo_config *cfg,
				  int mode)
{
	for (size_t i = 0; i < ntable; i++)
		if (table[i].k == k && table[i].dtype == (int)cfg->dtype && table[i].mode == mode &&
		    !strcmp(table[i].params, cfg->params) && same_problem(&table[i], cfg))
			return &table[i];
	return NULL;
}

static int compiler_find(struct compiler *cc, char *err, size_t len)
{
	const char *name = getenv("FGOBENCH_CC");
	struct stat sb;
	char real[PATH_MAX];
	if (!name || !*name)
		name = "cc";
	cc->path[0] = 0;
	if (strchr(name, '/')) {
		snprintf(cc->path, sizeof cc->path, "%s", name);
	} else {
		const char *env = getenv("PATH");
		char dirs[4096];
		snprintf(dirs, sizeof dirs, "%s", env && *env ? env : "/usr/bin:/bin");
		char *save = NULL;
		for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			char p[PATH_MAX];
			snprintf(p, sizeof p, "%s/%s", *d ? d : ".", name);
			if (access(p, X_OK) == 0 && stat(p, &sb) == 0 && S_ISREG(sb.st_mode)) {
				snprintf(cc->path, sizeof cc->path, "%s", p);
				break;
			}
		}
	}
	if (!cc->path[0] || access(cc->path, X_OK) != 0 || !realpath(cc->path, real) ||
	    stat(real, &sb) != 0) {
		snprintf(err, len, "no C compiler \"%s\" here (install gcc: apt-get install gcc, or"
			 " set FGOBENCH_CC to one)", name);
		return FGO_EUSAGE;
	}
	snprintf(cc->id, sizeof cc->id, "%s %lld %lld", real, (long long)sb.st_size,
		 (long long)sb.st_mtime);
	return FGO_OK;
}

/* The folder of path ("." for a bare name). */
static void dir_of(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(out, len, ".");
	else
		snprintf(out, len, "%.*s", (int)(slash == path ? 1 : slash - path), path);
}

/* Opens dir/KEY.so (kcache.h's checks) when it is the object rec
 * records, byte for byte: *fd, or -1 when it is absent or not. */
static int open_object(const char *path, const struct cc_record *rec, int *fd, char *err,
		       size_t len)
{
	struct stat sb;
	char *data = NULL;
	size_t got = 0;
	if (kcache_open(path, fd, err, len) != FGO_OK)
		return FGO_EUSAGE;
	if (*fd < 0)
		return FGO_OK;
	if (fstat(*fd, &sb) == 0 && sb.st_size == rec->object_size && sb.st_size < CC_OBJECT_MAX &&
	    (data = malloc((size_t)sb.st_size + 1))) {
		while (got < (size_t)sb.st_size) {
			ssize_t n = pread(*fd, data + got, (size_t)sb.st_size - got, (off_t)got);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got += (size_t)n;
		}
	}
	if (!data || got != (size_t)rec->object_size || fnv1a64(data, got) != rec->object_hash) {
		close(*fd);
		*fd = -1;
	}
	free(data);
	return FGO_OK;
}

/* Loads the verified object open at fd (dir/KEY.so). */
static int load(const struct fgo_user_kernel *k, const struct fgo_config *cfg, int mode,
		const char *path, int fd, user_cpu_entry *fn, char *err, size_t len)
{
	char via[64];
	void *h;
	/* through the descriptor: the file verified is the file loaded. It
	 * stays open, so no later library gets the same name (the loader
	 * takes a name it has loaded for that library) */
	snprintf(via, sizeof via, "/proc/self/fd/%d", fd);
	h = dlopen(via, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();
		close(fd);
		snprintf(err, len, "cannot load %s: %s", path, why ? why : strerror(errno));
		return FGO_EFAIL;
	}
	void *sym = dlsym(h, k->entry);
	if (!sym) {
		snprintf(err, len, "%s has no function \"%s\" (the manifest's \"entry\")", k->c_source,
			 k->entry);
		dlclose(h);
		return FGO_EFAIL;
	}
	if (ntable == captable) {
		size_t cap = captable ? captable * 2 : 16;
		struct loaded *more = realloc(table, cap * sizeof *more);
		if (!more) {
			dlclose(h);
			snprintf(err, len, "out of memory");
			return FGO_EFAIL;
		}
		table = more;
		captable = cap;
	}
	struct loaded *e = &table[ntable++];
	memset(e, 0, sizeof *e);
	e->k = k;
	snprintf(e->params, sizeof e->params, "%s", cfg->params);
	e->dtype = (int)cfg->dtype;
	e->mode = mode;
	e->m = cfg->m;
	e->n = cfg->n;
	e->kk = cfg->k;
	e->world = cfg->world;
	e->handle = h;
	*(void **)&e->fn = sym;
	*fn = e->fn;
	return FGO_OK;
}

/* Says once a process why a cached entry is compiled again. */
static void note_again(const struct fgo_user_kernel *k, const char *path, const char *changed)
{
	char shown[PATH_MAX * 2];
	uint64_t h = fnv1a64(changed ? changed : path, strlen(changed ? changed : path)) * 7 + 1;
	if (cc_said(h))
		return;
	if (!changed)
		note("note: the kernel cache entry %s was damaged, or written by an older fgobench:"
		     " compiled again", path);
	else if (!*changed)
		note("note: %s: the compiler wrote no dependency list (-MD -MF), so an edited header"
		     " could not be noticed: compiled again each time", k->algorithm);
	else {
		sink_terminal(changed, shown, sizeof shown);
		note("note: %s: %s changed since it was compiled (a file %s includes that the"
		     " manifest's \"headers\" does not list): compiled again", k->algorithm, shown,
		     k->c_source);
	}
}

/* What the cache holds for key: a compile error (FGO_EFAIL, said and its
 * reason in err), an object that is still good (FGO_OK, *fd open on it),
 * nothing usable (FGO_OK, *fd = -1), or a cache refused (FGO_EUSAGE). */
static int lookup(const struct fgo_user_kernel *k, const struct fgo_config *cfg, int mode,
		  const char *dir, const char *key, const char *cc, int *fd, char *err, size_t len)
{
	char path[PATH_MAX + 48];
	struct cc_record r;
	const char *changed;
	int st;
	*fd = -1;
	cc_entry_path(dir, key, "err", path, sizeof path);
	st = cc_record_read(path, &r, err, len);
	if (st == CC_RECORD_REFUSED)
		return FGO_EUSAGE;
	if (st == CC_RECORD_OK && r.error && !(changed = cc_deps_changed(&r))) {
		/* the message again, from the cache (once a sweep) */
		char what[FGO_PARAMS_MAX + 96];
		cc_describe(k, cfg, mode, what, sizeof what);
		cc_say_error(k, dir, what, cc, r.status, r.log ? r.log : "", 1);
		snprintf(err, len, "%s", r.reason);
		cc_record_free(&r);
		return FGO_EFAIL;
	}
	if (st != CC_RECORD_ABSENT) {
		/* a verdict no longer true, or a damaged one, goes: the object
		 * may be good, and the note is said once */
		note_again(k, path, st == CC_RECORD_OK && r.error ? changed : NULL);
		unlink(path);
	}
	cc_record_free(&r);
	cc_entry_path(dir, key, "sum", path, sizeof path);
	st = cc_record_read(path, &r, err, len);
	if (st == CC_RECORD_REFUSED)
		return FGO_EUSAGE;
	if (st == CC_RECORD_OK && !r.error && !(changed = cc_deps_changed(&r))) {
		cc_entry_path(dir, key, "so", path, sizeof path);
		if (open_object(path, &r, fd, err, len) != FGO_OK) {
			cc_record_free(&r);
			return FGO_EUSAGE;
		}
		if (*fd < 0)
			note_again(k, path, NULL);
	} else if (st != CC_RECORD_ABSENT) {
		note_again(k, path, st == CC_RECORD_OK && !r.error ? changed : NULL);
	}
	cc_record_free(&r);
	return FGO_OK;
}

/* The compiles that failed in this process, by key, with their reason:
 * a run after the precompile (session.c) does not compile again what ran
 * past its time limit or could not run (neither is cached on disk: not
 * the compiler's verdict). */
static struct failed {
	char key[17];
	char reason[FGO_REASON_MAX];
} failed[64];
static size_t nfailed;

static const char *failed_reason(const char *key)
{
	for (size_t i = 0; i < nfailed; i++)
		if (!strcmp(failed[i].key, key))
			return failed[i].reason;
	return NULL;
}

int user_cc_build(const struct fgo_user_kernel *k, const struct fgo_config *cfg, int mode,
		  int load_it, user_cpu_entry *fn, char *err, size_t len)
{
	const struct loaded *have = loaded_find(k, cfg, mode);
	struct compiler cc;
	char dir[PATH_MAX], inc[PATH_MAX + 32], srcdir[PATH_MAX], srcarg[PATH_MAX + 2];
	char path[PATH_MAX + 32], defs[CC_ARGS_MAX][64], *args[CC_ARGS_MAX], key[17];
	struct user_define d[USER_DEFINES_MAX];
	struct cc_record rec;
	uint64_t hh;
	int nargs = 0, ndefs, rc, fd;

	if (have) {
		*fn = have->fn;
		return FGO_OK;
	}
	if ((rc = compiler_find(&cc, err, len)) != FGO_OK)
		return FGO_EFAIL;
	if ((ndefs = user_defines(k, cfg, mode, d, err, len)) < 0)
		return FGO_EFAIL;
	if (user_cache_dir(dir, sizeof dir, err, len) != FGO_OK ||
	    cc_headers_dir(dir, inc, sizeof inc, &hh, err, len) != FGO_OK)
		return FGO_EFAIL;
	/* the cache's folder is "./x" or absolute (kcache_root), and so is the
	 * source's: no argument starts with '-' or '@' */
	dir_of(k->c_source, srcdir, sizeof srcdir);
	kcache_arg_path(srcdir, srcarg, sizeof srcarg);
	static char *const fixed[] = { "-std=gnu11", "-O2", "-fPIC", "-shared",
				       "-fdiagnostics-color=never", "-I" };
	for (size_t i = 0; i < FGO_ARRAY_SIZE(fixed); i++)
		args[nargs++] = fixed[i];
	args[nargs++] = inc;
	args[nargs++] = "-I";
	args[nargs++] = srcarg;
	for (int i = 0; i < ndefs; i++) {
		snprintf(defs[nargs], sizeof defs[0], "-D%s=%lld%s", d[i].name, d[i].value, d[i].suffix);
		args[nargs] = defs[nargs];
		nargs++;
	}

	/* the key: everything that changes the object */
	uint64_t h = fnv1a64(cc.id, strlen(cc.id)) ^ hh * 3;
	for (int i = 0; i < nargs; i++)
		h = h * 0x100000001b3ull ^ fnv1a64(args[i], strlen(args[i]));
	h ^= fnv1a64(k->c_text, strlen(k->c_text)) * 5;
	h ^= fnv1a64(k->c_source, strlen(k->c_source)) * 7;
	for (int i = 0; i < k->nheaders; i++)
		h ^= fnv1a64(k->header_text[i], strlen(k->header_text[i])) * (uint64_t)(11 + 2 * i);
	snprintf(key, sizeof key, "%016llx", (unsigned long long)h);

	const char *before = failed_reason(key);
	if (before) {
		snprintf(err, len, "%s", before);
		return FGO_EFAIL;
	}
	if ((rc = lookup(k, cfg, mode, dir, key, cc.path, &fd, err, len)) != FGO_OK)
		return FGO_EFAIL;
	cc_entry_path(dir, key, "so", path, sizeof path);
	if (fd < 0) {
		if (cc_compile(k, cfg, mode, &cc, args, nargs, dir, key, &rec, load_it ? &fd : NULL, err,
			       len) != FGO_OK) {
			cc_record_free(&rec);
			if (nfailed < FGO_ARRAY_SIZE(failed)) {
				snprintf(failed[nfailed].key, sizeof failed[0].key, "%s", key);
				snprintf(failed[nfailed++].reason, sizeof failed[0].reason, "%s", err);
			}
			return FGO_EFAIL;
		}
		cc_record_free(&rec);
	}
	if (!load_it) {
		if (fd >= 0)
			close(fd);
		return FGO_OK;
	}
	return load(k, cfg, mode, path, fd, fn, err, len);
}
