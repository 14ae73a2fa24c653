/* gate.c: the nightly gate's arithmetic (gate.h): night levels from rounds,
 * the machine factor and the control, the noise per configuration, and the
 * verdicts. No store, no output: gate_load.c feeds it, tests drive it. */
#include "views/gate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 / Phi^-1(3/4): a median absolute deviation of normal noise times this
 * is its standard deviation */
#define MAD_TO_SD 1.4826
/* the standard error of a median of n normal values is about this times
 * that of their mean (sqrt(pi / 2)) */
#define MEDIAN_SE 1.2533
/* configurations needed before their spread says anything about noise */
#define CROSS_MIN 8

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double gate_median(const double *x, size_t n)
{
	double *s = malloc((n ? n : 1) * sizeof *s);
	size_t k = 0;
	if (!s)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (!isnan(x[i]))
			s[k++] = x[i];
	double med = NAN;
	if (k) {
		qsort(s, k, sizeof *s, cmp_double);
		med = k % 2 ? s[k / 2] : 0.5 * (s[k / 2 - 1] + s[k / 2]);
	}
	free(s);
	return med;
}

/* Robust standard deviation of the non-NAN x around their median; NAN with
 * fewer than min values. */
static double robust_sd(const double *x, size_t n, size_t min)
{
	double *d = malloc((n ? n : 1) * sizeof *d);
	size_t k = 0;
	if (!d)
		return NAN;
	double med = gate_median(x, n);
	for (size_t i = 0; i < n; i++)
		if (!isnan(x[i]))
			d[k++] = fabs(x[i] - med);
	double sd = k >= min ? MAD_TO_SD * gate_median(d, k) : NAN;
	free(d);
	return sd;
}

/* Standard deviation (n - 1) of the non-NAN x; NAN with fewer than min.
 * Not robust on purpose: a configuration whose rounds fall into two modes
 * (2 of 6 rounds 1.6x slower on a busy machine) must show that spread,
 * which a median absolute deviation would hide while the median flips. */
static double sample_sd(const double *x, size_t n, size_t min)
{
	double sum = 0, ss = 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(x[i])) {
			sum += x[i];
			k++;
		}
	if (k < min)
		return NAN;
	double mean = sum / (double)k;
	for (size_t i = 0; i < n; i++)
		if (!isnan(x[i]))
			ss += (x[i] - mean) * (x[i] - mean);
	return sqrt(ss / (double)(k - 1));
}

void gate_levels(const double *x, size_t configs, size_t rounds, double *level, double *spread)
{
	double *row = malloc((rounds ? rounds : 1) * sizeof *row);
	double *col = malloc((configs ? configs : 1) * sizeof *col);
	double *factor = calloc(rounds ? rounds : 1, sizeof *factor);
	if (!row || !col || !factor) {
		for (size_t c = 0; c < configs; c++)
			level[c] = spread[c] = NAN;
		goto out;
	}
	for (size_t c = 0; c < configs; c++)
		level[c] = gate_median(x + c * rounds, rounds);
	/* a round under load (or on a faster core) moves every configuration in
	 * it: its factor is the median offset, taken out before the median */
	for (size_t r = 0; r < rounds; r++) {
		for (size_t c = 0; c < configs; c++)
			col[c] = x[c * rounds + r] - level[c];
		factor[r] = gate_median(col, configs);
		if (isnan(factor[r]))
			factor[r] = 0;
	}
	for (size_t c = 0; c < configs; c++) {
		for (size_t r = 0; r < rounds; r++)
			row[r] = x[c * rounds + r] - factor[r];
		level[c] = gate_median(row, rounds);
		spread[c] = sample_sd(row, rounds, 3);
	}
out:
	free(row);
	free(col);
	free(factor);
}

const char *gate_machine_name(enum gate_machine m)
{
	switch (m) {
	case GATE_MACHINE_CHANGED: return "the machine changed";
	case GATE_CODE_WIDE: return "a change common to all configurations";
	case GATE_CONTROL_CHANGED: return "the control changed";
	default: return "the machine held";
	}
}

static double pct(double log_ratio)
{
	return isnan(log_ratio) ? NAN : (exp(log_ratio) - 1) * 100;
}

/* The history's noise of configuration c: the robust spread of its changes
 * from night to night (each night's median change over configurations taken
 * out), over the earlier nights and base. *pairs: how many changes. */
static double history_sd(const struct gate_in *in, size_t c, const double *night_factor,
			 int *pairs)
{
	size_t n = in->nights;
	double *a = malloc((n ? n : 1) * sizeof *a);
	size_t k = 0;
	*pairs = 0;
	if (!a)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		double from = in->hist[i * in->configs + c];
		double to = i + 1 < n ? in->hist[(i + 1) * in->configs + c] : in->base[c];
		if (!isnan(from) && !isnan(to) && !isnan(night_factor[i]))
			a[k++] = to - from - night_factor[i];
	}
	*pairs = (int)k;
	double sd = robust_sd(a, k, 2);
	free(a);
	return sd;
}

/* The median change over configurations from each earlier night to the next
 * (the last one to base): factor[i] for the pair that starts at night i. */
static void night_factors(const struct gate_in *in, double *factor)
{
	double *d = malloc((in->configs ? in->configs : 1) * sizeof *d);
	for (size_t i = 0; i < in->nights; i++) {
		factor[i] = NAN;
		if (!d)
			continue;
		const double *to = i + 1 < in->nights ? in->hist + (i + 1) * in->configs : in->base;
		for (size_t c = 0; c < in->configs; c++)
			d[c] = to[c] - in->hist[i * in->configs + c];
		factor[i] = gate_median(d, in->configs);
	}
	free(d);
}

/* The |z| whose two-sided normal p is p (bisection on erfc: no inverse in C11). */
static double z_for(double p)
{
	double lo = 0, hi = 40;
	for (int i = 0; i < 100; i++) {
		double mid = 0.5 * (lo + hi);
		if (erfc(mid / sqrt(2.0)) > p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

static double max_known(double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return a > b ? a : b;
}

/* The standard error of the difference of the two medians from the rounds'
 * spreads; a configuration's spread is never taken below the median spread
 * of all (a few rounds that happen to agree say little). NAN when a side
 * has fewer than 3 rounds. */
static double rounds_se(const struct gate_in *in, size_t c, double base_floor, double head_floor)
{
	if (in->base_rounds < 3 || in->head_rounds < 3 || !in->base_spread || !in->head_spread)
		return NAN;
	double sb = max_known(in->base_spread[c], base_floor);
	double sh = max_known(in->head_spread[c], head_floor);
	if (isnan(sb) || isnan(sh))
		return NAN;
	return MEDIAN_SE * sqrt(sb * sb / (double)in->base_rounds + sh * sh / (double)in->head_rounds);
}

void gate_judge(const struct gate_in *in, struct gate_cfg *out, struct fgo_regress_gate *g)
{
	size_t n = in->configs;
	double *d = malloc((n ? n : 1) * sizeof *d);
	double *a = malloc((n ? n : 1) * sizeof *a);
	double *ctl = malloc((n ? n : 1) * sizeof *ctl);
	double *factor = malloc((in->nights ? in->nights : 1) * sizeof *factor);
	memset(g, 0, sizeof *g);
	g->on = 1;
	g->relative = in->relative;
	g->control_pct = NAN;
	if (!d || !a || !ctl || !factor)
		goto out;

	double thr = log1p(in->threshold_pct / 100);
	size_t compared = 0;
	for (size_t c = 0; c < n; c++) {
		d[c] = in->head[c] - in->base[c];
		ctl[c] = in->base_ctl && in->head_ctl ? in->head_ctl[c] - in->base_ctl[c] : NAN;
		compared += !isnan(d[c]);
	}
	double m = gate_median(d, n), k = gate_median(ctl, n);
	g->machine_pct = pct(m);
	g->control_pct = pct(k);
	for (size_t c = 0; c < n; c++)
		g->moved += !isnan(d[c]) && fabs(d[c]) > thr && (d[c] > 0) == (m > 0);
	/* Small common drifts are the machine's; a large one is the machine's
	 * only when the control, which the code does not touch, moved with it.
	 * Relative levels have the machine taken out run by run already: a
	 * large common move there is the control's own code when the control
	 * moved the other way (everything looks slower against a faster
	 * control), else all of the code. */
	int with = !isnan(k) && (k > 0) == (m > 0) && fabs(k) >= 0.5 * fabs(m);
	int against = !isnan(k) && (k > 0) != (m > 0) && fabs(k) >= 0.5 * fabs(m);
	/* relative levels cancel most of a machine's move, not all of it (on
	 * the 2-core VM a night whose control ran 27% slower moved the
	 * configurations against it by 5%): a common move at most half the
	 * control's, the same way, is what is left of the machine's */
	int residue = !isnan(k) && (k > 0) == (m > 0) && fabs(m) <= 0.5 * fabs(k);
	if (isnan(m) || fabs(m) <= thr) {
		g->machine = (int)GATE_MACHINE_SAME;
		g->removed = !isnan(m);
	} else if (in->relative ? residue : with) {
		g->machine = (int)GATE_MACHINE_CHANGED;
		g->removed = 1;
	} else if (in->relative && against) {
		g->machine = (int)GATE_CONTROL_CHANGED;
		g->removed = 1;
	} else {
		g->machine = (int)GATE_CODE_WIDE;
	}
	for (size_t c = 0; c < n; c++)
		a[c] = d[c] - (g->removed ? m : 0);

	/* the spread of this night's changes around their middle: what an
	 * unchanged configuration's change looks like tonight */
	double cross = compared >= CROSS_MIN ? robust_sd(d, n, CROSS_MIN) : NAN;
	g->cross_pct = isnan(cross) ? NAN : cross * 100;
	g->alpha_each = in->alpha / (double)(compared ? compared : 1);
	double z_crit = z_for(g->alpha_each);
	g->sees_pct = isnan(cross) ? NAN : pct(fmax(thr, z_crit * cross));
	/* On a machine busy enough that most unchanged configurations move by
	 * twice the threshold, the noise is not the normal noise the p assumes
	 * (a run is preempted or not: times jump between modes), and a verdict
	 * would be a coin: said, not judged. */
	g->blind = !isnan(cross) && cross > 2 * thr;

	for (size_t c = 0; c < n; c++)
		ctl[c] = NAN;
	double base_floor = in->base_spread ? gate_median(in->base_spread, n) : NAN;
	double head_floor = in->head_spread ? gate_median(in->head_spread, n) : NAN;
	if (in->nights)
		night_factors(in, factor);
	for (size_t c = 0; c < n; c++) {
		struct gate_cfg *o = &out[c];
		int pairs = 0;
		o->raw_pct = pct(in->head[c] - in->base[c]);
		o->change_pct = pct(a[c]);
		o->verdict = FGO_SAME;
		o->p = 1;
		o->noise_pct = NAN;
		if (isnan(a[c]))
			continue;
		double sigma = max_known(rounds_se(in, c, base_floor, head_floor), cross);
		if (in->nights)
			sigma = max_known(sigma, history_sd(in, c, factor, &pairs));
		if (pairs > g->history_pairs)
			g->history_pairs = pairs;
		o->noise_pct = isnan(sigma) ? NAN : sigma * 100;
		ctl[c] = sigma; /* the control's changes are used up: the noises, for sees */
		/* no noise known: a change is as significant as it is large */
		double z = isnan(sigma) || sigma <= 0 ? (a[c] != 0 ? INFINITY : 0) : a[c] / sigma;
		o->p = erfc(fabs(z) / sqrt(2.0));
		if (g->blind)
			continue;
		if (o->p < g->alpha_each && a[c] > thr)
			o->verdict = FGO_REGRESSION;
		else if (o->p < g->alpha_each && a[c] < -thr)
			o->verdict = FGO_IMPROVEMENT;
		g->regressions += o->verdict == FGO_REGRESSION;
		g->improvements += o->verdict == FGO_IMPROVEMENT;
	}
	/* what a typical configuration's own noise lets through tonight */
	double typical = gate_median(ctl, n);
	g->sees_pct = isnan(typical) ? g->sees_pct : pct(fmax(thr, z_crit * typical));
out:
	free(d);
	free(a);
	free(ctl);
	free(factor);
}

void gate_describe(const struct fgo_regress_gate *g, size_t compared, double threshold_pct,
		   double alpha, char *buf, size_t len)
{
	char ctl[64], noise[64], hist[64];
	if (isnan(g->control_pct))
		snprintf(ctl, sizeof ctl, "no control stored");
	else
		snprintf(ctl, sizeof ctl, "control %+.1f%%", g->control_pct);
	if (isnan(g->cross_pct))
		snprintf(noise, sizeof noise, "too few configurations for their spread");
	else
		snprintf(noise, sizeof noise, "spread over configurations %.1f%%", g->cross_pct);
	snprintf(hist, sizeof hist, "%d earlier night%s (%d change%s a configuration)", g->nights,
		 g->nights == 1 ? "" : "s", g->history_pairs, g->history_pairs == 1 ? "" : "s");
	int n = snprintf(buf, len, "gate: %d and %d rounds, %s; ", g->base_rounds, g->head_rounds,
			 hist);
	if (n < 0 || (size_t)n >= len)
		return;
	if (g->blind) {
		n += snprintf(buf + n, len - (size_t)n,
			      "NO VERDICT: too noisy to judge (unchanged configurations moved by %.1f%%,"
			      " over twice the %g%% threshold: the machine was busy); ",
			      g->cross_pct, threshold_pct);
		if (n < 0 || (size_t)n >= len)
			return;
	}
	if (g->relative) {
		n += snprintf(buf + n, len - (size_t)n,
			      "each run judged against its control (time over the vendor"
			      " baseline timed in the same round): ");
		if (n < 0 || (size_t)n >= len)
			return;
	}
	if (g->machine == (int)GATE_CONTROL_CHANGED)
		n += snprintf(buf + n, len - (size_t)n,
			      "THE CONTROL CHANGED: %d of %zu configurations moved together by %+.1f%%"
			      " against it and the %s on its own: every change judged against"
			      " %+.1f%%",
			      g->moved, compared, g->machine_pct, ctl, g->machine_pct);
	else if (g->machine == (int)GATE_MACHINE_CHANGED)
		n += snprintf(buf + n, len - (size_t)n,
			      "THE MACHINE CHANGED: %d of %zu configurations moved together by %+.1f%%"
			      " and the %s: every change judged against %+.1f%%",
			      g->moved, compared, g->machine_pct, ctl, g->machine_pct);
	else if (g->machine == (int)GATE_CODE_WIDE)
		n += snprintf(buf + n, len - (size_t)n,
			      "%d of %zu configurations moved together by %+.1f%%, %s: not the"
			      " machine, so judged as measured",
			      g->moved, compared, g->machine_pct,
			      isnan(g->control_pct) ? "with no control to tell" : ctl);
	else
		n += snprintf(buf + n, len - (size_t)n,
			      "the machine held (median change %+.1f%%, %s, taken out)", g->machine_pct,
			      ctl);
	if (n < 0 || (size_t)n >= len)
		return;
	n += snprintf(buf + n, len - (size_t)n,
		      "; %s; a change counts above %g%% with p below %.2g (alpha %g over %zu"
		      " configurations)", noise, threshold_pct, g->alpha_each, alpha, compared);
	if (n > 0 && (size_t)n < len && !isnan(g->sees_pct))
		snprintf(buf + n, len - (size_t)n, "; tonight sees changes above about %.0f%%",
			 g->sees_pct);
}
