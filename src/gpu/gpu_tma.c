/* gpu_tma.c: tensor maps through the driver's cuTensorMapEncodeTiled, and
 * the wgmma core's maps of a configuration (see gpu_tma.h). */
#include "gpu/gpu_tma.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "dtype.h"
#include "fgo.h"
#include "hip_port.h"
#include "schedule.h"
#include "tile_shape.h"

#if defined(FGO_GPU_CUDA)
_Static_assert(sizeof(struct gpu_tma_map) == sizeof(CUtensorMap), "a tensor map is 128 bytes");

int gpu_tma_map_rows(struct gpu_tma_map *map, void *base, enum fgo_dtype dtype, long rows,
		     long cols, long pitch, int box_rows, int box_cols, char *err, size_t len)
{
	/* dimension 0 is the contiguous one: columns, then rows */
	cuuint64_t dims[2] = { (cuuint64_t)cols, (cuuint64_t)rows };
	cuuint64_t strides[1] = { (cuuint64_t)pitch * 2 };
	cuuint32_t box[2] = { (cuuint32_t)box_cols, (cuuint32_t)box_rows }, step[2] = { 1, 1 };
	/* the swizzle as wide as a box's row, as the core's descriptors and
	 * staging expect (kernels/wgmma_async.h's wg_desc, wgmma_epilogue.h) */
	const CUtensorMapSwizzle swizzle = box_cols == 64   ? CU_TENSOR_MAP_SWIZZLE_128B
					   : box_cols == 32 ? CU_TENSOR_MAP_SWIZZLE_64B
							    : CU_TENSOR_MAP_SWIZZLE_32B;
	CUresult r;

	if (dtype == FGO_FP32 || ((uintptr_t)base & 15) || (pitch * 2) % 16 || box_rows < 1 ||
	    box_rows > 256 || (box_cols != 16 && box_cols != 32 && box_cols != 64)) {
		snprintf(err, len, "a tensor map needs 16-bit elements, 16-byte aligned rows and a box of 1 to 256 rows"
			 " of 16, 32 or 64 columns");
		return FGO_EUSAGE;
	}
	r = cuTensorMapEncodeTiled((CUtensorMap *)map,
				   dtype == FGO_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
						     : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
				   2, base, dims, strides, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
				   swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
				   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
	if (r != CUDA_SUCCESS) {
		snprintf(err, len, "cuTensorMapEncodeTiled (%ld x %ld, pitch %ld, box %d x %d) failed: %s",
			 rows, cols, pitch, box_rows, box_cols, fgo_cu_text(r));
		return FGO_EUSAGE;
	}
	return FGO_OK;
}
#else
int gpu_tma_map_rows(struct gpu_tma_map *map, void *base, enum fgo_dtype dtype, long rows,
		     long cols, long pitch, int box_rows, int box_cols, char *err, size_t len)
{
	(void)map, (void)base, (void)dtype, (void)rows, (void)cols, (void)pitch, (void)box_rows;
	(void)box_cols;
	snprintf(err, len, "no tensor memory accelerator (TMA) on this GPU: mma=wgmma is Hopper's");
	return FGO_EUSAGE;
}
#endif

/* The tensor maps of the wgmma core (kernels/core_wgmma.h, FGO_TMAP_PARAMS),
 * in parameter order (*out, malloc'd: free it): maps_a (one per rank or block of tiles), map_b,
 * maps_c (the same). A in BLK_M-row boxes, B in BLK_K-row boxes, C in the
 * consumer warpgroups' staged parts (BLK_M over the consumers' rows, or
 * swapped all BLK_M rows of 64 columns, or half of that).
 *   gemm, all_scatter: A is this rank's for every entry; C entry r is the
 *     block of rank r's C this rank writes (its own columns).
 *   all_gather_gemm: entry g is the rows of source group g (G sources a
 *     block, sched_owner_group; G = 1 but where M/W is shorter than a
 *     tile): A entry g is its rows in this rank's inbox, pull and push
 *     alike (this rank's own shard for g = rank where G = 1); C entry g is
 *     this rank's C rows of group g. Entries from W / G on repeat the
 *     first ones (the kernel reads only W / G).
 *   all_reduce: A is this rank's; C is this rank's work area (the partial
 *     C), for every entry.
 *   reduce_scatter: entry q is the q-th block of the walk, the rows of
 *     owner group sched_peer(rank / G, W / G, q + 1) (its own group last,
 *     kernels/reduce_scatter.hip; G owners a block, sched_owner_group):
 *     those rows of this rank's A and of its work area. Entries from W / G
 *     on repeat the first ones (the kernel reads only W / G). */
int gpu_tma_wgmma_maps(const struct fgo_algo *algo, const struct fgo_config *cfg,
		       const struct fgo_layout *lay, char *const *bases, int rank, int world,
		       struct gpu_tma_map **out, char *err, size_t len)
{
	/* the boxes of B's panel and of C's staged parts, a consumer's part or
	 * half of it (kernels/tile_shape.h) */
	const int consumers = cfg->num_warps / 4 - 1;
	const int part_rows = FGO_WGMMA_STAGED_ROWS(cfg->blk_m, cfg->blk_n, cfg->blk_k, cfg->num_stages, consumers);
	const int b_cols = FGO_WGMMA_BOX_COLS(cfg->blk_n);
	const int c_cols = FGO_WGMMA_BOX_COLS(
		FGO_WGMMA_STAGED_COLS(cfg->blk_m, cfg->blk_n, cfg->blk_k, cfg->num_stages, consumers));
	const enum fgo_gemm_space space = algo->space;
	char *const mine = bases[rank];
	const size_t es = dtype_size(cfg->dtype);
	struct fgo_gemm_dims d;
	struct gpu_tma_map *maps_a, *maps_c;

	algo_gemm_dims(algo, cfg, &d);
	*out = aligned_alloc(64, (size_t)(1 + 2 * world) * sizeof **out);
	if (!*out) {
		snprintf(err, len, "out of host memory");
		return FGO_EFAIL;
	}
	maps_a = *out;
	maps_c = *out + world + 1;
	if (gpu_tma_map_rows(&(*out)[world], mine + lay->b.offset, cfg->dtype, d.k, d.n, d.ldb,
			     cfg->blk_k, b_cols, err, len) != FGO_OK)
		return FGO_EUSAGE;
	for (int r = 0; r < world; r++) {
		char *a = mine + lay->a.offset, *c;
		const int per = world / d.blocks; /* reduce_scatter: owners a block holds */
		const long group = sched_peer(rank / per, d.blocks, (r % d.blocks + 1) % d.blocks);
		char *const work = mine + lay->work_offset;
		switch (space) {
		case FGO_SPACE_A_ROWS: {
			const int g = r % d.blocks;
			a = g != rank || per > 1 ? work + (size_t)(g * d.m * d.k) * es : mine + lay->a.offset;
			c = mine + lay->c.offset + (size_t)(g * d.m * lay->c.ld) * es;
			break;
		}
		case FGO_SPACE_K:
			c = work;
			break;
		case FGO_SPACE_K_ROWS:
			a += (size_t)(group * d.m * d.lda) * es;
			c = work + (size_t)(group * d.m * d.n) * es;
			break;
		default:
			c = bases[r] + lay->c.offset + (size_t)(rank * d.n - lay->c.col0) * es;
			break;
		}
		if (gpu_tma_map_rows(&maps_a[r], a, cfg->dtype, d.m, d.k, d.lda, cfg->blk_m, 64, err, len) !=
			    FGO_OK ||
		    gpu_tma_map_rows(&maps_c[r], c, cfg->dtype, d.m, d.n,
				     space == FGO_SPACE_K || space == FGO_SPACE_K_ROWS ? d.n : lay->c.ld,
				     part_rows, c_cols, err, len) != FGO_OK)
			return FGO_EUSAGE;
	}
	return FGO_OK;
}
