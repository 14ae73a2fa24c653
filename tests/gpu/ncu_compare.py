#!/usr/bin/env python3
"""tests/gpu/ncu_compare.py A.csv B.csv: two kernels' Nsight Compute
details pages (`ncu --csv --page details`, one kernel each) side by side,
the metrics that say where a GEMM's time goes first (tests/gpu/ncu_gemm.sh).
tests/gpu/ncu_compare.py --gemm-kernel RAW.csv: the most launched kernel
of a raw page whose name says GEMM (cuBLAS's: nvjet, xmma, gemm), for
ncu_gemm.sh to profile."""
import collections
import csv
import io
import sys

FIRST = ["Duration", "Grid Size", "Block Size", "Cluster Size", "Registers Per Thread",
         "Dynamic Shared Memory Per Block", "Compute (SM) Throughput", "DRAM Throughput",
         "Memory Throughput", "L2 Hit Rate", "L1/TEX Hit Rate", "Executed Ipc Active",
         "Issue Slots Busy", "No Eligible", "Warp Cycles Per Issued Instruction",
         "Achieved Active Warps Per SM"]


def table(path):
    """The CSV after ncu's own lines (==PROF==, the program's output)."""
    lines = open(path, errors="replace").read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        sys.exit("ncu_compare.py: %s holds no ncu CSV" % path)
    return list(csv.reader(io.StringIO("\n".join(lines[start:]))))


def metrics(path):
    rows = table(path)
    h = rows[0]
    name, unit, value = h.index("Metric Name"), h.index("Metric Unit"), h.index("Metric Value")
    return {r[name]: (r[value], r[unit]) for r in rows[1:] if len(r) > value and r[name]}


def gemm_kernel(path):
    rows = table(path)
    h = rows[0]
    k = h.index("Kernel Name")
    seen = collections.Counter(r[k] for r in rows[1:] if len(r) > k and
                               any(w in r[k].lower() for w in ("nvjet", "xmma", "gemm")))
    return seen.most_common(1)[0][0][:60] if seen else ""


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--gemm-kernel":
        print(gemm_kernel(sys.argv[2]))
        return
    if len(sys.argv) != 3:
        sys.exit("usage: tests/gpu/ncu_compare.py A.csv B.csv | --gemm-kernel RAW.csv")
    a, b = metrics(sys.argv[1]), metrics(sys.argv[2])
    print("| metric | %s | %s | unit |" % tuple(p.rsplit("/", 1)[-1] for p in sys.argv[1:]))
    print("|---|---|---|---|")
    for m in FIRST + sorted(k for k in a if k in b and k not in FIRST):
        if m in a and m in b:
            print("| %s | %s | %s | %s |" % (m, a[m][0], b[m][0], a[m][1]))


if __name__ == "__main__":
    main()
