/* inputs.h: the random inputs of every run, one definition for the host
 * (src/check.c: the CPU backend's fill and the double-precision reference)
 * and the device (kernels/check.hip: the GPU fill), like schedule.h.
 *
 * Element (row, col) of operand A or B is a pure function of (seed,
 * operand, row, col): uniform on [-1, 1), a multiple of 2^-23, rounded to
 * the dtype (round to nearest even) and never 1. Rounding is done on the
 * float's bits, the same integer operations on both sides, so the device
 * and the host agree to the bit. */
#ifndef FGO_INPUTS_H
#define FGO_INPUTS_H

#if defined(__CUDACC_RTC__) || defined(__CUDACC__) || defined(__HIPCC_RTC__) || defined(__HIPCC__)
#define FGO_INPUTS_FN __device__ __forceinline__
#define fgo_inputs_bits(f) __float_as_uint(f)
#define fgo_inputs_float(u) __uint_as_float(u)
typedef unsigned long long fgo_inputs_u64;
typedef unsigned int fgo_inputs_u32;
#else
#include <stdint.h>
#include <string.h>
#define FGO_INPUTS_FN static inline
typedef uint64_t fgo_inputs_u64;
typedef uint32_t fgo_inputs_u32;
static inline uint32_t fgo_inputs_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}
static inline float fgo_inputs_float(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}
#endif

#define FGO_INPUTS_GOLDEN 0x9e3779b97f4a7c15ull
/* enum fgo_dtype's values (src/config.h) and enum fgo_operand's (src/check.h) */
#define FGO_INPUTS_FP16 1
#define FGO_INPUTS_BF16 2
#define FGO_INPUTS_A 0

/* splitmix64's finaliser: every input bit moves every output bit, so
 * neighbouring (row, col) pairs give unrelated values. */
FGO_INPUTS_FN fgo_inputs_u64 fgo_mix64(fgo_inputs_u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The value stream of one row of one operand (which: 0 = A, 1 = B).
 * Columns follow from this state, so a row costs one mix per element. */
FGO_INPUTS_FN fgo_inputs_u64 fgo_input_row_state(fgo_inputs_u64 seed, int which, long row)
{
	fgo_inputs_u64 op =
		fgo_mix64(seed ^ (which == FGO_INPUTS_A ? 0x5fa1e9c3d2b74a01ull : 0xc3a5c85c97cb3127ull));
	return fgo_mix64(op + FGO_INPUTS_GOLDEN * ((fgo_inputs_u64)row + 1));
}

/* v (a multiple of 2^-23 in [-1, 1)) rounded to the nearest even value of
 * the dtype. Dropping 13 (fp16) or 16 (bf16) mantissa bits with carry is
 * exactly that rounding: such a v has at most 24 significant bits, fp16's
 * subnormals (below 2^-14) hold every such v exactly, and no v reaches
 * either type's overflow. */
FGO_INPUTS_FN float fgo_input_round(float v, int dtype)
{
	fgo_inputs_u32 u = fgo_inputs_bits(v);
	if (dtype == FGO_INPUTS_FP16) {
		u += 0xfffu + ((u >> 13) & 1u);
		u &= ~0x1fffu;
	} else if (dtype == FGO_INPUTS_BF16) {
		u += 0x7fffu + ((u >> 16) & 1u);
		u &= 0xffff0000u;
	}
	return fgo_inputs_float(u);
}

/* Element col of the row whose state is given, in dtype. */
FGO_INPUTS_FN float fgo_input_at(fgo_inputs_u64 state, long col, int dtype)
{
	fgo_inputs_u64 h = fgo_mix64(state + FGO_INPUTS_GOLDEN * ((fgo_inputs_u64)col + 1));
	/* The top 24 bits as a signed integer times 2^-23: uniform on
	 * [-1, 1 - 2^-23], exact in binary32. */
	float v = (float)((int)(h >> 40) - (1 << 23)) * 0x1p-23f;
	v = fgo_input_round(v, dtype);
	/* a value rounded up to 1 becomes the largest value of the type below 1 */
	if (v >= 1.0f)
		v = dtype == FGO_INPUTS_FP16 ? 1.0f - 0x1p-11f
		    : dtype == FGO_INPUTS_BF16 ? 1.0f - 0x1p-8f
					       : 1.0f - 0x1p-24f;
	return v;
}

/* One compared output element's share of the output digest (struct
 * fgo_check's digest): its bits as stored (as a float) mixed with its
 * position (splitmix64's finaliser). The digest is the wrapping sum over
 * the compared elements, so it does not depend on the order of the visit:
 * two launches that write the same bits give the same digest, and one bit
 * anywhere changes it (with odds of a collision of 2^-64). */
FGO_INPUTS_FN fgo_inputs_u64 fgo_output_digest(fgo_inputs_u64 position, float got)
{
	fgo_inputs_u64 x = position * 0x9e3779b97f4a7c15ull ^ (fgo_inputs_u64)fgo_inputs_bits(got);
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

#endif
