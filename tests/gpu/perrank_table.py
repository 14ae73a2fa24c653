#!/usr/bin/env python3
"""tests/gpu/perrank_table.py STORE [GEMM_TAG [FUSED_TAG]]: issue 23's table
from a store written by tests/gpu/walk.sh (tags perrank and perrank-fused):
per shape the best validated gemm configuration against the fastest cuBLAS
call of the same run, the best of the data-parallel/split-K walks and of the
hybrid Stream-K walk, and the read floor of the shape's bytes (A + B + C,
interpolated in log-log on the newest curve `calibrate` stored, as
src/floor.c does); then the summary lines (geomean, how many shapes reach
1.0x cuBLAS, shapes with M <= 64 within 1.1x the floor, the fused families
at W=1 against gemm on the same configurations). Markdown on stdout."""
import math
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
gtag = sys.argv[2] if len(sys.argv) > 2 else "perrank"
ftag = sys.argv[3] if len(sys.argv) > 3 else "perrank-fused"


def sweep_of(tag):
    row = db.execute("select max(id) from sweeps where tag = ?", (tag,)).fetchone()
    return row[0]


fid = db.execute("select max(id) from read_floors").fetchone()[0]
pts = db.execute("select bytes, seconds from read_floor_points where floor_id = ? order by bytes",
                 (fid,)).fetchall() if fid else []


def floor_us(b):
    if not pts:
        return float("nan")
    if b <= pts[0][0]:
        return pts[0][1] * 1e6
    for (b0, t0), (b1, t1) in zip(pts, pts[1:]):
        if b <= b1:
            f = (math.log(b) - math.log(b0)) / (math.log(b1) - math.log(b0))
            return math.exp(math.log(t0) + f * (math.log(t1) - math.log(t0))) * 1e6
    (b0, t0), (b1, t1) = pts[-2], pts[-1]
    return (t1 + (b - b1) * (t1 - t0) / (b1 - b0)) * 1e6


def config_text(r):
    blk_m, blk_n, s, w, g, k, bk, gm = r
    text = "%dx%d%s s%d w%d" % (blk_m, blk_n, "x%d" % bk if bk != 64 else "", s, w)
    if gm != 8:
        text += " g%d" % gm
    if g:
        text += " sk%d" % g
    if k > 1:
        text += " k%d" % k
    return text


gs = sweep_of(gtag)
shapes = db.execute("select distinct m, n, k from runs where sweep_id = ? and status = 'ok'"
                    " order by n, k, m", (gs,)).fetchall()
print("| M x N x K | fgobench us | configuration | cuBLAS us | ratio | split/DP us | hybrid us |"
      " read floor us | x floor | cuBLAS x floor |")
print("|---|---|---|---|---|---|---|---|---|---|")
logs, at1, small, small_ok = [], 0, 0, 0
for m, n, k in shapes:
    q = "from runs where sweep_id = ? and status = 'ok' and m = ? and n = ? and k = ?"
    cub = db.execute("select min(t_baseline_ms) * 1000 " + q, (gs, m, n, k)).fetchone()[0]
    best = db.execute("select t_fused_ms * 1000, blk_m, blk_n, num_stages, num_warps, gemm_sms,"
                      " split_k, blk_k, gsize_m " + q + " order by t_fused_ms limit 1",
                      (gs, m, n, k)).fetchone()
    dp = db.execute("select min(t_fused_ms) * 1000 " + q + " and gemm_sms = 0", (gs, m, n, k)).fetchone()[0]
    hy = db.execute("select min(t_fused_ms) * 1000 " + q + " and gemm_sms > 0", (gs, m, n, k)).fetchone()[0]
    fl = floor_us((m * k + k * n + m * n) * 2)
    ratio = cub / best[0]
    logs.append(math.log(ratio))
    at1 += ratio >= 1.0
    if m <= 64:
        small += 1
        small_ok += best[0] <= 1.1 * fl
    print("| %d x %d x %d | %.1f | %s | %.1f | %.2f | %.1f | %s | %.1f | %.2f | %.2f |" % (
        m, n, k, best[0], config_text(best[1:]), cub, ratio, dp, "%.1f" % hy if hy else "-", fl,
        best[0] / fl, cub / fl))
print()
print("geomean %.3fx cuBLAS, min %.2f, max %.2f; %d of %d shapes at >= 1.0x; M <= 64 within 1.1x the read"
      " floor: %d of %d" % (math.exp(sum(logs) / len(logs)), math.exp(min(logs)), math.exp(max(logs)),
                            at1, len(logs), small_ok, small))
fs = sweep_of(ftag)
if fs:
    for alg in ("all_scatter", "all_reduce_one_shot"):
        rows = db.execute(
            "select min(f.t_fused_ms) / min(g.t_fused_ms) from runs f join runs g on g.sweep_id = ?"
            " and g.status = 'ok' and g.m = f.m and g.n = f.n and g.k = f.k and g.blk_m = f.blk_m"
            " and g.blk_n = f.blk_n and g.num_stages = f.num_stages and g.num_warps = f.num_warps"
            " and g.split_k = f.split_k and g.gemm_sms = f.gemm_sms where f.sweep_id = ?"
            " and f.status = 'ok' and f.algorithm = ? group by f.m, f.n, f.k", (gs, fs, alg)).fetchall()
        r = [x[0] for x in rows]
        if r:
            print("%s W=1 against gemm on the same configurations: geomean %.3fx the time, max %.2fx,"
                  " %d of %d shapes within 5%%" % (alg, math.exp(sum(map(math.log, r)) / len(r)), max(r),
                                                  sum(x <= 1.05 for x in r), len(r)))
