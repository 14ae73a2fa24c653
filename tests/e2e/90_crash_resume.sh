# 90_crash_resume.sh: the rank-0 writer SIGKILLed at random points of a
# sweep, several times, each time followed by `--resume`: after every kill
# the store passes its integrity check and keeps every run it had; the
# resume explains the runs the crash interrupted; in the end every
# configuration is stored exactly once, all ok, no 'started' row is left
# and the sweep is done. FGO_KILLS (default 5) sets the number of kills;
# the random points come from FGO_SEED (printed, to replay a failure).
. tests/e2e/lib.sh

kills=${FGO_KILLS:-5}
seed=${FGO_SEED:-$(date +%s)}
echo "90_crash_resume: $kills kills, FGO_SEED=$seed"
# the smoke sweep made slower (more timed iterations), so that the kills
# land while it runs
spec=$T/crash.json
sed 's/"iterations": 5/"iterations": 60/' sweeps/smoke.json >"$spec"
planned=$("$FGO" sweep $spec --dry-run --format csv 2>/dev/null | tail -n +2 | grep -c ',yes,')

# delay I: seconds (0.5 .. 2.5) before the I-th kill, from the seed
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

ok_before=0
survived=0
interrupted_seen=0
i=1
while [ "$i" -le "$kills" ]; do
	resume=--resume
	[ "$i" = 1 ] && resume=
	mpirun --oversubscribe -np 2 "$FGO" sweep $spec --tag crash $resume --quiet >"$T/sweep.out" 2>"$T/sweep.err" &
	mpid=$!
	if [ "$i" -gt 1 ] && [ "$stale" -gt 0 ]; then
		# the resume says why the 'started' rows of the last crash are gone
		n=0
		while [ "$n" -lt 100 ] && ! grep -q 'resuming sweep' "$T/sweep.err"; do sleep 0.1; n=$((n + 1)); done
		grep -q 'interrupted by the crash are marked failed and run again' "$T/sweep.err" &&
			interrupted_seen=$((interrupted_seen + 1))
	fi
	sleep "$(delay "$i")"
	victim=$(rank0 "$mpid")
	if [ -z "$victim" ]; then
		wait "$mpid"
		echo "kill $i: the sweep ended before the kill"
		break
	fi
	kill -9 "$victim"
	# mpirun sees rank 0 die and ends the others; give it 20 s
	n=0
	while kill -0 "$mpid" 2>/dev/null && [ "$n" -lt 200 ]; do sleep 0.1; n=$((n + 1)); done
	if kill -0 "$mpid" 2>/dev/null; then
		for c in $(ps -o pid= --ppid "$mpid"); do kill -9 "$c" 2>/dev/null; done
		kill -9 "$mpid" 2>/dev/null
	fi
	wait "$mpid" 2>/dev/null
	integrity=$(sql "pragma integrity_check")
	ok_now=$(sql "select count(*) from runs where status = 'ok'")
	dups=$(sql "select count(*) from (select config_key from runs group by sweep_id, config_key having count(*) > 1)")
	stale=$(sql "select count(*) from runs where status = 'started'")
	echo "kill $i after $(delay "$i") s: $ok_now ok, $stale started, integrity $integrity"
	if [ "$integrity" = ok ] && [ "$ok_now" -ge "$ok_before" ] && [ "$dups" = 0 ]; then
		survived=$((survived + 1))
	else
		fail "crash-1.$i" "after kill $i: integrity \"$integrity\", $ok_now ok runs (had $ok_before), $dups duplicated configurations"
	fi
	ok_before=$ok_now
	i=$((i + 1))
done
expect_eq crash-1 "$kills" "$survived"
# a kill that left 'started' rows is explained by the next resume
check crash-2 "the resume explains the interrupted runs ($interrupted_seen times)" [ "$interrupted_seen" -ge 1 ]

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
echo "crash-summary: $survived kills survived, seed $seed"
