# 95_walk.sh: every family on the CPU backend walks the one schedule of
# kernels/schedule.h (kit_walk_run): data-parallel, split-K (split_k 2, 3)
# and data-parallel + Stream-K (gemm_sms 3, 5, 7; every tile Stream-K in
# the sk_* families, with comm CTAs and without), on ragged shapes, world 1
# and 2, every run validated
# against the reference. Refused with the reason: split_k with gemm_sms > 0
# (one walk or the other), split_k on an sk_* family, gemm_sms = 0 on one,
# split_k past the BLK_K slices of a K-sharded family's K/W. Deterministic
# sums (split-K and Stream-K, their slots added in a fixed order) run,
# validate twice and key apart; refused where the walk has no partial sums.
# Clusters (cluster 2, 4: CTAs stacked along M walk a tile column in step,
# ghosts past the last tile row; with split_k = cluster the CTAs are a
# tile's K slices) run every family but the sk_* ones and validate; refused
# with Stream-K and with split_k > 1 of another size.
. tests/e2e/lib.sh

spec=tests/e2e/walk.json
families="all_gather_gemm_pull all_gather_gemm_push all_reduce_one_shot all_reduce_two_shot all_scatter gemm reduce_scatter"
"$FGO" sweep $spec --dry-run --format csv >"$T/plan.csv" 2>/dev/null
planned=$(tail -n +2 "$T/plan.csv" | grep -c ',yes,')
check walk-1.1 "the spec plans the runs of every walk ($planned)" [ "$planned" -ge 300 ]
check walk-1.2 "split_k with gemm_sms > 0 is refused: pick one" \
	grep -q 'split_k=2 and gemm_sms=3: pick one walk, split-K (gemm_sms=0) or data-parallel + Stream-K over gemm_sms CTAs (split_k=1)' "$T/plan.csv"
check walk-1.3 "split_k on an sk_* family is refused" \
	grep -q 'sk_all_reduce has no split-K form (split_k=3 must be 1): its walk is Stream-K over gemm_sms CTAs' "$T/plan.csv"
check walk-1.4 "split_k past the slices of K/W is refused with the limit" \
	grep -q 'split_k=2 exceeds the 1 BLK_K slices of K/W=32 (use split_k <= 1)' "$T/plan.csv"

expect_exit walk-2.1 0 mpi 2 sweep $spec --tag walk --quiet
expect_eq walk-2.2 "$planned" "$(sql "select count(*) from runs where status = 'ok' and validated = 1")"
expect_eq walk-2.3 0 "$(sql "select count(*) from runs where status not in ('ok', 'invalid')")"
# every walk of every family ran and validated, world 1 and 2
for a in $families; do
	for w in 1 2; do
		expect_eq "walk-3.$a.w$w" "1/0 1/3 1/5 1/7 2/0 3/0" "$(sql "select group_concat(v, ' ') from
			(select distinct split_k || '/' || gemm_sms as v from runs where algorithm = '$a'
			 and world = $w and status = 'ok' and validated = 1 and cluster = 1
			 order by split_k, gemm_sms)")"
	done
	check "walk-3.$a.m1000" "$a ran M=1000 Stream-K and split" [ "$(sql "select count(*) from runs
		where algorithm = '$a' and m = 1000 and status = 'ok' and (split_k = 3 or gemm_sms = 7)")" -ge 2 ]
done
for a in sk_all_scatter sk_all_reduce; do
	for w in 1 2; do
		expect_eq "walk-3.$a.w$w" "1/3 1/5 1/7" "$(sql "select group_concat(v, ' ') from
			(select distinct split_k || '/' || gemm_sms as v from runs where algorithm = '$a'
			 and world = $w and status = 'ok' and validated = 1 order by split_k, gemm_sms)")"
	done
done

# the sk_* forms without comm CTAs (comm_sms 0): the CTA that ends a tile
# sends (sk_all_scatter) or sums (sk_all_reduce) it; every shape, both worlds
for a in sk_all_scatter sk_all_reduce; do
	expect_eq "walk-3.$a.comm0" 16 "$(sql "select count(*) from runs where algorithm = '$a'
		and comm_sms = 0 and gemm_sms in (3, 7) and split_k = 1 and deterministic = 0
		and status = 'ok' and validated = 1")"
done

# the refused ones are stored invalid, each with its reason
expect_eq walk-4.1 0 "$(sql "select count(*) from runs where status = 'invalid' and (reason is null or reason = '')")"
expect_eq walk-4.2 "$(sql "select count(*) from runs where split_k > 1 and gemm_sms > 0 and algorithm not like 'sk_%'")" \
	"$(sql "select count(*) from runs where status = 'invalid' and reason like '%: pick one walk, split-K%'")"
expect_eq walk-4.3 "$(sql "select count(*) from runs where split_k > 1 and algorithm like 'sk_%'")" \
	"$(sql "select count(*) from runs where status = 'invalid' and reason like '% has no split-K form %'")"
expect_eq walk-4.4 "$(sql "select count(*) from runs where split_k = 1 and gemm_sms = 0 and algorithm like 'sk_%'")" \
	"$(sql "select count(*) from runs where status = 'invalid' and reason like '%needs gemm_sms >= 1, its Stream-K GEMM CTAs%'")"
expect_eq walk-4.5 1 "$(sql "select count(*) from runs where status = 'invalid' and reason like 'split_k=2 exceeds the 1 BLK_K slices of K/W=32%'")"

# deterministic sums: split-K and Stream-K (hybrid and pure) run and pass
# the second validated launch; a walk without partial sums is refused
expect_eq walk-5.1 10 "$(sql "select count(*) from runs where deterministic = 1 and status = 'ok' and validated = 1")"
expect_eq walk-5.2 4 "$(sql "select count(*) from runs where deterministic = 1 and status = 'invalid' and
	reason like 'deterministic=1 fixes the order of split-K or Stream-K partial sums; this walk has none%'")"
expect_eq walk-5.3 0 "$(sql "select count(*) from runs where deterministic = 1 and config_key not like '%/det'")"
expect_eq walk-5.4 0 "$(sql "select count(*) from runs where deterministic = 0 and config_key like '%/det%'")"
expect_exit walk-5.5 0 mpi 2 run --algorithm reduce_scatter --world 2 -m 34 -n 96 -k 200 --BLK_M 16 \
	--BLK_N 32 --BLK_K 16 --split_k 3 --deterministic 1
check walk-5.6 "run --deterministic 1 stores the run ok under the /det key" \
	[ "$(sql "select count(*) from runs where config_key like 'reduce_scatter/%/sk3/det' and status = 'ok'")" -ge 2 ]
"$FGO" best --algorithm reduce_scatter --world 2 -m 34 --reproduce >"$T/best.txt" 2>&1
# (its lines continued with " \\" joined, as a shell reads them)
check walk-5.7 "best's reproduce line carries --deterministic 1" \
	sh -c "sed -e ':a' -e '/\\\\\$/{N;s/ \\\\\\n */ /;ba' -e '}' '$T/best.txt' | grep -q -- '--split_k 3 --deterministic 1'"
expect_exit walk-5.8 2 "$FGO" run --algorithm gemm --world 1 -m 34 -n 96 -k 200 --deterministic 2

# clusters: the clustered walk of every family validates, keys apart, and
# is refused with Stream-K and where the size is not 1, 2, 4 or 8
expect_eq walk-6.1 "2/1 2/2 4/1 4/4" "$(sql "select group_concat(v, ' ') from (select distinct
	cluster || '/' || split_k as v from runs where cluster > 1 and status = 'ok' and validated = 1
	and algorithm = 'all_scatter' and world = 2 order by cluster, split_k)")"
for a in $families; do
	expect_eq "walk-6.2.$a" 8 "$(sql "select count(*) from runs where algorithm = '$a' and cluster = 2
		and status = 'ok' and validated = 1")"
done
expect_eq walk-6.3 0 "$(sql "select count(*) from runs where cluster > 1 and config_key not like '%/cl' || cluster")"
expect_eq walk-6.4 1 "$(sql "select count(*) from runs where status = 'invalid' and
	reason like 'cluster=2 and gemm_sms=5: a cluster''s CTAs walk whole tiles or split-K slices together%'")"
expect_exit walk-6.5 0 mpi 2 run --algorithm reduce_scatter --world 2 -m 36 -n 96 -k 200 --BLK_M 16 \
	--BLK_N 32 --BLK_K 16 --split_k 2 --cluster 2
"$FGO" best --algorithm reduce_scatter --world 2 -m 36 --reproduce >"$T/best-cl.txt" 2>&1
check walk-6.6 "best's reproduce line carries --cluster 2" \
	sh -c "sed -e ':a' -e '/\\\\\$/{N;s/ \\\\\\n */ /;ba' -e '}' '$T/best-cl.txt' | grep -q -- '--split_k 2 --cluster 2'"
expect_exit walk-6.7 2 "$FGO" run --algorithm gemm --world 1 -m 34 -n 96 -k 200 --cluster 3
expect_eq walk-6.8 1 "$(sql "select count(*) from runs where status = 'invalid' and
	reason like 'split_k=3 and cluster=2: with split_k > 1 a cluster holds the K slices of one tile%'")"

# reduce_scatter where M/W rows are fewer than a tile's: a tile holds the
# row blocks of 2 or 4 owners (sched_owner_group) and sends each its rows;
# every walk validates at world 2 and 4, and a tile longer than the blocks
# it can hold is refused with the rows it would hold
rs=tests/e2e/rs_groups.json
export FGOBENCH_DB="$T/rs.db"
expect_exit walk-7.1 0 mpi 4 sweep $rs --tag rs-groups --quiet --timeout 2
rs_sql() { sqlite3 "$T/rs.db" "$1"; }
expect_eq walk-7.2 0 "$(rs_sql "select count(*) from runs where status not in ('ok', 'invalid') or (status = 'ok' and validated != 1)")"
# world 4, M = 32 (8 rows an owner): a tile of 16 rows holds 2 owners, of 32 all 4;
# M = 8: the 4 owners' 2 rows each in 16 (32 refused, 7.7)
expect_eq walk-7.3 "8/16 32/16 32/32 40/16 40/32 64/16 64/32 128/16 128/32" "$(rs_sql "select group_concat(v, ' ') from
	(select distinct m || '/' || blk_m as v from runs where world = 4 and status = 'ok' and split_k = 2 order by m, blk_m)")"
expect_eq walk-7.4 "1/0 1/3 1/5 2/0 3/0" "$(rs_sql "select group_concat(v, ' ') from (select distinct
	split_k || '/' || gemm_sms as v from runs where world = 4 and m = 8 and status = 'ok' order by split_k, gemm_sms)")"
expect_eq walk-7.5 1 "$(rs_sql "select count(*) from runs where deterministic = 1 and status = 'ok' and validated = 1")"
expect_eq walk-7.6 4 "$(rs_sql "select count(*) from runs where cluster = 2 and status = 'ok' and validated = 1")"
check walk-7.7 "a tile longer than the owners' blocks it holds is refused with their rows" \
	[ "$(rs_sql "select count(*) from runs where status = 'invalid' and m = 8 and blk_m = 32 and
		reason like 'BLK_M=32 exceeds M=8 (use BLK_M <= 16)%'")" -ge 1 ]

# sk_all_reduce is two-shot from W = 3 on for a C past SCHED_SK_TWO_SHOT's
# line (each tile summed once, on its owner, and pushed to every rank; here
# 1024 x 800), one-shot below it and at W = 2: every rank's whole C
# validated at W = 2, 3 and 4, every walk and split of CTAs (a push left
# out fails the 1024-row shape at W = 3 and 4)
sk=tests/e2e/sk_two_shot.json
export FGOBENCH_DB="$T/sk.db"
expect_exit walk-8.1 0 mpi 4 sweep $sk --tag sk-two-shot --quiet --timeout 2
sk_sql() { sqlite3 "$T/sk.db" "$1"; }
expect_eq walk-8.2 0 "$(sk_sql "select count(*) from runs where status != 'ok' or validated != 1")"
expect_eq walk-8.3 "2:24 3:32 4:32" "$(sk_sql "select group_concat(v, ' ') from
	(select world || ':' || count(*) as v from runs group by world order by world)")"

# a Stream-K form whose spec gives neither gemm_sms nor comm_sms takes the
# device's compute units (the CPU's cores) and no communication CTAs, both
# in the plan (sms all+0, valid) and in the store; one that gives comm_sms
# alone is still refused for its gemm_sms
export FGOBENCH_DB="$T/units.db"
printf '%s\n' '{"name": "units", "world": 2, "m": 40, "n": 48, "k": 64, "BLK_M": 16, "BLK_N": 16, "BLK_K": 16,
 "blocks": [{"algorithm": ["sk_all_scatter", "sk_all_reduce"]}, {"algorithm": "sk_all_reduce", "comm_sms": 2}]}' >"$T/units.json"
"$FGO" sweep "$T/units.json" --dry-run --format csv >"$T/units.csv" 2>"$T/units.err"
expect_eq walk-9.1 "all+0,yes all+0,yes 0+2,no" "$(tail -n +2 "$T/units.csv" | cut -d, -f13,15 | tr '\n' ' ' | sed 's/ $//')"
check walk-9.2 "the dry run says where the CTAs come from" grep -q 'sms all+0: 2 Stream-K configurations without gemm_sms or comm_sms' "$T/units.err"
expect_exit walk-9.3 0 mpi 2 sweep "$T/units.json" --tag units --quiet
units_sql() { sqlite3 "$T/units.db" "$1"; }
cores=$(getconf _NPROCESSORS_ONLN)
expect_eq walk-9.4 "sk_all_reduce:$cores+0:ok:1 sk_all_scatter:$cores+0:ok:1" "$(units_sql "select group_concat(v, ' ') from
	(select algorithm || ':' || gemm_sms || '+' || comm_sms || ':' || status || ':' || validated as v
	 from runs where status = 'ok' order by algorithm)")"
expect_eq walk-9.5 1 "$(units_sql "select count(*) from runs where status = 'invalid' and comm_sms = 2 and
	reason like 'sk_all_reduce needs gemm_sms >= 1%'")"
