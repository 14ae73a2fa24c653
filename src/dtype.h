/* dtype.h: conversions between float and the 16-bit storage types.
 * fp16 is IEEE binary16, bf16 the upper half of a binary32; both round to
 * nearest even. Header-only so kernels and checks inline them. */
#ifndef FGO_DTYPE_H
#define FGO_DTYPE_H

#include <stdint.h>
#include <string.h>

#include "config.h"

static inline float bf16_to_float(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static inline uint16_t float_to_bf16(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu))
		return (uint16_t)((u >> 16) | 0x40); /* keep NaN a NaN */
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

static inline float fp16_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1fu;
	uint32_t man = h & 0x3ffu;
	uint32_t u;
	if (exp == 0) {
		if (man == 0) {
			u = sign;
		} else { /* subnormal: normalise */
			int e = -1;
			do {
				e++;
				man <<= 1;
			} while (!(man & 0x400u));
			u = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
		}
	} else if (exp == 0x1f) {
		u = sign | 0x7f800000u | (man << 13);
	} else {
		u = sign | ((exp + 127 - 15) << 23) | (man << 13);
	}
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static inline uint16_t float_to_fp16(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
	uint32_t absu = u & 0x7fffffffu;
	if (absu >= 0x7f800000u) /* inf or NaN */
		return (uint16_t)(sign | 0x7c00u | (absu > 0x7f800000u ? 0x200u : 0));
	if (absu >= 0x477ff000u) /* rounds past 65504 */
		return (uint16_t)(sign | 0x7c00u);
	if (absu < 0x38800000u) { /* subnormal or zero in fp16 */
		if (absu < 0x33000000u)
			return sign;
		uint32_t man = (absu & 0x7fffffu) | 0x800000u;
		int shift = 126 - (int)(absu >> 23);
		uint32_t half = 1u << (shift - 1);
		uint32_t rest = man & ((1u << shift) - 1);
		uint32_t r = man >> shift;
		if (rest > half || (rest == half && (r & 1u)))
			r++;
		return (uint16_t)(sign | r);
	}
	uint32_t r = absu - 0x38000000u; /* rebias exponent 127 -> 15 */
	r += 0xfffu + ((r >> 13) & 1u);
	return (uint16_t)(sign | (r >> 13));
}

/* Element i of a buffer of type t, as float. */
static inline float dtype_load(enum fgo_dtype t, const void *p, size_t i)
{
	switch (t) {
	case FGO_FP16: return fp16_to_float(((const uint16_t *)p)[i]);
	case FGO_BF16: return bf16_to_float(((const uint16_t *)p)[i]);
	default: return ((const float *)p)[i];
	}
}

static inline void dtype_store(enum fgo_dtype t, void *p, size_t i, float v)
{
	switch (t) {
	case FGO_FP16: ((uint16_t *)p)[i] = float_to_fp16(v); break;
	case FGO_BF16: ((uint16_t *)p)[i] = float_to_bf16(v); break;
	default: ((float *)p)[i] = v; break;
	}
}

#endif
