#!/usr/bin/env python3
"""tests/gpu/sol_table.py CAL.db W MIN_M STORE...: sol (speed of light) of
the fastest validated run of each (algorithm, M, N, K) at world W and
M >= MIN_M over the STOREs, by runner.c's own rule, for stores whose runs
were made without `calibrate` in them (their sol column is empty):

    sol = max(FLOPs / W / matrix peak, link bytes / link bandwidth,
              (W - 1) x link bytes / link egress at W) / t_fused

with the matrix peak of the runs' dtype, the slowest link and the egress
at W (every rank writing to all its peers at once: "egress w=W", where
CAL.db has one; issue 51) that `calibrate` stored in CAL.db (the same
machine's), and the link bytes from the run itself (link_gbps x t_fused). A later store's run of a key
replaces an earlier one only when it is faster; the store each best came
from is printed beside it.

    python3 tests/gpu/sol_table.py cal.db 2 4096 today.db yesterday.db
"""
import sqlite3
import sys


def ceilings(cal):
    db = sqlite3.connect(cal)
    peak = {d: v * 1e12 for d, v in db.execute(
        "SELECT dtype, value FROM ceilings WHERE what = 'matrix_peak' ORDER BY id")}
    links = [v * 1e9 for (v,) in db.execute(
        "SELECT value FROM ceilings WHERE what = 'link_bw' AND detail = ''")]
    egress = {int(d.split("=")[1]): v * 1e9 for d, v in db.execute(
        "SELECT detail, value FROM ceilings WHERE what = 'link_bw' AND detail LIKE 'egress w=%'"
        " ORDER BY id")}
    return peak, min(links) if links else 0.0, egress


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    peak, link, egress = ceilings(sys.argv[1])
    world, min_m = int(sys.argv[2]), int(sys.argv[3])
    out = egress.get(world, 0.0)
    best = {}
    for path in sys.argv[4:]:
        q = ("SELECT algorithm, dtype, m, n, k, t_fused_ms, link_gbps FROM runs"
             " WHERE status = 'ok' AND validated = 1 AND world = ? AND m >= ?")
        for a, dt, m, n, k, t, gbps in sqlite3.connect(path).execute(q, (world, min_m)):
            key = (a, m, n, k)
            if key in best and best[key][0] <= t:
                continue
            tf = t * 1e-3
            flops = 2.0 * m * n * k / world / peak[dt]
            sent = (gbps or 0.0) * 1e9 * tf  # bytes to one peer
            wire = sent / link if link > 0 else 0.0
            allp = (world - 1) * sent / out if out > 0 else 0.0
            bound = "flops" if flops >= max(wire, allp) else "egress" if allp >= wire else "link"
            best[key] = (t, max(flops, wire, allp) / tf, bound, path)
    met = sum(1 for v in best.values() if v[1] >= 0.9)
    print("| algorithm | shape | ms | sol | bound | store |")
    print("|---|---|---|---|---|---|")
    for (a, m, n, k), (t, sol, bound, path) in sorted(best.items()):
        print("| %s | %dx%dx%d | %.3f | %.2f | %s | %s |" % (a, m, n, k, t, sol, bound, path))
    print("\nsol >= 0.9 on %d of %d" % (met, len(best)))


if __name__ == "__main__":
    main()
