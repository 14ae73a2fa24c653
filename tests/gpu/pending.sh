#!/bin/sh
# tests/gpu/pending.sh: the GPU runs the open issues wait for, on one GPU,
# in the order they matter, each under its own time limit so that one
# device call (10 minutes) brings back what finished. Needs build/dev from
# tests/gpu/pending_prep.sh (carry ["build/dev"]). STEPS picks and orders
# them (default "contain ab"):
#   contain  issue 48: tests/gpu/contain.sh, a kernel that faults, traps,
#            never ends or writes its input, two ranks sharing the GPU
#   ab       issue 48: the per-rank winners, the build before the flight
#            records against this one, 2 rounds (target: within 2%)
#   heldout  issue 49: the held-out per-rank grid, compiled there (-j 16),
#            swept, then the defaults (docs/heldout.md has the rest)
# LIMIT_<STEP> overrides a step's seconds. Everything lands in $OUT; the
# stores and logs also as $OUT/pending.tgz (a call brings back 8 files).
#   OUT=/some/dir STEPS="contain ab" sh tests/gpu/pending.sh
set -u
OUT=${OUT:-$PWD/gpu-out}
export OUT
mkdir -p "$OUT"
here=$(dirname "$0")
nvidia-smi -L >"$OUT/gpus.txt" 2>&1
cat "$OUT/gpus.txt"
for step in ${STEPS:-contain ab}; do
	start=$(date +%s)
	case $step in
	contain)
		lim=${LIMIT_CONTAIN:-240}
		FGOBENCH_BUILD=build/dev/head timeout "$lim" sh "$here/contain.sh" >"$OUT/contain.txt" 2>&1
		tail -n 30 "$OUT/contain.txt"
		;;
	ab)
		lim=${LIMIT_AB:-240}
		timeout "$lim" sh "$here/ab.sh" sweeps/ab_winners.json build/dev/base build/dev/head 2 \
			>"$OUT/ab.txt" 2>&1
		python3 "$here/ab_best.py" "$OUT" >"$OUT/ab_best.txt" 2>&1
		tail -n 4 "$OUT/ab.txt"
		cat "$OUT/ab_best.txt"
		;;
	heldout)
		lim=${LIMIT_HELDOUT:-420}
		(
			export FGOBENCH_BUILD=build/dev/head NP=1
			export FGOBENCH_CACHE="$PWD/build/dev/head/kcache"
			sh "$here/run.sh" compile sweeps/heldout_perrank.json -j 16 --quiet &&
				sh "$here/run.sh" sweep sweeps/heldout_perrank.json --tag heldout-perrank --quiet \
					--timeout 10 &&
				sh "$here/run.sh" sweep sweeps/heldout_defaults.json --tag heldout-defaults --quiet
		) >"$OUT/heldout.txt" 2>&1 &
		pid=$!
		( sleep "$lim"; kill -TERM "$pid" 2>/dev/null ) &
		wait "$pid"
		python3 "$here/heldout_table.py" "$OUT/fgobench.db" >"$OUT/heldout_table.txt" 2>&1
		tail -n 12 "$OUT/heldout_table.txt"
		;;
	*)
		echo "pending.sh: unknown step \"$step\" (contain, ab, heldout)" >&2
		;;
	esac
	echo "== $step: $(($(date +%s) - start)) s (limit $lim)"
done
# the stores and logs in one file; the tables stay beside it
(cd "$OUT" && tar czf pending.tgz --exclude=pending.tgz --exclude='*.txt' . 2>/dev/null &&
	find . -type f ! -name pending.tgz ! -name '*.txt' -delete)
ls "$OUT"
