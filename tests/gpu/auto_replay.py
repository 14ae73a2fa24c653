#!/usr/bin/env python3
"""auto_replay.py FGOBENCH STORE GRID_TAG [TOP] [--no-model]: `--config auto`'s ranking replayed
on a stored grid, without a GPU. At each shape of the sweep tagged GRID_TAG
(gemm, W=1), `best --predict` ranks the configurations from the other shapes'
runs (the shape's own left out, as auto does); the first it ranks with
coverage >= 50% that the grid measured is the pick, scored by the grid's
time of it over the grid's best there. Prints a line a shape and the
geomean, the share within 5% and the worst: what a change to the ranking
or the cost model would give auto, before a GPU run confirms it. With
TOP (> 1), the pick is the fastest of the first TOP ranked configurations
the grid measured (what timing that many candidates at the shape would
give). The grid's own run of the pick stands for auto's run (the same
configuration, timed in the grid's sweep), so it differs from
heldout_table.py's auto column by the run-to-run noise. With --no-model
the ranking is `best --predict --no-model`'s (the nearest shapes'
measurements alone), to set a ranking without the cost model beside
auto's.
  python3 tests/gpu/auto_replay.py ./fgobench heldout_own_h100_1207.db perrank
"""
import csv
import io
import math
import sqlite3
import subprocess
import sys


def flags(reproduce):
    """The tunables of a reproduce command: what follows -k K."""
    words = reproduce.split()
    return " ".join(words[words.index("-k") + 2:])


def csv_rows(argv):
    out = subprocess.run(argv, capture_output=True, text=True, check=False).stdout
    return list(csv.DictReader(io.StringIO(out)))


def main():
    args = [a for a in sys.argv[1:] if a != "--no-model"]
    no_model = ["--no-model"] if len(args) < len(sys.argv) - 1 else []
    if len(args) not in (3, 4):
        sys.exit(__doc__.strip().splitlines()[0])
    fgo, db, tag = args[:3]
    top = int(args[3]) if len(args) == 4 else 1
    con = sqlite3.connect(db)
    shapes = con.execute("select distinct r.m, r.n, r.k from runs r join sweeps s on s.id = r.sweep_id"
                         " where s.tag = ? and r.status = 'ok' and r.algorithm = 'gemm'"
                         " order by r.m, r.n, r.k", (tag,)).fetchall()
    if not shapes:
        sys.exit(f"auto_replay: no ok gemm runs tagged {tag} in {db}")
    ratios = []
    for m, n, k in shapes:
        shape = ["--m", str(m), "--n", str(n), "--k", str(k)]
        grid = {flags(r["reproduce"]): float(r["ms"])
                for r in csv_rows([fgo, "best", "--db", db, "--tag", tag, *shape, "--top", "5000",
                                   "--format", "csv"])}
        ranked = csv_rows([fgo, "best", "--predict", "--db", db, *shape, "--algorithm", "gemm",
                           "--world", "1", "--dtype", "bf16", "--top", "1000", "--format", "csv",
                           *no_model])
        firsts = [r for r in ranked
                  if float(r["coverage"].rstrip("%")) >= 50 and flags(r["reproduce"]) in grid][:top]
        pick = min(firsts, key=lambda r: grid[flags(r["reproduce"])], default=None)
        if pick is None:
            print(f"{m} x {n} x {k}: no ranked configuration the grid measured")
            continue
        ratio = grid[flags(pick["reproduce"])] / min(grid.values())
        ratios.append(ratio)
        print(f"{m} x {n} x {k}: {ratio:.3f} {pick['config']}")
    if ratios:
        geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"auto (replayed) / best: geomean {geo:.3f}, within 5% on "
              f"{sum(r <= 1.05 for r in ratios)} of {len(ratios)}, max {max(ratios):.3f}")


if __name__ == "__main__":
    main()
