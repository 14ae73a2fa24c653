/* run/session_defaults.c: where a stored sweep's configurations that give
 * no tile got one: the cost model's picks for config auto (through the
 * session's hook, rank 0, then every rank), and the notes that say which
 * default each run used (see session.h). */
#include <stdio.h>
#include <stdlib.h>
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
 * (count may have shrunk: an item dropped; or grown: config auto's
 * trials, where the other ranks make room). FGO_OK, or FGO_EFAIL on
 * every rank when one ran out of memory. */
static int send_items(MPI_Comm comm, struct fgo_plan *plan)
{
	unsigned long count = (unsigned long)plan->count;
	int rank, ok = 1, all = 1;
	MPI_Comm_rank(comm, &rank);
	MPI_Bcast(&count, 1, MPI_UNSIGNED_LONG, 0, comm);
	if (rank != 0 && count > plan->count) {
		struct fgo_plan_item *more = realloc(plan->items, count * sizeof *more);
		ok = more != NULL;
		if (more)
			plan->items = more;
	}
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
	if (!all) {
		if (rank == 0)
			error("out of memory for the plan's %lu configurations on a rank", count);
		return FGO_EFAIL;
	}
	plan->count = (size_t)count;
	for (size_t i = 0; i < plan->count; i++)
		MPI_Bcast(&plan->items[i], (int)sizeof plan->items[i], MPI_BYTE, 0, comm);
	return FGO_OK;
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
	return send_items(comm, plan);
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
		/* every rank runs what rank 0 picked */
		return send_items(comm, plan) == FGO_OK ? FGO_OK : FGO_EUSAGE;
	}
	if (rank == 0)
		note_defaults(plan, arch);
	return FGO_OK;
}

/* One group's line: the fastest of the trials, and the ranking's first
 * and the default beside it. */
static void say_group(const struct fgo_plan *plan, const double *fused_ms, size_t first,
		      size_t end, size_t fastest)
{
	const struct fgo_config *c = &plan->items[first].cfg;
	const struct fgo_plan_item *win = &plan->items[fastest];
	char tile[96], line[768], who[64];
	size_t len;
	defaults_tile_text(&win->cfg, tile, sizeof tile);
	if (win->auto_role == FGO_AUTO_TABLE)
		snprintf(who, sizeof who, "the default");
	else
		snprintf(who, sizeof who, "ranked %u", (unsigned)win->auto_place);
	size_t timed = 0;
	for (size_t i = first; i < end; i++)
		timed += fused_ms[i] > 0;
	len = (size_t)snprintf(line, sizeof line, "config auto: %s %s W=%d M=%ld N=%ld K=%ld: %s"
			       " (%s), %.1f us, the fastest of %zu timed", c->algorithm,
			       dtype_name(c->dtype), c->world, c->m, c->n, c->k, tile, who,
			       fused_ms[fastest] * 1e3, timed);
	for (size_t i = first; i < end && len < sizeof line; i++) {
		const struct fgo_plan_item *it = &plan->items[i];
		if (i == fastest || (it->auto_role == FGO_AUTO_RANKED && i != first))
			continue;
		const char *what = it->auto_role == FGO_AUTO_TABLE ? "the default" : "the ranking's first";
		if (fused_ms[i] > 0)
			len += (size_t)snprintf(line + len, sizeof line - len, "; %s %.1f us (x %.3f)",
						what, fused_ms[i] * 1e3, fused_ms[i] / fused_ms[fastest]);
	}
	/* a trial that failed, or that an earlier job of a resumed sweep ran
	 * (`fgobench best` over the whole sweep has them) */
	if (timed < end - first && len < sizeof line)
		snprintf(line + len, sizeof line - len, "; %zu more not timed in this job (not ok, or run"
			 " before a resume)", end - first - timed);
	note("%s", line);
}

void session_auto_say(const struct fgo_plan *plan, const double *fused_ms)
{
	size_t groups = 0, shown = 0, first_won = 0, table_won = 0, none = 0;
	for (size_t i = 0; i < plan->count;) {
		if (plan->items[i].auto_role == FGO_AUTO_NONE) {
			i++;
			continue;
		}
		size_t end = i + 1, fastest = i;
		while (end < plan->count && plan->items[end].auto_role != FGO_AUTO_NONE &&
		       plan->items[end].auto_group == plan->items[i].auto_group)
			end++;
		for (size_t j = i; j < end; j++)
			if (fused_ms[j] > 0 && (!(fused_ms[fastest] > 0) || fused_ms[j] < fused_ms[fastest]))
				fastest = j;
		groups++;
		if (!(fused_ms[fastest] > 0)) {
			none++;
		} else {
			first_won += plan->items[fastest].auto_role == FGO_AUTO_RANKED &&
				     plan->items[fastest].auto_place == plan->items[i].auto_place;
			table_won += plan->items[fastest].auto_role == FGO_AUTO_TABLE;
			if (shown++ < 8)
				say_group(plan, fused_ms, i, end, fastest);
		}
		i = end;
	}
	if (groups > 1)
		note("config auto: of %zu shapes timed, the ranking's first the fastest at %zu, the"
		     " default at %zu, another ranked one at %zu, no trial ok at %zu", groups,
		     first_won, table_won, groups - none - first_won - table_won, none);
}
