#!/usr/bin/env python3
"""tests/gpu/heldout_table.py STORE [GRID_TAG [DEFAULTS_TAG [AUTO_TAG]]]: issue 49's
tables from one store (docs/heldout.md runs the sweeps): per shape of the
newest sweep tagged GRID_TAG (default heldout-perrank: sweeps/heldout_perrank.json,
or perrank for the project's own set) its best ok configuration against the
fastest cuBLAS call of the same sweep, and the time of the newest sweeps
tagged DEFAULTS_TAG (heldout-defaults: no tile, the defaults table) and
AUTO_TAG (heldout-auto: --config auto) at the shape against that best, and
whether auto ran the defaults' configuration ("same": the table's pick,
kept or ranked first; "other": best --predict's ranking chose another;
the sweep's notes say which source each pick came from). Then the
summary lines, each with issue 49's target: best / cuBLAS (cuBLAS's time
over the best's, >= 1.0 on every shape, geomean >= 1.05), the large shapes
(M, N, K >= 2048), the defaults within 15% of the best on every shape, auto
within 5% on 90%. A tag with no sweep is left out (its columns "-").
Markdown on stdout; exit 2 when the store has no sweep tagged GRID_TAG."""
import math
import sqlite3
import sys


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) > 1 else 2
    db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
    tags = (sys.argv[2:] + ["heldout-perrank", "heldout-defaults", "heldout-auto"][len(sys.argv) - 2:])[:3]

    def sweep_of(tag):
        return db.execute("select max(id) from sweeps where tag = ?", (tag,)).fetchone()[0]

    grid, dflt, auto = (sweep_of(t) for t in tags)
    if grid is None:
        print("heldout_table: no sweep tagged %s in %s (sweep sweeps/heldout_perrank.json --tag %s"
              " first, or name the grid's tag)" % (tags[0], sys.argv[1], tags[0]), file=sys.stderr)
        return 2
    q = ("from runs where sweep_id = ? and status = 'ok' and t_fused_ms > 0 and m = ? and n = ?"
         " and k = ?")
    shapes = db.execute("select distinct m, n, k from runs where sweep_id = ? and status = 'ok'"
                        " order by m, n, k", (grid,)).fetchall()

    def config(key):
        # the key past its problem: algorithm/dtype/wW/mMnNkK/tile...
        return "/".join(key.split("/")[4:]) if key else "-"

    def fastest(sweep, s):
        if sweep is None:
            return None
        return db.execute("select t_fused_ms * 1000, config_key " + q + " order by t_fused_ms limit 1",
                          (sweep,) + s).fetchone()

    print("| M x N x K | best us | best configuration | cuBLAS us | cuBLAS / best | defaults us |"
          " defaults / best | defaults configuration | auto us | auto / best | auto vs defaults |"
          " auto configuration |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    vs_cublas, large, d_ratio, a_ratio, ranked = [], [], [], [], 0
    for s in shapes:
        best = fastest(grid, s)
        cub = db.execute("select min(t_baseline_ms) * 1000 " + q + " and t_baseline_ms > 0",
                         (grid,) + s).fetchone()[0]
        d, a = fastest(dflt, s), fastest(auto, s)
        cells = ["%d x %d x %d" % s, "%.1f" % best[0], config(best[1])]
        if cub:
            r = cub / best[0]
            vs_cublas.append((r, s))
            if min(s) >= 2048:
                large.append(r)
            cells += ["%.1f" % cub, "%.3f" % r]
        else:
            cells += ["-", "-"]
        if d:
            d_ratio.append((d[0] / best[0], s))
            cells += ["%.1f" % d[0], "%.3f" % (d[0] / best[0]), config(d[1])]
        else:
            cells += ["-", "-", "-"]
        if a:
            a_ratio.append((a[0] / best[0], s))
            source = "same" if d and a[1] == d[1] else "other" if d else "-"
            ranked += source == "other"
            cells += ["%.1f" % a[0], "%.3f" % (a[0] / best[0]), source, config(a[1])]
        else:
            cells += ["-", "-", "-", "-"]
        print("| " + " | ".join(cells) + " |")
    print()

    def geomean(xs):
        return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")

    n = len(shapes)
    if vs_cublas:
        worst = min(vs_cublas)
        at1 = sum(r >= 1.0 for r, _ in vs_cublas)
        g = geomean([r for r, _ in vs_cublas])
        print("best / cuBLAS (cuBLAS's time over the best's): geomean %.3f, min %.3f at %d x %d x %d,"
              " %d of %d shapes at >= 1.0 (target: every shape, geomean >= 1.05: %s)"
              % ((g, worst[0]) + worst[1] + (at1, len(vs_cublas),
                                              "met" if at1 == len(vs_cublas) and g >= 1.05 else "not met")))
        if large:
            print("large shapes (M, N, K >= 2048): best / cuBLAS geomean %.3f over %d" % (geomean(large), len(large)))
    if d_ratio:
        within = sum(r <= 1.15 for r, _ in d_ratio)
        worst = max(d_ratio)
        print("defaults / best: geomean %.3f, max %.3f at %d x %d x %d, within 15%% on %d of %d"
              " (target: every shape: %s)" % ((geomean([r for r, _ in d_ratio]), worst[0]) + worst[1] +
                                              (within, len(d_ratio), "met" if within == n else "not met")))
    if a_ratio:
        within = sum(r <= 1.05 for r, _ in a_ratio)
        worst = max(a_ratio)
        print("auto / best: geomean %.3f, max %.3f at %d x %d x %d, within 5%% on %d of %d (%.0f%%;"
              " target 90%%: %s); configuration other than the defaults' at %d"
              % ((geomean([r for r, _ in a_ratio]), worst[0]) + worst[1] +
                 (within, len(a_ratio), 100.0 * within / n, "met" if within >= 0.9 * n else "not met", ranked)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
