#!/usr/bin/env python3
"""tests/gpu/store_merge.py [--curves] DEST SRC: appends SRC's sweeps,
problems, runs and samples to DEST (two fgobench stores of the same schema
version: open each once with the current fgobench first, e.g. `calibrate
--fit`, so both are upgraded), ids shifted past DEST's. For a fit over runs
measured on different machines of one kind (W=1 runs on one H100, W=2 runs
on two), brought back as separate stores.

With --curves, SRC's collective curves instead (coll_curves,
coll_curve_points: `fgobench calibrate` on the machine the runs came
from), so a fit over DEST's runs reads the vendor baseline from the
measured NCCL curve, not from a curve fitted to the runs' own baselines.
Its link_bw is left out: stated beside runs that pin the link, it moved
the W=2 fits' starts and their held-out error from 38 to 33 of 46 within
10% (four H100s). Nothing in SRC changes."""
import sqlite3
import sys

curves = "--curves" in sys.argv[1:]
args = [a for a in sys.argv[1:] if a != "--curves"]
if len(args) != 2:
    sys.exit("usage: store_merge.py [--curves] DEST SRC")
dest = sqlite3.connect(args[0])
dest.execute("ATTACH ? AS src", (args[1],))
v_dest = dest.execute("PRAGMA main.user_version").fetchone()[0]
v_src = dest.execute("PRAGMA src.user_version").fetchone()[0]
if v_dest != v_src:
    sys.exit("store_merge.py: schema %d and %d differ: open both with this fgobench first"
             % (v_dest, v_src))


def cols(table, schema="main"):
    return [r[1] for r in dest.execute("PRAGMA %s.table_info(%s)" % (schema, table))]


def offset(table):
    return dest.execute("SELECT coalesce(max(id), 0) FROM main.%s" % table).fetchone()[0]


if curves:
    # the curves with their ids shifted past DEST's, their points after them
    shift = offset("coll_curves")
    names = cols("coll_curves")
    dest.execute("INSERT INTO main.coll_curves (%s) SELECT %s FROM src.coll_curves"
                 % (", ".join(names), ", ".join("id + %d" % shift if c == "id" else c
                                                for c in names)))
    dest.execute("INSERT INTO main.coll_curve_points (curve_id, bytes, seconds)"
                 " SELECT curve_id + %d, bytes, seconds FROM src.coll_curve_points" % shift)
    dest.commit()
    print("merged: curves %d" % dest.execute("SELECT count(*) FROM src.coll_curves").fetchone()[0])
    sys.exit(0)

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
