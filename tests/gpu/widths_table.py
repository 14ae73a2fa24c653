#!/usr/bin/env python3
"""tests/gpu/widths_table.py STORE GRID_TAG WIDTHS_TAG: what the tile widths
between the powers of two add to a grid (issue 49). Per shape of the newest
sweep tagged GRID_TAG (sweeps/heldout_perrank.json or perrank.json) and the
newest tagged WIDTHS_TAG (sweeps/heldout_widths.json or perrank_widths.json,
swept in the same call: tests/gpu/widths.sh): the grid's best ok time, the
widths' best, cuBLAS's fastest call of the two sweeps, cuBLAS / best for the
grid alone and for the grid with the widths, and which width won. Then the
summary: geomean and count at >= 1.0 of both, over the shapes both swept.
Markdown on stdout; exit 2 when a tag has no sweep."""
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
                        " order by m, n, k", (widths,)).fetchall()
    print("| M x N x K | grid us | grid's best | widths us | widths' best | cuBLAS us |"
          " cuBLAS / grid | cuBLAS / (grid + widths) |")
    print("|---|---|---|---|---|---|---|---|")
    before, after, won = [], [], 0
    for s in shapes:
        g, w = fastest(grid, s), fastest(widths, s)
        if g is None or w is None:
            continue
        cubs = [c for c in (cublas(grid, s), cublas(widths, s)) if c]
        if not cubs:
            continue
        cub = min(cubs)
        both = min(g[0], w[0])
        won += w[0] < g[0]
        before.append(cub / g[0])
        after.append(cub / both)
        print("| %d x %d x %d | %.1f | %s | %.1f | %s | %.1f | %.3f | %.3f%s |" % (
            s + (g[0], config(g[1]), w[0], config(w[1]), cub, cub / g[0], cub / both,
                 " (width)" if w[0] < g[0] else "")))
    if not before:
        print("widths_table: no shape swept by both", file=sys.stderr)
        return 2

    def geo(xs):
        return math.exp(sum(math.log(x) for x in xs) / len(xs))

    print()
    print("%d shapes: cuBLAS / best, grid alone geomean %.3f (%d at >= 1.0, worst %.3f);"
          " grid + widths %.3f (%d at >= 1.0, worst %.3f); a width the fastest on %d" % (
              len(before), geo(before), sum(r >= 1.0 for r in before), min(before), geo(after),
              sum(r >= 1.0 for r in after), min(after), won))
    return 0


if __name__ == "__main__":
    sys.exit(main())
