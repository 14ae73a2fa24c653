/* test_atomic_file.c: a file written whole or not at all (src/atomic_file.c):
 * the committed text and its mode, the old file kept on abort, no
 * temporary left behind, a missing folder refused with the reason. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "fgo.h"
#include "testlib.h"

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;
	buf[n] = 0;
	if (f)
		fclose(f);
}

/* Entries of dir other than . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	if (d)
		closedir(d);
	return n;
}

int main(void)
{
	char dir[] = "/tmp/fgo-atomic-XXXXXX", path[64], missing[96], err[256], text[64];
	struct atomic_file af;
	struct stat sb;

	if (!mkdtemp(dir)) {
		printf("FAIL atomic-setup: mkdtemp\n");
		return 1;
	}
	snprintf(path, sizeof path, "%s/report.md", dir);

	T_EQ_INT("open", atomic_open(&af, path, err, sizeof err), FGO_OK);
	fputs("first\n", af.f);
	T_CHECK("not-there-before-commit", stat(path, &sb) != 0, "%s exists before the commit", path);
	T_EQ_INT("commit", atomic_commit(&af, err, sizeof err), FGO_OK);
	slurp(path, text, sizeof text);
	T_EQ_STR("committed-text", text, "first\n");
	T_CHECK("mode-0644", stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0644, "mode %o",
		(unsigned)(sb.st_mode & 0777));

	T_EQ_INT("open-again", atomic_open(&af, path, err, sizeof err), FGO_OK);
	fputs("second, never committed\n", af.f);
	atomic_abort(&af);
	slurp(path, text, sizeof text);
	T_EQ_STR("abort-keeps-old", text, "first\n");
	T_EQ_INT("no-temporary-left", entries(dir), 1);

	snprintf(missing, sizeof missing, "%s/no/such/folder/x.md", dir);
	T_EQ_INT("missing-folder", atomic_open(&af, missing, err, sizeof err), FGO_EUSAGE);
	T_CONTAINS("missing-folder-reason", err, "is its folder there and writable?");

	unlink(path);
	rmdir(dir);
	T_DONE();
}
