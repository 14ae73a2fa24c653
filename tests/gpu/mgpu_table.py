#!/usr/bin/env python3
"""tests/gpu/mgpu_table.py STORE [BASE_STORE]: the multi-GPU summary of
tests/gpu/mgpu.sh as markdown. Per world size, family and shape: the best
ok fused run (fused ms / vendor ms of the same problem, speedup, sol, its
configuration), then issue 31's targets (every family >= 1.0x on every
shape; geomean >= 1.25x per family over M >= 1024; sol >= 0.9 at M >= 4096;
pull within 10% of push) with what met them. With a base store (the A/B of
mgpu.sh's `ab` step) the best fused time of each (family, shape) of the
base build (tags base-*) beside this one's at W=2 (mgpu-w2, decode-w2). With TORCH_CSV
(tests/gpu/torch_anchor.py's output) PyTorch's sequence beside fgobench's
vendor time of the same problem.""" 
import csv
import math
import os
import sqlite3
import sys


def best_runs(db, where, args=()):
    """(algorithm, world, m, n, k) -> the ok run with the smallest t_fused_ms."""
    best = {}
    q = ("SELECT r.algorithm, r.world, r.m, r.n, r.k, r.t_fused_ms, r.t_baseline_ms, r.speedup, r.sol,"
         " r.blk_m, r.blk_n, r.num_stages, r.num_warps, r.split_k, r.gemm_sms, r.comm_sms, r.comm_blk_m"
         " FROM runs r JOIN sweeps s ON s.id = r.sweep_id WHERE r.status = 'ok' AND r.t_fused_ms > 0 AND "
         + where)
    for row in db.execute(q, args):
        key = row[:5]
        if key not in best or row[5] < best[key][5]:
            best[key] = row
    return best


def conf(r):
    c = "%dx%d s%d w%d" % (r[9], r[10], r[11], r[12])
    if r[13] and r[13] > 1:
        c += " split %d" % r[13]
    if r[14]:
        c += " sms %d+%d" % (r[14], r[15])
    if r[16]:
        c += " chunk %d" % r[16]
    return c


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def main():
    db = sqlite3.connect(sys.argv[1])
    out = []
    for tag_like, title in (("mgpu-w%", "standard shapes (sweeps/mgpu.json)"),
                            ("decode-w%", "decode to prefill, all_scatter (sweeps/mgpu_decode.json)"),
                            ("heldout-mgpu-w%", "held-out shapes nobody tunes on (sweeps/heldout_mgpu.json)")):
        best = best_runs(db, "s.tag LIKE ?", (tag_like,))
        for w in sorted({k[1] for k in best}):
            shapes = sorted({k[2:] for k in best if k[1] == w}, key=lambda s: (s[0], s[1], s[2]))
            fams = sorted({k[0] for k in best if k[1] == w})
            out.append("### W=%d, %s\n" % (w, title))
            out.append("Best fused configuration of each family and shape against cuBLAS + NCCL in the "
                       "same run: speedup (fused ms / vendor ms), sol.\n")
            out.append("| family | " + " | ".join("%dx%dx%d" % s for s in shapes) + " |")
            out.append("|---|" + "---|" * len(shapes))
            for f in fams:
                cells = []
                for s in shapes:
                    r = best.get((f, w) + s)
                    cells.append("-" if r is None else "%.2f (%.3f / %.3f)%s" % (
                        r[7] or float("nan"), r[5], r[6] or float("nan"),
                        "" if r[8] is None else ", sol %.2f" % r[8]))
                out.append("| %s | %s |" % (f, " | ".join(cells)))
            out.append("\nWinning configurations:\n")
            out.append("| family | " + " | ".join("%dx%dx%d" % s for s in shapes) + " |")
            out.append("|---|" + "---|" * len(shapes))
            for f in fams:
                out.append("| %s | %s |" % (f, " | ".join(
                    conf(best[(f, w) + s]) if (f, w) + s in best else "-" for s in shapes)))
            out.append("\nTargets at W=%d:\n" % w)
            for f in fams:
                rows = [best[(f, w) + s] for s in shapes if (f, w) + s in best]
                below = ["%dx%dx%d %.2f" % (r[2], r[3], r[4], r[7]) for r in rows if r[7] and r[7] < 1.0]
                big = [r[7] for r in rows if r[2] >= 1024 and r[7]]
                sol = [r[8] for r in rows if r[2] >= 4096 and r[8] is not None]
                out.append("- %s: %d of %d shapes >= 1.0x%s; geomean at M >= 1024 %.2fx (target 1.25); "
                           "sol at M >= 4096 %s (target 0.9)" % (
                               f, len(rows) - len(below), len(rows),
                               " (below: " + ", ".join(below) + ")" if below else "", geomean(big),
                               ", ".join("%.2f" % x for x in sol) or "-"))
            if "all_gather_gemm_pull" in fams and "all_gather_gemm_push" in fams:
                ratios = []
                for s in shapes:
                    a, b = best.get(("all_gather_gemm_pull", w) + s), best.get(("all_gather_gemm_push", w) + s)
                    if a and b:
                        ratios.append("%dx%dx%d %.2f" % (s + (a[5] / b[5],)))
                out.append("- pull / push fused time (target <= 1.10): " + ", ".join(ratios))
            out.append("")
    if len(sys.argv) > 2:
        base = best_runs(sqlite3.connect(sys.argv[2]), "s.tag LIKE 'base-%'")
        head = best_runs(db, "(s.tag = 'mgpu-w2' OR s.tag = 'decode-w2')")
        out.append("### A/B at W=2: best fused ms of the base build and of this one, minutes apart\n")
        out.append("| family | shape | base ms | head ms | head / base | base speedup | head speedup |")
        out.append("|---|---|---|---|---|---|---|")
        for key in sorted(set(base) & set(head)):
            b, h = base[key], head[key]
            out.append("| %s | %dx%dx%d | %.4f | %.4f | %.2f | %.2f | %.2f |" % (
                key[0], key[2], key[3], key[4], b[5], h[5], h[5] / b[5], b[7] or float("nan"),
                h[7] or float("nan")))
        out.append("")
    torch_csv = os.environ.get("TORCH_CSV")
    if torch_csv and os.path.exists(torch_csv):
        fams = {"all_scatter": "all_scatter", "all_reduce": "all_reduce_one_shot",
                "reduce_scatter": "reduce_scatter", "all_gather_gemm": "all_gather_gemm_pull"}
        out.append("### The vendor sequence against PyTorch's on the same GPUs (tests/gpu/torch_anchor.py)\n")
        out.append("| family | shape | W | torch GEMM us | torch collective us | torch both us | fgobench vendor us | fgobench / torch |")
        out.append("|---|---|---|---|---|---|---|---|")
        for row in csv.DictReader(open(torch_csv)):
            got = db.execute("SELECT MIN(t_baseline_ms) FROM problems WHERE algorithm = ? AND m = ? AND n = ?"
                             " AND k = ? AND world = ? AND t_baseline_ms > 0",
                             (fams[row["family"]], int(row["m"]), int(row["n"]), int(row["k"]),
                              int(row["world"]))).fetchone()[0]
            mine = "-" if got is None else "%.1f" % (got * 1000)
            ratio = "-" if got is None else "%.2f" % (got * 1000 / float(row["both_us"]))
            out.append("| %s | %sx%sx%s | %s | %s | %s | %s | %s | %s |" % (
                row["family"], row["m"], row["n"], row["k"], row["world"], row["gemm_us"], row["coll_us"],
                row["both_us"], mine, ratio))
        out.append("")
    counts = db.execute("SELECT status, COUNT(*) FROM runs GROUP BY status ORDER BY status").fetchall()
    out.append("Runs in the store by status: " + ", ".join("%s %d" % c for c in counts))
    print("\n".join(out))


if __name__ == "__main__":
    main()
