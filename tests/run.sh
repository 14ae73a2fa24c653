#!/bin/sh
# run.sh BINARY...: runs the unit test binaries (build/tests/test_*), the MPI
# test programs (build/tests/mpi_*, under mpirun -np 4) and every end-to-end
# script tests/e2e/*.sh; counts their "PASS id" / "FAIL id ..." lines. A
# program that dies without saying FAIL counts as one failure. The last line
# is "N passed, N failed"; the exit status is 1 when anything failed.
# "SKIP id: why" lines (a check that could not run here, e.g. without the
# CUDA toolkit or hipcc) are shown but not counted.
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
passed=0
failed=0
count_log=$log
. tests/count.sh

for bin in "$@"; do
	case "$bin" in
	*/mpi_*) run_one "$(basename "$bin") (mpirun -np 4)" mpirun --oversubscribe -np 4 "$bin" ;;
	*) run_one "$(basename "$bin")" "$bin" ;;
	esac
done
for script in tests/e2e/*.sh; do
	[ -f "$script" ] || continue
	case "$script" in */lib.sh) continue ;; esac
	run_one "$script" sh "$script"
done
if command -v cppcheck >/dev/null 2>&1; then
	run_one "cppcheck src/" sh -c 'cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
		--std=c11 -Isrc -Ikernels -Ibuild --suppress=missingIncludeSystem src && echo "PASS cppcheck-src"'
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
