/* history_plot.c: the time-series plot of `fgobench history`: the nights'
 * sample quartiles and the fitted levels as gnuplot data, the night labels
 * and step markers as template fields (plots/history.gp). */
#include "views/history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "sink.h"
#include "views/plot.h"
#include "views/views.h"

/* Tick labels at most this many, so dates stay readable on a long history. */
#define LABELS_MAX 16

/* A night's label: its tag, else its date and sweep id. */
static void night_label(const struct history_night *n, char *out, size_t len)
{
	char text[128];
	if (n->tag[0])
		snprintf(text, sizeof text, "%s", n->tag);
	else
		snprintf(text, sizeof text, "%.10s #%lld", n->started, (long long)n->sweep_id);
	sink_plot(text, out, len); /* a stored tag: data for gnuplot, never code */
}

static int write_data(const struct history *h, FILE *dat)
{
	fprintf(dat, "# night median_ms q1_ms q3_ms low_ms high_ms  (whiskers: the most extreme samples"
		     " within 1.5 IQR; then sweep, tag, configuration)\n");
	for (size_t i = 0; i < h->count; i++) {
		const struct history_night *n = &h->nights[i];
		char tile[96], tag[128];
		view_tile_text(&n->cfg, tile, sizeof tile);
		sink_plot(n->tag, tag, sizeof tag); /* a newline would start a data row */
		fprintf(dat, "%zu %.6g %.6g %.6g %.6g %.6g  # sweep %lld %s %s\n", i + 1, n->median, n->q1,
			n->q3, n->low, n->high, (long long)n->sweep_id, tag, tile);
	}
	/* index 1: each segment of the fit as one horizontal line */
	fprintf(dat, "\n\n# fitted level: one line per segment\n");
	for (size_t i = 0; i < h->count; i++) {
		if (i > 0 && h->nights[i].level != h->nights[i - 1].level)
			fputc('\n', dat);
		fprintf(dat, "%.1f %.6g\n%.1f %.6g\n", (double)i + 0.5, h->nights[i].level,
			(double)i + 1.5, h->nights[i].level);
	}
	return ferror(dat) ? FGO_EFAIL : FGO_OK;
}

/* The x tics (night labels) and the y range: the whiskers and the fit,
 * with a margin, so a far outlier (left out of the whiskers) cannot
 * flatten the boxes, and a small step is not lost against zero. */
static void write_axes(const struct history *h, FILE *f)
{
	size_t stride = (h->count + LABELS_MAX - 1) / LABELS_MAX;
	char label[128];
	if (stride == 0)
		stride = 1;
	fprintf(f, "set xrange [0.5:%zu.5]\nset xtics (", h->count);
	for (size_t i = 0; i < h->count; i++) {
		/* every stride-th night, and every night where a step starts */
		if (i % stride != 0 && !h->nights[i].step)
			continue;
		night_label(&h->nights[i], label, sizeof label);
		fprintf(f, "%s'%s' %zu", i ? ", " : "", label, i + 1);
	}
	fprintf(f, ")\n");
	double lo = h->nights[0].low, hi = h->nights[0].high;
	for (size_t i = 0; i < h->count; i++) {
		const struct history_night *n = &h->nights[i];
		lo = n->low < lo ? n->low : lo;
		lo = n->level < lo ? n->level : lo;
		hi = n->high > hi ? n->high : hi;
		hi = n->level > hi ? n->level : hi;
	}
	double pad = hi > lo ? 0.12 * (hi - lo) : 0.05 * (hi > 0 ? hi : 1);
	fprintf(f, "set yrange [%.6g:%.6g]\n", lo - pad > 0 ? lo - pad : 0, hi + pad);
}

static void write_steps(const struct history *h, FILE *f)
{
	for (size_t j = 0; j < h->nsteps; j++) {
		const struct cp_step *s = &h->steps[j];
		double x = (double)s->at + 0.5; /* between the last old night and the first new one */
		fprintf(f, "set arrow from %.1f, graph 0 to %.1f, graph 1 nohead dt 2 lw 1.5"
			   " lc rgb \"#d62728\"\n", x, x);
		fprintf(f, "set label \"%+.1f%%\" at %.1f, graph 0.96 left offset 0.4, 0"
			   " textcolor rgb \"#d62728\" noenhanced\n", s->change_pct, x);
	}
}

int history_plot(const struct history *h, const struct history_query *q, const char *dir,
		 char *png, size_t png_len, char *err, size_t len)
{
	char base[256], tile[96] = "", title[640], spec[128], host[128], algo[96], dtype[32];
	struct atomic_file af;
	char *tics = NULL, *steps = NULL;
	size_t tics_len = 0, steps_len = 0;
	int rc;

	if (q->config && strcmp(q->config, "best") != 0)
		view_tile_text(&h->nights[0].cfg, tile, sizeof tile);
	snprintf(base, sizeof base, "history_w%d_%s_%s_%ldx%ldx%ld_%s", h->world, q->algorithm,
		 h->dtype, q->m, q->n, q->k, tile[0] ? tile : "best");
	sink_filename(base, base, sizeof base);

	if ((rc = plot_open_data(dir, base, &af, err, len)) != FGO_OK)
		return rc;
	if (write_data(h, af.f) != FGO_OK) {
		plot_abort_data(&af);
		snprintf(err, len, "cannot write %s/%s.dat", dir, base);
		return FGO_EFAIL;
	}
	if ((rc = plot_commit_data(&af, err, len)) != FGO_OK)
		return rc;
	FILE *t = open_memstream(&tics, &tics_len);
	FILE *s = open_memstream(&steps, &steps_len);
	if (t)
		write_axes(h, t);
	if (s)
		write_steps(h, s);
	if (t)
		fclose(t);
	if (s)
		fclose(s);
	if (!t || !s) {
		snprintf(err, len, "out of memory drawing %s", base);
		free(tics);
		free(steps);
		return FGO_EFAIL;
	}
	sink_plot(h->spec_name[0] ? h->spec_name : h->spec_hash, spec, sizeof spec);
	sink_plot(h->host, host, sizeof host);
	sink_plot(q->algorithm, algo, sizeof algo);
	sink_plot(h->dtype, dtype, sizeof dtype);
	snprintf(title, sizeof title,
		 "fgobench history: %s %s, world %d, %ldx%ldx%ld, %s; spec %s on %s; %zu nights"
		 " (oldest left), %zu step%s above %g%%", algo, dtype, h->world, q->m, q->n, q->k,
		 tile[0] ? tile : "best configuration of each night", spec, host,
		 h->count, h->nsteps, h->nsteps == 1 ? "" : "s", q->threshold_pct);
	struct plot_field f[] = { { "TITLE", title }, { "XTICS", tics }, { "STEPS", steps } };
	rc = plot_render("plots/history.gp", dir, base, f, 3, err, len);
	if (rc == FGO_OK)
		snprintf(png, png_len, "%s/%s.png", dir, base);
	free(tics);
	free(steps);
	return rc;
}
