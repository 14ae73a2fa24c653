#!/bin/sh
# run.sh FGOBENCH TEST...: what `make test-asan` runs. FGOBENCH is the
# ASan+UBSan build of the tool, TEST... the same build of the unit tests
# (build/asan/tests/test_*) and MPI test programs (build/asan/tests/mpi_*,
# under mpirun -np 4 like `make test`: they check worlds up to 4). Then the
# end-to-end scripts named in $ASAN_E2E run with FGO=FGOBENCH, so the
# subcommands and the CPU backend under mpirun -np 2 run sanitized. Every sanitizer report, from any process, lands in a log
# file; each one is a failure (OpenMPI's own leaks are suppressed by
# tests/asan/ompi.supp, nothing of fgobench is). The last line is
# "N passed, N failed"; the exit status is 1 when anything failed.
set -u
fgo=$1
shift
root=$(pwd)
logs=$(mktemp -d /tmp/fgobench-asan.XXXXXX)
out=$(mktemp)
trap 'rm -rf "$logs" "$out"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# MCA components stay loaded at exit, so their leaks have a module name to
# suppress; the slow unwinder is what sees through OpenMPI's frames.
export OMPI_MCA_mca_base_component_disable_dlclose=1
export ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=1:fast_unwind_on_malloc=0:check_initialization_order=1:strict_string_checks=1"
export LSAN_OPTIONS="suppressions=$root/tests/asan/ompi.supp:print_suppressions=0"
export UBSAN_OPTIONS="log_path=$logs/ubsan:print_stacktrace=1:halt_on_error=1"
# The default keeps CI short; ASAN_E2E="10_sweep 20_regress 40_bad_input
# 50_datasets 85_report" (about 4 minutes more) was run clean too.
ASAN_E2E=${ASAN_E2E:-"10_sweep 20_regress"}
passed=0
failed=0
count_log=$out
count_suffix=" [asan]"
. "$root/tests/count.sh"

for bin in "$@"; do
	case "$bin" in
	*/mpi_*) run_one "$(basename "$bin") (mpirun -np 4)" mpirun --oversubscribe -np 4 "$bin" ;;
	*) run_one "$(basename "$bin")" "$bin" ;;
	esac
done
for s in $ASAN_E2E; do
	[ -f "tests/e2e/$s.sh" ] && run_one "tests/e2e/$s.sh" env FGO="$root/$fgo" FGO_E2E_QUICK=1 sh "tests/e2e/$s.sh"
done

# Every report is a failure, whoever wrote it.
reports=0
for f in "$logs"/*; do
	[ -f "$f" ] || continue
	reports=$((reports + 1))
	echo "FAIL asan-report-$reports: $(grep -m1 -E 'ERROR|runtime error' "$f")"
	grep -E '^    #[0-9]+ .* in ' "$f" | grep -v -E 'libasan|libubsan|sanitizer' | head -n 8 | sed 's/^/    /'
done
if [ "$reports" = 0 ]; then
	echo "PASS asan-no-reports"
	passed=$((passed + 1))
fi
failed=$((failed + reports))
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
