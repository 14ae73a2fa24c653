/* atomic_file.c: see atomic_file.h. */
#include "atomic_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fgo.h"

int atomic_open(struct atomic_file *af, const char *path, char *err, size_t len)
{
	size_t n = strlen(path) + 16;
	int fd;

	af->f = NULL;
	af->path = path;
	af->tmp = malloc(n);
	if (!af->tmp) {
		snprintf(err, len, "out of memory writing %s", path);
		return FGO_EFAIL;
	}
	snprintf(af->tmp, n, "%s.tmpXXXXXX", path);
	fd = mkstemp(af->tmp);
	if (fd >= 0 && !(af->f = fdopen(fd, "w")))
		close(fd);
	if (!af->f) {
		snprintf(err, len, "cannot write %s: %s (is its folder there and writable?)", path,
			 strerror(errno));
		if (fd >= 0)
			unlink(af->tmp);
		free(af->tmp);
		af->tmp = NULL;
		return FGO_EUSAGE;
	}
	fchmod(fd, 0644); /* mkstemp makes it 0600 */
	return FGO_OK;
}

int atomic_commit(struct atomic_file *af, char *err, size_t len)
{
	int bad = 0;
	errno = 0;
	if (af->f) {
		bad = ferror(af->f);
		bad |= fclose(af->f) != 0;
	}
	af->f = NULL;
	if (bad || rename(af->tmp, af->path) != 0) {
		snprintf(err, len, "cannot write %s: %s", af->path,
			 errno ? strerror(errno) : "a write failed");
		unlink(af->tmp);
		free(af->tmp);
		af->tmp = NULL;
		return FGO_EFAIL;
	}
	free(af->tmp);
	af->tmp = NULL;
	return FGO_OK;
}

void atomic_abort(struct atomic_file *af)
{
	if (af->f)
		fclose(af->f);
	if (af->tmp) {
		unlink(af->tmp);
		free(af->tmp);
	}
	af->f = NULL;
	af->tmp = NULL;
}
