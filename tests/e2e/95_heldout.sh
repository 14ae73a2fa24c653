# 95_heldout.sh: the held-out shapes of issue 49 (tests/bench/heldout_shapes.py,
# docs/heldout.md): the committed specs are the generator's draw of the
# committed seed, byte for byte, and the draw is the same each time; none
# of their shapes is measured by another spec under sweeps/ (nor is a
# spec shape's per-rank GEMM at W = 2, 4, 8); a spec that measures one
# later, or another seed, fails the check; the draw redraws a shape a spec
# measures; the grid is perrank.json's, its blocks unchanged and each
# block's own shapes the held-out ones of its M range; fgobench plans all
# three specs; tests/gpu/heldout_table.py reads the three sweeps right;
# tests/gpu/widths_table.py gives the stored widths' numbers docs quote;
# the fused set of issue 51 (heldout_mgpu.json): W = 2 and 4 divide its
# shapes, decode and prefill, none nor its per-rank GEMMs in another spec,
# mgpu.json's blocks, every family planned valid on every shape at both W.
. tests/e2e/lib.sh
GEN="python3 tests/bench/heldout_shapes.py"

expect_exit heldout-1.1 0 $GEN --check
check heldout-1.2 "the committed specs are the seed's draw ($(tail -n 1 "$T/out"))" \
	grep -q '^heldout_shapes: check passed$' "$T/out"
mkdir -p "$T/a" "$T/b"
expect_exit heldout-1.3 0 $GEN --out "$T/a"
expect_exit heldout-1.4 0 $GEN --out "$T/b"
for f in heldout_perrank heldout_defaults heldout_auto heldout_mgpu; do
	check "heldout-1.5.$f" "$f.json: the same draw twice and as committed" \
		sh -c "cmp -s '$T/a/$f.json' '$T/b/$f.json' && cmp -s '$T/a/$f.json' 'sweeps/$f.json'"
done

# the shapes: at least 30, all distinct, within the field's ranges, none
# in another spec as fgobench plans it (--dry-run --format csv), and the
# generator reads every shape fgobench plans
shapes=$(python3 -c "import json; print('\n'.join('%d %d %d' % tuple(s) for s in json.load(open('sweeps/heldout_perrank.json'))['shapes']))")
n=$(echo "$shapes" | wc -l)
check heldout-2.1 "at least 30 shapes ($n)" [ "$n" -ge 30 ]
expect_eq heldout-2.2 "$n" "$(echo "$shapes" | sort -u | wc -l)"
expect_eq heldout-2.3 "" "$(echo "$shapes" | awk '$1 < 1 || $1 > 16384 || $2 < 512 || $2 > 28672 || $3 < 512 || $3 > 28672 || $2 % 8 || $3 % 8')"
: >"$T/tuned"
for spec in sweeps/*.json; do
	case "$spec" in sweeps/heldout_*) continue ;; esac
	"$FGO" sweep "$spec" --dry-run --format csv 2>/dev/null | awk -F, 'NR > 1 && $5 ~ /^[0-9]+$/ { print $5, $6, $7 }' >>"$T/tuned"
done
sort -u "$T/tuned" -o "$T/tuned"
python3 -c "
import glob, sys
sys.path.insert(0, 'tests/bench')
import heldout_shapes as h
print('\n'.join('%d %d %d' % s for f in glob.glob('sweeps/*.json') if 'heldout_' not in f for s in h.spec_shapes(f)))
" | sort -u >"$T/read"
check heldout-2.4 "fgobench planned the other specs' shapes ($(wc -l <"$T/tuned"))" [ "$(wc -l <"$T/tuned")" -ge 200 ]
expect_eq heldout-2.6 "" "$(comm -23 "$T/tuned" "$T/read" | head -n 3)"
expect_eq heldout-2.5 "" "$(echo "$shapes" | grep -Fxf "$T/tuned")"

# another seed's draw is not the committed one
expect_exit heldout-3.1 1 $GEN --check --seed 50
check heldout-3.2 "says the spec differs" grep -q 'heldout_perrank.json differs from what --seed 50' "$T/out"
# a spec that measures a held-out shape later, or its W=2 fused form: no longer held out
mkdir -p "$T/sw"
cp sweeps/*.json "$T/sw/"
first=$(echo "$shapes" | head -n 1)
set -- $first
printf '{"algorithm": "gemm", "world": 1, "shapes": [[%d, %d, %d]]}\n' "$1" "$2" "$3" >"$T/sw/later.json"
expect_exit heldout-3.3 1 $GEN --check --sweeps "$T/sw"
check heldout-3.4 "names the shape and the spec" grep -q "^heldout_shapes: ${1}x${2}x${3} of sweeps/heldout_perrank.json is measured by sw/later.json" "$T/out"
rm "$T/sw/later.json"
printf '{"algorithm": "all_scatter", "world": 2, "M": %d, "N": %d, "K": %d}\n' "$1" $(($2 * 2)) "$3" >"$T/sw/fused.json"
expect_exit heldout-3.5 1 $GEN --check --sweeps "$T/sw"
check heldout-3.6 "names the fused shape whose per-rank GEMM it is" grep -q "is measured by sw/fused.json (${1}x$(($2 * 2))x${3} at W=2)" "$T/out"
# the draw itself redraws a shape a spec measures
expect_exit heldout-3.7 0 $GEN --sweeps "$T/sw" --out "$T/a"
check heldout-3.8 "one per-rank GEMM redrawn" grep -q ', 1 a spec shape.s per-rank GEMM$' "$T/out"
check heldout-3.9 "the shape is gone from the draw" sh -c "! grep -q '\[$1, $2, $3\]' '$T/a/heldout_perrank.json'"
rm "$T/sw/fused.json"
expect_exit heldout-3.10 2 $GEN --models 10 --random 10
expect_err heldout-3.11 "--models + --random must be at least 30"

# the grid: perrank.json's blocks, apart from their own shapes, which are
# the held-out shapes of the block's M range (M <= 64, M >= 512)
expect_eq heldout-4.1 "ok" "$(python3 - <<'EOF'
import json
g = json.load(open("sweeps/perrank.json"))
h = json.load(open("sweeps/heldout_perrank.json"))
shapes = [tuple(s) for s in h["shapes"]]
bad = []
if len(g["blocks"]) != len(h["blocks"]):
    bad.append("%d blocks, perrank.json %d" % (len(h["blocks"]), len(g["blocks"])))
for i, (a, b) in enumerate(zip(g["blocks"], h["blocks"])):
    if {k: v for k, v in a.items() if k != "shapes"} != {k: v for k, v in b.items() if k != "shapes"}:
        bad.append("block %d differs" % i)
    if "shapes" in a:
        ms = [s[0] for s in a["shapes"]]
        want = [s for s in shapes if s[0] <= 64] if max(ms) <= 64 else [s for s in shapes if s[0] >= 512]
        if [tuple(s) for s in b["shapes"]] != want or min(ms) not in (1, 512):
            bad.append("block %d's shapes" % i)
for k in ("iterations", "warmup", "algorithm", "dtype", "world"):
    if g[k] != h[k]:
        bad.append(k)
print("; ".join(bad) or "ok")
EOF
)"

# fgobench plans the three specs: the grid's shapes, one item a shape for
# the defaults and for auto (asked for by the spec's "config")
expect_exit heldout-5.1 0 "$FGO" sweep sweeps/heldout_perrank.json --dry-run --format csv
expect_eq heldout-5.2 "$n" "$(awk -F, 'NR > 1 { print $5, $6, $7 }' "$T/out" | sort -u | wc -l)"
for f in heldout_defaults heldout_auto; do
	expect_exit "heldout-5.3.$f" 0 "$FGO" sweep "sweeps/$f.json" --dry-run --format csv
	expect_eq "heldout-5.4.$f" "$shapes" "$(awk -F, 'NR > 1 { print $5, $6, $7 }' "$T/out")"
done
check heldout-5.5 "auto's spec asks for config auto" grep -q '"config": "auto"' sweeps/heldout_auto.json

# tests/gpu/heldout_table.py on a small CPU store of the three sweeps
# (the grid's four tiles on four shapes, the defaults, auto after
# calibrate --fit: 20 runs to fit): a row a shape, its ratios the
# store's, the summary lines' counts
S='"shapes": [[128, 256, 256], [256, 256, 256], [128, 512, 256], [256, 512, 256]]'
P='"iterations": 2, "warmup": 0, "algorithm": "gemm", "dtype": "bf16", "world": 1'
echo "{\"name\": \"g\", $P, $S, \"BLK_M\": [32, 64], \"BLK_N\": [32, 64], \"BLK_K\": 32}" >"$T/grid.json"
echo "{\"name\": \"d\", $P, $S}" >"$T/plain.json"
echo "{\"name\": \"a\", $P, \"config\": \"auto\", $S}" >"$T/auto.json"
expect_exit heldout-6.1 0 mpi 1 sweep "$T/grid.json" --tag heldout-perrank --quiet
expect_exit heldout-6.2 0 mpi 1 sweep "$T/plain.json" --tag heldout-defaults --quiet
expect_exit heldout-6.3 0 "$FGO" calibrate --fit
expect_exit heldout-6.4 0 mpi 1 sweep "$T/auto.json" --tag heldout-auto --quiet
expect_exit heldout-6.5 0 python3 tests/gpu/heldout_table.py "$FGOBENCH_DB"
expect_eq heldout-6.6 4 "$(grep -c '^| [0-9]* x ' "$T/out")"
# 256 x 256 x 256: the defaults' time over the grid's best, as the store has them
want=$(sql "select printf('%.3f', (select min(t_fused_ms) from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'heldout-defaults' and m = 256 and n = 256 and k = 256 and r.status = 'ok') / min(t_fused_ms)) from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'heldout-perrank' and m = 256 and n = 256 and k = 256 and r.status = 'ok'")
expect_eq heldout-6.7 "$want" "$(grep '^| 256 x 256 x 256 ' "$T/out" | cut -d'|' -f8 | tr -d ' ')"
within=$(sql "select count(*) from (select m, n, k, min(t_fused_ms) b from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'heldout-perrank' and r.status = 'ok' group by m, n, k) g join (select m, n, k, min(t_fused_ms) a from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'heldout-auto' and r.status = 'ok' group by m, n, k) x using (m, n, k) where a <= 1.05 * b")
check heldout-6.8 "auto's count within 5% is the store's ($within): $(grep '^auto / best' "$T/out")" \
	grep -q "^auto / best: geomean [0-9.]*, max [0-9.]* at [0-9 x]*, within 5% on $within of 4 " "$T/out"
check heldout-6.9 "the three summary lines" sh -c "[ \$(grep -c '^\(best / cuBLAS\|defaults / best\|auto / best\)' '$T/out') = 3 ]"
expect_exit heldout-6.10 2 python3 tests/gpu/heldout_table.py "$FGOBENCH_DB" no-such-tag
expect_err heldout-6.11 "no sweep tagged no-such-tag"

# tests/gpu/widths_table.py on the stores the issue's widths were measured
# into (db/evidence, 2026-12-07): the summary lines docs/heldout.md quotes,
# one row's ratio as the store has it, a missing tag refused
# (Python's lzma, as tests/bench/shot_choice.sh: no xz program needed)
unxz_to() { python3 -c 'import lzma, sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' "$1" >"$2"; }
unxz_to db/evidence/widths_h100_1207.db.xz "$T/widths.db"
expect_exit heldout-8.1 0 python3 tests/gpu/widths_table.py "$T/widths.db" heldout-perrank heldout-widths
expect_eq heldout-8.2 "16 shapes both swept: cuBLAS / best, grid alone geomean 0.912 (3 at >= 1.0, worst 0.737); grid + new sizes 0.920 (3 at >= 1.0, worst 0.737)
32 shapes of the grid: cuBLAS / best, grid alone geomean 0.963 (12 at >= 1.0, worst 0.737); grid + new sizes 0.967 (12 at >= 1.0, worst 0.737)
a new size the fastest on 4 shapes" "$(tail -n 3 "$T/out")"
# 2048 x 3072 x 4096: cuBLAS's fastest call of both sweeps over the fastest run of both
want=$(sql "select printf('%.3f', (select min(t_baseline_ms) from runs r join sweeps s on s.id = r.sweep_id where s.tag in ('heldout-perrank', 'heldout-widths') and m = 2048 and n = 3072 and k = 4096 and r.status = 'ok' and t_baseline_ms > 0) / min(t_fused_ms)) from runs r join sweeps s on s.id = r.sweep_id where s.tag in ('heldout-perrank', 'heldout-widths') and m = 2048 and n = 3072 and k = 4096 and r.status = 'ok'" "$T/widths.db")
expect_eq heldout-8.3 "$want (new size)" "$(grep '^| 2048 x 3072 x 4096 ' "$T/out" | cut -d'|' -f9 | sed 's/^ *//; s/ *$//')"
expect_eq heldout-8.4 "- -" "$(grep '^| 16 x 7168 x 5120 ' "$T/out" | cut -d'|' -f5,6 | tr -d ' ' | tr '|' ' ')"
expect_exit heldout-8.5 2 python3 tests/gpu/widths_table.py "$T/widths.db" heldout-perrank no-such-tag
expect_err heldout-8.6 "no sweep tagged no-such-tag"
unxz_to db/evidence/widths_own_probe_h100_1207.db.xz "$T/own.db"
expect_exit heldout-8.7 0 python3 tests/gpu/widths_table.py "$T/own.db" perrank perrank-widths
expect_eq heldout-8.8 "a new size the fastest on 0 shapes" "$(tail -n 1 "$T/out")"
# the swapped heights on one consumer (BLK_N 64) beside the held-out grid,
# the lines docs/heldout.md quotes
unxz_to db/evidence/swap_heldout_h100_1207.db.xz "$T/swap.db"
expect_exit heldout-8.9 0 python3 tests/gpu/widths_table.py "$T/swap.db" heldout-perrank heldout-swap
expect_eq heldout-8.10 "16 shapes both swept: cuBLAS / best, grid alone geomean 0.918 (4 at >= 1.0, worst 0.735); grid + new sizes 0.923 (5 at >= 1.0, worst 0.735)
32 shapes of the grid: cuBLAS / best, grid alone geomean 0.967 (13 at >= 1.0, worst 0.735); grid + new sizes 0.970 (14 at >= 1.0, worst 0.735)
a new size the fastest on 3 shapes" "$(tail -n 3 "$T/out")"
# tests/gpu/widths.sh finds every spec of each set before a GPU call
# spends time (a set once named a spec that was not there)
for set in widths swap pairs; do
	expect_exit "heldout-9.$set" 0 env SPECS_ONLY=1 SET=$set sh tests/gpu/widths.sh
done
mkdir -p "$T/wsh/tests/gpu" "$T/wsh/sweeps"
cp tests/gpu/widths.sh "$T/wsh/tests/gpu/"
cp sweeps/wgmma_swap_pairs.json sweeps/swap_pairs_probe.json sweeps/perrank_swap_pairs.json "$T/wsh/sweeps/"
(cd "$T/wsh" && SPECS_ONLY=1 SET=pairs sh tests/gpu/widths.sh) >"$T/out" 2>"$T/err"
rc=$?
expect_eq heldout-9.missing "2 widths.sh: SET=pairs needs sweeps/heldout_swap_pairs.json, which is missing" "$rc $(cat "$T/err")"
# the swapped heights on two consumers (BLK_N 128) beside the held-out grid
unxz_to db/evidence/swap_pairs_h100_1207.db.xz "$T/pairs.db"
expect_exit heldout-8.11 0 python3 tests/gpu/widths_table.py "$T/pairs.db" heldout-perrank heldout-pairs
expect_eq heldout-8.12 "16 shapes both swept: cuBLAS / best, grid alone geomean 0.905 (3 at >= 1.0, worst 0.729); grid + new sizes 0.916 (3 at >= 1.0, worst 0.739)
32 shapes of the grid: cuBLAS / best, grid alone geomean 0.959 (11 at >= 1.0, worst 0.729); grid + new sizes 0.964 (11 at >= 1.0, worst 0.739)
a new size the fastest on 5 shapes" "$(tail -n 3 "$T/out")"
expect_eq heldout-8.13 "0.838 (new size)" "$(grep '^| 2194 x 1600 x 1968 ' "$T/out" | cut -d'|' -f9 | sed 's/^ *//; s/ *$//')"
expect_eq heldout-8.14 "106 106" "$(sql "select count(*), sum(r.validated) from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'pairs-check' and r.status = 'ok'" "$T/pairs.db" | tr '|' ' ')"

# tests/gpu/trace_phases.py: two timelines of two CTAs whose phases are
# set by hand (us): CTA 0 starts at 0, its MAC span 1..7 (4 slices), its
# store 8..9, its end 10; CTA 1 starts at 0.5, MACs 2..10, store 10.5..12,
# end 12.5; the second file the same with 8 slices and MAC spans 4 us
# longer. Medians: start 0.25, setup 1.25, main loop 7 (then 11), stage
# 0.75, store 1.25, exit 0.75, end 11.25 (max 12.5); the slope 1 us a slice, the fill 4 us.
cat >"$T/tp.py" <<'PY'
import json, sys
def doc(extra, slices):
    ev = []
    for cta, (k0, kd, g0, gd, p0, pd) in enumerate([(0, 10, 1, 6, 8, 1), (0.5, 12, 2, 8, 10.5, 1.5)]):
        gd += extra
        p0 += extra
        kd += extra
        ev.append({"name": "kernel", "ph": "X", "pid": 0, "tid": cta, "ts": k0, "dur": kd, "args": {"cta": cta}})
        ev.append({"name": "gemm", "ph": "X", "pid": 0, "tid": cta, "ts": g0, "dur": gd, "args": {"cta": cta, "k0": 0, "k1": slices}})
        ev.append({"name": "put", "ph": "X", "pid": 0, "tid": cta, "ts": p0, "dur": pd, "args": {"cta": cta}})
        ev.append({"name": "gemm", "ph": "X", "pid": 1, "tid": cta, "ts": 0, "dur": 99, "args": {"cta": cta, "k0": 0, "k1": 1}})
    return {"traceEvents": ev}
json.dump(doc(0, 4), open(sys.argv[1], "w"))
json.dump(doc(4, 8), open(sys.argv[2], "w"))
# the first again, CTA 1 taking over a split tile for 0.3 us before its store
d = doc(0, 4)
d["traceEvents"].append({"name": "takeover", "ph": "X", "pid": 0, "tid": 1, "ts": 10.0, "dur": 0.3, "args": {"cta": 1}})
json.dump(d, open(sys.argv[3], "w"))
PY
python3 "$T/tp.py" "$T/tp1.json" "$T/tp2.json" "$T/tp3.json"
expect_exit heldout-10.1 0 python3 tests/gpu/trace_phases.py "$T/tp1.json" "$T/tp2.json"
expect_eq heldout-10.2 "0.25 1.25 7.00 0.75 1.25 0.75 11.25" "$(grep -m 1 "median over the CTAs" "$T/out" | awk '{ print $1, $2, $3, $4, $5, $6, $7 }')"
expect_eq heldout-10.3 "0.50 1.50 8.00 1.00 1.50 1.00 12.50" "$(grep -m 1 "   max$" "$T/out" | awk '{ print $1, $2, $3, $4, $5, $6, $7 }')"
check heldout-10.4 "two CTAs of rank 0, the launch 12.5 us" grep -q "tp1.json: 2 CTAs, launch span 12.50 us, 4 K slices" "$T/out"
check heldout-10.5 "the slope and the fill" grep -q "steady main loop 1000 ns a K slice, fill and first slice 4.00 us" "$T/out"
# the take-over counts as exchange, not as staging (1.0 and 0.2; 0 and 0.3)
expect_exit heldout-10.7 0 python3 tests/gpu/trace_phases.py "$T/tp3.json"
expect_eq heldout-10.8 "0.60 0.15" "$(grep -m 1 "median over the CTAs" "$T/out" | awk '{ print $4, $8 }')"
expect_eq heldout-10.9 "1.00 0.30" "$(grep -m 1 "   max$" "$T/out" | awk '{ print $4, $8 }')"
expect_exit heldout-10.6 0 python3 -m py_compile tests/gpu/trace_phases.py

# tests/gpu/ncu_budget.py on the stored Nsight Compute pages of the
# held-out set's worst shape: a CTA's tensor cycles are 31 slices of
# 128 x 256 x 64 at 2048 MACs a cycle (31 744; cuBLAS's 224 x 128: 27 776),
# its life the SMs' mean active cycles over its share of the SMs
# (44 628.81 x 132 / 126 = 46 754; the lines docs/heldout.md quotes)
E=db/evidence/ncu_issue49_h100_1207
expect_exit heldout-11.1 0 python3 tests/gpu/ncu_budget.py "$E/m2194n1600k1968.fgo.csv" 2194 1600 1968 128 256 \
	"$E/m2194n1600k1968.cublas.csv" 2194 1600 1968 224 128
expect_eq heldout-11.2 "126 57565 31744 15010 10811" "$(grep -m 1 'fgo.csv' "$T/out" | awk -F'|' '{ print $3 + 0, $4 + 0, $5 + 0, $6 + 0, $7 + 0 }')"
expect_eq heldout-11.3 "130 39745 27776 6948 5021" "$(grep -m 1 'cublas.csv' "$T/out" | awk -F'|' '{ print $3 + 0, $4 + 0, $5 + 0, $6 + 0, $7 + 0 }')"
expect_eq heldout-11.4 "elapsed cycles 1.448x = tensor work 1.143x * in-CTA 1.178x * outside 1.076x" "$(tail -n 1 "$T/out")"
expect_exit heldout-11.5 2 python3 tests/gpu/ncu_budget.py "$E/m2194n1600k1968.fgo.csv" 2194 1600

# the timelines and the probe docs/heldout.md quotes (one H100, the trace
# step of widths.sh and swap_pairs_probe.json): trace_phases.py on the
# stored timelines gives the steady slice and the fill of each pair of K
mkdir -p "$T/tr"
python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' db/evidence/trace_issue49_h100_1207.tar.xz "$T/tr"
expect_exit heldout-12.1 0 python3 tests/gpu/trace_phases.py "$T"/tr/trace_n1600_128x256_k1968.json "$T"/tr/trace_n1600_128x256_k3936.json \
	"$T"/tr/trace_n1600_224x128_k1968.json "$T"/tr/trace_n1600_224x128_k3936.json \
	"$T"/tr/trace_n256_128x256_k1968.json "$T"/tr/trace_n256_128x256_k3936.json \
	"$T"/tr/trace_n256_224x128_k1968.json "$T"/tr/trace_n256_224x128_k3936.json
expect_eq heldout-12.2 "603 4.70
628 3.19
611 1.89
595 2.90" "$(grep 'steady main loop' "$T/out" | sed 's/.*loop \([0-9]*\) ns.*slice \([0-9.]*\) us$/\1 \2/')"
check heldout-12.3 "128x256 at N 1600: 126 CTAs, launch 28.67 us" grep -q "trace_n1600_128x256_k1968.json: 126 CTAs, launch span 28.67 us" "$T/out"
expect_exit heldout-12.4 0 python3 tests/gpu/trace_phases.py "$T"/tr/trace_m6091_g1_sm0.json "$T"/tr/trace_m6091_g1_sm132.json
check heldout-12.5 "6091: data-parallel 84.99 us, Stream-K 84.48" sh -c "grep -q 'g1_sm0.json: 132 CTAs, launch span 84.99 us' '$T/out' && grep -q 'g1_sm132.json: 132 CTAs, launch span 84.48 us' '$T/out'"
unxz_to db/evidence/pairs_probe_own_h100_1207.db.xz "$T/pp.db"
probe_best() { # M N K: the probe's best us and cuBLAS's fastest call there
	sql "select round(min(case when s.tag = 'pairs-probe' then r.t_fused_ms end) * 1000, 1) || ' ' || round(min(r.t_baseline_ms) * 1000, 1) from runs r join sweeps s on s.id = r.sweep_id where r.status = 'ok' and s.tag like 'pairs%probe' and r.m = $1 and r.n = $2 and r.k = $3" "$T/pp.db"
}
expect_eq heldout-12.6 "36.6 38.1" "$(probe_best 640 1024 12288)"
expect_eq heldout-12.7 "72.2 79.5" "$(probe_best 2048 768 14336)"
expect_eq heldout-12.8 "40.7 35.1" "$(probe_best 768 1536 8192)"
expect_eq heldout-12.9 "35.6 21.8" "$(probe_best 200 768 14336)"
expect_eq heldout-12.10 "216 216 1140 1140" "$(sql "select sum(s.tag = 'pairs-probe' and r.status = 'ok'), sum(s.tag = 'pairs-probe' and r.validated), sum(s.tag = 'perrank-pairs' and r.status = 'ok'), sum(s.tag = 'perrank-pairs' and r.validated) from runs r join sweeps s on s.id = r.sweep_id" "$T/pp.db" | tr '|' ' ')"

# the Stream-K exchange at 6091 x 1520 x 2416 (docs/heldout.md): data-parallel,
# the sum and the slots, two rounds, every run validated; the traced spans
unxz_to db/evidence/sk_exchange_h100_1207.db.xz "$T/ex.db"
expect_eq heldout-14.1 "sk-exchange-1 0 0 85.4 1
sk-exchange-1 132 0 86.0 1
sk-exchange-1 132 1 80.7 1
sk-exchange-2 0 0 85.9 1
sk-exchange-2 132 0 86.5 1
sk-exchange-2 132 1 81.1 1" "$(sql "select s.tag, r.gemm_sms, r.deterministic, round(r.t_fused_ms * 1000, 1), r.validated from runs r join sweeps s on s.id = r.sweep_id where s.tag like 'sk-exchange%' order by s.tag, r.id" "$T/ex.db" | tr '|' ' ')"
mkdir -p "$T/ex" && tar xJf db/evidence/sk_exchange_traces_h100_1207.tar.xz -C "$T/ex"
expect_exit heldout-14.2 0 python3 tests/gpu/trace_phases.py "$T/ex/trace_exchange_d0.json" "$T/ex/trace_exchange_d1.json"
check heldout-14.3 "the sum's launch 83.71 us, the slots' 78.08" sh -c "grep -q 'd0.json: 132 CTAs, launch span 83.71 us' '$T/out' && grep -q 'd1.json: 132 CTAs, launch span 78.08 us' '$T/out'"

# auto's trials measured (docs/heldout.md, "What auto does now"): the
# summary lines of heldout_table.py on each stored set, auto with its
# trials and alone, and the shapes drawn for seed 50 are the rule's
summary() { # STORE GRID DEFAULTS AUTO: the geomeans and counts quoted
	python3 tests/gpu/heldout_table.py "$1" "$2" "$3" "$4" | sed -n \
		-e 's/^best \/ cuBLAS.*geomean \([0-9.]*\), min \([0-9.]*\) at .*, \([0-9]*\) of.*/best \1 \2 \3/p' \
		-e 's/^defaults \/ best: geomean \([0-9.]*\), max \([0-9.]*\) .*within 15% on \([0-9]*\) of.*/defaults \1 \2 \3/p' \
		-e 's/^auto \/ best: geomean \([0-9.]*\), max \([0-9.]*\) .*within 5% on \([0-9]*\) of.*/auto \1 \2 \3/p' | tr '\n' ' '
}
for set in s50 s49 own; do
	unxz_to "db/evidence/auto_trials_${set}_h100_1207.db.xz" "$T/at_$set.db"
done
expect_eq heldout-13.1 "best 0.972 0.767 14 defaults 1.107 1.394 24 auto 1.027 1.259 24 " \
	"$(summary "$T/at_s50.db" heldout-perrank heldout-defaults heldout-auto)"
expect_eq heldout-13.2 "best 0.972 0.767 14 defaults 1.107 1.394 24 auto 1.057 1.377 19 " \
	"$(summary "$T/at_s50.db" heldout-perrank heldout-defaults heldout-auto-1)"
expect_eq heldout-13.3 "best 0.963 0.723 14 defaults 1.111 1.435 22 auto 1.032 1.201 22 " \
	"$(summary "$T/at_s49.db" heldout-perrank heldout-defaults heldout-auto)"
expect_eq heldout-13.4 "best 0.963 0.723 14 defaults 1.111 1.435 22 auto 1.053 1.409 21 " \
	"$(summary "$T/at_s49.db" heldout-perrank heldout-defaults heldout-auto-1)"
expect_eq heldout-13.5 "best 1.005 0.928 24 defaults 1.095 1.794 34 auto 1.008 1.152 39 " \
	"$(summary "$T/at_own.db" perrank perrank-defaults perrank-auto)"
expect_eq heldout-13.6 "best 1.005 0.928 24 defaults 1.095 1.794 34 auto 1.022 1.224 34 " \
	"$(summary "$T/at_own.db" perrank perrank-defaults perrank-auto-1)"
# the trials are what auto ran (these stores: auto_trials 3, the default
# then): up to four runs a shape, one at most with --auto-trials 1
expect_eq heldout-13.7 "4 1" "$(sql "select max(c) from (select count(*) c from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'heldout-auto' group by r.m, r.n, r.k)" "$T/at_s50.db") $(sql "select max(c) from (select count(*) c from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'heldout-auto-1' group by r.m, r.n, r.k)" "$T/at_s50.db")"
# the derived-table study (docs/heldout.md, "A derived table"): trained on
# the own set and one draw, scored on the other, beside the committed table
tree() { # TRAIN TEST: the tree's and the table's lines on TEST
	python3 tests/bench/defaults_tree.py "$1" "$2" --table-tag heldout-defaults |
		sed -n 's/^.* \(tree\|table\)[ :].*32 shapes: geomean \([0-9.]*\), within 15% \([0-9]*\), worst \([0-9.]*\)$/\1 \2 \3 \4/p' | tr '\n' ' '
}
expect_eq heldout-15.1 "tree 1.072 27 1.366 table 1.110 24 1.387 " \
	"$(tree "$T/at_own.db:perrank,$T/at_s49.db:heldout-perrank" "$T/at_s50.db:heldout-perrank")"
expect_eq heldout-15.2 "tree 1.101 24 1.746 table 1.118 19 1.434 " \
	"$(tree "$T/at_own.db:perrank,$T/at_s50.db:heldout-perrank" "$T/at_s49.db:heldout-perrank")"
check heldout-15.3 "eight boxes, every pick one a row can hold" sh -c \
	"python3 tests/bench/defaults_tree.py '$T/at_own.db:perrank,$T/at_s49.db:heldout-perrank' '$T/at_s50.db:heldout-perrank' >'$T/tree.txt' &&
	 grep -q '^a tree of 8 boxes from 74 shapes' '$T/tree.txt' && [ \$(grep -c '/g8/sm0+0/c0x0' '$T/tree.txt') = 8 ]"
check heldout-15.6 "the 2 nearest: 1.085, 27 on seed 50" sh -c \
	"python3 tests/bench/defaults_tree.py '$T/at_own.db:perrank,$T/at_s49.db:heldout-perrank' '$T/at_s50.db:heldout-perrank' --knn 2 |
	 grep -q '2 nearest: 32 shapes: geomean 1.085, within 15% 27, worst 1.574'"
check heldout-15.7 "the hand rows kept in 3 boxes: 1.080, 25 on seed 49" sh -c \
	"python3 tests/bench/defaults_tree.py '$T/at_own.db:perrank:perrank-defaults,$T/at_s50.db:heldout-perrank:heldout-defaults' '$T/at_s49.db:heldout-perrank' --table-tag heldout-defaults --keep-hand |
	 grep -q \"tree, the table's picks in 3 of its boxes: 32 shapes: geomean 1.080, within 15% 25, worst 1.746\""
expect_exit heldout-15.8 1 python3 tests/bench/defaults_tree.py "$T/at_own.db:perrank" "$T/at_s49.db:heldout-perrank" --keep-hand
expect_err heldout-15.9 "--keep-hand needs each TRAIN as STORE:GRID_TAG:DEFAULTS_TAG and --table-tag"
expect_exit heldout-15.4 1 python3 tests/bench/defaults_tree.py "$T/at_s50.db:no-such-tag" "$T/at_s49.db:heldout-perrank"
expect_err heldout-15.5 "defaults_tree: no ok gemm W=1 runs tagged no-such-tag"
# seed 50's shapes in the store are the rule's draw
mkdir -p "$T/s50" && python3 tests/bench/heldout_shapes.py --seed 50 --out "$T/s50" >/dev/null 2>&1
expect_eq heldout-13.8 "$(python3 -c "import json; print(' '.join('%dx%dx%d' % tuple(s) for s in sorted(json.load(open('$T/s50/heldout_defaults.json'))['shapes'])))")" \
	"$(sql "select distinct r.m || 'x' || r.n || 'x' || r.k from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'heldout-defaults' order by r.m, r.n, r.k" "$T/at_s50.db" | tr '\n' ' ' | sed 's/ $//')"

# the fused set (issue 51): global shapes, M, N, K multiples of 4 (N and
# K of 32), decode and prefill; none in another spec as fgobench plans it,
# nor in the per-rank set, nor its per-rank GEMMs at W = 2, 4
fshapes=$(python3 -c "import json; print('\n'.join('%d %d %d' % tuple(s) for s in json.load(open('sweeps/heldout_mgpu.json'))['blocks'][0]['shapes']))")
nf=$(echo "$fshapes" | wc -l)
printf '%s\n' "$shapes" >"$T/held"
check heldout-7.1 "at least 12 fused shapes ($nf)" [ "$nf" -ge 12 ]
expect_eq heldout-7.2 "$nf" "$(echo "$fshapes" | sort -u | wc -l)"
expect_eq heldout-7.3 "" "$(echo "$fshapes" | awk '$1 % 4 || $2 % 32 || $3 % 32 || $1 < 4 || $2 < 1024 || $3 < 1024')"
expect_eq heldout-7.4 "decode yes, prefill yes" "$(echo "$fshapes" | awk '$1 <= 192 { d++ } $1 >= 256 { p++ } END { printf "decode %s, prefill %s", (d >= 4 ? "yes" : d), (p >= 4 ? "yes" : p) }')"
expect_eq heldout-7.5 "" "$(echo "$fshapes" | grep -Fxf "$T/tuned")"
expect_eq heldout-7.6 "" "$(echo "$fshapes" | grep -Fxf "$T/held")"
forms=$(echo "$fshapes" | awk '{ for (w = 2; w <= 4; w += 2) { print $1, $2 / w, $3; print $1, $2, $3 / w; print $1 / w, $2, $3 } }')
expect_eq heldout-7.7 "" "$(echo "$forms" | grep -Fxf "$T/tuned")"
expect_eq heldout-7.8 "" "$(echo "$forms" | grep -Fxf "$T/held")"
# mgpu.json's grid: its blocks and keys unchanged apart from the shapes
# (every held-out shape where a block lists the standard five), W = 2, 4
expect_eq heldout-7.9 "ok" "$(python3 - <<'PY'
import json
g = json.load(open("sweeps/mgpu.json"))
h = json.load(open("sweeps/heldout_mgpu.json"))
std = g["blocks"][0]["shapes"]
full = h["blocks"][0]["shapes"]
strip = lambda b: {k: v for k, v in b.items() if k != "shapes"}
bad, hb, j = [], h["blocks"], 0
for i, b in enumerate(g["blocks"]):
    if j < len(hb) and strip(hb[j]) == strip(b):
        if b["shapes"] == std and hb[j]["shapes"] != full:
            bad.append("block %d's shapes" % i)
        if not set(map(tuple, hb[j]["shapes"])) <= set(map(tuple, full)):
            bad.append("block %d: a shape not in the set" % i)
        j += 1
    elif b["shapes"] == std:
        bad.append("block %d missing" % i)
if j != len(hb):
    bad.append("a block not mgpu.json's")
for k in g:
    if k not in ("name", "description", "world", "blocks") and g[k] != h.get(k):
        bad.append(k)
if h["world"] != [2, 4]:
    bad.append("world %s" % h["world"])
print("; ".join(bad) or "ok")
PY
)"
# fgobench plans it: every family at W = 2 and 4 has a valid configuration on every shape
expect_exit heldout-7.10 0 "$FGO" sweep sweeps/heldout_mgpu.json --dry-run --format csv
expect_eq heldout-7.11 "" "$(awk -F, 'NR > 1 { k = $2 " W" $4 " " $5 "x" $6 "x" $7; if ($15 == "yes") v[k] = 1; else if (!(k in v)) v[k] = 0 } END { for (k in v) if (!v[k]) print k }' "$T/out" | sort | head -n 3)"
expect_eq heldout-7.12 "all_gather_gemm_pull all_gather_gemm_push all_reduce_one_shot all_reduce_two_shot all_scatter reduce_scatter sk_all_reduce sk_all_scatter; 2 4" \
	"$(awk -F, 'NR > 1 && $15 == "yes" { print $2 }' "$T/out" | sort -u | tr '\n' ' ' | sed 's/ $//'); $(awk -F, 'NR > 1 { print $4 }' "$T/out" | sort -u | tr '\n' ' ' | sed 's/ $//')"
# a spec that measures a fused held-out shape, or its per-rank GEMM: no longer held out
set -- $(echo "$fshapes" | head -n 1)
printf '{"algorithm": "all_scatter", "world": 2, "M": %d, "N": %d, "K": %d}\n' "$1" "$2" "$3" >"$T/sw/later.json"
expect_exit heldout-7.13 1 $GEN --check --sweeps "$T/sw"
check heldout-7.14 "names the fused shape and the spec" grep -q "^heldout_shapes: ${1}x${2}x${3} of sweeps/heldout_mgpu.json is measured by sw/later.json" "$T/out"
rm "$T/sw/later.json"
printf '{"algorithm": "gemm", "world": 1, "M": %d, "N": %d, "K": %d}\n' "$1" $(($2 / 4)) "$3" >"$T/sw/rank.json"
expect_exit heldout-7.15 1 $GEN --check --sweeps "$T/sw"
check heldout-7.16 "names its per-rank GEMM at W=4" grep -q "^heldout_shapes: ${1}x${2}x${3} of sweeps/heldout_mgpu.json is measured by sw/rank.json (its per-rank GEMM ${1}x$(($2 / 4))x${3})" "$T/out"
rm "$T/sw/rank.json"
expect_exit heldout-7.17 2 $GEN --fused-models 2 --fused-random 1
expect_err heldout-7.18 "--fused-models + --fused-random must be at least 4"
