#!/bin/sh
# tests/gpu/model.sh: issue 25's evidence on one GPU, with the carried build
# (build/cuda), everything under $OUT:
#   1. calibrate (ceilings, no read floor) and the stated link (LINK GB/s,
#      default 350: one H200's egress to its 3 peers, measured on a 4-GPU
#      node) into train.db
#   2. the training runs: sweeps/perrank.json, perrank_fused.json and
#      model_train.json (none of the eight evaluation shapes), then
#      `calibrate --fit`: the cost model of the Hopper core (and mma16)
#   3. train.db copied to $OUT/train-fit.db: the store before any run of the
#      eight shapes, for --predict's evaluation (tests/gpu/model_table.py)
#   4. the kernels of the grid compiled (all CPUs), then on each of the
#      eight shapes, gemm and all_scatter at W=1: `tune --strategy model
#      --budget B` (B: 10% of the shape's candidates, at least 1) over
#      sweeps/model_space.json, into train.db
#   5. the exhaustive grid, sweeps/model_grid.json, into grid.db (a store of
#      its own: the model never sees it); best --predict's top 5 at each
#      shape from train-fit.db (tests/gpu/model_predict.py) measured into
#      predict.db
#   6. the tune winner and the grid's best re-measured back to back, twice
#      in alternating order (30 iterations), into remeasure.db
#   7. the standard shapes' per-rank GEMMs at W = 2, 4, 8 (model_world.json)
#      into train.db, then `best --predict --world W` of every standard
#      shape (CSV under $OUT/world-W-MxNxK.csv)
# Then on the machine with the build: python3 tests/gpu/model_table.py $OUT
#   OUT=/some/dir sh tests/gpu/model.sh
set -u
here=$(dirname "$0")
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export FGOBENCH_CACHE=${FGOBENCH_CACHE:-/tmp/fgobench-cache}
export FGOBENCH_DB=$OUT/train.db
log=$OUT/model.log
jobs=$(nproc)
link=${LINK:-350}
fgo() { NP=1 sh "$here/run.sh" "$@"; }
say() { echo "$*" | tee -a "$log"; }
elapsed() { awk -v a="$(date +%s.%N)" -v b="$1" 'BEGIN { printf "%.0f", a - b }'; }
split_shape() { m=${1%%,*}; rest=${1#*,}; n=${rest%%,*}; k=${rest#*,}; }
shapes="1,3072,12288 8,6144,4096 32,2560,8192 96,7168,4096 384,1536,12288 768,5120,6144 2048,3072,5120 8192,2048,3072"

t0=$(date +%s.%N)
fgo calibrate --no-floor --link-bw "$link" 2>&1 | tail -n 12 | tee -a "$log"
for spec in perrank perrank_fused model_train model_grid model_world; do
	fgo compile "sweeps/$spec.json" -j "$jobs" --quiet --format csv >"$OUT/compile-$spec.csv"
done
say "compiled: $(elapsed "$t0") s"
for spec in perrank perrank_fused model_train; do
	fgo sweep "sweeps/$spec.json" --tag "train-$spec" --quiet --timeout 10 2>&1 | tail -n 2 | tee -a "$log"
done
fgo calibrate --fit 2>&1 | tee -a "$log"
cp "$OUT/train.db" "$OUT/train-fit.db"
say "trained: $(elapsed "$t0") s"

# 4. tune with the model on the eight shapes
for algo in gemm all_scatter; do
	for s in $shapes; do
		split_shape "$s"
		n_c=$(NP=1 sh "$here/run.sh" tune --algorithm "$algo" --world 1 --dtype bf16 -m "$m" -n "$n" -k "$k" \
			--space sweeps/model_space.json --dry-run --format csv 2>/dev/null | awk -F, '$3 == "yes"' | wc -l)
		budget=$(( (n_c + 9) / 10 ))
		[ "$budget" -lt 1 ] && budget=1
		tag="model-$algo-$m-$n-$k"
		say "tune $algo $m x $n x $k: $n_c candidates, budget $budget"
		fgo tune --algorithm "$algo" --world 1 --dtype bf16 -m "$m" -n "$n" -k "$k" \
			--space sweeps/model_space.json --strategy model --budget "$budget" --tag "$tag" \
			--quiet 2>&1 | tail -n 4 | tee -a "$log"
	done
done
say "tuned: $(elapsed "$t0") s"

# 5. the grid, in a store of its own
FGOBENCH_DB=$OUT/grid.db fgo sweep sweeps/model_grid.json --tag grid --quiet --timeout 10 2>&1 | tail -n 2 | tee -a "$log"
say "grid: $(elapsed "$t0") s"

# 5b. best --predict's top 5 at each shape, from the store before any run of
# them (train-fit.db), measured into predict.db
python3 "$here/model_predict.py" "$OUT" $shapes 2>&1 | tee -a "$log"
fgo compile "$OUT/model_predicted.json" -j "$jobs" --quiet --format csv >"$OUT/compile-predicted.csv"
FGOBENCH_DB=$OUT/predict.db fgo sweep "$OUT/model_predicted.json" --tag predicted --quiet --timeout 10 2>&1 |
	tail -n 2 | tee -a "$log"
say "predicted: $(elapsed "$t0") s"

# 6. back to back: the tune winner against the grid's best
for algo in gemm all_scatter; do
	for s in $shapes; do
		split_shape "$s"
		mine=$(FGOBENCH_DB=$OUT/train.db NP=1 sh "$here/run.sh" best --reproduce --tag "model-$algo-$m-$n-$k" \
			--algorithm "$algo" 2>/dev/null | sed -n 's/.*fgobench run \(.*\)$/\1/p' | head -n 1)
		grid=$(FGOBENCH_DB=$OUT/grid.db NP=1 sh "$here/run.sh" best --reproduce --algorithm "$algo" \
			-m "$m" -n "$n" -k "$k" 2>/dev/null | sed -n 's/.*fgobench run \(.*\)$/\1/p' | head -n 1)
		for round in 1 2; do
			for which in tune grid; do
				[ "$round" = 2 ] && which=$([ "$which" = tune ] && echo grid || echo tune)
				args=$([ "$which" = tune ] && echo "$mine" || echo "$grid")
				[ -n "$args" ] || continue
				# shellcheck disable=SC2086 # the reproduce line's words
				FGOBENCH_DB=$OUT/remeasure.db fgo run $args --iterations 30 --tag "rm-$which-$algo-$m-$n-$k" \
					>/dev/null 2>&1
			done
		done
	done
done
say "re-measured: $(elapsed "$t0") s"

# 7. other world sizes from this GPU
fgo sweep sweeps/model_world.json --tag model-world --quiet --timeout 10 2>&1 | tail -n 2 | tee -a "$log"
for w in 2 4 8; do
	for s in 128,4096,14336 1024,4096,14336 4096,4096,14336 8192,8192,8192 4096,14336,4096; do
		split_shape "$s"
		fgo best --predict -m "$m" -n "$n" -k "$k" --world "$w" --dtype bf16 --format csv \
			>"$OUT/world-$w-${m}x${n}x${k}.csv" 2>>"$log"
	done
done
say "done: $(elapsed "$t0") s"
