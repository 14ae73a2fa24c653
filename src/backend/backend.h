/* backend.h: the backend interface, a struct of function pointers (a driver).
 *
 * The session and the runner drive every backend the same way:
 *   init -> precompile every configuration (optional, before any timing)
 *   -> heap_alloc (once per communicator) -> for each problem (runner.c):
 *   inputs_fill, reference_make and reference_rows (its host check) -> for
 *   each of its configurations: prepare -> output_poison -> launch ->
 *   output_compare -> launches timed ... -> release -> heap_free -> finish.
 * The CPU backend (backend_cpu.c) is the reference; the GPU backend plugs in
 * the same way. Optional members say so; NULL means the runner skips them. */
#ifndef FGO_BACKEND_H
#define FGO_BACKEND_H

#include <mpi.h>
#include <stddef.h>

#include "algo.h"
#include "backend/check.h"
#include "config.h"

struct fgo_backend_ctx;  /* backend-private state */
struct fgo_runnable;     /* a prepared (compiled) configuration */

/* One symmetric heap, allocated collectively on a communicator. */
struct fgo_heap {
	MPI_Comm comm;  /* the ranks that share it */
	int rank, world;
	size_t bytes;   /* per rank */
	char **base;    /* base[r]: rank r's heap as addressable from this rank (world entries) */
	void *priv;     /* backend-private (window, IPC handles) */
};

/* Facts about the machine for the store and `info`. */
struct fgo_env {
	char devices[256];  /* e.g. "cpu: 2 cores, Intel Xeon ..." or "4x NVIDIA H200" */
	char driver[64];    /* driver version, "" on CPU */
	char runtime[64];   /* runtime / library versions */
	char arch[32];      /* "x86_64", "sm_90a", "gfx90a" */
	int device_count;   /* devices visible on this node (cores on CPU) */
	int compute_units;  /* SMs / CUs of this rank's device (the cores on CPU): the
			     * Stream-K forms' default GEMM CTAs (plan_fit_units) */
};

/* Counters read back from a compiled kernel (0 where not applicable). */
struct fgo_kernel_info {
	int registers;
	int shared_bytes;
	int spills;
};

/* Device state read around a run (0 where the backend cannot tell). */
struct fgo_telemetry {
	double sm_clock_mhz, mem_clock_mhz;
	double temp_c, power_w;
};

struct fgo_backend {
	const char *name; /* "cpu", "gpu" */

	/* The shortest time launch tells apart from nothing, in ms: below it
	 * a measured t_gemm or t_comm is the timer, not work, and overlap,
	 * which divides by the shorter of them, is left undefined. */
	double timer_resolution_ms;

	/* Reports whether this backend can run here (devices present). */
	int (*available)(void);

	/* Sets up per-process state. node_comm holds the ranks of this node
	 * (GPU backends bind a device by node-local rank). */
	int (*init)(struct fgo_backend_ctx **ctx, MPI_Comm node_comm, char *err, size_t len);

	/* Describes the machine (devices, versions). */
	void (*describe)(struct fgo_backend_ctx *ctx, struct fgo_env *env);

	/* Collective over heap->comm: allocates bytes on every rank and exchanges
	 * the bases. */
	int (*heap_alloc)(struct fgo_backend_ctx *ctx, MPI_Comm comm, size_t bytes,
			  struct fgo_heap *heap, char *err, size_t len);
	void (*heap_free)(struct fgo_backend_ctx *ctx, struct fgo_heap *heap);

	/* Prepares cfg (JIT-compiles on GPU) and zeroes this rank's flags of
	 * cfg's layout (stale heap bytes must not read as raised flags); the
	 * runner synchronises the ranks after it. Returns FGO_OK, or FGO_EUSAGE with a
	 * reason when the configuration cannot launch here (stored as invalid). */
	int (*prepare)(struct fgo_backend_ctx *ctx, const struct fgo_algo *algo,
		       const struct fgo_config *cfg, struct fgo_heap *heap,
		       struct fgo_runnable **out, struct fgo_kernel_info *info,
		       char *reason, size_t len);

	/* (optional) Prepares cfg as prepare does, with the trace hooks in
	 * (kernels/trace.h; the GPU compiles the kernel with FGO_TRACE): every
	 * launch of the runnable then records its events in place of the last
	 * launch's, after a reference timestamp taken as the launch starts
	 * (the runner's barrier is just before it). cap: events kept per CTA
	 * (0: the backend's default). NULL: this backend cannot trace. */
	int (*prepare_traced)(struct fgo_backend_ctx *ctx, const struct fgo_algo *algo,
			      const struct fgo_config *cfg, struct fgo_heap *heap, int cap,
			      struct fgo_runnable **out, struct fgo_kernel_info *info,
			      char *reason, size_t len);

	/* (optional, with prepare_traced) The events of the traced runnable's
	 * last launch: *tr points into the runnable (valid until release),
	 * its rank that of heap->comm. FGO_OK or FGO_EFAIL with the reason. */
	int (*trace_read)(struct fgo_backend_ctx *ctx, struct fgo_runnable *run,
			  struct fgo_trace_rank **tr, char *err, size_t len);

	/* (optional) Compiles cfg's kernel into the kernel cache without loading
	 * it, so that prepare finds it there: the session calls it for every
	 * configuration before any timing, the ranks of a node sharing the list.
	 * Returns FGO_OK (compiled or already cached), FGO_EUSAGE with a reason
	 * when cfg has no kernel, cannot launch or does not compile here
	 * (prepare reports it again when cfg runs), FGO_EFAIL. NULL: prepare
	 * compiles each configuration when it comes. */
	int (*precompile)(struct fgo_backend_ctx *ctx, const struct fgo_algo *algo,
			  const struct fgo_config *cfg, char *err, size_t len);
	/* Whether precompile is for the built-in families' kernels too (the
	 * GPU's), or only for user kernels (algo->user: the CPU compiles
	 * their C form, never its own families). */
	int compiles_families;

	/* Host -> heap copy into this rank's own heap (the tests' planted
	 * element, runner_problem.c). */
	int (*copy_in)(struct fgo_backend_ctx *ctx, struct fgo_heap *heap, size_t offset,
		       const void *src, size_t bytes);

	/* One launch of mode, its own time in *ms (events on GPU, monotonic clock
	 * on CPU). The runner puts barriers around it. Returns FGO_OK, FGO_ETIMEOUT
	 * or FGO_EFAIL (with err filled). */
	int (*launch)(struct fgo_backend_ctx *ctx, struct fgo_runnable *run, enum fgo_mode mode,
		      double timeout_s, double *ms, char *err, size_t len);

	/* The vendor sequence: library GEMM then library collective.
	 * FGO_EUNAVAILABLE (with the reason) when it cannot run here (ranks
	 * share a GPU, no NCCL): the run stands without a baseline; bulk
	 * likewise. */
	int (*baseline)(struct fgo_backend_ctx *ctx, struct fgo_runnable *run,
			double timeout_s, double *ms, char *err, size_t len);

	/* (optional) `bulk`: fgobench's own GEMM core (GEMM-only mode) then the
	 * vendor collective with the family's sharding, on one stream, timed as
	 * one; separates GEMM efficiency from overlap. NULL: not measured. */
	int (*bulk)(struct fgo_backend_ctx *ctx, struct fgo_runnable *run, double timeout_s,
		    double *ms, char *err, size_t len);

	/* (optional; called before init) The memory of the smallest device on
	 * this node in *bytes and the number of devices in *count, for refusing
	 * heaps that cannot fit before anything is allocated. FGO_OK, or
	 * FGO_EFAIL when it cannot tell (no check then). NULL: the heap is host
	 * memory. */
	int (*device_memory)(size_t *bytes, int *count);

	/* (optional) Clocks, temperature and power of this rank's device now. */
	int (*telemetry)(struct fgo_backend_ctx *ctx, struct fgo_telemetry *t);

	/* (optional) Matrix peak in TFLOP/s of the vendor GEMM at 8192^3 in
	 * dtype, for `calibrate`. */
	int (*matrix_peak)(struct fgo_backend_ctx *ctx, enum fgo_dtype dtype, double *tflops,
			   char *err, size_t len);

	/* (optional, collective over heap->comm) One-direction bandwidth in
	 * GB/s from this rank to each peer, one pair at a time: sm_gbps[p] by
	 * SM stores into the peer's memory, ce_gbps[p] by the copy engine
	 * (world entries each; 0 for this rank itself). */
	int (*link_bandwidth)(struct fgo_backend_ctx *ctx, struct fgo_heap *heap, double *sm_gbps,
			      double *ce_gbps, char *err, size_t len);

	/* (optional, collective over heap->comm) What a fused kernel's link
	 * side can reach (issue 51): every rank writes into every peer's heap
	 * at once (bytes / world of the first half of each peer's heap, at
	 * the writer's own offset); *gbps is this rank's egress, the bytes
	 * to all its peers over the time from a common start, best of 5
	 * after a warm-up. A pair's rate times the peers overstates it (the
	 * links share the device's ports and memory). The same code on every
	 * rank. */
	int (*link_egress)(struct fgo_backend_ctx *ctx, struct fgo_heap *heap, double *gbps,
			   char *err, size_t len);

	/* (optional) Streaming copy bandwidth of one device's own memory, GB/s,
	 * for `calibrate`; NULL: memory_bw is not measured. */
	int (*memory_bandwidth)(struct fgo_backend_ctx *ctx, double *gbps, char *err, size_t len);

	/* (optional) The read floor, for `calibrate`: for each of n sizes
	 * (bytes[i], ascending, multiples of 16), the fastest of reps streaming
	 * reads of that many bytes of this rank's memory, each timed as launch
	 * times a run (GPU: L2 flushed first, events around one kernel launch;
	 * CPU: the monotonic clock around one read), in seconds[i]; method: a
	 * line saying how, for the store. NULL: no read floor. */
	int (*read_floor)(struct fgo_backend_ctx *ctx, const size_t *bytes, int n, int reps,
			  double *seconds, char *method, size_t method_len, char *err, size_t len);

	/* (optional, collective over heap->comm) The vendor collective's
	 * curve, for `calibrate`: for each of n buffer sizes bytes[i]
	 * (ascending, multiples of 64 x heap->world; the whole buffer as
	 * algo_collective counts it), the fastest of reps calls of kind after
	 * a warm-up one, each timed on every rank from a barrier to the call's
	 * end, in seconds[i] the slowest rank's (the same on every rank); method:
	 * a line saying how (the elements' type among it).
	 * FGO_EUNAVAILABLE on every rank, with the reason, when there is no real
	 * link between the ranks (they share a device) or no collective
	 * library; FGO_EFAIL. NULL: no curve. */
	int (*collective_curve)(struct fgo_backend_ctx *ctx, struct fgo_heap *heap,
				enum fgo_collective kind, const size_t *bytes, int n, int reps,
				double *seconds, char *method, size_t method_len, char *err,
				size_t len);

	/* The check with the work done once per problem (runner_problem.c):
	 * the inputs made where they live, a reference of this rank's C shard
	 * kept by the backend (outside the heap), and every element of each
	 * run's output compared with it where the output lives.
	 *
	 * inputs_fill: this rank's A and B shards (lay->a, lay->b) from the
	 * generator of kernels/inputs.h with seed, padding zeroed. */
	int (*inputs_fill)(struct fgo_backend_ctx *ctx, struct fgo_heap *heap,
			   const struct fgo_config *cfg, const struct fgo_layout *lay, uint64_t seed,
			   char *err, size_t len);
	/* output_poison: this rank's C shard set to output_poison's NaN pattern. */
	int (*output_poison)(struct fgo_backend_ctx *ctx, struct fgo_heap *heap,
			     const struct fgo_config *cfg, const struct fgo_layout *lay, char *err,
			     size_t len);
	/* reference_make: the reference of lay->c (want = A x B and scale =
	 * |A| x |B|, fp32, from inputs_fill's values over the whole K),
	 * replacing the one kept before. FGO_OK, FGO_EUSAGE (it does not fit
	 * in memory: the reason says how many bytes it needs) or FGO_EFAIL. */
	int (*reference_make)(struct fgo_backend_ctx *ctx, const struct fgo_config *cfg,
			      const struct fgo_layout *lay, uint64_t seed, char *err, size_t len);
	/* reference_rows: rows rows[0..count) (local to lay->c) of the kept
	 * reference, each lay->c.cols floats, into want and scale. */
	int (*reference_rows)(struct fgo_backend_ctx *ctx, const long *rows, long count, float *want,
			      float *scale, char *err, size_t len);
	/* output_compare: every element of this rank's C shard against the
	 * kept reference with check_add's rule and tolerance tol, into res
	 * (global coordinates). */
	int (*output_compare)(struct fgo_backend_ctx *ctx, struct fgo_heap *heap,
			      const struct fgo_config *cfg, const struct fgo_layout *lay, double tol,
			      struct fgo_check *res, char *err, size_t len);
	/* (optional) Bytes reference_make keeps (and uses while making it)
	 * for cfg, outside the heap: on the device for the GPU, in host
	 * memory for the CPU; for the memory check. */
	double (*reference_bytes)(const struct fgo_config *cfg, const struct fgo_layout *lay);

	/* (optional) Digests of this rank's inputs as they are in the heap
	 * now, A's in digest[0] and B's in digest[1]: taken when a user
	 * kernel's problem gets its inputs and again after each of its runs,
	 * whose contract (kernels/fgo_user.h) makes them read-only. NULL: not
	 * checked. */
	int (*inputs_digest)(struct fgo_backend_ctx *ctx, struct fgo_heap *heap,
			     const struct fgo_config *cfg, const struct fgo_layout *lay,
			     uint64_t digest[2], char *err, size_t len);
	/* (optional) FGO_OK while this rank can still run work; else
	 * FGO_EFAIL with the reason: a GPU context lost to an illegal address,
	 * a trap or a launch failure, after which every later launch of the
	 * process fails. Asked after a run that failed. NULL: always. */
	int (*health)(struct fgo_backend_ctx *ctx, char *err, size_t len);

	void (*release)(struct fgo_backend_ctx *ctx, struct fgo_runnable *run);
	void (*finish)(struct fgo_backend_ctx *ctx);
};

extern const struct fgo_backend fgo_backend_cpu;
/* Picks by name ("cpu", "gpu") or, for NULL/"auto", gpu when available else cpu. */
const struct fgo_backend *backend_find(const char *name);

#endif
