/* hip_bare.h: the HIP names fgobench's kernels use, for clang compiling
 * HIP device code with no ROCm at all (`-nogpulib -nogpuinc`, as
 * src/gpu/gpu_jit_clang.c runs Debian's clang-19): included by hip_port.h
 * when FGO_HIP_BARE is defined, in place of hip_runtime.h. Only what the
 * kernels use, each a clang builtin: work-item ids, the barrier, fences,
 * atomics, bit casts and the 16-bit float. Device code only. */
#ifndef FGO_HIP_BARE_H
#define FGO_HIP_BARE_H

#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __forceinline__ inline __attribute__((always_inline))
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
/* HIP's first argument is the most threads a block may have; the second
 * (blocks per multiprocessor) is a hint fgobench's kernels only set to 1 */
#define FGO_BARE_BOUNDS_(threads, ...) __attribute__((amdgpu_flat_work_group_size(1, threads)))
#define __launch_bounds__(...) FGO_BARE_BOUNDS_(__VA_ARGS__, 0)

struct fgo_bare_uint3 {
	unsigned int x, y, z;
};
__device__ __forceinline__ struct fgo_bare_uint3 fgo_bare_thread_idx(void)
{
	struct fgo_bare_uint3 r = { __builtin_amdgcn_workitem_id_x(), __builtin_amdgcn_workitem_id_y(),
				    __builtin_amdgcn_workitem_id_z() };
	return r;
}
__device__ __forceinline__ struct fgo_bare_uint3 fgo_bare_block_idx(void)
{
	struct fgo_bare_uint3 r = { __builtin_amdgcn_workgroup_id_x(), __builtin_amdgcn_workgroup_id_y(),
				    __builtin_amdgcn_workgroup_id_z() };
	return r;
}
__device__ __forceinline__ struct fgo_bare_uint3 fgo_bare_block_dim(void)
{
	struct fgo_bare_uint3 r = { __builtin_amdgcn_workgroup_size_x(), __builtin_amdgcn_workgroup_size_y(),
				    __builtin_amdgcn_workgroup_size_z() };
	return r;
}
__device__ __forceinline__ struct fgo_bare_uint3 fgo_bare_grid_dim(void)
{
	struct fgo_bare_uint3 r = {
		__builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x(),
		__builtin_amdgcn_grid_size_y() / __builtin_amdgcn_workgroup_size_y(),
		__builtin_amdgcn_grid_size_z() / __builtin_amdgcn_workgroup_size_z(),
	};
	return r;
}
/* a vector type, as HIP's is underneath: kept in registers (a struct
 * array of these ended up in scratch) */
typedef unsigned int uint4 __attribute__((ext_vector_type(4)));

__device__ __forceinline__ uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z,
					   unsigned int w)
{
	uint4 r = { x, y, z, w };
	return r;
}
#define fabs(x) __builtin_fabs(x)

#define threadIdx (fgo_bare_thread_idx())
#define blockIdx (fgo_bare_block_idx())
#define blockDim (fgo_bare_block_dim())
#define gridDim (fgo_bare_grid_dim())

__device__ __forceinline__ void __syncthreads(void)
{
	__builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
	__builtin_amdgcn_s_barrier();
	__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
/* 1 when p holds in every thread of the block */
__device__ __forceinline__ int __syncthreads_and(int p)
{
	__shared__ int all;
	if (threadIdx.x == 0)
		__hip_atomic_store(&all, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
	__syncthreads();
	if (!p)
		__hip_atomic_store(&all, 0, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
	__syncthreads();
	int r = __hip_atomic_load(&all, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
	__syncthreads(); /* nobody resets it before everyone has read it */
	return r;
}
#define __threadfence() __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent")
#define __threadfence_block() __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup")
#define __threadfence_system() __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "")

__device__ __forceinline__ unsigned int atomicCAS(unsigned int *p, unsigned int cmp, unsigned int v)
{
	__hip_atomic_compare_exchange_strong(p, &cmp, v, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
					     __HIP_MEMORY_SCOPE_AGENT);
	return cmp;
}
/* macros, not templates: any element type, and C-parsable for cppcheck */
#define atomicAdd(p, v) __hip_atomic_fetch_add((p), (v), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)
#define atomicMin(p, v) __hip_atomic_fetch_min((p), (v), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)
#define atomicMax(p, v) __hip_atomic_fetch_max((p), (v), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)

#define __float_as_uint(f) __builtin_bit_cast(unsigned int, (float)(f))
#define __uint_as_float(u) __builtin_bit_cast(float, (unsigned int)(u))

typedef _Float16 __half;
#define __half2float(x) ((float)(x))
#define __float2half(x) ((_Float16)(x))

#endif
