/* run/session_defaults.c: where a stored sweep's configurations that give
 * no tile got one: the cost model's picks for config auto (through the
 * session's hook, rank 0, then every rank), and the notes that say which
 * default each run used (see session.h). */
#include <stdio.h>
#include <string.h>

#include "fgo.h"
#include "run/session.h"
#include "spec/defaults.h"

/* Notes a line per item that took the table's row or fell back, up to 8,
 * then how many took each row. Nothing for a core without rows. */
static void note_defaults(const struct fgo_plan *plan, const char *arch)
{
	size_t by_row[64], shown = 0, table = 0;
	char line[512];
	memset(by_row, 0, sizeof by_row);
	for (size_t i = 0; i < plan->count; i++) {
		const struct fgo_plan_item *it = &plan->items[i];
		if (it->default_how != DEFAULTS_TABLE && it->default_how != DEFAULTS_FALLBACK)
			continue;
		table++;
		if (it->default_how == DEFAULTS_TABLE && it->default_row >= 0 &&
		    (size_t)it->default_row < FGO_ARRAY_SIZE(by_row))
			by_row[it->default_row]++;
		if (shown++ < 8 || it->default_how == DEFAULTS_FALLBACK) {
			defaults_describe(&it->cfg, arch, (enum defaults_how)it->default_how,
					  it->default_row, line, sizeof line);
			note("%s", line);
		}
	}
	if (shown <= 8)
		return;
	size_t n = (size_t)snprintf(line, sizeof line, "%zu configurations took the defaults table's"
				    " tile, by row:", table);
	for (size_t r = 0; r < FGO_ARRAY_SIZE(by_row) && n < sizeof line; r++)
		if (by_row[r])
			n += (size_t)snprintf(line + n, sizeof line - n, " %zu: %zu", r + 1, by_row[r]);
	note("%s (the README's \"Default tiles\" has the table)", line);
}

/* Every rank takes rank 0's items: it read the store and changed them
 * (count may have shrunk: an item dropped). */
static void send_items(MPI_Comm comm, struct fgo_plan *plan)
{
	unsigned long count = (unsigned long)plan->count;
	MPI_Bcast(&count, 1, MPI_UNSIGNED_LONG, 0, comm);
	plan->count = (size_t)count;
	for (size_t i = 0; i < plan->count; i++)
		MPI_Bcast(&plan->items[i], (int)sizeof plan->items[i], MPI_BYTE, 0, comm);
}

/* The shots of the items that named all_reduce: rank 0 picks them
 * (s->pick_shot), every rank then runs the same plan (an item may have
 * gone: a repeat of another). */
static int session_shots(MPI_Comm comm, struct fgo_plan *plan, const struct fgo_session *s,
			 const char *arch, const char *backend)
{
	int rank, rc = FGO_OK, any = 0;
	MPI_Comm_rank(comm, &rank);
	for (size_t i = 0; i < plan->count && !any; i++)
		any = plan->items[i].shot_choice;
	if (!any)
		return FGO_OK;
	if (rank == 0 && !s->pick_shot) {
		error("%s: all_reduce is not taken by this command (name the shot:"
		      " all_reduce_one_shot or all_reduce_two_shot)", s->spec_path);
		rc = FGO_EUSAGE;
	} else if (rank == 0) {
		rc = s->pick_shot(plan, arch, backend, s->db_path);
	}
	MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
	if (rc != FGO_OK)
		return rc;
	send_items(comm, plan);
	return FGO_OK;
}

int session_defaults(MPI_Comm comm, struct fgo_plan *plan, const struct fgo_session *s,
		     const char *arch, const char *backend)
{
	int rank, rc = FGO_OK;
	MPI_Comm_rank(comm, &rank);
	if (session_shots(comm, plan, s, arch, backend) != FGO_OK)
		return FGO_EUSAGE;
	if (plan->pick == FGO_PICK_MODEL) {
		if (rank == 0 && !s->pick_model) {
			error("%s: config auto is not taken by this command (use the defaults table:"
			      " drop it)", s->spec_path);
			rc = FGO_EUSAGE;
		} else if (rank == 0) {
			rc = s->pick_model(plan, arch, backend, s->db_path);
		}
		MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
		if (rc != FGO_OK)
			return FGO_EUSAGE;
		send_items(comm, plan); /* every rank runs what rank 0 picked */
		return FGO_OK;
	}
	if (rank == 0)
		note_defaults(plan, arch);
	return FGO_OK;
}
