# 91_concurrency.sh: readers while a sweep writes, two sweeps at one store,
# and a store held locked by someone else.
#   - best, list, show, report and plot read the store over and over while a
#     sweep writes it: every read succeeds quickly, none sees a run that is
#     ok but lacks samples (one transaction per run), the sweep stores
#     every run;
#   - two sweeps at once on one store both land, the store intact;
#   - a store whose write lock another process holds past the 10 s wait
#     gives a sweep a clear "store is busy" error, while readers still read
#     and nothing is damaged.
. tests/e2e/lib.sh

spec=$T/slow.json
sed 's/"iterations": 5/"iterations": 40/' sweeps/smoke.json >"$spec"
planned=$("$FGO" sweep "$spec" --dry-run --format csv 2>/dev/null | tail -n +2 | grep -c ',yes,')

# ---- readers during a sweep ----
# The readers read for as long as a sweep writes; should a sweep end before
# they read 20 times (a machine where the sweep is fast next to the reads),
# another one starts (4 at most), so that the count never depends on the
# machine's speed or load.
start=$(date +%s)
reads=0 bad_reads=0 half=0 slow=0 sweeps=0 rcs="" want_rcs=""
while [ "$reads" -lt 20 ] && [ "$sweeps" -lt 4 ]; do
	sweeps=$((sweeps + 1))
	mpirun --oversubscribe -np 2 "$FGO" sweep "$spec" --tag "readers-$sweeps" --quiet >"$T/sweep.out" 2>>"$T/sweep.err" &
	mpid=$!
	while kill -0 "$mpid" 2>/dev/null; do
		# (read-only: sqlite3 never makes the store the sweep is about to create)
		if [ "$(sqlite3 "file:$FGOBENCH_DB?mode=ro" "select count(*) from runs where status = 'ok'" 2>/dev/null)" = "" ]; then
			sleep 0.1
			continue
		fi
		id=$(sql "select max(id) from runs where status = 'ok'" 2>/dev/null)
		for cmd in "best --format csv" "list --format csv" "show ${id:-1} --format json" \
			"report --tag readers-$sweeps --format md --no-plots -o $T/rep" "plot roofline -o $T/plots"; do
			t0=$(date +%s)
			# shellcheck disable=SC2086
			if ! "$FGO" $cmd >"$T/read.out" 2>"$T/read.err"; then
				case "$cmd" in
				report*) ;; # exit 1 when the report finds a regression: not a read failure
				best* | plot*)
					# nothing to show (exit 2, saying why) until the first ok
					# runs are stored
					if ! grep -q "no ok runs in" "$T/read.err"; then
						bad_reads=$((bad_reads + 1))
						echo "read failed: $cmd: $(head -c 200 "$T/read.err")"
					fi
					;;
				*)
					bad_reads=$((bad_reads + 1))
					echo "read failed: $cmd: $(head -c 200 "$T/read.err")"
					;;
				esac
			fi
			[ $(($(date +%s) - t0)) -gt 5 ] && slow=$((slow + 1))
			reads=$((reads + 1))
		done
		# what a reader sees: no ok run without all its fused samples
		n=$(sql "select count(*) from runs r where status = 'ok' and (select count(*) from samples s
			where s.run_id = r.id and s.kind = 'fused') != r.iterations" 2>/dev/null)
		[ "${n:-0}" != 0 ] && half=$((half + 1))
	done
	wait "$mpid"
	rcs="$rcs $?"
	want_rcs="$want_rcs 0"
done
took=$(($(date +%s) - start))
echo "concurrency: $reads reads by best/list/show/report/plot during $sweeps sweep(s) of ${took}s in all"
expect_eq conc-1.1 "$want_rcs" "$rcs"
check conc-1.2 "at least 20 reads during the sweeps (got $reads)" [ "$reads" -ge 20 ]
expect_eq conc-1.3 0 "$bad_reads"
expect_eq conc-1.4 0 "$slow"
expect_eq conc-1.5 0 "$half"
expect_eq conc-1.6 "$((planned * sweeps))" "$(sql "select count(*) from runs where status = 'ok'")"
expect_eq conc-1.7 ok "$(sql "pragma integrity_check")"
check conc-1.8 "no busy error in the sweep's messages: $(grep -i busy "$T/sweep.err")" \
	sh -c "! grep -qi busy '$T/sweep.err'"

# ---- two sweeps at once ----
export FGOBENCH_DB="$T/two.db"
mpirun --oversubscribe -np 2 "$FGO" sweep tests/e2e/tiny.json --tag one --quiet >"$T/one.out" 2>"$T/one.err" &
p1=$!
mpirun --oversubscribe -np 2 "$FGO" sweep tests/e2e/tiny.json --tag two --quiet >"$T/two.out" 2>"$T/two.err" &
p2=$!
wait "$p1"
rc1=$?
wait "$p2"
rc2=$?
expect_eq conc-2.1 "0 0" "$rc1 $rc2"
[ "$rc1 $rc2" = "0 0" ] || head -c 600 "$T/one.err" "$T/two.err"
expect_eq conc-2.2 "one|done|9 two|done|9" "$(sql "select tag, status, (select count(*) from runs r
	where r.sweep_id = s.id and r.status = 'ok') from sweeps s order by tag" | tr '\n' ' ' | sed 's/ $//')"
expect_eq conc-2.3 ok "$(sql "pragma integrity_check")"

# ---- a store held locked by another process ----
# The holder takes the write lock, says so (a file), and keeps it until the
# test releases it (120 s at most): no clock decides who holds the lock when.
sql "pragma journal_mode = wal" >/dev/null
{
	echo "begin immediate; insert into meta(key, value) values ('held', 'by the test');"
	echo ".shell touch $T/held"
	n=0
	while [ ! -e "$T/release" ] && [ "$n" -lt 1200 ]; do sleep 0.1; n=$((n + 1)); done
	echo "rollback;"
} | sqlite3 "$FGOBENCH_DB" &
holder=$!
n=0
while [ ! -e "$T/held" ] && [ "$n" -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
check conc-3.0 "the holder took the write lock" [ -e "$T/held" ]
t0=$(date +%s)
expect_exit conc-3.1 1 mpi 2 sweep tests/e2e/tiny.json --tag three --quiet
waited=$(($(date +%s) - t0))
expect_err conc-3.2 "the store is busy"
# the store waits 10 s for the lock; mpirun's start and end on a loaded
# machine add a few seconds, never 20
check conc-3.3 "the sweep gave up after a bounded wait (${waited}s)" [ "$waited" -ge 9 ] && [ "$waited" -le 30 ]
expect_exit conc-3.4 0 "$FGO" best --format csv
touch "$T/release"
wait "$holder"
expect_eq conc-3.5 ok "$(sql "pragma integrity_check")"
expect_eq conc-3.6 "one two" "$(sql "select tag from sweeps order by tag" | tr '\n' ' ' | sed 's/ $//')"
expect_eq conc-3.7 0 "$(sql "select count(*) from meta where key = 'held'")"
