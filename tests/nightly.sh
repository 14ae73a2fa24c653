#!/bin/sh
# nightly.sh: the nightly regression run. Sweeps sweeps/nightly.json under
# mpirun NIGHTLY_ROUNDS times (each round a fresh process, all with one dated
# tag) into the store, then writes the report of that night against the
# previous night of the same spec on this machine, judged by the nightly
# gate (`fgobench report --against auto --gate`; README, "The nightly
# gate"), to $NIGHTLY_REPORTS/TAG/index.md and index.html, with the
# comparison as JUnit XML beside them (junit.xml) and $NIGHTLY_REPORTS/latest
# pointing at it. Run it from the repository root.
#
# A second nightly on one day (or a NIGHTLY_TAG given again) is a night of
# its own: the tag gets .2, .3, ... (nightly-2026-12-06.2), so the gate
# compares it with the rounds before it instead of adding rounds to them.
#
# Exit status: 0 no regression (also when the machine changed: the report
# says so), and also NO VERDICT: a night too noisy for the gate to judge
# (unchanged configurations moved by over twice the threshold), said on
# stderr as "nightly: NO VERDICT ..." and in the report, never as "no
# regression"; 1 a real regression (the gate's verdict), or runs that
# mismatched, failed or timed out; 2 bad set-up (no binary, bad spec,
# unreadable store).
#
# Settings, all optional (environment):
#   FGOBENCH_DB        the store; keep the same file night after night (./fgobench.db)
#   NIGHTLY_SPEC       the sweep spec (sweeps/nightly.json)
#   NIGHTLY_NP         MPI ranks (2)
#   NIGHTLY_ROUNDS     sweeps of the spec a night, interleaved rounds (6)
#   NIGHTLY_TAG        the sweep's tag (nightly-YYYY-MM-DD, UTC; .2, .3, ... added
#                      when sweeps with it are stored already)
#   NIGHTLY_REPORTS    where the reports go (reports)
#   NIGHTLY_THRESHOLD  smallest change that counts, percent (fgobench's default, 5)
#   NIGHTLY_ALPHA      the night's chance of a false alarm (fgobench's default, 0.01)
#   FGO                the fgobench binary (./fgobench)
#   MPIRUN             how to start MPI jobs (mpirun --oversubscribe)
set -u
FGO=${FGO:-./fgobench}
spec=${NIGHTLY_SPEC:-sweeps/nightly.json}
np=${NIGHTLY_NP:-2}
rounds=${NIGHTLY_ROUNDS:-6}
tag=${NIGHTLY_TAG:-nightly-$(date -u +%Y-%m-%d)}
reports=${NIGHTLY_REPORTS:-reports}
mpirun_cmd=${MPIRUN:-mpirun --oversubscribe}

say() { echo "nightly: $*" >&2; }

if [ ! -x "$FGO" ]; then
	say "no fgobench binary at $FGO (run \`make\` first, or set FGO)"
	exit 2
fi
if [ ! -f "$spec" ]; then
	say "no sweep spec at $spec (set NIGHTLY_SPEC)"
	exit 2
fi
case $rounds in
'' | *[!0-9]* | 0)
	say "NIGHTLY_ROUNDS must be a whole number of rounds, at least 1 (got \"$rounds\")"
	exit 2 ;;
esac
# OpenMPI refuses to run as root without these (as the Makefile sets them).
if [ "$(id -u)" = 0 ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# the day's tag when it is new, else the next of tag.2, tag.3, ...: a
# stored tag is one `list --tag` prints a row of (a new store has none)
day_tag=$tag
night=1
while [ -n "$("$FGO" list --tag "$tag" --format csv 2>/dev/null | sed -n 2p)" ]; do
	night=$((night + 1))
	if [ "$night" -gt 99 ]; then
		say "99 nightlies tagged $day_tag.N are stored already; set NIGHTLY_TAG"
		exit 2
	fi
	tag=$day_tag.$night
done
[ "$night" -gt 1 ] && say "sweeps tagged $day_tag are stored already: this night is $tag"
out=$reports/$tag

say "sweep $spec on $np ranks, $rounds rounds, tag $tag, store ${FGOBENCH_DB:-./fgobench.db}"
# Rounds, not one long run: the samples of one run share its process, its
# memory placement and the machine's mood of those seconds; the gate needs
# medians that vary as nights do (README, "The nightly gate").
sweep_rc=0
round=1
while [ "$round" -le "$rounds" ]; do
	# shellcheck disable=SC2086 # MPIRUN is a command with its options
	$mpirun_cmd -np "$np" "$FGO" sweep "$spec" --tag "$tag" --quiet
	rc=$?
	if [ "$rc" = 2 ]; then
		say "the sweep refused its input (see above); no report"
		exit 2
	fi
	[ "$rc" != 0 ] && sweep_rc=$rc
	round=$((round + 1))
done

set -- --tag "$tag" --against auto --gate --format html -o "$out" --junit "$out/junit.xml"
[ -n "${NIGHTLY_THRESHOLD:-}" ] && set -- "$@" --threshold "$NIGHTLY_THRESHOLD"
[ -n "${NIGHTLY_ALPHA:-}" ] && set -- "$@" --alpha "$NIGHTLY_ALPHA"
"$FGO" report "$@" >/dev/null
report_rc=$?
if [ "$report_rc" = 2 ] || [ ! -f "$out/index.md" ]; then
	say "no report written (see above)"
	exit 2
fi
ln -sfn "$tag" "$reports/latest" 2>/dev/null || true

if [ "$report_rc" = 1 ]; then
	say "REGRESSION: see $out/index.html (or index.md), JUnit in $out/junit.xml"
	exit 1
fi
if [ "$sweep_rc" != 0 ]; then
	say "runs mismatched, failed or timed out: see \"Runs that did not succeed\" in $out/index.html"
	exit 1
fi
# the gate could not judge: not "no regression", which a reader would trust
if grep -q 'Verdict: NO VERDICT' "$out/index.md"; then
	say "NO VERDICT: the night was too noisy to judge (see the summary of $out/index.html);" \
		"run it again on a quieter machine (exit status 0: nothing was found, nothing cleared)"
	exit 0
fi
say "no regression; report in $out/index.html"
exit 0
