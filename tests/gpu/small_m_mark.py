#!/usr/bin/env python3
"""tests/gpu/small_m_mark.py STORE [GBPS]: issue 31's small-M mark, "the
fused kernel costs no more than its GEMM + the bytes it moves", on a store
of runs at W > 1 (tests/gpu/mgpu.sh and sweeps/mgpu_small_m_all.json at
M = 16, 64, 128 x 4096 x 14336). For each family, W and M, the fastest ok
run's fused time over its own GEMM-only time (t_gemm) plus the bytes a
GPU sends, W - 1 times those on its busiest link (link_gbps x t_fused),
at GBPS (default 370, calibrate's SM stores between two H100s over
NVLink); then the range per W and the three furthest."""
import collections
import sqlite3
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: tests/gpu/small_m_mark.py STORE [GBPS]")
    gbps = float(sys.argv[2]) if len(sys.argv) > 2 else 370.0
    best = {}
    for a, w, m, f, g, lk in sqlite3.connect(sys.argv[1]).execute(
            "SELECT algorithm, world, m, t_fused_ms, t_gemm_ms, link_gbps FROM runs"
            " WHERE status = 'ok' AND world > 1 AND m IN (16, 64, 128) AND n = 4096"
            " AND k = 14336 AND algorithm != 'gemm' AND t_gemm_ms > 0"):
        if (a, w, m) not in best or f < best[(a, w, m)][0]:
            best[(a, w, m)] = (f, g, lk or 0.0)
    by_w = collections.defaultdict(list)
    for (a, w, m), (f, g, lk) in best.items():
        mark = g + (w - 1) * lk * f / gbps  # GB/s x ms / GB/s = ms
        by_w[w].append((f / mark, a, m))
    for w in sorted(by_w):
        r = sorted(by_w[w])
        far = ", ".join("%s M=%d %.2f" % (a, m, x) for x, a, m in r[-3:])
        print("W=%d: fused / (GEMM + bytes at %.0f GB/s) %.2f-%.2f over %d (family, M); furthest: %s"
              % (w, gbps, r[0][0], r[-1][0], len(r), far))


if __name__ == "__main__":
    main()
