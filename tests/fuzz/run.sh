#!/bin/sh
# run.sh MODE SECONDS BINARY...: runs the libFuzzer harnesses built by
# `make fuzz-build` (build/fuzz/fuzz_NAME), each over its seed corpus
# tests/fuzz/corpus/NAME and the reproducers of past findings in
# tests/fuzz/regress/NAME, with tests/fuzz/NAME.dict when there is one.
#   MODE fuzz: SECONDS of fuzzing each, in libFuzzer's fork mode so that a
#        finding is saved (build/fuzz/artifacts/NAME/) and the search goes
#        on; the corpus grows in build/fuzz/corpus/NAME; executions and
#        findings are appended to build/fuzz/stats.tsv.
#   MODE ci:   every seed and reproducer once, then SECONDS of fuzzing from
#        a throw-away copy of the corpus; the first finding stops it.
# Prints "PASS fuzz-NAME" or "FAIL fuzz-NAME: ..." per harness and stage,
# then "N passed, N failed"; exits 1 when anything failed. Set FUZZ_NICE
# to run at a lower priority (e.g. FUZZ_NICE=19 on a shared machine).
set -u
mode=$1 seconds=$2
shift 2
root=$(pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# OpenMPI's own leaks are suppressed by module name, which needs the slow
# unwinder to see the modules; fgobench's leaks are reported as findings.
export ASAN_OPTIONS="fast_unwind_on_malloc=0:detect_leaks=1:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$root/tests/asan/ompi.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
nice="nice -n ${FUZZ_NICE:-0}"
passed=0
failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
mkdir -p build/fuzz/logs

for bin in "$@"; do
	name=$(basename "$bin" | sed 's/^fuzz_//')
	seeds="$root/tests/fuzz/corpus/$name"
	regress="$root/tests/fuzz/regress/$name"
	dict=""
	[ -f "tests/fuzz/$name.dict" ] && dict="-dict=$root/tests/fuzz/$name.dict"
	[ "$name" = dataset ] && dict="-dict=$root/tests/fuzz/spec.dict"
	dirs="$seeds"
	[ -d "$regress" ] && dirs="$dirs $regress"
	log="$root/build/fuzz/logs/$name.$mode.log"
	# the harnesses write scratch files (fuzz_cli: a store, plots) in their
	# working directory
	work=$(mktemp -d /tmp/fgobench-fuzz-work.XXXXXX)
	if [ "$mode" = ci ]; then
		# shellcheck disable=SC2086
		(cd "$work" && $nice "$root/$bin" -runs=0 $dirs) >"$log" 2>&1
		if [ $? = 0 ]; then
			pass "fuzz-$name-corpus"
		else
			fail "fuzz-$name-corpus" "an input of $dirs fails (see $log)"
			grep -E 'ERROR|runtime error|fuzz check failed|Test unit written' "$log" | head -5 | sed 's/^/    /'
		fi
		corpus="$work/corpus"
		mkdir -p "$corpus"
		# shellcheck disable=SC2086
		(cd "$work" && $nice "$root/$bin" -max_total_time="$seconds" -timeout=20 \
			-rss_limit_mb=3072 -artifact_prefix="$work/" $dict "$corpus" $dirs) >>"$log" 2>&1
		rc=$?
		execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -n 1 | sed 's/.* //')
		if [ "$rc" = 0 ]; then
			pass "fuzz-$name-${seconds}s"
		else
			mkdir -p build/fuzz/artifacts/$name
			cp "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* \
				build/fuzz/artifacts/$name/ 2>/dev/null
			fail "fuzz-$name-${seconds}s" "a finding after ${execs:-?} executions, saved in build/fuzz/artifacts/$name (see $log)"
			grep -E 'ERROR|runtime error|fuzz check failed' "$log" | head -5 | sed 's/^/    /'
		fi
	else
		corpus="$root/build/fuzz/corpus/$name"
		artifacts="$root/build/fuzz/artifacts/$name"
		mkdir -p "$corpus" "$artifacts"
		# findings: crashes, leaks, timeouts, out-of-memory (slow-unit-*
		# files say a run took long, on a busy machine usually; not counted)
		findings() { ls "$artifacts" | grep -c -E '^(crash|leak|timeout|oom)-'; }
		before=$(findings)
		start=$(date +%s)
		# shellcheck disable=SC2086
		(cd "$work" && $nice "$root/$bin" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 \
			-ignore_ooms=1 -max_total_time="$seconds" -timeout=20 -rss_limit_mb=3072 \
			-artifact_prefix="$artifacts/" $dict "$corpus" $dirs) >"$log" 2>&1
		took=$(($(date +%s) - start))
		# fork mode's status lines: "#EXECS: cov: ... crash: ..."
		execs=$(grep -o '^#[0-9]*:' "$log" | tail -n 1 | tr -d '#:')
		found=$(($(findings) - before))
		printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$name" "$took" \
			"${execs:-0}" "$found" >>build/fuzz/stats.tsv
		echo "fuzz-$name: ${took}s, ${execs:-0} executions, $found new findings, corpus $(ls "$corpus" | wc -l) inputs"
		if [ "$found" = 0 ]; then
			pass "fuzz-$name"
		else
			fail "fuzz-$name" "$found findings in $artifacts (see $log)"
		fi
	fi
	rm -rf "$work"
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
