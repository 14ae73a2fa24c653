# 20_regress.sh: regress on the same data (exit 0) and on a copy whose
# samples for one configuration were made 2x slower in SQL (exit 1, exactly
# that configuration reported, JUnit lists it).
# (2x, not a few percent: on a loaded CI machine the 12 CPU samples of one
# configuration can spread by tens of percent, and the U test rightly says
# "not significant" then. So the real sweep's fused samples are replaced by
# its median times a small fixed wobble, as 85_report.sh does: the verdicts
# below depend on the data the test makes, never on the machine's load.)
. tests/e2e/lib.sh

expect_exit regress-1.1 0 mpi 2 sweep tests/e2e/tiny.json --tag base --quiet --iterations 12
sql "UPDATE samples SET ms = (SELECT t_fused_ms FROM runs WHERE runs.id = samples.run_id)
	* (1 + ((iteration * 7) % 5 - 2) / 200.0) WHERE kind = 'fused'"
cp "$FGOBENCH_DB" "$T/head.db"
sqlite3 "$T/head.db" "update sweeps set tag = 'head'"

expect_exit regress-1.2 0 "$FGO" regress --base-db "$FGOBENCH_DB" --base base --head head --db "$T/head.db"
check regress-1.3 "no regression on the same data" sh -c "! grep -q regression '$T/out' || grep -q '0 regressions' '$T/err'"

victim=$(sql "select id from runs where algorithm = 'all_scatter' order by id limit 1" "$T/head.db")
key=$(sql "select config_key from runs where id = $victim" "$T/head.db")
sqlite3 "$T/head.db" "update samples set ms = ms * 2 where run_id = $victim; update runs set t_fused_ms = t_fused_ms * 2 where id = $victim"
expect_exit regress-1.4 1 "$FGO" regress --base-db "$FGOBENCH_DB" --base base --head head --db "$T/head.db" \
	--format csv --junit "$T/junit.xml"
expect_eq regress-1.5 1 "$(grep -c ',regression' "$T/out")"
expect_err regress-1.6 "1 regression"
check regress-1.7 "JUnit has one failure" grep -q 'failures="1"' "$T/junit.xml"
expect_eq regress-1.8 "$(sql "select count(*) from runs where status = 'ok'")" "$(grep -c '<testcase' "$T/junit.xml")"

# a 2% change is below the 5% threshold
cp "$FGOBENCH_DB" "$T/small.db"
sqlite3 "$T/small.db" "update sweeps set tag = 'head'; update samples set ms = ms * 1.02 where run_id = $victim"
expect_exit regress-1.9 0 "$FGO" regress --base-db "$FGOBENCH_DB" --base base --head head --db "$T/small.db"
