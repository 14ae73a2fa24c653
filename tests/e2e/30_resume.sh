# 30_resume.sh: kill a sweep in the middle (SIGKILL to mpirun and its ranks),
# then --resume: every configuration ends stored exactly once, all ok, in the
# same sweep, and the store passes its integrity check. The kill waits on
# the store (5 runs stored), not on a clock; should the sweep end before the
# kill lands (a fast machine), the resume says the sweep is complete and
# runs nothing, and the final checks hold the same.
. tests/e2e/lib.sh

# the smoke sweep made slower (more timed iterations), so that the kill
# lands while it runs
spec=$T/resume.json
sed 's/"iterations": 5/"iterations": 20/' sweeps/smoke.json >"$spec"
planned=$("$FGO" sweep "$spec" --dry-run --format csv 2>/dev/null | tail -n +2 | grep -c ',yes,')
mpirun --oversubscribe -np 2 "$FGO" sweep "$spec" --tag resume --quiet >/dev/null 2>&1 &
pid=$!
# 5 runs stored (120 s at most, however loaded the machine)
i=0
while [ "$i" -lt 1200 ] && kill -0 "$pid" 2>/dev/null; do
	n=$(sqlite3 "file:$FGOBENCH_DB?mode=ro" "select count(*) from runs where status = 'ok'" 2>/dev/null || echo 0)
	[ "${n:-0}" -ge 5 ] && break
	sleep 0.1
	i=$((i + 1))
done
# mpirun and its ranks, by pid; then wait until they are gone
procs="$(ps -o pid= --ppid "$pid") $pid"
for p in $procs; do kill -9 "$p" 2>/dev/null; done
wait "$pid" 2>/dev/null
i=0
for p in $procs; do
	while kill -0 "$p" 2>/dev/null && [ "$i" -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
done
done_before=$(sql "select count(*) from runs where status = 'ok'")
kept_ids=$(sql "select group_concat(id) from (select id from runs where status = 'ok' order by id)")
kept=$(sql "select group_concat(id || '@' || ended_at) from (select * from runs where status = 'ok' order by id)")
status=$(sql "select status from sweeps")
echo "resume: killed with $done_before of $planned runs stored, the sweep $status"
check resume-1.1 "some runs stored before the kill ($done_before)" [ "$done_before" -ge 5 ]
if [ "$status" = done ]; then
	# the sweep ended before the kill: resuming it runs nothing
	expect_eq resume-1.2 "$planned" "$done_before"
	expect_exit resume-1.3 0 mpi 2 sweep "$spec" --tag resume --resume --quiet
	expect_err resume-1.4 "sweep 1 (tag resume) is already complete: nothing to resume"
else
	expect_eq resume-1.2 running "$status"
	expect_exit resume-1.3 0 mpi 2 sweep "$spec" --tag resume --resume --quiet
	expect_err resume-1.4 "resuming sweep 1"
fi
expect_eq resume-1.5 1 "$(sql "select count(*) from sweeps")"
expect_eq resume-1.6 "$planned" "$(sql "select count(*) from runs")"
expect_eq resume-1.7 "$planned" "$(sql "select count(distinct config_key) from runs")"
expect_eq resume-1.8 "$planned" "$(sql "select count(*) from runs where status = 'ok'")"
expect_eq resume-1.9 ok "$(sql "pragma integrity_check")"
expect_eq resume-1.10 done "$(sql "select status from sweeps")"
# the runs done before the kill were not run again
expect_eq resume-1.11 "$kept" "$(sql "select group_concat(id || '@' || ended_at) from (select * from runs where id in ($kept_ids) order by id)")"

# ---- --resume is idempotent: a finished sweep is not run again, a plain sweep starts anew
all=$(sql "select group_concat(id || '@' || ended_at) from (select * from runs order by id)")
expect_exit resume-2.1 0 mpi 2 sweep "$spec" --tag resume --resume --quiet
expect_err resume-2.2 "sweep 1 (tag resume) is already complete: nothing to resume"
expect_eq resume-2.3 "1 $planned" "$(sql "select (select count(*) from sweeps), (select count(*) from runs)" | tr '|' ' ')"
expect_eq resume-2.4 "$all" "$(sql "select group_concat(id || '@' || ended_at) from (select * from runs order by id)")"
# without a tag: the newest sweep of the spec, whatever its tag
expect_exit resume-2.5 0 mpi 2 sweep "$spec" --resume --quiet
expect_err resume-2.6 "sweep 1 of smoke is already complete: nothing to resume"
# another tag has no sweep yet: --resume starts it
expect_exit resume-2.7 0 mpi 2 sweep sweeps/smoke.json --tag other --resume --quiet
expect_err resume-2.8 "no sweep of smoke with tag other to resume; starting a new one"
expect_eq resume-2.9 "2 done" "$(sql "select count(*), group_concat(distinct status) from sweeps" | tr '|' ' ')"
expect_exit resume-2.10 0 mpi 2 sweep sweeps/smoke.json --tag other --quiet
expect_eq resume-2.11 "3 $((planned * 3))" "$(sql "select (select count(*) from sweeps), (select count(*) from runs)" | tr '|' ' ')"
# the help and the man page say it
expect_exit resume-2.12 0 "$FGO" sweep --help
check resume-2.13 "sweep --help says a done sweep is not resumed" grep -q 'when that sweep is done, say so and run nothing' "$T/out"
check resume-2.14 "the man page says it" grep -q 'when that sweep is done, say so and run nothing' man/fgobench-sweep.1

# ---- a resumed sweep stores its invalid configurations once (issue 52:
# storing them again on --resume went unseen): an interrupted sweep (its
# status set back to running, one ok run gone) resumed a second later
# keeps the invalid row as it was (same id, same times) and runs only the
# missing configuration
inv=$T/inv.json
cat >"$inv" <<'SPEC'
{"name": "inv", "iterations": 2, "warmup": 0, "blocks": [{"algorithm": "gemm", "world": 1,
 "M": 64, "N": 64, "K": 64, "BLK_M": 32, "BLK_N": 32, "BLK_K": 32, "split_k": [1, 2, 4]}]}
SPEC
expect_exit resume-3.1 0 mpi 1 sweep "$inv" --tag inv --quiet
sid=$(sql "select id from sweeps where tag = 'inv'")
invalid_row=$(sql "select id || '@' || started_at || '@' || ended_at || '@' || reason from runs where sweep_id = $sid and status = 'invalid'")
check resume-3.2 "one invalid configuration stored ($invalid_row)" \
	sh -c "echo '$invalid_row' | grep -q 'split_k=4 exceeds'"
sql "update sweeps set status = 'running', ended_at = null where id = $sid;
	delete from runs where sweep_id = $sid and status = 'ok' and split_k = 2"
sleep 1.1
expect_exit resume-3.3 0 mpi 1 sweep "$inv" --tag inv --resume --quiet
expect_err resume-3.4 "resuming sweep $sid"
expect_eq resume-3.5 "$invalid_row" "$(sql "select id || '@' || started_at || '@' || ended_at || '@' || reason from runs where sweep_id = $sid and status = 'invalid'")"
expect_eq resume-3.6 "ok 2|invalid 1" "$(sql "select status || ' ' || count(*) from runs where sweep_id = $sid group by status order by status desc" | tr '\n' '|' | sed 's/|$//')"
