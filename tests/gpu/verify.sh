#!/bin/sh
# tests/gpu/verify.sh: everything issue 3 measures, in one call on a GPU
# machine (build/cuda carried, nothing built there): the machine, its
# ceilings, the GEMM cores checked, the smoke sweeps on every GPU, and the
# GEMM core against cuBLAS on one GPU. The store and the logs land in $OUT;
# plots are drawn afterwards on the build machine from that store.
#   OUT=/some/dir sh tests/gpu/verify.sh [quick]
set -u
here=$(dirname "$0")
OUT=${OUT:-$PWD/gpu-out}
export OUT
mkdir -p "$OUT"
step() { echo "== $* ($(date +%T))"; }
gpus=$(nvidia-smi -L | wc -l)
step info
sh "$here/run.sh" info > /dev/null 2>&1
grep -q "auto picks    gpu" "$OUT/info.log" || { echo "no GPU backend here"; cat "$OUT/info.log"; exit 3; }
step "calibrate on $gpus GPUs, checked"
sh "$here/calibrate.sh" 2>&1 | tail -n 40
step "GEMM cores checked (1 GPU)"
NP=1 sh "$here/run.sh" sweep sweeps/gpu_core.json --tag gpu-core 2>&1 | tail -n 1
if [ "$gpus" -ge 2 ]; then
	step "smoke on $gpus GPUs"
	sh "$here/run.sh" sweep sweeps/smoke.json --tag smoke-gpu$gpus 2>&1 | tail -n 1
	sh "$here/run.sh" sweep sweeps/gpu_smoke.json --tag gpu-smoke$gpus 2>&1 | tail -n 1
fi
if [ "${1:-}" != quick ]; then
	step "GEMM core vs cuBLAS (1 GPU)"
	NP=1 sh "$here/run.sh" sweep sweeps/gemm_bench.json --tag gemm-bench 2>&1 | tail -n 1
fi
step done
