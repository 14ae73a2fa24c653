#!/usr/bin/env python3
"""model_table.py OUT: issue 25's evidence tables (markdown) from what
tests/gpu/model.sh left in OUT: tune --strategy model against the grid (both
re-measured back to back), best --predict's top 1 and top 5 against the grid,
and the predicted speedups at W = 2, 4, 8."""
import csv
import glob
import io
import os
import re
import shlex
import sqlite3
import sys

SHAPES = [(1, 3072, 12288), (8, 6144, 4096), (32, 2560, 8192), (96, 7168, 4096),
          (384, 1536, 12288), (768, 5120, 6144), (2048, 3072, 5120), (8192, 2048, 3072)]
ALGOS = ("gemm", "all_scatter")
FIELDS = {"--BLK_M": "blk_m", "--BLK_N": "blk_n", "--BLK_K": "blk_k", "--num_stages": "num_stages",
          "--num_warps": "num_warps", "--gsize_m": "gsize_m", "--gemm_sms": "gemm_sms",
          "--comm_sms": "comm_sms", "--split_k": "split_k"}
BRIEF = "blk_m || 'x' || blk_n || ' s' || num_stages || case when split_k > 1 then ' k' || split_k else '' end || case when gemm_sms > 0 then ' sm' || gemm_sms else '' end"


def db(out, name):
    path = os.path.join(out, name)
    return sqlite3.connect(path) if os.path.exists(path) else None


def grid_best(g, algo, shape):
    return g.execute(f"select min(t_fused_ms), (select {BRIEF} from runs r2 where r2.algorithm = r.algorithm"
                     " and r2.m = r.m and r2.n = r.n and r2.k = r.k and r2.status = 'ok'"
                     " order by t_fused_ms limit 1) from runs r where algorithm = ? and m = ? and n = ?"
                     " and k = ? and status = 'ok'", (algo, *shape)).fetchone()


def fields_of(line):
    words = shlex.split(line)
    words = words[words.index("run") + 1:]
    return {FIELDS[f]: int(v) for f, v in zip(words[::2], words[1::2]) if f in FIELDS}


def measured(conn, algo, shape, f):
    where = " and ".join(f"{k} = ?" for k in f)
    row = conn.execute(f"select min(t_fused_ms) from runs where algorithm = ? and m = ? and n = ? and k = ?"
                       f" and status = 'ok' and {where}", (algo, *shape, *f.values())).fetchone()
    return row[0] if row else None


def tune_table(out):
    g, rm, tr = db(out, "grid.db"), db(out, "remeasure.db"), db(out, "train.db")
    print("| algorithm | M x N x K | grid's best (grid ms) | tune found | runs | re-measured: tune / grid ms | ratio |")
    print("|---|---|---|---|---|---|---|")
    hits = total = 0
    for algo in ALGOS:
        for s in SHAPES:
            best_ms, best_cfg = grid_best(g, algo, s)
            tag = f"model-{algo}-{s[0]}-{s[1]}-{s[2]}"
            found = tr.execute(f"select {BRIEF}, count(*) over () from runs r join sweeps w on w.id = r.sweep_id"
                               " where w.tag = ? and r.status = 'ok' order by t_fused_ms limit 1", (tag,)).fetchone()
            runs = tr.execute("select count(*) from runs r join sweeps w on w.id = r.sweep_id where w.tag = ?",
                              (tag,)).fetchone()[0]

            def rem(which):
                return rm.execute("select min(t_fused_ms) from runs r join sweeps w on w.id = r.sweep_id"
                                  " where w.tag = ? and r.status = 'ok'",
                                  (f"rm-{which}-{algo}-{s[0]}-{s[1]}-{s[2]}",)).fetchone()[0]
            t, b = rem("tune"), rem("grid")
            ratio = t / b if t and b else None
            total += 1
            hits += ratio is not None and ratio <= 1.03
            print(f"| {algo} | {s[0]} x {s[1]} x {s[2]} | {best_cfg} ({best_ms:.4f}) | {found[0] if found else '-'} |"
                  f" {runs} | {t or 0:.4f} / {b or 0:.4f} | {ratio:.3f} |" if ratio else
                  f"| {algo} | {s[0]} x {s[1]} x {s[2]} | {best_cfg} | {found[0] if found else '-'} | {runs} | - | - |")
    print(f"\ntune within 3% of the grid's best (re-measured back to back): **{hits} of {total}**\n")


def predict_table(out):
    g, p = db(out, "grid.db"), db(out, "predict.db")
    print("| algorithm | M x N x K | grid's best ms | predicted top 1 (predicted us) | its ms | top 1 / best | best of top 5 / best |")
    print("|---|---|---|---|---|---|---|")
    top1 = top5 = total = 0
    for algo in ALGOS:
        for s in SHAPES:
            best_ms, _ = grid_best(g, algo, s)
            path = os.path.join(out, f"predict-{algo}-{s[0]}x{s[1]}x{s[2]}.csv")
            rows = list(csv.DictReader(open(path))) if os.path.exists(path) else []
            times = [measured(p, algo, s, fields_of(r["reproduce"])) for r in rows]
            total += 1
            if not rows or times[0] is None:
                print(f"| {algo} | {s[0]} x {s[1]} x {s[2]} | {best_ms:.4f} | - | - | - | - |")
                continue
            r1 = times[0] / best_ms
            r5 = min(t for t in times if t) / best_ms
            top1 += r1 <= 1.10
            top5 += r5 <= 1.03
            print(f"| {algo} | {s[0]} x {s[1]} x {s[2]} | {best_ms:.4f} | {rows[0]['config']} ({rows[0]['predicted_us']}) |"
                  f" {times[0]:.4f} | {r1:.3f} | {r5:.3f} |")
    print(f"\n--predict top 1 within 10%: **{top1} of {total}**; a configuration within 3% in its top 5:"
          f" **{top5} of {total}**\n")


def world_table(out):
    print("| family | W | M x N x K | per-rank GEMM | gemm us | comm us | fused us | GEMM then collective us | speedup |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(out, "world-*.csv")),
                       key=lambda p: [int(x) for x in re.findall(r"\d+", os.path.basename(p))]):
        w, shape = re.match(r"world-(\d+)-(.*)\.csv", os.path.basename(path)).groups()
        text = open(path).read()  # tests/gpu/run.sh mixes the notes into stdout
        text = text[text.find("algorithm,W,"):] if "algorithm,W," in text else ""
        for r in csv.DictReader(io.StringIO(text)):
            if r["algorithm"].startswith("sk_"):
                continue
            print(f"| {r['algorithm']} | {w} | {shape.replace('x', ' x ')} | {r['per-rank GEMM']} ({r['gemm_from']}) |"
                  f" {r['gemm_us']} | {r['comm_us']} | {r['fused_us']} | {r['baseline_us']} | {r['speedup']} |")
    print()


if __name__ == "__main__":
    out = sys.argv[1]
    tune_table(out)
    predict_table(out)
    world_table(out)
