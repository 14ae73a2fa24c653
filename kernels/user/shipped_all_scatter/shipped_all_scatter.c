/* shipped_all_scatter.c: the C form (CPU backend) of shipped_all_scatter.
 * fgobench's CPU all_scatter (src/algos/all_scatter.c) works on its own
 * run state (struct fgo_exec), which a kernel loaded from a shared object
 * does not have, so this form is the tiled example's
 * (kernels/user/tiled_all_scatter), included, not copied: the schedule the
 * shipped kernel walks (kernels/schedule.h: persistent CTAs over this
 * rank's tiles in grouped order, each tile pushed to the peers in
 * sched_peer order, flag [source * tiles + tile] raised there, then the
 * peers' tiles waited for), under this kernel's entry. The tiles are
 * computed by a plain loop: the C form is for the check in CI, the GPU
 * form for the speed. */
#include "../tiled_all_scatter/tiled_all_scatter.c"

int shipped_all_scatter(const struct fgo_user_args *a, const struct fgo_user_cta *cta)
{
	return tiled_all_scatter(a, cta);
}
