#!/bin/sh
# tests/gpu/ab.sh SPEC BASE HEAD [ROUNDS]: one spec run with two carried
# builds (directories like build/cuda, each with its kcache) in alternation,
# base then head, ROUNDS times (default 2), into $OUT/ab-base.db and
# $OUT/ab-head.db, tagged ab-base-R and ab-head-R; then `regress` of each
# round. The machine
# drifts (clocks, heat), so a change is judged on ratios taken minutes
# apart, never across sessions. Every configuration is validated first.
# WORLDS="2 4" runs the spec at each of those world sizes (--world W on W
# ranks, one GPU each; tags ab-base-R and ab-head-R hold every W), both
# builds at one W before the next.
#   OUT=/some/dir sh tests/gpu/ab.sh sweeps/wgmma_core.json build/cuda-base build/cuda
#   OUT=/some/dir WORLDS="2 4" sh tests/gpu/ab.sh sweeps/mgpu_reduce.json build/cuda-prev build/cuda
set -u
[ $# -ge 3 ] || { echo "usage: tests/gpu/ab.sh SPEC BASE HEAD [ROUNDS]" >&2; exit 2; }
spec=$1 base=$2 head=$3 rounds=${4:-2}
here=$(dirname "$0")
export OUT=${OUT:-$PWD/gpu-out}
export NP=${NP:-1}
mkdir -p "$OUT"
r=1
while [ "$r" -le "$rounds" ]; do
	for w in ${WORLDS:-spec}; do
		for side in base head; do
			eval build=\$$side
			echo "== round $r: $side ($build) W=$w $(date +%T)"
			np=$NP
			set --
			[ "$w" = spec ] || { np=$w; set -- --world "$w"; }
			# a store per side: a head whose schema is newer upgrades its
			# store, which the base could then no longer write; the
			# sweep's last line, or, when it failed (a spec the W refuses,
			# a rank that died), fgobench's own lines: mpirun's banner
			# after them would hide the reason
			log=$OUT/ab-$side-$r-w$w.log
			if FGOBENCH_DB=$OUT/ab-$side.db FGOBENCH_BUILD=$build NP=$np sh "$here/run.sh" sweep "$spec" \
				"$@" --tag "ab-$side-$r" --timeout 10 >"$log" 2>&1; then
				tail -n 1 "$log"
			else
				echo "ab.sh: the $side sweep at W=$w failed ($log):" >&2
				grep '^fgobench' "$log" | tail -n 5 >&2
			fi
		done
	done
	r=$((r + 1))
done
r=1
while [ "$r" -le "$rounds" ]; do
	FGOBENCH_DB=$OUT/ab-head.db FGOBENCH_BUILD=$head sh "$here/run.sh" regress \
		--base-db "$OUT/ab-base.db" --base "ab-base-$r" --head "ab-head-$r"
	r=$((r + 1))
done
exit 0
