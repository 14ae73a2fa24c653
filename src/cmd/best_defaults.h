/* best_defaults.h: `fgobench best --defaults`: the defaults table judged on
 * a store (src/spec/defaults_derive.h does the judging): per row, its pick
 * against each problem's best and the pick the store would choose; with
 * --write, the table written back as src/spec/defaults_rows.inc with the
 * rows the store's numbers replace. On a held-out store the same report
 * is the held-out check (docs/defaults.md). */
#ifndef FGO_BEST_DEFAULTS_H
#define FGO_BEST_DEFAULTS_H

#include "views/table.h"

struct best_defaults_opts {
	const char *db;        /* store option (NULL: $FGOBENCH_DB or ./fgobench.db) */
	const char *tag;       /* NULL: every sweep; else only runs of sweeps tagged so */
	const char *algorithm; /* NULL: every family */
	const char *dtype;     /* NULL: every element type */
	int world;             /* 0: every world size */
	const char *write;     /* NULL: report only; else the table's include written here */
	enum fgo_format format;
	int wide;              /* the table with every column (else it fits 120) */
};

/* Returns the exit status: 0; FGO_EUSAGE when the filters match no ok run
 * or --write names a symbolic link or an unwritable place (said);
 * FGO_EFAIL when reading the store or writing failed. */
int best_defaults(const struct best_defaults_opts *o);

#endif
