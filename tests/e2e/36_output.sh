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

# ---- 120 columns by default, every column with --wide, csv and json
# width FILE: the longest line's length in characters
width() { python3 -c "import sys; print(max((len(l.rstrip('\n')) for l in open(sys.argv[1], encoding='utf-8')), default=0))" "$1"; }
expect_exit out-2.1 0 mpi 2 run --algorithm all_scatter --world 2 -m 128 -n 64 -k 64 --BLK_M 32 --BLK_N 32 \
	--BLK_K 32 --iterations 3 --tag "run-with-a-tag-of-sixty-characters-or-so-to-widen-the-list-xx"
check out-2.2 "run's result fits 120 columns (got $(width "$T/out"))" [ "$(width "$T/out")" -le 120 ]
check out-2.3 "run prints the brief result, not every field ($(grep -c . "$T/out") lines)" \
	sh -c "[ \$(grep -c . '$T/out') -le 32 ] && grep -q '^t_fused_ms ' '$T/out' && ! grep -q '^load_s ' '$T/out'"
check out-2.4 "run's numbers to 4 significant digits: $(grep -E '^t_fused_ms|^overlap' "$T/out" | tr -s ' ' | tr '\n' ' ')" \
	sh -c "grep -E '^(t_fused_ms|t_gemm_ms|speedup|overlap) ' '$T/out' | awk '{ v = \$2; gsub(/^0\\.0*|\\.|e.*/, \"\", v); if (length(v) > 4) bad = 1 } END { exit bad }'"
check out-2.5 "run's reproduce line runs as one shell command" \
	sh -c "sed -n '/^reproduce:/,/^\$/p' '$T/out' | sed '1d' | sh -c 'read -r line; case \"\$line\" in mpirun*) exit 0;; esac; exit 1'"
check out-2.6 "run names show for every field" grep -q "^every field: fgobench show $(sql "select max(id) from runs")" "$T/out"
run=$(sql "select max(id) from runs")
expect_exit out-2.7 0 mpi 2 run --algorithm all_scatter --world 2 -m 128 -n 64 -k 64 --BLK_M 32 --BLK_N 32 \
	--BLK_K 32 --iterations 3 --wide
check out-2.8 "run --wide prints every field" sh -c "grep -q '^load_s ' '$T/out' && grep -q '^reproduce  *mpirun' '$T/out'"
expect_exit out-2.9 0 "$FGO" show "$run"
check out-2.10 "show fits 120 columns (got $(width "$T/out"))" [ "$(width "$T/out")" -le 120 ]
expect_eq out-2.11 "$(sql "select printf('%.4g', t_fused_ms) from runs where id = $run")" \
	"$(awk '$1 == "t_fused_ms" { print $2 }' "$T/out")"
check out-2.12 "show's long tag is continued, not cut" sh -c "grep -A1 '^sweep_tag ' '$T/out' | tr -d ' \n' | grep -q 'sweep_tagrun-with-a-tag-of-sixty-characters-or-so-to-widen-the-list-xx'"
expect_exit out-2.13 0 "$FGO" show "$run" --wide
expect_eq out-2.14 "$(sql "select t_fused_ms from runs where id = $run")" "$(awk '$1 == "t_fused_ms" { print $2 }' "$T/out")"
check out-2.15 "show --wide has the reproduce line in the table" grep -q '^reproduce  *mpirun -np 2 fgobench run .*--comm_sms 0$' "$T/out"
expect_exit out-2.16 0 "$FGO" list
check out-2.17 "list fits 120 columns (got $(width "$T/out"))" [ "$(width "$T/out")" -le 120 ]
check out-2.18 "list has the not-ok column" grep -q 'not ok$' "$T/out"
expect_exit out-2.19 0 "$FGO" list --wide
check out-2.20 "list --wide has a column per status" grep -q 'invalid  mismatch  failed  timeout  started runs$' "$T/out"
expect_exit out-2.21 0 "$FGO" list --format csv
expect_eq out-2.22 "sweep,tag,spec,backend,ranks,started,seconds,status,runs,ok,invalid,mismatch,failed,timeout,started runs" "$(head -1 "$T/out")"
# a sweep with runs that are not ok: counted in one cell
sqlite3 "$FGOBENCH_DB" "update runs set status = 'invalid' where id = (select max(id) from runs)"
expect_exit out-2.23 0 "$FGO" list --limit 1
check out-2.24 "the not-ok cell says what ($(tail -1 "$T/out"))" sh -c "tail -1 '$T/out' | grep -q '  0  1 invalid$'"
expect_exit out-2.25 0 "$FGO" best --wide --world 2
check out-2.26 "best --wide has the reproduce column" grep -q ' reproduce$' "$T/out"
expect_exit out-2.27 2 "$FGO" best --wide --reproduce

# ---- gnuplot's warnings stay out of the terminal unless it failed
expect_exit out-3.1 0 "$FGO" report --tag a-tag-long-enough-to-need-room --format html -o "$T/rep3"
check out-3.2 "no gnuplot warning on stderr: $(grep -v '^fgobench' "$T/err" | head -2 | tr '\n' ' ')" \
	sh -c "! grep -Eqv '^fgobench: ' '$T/err'"
mkdir -p "$T/bin"
printf '#!/bin/sh\necho "line 1: this plot went wrong" >&2\nexit 1\n' >"$T/bin/gnuplot"
chmod +x "$T/bin/gnuplot"
expect_exit out-3.3 1 env PATH="$T/bin:$PATH" "$FGO" plot roofline --world 2 -o "$T/plots3"
expect_err out-3.4 "line 1: this plot went wrong"
expect_err out-3.5 "gnuplot failed on"

# ---- 4. stored text is data in every output (issue 48): a CSV cell a
# spreadsheet would run is neutralised (numbers stay numbers), Markdown
# cells carry no HTML, messages no escape sequence; on a copy of the store
# with a hostile tag, algorithm and reason
H="$T/hostile.db"
sqlite3 "$FGOBENCH_DB" ".backup '$H'"
sqlite3 "$H" "update sweeps set tag = '=HYPERLINK(\"http://x\",\"y\")<script>alert(1)</script>&';
	update runs set algorithm = '@SUM(1)<img src=x>' where world = 1;
	update runs set status = 'failed', reason = '<script>r()</script> x|y' where world = 2"
expect_exit out-4.1 0 "$FGO" list --format csv --db "$H"
check out-4.2 "list csv: the tag cell neutralised by a leading quote" grep -q "^[0-9]*,\"'=HYPERLINK(" "$T/out"
check out-4.3 "list csv: the id stays a number" grep -q '^1,' "$T/out"
expect_exit out-4.4 0 "$FGO" best --format csv --db "$H"
check out-4.5 "best csv: the algorithm cell neutralised" grep -q "^'@SUM(1)<img src=x>," "$T/out"
check out-4.6 "best csv: numbers stay numbers ($(sed -n 2p "$T/out" | cut -d, -f3-6))" \
	sh -c "sed -n 2p '$T/out' | grep -q \"^'@SUM(1)<img src=x>,fp16,1,128,64,64,1,32x32x32 s2 w4 g8 sm0+0,[0-9.]*,[0-9.]*,\""
expect_exit out-4.7 0 "$FGO" list --format md --db "$H"
check out-4.8 "list md: no raw HTML" sh -c "! grep -q '<' '$T/out' && grep -q '&lt;script&gt;alert(1)&lt;/script&gt;&amp;' '$T/out'"
expect_exit out-4.9 0 "$FGO" best --format md --db "$H"
check out-4.10 "best md: no raw HTML" sh -c "! grep -q '<' '$T/out' && grep -q '| @SUM(1)&lt;img src=x&gt; ' '$T/out'"
expect_exit out-4.11 0 "$FGO" report --db "$H" --no-plots -o "$T/hrep"
check out-4.12 "report index.md: no raw HTML in its tables or text" \
	sh -c "! grep -q '<script\|<img' '$T/hrep/index.md' && grep -q '| *&lt;script&gt;r()&lt;/script&gt; x\\\\|y' '$T/hrep/index.md'"
# a tag with an escape sequence (ESC [2J clears the screen) in an error message
ESC=$(printf '\033')
expect_exit out-4.13 2 "$FGO" report --db "$H" --tag "x${ESC}[2Jy" -o "$T/hrep2"
check out-4.14 "the message shows the escape as text ($(head -c 120 "$T/err"))" \
	sh -c "! grep -q '$ESC' '$T/err' && grep -qF 'x\\x1b[2Jy' '$T/err'"
expect_exit out-4.15 2 "$FGO" best --db "$H" --algorithm "al${ESC}]0;pwned${ESC}\\"
check out-4.16 "a command's own message shows the escape as text ($(head -c 100 "$T/err"))" \
	sh -c "! grep -q '$ESC' '$T/err' && grep -qF 'al\x1b]0;pwned' '$T/err'"

# ---- 5. one is singular (issue 50: "1 runs"): the report of run's sweep of one run
expect_exit out-5.1 0 "$FGO" report --tag "run-with-a-tag-of-sixty-characters-or-so-to-widen-the-list-xx" --no-plots -o "$T/one"
check out-5.2 "\"1 run, 1 ok\" in the summary" grep -q ': 1 run, 1 ok, ' "$T/one/index.md"
check out-5.3 "\"Its one run is ok.\"" grep -q '^Its one run is ok\.$' "$T/one/index.md"
check out-5.4 "no \"1 runs\" anywhere (a rate, \"1 runs/s\", is a unit)" \
	sh -c "! grep -Eq '\\b1 runs([^/]|\$)' '$T/one/index.md' '$T/err'"

# ---- 6. one default output folder, git-ignored (issue 50): plot, history's
# plot and report write under ./fgobench-out unless -o says otherwise ----
mkdir -p "$T/cwd"
(cd "$T/cwd" && "$FGO" plot roofline --db "$FGOBENCH_DB" >/dev/null 2>&1 &&
	"$FGO" report --db "$FGOBENCH_DB" --no-plots >/dev/null 2>&1)
check out-6.1 "the roofline in fgobench-out/: $(ls "$T/cwd" "$T/cwd/fgobench-out" 2>&1 | tr '\n' ' ')" \
	test -s "$T/cwd/fgobench-out/roofline_w2.png"
check out-6.2 "the report in fgobench-out/report/" test -s "$T/cwd/fgobench-out/report/index.md"
expect_eq out-6.3 "fgobench-out" "$(ls "$T/cwd")"
check out-6.4 ".gitignore ignores the folder" grep -qx '/fgobench-out/' .gitignore
