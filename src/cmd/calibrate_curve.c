/* calibrate_curve.c: the vendor collective's curve of `fgobench calibrate`
 * (see calibrate.h): the sizes, the groups of W ranks, the table and
 * the store. The backend times the calls (backend.h's collective_curve:
 * NCCL on GPUs, MPI on CPU). */
#include "cmd/calibrate.h"

#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "fgo.h"
#include "views/table.h"
#include "views/views.h"

/* A heap only for its communicator and what the backend learns opening it
 * (on GPUs: whether ranks share a device, and the NCCL communicator); the
 * buffers are the backend's own. */
#define CURVE_HEAP_BYTES ((size_t)64 << 10)

/* The curves of group (the first W ranks of rank 0's node) into out on
 * rank 0. Returns the failures; *unlinked set when the group has no real
 * link (said on rank 0). */
static int measure_group(const struct fgo_backend *be, struct fgo_backend_ctx *ctx, MPI_Comm group,
			 int world, int gpu, size_t max_bytes, struct calibrate_curves *out,
			 int *unlinked)
{
	struct fgo_heap heap;
	char err[FGO_REASON_MAX] = "", method[256] = "";
	int grank, failures = 0;
	MPI_Comm_rank(group, &grank);
	if (be->heap_alloc(ctx, group, CURVE_HEAP_BYTES, &heap, err, sizeof err) != FGO_OK) {
		if (grank == 0)
			warning("collective curve at W=%d not measured: %s", world, err);
		return 1;
	}
	size_t sizes[CURVE_POINTS];
	int n = coll_curve_sizes(max_bytes, gpu ? CURVE_STEP_GPU : CURVE_STEP_CPU, CURVE_POINTS,
				 (size_t)64 * (size_t)world, sizes);
	for (int k = 0; k < FGO_COLLECTIVES && !*unlinked; k++) {
		double seconds[CURVE_POINTS];
		int rc = be->collective_curve(ctx, &heap, (enum fgo_collective)k, sizes, n, out->reps,
					      seconds, method, sizeof method, err, sizeof err);
		if (rc == FGO_EUNAVAILABLE) {
			*unlinked = 1;
			if (grank == 0)
				note("collective curves at W=%d not measured or stored: %s", world, err);
		} else if (rc != FGO_OK) {
			failures++;
			if (grank == 0)
				warning("the %s curve at W=%d was not measured: %s", fgo_collective_names[k],
					world, err);
		} else if (grank == 0 && out->n < COLL_CURVES_MAX) {
			int i = out->n++;
			out->c[i].kind = (enum fgo_collective)k;
			out->c[i].world = world;
			out->c[i].points = n;
			for (int p = 0; p < n; p++) {
				out->c[i].bytes[p] = (double)sizes[p];
				out->c[i].seconds[p] = seconds[p];
			}
			snprintf(out->c[i].method, sizeof out->c[i].method, "%s", method);
		}
	}
	be->heap_free(ctx, &heap);
	return grank == 0 ? failures : 0;
}

int calibrate_lead_node(MPI_Comm node)
{
	int rank, nrank, nsize, lead, most = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_rank(node, &nrank);
	MPI_Comm_size(node, &nsize);
	/* rank 0's node only: the runner's groups never cross a node either */
	lead = rank;
	MPI_Bcast(&lead, 1, MPI_INT, 0, node);
	int mine = lead == 0 ? nsize : 0;
	MPI_Allreduce(&mine, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return most;
}

MPI_Comm calibrate_group(MPI_Comm node, int world)
{
	int rank, nrank, lead;
	MPI_Comm group;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_rank(node, &nrank);
	lead = rank;
	MPI_Bcast(&lead, 1, MPI_INT, 0, node);
	MPI_Comm_split(MPI_COMM_WORLD, lead == 0 && nrank < world ? 0 : MPI_UNDEFINED, rank, &group);
	return group;
}

int calibrate_curves_measure(const struct fgo_backend *be, struct fgo_backend_ctx *ctx,
			     MPI_Comm node, int gpu, size_t max_bytes, struct calibrate_curves *out)
{
	int failures = 0, unlinked = 0;
	memset(out, 0, sizeof *out);
	out->reps = gpu ? CURVE_REPS_GPU : CURVE_REPS_CPU;
	if (!be->collective_curve)
		return 0;
	if (!max_bytes)
		max_bytes = gpu ? CURVE_MAX_GPU : CURVE_MAX_CPU;
	int most = calibrate_lead_node(node);
	for (int w = 2; w <= most; w++) {
		MPI_Comm group = calibrate_group(node, w);
		if (group == MPI_COMM_NULL)
			continue;
		unlinked = 0;
		failures += measure_group(be, ctx, group, w, gpu, max_bytes, out, &unlinked);
		MPI_Comm_free(&group);
	}
	return failures;
}

/* bytes as a column head: "8 KiB", "2 MiB" */
static void size_head(double b, char *out, size_t len)
{
	if (b >= 1 << 20)
		snprintf(out, len, "%g MiB", b / (1 << 20));
	else
		snprintf(out, len, "%g KiB", b / 1024);
}

void calibrate_curves_print(const struct calibrate_curves *c)
{
	if (c->n == 0)
		return;
	const char *headers[CURVE_POINTS + 3];
	char heads[CURVE_POINTS][32];
	int np = c->c[0].points;
	headers[0] = "collective";
	headers[1] = "W";
	for (int p = 0; p < np; p++) {
		size_head(c->c[0].bytes[p], heads[p], sizeof heads[p]);
		headers[p + 2] = heads[p];
	}
	headers[np + 2] = "busbw GB/s";
	struct fgo_table *t = table_new(np + 3, headers);
	for (int i = 0; t && i < c->n; i++) {
		table_add(t, "%s", fgo_collective_names[c->c[i].kind]);
		table_add(t, "%d", c->c[i].world);
		for (int p = 0; p < np; p++)
			table_add(t, p < c->c[i].points ? "%.1f" : "-", c->c[i].seconds[p] * 1e6);
		int last = c->c[i].points - 1;
		table_add(t, "%.2f", c->c[i].bytes[last] / c->c[i].seconds[last] / 1e9 *
					     coll_bus_factor(c->c[i].kind, c->c[i].world));
	}
	printf("\n");
	view_print_wrapped(stdout, "", "vendor collective, us against the whole buffer (sizes rounded"
			   " down to 64 x W bytes; busbw at the largest, as nccl-tests counts it):",
			   0, FGO_TABLE_COLUMNS);
	for (int i = 0; i < c->n; i++) { /* each collective's method once */
		int seen = 0;
		for (int j = 0; j < i; j++)
			seen |= !strcmp(c->c[j].method, c->c[i].method);
		if (!seen)
			view_print_wrapped(stdout, "  ", c->c[i].method, 4, FGO_TABLE_COLUMNS);
	}
	if (t && table_print(t, FGO_FMT_TABLE, stdout) != 0)
		warning("writing the collective curves to stdout failed");
	printf("\n");
	table_free(t);
}

int calibrate_curves_store(struct fgo_store *st, const char *host, const char *backend,
			   const char *devices, const struct calibrate_curves *c, char *err,
			   size_t len)
{
	int rc = FGO_OK;
	for (int i = 0; i < c->n && rc == FGO_OK; i++)
		rc = store_coll_curve_put(st, host, backend, devices, fgo_collective_names[c->c[i].kind],
					  c->c[i].world, c->c[i].method, c->reps, c->c[i].bytes,
					  c->c[i].seconds, c->c[i].points, err, len);
	return rc;
}
