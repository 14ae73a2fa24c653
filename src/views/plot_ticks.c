/* plot_ticks.c: log-axis ticks on round numbers and labels people read
 * (plot_ticks.h says why fgobench chooses them, not gnuplot). */
#include "views/plot_ticks.h"

#include <math.h>
#include <string.h>

/* Mantissas per decade, sparsest first: the first set that labels the
 * axis at least MIN_LABELS times is used, so a narrow range still reads. */
static const double m_one[] = { 1 };
static const double m_125[] = { 1, 2, 5 };
static const double m_1235[] = { 1, 2, 3, 5 };
static const double m_dense[] = { 1, 1.5, 2, 3, 4, 5, 6, 7, 8 };
/* every mark a decade can carry, labelled or not */
static const double m_all[] = { 1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9 };

static const struct mantissas {
	const double *m;
	int n;
} sets[] = {
	{ m_one, 1 },
	{ m_125, 3 },
	{ m_1235, 4 },
	{ m_dense, 9 },
};

#define MIN_LABELS 4
#define MAX_LABELS 10
#define REL_EPS 1e-9

static int in_range(double v, double lo, double hi)
{
	return v >= lo * (1 - REL_EPS) && v <= hi * (1 + REL_EPS);
}

static int is_in(double m, const struct mantissas *s)
{
	for (int i = 0; i < s->n; i++)
		if (s->m[i] == m)
			return 1;
	return 0;
}

/* Visits every decade 10^e that can hold a value in [lo, hi]. */
#define FOR_DECADES(e, lo, hi)                                                              \
	for (int e = (int)floor(log10(lo)) - 1; e <= (int)ceil(log10(hi)) + 1; e++)

static int decade_kept(int e, int step)
{
	return ((e % step) + step) % step == 0;
}

/* Labels of set s in every step-th decade within [lo, hi]. */
static int count_labels(double lo, double hi, const struct mantissas *s, int step)
{
	int n = 0;
	FOR_DECADES(e, lo, hi)
		for (int i = 0; decade_kept(e, step) && i < s->n; i++)
			n += in_range(s->m[i] * pow(10, e), lo, hi);
	return n;
}

static int add(struct plot_tick *t, int n, int max, double v, int major)
{
	if (n < max)
		t[n++] = (struct plot_tick){ v, major };
	return n;
}

int plot_log_ticks(double lo, double hi, struct plot_tick *t, int max)
{
	const struct mantissas *s = &sets[0];
	int step = 1, n = 0;
	if (!(lo > 0 && hi > lo) || !isfinite(lo) || !isfinite(hi))
		return 0;
	/* wide: one label every step decades; narrow: more mantissas */
	while (count_labels(lo, hi, s, step) > MAX_LABELS)
		step = step < 3 ? step + 1 : step < 5 ? 5 : step * 2;
	for (size_t i = 0; step == 1 && i < sizeof sets / sizeof sets[0]; i++) {
		s = &sets[i];
		if (count_labels(lo, hi, s, 1) >= MIN_LABELS)
			break;
	}
	FOR_DECADES(e, lo, hi) {
		for (int i = 0; i < 10; i++) {
			double m = m_all[i], v = m * pow(10, e);
			if (!in_range(v, lo, hi))
				continue;
			if (decade_kept(e, step) && is_in(m, s))
				n = add(t, n, max, v, 1);
			else if (m != 1.5 && (step == 1 || m == 1))
				n = add(t, n, max, v, 0); /* the minor grid: whole mantissas, or skipped decades */
		}
	}
	return n;
}

/* v with the fewest decimals (up to 3 significant digits) that write it
 * exactly; 0 when none does. */
static int exact_decimal(double v, char *out, size_t len)
{
	int most = 2 - (int)floor(log10(v) + REL_EPS);
	for (int d = 0; d <= (most > 0 ? most : 0); d++) {
		double p = pow(10, d);
		if (fabs(round(v * p) / p - v) <= 1e-6 * v) {
			snprintf(out, len, "%.*f", d, v);
			return 1;
		}
	}
	return 0;
}

void plot_number(double v, int sig, char *out, size_t len)
{
	if (!(v > 0) || !isfinite(v)) {
		snprintf(out, len, "%g", v);
		return;
	}
	int d = sig - 1 - (int)floor(log10(v) + REL_EPS);
	snprintf(out, len, "%.*f", d > 0 ? d : 0, v);
}

/* Off the grid, 3 digits without trailing zeros: 4.1k for 4096. */
static void plain(double v, char *out, size_t len)
{
	if (exact_decimal(v, out, len))
		return;
	plot_number(v, 3, out, len);
	char *end = out + strlen(out);
	while (strchr(out, '.') && end > out && (end[-1] == '0' || end[-1] == '.'))
		*--end = '\0';
}

void plot_tick_label(double v, enum plot_tick_style style, char *out, size_t len)
{
	char m[32];
	if (!(v > 0) || !isfinite(v)) {
		snprintf(out, len, "%g", v);
		return;
	}
	if (style == PLOT_TICKS_PLAIN) {
		/* thousands as k: 1k, 2k, 5k read at a glance; 1000 2000 5000 less so */
		plain(v >= 1000 ? v / 1000 : v, m, sizeof m);
		snprintf(out, len, "%s%s", m, v >= 1000 ? "k" : "");
		return;
	}
	if (v < 10000) {
		plain(v, out, len);
		return;
	}
	int e = (int)floor(log10(v) + REL_EPS);
	plain(v / pow(10, e), m, sizeof m);
	if (strcmp(m, "1") == 0)
		snprintf(out, len, "10^{%d}", e);
	else
		snprintf(out, len, "%s×10^{%d}", m, e);
}

/* The fewest labels an axis shows: where the data span less than the
 * densest mantissas can mark that often (every run of a CPU sweep at
 * about one throughput under ASan on a busy VM: 0.001 and 0.0015 alone),
 * the range widens evenly on a log scale until they do. */
#define AXIS_LABELS 3

void plot_log_range(double *lo, double *hi)
{
	const struct mantissas *dense = &sets[sizeof sets / sizeof sets[0] - 1];
	if (!(*lo > 0 && *hi > *lo) || !isfinite(*lo) || !isfinite(*hi))
		return;
	for (int i = 0; i < 32 && count_labels(*lo, *hi, dense, 1) < AXIS_LABELS; i++) {
		*lo /= 1.1;
		*hi *= 1.1;
	}
}

void plot_log_axis(FILE *out, const char *axis, double lo, double hi,
		   enum plot_tick_style style)
{
	struct plot_tick t[PLOT_TICKS_MAX];
	char label[64];
	plot_log_range(&lo, &hi);
	int n = plot_log_ticks(lo, hi, t, PLOT_TICKS_MAX);
	if (n == 0)
		return; /* no range to mark: gnuplot's own ticks */
	fprintf(out, "set %srange [%.6g:%.6g]\nset %stics (", axis, lo, hi, axis);
	for (int i = 0; i < n; i++) {
		if (t[i].major)
			plot_tick_label(t[i].value, style, label, sizeof label);
		fprintf(out, "%s\"%s\" %.6g%s", i ? ", " : "", t[i].major ? label : "", t[i].value,
			t[i].major ? "" : " 1");
	}
	fprintf(out, ")\n");
}
