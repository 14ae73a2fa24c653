/* user.h: a kernel engineer's own fused kernel (kernels/fgo_user.h is its
 * contract, README "Your own kernel" its guide) as fgobench holds it: the
 * manifest read into a struct (spec/spec_manifest.c reads it), the
 * algorithm "user:NAME" it becomes (user_algo.c: the family's sharding,
 * reference, baseline and bytes, the kernel's own launch), its tunables as
 * the configuration's params text, and its C form compiled and loaded for
 * the CPU backend (user_cc.c). */
#ifndef FGO_USER_USER_H
#define FGO_USER_USER_H

#include <limits.h>
#include <stddef.h>

#include "algo.h"
#include "config.h"
#include "user/user_expr.h"

#define USER_NAME_MAX 24       /* characters of a kernel's name ("user:" + it fits an algorithm) */
#define USER_IDENT_MAX 24      /* characters of a tunable's or a macro's name, and of the entry */
#define USER_TUNABLES_MAX 8    /* tunables of one kernel */
#define USER_VALUES_MAX 64     /* allowed values of one tunable */
#define USER_HEADERS_MAX 8     /* extra source files hashed with the kernel ("headers") */
#define USER_ALGO_PREFIX "user:"

/* The names an expression may use: M, N, K, W, then the tunables. */
#define USER_FIXED_NAMES 4

/* The limits a launch is held to on every backend (those of an H100 or
 * H200, so a configuration valid on the CPU launches on the GPU; the GPU
 * backend checks its own device's again). */
#define USER_THREADS_MAX 1024        /* threads a CTA */
#define USER_BLOCK_Z_MAX 64          /* blockDim.z */
#define USER_GRID_YZ_MAX 65535       /* gridDim.y and gridDim.z */
#define USER_GRID_X_MAX 2147483647LL /* gridDim.x */
#define USER_SMEM_MAX 232448         /* dynamic shared memory a CTA (227 KiB, the opt-in limit) */

struct user_tunable {
	char name[USER_IDENT_MAX + 1];  /* in expressions and in the params text */
	char macro[USER_IDENT_MAX + 1]; /* the -D name the compiler gets */
	int nvalues;
	long long values[USER_VALUES_MAX];
};

/* The rules of a launch, each an expression (user_expr.h). */
enum user_rule {
	USER_GRID_X, USER_GRID_Y, USER_GRID_Z,
	USER_BLOCK_X, USER_BLOCK_Y, USER_BLOCK_Z,
	USER_SMEM,      /* dynamic shared memory a CTA, bytes */
	USER_FLAGS,     /* flags a rank */
	USER_WORKSPACE, /* bytes of scratch a rank */
	USER_RULES
};

struct fgo_user_kernel {
	char name[USER_NAME_MAX + 1];
	char algorithm[FGO_ALGO_NAME_MAX]; /* "user:NAME" */
	char family_name[32];              /* as the manifest gives it */
	const struct fgo_algo *family;     /* its registry entry: sharding, reference, baseline, bytes */
	char manifest[PATH_MAX];           /* as it was opened */
	char c_source[PATH_MAX];           /* the C form ("" when none), as opened */
	char gpu_source[PATH_MAX];         /* the GPU form ("" when none) */
	char *c_text, *gpu_text;           /* their contents (malloc'd, NULL when none) */
	int nheaders;
	char headers[USER_HEADERS_MAX][PATH_MAX]; /* other files the sources include */
	char *header_text[USER_HEADERS_MAX];
	char entry[USER_IDENT_MAX + 1];    /* the function fgobench calls */
	int ntunables;
	struct user_tunable tunable[USER_TUNABLES_MAX];
	struct user_expr rule[USER_RULES];
	int modes;                         /* FGO_MODE compiles out a half: t_gemm, t_comm measured */
	int shape_macros;                  /* the problem as macros (FGO_M, FGO_N, FGO_K, FGO_W):
					      one compile a problem */
	char hash[17];                     /* FNV-1a of the manifest and every source, hex */
	char summary[512];
	struct fgo_algo algo;              /* what algo_find(algorithm) returns */
};

/* The names of k's expressions, in order: M, N, K, W, the tunables. */
int user_names(const struct fgo_user_kernel *k, const char **names);

/* Makes k's algorithm ("user:NAME", the family's sharding and the
 * kernel's launch) and registers it (algo_register); k must live as long
 * as the process. A kernel of the same name already there is the same
 * kernel when its hash is equal (k is then freed, *out the first);
 * another is refused. FGO_OK, or FGO_EUSAGE with the reason. */
int user_kernel_register(struct fgo_user_kernel *k, const struct fgo_user_kernel **out, char *err,
			 size_t len);
/* Frees k (one that was not registered). */
void user_kernel_free(struct fgo_user_kernel *k);

/* The user kernel of cfg's algorithm, or NULL (a built-in family, or a
 * user kernel this process has not read). */
const struct fgo_user_kernel *user_kernel_of(const struct fgo_config *cfg);

/* cfg set to value set `combo` of k's tunables (0 <= combo < the product
 * of their counts; the last tunable varies fastest): its algorithm, params
 * ("NAME=V,NAME=V") and source hash, every tunable marked given (no
 * default fits them). */
void user_config_set(const struct fgo_user_kernel *k, long combo, struct fgo_config *cfg);
/* The number of value sets of k's tunables (1 with none). */
long user_combos(const struct fgo_user_kernel *k);

/* The values of M, N, K, W and the tunables of cfg, in user_names' order.
 * FGO_OK, or FGO_EUSAGE with why when cfg's params are not k's. */
int user_values(const struct fgo_user_kernel *k, const struct fgo_config *cfg, long long *v,
		char *why, size_t len);

/* The -D macros of cfg's compile in mode, on either backend: each
 * tunable's macro, FGO_DTYPE, FGO_MODE and, with "shape_macros", FGO_M,
 * FGO_N, FGO_K and FGO_W (long constants: the global problem and the
 * world). The C and the GPU compiles both take them from here, so the
 * contract's macros have one writer. Returns how many were written to out
 * (at most USER_DEFINES_MAX), or -1 with why when cfg's params are not k's. */
#define USER_DEFINES_MAX (USER_TUNABLES_MAX + 6)
struct user_define {
	const char *name;
	long long value;
	const char *suffix; /* "" or "L" (a long constant) */
};
int user_defines(const struct fgo_user_kernel *k, const struct fgo_config *cfg, int mode,
		 struct user_define *out, char *why, size_t len);

/* The launch of cfg: grid, block, shared memory bytes, flags and workspace
 * bytes; FGO_OK, or FGO_EUSAGE with why (an expression that cannot be
 * evaluated, a launch beyond USER_*_MAX, with the limit). */
struct user_launch {
	long long grid[3], block[3];
	long long smem, flags, workspace;
};
int user_launch_of(const struct fgo_user_kernel *k, const struct fgo_config *cfg,
		   struct user_launch *l, char *why, size_t len);

/* The C form, compiled for cfg and mode with the system compiler into the
 * kernel cache (user_cc.c): FGO_OK; FGO_EFAIL with the reason (the
 * compiler's first error line: the run is stored as failed), the whole
 * message said on stderr once, by the process that compiled it. With
 * load, the shared object is loaded and *fn is its entry point. */
/* The launch's one argument (kernels/fgo_user.h) for this rank: ABI,
 * rank, world, problem, the layout's matrices and areas, the epoch and the
 * heap bases; the form-specific fields (deadline or timeout, status,
 * error buffer) are left zero for the caller. The CPU and GPU launches
 * both fill it here, so the contract has one writer. */
struct fgo_user_args;
void user_args_fill(struct fgo_user_args *a, const struct fgo_config *cfg,
		    const struct fgo_layout *lay, int rank, int world, unsigned int epoch,
		    char *const *heap);

typedef int (*user_cpu_entry)(const void *args, const void *cta);
int user_cc_build(const struct fgo_user_kernel *k, const struct fgo_config *cfg, int mode,
		  int load, user_cpu_entry *fn, char *err, size_t len);

/* The folder user kernels are compiled into: the kernel cache's
 * (kcache.h: $FGOBENCH_CACHE, else $XDG_CACHE_HOME/fgobench, else
 * ~/.cache/fgobench; never /tmp), then "/user", made where missing and
 * checked (the user's, writable by nobody else). FGO_OK, or FGO_EUSAGE
 * naming the path and the fix. */
int user_cache_dir(char *out, size_t len, char *err, size_t elen);

/* The C compiler's time limit in seconds (a --compile-timeout flag): a
 * compile still running then is stopped, its temporary folder removed, and
 * the run fails saying so. s <= 0 goes back to $FGOBENCH_COMPILE_TIMEOUT,
 * else 300 s. */
void user_cc_set_compile_timeout(double s);

#endif
