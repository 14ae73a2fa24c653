/* test_shot_pick.c: the shot of `--algorithm all_reduce` (src/tune/
 * shot_pick.c's shot_decide) from hand-made evidence: the only valid shot
 * first, then the shape's own runs (whatever the prediction or W say),
 * then best --predict's firsts when they differ by more than SHOT_MARGIN,
 * else the rule of C's size, W and K / W; the numbers that decided are in
 * the reason. The
 * store side and the plan are tests/e2e/96_all_reduce.sh's. */
#include <string.h>

#include "algo.h"
#include "testlib.h"
#include "tune/shot_pick.h"

static struct shot_evidence evidence(int world, double m1, double m2, double p1, double p2)
{
	struct shot_evidence e;
	memset(&e, 0, sizeof e);
	e.world = world;
	e.c_bytes = 8 << 20; /* 1024 x 4096 bf16 */
	e.k_per_rank = 7168;
	e.valid[SHOT_ONE] = e.valid[SHOT_TWO] = 1;
	e.measured_ms[SHOT_ONE] = m1;
	e.measured_ms[SHOT_TWO] = m2;
	e.predicted_ms[SHOT_ONE] = p1;
	e.predicted_ms[SHOT_TWO] = p2;
	return e;
}

static void check(const char *id, struct shot_evidence e, enum shot want, enum shot_source from,
		  const char *says)
{
	struct shot_choice c;
	shot_decide(&e, &c);
	T_CHECK(id, c.shot == want && c.source == from && strstr(c.why, says),
		"got %s from %s (%s), want %s from %s with \"%s\"", shot_algorithm(c.shot),
		shot_source_names[c.source], c.why, shot_algorithm(want), shot_source_names[from],
		says);
}

int main(void)
{
	T_EQ_STR("name-one", shot_algorithm(SHOT_ONE), "all_reduce_one_shot");
	T_EQ_STR("name-two", shot_algorithm(SHOT_TWO), "all_reduce_two_shot");

	/* the rule, nothing else known: two-shot from C = 1 MiB at W > 2, or
	 * at W = 2 where K/W <= 4096; one-shot below 1 MiB and at long K/W */
	check("rule-w2-long-k", evidence(2, 0, 0, 0, 0), SHOT_ONE, SHOT_RULE, "K/W = 7168: both send");
	check("rule-w3", evidence(3, 0, 0, 0, 0), SHOT_TWO, SHOT_RULE, "C = 8 MiB at W = 3");
	check("rule-w8", evidence(8, 0, 0, 0, 0), SHOT_TWO, SHOT_RULE, "two-shot sends 2(W-1)/W");
	struct shot_evidence r = evidence(4, 0, 0, 0, 0);
	r.c_bytes = SHOT_TWO_MIN_C - 1;
	check("rule-small-c-w4", r, SHOT_ONE, SHOT_RULE, "under 1 MiB");
	r.c_bytes = SHOT_TWO_MIN_C;
	check("rule-1mib-w4", r, SHOT_TWO, SHOT_RULE, "C = 1 MiB at W = 4");
	r = evidence(2, 0, 0, 0, 0);
	r.k_per_rank = SHOT_TWO_MAX_KW;
	check("rule-w2-short-k", r, SHOT_TWO, SHOT_RULE, "K/W = 4096: a GEMM too short");
	r.k_per_rank = SHOT_TWO_MAX_KW + 1;
	check("rule-w2-k-past", r, SHOT_ONE, SHOT_RULE, "one-shot in one phase");
	r.k_per_rank = 1024;
	r.c_bytes = 128 << 10;
	check("rule-w2-short-k-small-c", r, SHOT_ONE, SHOT_RULE, "C = 128 KiB, under 1 MiB");

	/* measured both: the faster, against the world rule either way */
	check("measured-two-at-w2", evidence(2, 0.300, 0.200, 0, 0), SHOT_TWO, SHOT_MEASURED,
	      "one-shot 300.0 us, two-shot 200.0 us");
	check("measured-one-at-w4", evidence(4, 0.100, 0.150, 0.9, 0.1), SHOT_ONE, SHOT_MEASURED,
	      "measured here");
	check("measured-tie", evidence(4, 0.100, 0.100, 0, 0), SHOT_ONE, SHOT_MEASURED, "measured");
	/* one side measured only: not a comparison; the ranking decides */
	check("measured-one-side", evidence(2, 0.100, 0, 0.5, 0.2), SHOT_TWO, SHOT_RANKED,
	      "two-shot 200.0 us");

	/* ranked: beyond the margin it decides, within it the world rule */
	check("ranked-two-at-w2", evidence(2, 0, 0, 0.110, 0.100), SHOT_TWO, SHOT_RANKED,
	      "best --predict");
	check("ranked-one-at-w4", evidence(4, 0, 0, 0.100, 0.110), SHOT_ONE, SHOT_RANKED,
	      "one-shot 100.0 us");
	double lo = 0.100, close = lo * (1 + SHOT_MARGIN) * 0.999;
	check("ranked-close-w2", evidence(2, 0, 0, close, lo), SHOT_ONE, SHOT_RULE, "too close");
	check("ranked-close-w4", evidence(4, 0, 0, lo, close), SHOT_TWO, SHOT_RULE, "too close");
	check("ranked-one-side", evidence(4, 0, 0, 0.05, 0), SHOT_TWO, SHOT_RULE, "at W = 4");

	/* validity first: a shot that cannot run is never picked */
	struct shot_evidence e = evidence(4, 0, 0.5, 0, 0);
	e.valid[SHOT_TWO] = 0;
	check("only-one", e, SHOT_ONE, SHOT_ONLY, "the only shot valid");
	e = evidence(2, 0.1, 0.5, 0, 0);
	e.valid[SHOT_ONE] = 0;
	check("only-two", e, SHOT_TWO, SHOT_ONLY, "the only shot valid");
	e.valid[SHOT_TWO] = 0;
	check("neither", e, SHOT_ONE, SHOT_ONLY, "neither shot");

	/* the names people type */
	T_CHECK("choice-names", algo_is_choice("all_reduce") && algo_is_choice("All-Reduce") &&
		algo_is_choice("allreduce") && algo_is_choice("all reduce"), "a spelling refused");
	T_CHECK("choice-not", !algo_is_choice("all_reduce_one_shot") && !algo_is_choice("reduce") &&
		!algo_is_choice("all") && !algo_is_choice("") && !algo_is_choice(NULL),
		"a shot or another name taken for the choice");
	T_DONE();
}
