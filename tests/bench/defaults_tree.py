#!/usr/bin/env python3
"""defaults_tree.py TRAIN TEST [--depth D] [--min-leaf N] [--table-tag TAG]:
a study of issue 49's "boundaries derived from a store": the per-rank GEMM
defaults (gemm, W=1) as a tree of boxes over log2 M, N and K, each box's
pick the configuration with the lowest mean log(time / the shape's best)
over the training shapes in it, cut where a cut lowers that sum the most,
down to D levels (default 3: 8 boxes) with at least N shapes a box
(default 2). Trained on TRAIN's grids, scored on TEST's, no GPU.

TRAIN and TEST are STORE:TAG[,STORE:TAG...], the grid sweeps (every
configuration of sweeps/perrank.json's rules at each shape): the own set
(`perrank`) and the held-out draws (`heldout-perrank`). A box's pick not
measured at a training shape counts as 1.65x there (log 0.5). Scored like
tests/gpu/heldout_table.py's defaults column, but from the grid's own
times: at each TEST shape the pick's time in that grid / the grid's best,
the geomean, how many within 15% (issue 49's target: every one) and the
worst. With --table-tag TAG (the sweep of that store with no tile given,
e.g. heldout-defaults) the committed table's picks there are scored the
same way beside it; with --keep-hand, a box whose pick does worse than
the table's on its training shapes keeps the table's (each TRAIN then
STORE:GRID_TAG:DEFAULTS_TAG); with --knn K, a table with no boxes too: at each
shape the pick over its K nearest training shapes. Prints the tree as
the rows it would be: first
match wins, the cut's far side written first where the table's fields
cannot bound it (N from below, K from above).

It writes nothing: the table in src/spec/defaults_rows.inc is still the
hand-chosen one (docs/heldout.md, "A derived table").
  python3 tests/bench/defaults_tree.py own.db:perrank,s49.db:heldout-perrank \\
      s50.db:heldout-perrank --table-tag heldout-defaults
"""
import argparse
import math
import sqlite3

MISS = 0.5  # log of the penalty for a pick a training shape did not measure


def grid(spec):
    """{(m, n, k): {configuration: time / the shape's best}} of STORE:TAG's ok gemm runs."""
    db, tag = spec.split(":")[:2]
    con = sqlite3.connect(db)
    times = {}
    for m, n, k, key, t in con.execute(
            "select r.m, r.n, r.k, r.config_key, min(r.t_fused_ms) from runs r"
            " join sweeps s on s.id = r.sweep_id where s.tag = ? and r.status = 'ok'"
            " and r.algorithm = 'gemm' and r.world = 1 group by r.m, r.n, r.k, r.config_key", (tag,)):
        times.setdefault((m, n, k), {})[key.split("/", 4)[4]] = t
    if not times:
        raise SystemExit(f"defaults_tree: no ok gemm W=1 runs tagged {tag} in {db}")
    return {s: {c: t / min(v.values()) for c, t in v.items()} for s, v in times.items()}


def table_picks(spec, tag):
    """{(m, n, k): configuration} of the sweep tagged tag in STORE (no tile given)."""
    db = spec.split(":")[0]
    con = sqlite3.connect(db)
    return {(m, n, k): key.split("/", 4)[4] for m, n, k, key in con.execute(
        "select r.m, r.n, r.k, r.config_key from runs r join sweeps s on s.id = r.sweep_id"
        " where s.tag = ? and r.status = 'ok'", (tag,))}


def loss_of(shapes, data, pick_of):
    """The sum over shapes of log(time / best) of pick_of(shape) there
    (MISS where the grid did not measure it)."""
    return sum(math.log(data[s][pick_of(s)]) if pick_of(s) in data[s] else MISS for s in shapes)


def loss(shapes, data, cfg):
    return loss_of(shapes, data, lambda s: cfg)


def best_pick(shapes, data):
    # only what a table row can set: gsize_m 8, no Stream-K CTAs, no
    # communication tile, no cluster, no deterministic walk
    cands = {c for s in shapes for c in data[s] if "/g8/sm0+0/c0x0" in c and "/cl" not in c
             and "/det" not in c}
    return min(sorted(cands), key=lambda c: loss(shapes, data, c))


def grow(shapes, data, depth, min_leaf):
    pick = best_pick(shapes, data)
    node = {"pick": pick, "shapes": shapes}
    if depth == 0 or len(shapes) < 2 * min_leaf:
        return node
    here, cut = loss(shapes, data, pick), None
    for d in range(3):
        values = sorted({math.log2(s[d]) for s in shapes})
        for a, b in zip(values, values[1:]):
            at = 2 ** ((a + b) / 2)
            lo = [s for s in shapes if s[d] < at]
            hi = [s for s in shapes if s[d] >= at]
            if len(lo) < min_leaf or len(hi) < min_leaf:
                continue
            total = loss(lo, data, best_pick(lo, data)) + loss(hi, data, best_pick(hi, data))
            if total < here and (cut is None or total < cut[0]):
                cut = (total, d, at, lo, hi)
    if cut:
        node.update(dim=cut[1], at=cut[2], lo=grow(cut[3], data, depth - 1, min_leaf),
                    hi=grow(cut[4], data, depth - 1, min_leaf))
    return node


def distance(a, b):
    """Between two shapes, in log2 units of M, N and K (best --predict's)."""
    return math.sqrt(sum((math.log2(x) - math.log2(y)) ** 2 for x, y in zip(a, b)))


def knn_pick(train, s, k):
    """No boxes: the pick over the k measured shapes nearest to s."""
    return best_pick(sorted(train, key=lambda t: distance(s, t))[:k], train)


def leaf_at(node, s):
    while "dim" in node:
        node = node["lo"] if s[node["dim"]] < node["at"] else node["hi"]
    return node


def pick_at(node, s):
    return leaf_at(node, s)["pick"]


def mark_hand(node, train, hand):
    """Each box keeps the table's own picks (node["hand"]) where they do
    better than its pick on its training shapes (hand: the table's pick
    at each training shape)."""
    if "dim" in node:
        mark_hand(node["lo"], train, hand)
        mark_hand(node["hi"], train, hand)
        return
    node["hand"] = (loss_of(node["shapes"], train, hand.get) <=
                    loss(node["shapes"], train, node["pick"]))


def rows(node, bounds=None):
    """The boxes in first-match order with the bounds a row can hold
    (M from and to, N to, K from): a cut on N writes its low side first,
    a cut on K its high side, so each row needs no other bound."""
    bounds = bounds or {"m_min": 1, "m_max": 0, "n_max": 0, "k_min": 0}
    if "dim" not in node:
        return [(dict(bounds), node)]
    lo, hi = dict(bounds), dict(bounds)
    at = math.ceil(node["at"])
    if node["dim"] == 0:
        lo["m_max"], hi["m_min"] = at - 1, at
        first, second = (lo, node["lo"]), (hi, node["hi"])
    elif node["dim"] == 1:
        lo["n_max"] = at - 1
        first, second = (lo, node["lo"]), (hi, node["hi"])
    else:
        hi["k_min"] = at
        first, second = (hi, node["hi"]), (lo, node["lo"])
    return rows(first[1], first[0]) + rows(second[1], second[0])


def score(picks, data):
    ratios = [data[s][c] for s, c in picks.items() if c in data[s]]
    missing = len(picks) - len(ratios)
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    return (f"{len(ratios)} shapes{f' ({missing} picks not in the grid)' if missing else ''}: geomean"
            f" {geo:.3f}, within 15% {sum(r <= 1.15 for r in ratios)}, worst {max(ratios):.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("train")
    ap.add_argument("test")
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--min-leaf", type=int, default=2)
    ap.add_argument("--table-tag")
    ap.add_argument("--keep-hand", action="store_true",
                    help="boxes whose pick loses to the table's on their training shapes keep the"
                         " table's (each TRAIN as STORE:GRID_TAG:DEFAULTS_TAG; needs --table-tag)")
    ap.add_argument("--knn", type=int, metavar="K",
                    help="also score the pick over the K nearest training shapes")
    a = ap.parse_args()
    train = {}
    for spec in a.train.split(","):
        train.update(grid(spec))
    tree = grow(sorted(train), train, a.depth, a.min_leaf)
    if a.keep_hand:
        hand = {}
        for spec in a.train.split(","):
            if spec.count(":") != 2 or not a.table_tag:
                raise SystemExit("defaults_tree: --keep-hand needs each TRAIN as"
                                 " STORE:GRID_TAG:DEFAULTS_TAG and --table-tag")
            hand.update(table_picks(spec, spec.split(":")[2]))
        mark_hand(tree, train, hand)
    boxes = rows(tree)
    print(f"a tree of {len(boxes)} boxes from {len(train)} shapes (depth {a.depth}, at least"
          f" {a.min_leaf} a box); rows, first match wins:")
    for i, (b, leaf) in enumerate(boxes, 1):
        print(f"  {i}: M {b['m_min']}..{b['m_max'] or 'any'}, N to {b['n_max'] or 'any'}, K from"
              f" {b['k_min']}: {leaf['pick']} ({len(leaf['shapes'])} shapes)")
    print(f"train: {score({s: pick_at(tree, s) for s in train}, train)}")
    for spec in a.test.split(","):
        data = grid(spec)
        print(f"{spec} tree: {score({s: pick_at(tree, s) for s in data}, data)}")
        if a.keep_hand:
            picks = table_picks(spec, a.table_tag)
            mixed = {s: picks[s] if leaf_at(tree, s)["hand"] else pick_at(tree, s)
                     for s in data if s in picks}
            kept = sum(1 for _, leaf in boxes if leaf["hand"])
            print(f"{spec} tree, the table's picks in {kept} of its boxes: {score(mixed, data)}")
        if a.knn:
            print(f"{spec} {a.knn} nearest: {score({s: knn_pick(train, s, a.knn) for s in data}, data)}")
        if a.table_tag:
            picks = table_picks(spec, a.table_tag)
            print(f"{spec} table ({a.table_tag}): "
                  f"{score({s: c for s, c in picks.items() if s in data}, data)}")


if __name__ == "__main__":
    main()
