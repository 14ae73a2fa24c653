#!/bin/sh
# tests/gpu/ncu_gemm.sh NAME RUN-FLAGS...: Nsight Compute on one per-rank
# GEMM, fgobench's kernel (fgo_main) beside the cuBLAS kernel the same run
# calls as its baseline, so the two can be set side by side (issue 32:
# "look before you tune"). RUN-FLAGS are `fgobench run`'s, the gemm family
# at W=1 is added. Writes $OUT/ncu/NAME.{fgo,cublas}.csv (the details page
# of each kernel) and prints the comparison (tests/gpu/ncu_compare.py).
# Clocks are left as they are (--clock-control none).
#   OUT=/some/dir sh tests/gpu/ncu_gemm.sh m4096n512 -m 4096 -n 512 -k 14336 --dtype bf16 \
#       --mma wgmma --BLK_M 128 --BLK_N 128 --BLK_K 64 --num_warps 12 --num_stages 6
set -u
[ $# -ge 2 ] || { echo "usage: tests/gpu/ncu_gemm.sh NAME RUN-FLAGS..." >&2; exit 2; }
name=$1
shift
here=$(dirname "$0")
OUT=${OUT:-$PWD/gpu-out}
build=${FGOBENCH_BUILD:-build/cuda}
mkdir -p "$OUT/ncu"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export FGOBENCH_DB=${FGOBENCH_DB:-$OUT/ncu/ncu.db}
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats
	--section Occupancy --section SchedulerStats --section ComputeWorkloadAnalysis"
# the profiled program: ncu starts it, so a word list, not a shell function
set -- "$build/fgobench" run --algorithm gemm --world 1 --iterations 2 --warmup 0 "$@"
# fgobench's kernel: the second launch (the first is the validated one)
# shellcheck disable=SC2086
"$ncu" --clock-control none -k regex:fgo_main --launch-skip 1 --launch-count 1 $sections --csv \
	--page details "$@" >"$OUT/ncu/$name.fgo.csv" 2>"$OUT/ncu/$name.fgo.err" || {
	echo "ncu_gemm.sh: profiling fgobench's kernel failed ($OUT/ncu/$name.fgo.err)" >&2
	exit 1
}
# the baseline's kernel: the most launched one whose name says GEMM
"$ncu" --clock-control none -k 'regex:^(?!fgo).*' --launch-count 40 --metrics gpu__time_duration.sum \
	--csv --page raw "$@" >"$OUT/ncu/$name.names.csv" 2>/dev/null
kernel=$(python3 "$here/ncu_compare.py" --gemm-kernel "$OUT/ncu/$name.names.csv")
[ -n "$kernel" ] || { echo "ncu_gemm.sh: no cuBLAS GEMM kernel seen" >&2; exit 1; }
# shellcheck disable=SC2086
"$ncu" --clock-control none -k "regex:^$(printf '%s' "$kernel" | sed 's/[^A-Za-z0-9_]/./g')" --launch-count 1 \
	$sections --csv --page details "$@" >"$OUT/ncu/$name.cublas.csv" 2>"$OUT/ncu/$name.cublas.err"
echo "$name: cuBLAS's kernel $kernel"
python3 "$here/ncu_compare.py" "$OUT/ncu/$name.fgo.csv" "$OUT/ncu/$name.cublas.csv"
