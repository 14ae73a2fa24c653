/* plot_ticks.h: tick marks and labels of a log axis, chosen by fgobench
 * rather than gnuplot: gnuplot's own log ticks step by factors the data
 * suggest (4096, 2048, ...) and print them as 4.1e+03, while a reader of a
 * roofline expects round numbers (1, 2, 5 times a power of ten) written
 * the way people write them, at any magnitude (0.002 TFLOP/s on a CPU,
 * 2k on eight GPUs). */
#ifndef FGO_PLOT_TICKS_H
#define FGO_PLOT_TICKS_H

#include <stddef.h>
#include <stdio.h>

/* How an axis's labels are written. */
enum plot_tick_style {
	PLOT_TICKS_PLAIN, /* 0.002, 0.5, 50, 500, 1k, 2k: small or moderate quantities (TFLOP/s) */
	PLOT_TICKS_POWER, /* 5000, 10^{6}, 2×10^{9} (gnuplot enhanced text): counts over many decades */
};

struct plot_tick {
	double value;
	int major; /* 1: labelled, 0: a minor mark (unlabelled) */
};

#define PLOT_TICKS_MAX 128

/* The ticks of a log axis from lo to hi (0 < lo < hi): the sparsest of
 * 1, 1-2-5, 1-2-3-5 and 1-1.5-2-3-...-8 per decade that gives at least 4
 * labels, or every k-th decade when even one a decade gives more than 10;
 * minor marks at the other whole mantissas when decades are labelled one
 * by one. Writes at most max into t; returns how many were written. */
int plot_log_ticks(double lo, double hi, struct plot_tick *t, int max);

/* The label of a tick value v > 0 in style: see enum plot_tick_style.
 * Values on plot_log_ticks' grid print exactly; others to 3 digits. */
void plot_tick_label(double v, enum plot_tick_style style, char *out, size_t len);

/* v to sig significant digits without an exponent: 1070, 786, 0.0107
 * (for titles and legends, where 1.07e+03 reads badly). */
void plot_number(double v, int sig, char *out, size_t len);

/* Widens [lo, hi] evenly on a log scale, where it is too narrow for 3
 * labels of the densest mantissas, until it holds them; else leaves it. */
void plot_log_range(double *lo, double *hi);

/* Writes "set Xrange [lo:hi]" and "set Xtics (...)" (X is axis: "x" or
 * "y") with plot_log_ticks' marks labelled in style, the range widened by
 * plot_log_range first. Only numbers and fgobench's own label text reach
 * out. */
void plot_log_axis(FILE *out, const char *axis, double lo, double hi,
		   enum plot_tick_style style);

#endif
