#!/usr/bin/env python3
"""tests/gpu/world_check.py [--curves CAL_STORE] FIT_STORE MEASURED_STORE W
[FGOBENCH]: issue 33's check of `best --predict --world W` against real runs
at W that the fit never saw. FIT_STORE (the W=1 runs and runs at smaller
W, e.g. W1 and W=2 stores merged by store_merge.py) is copied to a
temporary folder, every run at W or more is deleted from the copy (so the
fit never sees a run at W, even when FIT_STORE is the store measured), with
--curves CAL_STORE's collective curves copied in (store_merge.py --curves:
the vendor baseline from the measured NCCL curve at W), then `calibrate
--fit` over it. For every (family, shape) with ok bf16 runs at W in
MEASURED_STORE, one GPU a rank (a W-rank sweep on a larger machine counts;
ranks sharing a GPU do not), the predicted fused time against the best
measured one and the predicted vendor baseline against the best measured
one; one line each with the terms' sources, then a summary. Nothing in the
stores changes. Exit 0, or 2 on a set-up error."""
import csv
import io
import math
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

argv = sys.argv[1:]
cal_src = None
if argv[:1] == ["--curves"] and len(argv) > 1:
    cal_src, argv = argv[1], argv[2:]
if len(argv) < 3:
    sys.exit("usage: world_check.py [--curves CAL_STORE] FIT_STORE MEASURED_STORE W [FGOBENCH]")
fit_src, measured, world = argv[0], argv[1], int(argv[2])
fgo = os.path.abspath(argv[3] if len(argv) > 3 else "./fgobench")
here = os.path.dirname(os.path.abspath(__file__))


def run(args, what):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write("world_check.py: %s failed (exit %d):\n%s" % (what, p.returncode, p.stderr))
        sys.exit(2)
    return p.stdout


# one GPU a rank, as calibrate --fit keeps runs
ONE_GPU = (" AND NOT (s.devices LIKE '%x %' AND s.mpi_ranks >"
           " CAST(substr(s.devices, 1, instr(s.devices, 'x ') - 1) AS INTEGER))")
best, host = {}, "vm"
src = sqlite3.connect(measured)
for a, m, n, k, t, b, h in src.execute(
        "SELECT r.algorithm, r.m, r.n, r.k, r.t_fused_ms, r.t_baseline_ms, s.host FROM runs r"
        " JOIN sweeps s ON s.id = r.sweep_id WHERE r.status = 'ok' AND r.world = ?"
        " AND r.dtype = 'bf16' AND r.t_fused_ms > 0" + ONE_GPU, (world,)):
    host = h
    t, b = t * 1e3, (b * 1e3 if b and b > 0 else math.inf)
    o = best.get((a, m, n, k), (math.inf, math.inf))
    best[(a, m, n, k)] = (min(o[0], t), min(o[1], b))
src.close()

tmp = tempfile.mkdtemp(prefix="world_check.")
fused, base = [], []
try:
    fit = os.path.join(tmp, "fit.db")
    shutil.copyfile(fit_src, fit)
    machine = ["--machine", host, "--backend", "gpu"]
    run([fgo, "calibrate", "--fit", *machine, "--db", fit], "calibrate --fit (upgrade)")
    db = sqlite3.connect(fit)
    db.execute("DELETE FROM samples WHERE run_id IN (SELECT id FROM runs WHERE world >= ?)",
               (world,))
    dropped = db.execute("DELETE FROM runs WHERE world >= ?", (world,)).rowcount
    db.execute("DELETE FROM world_fits WHERE world >= ?", (world,))
    db.commit()
    db.close()
    if cal_src:
        cal = os.path.join(tmp, "cal.db")
        shutil.copyfile(cal_src, cal)
        run([fgo, "calibrate", "--fit", *machine, "--db", cal], "calibrate --fit on the curves")
        run([sys.executable, os.path.join(here, "store_merge.py"), "--curves", fit, cal],
            "store_merge.py --curves")
    print("fit store: %s less its %d runs at W >= %d%s" % (fit_src, dropped, world,
                                                          ", curves of " + cal_src if cal_src else ""))
    run([fgo, "calibrate", "--fit", *machine, "--db", fit], "calibrate --fit")
    for (a, m, n, k), (t, b) in sorted(best.items()):
        out = subprocess.run([fgo, "best", "--predict", "--world", str(world), "--algorithm", a,
                              "-m", str(m), "-n", str(n), "-k", str(k), "--dtype", "bf16",
                              "--db", fit, "--format", "csv"], capture_output=True,
                             text=True).stdout
        row = [r for r in csv.DictReader(io.StringIO(out))
               if r.get("algorithm") == a and "fused_us" in r]
        if not row:
            print("%-22s %5d x %5d x %5d  no prediction" % (a, m, n, k))
            fused.append(math.inf)
            continue
        p, pb = float(row[0]["fused_us"]), float(row[0]["baseline_us"])
        fused.append(p / t)
        if math.isfinite(b):
            base.append(pb / b)
        print("%-22s %5d x %5d x %5d  fused %8.1f / %8.1f us = %.2f; baseline %8.1f / %8.1f = %.2f;"
              " terms: %s; baseline: %s" % (a, m, n, k, p, t, p / t, pb, b, pb / b,
                                            row[0]["terms"], row[0]["baseline_from"]))
finally:
    shutil.rmtree(tmp, ignore_errors=True)


def summary(name, r):
    fin = [x for x in r if math.isfinite(x)]
    if not fin:
        return
    print("%s predicted / measured over %d (family, shape): within 10%% %d (%.0f%%), within 25%%"
          " %d (%.0f%%), %.2f-%.2f, geomean %.2f" % (
              name, len(r), sum(abs(x - 1) <= 0.10 for x in r),
              100.0 * sum(abs(x - 1) <= 0.10 for x in r) / len(r),
              sum(abs(x - 1) <= 0.25 for x in r), 100.0 * sum(abs(x - 1) <= 0.25 for x in r) / len(r),
              min(fin), max(fin), math.exp(sum(math.log(x) for x in fin) / len(fin))))


summary("fused", fused)
summary("baseline", base)
