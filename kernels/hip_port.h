/* hip_port.h: the portability seam. Host and kernel sources use HIP names;
 * on AMD they build against ROCm (hip_runtime.h, hiprtc), on NVIDIA this
 * file maps them to CUDA (runtime, driver API, NVRTC). Only what fgobench
 * uses is mapped: the seam grows with the code, on purpose.
 *
 * Why not Debian's HIP-on-NVIDIA headers: version 5.2 does not compile
 * against CUDA 13 (removed cudaDeviceProp fields, changed prefetch calls).
 *
 * Kernel side (compiled at run time by NVRTC / hiprtc): __HIPCC_RTC__ or
 * __CUDACC_RTC__ is defined; the 16-bit types and the few intrinsics the
 * kernels use are named fgo_* below so kernels never spell a vendor name. */
#ifndef FGO_HIP_PORT_H
#define FGO_HIP_PORT_H

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
/* ---- device code on NVIDIA ---- */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
typedef __half fgo_half;
typedef __nv_bfloat16 fgo_bf16;
#define fgo_half2float(x) __half2float(x)
#define fgo_float2half(x) __float2half_rn(x)
#define fgo_bf162float(x) __bfloat162float(x)
#define fgo_float2bf16(x) __float2bfloat16_rn(x)
/* A release store / acquire load of a flag in (possibly peer) memory,
 * visible across the NVLink fabric: the system scope. */
__device__ __forceinline__ void fgo_flag_release(unsigned int *flag, unsigned int v)
{
	asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(flag), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned int fgo_flag_acquire(const unsigned int *flag)
{
	unsigned int v;
	asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
	return v;
}
/* A flag raised right after fgo_fence_system(): a relaxed system-scope
 * store, which with the fence before it is a release (PTX's release
 * pattern: a fence.sc followed by a strong write). Several flags after
 * one fence pay for one fence: each st.release to a peer fenced again, and
 * a fence after a store to a peer waits for that store to land, a round
 * trip over NVLink per flag (one-shot at M = 128 on four H100s spent
 * ~12 us raising one tile's four flags). */
__device__ __forceinline__ void fgo_flag_set(unsigned int *flag, unsigned int v)
{
	asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(flag), "r"(v) : "memory");
}
/* The same within one GPU (the device scope): for CTAs of one launch
 * that never share a flag with a peer, cheaper than the system's. */
__device__ __forceinline__ void fgo_flag_release_gpu(unsigned int *flag, unsigned int v)
{
	asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned int fgo_flag_acquire_gpu(const unsigned int *flag)
{
	unsigned int v;
	asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
	return v;
}
#define fgo_fence_system() __threadfence_system()
/* n arrivals at a counter in (possibly peer) memory; the count before
 * them. Three orders of the one instruction:
 *   fgo_count_arrivals          acquire and release at the system scope;
 *   fgo_count_arrivals_relaxed  no ordering of its own (a fence before it
 *     makes it a release, one after it an acquire): several counters on
 *     several peers in flight at once, where each acq_rel one first waits
 *     for the one before it to land, a round trip over NVLink each;
 *   fgo_count_arrivals_gpu      acquire and release within one GPU. */
#define FGO_COUNT_ARRIVALS(name, order)                                                          \
	__device__ __forceinline__ unsigned int name(unsigned int *counter, unsigned int n)      \
	{                                                                                        \
		unsigned int old;                                                                \
		asm volatile("atom." order ".global.add.u32 %0, [%1], %2;"                       \
			     : "=r"(old)                                                         \
			     : "l"(counter), "r"(n)                                              \
			     : "memory");                                                        \
		return old;                                                                      \
	}
FGO_COUNT_ARRIVALS(fgo_count_arrivals, "acq_rel.sys")
FGO_COUNT_ARRIVALS(fgo_count_arrivals_relaxed, "relaxed.sys")
FGO_COUNT_ARRIVALS(fgo_count_arrivals_gpu, "acq_rel.gpu")
#undef FGO_COUNT_ARRIVALS

/* Nanoseconds of the GPU's global timer (for wait timeouts). */
__device__ __forceinline__ unsigned long long fgo_now_ns(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}
#define fgo_sleep() __nanosleep(256)
/* A load that skips L1: for data another CTA or GPU wrote during this launch. */
#define fgo_ldcg(p) __ldcg(p)

#elif defined(__HIPCC_RTC__) || defined(__HIPCC__)
/* ---- device code on AMD ---- */
/* hiprtc (5.2) already declares the fp16 types in its preamble, and its
 * headers for bf16 pull in <cmath>, which the preamble clashes with: under
 * hiprtc (FGO_HIPRTC, set by src/gpu_jit.c: 5.2 defines no macro of its
 * own) nothing is included, and bf16 is the project's own 16-bit type on
 * every AMD path (hipcc too), so both compilers see the same code. */
#if defined(FGO_HIP_BARE)
#include "hip_bare.h" /* clang alone, no ROCm: the few HIP names the kernels use */
#elif !defined(__HIPCC_RTC__) && !defined(FGO_HIPRTC)
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#endif
typedef __half fgo_half;
#define fgo_half2float(x) __half2float(x)
#define fgo_float2half(x) __float2half(x)
struct fgo_bf16 {
	unsigned short bits; /* the top half of an fp32 */
};
union fgo_f32_bits { /* neither compiler declares __uint_as_float everywhere */
	float f;
	unsigned int u;
};
__device__ __forceinline__ float fgo_bf162float(fgo_bf16 v)
{
	union fgo_f32_bits c;
	c.u = (unsigned int)v.bits << 16;
	return c.f;
}
/* round to nearest even; NaN stays a (quiet) NaN */
__device__ __forceinline__ fgo_bf16 fgo_float2bf16(float f)
{
	union fgo_f32_bits c;
	fgo_bf16 v;
	c.f = f;
	v.bits = (c.u & 0x7fffffffu) > 0x7f800000u
			 ? (unsigned short)0x7fc0
			 : (unsigned short)((c.u + 0x7fffu + ((c.u >> 16) & 1u)) >> 16);
	return v;
}
__device__ __forceinline__ void fgo_flag_release(unsigned int *flag, unsigned int v)
{
	__hip_atomic_store(flag, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
}
__device__ __forceinline__ unsigned int fgo_flag_acquire(const unsigned int *flag)
{
	return __hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM);
}
/* A flag raised right after fgo_fence_system() (see the NVIDIA side). */
__device__ __forceinline__ void fgo_flag_set(unsigned int *flag, unsigned int v)
{
	__hip_atomic_store(flag, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
__device__ __forceinline__ void fgo_flag_release_gpu(unsigned int *flag, unsigned int v)
{
	__hip_atomic_store(flag, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
}
__device__ __forceinline__ unsigned int fgo_flag_acquire_gpu(const unsigned int *flag)
{
	return __hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
}
#define fgo_fence_system() __threadfence_system()
__device__ __forceinline__ unsigned int fgo_count_arrivals(unsigned int *counter, unsigned int n)
{
	return __hip_atomic_fetch_add(counter, n, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_SYSTEM);
}
__device__ __forceinline__ unsigned int fgo_count_arrivals_relaxed(unsigned int *counter, unsigned int n)
{
	return __hip_atomic_fetch_add(counter, n, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
__device__ __forceinline__ unsigned int fgo_count_arrivals_gpu(unsigned int *counter, unsigned int n)
{
	return __hip_atomic_fetch_add(counter, n, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_AGENT);
}

/* wall_clock64() counts at a constant 100 MHz on CDNA GPUs. HIP 5.2
 * declares it for the device pass only, and hipcc -c also parses device
 * functions for the host, where this is never called. */
__device__ __forceinline__ unsigned long long fgo_now_ns(void)
{
#if defined(FGO_HIP_BARE)
	return (unsigned long long)__builtin_amdgcn_s_memrealtime() * 10ull;
#elif defined(__HIP_DEVICE_COMPILE__) || defined(__HIPCC_RTC__)
	return (unsigned long long)wall_clock64() * 10ull;
#else
	return 0;
#endif
}
#define fgo_sleep() __builtin_amdgcn_s_sleep(2)
/* The system-scope acquire before such loads already invalidates L1 on CDNA. */
#define fgo_ldcg(p) (*(p))

#elif defined(FGO_GPU_CUDA)
/* ---- host code on NVIDIA: HIP names over the CUDA runtime, driver and NVRTC ---- */
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvrtc.h>
#include <string.h> /* memset */

typedef cudaError_t hipError_t;
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
typedef cudaGraph_t hipGraph_t;
typedef cudaGraphExec_t hipGraphExec_t;
typedef cudaIpcMemHandle_t hipIpcMemHandle_t;
typedef struct cudaDeviceProp hipDeviceProp_t;
typedef CUmodule hipModule_t;
typedef CUfunction hipFunction_t;
typedef nvrtcProgram hiprtcProgram;
typedef nvrtcResult hiprtcResult;

#define hipSuccess cudaSuccess
#define HIPRTC_SUCCESS NVRTC_SUCCESS
#define hipIpcMemLazyEnablePeerAccess cudaIpcMemLazyEnablePeerAccess
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipMemcpyDefault cudaMemcpyDefault /* direction from the pointers (UVA): peer copies */

#define hipGetErrorString cudaGetErrorString
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipSetDevice cudaSetDevice
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipDeviceCanAccessPeer cudaDeviceCanAccessPeer
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#define hipDeviceAttributeComputeCapabilityMajor cudaDevAttrComputeCapabilityMajor
#define hipDeviceAttributeComputeCapabilityMinor cudaDevAttrComputeCapabilityMinor
#define hipDeviceAttributeL2CacheSize cudaDevAttrL2CacheSize
#define hipDeviceAttributeMaxSharedMemoryPerBlockOptin cudaDevAttrMaxSharedMemoryPerBlockOptin
#define hipDriverGetVersion cudaDriverGetVersion
#define hipRuntimeGetVersion cudaRuntimeGetVersion
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemset cudaMemset
#define hipMemsetAsync cudaMemsetAsync
#define hipIpcGetMemHandle cudaIpcGetMemHandle
#define hipIpcOpenMemHandle cudaIpcOpenMemHandle
#define hipIpcCloseMemHandle cudaIpcCloseMemHandle
#define hipStreamCreate cudaStreamCreate
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipEventCreate cudaEventCreate
#define hipEventDestroy cudaEventDestroy
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
#define hipStreamWaitEvent cudaStreamWaitEvent
#define hipStreamBeginCapture cudaStreamBeginCapture
#define hipStreamEndCapture cudaStreamEndCapture
#define hipStreamCaptureModeThreadLocal cudaStreamCaptureModeThreadLocal
#define hipGraphInstantiateWithFlags cudaGraphInstantiateWithFlags
#define hipGraphLaunch cudaGraphLaunch
#define hipGraphExecDestroy cudaGraphExecDestroy
#define hipGraphDestroy cudaGraphDestroy
#define hipGetLastError cudaGetLastError
/* A 32-bit store made by the stream itself, after what came before it
 * (copies) and with a memory barrier before it: a flag no SM has to raise. */
#define fgo_stream_write32(stream, ptr, value) \
	fgo_cu(cuStreamWriteValue32((CUstream)(stream), (CUdeviceptr)(ptr), (value), 0))

/* Modules go through the driver API, whose errors are CUresult: the
 * wrappers turn them into a runtime-style code and keep the text. */
typedef CUresult fgo_drv_result;
static inline hipError_t fgo_cu(CUresult r)
{
	return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}
static inline const char *fgo_cu_text(CUresult r)
{
	const char *s = NULL;
	cuGetErrorString(r, &s);
	return s ? s : "unknown driver error";
}
#define hipModuleLoadData(m, image) cuModuleLoadData((m), (image))
#define hipModuleGetFunction(f, m, name) cuModuleGetFunction((f), (m), (name))
#define hipModuleUnload(m) cuModuleUnload(m)
#define hipModuleLaunchKernel(f, gx, gy, gz, bx, by, bz, smem, stream, args, extra) \
	cuLaunchKernel((f), (gx), (gy), (gz), (bx), (by), (bz), (smem), (CUstream)(stream), (args), (extra))
#define hipModuleOccupancyMaxActiveBlocksPerMultiprocessor cuOccupancyMaxActiveBlocksPerMultiprocessor
/* How many clusters of `cluster` CTAs (the kernel's compile-time cluster
 * dimension, __cluster_dims__) can be resident at once: the GPCs decide,
 * not SMs / cluster. */
static inline hipError_t fgo_max_active_clusters(CUfunction f, unsigned int threads, unsigned int smem,
						 int cluster, int *clusters)
{
	CUlaunchAttribute a;
	CUlaunchConfig c;
	memset(&a, 0, sizeof a);
	memset(&c, 0, sizeof c);
	a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
	a.value.clusterDim.x = (unsigned int)cluster;
	a.value.clusterDim.y = a.value.clusterDim.z = 1;
	c.gridDimX = (unsigned int)cluster;
	c.gridDimY = c.gridDimZ = 1;
	c.blockDimX = threads;
	c.blockDimY = c.blockDimZ = 1;
	c.sharedMemBytes = smem;
	c.attrs = &a;
	c.numAttrs = 1;
	return fgo_cu(cuOccupancyMaxActiveClusters(clusters, f, &c));
}
/* Kernels asking for more than 48 KiB of dynamic shared memory must say so. */
#define fgo_func_max_dynamic_smem(f, bytes) \
	cuFuncSetAttribute((f), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (bytes))
#define hipFuncGetAttribute(v, attr, f) cuFuncGetAttribute((v), (attr), (f))
#define HIP_FUNC_ATTRIBUTE_NUM_REGS CU_FUNC_ATTRIBUTE_NUM_REGS
#define HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
#define HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES
#define HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK

#define hiprtcCreateProgram nvrtcCreateProgram
#define hiprtcCompileProgram nvrtcCompileProgram
#define hiprtcGetProgramLogSize nvrtcGetProgramLogSize
#define hiprtcGetProgramLog nvrtcGetProgramLog
#define hiprtcGetCodeSize nvrtcGetCUBINSize
#define hiprtcGetCode nvrtcGetCUBIN
#define hiprtcDestroyProgram nvrtcDestroyProgram
#define hiprtcGetErrorString nvrtcGetErrorString
#define hiprtcVersion nvrtcVersion

#elif defined(FGO_GPU_HIP)
/* ---- host code on AMD: HIP itself (runtime, modules, hiprtc); only the
 * fgo_* helpers the NVIDIA section defines need an AMD meaning here ---- */
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#include <hip/hip_runtime.h>
#include <hip/hiprtc.h>

/* Modules are part of the HIP runtime: their errors are hipError_t already. */
typedef hipError_t fgo_drv_result;
static inline hipError_t fgo_cu(hipError_t r)
{
	return r;
}
static inline const char *fgo_cu_text(hipError_t r)
{
	return hipGetErrorString(r);
}
/* No opt-in on AMD: a kernel may use all of the LDS a workgroup can have
 * (64 KiB), which is also what the attribute below reports. */
static inline hipError_t fgo_func_max_dynamic_smem(hipFunction_t f, int bytes)
{
	(void)f;
	(void)bytes;
	return hipSuccess;
}
#define hipDeviceAttributeMaxSharedMemoryPerBlockOptin hipDeviceAttributeMaxSharedMemoryPerBlock
/* No thread block clusters on AMD (gpu_shape_check refuses cluster > 1 off
 * the wgmma core). */
static inline hipError_t fgo_max_active_clusters(hipFunction_t f, unsigned int threads, unsigned int smem,
						 int cluster, int *clusters)
{
	(void)f;
	(void)threads;
	(void)smem;
	(void)cluster;
	*clusters = 0;
	return hipErrorNotSupported;
}
#define fgo_stream_write32(stream, ptr, value) hipStreamWriteValue32((stream), (ptr), (value), 0)
#endif

#if defined(FGO_GPU_CUDA) || defined(FGO_GPU_HIP)
/* Host: a runtime call that must succeed, in a function with `char *err,
 * size_t len` that returns an fgo code: "WHAT failed: the runtime's text". */
#define FGO_HIP_CHECK(call, what)                                                      \
	do {                                                                           \
		hipError_t e_ = (call);                                                \
		if (e_ != hipSuccess) {                                                \
			snprintf(err, len, "%s failed: %s", (what), hipGetErrorString(e_)); \
			return FGO_EFAIL;                                              \
		}                                                                      \
	} while (0)
#endif

#endif
