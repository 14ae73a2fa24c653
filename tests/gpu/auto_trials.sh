#!/bin/sh
# tests/gpu/auto_trials.sh: issue 49's `--config auto` as it runs now
# (auto_trials of best --predict's ranking, 6 by default: its first three,
# then three more tiles; and the defaults table's pick, each timed at the
# shape, the fastest its pick) beside
# the ranking's first alone (--auto-trials 1, what auto ran before), on
# the held-out sets of SEEDS (default "50 49"): 50 is a fresh draw by the
# committed rule (tests/bench/heldout_shapes.py --seed 50, drawn here into
# $WORK/s50, nothing committed changes), 49 the committed specs under
# sweeps/, own the project's per-rank set (sweeps/perrank.json and its
# perrank_defaults.json, perrank_auto.json; tags perrank, perrank-*).
# For each, into its own store ($WORK/heldout_sSEED.db; the own set's
# $WORK/perrank_sown.db): the
# grid (compiled here, -j 16), the defaults, `calibrate --fit` on that
# store, auto alone (tag heldout-auto-1) and auto with its trials (tag
# heldout-auto); then the tables (tests/gpu/heldout_table.py: the grid's
# best against cuBLAS, the defaults, auto; the same with auto alone).
# Carry build/cuda/fgobench and build/cuda/lib. Each step runs under its
# own limit and the stores and logs are packed into $OUT/auto_trials.tgz
# after every step, so a device call stopped at its limit brings back the
# steps that finished; the tables are copied beside it. One seed is about
# 5 minutes on an H100: one call a seed.
#   OUT=/some/dir SEEDS=50 sh tests/gpu/auto_trials.sh
set -u
final=${OUT:-$PWD/gpu-out}
work=${WORK:-/tmp/auto-trials}
here=$(dirname "$0")
mkdir -p "$final" "$work"
nvidia-smi -L
pack() {
	tar czf "$final/auto_trials.tgz.part" -C "$work" . &&
		mv "$final/auto_trials.tgz.part" "$final/auto_trials.tgz"
}
step() { # NAME SECONDS ARGS...: run.sh ARGS under a limit, its output in $work/NAME.txt
	name=$1 lim=$2
	shift 2
	start=$(date +%s)
	NP=1 timeout "$lim" sh "$here/run.sh" "$@" >"$work/$name.txt" 2>&1
	echo "$name: exit $? in $(($(date +%s) - start)) s" | tee -a "$work/steps.txt"
	tail -n 3 "$work/$name.txt"
	pack
}
for seed in ${SEEDS:-50 49}; do
	# the specs and tags of the set
	pre=heldout
	case $seed in
	49) dir=sweeps ;;
	own) dir=sweeps pre=perrank ;;
	*[!0-9]* | '')
		echo "auto_trials.sh: SEEDS holds seeds (numbers) and own, not \"$seed\"" >&2
		exit 2
		;;
	*)
		dir=$work/s$seed
		mkdir -p "$dir"
		python3 tests/bench/heldout_shapes.py --seed "$seed" --out "$dir" >"$work/draw_s$seed.txt" 2>&1 || {
			echo "auto_trials.sh: drawing seed $seed failed (see $work/draw_s$seed.txt)" >&2
			exit 2
		}
		;;
	esac
	grid=$dir/${pre}_perrank.json
	[ "$pre" = perrank ] && grid=sweeps/perrank.json
	gtag=$pre-perrank
	[ "$pre" = perrank ] && gtag=perrank
	export FGOBENCH_DB="$work/${pre}_s$seed.db"
	OUT=$work/logs_s$seed
	export OUT
	step "s${seed}_compile" "${LIMIT_COMPILE:-300}" compile "$grid" -j 16 --quiet --format csv
	step "s${seed}_grid" "${LIMIT_GRID:-200}" sweep "$grid" --tag "$gtag" --quiet --timeout 10
	step "s${seed}_defaults" 60 sweep "$dir/${pre}_defaults.json" --tag "$pre-defaults" --quiet
	step "s${seed}_fit" 60 calibrate --fit
	step "s${seed}_auto1" 60 sweep "$dir/${pre}_auto.json" --tag "$pre-auto-1" --auto-trials 1
	step "s${seed}_auto" 240 sweep "$dir/${pre}_auto.json" --tag "$pre-auto"
	python3 "$here/heldout_table.py" "$FGOBENCH_DB" "$gtag" "$pre-defaults" "$pre-auto" \
		>"$work/table_s$seed.txt" 2>&1
	python3 "$here/heldout_table.py" "$FGOBENCH_DB" "$gtag" "$pre-defaults" "$pre-auto-1" \
		>"$work/table_s${seed}_auto1.txt" 2>&1
	cp "$work/table_s$seed.txt" "$work/table_s${seed}_auto1.txt" "$final/"
	tail -n 5 "$work/table_s$seed.txt" "$work/table_s${seed}_auto1.txt"
	pack
done
