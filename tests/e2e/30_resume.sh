# 30_resume.sh: kill a sweep in the middle (SIGKILL to mpirun and its ranks),
# then --resume: every configuration ends stored exactly once, all ok, in the
# same sweep, and the store passes its integrity check.
. tests/e2e/lib.sh

planned=$("$FGO" sweep sweeps/smoke.json --dry-run --format csv 2>/dev/null | tail -n +2 | grep -c ',yes,')
mpirun --oversubscribe -np 2 "$FGO" sweep sweeps/smoke.json --tag resume --quiet >/dev/null 2>&1 &
pid=$!
i=0
while [ "$i" -lt 600 ]; do
	n=$(sqlite3 "$FGOBENCH_DB" "select count(*) from runs where status = 'ok'" 2>/dev/null || echo 0)
	[ "${n:-0}" -ge 5 ] && break
	sleep 0.1
	i=$((i + 1))
done
kill -9 "$pid" 2>/dev/null
pkill -9 -f "fgobench sweep sweeps/smoke.json --tag resume" 2>/dev/null
wait "$pid" 2>/dev/null
sleep 0.5
done_before=$(sql "select count(*) from runs where status = 'ok'")
kept_ids=$(sql "select group_concat(id) from (select id from runs where status = 'ok' order by id)")
kept=$(sql "select group_concat(id || '@' || ended_at) from (select * from runs where status = 'ok' order by id)")
check resume-1.1 "some runs stored before the kill ($done_before)" [ "$done_before" -ge 5 ]
check resume-1.2 "not all runs before the kill" [ "$done_before" -lt "$planned" ]
expect_eq resume-1.3 running "$(sql "select status from sweeps")"

expect_exit resume-1.4 0 mpi 2 sweep sweeps/smoke.json --tag resume --resume --quiet
expect_eq resume-1.5 1 "$(sql "select count(*) from sweeps")"
expect_eq resume-1.6 "$planned" "$(sql "select count(*) from runs")"
expect_eq resume-1.7 "$planned" "$(sql "select count(distinct config_key) from runs")"
expect_eq resume-1.8 "$planned" "$(sql "select count(*) from runs where status = 'ok'")"
expect_eq resume-1.9 ok "$(sql "pragma integrity_check")"
expect_eq resume-1.10 done "$(sql "select status from sweeps")"
# the runs done before the kill were not run again
expect_eq resume-1.11 "$kept" "$(sql "select group_concat(id || '@' || ended_at) from (select * from runs where id in ($kept_ids) order by id)")"
