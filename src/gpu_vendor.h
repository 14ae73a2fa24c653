/* gpu_vendor.h: the vendor libraries behind the baseline and calibrate:
 * cuBLAS (hipBLASLt on AMD) for the GEMM, NCCL (RCCL) for the collective,
 * loaded with dlopen from wherever it is (on the GPU machines NCCL lives
 * only inside the Python package), so a missing NCCL fails the baseline
 * with that reason instead of the whole tool. */
#ifndef FGO_GPU_VENDOR_H
#define FGO_GPU_VENDOR_H

#include <mpi.h>
#include <stddef.h>

#include "algo.h"
#include "hip_port.h"

struct gpu_vendor;
struct gpu_vendor_comm;

/* The cuBLAS data type of dtype (for GemmEx: cuBLAS's own handles here and
 * in calibrate). */
cudaDataType_t gpu_vendor_blas_type(enum fgo_dtype t);

int gpu_vendor_open(struct gpu_vendor **out, hipStream_t stream, char *err, size_t len);
void gpu_vendor_close(struct gpu_vendor *v);
void gpu_vendor_device_name(int device, char *out, size_t len);
/* "cuBLAS 13.0.0; NCCL 2.27.3" (or "NCCL not found"). */
const char *gpu_vendor_versions(struct gpu_vendor *v);

/* A collective communicator over comm (collective call); NULL when NCCL is
 * missing or comm has one rank. */
struct gpu_vendor_comm *gpu_vendor_comm_open(struct gpu_vendor *v, MPI_Comm comm);
void gpu_vendor_comm_close(struct gpu_vendor *v, struct gpu_vendor_comm *c);

/* The baseline of cfg: the vendor sequence of its family's sharding
 * (algo->space: GEMM then all-gather, all-reduce or reduce-scatter; for A
 * row-sharded families the all-gather of A then the GEMM), on the stream,
 * timed with the two events into *ms. Results go to private buffers (C
 * only for plain gemm and one-rank column sharding). Scratch buffers are
 * allocated on first use into *scratch (free with gpu_vendor_scratch_free). */
int gpu_vendor_baseline(struct gpu_vendor *v, struct gpu_vendor_comm *c,
			const struct fgo_config *cfg, const struct fgo_layout *lay, int rank,
			char *heap, void **scratch, hipEvent_t start, hipEvent_t stop, double *ms,
			char *err, size_t len);
void gpu_vendor_scratch_free(void *scratch);

/* The baseline's collective alone, with the same sharding, call and
 * buffers (nothing for plain gemm or one rank; for A row-sharded families
 * the all-gather of an A-shard-sized stand-in, as no heap is passed here):
 * enqueued on the stream, neither timed nor waited for, so a caller can
 * put it behind its own GEMM between its own events. Scratch as for the
 * baseline. Returns FGO_OK, or FGO_EFAIL with err filled (NCCL not found,
 * out of GPU memory, NCCL refused the call). */
int gpu_vendor_collective(struct gpu_vendor *v, struct gpu_vendor_comm *c,
			  const struct fgo_config *cfg, void **scratch, char *err, size_t len);
/* Allocates the scratch buffers now (a no-op when they exist), so the first
 * timed collective does not pay for cudaMalloc. */
int gpu_vendor_scratch_alloc(const struct fgo_config *cfg, void **scratch, char *err, size_t len);

#endif
