# 97_interrupt.sh: Ctrl-C or SIGTERM during a sweep (and a tune session).
# Open MPI's mpirun never passes a Ctrl-C on: its ranks run in process
# groups of their own, and on SIGINT or SIGTERM mpirun sends them SIGTERM
# (then SIGKILL a second later) and exits 1 whatever they return. So:
#   int-1.*  SIGINT to mpirun's process group, as a terminal's Ctrl-C
#   int-2.*  SIGTERM to mpirun alone
#   int-3.*  SIGINT to fgobench run without mpirun (it starts and supervises
#            its one rank, hands the signal on once): exit 130
#   int-4.*  SIGTERM to a tune session's mpirun
# each sent once the store holds a known number of runs (the store is
# polled, nothing sleeps a fixed time), then: the exit status, rank 0's one
# message (the runs stored, the command that resumes), `list` showing the
# sweep interrupted, the store's integrity, and the printed command
# resuming it to the end with no run lost or duplicated.
. tests/e2e/lib.sh

# the smoke sweep made slower (more timed iterations): 50 configurations,
# many seconds on 2 cores, signalled after the first few
spec=$T/slow.json
sed 's/"iterations": 5/"iterations": 40/' sweeps/smoke.json >"$spec"
planned=$("$FGO" sweep "$spec" --dry-run --format csv 2>/dev/null | tail -n +2 | grep -c ',yes,')
AT=3 # runs stored before the signal

# stored TAG [DB]: runs of the sweeps tagged TAG with an outcome (a
# read-only look, 0 while the store does not exist yet)
stored() {
	_db=${2:-$FGOBENCH_DB}
	[ -e "$_db" ] || { echo 0; return; }
	sqlite3 "file:$_db?mode=ro" "select count(*) from runs r join sweeps s on s.id = r.sweep_id
		where s.tag = '$1' and r.status != 'started'" 2>/dev/null || echo 0
}

# wait_stored PID TAG [DB]: polls (2 minutes at most) until AT runs of TAG
# are stored or PID is gone; says how many it saw
wait_stored() {
	_n=0 _got=0
	while [ "$_n" -lt 1200 ] && kill -0 "$1" 2>/dev/null; do
		_got=$(stored "$2" "${3:-}")
		[ "${_got:-0}" -ge "$AT" ] && break
		sleep 0.1
		_n=$((_n + 1))
	done
	echo "${_got:-0}"
}

# ok_runs TAG: "id@ended_at" of the ok runs of TAG, to see none is lost or redone
ok_runs() { sql "select group_concat(x, ' ') from (select r.id || '@' || r.ended_at as x from runs r
	join sweeps s on s.id = r.sweep_id where s.tag = '$1' and r.status = 'ok' order by r.id)"; }

# kept BEFORE AFTER: every word of BEFORE is in AFTER
kept() {
	[ -n "$1" ] || return 1
	for _x in $1; do
		case " $2 " in *" $_x "*) ;; *) return 1 ;; esac
	done
}

# resume_words: the command the message printed, fgobench as this build
# (under --oversubscribe: the machine may have fewer cores than ranks)
resume_words() { sed -n 's/.*; resume with: mpirun \(.*\)$/\1/p' "$T/sig.err" | sed "s|fgobench|$FGO|"; }

# in_group FILE COMMAND...: COMMAND in a process group of its own whose id
# is written to FILE, a new name (setsid forks only when it must; -w waits)
in_group() {
	_f=$1
	shift
	setsid -w sh -c 'echo $$ >"$0.tmp" && mv "$0.tmp" "$0" && exec "$@"' "$_f" "$@"
}

# group_of FILE: the process group id in_group wrote (10 s at most)
group_of() {
	_n=0
	while [ ! -s "$1" ] && [ "$_n" -lt 100 ]; do sleep 0.1; _n=$((_n + 1)); done
	cat "$1" 2>/dev/null
}

# check_interrupted ID TAG SEEN SWEEP: the checks after sweep SWEEP tagged
# TAG was interrupted with SEEN runs stored at the signal (its stderr in
# $T/sig.err)
check_interrupted() {
	_id=$1 _tag=$2 _seen=$3 _sweep=$4
	_now=$(stored "$_tag")
	check "$_id.2" "the signal came after $AT runs were stored and before the end ($_seen seen, $_now of $planned now)" \
		test "$_seen" -ge "$AT" -a "$_now" -lt "$planned"
	check "$_id.3" "one message naming the $_now runs stored and the command that resumes" \
		grep -q "^fgobench: sweep $_sweep (tag $_tag) interrupted (SIG[A-Z]*): $_now of $planned runs stored ([0-9]* ok) in $FGOBENCH_DB; resume with: mpirun -np 2 fgobench sweep $spec --tag $_tag --quiet --resume --db $FGOBENCH_DB\$" "$T/sig.err"
	expect_eq "$_id.4" 1 "$(grep -c 'interrupted' "$T/sig.err")"
	expect_exit "$_id.5" 0 "$FGO" list --tag "$_tag" --format csv
	expect_eq "$_id.6" interrupted "$(tail -n 1 "$T/out" | cut -d, -f8)"
	expect_eq "$_id.7" ok "$(sql "pragma integrity_check")"
	# every run stored is whole: an ok run has all its samples
	expect_eq "$_id.8" 0 "$(sql "select count(*) from runs r where status = 'ok' and
		(select count(*) from samples s where s.run_id = r.id and s.kind = 'fused') != r.iterations")"
	_before=$(ok_runs "$_tag")
	# shellcheck disable=SC2046 # the printed command, word by word
	expect_exit "$_id.9" 0 mpirun --oversubscribe $(resume_words)
	expect_err "$_id.10" "resuming sweep $_sweep"
	expect_eq "$_id.11" "1 done $planned $planned $planned" "$(sql "select count(*), max(s.status),
		(select count(*) from runs where sweep_id = s.id),
		(select count(distinct config_key) from runs where sweep_id = s.id),
		(select count(*) from runs where sweep_id = s.id and status = 'ok')
		from sweeps s where s.tag = '$_tag'" | tr '|' ' ')"
	# the runs stored before the signal are kept as they were, not run again
	_after=$(ok_runs "$_tag")
	check "$_id.12" "the runs stored before the signal kept as they were" kept "$_before" "$_after"
}

# ---- int-1: Ctrl-C: SIGINT to the process group of mpirun (setsid: a group of its own)
in_group "$T/pgid1" mpirun --oversubscribe -np 2 "$FGO" sweep "$spec" --tag ctrlc --quiet \
	>"$T/out" 2>"$T/sig.err" &
pid=$!
pgid=$(group_of "$T/pgid1")
seen=$(wait_stored "$pid" ctrlc)
env kill -INT -- "-$pgid"
wait "$pid"
expect_eq int-1.1 1 "$?"
check_interrupted int-1 ctrlc "$seen" 1

# ---- int-2: SIGTERM to mpirun alone
mpirun --oversubscribe -np 2 "$FGO" sweep "$spec" --tag term --quiet >"$T/out" 2>"$T/sig.err" &
pid=$!
seen=$(wait_stored "$pid" term)
kill -TERM "$pid"
wait "$pid"
expect_eq int-2.1 1 "$?"
check_interrupted int-2 term "$seen" 2

# ---- int-3: without mpirun (one rank, world 1): the terminal's SIGINT
# reaches fgobench itself, which exits 130. (`cmd &` in a script starts cmd
# with SIGINT ignored, which fgobench leaves so, as every tool does; env
# gives it the default a terminal's job has.)
spec1=$T/one.json
cat >"$spec1" <<'EOF'
{ "name": "one", "iterations": 100, "warmup": 1,
  "blocks": [ { "algorithm": "gemm", "world": 1, "M": 256, "N": 256, "K": 256,
                "BLK_M": [16, 32, 64], "BLK_N": [16, 32, 64], "BLK_K": [16, 32] } ] }
EOF
in_group "$T/pgid3" env --default-signal=INT "$FGO" sweep "$spec1" --tag one --db "$T/one.db" --quiet >"$T/out" 2>"$T/sig.err" &
pid=$!
pgid=$(group_of "$T/pgid3")
wait_stored "$pid" one "$T/one.db" >/dev/null
env kill -INT -- "-$pgid"
wait "$pid"
expect_eq int-3.1 130 "$?"
check int-3.2 "the message names the signal and the resume command" \
	grep -q "^fgobench: sweep 1 (tag one) interrupted (SIGINT): [0-9]* of 18 runs stored ([0-9]* ok) in $T/one.db; resume with: fgobench sweep $spec1 --tag one --db $T/one.db --quiet --resume\$" "$T/sig.err"
expect_eq int-3.3 "interrupted ok" "$(sql "select status from sweeps; pragma integrity_check" "$T/one.db" | tr '\n' ' ' | sed 's/ $//')"
expect_exit int-3.4 0 "$FGO" sweep "$spec1" --tag one --db "$T/one.db" --quiet --resume
expect_eq int-3.5 "done 18 18" "$(sql "select status, (select count(distinct config_key) from runs), (select count(*) from runs where status = 'ok') from sweeps" "$T/one.db" | tr '|' ' ')"

# ---- int-4: a tune session: its sweeps interrupted, --resume finishes the budget
# (256^3 runs, about 0.4 s each on 2 cores: the signal lands mid-session even
# on a loaded machine, where 128^3 ones could all finish first)
TUNE="--algorithm all_scatter -m 256 -n 256 -k 256 --iterations 100 --strategy random --budget 8 --seed 5 --tag tunei --quiet"
mpirun --oversubscribe -np 2 "$FGO" tune $TUNE >"$T/out" 2>"$T/sig.err" &
pid=$!
seen=$(wait_stored "$pid" tunei)
kill -TERM "$pid"
wait "$pid"
expect_eq int-4.1 1 "$?"
now=$(stored tunei)
check int-4.2 "the signal came after $AT runs were stored and before the end ($seen seen, $now of 8 now)" \
	test "$seen" -ge "$AT" -a "$now" -lt 8
check int-4.3 "the tune message names the runs stored and the command that resumes" \
	grep -q "^fgobench: tune session tunei interrupted (SIGTERM): $now runs stored ($now ok) in $FGOBENCH_DB; resume with: mpirun -np 2 fgobench tune $TUNE --resume --db $FGOBENCH_DB\$" "$T/sig.err"
expect_eq int-4.4 "interrupted ok" "$(sql "select group_concat(distinct status) from sweeps where tag = 'tunei'; pragma integrity_check" | tr '\n' ' ' | sed 's/ $//')"
before=$(ok_runs tunei)
# shellcheck disable=SC2046
expect_exit int-4.5 0 mpirun --oversubscribe $(resume_words)
expect_err int-4.6 "resuming tune session tunei: $now stored results"
expect_eq int-4.7 "done 8 8" "$(sql "select group_concat(distinct s.status), count(distinct r.config_key), count(*) from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'tunei' and r.status = 'ok'" | tr '|' ' ')"
after=$(ok_runs tunei)
check int-4.8 "the runs stored before the signal kept as they were" kept "$before" "$after"
