#!/bin/sh
# tests/gpu/contain.sh: a bad configuration is a result on a GPU too (issue
# 48, docs/reliability.md). tests/gpu/hostile's kernel misbehaves on rank 1
# for one value of its tunable FAULT: an illegal address, a trap (both lose
# the GPU context), a kernel that never ends, a write into its input B. Each
# kind is one `fgobench sweep` with no mpirun typed (fgobench starts the two
# ranks, sharing the GPU, and supervises them) over two problems with FAULT
# in [0, KIND, 9]: the four good configurations must be stored ok, the two
# bad ones with their status and reason, the exit status 1, and a second
# --resume runs nothing. Prints PASS/FAIL lines; the stores and logs go to
# $OUT. The build made elsewhere (`make GPU=cuda`), as tests/gpu/run.sh.
#   OUT=/some/dir sh tests/gpu/contain.sh
set -u
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0
nccl=$(python3 -c "import nvidia.nccl,os;print(os.path.join(list(nvidia.nccl.__path__)[0],'lib'))" 2>/dev/null || true)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${nccl}:${LD_LIBRARY_PATH:-}
build=${FGOBENCH_BUILD:-build/cuda}
fgo=$PWD/$build/fgobench
work=$(mktemp -d /tmp/fgobench-contain.XXXXXX)
export FGOBENCH_CACHE=$work/cache
mkdir -p "$work/k/hostile" "$FGOBENCH_CACHE"
cp tests/gpu/hostile/hostile.cu "$work/k/hostile/"
printf '{"kernel": "hostile/manifest.json", "dtype": "fp32", "world": 2,
 "shapes": [[128, 128, 64], [64, 256, 32]], "iterations": 3, "warmup": 1}\n' >"$work/k/spec.json"
# the GPU machines may have no sqlite3 program: Python's module prints as it does
if ! command -v sqlite3 >/dev/null 2>&1; then
	sqlite3() {
		python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for row in c.execute(sys.argv[2]):
    print("|".join("" if v is None else str(v) for v in row))' "$@"
	}
fi
passed=0
failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
expect_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected \"$2\", got \"$3\""; fi; }

# kind NAME FAULT STATUS REASON
kind() {
	k=$1 fault=$2 status=$3 reason=$4
	db=$OUT/contain-$k.db
	rm -f "$db"*
	sed "s/\"FAULT\": \[0, 1, 9\]/\"FAULT\": [0, $fault, 9]/" tests/gpu/hostile/manifest.json \
		>"$work/k/hostile/manifest.json"
	start=$(date +%s.%N)
	"$fgo" sweep "$work/k/spec.json" --db "$db" --backend gpu --timeout 5 --quiet \
		>"$OUT/contain-$k.log" 2>&1
	rc=$?
	took=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }")
	expect_eq "gpu-contain-$k.1" 1 "$rc"
	expect_eq "gpu-contain-$k.2" "6 4 2" "$(sqlite3 "$db" "select count(*), sum(status = 'ok'),
		sum(status = '$status' and kernel_params = 'FAULT=$fault') from runs" | tr '|' ' ')"
	expect_eq "gpu-contain-$k.3" 2 "$(sqlite3 "$db" "select count(*) from runs
		where status = '$status' and reason like '%$reason%'")"
	expect_eq "gpu-contain-$k.4" "4 4" "$(sqlite3 "$db" "select sum(kernel_params <> 'FAULT=$fault'),
		sum(kernel_params <> 'FAULT=$fault' and validated = 1) from runs" | tr '|' ' ')"
	"$fgo" sweep "$work/k/spec.json" --db "$db" --backend gpu --timeout 5 --resume \
		>"$OUT/contain-$k-resume.log" 2>&1
	expect_eq "gpu-contain-$k.5" "0 1" "$? $(grep -c 'already complete' "$OUT/contain-$k-resume.log")"
	expect_eq "gpu-contain-$k.6" ok "$(sqlite3 "$db" "pragma integrity_check")"
	echo "# $k: $took s, jobs: $(($(grep -c 'goes on in a new job' "$OUT/contain-$k.log") + 1))"
	sqlite3 "$db" "select kernel_params, m, status, reason from runs where status <> 'ok'"
}

kind illegal-address 1 crashed "an illegal memory access"
kind trap 2 crashed "the GPU context is lost"
kind loop 3 hung "ran past its limit of 10 s"
kind own-input 4 corrupted "input B on rank 1"
rm -rf "$work"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
