#!/bin/sh
# mutate.sh: the mutation check (`make mutate`): do the tests fail when the
# code is wrong? Applies each mutant of tests/mutants.txt (a small,
# realistic bug: one exact text of one file replaced) alone, in a scratch
# copy of the tree (the working tree is never touched), builds, runs the
# tests the list names for it, and says per mutant:
#   caught    a named test failed (a FAIL line, a crash, or a hang killed)
#   SURVIVED  every named test passed: a hole in the tests (or, marked
#             "expect: survives" in the list with its reason, a known one)
#   STALE     the original text is not in the file exactly once: the code
#             moved on, the list must follow it
#   NOBUILD   the mutant does not compile: not a test of the tests
# then "mutate: N of M caught (P%)" over the mutants that ran. Exit 0 when
# every survivor is a known one, 1 when another survived, 2 when the list
# is stale or broken, or a named test fails without any mutant.
#   sh tests/mutate.sh [--only ID,ID...] [--full] [--keep] [--list FILE]
#   --only   the mutants whose id is listed (or starts with one of them, so
#            --only gate runs every gate-* mutant)
#   --full   a survivor of its named tests also runs the whole suite
#            (tests/run.sh: minutes per survivor)
#   --keep   leave the scratch copy (its path is printed)
# FGO_MUTATE_TMP: where the scratch copy goes (default /tmp); MAKE_JOBS (2).
set -u
list=tests/mutants.txt
only=""
full=0
keep=0
while [ $# -gt 0 ]; do
	case "$1" in
	--only) only=$(echo "${2:-}" | tr ',' ' '); shift ;;
	--full) full=1 ;;
	--keep) keep=1 ;;
	--list) list=${2:-}; shift ;;
	*) echo "mutate.sh: unknown argument \"$1\" (--only ID,..., --full, --keep, --list FILE)" >&2
	   exit 2 ;;
	esac
	shift
done
if [ ! -f "$list" ] || [ ! -f Makefile ]; then
	echo "mutate.sh: run from the repository root (no $list or Makefile here)" >&2
	exit 2
fi
jobs=${MAKE_JOBS:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
. tests/limits.sh
root=$PWD
scratch=$(mktemp -d "${FGO_MUTATE_TMP:-/tmp}/fgobench-mutate.XXXXXX") || exit 2
cleanup() {
	[ "$keep" = 1 ] && echo "mutate: the scratch copy is $scratch" || rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 2' INT TERM

# ---- the list: one block per mutant, "key: value" lines, "#" comments ----
#   id:     a name (unique)
#   file:   the file, from the repository root
#   from:   the exact original text (the rest of the line after "from: ",
#           tabs and all); it must occur in the file exactly once
#   to:     what replaces it
#   tests:  the tests that should catch it: unit:test_x (build/tests/test_x),
#           mpi:test_x (build/tests/mpi_test_x under mpirun -np 4),
#           e2e:NN_name (tests/e2e/NN_name.sh), in the order to try
#   expect: survives (with why:), for a survivor explained instead of killed
#   why:    the explanation
# Each block is flattened to one record of unit-separated fields.
records=$scratch/.records
awk -v FS='\n' '
	function flush() {
		if (id != "")
			printf "%s\037%s\037%s\037%s\037%s\037%s\037%d\n", id, file, from, to, tests, expect, line
		id = file = from = to = tests = expect = ""
	}
	/^#/ { next }
	/^[ \t]*$/ { flush(); next }
	{
		k = $0; sub(/:.*/, "", k)
		v = $0; sub(/^[a-z]+: ?/, "", v)
		if (k == "id") { flush(); id = v; line = NR }
		else if (k == "file") file = v
		else if (k == "from") from = v
		else if (k == "to") to = v
		else if (k == "tests") tests = v
		else if (k == "expect") expect = v
		else if (k != "why") { printf "mutate.sh: %s:%d: unknown key \"%s\"\n", FILENAME, NR, k > "/dev/stderr"; bad = 1 }
	}
	END { flush(); exit bad }
' "$list" >"$records" || exit 2
bad=$(awk -F '\037' '$1 == "" || $2 == "" || $3 == "" || $5 == "" { print "line " $7 }' "$records")
if [ -n "$bad" ]; then
	echo "mutate.sh: $list: a mutant without id, file, from or tests at $bad" >&2
	exit 2
fi
dup=$(cut -d "$(printf '\037')" -f1 "$records" | sort | uniq -d | head -1)
if [ -n "$dup" ]; then
	echo "mutate.sh: $list: the id \"$dup\" is used twice" >&2
	exit 2
fi

# selected ID: 0 when --only names it (or a prefix of it), or no --only
selected() {
	[ -z "$only" ] && return 0
	for o in $only; do
		case "$1" in "$o"*) return 0 ;; esac
	done
	return 1
}

# ---- the scratch copy: tracked and untracked files, not what git ignores
# (outside a git checkout: everything but the build) ----
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -co --exclude-standard | while IFS= read -r f; do
		[ -f "$f" ] && printf '%s\n' "$f"
	done | tar -cf - -T - | tar -xf - -C "$scratch" || exit 2
else
	tar -cf - --exclude=./build --exclude=./fgobench --exclude='./fgobench.db*' . |
		tar -xf - -C "$scratch" || exit 2
fi
cd "$scratch" || exit 2
log=$scratch/.log

# build TESTS...: the fgobench binary and the test programs TESTS need
build() {
	targets="all"
	for t in "$@"; do
		case "$t" in
		unit:*) targets="$targets build/tests/${t#unit:}" ;;
		mpi:*) targets="$targets build/tests/mpi_${t#mpi:}" ;;
		esac
	done
	# shellcheck disable=SC2086
	make -j"$jobs" --no-print-directory $targets >"$log" 2>&1 </dev/null
}

# run TEST: 0 when it passes; else 1 and the reason in $why
run_test() {
	case "$1" in
	unit:*) name=${1#unit:}; cmd="build/tests/$name" ;;
	mpi:*) name=mpi_${1#mpi:}; cmd="mpirun --oversubscribe -np 4 build/tests/$name" ;;
	e2e:*) name=${1#e2e:}; cmd="sh tests/e2e/$name.sh" ;;
	*) why="unknown test \"$1\""; return 1 ;;
	esac
	limit=$(test_limit "$name")
	# shellcheck disable=SC2086
	timeout -k 10 "$limit" $cmd >"$log" 2>&1 </dev/null
	rc=$?
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		why="hung: killed after ${limit}s"
		return 1
	fi
	first=$(grep -m1 '^FAIL ' "$log" | cut -c1-100)
	if [ -n "$first" ]; then
		why=$first
		return 1
	fi
	if [ "$rc" != 0 ]; then
		why="exit $rc without a FAIL line"
		return 1
	fi
	return 0
}

# ---- the named tests, once without any mutant: each must pass ----
all_tests=$(while IFS="$(printf '\037')" read -r id file from to tests expect line; do
	selected "$id" && echo "$tests"
done <"$records" | tr ' ' '\n' | grep . | sort -u)
# shellcheck disable=SC2086
if ! build $all_tests; then
	echo "mutate: the unmutated tree does not build:"
	tail -n 20 "$log"
	exit 2
fi
for t in $all_tests; do
	if ! run_test "$t"; then
		echo "mutate: $t fails without any mutant ($why): fix that first"
		exit 2
	fi
done

# ---- each mutant alone ----
caught=0
survived=0
known=0
stale=0
nobuild=0
ran=0
start=$(date +%s)
while IFS="$(printf '\037')" read -r id file from to tests expect line; do
	selected "$id" || continue
	if [ ! -f "$file" ]; then
		printf 'STALE     %-34s %s is gone (%s:%s)\n' "$id" "$file" "$list" "$line"
		stale=$((stale + 1))
		continue
	fi
	n=$(FROM=$from awk 'BEGIN { f = ENVIRON["FROM"] }
		{ s = $0; while ((i = index(s, f)) > 0) { c++; s = substr(s, i + length(f)) } }
		END { print c + 0 }' "$file")
	if [ "$n" != 1 ]; then
		printf 'STALE     %-34s its text is in %s %s times, not once (%s:%s)\n' "$id" "$file" "$n" \
			"$list" "$line"
		stale=$((stale + 1))
		continue
	fi
	cp -p "$file" "$scratch/.orig"
	FROM=$from TO=$to awk 'BEGIN { f = ENVIRON["FROM"]; t = ENVIRON["TO"] }
		{ i = index($0, f); if (i > 0) $0 = substr($0, 1, i - 1) t substr($0, i + length(f)); print }' \
		"$scratch/.orig" >"$file"
	t0=$(date +%s)
	verdict=""
	# shellcheck disable=SC2086
	if ! build $tests; then
		printf 'NOBUILD   %-34s %s\n' "$id" "$(grep -m1 'error:' "$log" | cut -c1-90)"
		nobuild=$((nobuild + 1))
		verdict=nobuild
	fi
	if [ -z "$verdict" ]; then
		for t in $tests; do
			if ! run_test "$t"; then
				verdict="caught by $t: $why"
				break
			fi
		done
		ran_tests=$tests
		if [ -z "$verdict" ] && [ "$full" = 1 ] && make -j"$jobs" --no-print-directory all \
			$(ls tests/unit/test_*.c | sed 's#tests/unit/\(.*\)\.c#build/tests/\1#') \
			$(ls tests/mpi/test_*.c | sed 's#tests/mpi/\(.*\)\.c#build/tests/mpi_\1#') >"$log" 2>&1; then
			ran_tests="$tests, then the whole suite"
			FGO_TEST_CPPCHECK=0 sh tests/run.sh build/tests/test_* build/tests/mpi_* >"$scratch/.full" 2>&1 </dev/null ||
				verdict="caught by the whole suite: $(grep -m1 '^FAIL ' "$scratch/.full" | cut -c1-90)"
		fi
		ran=$((ran + 1))
		took=$(($(date +%s) - t0))
		if [ -n "$verdict" ]; then
			caught=$((caught + 1))
			printf 'caught    %-34s %4ss  %s\n' "$id" "$took" "$verdict"
		elif [ "$expect" = survives ]; then
			survived=$((survived + 1))
			known=$((known + 1))
			printf 'survived  %-34s %4ss  known: see %s:%s (ran %s)\n' "$id" "$took" "$list" "$line" "$ran_tests"
		else
			survived=$((survived + 1))
			printf 'SURVIVED  %-34s %4ss  %s: %s (ran %s)\n' "$id" "$took" "$file" "$to" "$ran_tests"
		fi
	fi
	# the original back, newer than anything built from the mutant
	cp "$scratch/.orig" "$file"
	touch "$file"
done <"$records"

pct=$([ "$ran" -gt 0 ] && echo $((100 * caught / ran)) || echo 0)
echo "mutate: $caught of $ran caught ($pct%); $survived survived ($known known, explained in $list)" \
	"in $(($(date +%s) - start))s"
[ "$stale" -gt 0 ] && echo "mutate: $stale stale: update $list to the code"
[ "$nobuild" -gt 0 ] && echo "mutate: $nobuild do not build: fix them in $list"
[ "$stale" -gt 0 ] || [ "$nobuild" -gt 0 ] && exit 2
[ "$survived" -gt "$known" ] && exit 1
exit 0
