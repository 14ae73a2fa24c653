/* gpu_calibrate.c: the GPU ceilings of `fgobench calibrate`: the vendor
 * GEMM's matrix peak per dtype (cuBLAS, rocBLAS: gpu_vendor_ops), device
 * memory bandwidth by a copy kernel, and link bandwidth per ordered GPU
 * pair by SM stores and by the copy engine. Each measurement is a few
 * launches timed one by one with the caller's events; the best launch
 * counts (ceilings are what the hardware can reach). */
#include "gpu/gpu_calibrate.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "fgo.h"
#include "gpu/gpu_jit.h"
#include "gpu/gpu_vendor.h"

#define CALIB_SOURCE "kernels/calibrate.hip"
#define CALIB_THREADS 256 /* threads per CTA of every calibration kernel (-DCALIB_THREADS) */
#define MAX_REPS 16

#define TRY(call, what)                                                                \
	do {                                                                           \
		hipError_t e_ = (call);                                                \
		if (e_ != hipSuccess) {                                                \
			snprintf(err, len, "%s failed: %s", (what), hipGetErrorString(e_)); \
			rc = FGO_EFAIL;                                                \
			goto done;                                                     \
		}                                                                      \
	} while (0)

/* One enqueue of what is timed, on the caller's stream. */
enum op_kind { OP_KERNEL, OP_GEMM, OP_MEMCPY };

struct op {
	enum op_kind kind;
	const char *what;          /* for messages: "the copy kernel" */
	hipFunction_t fn;          /* OP_KERNEL: CALIB_THREADS per CTA */
	unsigned int grid;
	void **args;
	void *blas;                /* OP_GEMM: square size^3, C = A x B (gpu_vendor_ops) */
	enum fgo_dtype type;
	int size;
	const void *a, *b;
	void *c;
	void *dst;                 /* OP_MEMCPY: bytes from src to dst (any device) */
	const void *src;
	size_t bytes;
	int flush;                 /* write 2 x L2 (d->l2_flush) before the start event */
};

static int enqueue(const struct gpu_calib_dev *d, const struct op *op, char *err, size_t len)
{
	if (op->kind == OP_KERNEL) {
		fgo_drv_result r = hipModuleLaunchKernel(op->fn, op->grid, 1, 1, CALIB_THREADS, 1, 1,
							 0, d->stream, op->args, NULL);
		if (fgo_cu(r) != hipSuccess) {
			snprintf(err, len, "launching %s failed: %s", op->what, fgo_cu_text(r));
			return FGO_EFAIL;
		}
	} else if (op->kind == OP_GEMM) {
		char why[FGO_REASON_MAX];
		if (gpu_vendor_ops.gemm(op->blas, op->type, op->size, op->size, op->size, op->a,
					op->size, op->b, op->size, op->c, op->size, why,
					sizeof why) != FGO_OK) {
			snprintf(err, len, "%s: %s", op->what, why);
			return FGO_EFAIL;
		}
	} else {
		hipError_t e = hipMemcpyAsync(op->dst, op->src, op->bytes, hipMemcpyDefault, d->stream);
		if (e != hipSuccess) {
			snprintf(err, len, "%s failed: %s", op->what, hipGetErrorString(e));
			return FGO_EFAIL;
		}
	}
	return FGO_OK;
}

/* Runs op warmup + reps times, each between the two events; *best_ms is the
 * fastest timed one. */
static int time_best(const struct gpu_calib_dev *d, const struct op *op, int warmup, int reps,
		     float *best_ms, char *err, size_t len)
{
	char what[128];
	int rc = FGO_OK;
	*best_ms = 0;
	snprintf(what, sizeof what, "running %s", op->what);
	for (int i = 0; i < warmup + reps && i < MAX_REPS; i++) {
		float t = 0;
		if (op->flush && d->l2_flush)
			TRY(hipMemsetAsync(d->l2_flush, 0, 2 * d->l2_bytes, d->stream), "flushing L2");
		TRY(hipEventRecord(d->start, d->stream), "recording an event");
		if ((rc = enqueue(d, op, err, len)) != FGO_OK)
			goto done;
		TRY(hipEventRecord(d->stop, d->stream), "recording an event");
		TRY(hipEventSynchronize(d->stop), what);
		TRY(hipEventElapsedTime(&t, d->start, d->stop), "reading the events");
		if (i >= warmup && (*best_ms == 0 || t < *best_ms))
			*best_ms = t;
	}
	if (*best_ms <= 0) {
		snprintf(err, len, "timing %s gave no positive time", op->what);
		rc = FGO_EFAIL;
	}
done:
	return rc;
}

/* Compiles (or takes from the kernel cache) and loads kernels/calibrate.hip. */
static int load_kernels(const struct gpu_calib_dev *d, hipModule_t *mod, char *err, size_t len)
{
	char defines[64];
	snprintf(defines, sizeof defines, "-DCALIB_THREADS=%d", CALIB_THREADS);
	return gpu_jit_load(CALIB_SOURCE, defines, d->arch, mod, err, len);
}

static int get_kernel(hipModule_t mod, const char *name, hipFunction_t *fn, char *err, size_t len)
{
	return gpu_jit_function(mod, CALIB_SOURCE, name, fn, err, len);
}

/* Fills n elements of dtype at p with random values in [-1, 1) (enqueued). */
static int fill_random(const struct gpu_calib_dev *d, hipModule_t mod, void *p, size_t n,
		       enum fgo_dtype dtype, unsigned int seed, char *err, size_t len)
{
	unsigned long long count = n;
	int type = (int)dtype;
	void *args[] = { &p, &count, &type, &seed };
	struct op fill = { .kind = OP_KERNEL, .what = "the fill kernel", .grid = (unsigned int)d->sms * 4,
			   .args = args };
	int rc = get_kernel(mod, "fgo_calib_fill", &fill.fn, err, len);
	return rc == FGO_OK ? enqueue(d, &fill, err, len) : rc;
}

int gpu_calib_matrix_peak(const struct gpu_calib_dev *d, enum fgo_dtype dtype, long size,
			  double *tflops, char *err, size_t len)
{
	size_t elems = (size_t)size * (size_t)size, bytes = elems * dtype_size(dtype);
	void *a = NULL, *b = NULL, *c = NULL, *blas = NULL;
	hipModule_t mod = NULL;
	char what[96], version[32];
	float best = 0;
	int rc = FGO_OK;

	*tflops = 0;
	if (size < 16 || size > 65536) {
		snprintf(err, len, "matrix peak size %ld is outside 16..65536", size);
		return FGO_EFAIL;
	}
	TRY(hipSetDevice(d->device), "selecting the GPU");
	if ((rc = load_kernels(d, &mod, err, len)) != FGO_OK)
		goto done;
	snprintf(what, sizeof what, "allocating 3 x %zu MiB for the %s GEMM", bytes >> 20,
		 dtype_name(dtype));
	TRY(hipMalloc(&a, bytes), what);
	TRY(hipMalloc(&b, bytes), what);
	TRY(hipMalloc(&c, bytes), what);
	/* random inputs: zeros would let the tensor cores idle on power */
	if ((rc = fill_random(d, mod, a, elems, dtype, 1, err, len)) != FGO_OK ||
	    (rc = fill_random(d, mod, b, elems, dtype, 2, err, len)) != FGO_OK)
		goto done;
	/* its own handle, in fp32 true fp32 (no TF32) */
	if ((rc = gpu_vendor_ops.blas_open(&blas, d->stream, version, sizeof version, err, len)) !=
	    FGO_OK)
		goto done;
	snprintf(what, sizeof what, "the %s GEMM %s %ld^3", gpu_vendor_ops.blas_name,
		 dtype_name(dtype), size);
	struct op gemm = { .kind = OP_GEMM, .what = what, .blas = blas, .type = dtype,
			   .size = (int)size, .a = a, .b = b, .c = c };
	if ((rc = time_best(d, &gemm, 3, 10, &best, err, len)) == FGO_OK)
		*tflops = 2.0 * (double)size * (double)size * (double)size / (best * 1e-3) / 1e12;
done:
	gpu_vendor_ops.blas_close(blas);
	hipFree(a);
	hipFree(b);
	hipFree(c);
	if (mod)
		hipModuleUnload(mod);
	return rc;
}

int gpu_calib_memory_bandwidth(const struct gpu_calib_dev *d, size_t bytes, double *gbps,
			       char *err, size_t len)
{
	void *src = NULL, *dst = NULL;
	hipModule_t mod = NULL;
	char what[96];
	float best = 0;
	int rc = FGO_OK;

	*gbps = 0;
	bytes &= ~(size_t)15;
	if (bytes == 0) {
		snprintf(err, len, "memory bandwidth needs at least 16 bytes to copy");
		return FGO_EFAIL;
	}
	unsigned long long vectors = bytes / 16;
	void *args[] = { &dst, &src, &vectors };
	/* 8 CTAs of 256 threads per SM: every SM full, so enough loads in flight */
	struct op copy = { .kind = OP_KERNEL, .what = "the copy kernel", .grid = (unsigned int)d->sms * 8,
			   .args = args };
	TRY(hipSetDevice(d->device), "selecting the GPU");
	if ((rc = load_kernels(d, &mod, err, len)) != FGO_OK ||
	    (rc = get_kernel(mod, "fgo_calib_copy", &copy.fn, err, len)) != FGO_OK)
		goto done;
	snprintf(what, sizeof what, "allocating 2 x %zu MiB for the copy", bytes >> 20);
	TRY(hipMalloc(&src, bytes), what);
	TRY(hipMalloc(&dst, bytes), what);
	if ((rc = fill_random(d, mod, src, bytes / 4, FGO_FP32, 3, err, len)) != FGO_OK)
		goto done;
	if ((rc = time_best(d, &copy, 2, 10, &best, err, len)) == FGO_OK)
		*gbps = 2.0 * (double)bytes / (best * 1e-3) / 1e9; /* read + write */
done:
	hipFree(src);
	hipFree(dst);
	if (mod)
		hipModuleUnload(mod);
	return rc;
}

#define FLOOR_REPS_MAX (MAX_REPS - 1) /* time_best: one warm-up, then the timed reads */

int gpu_calib_read_floor(const struct gpu_calib_dev *d, const size_t *bytes, int n, int reps,
			 double *seconds, char *method, size_t method_len, char *err, size_t len)
{
	static const int ctas_per_sm[] = { 2, 4, 8 };
	size_t total = n > 0 ? bytes[n - 1] & ~(size_t)15 : 0;
	void *src = NULL, *sink = NULL;
	hipModule_t mod = NULL;
	hipFunction_t fn = NULL;
	char what[96];
	int rc = FGO_OK;

	if (total < 16) {
		snprintf(err, len, "the read floor needs at least 16 bytes to read");
		return FGO_EFAIL;
	}
	reps = reps < 1 ? 1 : reps > FLOOR_REPS_MAX ? FLOOR_REPS_MAX : reps;
	TRY(hipSetDevice(d->device), "selecting the GPU");
	if ((rc = load_kernels(d, &mod, err, len)) != FGO_OK ||
	    (rc = get_kernel(mod, "fgo_calib_read", &fn, err, len)) != FGO_OK)
		goto done;
	snprintf(what, sizeof what, "allocating %zu MiB for the read floor", total >> 20);
	TRY(hipMalloc(&src, total), what);
	TRY(hipMalloc(&sink, 16), what);
	/* random contents: the fold of zeros would be as good, but a read of
	 * pages never written may cost what a real input's does not */
	if ((rc = fill_random(d, mod, src, total / 4, FGO_FP32, 5, err, len)) != FGO_OK)
		goto done;
	for (int s = 0; s < n && rc == FGO_OK; s++) {
		unsigned long long vectors = (bytes[s] & ~(size_t)15) / 16;
		unsigned long long need = (vectors + CALIB_THREADS - 1) / CALIB_THREADS;
		void *args[] = { &src, &vectors, &sink };
		seconds[s] = 0;
		for (size_t g = 0; g < FGO_ARRAY_SIZE(ctas_per_sm) && rc == FGO_OK; g++) {
			unsigned long long grid = (unsigned long long)d->sms * ctas_per_sm[g];
			float ms = 0;
			if (grid > need && g > 0)
				break; /* a larger grid would only add idle CTAs */
			snprintf(what, sizeof what, "the read kernel over %zu bytes", bytes[s]);
			struct op read = { .kind = OP_KERNEL, .what = what,
					   .fn = fn, .grid = (unsigned int)(grid < need ? grid : need),
					   .args = args, .flush = 1 };
			rc = time_best(d, &read, 1, reps, &ms, err, len);
			if (rc == FGO_OK && (seconds[s] == 0 || ms * 1e-3 < seconds[s]))
				seconds[s] = ms * 1e-3;
		}
	}
	snprintf(method, method_len, "gpu: streaming read kernel (16-byte loads, 4 in flight per thread,"
		 " grid-stride, fastest of 2, 4 and 8 CTAs of %d threads per SM); %s events around one"
		 " launch; best of %d", CALIB_THREADS,
		 d->l2_flush ? "L2 flushed (2 x L2 written) before," : "no L2 flush;", reps);
done:
	hipFree(src);
	hipFree(sink);
	if (mod)
		hipModuleUnload(mod);
	return rc;
}

/* 1 when every rank of comm has ok; else 0, and a rank that was fine gets
 * the first failed (world) rank in err. A barrier too. */
static int agree(MPI_Comm comm, int ok, const char *what, char *err, size_t len)
{
	int me, first;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	int mine = ok ? INT_MAX : me;
	MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
	if (first != INT_MAX && ok)
		snprintf(err, len, "measuring %s failed on rank %d (see its message)", what, first);
	return first == INT_MAX;
}

/* On the writer: bytes into peer's heap by SM stores, then by the copy
 * engine from this rank's second half. */
static int measure_pair(const struct gpu_calib_dev *d, hipFunction_t store, struct fgo_heap *heap,
			int peer, size_t bytes, double *sm_gbps, double *ce_gbps, char *err,
			size_t len)
{
	void *dst = heap->base[peer];
	unsigned long long vectors = bytes / 16;
	unsigned int seed = (unsigned int)(heap->rank * 131 + peer);
	void *args[] = { &dst, &vectors, &seed };
	char sm_what[64], ce_what[64];
	float sm_ms = 0, ce_ms = 0;
	int rc;

	snprintf(sm_what, sizeof sm_what, "the store kernel into rank %d", peer);
	snprintf(ce_what, sizeof ce_what, "the copy engine into rank %d", peer);
	/* 4 CTAs per SM: more stores in flight than one wave needs to fill the link */
	struct op sm = { .kind = OP_KERNEL, .what = sm_what, .fn = store,
			 .grid = (unsigned int)d->sms * 4, .args = args };
	struct op ce = { .kind = OP_MEMCPY, .what = ce_what, .dst = dst,
			 .src = heap->base[heap->rank] + bytes, .bytes = bytes };
	if ((rc = time_best(d, &sm, 1, 5, &sm_ms, err, len)) != FGO_OK ||
	    (rc = time_best(d, &ce, 1, 5, &ce_ms, err, len)) != FGO_OK)
		return rc;
	*sm_gbps = (double)bytes / (sm_ms * 1e-3) / 1e9;
	*ce_gbps = (double)bytes / (ce_ms * 1e-3) / 1e9;
	return FGO_OK;
}

int gpu_calib_link_bandwidth(const struct gpu_calib_dev *d, struct fgo_heap *heap,
			     double *sm_gbps, double *ce_gbps, char *err, size_t len)
{
	int w = heap->world, me = heap->rank, ok = 1, go;
	size_t bytes = heap->bytes / 2;
	hipModule_t mod = NULL;
	hipFunction_t store = NULL;

	if (len)
		err[0] = 0;
	memset(sm_gbps, 0, sizeof *sm_gbps * (size_t)w);
	memset(ce_gbps, 0, sizeof *ce_gbps * (size_t)w);
	if (bytes > GPU_CALIB_LINK_BYTES)
		bytes = GPU_CALIB_LINK_BYTES;
	bytes &= ~(size_t)4095;
	if (bytes < ((size_t)1 << 20)) {
		snprintf(err, len, "the heap has %zu bytes per rank; link bandwidth needs at least 2 MiB",
			 heap->bytes);
		ok = 0;
	}
	/* the copy engine's source: this rank's second half, random */
	if (ok)
		ok = hipSetDevice(d->device) == hipSuccess &&
		     load_kernels(d, &mod, err, len) == FGO_OK &&
		     get_kernel(mod, "fgo_calib_store", &store, err, len) == FGO_OK &&
		     fill_random(d, mod, heap->base[me] + bytes, bytes / 4, FGO_FP32, 4u + (unsigned)me,
				 err, len) == FGO_OK;
	if (ok && hipStreamSynchronize(d->stream) != hipSuccess) {
		snprintf(err, len, "filling the copy engine's source failed");
		ok = 0;
	}
	if (!ok && !err[0])
		snprintf(err, len, "selecting GPU %d failed", d->device);
	/* Every rank calls agree() after each pair whatever happened, so the
	 * collectives match; go is the same everywhere. */
	go = agree(heap->comm, ok, "the link bandwidth", err, len);
	for (int i = 0; i < w && go; i++)
		for (int j = 0; j < w && go; j++) {
			if (i == j)
				continue;
			if (me == i)
				ok = measure_pair(d, store, heap, j, bytes, &sm_gbps[j], &ce_gbps[j], err,
						  len) == FGO_OK;
			go = agree(heap->comm, ok, "the link bandwidth", err, len);
		}
	if (mod)
		hipModuleUnload(mod);
	if (!go) {
		memset(sm_gbps, 0, sizeof *sm_gbps * (size_t)w);
		memset(ce_gbps, 0, sizeof *ce_gbps * (size_t)w);
		return FGO_EFAIL;
	}
	return FGO_OK;
}

/* kernels/calibrate.hip's struct calib_peers, by value. */
#define CALIB_PEERS_MAX 15
struct calib_peers {
	void *dst[CALIB_PEERS_MAX];
	int count;
};

int gpu_calib_link_egress(const struct gpu_calib_dev *d, struct fgo_heap *heap, double *gbps,
			  char *err, size_t len)
{
	int w = heap->world, me = heap->rank, ok = 1, go, rc = FGO_OK;
	size_t slot = heap->bytes / 2 / (size_t)(w > 0 ? w : 1);
	hipModule_t mod = NULL;
	struct calib_peers peers;
	float best = 0;

	*gbps = 0;
	if (len)
		err[0] = 0;
	if (slot > GPU_CALIB_LINK_BYTES)
		slot = GPU_CALIB_LINK_BYTES;
	slot &= ~(size_t)4095;
	memset(&peers, 0, sizeof peers);
	if (w < 2 || w - 1 > CALIB_PEERS_MAX || slot < ((size_t)1 << 20)) {
		snprintf(err, len, "link egress needs 2 to %d ranks and 1 MiB a peer in half the heap"
			 " (%d ranks, %zu bytes a rank)", CALIB_PEERS_MAX + 1, w, heap->bytes);
		ok = 0;
	}
	for (int k = 1; ok && k < w; k++) /* staggered: not every rank on rank 0 first */
		peers.dst[peers.count++] = heap->base[(me + k) % w] + (size_t)me * slot;
	unsigned long long vectors = slot / 16;
	unsigned int seed = (unsigned int)me * 977u + 1u;
	void *args[] = { &peers, &vectors, &seed };
	/* 4 CTAs per SM as the pair measurement, rounded to whole peers */
	unsigned int per = ((unsigned int)d->sms * 4 + (unsigned int)w - 2) / (unsigned int)(w > 1 ? w - 1 : 1);
	struct op store = { .kind = OP_KERNEL, .what = "the store kernel into every peer",
			    .grid = per * (unsigned int)(w > 1 ? w - 1 : 1), .args = args };
	if (ok)
		ok = hipSetDevice(d->device) == hipSuccess && load_kernels(d, &mod, err, len) == FGO_OK &&
		     get_kernel(mod, "fgo_calib_store_peers", &store.fn, err, len) == FGO_OK;
	if (!ok && !err[0])
		snprintf(err, len, "selecting GPU %d failed", d->device);
	/* every rank starts each sample from the same barrier, whatever
	 * failed, so the collectives match and the stores overlap */
	go = agree(heap->comm, ok, "the link egress", err, len);
	for (int rep = 0; rep < 6 && go; rep++) { /* the first warms up */
		float ms = 0;
		if (ok)
			ok = time_best(d, &store, 0, 1, &ms, err, len) == FGO_OK;
		float slowest = ok ? ms : 0;
		MPI_Allreduce(MPI_IN_PLACE, &slowest, 1, MPI_FLOAT, MPI_MAX, heap->comm);
		go = agree(heap->comm, ok, "the link egress", err, len);
		if (go && rep > 0 && (best == 0 || slowest < best))
			best = slowest;
	}
	if (mod)
		hipModuleUnload(mod);
	if (!go || !(best > 0)) {
		if (go)
			snprintf(err, len, "timing the link egress gave no positive time");
		return FGO_EFAIL;
	}
	*gbps = (double)(w - 1) * (double)slot / (best * 1e-3) / 1e9;
	return rc;
}

/* The element count of kind's call on a buffer of bytes at world ranks
 * (gpu_vendor_coll's count). */
static size_t coll_count(enum fgo_collective kind, size_t bytes, int world)
{
	size_t elems = bytes / 2; /* bf16 */
	return kind == FGO_COLL_ALL_REDUCE ? elems : elems / (size_t)world;
}

int gpu_calib_collective(const struct gpu_calib_dev *d, struct gpu_vendor *v,
			 struct gpu_vendor_comm *c, MPI_Comm comm, enum fgo_collective kind,
			 const size_t *bytes, int n, int reps, double *seconds, char *err,
			 size_t len)
{
	int world, ok;
	char *send = NULL, *recv = NULL;
	size_t most = n > 0 ? bytes[n - 1] : 0;
	MPI_Comm_size(comm, &world);
	if (len)
		err[0] = 0;
	if (reps > MAX_REPS)
		reps = MAX_REPS;
	ok = hipSetDevice(d->device) == hipSuccess && most > 0 &&
	     hipMalloc((void **)&send, most) == hipSuccess &&
	     hipMalloc((void **)&recv, most) == hipSuccess &&
	     hipMemsetAsync(send, 0x3c, most, d->stream) == hipSuccess && /* bf16 ~0.01: no denormals */
	     hipStreamSynchronize(d->stream) == hipSuccess;
	if (!ok && !err[0])
		snprintf(err, len, "out of GPU memory for the collective's 2 x %zu MiB buffers",
			 most >> 20);
	/* every rank agrees after each size, so no rank waits alone in NCCL */
	int go = agree(comm, ok, "the collective curve", err, len);
	for (int s = 0; s < n && go; s++) {
		double best = 0;
		size_t count = coll_count(kind, bytes[s], world);
		/* as many barriers on every rank whatever fails, so they pair up */
		for (int r = 0; r <= reps; r++) { /* the first call warms up */
			float ms = 0;
			MPI_Barrier(comm);
			ok = ok && hipEventRecord(d->start, d->stream) == hipSuccess &&
			     gpu_vendor_coll(v, c, kind, send, recv, count, FGO_BF16, err, len) == FGO_OK &&
			     hipEventRecord(d->stop, d->stream) == hipSuccess &&
			     hipEventSynchronize(d->stop) == hipSuccess &&
			     hipEventElapsedTime(&ms, d->start, d->stop) == hipSuccess;
			if (!ok && !err[0])
				snprintf(err, len, "timing the %s of %zu bytes failed", fgo_collective_names[kind],
					 bytes[s]);
			if (ok && r > 0 && ms > 0 && (best == 0 || ms * 1e-3 < best))
				best = ms * 1e-3;
		}
		ok = ok && best > 0;
		if (!ok && !err[0])
			snprintf(err, len, "the %s of %zu bytes took no measurable time",
				 fgo_collective_names[kind], bytes[s]);
		go = agree(comm, ok, "the collective curve", err, len);
		MPI_Allreduce(&best, &seconds[s], 1, MPI_DOUBLE, MPI_MAX, comm);
	}
	hipFree(send);
	hipFree(recv);
	return go ? FGO_OK : FGO_EFAIL;
}
