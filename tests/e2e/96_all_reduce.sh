# 96_all_reduce.sh: `--algorithm all_reduce` (issue 51, src/tune/
# shot_pick.h): run and sweep choose the shot of each problem, say which
# and why, and store the shot that ran; the store's own runs of both shots
# at the shape overrule the world rule; best --predict's ranking is asked
# where the store covers the shape; a repeat of a shot the spec also gives
# runs once; a dataset row may name it; tune refuses it with the shots to
# give. The decision's rules on their own: tests/unit/test_shot_pick.c.
. tests/e2e/lib.sh
# shellcheck disable=SC2086 # $fast: two flags, split on purpose
fast="--iterations 2 --warmup 0"
last_algo() { sql "select algorithm from runs order by id desc limit 1"; }

# ---- the rule, no runs to go by: the card's command, no mpirun typed
expect_exit ar-1.1 0 "$FGO" run --algorithm all_reduce -m 64 -n 64 -k 64 --world 2 $fast
expect_eq ar-1.2 all_reduce_one_shot "$(last_algo)"
expect_err ar-1.3 "all_reduce fp16 W=2 M=64 N=64 K=64: one-shot (C = 8 KiB, under 1 MiB: one-shot's one phase)"
check ar-1.4 "the reproduce line names the shot that ran" grep -q "run --algorithm all_reduce_one_shot" "$T/out"
# C = 1 MiB at W = 4: two-shot
expect_exit ar-1.5 0 "$FGO" run --algorithm All-Reduce -m 512 -n 1024 -k 128 --world 4 $fast
expect_eq ar-1.6 all_reduce_two_shot "$(last_algo)"
expect_err ar-1.7 "two-shot (C = 1 MiB at W = 4: two-shot sends 2(W-1)/W of C"
# at W = 2 where K/W is short: two-shot; long: one-shot
expect_exit ar-1.8 0 "$FGO" run --algorithm all_reduce -m 512 -n 1024 -k 64 --world 2 $fast
expect_eq ar-1.9 all_reduce_two_shot "$(last_algo)"
expect_err ar-1.10 "K/W = 32: a GEMM too short to hide one-shot's reads"

# ---- measured here: both shots at the shape, one-shot made 10x slower in
# the store; all_reduce at W=2 then takes two-shot, against the rule
expect_exit ar-2.1 0 mpi 2 run --algorithm all_reduce_one_shot -m 32 -n 64 -k 64 --world 2 $fast
expect_exit ar-2.2 0 mpi 2 run --algorithm all_reduce_two_shot -m 32 -n 64 -k 64 --world 2 $fast
sql "update runs set t_fused_ms = 10 * (select max(t_fused_ms) from runs where m = 32)
	where m = 32 and algorithm = 'all_reduce_one_shot'"
expect_exit ar-2.3 0 "$FGO" run --algorithm all_reduce -m 32 -n 64 -k 64 --world 2 $fast
expect_eq ar-2.4 all_reduce_two_shot "$(last_algo)"
expect_err ar-2.5 "two-shot (measured here: one-shot"
# the same in a sweep of a spec that names it, beside a shape with no runs
cat >"$T/ar.json" <<'EOF'
{"name": "ar", "algorithm": "all_reduce", "world": 2, "dtype": "fp16",
 "shapes": [[32, 64, 64], [16, 64, 64]], "iterations": 2, "warmup": 0}
EOF
expect_exit ar-2.6 0 "$FGO" sweep "$T/ar.json" --quiet
expect_eq ar-2.7 "16 all_reduce_one_shot 32 all_reduce_two_shot" \
	"$(sql "select group_concat(m || ' ' || algorithm, ' ') from (select m, algorithm from runs
		where sweep_id = (select max(id) from sweeps) order by m)")"
expect_err ar-2.8 "all_reduce: 1 configuration one-shot, 1 two-shot (measured 1, ranked 0, by the rule 1"
# a dry run lists the plan before any store is read: one-shot until it runs
expect_exit ar-2.9 0 "$FGO" sweep "$T/ar.json" --dry-run --format csv
expect_err ar-2.10 "name all_reduce: the shot is chosen when the sweep runs"

# ---- a spec that gives a shot and all_reduce: the pick that repeats it runs once
cat >"$T/both.json" <<'EOF'
{"name": "both", "algorithm": ["all_reduce_one_shot", "all_reduce"], "world": 2, "dtype": "fp16",
 "shapes": [[48, 64, 64]], "BLK_M": [16, 32], "iterations": 2, "warmup": 0}
EOF
expect_exit ar-3.1 0 "$FGO" sweep "$T/both.json" --quiet
expect_eq ar-3.2 "2|all_reduce_one_shot" "$(sql "select count(*), group_concat(distinct algorithm)
	from runs where sweep_id = (select max(id) from sweeps)")"
expect_err ar-3.3 "2 dropped: the spec gives that shot's configuration too"
# and where the pick is the other shot, both run
cat >"$T/both4.json" <<'EOF'
{"name": "both4", "algorithm": ["all_reduce_one_shot", "all_reduce"], "world": 4, "dtype": "fp16",
 "shapes": [[512, 1024, 128]], "iterations": 2, "warmup": 0}
EOF
expect_exit ar-3.4 0 "$FGO" sweep "$T/both4.json" --quiet
expect_eq ar-3.5 "all_reduce_one_shot all_reduce_two_shot" "$(sql "select group_concat(algorithm, ' ')
	from (select algorithm from runs where sweep_id = (select max(id) from sweeps) order by algorithm)")"

# ---- a dataset row names it; a store of its own, where the rule decides
# (ar-3.4 measured both shots at 512 x 1024 x 128: there the CPU's times
# would, and they flip under load)
printf 'algorithm,m,n,k,world,dtype\nall-reduce,8,64,128,4,fp16\nall_reduce,512,1024,128,4,fp16\n' >"$T/rows.csv"
expect_exit ar-4.1 0 "$FGO" sweep "$T/rows.csv" $fast --quiet --db "$T/rows.db"
expect_eq ar-4.2 "8 all_reduce_one_shot 512 all_reduce_two_shot" \
	"$(sql "select group_concat(m || ' ' || algorithm, ' ') from (select m, algorithm from runs
		where sweep_id = (select max(id) from sweeps) order by m)" "$T/rows.db")"

# ---- ranked: runs of both shots at other shapes and a fit of the core,
# none at the asked shape: best --predict's ranking is asked (its firsts
# either decide or are too close to call; the CPU's times say which)
cat >"$T/grid.json" <<'EOF'
{"name": "grid", "algorithm": ["all_reduce_one_shot", "all_reduce_two_shot"], "world": 2,
 "dtype": "fp16", "shapes": [[32, 128, 64], [64, 128, 64], [128, 128, 64], [64, 64, 128]],
 "BLK_M": [16, 32], "iterations": 3, "warmup": 1}
EOF
expect_exit ar-5.1 0 "$FGO" sweep "$T/grid.json" --quiet
expect_exit ar-5.2 0 "$FGO" calibrate --fit
expect_exit ar-5.3 0 "$FGO" run --algorithm all_reduce -m 96 -n 128 -k 64 --world 2 $fast
expect_err ar-5.4 "predicted"
check ar-5.5 "the stored run is the shot the note names" sh -c "grep -q \"$(last_algo | sed 's/all_reduce_//; s/_/-/')\" '$T/err'"

# ---- on GPU runs (four H100s, the twelve standard problems at W=2 and 4,
# each problem's runs left out): the bench docs/multi-gpu.md quotes
expect_exit ar-7.1 0 env FGO="$FGO" sh tests/bench/shot_choice.sh
expect_eq ar-7.2 "12 shot: the faster shot on 12 of 12 problems, geomean 1.000 x the faster" \
	"$(grep -c ' all_reduce_' "$T/out") $(tail -n 1 "$T/out")"
check ar-7.3 "W=4 from M = 1024 ranked as best --predict ranks" \
	[ "$(grep -c '^4 .* all_reduce_two_shot ranked ' "$T/out")" = 5 ]

# ---- the commands that take one algorithm say so
expect_exit ar-6.1 2 "$FGO" tune --algorithm all_reduce -m 64 -n 64 -k 64 --budget 2
expect_err ar-6.2 "give all_reduce_one_shot or all_reduce_two_shot"
expect_exit ar-6.3 2 "$FGO" best --algorithm all_reduce
expect_err ar-6.4 "ambiguous algorithm \"all_reduce\" (give one of all_reduce_one_shot, all_reduce_two_shot)"
check ar-6.5 "the store is whole" [ "$(sql 'pragma integrity_check')" = ok ]
expect_exit ar-6.6 0 "$FGO" info
check ar-6.7 "info lists all_reduce and what picks its shot" grep -q "^  all_reduce  .*run and sweep pick" "$T/out"
