/* calibrate_egress.c: the link egress of `fgobench calibrate` (see
 * calibrate.h): every rank of W writing to all its peers at once, the
 * rate a fused kernel's link side can reach, for W = 2 up to the ranks of
 * rank 0's node. sol measures the link side against it (runner.c): a
 * pair's rate counted once per peer is a ceiling no run reaches where the
 * links share a device's ports (issue 51). */
#include "cmd/calibrate.h"

#include <stdio.h>
#include <string.h>

#include "fgo.h"
#include "views/table.h"
#include "views/views.h"

/* The egress of group (the first W ranks of rank 0's node) into out on
 * rank 0. Returns the failures (on rank 0). */
static int measure_group(const struct fgo_backend *be, struct fgo_backend_ctx *ctx, MPI_Comm group,
			 int world, int gpu, struct calibrate_egress *out)
{
	struct fgo_heap heap;
	char err[FGO_REASON_MAX] = "";
	int grank;
	double mine = 0, slowest = 0;
	MPI_Comm_rank(group, &grank);
	if (be->heap_alloc(ctx, group, gpu ? EGRESS_HEAP_GPU : EGRESS_HEAP_CPU, &heap, err,
			   sizeof err) != FGO_OK) {
		if (grank == 0)
			warning("link egress at W=%d not measured: %s", world, err);
		return grank == 0;
	}
	int rc = be->link_egress(ctx, &heap, &mine, err, sizeof err);
	be->heap_free(ctx, &heap);
	/* the backend agreed the code over the group; the rate is the slowest rank's */
	double v = rc == FGO_OK ? mine : 0;
	MPI_Allreduce(&v, &slowest, 1, MPI_DOUBLE, MPI_MIN, group);
	if (grank != 0)
		return 0;
	if (rc == FGO_EUNAVAILABLE) {
		note("link egress at W=%d not measured or stored: %s", world, err);
		return 0;
	}
	if (rc != FGO_OK || !(slowest > 0)) {
		warning("link egress at W=%d not measured: %s", world, err[0] ? err : "no rate");
		return 1;
	}
	out->world[out->n] = world;
	out->gbps[out->n++] = slowest;
	return 0;
}

int calibrate_egress_measure(const struct fgo_backend *be, struct fgo_backend_ctx *ctx,
			     MPI_Comm node, int gpu, struct calibrate_egress *out)
{
	int failures = 0;
	memset(out, 0, sizeof *out);
	if (!be->link_egress)
		return 0;
	int most = calibrate_lead_node(node);
	for (int w = 2; w <= most && w <= FGO_EGRESS_W_MAX; w++) {
		MPI_Comm group = calibrate_group(node, w);
		if (group == MPI_COMM_NULL)
			continue;
		failures += measure_group(be, ctx, group, w, gpu, out);
		MPI_Comm_free(&group);
	}
	return failures;
}

void calibrate_egress_print(const struct calibrate_egress *e)
{
	static const char *const headers[] = { "W", "egress GB/s", "(W-1) x pair GB/s", "ratio" };
	if (e->n == 0)
		return;
	struct fgo_table *t = table_new(4, headers);
	for (int i = 0; t && i < e->n; i++) {
		double pairs = (e->world[i] - 1) * e->pair_gbps;
		table_add(t, "%d", e->world[i]);
		table_add(t, "%.1f", e->gbps[i]);
		table_add(t, pairs > 0 ? "%.1f" : "-", pairs);
		table_add(t, pairs > 0 ? "%.2f" : "-", pairs > 0 ? e->gbps[i] / pairs : 0.0);
	}
	view_print_wrapped(stdout, "", "link egress, GB/s a rank: every rank of W writes into all its"
			   " peers at once (half the heap over W into each; best of 5, the slowest"
			   " rank); sol bounds a run's bytes to all peers by it:", 0,
			   FGO_TABLE_COLUMNS);
	if (t && table_print(t, FGO_FMT_TABLE, stdout) != 0)
		warning("writing the link egress to stdout failed");
	printf("\n");
	table_free(t);
}

int calibrate_egress_store(struct fgo_store *st, const char *host, const char *backend,
			   const struct calibrate_egress *e, char *err, size_t len)
{
	for (int i = 0; i < e->n; i++) {
		char detail[32];
		ceilings_egress_detail(e->world[i], detail, sizeof detail);
		int rc = store_ceiling_put_detail(st, host, backend, "link_bw", "", detail, e->gbps[i],
						  "GB/s", err, len);
		if (rc != FGO_OK)
			return rc;
	}
	return FGO_OK;
}
