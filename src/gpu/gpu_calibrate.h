/* gpu_calibrate.h: the GPU measurements behind `fgobench calibrate`: the
 * vendor GEMM's matrix peak, device memory bandwidth by a copy kernel, and
 * one-direction link bandwidth per GPU pair by SM stores and by the copy
 * engine. The kernels are kernels/calibrate.hip, JIT-compiled for the
 * device's arch. Built with GPU=cuda; backend_gpu.c wraps these as its
 * matrix_peak, memory_bandwidth and link_bandwidth members.
 *
 * Every function returns FGO_OK or FGO_EFAIL with a one-line reason in err,
 * and leaves nothing allocated behind. */
#ifndef FGO_GPU_CALIBRATE_H
#define FGO_GPU_CALIBRATE_H

#include <stddef.h>

#include "backend/backend.h"
#include "config.h"
#include "gpu/gpu_vendor.h"
#include "hip_port.h"

#define GPU_CALIB_GEMM_SIZE 8192               /* M = N = K of the matrix peak (backend.h) */
#define GPU_CALIB_COPY_BYTES ((size_t)1 << 30)  /* copied once per memory-bandwidth sample */
#define GPU_CALIB_LINK_BYTES ((size_t)256 << 20) /* written into the peer per link sample */

/* Where the calibration runs: the caller's device, stream and events. */
struct gpu_calib_dev {
	int device;          /* device ordinal, made current on entry */
	int sms;             /* multiprocessors (sizes the grids) */
	const char *arch;    /* JIT target, e.g. "sm_90a" */
	hipStream_t stream;  /* all work goes on this stream */
	hipEvent_t start, stop;
	void *l2_flush;      /* 2 x l2_bytes written before each timed read-floor launch */
	size_t l2_bytes;     /* (NULL, 0: no flush) as backend_gpu.c flushes before a run */
};

/* TFLOP/s of the vendor GEMM (cuBLAS GemmEx, its own handle) at
 * size x size x size with dtype inputs and output, random inputs, fp32
 * accumulation: fp32 inputs use CUBLAS_COMPUTE_32F in the default math mode,
 * so no TF32. Best of 10 timed launches after 3 warm-up ones. */
int gpu_calib_matrix_peak(const struct gpu_calib_dev *d, enum fgo_dtype dtype, long size,
			  double *tflops, char *err, size_t len);

/* GB/s of the copy kernel over bytes (read + written bytes per second),
 * best of 10 after 2 warm-up copies. Allocates 2 x bytes. */
int gpu_calib_memory_bandwidth(const struct gpu_calib_dev *d, size_t bytes, double *gbps,
			       char *err, size_t len);

/* The read floor: for each of n sizes (ascending; multiples of 16 bytes),
 * the fastest of reps launches (after one warm-up) of the streaming read
 * kernel over that many bytes of one buffer of the largest size, each
 * timed as backend_gpu.c times a run: 2 x L2 bytes of d->l2_flush written
 * on the stream first, then the events around the one launch. Three grids
 * are tried per size (2, 4 and 8 CTAs per SM, no more than the vectors
 * need); the fastest counts: the floor is the best a read can do. Seconds
 * in seconds[i]; the method as a line. */
int gpu_calib_read_floor(const struct gpu_calib_dev *d, const size_t *bytes, int n, int reps,
			 double *seconds, char *method, size_t method_len, char *err, size_t len);

/* Collective over heap->comm. For each ordered pair (i -> j), one at a time
 * while the others wait in MPI, rank i writes into the first half of rank
 * j's heap (GPU_CALIB_LINK_BYTES, or half the heap when smaller) with the
 * store kernel (4 CTAs per SM) and with hipMemcpyAsync from the second half
 * of its own heap; best of 5 after a warm-up, timed with events on the
 * writer. On rank i: sm_gbps[j], ce_gbps[j] (heap->world entries, 0 for i).
 * Returns the same code on every rank (agreed over heap->comm). */
int gpu_calib_link_bandwidth(const struct gpu_calib_dev *d, struct fgo_heap *heap,
			     double *sm_gbps, double *ce_gbps, char *err, size_t len);

/* Collective over heap->comm (backend.h's link_egress): every rank writes
 * at once into its slot of the first half of every peer's heap (half the
 * heap / W, at most GPU_CALIB_LINK_BYTES) with one store kernel whose CTAs
 * take the peers in turn (4 CTAs per SM in all); each sample from a
 * barrier, timed with events on each rank, the slowest rank's time
 * counts; best of 5 after a warm-up. *gbps: (W - 1) x slot over it. The
 * same code on every rank. Up to 16 ranks. */
int gpu_calib_link_egress(const struct gpu_calib_dev *d, struct fgo_heap *heap, double *gbps,
			  char *err, size_t len);

/* Collective over comm (the ranks of c, one GPU each): the vendor
 * collective's curve (backend.h's collective_curve) through c, bf16
 * elements, send and recv buffers of the largest size on this device:
 * per size a warm-up call, then reps calls, each from an MPI barrier to
 * the stop event after it (events on the stream around the one call);
 * seconds[i] the slowest rank's best. The same code on every rank. */
int gpu_calib_collective(const struct gpu_calib_dev *d, struct gpu_vendor *v,
			 struct gpu_vendor_comm *c, MPI_Comm comm, enum fgo_collective kind,
			 const size_t *bytes, int n, int reps, double *seconds, char *err,
			 size_t len);

#endif
