# 38_user_kernel.sh: a kernel engineer's own kernel end to end on the CPU
# backend (issue 34): the three worked examples of kernels/user/ swept under
# mpirun -np 2 (their C forms compiled by cc, validated against the
# family's reference, timed against its baseline, stored as user:NAME),
# best, show and regress on them (an edited copy swept by --kernel, as
# README "Your own kernel" shows); then the errors people make, each with
# its message and no run stored as ok: a wrong element, a flag never
# raised, a source that does not compile, a launch past the limits, bad
# manifests (exit 2, nothing stored).
. tests/e2e/lib.sh
export FGOBENCH_CACHE="$T/cache"

# ---- the from-scratch example, by its spec's "kernel" ----
expect_exit user-1.1 0 mpi 2 sweep sweeps/user_all_scatter.json --tag scratch --quiet
expect_eq user-1.2 "8 8 8 1" "$(sql "select count(*), sum(status = 'ok' and validated = 1),
	sum(t_gemm_ms > 0 and t_comm_ms > 0 and t_baseline_ms > 0), count(distinct kernel_hash)
	from runs where algorithm = 'user:my_all_scatter'" | tr '|' ' ')"
expect_eq user-1.3 "kernels/user/my_all_scatter/manifest.json 4" "$(sql "select kernel_manifest,
	count(distinct kernel_params) from runs group by kernel_manifest" | tr '|' ' ')"
expect_eq user-1.4 8 "$(sql "select count(*) from runs where config_key like
	'user:my_all_scatter/%/u:BLOCK_M=%,BLOCK_N=%/src:' || kernel_hash and length(kernel_hash) = 16")"
# the compiled objects are in the kernel cache: one per tunables, dtype and mode
expect_eq user-1.5 12 "$(ls "$T/cache/user" | grep -c '\.so$')"

# best picks among the kernel's tunables; show names the manifest and hash
expect_exit user-2.1 0 "$FGO" best --algorithm user:my_all_scatter --format csv
win=$(sql "select kernel_params from runs where m = 128 order by t_fused_ms limit 1")
check user-2.2 "the winner $win in: $(head -3 "$T/out")" grep -q "user:my_all_scatter.*$win" "$T/out"
id=$(sql "select id from runs where algorithm = 'user:my_all_scatter' order by id limit 1")
hash=$(sql "select kernel_hash from runs where id = $id")
expect_exit user-2.3 0 "$FGO" show "$id"
check user-2.4 "show: manifest, hash, params" sh -c "grep -q '^kernel_manifest  *kernels/user/my_all_scatter/manifest.json' '$T/out' &&
	grep -q '^kernel_hash  *$hash' '$T/out' && grep -q '^kernel_params  *BLOCK_M=32,BLOCK_N=32' '$T/out'"
check user-2.5 "show: the line that sweeps it again" \
	grep -q "fgobench sweep sweeps/user_all_scatter.json --kernel kernels/user/my_all_scatter/manifest.json" "$T/out"

# ---- the example on fgobench's schedule.h (README: by its spec) ----
expect_exit user-3.1 0 mpi 2 sweep sweeps/user_tiled.json --tag tiled --quiet
expect_eq user-3.2 "8 8" "$(sql "select count(*), sum(status = 'ok' and validated = 1) from runs
	where algorithm = 'user:tiled_all_scatter'" | tr '|' ' ')"

# ---- the shipped all_scatter through the contract (kernels/user/
# shipped_all_scatter; its C form is the tiled example's schedule, included)
# with the problem as macros ("shape_macros"): one object a problem, in a
# cache of its own; trimmed to one warp count and residency, on two shapes ----
mkdir -p "$T/ku/shipped_all_scatter" "$T/ku/tiled_all_scatter"
cp kernels/user/shipped_all_scatter/shipped_all_scatter.* "$T/ku/shipped_all_scatter/"
cp kernels/user/tiled_all_scatter/tiled_all_scatter.c "$T/ku/tiled_all_scatter/"
sed -e 's/"BLK_N": \[64, 128\]/"BLK_N": [64]/' -e 's/"NUM_WARPS": \[4, 8\]/"NUM_WARPS": [4]/' \
	-e 's/"CTAS_PER_SM": \[1, 2, 3, 4\]/"CTAS_PER_SM": [1]/' kernels/user/shipped_all_scatter/manifest.json \
	>"$T/ku/shipped_all_scatter/manifest.json"
printf '{"kernel": "ku/shipped_all_scatter/manifest.json", "dtype": "bf16", "world": 2,
 "shapes": [[160, 256, 64], [96, 128, 32]], "iterations": 3, "warmup": 1}\n' >"$T/shipped.json"
expect_exit user-3.3 0 env FGOBENCH_CACHE="$T/scache" mpirun --oversubscribe -np 2 "$FGO" sweep \
	"$T/shipped.json" --tag shipped --quiet
expect_eq user-3.4 "4 4 4" "$(sql "select count(*), sum(status = 'ok' and validated = 1),
	sum(t_gemm_ms > 0 and t_comm_ms > 0) from runs where algorithm = 'user:shipped_all_scatter'" | tr '|' ' ')"
# 2 tiles x 3 modes x 2 problems
expect_eq user-3.5 12 "$(ls "$T/scache/user" | grep -c '\.so$')"
expect_exit user-3.6 0 "$FGO" sweep sweeps/user_shipped.json --dry-run
expect_err user-3.7 "96 configurations, 96 valid"

# ---- regress pairs an edited kernel's runs with the ones before it ----
mkdir -p "$T/k"
cp kernels/user/my_all_scatter/my_all_scatter.c "$T/k/"
sed -e 's/"BLOCK_M": \[32, 64\]/"BLOCK_M": [64]/' -e 's/"values": \[32, 64\]/"values": [64]/' \
	-e 's/, "gpu": "my_all_scatter.cu"//' kernels/user/my_all_scatter/manifest.json >"$T/k/m.json"
expect_exit user-4.1 0 mpi 2 sweep sweeps/user_all_scatter.json --kernel "$T/k/m.json" --tag before --quiet
echo "/* edited */" >>"$T/k/my_all_scatter.c"
expect_exit user-4.2 0 mpi 2 sweep sweeps/user_all_scatter.json --kernel "$T/k/m.json" --tag after --quiet
expect_eq user-4.3 2 "$(sql "select count(distinct kernel_hash) from runs where kernel_manifest = '$T/k/m.json'")"
"$FGO" regress --base before --head after --format csv >"$T/out" 2>"$T/err"
check user-4.4 "both configurations paired across the edit: $(cat "$T/err")" \
	sh -c "grep -q '2 compared, .* 0 only in base, 0 only in head' '$T/err' &&
	[ \$(grep -c '^user:my_all_scatter,.*BLOCK_M=64,BLOCK_N=64' '$T/out') = 2 ]"
# the nightly gate and history pair them across the edit too
"$FGO" regress --gate --base before --head after --format csv >"$T/out" 2>"$T/err"
check user-4.5 "the gate pairs across the edit: $(cat "$T/err")" \
	grep -q '2 compared, .* 0 only in base, 0 only in head' "$T/err"
# history follows a configuration across edits where the spec names the
# kernel (with --kernel each edit is a sweep of its own, for --resume)
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["kernel"]="m.json"; json.dump(d,open(sys.argv[2],"w"))' \
	sweeps/user_all_scatter.json "$T/k/spec.json"
expect_exit user-4.6 0 mpi 2 sweep "$T/k/spec.json" --tag spec-1 --quiet
echo "/* edited again */" >>"$T/k/my_all_scatter.c"
mpi 2 sweep "$T/k/spec.json" --tag spec-2 --quiet >/dev/null 2>&1
key=$(sql "select r.config_key from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'spec-2'
	and r.status = 'ok' and r.m = 128")
expect_exit user-4.8 0 "$FGO" history --algorithm user:my_all_scatter -m 128 -n 128 -k 64 \
	--world 2 --config "$key" --format csv
expect_eq user-4.7 2 "$(grep -c '^[0-9]' "$T/out")"

# ---- tune searches a user kernel: its manifest's tunables over the problem ----
man=kernels/user/my_all_scatter/manifest.json
expect_exit user-9.1 0 mpi 2 tune --kernel "$man" -m 128 -n 128 -k 64 --strategy grid --quiet
expect_eq user-9.2 "4 4" "$(sql "select count(*), sum(r.status = 'ok' and r.validated = 1) from runs r
	join sweeps s on s.id = r.sweep_id where s.tag like 'tune-user-my_all_scatter-%-grid-s1'" | tr '|' ' ')"
expect_exit user-9.3 0 mpi 2 tune --kernel "$man" --algorithm user:my_all_scatter -m 128 -n 128 -k 64 \
	--strategy random --budget 2 --quiet
expect_exit user-9.4 2 "$FGO" tune --algorithm user:my_all_scatter -m 128 -n 128 -k 64
expect_err user-9.5 "is a user kernel: give its manifest with --kernel MANIFEST"
expect_exit user-9.6 2 "$FGO" tune --kernel "$man" --algorithm all_scatter -m 128 -n 128 -k 64
expect_err user-9.7 "--algorithm all_scatter cannot apply"
expect_exit user-9.8 2 "$FGO" tune --kernel "$man" --strategy model -m 128 -n 128 -k 64
expect_err user-9.9 "for --kernel use grid, random, anneal or halving"
expect_exit user-9.10 2 "$FGO" tune --kernel "$man" --algorithm user:other -m 128 -n 128 -k 64 --world 1
expect_err user-9.11 "but $man is the kernel user:my_all_scatter"

# ---- the errors people make (world 1, one problem) ----
runs_ok() { sql "select count(*) from runs where status = 'ok'"; }
cp tests/e2e/user/bad.c tests/e2e/user/broken.c "$T/k/"
expect_exit user-5.1 1 mpi 1 sweep tests/e2e/user/w1.json --kernel tests/e2e/user/bad.json
expect_eq user-5.2 "mismatch" "$(sql "select status from runs where algorithm = 'user:bad'")"
check user-5.3 "the wrong element named: $(sql "select reason from runs where algorithm = 'user:bad'")" \
	sh -c "sqlite3 '$FGOBENCH_DB' \"select reason from runs where algorithm = 'user:bad'\" | grep -q 'first at C\[3\]\[5\]'"
sed -e 's/"BUG": \[1\]/"BUG": [2]/' -e 's/"name": "bad"/"name": "silent"/' tests/e2e/user/bad.json >"$T/k/silent.json"
expect_exit user-5.4 1 mpi 1 sweep tests/e2e/user/w1.json --kernel "$T/k/silent.json" --timeout 0.3
expect_eq user-5.5 "timeout" "$(sql "select status from runs where algorithm = 'user:silent'")"
check user-5.6 "the flag named: $(sql "select reason from runs where algorithm = 'user:silent'")" \
	sh -c "sqlite3 '$FGOBENCH_DB' \"select reason from runs where algorithm = 'user:silent'\" | grep -q 'gave up after 0.3 s.*flag 0 of rank 0'"
sed -e 's/"bad.c"/"broken.c"/' -e 's/"entry": "bad"/"entry": "broken"/' -e 's/"name": "bad"/"name": "broken"/' \
	tests/e2e/user/bad.json >"$T/k/broken.json"
expect_exit user-5.7 1 mpi 1 sweep tests/e2e/user/w1.json --kernel "$T/k/broken.json"
check user-5.8 "the compiler's message and the configuration on stderr" sh -c \
	"grep -q 'user:broken BUG=1 fp32 fused: .*broken.c does not compile' '$T/err' && grep -q \"broken.c:8:.*undeclared_name\" '$T/err'"
expect_eq user-5.9 "failed 1" "$(sql "select status, reason like 'does not compile%undeclared_name%' from runs where algorithm = 'user:broken'" | tr '|' ' ')"
cat >"$T/k/huge.json" <<'EOF'
{
  "name": "huge", "family": "all_scatter", "source": { "c": "bad.c" }, "entry": "bad",
  "tunables": { "BUG": [0], "THREADS": [64, 2048], "SMEM": [0, 300000] },
  "grid": 1, "block": "THREADS", "shared_memory": "SMEM", "flags": 1
}
EOF
expect_exit user-5.10 0 mpi 1 sweep tests/e2e/user/w1.json --kernel "$T/k/huge.json"
expect_eq user-5.11 "invalid 3 2 1 ok 1" "$(sql "select status, count(*), sum(reason like '%block of 2048 threads%a GPU allows 1 to 1024%'),
	sum(reason like '%300000 bytes of dynamic shared memory%more than the 232448%') from runs
	where algorithm = 'user:huge' group by status order by status" | tr '|\n' '  ' | sed 's/ *$//;s/ok 1 0 0/ok 1/')"

# a kernel cache whose user/ folder is a link elsewhere: nothing is written through it
mkdir -p "$T/elsewhere" "$T/linked"
ln -s "$T/elsewhere" "$T/linked/user"
expect_exit user-5.12 1 env FGOBENCH_CACHE="$T/linked" mpirun --oversubscribe -np 1 "$FGO" sweep \
	tests/e2e/user/w1.json --kernel "$T/k/huge.json"
check user-5.13 "refused, and nothing written there: $(ls "$T/elsewhere")" sh -c \
	"grep -q 'linked/user is not a folder (a symbolic link?)' '$T/err' && [ -z \"\$(ls '$T/elsewhere')\" ]"

# ---- bad manifests: exit 2 with the place, nothing stored ----
before=$(sql "select count(*) from runs")
M=kernels/user/my_all_scatter/manifest.json
cp kernels/user/my_all_scatter/my_all_scatter.* "$T/k/"
bad_manifest() { # ID SED-EXPRESSION TEXT
	sed "$2" "$M" >"$T/k/x.json"
	expect_exit "$1" 2 "$FGO" sweep sweeps/user_all_scatter.json --kernel "$T/k/x.json"
	expect_err "$1-msg" "$3"
}
bad_manifest user-6.1 's/"flags"/"flagz"/' "x.json:14:3: unknown key \"flagz\" (did you mean \"flags\"?)"
bad_manifest user-6.2 's/ceil_div(M, BLOCK_M) \* ceil_div(N \/ W, BLOCK_N)",$/ceil_div(M, BLOK_M)",/' \
	"x.json:11:24: bad expression in \"grid\": unknown name \"BLOK_M\""
bad_manifest user-6.3 's/"family": "all_scatter"/"family": "all_scater"/' \
	"x.json:4:13: unknown family \"all_scater\" (did you mean \"all_scatter\"?"
bad_manifest user-6.4 's/"my_all_scatter.c"/"missing.c"/' "x.json:5:20: cannot read $T/k/missing.c"
expect_eq user-6.5 "$before" "$(sql "select count(*) from runs")"
