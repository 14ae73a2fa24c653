#!/bin/sh
# tests/gpu/run.sh CMD ARGS...: runs `fgobench CMD ARGS` on every GPU of a
# GPU machine with the build made elsewhere (`make GPU=cuda`, carry
# build/cuda), the store and logs written to $OUT (default ./gpu-out).
# Nothing is built here: the GPU machines have no compiler time to spare.
# FGOBENCH_BUILD names another carried build (default build/cuda), so two
# builds can be compared in one run (tests/gpu/ab.sh).
#   sh tests/gpu/run.sh sweep sweeps/gpu_smoke.json --tag gpu-smoke
#   sh tests/gpu/run.sh calibrate      (or tests/gpu/calibrate.sh: runs it and checks the store)
set -u
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# NCCL lives only inside the Python package on these machines
nccl=$(python3 -c "import nvidia.nccl,os;print(os.path.join(list(nvidia.nccl.__path__)[0],'lib'))" 2>/dev/null || true)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${nccl}:${LD_LIBRARY_PATH:-}
build=${FGOBENCH_BUILD:-build/cuda}
# the kernels `make bundle` compiled travel beside the binary
if [ -z "${FGOBENCH_CACHE:-}" ] && [ -d "$build/kcache" ]; then
	FGOBENCH_CACHE=$PWD/$build/kcache
fi
export FGOBENCH_CACHE=${FGOBENCH_CACHE:-/tmp/fgobench-cache}
export FGOBENCH_DB=${FGOBENCH_DB:-$OUT/fgobench.db}
np=${NP:-$(nvidia-smi -L | wc -l)}
nvidia-smi -L > "$OUT/gpus.txt" 2>&1
cmd=$1
shift
# mpirun binds each rank to a core: compile's -j processes would all share it
bind=
[ "$cmd" = compile ] && bind="--bind-to none"
# the exit status is fgobench's, not tee's (sh has no pipefail)
{
	# shellcheck disable=SC2086
	mpirun -np "$np" $bind -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE -x FGOBENCH_CACHE -x FGOBENCH_DB \
		"$build/fgobench" "$cmd" "$@" 2>&1
	echo $? > "$OUT/$cmd.rc"
} | tee -a "$OUT/$cmd.log"
exit "$(cat "$OUT/$cmd.rc")"
