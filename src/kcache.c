/* kcache.c: the kernel cache's folder and the checks that let fgobench
 * trust what it reads there (kcache.h; docs/kernel-cache.md). */
#include "kcache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fgo.h"
#include "sink.h"

void kcache_arg_path(const char *path, char *out, size_t len)
{
	int plain = path[0] == '/' || !strncmp(path, "./", 2) || !strncmp(path, "../", 3) ||
		    !strcmp(path, ".") || !strcmp(path, "..");
	snprintf(out, len, "%s%s", plain ? "" : "./", path);
}

int kcache_root(char *out, size_t len, char *err, size_t elen)
{
	const char *env = getenv("FGOBENCH_CACHE"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char raw[PATH_MAX];
	int n;
	/* XDG_CACHE_HOME and HOME count only when absolute (the XDG rule): a
	 * relative one would put the cache wherever fgobench happens to run */
	if (env && *env)
		n = snprintf(raw, sizeof raw, "%s", env);
	else if (xdg && xdg[0] == '/')
		n = snprintf(raw, sizeof raw, "%s/fgobench", xdg);
	else if (home && home[0] == '/')
		n = snprintf(raw, sizeof raw, "%s/.cache/fgobench", home);
	else {
		snprintf(err, elen, "no folder for the kernel cache: FGOBENCH_CACHE, XDG_CACHE_HOME and"
			 " HOME are not set (or not absolute paths); set FGOBENCH_CACHE to a folder of"
			 " your own");
		return FGO_EUSAGE;
	}
	for (const unsigned char *p = (const unsigned char *)raw; *p; p++)
		if (*p < 0x20 || *p == 0x7f) {
			snprintf(err, elen, "the kernel cache's folder name holds a control character"
				 " (byte 0x%02x): set FGOBENCH_CACHE to a plain folder name", *p);
			return FGO_EUSAGE;
		}
	if (n < 0 || (size_t)n >= sizeof raw || (size_t)n + 3 > len) {
		snprintf(err, elen, "the kernel cache's folder name is too long: set FGOBENCH_CACHE to"
			 " a shorter one");
		return FGO_EUSAGE;
	}
	kcache_arg_path(raw, out, len);
	return FGO_OK;
}

/* The owner and mode rule for what fgobench reads in the cache: the
 * user's, writable by nobody else. what: "folder" or "file". */
static int check_mode(const char *path, const struct stat *sb, const char *what, char *err,
		      size_t elen)
{
	char word[PATH_MAX + 64];
	uid_t me = geteuid();
	sink_shell(path, word, sizeof word);
	if (sb->st_uid != me) {
		snprintf(err, elen, "the kernel cache %s %s belongs to user %u, not to you (user %u):"
			 " fgobench runs the code it finds in its cache, so the cache must be yours alone;"
			 " %sset FGOBENCH_CACHE to a folder of your own", what, path,
			 (unsigned)sb->st_uid, (unsigned)me,
			 !strcmp(what, "file") ? "remove the file, or " : "");
		return FGO_EUSAGE;
	}
	if (sb->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, elen, "the kernel cache %s %s is writable by %s (mode %04o): fgobench runs"
			 " the code it finds in its cache, so nobody else may write there; run chmod go-w %s,"
			 " or set FGOBENCH_CACHE to a folder of your own", what, path,
			 (sb->st_mode & S_IWOTH) ? "others" : "its group",
			 (unsigned)(sb->st_mode & 07777), word);
		return FGO_EUSAGE;
	}
	return FGO_OK;
}

int kcache_check_dir(const char *path, char *err, size_t elen)
{
	struct stat sb;
	if (lstat(path, &sb) != 0) {
		snprintf(err, elen, "cannot read the kernel cache folder %s: %s", path, strerror(errno));
		return FGO_EUSAGE;
	}
	if (!S_ISDIR(sb.st_mode)) {
		snprintf(err, elen, "the kernel cache folder %s is not a folder (a symbolic link?):"
			 " fgobench writes nothing through a link (remove it, or set FGOBENCH_CACHE)", path);
		return FGO_EUSAGE;
	}
	return check_mode(path, &sb, "folder", err, elen);
}

/* Every folder above real (a resolved path, no links): the user's or
 * root's, and writable by others only with the sticky bit (as /tmp), so
 * no other user can rename the cache away and put another in its place. */
static int check_above(const char *real, char *err, size_t elen)
{
	char path[PATH_MAX];
	uid_t me = geteuid();
	snprintf(path, sizeof path, "%s", real);
	for (char *slash = strrchr(path, '/'); slash; slash = strrchr(path, '/')) {
		struct stat sb;
		if (slash == path) {
			if (!path[1])
				break;
			path[1] = 0; /* the root folder, last */
		} else {
			*slash = 0;
		}
		if (lstat(path, &sb) != 0)
			continue;
		if (sb.st_uid != me && sb.st_uid != 0) {
			snprintf(err, elen, "the folder %s above the kernel cache %s belongs to user %u (not"
				 " to you or root): its owner could put another cache in place of yours; set"
				 " FGOBENCH_CACHE to a folder of your own", path, real, (unsigned)sb.st_uid);
			return FGO_EUSAGE;
		}
		if ((sb.st_mode & (S_IWGRP | S_IWOTH)) && !(sb.st_mode & S_ISVTX)) {
			snprintf(err, elen, "the folder %s above the kernel cache %s is writable by %s"
				 " (mode %04o, no sticky bit): anyone who can write there could put another"
				 " cache in place of yours; set FGOBENCH_CACHE to a folder under one only you"
				 " can write", path, real, (sb.st_mode & S_IWOTH) ? "others" : "its group",
				 (unsigned)(sb.st_mode & 07777));
			return FGO_EUSAGE;
		}
	}
	return FGO_OK;
}

/* mkdir -p with mode 0755 (not the umask's 0775 or 0777, which the check
 * would refuse). */
static int make_folders(const char *dir, char *err, size_t elen)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s", dir);
	for (char *p = path + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = 0;
		if (mkdir(path, 0755) != 0 && errno != EEXIST) {
			snprintf(err, elen, "cannot make the kernel cache folder %s: %s (set"
				 " FGOBENCH_CACHE to a folder of your own)", path, strerror(errno));
			return FGO_EUSAGE;
		}
		*p = c;
		if (!c)
			break;
	}
	return FGO_OK;
}

int kcache_dir(const char *sub, char *out, size_t len, char *err, size_t elen)
{
	char root[PATH_MAX], there[PATH_MAX], real[PATH_MAX];
	struct stat sb;
	if (kcache_root(root, sizeof root, err, elen) != FGO_OK)
		return FGO_EUSAGE;
	/* the folders above first, from the nearest that is there: nothing is
	 * made under one another user could swap */
	snprintf(there, sizeof there, "%s", root);
	while (stat(there, &sb) != 0) {
		char *slash = strrchr(there, '/');
		if (!slash || slash == there) {
			snprintf(there, sizeof there, "%s", slash ? "/" : ".");
			break;
		}
		*slash = 0;
	}
	if (!realpath(there, real)) {
		snprintf(err, elen, "cannot resolve %s: %s (set FGOBENCH_CACHE to a folder of your own)",
			 there, strerror(errno));
		return FGO_EUSAGE;
	}
	if (strcmp(there, root)) { /* what is there is above the cache */
		char above[PATH_MAX + 2];
		snprintf(above, sizeof above, "%s/x", strcmp(real, "/") ? real : "");
		if (check_above(above, err, elen) != FGO_OK || make_folders(root, err, elen) != FGO_OK)
			return FGO_EUSAGE;
	}
	/* the root may be a link (a cache on another disk): what it points to
	 * is checked, with every folder above that */
	if (!realpath(root, real) || stat(real, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		snprintf(err, elen, "the kernel cache %s is not a folder (set FGOBENCH_CACHE to a folder"
			 " of your own)", root);
		return FGO_EUSAGE;
	}
	if (check_above(real, err, elen) != FGO_OK || check_mode(root, &sb, "folder", err, elen) != FGO_OK)
		return FGO_EUSAGE;
	int n = !sub || !*sub ? snprintf(out, len, "%s", root) : snprintf(out, len, "%s/%s", root, sub);
	if (n < 0 || (size_t)n >= len) {
		snprintf(err, elen, "the kernel cache's folder name %s is too long", root);
		return FGO_EUSAGE;
	}
	if (!sub || !*sub)
		return FGO_OK;
	if (mkdir(out, 0755) != 0 && errno != EEXIST) {
		snprintf(err, elen, "cannot make the kernel cache folder %s: %s (set FGOBENCH_CACHE to a"
			 " folder of your own)", out, strerror(errno));
		return FGO_EUSAGE;
	}
	return kcache_check_dir(out, err, elen);
}

int kcache_open(const char *path, int *fd, char *err, size_t elen)
{
	struct stat sb;
	*fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (*fd < 0) {
		if (errno == ENOENT || errno == ELOOP)
			return FGO_OK;
		snprintf(err, elen, "cannot read the kernel cache file %s: %s", path, strerror(errno));
		return FGO_EUSAGE;
	}
	if (fstat(*fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(*fd);
		*fd = -1;
		return FGO_OK;
	}
	if (check_mode(path, &sb, "file", err, elen) != FGO_OK) {
		close(*fd);
		*fd = -1;
		return FGO_EUSAGE;
	}
	return FGO_OK;
}

int kcache_read(const char *path, size_t max, char **data, size_t *size, char *err, size_t elen)
{
	struct stat sb;
	int fd;
	size_t got = 0;
	*data = NULL;
	*size = 0;
	if (kcache_open(path, &fd, err, elen) != FGO_OK)
		return FGO_EUSAGE;
	if (fd < 0)
		return FGO_OK;
	if (fstat(fd, &sb) != 0 || (size_t)sb.st_size > max || !(*data = malloc((size_t)sb.st_size + 1))) {
		close(fd);
		return FGO_OK;
	}
	while (got < (size_t)sb.st_size) {
		ssize_t n = read(fd, *data + got, (size_t)sb.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	(*data)[got] = 0;
	*size = got;
	return FGO_OK;
}
