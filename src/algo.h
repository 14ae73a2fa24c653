/* algo.h: an algorithm family as a small plug-in (nccl-tests style).
 *
 * Each family fills one struct fgo_algo in src/algos/<family>.c: it knows its
 * sharding (which part of the global A, B and C each rank holds), its heap
 * layout, the bytes it puts on the busiest link, its extra validity rules, and
 * its CPU implementation (fused, GEMM-only, comm-only) and baseline. The
 * runner and the backends know none of that; they only call through here.
 *
 * Data layout: every matrix is row-major. A rank's shard of a global matrix
 * is the block [row0, row0+rows) x [col0, col0+cols) stored at a heap offset
 * with leading dimension ld (elements). Offsets are the same on every rank
 * (symmetric heap), so peer r's copy of a buffer is heap_base[r] + offset. */
#ifndef FGO_ALGO_H
#define FGO_ALGO_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "trace.h" /* kernels/trace.h: a traced launch's events */

struct fgo_matrix {
	size_t offset;   /* byte offset in the symmetric heap */
	long row0, rows; /* global rows held */
	long col0, cols; /* global columns held */
	long ld;         /* leading dimension, elements */
};

struct fgo_user_kernel; /* src/user/user.h */

struct fgo_layout {
	struct fgo_matrix a;   /* this rank's input A (a shard or all of it) */
	struct fgo_matrix b;   /* this rank's input B */
	struct fgo_matrix c;   /* this rank's output: checked against A x B after a run */
	size_t work_offset;    /* scratch: partial tiles, gathered A, Stream-K partials */
	size_t work_bytes;
	size_t flags_offset;   /* uint32_t flags, one per tile/chunk as the family needs */
	size_t flags_count;
	size_t heap_bytes;     /* total bytes of heap the configuration needs per rank */
	size_t xchg_offset;    /* the walk's exchange (kit_xchg_place): split-K sums or Stream-K slots, */
	size_t xchg_bytes;     /* their size (0: neither), */
	size_t xchg_flag0;     /* ... and the index of its first flag */
	size_t workspace_offset; /* a user kernel's "workspace" (src/user/; 0 bytes for */
	size_t workspace_bytes;  /* the built-in families) */
};

/* One copy the copy engine makes beside a launch (fgo_algo.engine_copies):
 * bytes from src_rank's heap at src_offset to this rank's at dst_offset,
 * then flag `flag` of this rank raised to the launch's epoch. */
struct fgo_engine_copy {
	int src_rank;
	size_t src_offset, dst_offset, bytes;
	long flag;
};

/* What to execute: the fused kernel, or one half of it with the other half
 * compiled out (how t_gemm and t_comm are measured). */
enum fgo_mode {
	FGO_MODE_FUSED = 0,
	FGO_MODE_GEMM_ONLY = 1,
	FGO_MODE_COMM_ONLY = 2,
};

/* The view a CPU kernel gets of one launch. */
struct fgo_exec {
	const struct fgo_config *cfg;
	const struct fgo_layout *lay;
	int rank, world;       /* rank within the run's communicator */
	MPI_Comm comm;         /* the run's communicator (baselines use collectives on it) */
	char *const *heap;     /* heap[r]: rank r's heap, addressable from this rank */
	uint32_t epoch;        /* launch number, starting at 1: flags compare against it, so no reset between launches */
	double deadline;       /* now_seconds() value after which flag waits give up with FGO_ETIMEOUT */
	char *err;             /* (optional) where a failing kernel says why (kit_fail), or NULL */
	size_t err_len;
	struct fgo_trace_rank *trace; /* (optional) a traced launch records its events here
					 (algos/kit.h kit_trace), or NULL */
};

/* The GEMM one rank runs, as the GPU kernels see it (their -D M_, N_, K_,
 * LDA, LDB, BLOCKS): `blocks` tile spaces of m x n outputs each, over k,
 * with A and B at leading dimensions lda and ldb. Which one a family has
 * follows from its sharding (fgo_gemm_space). */
struct fgo_gemm_dims {
	long m, n, k, lda, ldb;
	int blocks;
};

enum fgo_gemm_space {
	FGO_SPACE_B_COLS = 0, /* A full, B column-sharded: M x N/W over K (gemm, all_scatter) */
	FGO_SPACE_K = 1,      /* K-sharded: the partial M x N over K/W (all_reduce) */
	FGO_SPACE_K_ROWS = 2, /* K-sharded, one M/W x N block per owner rank, or per group of owners
				 whose blocks share a tile (reduce_scatter, sched_owner_group) */
	FGO_SPACE_A_ROWS = 3, /* A row-sharded, B column-sharded: one M/W x N/W block per source (all_gather_gemm) */
};

struct fgo_algo {
	const char *name;      /* registry key and spec value, e.g. "all_scatter" */
	const char *family;    /* family name shared by variants, e.g. "all_reduce" */
	const char *summary;   /* one line: sharding and communication, for `info` and `show` */
	int needs_comm;        /* 0 for plain gemm: t_comm and overlap are not defined */

	/* Rules beyond the generic ones in config_validate (divisibility by
	 * world, tile vs shard, gemm_sms/comm_sms). Returns 0 when valid, else 1
	 * with a reason. */
	int (*validate)(const struct fgo_config *cfg, char *reason, size_t len);

	/* Fills lay for this rank; lay->heap_bytes is the same for every rank. */
	void (*layout)(const struct fgo_config *cfg, int rank, struct fgo_layout *lay);

	/* Bytes one rank sends over its busiest link in one launch (for sol and bandwidth). */
	double (*link_bytes)(const struct fgo_config *cfg);

	/* CPU implementation of one launch. Returns FGO_OK, or FGO_ETIMEOUT when a
	 * flag wait passed ex->deadline. */
	int (*cpu_run)(const struct fgo_exec *ex, enum fgo_mode mode);

	/* Reference GEMM then the MPI collective, in sequence, on the same layout. */
	int (*cpu_baseline)(const struct fgo_exec *ex);

	/* (optional) GPU backend: the copies the copy engine makes beside each
	 * fused or comm-only launch, in this order on a stream of their own,
	 * each followed by its flag (no SM does them, so the GEMM keeps every
	 * SM while peer bytes cross the link once). Fills c[0 .. max) and
	 * returns how many there are (call with max 0 to count). NULL: none. */
	int (*engine_copies)(const struct fgo_config *cfg, const struct fgo_layout *lay, int rank,
			     struct fgo_engine_copy *c, int max);

	const char *gpu_source; /* kernels/ file with the GPU kernel (optional: NULL = CPU only) */
	const char *gpu_variant; /* -D switch that picks the variant in a shared source (e.g. "TWO_SHOT"), or NULL */
	enum fgo_gemm_space space;
	/* Communication CTAs (comm_sms) on the GPU: FGO_COMM_CTAS_NONE (comm_sms
	 * must be 0), _OPTIONAL (work-group specialization: the last comm_sms
	 * CTAs communicate), _REQUIRED (the Stream-K forms). */
	enum { FGO_COMM_CTAS_NONE = 0, FGO_COMM_CTAS_OPTIONAL = 1, FGO_COMM_CTAS_REQUIRED = 2 } comm_ctas;
	/* The Stream-K forms: the algorithm whose communication theirs is when
	 * comm_sms is 0 (the CTA that ends a tile sends or sums it as that
	 * family does); NULL for the others. base_two_shot: the one instead
	 * where the form's all-reduce is two-shot (sk_all_reduce from W = 3
	 * on unless C is small, SCHED_SK_TWO_SHOT); algo_base picks. */
	const char *base;
	const char *base_two_shot;
	/* split_k > 1 runs: the slice that ends a tile sends it out through
	 * the family's usual epilogue (every family but the sk_* ones, whose
	 * walk is Stream-K) */
	int split_k;

	/* A kernel engineer's own kernel (src/user/, algorithm "user:NAME";
	 * NULL and 0 for the built-in families): */
	const struct fgo_user_kernel *user; /* its manifest, as src/user/user.h holds it */
	const char *manifest;               /* the manifest's path (stored with every run) */
	/* (optional) what cpu_run needs before the first launch of cfg: the
	 * kernel compiled into the kernel cache and, with load, loaded.
	 * FGO_OK, or FGO_EFAIL with the reason (the run is stored as failed).
	 * NULL: nothing to prepare. */
	int (*cpu_prepare)(const struct fgo_config *cfg, int load, char *reason, size_t len);
	/* 1: only the fused launch exists (a user kernel without "modes"):
	 * t_gemm, t_comm and overlap are not measured */
	int fused_only;
};

/* The vendor collective of a family's baseline, by its sharding (the
 * sequence the CPU baselines and src/gpu/gpu_vendor.c run): B_COLS
 * all-gathers C's column blocks after the GEMM, K all-reduces the partial
 * C, K_ROWS reduce-scatters it, A_ROWS all-gathers A before the GEMM.
 * calibrate measures each one's time against bytes (its curve). */
enum fgo_collective {
	FGO_COLL_ALL_GATHER = 0,
	FGO_COLL_ALL_REDUCE = 1,
	FGO_COLL_REDUCE_SCATTER = 2,
};
#define FGO_COLLECTIVES 3
extern const char *const fgo_collective_names[FGO_COLLECTIVES]; /* "all_gather", ... */

/* Registry (src/algos/registry.c): NULL-terminated, sorted by name. */
extern const struct fgo_algo *const fgo_algos[];
/* The algorithm registered as name: a built-in family, or a user kernel
 * this process has read (algo_register); NULL when none. */
const struct fgo_algo *algo_find(const char *name);
/* a's base for cfg's problem (base or base_two_shot: its W and the size of
 * its C), NULL where it has none. */
const char *algo_base(const struct fgo_algo *a, const struct fgo_config *cfg);
/* Whether sk_all_reduce's all-reduce is two-shot for cfg's W and C
 * (kernels/schedule.h's SCHED_SK_TWO_SHOT, which the kernel reads too). */
int algo_sk_two_shot(const struct fgo_config *cfg);
/* Adds algo (which must live as long as the process) to what algo_find
 * finds: a user kernel's "user:NAME". FGO_OK; FGO_EUSAGE when the name is
 * taken or the table (ALGO_REGISTERED_MAX) is full. */
#define ALGO_REGISTERED_MAX 64
int algo_register(const struct fgo_algo *algo);
/* The GEMM dimensions of algo's tile space for cfg (see fgo_gemm_dims). */
void algo_gemm_dims(const struct fgo_algo *algo, const struct fgo_config *cfg,
		    struct fgo_gemm_dims *d);
/* cfg's baseline collective in *kind and the bytes of its whole buffer
 * in *bytes, as nccl-tests counts a size: the all-gather's gathered output
 * (C, or A for A_ROWS), the all-reduce's buffer, the reduce-scatter's
 * input. sum_elt: bytes per element of a reduction's buffer (the dtype's
 * on GPUs; 4 on the CPU backend, whose MPI sums are fp32). 0 (nothing
 * set) for plain gemm, one rank, or an unknown family. */
int algo_collective(const struct fgo_config *cfg, size_t sum_elt, enum fgo_collective *kind,
		    double *bytes);
/* Closest registered name, for "did you mean" (NULL when nothing is close). */
const char *algo_suggest(const char *name);
/* The algorithm a user means by name (a flag, a spec, a dataset), the same
 * everywhere: its registered name; or, where that names one algorithm, the
 * name in any case, with - (or + or a space) for _, in the field's words (ag
 * all_gather, ar all_reduce, rs reduce_scatter, as all_scatter, matmul gemm,
 * streamk sk, a leading gemm left out: gemm_rs, ag_gemm_pull). NULL when it
 * names none or several, with why set (when why is not NULL) to
 * "unknown algorithm \"X\" (did you mean \"Y\"?)" or, for a family whose
 * names start with the words typed (all_reduce), "ambiguous algorithm \"X\"
 * (give one of A, B)" (the only message starting "ambiguous"). The caller stores and shows the returned ->name. */
const struct fgo_algo *algo_resolve(const char *name, char *why, size_t len);

/* The family whose algorithm run and sweep choose per problem (issue 51):
 * "all_reduce" names both shots, all_reduce_one_shot and
 * all_reduce_two_shot; the shot is picked when the sweep runs, from the
 * store's runs of both at the shape, else the ranking of best --predict,
 * else the world size (src/tune/shot_pick.h). Stored runs and reproduce
 * lines name the shot that ran. */
#define ALGO_CHOICE "all_reduce"
#define ALGO_CHOICE_FIRST "all_reduce_one_shot"
#define ALGO_CHOICE_SECOND "all_reduce_two_shot"
/* Whether name, as people type it (case, hyphens, no underscores), is
 * ALGO_CHOICE. */
int algo_is_choice(const char *name);

#endif
