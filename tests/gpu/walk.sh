#!/bin/sh
# tests/gpu/walk.sh: the walk (kernels/schedule.h: data-parallel, split-K,
# hybrid data-parallel + Stream-K) on one GPU (issue 23), with the carried
# build (build/cuda), everything under $OUT. Steps (STEPS, default all but ab):
#   check    sweeps/wgmma_walk.json on 2 ranks sharing the GPU (W=1 and 2):
#            every family's split-K and Stream-K walk validated on its whole
#            output; sweeps/gpu_streamk.json (the sk_* families on the
#            mma.sync and Hopper cores, against gemm with the same tile)
#   floor    calibrate (tests/gpu/calibrate.sh): the ceilings and the
#            read-floor curve into the store, so `best` shows x_floor
#   perrank  sweeps/perrank.json at W=1 against cuBLAS in the same run;
#            `best` of it to $OUT/perrank-best.csv (plot the store where
#            gnuplot is: `fgobench plot roofline --tag perrank --db ...`)
#   fused    sweeps/perrank_fused.json: all_scatter and all_reduce_one_shot
#            at W=1 on the same shapes; `best` to $OUT/perrank-fused-best.csv
#   det      sweeps/wgmma_det.json: deterministic 0 and 1 side by side
#            (split-K, hybrid and pure Stream-K) against cuBLAS; the store
#            holds them (`fgobench best --tag det` or SQL on $OUT/fgobench.db)
#   ab       sweeps/ab_large.json, build/cuda-prev against build/cuda
#            (tests/gpu/ab.sh): the large shapes no slower
# Kernels are compiled here first (all CPUs), their time stated apart.
#   OUT=/some/dir STEPS="check perrank" sh tests/gpu/walk.sh
set -u
here=$(dirname "$0")
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export FGOBENCH_CACHE=${FGOBENCH_CACHE:-/tmp/fgobench-cache}
steps=${STEPS:-check floor perrank fused}
step() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
log=$OUT/walk.log
jobs=$(nproc)
rc=0

compile() {
	t0=$(date +%s.%N)
	NP=1 sh "$here/run.sh" compile "$1" -j "$jobs" --quiet --format csv \
		>"$OUT/compile-$(basename "$1" .json).csv" || rc=1
	echo "compile $1: $(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.1f", a - b }') s" | tee -a "$log"
}
sweep() { # NP SPEC TAG
	NP=$1 sh "$here/run.sh" sweep "$2" --tag "$3" --quiet --timeout 10 2>&1 | tail -n 3 | tee -a "$log"
}

if step check; then
	compile sweeps/wgmma_walk.json
	sweep 2 sweeps/wgmma_walk.json walk-check
	compile sweeps/gpu_streamk.json
	sweep 1 sweeps/gpu_streamk.json walk-streamk
fi
if step floor; then # the checked calibrate (tests/gpu/calibrate.sh), same store
	NP=1 sh "$here/calibrate.sh" 2>&1 | tail -n 40 | tee -a "$log"
fi
if step perrank; then
	compile sweeps/perrank.json
	sweep 1 sweeps/perrank.json perrank
	NP=1 sh "$here/run.sh" best --tag perrank --format csv >"$OUT/perrank-best.csv" 2>&1
fi
if step fused; then
	compile sweeps/perrank_fused.json
	sweep 1 sweeps/perrank_fused.json perrank-fused
	NP=1 sh "$here/run.sh" best --tag perrank-fused --format csv >"$OUT/perrank-fused-best.csv" 2>&1
fi
if step det; then
	compile sweeps/wgmma_det.json
	sweep 1 sweeps/wgmma_det.json det
	# what the promise is worth: every walk with partial sums validated
	# twice, deterministic or not (a non-deterministic one may differ)
	export FGOBENCH_CHECK_REPEAT=1
	sweep 1 sweeps/wgmma_det.json det-repeat
	unset FGOBENCH_CHECK_REPEAT
fi
if step ab; then
	for b in build/cuda-prev build/cuda; do
		FGOBENCH_CACHE=$PWD/$b/kcache FGOBENCH_BUILD=$b NP=1 sh "$here/run.sh" compile sweeps/ab_large.json \
			-j "$jobs" --quiet --format csv >/dev/null
	done
	sh "$here/ab.sh" sweeps/ab_large.json build/cuda-prev build/cuda 2 2>&1 | tail -n 30 | tee -a "$log"
fi
exit $rc
