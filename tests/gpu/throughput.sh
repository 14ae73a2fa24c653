#!/bin/sh
# tests/gpu/throughput.sh [BASE]: issue 22's measurements on one GPU, with
# the carried build (build/cuda; kernels compiled here, the time stated
# apart from the sweeps'), everything under $OUT:
#   1. the device check works: sweeps/gpu_smoke.json (W=1 and W=2) on 2
#      ranks sharing the GPU, every run validated; then a planted wrong
#      element (FGOBENCH_PLANT_WRONG) must make every run whose C holds it
#      a mismatch that names it;
#   2. sweeps/roofline_gpu.json: its kernels compiled (-j all CPUs, timed),
#      then the sweep, timed: wall per configuration, the end-of-sweep
#      line of where the time went;
#   3. with BASE (another carried build, e.g. build/cuda-base): the kernels'
#      times unchanged, tests/gpu/ab.sh on sweeps/ab_throughput.json.
# STEPS (default "check roofline ab") picks the steps, to split them over
# calls of a limited length.
#   OUT=/some/dir sh tests/gpu/throughput.sh build/cuda-base
set -u
steps=${STEPS:-check roofline ab}
step() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
here=$(dirname "$0")
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export FGOBENCH_CACHE=${FGOBENCH_CACHE:-/tmp/fgobench-cache}
log=$OUT/throughput.log
jobs=$(nproc)
say() { echo "== $* ($(date +%T))" | tee -a "$log"; }

# compile SPEC [BUILD]: the spec's kernels into the cache, timed
compile() {
	t0=$(date +%s.%N)
	FGOBENCH_BUILD=${2:-build/cuda} NP=1 sh "$here/run.sh" compile "$1" -j "$jobs" --quiet \
		--format csv >"$OUT/compile-$(basename "$1" .json).csv"
	echo "compile $1: $(awk -v a="$(date +%s.%N)" -v b="$t0" "BEGIN { printf \"%.1f\", a - b }") s, $(tail -n +2 "$OUT/compile-$(basename "$1" .json).csv" |
		awk -F, '{print $11}' | sort | uniq -c | tr '\n' ' ')" | tee -a "$log"
}

if step check; then
say "1. the device check"
compile sweeps/gpu_smoke.json
NP=2 sh "$here/run.sh" sweep sweeps/gpu_smoke.json --tag check-w2 --quiet 2>&1 | tail -n 3 | tee -a "$log"
FGOBENCH_PLANT_WRONG=5,7 NP=2 sh "$here/run.sh" sweep sweeps/gpu_smoke.json --tag planted \
	--quiet 2>&1 | tail -n 2 | tee -a "$log"

fi
if step roofline; then
say "2. the roofline sweep"
compile sweeps/roofline_gpu.json
t0=$(date +%s.%N)
NP=1 sh "$here/run.sh" sweep sweeps/roofline_gpu.json --tag roofline 2>&1 | tail -n 3 | tee -a "$log"
echo "roofline sweep wall: $(awk -v a="$(date +%s.%N)" -v b="$t0" "BEGIN { printf \"%.1f\", a - b }") s" | tee -a "$log"

fi
if [ $# -ge 1 ] && step ab; then
	say "3. A/B of the kernels' times against $1"
	compile sweeps/ab_throughput.json "$1"
	compile sweeps/ab_throughput.json
	sh "$here/ab.sh" sweeps/ab_throughput.json "$1" build/cuda 2 2>&1 | tail -n 60 | tee -a "$log"
fi
say "done"
