# 93_problems.sh: the work a problem's configurations share (issue 22), on
# the CPU backend: the runs of one problem (algorithm, dtype, world, M, N,
# K) run back to back on a group and share one seed, one reference and one
# baseline, stored once in problems (baseline samples in problem_samples)
# and referenced by every run; every element of every output is checked
# against the reference, so a planted wrong element anywhere is a mismatch
# that names it; a wrong reference fails every run of its problem with the
# reason while the other problems still run; phase times are stored and
# the sweep says where the time went.
. tests/e2e/lib.sh

spec=tests/e2e/tiny.json
planned=$("$FGO" sweep $spec --dry-run --format csv 2>/dev/null | tail -n +2 | grep -c ',yes,')
problems=$("$FGO" sweep $spec --dry-run --format csv 2>/dev/null | tail -n +2 | grep ',yes,' |
	awk -F, '{ print $2 "," $3 "," $4 "," $5 "," $6 "," $7 }' | sort -u | wc -l)

expect_exit prob-1.1 0 mpi 2 sweep $spec --tag shared
expect_eq prob-1.2 "$planned" "$(sql "select count(*) from runs where status = 'ok'")"
expect_eq prob-1.3 "$problems" "$(sql "select count(*) from problems")"
# every run references its own problem
expect_eq prob-1.4 0 "$(sql "select count(*) from runs r left join problems p on p.id = r.problem_id
	where p.id is null or p.algorithm != r.algorithm or p.dtype != r.dtype or p.world != r.world
	or p.m != r.m or p.n != r.n or p.k != r.k")"
# the reference was checked on the host, the baseline measured once per problem
expect_eq prob-1.5 0 "$(sql "select count(*) from problems where check_method != 'reference'
	or reference_checked < 1 or t_baseline_ms is null")"
expect_eq prob-1.6 "$((problems * 8))" "$(sql "select count(*) from problem_samples where kind = 'baseline'")"
expect_eq prob-1.7 0 "$(sql "select count(*) from samples where kind = 'baseline'")"
# each run shows its problem's baseline
expect_eq prob-1.8 0 "$(sql "select count(*) from runs r join problems p on p.id = r.problem_id
	where r.t_baseline_ms is null or abs(r.t_baseline_ms - p.t_baseline_ms) > 1e-12")"
# the phases of every run are stored; the problem's work is in one run per problem and group
expect_eq prob-1.9 0 "$(sql "select count(*) from runs where load_s is null or validate_s is null
	or time_s is null or store_s is null or store_s < 0")"
check prob-1.10 "one run per problem measured the baseline" \
	[ "$(sql "select count(*) from runs where baseline_s > 0")" = "$problems" ]
expect_err prob-1.11 "where the time went: $planned runs in"
expect_err prob-1.12 "runs/s; load "
# the configurations of a problem ran back to back (ids are given as each
# problem starts): per problem the run ids are consecutive
expect_eq prob-1.13 0 "$(sql "select count(*) from (select problem_id, max(id) - min(id) + 1 as span,
	count(*) as n from runs group by problem_id) where span != n")"

# a planted wrong element: every run whose rank holds C[5][7] is a mismatch naming it
FGOBENCH_PLANT_WRONG=5,7 expect_exit prob-2.1 1 mpi 2 sweep $spec --tag planted
sid=$(sql "select id from sweeps where tag = 'planted'")
expect_eq prob-2.2 "$planned" "$(sql "select count(*) from runs where sweep_id = $sid and status = 'mismatch'")"
expect_eq prob-2.3 "$planned" "$(sql "select count(*) from runs where sweep_id = $sid and reason like '%first at C[5][7];%'")"
expect_eq prob-2.4 0 "$(sql "select count(*) from runs where sweep_id = $sid and reason not like '1 of %'")"
# the element at the far corner is found too (whole outputs are checked, not samples)
FGOBENCH_PLANT_WRONG=127,63 expect_exit prob-2.5 1 mpi 2 sweep $spec --tag corner
sid=$(sql "select id from sweeps where tag = 'corner'")
expect_eq prob-2.6 4 "$(sql "select count(*) from runs where sweep_id = $sid and status = 'mismatch' and reason like '%first at C[127][63];%'")"
expect_eq prob-2.7 "$((planned - 4))" "$(sql "select count(*) from runs where sweep_id = $sid and status = 'ok'")"

# a wrong reference fails every run of its problem, and the sweep goes on
FGOBENCH_PLANT_WRONG_REFERENCE=0,0 expect_exit prob-3.1 1 mpi 2 sweep $spec --tag badref
sid=$(sql "select id from sweeps where tag = 'badref'")
expect_eq prob-3.2 "$planned" "$(sql "select count(*) from runs where sweep_id = $sid and status = 'failed'
	and reason like 'the reference of this problem is wrong: 1 of % first at C[0][0]%'")"
expect_eq prob-3.3 done "$(sql "select status from sweeps where id = $sid")"
expect_err prob-3.4 "$planned failed"

# the inputs are the problem's: a second sweep of the same problems gets the same seeds
expect_eq prob-4.1 1 "$(sql "select count(distinct seed) from problems where algorithm = 'gemm'")"
expect_eq prob-4.2 "$problems" "$(sql "select count(distinct seed || algorithm) from problems")"
