/* gpu_vendor.c: cuBLAS and a dlopen'ed NCCL for the GPU baseline, and the
 * baseline's collective alone for the bulk measurement. Both follow the
 * sharding of the configuration's family (its enum fgo_gemm_space):
 * seq_of is the one place that turns a space into the vendor sequence
 * (which GEMM, which collective, which buffers); the rest only runs it. */
#include "gpu_vendor.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <nccl.h>

#include "fgo.h"

struct nccl_api {
	ncclResult_t (*get_unique_id)(ncclUniqueId *id);
	ncclResult_t (*comm_init_rank)(ncclComm_t *comm, int n, ncclUniqueId id, int rank);
	ncclResult_t (*comm_destroy)(ncclComm_t comm);
	ncclResult_t (*all_gather)(const void *send, void *recv, size_t count, ncclDataType_t t,
				   ncclComm_t comm, cudaStream_t stream);
	ncclResult_t (*all_reduce)(const void *send, void *recv, size_t count, ncclDataType_t t,
				   ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
	ncclResult_t (*reduce_scatter)(const void *send, void *recv, size_t recvcount,
				       ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm,
				       cudaStream_t stream);
	ncclResult_t (*get_version)(int *version);
	const char *(*error_string)(ncclResult_t r);
};

struct gpu_vendor {
	cublasHandle_t blas;
	hipStream_t stream;
	void *lib;         /* libnccl, NULL when not found */
	struct nccl_api nccl;
	char versions[128];
};

struct gpu_vendor_comm {
	ncclComm_t comm;
	int world;
};

/* The vendor sequence's private buffers (NULL where the space needs none). */
struct scratch {
	char *part;  /* the GEMM's output: this rank's block, or its partial M x N */
	char *recv;  /* the collective's output (all-reduce works in place in part) */
	char *shard; /* FGO_SPACE_A_ROWS: an M/W x K stand-in for the A shard, for bulk */
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

int gpu_vendor_open(struct gpu_vendor **out, hipStream_t stream, char *err, size_t len)
{
	struct gpu_vendor *v = calloc(1, sizeof *v);
	int blas_version = 0, nccl_version = 0;
	*out = v;
	if (!v || cublasCreate(&v->blas) != CUBLAS_STATUS_SUCCESS) {
		snprintf(err, len, "cuBLAS could not start");
		return FGO_EFAIL;
	}
	v->stream = stream;
	if (cublasSetStream(v->blas, stream) != CUBLAS_STATUS_SUCCESS) {
		snprintf(err, len, "cuBLAS refused the stream");
		return FGO_EFAIL;
	}
	cublasGetVersion(v->blas, &blas_version); /* for the text only: 0 when it fails */
	v->lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
	if (!v->lib)
		v->lib = dlopen("libnccl.so", RTLD_NOW | RTLD_LOCAL);
	if (v->lib && !nccl_load(v)) {
		dlclose(v->lib);
		v->lib = NULL;
	} else if (v->lib && v->nccl.get_version) {
		v->nccl.get_version(&nccl_version);
	}
	if (v->lib)
		snprintf(v->versions, sizeof v->versions, "cuBLAS %d; NCCL %d", blas_version,
			 nccl_version);
	else
		snprintf(v->versions, sizeof v->versions, "cuBLAS %d; NCCL not found", blas_version);
	return FGO_OK;
}

void gpu_vendor_close(struct gpu_vendor *v)
{
	if (!v)
		return;
	if (v->blas)
		cublasDestroy(v->blas);
	if (v->lib)
		dlclose(v->lib);
	free(v);
}

void gpu_vendor_device_name(int device, char *out, size_t len)
{
	struct cudaDeviceProp p;
	if (cudaGetDeviceProperties(&p, device) == cudaSuccess)
		snprintf(out, len, "%s", p.name);
}

const char *gpu_vendor_versions(struct gpu_vendor *v)
{
	return v ? v->versions : "";
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
	cudaFree(s->part);
	cudaFree(s->recv);
	cudaFree(s->shard);
	free(s);
}

cudaDataType_t gpu_vendor_blas_type(enum fgo_dtype t)
{
	return t == FGO_FP32 ? CUDA_R_32F : t == FGO_FP16 ? CUDA_R_16F : CUDA_R_16BF;
}

static ncclDataType_t nccl_type(enum fgo_dtype t)
{
	return t == FGO_FP32 ? ncclFloat32 : t == FGO_FP16 ? ncclFloat16 : ncclBfloat16;
}

/* Row-major C (m x n, ldc) = A (m x k, lda) x B (k x n, ldb), as cuBLAS's
 * column-major C^T = B^T x A^T. */
static cublasStatus_t gemm(struct gpu_vendor *v, enum fgo_dtype t, long m, long n, long k,
			   const void *a, long lda, const void *b, long ldb, void *c, long ldc)
{
	const float one = 1.f, zero = 0.f;
	cudaDataType_t bt = gpu_vendor_blas_type(t);
	return cublasGemmEx(v->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one, b, bt,
			    (int)ldb, a, bt, (int)lda, &zero, c, bt, (int)ldc, CUBLAS_COMPUTE_32F,
			    CUBLAS_GEMM_DEFAULT);
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
	size_t part, recv, shard; /* the scratch buffers' elements (0: none) */
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
				   .recv = (size_t)(m * k), .shard = (size_t)(m / w * k) };
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
		q->recv = q->shard = 0;
	}
	return FGO_OK;
}

/* cudaMalloc of bytes into *p, nothing for 0 bytes; returns 0 on success. */
static int device_alloc(char **p, size_t bytes)
{
	return bytes && cudaMalloc((void **)p, bytes) != cudaSuccess;
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
		    device_alloc(&s->recv, q->recv * es) || device_alloc(&s->shard, q->shard * es)) {
			gpu_vendor_scratch_free(s);
			snprintf(err, len, "out of GPU memory for the vendor buffers (%.1f MiB)",
				 (double)((q->part + q->recv + q->shard) * es) / (1 << 20));
			return FGO_EFAIL;
		}
		*scratch = s;
	}
	*out = s;
	return FGO_OK;
}

/* cfg's sequence and its buffers, for the caller named what; fails when
 * the sequence has a collective and NCCL is missing. */
static int prepare(struct gpu_vendor_comm *c, const struct fgo_config *cfg, struct seq *q,
		   void **scratch, struct scratch **s, const char *what, char *err, size_t len)
{
	if (seq_of(cfg, q)) {
		snprintf(err, len, "%s: unknown algorithm \"%s\"", what, cfg->algorithm);
		return FGO_EFAIL;
	}
	if (q->coll != COLL_NONE && !c) {
		snprintf(err, len, "%s needs NCCL, which was not found"
			 " (put libnccl.so.2 on LD_LIBRARY_PATH)", what);
		return FGO_EFAIL;
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

/* What one enqueued sequence returned: the first refusal stops it. */
struct seq_status {
	cublasStatus_t blas;
	ncclResult_t nccl;
};

/* Enqueues q on the stream with this rank's inputs from heap: the
 * all-gather of A then the GEMM on the gathered A (A_ROWS), else the GEMM
 * then its collective. */
static struct seq_status enqueue_seq(struct gpu_vendor *v, struct gpu_vendor_comm *c,
				     const struct fgo_config *cfg, const struct fgo_layout *lay,
				     char *heap, const struct seq *q, struct scratch *s)
{
	struct seq_status st = { CUBLAS_STATUS_SUCCESS, ncclSuccess };
	const char *a = heap + lay->a.offset;
	long lda = lay->a.ld;

	if (q->gather_a && q->coll != COLL_NONE) {
		st.nccl = collective(v, c, q, cfg->dtype, a, s);
		a = s->recv; /* the gathered A: M x K, packed */
		lda = q->k;
	}
	if (st.nccl != ncclSuccess)
		return st;
	st.blas = gemm(v, cfg->dtype, q->m, q->n, q->k, a, lda, heap + lay->b.offset, lay->b.ld,
		       q->to_c ? heap + lay->c.offset : s->part, q->to_c ? lay->c.ld : q->n);
	if (st.blas == CUBLAS_STATUS_SUCCESS && !q->gather_a)
		st.nccl = collective(v, c, q, cfg->dtype, s->part, s);
	return st;
}

static const char *nccl_text(struct gpu_vendor *v, ncclResult_t r)
{
	return r == ncclSuccess ? "ok" : v->nccl.error_string ? v->nccl.error_string(r) : "error";
}

int gpu_vendor_collective(struct gpu_vendor *v, struct gpu_vendor_comm *c,
			  const struct fgo_config *cfg, void **scratch, char *err, size_t len)
{
	struct seq q;
	struct scratch *s;
	if (prepare(c, cfg, &q, scratch, &s, "the vendor collective", err, len))
		return FGO_EFAIL;
	/* Bulk has no heap here: A_ROWS gathers the stand-in shard, the same
	 * bytes as the A shard (contents do not change the time). */
	ncclResult_t nr = collective(v, c, &q, cfg->dtype, q.gather_a ? s->shard : s->part, s);
	if (nr != ncclSuccess) {
		snprintf(err, len, "the vendor collective failed: NCCL %s", nccl_text(v, nr));
		return FGO_EFAIL;
	}
	return FGO_OK;
}

int gpu_vendor_scratch_alloc(const struct fgo_config *cfg, void **scratch, char *err, size_t len)
{
	struct seq q;
	struct scratch *s;
	if (seq_of(cfg, &q)) {
		snprintf(err, len, "the vendor buffers: unknown algorithm \"%s\"", cfg->algorithm);
		return FGO_EFAIL;
	}
	return scratch_get(cfg, &q, scratch, &s, err, len);
}

int gpu_vendor_baseline(struct gpu_vendor *v, struct gpu_vendor_comm *c,
			const struct fgo_config *cfg, const struct fgo_layout *lay, int rank,
			char *heap, void **scratch, hipEvent_t start, hipEvent_t stop, double *ms,
			char *err, size_t len)
{
	struct seq q;
	struct scratch *s;
	struct seq_status st = { CUBLAS_STATUS_SUCCESS, ncclSuccess };
	cudaError_t ce;
	float t = 0;
	(void)rank;

	if (prepare(c, cfg, &q, scratch, &s, "baseline", err, len))
		return FGO_EFAIL;
	ce = cudaEventRecord(start, v->stream);
	if (ce == cudaSuccess) {
		st = enqueue_seq(v, c, cfg, lay, heap, &q, s);
		ce = cudaEventRecord(stop, v->stream);
	}
	if (ce == cudaSuccess)
		ce = cudaEventSynchronize(stop);
	if (ce == cudaSuccess)
		ce = cudaEventElapsedTime(&t, start, stop);
	if (ce != cudaSuccess) {
		snprintf(err, len, "baseline failed: CUDA %s", cudaGetErrorString(ce));
		return FGO_EFAIL;
	}
	if (st.blas != CUBLAS_STATUS_SUCCESS || st.nccl != ncclSuccess) {
		snprintf(err, len, "baseline failed: cuBLAS status %d, NCCL %s", (int)st.blas,
			 nccl_text(v, st.nccl));
		return FGO_EFAIL;
	}
	*ms = t;
	return FGO_OK;
}
