/* tile_shape.h: how a CTA's warps split the BLK_M x BLK_N tile and how much
 * shared memory each GEMM core needs, as macros, so the kernels (compiled
 * at run time) and the host checks (src/gpu_shape.c) use the same numbers. */
#ifndef FGO_TILE_SHAPE_H
#define FGO_TILE_SHAPE_H

/* Warps along M in the mma core: the split that keeps a warp's tile about
 * square (num_warps is a power of two; the rest of the warps go along N),
 * but never fewer than 16 rows a warp: a 16-row tile (decode) lays all its
 * warps along N. */
#define FGO_WARPS_M_SQUARE(nw, bm, bn)                                                 \
	((nw) >= 16 ? 4 : (nw) == 8 ? ((bm) >= (bn) ? 4 : 2) : (nw) == 4 ? 2 :         \
	 (nw) == 2 ? ((bm) >= (bn) ? 2 : 1) : 1)
#define FGO_WARPS_M(nw, bm, bn)                                                        \
	(FGO_WARPS_M_SQUARE(nw, bm, bn) * 16 > (bm) ? ((bm) >= 32 ? (bm) / 16 : 1)      \
						    : FGO_WARPS_M_SQUARE(nw, bm, bn))
#define FGO_WARPS_N(nw, bm, bn) ((nw) / FGO_WARPS_M(nw, bm, bn))

/* Shared-memory rows are padded by 8 16-bit elements (16 bytes): with an
 * odd number of 16-byte units per row the 8 rows one ldmatrix reads fall
 * in 8 different bank groups. */
#define FGO_SMEM_PAD 8

/* Bytes of one pipeline stage of the mma core (A panel BLK_M x BLK_K, then
 * B panel BLK_K x BLK_N, 16-bit elements, padded rows). */
#define FGO_MMA_STAGE_BYTES(bm, bn, bk)                                                \
	(2 * ((bm) * ((bk) + FGO_SMEM_PAD) + (bk) * ((bn) + FGO_SMEM_PAD)))

/* Bytes of the MFMA core (AMD, core_mfma.h): `stages` stages of the A panel
 * BLK_M x BLK_K and the B panel BLK_K x BLK_N, elements of es bytes, rows
 * padded by 16 bytes. */
#define FGO_MFMA_SMEM_BYTES(bm, bn, bk, es, stages)                                    \
	((stages) * (es) * ((bm) * ((bk) + 16 / (es)) + (bk) * ((bn) + 16 / (es))))

/* Lanes of a warp (NVIDIA) or a wavefront (AMD CDNA): a CTA has num_warps
 * times as many threads. */
#define FGO_LANES_NVIDIA 32
#define FGO_LANES_AMD 64

/* Bytes of the SIMT core: the A and B panels once, as fp32. */
#define FGO_SIMT_SMEM_BYTES(bm, bn, bk) (4 * ((bm) * (bk) + (bk) * (bn)))

/* The wgmma core (MMA=64): a panel of `rows` rows of one 64-element (128-byte)
 * K slice, as TMA writes it with the 128-byte swizzle; a stage holds BLK_K
 * / 64 such slices of A and of B (BLK_K 64 or 128). The shared memory of a
 * CTA is NUM_STAGES stages, the BLK_M x BLK_N tile of C staged for its TMA
 * store, a full and an empty mbarrier per stage, a staged and a freed one
 * per consumer (room for two), and 1 KiB of slack to align the panels to
 * the swizzle's 1024-byte period. */
#define FGO_WGMMA_PANEL_BYTES(rows) ((rows) * 128)
/* The columns of a box of an N-major panel `cols` wide (B's panel, C's
 * staging): 64 (128-byte rows, the 128-byte swizzle) where cols is a
 * multiple of 64, else 32 (64-byte rows and swizzle) or 16 (32-byte rows
 * and swizzle), so that a tile 80 or 96 wide (wave counts that 64, 128
 * and 256 miss, issue 49) is whole boxes. A panel of one K slice is
 * rows x 128 bytes whatever the box width. */
#define FGO_WGMMA_BOX_COLS(cols) ((cols) % 64 == 0 ? 64 : (cols) % 32 == 0 ? 32 : 16)
#define FGO_WGMMA_STAGING_BYTES(bm, bn) ((bm) * (bn) * 2)
#define FGO_WGMMA_RING_BYTES(bm, bn, bk, stages) \
	((stages) * ((bk) / 64 * (FGO_WGMMA_PANEL_BYTES(bm) + FGO_WGMMA_PANEL_BYTES(bn)) + 16))
/* Hopper's dynamic shared memory a block may have (227 KiB). */
#define FGO_WGMMA_SMEM_LIMIT 232448
/* A tile whose height is no multiple of 64 (8, 16, 32, 48, 80, ...) runs
 * with A and B swapped (core_wgmma.h's WG_SWAP): the instruction's 64 rows
 * are 64 of the tile's columns, a consumer's, and its N the tile's rows. */
#define FGO_WGMMA_SWAPPED(bm) ((bm) < 64 || (bm) % 64 != 0)
/* A consumer warpgroup's part of the tile: BLK_M / consumers rows by all
 * BLK_N columns, or swapped all BLK_M rows by 64 columns (BLK_N is 64 a
 * consumer there). */
#define FGO_WGMMA_PART_ROWS(bm, consumers) (FGO_WGMMA_SWAPPED(bm) ? (bm) : (bm) / (consumers))
#define FGO_WGMMA_PART_COLS(bm, bn, consumers) (FGO_WGMMA_SWAPPED(bm) ? (bn) / (consumers) : (bn))
/* Where the ring and a whole tile of C would not fit together (128x256
 * with 4 stages, 64x256 with 5, swapped 224x128 with 4), C is staged half
 * a part at a time through one staging area of half the size, so a ring
 * one stage deeper fits: halves of BLK_N / 2 columns (only where a half
 * is whole 16-column boxes: BLK_N a multiple of 32), swapped halves of
 * BLK_M / 2 rows (the accumulators' rows come in eights: BLK_M a multiple
 * of 16). 1 or 2. */
#define FGO_WGMMA_HALVES(bm, bn) (FGO_WGMMA_SWAPPED(bm) ? (bm) % 16 == 0 : (bn) >= 128 && (bn) % 32 == 0)
#define FGO_WGMMA_STAGE_SPLIT(bm, bn, bk, stages)                                                 \
	(FGO_WGMMA_HALVES(bm, bn) &&                                                               \
			 FGO_WGMMA_RING_BYTES(bm, bn, bk, stages) + FGO_WGMMA_STAGING_BYTES(bm, bn) + \
				32 + 1024 > FGO_WGMMA_SMEM_LIMIT                                     \
		 ? 2                                                                                \
		 : 1)
/* The rows and columns of C a consumer stages at once: its part, or half
 * of it (columns, or swapped rows), as the TMA stores' boxes take it. */
#define FGO_WGMMA_STAGED_ROWS(bm, bn, bk, stages, consumers) \
	(FGO_WGMMA_PART_ROWS(bm, consumers) / (FGO_WGMMA_SWAPPED(bm) ? FGO_WGMMA_STAGE_SPLIT(bm, bn, bk, stages) : 1))
#define FGO_WGMMA_STAGED_COLS(bm, bn, bk, stages, consumers) \
	(FGO_WGMMA_PART_COLS(bm, bn, consumers) / (FGO_WGMMA_SWAPPED(bm) ? 1 : FGO_WGMMA_STAGE_SPLIT(bm, bn, bk, stages)))
#define FGO_WGMMA_SMEM_BYTES(bm, bn, bk, stages)                                                  \
	(FGO_WGMMA_RING_BYTES(bm, bn, bk, stages) +                                               \
	 FGO_WGMMA_STAGING_BYTES(bm, bn) / FGO_WGMMA_STAGE_SPLIT(bm, bn, bk, stages) + 32 + 1024)

/* With clusters that hold a tile's K slices (split_k = cluster, kernels/
 * wgmma_cluster_k.h): the last slice's CTA keeps a slot for each other
 * slice, the whole tile in fp32, and a full and an empty barrier per
 * consumer (two). */
#define FGO_WGMMA_CLUSTER_K_BYTES(bm, bn, cluster) (((cluster) - 1) * (bm) * (bn) * 4 + 32)

#endif
