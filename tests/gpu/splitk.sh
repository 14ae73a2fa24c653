#!/bin/sh
# tests/gpu/splitk.sh: split-K and the decode tiles on one GPU (issue 23),
# with the carried build (build/cuda), everything under $OUT:
#   1. sweeps/wgmma_splitk.json on 2 ranks sharing the GPU (W=1 and W=2):
#      every split configuration validated on its whole output;
#   2. sweeps/perrank.json at W=1: the per-rank GEMMs against cuBLAS in the
#      same run (the gemm baseline), tagged perrank; `best` of it to
#      $OUT/perrank-best.csv.
# Kernels are compiled here first (all CPUs), their time stated apart.
# STEPS (default "check perrank") picks the steps.
#   OUT=/some/dir sh tests/gpu/splitk.sh
set -u
here=$(dirname "$0")
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export FGOBENCH_CACHE=${FGOBENCH_CACHE:-/tmp/fgobench-cache}
steps=${STEPS:-check perrank}
step() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
log=$OUT/splitk.log
jobs=$(nproc)

compile() {
	t0=$(date +%s.%N)
	NP=1 sh "$here/run.sh" compile "$1" -j "$jobs" --quiet --format csv \
		>"$OUT/compile-$(basename "$1" .json).csv"
	echo "compile $1: $(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.1f", a - b }') s" | tee -a "$log"
}

if step check; then
	compile sweeps/wgmma_splitk.json
	NP=2 sh "$here/run.sh" sweep sweeps/wgmma_splitk.json --tag splitk-check --quiet 2>&1 |
		tail -n 3 | tee -a "$log"
fi
if step perrank; then
	compile sweeps/perrank.json
	NP=1 sh "$here/run.sh" sweep sweeps/perrank.json --tag perrank --quiet 2>&1 | tail -n 3 | tee -a "$log"
	NP=1 sh "$here/run.sh" best --tag perrank --format csv >"$OUT/perrank-best.csv" 2>&1
fi
