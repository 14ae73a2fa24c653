# 93_contain.sh: a bad configuration is a result, never the end of a sweep
# (issue 48, docs/reliability.md). The kernel tests/e2e/user/hostile
# misbehaves on rank 1 for one value of its tunable FAULT; each kind runs in
# one `fgobench sweep` (no mpirun typed: the tool starts the ranks and
# supervises them) over two problems, FAULT in [0, KIND, 9]: the four good
# configurations must be stored ok, the two bad ones with their status and
# reason, the sweep must exit 1, and a second --resume runs nothing. Then
# the same under a plain mpirun, where each --resume stores one crash and
# runs the rest; --retry-crashed runs a crashed one again; store integrity.
. tests/e2e/lib.sh
export FGOBENCH_CACHE="$T/cache"
mkdir -p "$T/k/hostile"
cp tests/e2e/user/hostile/hostile.c "$T/k/hostile/"
printf '{"kernel": "hostile/manifest.json", "dtype": "fp32", "world": 2,
 "shapes": [[64, 64, 32], [32, 128, 16]], "iterations": 2, "warmup": 1}\n' >"$T/k/spec.json"

# kind NAME FAULT STATUS REASON: one sweep of [0, FAULT, 9] in a store of its own
kind() {
	k=$1 fault=$2 status=$3 reason=$4
	db="$T/$k.db"
	sed "s/\"FAULT\": \[0, 1, 9\]/\"FAULT\": [0, $fault, 9]/" tests/e2e/user/hostile/manifest.json \
		>"$T/k/hostile/manifest.json"
	start=$(date +%s)
	expect_exit "contain-$k.1" 1 "$FGO" sweep "$T/k/spec.json" --db "$db" --timeout 1 --quiet
	took=$(($(date +%s) - start))
	expect_eq "contain-$k.2" "6 4 2" "$(sql "select count(*), sum(status = 'ok'),
		sum(status = '$status' and kernel_params = 'FAULT=$fault') from runs" "$db" | tr '|' ' ')"
	expect_eq "contain-$k.3" 2 "$(sql "select count(*) from runs where status = '$status'
		and reason like '%$reason%'" "$db")"
	# every good configuration of both problems ran, the ones after the bad one too
	expect_eq "contain-$k.4" "2 2" "$(sql "select sum(kernel_params = 'FAULT=9' and status = 'ok'),
		sum(kernel_params = 'FAULT=0' and status = 'ok') from runs" "$db" | tr '|' ' ')"
	expect_eq "contain-$k.5" "1 done" "$(sql "select count(*), status from sweeps" "$db" | tr '|' ' ')"
	check "contain-$k.6" "the summary counts the 2 $status runs: $(tail -3 "$T/err")" \
		grep -q "2 $status" "$T/err"
	expect_exit "contain-$k.7" 0 "$FGO" sweep "$T/k/spec.json" --db "$db" --timeout 1 --resume
	expect_err "contain-$k.8" "is already complete: nothing to resume"
	expect_eq "contain-$k.9" ok "$(sql "pragma integrity_check" "$db")"
	echo "# $k: $took s"
}

kind segfault 1 crashed "SIGSEGV"
kind abort 2 crashed "SIGABRT"
kind exit0 3 crashed "exit(0)"
kind exit3 4 crashed "exit(3)"
kind loop 5 hung "ran past its limit of 6 s"
kind own-input 6 corrupted "input B on rank 1"
kind peer-input 7 corrupted "input A on rank 0"
# a flag nobody raises: the kernel's own wait gives up (timeout, not hung)
kind flag 8 timeout "flag 4 of rank 1"

# ---- under a plain mpirun nothing supervises: the crash ends the job, and
# each --resume stores the crash it finds and runs the rest (it never runs
# the crash again) ----
sed 's/"FAULT": \[0, 1, 9\]/"FAULT": [0, 1, 9]/' tests/e2e/user/hostile/manifest.json \
	>"$T/k/hostile/manifest.json"
db="$T/plain.db"
expect_exit contain-plain.1 139 mpi 2 sweep "$T/k/spec.json" --db "$db" --quiet
expect_eq contain-plain.2 "1 0" "$(sql "select sum(status = 'ok'), sum(status = 'crashed') from runs" "$db" | tr '|' ' ')"
check contain-plain.3 "the flight records of the dead job are kept" test -f "$db-flight/sweep-1.rank-1"
expect_exit contain-plain.4 139 mpi 2 sweep "$T/k/spec.json" --db "$db" --quiet --resume
expect_err contain-plain.5 "crashed: killed by SIGSEGV, an invalid memory access (signal 11) on rank 1; stored as crashed"
expect_exit contain-plain.6 1 mpi 2 sweep "$T/k/spec.json" --db "$db" --quiet --resume
expect_eq contain-plain.7 "4 2" "$(sql "select sum(status = 'ok'), sum(status = 'crashed') from runs" "$db" | tr '|' ' ')"
check contain-plain.8 "a clean end leaves no flight folder" test ! -e "$db-flight"
expect_err contain-plain.9 "holds 2 crashed, 0 hung and 0 corrupted runs in all"

# ---- --retry-crashed runs the crashed ones again (and they crash again) ----
expect_exit contain-retry.1 1 "$FGO" sweep "$T/k/spec.json" --db "$db" --quiet --resume --retry-crashed
expect_eq contain-retry.2 "4 2 1" "$(sql "select sum(status = 'ok'), sum(status = 'crashed'),
	count(distinct sweep_id) from runs" "$db" | tr '|' ' ')"
check contain-retry.3 "the crashes were run again: $(grep -c 'goes on in a new job' "$T/err")" \
	test "$(grep -c 'goes on in a new job' "$T/err")" = 2

# ---- one rank, no launcher (FGOBENCH_LAUNCH=0): a kernel's exit(0) must
# not read as success, and the next --resume stores it as crashed ----
sed 's/"FAULT": \[0, 1, 9\]/"FAULT": [3]/' tests/e2e/user/hostile/manifest.json >"$T/k/hostile/manifest.json"
printf '{"kernel": "hostile/manifest.json", "dtype": "fp32", "world": 1,
 "shapes": [[64, 64, 32]], "iterations": 2, "warmup": 1}\n' >"$T/k/alone.json"
expect_exit contain-alone.1 1 env FGOBENCH_LAUNCH=0 "$FGO" sweep "$T/k/alone.json" --db "$T/alone.db" --quiet
expect_exit contain-alone.2 1 env FGOBENCH_LAUNCH=0 "$FGO" sweep "$T/k/alone.json" --db "$T/alone.db" --quiet --resume
expect_eq contain-alone.3 "crashed ended its process with exit(0) on rank 0" \
	"$(sql "select status, reason from runs" "$T/alone.db" | tr '|' ' ')"
sed 's/"FAULT": \[0, 1, 9\]/"FAULT": [0, 1, 9]/' tests/e2e/user/hostile/manifest.json >"$T/k/hostile/manifest.json"

# ---- tune: a crashing candidate is a failed candidate; the session goes on
# in a new job (resumed by the supervisor) and ends on the others ----
expect_exit contain-tune.1 1 "$FGO" tune --kernel "$T/k/hostile/manifest.json" --dtype fp32 \
	-m 64 -n 64 -k 32 --world 2 --tag t --strategy grid --db "$T/tune.db" --timeout 1 --quiet
expect_eq contain-tune.2 "2 1" "$(sql "select sum(status = 'ok'), sum(status = 'crashed'
	and kernel_params = 'FAULT=1') from runs" "$T/tune.db" | tr '|' ' ')"
expect_err contain-tune.3 "(2 from the store, 1 failed) in a space of 3"
expect_err contain-tune.4 "the tune session goes on in a new job (mpirun exit status 139)"

# ---- the launch itself: input errors once, before any rank starts ----
expect_exit contain-launch.1 2 "$FGO" sweep "$T/k/nope.json" --db "$db"
check contain-launch.2 "one error line, no launcher banner: $(cat "$T/err")" \
	test "$(grep -c . "$T/err")" = 1
expect_exit contain-launch.3 0 "$FGO" sweep "$T/k/spec.json" --db "$db" --dry-run
expect_eq contain-launch.4 ok "$(sql "pragma integrity_check" "$db")"
# --ranks: more ranks than the largest world, groups side by side; fewer: refused
sed 's/"FAULT": \[0, 1, 9\]/"FAULT": [0, 9]/' tests/e2e/user/hostile/manifest.json \
	>"$T/k/hostile/manifest.json"
expect_exit contain-launch.5 0 "$FGO" sweep "$T/k/spec.json" --db "$T/ranks.db" --ranks 3 --quiet
expect_eq contain-launch.6 "3 4" "$(sql "select mpi_ranks, (select count(*) from runs) from sweeps" "$T/ranks.db" | tr '|' ' ')"
expect_exit contain-launch.7 2 "$FGO" sweep "$T/k/spec.json" --db "$T/ranks.db" --ranks 1
expect_err contain-launch.8 "--ranks 1 is fewer than the world size 2 the spec needs"

# inside a Slurm allocation (SLURM_JOB_ID, no step yet) the ranks start
# through srun: a stand-in srun on PATH records its arguments and runs them
# under mpirun, as a one-node allocation would
mkdir -p "$T/bin"
cat >"$T/bin/srun" <<'SRUN'
#!/bin/sh
echo "$@" >"$SRUN_LOG"
n=${1#--ntasks=}
shift 2
unset SLURM_JOB_ID
exec mpirun --oversubscribe -np "$n" "$@"
SRUN
chmod +x "$T/bin/srun"
expect_exit contain-slurm.1 0 env PATH="$T/bin:$PATH" SLURM_JOB_ID=4242 SRUN_LOG="$T/srun.log" \
	"$FGO" sweep "$T/k/spec.json" --db "$T/slurm.db" --quiet
check contain-slurm.2 "srun was asked for 2 tasks: $(cat "$T/srun.log" 2>&1)" \
	grep -q "^--ntasks=2 --kill-on-bad-exit=1 $FGO sweep" "$T/srun.log"
expect_eq contain-slurm.3 "4 4" "$(sql "select count(*), sum(status = 'ok') from runs" "$T/slurm.db" | tr '|' ' ')"
