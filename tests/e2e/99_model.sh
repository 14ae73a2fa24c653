# 99_model.sh: the cost model on the CPU backend (issue 25): calibrate --fit
# with nothing to fit says so; after a sweep it fits the CPU's core (mma16)
# and stores the fit; --link-bw is stored as stated; best --predict ranks by
# the model and says its error; best --predict --world 2 predicts every fused
# family at W=2 from the gemm runs at W=1 (ranks as GPUs), stores each
# prediction and sets it beside the measured W=2 runs; without a link it
# says how to state one. Bad flags: exit 2. --config auto picks what best
# --predict ranks first where a measured shape is near (issue 49); info says
# where a problem without a tile gets one and whether this host has a fit.
. tests/e2e/lib.sh

expect_exit model-1.1 0 "$FGO" calibrate --fit
expect_err model-1.2 "to fit the cost model to yet: sweep, then \`fgobench calibrate --fit\`"
expect_eq model-1.3 0 "$(sql "select count(*) from model_fits")"
# info says where a problem without a tile gets one here: the CPU core's
# own tile (no table rows), and that auto has no fit of this host yet
expect_exit model-1.4 0 mpi 1 info
check model-1.5 "info: the core's own tile, no fit ($(grep -A3 '^tiles' "$T/out" | tr -s ' \n' ' '))" \
	sh -c "grep -A3 '^tiles' '$T/out' | tr -s ' \n' ' ' | grep -q 'no tile given: the cpu core.s own default tile (the defaults table has no cpu rows); --config auto: no mma16 fit of this host ($(hostname), cpu backend)'"

expect_exit model-2.1 0 mpi 2 sweep tests/e2e/model.json --quiet
expect_exit model-2.2 0 "$FGO" calibrate --fit
check model-2.3 "the fit is printed with its error" grep -q '^model mma16  18 runs: error rms [0-9.]*%, median' "$T/out"
expect_eq model-2.4 "mma16 18 fit" "$(sql "select core, runs, source from model_fits" | tr '|' ' ')"
expect_eq model-2.5 1 "$(sql "select count(*) from model_fits where c_launch >= 0 and c_compute >= 0 and rms_rel_err > 0 and cus = 1")"
expect_exit model-2.6 0 mpi 1 info
check model-2.7 "info: auto ranks by this host's fit ($(grep -A3 '^tiles' "$T/out" | tr -s ' \n' ' '))" \
	sh -c "grep -A3 '^tiles' '$T/out' | tr -s ' \n' ' ' | grep -q -- \"--config auto: this host's mma16 fit ([0-9TZ:-]*, 18 runs, median error [0-9.]*%) ranks as .best --predict. where the store has runs near the shape, the default elsewhere. Suits this machine: --config auto ranks for this machine\""

# the model ranks a shape never measured
expect_exit model-3.1 0 "$FGO" best --predict --algorithm gemm -m 192 -n 384 -k 384 --format csv
check model-3.2 "ranked by the model: predicted_us, model_us, correction" \
	grep -q '^#,config,predicted_us,vs_first,model_us,correction,coverage,measured near,reproduce$' "$T/out"
expect_err model-3.3 "cost model mma16 of"
expect_eq model-3.4 3 "$(tail -n +2 "$T/out" | wc -l)"
# --no-model: the ranking from the nearest shapes' measurements alone (as
# where the store has no model), to set beside the model's; not for the
# fused families' prediction at W, which is the model's
expect_exit model-3.10 0 "$FGO" best --predict --algorithm gemm -m 192 -n 384 -k 384 --no-model --format csv
check model-3.11 "--no-model: ranked by the near shapes' measurements" \
	grep -q '^#,config,predicted,coverage,support,reproduce$' "$T/out"
check model-3.12 "--no-model names no cost model" sh -c "! grep -q 'cost model' '$T/err'"
expect_exit model-3.13 2 "$FGO" best --no-model
expect_err model-3.14 "--no-model goes with --predict"
expect_exit model-3.15 2 "$FGO" best --predict -m 256 -n 512 -k 512 --world 2 --no-model
expect_err model-3.16 "--no-model goes with the ranking of measured configurations"

# the terminal table fits 120 columns (issue 35): the config brief, the
# reproduce lines under it, shell-continued; --wide has the reproduce column
longest() { awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' "$1"; }
expect_exit model-3.5 0 "$FGO" best --predict --algorithm gemm -m 192 -n 384 -k 384
check model-3.6 "best --predict fits 120 columns (got $(longest "$T/out"))" [ "$(longest "$T/out")" -le 120 ]
check model-3.7 "each candidate's reproduce line under the table" \
	sh -c "[ \$(grep -c '^[123]  mpirun -np 1 fgobench run --algorithm gemm .* \\\\$' '$T/out') = 3 ]"
expect_exit model-3.8 0 "$FGO" best --predict --algorithm gemm -m 192 -n 384 -k 384 --wide
check model-3.9 "--wide: the reproduce column" grep -q '  reproduce$' "$T/out"

# the fused families at W=2 from the gemm runs at W=1: no link yet
expect_exit model-4.1 2 "$FGO" best --predict -m 256 -n 512 -k 512 --world 2
expect_err model-4.2 "\`fgobench calibrate --fit --link-bw GB/S\` states it"
expect_exit model-4.3 0 "$FGO" calibrate --fit --link-bw 3
expect_eq model-4.4 "3.0 GB/s stated" "$(sql "select printf('%.1f', value), unit from ceilings where what = 'link_bw' order by id desc limit 1" | tr '|' ' ')"
expect_exit model-4.5 0 "$FGO" best --predict -m 256 -n 512 -k 512 --world 2 --format csv
expect_err model-4.6 "prediction, not a measurement: the fused families at W=2"
for a in all_scatter all_reduce_one_shot; do
	row=$(grep "^$a,2," "$T/out")
	# ranked: the family's W=2 configurations ranked, each per-rank GEMM corrected by its own runs
	check "model-4.7.$a" "$a is predicted from a measured per-rank GEMM and set beside its W=2 run ($row)" \
		sh -c "echo '$row' | grep -Eq ',(measured|ranked),' && [ \"\$(echo '$row' | cut -d, -f12)\" != - ]"
done
check model-4.8 "every fused family has a row" [ "$(tail -n +2 "$T/out" | wc -l)" -ge 6 ]
expect_eq model-4.9 "$(tail -n +2 "$T/out" | wc -l)" "$(sql "select count(*) from world_predictions where world = 2 and link_source = 'stated' and gemm_source in ('measured', 'ranked')")"
expect_eq model-4.10 2 "$(sql "select count(*) from world_predictions where measured_fused_ms > 0")"
expect_exit model-4.11 0 "$FGO" best --predict -m 256 -n 512 -k 512 --world 2
check model-4.12 "the families' table fits 120 columns (got $(longest "$T/out"))" [ "$(longest "$T/out")" -le 120 ]
check model-4.13 "with the measured time beside the prediction" grep -Eq '^all_scatter .*(measured|ranked) .* [0-9.]+  [-+][0-9]+%$' "$T/out"
expect_exit model-4.14 0 "$FGO" best --predict -m 256 -n 512 -k 512 --world 2 --wide
check model-4.15 "--wide: every column" grep -q 'comm_MB.*measured_fused_us  measured_speedup  fused_off  terms  .*  err_max_pct  top_config$' "$T/out"

# bad input
expect_exit model-5.1 2 "$FGO" calibrate --fit --link-bw -1
expect_exit model-5.2 2 "$FGO" calibrate --machine other
expect_err model-5.3 "--machine names the runs to fit: it goes with --fit only"
expect_exit model-5.4 2 "$FGO" best --predict -m 256 -n 512 -k 512
expect_err model-5.5 "or the shape and --world W > 1 for the fused families at W"

# config auto ranks as best --predict does (issue 49): at two shapes
# between the measured ones its run (--auto-trials 1: the ranking's first
# alone) is best --predict's first, at the same predicted time; at one
# 3.00 from any measured shape (best --predict warns it is a guess) it
# keeps the default and says why
expect_exit model-6.1 0 mpi 2 sweep tests/e2e/auto.json --quiet
expect_exit model-6.2 0 "$FGO" calibrate --fit
for q in "256 256 512" "128 512 512"; do
	set -- $q
	qid=model-6.$1x$2x$3
	expect_exit "$qid.1" 0 "$FGO" best --predict --algorithm all_scatter --world 2 -m "$1" -n "$2" -k "$3" --format csv
	first=$(sed -n 2p "$T/out")
	tile=$(echo "$first" | cut -d, -f2)
	us=$(echo "$first" | cut -d, -f3)
	expect_exit "$qid.2" 0 mpi 2 run -m "$1" -n "$2" -k "$3" --dtype bf16 --config auto --auto-trials 1
	check "$qid.3" "auto's note has best --predict's first ($tile, $us us): $(grep 'config auto' "$T/err")" \
		grep -q "config auto: all_scatter bf16 W=2 M=$1 N=$2 K=$3: .*, ranked first of [0-9]* as \`best --predict\` ranks them: predicted $us us" "$T/err"
	key=$(sql "select config_key from runs order by id desc limit 1")
	want=$(echo "$tile" | sed 's/^\([0-9]*x[0-9]*x[0-9]*\) s\([0-9]*\) w\([0-9]*\) g\([0-9]*\) sm\([0-9+]*\)$/b\1\/s\2\/wp\3\/mma16\/g\4\/sm\5\//')
	check "$qid.4" "the run is best --predict's first ($key holds $want)" sh -c "echo '$key' | grep -qF '$want'"
done
expect_exit model-6.3 0 "$FGO" best --predict --algorithm all_scatter --world 2 -m 2048 -n 256 -k 256 --format csv
expect_err model-6.4 "the nearest measured shape is far (distance 3.00)"
expect_exit model-6.5 0 mpi 2 run -m 2048 -n 256 -k 256 --dtype bf16 --config auto
expect_err model-6.6 "config auto: all_scatter bf16 W=2 M=2048 N=256 K=256: 64x64x32 s2 w4, the core's default tile: the defaults table has no row for it; not ranked (the runs of"
expect_err model-6.7 "the nearest measured shape, 256x256x256, is 3.00 away"
expect_eq model-6.8 "all_scatter/bf16/w2/m2048n256k256/b64x64x32/s2/wp4/mma16/g8/sm0+0/c0x0" \
	"$(sql "select config_key from runs order by id desc limit 1")"

# auto times auto_trials (default 6) of the ranking at the shape: its
# first three, then the first ranked of each tile none before it has (a
# tile: block, split, walk and core; all_scatter on the CPU has one core
# and no split, so block and walk here), then its next places; the default beside them where it is
# none of them: each stored in the run's sweep, the fastest shown as the
# run and named in the note
expect_exit model-7.1 0 "$FGO" best --predict --algorithm all_scatter --world 2 -m 512 -n 512 -k 512 --format csv --top 200
to_key() { # a tile of best --predict's csv -> the part of a config_key it makes
	sed 's/^\([0-9]*x[0-9]*x[0-9]*\) s\([0-9]*\) w\([0-9]*\) g\([0-9]*\) sm\([0-9+]*\)$/b\1\/s\2\/wp\3\/mma16\/g\4\/sm\5\//'
}
spread() { # N: the trials of N from the ranking's configurations, one a line
	awk -v n="$1" '{ split($0, w, " "); row[NR] = $0; tile[NR] = w[1] (w[5] ~ /^sm0[+]/ ? "" : " sk") }
	END {
		h = int((n + 1) / 2)
		for (i = 1; i <= NR && got < h; i++) { print row[i]; seen[tile[i]] = 1; took[i] = 1; got++ }
		for (; i <= NR && got < n; i++)
			if (!(tile[i] in seen)) { print row[i]; seen[tile[i]] = 1; took[i] = 1; got++ }
		for (i = 1; i <= NR && got < n; i++)
			if (!(i in took)) { print row[i]; got++ }
	}'
}
ntrials=$(sed 1d "$T/out" | cut -d, -f2 | spread 6 | wc -l)
want=$(sed 1d "$T/out" | cut -d, -f2 | spread 6 | to_key | sort | tr '\n' ' ')
expect_exit model-7.2 0 mpi 2 run -m 512 -n 512 -k 512 --dtype bf16 --config auto
sid=$(sql "select max(sweep_id) from runs")
got=$(sql "select config_key from runs where sweep_id = $sid" | sed 's/^.*\/\(b[0-9x]*\/s[0-9]*\/wp[0-9]*\/mma16\/g[0-9]*\/sm[0-9+]*\/\).*$/\1/' | sort | tr '\n' ' ')
expect_eq model-7.3 "$want" "$got"
fastest=$(sql "select config_key from runs where sweep_id = $sid and status = 'ok' order by t_fused_ms limit 1")
check model-7.4 "run shows the fastest of the trials ($fastest): $(grep config_key "$T/out")" \
	grep -q "^config_key *$fastest\$" "$T/out"
check model-7.5 "the note names the fastest of $ntrials: $(grep 'fastest of' "$T/err")" \
	grep -q "config auto: all_scatter bf16 W=2 M=512 N=512 K=512: .* us, the fastest of $ntrials timed" "$T/err"
# a store whose measured tiles leave out the core's default (64x64x32):
# the default is timed beside the ranked ones, as a trial of its own
export FGOBENCH_DB="$T/narrow.db"
expect_exit model-7.6 0 mpi 2 sweep tests/e2e/auto_narrow.json --quiet
expect_exit model-7.7 0 "$FGO" calibrate --fit
cp "$T/narrow.db" "$T/narrow2.db" # the spec's checks below: a store of these runs alone
expect_exit model-7.8 0 mpi 2 run -m 256 -n 256 -k 512 --dtype bf16 --config auto --auto-trials 3
expect_err model-7.9 "timed beside it: number 2, number 3 and the item's default (64x64x32 s2 w4)"
sid=$(sql "select max(sweep_id) from runs")
expect_eq model-7.10 "4|1" "$(sql "select count(*), sum(config_key like '%/b64x64x32/%') from runs where sweep_id = $sid")"
check model-7.11 "the note says where the fastest came from: $(grep 'fastest of' "$T/err")" \
	grep -Eq "config auto: all_scatter bf16 W=2 M=256 N=256 K=512: .* \((ranked [123]|the default)\), [0-9.]* us, the fastest of 4 timed; " "$T/err"
# --auto-trials and the spec's "auto_trials": 1 runs the ranking's first alone
expect_exit model-7.12 0 mpi 2 run -m 128 -n 256 -k 512 --dtype bf16 --config auto --auto-trials 1
sid=$(sql "select max(sweep_id) from runs")
expect_eq model-7.13 1 "$(sql "select count(*) from runs where sweep_id = $sid")"
cat >"$T/auto2.json" <<'EOF'
{"name": "auto2", "algorithm": "all_scatter", "dtype": "bf16", "world": 2, "iterations": 2,
 "warmup": 0, "config": "auto", "auto_trials": 2, "shapes": [[512, 512, 256]]}
EOF
export FGOBENCH_DB="$T/narrow2.db"
expect_exit model-7.14 0 mpi 2 sweep "$T/auto2.json" --quiet
sid=$(sql "select max(sweep_id) from runs")
expect_eq model-7.15 "3|1" "$(sql "select count(*), sum(config_key like '%/b64x64x32/%') from runs where sweep_id = $sid")"
expect_exit model-7.16 0 mpi 2 sweep "$T/auto2.json" --quiet --auto-trials 1
sid=$(sql "select max(sweep_id) from runs")
expect_eq model-7.17 1 "$(sql "select count(*) from runs where sweep_id = $sid")"
# bad values: exit 2, where and what
expect_exit model-7.18 2 "$FGO" sweep "$T/auto2.json" --auto-trials 0
expect_err model-7.19 "--auto-trials expects"
expect_exit model-7.20 2 "$FGO" run -m 128 -n 256 -k 512 --config auto --auto-trials 17
sed 's/"auto_trials": 2/"auto_trials": 0/' "$T/auto2.json" >"$T/auto0.json"
expect_exit model-7.21 2 "$FGO" sweep "$T/auto0.json" --dry-run
expect_err model-7.22 "\"auto_trials\" expects an integer from 1 (the ranking's first alone) to 16"
