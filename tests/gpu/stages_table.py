#!/usr/bin/env python3
"""tests/gpu/stages_table.py STORE [TAG]: from a store written by
tests/gpu/stages.sh (tag stages), per shape: the best validated
configuration of the whole sweep, the best at the ring depth the defaults
use (6 for 64x64, 4 for 64x128), cuBLAS of the same run, and the read floor
of the shape's bytes (A + B + C, the newest curve calibrate stored,
log-log interpolation as src/floor.c does); then per ring depth the
geomean over shapes of the best time at that depth relative to the best
at the default depth. Markdown on stdout."""
import math
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
tag = sys.argv[2] if len(sys.argv) > 2 else "stages"
sid = db.execute("select max(id) from sweeps where tag = ?", (tag,)).fetchone()[0]
fid = db.execute("select max(id) from read_floors").fetchone()[0]
pts = db.execute("select bytes, seconds from read_floor_points where floor_id = ? order by bytes",
                 (fid,)).fetchall() if fid else []


def floor_us(b):
    if len(pts) < 2:
        return float("nan")
    lo, hi = pts[0], pts[-1]
    for i in range(len(pts) - 1):
        if pts[i][0] <= b <= pts[i + 1][0]:
            lo, hi = pts[i], pts[i + 1]
            break
    else:
        lo, hi = (pts[0], pts[1]) if b < pts[0][0] else (pts[-2], pts[-1])
    t = math.log(b / lo[0]) / math.log(hi[0] / lo[0])
    return 1e6 * math.exp(math.log(lo[1]) + t * (math.log(hi[1]) - math.log(lo[1])))


rows = db.execute("select m, n, k, blk_m, blk_n, num_stages, split_k, t_fused_ms, t_baseline_ms"
                  " from runs where sweep_id = ? and status = 'ok' and validated = 1",
                  (sid,)).fetchall()
shapes = sorted({(r[0], r[1], r[2]) for r in rows})
print("| M x N x K | best us | configuration | default-depth us | configuration | gain |"
      " cuBLAS us | best/cuBLAS | floor us | best x floor |")
print("|---|---|---|---|---|---|---|---|---|---|")
depth_gain = {}
for s in shapes:
    rs = [r for r in rows if (r[0], r[1], r[2]) == s]
    best = min(rs, key=lambda r: r[7])
    dflt = [r for r in rs if r[5] == (6 if r[4] == 64 else 4)]
    d = min(dflt, key=lambda r: r[7]) if dflt else None
    cub = min(r[8] for r in rs if r[8])
    fl = floor_us(2 * (s[0] * s[2] + s[2] * s[1] + s[0] * s[1]))
    for depth in sorted({r[5] for r in rs}):
        at = [r[7] for r in rs if r[5] == depth]
        if d:
            depth_gain.setdefault(depth, []).append(min(at) / d[7])
    cfg = lambda r: "%dx%d s%d k%d" % (r[3], r[4], r[5], r[6])
    print("| %d x %d x %d | %.1f | %s | %s | %s | %s | %.1f | %.2f | %.1f | %.2f |" % (
        s[0], s[1], s[2], best[7] * 1e3, cfg(best), "%.1f" % (d[7] * 1e3) if d else "-",
        cfg(d) if d else "-", "%.3f" % (d[7] / best[7]) if d else "-", cub * 1e3,
        cub / best[7], fl, best[7] * 1e3 / fl))
print()
for depth, g in sorted(depth_gain.items()):
    gm = math.exp(sum(math.log(x) for x in g) / len(g))
    print("- depth %d: best time at this depth / best at the default depth, geomean over %d"
          " shapes: %.3f" % (depth, len(g), gm))
