/* gpu_vendor.h: the vendor libraries behind the baseline and calibrate:
 * cuBLAS (rocBLAS on AMD) for the GEMM, NCCL (RCCL) for the collective,
 * loaded with dlopen from wherever it is (on the GPU machines NCCL lives
 * only inside the Python package), so a missing NCCL fails the baseline
 * with that reason instead of the whole tool. On AMD rocBLAS is loaded the
 * same way (no ROCm math library is linked). The sequences (which GEMM,
 * which collective, which buffers, per family) are shared by both vendors
 * (gpu_vendor.c); each vendor fills one struct gpu_vendor_ops. */
#ifndef FGO_GPU_VENDOR_H
#define FGO_GPU_VENDOR_H

#include <mpi.h>
#include <stddef.h>

#include "algo.h"
#include "hip_port.h"

struct gpu_vendor;
struct gpu_vendor_comm;

/* One vendor's libraries: cuBLAS and NCCL (gpu_vendor.c, CUDA builds),
 * rocBLAS and RCCL (gpu_vendor_hip.c, HIP builds). RCCL exports the NCCL
 * API under NCCL's names, so for the collective only the file names
 * differ; the BLAS hides behind three functions. */
struct gpu_vendor_ops {
	const char *blas_name;         /* "cuBLAS", "rocBLAS" */
	const char *coll_name;         /* "NCCL", "RCCL" */
	const char *const *coll_files; /* dlopen names of the collective library, in order, NULL-ended */
	const char *coll_hint;         /* what to do when none is found, for messages */
	/* A BLAS handle whose work goes on stream into *handle, its library's
	 * version as text into version (vlen bytes; "?" when unknown). FGO_OK,
	 * or FGO_EFAIL with the reason in err (library missing, would not start). */
	int (*blas_open)(void **handle, hipStream_t stream, char *version, size_t vlen, char *err,
			 size_t len);
	/* Enqueues row-major C (m x n, ldc) = A (m x k, lda) x B (k x n, ldb):
	 * inputs and output in t, fp32 accumulation (true fp32 for FGO_FP32, no
	 * TF32). FGO_OK, or FGO_EFAIL with the library's status in err. */
	int (*gemm)(void *handle, enum fgo_dtype t, long m, long n, long k, const void *a, long lda,
		    const void *b, long ldb, void *c, long ldc, char *err, size_t len);
	void (*blas_close)(void *handle); /* NULL is fine */
};

/* This build's vendor. */
extern const struct gpu_vendor_ops gpu_vendor_ops;

int gpu_vendor_open(struct gpu_vendor **out, hipStream_t stream, char *err, size_t len);
void gpu_vendor_close(struct gpu_vendor *v);
void gpu_vendor_device_name(int device, char *out, size_t len);
/* "cuBLAS 130000; NCCL 22703" (or "NCCL not found"; rocBLAS, RCCL on AMD). */
const char *gpu_vendor_versions(struct gpu_vendor *v);

/* A collective communicator over comm (collective call); NULL when NCCL
 * (RCCL) is missing or comm has one rank. */
struct gpu_vendor_comm *gpu_vendor_comm_open(struct gpu_vendor *v, MPI_Comm comm);
void gpu_vendor_comm_close(struct gpu_vendor *v, struct gpu_vendor_comm *c);

/* Enqueues row-major C = A x B on the stream of gpu_vendor_open through
 * the handle opened there (gpu_vendor_ops.gemm: fp32 accumulation, true
 * fp32 for FGO_FP32), for the check's reference (src/gpu/gpu_check.c).
 * FGO_OK, or FGO_EFAIL with err filled (the BLAS could not start, or
 * refused the call). */
int gpu_vendor_gemm(struct gpu_vendor *v, enum fgo_dtype t, long m, long n, long k, const void *a,
		    long lda, const void *b, long ldb, void *c, long ldc, char *err, size_t len);

/* The baseline of cfg: the vendor sequence of its family's sharding
 * (algo->space: GEMM then all-gather, all-reduce or reduce-scatter; for A
 * row-sharded families the all-gather of A then the GEMM), on the stream,
 * timed with the two events into *ms. Results go to private buffers (C
 * only for plain gemm and one-rank column sharding). Scratch buffers are
 * allocated on first use into *scratch (free with gpu_vendor_scratch_free). */
int gpu_vendor_baseline(struct gpu_vendor *v, struct gpu_vendor_comm *c,
			const struct fgo_config *cfg, const struct fgo_layout *lay, char *heap,
			void **scratch, hipEvent_t start, hipEvent_t stop, double *ms, char *err,
			size_t len);
void gpu_vendor_scratch_free(void *scratch);

/* The baseline's collective alone, with the same sharding, call and
 * buffers (nothing for plain gemm or one rank; for A row-sharded families
 * the all-gather of this rank's A shard from heap), enqueued on the
 * stream, neither timed nor waited for, so a caller can put it behind its
 * own GEMM between its own events. Scratch as for the baseline. Returns
 * FGO_OK, or FGO_EFAIL with err filled (NCCL not found, out of GPU memory,
 * NCCL refused the call). */
int gpu_vendor_collective(struct gpu_vendor *v, struct gpu_vendor_comm *c,
			  const struct fgo_config *cfg, const struct fgo_layout *lay, char *heap,
			  void **scratch, char *err, size_t len);
/* Allocates the scratch buffers now (a no-op when they exist), so the first
 * timed collective does not pay for hipMalloc; fails as gpu_vendor_collective
 * would when the collective cannot run. */
int gpu_vendor_scratch_alloc(struct gpu_vendor *v, struct gpu_vendor_comm *c,
			     const struct fgo_config *cfg, void **scratch, char *err, size_t len);

/* Enqueues one collective of kind on the stream of gpu_vendor_open
 * through c, neither timed nor waited for (calibrate's curve): count
 * elements of t from send into recv; all-gather: count per rank, recv
 * holds W x count; all-reduce: count, summed into recv; reduce-scatter:
 * count received per rank, send holds W x count. FGO_OK, or FGO_EFAIL
 * with err filled (no communicator, the library refused the call). */
int gpu_vendor_coll(struct gpu_vendor *v, struct gpu_vendor_comm *c, enum fgo_collective kind,
		    const void *send, void *recv, size_t count, enum fgo_dtype t, char *err,
		    size_t len);

#endif
