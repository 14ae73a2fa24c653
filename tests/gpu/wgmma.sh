#!/bin/sh
# tests/gpu/wgmma.sh [SECONDS]: the Hopper core (mma=wgmma) on one H100/H200:
# first sweeps/wgmma_check.json (ragged shapes, both dtypes, every tile
# form; every configuration validated against cuBLAS), then the
# performance table sweeps/wgmma_core.json against cuBLAS in the same run.
# Each sweep is cut off after SECONDS (default 240): a core that deadlocks
# on its barriers must not hold the machine. Store and logs under $OUT.
set -u
limit=${1:-240}
export OUT=${OUT:-$PWD/gpu-out}
rc=0
NP=1 timeout "$limit" sh tests/gpu/run.sh sweep sweeps/wgmma_check.json --tag wgmma-check || rc=1
NP=1 timeout "$limit" sh tests/gpu/run.sh sweep sweeps/wgmma_core.json --tag wgmma-core || rc=1
NP=1 sh tests/gpu/run.sh best --tag wgmma-core > "$OUT/best.txt" 2>&1
exit $rc
