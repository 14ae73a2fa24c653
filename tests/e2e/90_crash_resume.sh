# 90_crash_resume.sh: the rank-0 writer SIGKILLed at random points of a
# sweep, several times, each time followed by `--resume`: after every kill
# the store passes its integrity check, keeps every run it had and holds
# one sweep; a resume explains the runs a crash interrupted; in the end
# every configuration is stored exactly once, all ok, no 'started' row is
# left and the sweep is done. A kill may land after the sweep ended (a fast
# machine): the later resumes then say the sweep is complete and run
# nothing, and every check below holds the same. A second `--resume` of the
# finished sweep adds no sweep and no run. FGO_KILLS (default 5) sets the
# number of kills; the random points come from FGO_SEED (printed, to replay
# a failure).
. tests/e2e/lib.sh

kills=${FGO_KILLS:-5}
seed=${FGO_SEED:-$(date +%s)}
echo "90_crash_resume: $kills kills, FGO_SEED=$seed"
# the smoke sweep made slower (more timed iterations), so that most kills
# land while it runs
spec=$T/crash.json
sed 's/"iterations": 5/"iterations": 60/' sweeps/smoke.json >"$spec"
planned=$("$FGO" sweep $spec --dry-run --format csv 2>/dev/null | tail -n +2 | grep -c ',yes,')

# delay I: seconds (0.5 .. 2.5) from rank 0's start to the I-th kill, from the seed
delay() { awk -v s="$seed" -v i="$1" 'BEGIN { srand(s); for (j = 0; j < i; j++) r = rand(); printf "%.2f", 0.5 + r * 2 }'; }

# rank0 MPIRUN_PID: the pid of world rank 0 among mpirun's children
rank0() {
	for c in $(ps -o pid= --ppid "$1"); do
		if tr '\0' '\n' <"/proc/$c/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=0'; then
			echo "$c"
			return
		fi
	done
}

# end_mpirun PID: waits (60 s at most) for mpirun to end once rank 0 is
# gone, then kills what is left of it by pid
end_mpirun() {
	n=0
	while kill -0 "$1" 2>/dev/null && [ "$n" -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
	if kill -0 "$1" 2>/dev/null; then
		echo "mpirun $1 still there after 60 s: killed"
		for c in $(ps -o pid= --ppid "$1"); do kill -9 "$c" 2>/dev/null; done
		kill -9 "$1" 2>/dev/null
	fi
	wait "$1" 2>/dev/null
}

# the store's state, readable whether or not the first sweep got as far as
# creating it (sqlite3 is never pointed at a missing file: it would make one)
state() {
	if [ -e "$FGOBENCH_DB" ] && [ "$(sql "select count(*) from sqlite_master where name = 'runs'")" = 1 ]; then
		sql "select (select count(*) from runs where status = 'ok'),
			(select count(*) from runs where status = 'started'),
			(select count(*) from sweeps),
			(select count(*) from (select 1 from runs group by sweep_id, config_key having count(*) > 1))" | tr '|' ' '
	else
		echo "0 0 0 0"
	fi
}

ok_before=0
stale=0
survived=0
landed=0     # kills that hit a running sweep
after_end=0  # kills that found the sweep ended (a fast machine)
stale_resumes=0 explained=0
i=1
while [ "$i" -le "$kills" ]; do
	resume=--resume
	[ "$i" = 1 ] && resume=
	stale_at_start=$stale
	mpirun --oversubscribe -np 2 "$FGO" sweep $spec --tag crash $resume --quiet >"$T/sweep.out" 2>"$T/sweep.err" &
	mpid=$!
	# the delay counts from rank 0's start, however long mpirun takes to start it
	victim=
	n=0
	while [ -z "$victim" ] && kill -0 "$mpid" 2>/dev/null && [ "$n" -lt 600 ]; do
		victim=$(rank0 "$mpid")
		[ -n "$victim" ] || sleep 0.1
		n=$((n + 1))
	done
	if [ -n "$victim" ]; then
		sleep "$(delay "$i")"
		if kill -9 "$victim" 2>/dev/null; then
			what="killed after $(delay "$i") s"
			landed=$((landed + 1))
		else
			what="rank 0 ended before the kill"
			after_end=$((after_end + 1))
		fi
	else
		what="mpirun ended before rank 0 was seen"
		after_end=$((after_end + 1))
	fi
	end_mpirun "$mpid"
	# a resume that followed a crash with 'started' rows and got as far as
	# saying so explains them (the note is one line, written at once)
	if [ "$stale_at_start" -gt 0 ] && grep -q 'resuming sweep' "$T/sweep.err"; then
		stale_resumes=$((stale_resumes + 1))
		grep -q 'resuming sweep [0-9]* (runs a crash or a signal interrupted are marked failed and run again)' "$T/sweep.err" &&
			explained=$((explained + 1))
	fi
	set -- $(state)
	ok_now=$1 stale=$2 sweeps=$3 dups=$4
	integrity=ok
	[ -e "$FGOBENCH_DB" ] && integrity=$(sql "pragma integrity_check")
	echo "kill $i: $what: $ok_now ok, $stale started, $sweeps sweeps, integrity $integrity"
	if [ "$integrity" = ok ] && [ "$ok_now" -ge "$ok_before" ] && [ "$dups" = 0 ] && [ "$sweeps" -le 1 ]; then
		survived=$((survived + 1))
	else
		fail "crash-1.$i" "after kill $i: integrity \"$integrity\", $ok_now ok runs (had $ok_before), $dups duplicated configurations, $sweeps sweeps (want at most 1)"
	fi
	ok_before=$ok_now
	i=$((i + 1))
done
expect_eq crash-1 "$kills" "$survived"
# every resume after a crash that left 'started' rows said why they are gone
expect_eq crash-2 "$stale_resumes" "$explained"

expect_exit crash-3 0 mpi 2 sweep $spec --tag crash --resume --quiet
expect_eq crash-4 1 "$(sql "select count(*) from sweeps")"
expect_eq crash-5 "$planned" "$(sql "select count(*) from runs")"
expect_eq crash-6 "$planned" "$(sql "select count(distinct config_key) from runs")"
expect_eq crash-7 "$planned" "$(sql "select count(*) from runs where status = 'ok'")"
expect_eq crash-8 0 "$(sql "select count(*) from runs where status = 'started' or reason like 'interrupted%'")"
expect_eq crash-9 ok "$(sql "pragma integrity_check")"
expect_eq crash-10 done "$(sql "select status from sweeps")"
# every ok run has all its samples: a kill never left a half-written run
expect_eq crash-11 0 "$(sql "select count(*) from runs r where status = 'ok' and
	(select count(*) from samples s where s.run_id = r.id and s.kind = 'fused') != r.iterations")"

# ---- --resume of the finished sweep: idempotent, nothing runs, nothing is written
snapshot() { sql "select group_concat(x, ' ') from (select id || '@' || status || '@' || coalesce(ended_at, '') as x
	from sweeps union all select * from (select id || '@' || status || '@' || ended_at from runs order by id))"; }
before=$(snapshot)
expect_exit crash-12 0 mpi 2 sweep $spec --tag crash --resume
expect_err crash-13 "sweep 1 (tag crash) is already complete: nothing to resume"
expect_eq crash-14 "" "$(cat "$T/out")"
expect_eq crash-15 "1 $planned" "$(sql "select (select count(*) from sweeps), (select count(*) from runs)" | tr '|' ' ')"
expect_eq crash-16 "$before" "$(snapshot)"
check crash-17 "the finished resume ran no configuration" sh -c "! grep -q 'configurations to run' '$T/err'"
# ... and a plain sweep still starts a new one
expect_exit crash-18 0 mpi 2 sweep $spec --tag crash --quiet
expect_eq crash-19 "done done" "$(sql "select group_concat(status, ' ') from (select status from sweeps order by id)")"

# ---- a crash that surely left a 'started' row (the explanation, whatever
# the random kills hit): the newest sweep reopened with one run set back to
# 'started', as a kill during that run leaves it
sql "update sweeps set status = 'running', ended_at = null where id = 2;
	update runs set status = 'started', ended_at = null where id = (select max(id) from runs where sweep_id = 2)"
expect_exit crash-20 0 mpi 2 sweep $spec --tag crash --resume --quiet
expect_err crash-21 "resuming sweep 2 (runs a crash or a signal interrupted are marked failed and run again)"
expect_eq crash-22 "done done $planned" "$(sql "select group_concat(status, ' '), (select count(*) from runs where sweep_id = 2 and status = 'ok') from (select status from sweeps order by id)" | tr '|' ' ')"
echo "crash-summary: $survived kills survived ($landed hit the running sweep, $after_end found it ended), $stale_resumes resumes after a crash with started rows, seed $seed"
