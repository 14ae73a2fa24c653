#!/bin/sh
# tests/gpu/fused.sh: the fused families on a GPU machine (build/cuda
# carried, `make bundle` first): sweeps/gpu_fused.json (every family, fp16
# and bf16, 2 and 4 ranks, ragged shapes, with and without comm CTAs) and
# sweeps/smoke.json. With fewer GPUs than ranks the ranks share GPUs: the
# kernels are validated (the GPU time-slices between the ranks' contexts,
# so flag waits still progress) but the times mean nothing and the NCCL
# baseline cannot run. The store and logs land in $OUT.
#   OUT=/some/dir sh tests/gpu/fused.sh [TIMEOUT_S]
set -u
here=$(dirname "$0")
OUT=${OUT:-$PWD/gpu-out}
export OUT
timeout=${1:-30}
gpus=$(nvidia-smi -L | wc -l)
step() { echo "== $* ($(date +%T))"; }
step info
sh "$here/run.sh" info > /dev/null 2>&1
grep -q "auto picks    gpu" "$OUT/info.log" || { echo "no GPU backend here"; cat "$OUT/info.log"; exit 3; }
np=$((gpus >= 4 ? gpus : 4))
step "gpu_fused on $np ranks, $gpus GPUs"
NP=$np sh "$here/run.sh" sweep sweeps/gpu_fused.json --tag fused-gpu$gpus --timeout "$timeout" 2>&1 | tail -n 3
step "smoke on 2 ranks, $gpus GPUs"
NP=2 sh "$here/run.sh" sweep sweeps/smoke.json --tag smoke-gpu$gpus --timeout "$timeout" 2>&1 | tail -n 3
step done
