# 37_timeout.sh: tests/run.sh's time limits (issue 35: an off-by-one made
# three tests loop forever and CI ran to its own limit). A unit test and an
# end-to-end script that never end are killed, each reported as a FAIL
# naming it, with the children they started; the tests that end are
# counted as before, and the run fails.
. tests/e2e/lib.sh

mkdir -p "$T/e2e"
printf '#!/bin/sh\necho "PASS hang-1.1"\nsleep 300\n' >"$T/test_hang"
printf '#!/bin/sh\necho "PASS quick-1.1"\n' >"$T/test_quick"
chmod +x "$T/test_hang" "$T/test_quick"
# the script's child writes its pid, so the test can see that it went too
printf 'sleep 300 &\necho $! >"%s/child.pid"\necho "PASS e2e-hang-1.1"\nwait\n' "$T" >"$T/e2e/50_hang.sh"
printf 'echo "PASS e2e-ok-1.1"\n' >"$T/e2e/10_ok.sh"
start=$(date +%s)
FGO_TEST_E2E_DIR="$T/e2e" FGO_TEST_CPPCHECK=0 FGO_TEST_TIMEOUT_UNIT=2 FGO_TEST_TIMEOUT_E2E=3 \
	sh tests/run.sh "$T/test_hang" "$T/test_quick" >"$T/run.out" 2>&1
rc=$?
took=$(($(date +%s) - start))
expect_eq timeout-1.1 1 "$rc"
check timeout-1.2 "the hung unit test is named: $(grep test_hang "$T/run.out" | head -1)" \
	grep -q "^FAIL test_hang: timed out after 2s" "$T/run.out"
check timeout-1.3 "the hung end-to-end script is named: $(grep 50_hang "$T/run.out" | head -1)" \
	grep -q "^FAIL $T/e2e/50_hang.sh: timed out after 3s" "$T/run.out"
expect_eq timeout-1.4 "4 passed, 2 failed" "$(tail -n 1 "$T/run.out")"
check timeout-1.5 "the run ended soon after the limits (${took}s)" [ "$took" -lt 60 ]
# (gone, or a zombie where nothing reaps orphans, as in a container)
check timeout-1.6 "the script's child was killed with it" \
	sh -c "ps -o stat= -p \$(cat '$T/child.pid') | grep -qv '^Z' && exit 1; exit 0"
