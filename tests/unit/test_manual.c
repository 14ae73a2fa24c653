/* test_manual.c: a command's man page is found beside the binary, without
 * make install (issue 50): cmd_manual_path finds man/fgobench-NAME.1 of the
 * checkout from build/tests (as from ./fgobench or build/cuda/fgobench),
 * --help (cmd_help) says `man -l PATH` after the synopsis, and cmd_manual
 * (`fgobench help NAME`) shows the page through man, or the usage text
 * where man cannot run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "testlib.h"

/* What f printed to stdout, with stdout sent to a file meanwhile. */
static char *captured(int (*f)(const char *, const char *), const char *a, const char *b,
		      int *rc)
{
	char path[] = "/tmp/fgobench-manual.XXXXXX";
	int fd = mkstemp(path);
	char *text = calloc(1, 1 << 20);
	if (fd < 0 || !text)
		return text ? text : strdup("");
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	dup2(fd, STDOUT_FILENO);
	*rc = f(a, b);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	ssize_t n = read(fd, text, (1 << 20) - 1);
	text[n > 0 ? n : 0] = 0;
	close(fd);
	unlink(path);
	return text;
}

static int help(const char *usage, const char *unused)
{
	(void)unused;
	return cmd_help(usage);
}

int main(void)
{
	char page[4096], want[4096], cwd[2048];
	/* the tests run from the repository root; the binary is build/tests/ */
	if (!getcwd(cwd, sizeof cwd))
		cwd[0] = 0;
	T_EQ_INT("path-found", cmd_manual_path("best", page, sizeof page), 0);
	snprintf(want, sizeof want, "%s/man/fgobench-best.1", cwd);
	T_EQ_STR("path-beside-binary", page, want);
	T_EQ_INT("path-none", cmd_manual_path("nope", page, sizeof page), -1);
	T_EQ_INT("path-empty", cmd_manual_path("", page, sizeof page), -1);

	int rc = -1;
	char *out = captured(help, cmd_best_usage, NULL, &rc);
	T_EQ_INT("help-rc", rc, 0);
	T_CONTAINS("help-synopsis-first", out, "usage: fgobench best [--m M]");
	snprintf(want, sizeof want, "\n\nThe manual: man -l %s/man/fgobench-best.1\n\nFor each", cwd);
	T_CONTAINS("help-names-the-page", out, want);
	free(out);

	/* man reads the page (its NAME line), not the usage text */
	if (system("command -v man >/dev/null 2>&1") == 0) {
		out = captured(cmd_manual, "best", cmd_best_usage, &rc);
		T_EQ_INT("manual-rc", rc, 0);
		T_CHECK("manual-is-the-page",
			strstr(out, "fgobench-best") && !strstr(out, "usage: fgobench"),
			"man -l did not show the page: %.200s", out);
		free(out);
	} else {
		printf("SKIP manual-is-the-page: no man on this machine\n");
	}

	/* no man to run: the usage text */
	setenv("PATH", "/nonexistent-fgobench", 1);
	out = captured(cmd_manual, "best", cmd_best_usage, &rc);
	T_EQ_INT("manual-no-man-rc", rc, 0);
	T_CONTAINS("manual-no-man-usage", out, "usage: fgobench best [--m M]");
	free(out);
	T_DONE();
}
