# 36_output.sh: what the views print (issue 35): overlap empty where it is
# undefined (W=1) and within 0..1 where defined, and every view coping with
# the empty value; the terminal tables within 120 columns and --wide / csv /
# json with every column; floats to their precision.
. tests/e2e/lib.sh

cat >"$T/o.json" <<'SPEC'
{
	"name": "output",
	"iterations": 3,
	"warmup": 0,
	"blocks": [
		{ "algorithm": "all_scatter", "world": [1, 2], "M": 128, "N": 64, "K": 64,
		  "BLK_M": 32, "BLK_N": 32, "BLK_K": 32 }
	]
}
SPEC
expect_exit out-1.1 0 mpi 2 sweep "$T/o.json" --tag a-tag-long-enough-to-need-room --quiet
expect_eq out-1.2 "1 0 1" "$(sql "select count(*) filter (where world = 1), count(overlap) filter (where world = 1),
	count(*) filter (where world = 2 and overlap between 0 and 1) from runs" | tr '|' ' ')"
one=$(sql "select id from runs where world = 1")
two=$(sql "select id from runs where world = 2")
# every view with the empty value: show (table, csv, json), best, report, plot
expect_exit out-1.3 0 "$FGO" show "$one"
check out-1.4 "show prints the empty overlap as -" grep -Eq '^overlap +-$' "$T/out"
expect_exit out-1.5 0 "$FGO" show "$one" --format json
expect_eq out-1.6 null "$(sqlite3 :memory: "select coalesce(json_extract(readfile('$T/out'), '\$[0].overlap'), 'null')")"
expect_exit out-1.7 0 "$FGO" show "$one" --format csv
expect_eq out-1.8 "" "$(python3 -c "import csv,sys; print(next(csv.DictReader(open('$T/out')))['overlap'])")"
expect_exit out-1.9 0 "$FGO" best --world 1 --format json
expect_exit out-1.10 0 "$FGO" report --format md -o "$T/rep"
check out-1.11 "report's W=1 best row shows overlap as -" sh -c "grep -A4 'World size 1' '$T/rep/index.md' | grep -q '| *- *| *1 *| *$one *|'"
expect_exit out-1.12 0 "$FGO" plot overlap --world 1 -o "$T/plots"
check out-1.13 "the overlap plot's data marks the W=1 comm as measured, not missing" grep -q 'all_scatter' "$T/plots/overlap_w1.dat"
