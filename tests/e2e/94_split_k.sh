# 94_split_k.sh: the split_k tunable on the CPU backend (the schedule of
# kernels/schedule.h, sched_splitk_range, which the GPU's split-K walk
# follows): every family with a split-K form (all but sk_*) validates on
# ragged shapes for split_k 1..5; a family without one, and a split_k past K's BLK_K
# slices, are refused with the reason; split_k is in the key (only when
# not 1), the store, the best table and the reproduce line; `run
# --split_k` takes it.
. tests/e2e/lib.sh

spec=tests/e2e/split_k.json
"$FGO" sweep $spec --dry-run --format csv >"$T/plan.csv" 2>/dev/null
planned=$(tail -n +2 "$T/plan.csv" | grep -c ',yes,')
check sk-1.1 "the spec plans split runs ($planned)" [ "$planned" -ge 70 ]
check sk-1.2 "a family without split-K is refused with the reason" \
	grep -q 'sk_all_reduce has no split-K form (split_k=2 must be 1)' "$T/plan.csv"
check sk-1.3 "split_k past K's slices is refused with the limit" \
	grep -q 'split_k=3 exceeds the 2 BLK_K slices of K=64 (use split_k <= 2)' "$T/plan.csv"

expect_exit sk-2.1 0 mpi 2 sweep $spec --tag split --quiet
expect_eq sk-2.2 "$planned" "$(sql "select count(*) from runs where status = 'ok' and validated = 1")"
for s in 2 3 4 5; do
	check "sk-2.3.$s" "split_k=$s ran and validated" \
		[ "$(sql "select count(*) from runs where status = 'ok' and split_k = $s")" -ge 1 ]
done
expect_eq sk-2.4 "all_gather_gemm_pull all_gather_gemm_push all_reduce_one_shot all_reduce_two_shot all_scatter gemm reduce_scatter" \
	"$(sql "select group_concat(algorithm, ' ') from (select distinct algorithm from runs
		where status = 'ok' and split_k > 1 order by algorithm)")"
# the key names the split only when there is one
expect_eq sk-2.5 0 "$(sql "select count(*) from runs where (split_k = 1) = (config_key like '%/sk%')")"
# M = 1 with split K: the smallest case still right
check sk-2.6 "M=1 split 5 ways validated" \
	[ "$(sql "select count(*) from runs where m = 1 and split_k = 5 and status = 'ok'")" -ge 1 ]

expect_exit sk-3.1 0 "$FGO" best --top 20 --format csv
check sk-3.2 "the best table and its reproduce line show a split" grep -q -- '--split_k [2-5]' "$T/out"
expect_exit sk-3.3 0 mpi 2 run --algorithm gemm --world 1 --dtype bf16 -m 33 -n 96 -k 250 \
	--BLK_M 32 --BLK_N 32 --BLK_K 16 --split_k 4 --iterations 2 --warmup 0
check sk-3.4 "run --split_k is stored split and validated ok" sh -c \
	"grep -q '^config_key .*/sk4\$' '$T/out' && grep -q '^status  *ok\$' '$T/out' &&
	 grep -q '^validated  *1\$' '$T/out'"
expect_exit sk-3.5 2 "$FGO" run --algorithm gemm --world 1 -m 64 -n 64 -k 64 --split_k 0
expect_exit sk-3.6 2 "$FGO" run --algorithm gemm --world 1 -m 64 -n 64 -k 64 --split_k 9999
