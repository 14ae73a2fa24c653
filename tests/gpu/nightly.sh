#!/bin/sh
# tests/gpu/nightly.sh: the nightly regression run on one GPU machine (issue
# 24), with the carried build (build/cuda), everything under $OUT: the
# kernels of sweeps/nightly_gpu.json compiled first, then tests/nightly.sh
# (the recipe the README gives) three times back to back on the same
# commit, each night compared with the one before, which must report no
# regression (the GPU's noise must not raise alarms); then a fourth night
# with every launch made slower on purpose (FGOBENCH_PLANT_SLOW_NS, a spin
# after each kernel on its stream), which must be reported as a regression.
# Prints one PASS/FAIL line per check and the time of each night; exit 0
# when every check passed.
#   OUT=/some/dir sh tests/gpu/nightly.sh
set -u
here=$(dirname "$0")
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export FGOBENCH_CACHE=${FGOBENCH_CACHE:-/tmp/fgobench-cache}
export FGOBENCH_DB=$OUT/nightly.db NIGHTLY_SPEC=sweeps/nightly_gpu.json NIGHTLY_NP=1
export NIGHTLY_REPORTS=$OUT/reports FGO=${FGOBENCH_BUILD:-build/cuda}/fgobench
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nccl=$(python3 -c "import nvidia.nccl,os;print(os.path.join(list(nvidia.nccl.__path__)[0],'lib'))" 2>/dev/null || true)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${nccl}:${LD_LIBRARY_PATH:-}
export MPIRUN="mpirun -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE -x FGOBENCH_CACHE -x FGOBENCH_DB -x FGOBENCH_PLANT_SLOW_NS"
fails=0
check() { # ID WANT GOT WHAT
	if [ "$2" = "$3" ]; then echo "PASS $1 $4"; else echo "FAIL $1: $4: want $2, got $3"; fails=$((fails + 1)); fi
}
night() { # TAG: one night; its exit status in $rc, its seconds printed
	t0=$(date +%s)
	NIGHTLY_TAG=$1 sh tests/nightly.sh >"$OUT/$1.log" 2>&1
	rc=$?
	echo "night $1: exit $rc in $(($(date +%s) - t0)) s"
}

NP=1 sh "$here/run.sh" compile "$NIGHTLY_SPEC" -j "$(nproc)" --quiet --format csv >"$OUT/compile-nightly.csv"
export FGOBENCH_PLANT_SLOW_NS=0
night gpu-nightly-1
check gnightly-1 0 "$rc" "the first night runs, every configuration ok"
night gpu-nightly-2
check gnightly-2 0 "$rc" "the second night: no regression against the first"
night gpu-nightly-3
check gnightly-3 0 "$rc" "the third night: no regression against the second"
export FGOBENCH_PLANT_SLOW_NS=${PLANT_NS:-20000}
night gpu-nightly-slow
check gnightly-4 1 "$rc" "a night ${FGOBENCH_PLANT_SLOW_NS} ns slower a launch: reported as a regression"
grep -c "regression" "$NIGHTLY_REPORTS/gpu-nightly-slow/index.md" >/dev/null 2>&1 &&
	grep -m 5 -i "regress" "$NIGHTLY_REPORTS/gpu-nightly-slow/index.md"
exit $((fails > 0))
