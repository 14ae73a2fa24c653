/* test_plot_ticks.c: the log-axis ticks of the roofline (src/views/plot_ticks.c):
 * round numbers, labels without exponents at CPU (0.001 TFLOP/s) and GPU
 * (thousands of TFLOP/s, 10^11 multiply-adds) magnitudes. */
#include <stdlib.h>

#include "fgo.h"
#include "testlib.h"
#include "views/plot_ticks.h"

/* The labelled ticks of [lo, hi] in style, space-separated. */
static const char *labels(double lo, double hi, enum plot_tick_style style, char *out, size_t len)
{
	struct plot_tick t[PLOT_TICKS_MAX];
	char one[64];
	size_t n = 0;
	int count = plot_log_ticks(lo, hi, t, PLOT_TICKS_MAX);
	out[0] = '\0';
	for (int i = 0; i < count; i++) {
		if (!t[i].major)
			continue;
		plot_tick_label(t[i].value, style, one, sizeof one);
		n += (size_t)snprintf(out + n, len - n, "%s%s", n ? " " : "", one);
	}
	return out;
}

int main(void)
{
	static const struct {
		const char *id;
		double lo, hi;
		enum plot_tick_style style;
		const char *want;
	} axes[] = {
		/* the CPU backend's throughput: 1-2-5, plain decimals */
		{ "ticks-1.1", 0.0008, 0.03, PLOT_TICKS_PLAIN, "0.001 0.002 0.005 0.01 0.02" },
		/* two H100s: hundreds to thousands, thousands as k (never 4.1e+03) */
		{ "ticks-1.2", 60, 3500, PLOT_TICKS_PLAIN, "100 200 500 1k 2k" },
		/* eight decades: one label a decade */
		{ "ticks-1.3", 0.0005, 20000, PLOT_TICKS_PLAIN, "0.001 0.01 0.1 1 10 100 1k 10k" },
		/* under two thirds of a decade: more mantissas, still round */
		{ "ticks-1.4", 1.2e11, 5.5e11, PLOT_TICKS_POWER,
		  "1.5×10^{11} 2×10^{11} 3×10^{11} 4×10^{11} 5×10^{11}" },
		{ "ticks-1.5", 1e6, 1e11, PLOT_TICKS_POWER,
		  "10^{6} 10^{7} 10^{8} 10^{9} 10^{10} 10^{11}" },
		/* 2-core CPU shapes: 2e6 to 3e7 multiply-adds */
		{ "ticks-1.6", 1.6e6, 4e7, PLOT_TICKS_POWER, "2×10^{6} 5×10^{6} 10^{7} 2×10^{7}" },
		/* counts under 10^4 stay plain */
		{ "ticks-1.7", 900, 60000, PLOT_TICKS_POWER, "1000 2000 5000 10^{4} 2×10^{4} 5×10^{4}" },
		/* twenty decades: every other (or fifth) decade, at most ten labels */
		{ "ticks-1.8", 1e-6, 1e14, PLOT_TICKS_PLAIN, NULL },
	};
	char got[512];
	for (size_t i = 0; i < FGO_ARRAY_SIZE(axes); i++) {
		labels(axes[i].lo, axes[i].hi, axes[i].style, got, sizeof got);
		if (axes[i].want)
			T_EQ_STR(axes[i].id, got, axes[i].want);
	}
	/* ticks-1.8: count the labels of the wide axis; none may read as an exponent */
	struct plot_tick t[PLOT_TICKS_MAX];
	int n = plot_log_ticks(1e-6, 1e14, t, PLOT_TICKS_MAX), major = 0;
	for (int i = 0; i < n; i++)
		major += t[i].major;
	T_CHECK("ticks-1.8", major >= 4 && major <= 10, "expected 4 to 10 labels, got %d", major);
	labels(1e-6, 1e14, PLOT_TICKS_PLAIN, got, sizeof got);
	T_CHECK("ticks-1.9", !strchr(got, 'e'), "expected no exponent in \"%s\"", got);
	/* minor marks carry the grid between labelled decades */
	n = plot_log_ticks(1, 1000, t, PLOT_TICKS_MAX);
	T_CHECK("ticks-1.10", n > 0 && !t[1].major && t[1].value == 2, "expected a minor mark at 2");
	/* a narrow axis (a CPU sweep's runs all near one throughput, padded by
	 * 1.3x each side) widens until it carries 3 labels, then no further */
	double lo = 0.00092, hi = 0.0016;
	plot_log_range(&lo, &hi);
	labels(lo, hi, PLOT_TICKS_PLAIN, got, sizeof got);
	T_CHECK("ticks-1.13", lo < 0.00092 && hi > 0.0016 && hi / lo < 4, "range [%g, %g]", lo, hi);
	int shown = 0;
	for (const char *c = got; *c; c++)
		shown += *c == ' ';
	T_CHECK("ticks-1.14", got[0] && shown + 1 >= 3, "expected 3 labels, got \"%s\"", got);
	lo = 0.0008, hi = 0.03;
	plot_log_range(&lo, &hi);
	T_CHECK("ticks-1.15", lo == 0.0008 && hi == 0.03, "a wide range moved: [%g, %g]", lo, hi);
	T_EQ_INT("ticks-1.11", plot_log_ticks(5, 5, t, PLOT_TICKS_MAX), 0);
	T_EQ_INT("ticks-1.12", plot_log_ticks(0, 5, t, PLOT_TICKS_MAX), 0);

	static const struct {
		const char *id;
		double v;
		enum plot_tick_style style;
		const char *want;
	} one[] = {
		{ "label-1.1", 0.0015, PLOT_TICKS_PLAIN, "0.0015" },
		{ "label-1.2", 1500, PLOT_TICKS_PLAIN, "1.5k" },
		{ "label-1.3", 4096, PLOT_TICKS_PLAIN, "4.1k" },
		{ "label-1.4", 2e9, PLOT_TICKS_POWER, "2×10^{9}" },
		{ "label-1.5", 1e12, PLOT_TICKS_POWER, "10^{12}" },
		{ "label-1.6", 0.5, PLOT_TICKS_PLAIN, "0.5" },
	};
	for (size_t i = 0; i < FGO_ARRAY_SIZE(one); i++) {
		plot_tick_label(one[i].v, one[i].style, got, sizeof got);
		T_EQ_STR(one[i].id, got, one[i].want);
	}
	static const struct {
		const char *id;
		double v;
		const char *want;
	} numbers[] = {
		{ "number-1.1", 1070.4, "1070" },
		{ "number-1.2", 786.4, "786" },
		{ "number-1.3", 0.010712, "0.0107" },
		{ "number-1.4", 4.1, "4.10" },
	};
	for (size_t i = 0; i < FGO_ARRAY_SIZE(numbers); i++) {
		plot_number(numbers[i].v, 3, got, sizeof got);
		T_EQ_STR(numbers[i].id, got, numbers[i].want);
	}
	T_DONE();
}
