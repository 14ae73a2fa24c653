# 85_report.sh: `fgobench report` and `fgobench history` on the CPU backend,
# and the nightly recipe (tests/nightly.sh). One real tiny sweep is night 1;
# further nights are copies of it made in SQL (a rerun on a busy 2-core
# machine would differ by noise, and the checks must not).
#   report-1.*  first night: nothing to compare, exit 0, files there
#   report-2.*  an identical second night: exit 0, no regression listed
#   report-3.*  the second night 2x slower for one configuration: exit 1,
#               exactly that one listed, HTML parses, plots are PNGs
#   report-4.*  bad input: exit 2 with a message
#   history-*   ten nights, one configuration 25% slower from night 7
#   nightly-*   tests/nightly.sh on the tiny spec, twice
. tests/e2e/lib.sh

# copy_night FROM TO TAG FACTOR [RUN_ID]: sweep FROM copied as sweep TO,
# started TO - FROM days later at revision rev-TO; run ids shifted by
# 1000 * TO; every sample times 1 + a small wobble that depends on the
# night and the iteration, and RUN_ID (of FROM) FACTOR times slower (its
# samples and its median).
copy_night() {
	sql "
	CREATE TEMP TABLE s AS SELECT * FROM sweeps WHERE id = $1;
	UPDATE s SET id = $2, tag = '$3', git_revision = printf('rev-%02d', $2),
		started_at = strftime('%Y-%m-%dT%H:%M:%SZ', started_at, '+' || ($2 - $1) || ' days');
	INSERT INTO sweeps SELECT * FROM s;
	CREATE TEMP TABLE r AS SELECT * FROM runs WHERE sweep_id = $1;
	UPDATE r SET t_fused_ms = t_fused_ms * $4, tflops_total = tflops_total / $4 WHERE id = ${5:-0};
	UPDATE r SET id = id + 1000 * $2, sweep_id = $2;
	INSERT INTO runs SELECT * FROM r;
	CREATE TEMP TABLE x AS SELECT * FROM samples WHERE run_id IN (SELECT id FROM runs WHERE sweep_id = $1);
	UPDATE x SET ms = ms * (1 + (((iteration * 7 + $2 * 3) % 5) - 2) / 400.0)
		* (CASE WHEN run_id = ${5:-0} THEN $4 ELSE 1 END), run_id = run_id + 1000 * $2;
	INSERT INTO samples SELECT * FROM x;"
}

expect_exit report-0.1 0 mpi 2 sweep tests/e2e/tiny.json --tag night-1 --quiet --iterations 12
sql "UPDATE sweeps SET git_revision = 'rev-01' WHERE id = 1;
	UPDATE samples SET ms = (SELECT t_fused_ms FROM runs WHERE runs.id = samples.run_id)
		* (1 + ((iteration * 7) % 5 - 2) / 200.0)"
ok_runs=$(sql "SELECT count(*) FROM runs WHERE sweep_id = 1 AND status = 'ok'")

# report-1: the first night
expect_exit report-1.1 0 "$FGO" report --tag night-1 --against auto -o "$T/r1"
check report-1.2 "index.md written" [ -s "$T/r1/index.md" ]
check report-1.3 "first night says nothing to compare" grep -q "Nothing to compare with" "$T/r1/index.md"
check report-1.4 "no index.html unless asked" [ ! -e "$T/r1/index.html" ]
check report-1.5 "stdout names index.md" grep -qx "$T/r1/index.md" "$T/out"
check report-1.6 "best table per world size" sh -c "grep -q '### World size 1' '$T/r1/index.md' && grep -q '### World size 2' '$T/r1/index.md'"
check report-1.7 "environment section" grep -q '| fgobench .*(git rev-01)' "$T/r1/index.md"

# report-2: an identical second night
copy_night 1 2 night-2 1
expect_exit report-2.1 0 "$FGO" report --tag night-2 --against auto -o "$T/r2" --junit "$T/r2.xml"
check report-2.2 "compared with the previous night" grep -q "Compared with sweep 1 (tag night-1)" "$T/r2/index.md"
expect_eq report-2.3 0 "$(grep -c '| regression |' "$T/r2/index.md")"
check report-2.4 "says no regression" grep -q "Verdict: no regression" "$T/r2/index.md"
check report-2.5 "JUnit: no failure" grep -q 'failures="0"' "$T/r2.xml"
expect_eq report-2.6 "$ok_runs" "$(grep -c '<testcase' "$T/r2.xml")"

# report-3: night 3 is night 1 with one all_scatter configuration 2x slower
victim=$(sql "SELECT id FROM runs WHERE sweep_id = 1 AND algorithm = 'all_scatter' AND m = 128 AND blk_m = 32")
copy_night 1 3 night-3 2 "$victim"
expect_exit report-3.1 1 "$FGO" report --tag night-3 --against auto -o "$T/r3" --format html --junit "$T/r3.xml"
expect_eq report-3.2 1 "$(grep -c '| regression |' "$T/r3/index.md")"
check report-3.3 "the regression is the slowed configuration" \
	grep -q '| all_scatter .* 128 | *64 | *128 | 32x32x32 s2 w4 g8 sm0+0 .* | regression |' "$T/r3/index.md"
check report-3.4 "compared with night 2, not night 1" grep -q "Compared with sweep 2 (tag night-2)" "$T/r3/index.md"
check report-3.5 "verdict up top" grep -q "1 regression, 0 improvements" "$T/r3/index.md"
check report-3.6 "JUnit: one failure" grep -q 'failures="1"' "$T/r3.xml"
check report-3.7 "JUnit case names the family, shape and configuration" \
	grep -q '<testcase classname="all_scatter.fp16.w2" name="128x64x128 32x32x32 s2 w4 g8 sm0+0">' "$T/r3.xml"
check report-3.8 "index.html written" [ -s "$T/r3/index.html" ]
check report-3.9 "stdout names both pages" sh -c "grep -qx '$T/r3/index.md' '$T/out' && grep -qx '$T/r3/index.html' '$T/out'"
check report-3.10 "the HTML fetches nothing and runs no script" sh -c "! grep -qiE '<script|https?://' '$T/r3/index.html'"
if command -v xmllint >/dev/null 2>&1; then
	check report-3.11 "the HTML parses (xmllint --html)" xmllint --html --noout "$T/r3/index.html"
	check report-3.12 "the HTML is well-formed XML (xmllint)" xmllint --noout "$T/r3/index.html"
elif command -v python3 >/dev/null 2>&1; then
	check report-3.11 "the HTML parses (python3 html.parser, tags balanced)" python3 -c '
import sys, html.parser
void = {"meta", "img", "br", "hr", "link", "input"}
class P(html.parser.HTMLParser):
    stack = []
    def handle_starttag(self, tag, attrs):
        if tag not in void: self.stack.append(tag)
    def handle_endtag(self, tag):
        if tag in void: return
        if not self.stack or self.stack.pop() != tag: sys.exit("unbalanced </%s>" % tag)
p = P(); p.feed(open(sys.argv[1]).read()); p.close()
sys.exit("unclosed: %s" % p.stack if p.stack else 0)' "$T/r3/index.html"
else
	echo "SKIP report-3.11: neither xmllint nor python3 is installed to parse the HTML"
fi
# every image the pages name is a PNG file beside them
pngs=$(sed -n 's/.*<img src="\([^"]*\)".*/\1/p' "$T/r3/index.html")
check report-3.13 "the page shows roofline, overlap and heatmaps" sh -c "echo '$pngs' | grep -q roofline_w2.png && echo '$pngs' | grep -q overlap_w2.png && echo '$pngs' | grep -q heatmap_w2_all_scatter_fp16.png"
bad=0
for p in $pngs; do
	[ "$(head -c 4 "$T/r3/$p" 2>/dev/null | od -An -c | tr -d ' ')" = "211PNG" ] || bad=1
done
expect_eq report-3.14 0 "$bad"
expect_eq report-3.15 "$(grep -c '](.*\.png)' "$T/r3/index.md")" "$(echo "$pngs" | wc -l)"
# the plots of a report are of its sweep: night 1's report, written now,
# shows night 1's throughput of the victim, not night 3's
expect_exit report-3.16 0 "$FGO" report --sweep 1 -o "$T/r1b"
tflops() { awk "BEGIN { printf \"%.6g\", $(sql "SELECT tflops_total FROM runs WHERE id = $1") }"; }
check report-3.17 "night 1's value plotted" grep -q " $(tflops "$victim")\$" "$T/r1b/roofline_w2.dat"
check report-3.18 "night 3's value not plotted" sh -c "! grep -q ' $(tflops $((victim + 3000)))\$' '$T/r1b/roofline_w2.dat'"
# a regression with the run that did not succeed: a failed run is counted with its reason
sql "UPDATE runs SET status = 'failed', reason = 'launch failed: test' WHERE id = $((victim + 3000 + 1))"
expect_exit report-3.19 1 "$FGO" report --sweep 3 --against 2 --no-plots -o "$T/r3b"
check report-3.20 "failed run and its reason listed" grep -q '| failed *| *1 | launch failed: test' "$T/r3b/index.md"

# report-4: bad input
expect_exit report-4.1 2 "$FGO" report --sweep 99 -o "$T/r4"
expect_err report-4.2 "no sweep 99"
expect_exit report-4.3 2 "$FGO" report --tag nope -o "$T/r4"
expect_err report-4.4 'no sweep tagged "nope"'
expect_exit report-4.5 2 "$FGO" report --against nope -o "$T/r4"
expect_err report-4.6 'no sweep with tag or id "nope"'
expect_exit report-4.7 2 "$FGO" report --format pdf
expect_err report-4.8 "--format expects md or html"
expect_exit report-4.9 2 "$FGO" report --tag night-1 --sweep 1
expect_exit report-4.10 2 "$FGO" report --junit "$T/x.xml"
expect_exit report-4.11 2 "$FGO" report --db "$T/none.db"
check report-4.12 "nothing written on bad input" [ ! -e "$T/r4" ]

# history: nights 2..10 remade as copies of night 1, the victim 25% slower
# from night 7 on
sql "DELETE FROM samples WHERE run_id > 1000; DELETE FROM runs WHERE sweep_id > 1; DELETE FROM sweeps WHERE id > 1"
for n in 2 3 4 5 6 7 8 9 10; do
	if [ "$n" -ge 7 ]; then copy_night 1 "$n" "night-$n" 1.25 "$victim"; else copy_night 1 "$n" "night-$n" 1; fi
done
hist() { "$FGO" history --shape 128,64,128 --algorithm all_scatter -o "$T/h" "$@"; }
expect_exit history-1.1 0 hist --config "32x32x32 s2 w4 g8 sm0+0" --format csv
expect_eq history-1.2 11 "$(wc -l < "$T/out")"
# the one row with a step is night 7, about +25%, revisions rev-06..rev-07
steps=$(awk -F, 'NR > 1 && $14 != "" {print $1 ":" $15}' "$T/out")
expect_eq history-1.3 "7:rev-06..rev-07" "$steps"
step=$(awk -F, 'NR > 1 && $14 != "" {print $14}' "$T/out")
check history-1.4 "step of about +25% (got $step)" awk "BEGIN { exit !($step > 23 && $step < 27) }"
expect_err history-1.5 "from night 7: sweep 7 night-7"
check history-1.6 "PNG written" [ -s "$T/h/history_w2_all_scatter_fp16_128x64x128_32x32x32_s2_w4_g8_sm0+0.png" ]
expect_exit history-1.7 0 hist --config "64x32x32 s2 w4 g8 sm0+0" --format json
check history-1.8 "the steady configuration has no step" sh -c "! grep -q '\"step %\": \"*[-+0-9]' '$T/out'"
expect_err history-1.9 "0 steps above 5%"
expect_exit history-1.10 0 hist --no-plot
expect_err history-1.11 "10 nights of spec tiny"
# bad input
expect_exit history-2.1 2 "$FGO" history --algorithm all_scatter
expect_err history-2.2 "both --shape and --algorithm are needed"
expect_exit history-2.3 2 hist --config "1x1x1 s1 w1 g1 sm0+0"
expect_err history-2.4 "no ok run of configuration"
expect_exit history-2.5 2 "$FGO" history --shape 1,2,x --algorithm all_scatter
expect_exit history-2.6 2 hist --spec nope
expect_exit history-2.7 2 hist --world 0
expect_exit history-2.8 2 "$FGO" history --shape 64,64,64 --algorithm gemm --world 3

# nightly: the recipe itself, on the tiny spec, twice, two rounds a night
# (the second night compares with the first, both rounds, by the gate; a
# huge threshold keeps noise from failing it)
export NIGHTLY_SPEC=tests/e2e/tiny.json NIGHTLY_REPORTS="$T/reports" NIGHTLY_ROUNDS=2 FGO
export FGOBENCH_DB="$T/nightly.db"
NIGHTLY_TAG=e2e-1 expect_exit nightly-1.1 0 sh tests/nightly.sh
check nightly-1.2 "first report and its JUnit" sh -c "[ -s '$T/reports/e2e-1/index.html' ] && [ -s '$T/reports/e2e-1/junit.xml' ]"
NIGHTLY_TAG=e2e-2 NIGHTLY_THRESHOLD=100000 expect_exit nightly-1.3 0 sh tests/nightly.sh
check nightly-1.4 "second night compared with the first, whole, by the gate" \
	grep -q "Compared with the sweeps tagged e2e-1: .* judged by the nightly gate (gate: 2 and 2 rounds" "$T/reports/e2e-2/index.md"
check nightly-1.5 "latest points at the newest" [ "$(readlink "$T/reports/latest")" = e2e-2 ]
NIGHTLY_SPEC=nope.json expect_exit nightly-1.6 2 sh tests/nightly.sh
NIGHTLY_ROUNDS=0 expect_exit nightly-1.7 2 sh tests/nightly.sh
expect_err nightly-1.8 "NIGHTLY_ROUNDS must be a whole number of rounds, at least 1"
