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
#   heldout  issue 49: the held-out per-rank grid, compiled there (-j 16;
#            cached when pending_prep.sh HELDOUT=1 compiled it), swept,
#            then the defaults (docs/heldout.md has the rest)
#   own      issue 49: the same on the project's set (sweeps/perrank.json,
#            then perrank_defaults.json)
#   derived  issue 49: both sets' defaults with build/dev/derived, a build
#            whose table `best --defaults --write` derived from the tuning
#            stores (judged here on the held-out set before it lands)
#   auto     issue 49: calibrate --fit on this store, then both sets with
#            --config auto and their tables (heldout_table.py; AUTO_SETS
#            "heldout" or "perrank" for one of them); needs the
#            grids' runs from the same call (auto reads this host's runs
#            and fit only)
#   ncu      issue 49: Nsight Compute of fgobench's GEMM beside cuBLAS's
#            (tests/gpu/ncu_gemm.sh), one case a line of the file
#            $NCU_CASES: NAME RUN-FLAGS... (the losing shapes' best tiles)
#   w8       issue 51: sweeps/w8_check.json, eight ranks sharing the GPU,
#            every family validated (correctness only)
# LIMIT_<STEP> overrides a step's seconds. Everything lands in $OUT as
# $OUT/pending.tgz, the tables (*table.txt, ab_best.txt) also beside it (a
# call brings back 8 files).
#   OUT=/some/dir STEPS="contain ab" sh tests/gpu/pending.sh
set -u
OUT=${OUT:-$PWD/gpu-out}
export OUT
mkdir -p "$OUT"
here=$(dirname "$0")
nvidia-smi -L >"$OUT/gpus.txt" 2>&1
cat "$OUT/gpus.txt"
# kernels compiled here travel packed (cubins pack ~20x, the carried tree
# is limited to 64 MiB): pending_prep.sh FULL=1 packs them
if [ -f build/dev/kcache.tar.xz ]; then
	mkdir -p build/dev/head/kcache
	tar xJf build/dev/kcache.tar.xz -C build/dev/head/kcache
	echo "kernels unpacked: $(find build/dev/head/kcache -type f | wc -l)"
fi
# limited NAME BUILD SCRIPT: SCRIPT (sh, $here the scripts' folder) with
# BUILD's binary and head's kernel cache, under the step's limit $lim;
# its output to $OUT/NAME.txt. timeout signals its whole process group:
# mpirun, ncu and the ranks stop with it.
limited() {
	FGOBENCH_BUILD=$2 FGOBENCH_CACHE=$PWD/build/dev/head/kcache NP=1 \
		timeout "$lim" sh -c "here=\$1; $3" sh "$here" >>"$OUT/$1.txt" 2>&1
}
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
		limited heldout build/dev/head '
			sh "$here/run.sh" compile sweeps/heldout_perrank.json -j 16 --quiet &&
				sh "$here/run.sh" sweep sweeps/heldout_perrank.json --tag heldout-perrank --quiet \
					--timeout 10 &&
				sh "$here/run.sh" sweep sweeps/heldout_defaults.json --tag heldout-defaults --quiet
		'
		python3 "$here/heldout_table.py" "$OUT/fgobench.db" >"$OUT/heldout_table.txt" 2>&1
		tail -n 12 "$OUT/heldout_table.txt"
		;;
	own)
		lim=${LIMIT_OWN:-240}
		limited own build/dev/head '
			sh "$here/run.sh" compile sweeps/perrank.json -j 16 --quiet &&
				sh "$here/run.sh" sweep sweeps/perrank.json --tag perrank --quiet --timeout 10 &&
				sh "$here/run.sh" sweep sweeps/perrank_defaults.json --tag perrank-defaults --quiet
		'
		;;
	derived)
		lim=${LIMIT_DERIVED:-120}
		limited derived build/dev/derived '
			sh "$here/run.sh" sweep sweeps/heldout_defaults.json --tag heldout-defaults-derived --quiet &&
				sh "$here/run.sh" sweep sweeps/perrank_defaults.json --tag perrank-defaults-derived --quiet
		'
		python3 "$here/heldout_table.py" "$OUT/fgobench.db" heldout-perrank heldout-defaults-derived \
			>"$OUT/heldout_derived_table.txt" 2>&1
		python3 "$here/heldout_table.py" "$OUT/fgobench.db" perrank perrank-defaults-derived \
			>"$OUT/own_derived_table.txt" 2>&1
		tail -n 8 "$OUT/heldout_derived_table.txt" "$OUT/own_derived_table.txt"
		;;
	auto)
		lim=${LIMIT_AUTO:-200}
		limited auto build/dev/head '
			sh "$here/run.sh" calibrate --fit || exit 1
			for set in ${AUTO_SETS:-heldout perrank}; do
				sh "$here/run.sh" sweep "sweeps/${set}_auto.json" --tag "$set-auto" || exit 1
			done
		'
		python3 "$here/heldout_table.py" "$OUT/fgobench.db" >"$OUT/heldout_table.txt" 2>&1
		python3 "$here/heldout_table.py" "$OUT/fgobench.db" perrank perrank-defaults perrank-auto \
			>"$OUT/own_table.txt" 2>&1
		tail -n 8 "$OUT/heldout_table.txt" "$OUT/own_table.txt"
		;;
	ncu)
		lim=${LIMIT_NCU:-240}
		limited ncu build/dev/head '
			grep -v "^#" "$NCU_CASES" | while read -r name flags; do
				[ -n "$name" ] || continue
				echo "== ncu $name: $flags"
				# shellcheck disable=SC2086
				sh "$here/ncu_gemm.sh" "$name" $flags </dev/null # not the case list
			done
		'
		tail -n 60 "$OUT/ncu.txt"
		;;
	w8)
		lim=${LIMIT_W8:-240}
		limited w8 build/dev/head '
			NP=1 sh "$here/run.sh" compile sweeps/w8_check.json -j 16 --quiet &&
				NP=8 sh "$here/run.sh" sweep sweeps/w8_check.json --tag w8-check --timeout 30 \
					--quiet
		'
		tail -n 8 "$OUT/w8.txt"
		;;
	*)
		lim=0
		echo "pending.sh: unknown step \"$step\" (contain, ab, heldout, own, derived, auto, ncu, w8)" >&2
		;;
	esac
	echo "== $step: $(($(date +%s) - start)) s (limit $lim)"
done
# everything in one file (a call brings back 8), written outside $OUT (tar
# fails on a folder that changes as it reads it: the archive itself), and
# the tables beside it
packed=$(mktemp /tmp/pending.XXXXXX)
(cd "$OUT" && tar czf "$packed" . && mv "$packed" pending.tgz &&
	find . ! -name pending.tgz ! -name '*table.txt' ! -name ab_best.txt \( -type f -o -type l \) -delete &&
	find . -mindepth 1 -type d -empty -delete)
ls "$OUT"
