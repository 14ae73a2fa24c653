/* gpu_vendor.c: cuBLAS and a dlopen'ed NCCL for the GPU baseline, and the
 * baseline's collective alone for the bulk measurement. */
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

struct scratch {
	char *mine, *all;
};

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
	cublasSetStream(v->blas, stream);
	cublasGetVersion(v->blas, &blas_version);
	v->lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
	if (!v->lib)
		v->lib = dlopen("libnccl.so", RTLD_NOW | RTLD_LOCAL);
	if (v->lib) {
		*(void **)&v->nccl.get_unique_id = dlsym(v->lib, "ncclGetUniqueId");
		*(void **)&v->nccl.comm_init_rank = dlsym(v->lib, "ncclCommInitRank");
		*(void **)&v->nccl.comm_destroy = dlsym(v->lib, "ncclCommDestroy");
		*(void **)&v->nccl.all_gather = dlsym(v->lib, "ncclAllGather");
		*(void **)&v->nccl.get_version = dlsym(v->lib, "ncclGetVersion");
		*(void **)&v->nccl.error_string = dlsym(v->lib, "ncclGetErrorString");
		if (!v->nccl.get_unique_id || !v->nccl.comm_init_rank || !v->nccl.all_gather ||
		    !v->nccl.comm_destroy) {
			dlclose(v->lib);
			v->lib = NULL;
		} else if (v->nccl.get_version) {
			v->nccl.get_version(&nccl_version);
		}
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
	cudaFree(s->mine);
	cudaFree(s->all);
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
	return cublasGemmEx(v->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one, b,
			    gpu_vendor_blas_type(t), (int)ldb, a, gpu_vendor_blas_type(t), (int)lda, &zero, c, gpu_vendor_blas_type(t),
			    (int)ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

/* Whether cfg's family has a collective in the vendor sequence: every
 * family but plain gemm, on more than one rank. */
static int gathers(const struct fgo_config *cfg)
{
	return strcmp(cfg->algorithm, "gemm") != 0 && cfg->world > 1;
}

/* The baseline buffers of cfg (this rank's M x N/W block, and all W
 * blocks when it gathers), allocated on first use. */
static int scratch_get(const struct fgo_config *cfg, void **scratch, struct scratch **out,
		       char *err, size_t len)
{
	size_t block = (size_t)cfg->m * (size_t)(cfg->n / cfg->world) * dtype_size(cfg->dtype);
	struct scratch *s = *scratch;
	if (!s) {
		s = calloc(1, sizeof *s);
		if (!s || cudaMalloc((void **)&s->mine, block) != cudaSuccess ||
		    (gathers(cfg) &&
		     cudaMalloc((void **)&s->all, block * (size_t)cfg->world) != cudaSuccess)) {
			gpu_vendor_scratch_free(s);
			snprintf(err, len, "out of GPU memory for the baseline buffers");
			return FGO_EFAIL;
		}
		*scratch = s;
	}
	*out = s;
	return FGO_OK;
}

/* Enqueues the family's collective on the stream: the all-gather of every
 * rank's M x N/W block (the sharding of DESIGN.md's baseline row). */
static ncclResult_t collective(struct gpu_vendor *v, struct gpu_vendor_comm *c,
			       const struct fgo_config *cfg, struct scratch *s)
{
	if (!gathers(cfg))
		return ncclSuccess;
	return v->nccl.all_gather(s->mine, s->all, (size_t)cfg->m * (size_t)(cfg->n / cfg->world),
				  nccl_type(cfg->dtype), c->comm, v->stream);
}

static const char *nccl_text(struct gpu_vendor *v, ncclResult_t r)
{
	return r == ncclSuccess ? "ok" : v->nccl.error_string ? v->nccl.error_string(r) : "error";
}

int gpu_vendor_collective(struct gpu_vendor *v, struct gpu_vendor_comm *c,
			  const struct fgo_config *cfg, void **scratch, char *err, size_t len)
{
	struct scratch *s;
	if (gathers(cfg) && !c) {
		snprintf(err, len, "the vendor collective needs NCCL, which was not found"
			 " (put libnccl.so.2 on LD_LIBRARY_PATH)");
		return FGO_EFAIL;
	}
	if (scratch_get(cfg, scratch, &s, err, len))
		return FGO_EFAIL;
	ncclResult_t nr = collective(v, c, cfg, s);
	if (nr != ncclSuccess) {
		snprintf(err, len, "the vendor collective failed: NCCL %s", nccl_text(v, nr));
		return FGO_EFAIL;
	}
	return FGO_OK;
}

int gpu_vendor_scratch_alloc(const struct fgo_config *cfg, void **scratch, char *err, size_t len)
{
	struct scratch *s;
	return scratch_get(cfg, scratch, &s, err, len);
}

int gpu_vendor_baseline(struct gpu_vendor *v, struct gpu_vendor_comm *c,
			const struct fgo_config *cfg, const struct fgo_layout *lay, int rank,
			char *heap, void **scratch, hipEvent_t start, hipEvent_t stop, double *ms,
			char *err, size_t len)
{
	long nw = cfg->n / cfg->world;
	struct scratch *s;
	float t = 0;
	(void)rank;

	if (gathers(cfg) && !c) {
		snprintf(err, len, "baseline needs NCCL, which was not found (put libnccl.so.2 on LD_LIBRARY_PATH)");
		return FGO_EFAIL;
	}
	if (scratch_get(cfg, scratch, &s, err, len))
		return FGO_EFAIL;
	cudaEventRecord(start, v->stream);
	/* GEMM of this rank's column block into a dense buffer, as the vendor
	 * sequence would, then the all-gather of the blocks. */
	cublasStatus_t bs = gemm(v, cfg->dtype, cfg->m, nw, cfg->k, heap + lay->a.offset, lay->a.ld,
				 heap + lay->b.offset, lay->b.ld,
				 gathers(cfg) ? (void *)s->mine : (void *)(heap + lay->c.offset), nw);
	ncclResult_t nr = ncclSuccess;
	if (bs == CUBLAS_STATUS_SUCCESS)
		nr = collective(v, c, cfg, s);
	cudaEventRecord(stop, v->stream);
	if (cudaEventSynchronize(stop) != cudaSuccess || bs != CUBLAS_STATUS_SUCCESS || nr != ncclSuccess) {
		snprintf(err, len, "baseline failed: cuBLAS status %d, NCCL %s", (int)bs,
			 nccl_text(v, nr));
		return FGO_EFAIL;
	}
	cudaEventElapsedTime(&t, start, stop);
	*ms = t;
	return FGO_OK;
}
