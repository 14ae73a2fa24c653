/* plot.h: turning a data file into PNG and SVG with gnuplot: fills a
 * template from plots/ (embedded in the binary) and runs gnuplot on it. */
#ifndef FGO_PLOT_H
#define FGO_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "atomic_file.h"

/* One @NAME@ field of a template and its text. */
struct plot_field {
	const char *name;  /* without the @s, e.g. "TITLE" */
	const char *value;
};

/* Opens a temporary for DIR/BASE.dat (write to af->f); plot_commit_data
 * renames it into place, plot_abort_data removes it. FGO_OK, or an error
 * code with err. */
int plot_open_data(const char *dir, const char *base, struct atomic_file *af, char *err,
		   size_t len);
int plot_commit_data(struct atomic_file *af, char *err, size_t len);
void plot_abort_data(struct atomic_file *af);

/* Fills template (e.g. "plots/roofline.gp") with fields plus DAT, PNG and SVG
 * (BASE.dat, .png, .svg: bare names, gnuplot runs in DIR), writes DIR/BASE.gp
 * and runs gnuplot on it, its images going to temporaries renamed over
 * DIR/BASE.png and .svg. BASE must be file-safe (sink_filename) and every
 * text in fields must have passed through sink_plot (a backquote is refused).
 * FGO_OK, or FGO_EFAIL with err (no gnuplot, gnuplot failed, no PNG written). */
int plot_render(const char *template_path, const char *dir, const char *base,
		const struct plot_field *fields, int nfields, char *err, size_t len);

#endif
