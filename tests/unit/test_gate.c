/* test_gate.c: the nightly gate's arithmetic (views/gate.h) on made-up
 * nights, and the CPU backend's planted slowdown (cpu/plant.h). Each case
 * is built so that the rule it names, broken, changes a verdict. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cpu/plant.h"
#include "testlib.h"
#include "views/gate.h"

#define N 30

/* a fixed wobble in [-amp, amp] for configuration c, night s */
static double wobble(int c, int s, double amp)
{
	unsigned h = (unsigned)(c * 2654435761u) ^ (unsigned)(s * 40503u + 17u);
	h ^= h >> 13;
	h *= 0x5bd1e995u;
	h ^= h >> 15;
	return amp * ((double)(h % 2001) / 1000.0 - 1.0);
}

static void night(double *x, int s, double amp)
{
	for (int c = 0; c < N; c++)
		x[c] = log(1.0 + c) + log1p(wobble(c, s, amp));
}

static void in_init(struct gate_in *in, const double *b, const double *h)
{
	memset(in, 0, sizeof *in);
	in->configs = N;
	in->base = b;
	in->head = h;
	in->base_rounds = in->head_rounds = 1;
	in->threshold_pct = 5;
	in->alpha = 0.01;
}

static int count(const struct gate_cfg *o, int from, int to, enum fgo_verdict v)
{
	int k = 0;
	for (int c = from; c < to; c++)
		k += o[c].verdict == v;
	return k;
}

/* gate-1: a round's common factor comes out before the median: three of
 * five rounds moved (+30%, +20%, -10%) still give every level exactly */
static void levels(void)
{
	enum { C = 10, R = 5 };
	double x[C * R], level[C], spread[C];
	const double shift[R] = { 0, log(1.3), log(1.2), log(0.9), 0 };
	for (int c = 0; c < C; c++)
		for (int r = 0; r < R; r++)
			x[c * R + r] = log(2.0 + c) + shift[r];
	x[3 * R + 4] = NAN; /* a round without this configuration */
	gate_levels(x, C, R, level, spread);
	int exact = 0;
	for (int c = 0; c < C; c++)
		exact += fabs(level[c] - log(2.0 + c)) < 1e-12;
	T_EQ_INT("gate-1.1 levels with round factors out", exact, C);
	T_NEAR("gate-1.2 no spread left", spread[0], 0, 1e-12);
	gate_levels(x, C, 2, level, spread);
	T_CHECK("gate-1.3 fewer than 3 rounds: spread unknown", isnan(spread[0]), "%g", spread[0]);
	T_NEAR("gate-1.4 median ignores missing", gate_median((double[]){ 3, NAN, 1, 2 }, 4), 2, 0);
}

/* gate-2: every configuration 25% slower */
static void machine(void)
{
	double b[N], h[N], bc[N], hc[N];
	struct gate_cfg out[N];
	struct fgo_regress_gate g;
	struct gate_in in;
	night(b, 1, 0.01);
	night(h, 2, 0.01);
	for (int c = 0; c < N; c++) {
		h[c] += log(1.25);
		bc[c] = log(3.0);
		hc[c] = log(3.0 * 1.24);
	}
	in_init(&in, b, h);
	in.base_ctl = bc;
	in.head_ctl = hc;
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-2.1 control moved too: the machine changed", g.machine, GATE_MACHINE_CHANGED);
	T_EQ_INT("gate-2.2 no regression then", g.regressions, 0);
	T_NEAR("gate-2.3 the machine factor", g.machine_pct, 25, 1.5);
	T_NEAR("gate-2.4 the control's change", g.control_pct, 24, 0.01);
	T_EQ_INT("gate-2.5 moved together", g.moved, N);

	for (int c = 0; c < N; c++)
		hc[c] = log(3.0 * 1.01);
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-2.6 control still: the code", g.machine, GATE_CODE_WIDE);
	T_EQ_INT("gate-2.7 every configuration a regression", g.regressions, N);
	in.base_ctl = in.head_ctl = NULL;
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-2.8 no control: judged as measured", g.regressions, N);
	T_CHECK("gate-2.9 no control, none reported", isnan(g.control_pct), "%g", g.control_pct);

	/* a drift within the threshold is the machine's and comes out */
	for (int c = 0; c < N; c++)
		h[c] += log(1.04) - log(1.25);
	h[7] += log(1.12); /* 12% against the machine: +16.5% raw */
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-2.10 small drift: the machine held", g.machine, GATE_MACHINE_SAME);
	T_EQ_INT("gate-2.11 drift taken out", g.removed, 1);
	T_NEAR("gate-2.12 change judged against it", out[7].change_pct, 12, 2.5);
	T_EQ_INT("gate-2.13 that one a regression", out[7].verdict, FGO_REGRESSION);
	T_EQ_INT("gate-2.14 only that one", g.regressions, 1);
}

/* gate-3: one family (4 configurations) 20% slower among +-3% noise */
static void family(void)
{
	double b[N], h[N];
	struct gate_cfg out[N];
	struct fgo_regress_gate g;
	struct gate_in in;
	night(b, 3, 0.03);
	night(h, 4, 0.03);
	for (int c = 10; c < 14; c++)
		h[c] += log(1.20);
	in_init(&in, b, h);
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-3.1 the family's four", count(out, 10, 14, FGO_REGRESSION), 4);
	T_EQ_INT("gate-3.2 nothing else", g.regressions + g.improvements, 4);
	T_CHECK("gate-3.3 noise from the spread over configurations", g.cross_pct > 1 &&
		g.cross_pct < 4, "cross %g%%", g.cross_pct);
	T_NEAR("gate-3.4 Bonferroni", g.alpha_each, 0.01 / N, 1e-12);

	/* the same family faster: improvements, no regression */
	for (int c = 10; c < 14; c++)
		h[c] -= 2 * log(1.20);
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-3.5 faster: improvements", count(out, 10, 14, FGO_IMPROVEMENT), 4);
	T_EQ_INT("gate-3.6 and no regression", g.regressions, 0);
}

/* gate-4: the history's noise: configuration 0 moves +-15% night to night,
 * configuration 1 +-1%; both 20% slower tonight: only 1 is news */
static void history(void)
{
	enum { H = 6 };
	double hist[H * N], b[N], h[N];
	struct gate_cfg out[N];
	struct fgo_regress_gate g;
	struct gate_in in;
	for (int s = 0; s < H; s++) {
		night(hist + s * N, 10 + s, 0.01);
		hist[s * N] += s % 2 ? log(1.15) : log(0.87);
	}
	night(b, 20, 0.01);
	b[0] += log(1.15); /* base continues the swing */
	night(h, 21, 0.01);
	h[0] += log(1.15) + log(1.20);
	h[1] += log(1.20);
	in_init(&in, b, h);
	in.nights = H;
	in.hist = hist;
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-4.1 a steady configuration's 20% is a regression", out[1].verdict,
		 FGO_REGRESSION);
	T_EQ_INT("gate-4.2 a swinging one's 20% is not", out[0].verdict, FGO_SAME);
	T_CHECK("gate-4.3 its noise is its history's", out[0].noise_pct > 15, "noise %g%%",
		out[0].noise_pct);
	T_EQ_INT("gate-4.4 history pairs", g.history_pairs, H);
	in.nights = 0;
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-4.5 without the history it would alarm", out[0].verdict, FGO_REGRESSION);
}

/* gate-5: the rounds' spread: a configuration whose rounds scatter by 20%
 * is judged against that, not against the quieter rest */
static void rounds(void)
{
	double b[N], h[N], bs[N], hs[N];
	struct gate_cfg out[N];
	struct fgo_regress_gate g;
	struct gate_in in;
	night(b, 30, 0.01);
	night(h, 31, 0.01);
	for (int c = 0; c < N; c++)
		bs[c] = hs[c] = 0.02;
	bs[5] = hs[5] = 0.20;
	h[5] += log(1.15);
	h[6] += log(1.15);
	in_init(&in, b, h);
	in.base_spread = bs;
	in.head_spread = hs;
	in.base_rounds = in.head_rounds = 6;
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-5.1 scattered rounds: not significant", out[5].verdict, FGO_SAME);
	T_EQ_INT("gate-5.2 steady rounds: a regression", out[6].verdict, FGO_REGRESSION);
	T_NEAR("gate-5.3 standard error of two medians of 6", out[5].noise_pct,
	       100 * 1.2533 * sqrt(2 * 0.04 / 6), 0.05);
}

/* gate-11: nights of unequal rounds (3 and 12): each side's spread counts
 * over its own rounds. Configuration 5's head rounds scatter by 20%
 * (base 2%), configuration 7's base rounds do; the noise of each, a
 * median's standard error sqrt(pi/2) sigma / sqrt(n) per side, written out
 * here. Both are 45% slower: z 5.0 against that noise (a regression at
 * alpha 0.01 / 30); either side's spread over the other side's rounds
 * would double the noise of one of them and call it same. */
static void unequal_rounds(void)
{
	double b[N], h[N], bs[N], hs[N];
	struct gate_cfg out[N];
	struct fgo_regress_gate g;
	struct gate_in in;
	night(b, 80, 0.01);
	night(h, 81, 0.01);
	for (int c = 0; c < N; c++)
		bs[c] = hs[c] = 0.02;
	hs[5] = 0.20;
	bs[7] = 0.20;
	h[5] += log(1.45);
	h[7] += log(1.45);
	in_init(&in, b, h);
	in.base_spread = bs;
	in.head_spread = hs;
	in.base_rounds = 3;
	in.head_rounds = 12;
	gate_judge(&in, out, &g);
	/* 1.2533 sqrt(0.02^2 / 3 + 0.20^2 / 12) = 0.073792 */
	T_NEAR("gate-11.1 head scattered over its 12 rounds", out[5].noise_pct, 7.3792, 0.001);
	T_EQ_INT("gate-11.2 and 45% slower against that: a regression", out[5].verdict,
		 FGO_REGRESSION);
	/* 1.2533 sqrt(0.20^2 / 3 + 0.02^2 / 12) = 0.144900 */
	T_NEAR("gate-11.3 base scattered over its 3 rounds", out[7].noise_pct, 14.4900, 0.001);
	T_EQ_INT("gate-11.4 so 45% slower is not significant", out[7].verdict, FGO_SAME);
	/* the other way round: base 12 rounds, head 3 */
	in.base_rounds = 12;
	in.head_rounds = 3;
	gate_judge(&in, out, &g);
	T_NEAR("gate-11.5 head scattered over its 3 rounds", out[5].noise_pct, 14.4900, 0.001);
	T_NEAR("gate-11.6 base scattered over its 12 rounds", out[7].noise_pct, 7.3792, 0.001);
	T_EQ_INT("gate-11.7 verdicts swap", out[5].verdict == FGO_SAME && out[7].verdict ==
		 FGO_REGRESSION, 1);
}

/* gate-12: the spread over configurations says something only from 8 of
 * them compared: with 7 it is unknown (NAN, the night's noise then the
 * rounds' and the history's alone), with 8 it is taken */
static void few_configs(void)
{
	double b[N], h[N];
	struct gate_cfg out[N];
	struct fgo_regress_gate g;
	struct gate_in in;
	night(b, 90, 0.05);
	night(h, 91, 0.05);
	in_init(&in, b, h);
	in.configs = 7;
	gate_judge(&in, out, &g);
	T_CHECK("gate-12.1 7 configurations: no spread over them", isnan(g.cross_pct), "cross %g%%",
		g.cross_pct);
	in.configs = 8;
	gate_judge(&in, out, &g);
	T_CHECK("gate-12.2 8: the spread is taken", g.cross_pct > 0, "cross %g%%", g.cross_pct);
}

/* gate-8: rounds in two modes (a busy machine: 14 ms or 22 ms): base 4 low
 * and 2 high, head 2 low and 4 high; the median flips mode (+57%), the
 * rounds' spread must say it could: same. Steady configurations around it. */
static void modes(void)
{
	enum { R = 6 };
	double xb[N * R], xh[N * R], bl[N], bs[N], hl[N], hs[N];
	struct gate_cfg out[N];
	struct fgo_regress_gate g;
	struct gate_in in;
	for (int c = 0; c < N; c++)
		for (int r = 0; r < R; r++) {
			xb[c * R + r] = log(1.0 + c) + log1p(wobble(c, 60 + r, 0.02));
			xh[c * R + r] = log(1.0 + c) + log1p(wobble(c, 70 + r, 0.02));
		}
	for (int r = 0; r < R; r++) {
		xb[r] = log(r < 4 ? 14.0 : 22.0);
		xh[r] = log(r < 2 ? 14.0 : 22.0);
	}
	gate_levels(xb, N, R, bl, bs);
	gate_levels(xh, N, R, hl, hs);
	in_init(&in, bl, hl);
	in.base_spread = bs;
	in.head_spread = hs;
	in.base_rounds = in.head_rounds = R;
	gate_judge(&in, out, &g);
	T_CHECK("gate-8.1 the median flipped mode", out[0].change_pct > 40, "change %g%%",
		out[0].change_pct);
	T_EQ_INT("gate-8.2 two modes in the rounds: same", out[0].verdict, FGO_SAME);
	T_EQ_INT("gate-8.3 nothing else", g.regressions + g.improvements, 0);
	for (int r = 0; r < R; r++)
		xh[5 * R + r] += log(1.25); /* a steady configuration 25% slower */
	gate_levels(xh, N, R, hl, hs);
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-8.4 a steady one's 25% is still found", out[5].verdict, FGO_REGRESSION);
}

/* gate-6: alpha and the threshold */
static void alpha_threshold(void)
{
	double b[N], h[N];
	struct gate_cfg out[N];
	struct fgo_regress_gate g;
	struct gate_in in;
	night(b, 40, 0.02);
	night(h, 41, 0.02);
	in_init(&in, b, h);
	in.threshold_pct = 1;
	gate_judge(&in, out, &g);
	double sigma = g.cross_pct / 100;
	/* 3.45 noise beyond the machine: p near 0.0006, above 0.01 / 30, below 0.1 / 30 */
	h[2] = b[2] + log1p(g.machine_pct / 100) + 3.45 * sigma;
	gate_judge(&in, out, &g);
	T_CHECK("gate-6.1 p between the two alphas", out[2].p > 0.01 / N && out[2].p < 0.1 / N,
		"p %g", out[2].p);
	T_EQ_INT("gate-6.2 alpha 0.01: same", out[2].verdict, FGO_SAME);
	in.alpha = 0.1;
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-6.3 alpha 0.1: a regression", out[2].verdict, FGO_REGRESSION);
	in.threshold_pct = 100 * (exp(4.5 * sigma) - 1);
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-6.4 below the threshold: same", out[2].verdict, FGO_SAME);
}

/* gate-7: a busy machine: unchanged configurations spread by ~15%, over
 * twice the threshold: no verdict, even for a family 60% slower */
static void blind(void)
{
	double b[N], h[N];
	struct gate_cfg out[N];
	struct fgo_regress_gate g;
	struct gate_in in;
	night(b, 50, 0.25);
	night(h, 51, 0.25);
	for (int c = 0; c < 4; c++)
		h[c] += log(1.6);
	in_init(&in, b, h);
	gate_judge(&in, out, &g);
	T_CHECK("gate-7.1 spread over twice the threshold", g.cross_pct > 10, "cross %g%%",
		g.cross_pct);
	T_EQ_INT("gate-7.2 no verdict", g.blind, 1);
	/* the rule's factor: a spread 2.5x the threshold is blind, 1.5x not
	 * (the spread of the changes does not depend on the threshold) */
	double cross = g.cross_pct / 100, thr_pct = in.threshold_pct;
	in.threshold_pct = 100 * (exp(cross / 2.5) - 1);
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-7.8 spread 2.5x the threshold: no verdict", g.blind, 1);
	in.threshold_pct = 100 * (exp(cross / 1.5) - 1);
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-7.9 spread 1.5x the threshold: judged", g.blind, 0);
	in.threshold_pct = thr_pct;
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-7.3 so no regression", g.regressions, 0);
	T_CHECK("gate-7.4 what the night could see is said", g.sees_pct > 40, "sees %g%%",
		g.sees_pct);
	char text[1024];
	gate_describe(&g, N, 5, 0.01, text, sizeof text);
	T_CONTAINS("gate-7.5 and written", text, "NO VERDICT: too noisy to judge");
	night(b, 52, 0.02);
	night(h, 53, 0.02);
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-7.6 a quiet night judges", g.blind, 0);
	T_CHECK("gate-7.7 and sees small changes", g.sees_pct < 12, "sees %g%%", g.sees_pct);
}

static void plant(void)
{
	T_NEAR("plant-1.1 percent of the launch", cpu_plant_extra_ns(NULL, 0, 20, "gemm", 2.0),
	       400000, 1e-6);
	T_NEAR("plant-1.2 ns and percent add", cpu_plant_extra_ns("", 1000, 10, "gemm", 1.0),
	       101000, 1e-6);
	T_NEAR("plant-1.3 a listed family", cpu_plant_extra_ns("gemm,all_scatter", 0, 50,
							     "all_scatter", 1.0), 500000, 1e-6);
	T_NEAR("plant-1.4 not a prefix", cpu_plant_extra_ns("all_scatter", 0, 50,
							    "sk_all_scatter", 1.0), 0, 0);
	T_NEAR("plant-1.5 not a longer name", cpu_plant_extra_ns("all_scatter_x", 0, 50,
								 "all_scatter", 1.0), 0, 0);
}

/* gate-10: relative levels (time over the round's control): the machine is
 * out already, so a common move is the control's own code when the control
 * moved the other way, and all of the code when it did not */
static void relative(void)
{
	double b[N], h[N], bc[N], hc[N];
	struct gate_cfg out[N];
	struct fgo_regress_gate g;
	struct gate_in in;
	night(b, 5, 0.01);
	night(h, 6, 0.01);
	for (int c = 0; c < N; c++) {
		h[c] += log(1.25); /* every time 25% more against its control */
		bc[c] = log(3.0);
		hc[c] = log(3.0 / 1.25); /* because the control got 25% faster */
	}
	in_init(&in, b, h);
	in.base_ctl = bc;
	in.head_ctl = hc;
	in.relative = 1;
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-10.1 control faster: the control changed", g.machine, GATE_CONTROL_CHANGED);
	T_EQ_INT("gate-10.2 no regression then", g.regressions, 0);
	T_EQ_INT("gate-10.3 said relative", g.relative, 1);
	for (int c = 0; c < N; c++)
		hc[c] = log(3.0 * 1.25); /* control slower too: not what relative levels show */
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-10.4 control with them: still the code", g.machine, GATE_CODE_WIDE);
	T_EQ_INT("gate-10.5 every configuration a regression", g.regressions, N);
	/* the control 27% slower and the ratios 6% with it: the machine's residue */
	for (int c = 0; c < N; c++) {
		h[c] += log(1.06) - log(1.25);
		hc[c] = log(3.0 * 1.27);
	}
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-10.9 a residue of the machine's move", g.machine, GATE_MACHINE_CHANGED);
	T_EQ_INT("gate-10.10 taken out: no regression", g.regressions, 0);
	for (int c = 0; c < N; c++)
		h[c] += log(1.25) - log(1.06);
	in.relative = 0;
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-10.6 the same as times: the machine changed", g.machine,
		 GATE_MACHINE_CHANGED);
	for (int c = 0; c < N; c++)
		hc[c] = log(3.0 / 1.25);
	gate_judge(&in, out, &g);
	T_EQ_INT("gate-10.7 times, control the other way: the code", g.machine, GATE_CODE_WIDE);
	char text[1024];
	in.relative = 1;
	gate_judge(&in, out, &g);
	gate_describe(&g, N, 5, 0.01, text, sizeof text);
	T_CHECK("gate-10.8 described", strstr(text, "THE CONTROL CHANGED") &&
		strstr(text, "judged against its control"), "%s", text);
}

int main(void)
{
	levels();
	machine();
	family();
	history();
	rounds();
	alpha_threshold();
	blind();
	modes();
	unequal_rounds();
	few_configs();
	plant();
	relative();
	T_DONE();
}
