# 97_cli.sh: the command line as a newcomer meets it (issue 24): every
# command that takes a shape takes -m N and --m N alike (and -n, -k), and its
# --help and man page say so; `best`'s table fits 120 columns, with and
# without a read floor, its reproduce lines under it with --reproduce and
# csv/json keeping every column; an algorithm is taken in any case, with -
# for _, in the field's short names where they name one, and a family name
# lists its algorithms, on flags, spec keys, dataset columns and filters
# alike, the registered name being what is stored.
. tests/e2e/lib.sh

# ---- 1. shape flags: -m and --m everywhere a shape is taken
for c in run sweep compile tune best history; do
	"$FGO" $c --help >"$T/help" 2>&1
	check "cli-1.1-$c" "$c --help names -m and --m" sh -c "grep -qE -- '(^|[ [(])-m M' '$T/help' && grep -q -- '--m M' '$T/help'"
	check "cli-1.2-$c" "man/fgobench-$c.1 names -m and --m" \
		sh -c "sed 's/\\\\-/-/g' man/fgobench-$c.1 | grep -q -- '--m M' && sed 's/\\\\-/-/g' man/fgobench-$c.1 | grep -qE -- '(^|[ [(])-m M'"
done
R="--algorithm all_scatter --BLK_M 32 --BLK_N 32 --BLK_K 32 --iterations 2 --warmup 0"
expect_exit cli-1.3 0 mpi 2 run $R -m 64 -n 64 -k 96 --tag short
expect_exit cli-1.4 0 mpi 2 run $R --m 64 --n 64 --k 96 --tag long
expect_exit cli-1.5 0 mpi 2 run $R --m=64 --n=64 --k=96 --tag eq
expect_eq cli-1.6 "64x64x96 64x64x96 64x64x96" \
	"$(sql "select group_concat(r.m || 'x' || r.n || 'x' || r.k, ' ') from runs r join sweeps s
		on s.id = r.sweep_id where s.tag in ('short', 'long', 'eq') and r.status = 'ok'")"
expect_exit cli-1.7 2 mpi 2 run $R --m 0 -n 32 -k 32
expect_err cli-1.8 '--m expects an integer between 1 and'
"$FGO" sweep tests/e2e/tiny.json --dry-run --format csv -m 256 >"$T/short.csv" 2>/dev/null
"$FGO" sweep tests/e2e/tiny.json --dry-run --format csv --m 256 >"$T/long.csv" 2>/dev/null
check cli-1.9 "sweep: --m overrides the spec as -m does" cmp -s "$T/short.csv" "$T/long.csv"
check cli-1.10 "sweep: --m 256 reached the plan" grep -q ',256,' "$T/long.csv"
expect_exit cli-1.11 2 "$FGO" compile tests/e2e/tiny.json --k 0
expect_err cli-1.12 '--k expects an integer between 1 and'
TU="--algorithm all_scatter --space tests/e2e/tiny.json --dry-run --format csv"
"$FGO" tune $TU -m 64 -n 64 -k 64 >"$T/tshort" 2>/dev/null
"$FGO" tune $TU --m 64 --n 64 --k 64 >"$T/tlong" 2>/dev/null
check cli-1.13 "tune: --m --n --k as -m -n -k" sh -c "[ -s '$T/tshort' ] && cmp -s '$T/tshort' '$T/tlong'"
"$FGO" best --m 64 --k 96 >"$T/bl" 2>/dev/null
"$FGO" best -m 64 -k 96 >"$T/bs" 2>/dev/null
check cli-1.14 "best: -m -n as --m --n" sh -c "grep -q 64x64x96 '$T/bl' && cmp -s '$T/bl' '$T/bs'"
H="--algorithm all_scatter --no-plot --format csv --config 32x32x32"
expect_exit cli-1.15 0 "$FGO" history $H --shape 64,64,96
cp "$T/out" "$T/hshape"
expect_exit cli-1.16 0 "$FGO" history $H -m 64 --n 64 -k 96
check cli-1.17 "history: -m --n -k as --shape" cmp -s "$T/hshape" "$T/out"
expect_exit cli-1.18 2 "$FGO" history $H -m 64 -n 64
expect_err cli-1.19 '-m, -n and -k go together'

# ---- 2. best fits 120 columns
# widest ID FILE: every line of FILE at most 120 characters
widest() {
	w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$2")
	check "$1" "lines of at most 120 characters (widest $w)" [ "$w" -le 120 ]
}
expect_exit cli-2.1 0 mpi 2 sweep sweeps/smoke.json --tag smoke --quiet
"$FGO" best >"$T/best" 2>/dev/null
widest cli-2.2 "$T/best"
check cli-2.3 "the table has every problem (22 + 3 from run)" [ "$(wc -l <"$T/best")" -ge 24 ]
check cli-2.4 "no reproduce column in the table" sh -c "! grep -q 'reproduce\\|mpirun' '$T/best'"
"$FGO" best --m 512 >"$T/best512" 2>/dev/null
"$FGO" best --m 512 --format csv >"$T/best512.csv" 2>/dev/null
widest cli-2.5 "$T/best512"
check cli-2.6 "--m 512: the two gemm problems" [ "$(grep -c '^gemm ' "$T/best512")" = 2 ]
expect_exit cli-2.7 0 mpi 2 calibrate
"$FGO" best >"$T/bestf" 2>/dev/null
check cli-2.8 "x_floor shows once calibrated" grep -q x_floor "$T/bestf"
widest cli-2.9 "$T/bestf"
"$FGO" best --m 512 >"$T/bestf512" 2>/dev/null
widest cli-2.10 "$T/bestf512"
"$FGO" best --top 3 >"$T/best3" 2>/dev/null
widest cli-2.11 "$T/best3"
check cli-2.12 "# shows with --top 3" sh -c "head -1 '$T/best3' | grep -q ' # '"
# --reproduce: a line per row under the table, after the row's run id
"$FGO" best --m 512 --reproduce >"$T/rep" 2>/dev/null
rows=$(($(grep -c '^gemm ' "$T/rep")))
expect_eq cli-2.13 "$rows" "$(grep -c '^ *[0-9][0-9]*  mpirun -np [12] fgobench run --algorithm gemm ' "$T/rep")"
ids=$(grep '^gemm ' "$T/rep" | awk '{print $NF}' | tr '\n' ' ')
rids=$(grep 'mpirun' "$T/rep" | awk '{print $1}' | tr '\n' ' ')
expect_eq cli-2.14 "$ids" "$rids"
# the line runs as printed, its continuation lines (" \\") joined as a
# shell joins them (the binary under test for `fgobench`)
widest cli-2.14.1 "$T/rep"
line=$(sed -e ':a' -e '/\\$/{N;s/ \\\n */ /;ba' -e '}' "$T/rep" | grep 'mpirun -np 2' | head -1 |
	sed 's/^ *[0-9]*  //; s/ fgobench / /')
expect_exit cli-2.15 0 sh -c "${line%% run *} --oversubscribe '$FGO' run ${line#* run } --iterations 1 --warmup 0 --tag again"
expect_exit cli-2.16 2 "$FGO" best --reproduce --format csv
# csv and json keep every column, the config in full
"$FGO" best --format csv >"$T/b.csv" 2>/dev/null
expect_eq cli-2.17 "algorithm,dtype,world,M,N,K,#,config,ms,TFLOPS,speedup,floor_us,x_floor,gap %,tried,run,reproduce" \
	"$(head -1 "$T/b.csv")"
check cli-2.18 "csv: the full config and the reproduce line" \
	grep -qE ',[0-9]+x64x32 s2 w4 g8 sm0\+0,.*,mpirun -np 1 fgobench run --algorithm gemm ' "$T/b.csv"
"$FGO" best --format json --m 512 >"$T/b.json" 2>/dev/null
check cli-2.19 "json: reproduce and floor_us keys" sh -c "grep -q '\"reproduce\": \"mpirun' '$T/b.json' && grep -q '\"floor_us\"' '$T/b.json'"
# the table's brief config is one history takes
# (the csv of the same moment: the run of cli-2.15 may have changed the winner since)
tile=$(awk -F, '$1 == "gemm" && $3 == 2 && $4 == 512 { print $8 }' "$T/best512.csv")
brief=${tile%% s2 w4 g8 sm0+0}
check cli-2.20 "brief config in the table (\"$tile\" as \"$brief\")" \
	sh -c "[ -n '$brief' ] && [ '$brief' != '$tile' ] && grep -q '^gemm .* 2  512x256x256  $brief  ' '$T/best512'"
expect_exit cli-2.21 0 "$FGO" history --shape 512,256,256 --algorithm gemm --world 2 --spec smoke \
	--config "$brief" --no-plot

# ---- 3. algorithm names
# (all_reduce is the one family run and sweep choose in: 96_all_reduce.sh)
expect_exit cli-3.1 2 mpi 2 run --algorithm all_gather_gemm -m 64 -n 64 -k 64
expect_err cli-3.2 'ambiguous algorithm "all_gather_gemm" (give one of all_gather_gemm_pull, all_gather_gemm_push)'
check cli-3.3 "no sk_all_reduce guess" sh -c "! grep -q sk_all_reduce '$T/err'"
expect_exit cli-3.4 2 mpi 2 run --algorithm all_gather_gemm -m 64 -n 64 -k 64
expect_err cli-3.5 'all_gather_gemm_pull, all_gather_gemm_push)'
expect_exit cli-3.6 0 mpi 2 run $R --algorithm All-Reduce-One-Shot -m 64 -n 64 -k 64 --tag names
expect_exit cli-3.7 0 mpi 2 run $R --algorithm gemm_rs -m 64 -n 64 -k 64 --tag names
expect_exit cli-3.8 0 mpi 2 run $R --algorithm AG_GEMM_PUSH -m 64 -n 64 -k 64 --tag names
expect_eq cli-3.9 "all_gather_gemm_push all_reduce_one_shot reduce_scatter" \
	"$(sql "select group_concat(algorithm, ' ') from (select r.algorithm from runs r join sweeps s
		on s.id = r.sweep_id where s.tag = 'names' order by r.algorithm)")"
check cli-3.10 "run's stored command line names the registered algorithm" \
	[ "$(sql "select count(*) from sweeps where tag = 'names' and command_line like '%--algorithm reduce_scatter %'")" = 1 ]
# spec key and dataset column
printf '{"name": "names", "algorithm": ["gemm-rs", "Stream-K-All-Reduce", "ag_gemm_pull"],\n "world": 2, "M": 64, "N": 64, "K": 64, "BLK_M": 32, "BLK_N": 32, "BLK_K": 32, "gemm_sms": 3}\n' >"$T/names.json"
"$FGO" sweep "$T/names.json" --dry-run --format csv >"$T/plan" 2>"$T/err"
expect_eq cli-3.11 "all_gather_gemm_pull reduce_scatter sk_all_reduce" \
	"$(tail -n +2 "$T/plan" | cut -d, -f2 | sort | tr '\n' ' ' | sed 's/ $//')"
printf '{"algorithm": "all_gather_gemm", "M": 64, "N": 64, "K": 64}\n' >"$T/family.json"
expect_exit cli-3.12 2 "$FGO" sweep "$T/family.json" --dry-run
expect_err cli-3.13 'family.json:1:15: ambiguous algorithm "all_gather_gemm" (give one of all_gather_gemm_pull, all_gather_gemm_push)'
printf 'm,n,k,algorithm\n64,64,64,gemm-as\n64,64,64,ALL_REDUCE_TWO_SHOT\n' >"$T/names.csv"
"$FGO" sweep "$T/names.csv" --dry-run --format csv --BLK_M 32 --BLK_N 32 --BLK_K 32 >"$T/plan" 2>"$T/err"
expect_eq cli-3.14 "all_reduce_two_shot all_scatter" \
	"$(tail -n +2 "$T/plan" | cut -d, -f2 | sort | tr '\n' ' ' | sed 's/ $//')"
printf 'm,n,k,algorithm\n64,64,64,ag_gemm\n' >"$T/family.csv"
expect_exit cli-3.15 2 "$FGO" sweep "$T/family.csv" --dry-run
expect_err cli-3.16 'family.csv:2:10: ambiguous algorithm "ag_gemm"'
# filters and tune
"$FGO" best --algorithm gemm-rs >"$T/f" 2>/dev/null
check cli-3.17 "best --algorithm gemm-rs: reduce_scatter rows only" \
	sh -c "[ \$(grep -c '^reduce_scatter ' '$T/f') -ge 2 ] && [ \$(tail -n +3 '$T/f' | grep -vc '^reduce_scatter ') = 0 ]"
expect_exit cli-3.18 2 "$FGO" best --algorithm all_reduce
expect_err cli-3.19 'ambiguous algorithm "all_reduce"'
expect_exit cli-3.20 2 "$FGO" plot roofline --algorithm allgather_gemm -o "$T/p"
expect_err cli-3.21 'all_gather_gemm_pull, all_gather_gemm_push)'
expect_exit cli-3.22 2 "$FGO" tune --algorithm all_reduce -m 64 -n 64 -k 64 --dry-run
expect_err cli-3.23 'tune searches the space of one algorithm: give all_reduce_one_shot or all_reduce_two_shot'
expect_exit cli-3.24 0 "$FGO" history --shape 64,64,64 --algorithm gemm-rs --no-plot
expect_exit cli-3.25 2 mpi 2 run --algorithm all_scater -m 64 -n 64 -k 64
expect_err cli-3.26 'unknown algorithm "all_scater" (did you mean "all_scatter"?)'
for c in run sweep compile tune best plot history; do
	check "cli-3.27-$c" "$c --help says how algorithms may be spelled" \
		sh -c "'$FGO' $c --help | grep -q 'all_[a-z_]* lists its'"
done
# a filter takes a name it does not know as given (a shared store may hold
# another fgobench's), after saying what it would have meant; when the store
# has no runs of it either, it was a typo: exit 2 as plot and specs, no table
expect_exit cli-3.28 2 "$FGO" best --algorithm all_scater
expect_err cli-3.29 'unknown algorithm "all_scater" (did you mean "all_scatter"?): matching the store'"'"'s name as given'
expect_err cli-3.29.1 'no ok runs of algorithm "all_scater" in '
expect_eq cli-3.29.2 "" "$(cat "$T/out")"
sqlite3 "$FGOBENCH_DB" ".backup '$T/other.db'"
sqlite3 "$T/other.db" "update runs set algorithm = 'newer_algo' where id = (select min(id) from runs where status = 'ok')"
expect_exit cli-3.29.3 0 "$FGO" best --algorithm newer_algo --db "$T/other.db"
check cli-3.29.4 "another build's algorithm in the store is shown" grep -q '^newer_algo ' "$T/out"

# ---- 4. typos and empty results (issue 50): a flag a letter off names the
# flag it likely meant, in every command's parser; nothing to show exits 2
# with why, "did you mean" for a tag or algorithm, nothing on stdout
for c in "best --mm 512:--m" "list --tagg x:--tag" "regress --bse 1 --head 2:--base" \
	"plot roofline --wrld 2:--world" "history --shap 1,2,3:--shape" "report --tga x:--tag" \
	"show --wdie 1:--wide" "tune --stratgy grid:--strategy" "sweep x.json --qiet:--quiet" \
	"compile x.json --arc sm_90a:--arch" "info --dbb x:--db"; do
	args=${c%:*} want=${c##*:}
	# shellcheck disable=SC2086 # the words of the command
	expect_exit "cli-4.1-${args%% *}" 2 "$FGO" $args
	expect_err "cli-4.2-${args%% *}" "(did you mean \"$want\"?)"
done
expect_exit cli-4.3 2 "$FGO" best --xyz
check cli-4.4 "no guess for a flag nothing is near" sh -c "! grep -q 'did you mean' '$T/err'"
expect_exit cli-4.5 2 "$FGO" best --m 999
expect_err cli-4.6 "no ok runs with M = 999 in $FGOBENCH_DB (it has M = "
expect_eq cli-4.7 "" "$(cat "$T/out")"
expect_exit cli-4.8 2 "$FGO" best --tag smkoe
expect_err cli-4.9 'no ok runs tagged "smkoe" in '"$FGOBENCH_DB"' (did you mean "smoke"?)'
expect_exit cli-4.10 2 "$FGO" list --tag smkoe
expect_err cli-4.11 'no sweep tagged "smkoe" in '"$FGOBENCH_DB"' (did you mean "smoke"?)'
expect_eq cli-4.12 "" "$(cat "$T/out")"
expect_exit cli-4.13 2 "$FGO" best --tag smoke --m 64 --n 64 --k 96
expect_err cli-4.14 "matches --tag smoke --m 64 --n 64 --k 96 together"
expect_exit cli-4.15 2 "$FGO" report --tag smkoe -o "$T/r"
expect_err cli-4.16 '(did you mean "smoke"?)'
expect_exit cli-4.17 2 "$FGO" regress --base smkoe --head smoke
expect_err cli-4.18 '(did you mean "smoke"?)'
# --help says where the manual is, readable without make install
for c in best list info; do
	"$FGO" $c --help >"$T/help" 2>&1
	page=$(sed -n 's/^The manual: man -l //p' "$T/help")
	check "cli-4.19-$c" "$c --help names its page beside the binary (got \"$page\")" \
		sh -c "[ '$page' = '$PWD/man/fgobench-$c.1' ] && [ -f '$page' ]"
done
# a store whose runs all failed: said so, not "run a sweep"
sqlite3 "$FGOBENCH_DB" ".backup '$T/failed.db'"
sqlite3 "$T/failed.db" "update runs set status = 'failed'"
expect_exit cli-4.20 2 "$FGO" best --db "$T/failed.db"
expect_err cli-4.21 "none of its $(sql "select count(*) from runs") runs is ok"
