# 12_readme.sh: README.md and docs/ work word for word. Every command of
# their sh blocks and console "$" lines runs, in order (README.md, then
# each file of docs/ by name), in a fresh directory that holds what a clone
# does after `make demo` (./fgobench, sweeps/), against one store built by
# the README's own `make demo`; an exit status the file does not announce
# is a FAIL naming its line (tests/readme/run.sh). Then `make demo` again,
# after the files' own sweeps: nothing is lost. Every table renders, and
# every relative link leads to a file and a heading that exist.
# First, the runner and the link check on fixtures, to show they can fail.
. tests/e2e/lib.sh
REPO=$PWD

# -- the runner fails where it should (tests/readme/fixture.md says which line does what)
fx=$T/fixture
mkdir -p "$fx"
ln -s "$REPO/fgobench" "$fx/fgobench"
FGOBENCH_DB=$fx/none.db READMETEST_TIMEOUT=2 sh tests/readme/run.sh tests/readme/fixture.md \
	"$REPO" "$fx" >"$T/fixture.out" 2>&1
# each line: its verdict, in README order ("-" for none)
verdicts=$(for l in 6 7 8 14 16 23 33 34 39; do
	v=$(grep -o "^\(PASS\|FAIL\) readme-$l\b" "$T/fixture.out" | cut -d' ' -f1)
	printf '%s ' "${v:--}"
done)
expect_eq readme-runner-verdicts "PASS FAIL PASS PASS FAIL - FAIL FAIL FAIL " "$verdicts"
check readme-runner-names-line "a FAIL names the file's line and the status" \
	grep -q '^FAIL readme-7: fixture.md:7: `./fgobench best --no-such-option` exited 2 where fixture.md announces 0' "$T/fixture.out"
check readme-runner-hang "a hang is killed and said" grep -q '^FAIL readme-33: .*exited 124 (killed after 2s)' "$T/fixture.out"
check readme-runner-skip "gpu blocks are listed as not run" grep -q '^SKIP readme-not-run: fixture.md lines 23 ' "$T/fixture.out"
# a file of docs/ runs under its own name (docs-NAME-LINE)
FGOBENCH_DB=$fx/none.db READMETEST_TIMEOUT=2 sh tests/readme/run.sh tests/readme/fixture.md \
	"$REPO" "$fx" docs-fixture >"$T/fixture2.out" 2>&1
check readme-runner-id "a doc's commands are named after it" \
	grep -q '^FAIL docs-fixture-7: fixture.md:7: ' "$T/fixture2.out"

# -- the link check on its fixture: a missing file and a missing heading
# are named, a target being written elsewhere is pending, code is not read
links=$(READMETEST_PENDING=tests/readme/pending.md sh tests/readme/links.sh \
	tests/readme/links_fixture.md README.md | grep links_fixture | cut -d' ' -f1,2 | tr '\n' ' ')
expect_eq readme-links-check-fails "BROKEN tests/readme/links_fixture.md:6: BROKEN tests/readme/links_fixture.md:6: PENDING tests/readme/links_fixture.md:7: " "$links"

# -- README.md itself, as a user runs it: the store where the README says
# (./fgobench.db of the clone), Open MPI without oversubscription where
# the machine has the 2 cores the README's `mpirun -np 2` asks for (else
# the README's note applies: it needs --oversubscribe, as the tests do)
W=$T/clone
mkdir -p "$W"
ln -s "$REPO/fgobench" "$W/fgobench"
ln -s "$REPO/sweeps" "$W/sweeps"
ln -s "$REPO/kernels" "$W/kernels"
export FGOBENCH_DB="$W/fgobench.db"
if env -u OMPI_MCA_rmaps_base_oversubscribe mpirun -np 2 true >/dev/null 2>&1; then
	unset OMPI_MCA_rmaps_base_oversubscribe
else
	echo "SKIP readme-slots: Open MPI has fewer than 2 slots here; the README's mpirun lines run with --oversubscribe"
fi
t0=$(date +%s)
sh tests/readme/run.sh README.md "$REPO" "$W"
echo "README commands: $(($(date +%s) - t0)) s"
check readme-ran "make demo wrote the store and the README's sweeps followed" \
	[ "$(sql "select count(*) from sweeps where tag in ('demo', 'mine')")" = 2 ]

# -- then every file of docs/, in the same clone and store (their commands
# read the demo's sweep and the README's: tag mine); a doc sweeps under
# tags of its own, so the count above holds
t0=$(date +%s)
for doc in docs/*.md; do
	sh tests/readme/run.sh "$doc" "$REPO" "$W" "docs-$(basename "$doc" .md)"
done
echo "docs commands: $(($(date +%s) - t0)) s"
check readme-docs-ran "the docs' commands kept the README's sweeps as they were" \
	[ "$(sql "select count(*) from sweeps where tag in ('demo', 'mine')")" = 2 ]

# -- make demo keeps what the store holds: the README's sweeps above are
# "the user's"; a second demo deletes none of them and adds no runs
runs=$(sql "select count(*) from runs")
sweeps=$(sql "select group_concat(id || ':' || coalesce(tag, ''), ' ') from sweeps")
make -C "$REPO" --no-print-directory demo DEMO_PLOTS="$W/plots/out" >"$T/demo2" 2>&1
expect_eq readme-demo-again-exit 0 $?
expect_eq readme-demo-keeps-runs "$runs" "$(sql "select count(*) from runs")"
expect_eq readme-demo-keeps-sweeps "$sweeps" "$(sql "select group_concat(id || ':' || coalesce(tag, ''), ' ') from sweeps")"
check readme-demo-resumes "the second demo says its sweep is complete" grep -q 'is already complete: nothing to resume' "$T/demo2"
check readme-demo-says-where "the demo names the store" grep -q "are in $FGOBENCH_DB, beside what was there" "$T/demo2"
check readme-demo-plots "the roofline where DEMO_PLOTS says" [ -s "$W/plots/out/roofline_w2.png" ]

# -- every table of README.md and docs/ renders: a row of cells that opens
# a table (no table row above it) is a header, followed by its |---| row;
# a table row stranded outside its table showed as text on GitHub (the
# lines of those that do not, as "FILE:N ...", empty when none)
tables_ok() {
	awk 'FNR == 1 { prev = ""; head = 0 }
		prev !~ /^\|/ && /^\| / { head = FNR }
		head && head == FNR - 1 && !/^\|[ :]*-/ { printf "%s:%d ", FILENAME, head }
		{ prev = $0 }' "$@"
}
printf '| a | b |\n| 1 | 2 |\n\ntext\n\n| c | d |\n|---|---|\n| 3 | 4 |\n' >"$T/tables.md"
expect_eq readme-tables-check-fails "$T/tables.md:1 " "$(tables_ok "$T/tables.md")"
expect_eq readme-tables "" "$(tables_ok README.md docs/*.md)"

# -- every relative link of README.md and docs/ leads to a file and a
# heading that exist (READMETEST_PENDING names docs still being written)
sh tests/readme/links.sh README.md docs/*.md >"$T/links.out"
expect_eq readme-links "" "$(grep '^BROKEN' "$T/links.out")"
if grep -q '^PENDING' "$T/links.out"; then
	echo "SKIP readme-links-pending: $(grep '^PENDING' "$T/links.out" | sed 's/^PENDING //; s/:.*: / -> /' | sort -u | tr '\n' ' ')"
fi
