# 96_egress.sh: sol's reachable link bound (issue 51): calibrate measures
# each W's egress, every rank writing to all its peers at once, and stores
# it per W; a run's sol is its bytes to all W - 1 peers at that rate when
# that is the longest bound, and says so when a run beats it.
. tests/e2e/lib.sh
ceil() { sql "select value from ceilings where what = 'link_bw' and detail = '$1' order by id desc limit 1"; }

# ---- measured: W = 2 on two ranks, W = 2..4 on four
expect_exit eg-1.1 0 mpi 2 calibrate --size 128 --no-curve --no-floor
check eg-1.2 "an egress at W=2 ($(ceil 'egress w=2'))" awk "BEGIN { exit !($(ceil 'egress w=2') + 0 > 0) }"
check eg-1.3 "its table" grep -q "link egress, GB/s a rank: every rank of W writes into all its" "$T/out"
check eg-1.4 "its summary line" grep -q "link_bw      egress .* GB/s a rank to all peers at once, W=2" "$T/out"
expect_exit eg-1.5 0 mpi 4 calibrate --size 128 --no-curve --no-floor
expect_eq eg-1.6 "egress w=2 egress w=3 egress w=4" "$(sql "select group_concat(detail, ' ') from (select distinct
	detail from ceilings where detail like 'egress%' and value > 0 order by detail)")"

# ---- sol against it: the peak and the pair made unreachable, so the
# egress is the longest bound; W=2 all_scatter, then W=4
run_one() { # W TAG: one run, its link_gbps and sol out
	"$FGO" run --algorithm all_scatter -m 128 -n 384 -k 64 --world "$1" --iterations 3 --warmup 1 \
		--tag "$2" >/dev/null 2>&1
}
sql "update ceilings set value = 1e9 where what = 'matrix_peak' or (what = 'link_bw' and detail = '')"
sql "update ceilings set value = 1e9 where detail like 'egress%'"
run_one 2 probe
L=$(sql "select link_gbps from runs order by id desc limit 1")
check eg-2.1 "the probe moved bytes ($L GB/s)" awk "BEGIN { exit !($L + 0 > 0) }"
# an egress 20x the probe's rate: sol about 1/20, exactly (W-1) x rate / egress
E=$(awk "BEGIN { printf \"%.6g\", 20 * $L }")
sql "insert into ceilings (machine, backend, what, dtype, value, unit, measured_at, detail)
	select machine, backend, 'link_bw', '', $E, 'GB/s', '2999-01-01T00:00:00Z', 'egress w=2'
	from ceilings limit 1"
run_one 2 egress
expect_eq eg-2.2 ok "$(sql "select case when abs(sol - link_gbps / $E) <= 1e-9 * sol then 'ok'
	when sol is null and reason like '%link egress at W=2%' then 'ok' else sol || ' ' || link_gbps end
	from runs order by id desc limit 1")"
# at W=4 the bytes to three peers count
sql "insert into ceilings (machine, backend, what, dtype, value, unit, measured_at, detail)
	select machine, backend, 'link_bw', '', $E, 'GB/s', '2999-01-01T00:00:00Z', 'egress w=4'
	from ceilings limit 1"
run_one 4 egress4
expect_eq eg-2.3 ok "$(sql "select case when abs(sol - 3 * link_gbps / $E) <= 1e-9 * sol then 'ok'
	when sol is null and reason like '%link egress at W=4%' then 'ok' else sol || ' ' || link_gbps end
	from runs order by id desc limit 1")"
# an egress no run can be below: sol unknown, and the run says which ceiling
sql "insert into ceilings (machine, backend, what, dtype, value, unit, measured_at, detail)
	select machine, backend, 'link_bw', '', 1e-9, 'GB/s', '2999-01-02T00:00:00Z', 'egress w=2'
	from ceilings limit 1"
run_one 2 below
expect_eq eg-2.4 "1" "$(sql "select count(*) from runs where id = (select max(id) from runs) and sol is null
	and reason like '%sol unavailable: the calibrated link egress at W=2 of 1e-09 GB/s is below this run%'")"
# and without an egress row for its W, the pair's bound as before (W=3: none stored)
sql "delete from ceilings where detail = 'egress w=3'"
run_one 3 no-egress
expect_eq eg-2.5 "1" "$(sql "select count(*) from runs where id = (select max(id) from runs) and sol > 0
	and sol < 1e-3")"
