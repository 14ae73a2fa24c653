#!/bin/sh
# run.sh README REPO DIR [ID]: runs the commands of README (any markdown
# file: README.md, a file of docs/; tests/readme/commands.awk finds them)
# in order in DIR, as a user pastes them into a clone of REPO after
# `make demo`; prints "PASS ID-LINE" or "FAIL ID-LINE: ..." per command
# (ID: readme unless given), naming the file's line, and one SKIP line
# for the commands CI cannot run. A file of docs/ (an ID other than
# readme) may hold no command; README.md must. `make demo` runs in REPO
# with its plots sent to DIR (DEMO_PLOTS) and the store wherever
# $FGOBENCH_DB says; `make test` is
# what runs this; any other `make` line must be marked (own-test=FILE).
# Each command has READMETEST_TIMEOUT seconds (default 300): a hang is a FAIL.
set -u
readme=$1
repo=$2
dir=$3
prefix=${4:-readme}
name=$(basename "$readme")
tab=$(printf '\t')
limit=${READMETEST_TIMEOUT:-300}
skipped=""
log=$(mktemp)
records=$(mktemp)
trap 'rm -f "$log" "$records"' EXIT
awk -f "$repo/tests/readme/commands.awk" "$readme" >"$records" || {
	echo "FAIL $prefix-extract: awk could not read $readme"
	exit 1
}
[ -s "$records" ] || [ "$prefix" != readme ] || echo "FAIL readme-extract: no command found in $readme"
# output: the command's first two and last two lines (an error, then a
# usage synopsis or the end of a run), on one line
output() {
	if [ "$(wc -l <"$log")" -le 4 ]; then
		tr '\n' ' ' <"$log"
	else
		{ head -n 2 "$log"; echo "..."; tail -n 2 "$log"; } | tr '\n' ' '
	fi | cut -c1-500
}
while IFS="$tab" read -r kind line what cmd; do
	id="$prefix-$line"
	case "$kind" in
	BAD)
		echo "FAIL $id: $name:$line: $what"
		continue
		;;
	SKIP)
		skipped="$skipped $line"
		continue
		;;
	esac
	case "$cmd" in
	"make demo")
		run="make -C '$repo' --no-print-directory demo DEMO_PLOTS='$dir/plots/out'"
		;;
	"make test")
		skipped="$skipped $line"
		continue
		;;
	make\ *)
		echo "FAIL $id: $name:$line: \`$cmd\` is run by no test: it would run in the clone;" \
			"mark its block \`sh own-test=FILE\` with the test that runs it"
		continue
		;;
	*) run=$cmd ;;
	esac
	t0=$(date +%s.%N)
	(cd "$dir" && timeout "$limit" sh -c "$run") >"$log" 2>&1 </dev/null
	rc=$?
	[ -n "${READMETEST_TIMES:-}" ] && echo "$line $(echo "$(date +%s.%N) - $t0" | bc) $cmd" >>"$READMETEST_TIMES"
	ok=0
	for e in $what; do
		[ "$rc" = "$e" ] && ok=1
	done
	if [ "$ok" = 1 ]; then
		echo "PASS $id"
	else
		[ "$rc" = 124 ] && rc="124 (killed after ${limit}s)"
		echo "FAIL $id: $name:$line: \`$cmd\` exited $rc where $name announces" \
			"$(echo "$what" | sed 's/ / or /g'); its output: $(output)"
	fi
done <"$records"
[ -n "$skipped" ] && echo "SKIP $prefix-not-run: $name lines$skipped (marked gpu or own-test, or make test itself)"
exit 0
