# count.sh: run_one, the test runner's one step, shared by tests/run.sh and
# tests/asan/run.sh (sourced). Set count_log (a scratch file) and, if you
# like, count_suffix (appended to the names printed) first; passed and
# failed add up over the calls.
#   run_one NAME COMMAND...   runs COMMAND, counts its "PASS id" / "FAIL id"
#                             lines; one that dies without a FAIL line
#                             counts as one failure; prints FAIL and SKIP
#                             lines and a summary line (its seconds: run_seconds
#                             when set, for a command run before)
passed=${passed:-0}
failed=${failed:-0}
run_one() {
	name=$1
	shift
	start=$(date +%s)
	"$@" >"$count_log" 2>&1
	rc=$?
	p=$(grep -c '^PASS ' "$count_log")
	f=$(grep -c '^FAIL ' "$count_log")
	grep -E '^(FAIL|SKIP) ' "$count_log"
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "FAIL $name: exited with status $rc and no FAIL line; its last output:"
		tail -n 15 "$count_log" | sed 's/^/    /'
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	printf '%-44s %4d passed %3d failed  (%ss)\n' "$name${count_suffix:-}" "$p" "$f" \
		"${run_seconds:-$(($(date +%s) - start))}"
}
