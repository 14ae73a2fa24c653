#!/bin/sh
# tests/gpu/calibrate.sh: `fgobench calibrate` on every GPU of a GPU machine
# (through tests/gpu/run.sh: the build carried from `make GPU=cuda`), then
# checks what it printed and stored. Log: $OUT/calibrate.log; store:
# $OUT/fgobench.db; checks ("PASS id" / "FAIL id: why") on stdout and in
# $OUT/calibrate-check.txt. The ranges are wide: they catch a wrong unit, a
# TF32 fp32 peak or an idle link, not a slow machine.
#   OUT=/some/dir sh tests/gpu/calibrate.sh
set -u
OUT=${OUT:-$PWD/gpu-out}
export OUT
mkdir -p "$OUT"
np=${NP:-$(nvidia-smi -L | wc -l)}
export NP=$np
rm -f "$OUT/calibrate.log"
sh tests/gpu/run.sh calibrate
rc=$?
{
	if [ "$rc" = 0 ]; then echo "PASS gcal-1 exit status 0"; else echo "FAIL gcal-1: calibrate exited with $rc"; fi
	if grep -q "CUBLAS_COMPUTE_32F, no TF32" "$OUT/calibrate.log"; then echo "PASS gcal-2 says fp32 is not TF32"
	else echo "FAIL gcal-2: no \"CUBLAS_COMPUTE_32F, no TF32\" in the log"; fi
	if [ "$np" -ge 2 ]; then
		if grep -q "^SM stores" "$OUT/calibrate.log" && grep -q "^copy engine" "$OUT/calibrate.log"; then
			echo "PASS gcal-3 both link matrices printed"
		else
			echo "FAIL gcal-3: the SM-store and copy-engine matrices are not both in the log"
		fi
	fi
	# what, dtype, lowest and highest plausible value on an H100 / H200
	python3 - "$OUT/fgobench.db" "$np" <<'PY'
import sqlite3, sys
db, np = sys.argv[1], int(sys.argv[2])
checks = [("matrix_peak", "fp32", 20, 120),    # no TF32: ~50-67 TFLOP/s; TF32 would be 300+
          ("matrix_peak", "fp16", 300, 1300),
          ("matrix_peak", "bf16", 300, 1300),
          ("memory_bw", "", 1500, 6000)]
if np >= 2:
    checks.append(("link_bw", "", 50, 1000))
try:
    con = sqlite3.connect(db)
except Exception as e:
    print("FAIL gcal-store: cannot open %s: %s" % (db, e)); sys.exit(0)
for i, (what, dtype, lo, hi) in enumerate(checks):
    row = con.execute("select value, unit from ceilings where what = ? and dtype = ?"
                      " and backend = 'gpu' order by id desc limit 1", (what, dtype)).fetchone()
    name = "gcal-4.%d %s %s" % (i + 1, what, dtype or "-")
    if row is None:
        print("FAIL %s: not stored" % name)
    elif not lo <= row[0] <= hi:
        print("FAIL %s: %.4g %s is outside %g..%g" % (name, row[0], row[1], lo, hi))
    else:
        print("PASS %s = %.4g %s" % (name, row[0], row[1]))
# the read floor: 21 sizes, 1 MiB to 1 GiB; every point above a bare
# launch (2 us) and the largest read between 1500 and 6000 GB/s; printed
# so the curve goes into the log beside GPU.md's figures
pts = con.execute("select p.bytes, p.seconds from read_floor_points p where p.floor_id ="
                  " (select max(id) from read_floors where backend = 'gpu') order by p.bytes").fetchall()
if len(pts) != 21 or pts[0][0] != 1 << 20 or pts[-1][0] != 1 << 30:
    print("FAIL gcal-5.1 read floor: %d points, %s to %s bytes (want 21, 1 MiB to 1 GiB)"
          % (len(pts), pts[0][0] if pts else "-", pts[-1][0] if pts else "-"))
else:
    print("PASS gcal-5.1 read floor: 21 points, 1 MiB to 1 GiB")
    gbps = pts[-1][0] / pts[-1][1] / 1e9
    ok = all(s > 2e-6 for _, s in pts) and 1500 <= gbps <= 6000
    print("%s gcal-5.2 read floor: smallest %.1f us, 1 GiB at %.0f GB/s" %
          ("PASS" if ok else "FAIL", pts[0][1] * 1e6, gbps))
    for b, s in pts:
        print("  read floor %8.1f MiB %9.1f us %7.0f GB/s" % (b / 2**20, s * 1e6, b / s / 1e9))
PY
} | tee "$OUT/calibrate-check.txt"
! grep -q '^FAIL' "$OUT/calibrate-check.txt"
