#!/usr/bin/env python3
"""tests/gpu/store_merge.py DEST SRC: appends SRC's sweeps, problems, runs
and samples to DEST (two fgobench stores of the same schema version: open
each once with the current fgobench first, e.g. `calibrate --fit`, so both
are upgraded), ids shifted past DEST's. For a fit over runs measured on
different machines of one kind (W=1 runs on one H100, W=2 runs on two),
brought back as separate stores. Nothing in SRC changes."""
import sqlite3
import sys

dest = sqlite3.connect(sys.argv[1])
dest.execute("ATTACH ? AS src", (sys.argv[2],))
v_dest = dest.execute("PRAGMA main.user_version").fetchone()[0]
v_src = dest.execute("PRAGMA src.user_version").fetchone()[0]
if v_dest != v_src:
    sys.exit("store_merge.py: schema %d and %d differ: open both with this fgobench first"
             % (v_dest, v_src))


def cols(table):
    return [r[1] for r in dest.execute("PRAGMA main.table_info(%s)" % table)]


def offset(table):
    return dest.execute("SELECT coalesce(max(id), 0) FROM main.%s" % table).fetchone()[0]


shift = {"sweeps": offset("sweeps"), "problems": offset("problems"), "runs": offset("runs")}
refs = {"sweep_id": "sweeps", "problem_id": "problems", "run_id": "runs"}
for table in ("sweeps", "problems", "runs", "samples"):
    names = cols(table)
    exprs = []
    for c in names:
        if c == "id":
            exprs.append("id + %d" % shift[table])
        elif c in refs:
            exprs.append("%s + %d" % (c, shift[refs[c]]))
        else:
            exprs.append(c)
    dest.execute("INSERT INTO main.%s (%s) SELECT %s FROM src.%s"
                 % (table, ", ".join(names), ", ".join(exprs), table))
dest.commit()
print("merged: %s" % ", ".join("%s %d" % (t, dest.execute(
    "SELECT count(*) FROM src.%s" % t).fetchone()[0]) for t in ("sweeps", "runs")))
