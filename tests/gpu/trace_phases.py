#!/usr/bin/env python3
"""trace_phases.py TRACE.json [TRACE.json ...]: where a CTA's time goes in
a one-wave GEMM launch (issue 49: the held-out set's short-K shapes, where
every CTA computes one tile and the fixed costs of a tile weigh).

For each `run --trace` timeline (tests/gpu/widths.sh STEPS=trace) it splits
every CTA of rank 0 into its phases, from the launch's first CTA start:
  start    the CTA's own start (the launch's ramp over the SMs)
  setup    its start to its first tile's MAC span (barriers, setmaxnreg)
  mainloop its tiles' MAC spans (consumer 0: the first stage's wait, so
           the ring's fill, and the K slices)
  stage    a tile's MAC end to its store's start (C into shared memory)
  store    the storer's span (its TMA stores issued and read out of
           shared memory; their completion too where the family
           publishes the tile)
  exit     the last span's end (a store, a MAC span, an exchange) to
           the CTA's end (a GEMM's: its stores' writes completing)
  end      the CTA's end (from the launch's first start, as start)
  xchg     its split tiles' exchange (split-K, Stream-K): the partials
           handed over and the take-overs (their waits for the other
           pieces included)
and prints the median and the maximum of each over the CTAs, the launch's
span, and the MAC span per K slice. Given two timelines of one command at
two K (the files in such pairs, the shorter K first), the slope between
them is the steady main loop's time per slice and its intercept the
ring's fill: what no single timeline separates.
  python3 tests/gpu/trace_phases.py trace_128x256_k1968.json trace_128x256_k3936.json
"""
import json
import statistics
import sys

PHASES = ("start", "setup", "mainloop", "stage", "store", "exit", "end", "xchg")


def spans(path):
    """The timeline's spans of rank 0, by CTA: kind -> [(ts, dur, args)]."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    ctas = {}
    for e in doc["traceEvents"]:
        if e.get("ph") != "X" or e.get("pid") != 0:
            continue
        cta = e["args"]["cta"]
        ctas.setdefault(cta, {}).setdefault(e["name"], []).append((e["ts"], e["dur"], e["args"]))
    about = doc.get("otherData", {}).get("fgobench", {}).get("about", "")
    return ctas, about


def staging(spans_, put_ts):
    """A store's wait for its tile: from the last MAC span or take-over
    ended before it."""
    ends = [g[0] + g[1] for g in spans_ if g[0] + g[1] <= put_ts]
    return put_ts - max(ends) if ends else 0.0


def phases(ctas):
    """Per CTA, the phases in microseconds; and the launch's span."""
    t0 = min(c["kernel"][0][0] for c in ctas.values() if "kernel" in c)
    t1 = max(c["kernel"][0][0] + c["kernel"][0][1] for c in ctas.values() if "kernel" in c)
    rows = []
    for c in ctas.values():
        if "kernel" not in c or "gemm" not in c:
            continue  # a CTA with no tile (none in a one-wave launch)
        k0, kd, _ = c["kernel"][0]
        gemm = sorted(c["gemm"], key=lambda s: s[0])
        put = sorted(c.get("put", []), key=lambda s: s[0])
        slices = sum(a["k1"] - a["k0"] for _, _, a in gemm)
        row = {
            "start": k0 - t0,
            "setup": gemm[0][0] - k0,
            "mainloop": sum(d for _, d, _ in gemm),
            "stage": sum(staging(gemm + c.get("takeover", []), p[0]) for p in put),
            "store": sum(d for _, d, _ in put),
            "exit": k0 + kd - max(ts + d for kind, spans_ in c.items() if kind != "kernel"
                                  for ts, d, _ in spans_),
            "end": k0 + kd - t0,
            "xchg": sum(d for kind in ("handover", "takeover") for _, d, _ in c.get(kind, [])),
            "slices": slices,
            "who": "SM %s tile (%s, %s)" % (c["kernel"][0][2].get("sm", "?"), gemm[0][2].get("tm", "?"),
                                           gemm[0][2].get("tn", "?")),
        }
        rows.append(row)
    return rows, t1 - t0


def same_but_k(a, b):
    """Whether two runs' commands differ in their -k alone."""
    def drop_k(about):
        words = about.split()
        return [w for i, w in enumerate(words) if w != "-k" and (i == 0 or words[i - 1] != "-k")]
    return drop_k(a) == drop_k(b)


def summary(path):
    ctas, about = spans(path)
    rows, span = phases(ctas)
    slices = statistics.median(r["slices"] for r in rows)
    med = {p: statistics.median(r[p] for r in rows) for p in PHASES}
    top = {p: max(r[p] for r in rows) for p in PHASES}
    print(f"{path}: {len(rows)} CTAs, launch span {span:.2f} us, {slices:g} K slices a CTA (median)")
    if about:
        print(f"  {about}")
    print("  " + " ".join(f"{p:>9}" for p in PHASES) + "   (us)")
    print("  " + " ".join(f"{med[p]:9.2f}" for p in PHASES) + "   median over the CTAs")
    print("  " + " ".join(f"{top[p]:9.2f}" for p in PHASES) + "   max")
    print(f"  main loop per K slice: {med['mainloop'] / slices * 1e3:.0f} ns (median CTA)")
    by_loop = sorted(rows, key=lambda r: r["mainloop"])
    for label, pick in (("fastest", by_loop[:3]), ("slowest", by_loop[-3:][::-1])):
        print(f"  {label} main loops: " + "; ".join(f"{r['who']} {r['mainloop']:.2f}" for r in pick))
    return slices, med["mainloop"], about


def main():
    if len(sys.argv) < 2:
        print("usage: " + __doc__.strip().splitlines()[0], file=sys.stderr)
        sys.exit(2)
    got = [summary(p) for p in sys.argv[1:]]
    # the files in pairs, one tile at two K: the steady slice and the fill
    paths = sys.argv[1:]
    for i in range(0, len(got) - 1, 2):
        (s1, m1, a1), (s2, m2, a2), p1, p2 = got[i], got[i + 1], paths[i], paths[i + 1]
        if s2 != s1 and same_but_k(a1, a2):
            slope = (m2 - m1) / (s2 - s1)
            print(f"{p1} -> {p2}: steady main loop {slope * 1e3:.0f} ns a K slice,"
                  f" fill and first slice {m1 - slope * (s1 - 1):.2f} us")


if __name__ == "__main__":
    main()
