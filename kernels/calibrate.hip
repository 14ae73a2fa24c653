/* calibrate.hip: the kernels of `fgobench calibrate` (src/gpu_calibrate.c):
 * a random fill of the vendor GEMM's inputs, a streaming copy for the
 * device memory bandwidth, a streaming read for the read floor, and SM
 * stores into a peer's memory for the link bandwidth. The copy, the read
 * and the stores move 16 bytes per access (counts in 16-byte vectors);
 * every loop is grid-stride, so any grid covers any size. */
#include "hip_port.h"

#ifndef CALIB_THREADS
#error "CALIB_THREADS (threads per CTA) comes from the host: src/gpu_calibrate.c"
#endif

/* A value in [-1, 1) from (index, seed): a 32-bit integer hash, so every
 * element differs and no two fills with different seeds agree. */
__device__ __forceinline__ float calib_random(unsigned long long i, unsigned int seed)
{
	unsigned int x = (unsigned int)i * 0x9e3779b1u ^ (unsigned int)(i >> 32) ^ seed;
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return (float)(x >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

/* n elements of dtype (0 fp32, 1 fp16, 2 bf16: enum fgo_dtype) at p. */
extern "C" __global__ void __launch_bounds__(CALIB_THREADS)
	fgo_calib_fill(void *p, unsigned long long n, int dtype, unsigned int seed)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += stride) {
		float v = calib_random(i, seed);
		if (dtype == 0)
			((float *)p)[i] = v;
		else if (dtype == 1)
			((fgo_half *)p)[i] = fgo_float2half(v);
		else
			((fgo_bf16 *)p)[i] = fgo_float2bf16(v);
	}
}

/* dst[i] = src[i] for n 16-byte vectors: four loads in flight per thread
 * before their stores, so the memory system sees enough requests. */
extern "C" __global__ void __launch_bounds__(CALIB_THREADS)
	fgo_calib_copy(uint4 *__restrict__ dst, const uint4 *__restrict__ src, unsigned long long n)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	for (; i + 3 * stride < n; i += 4 * stride) {
		uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
		dst[i] = a;
		dst[i + stride] = b;
		dst[i + 2 * stride] = c;
		dst[i + 3 * stride] = d;
	}
	for (; i < n; i += stride)
		dst[i] = src[i];
}

/* The read floor: n 16-byte vectors of src read once, four loads in flight
 * per thread before they are used. Every word is folded into one value per
 * thread, written only when it equals a constant the data never makes in
 * practice: the compiler cannot prove it never does, so no load is
 * dropped, and nothing is written. */
extern "C" __global__ void __launch_bounds__(CALIB_THREADS)
	fgo_calib_read(const uint4 *__restrict__ src, unsigned long long n, unsigned int *sink)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int acc = 0;
	for (; i + 3 * stride < n; i += 4 * stride) {
		uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
		acc ^= (a.x ^ a.y ^ a.z ^ a.w) + (b.x ^ b.y ^ b.z ^ b.w) +
		       (c.x ^ c.y ^ c.z ^ c.w) + (d.x ^ d.y ^ d.z ^ d.w);
	}
	for (; i < n; i += stride) {
		uint4 a = src[i];
		acc ^= a.x ^ a.y ^ a.z ^ a.w;
	}
	if (acc == 0x5eedf100u)
		*sink = acc;
}

/* The peers of fgo_calib_store_peers, by value (gpu_calibrate.c has the
 * same layout: pointers, then the count). */
#define CALIB_PEERS_MAX 15
struct calib_peers {
	uint4 *dst[CALIB_PEERS_MAX];
	int count;
};

/* n 16-byte stores to each of peers.count peers at once: CTA b writes to
 * peer b % count (the grid a multiple of count), so every link is busy
 * from the start; values from registers, as fgo_calib_store. */
extern "C" __global__ void __launch_bounds__(CALIB_THREADS)
	fgo_calib_store_peers(struct calib_peers peers, unsigned long long n, unsigned int seed)
{
	unsigned int count = (unsigned int)peers.count;
	uint4 *dst = peers.dst[blockIdx.x % count];
	unsigned long long ctas = gridDim.x / count;
	unsigned long long stride = ctas * blockDim.x;
	for (unsigned long long i = (unsigned long long)(blockIdx.x / count) * blockDim.x + threadIdx.x;
	     i < n; i += stride) {
		unsigned int lo = (unsigned int)i;
		dst[i] = make_uint4(lo, lo ^ seed, (unsigned int)(i >> 32), ~lo);
	}
}

/* n 16-byte stores to dst (a peer's memory): values from registers, so
 * only the link is measured, not this device's own memory reads. */
extern "C" __global__ void __launch_bounds__(CALIB_THREADS)
	fgo_calib_store(uint4 *dst, unsigned long long n, unsigned int seed)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += stride) {
		unsigned int lo = (unsigned int)i;
		dst[i] = make_uint4(lo, lo ^ seed, (unsigned int)(i >> 32), ~lo);
	}
}
