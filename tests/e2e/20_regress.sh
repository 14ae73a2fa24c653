# 20_regress.sh: regress on the same data (exit 0) and on a copy whose
# samples for one configuration were made 2x slower in SQL (exit 1, exactly
# that configuration reported, JUnit lists it); a change above the
# threshold whose samples overlap (exit 0: not significant); --alpha on
# either side of a pair's p.
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

# Above the threshold but not significant: the victim's median 15% slower,
# its samples spread over 0.6x-1.7x and overlapping the base's (the U test
# says "could be noise"): exit 0, verdict same, the change still shown.
cp "$FGOBENCH_DB" "$T/wide.db"
sqlite3 "$T/wide.db" "update sweeps set tag = 'head'; update samples set ms =
	(select t_fused_ms from runs where runs.id = samples.run_id) * (1.15 + (((iteration * 7) % 12) - 5.5) / 10.0)
	where run_id = $victim and kind = 'fused'"
expect_exit regress-2.1 0 "$FGO" regress --base-db "$FGOBENCH_DB" --base base --head head --db "$T/wide.db" --format csv
expect_eq regress-2.2 "$(($(grep -c . "$T/out") - 1))" "$(grep -c ',same$' "$T/out")"
check regress-2.3 "a change above the threshold is shown (+10% or more) yet same" \
	sh -c "grep '^all_scatter' '$T/out' | awk -F, '\$(NF-2) > 10 && \$NF == \"same\"' | grep -q ."

# --alpha: the victim 10% slower with a spread of +-14%: its p lies between
# what alpha lets through and what it does not; read p, then ask both sides
sqlite3 "$T/wide.db" "update samples set ms =
	(select t_fused_ms from runs where runs.id = samples.run_id) * (1.10 + (((iteration * 7) % 12) - 5.5) / 40.0)
	where run_id = $victim and kind = 'fused'"
"$FGO" regress --base-db "$FGOBENCH_DB" --base base --head head --db "$T/wide.db" --format csv --alpha 1 > "$T/alpha.csv" 2>/dev/null
p=$(awk -F, '$NF == "regression" { print $(NF-1) }' "$T/alpha.csv" | head -1)
check regress-3.1 "alpha 1 makes the 10% slower victim a regression with p < 1 (p=$p)" \
	awk -v p="$p" 'BEGIN { exit !(p > 0 && p < 0.5) }'
expect_exit regress-3.2 1 "$FGO" regress --base-db "$FGOBENCH_DB" --base base --head head --db "$T/wide.db" \
	--alpha "$(awk -v p="$p" 'BEGIN { print p * 1.5 }')"
expect_exit regress-3.3 0 "$FGO" regress --base-db "$FGOBENCH_DB" --base base --head head --db "$T/wide.db" \
	--alpha "$(awk -v p="$p" 'BEGIN { print p / 1.5 }')"
expect_err regress-3.4 "0 regressions"

# The faster side, as the slower one above (issue 52: an improvement that
# no longer needed p < alpha went unseen). The victim's median 15% faster,
# its samples spread over 0.3x-1.4x of its time and overlapping the base's:
# same, the change still shown; then 10% faster with a spread of +-14%:
# --alpha on either side of its p makes it an improvement or not.
sqlite3 "$T/wide.db" "update samples set ms =
	(select t_fused_ms from runs where runs.id = samples.run_id) * (0.85 + (((iteration * 7) % 12) - 5.5) / 10.0)
	where run_id = $victim and kind = 'fused'"
expect_exit regress-4.1 0 "$FGO" regress --base-db "$FGOBENCH_DB" --base base --head head --db "$T/wide.db" --format csv
expect_eq regress-4.2 "0 improvements" "$(grep -o '[0-9]* improvements\?' "$T/err" | head -1)"
check regress-4.3 "a change beyond -10% is shown yet same: $(awk -F, '$(NF-2) < -10' "$T/out")" \
	sh -c "awk -F, '\$(NF-2) < -10 && \$NF == \"same\"' '$T/out' | grep -q ."
sqlite3 "$T/wide.db" "update samples set ms =
	(select t_fused_ms from runs where runs.id = samples.run_id) * (0.90 + (((iteration * 7) % 12) - 5.5) / 40.0)
	where run_id = $victim and kind = 'fused'"
"$FGO" regress --base-db "$FGOBENCH_DB" --base base --head head --db "$T/wide.db" --format csv --alpha 1 > "$T/alpha.csv" 2>/dev/null
p=$(awk -F, '$NF == "improvement" { print $(NF-1) }' "$T/alpha.csv" | head -1)
check regress-4.4 "alpha 1 makes the 10% faster victim an improvement with p < 1 (p=$p)" \
	awk -v p="$p" 'BEGIN { exit !(p > 0 && p < 0.5) }'
expect_exit regress-4.5 0 "$FGO" regress --base-db "$FGOBENCH_DB" --base base --head head --db "$T/wide.db" \
	--format csv --alpha "$(awk -v p="$p" 'BEGIN { print p * 1.5 }')"
expect_eq regress-4.6 1 "$(grep -c ',improvement$' "$T/out")"
expect_exit regress-4.7 0 "$FGO" regress --base-db "$FGOBENCH_DB" --base base --head head --db "$T/wide.db" \
	--format csv --alpha "$(awk -v p="$p" 'BEGIN { print p / 1.5 }')"
expect_eq regress-4.8 0 "$(grep -c ',improvement$' "$T/out")"
