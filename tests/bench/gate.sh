#!/bin/sh
# gate.sh: measures the nightly gate (README, "The nightly gate") on this
# machine, CPU backend: CLEAN nights of one build back to back through
# tests/nightly.sh (every comparison after the first should be quiet), then
# TRIALS nights with one family made PCT percent slower on purpose
# (FGOBENCH_PLANT_SLOW_PCT / _ALGO, src/cpu/plant.h), each judged against
# the last clean night with the clean ones as history, as the night after a
# bad commit would be. Run from the repository root after `make`; it takes
# (CLEAN + TRIALS) nights, about 20 s each on 2 idle cores (more when loaded).
#
# Prints one line per night and a summary; the store, the reports and every
# comparison stay in OUT. Exit 0 when the targets hold (0 alarms on the
# clean nights, the family found in at least 9 of 10 trials with nothing
# else reported), 1 otherwise, 2 for bad set-up.
#
# JUDGE=1 sweeps nothing: it judges the nights already in OUT's store again
# (after a change to the gate's arithmetic: the data stay, the verdicts
# are recomputed).
#
# Settings (environment): OUT (/tmp/fgobench-gate, emptied first), SPEC
# (sweeps/nightly.json), ROUNDS (6), CLEAN (5), TRIALS (10), PCT (20),
# FAMILY (all_scatter), NP (MPI ranks, 2), FGO (./fgobench), MPIRUN
# (mpirun --oversubscribe).
set -u
FGO=${FGO:-./fgobench}
out=${OUT:-/tmp/fgobench-gate}
spec=${SPEC:-sweeps/nightly.json}
rounds=${ROUNDS:-6}
clean=${CLEAN:-5}
trials=${TRIALS:-10}
pct=${PCT:-20}
family=${FAMILY:-all_scatter}
np=${NP:-2}
mpirun_cmd=${MPIRUN:-mpirun --oversubscribe}

if [ ! -x "$FGO" ] || [ ! -f "$spec" ]; then
	echo "gate.sh: needs $FGO (run make) and $spec" >&2
	exit 2
fi
if [ "$(id -u)" = 0 ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
judge_only=${JUDGE:-0}
if [ "$judge_only" = 1 ]; then
	[ -f "$out/gate.db" ] || { echo "gate.sh: JUDGE=1 needs $out/gate.db" >&2; exit 2; }
else
	rm -rf "$out"
	mkdir -p "$out"
fi
export FGOBENCH_DB="$out/gate.db"
summary="$out/summary.txt"
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }

# regress --gate BASE HEAD into $out/HEAD.csv; sets fam (regressions of the
# family), other (regressions and improvements of anything else)
judge() {
	"$FGO" regress --gate --base "$1" --head "$2" --format csv > "$out/$2.csv" 2> "$out/$2.err"
	rc=$?
	fam=$(awk -F, -v f="$family" 'NR > 1 && $1 == f && $NF == "regression"' "$out/$2.csv" | wc -l)
	other=$(awk -F, -v f="$family" 'NR > 1 && $NF != "same" && !($1 == f && $NF == "regression")' \
		"$out/$2.csv" | wc -l)
	machine=$(sed -n 's/.*gate: [^;]*; \([^;]*\);.*/\1/p' "$out/$2.err" | head -1)
	sees=$(sed -n 's/.*tonight sees changes above about \([0-9]*\)%.*/\1/p' "$out/$2.err" | head -1)
	grep -q "NO VERDICT" "$out/$2.err" && blind=$((blind + 1))
}

say "gate.sh: $spec, $rounds rounds a night, $clean clean nights, $trials trials of $family +$pct%"
alarms=0
blind=0
i=1
while [ "$i" -le "$clean" ]; do
	start=$(date +%s)
	if [ "$judge_only" = 1 ]; then
		nrc=-
	else
		NIGHTLY_TAG=clean-$i NIGHTLY_REPORTS="$out/reports" NIGHTLY_ROUNDS=$rounds NIGHTLY_NP=$np \
			NIGHTLY_SPEC=$spec FGO=$FGO MPIRUN=$mpirun_cmd sh tests/nightly.sh \
			> "$out/clean-$i.log" 2>&1
		nrc=$?
	fi
	if [ "$nrc" = 2 ]; then
		say "clean night $i: tests/nightly.sh exit 2 (see $out/clean-$i.log)"
		exit 2
	fi
	if [ "$i" -gt 1 ]; then
		judge "clean-$((i - 1))" "clean-$i"
		n=$(awk -F, 'NR > 1 && $NF == "regression"' "$out/clean-$i.csv" | wc -l)
		[ "$n" != 0 ] && alarms=$((alarms + 1))
		say "clean night $i ($(( $(date +%s) - start )) s): nightly exit $nrc, $n regressions; sees above ${sees:-?}%; $machine"
	else
		say "clean night 1 ($(( $(date +%s) - start )) s): nightly exit $nrc (first night: nothing to compare)"
	fi
	i=$((i + 1))
done

found=0
clean_trials=0
t=1
while [ "$t" -le "$trials" ]; do
	start=$(date +%s)
	r=1
	[ "$judge_only" = 1 ] && r=$((rounds + 1))
	while [ "$r" -le "$rounds" ]; do
		# shellcheck disable=SC2086 # MPIRUN is a command with its options
		FGOBENCH_PLANT_SLOW_PCT=$pct FGOBENCH_PLANT_SLOW_ALGO=$family \
			$mpirun_cmd -x FGOBENCH_PLANT_SLOW_PCT -x FGOBENCH_PLANT_SLOW_ALGO -x FGOBENCH_DB \
			-np "$np" "$FGO" sweep "$spec" --tag "plant-$t" --quiet >> "$out/plant-$t.log" 2>&1
		r=$((r + 1))
	done
	judge "clean-$clean" "plant-$t"
	[ "$fam" -gt 0 ] && found=$((found + 1))
	[ "$fam" -gt 0 ] && [ "$other" = 0 ] && clean_trials=$((clean_trials + 1))
	say "trial $t ($(( $(date +%s) - start )) s): $fam of the family's configurations a regression, $other other verdicts; sees above ${sees:-?}%; $machine"
	t=$((t + 1))
done

say "summary: clean nights: $alarms alarms in $((clean - 1)) comparisons; planted $family +$pct%: found in $found of $trials trials, alone (nothing else reported) in $clean_trials; $blind of $((clean - 1 + trials)) comparisons too noisy to judge (no verdict)"
[ "$alarms" = 0 ] && [ "$((clean_trials * 10))" -ge "$((trials * 9))" ]
