/* wgmma_epilogue.h: how the wgmma core's C leaves (core_wgmma.h, which
 * includes it after its TMA helpers): a consumer's part of a tile (or half
 * of it, WG_STAGE_SPLIT), its accumulators rounded into the swizzled
 * staging area, and the staged boxes handed to TMA by the storer. Every
 * family's `out.store` goes through wg_store_boxes. */
#ifndef FGO_WGMMA_EPILOGUE_H
#define FGO_WGMMA_EPILOGUE_H

/* The staging area's boxes: WG_C_COLS columns of WG_STAGE_ROWS rows (64,
 * or 32 or 16 where a part is not a multiple of 64 columns wide:
 * tile_shape.h), rows of WG_C_ROW_BYTES swizzled as TMA reads them. */
#define WG_C_COLS FGO_WGMMA_BOX_COLS(WG_STAGE_COLS)
#define WG_C_ROW_BYTES (WG_C_COLS * 2)
#define WG_C_BOX_BYTES (WG_STAGE_ROWS * WG_C_ROW_BYTES)

/* Where TMA's swizzle of rows WG_C_ROW_BYTES wide puts 16-byte chunk c of
 * row r of a box: the chunk's index xor'ed with the index of the 128-byte
 * line that holds the row (r / (128 / row bytes)), over as many bits as a
 * row has chunks (8, 4 or 2 chunks). With 128-byte rows this is c ^ r % 8,
 * the expression the core had before the narrower boxes (the same code
 * for widths that are multiples of 64). Boxes start on 1024 bytes, the
 * patterns' period. */
__device__ __forceinline__ unsigned int wg_swizzled(int r, int c)
{
	return r * WG_C_ROW_BYTES + ((c ^ (r / (128 / WG_C_ROW_BYTES) % (WG_C_ROW_BYTES / 16))) * 16);
}

/* One consumer's part of a tile, or half of it when C is staged in
 * halves (WG_STAGE_SPLIT: halves of its columns, swapped of its rows):
 * where its accumulators go. */
struct wg_part {
	long r0, c0;          /* the part's first row and column in the tile space */
	unsigned int staging; /* the consumer's C staging area (shared, WG_PART_BYTES) */
};

/* Part (half `half`) of tile (tm, tn), by consumer. */
__device__ __forceinline__ struct wg_part wg_part_of(long tm, long tn, int c, unsigned int sc,
						     int half = 0)
{
	struct wg_part p;
#if WG_SWAP
	p.r0 = tm * BLK_M + half * WG_STAGE_ROWS;
	p.c0 = tn * BLK_N + c * WG_COLS;
#else
	p.r0 = tm * BLK_M + c * WG_ROWS;
	p.c0 = tn * BLK_N + half * WG_STAGE_COLS;
#endif
	p.staging = sc + c * WG_PART_BYTES;
	return p;
}

/* The staged boxes of part p to the tensor map `map`, in the storer's
 * current bulk group. */
__device__ __forceinline__ void wg_store_boxes(const struct fgo_tmap *map, const struct wg_part &p)
{
#pragma unroll
	for (int j = 0; j < WG_STAGE_COLS / WG_C_COLS; j++)
		tma_store_2d(map, (int)(p.c0 + j * WG_C_COLS), (int)p.r0, p.staging + j * WG_C_BOX_BYTES);
}

/* One consumer's accumulators into its staging area, rounded to elem_t:
 * with 64-column boxes row r's 16-byte chunk q lies at chunk q ^ (r % 8)
 * (the 128-byte swizzle TMA reads; the narrower boxes' swizzles likewise,
 * wg_swizzled), so the 8 rows a warp writes at once fall on 32 different
 * banks. The fence makes the writes visible to the TMA unit
 * (the async proxy). */
__device__ __forceinline__ void wg_stage_part(const struct wg_part &p, const float (&acc)[WG_ACC],
					      int half = 0)
{
	const int t = threadIdx.x % 128, w = t / 32, l = t % 32;
#if WG_SWAP
	/* C's transpose (core_wgmma.h): acc[j * 4 + q] is row j * 8 +
	 * (l % 4) * 2 + (q & 1), column n = w * 16 + l / 4 + (q >= 2) * 8 of
	 * the consumer's one 64-column box; the half's rows are staged, row r
	 * of the half; the two values of a 32-bit pair are two rows, so each
	 * goes alone, into 16-byte chunk n / 8 ^ r % 8 of row r */
#pragma unroll
	for (int j = 0; j < WG_STAGE_ROWS / 8; j++)
#pragma unroll
		for (int q = 0; q < 4; q++) {
			const int r = j * 8 + (l % 4) * 2 + (q & 1), n = w * 16 + l / 4 + (q >> 1) * 8;
			const unsigned int at = p.staging + r * 128 + (((n / 8) ^ (r % 8)) * 16) + (n % 8) * 2;
			const elem_t e = from_float(acc[(half * (WG_STAGE_ROWS / 8) + j) * 4 + q]);
			asm volatile("st.shared.b16 [%0], %1;" ::"r"(at), "h"(*(const unsigned short *)&e)
				     : "memory");
		}
#else
#pragma unroll
	for (int mi = 0; mi < WG_MI; mi++)
#pragma unroll
		for (int j = 0; j < WG_STAGE_COLS / 8; j++)
#pragma unroll
			for (int h = 0; h < 2; h++) {
				const float *v = &acc[mi * (BLK_N / 2) + (half * (WG_STAGE_COLS / 8) + j) * 4 + h * 2];
				const int r = mi * 64 + w * 16 + l / 4 + h * 8;
				/* column j * 8 + (l % 4) * 2 of the part: box j / (WG_C_COLS / 8) */
				const unsigned int at =
					p.staging + (j / (WG_C_COLS / 8)) * WG_C_BOX_BYTES +
					wg_swizzled(r, j % (WG_C_COLS / 8)) + (l % 4) * 4;
				struct elem_pair e;
				e.x = from_float(v[0]);
				e.y = from_float(v[1]);
				asm volatile("st.shared.b32 [%0], %1;" ::"r"(at), "r"(*(const unsigned int *)&e)
					     : "memory");
			}
#endif
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

#endif
