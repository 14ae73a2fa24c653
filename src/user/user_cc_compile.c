/* user_cc_compile.c: one compile of a user kernel's C form into the
 * kernel cache (user_cc.h's cc_compile, for user_cc.c's build): the
 * embedded headers' folder, the source copied into a private temporary
 * folder (a #line keeping the user's path in messages), the compiler run
 * under its time limit (user_cc_run.c) with its dependency list, and the
 * outcome put into the cache by rename: the object and its record, or the
 * compiler's verdict (KEY.err), its message said in full once a sweep. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "embed.h"
#include "fgo.h"
#include "kcache.h"
#include "sink.h"
#include "user/user.h"
#include "user/user_cc.h"

#define COMPILE_TIMEOUT_DEFAULT 300.0

/* The compiler's time limit: the setter's (a flag), else
 * $FGOBENCH_COMPILE_TIMEOUT, else COMPILE_TIMEOUT_DEFAULT seconds. */
static double limit_set;

void user_cc_set_compile_timeout(double s)
{
	limit_set = s > 0 && isfinite(s) ? s : 0;
}

static int compile_limit(double *s, char *err, size_t len)
{
	const char *env = getenv("FGOBENCH_COMPILE_TIMEOUT");
	char *end, shown[64];
	*s = limit_set > 0 ? limit_set : COMPILE_TIMEOUT_DEFAULT;
	if (limit_set > 0 || !env || !*env)
		return FGO_OK;
	double v = strtod(env, &end);
	if (end == env || *end || !(v > 0) || !isfinite(v)) {
		sink_terminal(env, shown, sizeof shown);
		snprintf(err, len, "FGOBENCH_COMPILE_TIMEOUT \"%s\": expects the C compiler's time limit"
			 " in seconds, a number above 0 (default %g)", shown, COMPILE_TIMEOUT_DEFAULT);
		return FGO_EUSAGE;
	}
	*s = v;
	return FGO_OK;
}

/* An embedded kernels/NAME.h. */
static int is_header(const char *path)
{
	size_t n = strlen(path);
	return !strncmp(path, "kernels/", 8) && n > 10 && !strcmp(path + n - 2, ".h") &&
	       !strchr(path + 8, '/');
}

/* Whether the cache file at path holds exactly text (kcache.h's checks:
 * FGO_EUSAGE when another user's or writable by others). */
static int holds(const char *path, const char *text, int *same, char *err, size_t elen)
{
	char *data;
	size_t size, n = strlen(text);
	*same = 0;
	if (kcache_read(path, n, &data, &size, err, elen) != FGO_OK)
		return FGO_EUSAGE;
	*same = data && size == n && !memcmp(data, text, n);
	free(data);
	return FGO_OK;
}

/* The headers of kernels/ (fgo_user.h, schedule.h, ...) written into
 * DIR/include-HASH, the folder the compiler searches: embedded in the
 * binary, so they are the ones this fgobench was built with. Each is
 * compared with the embedded text whenever the folder is used, and one
 * that differs (or is a link) is written again. */
int cc_headers_dir(const char *dir, char *out, size_t len, uint64_t *hash, char *err,
		       size_t elen)
{
	uint64_t h = 0;
	for (const struct fgo_embedded_file *f = fgo_embedded; f->path; f++)
		if (is_header(f->path))
			h = h * 31 + fnv1a64(f->text, strlen(f->text)) + fnv1a64(f->path, strlen(f->path));
	*hash = h;
	snprintf(out, len, "%s/include-%016llx", dir, (unsigned long long)h);
	if (mkdir(out, 0755) != 0 && errno != EEXIST) {
		snprintf(err, elen, "cannot make the kernel cache folder %s: %s (set FGOBENCH_CACHE)", out,
			 strerror(errno));
		return FGO_EFAIL;
	}
	if (kcache_check_dir(out, err, elen) != FGO_OK)
		return FGO_EFAIL;
	for (const struct fgo_embedded_file *f = fgo_embedded; f->path; f++) {
		char path[PATH_MAX + 64];
		struct atomic_file af;
		size_t n = strlen(f->text);
		int same;
		if (!is_header(f->path))
			continue;
		snprintf(path, sizeof path, "%s/%s", out, f->path + 8);
		if (holds(path, f->text, &same, err, elen) != FGO_OK)
			return FGO_EFAIL;
		if (same)
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

/* What a configuration is, for messages: "user:x BLOCK=64 fp16 gemm-only". */
void cc_describe(const struct fgo_user_kernel *k, const struct fgo_config *cfg, int mode,
		     char *out, size_t len)
{
	static const char *const modes[] = { "fused", "gemm-only", "comm-only" };
	snprintf(out, len, "%s%s%s %s %s", k->algorithm, cfg->params[0] ? " " : "", cfg->params,
		 dtype_name(cfg->dtype), modes[mode < 0 || mode > 2 ? 0 : mode]);
}

/* Whether this process has said the thing of hash h already (and marks it
 * said): a compile error once per source and message, a note once. */
int cc_said(uint64_t h)
{
	static uint64_t seen[256];
	static size_t nseen;
	for (size_t i = 0; i < nseen; i++)
		if (seen[i] == h)
			return 1;
	if (nseen < FGO_ARRAY_SIZE(seen))
		seen[nseen++] = h;
	return 0;
}

/* The MPI job this process is a rank of, as its launcher tells it (PMIx,
 * Open MPI, Slurm): the ranks of one sweep share it. "" when none says. */
static void job_id(char *out, size_t len)
{
	const char *pmix = getenv("PMIX_NAMESPACE"), *ompi = getenv("OMPI_MCA_ess_base_jobid");
	const char *slurm = getenv("SLURM_JOB_ID"), *step = getenv("SLURM_STEP_ID");
	if (pmix && *pmix)
		snprintf(out, len, "pmix %s", pmix);
	else if (ompi && *ompi)
		snprintf(out, len, "ompi %s", ompi);
	else if (slurm && *slurm)
		snprintf(out, len, "slurm %s.%s", slurm, step ? step : "");
	else
		out[0] = 0;
}

/* Whether another rank of this MPI job said the message of hash h: the
 * ranks share the work of a precompile, so each would say what it met.
 * dir/said-HASH holds the job that said it last (the user's cache
 * folder, checked; a lock orders the ranks). */
static int said_by_job(const char *dir, uint64_t h)
{
	char job[256], have[256], path[PATH_MAX + 32];
	struct stat sb;
	int same = 0;
	job_id(job, sizeof job);
	if (!job[0])
		return 0;
	snprintf(path, sizeof path, "%s/said-%016llx", dir, (unsigned long long)h);
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd < 0)
		return 0;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == geteuid() &&
	    flock(fd, LOCK_EX) == 0) {
		ssize_t n = pread(fd, have, sizeof have - 1, 0);
		have[n > 0 ? n : 0] = 0;
		same = !strcmp(have, job);
		if (!same && (ftruncate(fd, 0) != 0 || pwrite(fd, job, strlen(job), 0) < 0))
			same = 0;
		flock(fd, LOCK_UN);
	}
	close(fd);
	return same;
}

void cc_say_error(const struct fgo_user_kernel *k, const char *dir, const char *what,
		  const char *cc, int status, const char *log, int cached)
{
	uint64_t h = fnv1a64(k->c_source, strlen(k->c_source)) ^ fnv1a64(log, strlen(log)) * 3;
	if (cc_said(h) || said_by_job(dir, h))
		return;
	error("%s: %s does not compile (%s exit status %d%s):\n%s", what, k->c_source, cc, status,
	      cached ? "; the message the kernel cache kept" : "", log);
}

/* The cache's names for key: dir/KEY.so, .sum (the object's record), .err. */
void cc_entry_path(const char *dir, const char *key, const char *ext, char *out, size_t len)
{
	snprintf(out, len, "%s/%s.%s", dir, key, ext);
}

int cc_compile(const struct fgo_user_kernel *k, const struct fgo_config *cfg, int mode,
	       const struct compiler *cc, char *const *args, int nargs, const char *dir,
	       const char *key, struct cc_record *rec, int *objfd, char *err, size_t len)
{
	char tmp[PATH_MAX + 16], src[PATH_MAX + 32], obj[PATH_MAX + 32], dep[PATH_MAX + 32];
	char final[PATH_MAX + 48], real[PATH_MAX];
	char *argv[CC_ARGS_MAX + 16], quoted[PATH_MAX * 4 + 1], what[FGO_PARAMS_MAX + 96];
	char *log = malloc(CC_LOG_MAX), *clean = malloc(CC_LOG_MAX * 4);
	int status, n = 0, rc = FGO_EFAIL;
	double limit;
	FILE *f;
	memset(rec, 0, sizeof *rec);
	if (objfd)
		*objfd = -1;
	if (!log || !clean) {
		snprintf(err, len, "out of memory");
		free(log);
		free(clean);
		return FGO_EFAIL;
	}
	if (compile_limit(&limit, err, len) != FGO_OK) {
		free(log);
		free(clean);
		return FGO_EFAIL;
	}
	snprintf(tmp, sizeof tmp, "%s/tmp.XXXXXX", dir);
	if (!mkdtemp(tmp)) {
		snprintf(err, len, "cannot make a folder in %s: %s (set FGOBENCH_CACHE)", dir,
			 strerror(errno));
		free(log);
		free(clean);
		return FGO_EFAIL;
	}
	if (!realpath(tmp, real)) {
		snprintf(err, len, "cannot resolve %s: %s", tmp, strerror(errno));
		goto out;
	}
	snprintf(src, sizeof src, "%s/kernel.c", tmp);
	snprintf(obj, sizeof obj, "%s/kernel.so", tmp);
	snprintf(dep, sizeof dep, "%s/kernel.d", tmp);
	c_quote(k->c_source, quoted, sizeof quoted);
	cc_describe(k, cfg, mode, what, sizeof what);
	/* the folder is new and ours alone (mkdtemp, 0700): no link is there */
	if (!(f = fopen(src, "wx")) || fprintf(f, "#line 1 \"%s\"\n%s", quoted, k->c_text) < 0 ||
	    fclose(f) != 0) {
		snprintf(err, len, "cannot write %s: %s", src, strerror(errno));
		goto out;
	}
	argv[n++] = (char *)cc->path;
	for (int i = 0; i < nargs; i++)
		argv[n++] = args[i];
	/* the files the compile reads, for the record (target "fgobench") */
	argv[n++] = "-MD";
	argv[n++] = "-MT";
	argv[n++] = "fgobench";
	argv[n++] = "-MF";
	argv[n++] = dep;
	argv[n++] = "-o";
	argv[n++] = obj;
	argv[n++] = src;
	argv[n] = NULL;
	status = cc_run(argv, real, limit, log, CC_LOG_MAX);
	if (status == CC_TIMED_OUT) {
		snprintf(err, len, "does not compile (%s): the compiler ran past its limit of %g s"
			 " (--compile-timeout, FGOBENCH_COMPILE_TIMEOUT) and was stopped (does %s include"
			 " a FIFO or a device?)", what, limit, k->c_source);
		goto out;
	}
	cc_deps_read(dep, rec);
	if (status == 0 && access(obj, R_OK) == 0) {
		char *data = NULL;
		size_t got = 0;
		struct stat sb;
		/* the object's bytes as the compiler left them, in the folder only
		 * this process writes: hashed, and (objfd) loaded through this
		 * descriptor, whatever another rank renames over the name */
		int fd = open(obj, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size < CC_OBJECT_MAX &&
		    (data = malloc((size_t)sb.st_size + 1)))
			while (got < (size_t)sb.st_size) {
				ssize_t r = read(fd, data + got, (size_t)sb.st_size - got);
				if (r < 0 && errno == EINTR)
					continue;
				if (r <= 0)
					break;
				got += (size_t)r;
			}
		if (!data || got != (size_t)sb.st_size) {
			snprintf(err, len, "cannot read the compiled kernel %s", obj);
			free(data);
			if (fd >= 0)
				close(fd);
			goto out;
		}
		rec->object_hash = fnv1a64(data, got);
		rec->object_size = (long long)got;
		free(data);
		cc_entry_path(dir, key, "so", final, sizeof final);
		if (rename(obj, final) != 0) {
			snprintf(err, len, "cannot put the compiled kernel into %s: %s", dir, strerror(errno));
			close(fd);
			goto out;
		}
		cc_entry_path(dir, key, "sum", final, sizeof final);
		if (cc_record_write(final, rec, err, len) != FGO_OK) {
			close(fd);
			goto out;
		}
		/* an error cached before a header it includes was mended */
		cc_entry_path(dir, key, "err", final, sizeof final);
		unlink(final);
		if (objfd)
			*objfd = fd;
		else
			close(fd);
		rc = FGO_OK;
		goto out;
	}
	/* said whole, once, by the process that compiled it; the run's reason
	 * is its first error line */
	char line[FGO_REASON_MAX];
	cc_clean(log, clean, CC_LOG_MAX * 4);
	first_error(clean, line, sizeof line);
	cc_say_error(k, dir, what, cc->path, status, clean, 0);
	snprintf(err, len, "does not compile (%s): %s", what, line);
	/* only the compiler's verdict is kept: not a compiler that could not run */
	if (status > 0 && status < 128) {
		char why[256];
		rec->error = 1;
		rec->status = status;
		snprintf(rec->reason, sizeof rec->reason, "%s", err);
		rec->log = clean;
		cc_entry_path(dir, key, "err", final, sizeof final);
		cc_record_write(final, rec, why, sizeof why);
		rec->log = NULL;
	}
out:
	cc_remove_dir(tmp);
	free(log);
	free(clean);
	return rc;
}

