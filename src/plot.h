/* plot.h: turning a data file into PNG and SVG with gnuplot: fills a
 * template from plots/ (embedded in the binary) and runs gnuplot on it. */
#ifndef FGO_PLOT_H
#define FGO_PLOT_H

#include <stddef.h>
#include <stdio.h>

/* One @NAME@ field of a template and its text. */
struct plot_field {
	const char *name;  /* without the @s, e.g. "TITLE" */
	const char *value;
};

/* Opens DIR/BASE.dat for writing; NULL with err on failure. */
FILE *plot_open_data(const char *dir, const char *base, char *err, size_t len);

/* Fills template (e.g. "plots/roofline.gp") with fields plus DAT, PNG and SVG
 * (DIR/BASE.dat, .png, .svg), writes DIR/BASE.gp and runs gnuplot on it.
 * FGO_OK, or FGO_EFAIL with err (no gnuplot, gnuplot failed, no PNG written). */
int plot_render(const char *template_path, const char *dir, const char *base,
		const struct plot_field *fields, int nfields, char *err, size_t len);

/* Copies s into out with characters that would end a gnuplot string removed. */
void plot_quote(const char *s, char *out, size_t len);

#endif
