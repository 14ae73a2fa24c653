/* test_overlap.c: result_overlap (src/backend/result.c), the overlap column:
 * defined only where both halves are real work on two or more ranks, and
 * then within [0, 1] (the issue-35 values -272.54, 75.19 and 152.5 came from
 * W=1 runs whose t_comm was the timer). */
#include <math.h>

#include "backend/result.h"
#include "fgo.h"
#include "testlib.h"

#define RES 1e-3 /* the CPU backend's resolution, ms */

int main(void)
{
	static const struct {
		const char *id;
		double gemm, comm, fused;
		int world;
		double want; /* NAN: undefined */
	} cases[] = {
		/* defined: the formula itself */
		{ "overlap-1.1 serial", 1.0, 0.5, 1.5, 2, 0.0 },
		{ "overlap-1.2 hidden", 1.0, 0.5, 1.0, 2, 1.0 },
		{ "overlap-1.3 half hidden", 1.0, 0.5, 1.25, 2, 0.5 },
		{ "overlap-1.4 comm the longer", 0.2, 1.0, 1.1, 4, 0.5 },
		/* bounded */
		{ "overlap-2.1 slower than serial reads 0", 1.0, 0.5, 2.0, 2, 0.0 },
		{ "overlap-2.2 faster than the longer half reads 1", 1.0, 0.5, 0.9, 2, 1.0 },
		{ "overlap-2.3 tiny comm, noisy fused", 0.2546, 0.0031, 0.2581, 2, 0.0 },
		/* undefined */
		{ "overlap-3.1 world 1", 0.41, 0.0552, 0.45, 1, NAN },
		{ "overlap-3.2 world 1, comm the timer", 0.41, 0.0002, 0.537, 1, NAN },
		{ "overlap-3.3 comm below the resolution", 0.2546, 0.0009, 0.2581, 2, NAN },
		{ "overlap-3.4 gemm below the resolution", 0.0005, 0.3, 0.3, 2, NAN },
		{ "overlap-3.5 comm zero", 1.0, 0.0, 1.0, 2, NAN },
		{ "overlap-3.6 comm not measured", 1.0, NAN, 1.0, 2, NAN },
		{ "overlap-3.7 fused not measured", 1.0, 0.5, 0.0, 2, NAN },
		/* at the resolution itself: defined */
		{ "overlap-4.1 comm at the resolution", 0.5, RES, 0.5, 2, 1.0 },
	};
	for (size_t i = 0; i < FGO_ARRAY_SIZE(cases); i++) {
		double got = result_overlap(cases[i].gemm, cases[i].comm, cases[i].fused, cases[i].world,
					    RES);
		if (isnan(cases[i].want))
			T_CHECK(cases[i].id, isnan(got), "expected undefined (NaN), got %.6g", got);
		else
			T_CHECK(cases[i].id, fabs(got - cases[i].want) < 1e-9 && got >= 0 && got <= 1,
				"expected %.6g, got %.6g", cases[i].want, got);
	}
	T_DONE();
}
