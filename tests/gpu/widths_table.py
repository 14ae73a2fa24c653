#!/usr/bin/env python3
"""tests/gpu/widths_table.py STORE GRID_TAG SIZES_TAG: what new tile sizes
(issue 49: the widths between the powers of two, sweeps/heldout_widths.json
or perrank_widths.json, or the swapped heights, heldout_swap.json or
perrank_swap.json, swept in the same call: tests/gpu/widths.sh) add to a
grid (the newest sweep tagged GRID_TAG: sweeps/heldout_perrank.json or
perrank.json). Per shape of the grid: its best ok time, the new sizes'
best where they were swept there, cuBLAS's fastest call of the two
sweeps, and cuBLAS / best for the grid alone and for the grid with the
new sizes. Then two summary lines, geomean, count at >= 1.0 and worst of
both: over the shapes both swept, and over all the grid's shapes (where
the sizes were not swept, the grid's best stands). Markdown on stdout;
exit 2 when a tag has no sweep."""
import math
import sqlite3
import sys


def main():
    if len(sys.argv) != 4 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 2
    db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
    sweeps = []
    for tag in sys.argv[2:4]:
        sid = db.execute("select max(id) from sweeps where tag = ?", (tag,)).fetchone()[0]
        if sid is None:
            print("widths_table: no sweep tagged %s in %s" % (tag, sys.argv[1]), file=sys.stderr)
            return 2
        sweeps.append(sid)
    grid, widths = sweeps
    q = ("from runs where sweep_id = ? and status = 'ok' and t_fused_ms > 0 and m = ? and n = ?"
         " and k = ?")

    def fastest(sweep, s):
        return db.execute("select t_fused_ms * 1000, config_key " + q + " order by t_fused_ms limit 1",
                          (sweep,) + s).fetchone()

    def cublas(sweep, s):
        return db.execute("select min(t_baseline_ms) * 1000 " + q + " and t_baseline_ms > 0",
                          (sweep,) + s).fetchone()[0]

    def config(key):
        return "/".join(key.split("/")[4:])

    shapes = db.execute("select distinct m, n, k from runs where sweep_id = ? and status = 'ok'"
                        " order by m, n, k", (grid,)).fetchall()
    print("| M x N x K | grid us | grid's best | new sizes us | their best | cuBLAS us |"
          " cuBLAS / grid | cuBLAS / (grid + new sizes) |")
    print("|---|---|---|---|---|---|---|---|")
    both_swept, every, won = ([], []), ([], []), 0
    for s in shapes:
        g, w = fastest(grid, s), fastest(widths, s)
        cubs = [c for c in (cublas(grid, s), cublas(widths, s)) if c]
        if not cubs:
            continue
        cub = min(cubs)
        best = min(g[0], w[0]) if w else g[0]
        won += bool(w) and w[0] < g[0]
        for into in (every,) + ((both_swept,) if w else ()):
            into[0].append(cub / g[0])
            into[1].append(cub / best)
        print("| %d x %d x %d | %.1f | %s | %s | %s | %.1f | %.3f | %.3f%s |" % (
            s + (g[0], config(g[1]), "%.1f" % w[0] if w else "-", config(w[1]) if w else "-", cub,
                 cub / g[0], cub / best, " (new size)" if w and w[0] < g[0] else "")))
    if not both_swept[0]:
        print("widths_table: no shape swept by both", file=sys.stderr)
        return 2

    def geo(xs):
        return math.exp(sum(math.log(x) for x in xs) / len(xs))

    print()
    for what, (before, after) in (("shapes both swept", both_swept), ("shapes of the grid", every)):
        print("%d %s: cuBLAS / best, grid alone geomean %.3f (%d at >= 1.0, worst %.3f);"
              " grid + new sizes %.3f (%d at >= 1.0, worst %.3f)" % (
                  len(before), what, geo(before), sum(r >= 1.0 for r in before), min(before),
                  geo(after), sum(r >= 1.0 for r in after), min(after)))
    print("a new size the fastest on %d shapes" % won)
    return 0


if __name__ == "__main__":
    sys.exit(main())
