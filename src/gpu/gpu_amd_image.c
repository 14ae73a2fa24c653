/* gpu_amd_image.c: a kernel's resources from an AMDGPU code object (see
 * gpu_amd_image.h). The metadata is a MessagePack map in an ELF note
 * (owner "AMDGPU", type NT_AMDGPU_METADATA = 32): "amdhsa.kernels" is an
 * array of maps with ".name", ".vgpr_count", ".agpr_count" and the rest;
 * only what is read here is decoded, the rest is skipped. */
#include "gpu/gpu_amd_image.h"

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NT_AMDGPU_METADATA 32
#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif

/* ---- MessagePack: just enough to walk the metadata ---- */

struct mp {
	const unsigned char *p, *end;
};

static uint64_t be(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Reads a header: the kind ('m' map, 'a' array, 's' string or binary, 'i'
 * integer, 'o' other scalar), *n its count, length or value. 0 on a
 * malformed or cut-short input. */
static int mp_head(struct mp *m, char *kind, uint64_t *n)
{
	static const unsigned char widths[] = { 1, 2, 4, 8 };
	if (m->p >= m->end)
		return 0;
	unsigned c = *m->p++;
	int w = 0;
	*kind = 'o';
	*n = 0;
	if (c <= 0x7f) {
		*kind = 'i';
		*n = c;
	} else if (c >= 0xe0) {
		*kind = 'i';
	} else if ((c & 0xf0) == 0x80) {
		*kind = 'm';
		*n = c & 15;
	} else if ((c & 0xf0) == 0x90) {
		*kind = 'a';
		*n = c & 15;
	} else if ((c & 0xe0) == 0xa0) {
		*kind = 's';
		*n = c & 31;
	} else if (c >= 0xcc && c <= 0xd3) { /* uint8..64, int8..64 */
		*kind = 'i';
		w = widths[(c - 0xcc) & 3];
	} else if (c >= 0xd9 && c <= 0xdb) { /* str8/16/32 */
		*kind = 's';
		w = widths[c - 0xd9];
	} else if (c >= 0xc4 && c <= 0xc6) { /* bin8/16/32 */
		*kind = 's';
		w = widths[c - 0xc4];
	} else if (c == 0xdc || c == 0xdd) {
		*kind = 'a';
		w = c == 0xdc ? 2 : 4;
	} else if (c == 0xde || c == 0xdf) {
		*kind = 'm';
		w = c == 0xde ? 2 : 4;
	} else if (c == 0xca || c == 0xcb) { /* floats: skipped as a string of bytes */
		*kind = 's';
		*n = c == 0xca ? 4 : 8;
	} else if (c == 0xc0 || c == 0xc2 || c == 0xc3) {
		*kind = 'o';
	} else {
		return 0; /* ext types: not in AMDGPU metadata */
	}
	if (w) {
		if (m->end - m->p < w)
			return 0;
		*n = be(m->p, w);
		m->p += w;
	}
	if (*kind == 's' && (uint64_t)(m->end - m->p) < *n)
		return 0;
	return 1;
}

/* Skips one whole value (depth-limited). */
static int mp_skip(struct mp *m, int depth)
{
	char kind;
	uint64_t n;
	if (depth > 16 || !mp_head(m, &kind, &n))
		return 0;
	if (kind == 's')
		m->p += n;
	else if (kind == 'a' || kind == 'm')
		for (uint64_t i = 0; i < (kind == 'm' ? 2 * n : n); i++)
			if (!mp_skip(m, depth + 1))
				return 0;
	return 1;
}

/* A string value into out (truncated), or 0. */
static int mp_str(struct mp *m, char *out, size_t len)
{
	char kind;
	uint64_t n;
	if (!mp_head(m, &kind, &n) || kind != 's')
		return 0;
	snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), (const char *)m->p);
	m->p += n;
	return 1;
}

/* One kernel's map: its name and fields; 1 when it is `name`. */
static int read_kernel(struct mp *m, uint64_t pairs, const char *name, struct gpu_amd_kernel *k)
{
	static const struct {
		const char *key;
		size_t off;
	} fields[] = {
		{ ".vgpr_count", offsetof(struct gpu_amd_kernel, vgprs) },
		{ ".agpr_count", offsetof(struct gpu_amd_kernel, agprs) },
		{ ".sgpr_count", offsetof(struct gpu_amd_kernel, sgprs) },
		{ ".group_segment_fixed_size", offsetof(struct gpu_amd_kernel, lds) },
		{ ".private_segment_fixed_size", offsetof(struct gpu_amd_kernel, scratch) },
		{ ".vgpr_spill_count", offsetof(struct gpu_amd_kernel, vgpr_spills) },
		{ ".sgpr_spill_count", offsetof(struct gpu_amd_kernel, sgpr_spills) },
	};
	struct gpu_amd_kernel got;
	int named = 0;
	memset(&got, 0, sizeof got);
	for (uint64_t i = 0; i < pairs; i++) {
		char key[64], val[256], kind;
		uint64_t n;
		size_t f;
		if (!mp_str(m, key, sizeof key))
			return -1;
		if (!strcmp(key, ".name")) {
			if (!mp_str(m, val, sizeof val))
				return -1;
			named = !strcmp(val, name);
			continue;
		}
		for (f = 0; f < sizeof fields / sizeof fields[0] && strcmp(key, fields[f].key); f++)
			;
		if (f == sizeof fields / sizeof fields[0]) {
			if (!mp_skip(m, 0))
				return -1;
			continue;
		}
		if (!mp_head(m, &kind, &n) || kind != 'i')
			return -1;
		*(int *)((char *)&got + fields[f].off) = n > 0x7fffffff ? 0x7fffffff : (int)n;
	}
	if (named)
		*k = got;
	return named;
}

static int read_metadata(const unsigned char *p, size_t size, const char *name, struct gpu_amd_kernel *k)
{
	struct mp m = { p, p + size };
	char kind, key[64];
	uint64_t n;
	if (!mp_head(&m, &kind, &n) || kind != 'm')
		return 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t count, pairs;
		if (!mp_str(&m, key, sizeof key))
			return 0;
		if (strcmp(key, "amdhsa.kernels") != 0) {
			if (!mp_skip(&m, 0))
				return 0;
			continue;
		}
		if (!mp_head(&m, &kind, &count) || kind != 'a')
			return 0;
		for (uint64_t j = 0; j < count; j++) {
			if (!mp_head(&m, &kind, &pairs) || kind != 'm')
				return 0;
			int r = read_kernel(&m, pairs, name, k);
			if (r != 0)
				return r > 0;
		}
		return 0;
	}
	return 0;
}

int gpu_amd_kernel_info(const void *image, size_t size, const char *name, struct gpu_amd_kernel *k)
{
	const unsigned char *p = image;
	Elf64_Ehdr eh;
	memset(k, 0, sizeof *k);
	if (!image || size < sizeof eh || memcmp(p, ELFMAG, SELFMAG) != 0 || p[EI_CLASS] != ELFCLASS64)
		return 0;
	memcpy(&eh, p, sizeof eh);
	if (eh.e_machine != EM_AMDGPU || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
	    (size - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum)
		return 0;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;
		memcpy(&sh, p + eh.e_shoff + (size_t)i * sizeof sh, sizeof sh);
		if (sh.sh_type != SHT_NOTE || sh.sh_offset > size || sh.sh_size > size - sh.sh_offset)
			continue;
		for (size_t at = 0; at + 12 <= sh.sh_size;) {
			const unsigned char *nt = p + sh.sh_offset + at;
			uint32_t h[3];
			memcpy(h, nt, sizeof h);
			size_t name_pad = (h[0] + 3u) & ~3u, desc_pad = (h[1] + 3u) & ~3u;
			if (name_pad > sh.sh_size - at - 12 || desc_pad > sh.sh_size - at - 12 - name_pad)
				break;
			if (h[2] == NT_AMDGPU_METADATA && h[0] == 7 && !memcmp(nt + 12, "AMDGPU", 7))
				return read_metadata(nt + 12 + name_pad, h[1], name, k);
			at += 12 + name_pad + desc_pad;
		}
	}
	return 0;
}

int gpu_amd_waves_per_simd(const struct gpu_amd_kernel *k, int threads, int lds_dynamic)
{
	const int waves = (threads + 63) / 64, lds = k->lds + lds_dynamic;
	const int alloc = (k->vgprs < 1 ? 1 : k->vgprs + 7) / 8 * 8;
	int per_simd = 512 / alloc, groups;
	if (per_simd > 8)
		per_simd = 8;
	if (waves < 1 || per_simd < 1 || lds > 65536)
		return 0;
	/* workgroups a CU holds: by registers (its waves spread over 4 SIMDs), by LDS */
	groups = 4 * per_simd / waves;
	if (lds > 0 && 65536 / lds < groups)
		groups = 65536 / lds;
	if (groups < 1)
		return 0;
	int busiest = (groups * waves + 3) / 4;
	return busiest < per_simd ? busiest : per_simd;
}
