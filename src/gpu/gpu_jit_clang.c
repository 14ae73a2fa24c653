/* gpu_jit_clang.c: HIP kernels through a clang process (see gpu_jit_clang.h).
 * The source and its headers go to a private temporary folder, clang runs
 * there (posix_spawn, no shell: options are data), the code object is read
 * back and the folder removed. */
#include "gpu/gpu_jit_clang.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fgo.h"

extern char **environ;

/* 1 when `name` is an executable on PATH (or a path to one). */
static int on_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];
	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, name);
		if (n && access(buf, X_OK) == 0)
			return 1;
		p += n + (p[n] == ':');
	}
	return 0;
}

const char *gpu_hip_compiler(void)
{
	static const char *const clangs[] = { "clang++-19", "clang++-20", "clang++-18" };
	static char chosen[512];
	const char *env = getenv("FGOBENCH_HIP_COMPILER");
	if (chosen[0])
		return chosen;
	if (env && *env)
		snprintf(chosen, sizeof chosen, "%s", env);
	else if (access("/opt/rocm/include/hip/hip_runtime.h", F_OK) == 0)
		snprintf(chosen, sizeof chosen, "hiprtc");
	for (size_t i = 0; !chosen[0] && i < FGO_ARRAY_SIZE(clangs); i++)
		if (on_path(clangs[i]))
			snprintf(chosen, sizeof chosen, "%s", clangs[i]);
	if (!chosen[0])
		snprintf(chosen, sizeof chosen, "hiprtc");
	return chosen;
}

/* Runs argv with stdout and stderr to the file log; its exit status, or
 * -1 when it could not start. */
static int run(char *const *argv, const char *log)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status = 0, rc;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	posix_spawn_file_actions_addclose(&fa, 0);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* The whole file at path, malloc'd (NUL-terminated); NULL if unreadable. */
static char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		buf[n] = 0;
		*size = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static int spill(const char *dir, const char *name, const char *text)
{
	char path[1200];
	FILE *f;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (strchr(name, '/') || !(f = fopen(path, "wb")))
		return -1;
	size_t n = strlen(text);
	int ok = fwrite(text, 1, n, f) == n;
	return fclose(f) == 0 && ok ? 0 : -1;
}

const char *gpu_clang_version(const char *clang)
{
	static char version[256];
	char dir[] = "/tmp/fgobench-clang-XXXXXX", log[128];
	char *argv[] = { (char *)clang, (char *)"--version", NULL };
	size_t n = 0;
	char *text;
	if (version[0])
		return version;
	if (!mkdtemp(dir))
		return "";
	snprintf(log, sizeof log, "%s/version", dir);
	if (run(argv, log) == 0 && (text = slurp(log, &n))) {
		snprintf(version, sizeof version, "%.*s", (int)strcspn(text, "\n"), text);
		free(text);
	}
	unlink(log);
	rmdir(dir);
	return version;
}

int gpu_clang_compile(const char *clang, const char *source, const char *text, int n_headers,
		      const char **names, const char **texts, const char *opts,
		      const char *arch, void **image, size_t *size, char *err, size_t len)
{
	char dir[] = "/tmp/fgobench-clang-XXXXXX", src[128], out[128], log[128], inc[128], target[96];
	char work[2048], *argv[96];
	int argc = 0, rc = FGO_EFAIL, status;
	char *save = NULL;

	*image = NULL;
	*size = 0;
	if (!mkdtemp(dir)) {
		snprintf(err, len, "cannot make a temporary folder for clang: %s", strerror(errno));
		return FGO_EFAIL;
	}
	const char *base = strrchr(source, '/') ? strrchr(source, '/') + 1 : source;
	snprintf(src, sizeof src, "%s/%s", dir, base);
	snprintf(out, sizeof out, "%s/kernel.co", dir);
	snprintf(log, sizeof log, "%s/log", dir);
	snprintf(inc, sizeof inc, "-I%s", dir);
	snprintf(target, sizeof target, "--offload-arch=%s", arch);
	int ok = spill(dir, base, text) == 0;
	for (int i = 0; ok && i < n_headers; i++)
		ok = spill(dir, names[i], texts[i]) == 0;
	if (!ok) {
		snprintf(err, len, "cannot write the kernel source to %s", dir);
		goto cleanup;
	}
	static const char *const fixed[] = { "-x", "hip", "-nogpulib", "-nogpuinc", "--cuda-device-only",
					     "--no-gpu-bundle-output", "-O3", "-std=c++17",
					     "-DFGO_HIP_BARE=1", "-w" };
	argv[argc++] = (char *)clang;
	argv[argc++] = target;
	for (size_t i = 0; i < FGO_ARRAY_SIZE(fixed); i++)
		argv[argc++] = (char *)fixed[i];
	snprintf(work, sizeof work, "%s", opts);
	for (char *p = strtok_r(work, " ", &save); p && argc < 88; p = strtok_r(NULL, " ", &save))
		argv[argc++] = p;
	argv[argc++] = inc;
	argv[argc++] = (char *)"-c";
	argv[argc++] = src;
	argv[argc++] = (char *)"-o";
	argv[argc++] = out;
	argv[argc] = NULL;
	status = run(argv, log);
	if (status < 0) {
		snprintf(err, len, "cannot run %s (install clang-19 and lld-19, or set FGOBENCH_HIP_COMPILER)",
			 clang);
	} else if (status != 0) {
		size_t n = 0;
		char *l = slurp(log, &n), *first = l ? strstr(l, "error:") : NULL;
		for (char *p = l; p && *p; p++)
			if (*p == '\n')
				*p = ' ';
		snprintf(err, len, "does not compile for %s: %.400s", arch, first ? first : l ? l : "(no log)");
		free(l);
		rc = FGO_EUSAGE;
	} else if (!(*image = slurp(out, size))) {
		snprintf(err, len, "%s wrote no code object", clang);
	} else {
		rc = FGO_OK;
	}
cleanup:
	unlink(src);
	unlink(out);
	unlink(log);
	for (int i = 0; i < n_headers; i++) {
		char p[1200];
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
	return rc;
}
