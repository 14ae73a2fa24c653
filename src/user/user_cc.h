/* user_cc.h: the parts of the C form's build (user.h's user_cc_build, in
 * user_cc.c: the key, the cache's lookup, the load) kept in files of their
 * own: one compile (user_cc_compile.c), the compiler run under a time
 * limit (user_cc_run.c) and the kernel cache's records of what a compile
 * made and read (user_cc_cache.c). Internal to src/user/. */
#ifndef FGO_USER_USER_CC_H
#define FGO_USER_USER_CC_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

struct fgo_user_kernel;

#define CC_LOG_MAX 16384 /* bytes of compiler output kept */
#define CC_ARGS_MAX 64   /* arguments of a compile fgobench makes (user_defines' macros and its own) */
#define CC_OBJECT_MAX (256L << 20) /* bytes of a compiled object */

/* cc_run's status besides an exit status (0..255, 128 + a signal) */
#define CC_NOT_RUN (-1)   /* it could not start (why in the log) */
#define CC_TIMED_OUT (-2) /* it ran past its limit and was killed */

/* Runs argv (argv[0] a path), its stdout and stderr into log (up to len
 * bytes, NUL-terminated), with TMPDIR set to tmpdir (its temporary files
 * land there, and go with it), killing it and every process it started
 * after limit seconds. Returns the exit status or CC_*. */
int cc_run(char *const *argv, const char *tmpdir, double limit, char *log, size_t len);

/* Removes the folder dir and the files in it (a compile's temporary). */
void cc_remove_dir(const char *dir);

/* log with every control character but the newline written visibly
 * (sink_terminal, line by line): a compiler echoes source lines, and the
 * text reaches terminals and the store. */
void cc_clean(const char *log, char *out, size_t len);

/* One file a compile read, besides its source, and what it held. */
struct cc_dep {
	uint64_t hash; /* fnv1a64 of the contents */
	long long size;
	char *path;    /* as the compiler named it (relative to the working folder, or absolute) */
};

/* The cache's record of one compile: KEY.sum beside KEY.so (the object's
 * hash and size), or KEY.err (the compiler's verdict and message); both
 * with the files the compile read. */
struct cc_record {
	int error;                  /* 0: an object (KEY.sum); 1: a compile error (KEY.err) */
	uint64_t object_hash;       /* the object's fnv1a64 and size */
	long long object_size;
	int status;                 /* the compiler's exit status (an error) */
	char reason[512];           /* the run's reason (an error) */
	char *log;                  /* the compiler's whole message (an error; malloc'd) */
	int deps_known;             /* 0: the compiler wrote no dependency list */
	int ndeps;
	struct cc_dep *deps;        /* malloc'd */
};

/* The files the compiler's dependency list (gcc -MD -MF, target "fgobench")
 * names, but the source itself and system headers under /usr, each with
 * its hash, into r (deps_known 0 where the list is missing or unreadable). */
void cc_deps_read(const char *depfile, struct cc_record *r);

/* The first file of r's list that no longer holds what the compile read
 * (or is no longer a plain file): its path, or NULL when none changed. A
 * record whose list is not known counts as changed ("" is returned). */
const char *cc_deps_changed(const struct cc_record *r);

/* Writes r to path (whole or not at all, atomic_file.h): FGO_OK or FGO_EFAIL. */
int cc_record_write(const char *path, const struct cc_record *r, char *err, size_t len);

/* Reads the record at path (kcache.h's checks): CC_RECORD_* */
enum { CC_RECORD_ABSENT, CC_RECORD_OK, CC_RECORD_DAMAGED, CC_RECORD_REFUSED };
int cc_record_read(const char *path, struct cc_record *r, char *err, size_t len);

void cc_record_free(struct cc_record *r);

/* The compiler: its path (found on $PATH as execvp would) and what
 * identifies its version in the cache key (size and time of the file). */
struct compiler {
	char path[PATH_MAX];
	char id[PATH_MAX + 64];
};

/* The embedded kernels/ headers in dir/include-HASH (out), each checked
 * against the text this fgobench was built with, written where it is not
 * that; *hash identifies them. FGO_OK or FGO_EFAIL with why. */
int cc_headers_dir(const char *dir, char *out, size_t len, uint64_t *hash, char *err, size_t elen);

/* dir/KEY.EXT: the cache's object (so), its record (sum), an error (err). */
void cc_entry_path(const char *dir, const char *key, const char *ext, char *out, size_t len);

/* Compiles k's C form for cfg and mode with args into dir/KEY.so and its
 * record KEY.sum (*rec: the files read, the object's hash), or keeps the
 * compiler's verdict in KEY.err (its message said, cc_say_error). With
 * objfd, *objfd is a descriptor of the object just made (to load). FGO_OK,
 * or FGO_EFAIL with the run's reason in err. */
int cc_compile(const struct fgo_user_kernel *k, const struct fgo_config *cfg, int mode,
	       const struct compiler *cc, char *const *args, int nargs, const char *dir,
	       const char *key, struct cc_record *rec, int *objfd, char *err, size_t len);

/* "user:x BLOCK=64 fp16 gemm-only": a configuration, for messages. */
void cc_describe(const struct fgo_user_kernel *k, const struct fgo_config *cfg, int mode,
		 char *out, size_t len);

/* Whether this process has said the thing of hash h (and marks it said). */
int cc_said(uint64_t h);

/* The compiler's whole message for k's source (log, cleaned), said once
 * a sweep for each message however many configurations (tunable sets,
 * modes) meet it, and by one rank of the sweep's MPI job (cache folder
 * dir); cached: the message came from the cache. */
void cc_say_error(const struct fgo_user_kernel *k, const char *dir, const char *what,
		  const char *cc, int status, const char *log, int cached);

#endif
