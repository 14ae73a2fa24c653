/* calibrate_floor.c: the read floor of `fgobench calibrate` (see
 * calibrate.h): the backend's fastest streaming read of N bytes at sizes
 * from 1 MiB up, the slowest rank's on GPUs, and its table. */
#include <stdio.h>
#include <string.h>

#include "cmd/calibrate.h"
#include "cmd/cmd.h"
#include "fgo.h"
#include "views/table.h"
#include "views/views.h"

int calibrate_floor_measure(const struct fgo_backend *be, struct fgo_backend_ctx *ctx, int rank,
			    int gpu, long max_mib, struct floor_results *fl)
{
	char err[FGO_REASON_MAX] = "";
	double mine[FLOOR_POINTS_MAX] = { 0 };
	int ok = 1, all_ok = 0, measures = gpu || rank == 0;

	fl->n = floor_sizes((size_t)max_mib << 20, fl->bytes, FLOOR_POINTS_MAX);
	fl->reps = gpu ? FLOOR_REPS_GPU : FLOOR_REPS_CPU;
	if (measures && be->read_floor(ctx, fl->bytes, fl->n, fl->reps, mine, fl->method,
				       sizeof fl->method, err, sizeof err) != FGO_OK) {
		warning("rank %d: read floor not measured: %s", rank, err);
		ok = 0;
	}
	MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (gpu)
		MPI_Reduce(mine, fl->seconds, fl->n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	else
		memcpy(fl->seconds, mine, sizeof mine);
	if (!all_ok)
		fl->n = 0;
	return !all_ok;
}

void calibrate_floor_print(const struct floor_results *fl, double memory_bw)
{
	static const char *const headers[] = { "MiB", "us", "GB/s", "% of memory_bw" };
	struct fgo_table *t = table_new(4, headers);
	if (!t)
		return;
	for (int i = 0; i < fl->n; i++) {
		double gbps = (double)fl->bytes[i] / fl->seconds[i] / 1e9;
		table_add(t, "%g", (double)fl->bytes[i] / (1 << 20));
		table_add(t, "%.1f", fl->seconds[i] * 1e6);
		table_add(t, "%.1f", gbps);
		if (memory_bw > 0)
			table_add(t, "%.1f", gbps / memory_bw * 100);
		else
			table_add(t, "%s", "");
	}
	char what[600];
	snprintf(what, sizeof what, "read floor (%s):", fl->method);
	printf("\n");
	view_print_wrapped(stdout, "", what, 2, FGO_TABLE_COLUMNS);
	if (table_print(t, FGO_FMT_TABLE, stdout) != 0)
		warning("writing the read floor to stdout failed");
	printf("\n");
	table_free(t);
}
