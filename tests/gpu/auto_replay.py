#!/usr/bin/env python3
"""auto_replay.py FGOBENCH STORE GRID_TAG [TOP] [--spread] [--no-model] [--table TAG]: `--config auto`'s ranking replayed
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
auto's. With --table TAG the defaults' pick at the shape (the fastest
run of the sweep tagged TAG there, a sweep with no tile given) is a
candidate beside the TOP ranked: what auto's trials time (`auto_trials`
TOP: `auto_replay.py ... 6 --spread --table heldout-defaults`); its
time is the grid's where the grid measured it, else that sweep's. With
--spread the TOP are auto's trials since the tiles rule (auto_pick_some:
the first half as ranked, then the first ranked of each tile none before
it has, then the next places) instead of the first TOP.
  python3 tests/gpu/auto_replay.py ./fgobench heldout_own_h100_1207.db perrank
"""
import csv
import io
import math
import re
import sqlite3
import subprocess
import sys


def flags(reproduce):
    """The tunables of a reproduce command: what follows -k K."""
    words = reproduce.split()
    return " ".join(words[words.index("-k") + 2:])


def tile_of(config):
    """The tile of a configuration's name: its block, split, walk and core
    (auto_pick.c's same_tile), whatever its stages, warps or tile order."""
    words = config.split()
    return (words[0], tuple(w for w in words if re.fullmatch(r"k\d+", w)),
            any(w.startswith("sm") and w != "sm0+0" for w in words),
            tuple(w for w in words if w in ("wgmma", "mma16", "mma32", "simt")))


def spread_tiles(ranked, top):
    """auto_pick_some's trials: the first half (rounded up) as ranked,
    then the first ranked of each tile none before it has, then the
    ranking's next places where it holds too few tiles."""
    head = ranked[:(top + 1) // 2]
    tiles = {tile_of(r["config"]) for r in head}
    others = []
    for r in ranked[len(head):]:
        if len(head) + len(others) < top and tile_of(r["config"]) not in tiles:
            others.append(r)
            tiles.add(tile_of(r["config"]))
    rest = [r for r in ranked[len(head):] if r not in others]
    return head + others + rest


def csv_rows(argv):
    out = subprocess.run(argv, capture_output=True, text=True, check=False).stdout
    return list(csv.DictReader(io.StringIO(out)))


def main():
    argv = sys.argv[1:]
    table_tag = None
    if "--table" in argv:
        i = argv.index("--table")
        if i + 1 >= len(argv):
            sys.exit(__doc__.strip().splitlines()[0])
        table_tag = argv[i + 1]
        del argv[i:i + 2]
    spread = "--spread" in argv
    argv = [a for a in argv if a != "--spread"]
    args = [a for a in argv if a != "--no-model"]
    no_model = ["--no-model"] if len(args) < len(argv) else []
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
                  if float(r["coverage"].rstrip("%")) >= 50 and flags(r["reproduce"]) in grid]
        if spread:
            firsts = spread_tiles(firsts, top)
        firsts = firsts[:top]
        times = {r["config"]: grid[flags(r["reproduce"])] for r in firsts}
        if table_tag:
            dflt = csv_rows([fgo, "best", "--db", db, "--tag", table_tag, *shape, "--top", "1",
                             "--format", "csv"])
            if dflt:
                times.setdefault(dflt[0]["config"] + " (the default)",
                                 grid.get(flags(dflt[0]["reproduce"]), float(dflt[0]["ms"])))
        if not times:
            print(f"{m} x {n} x {k}: no ranked configuration the grid measured")
            continue
        pick = min(times, key=times.get)
        ratio = times[pick] / min(grid.values())
        ratios.append(ratio)
        print(f"{m} x {n} x {k}: {ratio:.3f} {pick}")
    if ratios:
        geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"auto (replayed) / best: geomean {geo:.3f}, within 5% on "
              f"{sum(r <= 1.05 for r in ratios)} of {len(ratios)}, max {max(ratios):.3f}")


if __name__ == "__main__":
    main()
