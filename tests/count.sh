# count.sh: run_one, the test runner's one step, shared by tests/run.sh and
# tests/asan/run.sh (sourced). Set count_log (a scratch file) and, if you
# like, count_suffix (appended to the names printed) first; passed and
# failed add up over the calls.
#   run_one NAME COMMAND...   runs COMMAND, counts its "PASS id" / "FAIL id"
#                             lines; one that dies without a FAIL line
#                             counts as one failure; prints FAIL and SKIP
#                             lines and a summary line (its seconds: run_seconds
#                             when set, for a command run before). With
#                             run_timeout set (seconds), a command still
#                             running then is killed and counts as one
#                             failure, "FAIL NAME: timed out ..."
#   run_limited SECONDS COMMAND...  COMMAND killed with its process group
#                             after SECONDS (0: no limit): exit 124, or 137
#                             when it outlived SIGTERM by 10 s
passed=${passed:-0}
failed=${failed:-0}
# timeout (coreutils) signals the whole process group it made, so an
# end-to-end script's mpirun and ranks go with it
run_limited() {
	_limit=$1
	shift
	if [ "${_limit:-0}" -gt 0 ] && command -v timeout >/dev/null 2>&1; then
		timeout -k 10 "$_limit" "$@"
	else
		"$@"
	fi
}
run_one() {
	name=$1
	shift
	start=$(date +%s)
	run_limited "${run_timeout:-0}" "$@" >"$count_log" 2>&1
	rc=$?
	p=$(grep -c '^PASS ' "$count_log")
	f=$(grep -c '^FAIL ' "$count_log")
	grep -E '^(FAIL|SKIP) ' "$count_log"
	if [ "${run_timeout:-0}" -gt 0 ] && { [ "$rc" = 124 ] || [ "$rc" = 137 ]; }; then
		# a hang (an endless loop, a rank waiting for a peer) is a failure
		# of its own, named, whatever the test printed before it
		echo "FAIL $name: timed out after ${run_timeout}s and was killed (a hang, or far slower than it should be); its last output:"
		tail -n 15 "$count_log" | sed 's/^/    /'
		f=$((f + 1))
	elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "FAIL $name: exited with status $rc and no FAIL line; its last output:"
		tail -n 15 "$count_log" | sed 's/^/    /'
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	printf '%-44s %4d passed %3d failed  (%ss)\n' "$name${count_suffix:-}" "$p" "$f" \
		"${run_seconds:-$(($(date +%s) - start))}"
}
