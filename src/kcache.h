/* kcache.h: the kernel cache's folder, and whether fgobench may trust it
 * (docs/kernel-cache.md). fgobench runs what it finds there (GPU images,
 * user kernels' shared objects), so whoever can write there runs code as
 * the user. The cache is $FGOBENCH_CACHE, else $XDG_CACHE_HOME/fgobench,
 * else $HOME/.cache/fgobench, never a shared fallback such as /tmp; it is
 * used only while it, and every folder and file fgobench reads in it,
 * belongs to this user (geteuid) and is writable by nobody else, and no
 * folder above it can be swapped by another user (each is the user's or
 * root's, and writable by others only with the sticky bit). */
#ifndef FGO_KCACHE_H
#define FGO_KCACHE_H

#include <stddef.h>

/* The cache's root folder into out, neither made nor checked: FGO_OK, or
 * FGO_EUSAGE with what to set. A relative one is written "./x", so the
 * folder and the paths below it can be a compiler's arguments. */
int kcache_root(char *out, size_t len, char *err, size_t elen);

/* The folder sub of the cache ("" or NULL: the root) into out, made where
 * it is missing (mode 0755) and checked: the root (a link to it is
 * followed) and the folders above it, then sub, which must be a folder
 * and not a link. FGO_OK, or FGO_EUSAGE naming the path and the fix. */
int kcache_dir(const char *sub, char *out, size_t len, char *err, size_t elen);

/* Checks one folder inside the cache: a folder (never a link), the user's,
 * writable by nobody else. FGO_OK or FGO_EUSAGE with the path and fix. */
int kcache_check_dir(const char *path, char *err, size_t elen);

/* Opens a file of the cache for reading (never through a link, never
 * blocking on a FIFO): *fd = -1 when it is absent, a link or not a plain
 * file (the entry is made again and renamed over it); FGO_EUSAGE when it
 * is another user's or writable by others (the path and fix in err). */
int kcache_open(const char *path, int *fd, char *err, size_t elen);

/* A file of the cache read whole (kcache_open's checks) into a malloc'd,
 * NUL-terminated *data of *size bytes; *data is NULL when the file is
 * absent or larger than max. FGO_OK or FGO_EUSAGE. */
int kcache_read(const char *path, size_t max, char **data, size_t *size, char *err, size_t elen);

/* path as one argument of a program: "./path" where it is relative and
 * does not already start with "./" or "../", so no folder a user names
 * reads as an option ("-x") or an option file ("@x") to a compiler. */
void kcache_arg_path(const char *path, char *out, size_t len);

#endif
