# 99_trace.sh: per-CTA timelines (issue 26) on the CPU backend, which
# records the same events as the GPU kernels: `run --trace` under mpirun
# -np 2 for all_scatter, all_reduce_one_shot and sk_all_scatter; the JSON
# loads and is trace-event JSON (pid = rank, tid = CTA x 4 + lane, ts and
# dur in us); every tile's MAC iterations appear once, in segments that
# cover them exactly, per its schedule; spans on one track nest; each
# put, reduction and flag wait the family makes is there; the summary's
# shares add up to 100 in the JSON and in `show`; `plot timeline` draws
# PNG and SVG (a hostile file name reaches gnuplot as data only); `sweep
# --trace best` traces the fastest run of each problem; bad usage exits 2.
. tests/e2e/lib.sh

cfg="--world 2 -m 128 -n 256 -k 128 --BLK_M 32 --BLK_N 32 --BLK_K 32 --iterations 2 --warmup 1"
expect_exit trace-1.1 0 mpi 2 run --algorithm all_scatter $cfg --trace "$T/as.json"
expect_err trace-1.2 "trace of run 1: $T/as.json"
expect_exit trace-1.3 0 mpi 2 run --algorithm all_reduce_one_shot $cfg --trace "$T/ar.json"
expect_exit trace-1.4 0 mpi 2 run --algorithm sk_all_scatter $cfg --gemm_sms 3 --comm_sms 2 \
	--trace "$T/sk.json"
expect_eq trace-1.5 "3 3" "$(sql "select count(*), count(distinct file) from traces" | tr '|' ' ')"
expect_eq trace-1.6 "6" "$(sql "select count(*) from trace_ranks")"

# The JSON, checked by Python: ALGO TILES K_ITERS PUTS_PER_RANK REDUCES_PER_RANK FILE
checkjson() {
	python3 - "$@" <<'EOF'
import json, sys
algo, tiles, kiters, puts, reduces, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
d = json.load(open(path))
ev = d["traceEvents"]
x = [e for e in ev if e.get("ph") == "X"]
bad = []
def need(c, what):
    if not c:
        bad.append(what)
need(all(isinstance(e["pid"], int) and isinstance(e["tid"], int) and e["dur"] >= 0 and e["ts"] >= 0 for e in x), "pid, tid, ts, dur")
need({e["pid"] for e in x} == {0, 1}, "pid = rank 0 and 1")
need(any(e.get("ph") == "M" and e["name"] == "thread_name" for e in ev), "thread names")
need(all(e["tid"] == e["args"]["cta"] * 4 + e["args"]["lane"] for e in x), "tid = CTA x 4 + lane")
for r in (0, 1):
    segs = {}
    for e in x:
        if e["pid"] == r and e["cat"] == "gemm":
            segs.setdefault(e["args"]["tile"], []).append((e["args"]["k0"], e["args"]["k1"]))
    need(len(segs) == tiles, "rank %d: %d tiles, want %d" % (r, len(segs), tiles))
    for t, s in segs.items():
        s.sort()
        at, ok = 0, True
        for k0, k1 in s:
            ok = ok and k0 == at and k1 > k0
            at = k1
        need(ok and at == kiters, "rank %d tile %d: segments %s do not cover [0, %d) once" % (r, t, s, kiters))
    p = [e for e in x if e["pid"] == r and e["cat"] == "put"]
    need(len(p) == puts, "rank %d: %d puts, want %d" % (r, len(p), puts))
    need(len({(e["args"]["tile"], e["args"]["peer"]) for e in p}) == len(p), "rank %d: a tile put twice to a peer" % r)
    red = [e for e in x if e["pid"] == r and e["cat"] == "reduce"]
    need(len(red) == reduces, "rank %d: %d reductions, want %d" % (r, len(red), reduces))
    k = [e for e in x if e["pid"] == r and e["cat"] == "kernel"]
    need(len(k) >= 1 and all(e["args"]["sm"] >= 0 for e in k), "rank %d: kernel spans with their core" % r)
# nesting on each track (ts and dur are rounded to the ns)
tracks = {}
for e in x:
    tracks.setdefault((e["pid"], e["tid"]), []).append((e["ts"], -e["dur"], e["ts"] + e["dur"], e["cat"]))
for key, spans in tracks.items():
    spans.sort()
    stack = []
    for t0, _, t1, cat in spans:
        while stack and stack[-1] <= t0 + 0.002:
            stack.pop()
        need(not stack or t1 <= stack[-1] + 0.002, "track %s: %s [%g, %g] crosses its parent" % (key, cat, t0, t1))
        stack.append(t1)
s = d["otherData"]["fgobench"]["summary"]
total = s["gemm_pct"] + s["comm_pct"] + s["xchg_pct"] + s["wait_pct"] + s["idle_pct"]
need(abs(total - 100) < 1e-3, "shares add up to %g" % total)
need(s["unpaired"] == 0 and s["dropped"] == 0, "unpaired %d dropped %d" % (s["unpaired"], s["dropped"]))
need(s["tiles"] == 2 * tiles, "summary tiles %d" % s["tiles"])
if algo == "sk_all_scatter":
    need(any(e["cat"] == "handover" for e in x) and any(e["cat"] == "takeover" for e in x), "Stream-K hand-overs and take-overs")
    need(any(e["cat"] == "put" and e["args"]["cta"] >= 3 for e in x), "puts on the comm CTAs (3, 4)")
if bad:
    print("; ".join(bad[:4]))
    sys.exit(1)
EOF
}
# all_scatter: 4 x 4 tiles of 128 x 128 a rank, 4 K iterations, one put per tile to the peer
check trace-2.1 "all_scatter's trace: tiles, puts, nesting, shares" checkjson all_scatter 16 4 16 0 "$T/as.json"
# all_reduce one-shot: 4 x 8 tiles over K/W = 64 (2 iterations), every tile reduced on every rank
check trace-2.2 "all_reduce_one_shot's trace: tiles, reductions, nesting, shares" checkjson all_reduce_one_shot 32 2 0 32 "$T/ar.json"
# sk_all_scatter: 3 GEMM CTAs split the 64 iterations, 2 comm CTAs put every tile
check trace-2.3 "sk_all_scatter's trace: segments cover each tile, hand-overs, comm CTAs" checkjson sk_all_scatter 16 4 16 0 "$T/sk.json"
# the checker can fail: a tile too many is refused
check trace-2.4 "the checker refuses a wrong count" sh -c "! checkjson all_scatter 17 4 16 0 '$T/as.json' >/dev/null 2>&1"

# show prints the summary; its shares add up
expect_exit trace-3.1 0 "$FGO" show 1
check trace-3.2 "show names the trace file" grep -q "^trace_file  *$T/as.json" "$T/out"
check trace-3.3 "show's shares add up to 100" grep -Eq "^trace_shares_pct .*= 100\.00$" "$T/out"
# A rank records a wait only when its peer's flag was not yet set, so how
# many there are depends on the scheduler (a loaded machine may give none):
# show must print one entry per stored (rank, peer) row, whatever the count.
nw=$(sql "select count(*) from trace_waits where run_id = 1")
check trace-3.4 "show has waits per peer ($nw stored) and per-rank times" sh -c "
	grep -q '^trace_waits' '$T/out' &&
	test \"\$(grep '^trace_waits' '$T/out' | grep -o 'r[01] on r[01] [0-9.]* us ([0-9]*)' | wc -l)\" -eq $nw &&
	grep -q '^trace_ranks  *r0 .*; r1 ' '$T/out'"
check trace-3.5 "show has the overhead" grep -Eq "^trace_overhead_pct +[-+][0-9]" "$T/out"
expect_exit trace-3.6 0 "$FGO" show 1 --format json
check trace-3.7 "show --format json loads and has the trace" python3 -c "import json,sys; r=json.load(open('$T/out')); r=r[0] if isinstance(r,list) else r; sys.exit(0 if 'trace_gemm_busy_pct' in r else 1)"

# plot timeline: PNG and SVG; a hostile file name is data
expect_exit trace-4.1 0 "$FGO" plot timeline "$T/sk.json" -o "$T/plots"
check trace-4.2 "a PNG and an SVG" sh -c "head -c 4 '$T/plots/timeline_sk.png' | grep -q PNG && grep -q '<svg' '$T/plots/timeline_sk.svg'"
check trace-4.3 "one row per CTA: 5 a rank, 2 ranks" sh -c "[ \$(cut -d' ' -f1 '$T/plots/timeline_sk.dat' | sort -un | wc -l) -eq 10 ]"
hostile="$T/a'\`touch pwned\`\"x.json"
cp "$T/as.json" "$hostile"
expect_exit trace-4.4 0 "$FGO" plot timeline "$hostile" -o "$T/plots"
check trace-4.5 "the hostile name ran nothing" sh -c "[ ! -e '$T/plots/pwned' ] && [ ! -e pwned ] && ! grep -l '\`' '$T/plots/'*.gp"
expect_exit trace-4.6 2 "$FGO" plot timeline "$T/nothing.json" -o "$T/plots"
echo '{"traceEvents": 3}' >"$T/bad.json"
expect_exit trace-4.7 2 "$FGO" plot timeline "$T/bad.json" -o "$T/plots"
expect_err trace-4.8 "has no \"traceEvents\" array"

# sweep --trace best: the fastest ok run of each problem, traced into the folder
expect_exit trace-5.1 0 mpi 2 sweep tests/e2e/tiny.json --tag traced --quiet --iterations 2 \
	--trace best --trace-dir "$T/traces"
want=$(sql "select group_concat(id, ' ') from (select r.id from runs r join sweeps s on s.id = r.sweep_id
	where s.tag = 'traced' and r.status = 'ok' and r.t_fused_ms = (select min(t_fused_ms)
	from runs q where q.sweep_id = r.sweep_id and q.problem_id = r.problem_id and q.status = 'ok')
	group by r.problem_id order by r.id)")
got=$(sql "select group_concat(run_id, ' ') from (select t.run_id from traces t join runs r on r.id = t.run_id
	join sweeps s on s.id = r.sweep_id where s.tag = 'traced' order by t.run_id)")
expect_eq trace-5.2 "$want" "$got"
check trace-5.3 "5 problems traced" [ "$(echo $got | wc -w)" -eq 5 ]
check trace-5.4 "each into DIR/run-ID.json" sh -c "for i in $got; do python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '$T/traces/run-'\$i.json || exit 1; done"

# report: the Timelines section, each trace drawn beside it
expect_exit trace-5.5 0 "$FGO" report --tag traced -o "$T/rep" --format html
check trace-5.6 "the report has a Timelines section naming the files" sh -c "grep -q '^## Timelines' '$T/rep/index.md' && grep -q 'traces/run-' '$T/rep/index.md'"
check trace-5.7 "the report shows each timeline" sh -c "[ \$(ls '$T/rep/'timeline_run-*.png | wc -l) -eq 5 ] && grep -q 'timeline_run-' '$T/rep/index.html'"

# bad usage
expect_exit trace-6.1 2 mpi 2 sweep tests/e2e/tiny.json --trace worst
expect_err trace-6.2 "--trace takes \"best\""
expect_exit trace-6.3 2 "$FGO" run --algorithm all_scatter --trace "$T/no/such/dir/x.json"
expect_exit trace-6.4 2 mpi 2 sweep tests/e2e/tiny.json --trace-dir "$T/t2"
expect_err trace-6.5 "--trace-dir needs --trace best"
