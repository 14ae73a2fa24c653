# 80_tune.sh: `fgobench tune` end to end on 2 ranks: bad input exits 2 with
# a message that says what to fix; pruning is the sweep's validation; the
# trials are ordinary runs of the session's tag, within the budget, the same
# for the same seed; --resume after a kill runs nothing twice; `best` sees
# the trials and `best --predict` ranks a shape nobody measured; the model
# strategy is refused without a fit or the runs to make one, the default
# once calibrate --fit made one, and runs every configuration of its space
# once.
. tests/e2e/lib.sh

cat > "$T/space.json" <<'EOF'
{
	"name": "tune-e2e",
	"iterations": 3,
	"warmup": 1,
	"BLK_M": [16, 32, 64, 128],
	"BLK_N": [16, 32, 64],
	"BLK_K": [16, 32]
}
EOF
P="--algorithm all_scatter --dtype fp16 --world 2 --space $T/space.json"

# ---- bad input: exit 2, what is wrong and how to fix it
expect_exit tune-1.1 2 "$FGO" tune $P -m 64 -n 64 -k 64 --strategy aneal
expect_err tune-1.2 'unknown strategy "aneal" (did you mean "anneal"?'
expect_exit tune-1.3 2 "$FGO" tune $P -m 64 -n 64 -k 64 --budget 0
expect_err tune-1.4 '--budget (runs, at least 1) expects an integer between 1 and'
expect_exit tune-1.5 2 "$FGO" tune --algorithm all_scater -m 64 -n 64 -k 64
expect_err tune-1.6 'unknown algorithm "all_scater" (did you mean "all_scatter"?)'
expect_exit tune-1.7 2 "$FGO" tune $P -m 64 -n 63 -k 64
expect_err tune-1.8 'all 24 pruned, e.g. N=63 is not divisible by world=2'
expect_exit tune-1.9 2 "$FGO" tune $P -m 64 -n 64
expect_err tune-1.10 'missing the problem size: give -m, -n and -k'
expect_exit tune-1.11 2 "$FGO" tune $P -m 64 -n 64 -k 64 --time 0
expect_err tune-1.12 '--time (seconds) expects a number between'
expect_exit tune-1.13 0 "$FGO" tune --help
check tune-1.14 "--help shows the synopsis" grep -q '^usage: fgobench tune --algorithm A -m M -n N -k K' "$T/out"

# ---- pruning: the candidates are exactly the configurations `sweep --dry-run` calls valid
"$FGO" tune $P -m 64 -n 64 -k 64 --dry-run --format csv 2>/dev/null | awk -F, 'NR > 1 && $3 == "yes" { print $2 }' | sort > "$T/tune_valid"
"$FGO" sweep "$T/space.json" --algorithm all_scatter --dtype fp16 --world 2 -m 64 -n 64 -k 64 --dry-run --format csv 2>/dev/null |
	awk -F, 'NR > 1 && $15 == "yes" { print $8 " s" $9 " w" $10 " g" $12 " sm" $13 }' | sed 's/sm\([0-9]*\)+/sm\1+/' | sort > "$T/sweep_valid"
expect_eq tune-2.1 12 "$(wc -l < "$T/tune_valid")" # BLK_M 128 and BLK_N 64 exceed M=64 and N/W=32
check tune-2.2 "tune's candidates are sweep's valid configurations: $(diff "$T/tune_valid" "$T/sweep_valid" | head -3 | tr '\n' ' ')" cmp -s "$T/tune_valid" "$T/sweep_valid"

# ---- a session: ordinary runs of its tag, within the budget, the winner is the fastest of them
expect_exit tune-3.1 0 mpi 2 tune $P -m 128 -n 128 -k 128 --strategy random --budget 5 --seed 3 --tag r1 --format csv
expect_eq tune-3.2 5 "$(sql "select count(*) from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'r1' and r.status = 'ok'")"
expect_eq tune-3.3 5 "$(tail -n 1 "$T/out" | cut -d, -f9)"
best_id=$(sql "select r.id from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'r1' order by r.t_fused_ms limit 1")
expect_eq tune-3.4 "$best_id" "$(tail -n 1 "$T/out" | cut -d, -f15)"
check tune-3.5 "the result carries the reproduce line" grep -q 'mpirun -np 2 fgobench run --algorithm all_scatter --datatype fp16 --world 2 -m 128 -n 128 -k 128 --BLK_M' "$T/out"
check tune-3.6 "a progress line with the best so far" grep -q '^\[5/5\] .* ms  best .* ms' "$T/err"
check tune-3.7 "the winner and how many runs it took" grep -q 'winner .* found at run [1-5] of 5' "$T/err"
"$FGO" best --tag r1 --format csv > "$T/best" 2>/dev/null
check tune-3.8 "best sees the session's runs" grep -q "^all_scatter,fp16,2,128,128,128,1,.*,5,$best_id," "$T/best"

# ---- the same seed makes the same trials; another seed others
expect_exit tune-4.1 0 mpi 2 tune $P -m 128 -n 128 -k 128 --strategy random --budget 5 --seed 3 --tag r2 --quiet
expect_exit tune-4.2 0 mpi 2 tune $P -m 128 -n 128 -k 128 --strategy random --budget 5 --seed 4 --tag r3 --quiet
keys() { sql "select group_concat(config_key, ' ') from (select r.config_key from runs r join sweeps s on s.id = r.sweep_id where s.tag = '$1' order by r.id)"; }
expect_eq tune-4.3 "$(keys r1)" "$(keys r2)"
check tune-4.4 "seed 4 tries other configurations than seed 3" [ "$(keys r1)" != "$(keys r3)" ]

# ---- halving: rungs at fewer iterations, each its own sweep of the tag, the winner at the most
expect_exit tune-5.1 0 mpi 2 tune $P -m 128 -n 128 -k 128 --strategy halving --budget 8 --tag h1 --quiet --format csv
expect_eq tune-5.2 "2 3" "$(sql "select group_concat(iterations, ' ') from (select distinct r.iterations from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'h1' order by 1)")"
check tune-5.3 "halving stays within its budget" [ "$(sql "select count(*) from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'h1'")" -le 8 ]
expect_eq tune-5.4 3 "$(sql "select r.iterations from runs r where r.id = $(tail -n 1 "$T/out" | cut -d, -f15)")"

# ---- kill mid-session, then --resume: nothing measured before runs again, the budget holds.
# The kill waits on the store (3 runs stored); should the session end before
# it lands (a fast machine), the resume says it is complete and runs nothing,
# and the checks hold the same. The processes are killed by pid, never by
# name: the tag (kill1) matches no `pkill -f` pattern an older copy of this
# test, run beside it, kills by.
SLOW="--iterations 60 --strategy anneal --budget 9 --seed 5 --tag kill1 --quiet"
k1_ok="select count(*) from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'kill1' and r.status = 'ok'"
mpirun --oversubscribe -np 2 "$FGO" tune $P -m 128 -n 128 -k 128 $SLOW >/dev/null 2>&1 &
pid=$!
i=0
while [ "$i" -lt 1200 ] && kill -0 "$pid" 2>/dev/null; do
	n=$(sqlite3 "file:$FGOBENCH_DB?mode=ro" "$k1_ok" 2>/dev/null || echo 0)
	[ "${n:-0}" -ge 3 ] && break
	sleep 0.1
	i=$((i + 1))
done
polls=$i alive=no
kill -0 "$pid" 2>/dev/null && alive=yes
# mpirun and its ranks, by pid; then wait until they are gone
procs="$(ps -o pid= --ppid "$pid") $pid"
for p in $procs; do kill -9 "$p" 2>/dev/null; done
wait "$pid" 2>/dev/null
i=0
for p in $procs; do
	while kill -0 "$p" 2>/dev/null && [ "$i" -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
done
before=$(sql "select group_concat(r.id || '@' || r.ended_at) from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'kill1' and r.status = 'ok' order by r.id")
nbefore=$(sql "$k1_ok")
k1_status=$(sql "select group_concat(distinct status) from sweeps where tag = 'kill1'")
echo "tune: killed with $nbefore of 9 runs stored after $polls polls (mpirun alive at the kill: $alive), the session's sweeps $k1_status"
if [ "$k1_status" = done ]; then
	# the session ended before the kill: resuming it runs nothing
	expect_eq tune-6.1 9 "$nbefore"
	expect_exit tune-6.2 0 mpi 2 tune $P -m 128 -n 128 -k 128 $SLOW --resume --format csv
	check tune-6.3 "resume says the session is complete" grep -q "tune session kill1 (sweep [0-9]*) is already complete: nothing to resume; its 9 stored results answer" "$T/err"
else
	check tune-6.1 "some but not all runs stored before the kill ($nbefore)" [ "$nbefore" -ge 3 ] && [ "$nbefore" -lt 9 ]
	expect_exit tune-6.2 0 mpi 2 tune $P -m 128 -n 128 -k 128 $SLOW --resume --format csv
	check tune-6.3 "resume says what it reuses" grep -q "resuming tune session kill1: $nbefore stored results" "$T/err"
fi
expect_eq tune-6.4 9 "$(sql "$k1_ok")"
expect_eq tune-6.5 9 "$(sql "select count(distinct r.config_key) from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'kill1'")"
expect_eq tune-6.6 "$before" "$(sql "select group_concat(r.id || '@' || r.ended_at) from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'kill1' and r.status = 'ok' and r.id in (select r2.id from runs r2 join sweeps s2 on s2.id = r2.sweep_id where s2.tag = 'kill1' order by r2.id limit $nbefore) order by r.id")"
check tune-6.7 "the session took 9 runs, $nbefore of them from the store" grep -q "of 9 ($nbefore from the store, 0 failed)" "$T/err"
expect_eq tune-6.8 "done" "$(sql "select group_concat(distinct status) from sweeps where tag = 'kill1'")"

# ---- --resume of the finished session: idempotent, the winner from the store, nothing written
winner=$(tail -n 1 "$T/out")
k1_all() { sql "select group_concat(x, ' ') from (select id || '@' || status || '@' || coalesce(ended_at, '') as x
	from sweeps where tag = 'kill1' union all select * from (select r.id || '@' || r.status || '@' || r.ended_at
	from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'kill1' order by r.id))"; }
k1_before=$(k1_all)
expect_exit tune-6.9 0 mpi 2 tune $P -m 128 -n 128 -k 128 $SLOW --resume --format csv
check tune-6.10 "a second resume says the session is complete" grep -q "tune session kill1 (sweep [0-9]*) is already complete: nothing to resume; its 9 stored results answer" "$T/err"
expect_eq tune-6.11 "$winner" "$(tail -n 1 "$T/out")"
check tune-6.12 "the winner found again, all 9 runs from the store" grep -q "of 9 (9 from the store, 0 failed)" "$T/err"
expect_eq tune-6.13 "$k1_before" "$(k1_all)"
# a larger budget does not extend the finished session: nothing runs
expect_exit tune-6.14 0 mpi 2 tune $P -m 128 -n 128 -k 128 $SLOW --budget 11 --resume --format csv
expect_err tune-6.15 "the search asks for more than the finished session stored"
expect_eq tune-6.16 "$k1_before" "$(k1_all)"
expect_exit tune-6.17 0 "$FGO" tune --help
check tune-6.18 "tune --help says a finished session runs nothing" grep -q 'is done, nothing runs' "$T/out"
check tune-6.19 "the man page says it" grep -q 'is done, nothing runs' man/fgobench-tune.1

# ---- --time alone: the budget is estimated, the session ends
expect_exit tune-7.1 0 mpi 2 tune $P -m 64 -n 64 -k 64 --time 1 --tag t1 --quiet

# ---- best --predict: a prediction for an unmeasured shape, from the measured ones
# (a space whose every tile fits both shapes, so every candidate is
# supported by both whichever order the timings put them in)
sed 's/"BLK_N": \[16, 32, 64\]/"BLK_N": [16, 32]/' "$T/space.json" > "$T/space2.json"
P2="--algorithm all_scatter --dtype fp16 --world 2 --space $T/space2.json"
expect_exit tune-8.1 0 mpi 2 tune $P2 -m 64 -n 64 -k 64 --strategy grid --tag g --quiet
expect_exit tune-8.2 0 mpi 2 tune $P2 -m 64 -n 128 -k 64 --strategy grid --tag g --quiet
expect_exit tune-8.3 0 "$FGO" best --predict --tag g --algorithm all_scatter --m 64 --n 96 --k 64 --format csv
expect_err tune-8.4 'prediction, not a measurement: all_scatter fp16 W=2 M=64 N=96 K=64 has no ok runs'
expect_err tune-8.5 'nearest measured shape 64x128x64 at distance 0.42'
expect_eq tune-8.6 4 "$(wc -l < "$T/out")" # header + the top 3
check tune-8.7 "candidates come with their supporting shapes" grep -q '^1,.*,64x128x64 #[0-9]* +[0-9.]*%' "$T/out"
check tune-8.8 "a candidate measured on both shapes lists both" grep -q '^[23],.*,64x128x64 #[0-9]* +[0-9.]*%; 64x64x64 #[0-9]* +[0-9.]*%' "$T/out"
expect_exit tune-8.9 2 "$FGO" best --predict --algorithm reduce_scatter --m 64 --n 64 --k 64
expect_err tune-8.10 'no ok runs of reduce_scatter to predict from'
expect_exit tune-8.11 2 "$FGO" best --predict --algorithm all_scatter --m 64
expect_err tune-8.12 '--predict needs the shape and the algorithm'

# ---- --strategy model: the space ranked by this host's cost model. Without
# a fit and without the runs to make one now (a store with none): model
# refused (exit 2, nothing stored, how many runs it needs); with the runs
# it fits one on the spot (tests/e2e/99_world.sh). Before a stored fit the
# default is anneal.
expect_exit tune-9.1 2 mpi 2 tune $P -m 64 -n 64 -k 64 --strategy model --tag m0 --quiet --db "$T/none.db"
expect_err tune-9.2 'no cost model of the mma16 core for '
expect_err tune-9.3 'and 0 ok runs of all_scatter fp16 there: too few to fit one now (16 needed)'
expect_eq tune-9.4 0 "$(sql "select count(*) from sweeps where tag = 'm0'")"
expect_exit tune-9.5 0 mpi 2 tune $P -m 64 -n 64 -k 64 --budget 3 --tag d0 --quiet --format csv
expect_err tune-9.6 'strategy anneal (the default without a cost model: '
expect_eq tune-9.7 anneal "$(tail -n 1 "$T/out" | cut -d, -f7)"
# the sessions above stored far more than the 16 ok mma16 runs a fit needs
expect_exit tune-9.8 0 "$FGO" calibrate --fit
check tune-9.9 "calibrate --fit fitted the mma16 model" grep -q '^model mma16 ' "$T/out"
# the whole space (12 candidates) as the budget: each configuration once
expect_exit tune-9.10 0 mpi 2 tune $P -m 64 -n 64 -k 64 --strategy model --budget 12 --tag m1 --format csv
m1="select count(*) from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'm1'"
expect_eq tune-9.11 "12 12 12" "$(sql "$m1 and r.status = 'ok'") $(sql "$(echo "$m1" | sed 's/count(\*)/count(distinct r.config_key)/')") $(tail -n 1 "$T/out" | cut -d, -f9)"
expect_eq tune-9.12 model "$(tail -n 1 "$T/out" | cut -d, -f7)"
check tune-9.13 "the session's strategy is stored with it" sh -c "sqlite3 '$FGOBENCH_DB' \"select spec_text from sweeps where tag = 'm1'\" | grep -q '^# fgobench tune: strategy model, seed 1'"
check tune-9.14 "a line per trial" grep -q '^\[12/12\] .* ms  best .* ms' "$T/err"
# with a fit, tune without --strategy is model; a budget is kept
expect_exit tune-9.15 0 mpi 2 tune $P -m 64 -n 64 -k 64 --budget 3 --tag d1 --quiet --format csv
expect_err tune-9.16 'strategy model (the default where a cost model is fitted): the mma16 cost model of '
expect_eq tune-9.17 "model 3 3" "$(tail -n 1 "$T/out" | cut -d, -f7,9 | tr , ' ') $(sql "select count(distinct r.config_key) from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'd1'")"
