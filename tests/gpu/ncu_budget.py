#!/usr/bin/env python3
"""ncu_budget.py PAGE.csv M N K TILE_M TILE_N [PAGE.csv M N K TILE_M TILE_N ...]:
where a GEMM launch's cycles go, from an Nsight Compute details page
(`ncu --csv --page details`, one kernel: tests/gpu/ncu_gemm.sh) and the
tile its CTAs compute (issue 49: the held-out set's short-K shapes, where
a CTA computes one tile or two).

Three parts of the elapsed cycles, each from the page's own counters:
  tensor   a mean CTA's MACs at the SM's dense peak, 2048 16-bit MACs a
           cycle (4 tensor cores x 512; H100 and H200): the tiles over the
           CTAs, each ceil(K / 64) slices of TILE_M x TILE_N x 64 (partial
           tiles and a partial last slice compute whole)
  in-CTA   a CTA's life beyond that (its setup, the ring's fill, the main
           loop's stalls, the epilogue): the SMs' mean active cycles
           (`SM Active Cycles`, over all SMs) x SMs / CTAs, less tensor
  outside  the elapsed cycles beyond a mean CTA's life: CTAs that start
           late or end late (the launch waits for its slowest), and the
           launch's own start and end
The ratios of two pages (fgobench's and cuBLAS's at one shape) say which
part the gap is in. Tile sides as the CTA computes them: cuBLAS names its
tiles N side first (`nvjet_sm90_tst_128x224`: 224 rows of M by 128 of N).
  python3 tests/gpu/ncu_budget.py fgo.csv 2194 1600 1968 128 256 cublas.csv 2194 1600 1968 224 128
"""
import math
import sys

from ncu_compare import metrics

MACS_PER_CYCLE = 2048  # an SM's dense 16-bit tensor rate (H100, H200)


def usage_error(text):
    print(text, file=sys.stderr)
    sys.exit(2)


def number(m, name):
    value = m.get(name, ("", ""))[0].replace(",", "")
    try:
        return float(value)
    except ValueError:
        usage_error(f"ncu_budget.py: the page has no number for {name!r}")


def budget(path, m_, n, k, tile_m, tile_n):
    m = metrics(path)
    elapsed = number(m, "Elapsed Cycles")
    active = number(m, "SM Active Cycles")
    sms, ctas = number(m, "# SMs"), number(m, "Grid Size")
    life = active * sms / ctas
    tiles = math.ceil(m_ / tile_m) * math.ceil(n / tile_n)
    tensor = tiles / ctas * math.ceil(k / 64) * tile_m * tile_n * 64 / MACS_PER_CYCLE
    return {"path": path, "elapsed": elapsed, "ctas": ctas, "tensor": tensor, "life": life,
            "in_cta": life - tensor, "outside": elapsed - life,
            "ghz": number(m, "SM Frequency") / 1e9}


def main():
    args = sys.argv[1:]
    if not args or len(args) % 6:
        usage_error("usage: " + __doc__.strip().splitlines()[0])
    rows = [budget(args[i], *(int(a) for a in args[i + 1:i + 6])) for i in range(0, len(args), 6)]
    print("| page | CTAs | elapsed | tensor | in-CTA | outside | life / tensor | elapsed / life | GHz |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['path']} | {r['ctas']:.0f} | {r['elapsed']:.0f} | {r['tensor']:.0f} | {r['in_cta']:.0f} |"
              f" {r['outside']:.0f} | {r['life'] / r['tensor']:.3f} | {r['elapsed'] / r['life']:.3f} |"
              f" {r['ghz']:.3f} |")
    if len(rows) == 2:
        a, b = rows
        parts = (a["tensor"] / b["tensor"], (a["life"] / a["tensor"]) / (b["life"] / b["tensor"]),
                 (a["elapsed"] / a["life"]) / (b["elapsed"] / b["life"]))
        print(f"elapsed cycles {a['elapsed'] / b['elapsed']:.3f}x = tensor work {parts[0]:.3f}x"
              f" * in-CTA {parts[1]:.3f}x * outside {parts[2]:.3f}x")


if __name__ == "__main__":
    main()
