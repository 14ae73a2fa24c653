#!/usr/bin/env python3
"""tests/gpu/cluster_table.py STORE [TAG]: issue 32's clusters against the
same tiles without them, from a store of sweeps/perrank_cluster.json (tag
perrank-cluster): per shape the best validated configuration with cluster 1,
the best with a cluster (2 or 4; the key's /clN), cuBLAS of the same run
(the fastest baseline the sweep measured for the shape), and the ratios;
then the geomean of each against cuBLAS. Markdown on stdout."""
import math
import re
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
tag = sys.argv[2] if len(sys.argv) > 2 else "perrank-cluster"
sid = db.execute("select max(id) from sweeps where tag = ?", (tag,)).fetchone()[0]
if sid is None:
    sys.exit("no sweep tagged %s in %s" % (tag, sys.argv[1]))
rows = db.execute(
    "select m, n, k, config_key, t_fused_ms, t_baseline_ms, blk_m, blk_n, num_stages, num_warps"
    " from runs where sweep_id = ? and status = 'ok' and t_fused_ms > 0", (sid,)).fetchall()
shapes = {}
for m, n, k, key, t, tb, bm, bn, st, nw in rows:
    cl = re.search(r"/cl(\d+)", key)
    sk = re.search(r"/sk(\d+)", key)
    name = "%dx%d s%d w%d%s%s" % (bm, bn, st, nw, " k%s" % sk.group(1) if sk else "",
                                   " cl%s" % cl.group(1) if cl else "")
    s = shapes.setdefault((m, n, k), {"plain": None, "cluster": None, "vendor": None})
    kind = "cluster" if cl else "plain"
    if s[kind] is None or t < s[kind][0]:
        s[kind] = (t, name)
    if tb and (s["vendor"] is None or tb < s["vendor"]):
        s["vendor"] = tb
print("| M x N x K | cuBLAS us | best without cluster | us | x cuBLAS | best with cluster | us |"
      " x cuBLAS | cluster / plain time |")
print("|---|---|---|---|---|---|---|---|---|")
gp, gc, gb, n = 0.0, 0.0, 0.0, 0
for (m, nn, k), s in sorted(shapes.items()):
    if not (s["plain"] and s["cluster"] and s["vendor"]):
        continue
    v, (tp, np_), (tc, nc) = s["vendor"], s["plain"], s["cluster"]
    best = min(tp, tc)
    print("| %d x %d x %d | %.1f | %s | %.1f | %.2f | %s | %.1f | %.2f | %.3f |" % (
        m, nn, k, v * 1e3, np_, tp * 1e3, v / tp, nc, tc * 1e3, v / tc, tc / tp))
    gp += math.log(v / tp)
    gc += math.log(v / tc)
    gb += math.log(v / best)
    n += 1
if n:
    print("\n- %d shapes: geomean x cuBLAS without clusters %.3f, with %.3f, best of both %.3f" % (
        n, math.exp(gp / n), math.exp(gc / n), math.exp(gb / n)))
