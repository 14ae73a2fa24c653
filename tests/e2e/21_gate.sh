# 21_gate.sh: the nightly gate (regress --gate, report --gate) on nights made
# in SQL from one real sweep of tiny.json (so the verdicts depend on the data
# the test makes, never on the machine's load): rounds with their own common
# factors, a quiet night, a night where the machine changed (the control
# moved too), the same without the control (the code), one family slower,
# report --gate --against auto picking the previous night whole; then the
# CPU backend's planted slowdown, which must slow exactly the family named.
. tests/e2e/lib.sh

expect_exit gate-1.1 0 mpi 2 sweep tests/e2e/tiny.json --tag n1 --quiet --iterations 3
# a fixed fused time and control per configuration, so each night is exact
sql "UPDATE runs SET t_fused_ms = 1 + (id % 7) / 10.0, t_baseline_ms = 2 + (id % 3) / 10.0"

# night TAG FUSED BASELINE: a copy of sweep 1 as three more rounds of TAG,
# each round with its own factor on everything (1.3, 0.9, 1.0), the fused
# times by the SQL expression FUSED of r (the run), the control by BASELINE
night() {
	for f in 1.3 0.9 1.0; do
		sql "INSERT INTO sweeps (tag, spec_name, spec_hash, host, backend, started_at, status)
			SELECT '$1', spec_name, spec_hash, host, backend, started_at, 'done' FROM sweeps WHERE id = 1;
		CREATE TEMP TABLE r AS SELECT * FROM runs WHERE sweep_id = 1;
		UPDATE r SET id = id + (SELECT max(id) FROM runs), sweep_id = (SELECT max(id) FROM sweeps),
			t_fused_ms = $f * ($2), t_baseline_ms = $f * ($3);
		INSERT INTO runs SELECT * FROM r;"
	done
}
night base 'r.t_fused_ms' 'r.t_baseline_ms'
night machine 'r.t_fused_ms * 1.3' 'r.t_baseline_ms * 1.28'
night code 'r.t_fused_ms * 1.3' 'r.t_baseline_ms'
night quiet 'r.t_fused_ms * (1 + (r.id % 5 - 2) / 100.0)' 'r.t_baseline_ms'
night family "r.t_fused_ms * (CASE WHEN r.algorithm = 'all_scatter' THEN 1.25 ELSE 1 END)" 'r.t_baseline_ms'
night control 'r.t_fused_ms' 'r.t_baseline_ms * 0.8'
configs=$(sql "select count(*) from runs where sweep_id = 1")

expect_exit gate-1.2 0 "$FGO" regress --gate --base base --head quiet --format csv
expect_eq gate-1.3 "$configs" "$(grep -c ',same$' "$T/out")"
expect_err gate-1.4 "gate: 3 and 3 rounds"
expect_err gate-1.5 "the machine held"

expect_exit gate-2.1 0 "$FGO" regress --gate --base base --head machine --format csv
# every run has its control: each is judged as its time over the control's,
# so the machine's +30% (the control +28%) is out run by run
expect_err gate-2.2 "each run judged against its control"
expect_err gate-2.4 "the machine held (median change +1.6%, control +28.0%, taken out)"
expect_eq gate-2.3 "$configs" "$(grep -c ',same$' "$T/out")"
# the control 20% faster on its own: everything +25% against it, said so
expect_exit gate-2.5 0 "$FGO" regress --gate --base base --head control --format csv
expect_err gate-2.6 "THE CONTROL CHANGED: $configs of $configs configurations moved together by +25.0% against it and the control -20.0% on its own"
expect_eq gate-2.7 "$configs" "$(grep -c ',same$' "$T/out")"

expect_exit gate-3.1 1 "$FGO" regress --gate --base base --head code --format csv
expect_err gate-3.2 "not the machine, so judged as measured"
expect_eq gate-3.3 "$configs" "$(grep -c ',regression$' "$T/out")"

expect_exit gate-4.1 1 "$FGO" regress --gate --base base --head family --format csv
expect_eq gate-4.2 "$(sql "select count(*) from runs where sweep_id = 1 and algorithm = 'all_scatter'")" \
	"$(grep -c '^all_scatter,.*,regression$' "$T/out")"
expect_eq gate-4.3 0 "$(grep -v '^all_scatter' "$T/out" | grep -c ',regression$')"
# the night's median level, not the newest round's: the rounds' factors are out
check gate-4.4 "levels are the rounds' medians with their factors out" \
	sh -c "grep '^all_scatter' '$T/out' | awk -F, '{ if (\$(NF-2) < 24.9 || \$(NF-2) > 25.1) bad = 1 } END { exit bad }'"
# the earlier nights are the noise model's: base is preceded by n1 (one round)
expect_err gate-4.5 "1 earlier night"

# report --gate: auto is the previous night, taken whole (all its rounds)
expect_exit gate-5.1 1 "$FGO" report --tag family --against auto --gate --no-plots -o "$T/rep"
check gate-5.2 "the report compares with the previous night's tag" grep -q "Compared with the sweeps tagged quiet" "$T/rep/index.md"
check gate-5.3 "and says the gate judged" grep -q "judged by the nightly gate (gate: 3 and 3 rounds" "$T/rep/index.md"
expect_exit gate-5.4 2 "$FGO" regress --gate --base base --head family --history -1

# the planted slowdown: 3 ms a launch of all_scatter only; tiny's gemm
# (one rank, no waits on a peer) takes well under a millisecond even on a
# loaded machine, the W=2 families do not, so gemm is the one that must
# stay fast
export FGOBENCH_PLANT_SLOW_NS=3000000 FGOBENCH_PLANT_SLOW_ALGO=all_scatter
expect_exit gate-6.1 0 mpirun --oversubscribe -np 2 -x FGOBENCH_PLANT_SLOW_NS -x FGOBENCH_PLANT_SLOW_ALGO \
	"$FGO" sweep tests/e2e/tiny.json --tag planted --quiet --iterations 2 --db "$T/plant.db"
unset FGOBENCH_PLANT_SLOW_NS FGOBENCH_PLANT_SLOW_ALGO
expect_eq gate-6.2 4 "$(sql "select count(*) from runs where algorithm = 'all_scatter' and t_fused_min_ms >= 3" "$T/plant.db")"
expect_eq gate-6.3 0 "$(sql "select count(*) from runs where algorithm = 'gemm' and t_fused_max_ms >= 3" "$T/plant.db")"

# make nightly exits as tests/nightly.sh does (0, 1 regression, 2 set-up),
# where GNU make alone would turn 1 into 2: a stand-in fgobench whose
# report exits with $FAKE_RC
cat > "$T/fake" <<'FAKE'
#!/bin/sh
if [ "$1" = report ]; then
	while [ $# -gt 0 ]; do
		[ "$1" = -o ] && mkdir -p "$2" && echo "Verdict: ${FAKE_VERDICT:-no regression}." > "$2/index.md"
		shift
	done
	exit "$FAKE_RC"
fi
exit 0
FAKE
chmod +x "$T/fake"
for want in 0 1 2; do
	FAKE_RC=$want FGO="$T/fake" MPIRUN=true NIGHTLY_ROUNDS=1 NIGHTLY_REPORTS="$T/nightly" \
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory nightly >"$T/out" 2>"$T/err"
	expect_eq "gate-7.$((want + 1)) make nightly exit" "$want" "$?"
done

# a night the gate cannot judge (issue 50): NO VERDICT on the terminal, never
# "no regression"; the exit status stays 0 (tests/nightly.sh says why)
FAKE_RC=0 FAKE_VERDICT="NO VERDICT (too noisy to judge)" FGO="$T/fake" MPIRUN=true NIGHTLY_ROUNDS=1 \
	NIGHTLY_REPORTS="$T/nightly" expect_exit gate-8.1 0 sh tests/nightly.sh
expect_err gate-8.2 "nightly: NO VERDICT: the night was too noisy to judge"
check gate-8.3 "no \"no regression\" on a night without a verdict" sh -c "! grep -q 'no regression' '$T/err'"
# the gate's own NO VERDICT: unchanged configurations scattered by +-40%
night noisy "r.t_fused_ms * (1 + ((r.id * 37) % 9 - 4) / 10.0)" 'r.t_baseline_ms'
expect_exit gate-8.4 0 "$FGO" report --tag noisy --against base --gate --no-plots -o "$T/noisy"
check gate-8.5 "the report's verdict" grep -q "Verdict: NO VERDICT (too noisy to judge)" "$T/noisy/index.md"
expect_err gate-8.6 "NO VERDICT: the gate found the night too noisy to judge"

# make nightly twice on one day: the second night is the day's tag .2,
# compared with the first (not 12 rounds added to one tag and "the first
# night"), a third .3 with the second
export FGOBENCH_DB="$T/twice.db"
for n in 1 2 3; do
	NIGHTLY_TAG=day-x NIGHTLY_SPEC=tests/e2e/tiny.json NIGHTLY_ROUNDS=1 NIGHTLY_THRESHOLD=100000 \
		NIGHTLY_REPORTS="$T/twice" expect_exit "gate-9.$n" 0 sh tests/nightly.sh
done
expect_eq gate-9.4 "day-x:1 day-x.2:1 day-x.3:1" \
	"$(sql "select group_concat(tag || ':' || n, ' ') from (select tag, count(*) as n from sweeps group by tag order by min(id))")"
check gate-9.5 "the second night compared with the first" \
	grep -q "Compared with the sweeps tagged day-x: .* judged by the nightly gate" "$T/twice/day-x.2/index.md"
check gate-9.6 "the third with the second" \
	grep -q "Compared with the sweeps tagged day-x.2: " "$T/twice/day-x.3/index.md"
expect_err gate-9.7 "sweeps tagged day-x are stored already: this night is day-x.3"
check gate-9.8 "nothing says first night" sh -c "[ -f '$T/twice/day-x.2/index.md' ] && ! grep -q 'first night' '$T/twice/day-x.2/index.md'"
