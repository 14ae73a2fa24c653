#!/bin/sh
# run.sh BINARY...: runs the unit test binaries (build/tests/test_*), the MPI
# test programs (build/tests/mpi_*, under mpirun -np 4) and every end-to-end
# script tests/e2e/*.sh; counts their "PASS id" / "FAIL id ..." lines. A
# program that dies without saying FAIL counts as one failure. The last line
# is "N passed, N failed"; the exit status is 1 when anything failed.
# "SKIP id: why" lines (a check that could not run here, e.g. without the
# CUDA toolkit or hipcc) are shown but not counted.
# Every test runs under a time limit of its own (tests/limits.txt: about 5
# times its usual time in a full run on a 2-core machine, at least 60 s;
# tests/limits.sh reads it): one still running then is killed and counts
# as a failure naming it, so a hang fails the run in minutes rather than
# at CI's own limit. A test not in the table gets its kind's generous
# default (unit 120 s, MPI 300, end-to-end 600).
#   FGO_TEST_TIMEOUT_UNIT, FGO_TEST_TIMEOUT_MPI, FGO_TEST_TIMEOUT_E2E: one
#   limit for every test of that kind instead; FGO_TEST_LIMITS: another table
# FGO_TEST_E2E_DIR (tests/e2e) and FGO_TEST_CPPCHECK=0 are for the test of
# this runner itself (tests/e2e/37_timeout.sh).
set -u
e2e_dir=${FGO_TEST_E2E_DIR:-tests/e2e}
. tests/limits.sh
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
	*/mpi_*)
		run_timeout=$(test_limit "$(basename "$bin")")
		run_one "$(basename "$bin") (mpirun -np 4)" mpirun --oversubscribe -np 4 "$bin" ;;
	*)
		run_timeout=$(test_limit "$(basename "$bin")")
		run_one "$(basename "$bin")" "$bin" ;;
	esac
done
# The end-to-end scripts, FGO_TEST_JOBS at a time (default 3: most of a
# script's time is mpirun starting and processes waiting on each other, so
# three lanes fill a 2-core machine), each into its own log, counted as they
# finish (a lane is refilled as soon as any script ends: waiting for the
# oldest kept two lanes idle behind 70_gpu_compile's two minutes); the ones
# that time signals, crashes or races against a deadline run alone
# afterwards (FGO_TEST_SOLO names them; empty, they take lanes too: 392
# and 501 s for the whole `make test` on a 2-core VM, every check passing,
# against about 550 alone, but CI builds the sanitizer and fuzz targets
# beside the tests, so they stay alone there). Each script has its own
# temporary store.
jobs=${FGO_TEST_JOBS:-3}
solo=${FGO_TEST_SOLO-"90_crash_resume 91_concurrency 97_interrupt"}
lanes=$(mktemp -d /tmp/fgobench-lanes.XXXXXX)
trap 'rm -f "$log"; rm -rf "$lanes"' EXIT
queue=""
# collect NAME: waits for NAME's lane and counts it like run_one
collect() {
	while [ ! -f "$lanes/$1.rc" ]; do
		sleep 0.2
	done
	count_log=$lanes/$1.out
	run_seconds=$(cat "$lanes/$1.time")
	run_timeout=$(test_limit "$1")
	run_one "$e2e_dir/$1.sh" sh -c "cat '$lanes/$1.log'; exit \$(cat '$lanes/$1.rc')"
	run_seconds=
	count_log=$log
}
# finished_lane: waits until a lane of the queue has ended, prints its name
finished_lane() {
	while :; do
		for q in $queue; do
			[ -f "$lanes/$q.rc" ] && { echo "$q"; return; }
		done
		sleep 0.2
	done
}
# (lane, not name: run_one sets name)
running=0
# the longest first (70_gpu_compile: two minutes of kernel compiles), so the
# others fill the lanes beside it instead of waiting for it at the end
first="70_gpu_compile"
started=""
for script in "$e2e_dir/$first.sh" "$e2e_dir"/*.sh; do
	[ -f "$script" ] || continue
	lane=$(basename "$script" .sh)
	case "$lane" in lib) continue ;; esac
	case " $solo $started " in *" $lane "*) continue ;; esac
	started="$started $lane"
	if [ "$running" -ge "$jobs" ]; then
		done_lane=$(finished_lane)
		queue=$(echo " $queue" | sed "s/ $done_lane / /; s/^ //")
		collect "$done_lane"
		running=$((running - 1))
	fi
	(start=$(date +%s); run_limited "$(test_limit "$lane")" sh "$script" >"$lanes/$lane.log" 2>&1; rc=$?
	 echo "$(($(date +%s) - start))" >"$lanes/$lane.time"
	 echo "$rc" >"$lanes/$lane.rc") &
	queue="$queue$lane "
	running=$((running + 1))
done
for lane in $queue; do
	collect "$lane"
done
wait
for lane in $solo; do
	run_timeout=$(test_limit "$lane")
	[ -f "$e2e_dir/$lane.sh" ] && run_one "$e2e_dir/$lane.sh" sh "$e2e_dir/$lane.sh"
done
if [ "${FGO_TEST_CPPCHECK:-1}" != 0 ] && command -v cppcheck >/dev/null 2>&1; then
	run_one "cppcheck src/" sh -c 'cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
		--std=c11 -Isrc -Ikernels -Ibuild --suppress=missingIncludeSystem \
		--max-configs=1 --suppress=toomanyconfigs -j2 src && echo "PASS cppcheck-src"'
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
