/* gpu_tma.c: tensor maps through the driver's cuTensorMapEncodeTiled (see
 * gpu_tma.h). */
#include "gpu_tma.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fgo.h"
#include "hip_port.h"

#if defined(FGO_GPU_CUDA)
_Static_assert(sizeof(struct gpu_tma_map) == sizeof(CUtensorMap), "a tensor map is 128 bytes");

int gpu_tma_map_rows(struct gpu_tma_map *map, void *base, enum fgo_dtype dtype, long rows,
		     long cols, long pitch, int box_rows, char *err, size_t len)
{
	/* dimension 0 is the contiguous one: columns, then rows */
	cuuint64_t dims[2] = { (cuuint64_t)cols, (cuuint64_t)rows };
	cuuint64_t strides[1] = { (cuuint64_t)pitch * 2 };
	cuuint32_t box[2] = { 64, (cuuint32_t)box_rows }, step[2] = { 1, 1 };
	CUresult r;

	if (dtype == FGO_FP32 || ((uintptr_t)base & 15) || (pitch * 2) % 16 || box_rows < 1 ||
	    box_rows > 256) {
		snprintf(err, len, "a tensor map needs 16-bit elements, 16-byte aligned rows and a box of 1 to 256 rows");
		return FGO_EUSAGE;
	}
	r = cuTensorMapEncodeTiled((CUtensorMap *)map,
				   dtype == FGO_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
						     : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
				   2, base, dims, strides, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
				   CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
				   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
	if (r != CUDA_SUCCESS) {
		snprintf(err, len, "cuTensorMapEncodeTiled (%ld x %ld, pitch %ld, box %d x 64) failed: %s",
			 rows, cols, pitch, box_rows, fgo_cu_text(r));
		return FGO_EUSAGE;
	}
	return FGO_OK;
}
#else
int gpu_tma_map_rows(struct gpu_tma_map *map, void *base, enum fgo_dtype dtype, long rows,
		     long cols, long pitch, int box_rows, char *err, size_t len)
{
	(void)map, (void)base, (void)dtype, (void)rows, (void)cols, (void)pitch, (void)box_rows;
	snprintf(err, len, "no tensor memory accelerator (TMA) on this GPU: mma=wgmma is Hopper's");
	return FGO_EUSAGE;
}
#endif
