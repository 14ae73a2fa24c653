#!/bin/sh
# tests/gpu/wgmma.sh [SECONDS]: the Hopper core (mma=wgmma) on an H100/H200
# machine: first sweeps/wgmma_check.json (ragged shapes, both dtypes,
# every tile form; every configuration validated against cuBLAS), then
# the performance table sweeps/wgmma_core.json against cuBLAS in the same
# run, then sweeps/wgmma_fused.json (all_scatter, all_gather_gemm) and
# sweeps/wgmma_reduce.json (all_reduce, reduce_scatter) and
# sweeps/wgmma_streamk.json (the Stream-K forms) on 4 ranks:
# with fewer GPUs the ranks share them, so it is validated but not timed.
# Each sweep is cut off after SECONDS (default 240): a core that deadlocks
# on its barriers must not hold the machine. Store and logs under $OUT.
set -u
limit=${1:-240}
export OUT=${OUT:-$PWD/gpu-out}
rc=0
NP=1 timeout "$limit" sh tests/gpu/run.sh sweep sweeps/wgmma_check.json --tag wgmma-check || rc=1
NP=1 timeout "$limit" sh tests/gpu/run.sh sweep sweeps/wgmma_core.json --tag wgmma-core || rc=1
NP=1 sh tests/gpu/run.sh best --tag wgmma-core > "$OUT/best.txt" 2>&1
# the NCCL baseline cannot run on ranks that share a GPU: those runs are
# stored ok without it ("baseline unavailable"), so a wrong output or a
# stall still shows in the exit status
NP=4 timeout "$limit" sh tests/gpu/run.sh sweep sweeps/wgmma_fused.json --tag wgmma-fused --timeout 10 || rc=1
NP=4 timeout "$limit" sh tests/gpu/run.sh sweep sweeps/wgmma_reduce.json --tag wgmma-reduce --timeout 10 || rc=1
NP=4 timeout "$limit" sh tests/gpu/run.sh sweep sweeps/wgmma_streamk.json --tag wgmma-streamk --timeout 10 || rc=1
exit $rc
