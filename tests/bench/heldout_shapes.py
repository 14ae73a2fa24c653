#!/usr/bin/env python3
"""tests/bench/heldout_shapes.py [--seed S] [--models N] [--random N] [--out DIR]
[--sweeps DIR] [--check]: the held-out per-rank GEMM shapes of issue 49, a test
set the project does not tune on, drawn by rule with a fixed seed, and the
three specs that measure them (docs/heldout.md says how to run them and judge):

  sweeps/heldout_perrank.json   the shapes over sweeps/perrank.json's grid:
                                its blocks unchanged, each block that lists
                                shapes of its own (the swapped tiles at
                                M <= 64, the tile-order groups at M >= 512)
                                given the held-out shapes its rule takes
  sweeps/heldout_defaults.json  the shapes with no tile: the defaults table
  sweeps/heldout_auto.json      the same with "config": "auto"

The shapes (bf16 gemm at W=1 against cuBLAS, as perrank.json):
  - per-rank GEMMs of public models under tensor parallelism at W = 1, 2,
    4, 8 (--models of them, spread evenly over the four W): a projection's
    output columns or its reduction split over the W ranks as Megatron-style
    tensor parallelism splits it (QKV and the MLP's up projection by
    columns: N = out / W, K = hidden; the attention output and the MLP's
    down projection by rows: N = hidden, K = in / W), M tokens from decode
    batches (1..192) and prefill chunks (256..16384). MODELS below lists
    the sizes (each model's published config.json: hidden_size,
    intermediate_size, num_attention_heads, num_key_value_heads, head_dim);
  - --random shapes log-uniform in the field's ranges: M 1..16384, N and K
    512..28672 rounded to a multiple of 16 (the per-rank shapes are
    multiples of 8 or 16: TMA wants 16-byte rows).
A draw outside the ranges, a repeat, or a shape that any spec under sweeps/
(--sweeps; every .json and .csv, the datasets too, the held-out specs
themselves excepted) already measures is drawn again; so is one that is
such a spec shape's per-rank GEMM at W = 2, 4 or 8 (N/W, K/W or M/W of it),
since the fused specs' runs tuned the defaults table too. The generator
says how many it refused and why.

The draw is a splitmix64 stream of --seed (default 49, the issue), so the
output is the same on every machine and Python version. --check writes
nothing: it regenerates and compares with the files in --out byte for byte,
and checks the committed shapes against the specs as they are now (a spec
added later that measures a held-out shape makes it tuned-on: draw a fresh
set with another seed). Exit 0 when all holds, 1 when not (saying what),
2 on bad arguments.
"""
import argparse
import csv
import glob
import json
import math
import os
import sys
import tempfile

SEED = 49
M_MIN, M_MAX = 1, 16384
NK_MIN, NK_MAX = 512, 28672
WORLDS = (1, 2, 4, 8)
# decode batches and prefill chunks: the tokens of one step
TOKENS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
          256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384)

# name: hidden, intermediate (MLP), attention heads, KV heads, head dim
MODELS = (
    ("Llama-3.1-8B", 4096, 14336, 32, 8, 128),
    ("Llama-3.1-70B", 8192, 28672, 64, 8, 128),
    ("Llama-3.2-3B", 3072, 8192, 24, 8, 128),
    ("Llama-2-13B", 5120, 13824, 40, 40, 128),
    ("Mistral-Nemo-12B", 5120, 14336, 32, 8, 128),
    ("Qwen2.5-7B", 3584, 18944, 28, 4, 128),
    ("Qwen2.5-14B", 5120, 13824, 40, 8, 128),
    ("Qwen2.5-32B", 5120, 27648, 40, 8, 128),
    ("Gemma-2-9B", 3584, 14336, 16, 8, 256),
    ("Gemma-2-27B", 4608, 36864, 32, 16, 128),
    ("Phi-3-mini", 3072, 8192, 32, 32, 96),
)
PROJECTIONS = ("qkv", "o", "up", "down")

# the held-out sets' own specs (heldout_widths.json, heldout_swap.json and
# heldout_swap_pairs.json measure new tile sizes there and tune nothing)
OWN = ("heldout_perrank.json", "heldout_defaults.json", "heldout_auto.json", "heldout_mgpu.json",
       "heldout_widths.json", "heldout_swap.json", "heldout_swap_pairs.json")

# the fused set (issue 51): global shapes at W = 2 and 4, so M, N and K are
# multiples of 4 (every family's divisibility at both W: all_scatter's N,
# the K-sharded families' K, reduce_scatter's and the gather's M) and N and
# K of 32 (a rank's shard of N or K a multiple of 8: 16-byte TMA rows)
FUSED_WORLDS = (2, 4)
FUSED_M_MIN, FUSED_NK_MIN, FUSED_NK_MAX = 4, 1024, 36864
DECODE_MAX = 192
FUSED_STREAM = 51 << 32  # the fused draw's stream: --seed plus this, apart from the per-rank one


class Rng:
    """splitmix64: the same stream everywhere (Python's random may change)."""

    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFFFFFFFFFF

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return z ^ (z >> 31)

    def uniform(self):
        return (self.next() >> 11) / float(1 << 53)

    def below(self, n):
        return self.next() % n


def per_rank(model, proj, w, m):
    """The per-rank GEMM of one projection of model at W ranks, M tokens."""
    _, hidden, inter, heads, kv, hd = model
    if proj == "qkv":
        return m, (heads + 2 * kv) * hd // w, hidden
    if proj == "o":
        return m, hidden, heads * hd // w
    if proj == "up":
        return m, inter // w, hidden
    return m, hidden, inter // w


# ---- the shapes the specs under sweeps/ measure ----

def values(v):
    """A spec field's values: a number, a list, or {"from", "to", "mul"|"step"}."""
    if isinstance(v, list):
        return [int(x) for x in v]
    if isinstance(v, dict):
        a, b = int(v["from"]), int(v["to"])
        mul, step = v.get("mul"), v.get("step")
        out, x = [], a
        while x <= b:
            out.append(x)
            x = x * int(mul) if mul else x + int(step)
        return out
    return [int(v)]


def lower_keys(obj):
    return {k.lower(): v for k, v in obj.items()}


def block_shapes(top, block):
    """The [M, N, K] a block measures, over the top level's (spec_sweep.c's
    run_block: a block's "shapes" replaces inherited M/N/K and the other way
    round)."""
    b = lower_keys(block)
    if "shapes" in b:
        return [tuple(int(x) for x in s) for s in b["shapes"]]
    dims = {d: b.get(d) for d in "mnk"}
    if any(dims[d] is not None for d in "mnk"):
        src = {d: dims[d] if dims[d] is not None else top.get(d) for d in "mnk"}
    elif "shapes" in top:
        return [tuple(int(x) for x in s) for s in top["shapes"]]
    else:
        src = {d: top.get(d) for d in "mnk"}
    if any(src[d] is None for d in "mnk"):
        return []  # the flags give the rest
    return [(m, n, k) for m in values(src["m"]) for n in values(src["n"]) for k in values(src["k"])]


def spec_shapes(path):
    """Every [M, N, K] of one spec or dataset file."""
    if path.endswith(".csv"):
        with open(path) as f:
            rows = csv.reader(line for line in f if not line.startswith("#"))
            head = [h.strip().lower() for h in next(rows, [])]
            if not all(d in head for d in "mnk"):
                return []
            i = [head.index(d) for d in "mnk"]
            return [tuple(int(r[j]) for j in i) for r in rows if len(r) > max(i)]
    with open(path) as f:
        spec = json.load(f)
    if isinstance(spec, list):  # a dataset: objects with m, n, k
        out = []
        for o in spec:
            o = lower_keys(o)
            if all(d in o for d in "mnk"):
                out.append((int(o["m"]), int(o["n"]), int(o["k"])))
        return out
    top = lower_keys(spec)
    blocks = top.get("blocks") or [{}]
    out = []
    for b in blocks:
        out.extend(block_shapes(top, b))
    return out


def tuned_shapes(sweeps):
    """{shape: first spec that measures it} and {per-rank form: spec}."""
    exact, derived = {}, {}
    files = sorted(glob.glob(os.path.join(sweeps, "**", "*.json"), recursive=True) +
                   glob.glob(os.path.join(sweeps, "**", "*.csv"), recursive=True))
    for path in files:
        if os.path.basename(path) in OWN:
            continue
        name = os.path.relpath(path, os.path.dirname(os.path.abspath(sweeps)))
        for m, n, k in spec_shapes(path):
            exact.setdefault((m, n, k), name)
            for w in WORLDS[1:]:
                for s in ((m, n // w, k), (m, n, k // w), (m // w, n, k)):
                    if min(s) >= 1:
                        derived.setdefault(s, "%s (%dx%dx%d at W=%d)" % (name, m, n, k, w))
    return exact, derived, len(files)


# ---- the draw ----

def draw(seed, nmodels, nrandom, exact, derived):
    rng = Rng(seed)
    shapes, why = [], []
    refused = {"range": 0, "repeat": 0, "spec": 0, "per-rank": 0}

    def take(s, what):
        m, n, k = s
        if not (M_MIN <= m <= M_MAX and NK_MIN <= n <= NK_MAX and NK_MIN <= k <= NK_MAX) or n % 8 or k % 8:
            refused["range"] += 1
        elif s in (x for x, _ in shapes):
            refused["repeat"] += 1
        elif s in exact:
            refused["spec"] += 1
        elif s in derived:
            refused["per-rank"] += 1
        else:
            shapes.append((s, what))
            return True
        return False

    per_w = [nmodels // len(WORLDS) + (i < nmodels % len(WORLDS)) for i in range(len(WORLDS))]
    for w, count in zip(WORLDS, per_w):
        got = 0
        while got < count:
            model = MODELS[rng.below(len(MODELS))]
            proj = PROJECTIONS[rng.below(len(PROJECTIONS))]
            m = TOKENS[rng.below(len(TOKENS))]
            got += take(per_rank(model, proj, w, m), "%s %s W=%d, %d token%s" % (model[0], proj, w, m, "s" if m > 1 else ""))
    got = 0
    while got < nrandom:
        m = int(round(math.exp(rng.uniform() * math.log(M_MAX / M_MIN)) * M_MIN))
        n, k = (min(NK_MAX, max(NK_MIN, 16 * int(round(
            math.exp(math.log(NK_MIN) + rng.uniform() * math.log(NK_MAX / NK_MIN)) / 16))))
            for _ in range(2))
        got += take((m, n, k), "log-uniform")
    return shapes, refused


# ---- the specs ----

def block_rule(block_ms, all_ms):
    """The M range a block's own shapes cover, open where they reach the
    grid's first or last M: (lo or None, hi or None)."""
    lo, hi = min(block_ms), max(block_ms)
    return (None if lo == min(all_ms) else lo, None if hi == max(all_ms) else hi)


def in_rule(m, rule):
    lo, hi = rule
    return (lo is None or m >= lo) and (hi is None or m <= hi)


def rule_text(rule):
    lo, hi = rule
    if lo is None and hi is None:
        return "every M"
    if lo is None:
        return "M <= %d" % hi
    if hi is None:
        return "M >= %d" % lo
    return "%d <= M <= %d" % (lo, hi)


def dump(obj):
    """Tab-indented JSON as the shipped specs are, an [M, N, K] a line."""
    text = json.dumps(obj, indent="\t", ensure_ascii=False)
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        # a list of three numbers: one line
        if line.rstrip().endswith("[") and i + 4 < len(lines) and all(
                lines[i + j].strip().rstrip(",").isdigit() for j in (1, 2, 3)) and \
                lines[i + 4].strip().startswith("]"):
            nums = [lines[i + j].strip().rstrip(",") for j in (1, 2, 3)]
            out.append(line.rstrip()[:-1] + "[" + ", ".join(nums) + lines[i + 4].strip())
            i += 5
            continue
        out.append(line)
        i += 1
    return "\n".join(out) + "\n"


def specs(shapes, seed, grid, grid_name):
    triples = [list(s) for s, _ in shapes]
    all_ms = [s[0] for s in grid["shapes"]]
    grid_set = {tuple(s) for s in grid["shapes"]}
    blocks, rules = [], []
    for b in grid["blocks"]:
        b = dict(b)
        if "shapes" in b:
            own = [tuple(s) for s in b["shapes"]]
            if not set(own) <= grid_set:
                raise SystemExit("heldout_shapes: a block of %s lists shapes outside its top level:"
                                 " its rule cannot be read" % grid_name)
            rule = block_rule([s[0] for s in own], all_ms)
            want = sorted(s for s in grid_set if in_rule(s[0], rule))
            if sorted(own) != want:
                raise SystemExit("heldout_shapes: a block of %s lists shapes that are no M range of"
                                 " its top level's: its rule cannot be read" % grid_name)
            b["shapes"] = [t for t in triples if in_rule(t[0], rule)]
            rules.append(rule_text(rule))
            if not b["shapes"]:
                continue  # no held-out shape in its range: the block has nothing to run
        blocks.append(b)
    origin = ("the held-out per-rank GEMMs of issue 49, drawn by tests/bench/heldout_shapes.py"
              " --seed %d (%d shapes: per-rank GEMMs of public models at W = 1, 2, 4, 8 and"
              " log-uniform M, N, K; none measured by another spec; docs/heldout.md)" % (seed, len(triples)))
    # what the three specs share, after their name and description
    common = {key: grid[key] for key in ("iterations", "warmup", "algorithm", "dtype", "world")}
    common["shapes"] = triples
    perrank = {
        "name": "heldout_perrank",
        "description": origin + ", over the grid of %s: its blocks unchanged, each block's own"
        " shapes the held-out shapes of its rule (%s); bf16 gemm at W=1 against cuBLAS in the"
        " same run" % (grid_name, "; ".join(rules)),
        **common,
        "blocks": blocks,
    }
    plain = {
        "name": "heldout_defaults",
        "description": origin + ", with no tile given: the defaults table's pick (sweep"
        " sweeps/heldout_auto.json for --config auto's); bf16 gemm at W=1 against cuBLAS",
        **common,
    }
    auto = dict(plain)
    auto["name"] = "heldout_auto"
    auto["description"] = origin + ", with no tile given and \"config\": \"auto\": this host's" \
        " cost model ranks as `best --predict` where its store has runs near the shape, the" \
        " defaults table elsewhere; bf16 gemm at W=1 against cuBLAS"
    auto["config"] = "auto"
    return {"heldout_perrank.json": dump(perrank), "heldout_defaults.json": dump(plain),
            "heldout_auto.json": dump(auto)}


# ---- the fused set (issue 51) ----

def global_shape(model, proj, m):
    """The whole GEMM of one projection of model, M tokens (the fused
    families split it over the ranks themselves)."""
    _, hidden, inter, heads, kv, hd = model
    return {"qkv": (m, (heads + 2 * kv) * hd, hidden), "o": (m, hidden, heads * hd),
            "up": (m, inter, hidden), "down": (m, hidden, inter)}[proj]


def fused_forms(s):
    """The per-rank GEMMs of global shape s at W = 2 and 4, every family's."""
    m, n, k = s
    return [(m, n // w, k) for w in FUSED_WORLDS] + [(m, n, k // w) for w in FUSED_WORLDS] + \
        [(m // w, n, k) for w in FUSED_WORLDS]


def draw_fused(seed, nmodels, nrandom, exact, derived, perrank):
    """Global shapes for the fused families at W = 2 and 4, half decode
    (M <= 192) and half prefill, from the models and log-uniform; none
    measured by a spec, none a spec shape's per-rank GEMM, none whose own
    per-rank GEMM a spec measures, none of the per-rank held-out set."""
    rng = Rng(seed + FUSED_STREAM)
    shapes = []
    refused = {"range": 0, "repeat": 0, "spec": 0, "per-rank": 0}
    held = set(s for s, _ in perrank)

    def take(s, what):
        m, n, k = s
        if not (FUSED_M_MIN <= m <= M_MAX and FUSED_NK_MIN <= n <= FUSED_NK_MAX and
                FUSED_NK_MIN <= k <= FUSED_NK_MAX) or m % 4 or n % 32 or k % 32:
            refused["range"] += 1
        elif s in (x for x, _ in shapes):
            refused["repeat"] += 1
        elif s in exact or s in held:
            refused["spec"] += 1
        elif s in derived or any(f in exact or f in held for f in fused_forms(s)):
            refused["per-rank"] += 1
        else:
            shapes.append((s, what))
            return True
        return False

    decode = [t for t in TOKENS if t % 4 == 0 and t <= DECODE_MAX]
    prefill = [t for t in TOKENS if t % 4 == 0 and t > DECODE_MAX]
    got = 0
    while got < nmodels:
        model = MODELS[rng.below(len(MODELS))]
        proj = PROJECTIONS[rng.below(len(PROJECTIONS))]
        toks = decode if got % 2 == 0 else prefill
        m = toks[rng.below(len(toks))]
        got += take(global_shape(model, proj, m), "%s %s, %d tokens" % (model[0], proj, m))
    got = 0
    while got < nrandom:
        lo, hi = (FUSED_M_MIN, DECODE_MAX) if got % 2 == 0 else (DECODE_MAX + 4, M_MAX)
        m = 4 * int(round(math.exp(math.log(lo) + rng.uniform() * math.log(hi / lo)) / 4))
        n, k = (32 * int(round(math.exp(math.log(FUSED_NK_MIN) + rng.uniform() * math.log(
            NK_MAX / FUSED_NK_MIN)) / 32)) for _ in range(2))
        got += take((m, n, k), "log-uniform")
    return shapes, refused


def fused_spec(shapes, seed, grid, grid_name):
    """grid's blocks unchanged but for their shapes: a block that lists the
    grid's standard shapes (the list most blocks give) takes every held-out
    shape; one that lists a few of its Ms takes the held-out shapes nearest
    those Ms (bounds at the geometric middle between the grid's Ms)."""
    lists = [tuple(tuple(s) for s in b["shapes"]) for b in grid["blocks"] if "shapes" in b]
    if len(lists) != len(grid["blocks"]):
        raise SystemExit("heldout_shapes: a block of %s lists no shapes: its rule cannot be read" % grid_name)
    standard = max(set(lists), key=lists.count)
    all_ms = sorted(set(s[0] for l in lists for s in l))
    triples = [list(s) for s, _ in shapes]
    blocks, rules = [], []
    for b, own in zip(grid["blocks"], lists):
        b = dict(b)
        if own == standard:
            rule = (None, None)
        else:
            ms = sorted(set(s[0] for s in own))
            i, j = all_ms.index(ms[0]), all_ms.index(ms[-1])
            if all_ms[i:j + 1] != ms:
                raise SystemExit("heldout_shapes: a block of %s lists Ms that are no range of the"
                                 " grid's: its rule cannot be read" % grid_name)
            rule = (None if i == 0 else int(math.ceil(math.sqrt(all_ms[i - 1] * ms[0]))),
                    None if j == len(all_ms) - 1 else int(math.sqrt(ms[-1] * all_ms[j + 1])))
        b["shapes"] = [t for t in triples if in_rule(t[0], rule)]
        if not b["shapes"]:
            continue
        if rule_text(rule) not in rules:
            rules.append(rule_text(rule))
        blocks.append(b)
    top = {k: v for k, v in grid.items() if k not in ("blocks", "description", "name", "world")}
    out = {
        "name": "heldout_mgpu",
        "description": "the held-out fused shapes of issue 51, drawn by tests/bench/heldout_shapes.py"
        " --seed %d (%d global shapes, half decode (M <= %d) and half prefill: whole GEMMs of public"
        " models' projections and log-uniform M, N, K; M, N, K multiples of 4 so W = 2 and 4 divide"
        " them as every family needs; none measured by another spec, nor a per-rank GEMM of one;"
        " docs/heldout.md), over the grid of %s: its blocks, tiles and splits unchanged, each"
        " block's shapes the held-out shapes of its rule (%s); every run validated and set against"
        " cuBLAS + NCCL of the same run; nobody tunes on it" % (
            seed, len(triples), DECODE_MAX, grid_name, "; ".join(rules)),
    }
    out.update(top)
    out["world"] = list(FUSED_WORLDS)
    out["blocks"] = blocks
    return dump(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--models", type=int, default=20, help="model-derived shapes (default 20)")
    ap.add_argument("--random", type=int, default=12, help="log-uniform shapes (default 12)")
    ap.add_argument("--out", default="sweeps", help="where the specs go (default sweeps)")
    ap.add_argument("--sweeps", default="sweeps", help="the specs not to repeat (default sweeps)")
    ap.add_argument("--grid", default="sweeps/perrank.json", help="the grid (default sweeps/perrank.json)")
    ap.add_argument("--fused-models", type=int, default=8, help="fused model shapes (default 8)")
    ap.add_argument("--fused-random", type=int, default=4, help="fused log-uniform shapes (default 4)")
    ap.add_argument("--mgpu", default="sweeps/mgpu.json", help="the fused grid (default sweeps/mgpu.json)")
    ap.add_argument("--check", action="store_true", help="compare with --out, write nothing")
    a = ap.parse_args()
    if a.models < 0 or a.random < 0 or a.models + a.random < 30:
        print("heldout_shapes: --models + --random must be at least 30 (issue 49), got %d"
              % (a.models + a.random), file=sys.stderr)
        return 2
    if a.fused_models < 0 or a.fused_random < 0 or a.fused_models + a.fused_random < 4:
        print("heldout_shapes: --fused-models + --fused-random must be at least 4, got %d"
              % (a.fused_models + a.fused_random), file=sys.stderr)
        return 2
    with open(a.mgpu) as f:
        mgpu = json.load(f)
    with open(a.grid) as f:
        grid = json.load(f)
    exact, derived, nspecs = tuned_shapes(a.sweeps)
    shapes, refused = draw(a.seed, a.models, a.random, exact, derived)
    files = specs(shapes, a.seed, grid, os.path.relpath(a.grid))
    fused, frefused = draw_fused(a.seed, a.fused_models, a.fused_random, exact, derived, shapes)
    files["heldout_mgpu.json"] = fused_spec(fused, a.seed, mgpu, os.path.relpath(a.mgpu))
    print("heldout_shapes: seed %d, %d shapes (%d of models, %d log-uniform); none of the %d shapes"
          " of %d specs under %s nor their per-rank GEMMs at W = 2, 4, 8; redrawn: %d out of range,"
          " %d repeats, %d in a spec, %d a spec shape's per-rank GEMM"
          % (a.seed, len(shapes), a.models, a.random, len(exact), nspecs, a.sweeps,
             refused["range"], refused["repeat"], refused["spec"], refused["per-rank"]))
    tflop = sum(2.0 * m * n * k for (m, n, k), _ in shapes) / 1e12
    print("heldout_shapes: one GEMM of each shape %.1f TFLOP in all" % tflop)
    for (m, n, k), what in shapes:
        print("  %5d x %5d x %5d  %s" % (m, n, k, what))
    print("heldout_shapes: fused, W = 2 and 4: %d shapes (%d of models, %d log-uniform); redrawn:"
          " %d out of range or not divisible, %d repeats, %d in a spec or the per-rank set, %d a"
          " per-rank GEMM of a spec shape or the other way round"
          % (len(fused), a.fused_models, a.fused_random, frefused["range"], frefused["repeat"],
             frefused["spec"], frefused["per-rank"]))
    for (m, n, k), what in fused:
        print("  %5d x %5d x %5d  %s" % (m, n, k, what))
    if not a.check:
        if not os.path.isdir(a.out):
            print("heldout_shapes: --out %s is no directory: create it or name another" % a.out,
                  file=sys.stderr)
            return 2
        for name, text in files.items():
            # a fresh temporary name, renamed over the old file (a link
            # there is replaced, never written through)
            path = os.path.join(a.out, name)
            fd, tmp = tempfile.mkstemp(prefix="." + name + ".", dir=a.out)
            with os.fdopen(fd, "w") as f:
                f.write(text)
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
            print("heldout_shapes: wrote %s" % path)
        return 0
    bad = 0
    for name, text in files.items():
        path = os.path.join(a.out, name)
        try:
            with open(path) as f:
                have = f.read()
        except OSError as e:
            print("heldout_shapes: %s: %s (run without --check to write it)" % (path, e.strerror))
            bad += 1
            continue
        if have != text:
            print("heldout_shapes: %s differs from what --seed %d --models %d --random %d draws:"
                  " regenerate it (without --check) or give the seed it was drawn with"
                  % (path, a.seed, a.models, a.random))
            bad += 1
        else:
            print("heldout_shapes: %s is the draw of seed %d" % (path, a.seed))
    # the committed shapes, as they are, against the specs as they are now
    path = os.path.join(a.out, "heldout_perrank.json")
    if os.path.exists(path):
        for s in sorted(set(spec_shapes(path))):
            hit = exact.get(s) or derived.get(s)
            if hit:
                print("heldout_shapes: %dx%dx%d of %s is measured by %s: it is no longer held out;"
                      " draw a fresh set (--seed)" % (s + (path, hit)))
                bad += 1
    path = os.path.join(a.out, "heldout_mgpu.json")
    held = set(spec_shapes(os.path.join(a.out, "heldout_perrank.json"))) \
        if os.path.exists(os.path.join(a.out, "heldout_perrank.json")) else set()
    if os.path.exists(path):
        for s in sorted(set(spec_shapes(path))):
            hit = exact.get(s) or derived.get(s) or ("heldout_perrank.json" if s in held else None)
            for f in fused_forms(s):
                hit = hit or exact.get(f) and "%s (its per-rank GEMM %dx%dx%d)" % ((exact[f],) + f) \
                    or (f in held and "heldout_perrank.json (its per-rank GEMM %dx%dx%d)" % f)
            if hit:
                print("heldout_shapes: %dx%dx%d of %s is measured by %s: it is no longer held out;"
                      " draw a fresh set (--seed)" % (s + (path, hit)))
                bad += 1
    print("heldout_shapes: %s" % ("check passed" if not bad else "%d problem%s" % (bad, "s" if bad > 1 else "")))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
