/* plot_timeline.c: `fgobench plot timeline FILE`: a trace-event JSON
 * (`run --trace`) drawn with gnuplot, one row per CTA and lane, ranks
 * stacked, one colour per event kind. The data file holds numbers only;
 * the title, the one text from the file's name, goes through sink_plot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "sink.h"
#include "trace/timeline.h"
#include "views/plot.h"
#include "views/plot_kinds.h"


void plot_timeline_base(const char *file, char *out, size_t len)
{
	const char *slash = strrchr(file, '/');
	char name[200];
	snprintf(name, sizeof name, "%s", slash ? slash + 1 : file);
	size_t n = strlen(name);
	if (n > 5 && !strcmp(name + n - 5, ".json"))
		name[n - 5] = 0;
	char safe[200];
	sink_filename(name[0] ? name : "trace", safe, sizeof safe);
	snprintf(out, len, "timeline_%s", safe);
}

int plot_timeline(const char *file, const char *dir)
{
	struct fgo_spans sp;
	struct atomic_file af;
	char err[1024], base[256];
	int world = 0, rc;

	if ((rc = trace_json_read(file, &sp, &world, err, sizeof err)) != FGO_OK) {
		error("%s", err);
		return rc;
	}
	size_t *order = malloc(sp.n * sizeof *order);
	if (!order) {
		trace_spans_free(&sp);
		error("out of memory drawing %s", file);
		return FGO_EFAIL;
	}
	for (size_t i = 0; i < sp.n; i++)
		order[i] = i;
	qsort_r(order, sp.n, sizeof *order, trace_span_by_track, sp.s);
	double t_min = sp.s[0].t0;
	for (size_t i = 0; i < sp.n; i++)
		if (sp.s[i].t0 < t_min)
			t_min = sp.s[i].t0;

	plot_timeline_base(file, base, sizeof base);
	rc = plot_open_data(dir, base, &af, err, sizeof err);
	/* rows: one per track, a blank row between ranks; y tics name each
	 * rank's first row and about a dozen CTAs of it */
	char ytics[4096];
	size_t at = (size_t)snprintf(ytics, sizeof ytics, "set ytics (");
	int row = -1, tracks = 0, first_tic = 1;
	for (size_t k = 0; rc == FGO_OK && k < sp.n; k++) {
		const struct fgo_span *s = &sp.s[order[k]];
		int new_track = k == 0 || trace_span_by_track(&order[k - 1], &order[k], sp.s) != 0;
		int new_rank = k == 0 || sp.s[order[k - 1]].rank != s->rank;
		if (new_track) {
			row += new_rank && k > 0 ? 2 : 1;
			tracks++;
		}
		if (new_track && at < sizeof ytics - 64) {
			/* how many rows this rank has: count ahead once per rank */
			static int rank_rows, rank_row0;
			if (new_rank) {
				rank_rows = 0;
				rank_row0 = row;
				for (size_t j = k; j < sp.n && sp.s[order[j]].rank == s->rank; j++)
					rank_rows += j == k || trace_span_by_track(&order[j - 1], &order[j], sp.s) != 0;
			}
			int step = rank_rows > 12 ? (rank_rows + 11) / 12 : 1;
			if (new_rank || ((row - rank_row0) % step == 0 && s->lane == 0)) {
				if (new_rank)
					at += (size_t)snprintf(ytics + at, sizeof ytics - at,
							       "%s\"rank %d CTA %d\" %d", first_tic ? "" : ", ",
							       s->rank, s->cta, row);
				else
					at += (size_t)snprintf(ytics + at, sizeof ytics - at,
							       "%s\"CTA %d\" %d", first_tic ? "" : ", ", s->cta,
							       row);
				first_tic = 0;
			}
		}
		fprintf(af.f, "%d %.4f %.4f %d\n", row, s->t0 - t_min, s->t1 - t_min, s->kind);
	}
	snprintf(ytics + at, sizeof ytics - at, ")");
	free(order);
	if (rc == FGO_OK)
		rc = plot_commit_data(&af, err, sizeof err);
	if (rc == FGO_OK) {
		char title[400], shown[256], ymax[32], height[32];
		const char *slash = strrchr(file, '/');
		sink_plot(slash ? slash + 1 : file, shown, sizeof shown);
		snprintf(title, sizeof title, "%s: %d rank%s, %d rows (CTA x lane), %zu spans", shown, world,
			 world == 1 ? "" : "s", tracks, sp.n);
		snprintf(ymax, sizeof ymax, "%d", row + 1);
		/* a readable row height, within what an image viewer shows */
		int h = 260 + 12 * (row + 1);
		snprintf(height, sizeof height, "%d", h < 600 ? 600 : h > 3200 ? 3200 : h);
		const struct plot_field fields[] = {
			{ "TITLE", title }, { "YMAX", ymax }, { "YTICS", ytics }, { "HEIGHT", height },
		};
		rc = plot_render("plots/timeline.gp", dir, base, fields, (int)FGO_ARRAY_SIZE(fields),
				 err, sizeof err);
	}
	if (rc != FGO_OK)
		error("%s", err);
	else
		printf("%s/%s.png\n%s/%s.svg\n", dir, base, dir, base);
	trace_spans_free(&sp);
	return rc;
}
