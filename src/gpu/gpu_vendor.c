/* gpu_vendor.c: the vendor GEMM and a dlopen'ed NCCL (RCCL on AMD) for the
 * GPU baseline, and the baseline's collective alone for the bulk
 * measurement. Both follow the sharding of the configuration's family (its
 * enum fgo_gemm_space): seq_of is the one place that turns a space into the
 * vendor sequence (which GEMM, which collective, which buffers); the rest
 * only runs it, through this build's struct gpu_vendor_ops: cuBLAS below
 * (CUDA builds), rocBLAS in gpu_vendor_hip.c (HIP builds). The collective
 * is the NCCL API under both vendors. */
#include "gpu/gpu_vendor.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"

#if defined(FGO_GPU_CUDA)
#include <cublas_v2.h>
#include <nccl.h>

/* ---- cuBLAS, linked ---- */

static cudaDataType_t cublas_type(enum fgo_dtype t)
{
	return t == FGO_FP32 ? CUDA_R_32F : t == FGO_FP16 ? CUDA_R_16F : CUDA_R_16BF;
}

static int cublas_open(void **handle, hipStream_t stream, char *version, size_t vlen, char *err,
		       size_t len)
{
	cublasHandle_t h = NULL;
	cublasStatus_t s = cublasCreate(&h);
	int v = 0;

	*handle = NULL;
	if (s != CUBLAS_STATUS_SUCCESS) {
		snprintf(err, len, "cuBLAS could not start: %s", cublasGetStatusString(s));
		return FGO_EFAIL;
	}
	/* the default math mode: CUBLAS_COMPUTE_32F stays true fp32 (no TF32) */
	if ((s = cublasSetStream(h, stream)) != CUBLAS_STATUS_SUCCESS ||
	    (s = cublasSetMathMode(h, CUBLAS_DEFAULT_MATH)) != CUBLAS_STATUS_SUCCESS) {
		snprintf(err, len, "setting up cuBLAS failed: %s", cublasGetStatusString(s));
		cublasDestroy(h);
		return FGO_EFAIL;
	}
	if (cublasGetVersion(h, &v) == CUBLAS_STATUS_SUCCESS)
		snprintf(version, vlen, "%d", v);
	else
		snprintf(version, vlen, "?");
	*handle = h;
	return FGO_OK;
}

/* Row-major C = A x B as cuBLAS's column-major C^T = B^T x A^T. */
static int cublas_gemm(void *handle, enum fgo_dtype t, long m, long n, long k, const void *a,
		       long lda, const void *b, long ldb, void *c, long ldc, char *err, size_t len)
{
	const float one = 1.f, zero = 0.f;
	cudaDataType_t bt = cublas_type(t);
	cublasStatus_t s = cublasGemmEx((cublasHandle_t)handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)n,
					(int)m, (int)k, &one, b, bt, (int)ldb, a, bt, (int)lda,
					&zero, c, bt, (int)ldc, CUBLAS_COMPUTE_32F,
					CUBLAS_GEMM_DEFAULT);
	if (s != CUBLAS_STATUS_SUCCESS) {
		snprintf(err, len, "cublasGemmEx failed: %s", cublasGetStatusString(s));
		return FGO_EFAIL;
	}
	return FGO_OK;
}

static void cublas_close(void *handle)
{
	if (handle)
		cublasDestroy((cublasHandle_t)handle);
}

static const char *const nccl_files[] = { "libnccl.so.2", "libnccl.so", NULL };

const struct gpu_vendor_ops gpu_vendor_ops = {
	.blas_name = "cuBLAS",
	.coll_name = "NCCL",
	.coll_files = nccl_files,
	.coll_hint = "put libnccl.so.2 on LD_LIBRARY_PATH",
	.blas_open = cublas_open,
	.gemm = cublas_gemm,
	.blas_close = cublas_close,
};

#else
/* The part of the NCCL API used here, as RCCL exports it (nccl.h is not
 * installed on a HIP build machine): the types are NCCL's ABI, stable
 * since NCCL 2.10 (bfloat16) and RCCL 2.10. */
typedef struct {
	char internal[128]; /* NCCL_UNIQUE_ID_BYTES */
} ncclUniqueId;
typedef struct ncclComm *ncclComm_t;
typedef enum { ncclSuccess = 0 } ncclResult_t;
typedef enum { ncclFloat16 = 6, ncclFloat32 = 7, ncclBfloat16 = 9 } ncclDataType_t;
typedef enum { ncclSum = 0 } ncclRedOp_t;
#endif

struct nccl_api {
	ncclResult_t (*get_unique_id)(ncclUniqueId *id);
	ncclResult_t (*comm_init_rank)(ncclComm_t *comm, int n, ncclUniqueId id, int rank);
	ncclResult_t (*comm_destroy)(ncclComm_t comm);
	ncclResult_t (*all_gather)(const void *send, void *recv, size_t count, ncclDataType_t t,
				   ncclComm_t comm, hipStream_t stream);
	ncclResult_t (*all_reduce)(const void *send, void *recv, size_t count, ncclDataType_t t,
				   ncclRedOp_t op, ncclComm_t comm, hipStream_t stream);
	ncclResult_t (*reduce_scatter)(const void *send, void *recv, size_t recvcount,
				       ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm,
				       hipStream_t stream);
	ncclResult_t (*get_version)(int *version);
	const char *(*error_string)(ncclResult_t r);
};

struct gpu_vendor {
	void *blas;             /* the vendor BLAS's handle, NULL when it could not start */
	char blas_why[160];     /* why not, for the baseline's message */
	hipStream_t stream;
	void *lib;              /* the NCCL (RCCL) library, NULL when not found */
	struct nccl_api nccl;
	char versions[128];     /* gpu_vendor_versions */
};

struct gpu_vendor_comm {
	ncclComm_t comm;
	int world;
};

/* How the baseline's sequence is launched: decided on its first sample
 * (baseline_choose), then the same for every later one. */
enum seq_launch { SEQ_UNDECIDED = 0, SEQ_EAGER, SEQ_GRAPH };

/* The vendor sequence's private buffers (NULL where the space needs none),
 * and the sequence captured as a CUDA (HIP) graph where that is faster. */
struct scratch {
	char *part;  /* the GEMM's output: this rank's block, or its partial M x N */
	char *recv;  /* the collective's output (all-reduce works in place in part) */
	enum seq_launch launch;
	hipGraphExec_t graph; /* SEQ_GRAPH: the captured sequence */
};

/* Resolves the NCCL entry points into v->nccl; returns 0 when one that
 * the baseline needs is missing (that NCCL then counts as not found). */
static int nccl_load(struct gpu_vendor *v)
{
	struct nccl_api *n = &v->nccl;
	*(void **)&n->get_unique_id = dlsym(v->lib, "ncclGetUniqueId");
	*(void **)&n->comm_init_rank = dlsym(v->lib, "ncclCommInitRank");
	*(void **)&n->comm_destroy = dlsym(v->lib, "ncclCommDestroy");
	*(void **)&n->all_gather = dlsym(v->lib, "ncclAllGather");
	*(void **)&n->all_reduce = dlsym(v->lib, "ncclAllReduce");
	*(void **)&n->reduce_scatter = dlsym(v->lib, "ncclReduceScatter");
	*(void **)&n->get_version = dlsym(v->lib, "ncclGetVersion");
	*(void **)&n->error_string = dlsym(v->lib, "ncclGetErrorString");
	return n->get_unique_id && n->comm_init_rank && n->comm_destroy && n->all_gather &&
	       n->all_reduce && n->reduce_scatter;
}

/* dlopens the first of the vendor's collective library names that loads
 * and has every entry point the baseline needs, into v->lib and v->nccl. */
static void nccl_open(struct gpu_vendor *v)
{
	for (const char *const *f = gpu_vendor_ops.coll_files; *f && !v->lib; f++) {
		v->lib = dlopen(*f, RTLD_NOW | RTLD_LOCAL);
		if (v->lib && !nccl_load(v)) {
			dlclose(v->lib);
			v->lib = NULL;
		}
	}
}

/* A BLAS that cannot start is not an error here: the baseline (and only
 * it) then fails with the reason, as it does without NCCL. */
int gpu_vendor_open(struct gpu_vendor **out, hipStream_t stream, char *err, size_t len)
{
	const struct gpu_vendor_ops *ops = &gpu_vendor_ops;
	struct gpu_vendor *v = calloc(1, sizeof *v);
	char blas_version[32] = "?", nccl_version[32] = "not found";
	int nv = 0;

	*out = v;
	if (!v) {
		snprintf(err, len, "out of memory");
		return FGO_EFAIL;
	}
	v->stream = stream;
	if (ops->blas_open(&v->blas, stream, blas_version, sizeof blas_version, v->blas_why,
			   sizeof v->blas_why) != FGO_OK)
		v->blas = NULL;
	nccl_open(v);
	if (v->lib && v->nccl.get_version && v->nccl.get_version(&nv) == ncclSuccess)
		snprintf(nccl_version, sizeof nccl_version, "%d", nv);
	else if (v->lib)
		snprintf(nccl_version, sizeof nccl_version, "?");
	snprintf(v->versions, sizeof v->versions, "%s %s; %s %s", ops->blas_name,
		 v->blas ? blas_version : "unavailable", ops->coll_name, nccl_version);
	return FGO_OK;
}

void gpu_vendor_close(struct gpu_vendor *v)
{
	if (!v)
		return;
	gpu_vendor_ops.blas_close(v->blas);
	if (v->lib)
		dlclose(v->lib);
	free(v);
}

void gpu_vendor_device_name(int device, char *out, size_t len)
{
#if defined(FGO_GPU_CUDA)
	struct cudaDeviceProp p;
	if (cudaGetDeviceProperties(&p, device) == cudaSuccess)
		snprintf(out, len, "%s", p.name);
#else
	hipDeviceProp_t p;
	if (hipGetDeviceProperties(&p, device) == hipSuccess)
		snprintf(out, len, "%s", p.name);
#endif
}

const char *gpu_vendor_versions(struct gpu_vendor *v)
{
	return v ? v->versions : "";
}

int gpu_vendor_gemm(struct gpu_vendor *v, enum fgo_dtype t, long m, long n, long k, const void *a,
		    long lda, const void *b, long ldb, void *c, long ldc, char *err, size_t len)
{
	if (!v || !v->blas) {
		snprintf(err, len, "%s is unavailable: %s", gpu_vendor_ops.blas_name,
			 v ? v->blas_why : "not opened");
		return FGO_EFAIL;
	}
	return gpu_vendor_ops.gemm(v->blas, t, m, n, k, a, lda, b, ldb, c, ldc, err, len);
}

struct gpu_vendor_comm *gpu_vendor_comm_open(struct gpu_vendor *v, MPI_Comm comm)
{
	int rank, world, ok;
	ncclUniqueId id;
	struct gpu_vendor_comm *c;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &world);
	ok = v && v->lib && world > 1;
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
	if (!ok)
		return NULL;
	if (rank == 0)
		v->nccl.get_unique_id(&id);
	MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm);
	c = calloc(1, sizeof *c);
	if (!c || v->nccl.comm_init_rank(&c->comm, world, id, rank) != ncclSuccess) {
		free(c);
		return NULL;
	}
	c->world = world;
	return c;
}

void gpu_vendor_comm_close(struct gpu_vendor *v, struct gpu_vendor_comm *c)
{
	if (c && v && v->lib)
		v->nccl.comm_destroy(c->comm);
	free(c);
}

void gpu_vendor_scratch_free(void *scratch)
{
	struct scratch *s = scratch;
	if (!s)
		return;
	if (s->graph)
		hipGraphExecDestroy(s->graph);
	hipFree(s->part);
	hipFree(s->recv);
	free(s);
}

static ncclDataType_t nccl_type(enum fgo_dtype t)
{
	return t == FGO_FP32 ? ncclFloat32 : t == FGO_FP16 ? ncclFloat16 : ncclBfloat16;
}

enum coll_kind {
	COLL_NONE = 0,       /* plain gemm, or one rank */
	COLL_ALL_GATHER,     /* count per rank: send count */
	COLL_ALL_REDUCE,     /* count: all of the buffer, summed in place */
	COLL_REDUCE_SCATTER, /* count per rank: receive count, summed */
};

/* One rank's vendor sequence for a space; sizes in elements, row-major. */
struct seq {
	long m, n, k;        /* the GEMM: (m x k) x (k x n) into an m x n buffer */
	int gather_a;        /* the collective gathers A, so it runs before the GEMM */
	int to_c;            /* the GEMM writes straight into the heap's C (no collective) */
	enum coll_kind coll;
	size_t count;        /* NCCL's count argument for coll */
	size_t part, recv;   /* the scratch buffers' elements (0: none) */
};

/* The vendor sequence of cfg's family, on every rank alike:
 *  B_COLS  GEMM M x N/W x K, then all-gather of the M x N/W blocks;
 *  K       GEMM M x N x K/W (the partial sum), then all-reduce in place;
 *  K_ROWS  GEMM as K, then reduce-scatter into this rank's M/W x N rows;
 *  A_ROWS  all-gather of the M/W x K A shards into M x K, then GEMM
 *          M x N/W x K.
 * No collective for plain gemm or one rank. Returns FGO_EFAIL for an
 * algorithm the registry does not know. */
static int seq_of(const struct fgo_config *cfg, struct seq *q)
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	long w = cfg->world > 0 ? cfg->world : 1, m = cfg->m, n = cfg->n, k = cfg->k;
	int comm = algo && algo->needs_comm && w > 1;

	if (!algo)
		return FGO_EFAIL;
	switch (algo->space) {
	case FGO_SPACE_K:
		*q = (struct seq){ .m = m, .n = n, .k = k / w, .coll = COLL_ALL_REDUCE,
				   .count = (size_t)(m * n) };
		break;
	case FGO_SPACE_K_ROWS:
		*q = (struct seq){ .m = m, .n = n, .k = k / w, .coll = COLL_REDUCE_SCATTER,
				   .count = (size_t)(m / w * n), .recv = (size_t)(m / w * n) };
		break;
	case FGO_SPACE_A_ROWS:
		*q = (struct seq){ .m = m, .n = n / w, .k = k, .gather_a = 1,
				   .coll = COLL_ALL_GATHER, .count = (size_t)(m / w * k),
				   .recv = (size_t)(m * k) };
		break;
	default: /* FGO_SPACE_B_COLS */
		*q = (struct seq){ .m = m, .n = n / w, .k = k, .to_c = !comm,
				   .coll = COLL_ALL_GATHER, .count = (size_t)(m * (n / w)),
				   .recv = (size_t)(m * (n / w) * w) };
		break;
	}
	/* the GEMM's output is private except for plain gemm (and one rank of
	 * B_COLS): a partial sum or a block to send must not land in C */
	q->part = q->to_c ? 0 : (size_t)(q->m * q->n);
	if (!comm) {
		q->coll = COLL_NONE;
		q->recv = 0;
	}
	return FGO_OK;
}

/* hipMalloc of bytes into *p, nothing for 0 bytes; returns 0 on success. */
static int device_alloc(char **p, size_t bytes)
{
	return bytes && hipMalloc((void **)p, bytes) != hipSuccess;
}

/* The buffers of q, allocated on first use (a run's cfg, hence q, is fixed,
 * so buffers once made fit every later call). */
static int scratch_get(const struct fgo_config *cfg, const struct seq *q, void **scratch,
		       struct scratch **out, char *err, size_t len)
{
	size_t es = dtype_size(cfg->dtype);
	struct scratch *s = *scratch;
	if (!s) {
		s = calloc(1, sizeof *s);
		if (!s || device_alloc(&s->part, q->part * es) ||
		    device_alloc(&s->recv, q->recv * es)) {
			gpu_vendor_scratch_free(s);
			snprintf(err, len, "out of GPU memory for the vendor buffers (%.1f MiB)",
				 (double)((q->part + q->recv) * es) / (1 << 20));
			return FGO_EFAIL;
		}
		*scratch = s;
	}
	*out = s;
	return FGO_OK;
}

/* cfg's sequence and its buffers, for the caller named what; fails when
 * the sequence has a collective and NCCL (RCCL) is missing, or, with
 * needs_blas, when the vendor BLAS could not start. */
static int prepare(struct gpu_vendor *v, struct gpu_vendor_comm *c, const struct fgo_config *cfg,
		   struct seq *q, int needs_blas, void **scratch, struct scratch **s,
		   const char *what, char *err, size_t len)
{
	const struct gpu_vendor_ops *ops = &gpu_vendor_ops;
	if (seq_of(cfg, q)) {
		snprintf(err, len, "%s: unknown algorithm \"%s\"", what, cfg->algorithm);
		return FGO_EFAIL;
	}
	if (needs_blas && !v->blas) {
		snprintf(err, len, "%s needs %s: %s", what, ops->blas_name, v->blas_why);
		return FGO_EFAIL;
	}
	if (q->coll != COLL_NONE && !c) {
		snprintf(err, len, "%s needs %s, which was not found (%s)", what, ops->coll_name,
			 ops->coll_hint);
		return FGO_EUNAVAILABLE;
	}
	return scratch_get(cfg, q, scratch, s, err, len);
}

/* Enqueues q's collective on the stream, sending from send (the A shard
 * for A_ROWS, else the GEMM's output s->part); nothing for COLL_NONE. */
static ncclResult_t collective(struct gpu_vendor *v, struct gpu_vendor_comm *c,
			       const struct seq *q, enum fgo_dtype t, const void *send,
			       struct scratch *s)
{
	switch (q->coll) {
	case COLL_ALL_GATHER:
		return v->nccl.all_gather(send, s->recv, q->count, nccl_type(t), c->comm, v->stream);
	case COLL_ALL_REDUCE:
		return v->nccl.all_reduce(send, s->part, q->count, nccl_type(t), ncclSum, c->comm,
					  v->stream);
	case COLL_REDUCE_SCATTER:
		return v->nccl.reduce_scatter(send, s->recv, q->count, nccl_type(t), ncclSum,
					      c->comm, v->stream);
	default:
		return ncclSuccess;
	}
}

static const char *nccl_text(struct gpu_vendor *v, ncclResult_t r)
{
	return r == ncclSuccess ? "ok" : v->nccl.error_string ? v->nccl.error_string(r) : "error";
}

/* Enqueues q on the stream with this rank's inputs from heap: the
 * all-gather of A then the GEMM on the gathered A (A_ROWS), else the GEMM
 * then its collective. The first refusal stops it: FGO_EFAIL with the
 * library's word in err. */
static int enqueue_seq(struct gpu_vendor *v, struct gpu_vendor_comm *c,
		       const struct fgo_config *cfg, const struct fgo_layout *lay, char *heap,
		       const struct seq *q, struct scratch *s, char *err, size_t len)
{
	const char *a = heap + lay->a.offset;
	long lda = lay->a.ld;
	ncclResult_t nr = ncclSuccess;

	if (q->gather_a && q->coll != COLL_NONE) {
		nr = collective(v, c, q, cfg->dtype, a, s);
		a = s->recv; /* the gathered A: M x K, packed */
		lda = q->k;
	}
	if (nr == ncclSuccess &&
	    gpu_vendor_ops.gemm(v->blas, cfg->dtype, q->m, q->n, q->k, a, lda, heap + lay->b.offset,
				lay->b.ld, q->to_c ? heap + lay->c.offset : s->part,
				q->to_c ? lay->c.ld : q->n, err, len) != FGO_OK)
		return FGO_EFAIL;
	if (nr == ncclSuccess && !q->gather_a)
		nr = collective(v, c, q, cfg->dtype, s->part, s);
	if (nr != ncclSuccess) {
		snprintf(err, len, "%s refused the collective: %s", gpu_vendor_ops.coll_name,
			 nccl_text(v, nr));
		return FGO_EFAIL;
	}
	return FGO_OK;
}

int gpu_vendor_coll(struct gpu_vendor *v, struct gpu_vendor_comm *c, enum fgo_collective kind,
		    const void *send, void *recv, size_t count, enum fgo_dtype t, char *err,
		    size_t len)
{
	ncclResult_t nr;
	if (!v || !v->lib || !c) {
		snprintf(err, len, "%s was not found or has no communicator (%s)",
			 gpu_vendor_ops.coll_name, gpu_vendor_ops.coll_hint);
		return FGO_EFAIL;
	}
	if (kind == FGO_COLL_ALL_GATHER)
		nr = v->nccl.all_gather(send, recv, count, nccl_type(t), c->comm, v->stream);
	else if (kind == FGO_COLL_ALL_REDUCE)
		nr = v->nccl.all_reduce(send, recv, count, nccl_type(t), ncclSum, c->comm, v->stream);
	else
		nr = v->nccl.reduce_scatter(send, recv, count, nccl_type(t), ncclSum, c->comm,
					    v->stream);
	if (nr != ncclSuccess) {
		snprintf(err, len, "%s %s failed: %s", gpu_vendor_ops.coll_name,
			 fgo_collective_names[kind], nccl_text(v, nr));
		return FGO_EFAIL;
	}
	return FGO_OK;
}

int gpu_vendor_collective(struct gpu_vendor *v, struct gpu_vendor_comm *c,
			  const struct fgo_config *cfg, const struct fgo_layout *lay, char *heap,
			  void **scratch, char *err, size_t len)
{
	struct seq q;
	struct scratch *s;
	if (prepare(v, c, cfg, &q, 0, scratch, &s, "the vendor collective", err, len))
		return FGO_EFAIL;
	ncclResult_t nr = collective(v, c, &q, cfg->dtype,
				     q.gather_a ? (const void *)(heap + lay->a.offset) : s->part, s);
	if (nr != ncclSuccess) {
		snprintf(err, len, "the vendor collective failed: %s %s", gpu_vendor_ops.coll_name,
			 nccl_text(v, nr));
		return FGO_EFAIL;
	}
	return FGO_OK;
}

int gpu_vendor_scratch_alloc(struct gpu_vendor *v, struct gpu_vendor_comm *c,
			     const struct fgo_config *cfg, void **scratch, char *err, size_t len)
{
	struct seq q;
	struct scratch *s;
	return prepare(v, c, cfg, &q, 0, scratch, &s, "the vendor collective", err, len);
}

/* q as one sample on the stream: eagerly, or the captured graph. */
static int seq_run(struct gpu_vendor *v, struct gpu_vendor_comm *c, const struct fgo_config *cfg,
		   const struct fgo_layout *lay, char *heap, const struct seq *q, struct scratch *s,
		   int graph, char *err, size_t len)
{
	if (!graph)
		return enqueue_seq(v, c, cfg, lay, heap, q, s, err, len);
	hipError_t e = hipGraphLaunch(s->graph, v->stream);
	if (e != hipSuccess) {
		snprintf(err, len, "launching the captured sequence failed: %s", hipGetErrorString(e));
		return FGO_EFAIL;
	}
	return FGO_OK;
}

/* Milliseconds of one sample of q between the events (eager or graph). */
static int seq_time(struct gpu_vendor *v, struct gpu_vendor_comm *c, const struct fgo_config *cfg,
		    const struct fgo_layout *lay, char *heap, const struct seq *q, struct scratch *s,
		    int graph, hipEvent_t start, hipEvent_t stop, float *ms, char *err, size_t len)
{
	char why[FGO_REASON_MAX] = "";
	int rc = FGO_OK;
	hipError_t e = hipEventRecord(start, v->stream);
	if (e == hipSuccess) {
		rc = seq_run(v, c, cfg, lay, heap, q, s, graph, why, sizeof why);
		e = hipEventRecord(stop, v->stream);
	}
	if (e == hipSuccess)
		e = hipEventSynchronize(stop);
	if (e == hipSuccess)
		e = hipEventElapsedTime(ms, start, stop);
	if (e != hipSuccess) {
		snprintf(err, len, "baseline failed: %s", hipGetErrorString(e));
		return FGO_EFAIL;
	}
	if (rc != FGO_OK) {
		snprintf(err, len, "baseline failed: %s", why);
		return FGO_EFAIL;
	}
	return FGO_OK;
}

/* The sequence captured into s->graph; 0 when the stream could not
 * capture it (an older library, say): then it runs eagerly. */
static int seq_capture(struct gpu_vendor *v, struct gpu_vendor_comm *c,
		       const struct fgo_config *cfg, const struct fgo_layout *lay, char *heap,
		       const struct seq *q, struct scratch *s)
{
	char why[FGO_REASON_MAX];
	hipGraph_t g = NULL;
	if (hipStreamBeginCapture(v->stream, hipStreamCaptureModeThreadLocal) != hipSuccess) {
		hipGetLastError();
		return 0;
	}
	int rc = enqueue_seq(v, c, cfg, lay, heap, q, s, why, sizeof why);
	hipError_t e = hipStreamEndCapture(v->stream, &g);
	if (rc == FGO_OK && e == hipSuccess && g &&
	    hipGraphInstantiateWithFlags(&s->graph, g, 0) != hipSuccess)
		s->graph = NULL;
	if (g)
		hipGraphDestroy(g);
	hipGetLastError(); /* a refused capture leaves its error behind */
	return s->graph != NULL;
}

/* How many samples of each form the first call times before it keeps the
 * faster (the least of each). */
#define BASELINE_PROBES 3

/* The first sample of a run decides how the sequence is launched: a user
 * may launch it eagerly (one stream, the GEMM then the collective) or
 * capture it once as a graph and replay it, which saves the gap between
 * the two launches; the baseline is the faster of the two. Every rank
 * runs the collective the same number of times here, captured or not (a
 * rank whose capture failed times the eager form in the graph's turns),
 * so the ranks' collectives still pair up. */
static int baseline_choose(struct gpu_vendor *v, struct gpu_vendor_comm *c,
			   const struct fgo_config *cfg, const struct fgo_layout *lay, char *heap,
			   const struct seq *q, struct scratch *s, hipEvent_t start, hipEvent_t stop,
			   char *err, size_t len)
{
	float best[2] = { 0, 0 };
	const int captured = seq_capture(v, c, cfg, lay, heap, q, s);
	for (int i = 0; i < 2 * BASELINE_PROBES; i++) {
		float t = 0;
		const int graph = i % 2 && captured;
		if (seq_time(v, c, cfg, lay, heap, q, s, graph, start, stop, &t, err, len) != FGO_OK)
			return FGO_EFAIL;
		if (i < 2 || t < best[i % 2])
			best[i % 2] = t;
	}
	s->launch = captured && best[1] < best[0] ? SEQ_GRAPH : SEQ_EAGER;
	return FGO_OK;
}

int gpu_vendor_baseline(struct gpu_vendor *v, struct gpu_vendor_comm *c,
			const struct fgo_config *cfg, const struct fgo_layout *lay, char *heap,
			void **scratch, hipEvent_t start, hipEvent_t stop, double *ms, char *err,
			size_t len)
{
	struct seq q;
	struct scratch *s;
	float t = 0;

	if (prepare(v, c, cfg, &q, 1, scratch, &s, "baseline", err, len))
		return FGO_EFAIL;
	if (s->launch == SEQ_UNDECIDED &&
	    baseline_choose(v, c, cfg, lay, heap, &q, s, start, stop, err, len) != FGO_OK)
		return FGO_EFAIL;
	if (seq_time(v, c, cfg, lay, heap, &q, s, s->launch == SEQ_GRAPH, start, stop, &t, err, len) !=
	    FGO_OK)
		return FGO_EFAIL;
	*ms = t;
	return FGO_OK;
}
