#!/bin/sh
# tests/gpu/trace.sh: issue 26's timelines on one GPU, with the carried
# build (build/cuda, or FGOBENCH_BUILD), everything under $OUT, then
# $OUT/all.tgz of it. Steps (STEPS, default all):
#   compile  sweeps/trace.json's kernels, plain and traced (compile --trace),
#            their time stated apart
#   run      all_scatter, all_reduce_one_shot and sk_all_scatter (128 GEMM +
#            4 comm CTAs) at 4096 x 4096 x 14336 bf16 on the wgmma core
#            (128x256x64 tiles, 3 stages, 12 warps), W=1 and W=2 (two ranks
#            sharing the GPU: time-sliced, so W=2 shows correctness and
#            alignment, not speed), each `run --trace` REPS times (default
#            3): every run validated, its fused launch timed untraced and
#            traced alike (ITERS launches, default 20), the last traced
#            launch's timeline in $OUT/trace-ALGO-wW-rR.json
#   table    $OUT/overhead.md and .csv: per configuration and rep the run's
#            fused median, the untraced and traced medians timed beside each
#            other and the overhead, then the mean per configuration; and
#            $OUT/summary.md: GEMM-busy, comm hidden, tail, skew, waits per
#            configuration (python3's sqlite3 on $OUT/trace.db); every JSON
#            loaded and checked (tiles once each, spans nested)
#   plot     `plot timeline` of each rep-1 JSON into $PLOTS (default
#            $OUT/plots; PNG and SVG) when gnuplot is here; the GPU machines
#            have none: then, where it is, with the CPU build (no GPU needed)
#            and OUT the folder brought back (it may be read-only):
#              OUT=DIR PLOTS=/tmp/plots STEPS=plot FGOBENCH_BUILD=. sh tests/gpu/trace.sh
# $OUT/all.tgz holds everything when the runs were made here.
#   OUT=/some/dir sh tests/gpu/trace.sh
set -u
here=$(dirname "$0")
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
steps=${STEPS:-compile run table plot}
step() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
reps=${REPS:-3}
iters=${ITERS:-20}
log=$OUT/trace.log
[ -w "$OUT" ] || log=/dev/null
plots=${PLOTS:-$OUT/plots}
build=${FGOBENCH_BUILD:-build/cuda}
fgo=$build/fgobench
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nccl=$(python3 -c "import nvidia.nccl,os;print(os.path.join(list(nvidia.nccl.__path__)[0],'lib'))" 2>/dev/null || true)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${nccl}:${LD_LIBRARY_PATH:-}
if [ -z "${FGOBENCH_CACHE:-}" ] && [ -d "$build/kcache" ]; then
	FGOBENCH_CACHE=$PWD/$build/kcache
fi
export FGOBENCH_CACHE=${FGOBENCH_CACHE:-/tmp/fgobench-cache}
export FGOBENCH_DB=$OUT/trace.db
rc=0
# SHAPE, SK and BACKEND only to try the script on the CPU build (tests/e2e/99_trace.sh covers that)
shape=${SHAPE:-"-m 4096 -n 4096 -k 14336 --datatype bf16 --mma wgmma --BLK_M 128 --BLK_N 256 --BLK_K 64 --num_stages 3 --num_warps 12"}
algos="all_scatter all_reduce_one_shot sk_all_scatter"
extra() { [ "$1" = sk_all_scatter ] && echo "${SK:---gemm_sms 128 --comm_sms 4}"; }
backend=${BACKEND:-gpu}

if step compile; then
	nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1
	for how in plain trace; do
		t0=$(date +%s.%N)
		flag=
		[ $how = trace ] && flag=--trace
		NP=1 sh "$here/run.sh" compile sweeps/trace.json $flag -j "$(nproc)" --quiet --format csv \
			>"$OUT/compile-$how.csv" || rc=1
		echo "compile sweeps/trace.json ($how): $(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.1f", a - b }') s" | tee -a "$log"
	done
fi

if step run; then
	for a in $algos; do
		for w in 1 2; do
			r=1
			while [ $r -le "$reps" ]; do
				json=$OUT/trace-$a-w$w-r$r.json
				echo "== $a W=$w rep $r" | tee -a "$log"
				# shellcheck disable=SC2046,SC2086
				timeout 600 mpirun --oversubscribe -np $w -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE -x FGOBENCH_CACHE \
					-x FGOBENCH_DB "$fgo" run --backend "$backend" --algorithm $a --world $w $shape $(extra $a) \
					--iterations "$iters" --warmup 3 --timeout 60 --tag "trace-$a-w$w" \
					--trace "$json" >"$OUT/run-$a-w$w-r$r.txt" 2>&1 || { rc=1; echo "   failed (exit $?)" | tee -a "$log"; }
				grep -E "trace of run|error|warning|^status |^reason |^t_fused_ms " "$OUT/run-$a-w$w-r$r.txt" | tee -a "$log"
				r=$((r + 1))
			done
		done
	done
fi

if step table; then
	python3 - "$OUT" <<'EOF' 2>&1 | tee -a "$log" || rc=1
import csv, glob, json, os, sqlite3, sys
out = sys.argv[1]
db = sqlite3.connect(os.path.join(out, "trace.db"))
rows = db.execute("""SELECT r.id, r.algorithm, r.world, r.t_fused_ms, t.untraced_ms, t.traced_ms,
    t.overhead_pct, t.gemm_pct, t.comm_pct, t.xchg_pct, t.wait_pct, t.idle_pct, t.hidden_pct,
    t.tail_us, t.skew_us, t.kernel_us, t.events, t.dropped, t.file, r.status, r.max_rel_err
    FROM traces t JOIN runs r ON r.id = t.run_id ORDER BY r.algorithm, r.world, r.id""").fetchall()
f = lambda v, p=3: "-" if v is None else ("%.*f" % (p, v))
with open(os.path.join(out, "overhead.csv"), "w", newline="") as c:
    w = csv.writer(c)
    w.writerow(["run", "algorithm", "world", "t_fused_ms", "untraced_ms", "traced_ms", "overhead_pct"])
    for r in rows:
        w.writerow(r[:7])
lines = ["| run | algorithm | W | run's fused ms | untraced ms | traced ms | overhead |",
         "|---|---|---|---|---|---|---|"]
groups = {}
for r in rows:
    lines.append("| %d | %s | %d | %s | %s | %s | %s%% |" % (r[0], r[1], r[2], f(r[3], 4), f(r[4], 4), f(r[5], 4), f(r[6], 2)))
    if r[6] is not None:
        groups.setdefault((r[1], r[2]), []).append(r[6])
lines += ["", "| algorithm | W | reps | mean overhead | min | max |", "|---|---|---|---|---|---|"]
for (a, w), v in sorted(groups.items()):
    lines.append("| %s | %d | %d | %.2f%% | %.2f%% | %.2f%% |" % (a, w, len(v), sum(v) / len(v), min(v), max(v)))
open(os.path.join(out, "overhead.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
s = ["| run | algorithm | W | GEMM-busy % | comm % | xchg % | wait % | idle % | comm hidden % | tail us | skew us | kernel us | events (dropped) | waits per peer |",
     "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    waits = "; ".join("r%d on %s %.1f us (%d)" % (q[0], "r%d" % q[1] if q[1] >= 0 else "several", q[2], q[3])
                      for q in db.execute("SELECT rank, peer, wait_us, waits FROM trace_waits WHERE run_id = ? ORDER BY rank, peer", (r[0],)))
    s.append("| %d | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d (%d) | %s |" % (
        r[0], r[1], r[2], f(r[7], 1), f(r[8], 1), f(r[9], 1), f(r[10], 1), f(r[11], 1), f(r[12], 1),
        f(r[13], 1), f(r[14], 1), f(r[15], 1), r[16], r[17], waits or "-"))
open(os.path.join(out, "summary.md"), "w").write("\n".join(s) + "\n")
print("\n".join(s))
# every timeline: loads, tiles once each (segments cover [0, k) per tile), spans nest per track
bad = 0
for path in sorted(glob.glob(os.path.join(out, "trace-*.json"))):
    d = json.load(open(path))
    x = [e for e in d["traceEvents"] if e.get("ph") == "X"]
    probs = []
    for pid in sorted({e["pid"] for e in x}):
        seg = {}
        for e in x:
            if e["pid"] == pid and e["cat"] == "gemm":
                seg.setdefault(e["args"]["tile"], []).append((e["args"]["k0"], e["args"]["k1"]))
        kmax = max((k1 for s in seg.values() for _, k1 in s), default=0)
        for t, s in seg.items():
            s.sort()
            at = 0
            for k0, k1 in s:
                if k0 != at:
                    probs.append("rank %d tile %d segments %s" % (pid, t, s[:4]))
                    break
                at = k1
            else:
                if at != kmax:
                    probs.append("rank %d tile %d ends at %d of %d" % (pid, t, at, kmax))
        tracks = {}
        for e in x:
            if e["pid"] == pid:
                tracks.setdefault(e["tid"], []).append((e["ts"], -e["dur"], e["ts"] + e["dur"]))
        for tid, sp in tracks.items():
            sp.sort()
            st = []
            for t0, _, t1 in sp:
                while st and st[-1] <= t0 + 0.002:
                    st.pop()
                if st and t1 > st[-1] + 0.002:
                    probs.append("rank %d tid %d: spans cross at %.3f us" % (pid, tid, t0))
                    break
                st.append(t1)
    sm = d["otherData"]["fgobench"].get("summary", {})
    print("%s: %d spans, %d tiles, shares add to %.2f%s" % (os.path.basename(path), len(x), sm.get("tiles", -1),
          sum(sm.get(k) or 0 for k in ("gemm_pct", "comm_pct", "xchg_pct", "wait_pct", "idle_pct")),
          "" if not probs else ": " + "; ".join(probs[:3])))
    bad += bool(probs)
sys.exit(1 if bad or not rows else 0)
EOF
fi

if step plot; then
	if command -v gnuplot >/dev/null 2>&1; then
		for j in "$OUT"/trace-*-r1.json; do
			[ -f "$j" ] && { "$fgo" plot timeline "$j" -o "$plots" >>"$log" 2>&1 || rc=1; }
		done
		ls "$plots" 2>/dev/null | tee -a "$log"
	else
		echo "plot: no gnuplot here; draw where it is: OUT=DIR PLOTS=/tmp/plots STEPS=plot FGOBENCH_BUILD=. sh tests/gpu/trace.sh" | tee -a "$log"
	fi
fi

echo "exit $rc" | tee -a "$log"
if step run; then
	tgz=$(mktemp /tmp/fgobench-trace-tgz.XXXXXX)
	tar czf "$tgz" -C "$OUT" --exclude ./all.tgz . && chmod 644 "$tgz" && mv "$tgz" "$OUT/all.tgz"
fi
exit $rc
