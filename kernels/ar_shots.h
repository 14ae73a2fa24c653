/* ar_shots.h: who sums a tile of a K-sharded all-reduce, one-shot or
 * two-shot, for the kernels that do one (all_reduce.hip, sk_all_reduce.hip).
 * The includer defines TWO_SHOT (0: every rank sums every tile from the W
 * work areas; 1: each tile's owner sums it, stores it into every rank's C
 * and raises [tiles * W + tile] there) and, where the CTAs that walk the
 * tiles in waves are not the whole grid, AR_OWNER_CTAS (their count). */
#ifndef FGO_AR_SHOTS_H
#define FGO_AR_SHOTS_H

#ifndef TWO_SHOT
#define TWO_SHOT 0
#endif
#ifndef AR_OWNER_CTAS
#define AR_OWNER_CTAS ((long)gridDim.x)
#endif

/* Two-shot: the rank that sums tile (schedule.h: the owner turns with the
 * wave of AR_OWNER_CTAS CTAs; every rank launches the same grid, so they
 * agree). */
__device__ __forceinline__ int owner_of(long tile)
{
	return sched_tile_owner_waved(tile, WORLD, AR_OWNER_CTAS);
}

/* Whether this rank sums tile. */
__device__ __forceinline__ bool sums(const struct launch *L, long tile)
{
	return !TWO_SHOT || owner_of(tile) == L->rank;
}

/* Two-shot: team t waits for its share (first, + step, ...) of the sums
 * other ranks own and store here; nothing for one-shot. */
template <class Team>
__device__ __forceinline__ bool sums_arrived(const Team &t, const struct launch *L,
					     const struct sched_grid *g, long first, long step)
{
	if (!TWO_SHOT)
		return true;
	return team_wait_share(t, L, g->tiles, first, step, [&](long tile) {
		return sums(L, tile) ? -1L : g->tiles * WORLD + tile;
	});
}

/* After team t stored this rank's partial of tile: its flag, on every rank
 * (one-shot) or on the tile's owner (two-shot). */
template <class Team>
__device__ __forceinline__ void publish_partial(const Team &t, const struct launch *L, long tile)
{
	if (TWO_SHOT)
		team_publish_one(t, L, owner_of(tile), tile * WORLD + L->rank);
	else
		team_publish_all(t, L, tile * WORLD + L->rank);
}

/* The destinations of tile's sum, the element at of C: this rank's C
 * (one-shot), every rank's (two-shot, in sched_peer order); the sum's
 * flag, two-shot, after team t stored it everywhere. */
__device__ __forceinline__ void sum_destinations(const struct launch *L, long at,
						 elem_t *(&dst)[TWO_SHOT ? WORLD : 1])
{
#pragma unroll
	for (int s = 0; s < (TWO_SHOT ? WORLD : 1); s++)
		dst[s] = heap_at(L, sched_peer(L->rank, WORLD, s), L->c_off) + at;
}
template <class Team>
__device__ __forceinline__ void publish_sum(const Team &t, const struct launch *L,
					    const struct sched_grid *g, long tile)
{
	if (TWO_SHOT)
		team_publish_all(t, L, g->tiles * WORLD + tile);
}

#endif
