/* test_predict_world.c: a fused family at W ranks from one GPU's numbers
 * (src/tune/predict_world.c): the per-rank GEMM each family runs, its
 * egress and the ring baseline's, the overlap (the longer side plus one
 * unit of the shorter), the reduction's reads, and refusals. */
#include <math.h>
#include <string.h>

#include "fgo.h"
#include "testlib.h"
#include "tune/predict_world.h"

static struct fgo_config fam(const char *algo, int w)
{
	struct fgo_config c;
	config_defaults(&c);
	snprintf(c.algorithm, sizeof c.algorithm, "%s", algo);
	c.dtype = FGO_BF16;
	c.world = w;
	c.m = 4096;
	c.n = 8192;
	c.k = 14336;
	return c;
}

int main(void)
{
	long m, n, k;
	struct fgo_config c = fam("all_scatter", 4);
	T_CHECK("shape-all-scatter", predict_world_gemm_shape(&c, &m, &n, &k) && m == 4096 &&
		n == 2048 && k == 14336, "%ldx%ldx%ld", m, n, k);
	c = fam("all_reduce_one_shot", 4);
	predict_world_gemm_shape(&c, &m, &n, &k);
	T_CHECK("shape-all-reduce", m == 4096 && n == 8192 && k == 3584, "%ldx%ldx%ld", m, n, k);
	c = fam("reduce_scatter", 4);
	predict_world_gemm_shape(&c, &m, &n, &k);
	T_CHECK("shape-reduce-scatter", m == 4096 && n == 8192 && k == 3584, "%ldx%ldx%ld", m, n, k);
	c = fam("all_gather_gemm_pull", 8);
	predict_world_gemm_shape(&c, &m, &n, &k);
	T_CHECK("shape-all-gather", m == 4096 && n == 1024 && k == 14336, "%ldx%ldx%ld", m, n, k);

	/* all_scatter at W=4: 3 peers x M x N/4 bf16 = 3 x 4096 x 2048 x 2 bytes */
	struct world_prediction p;
	struct world_inputs in = { 1.0, 350, 3000, 100, NULL, 0, 0 };
	c = fam("all_scatter", 4);
	T_CHECK("as-1.1", predict_world(&c, &in, &p), "refused");
	double bytes = 3.0 * 4096 * 2048 * 2;
	T_NEAR("as-1.2", p.comm_bytes, bytes, 1e-6);
	T_NEAR("as-1.3", p.comm_ms, bytes / 350e9 * 1e3, 1e-12);
	T_NEAR("as-1.4", p.fused_ms, 1.0 + p.comm_ms / 100, 1e-12); /* GEMM longer: comm hides */
	T_NEAR("as-1.5", p.collective_bytes, 0.75 * 4096 * 8192 * 2, 1e-6); /* all-gather of C */
	T_NEAR("as-1.6", p.baseline_ms, 1.0 + p.collective_ms, 1e-12);
	T_NEAR("as-1.7", p.speedup, p.baseline_ms / p.fused_ms, 1e-12);
	T_CHECK("as-1.8", p.reduce_ms == 0 && p.speedup > 1, "reduce %g speedup %g", p.reduce_ms, p.speedup);

	/* comm longer than the GEMM: the GEMM hides, one unit of it exposed */
	in.gemm_ms = 0.01;
	predict_world(&c, &in, &p);
	T_NEAR("as-2.1", p.fused_ms, p.comm_ms + 0.01 / 100, 1e-12);

	/* one-shot all-reduce: reads W partials of M x N; ring all-reduce 2(W-1)/W */
	c = fam("all_reduce_one_shot", 4);
	in.gemm_ms = 1.0;
	predict_world(&c, &in, &p);
	T_NEAR("ar-1.1", p.reduce_ms, 4.0 * 4096 * 8192 * 2 / 3000e9 * 1e3, 1e-12);
	T_NEAR("ar-1.2", p.collective_bytes, 1.5 * 4096 * 8192 * 2, 1e-6);
	T_NEAR("ar-1.3", p.comm_bytes, 3.0 * 4096 * 8192 * 2, 1e-6);
	c = fam("reduce_scatter", 4);
	predict_world(&c, &in, &p);
	T_NEAR("rs-1.1", p.reduce_ms, 4096.0 * 8192 * 2 / 3000e9 * 1e3, 1e-12);
	T_NEAR("rs-1.2", p.collective_bytes, 0.75 * 4096 * 8192 * 2, 1e-6);

	/* W=1: nothing to send, the fused time is the GEMM's */
	c = fam("all_scatter", 1);
	predict_world(&c, &in, &p);
	T_CHECK("w1", p.comm_ms == 0 && fabs(p.fused_ms - 1.0) < 1e-12 && p.collective_ms == 0,
		"comm %g fused %g", p.comm_ms, p.fused_ms);

	/* refused: an unknown family, no link, no GEMM time */
	c = fam("no_such", 4);
	T_CHECK("refuse-family", !predict_world(&c, &in, &p), "accepted");
	c = fam("all_scatter", 4);
	in.link_gbps = 0;
	T_CHECK("refuse-link", !predict_world(&c, &in, &p), "accepted");
	in.link_gbps = 350;
	in.gemm_ms = 0;
	T_CHECK("refuse-gemm", !predict_world(&c, &in, &p), "accepted");
	T_DONE();
}
