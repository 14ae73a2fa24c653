# 15_calibrate.sh: calibrate stores the ceilings, and runs after it get a sol.
. tests/e2e/lib.sh

expect_exit cal-1.1 0 mpi 2 calibrate --size 192
check cal-1.2 "matrix_peak rows for fp32, fp16, bf16" [ "$(sql "select count(distinct dtype) from ceilings where what = 'matrix_peak' and value > 0")" = 3 ]
check cal-1.3 "a link bandwidth, and the egress at W=2" [ "$(sql "select count(*) from ceilings where what = 'link_bw' and value > 0 and detail in ('', 'egress w=2')")" = 2 ]
check cal-1.4 "a memory bandwidth" [ "$(sql "select count(*) from ceilings where what = 'memory_bw' and value > 0")" = 1 ]
check cal-1.5 "printed the table" grep -q matrix_peak "$T/out"
expect_exit cal-1.6 0 mpi 2 sweep tests/e2e/tiny.json --quiet --iterations 2
# every ok run has a sol, or says why not: on a busy machine (CI runs tests
# side by side) calibrate can measure a peak that a later run beats
expect_eq cal-1.7 0 "$(sql "select count(*) from runs where status = 'ok' and (sol <= 0
	or (sol is null and reason not like '%sol unavailable: the calibrated % is below this run%'))")"
check cal-1.7b "most ok runs have a sol in (0, 1]" [ "$(sql "select 2 * sum(sol > 0 and sol <= 1) >= count(*)
	from runs where status = 'ok'")" = 1 ]
# a ceiling below what the runs reach is the ceiling's error (issue 50: sol up
# to 2.01 read as broken): sol stays unknown, and the run says why
sql "update ceilings set value = value * 1e-6 where what = 'matrix_peak'"
expect_exit cal-1.8 0 mpi 2 sweep tests/e2e/tiny.json --quiet --iterations 2 --tag low-peak
expect_eq cal-1.9 "0 0" "$(sql "select count(*), sum(sol > 1) from runs where sol > 1" | tr '|' ' ' | sed 's/ $/ 0/')"
expect_eq cal-1.10 0 "$(sql "select count(*) from runs r join sweeps s on s.id = r.sweep_id
	where s.tag = 'low-peak' and r.status = 'ok' and (r.sol is not null
	or r.reason not like '%sol unavailable: the calibrated % peak of % TFLOP/s is below this run%')")"
expect_exit info-1.1 0 mpi 1 info
check info-1.2 "lists the algorithms" grep -q all_gather_gemm_push "$T/out"
check info-1.3 "describes the CPU backend" grep -q "backend cpu" "$T/out"
