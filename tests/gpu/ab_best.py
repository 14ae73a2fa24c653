#!/usr/bin/env python3
"""tests/gpu/ab_best.py OUT: after tests/gpu/ab.sh, the best fused time of
each (algorithm, world, M, N, K) of the base build and of the head, round by
round (tags ab-base-R and ab-head-R in OUT/ab-base.db and OUT/ab-head.db),
with each side's speedup over the vendor sequence of its own run, and per
round the geomean of head / base over the shapes with its range."""
import math
import sqlite3
import sys


def best(db, tag):
    b = {}
    for a, w, m, n, k, t, sp in sqlite3.connect(db).execute(
            "SELECT r.algorithm, r.world, r.m, r.n, r.k, r.t_fused_ms, r.speedup FROM runs r"
            " JOIN sweeps s ON s.id = r.sweep_id WHERE r.status = 'ok' AND s.tag = ?", (tag,)):
        if (a, w, m, n, k) not in b or t < b[(a, w, m, n, k)][0]:
            b[(a, w, m, n, k)] = (t, sp or float("nan"))
    return b


def main():
    out = sys.argv[1]
    r = 1
    while True:
        base = best(out + "/ab-base.db", "ab-base-%d" % r)
        head = best(out + "/ab-head.db", "ab-head-%d" % r)
        if not base or not head:
            break
        print("round %d\n| algorithm | W | shape | base ms (speedup) | head ms (speedup) | head / base |" % r)
        print("|---|---|---|---|---|---|")
        ratios = []
        for key in sorted(set(base) & set(head)):
            (tb, sb), (th, sh) = base[key], head[key]
            ratios.append(th / tb)
            print("| %s | %d | %dx%dx%d | %.4f (%.2fx) | %.4f (%.2fx) | %.3f |" % (key + (tb, sb, th, sh, th / tb)))
        if ratios:
            print("round %d: head / base geomean %.4f over %d shapes, %.3f-%.3f" % (
                r, math.exp(sum(map(math.log, ratios)) / len(ratios)), len(ratios), min(ratios), max(ratios)))
        r += 1


if __name__ == "__main__":
    main()
