/* user_cc.c: a user kernel's C form built for the CPU backend (user.h's
 * user_cc_build): compiled with the system compiler ($FGOBENCH_CC, else
 * cc) into a shared object in the kernel cache, keyed by a hash of the
 * compiler, its arguments (user_defines: the tunables' macros, FGO_DTYPE,
 * FGO_MODE, the problem's with "shape_macros"), the source and every
 * header it may include, then loaded with dlopen. A
 * compile error is cached too (KEY.err, the compiler's message), so the
 * ranks that find it say nothing more and nobody compiles it twice.
 *
 * Text from manifests and sources is data: the compiler runs from an
 * argument vector (posix_spawn, no shell), the source it compiles is the
 * text that was hashed (copied into a private temporary folder, a #line
 * keeping the user's path in messages), and every file enters the cache by
 * rename, never by writing through a name that could be a link. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic_file.h"
#include "embed.h"
#include "fgo.h"
#include "user/user.h"

extern char **environ;

#define LOG_MAX 16384 /* bytes of compiler output kept */
#define ARGS_MAX (16 + 2 * USER_DEFINES_MAX)

void user_cache_dir(char *out, size_t len)
{
	const char *env = getenv("FGOBENCH_CACHE"), *home = getenv("HOME");
	if (env && *env)
		snprintf(out, len, "%s/user", env);
	else
		snprintf(out, len, "%s/.cache/fgobench/user", home && *home ? home : "/tmp");
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

/* The compiler: its path (found on $PATH as execvp would) and what
 * identifies its version in the cache key (size and time of the file). */
struct compiler {
	char path[PATH_MAX];
	char id[PATH_MAX + 64];
};

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

/* An embedded kernels/NAME.h. */
static int is_header(const char *path)
{
	size_t n = strlen(path);
	return !strncmp(path, "kernels/", 8) && n > 10 && !strcmp(path + n - 2, ".h") &&
	       !strchr(path + 8, '/');
}

/* The headers of kernels/ (fgo_user.h, schedule.h, ...) written into
 * DIR/include-HASH, the folder the compiler searches: embedded in the
 * binary, so they are the ones this fgobench was built with. */
static int headers_dir(const char *dir, char *out, size_t len, uint64_t *hash, char *err,
		       size_t elen)
{
	uint64_t h = 0;
	for (const struct fgo_embedded_file *f = fgo_embedded; f->path; f++)
		if (is_header(f->path))
			h = h * 31 + fnv1a64(f->text, strlen(f->text)) + fnv1a64(f->path, strlen(f->path));
	*hash = h;
	snprintf(out, len, "%s/include-%016llx", dir, (unsigned long long)h);
	/* the folders fgobench makes hold only what it wrote: one that is a
	 * link (to a folder of someone else's choosing) is refused, before
	 * anything is made in it */
	const char *made[] = { dir, out };
	for (int i = 0; i < 2; i++) {
		struct stat sb;
		if (make_dirs(made[i], err, elen) != FGO_OK)
			return FGO_EFAIL;
		if (lstat(made[i], &sb) != 0 || !S_ISDIR(sb.st_mode)) {
			snprintf(err, elen, "the kernel cache folder %s is not a folder (a symbolic link?):"
				 " fgobench writes nothing through a link (remove it, or set FGOBENCH_CACHE)",
				 made[i]);
			return FGO_EFAIL;
		}
	}
	for (const struct fgo_embedded_file *f = fgo_embedded; f->path; f++) {
		struct stat sb;
		char path[PATH_MAX + 64];
		struct atomic_file af;
		size_t n = strlen(f->text);
		if (!is_header(f->path))
			continue;
		snprintf(path, sizeof path, "%s/%s", out, f->path + 8);
		/* written once; a link or a file of another size is replaced */
		if (lstat(path, &sb) == 0 && S_ISREG(sb.st_mode) && (size_t)sb.st_size == n)
			continue;
		if (atomic_open(&af, path, err, elen) != FGO_OK)
			return FGO_EFAIL;
		if (fwrite(f->text, 1, n, af.f) != n) {
			atomic_abort(&af);
			snprintf(err, elen, "cannot write %s", path);
			return FGO_EFAIL;
		}
		if (atomic_commit(&af, err, elen) != FGO_OK)
			return FGO_EFAIL;
	}
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

/* path as a C string literal's contents, for #line. */
static void c_quote(const char *path, char *out, size_t len)
{
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)path; *p && o + 5 < len; p++) {
		if (*p == '"' || *p == '\\')
			o += (size_t)snprintf(out + o, len - o, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			o += (size_t)snprintf(out + o, len - o, "\\%03o", *p);
		else
			out[o++] = (char)*p;
	}
	out[o] = 0;
}

/* Runs argv with stdout and stderr into log (up to LOG_MAX bytes); the
 * exit status in *status (-1: it could not start, why in log). */
static void run_compiler(char *const *argv, char *log, size_t len, int *status)
{
	int p[2], ws = 0;
	pid_t pid;
	posix_spawn_file_actions_t fa;
	size_t got = 0;
	log[0] = 0;
	*status = -1;
	if (pipe(p) != 0) {
		snprintf(log, len, "cannot make a pipe: %s", strerror(errno));
		return;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	posix_spawn_file_actions_addclose(&fa, p[1]);
	int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (rc != 0) {
		close(p[0]);
		snprintf(log, len, "cannot run %s: %s", argv[0], strerror(rc));
		return;
	}
	for (;;) {
		char buf[4096];
		ssize_t n = read(p[0], buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		size_t keep = got + (size_t)n < len - 1 ? (size_t)n : len - 1 - got;
		memcpy(log + got, buf, keep);
		got += keep;
	}
	log[got] = 0;
	close(p[0]);
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + (WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
}

/* The line of log that says what is wrong (the first "error", else the
 * first line), into out. */
static void first_error(const char *log, char *out, size_t len)
{
	const char *at = strstr(log, "error");
	const char *start = at ? at : log;
	while (at && start > log && start[-1] != '\n')
		start--;
	size_t n = strcspn(start, "\n");
	snprintf(out, len, "%.*s", (int)n, start);
}

/* Reads a regular file (never through a link) into a malloc'd string. */
static char *read_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat sb;
	char *text = NULL;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size < LOG_MAX * 4 &&
	    (text = malloc((size_t)sb.st_size + 1))) {
		ssize_t n = read(fd, text, (size_t)sb.st_size);
		text[n > 0 ? n : 0] = 0;
	}
	close(fd);
	return text;
}

/* What a configuration is, for messages: "user:x BLOCK=64 fp16 gemm-only". */
static void describe(const struct fgo_user_kernel *k, const struct fgo_config *cfg, int mode,
		     char *out, size_t len)
{
	static const char *const modes[] = { "fused", "gemm-only", "comm-only" };
	snprintf(out, len, "%s%s%s %s %s", k->algorithm, cfg->params[0] ? " " : "", cfg->params,
		 dtype_name(cfg->dtype), modes[mode < 0 || mode > 2 ? 0 : mode]);
}

/* Compiles into dir/key.so (or dir/key.err). FGO_OK or FGO_EFAIL (reason in err). */
static int compile(const struct fgo_user_kernel *k, const struct fgo_config *cfg, int mode,
		   const struct compiler *cc, char *const *args, int nargs, const char *dir,
		   const char *key, char *err, size_t len)
{
	char tmp[PATH_MAX + 16], src[PATH_MAX + 32], obj[PATH_MAX + 32], final[PATH_MAX + 48];
	char *argv[ARGS_MAX + 8], quoted[PATH_MAX * 4 + 1], what[FGO_PARAMS_MAX + 96];
	char *log = malloc(LOG_MAX);
	int status, n = 0, rc = FGO_EFAIL;
	FILE *f;
	if (!log) {
		snprintf(err, len, "out of memory");
		return FGO_EFAIL;
	}
	snprintf(tmp, sizeof tmp, "%s/tmp.XXXXXX", dir);
	if (!mkdtemp(tmp)) {
		snprintf(err, len, "cannot make a folder in %s: %s (set FGOBENCH_CACHE)", dir,
			 strerror(errno));
		free(log);
		return FGO_EFAIL;
	}
	snprintf(src, sizeof src, "%s/kernel.c", tmp);
	snprintf(obj, sizeof obj, "%s/kernel.so", tmp);
	c_quote(k->c_source, quoted, sizeof quoted);
	/* the folder is new and ours alone (mkdtemp, 0700): no link is there */
	if (!(f = fopen(src, "wx")) || fprintf(f, "#line 1 \"%s\"\n%s", quoted, k->c_text) < 0 ||
	    fclose(f) != 0) {
		snprintf(err, len, "cannot write %s: %s", src, strerror(errno));
		goto out;
	}
	argv[n++] = (char *)cc->path;
	for (int i = 0; i < nargs; i++)
		argv[n++] = args[i];
	argv[n++] = "-o";
	argv[n++] = obj;
	argv[n++] = src;
	argv[n] = NULL;
	run_compiler(argv, log, LOG_MAX, &status);
	describe(k, cfg, mode, what, sizeof what);
	if (status == 0 && access(obj, R_OK) == 0) {
		snprintf(final, sizeof final, "%s/%s.so", dir, key);
		if (rename(obj, final) != 0)
			snprintf(err, len, "cannot put the compiled kernel into %s: %s", dir,
				 strerror(errno));
		else
			rc = FGO_OK;
		goto out;
	}
	/* said whole, once, by the process that compiled it; the run's reason
	 * is its first error line */
	for (char *p = log; *p; p++)
		if (((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
			*p = '?';
	char line[FGO_REASON_MAX];
	first_error(log, line, sizeof line);
	error("%s: %s does not compile (%s exit status %d):\n%s", what, k->c_source, cc->path, status,
	      log);
	snprintf(err, len, "does not compile (%s): %s", what, line);
	struct atomic_file af;
	char why[256];
	snprintf(final, sizeof final, "%s/%s.err", dir, key);
	/* only the compiler's verdict is kept: not a compiler that could not run */
	if (status > 0 && status < 128 && atomic_open(&af, final, why, sizeof why) == FGO_OK) {
		fprintf(af.f, "%s", err);
		atomic_commit(&af, why, sizeof why);
	}
out:
	unlink(src);
	unlink(obj);
	rmdir(tmp);
	free(log);
	return rc;
}

/* Loads dir/key.so (a regular file, never through a link). */
static int load(const struct fgo_user_kernel *k, const struct fgo_config *cfg, int mode,
		const char *path, user_cpu_entry *fn, char *err, size_t len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat sb;
	char via[64];
	void *h = NULL;
	if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
		/* through the descriptor: the file opened is the file loaded. It
		 * stays open, so no later library gets the same name (the loader
		 * takes a name it has loaded for that library) */
		snprintf(via, sizeof via, "/proc/self/fd/%d", fd);
		h = dlopen(via, RTLD_NOW | RTLD_LOCAL);
	}
	if (!h && fd >= 0)
		close(fd);
	if (!h) {
		const char *why = dlerror();
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

int user_cc_build(const struct fgo_user_kernel *k, const struct fgo_config *cfg, int mode,
		  int load_it, user_cpu_entry *fn, char *err, size_t len)
{
	const struct loaded *have = loaded_find(k, cfg, mode);
	struct compiler cc;
	char dir[PATH_MAX], inc[PATH_MAX + 32], srcdir[PATH_MAX], path[PATH_MAX + 32];
	char defs[ARGS_MAX][64], *args[ARGS_MAX], key[17];
	struct user_define d[USER_DEFINES_MAX];
	uint64_t hh;
	int nargs = 0, ndefs, rc;

	if (have) {
		*fn = have->fn;
		return FGO_OK;
	}
	if ((rc = compiler_find(&cc, err, len)) != FGO_OK)
		return FGO_EFAIL;
	if ((ndefs = user_defines(k, cfg, mode, d, err, len)) < 0)
		return FGO_EFAIL;
	user_cache_dir(dir, sizeof dir);
	if (headers_dir(dir, inc, sizeof inc, &hh, err, len) != FGO_OK)
		return FGO_EFAIL;
	dir_of(k->c_source, srcdir, sizeof srcdir);
	static char *const fixed[] = { "-std=gnu11", "-O2", "-fPIC", "-shared",
				       "-fdiagnostics-color=never", "-I" };
	for (size_t i = 0; i < FGO_ARRAY_SIZE(fixed); i++)
		args[nargs++] = fixed[i];
	args[nargs++] = inc;
	args[nargs++] = "-I";
	args[nargs++] = srcdir;
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

	snprintf(path, sizeof path, "%s/%s.err", dir, key);
	char *cached_err = read_file(path);
	if (cached_err) {
		snprintf(err, len, "%s", cached_err);
		free(cached_err);
		return FGO_EFAIL;
	}
	snprintf(path, sizeof path, "%s/%s.so", dir, key);
	struct stat sb;
	if ((lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) &&
	    (rc = compile(k, cfg, mode, &cc, args, nargs, dir, key, err, len)) != FGO_OK)
		return rc;
	if (!load_it)
		return FGO_OK;
	return load(k, cfg, mode, path, fn, err, len);
}
