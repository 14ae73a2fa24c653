#!/bin/sh
# nightly.sh: the nightly regression run. Sweeps sweeps/nightly.json under
# mpirun with a dated tag into the store, then writes the report of that
# sweep against the previous run of the same spec on this machine
# (`fgobench report --against auto`) to $NIGHTLY_REPORTS/TAG/index.md and
# index.html, with the comparison as JUnit XML beside them (junit.xml) and
# $NIGHTLY_REPORTS/latest pointing at it. Run it from the repository root.
#
# Exit status: 0 no regression; 1 a real regression (slower by more than the
# threshold, Mann-Whitney p below alpha), or runs that mismatched, failed
# or timed out; 2 bad set-up (no binary, bad spec, unreadable store).
#
# Settings, all optional (environment):
#   FGOBENCH_DB        the store; keep the same file night after night (./fgobench.db)
#   NIGHTLY_SPEC       the sweep spec (sweeps/nightly.json)
#   NIGHTLY_NP         MPI ranks (2)
#   NIGHTLY_TAG        the sweep's tag (nightly-YYYY-MM-DD, UTC)
#   NIGHTLY_REPORTS    where the reports go (reports)
#   NIGHTLY_THRESHOLD  smallest change that counts, percent (fgobench's default, 5)
#   NIGHTLY_ALPHA      largest p-value that counts (fgobench's default, 0.01)
#   FGO                the fgobench binary (./fgobench)
#   MPIRUN             how to start MPI jobs (mpirun --oversubscribe)
set -u
FGO=${FGO:-./fgobench}
spec=${NIGHTLY_SPEC:-sweeps/nightly.json}
np=${NIGHTLY_NP:-2}
tag=${NIGHTLY_TAG:-nightly-$(date -u +%Y-%m-%d)}
reports=${NIGHTLY_REPORTS:-reports}
mpirun_cmd=${MPIRUN:-mpirun --oversubscribe}
out=$reports/$tag

say() { echo "nightly: $*" >&2; }

if [ ! -x "$FGO" ]; then
	say "no fgobench binary at $FGO (run \`make\` first, or set FGO)"
	exit 2
fi
if [ ! -f "$spec" ]; then
	say "no sweep spec at $spec (set NIGHTLY_SPEC)"
	exit 2
fi
# OpenMPI refuses to run as root without these (as the Makefile sets them).
if [ "$(id -u)" = 0 ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

say "sweep $spec on $np ranks, tag $tag, store ${FGOBENCH_DB:-./fgobench.db}"
# shellcheck disable=SC2086 # MPIRUN is a command with its options
$mpirun_cmd -np "$np" "$FGO" sweep "$spec" --tag "$tag" --quiet
sweep_rc=$?
if [ "$sweep_rc" = 2 ]; then
	say "the sweep refused its input (see above); no report"
	exit 2
fi

set -- --tag "$tag" --against auto --format html -o "$out" --junit "$out/junit.xml"
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
say "no regression; report in $out/index.html"
exit 0
