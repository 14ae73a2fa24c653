#!/usr/bin/env python3
"""tests/gpu/world_check.py FIT_STORE MEASURED_STORE W [FGOBENCH]: issue
33's check of `best --predict --world W` against real runs at W: for every
(family, shape) with ok bf16 runs at W in MEASURED_STORE (which the fit
never saw), the fused time predicted from FIT_STORE's fits (`calibrate
--fit` over its W=1 and W=2 runs) against the best measured fused time, and
the predicted vendor baseline against the measured one. Markdown-ish lines
and a summary on stdout."""
import csv
import io
import math
import sqlite3
import subprocess
import sys

fit, measured, world = sys.argv[1], sys.argv[2], int(sys.argv[3])
fgo = sys.argv[4] if len(sys.argv) > 4 else "./fgobench"
best = {}
for a, m, n, k, t, b in sqlite3.connect(measured).execute(
        "SELECT algorithm, m, n, k, t_fused_ms, t_baseline_ms FROM runs"
        " WHERE status = 'ok' AND world = ? AND dtype = 'bf16'", (world,)):
    if (a, m, n, k) not in best or t * 1e3 < best[(a, m, n, k)][0]:
        best[(a, m, n, k)] = (t * 1e3, (b or float("nan")) * 1e3)
fused, base = [], []
for (a, m, n, k), (t, b) in sorted(best.items()):
    out = subprocess.run([fgo, "best", "--predict", "--world", str(world), "--algorithm", a,
                          "--m", str(m), "--n", str(n), "--k", str(k), "--dtype", "bf16",
                          "--db", fit, "--format", "csv"], capture_output=True, text=True).stdout
    row = [r for r in csv.DictReader(io.StringIO(out)) if r.get("algorithm") == a and "fused_us" in r]
    if not row:
        print("%-22s %dx%dx%d: no prediction" % (a, m, n, k))
        continue
    p, pb = float(row[0]["fused_us"]), float(row[0]["baseline_us"])
    fused.append(p / t)
    if b == b:
        base.append(pb / b)
    print("%-22s %5d x %5d x %5d  fused predicted %8.1f us, measured %8.1f: %.2f;"
          " baseline %8.1f / %8.1f: %.2f; terms: %s" % (a, m, n, k, p, t, p / t, pb, b, pb / b,
                                                        row[0]["terms"]))


def summary(name, r):
    if not r:
        return
    print("%s predicted / measured over %d (family, shape): within 10%% %d, within 25%% %d,"
          " %.2f-%.2f, geomean %.2f" % (name, len(r), sum(abs(x - 1) <= 0.10 for x in r),
                                        sum(abs(x - 1) <= 0.25 for x in r), min(r), max(r),
                                        math.exp(sum(math.log(x) for x in r) / len(r))))


summary("fused", fused)
summary("baseline", base)
