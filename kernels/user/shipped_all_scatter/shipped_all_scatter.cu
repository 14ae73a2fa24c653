/* shipped_all_scatter.cu: fgobench's own all_scatter (kernels/all_scatter.hip
 * on the mma.sync core), re-expressed through the user contract: this entry
 * is only an adapter. It names the shipped kernel's compile-time constants
 * after the contract's macros (the manifest's tunables, FGO_DTYPE and, with
 * "shape_macros", the problem: FGO_M, FGO_N, FGO_K, FGO_W), builds the
 * shipped kernel's launch (struct launch, kernels/comm.h) from the
 * contract's argument, and runs the very same CTA code as the shipped
 * fgo_main (all_scatter_cta, kernels/all_scatter_cta.h). Measured beside
 * the built-in family (sweeps/user_shipped.json and
 * user_shipped_builtin.json), the difference is what the harness adds. */
#include "fgo_user.h"

/* The shipped names (src/gpu/gpu_jit.c, gpu_jit_defines) for all_scatter's
 * sharding: A whole (M x K), this rank's columns of B (K x N/W), C whole
 * (M x N); this rank's tile space is M x N/W. */
#define DTYPE FGO_DTYPE
#define WORLD FGO_W
#define M_ FGO_M
#define N_ (FGO_N / FGO_W)
#define K_ FGO_K
#define NFULL FGO_N
#define MFULL FGO_M
#define LDA FGO_K
#define LDB (FGO_N / FGO_W)
#define BLOCKS 1
/* the mma.sync core (m16n8k16), data-parallel, no communication CTAs */
#define MMA 16
#define GEMM_SMS 0
#define COMM_SMS 0
#define COMM_BLK_M 0
#define COMM_BLK_N 0

#include "all_scatter_cta.h"

/* The contract's modes are the shipped kernel's (comm.h's MODE_*). */
static_assert(FGO_USER_FUSED == MODE_FUSED && FGO_USER_GEMM_ONLY == MODE_GEMM_ONLY &&
		      FGO_USER_COMM_ONLY == MODE_COMM_ONLY,
	      "the contract's modes are the shipped kernel's");

/* The shipped launch from the contract's argument: the same heap bases,
 * offsets (C is the family's whole C; the flags are the manifest's,
 * W * tiles of them, indexed [source * tiles + tile] as the shipped
 * kernel's), epoch, status words and timeout. */
__device__ __forceinline__ struct launch launch_of(const struct fgo_user_args &a)
{
	struct launch L;
	L.bases = a.heap;
	L.rank = a.rank;
	L.mode = FGO_MODE;
	L.epoch = a.epoch;
	L.a_off = (unsigned long long)a.a.offset;
	L.b_off = (unsigned long long)a.b.offset;
	L.c_off = (unsigned long long)a.c.offset;
	L.work_off = (unsigned long long)a.work_offset;
	L.flags_off = (unsigned long long)a.flags_offset;
	L.status = a.status;
	L.timeout_ns = (unsigned long long)a.timeout_ns;
	return L;
}

extern "C" __global__ void __launch_bounds__(THREADS) shipped_all_scatter(struct fgo_user_args a)
{
	const struct launch L = launch_of(a);
	all_scatter_cta(&L);
}
