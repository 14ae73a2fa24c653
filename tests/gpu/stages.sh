#!/bin/sh
# tests/gpu/stages.sh: issue 32's first look at the skinny and mid-size
# per-rank GEMMs on one GPU, with the carried build (build/cuda), all under
# $OUT: the read floor (calibrate), sweeps/skinny_stages.json (ring depth x
# split on seven shapes, cuBLAS in the same run) and a timeline of the
# current best configuration of 1 x 1024 x 14336 (64x64 s6 k8), then the
# table (tests/gpu/stages_table.py).
#   OUT=/some/dir sh tests/gpu/stages.sh
set -u
here=$(dirname "$0")
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export FGOBENCH_DB=$OUT/stages.db NP=1
fgo=${FGOBENCH_BUILD:-build/cuda}/fgobench
sh "$here/run.sh" calibrate > "$OUT/calibrate.txt" 2>&1
echo "calibrate: exit $?"
sh "$here/run.sh" compile sweeps/skinny_stages.json -j "$(nproc)" --quiet --format csv > "$OUT/compile.csv" 2>&1
echo "compile: exit $?"
sh "$here/run.sh" sweep sweeps/skinny_stages.json --tag stages --quiet > "$OUT/sweep.txt" 2>&1
echo "sweep: exit $?"
sh "$here/run.sh" run --world 1 --algorithm gemm --datatype bf16 -m 1 -n 1024 -k 14336 --mma wgmma \
	--BLK_M 64 --BLK_N 64 --BLK_K 64 --num_stages 6 --num_warps 8 --split_k 8 \
	--trace "$OUT/skinny.trace.json" > "$OUT/trace.txt" 2>&1
echo "trace: exit $?"
python3 "$here/stages_table.py" "$OUT/stages.db" > "$OUT/table.md" 2>&1
cat "$OUT/table.md"
