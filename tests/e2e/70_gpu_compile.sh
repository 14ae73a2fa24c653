# 70_gpu_compile.sh: the GPU kernels compile, no GPU needed.
#   compile-1  the CPU build: `compile --help`, its refusal (exit 2), bad usage
#   compile-2  with the CUDA toolkit (/usr/local/cuda): `make GPU=cuda`, then
#              `fgobench compile` for sm_90a (NVRTC) of CI's representative
#              set, sweeps/ci_compile.json (mma.sync and SIMT) and
#              sweeps/ci_compile_wgmma.json (Hopper) with ci_compile_widths.json
#              (BLK_N between the powers of two), of sweeps/wgmma_check.json
#              and ci_compile_walk.json (the walk: split-K and Stream-K in
#              every family; sweeps/wgmma_splitk.json's 64 split kernels are
#              the GPU check's, tests/gpu/splitk.sh); a fresh cache, a bad spec,
#              a bad --arch;
#              a damaged cache entry (garbage, cut short, the old format, one
#              byte, a symbolic link) compiled again and replaced, one note
#              and traced kernels (compile --trace): their own entries;
#              the GPU forms of kernels/user/'s three worked examples
#   compile-3  with clang-19 (no ROCm): calibrate.hip and check.hip for gfx942
#              and gfx90a (the families' kernels are compile-5's)
#   compile-4  with HIP's headers and library (libamdhip64-dev): `make GPU=hip`,
#              then `fgobench compile` of sweeps/smoke.json for gfx90a (hiprtc:
#              Debian's HIP 5.2, on the MFMA core)
#   compile-5  the MFMA core through clang-19 (and the traced kernels of the
#              three traced families): sweeps/ci_compile_amd.json for
#              gfx942 and gfx90a (22 kernels each), every code object's ISA
#              holding the v_mfma of the size asked for, no scratch, LDS <= 64 KiB,
#              a wave per SIMD; each dtype's instruction by name
# A missing toolkit prints "SKIP ..." (counted neither way); with
# FGOBENCH_REQUIRE_GPU_TOOLS=1 (CI) it is a failure instead. The specs
# compile into build/kernel-cache, kept between runs: a kernel whose source,
# options and compiler are unchanged is found there (the cache key covers
# them all), so only the first run pays for the ~150 compiles (NVRTC and
# hiprtc; CI starts from a clean clone and pays them every time, about a
# minute on 2 cores). The full compile checks (sweeps/smoke.json,
# gpu_smoke.json, wgmma_fused.json, wgmma_reduce.json, wgmma_streamk.json:
# ~500 kernels) are what `make bundle` compiles.
. tests/e2e/lib.sh

missing() { # ID WHAT
	if [ "${FGOBENCH_REQUIRE_GPU_TOOLS:-0}" = 1 ]; then
		fail "$1" "$2 (FGOBENCH_REQUIRE_GPU_TOOLS=1)"
	else
		echo "SKIP $1: $2"
	fi
}

# csv_status FILE STATUS: rows of `compile --format csv` output with that status
csv_status() { awk -F, -v s="$2" 'NR > 1 && $11 == s' "$1" | wc -l; }
# csv_counts FILE: "compiled+cached error invalid skipped" of a compile
csv_counts() {
	echo "$(($(csv_status "$1" compiled) + $(csv_status "$1" cached))) $(csv_status "$1" error)" \
		"$(csv_status "$1" invalid) $(csv_status "$1" skipped)"
}

# ---- a GPU build names the toolchain it lacks (src/make/deps.sh check-gpu, run
# by `make GPU=cuda|hip` before any compile) ----
expect_exit deps-gpu-1.1 2 sh src/make/deps.sh check-gpu cuda "$T/no-cuda"
expect_err deps-gpu-1.2 "$T/no-cuda/include/cuda.h is missing: install the CUDA toolkit"
expect_exit deps-gpu-1.3 2 sh src/make/deps.sh check-gpu hip "$T/no-rocm"
expect_err deps-gpu-1.4 "install libamdhip64-dev (as root: make deps GPU=hip)"
expect_exit deps-gpu-1.5 2 sh src/make/deps.sh check-gpu vulkan
mkdir -p "$T/half-cuda/include" && : > "$T/half-cuda/include/cuda.h"
expect_exit deps-gpu-1.6 2 sh src/make/deps.sh check-gpu cuda "$T/half-cuda"
expect_err deps-gpu-1.7 "include/nvrtc.h is missing"

# ---- the CPU build ----
expect_exit compile-1.1 0 "$FGO" compile --help
check compile-1.2 "--help starts with the synopsis" grep -q '^usage: fgobench compile SPEC' "$T/out"
expect_exit compile-1.3 2 "$FGO" compile sweeps/smoke.json
expect_err compile-1.4 'this fgobench was built without a GPU backend: build it with `make GPU=cuda`'
expect_exit compile-1.5 2 "$FGO" compile
expect_err compile-1.6 "missing SPEC"
expect_exit compile-1.7 2 "$FGO" compile sweeps/smoke.json --bogus
expect_err compile-1.8 'unknown option "--bogus"'
expect_exit compile-1.9 2 "$FGO" compile sweeps/smoke.json -j 0
expect_exit compile-1.10 2 "$FGO" compile sweeps/smoke.json --format xml
expect_exit compile-1.11 2 "$FGO" compile sweeps/smoke.json --arch

# ---- the GPU build, NVRTC ----
CUDA=${CUDA:-/usr/local/cuda}
if [ ! -f "$CUDA/include/nvrtc.h" ]; then
	missing compile-2 "no $CUDA (the CUDA toolkit): the GPU build and its kernel compiles were not checked"
else
	# a make started by `make test` must not inherit its jobserver
	unset MAKEFLAGS MFLAGS MAKELEVEL
	if make -s GPU=cuda -j"$(nproc 2>/dev/null || echo 2)" >"$T/build.log" 2>&1; then
		pass compile-2.1
	else
		fail compile-2.1 "make GPU=cuda failed: $(tail -c 600 "$T/build.log")"
	fi
	GFGO=$PWD/build/cuda/fgobench
	# the binary links libcuda.so.1: the toolkit's stub where no driver is installed
	if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
		mkdir -p "$T/lib"
		ln -s "$CUDA/lib64/stubs/libcuda.so" "$T/lib/libcuda.so.1"
	fi
	export LD_LIBRARY_PATH="$T/lib:$CUDA/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	unset FGOBENCH_CACHE

	# one configuration (flags override the spec) into a fresh cache, then again
	one="--algorithm gemm --dtype fp16 --world 1 -m 256 -n 256 -k 256 --BLK_M 64 --num_warps 4"
	# shellcheck disable=SC2086
	expect_exit compile-2.2 0 "$GFGO" compile sweeps/gpu_smoke.json $one --cache "$T/cache" --format csv
	expect_eq compile-2.3 "1 compiled" "$(tail -n +2 "$T/out" | wc -l) $(awk -F, 'NR == 2 {print $11}' "$T/out")"
	check compile-2.4 "registers read from the cubin" awk -F, 'NR == 2 && $12 > 0 {ok = 1} END {exit !ok}' "$T/out"
	# shellcheck disable=SC2086
	expect_exit compile-2.5 0 "$GFGO" compile sweeps/gpu_smoke.json $one --cache "$T/cache" --format csv
	expect_eq compile-2.6 "cached" "$(awk -F, 'NR == 2 {print $11}' "$T/out")"
	expect_eq compile-2.7 "1" "$(find "$T/cache" -type f | wc -l)"
	# config auto: the picks belong to the machine that sweeps; compile says so
	printf '{"algorithm": "gemm", "dtype": "bf16", "world": 1, "shapes": [[128, 4096, 4096]], "config": "auto"}' \
		>"$T/auto.json"
	expect_exit compile-2.8 0 "$GFGO" compile "$T/auto.json" --arch sm_90a --cache "$T/acache" --format csv
	expect_err compile-2.9 "asks for config auto: the cost model's picks are made where the sweep runs"
	# all_reduce: the sweep picks the shot where it runs; both are compiled
	printf '{"algorithm": "all_reduce", "dtype": "bf16", "world": 2, "shapes": [[128, 256, 256]]}' \
		>"$T/shot.json"
	expect_exit compile-2.shot.1 0 "$GFGO" compile "$T/shot.json" --arch sm_90a --cache "$T/shotcache" --format csv
	expect_err compile-2.shot.2 "1 configuration name all_reduce: compiled as one-shot and two-shot"
	expect_eq compile-2.shot.3 "all_reduce_one_shot compiled all_reduce_two_shot compiled" \
		"$(awk -F, 'NR > 1 {printf "%s%s %s", (NR > 2 ? " " : ""), $2, $11}' "$T/out")"
	# tests/bench/same_code.py, the check that a kernel change leaves the
	# existing tiles' machine code alone: those two kernels against a copy
	# are the same code; with one byte of a kernel's .text changed they
	# differ, and the tool says which
	cp -rp "$T/shotcache" "$T/shotcopy"
	expect_exit compile-2.same.1 0 python3 tests/bench/same_code.py "$T/shotcache" "$T/shotcopy"
	check compile-2.same.2 "a cache and its copy: every kernel the same" grep -q '2 of 2 kernels the same machine code' "$T/out"
	python3 - "$(find "$T/shotcopy" -name '*.bin' | head -n 1)" <<'PY'
import os
import sys
sys.path.insert(0, "tests/bench")
import same_code
path = sys.argv[1]
times = os.stat(path)
data = bytearray(open(path, "rb").read())
code = same_code.text_sections(path)[".text.fgo_main"]
at = data.find(code) + len(code) // 2
data[at] ^= 0xff
open(path, "wb").write(bytes(data))
os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))  # the kernels pair by time
PY
	expect_exit compile-2.same.3 1 python3 tests/bench/same_code.py "$T/shotcache" "$T/shotcopy"
	check compile-2.same.4 "one kernel changed: named, 1 of 2 the same" grep -q '1 of 2 kernels the same machine code' "$T/out"

	# traced kernels (`run --trace`, compile --trace): their own cache
	# entries, with the trace hooks (kernels/trace.h) in; the plain ones
	# without. On the Hopper core: all_reduce_one_shot (the side warps'
	# reductions) and sk_all_scatter (Stream-K hand-overs, comm CTAs).
	trace_one="--algorithm all_scatter --dtype fp16 --world 2 -m 256 -n 256 -k 256 --BLK_M 64 --num_warps 4"
	# shellcheck disable=SC2086
	expect_exit compile-2.trace.1 0 "$GFGO" compile sweeps/gpu_smoke.json $trace_one --cache "$T/tcache" --format csv
	# shellcheck disable=SC2086
	expect_exit compile-2.trace.2 0 "$GFGO" compile sweeps/gpu_smoke.json $trace_one --trace --cache "$T/tcache" --format csv
	expect_eq compile-2.trace.3 "compiled" "$(awk -F, 'NR == 2 {print $11}' "$T/out")"
	cat >"$T/trace.json" <<'EOF2'
{"dtype": "bf16", "mma": "wgmma", "world": 2, "M": 512, "N": 1024, "K": 1024,
 "BLK_M": 128, "BLK_N": 256, "BLK_K": 64, "num_stages": 3, "num_warps": 12,
 "blocks": [{"algorithm": "all_reduce_one_shot"},
            {"algorithm": "sk_all_scatter", "gemm_sms": 6, "comm_sms": 2}]}
EOF2
	expect_exit compile-2.trace.4 0 "$GFGO" compile "$T/trace.json" --trace --cache "$T/tcache" --format csv
	expect_eq compile-2.trace.5 "2" "$(csv_status "$T/out" compiled)"
	expect_eq compile-2.trace.6 "4 3" "$(find "$T/tcache" -name '*.bin' | wc -l) $(grep -l fgo_trace_ref "$T/tcache"/*.bin | wc -l)"

	# the cache verifies what it reads (src/gpu/gpu_jit.c): an entry overwritten
	# with garbage, cut short, or of an fgobench before the checksum (the
	# bare cubin) is compiled again, replaced whole, and said once per
	# process; a symbolic link in its place is replaced, not written through
	entry=$(find "$T/cache" -name '*.bin')
	check compile-2.cache.1 "an entry starts with its header" sh -c "head -c 8 '$entry' | grep -q FGOKCACH"
	cp "$entry" "$T/good.bin"
	cache_again() { # ID WHAT: compile the one configuration again
		# shellcheck disable=SC2086
		expect_exit "$1.1" 0 "$GFGO" compile sweeps/gpu_smoke.json $one --cache "$T/cache" --format csv
		expect_eq "$1.2" compiled "$(awk -F, 'NR == 2 {print $11}' "$T/out")"
		expect_eq "$1.3" 1 "$(grep -c "note: the kernel cache entry $entry was damaged" "$T/err")"
		check "$1.4" "$2: the entry is whole again" cmp -s "$entry" "$T/good.bin"
	}
	head -c 5000 /dev/urandom >"$entry"
	cache_again compile-2.cache.2 garbage
	head -c 9000 "$T/good.bin" >"$entry"
	cache_again compile-2.cache.3 truncated
	tail -c +33 "$T/good.bin" >"$entry"
	cache_again compile-2.cache.4 "the old format (no header)"
	printf 'x' | dd of="$entry" bs=1 seek=4000 conv=notrunc 2>/dev/null
	cache_again compile-2.cache.5 "one byte changed"
	echo keep >"$T/target"
	rm -f "$entry"
	ln -s "$T/target" "$entry"
	# shellcheck disable=SC2086
	expect_exit compile-2.cache.6 0 "$GFGO" compile sweeps/gpu_smoke.json $one --cache "$T/cache" --format csv
	check compile-2.cache.7 "a link is replaced by the entry, its target untouched" \
		sh -c "[ ! -L '$entry' ] && cmp -s '$entry' '$T/good.bin' && [ \"\$(cat '$T/target')\" = keep ]"
	# two damaged entries in one process: one note (-j N forks N workers: one each)
	printf '{"algorithm": "gemm", "dtype": "fp16", "world": 1, "M": 256, "N": 256, "K": 256, "BLK_M": [64, 128], "BLK_N": 64, "BLK_K": 32, "num_warps": 4}\n' >"$T/two.json"
	expect_exit compile-2.cache.8 0 "$GFGO" compile "$T/two.json" --cache "$T/cache" --format csv
	for f in "$T/cache"/*.bin; do head -c 100 /dev/urandom >"$f"; done
	expect_exit compile-2.cache.9 0 "$GFGO" compile "$T/two.json" --cache "$T/cache" --format csv -j 1
	expect_eq compile-2.cache.10 "2 1" "$(csv_status "$T/out" compiled) $(grep -c 'note: the kernel cache entry' "$T/err")"
	expect_exit compile-2.cache.11 0 "$GFGO" compile "$T/two.json" --cache "$T/cache" --format csv
	expect_eq compile-2.cache.12 "2 0" "$(csv_status "$T/out" cached) $(grep -c 'note:' "$T/err")"

	# a kernel engineer's own kernels (kernels/user/): the GPU forms of both
	# worked examples, every mode (FGO_MODE) of each, through NVRTC, the
	# registers read from the cubin by the manifest's entry; fp16 only
	expect_exit compile-2.user.1 0 "$GFGO" compile sweeps/user_all_scatter.json --dtype fp16 \
		--cache "$T/ucache" --format csv -j 2
	# (a user kernel's config cell is quoted: it holds commas)
	user_built() { grep -Ec ',"[A-Z_=0-9,]+",,,(compiled|cached),[1-9]' "$1"; }
	expect_eq compile-2.user.2 8 "$(user_built "$T/out")"
	check compile-2.user.3 "registers of my_all_scatter read" \
		grep -q '"BLOCK_M=32,BLOCK_N=32",,,compiled,[1-9][0-9]*,4096,' "$T/out"
	expect_eq compile-2.user.4 12 "$(find "$T/ucache" -name '*.bin' | wc -l)"
	expect_exit compile-2.user.5 0 "$GFGO" compile sweeps/user_all_scatter.json --dtype fp16 \
		--kernel kernels/user/tiled_all_scatter/manifest.json --cache "$T/ucache" --format csv -j 2
	expect_eq compile-2.user.6 8 "$(user_built "$T/out")"

	# the shipped all_scatter through the contract (kernels/user/
	# shipped_all_scatter: an adapter around kernels/all_scatter_cta.h on the
	# mma.sync core), the problem as macros (shape_macros): two of its tunable
	# sets (both tile widths; the full 32 took a minute of CI) at one shape,
	# 3 modes each
	mkdir -p "$T/ship"
	cp -r kernels/user/shipped_all_scatter kernels/user/tiled_all_scatter "$T/ship/"
	sed -i -e 's/"BLK_M": \[64, 128\]/"BLK_M": [64]/' -e 's/"NUM_WARPS": \[4, 8\]/"NUM_WARPS": [4]/' \
		-e 's/"CTAS_PER_SM": \[1, 2, 3, 4\]/"CTAS_PER_SM": [2]/' "$T/ship/shipped_all_scatter/manifest.json"
	expect_exit compile-2.user.7 0 "$GFGO" compile sweeps/user_shipped.json -m 128 -n 4096 -k 14336 \
		--kernel "$T/ship/shipped_all_scatter/manifest.json" --cache "$T/scache" --format csv -j 2
	expect_eq compile-2.user.8 2 "$(user_built "$T/out")"
	expect_eq compile-2.user.9 6 "$(find "$T/scache" -name '*.bin' | wc -l)"

	# csv_pairs FILE: the distinct algorithm,dtype pairs that have a kernel
	csv_pairs() { awk -F, 'NR > 1 && ($11 == "compiled" || $11 == "cached") {print $2 "," $3}' "$1" | sort -u | wc -l; }
	# csv_reason FILE TEXT: refused rows whose reason holds TEXT
	csv_reason() { grep -c "^[0-9]*,.*,invalid,.*$2" "$1"; }

	# CI's set on the mma.sync core (fp16, bf16) and the SIMT core (fp32):
	# every family (gemm on 1 rank, the others on 2, the Stream-K forms with
	# 7 GEMM + 3 comm CTAs) with every dtype, 27 pairs, on ragged shapes;
	# on 4 ranks all_scatter compiles with a 128 x 128 tile (8 warps), and
	# reduce_scatter too, its tiles holding two owners' 50-row blocks
	# (sched_owner_group); the 2 rows of all_gather_gemm_push with
	# BLK_M=128, taller than a rank's 200 / 4 = 50 rows, are refused with
	# the reason
	expect_exit compile-2.ci.1 0 "$GFGO" compile sweeps/ci_compile.json --arch sm_90a \
		--cache build/kernel-cache --quiet --format csv
	cp "$T/out" "$T/ci.csv"
	expect_eq compile-2.ci.2 "31 0 2 0" "$(csv_counts "$T/ci.csv")"
	expect_eq compile-2.ci.3 33 "$(tail -n +2 "$T/ci.csv" | wc -l)"
	expect_eq compile-2.ci.4 27 "$(csv_pairs "$T/ci.csv")"
	check compile-2.ci.5 "the refused tiles say why" \
		[ "$(csv_reason "$T/ci.csv" 'BLK_M=128 exceeds M/W=50')" = 2 ]

	# the Hopper core (mma=wgmma): every configuration of its check compiles
	# for sm_90a, with no spill; a target without wgmma refuses it, as does
	# a tile the core has no form for
	expect_exit compile-2.wgmma.1 0 "$GFGO" compile sweeps/wgmma_check.json --arch sm_90a \
		--cache build/kernel-cache --quiet --format csv
	cp "$T/out" "$T/wgmma.csv"
	expect_eq compile-2.wgmma.2 "40 0 0" "$(($(csv_status "$T/wgmma.csv" compiled) + $(csv_status "$T/wgmma.csv" cached))) $(csv_status "$T/wgmma.csv" error) $(csv_status "$T/wgmma.csv" invalid)"
	# the walk on the core (kernels/wgmma_walk.h): every family with split-K
	# and with the hybrid Stream-K walk, the sk_* families on it, split-K and
	# Stream-K with deterministic sums, and the two cluster forms (B
	# multicast; a tile's K slices summed on chip): 20 compile, reduce_scatter's
	# three with its partials pushed to their owners (RS_PUSH)
	expect_exit compile-2.walk.1 0 "$GFGO" compile sweeps/ci_compile_walk.json --arch sm_90a \
		--cache build/kernel-cache --quiet --format csv
	cp "$T/out" "$T/walk.csv"
	expect_eq compile-2.walk.2 "20 0 0 0" "$(csv_counts "$T/walk.csv")"
	expect_eq compile-2.walk.3 9 "$(awk -F, 'NR > 1 {print $2}' "$T/walk.csv" | sort -u | wc -l)"
	# BLK_K 128 on the core (two K slices a stage): gemm with one and two
	# consumers on a K that is no multiple of 128, 128x256 with C in
	# halves, A and B swapped, deterministic split-K, a cluster of 2,
	# reduce_scatter on 2 ranks: 7 compile; BLK_K 256 is refused, saying why
	expect_exit compile-2.bk128.1 0 "$GFGO" compile sweeps/ci_compile_bk128.json --arch sm_90a \
		--cache build/kernel-cache --quiet --format csv
	cp "$T/out" "$T/bk128.csv"
	expect_eq compile-2.bk128.2 "7 0 1 0" "$(csv_counts "$T/bk128.csv")"
	check compile-2.bk128.3 "BLK_K 256 on wgmma says why" \
		[ "$(csv_reason "$T/bk128.csv" 'BLK_K must be 64 or 128')" = 1 ]
	# CI's set on the core: every family with fp16 and bf16, 18 pairs, on 1,
	# 2 and 4 ranks, its three tile forms, Stream-K with 7 and 32 GEMM CTAs:
	# 37 compile (sk_all_scatter at K = 8200 on 2 ranks among them: its tiles
	# leave by the storer's warp, WG_SCATTER_WARP, as all_scatter's on 4
	# ranks); refused are fp32 (2), K=300 that TMA cannot load (2), and on
	# 4 ranks the 4 tiles of 256 columns wider than a rank's 352 / 4 = 88
	# (all_scatter, sk_all_scatter, and all_gather_gemm pull and push, whose
	# 128-row tiles hold two sources' 200 / 4 = 50 rows since
	# sched_owner_group, as reduce_scatter's tile holds two owners' blocks
	# and compiles); and 6 with A and B swapped (gemm BLK_M 8 and 32, whole
	# and split 2; all_scatter and reduce_scatter BLK_M 16 on 2 ranks)
	expect_exit compile-2.wgmma.ci.1 0 "$GFGO" compile sweeps/ci_compile_wgmma.json --arch sm_90a \
		--cache build/kernel-cache --quiet --format csv
	cp "$T/out" "$T/ci-wgmma.csv"
	expect_eq compile-2.wgmma.ci.2 "37 0 8 0" "$(csv_counts "$T/ci-wgmma.csv")"
	expect_eq compile-2.wgmma.ci.3 45 "$(tail -n +2 "$T/ci-wgmma.csv" | wc -l)"
	expect_eq compile-2.wgmma.ci.4 18 "$(csv_pairs "$T/ci-wgmma.csv")"
	expect_eq compile-2.wgmma.ci.5 "2 2 4 0" "$(csv_reason "$T/ci-wgmma.csv" 'takes fp16 or bf16') $(csv_reason "$T/ci-wgmma.csv" 'must be multiples of 8') $(csv_reason "$T/ci-wgmma.csv" 'BLK_N=256 exceeds N/W=88') $(csv_reason "$T/ci-wgmma.csv" 'BLK_M=128 exceeds M/W=50')"
	# the widths between the powers of two (issue 49): 80, 96, 112, 192 in
	# every form of the core (one and two consumers, 64 rows, BLK_K 128, C
	# in halves, split-K, a cluster, Stream-K, two families on 2 ranks) and
	# the swapped heights 48, 80, 240 (split-K, two families) and on two
	# consumers 80 x 128, 224 x 128 (and all_scatter at W=2): 25 compile,
	# BLK_N 272 and a swapped 80 x 128 on one consumer refused saying why;
	# 128x80 with 4 stages holds 4 x (16 KiB of A + 80 x 128 bytes of B +
	# 16) + 128 x 80 x 2 of C + 1056; the swapped 224 x 128 with 4 stages
	# stages C in halves of 112 rows: 4 x (224 + 128 rows of 128 bytes +
	# 16) + 224 x 128 + 1056
	expect_exit compile-2.widths.1 0 "$GFGO" compile sweeps/ci_compile_widths.json --arch sm_90a \
		--cache build/kernel-cache --quiet --format csv
	cp "$T/out" "$T/widths.csv"
	expect_eq compile-2.widths.2 "25 0 2 0" "$(csv_counts "$T/widths.csv")"
	expect_eq compile-2.widths.3 "1 1" "$(csv_reason "$T/widths.csv" 'a multiple of 16 up to 256') $(csv_reason "$T/widths.csv" '64 columns a consumer warpgroup')"
	expect_eq compile-2.widths.4 128096 "$(awk -F, '$1 == 1 {print $13}' "$T/widths.csv")"
	expect_eq compile-2.widths.5 210016 "$(awk -F, '$8 == "224x128x64" && $4 == 1 {print $13}' "$T/widths.csv")"
	wg="--algorithm gemm --world 1 -m 256 -n 256 -k 256 --dtype bf16 --mma wgmma --BLK_M 128 --BLK_N 128 --BLK_K 64 --num_warps 12 --num_stages 4"
	# shellcheck disable=SC2086
	expect_exit compile-2.wgmma.3 0 "$GFGO" compile sweeps/gpu_smoke.json $wg --arch sm_80 \
		--cache "$T/cache" --format csv
	check compile-2.wgmma.4 "sm_80 refuses wgmma" grep -q 'invalid,.*needs a Hopper GPU and the sm_90a target' "$T/out"
	# shellcheck disable=SC2086
	expect_exit compile-2.wgmma.5 0 "$GFGO" compile sweeps/gpu_smoke.json $wg --BLK_K 32 \
		--cache "$T/cache" --format csv
	check compile-2.wgmma.6 "BLK_K=32 is refused with the reason" grep -q 'BLK_K must be 64' "$T/out"
	expect_exit compile-2.wgmma.7 2 "$GFGO" compile sweeps/gpu_smoke.json --mma hgmma --cache "$T/cache"
	expect_err compile-2.wgmma.8 'unknown --mma "hgmma"'

	# calibrate.hip is no sweep's kernel: compiled through the JIT directly
	# (tests/gpu/jit_compile.c), into an empty cache so NVRTC really runs
	if cc -std=c11 -Isrc -Ikernels -DFGO_GPU_CUDA -I"$CUDA/include" $(mpicc --showme:compile) \
		tests/gpu/jit_compile.c build/cuda/obj/libfgo.a -L"$CUDA/lib64" -L"$CUDA/lib64/stubs" \
		-lnvrtc -lcuda -lcudart_static -lsqlite3 -lcjson -lm $(mpicc --showme:link) \
		-ldl -lpthread -lrt -o "$T/jit_compile" >"$T/jit.log" 2>&1; then
		mkdir -p "$T/jit-cache"
		FGOBENCH_CACHE="$T/jit-cache" "$T/jit_compile" sm_90a kernels/calibrate.hip \
			"-DCALIB_THREADS=256" >"$T/jit.out" 2>&1
		check compile-2.20 "calibrate.hip compiles for sm_90a" grep -q '^PASS jit-' "$T/jit.out"
		FGOBENCH_CACHE="$T/jit-cache" "$T/jit_compile" sm_90a kernels/check.hip \
			"-DCHECK_THREADS=256" >"$T/jit.out" 2>&1
		check compile-2.21 "check.hip (the device check) compiles for sm_90a" grep -q '^PASS jit-' "$T/jit.out"
	else
		fail compile-2.20 "building tests/gpu/jit_compile.c failed: $(tail -c 400 "$T/jit.log")"
	fi

	# a launch shape the GPU refuses is invalid with its reason, not an error
	expect_exit compile-2.13 0 "$GFGO" compile sweeps/gpu_smoke.json --algorithm gemm --world 1 \
		-m 256 -n 256 -k 256 --dtype fp16 --BLK_M 64 --num_warps 32 --cache "$T/cache" --format csv
	expect_eq compile-2.14 invalid "$(awk -F, 'NR == 2 {print $11}' "$T/out")"
	check compile-2.15 "the reason names the warp split" grep -q 'num_warps=32 splits the tile' "$T/out"

	printf '{"algorithm": "gemm", "M": 64, "N": 64, "K": 64, "BLK_MM": 32}\n' > "$T/bad.json"
	expect_exit compile-2.9 2 "$GFGO" compile "$T/bad.json" --cache "$T/cache"
	expect_err compile-2.10 "bad.json:1:"
	expect_exit compile-2.11 2 "$GFGO" compile sweeps/smoke.json --arch sm_91 --cache "$T/cache"
	expect_err compile-2.12 'unknown architecture "sm_91"'
fi

# ---- the AMD path, clang-19 without ROCm ----
CLANG_HIP=${CLANG_HIP:-clang++-19}
if ! command -v "$CLANG_HIP" >/dev/null 2>&1 || ! command -v ld.lld-19 >/dev/null 2>&1; then
	missing compile-3 "no clang-19 (apt-get install clang-19 lld-19 llvm-19): the AMD compile of the tool's own kernels was not checked"
else
	# calibrate.hip and check.hip (no sweep's kernels: they take only their
	# thread counts) for both CDNA targets, as gpu_jit_clang.c runs clang
	for arch in gfx942 gfx90a; do
		for name in calibrate check; do
			("$CLANG_HIP" -x hip --offload-arch=$arch -nogpulib -nogpuinc --cuda-device-only \
				--no-gpu-bundle-output -O3 -std=c++17 -DFGO_HIP_BARE=1 -DCALIB_THREADS=256 \
				-DCHECK_THREADS=256 -Ikernels -c kernels/$name.hip -o "$T/$name.$arch.co" \
				>"$T/clang.$name.$arch.log" 2>&1
			 echo $? >"$T/clang.$name.$arch.rc") &
		done
	done
	wait
	for arch in gfx942 gfx90a; do
		for name in calibrate check; do
			if [ "$(cat "$T/clang.$name.$arch.rc")" = 0 ]; then
				pass "compile-3.$name.$arch"
			else
				fail "compile-3.$name.$arch" "clang-19 --offload-arch=$arch failed: $(grep -m3 'error' "$T/clang.$name.$arch.log" | tr '\n' ' ' | head -c 600)"
			fi
		done
	done
fi

# ---- the AMD host build, hiprtc ----
if [ ! -f /usr/include/hip/hip_runtime.h ] && [ ! -f /opt/rocm/include/hip/hip_runtime.h ]; then
	missing compile-4 "no HIP headers (apt-get install libamdhip64-dev): make GPU=hip was not checked"
else
	unset MAKEFLAGS MFLAGS MAKELEVEL
	if make -s GPU=hip -j"$(nproc 2>/dev/null || echo 2)" >"$T/hip-build.log" 2>&1; then
		pass compile-4.1
	else
		fail compile-4.1 "make GPU=hip failed: $(tail -c 600 "$T/hip-build.log")"
	fi
	HFGO=$PWD/build/hip/fgobench
	expect_exit compile-4.2 0 env FGOBENCH_HIP_COMPILER=hiprtc "$HFGO" compile sweeps/smoke.json --arch gfx90a \
		--cache build/kernel-cache --quiet --format csv
	cp "$T/out" "$T/hip-smoke.csv"
	expect_eq compile-4.3 0 "$(awk -F, 'NR > 1 && $11 !~ /^(compiled|cached)$/' "$T/hip-smoke.csv" | wc -l)"
	# one row per configuration the spec plans
	expect_eq compile-4.4 "$("$FGO" sweep sweeps/smoke.json --dry-run --format csv | tail -n +2 | wc -l)" \
		"$(tail -n +2 "$T/hip-smoke.csv" | wc -l)"
	expect_exit compile-4.5 2 env FGOBENCH_HIP_COMPILER=hiprtc "$HFGO" compile sweeps/smoke.json --arch sm_90a --cache "$T/cache"
	expect_exit compile-4.6 2 env FGOBENCH_HIP_COMPILER=clang++-19 "$HFGO" compile sweeps/smoke.json --arch sm_90a --cache "$T/cache"

	# the MFMA core (kernels/core_mfma.h) through clang-19, no ROCm: CI's
	# set (sweeps/ci_compile_amd.json: every family with mma=16 and 32 in
	# bf16, gemm in fp16, bf16 and fp32) for gfx942 and gfx90a, each into a
	# cache of its own, then every code object disassembled: the instruction
	# of the size asked for, and the resources the code object declares
	if ! command -v "$CLANG_HIP" >/dev/null 2>&1 || ! command -v llvm-objdump-19 >/dev/null 2>&1; then
		missing compile-5 "no clang-19 / llvm-objdump-19: the MFMA core was not compiled"
	else
		for arch in gfx942 gfx90a; do
			expect_exit "compile-5.$arch.1" 0 env FGOBENCH_HIP_COMPILER="$CLANG_HIP" "$HFGO" compile \
				sweeps/ci_compile_amd.json --arch $arch --cache "$T/amd-$arch" --quiet --format csv -j 2
			cp "$T/out" "$T/amd-$arch.csv"
			expect_eq "compile-5.$arch.2" "22 0 0 0" "$(csv_counts "$T/amd-$arch.csv")"
			expect_eq "compile-5.$arch.3" 9 "$(awk -F, 'NR > 1 {print $2}' "$T/amd-$arch.csv" | sort -u | wc -l)"
			# regs, smem, acc_regs, scratch, waves: columns 12 to 16
			check "compile-5.$arch.4" "no scratch, LDS <= 64 KiB, a wave per SIMD, registers read" \
				awk -F, 'NR > 1 && ($15 != 0 || $13 > 65536 || $16 < 1 || $12 < 1) {bad = 1} END {exit bad}' "$T/amd-$arch.csv"
			n16=0 n32=0 other=0
			for e in "$T/amd-$arch"/*.bin; do
				tail -c +33 "$e" >"$T/co"
				llvm-objdump-19 -d --mcpu=$arch "$T/co" >"$T/isa" 2>/dev/null
				if grep -q 'v_mfma_f32_16x16x' "$T/isa" && ! grep -q 'v_mfma_f32_32x32x' "$T/isa"; then
					n16=$((n16 + 1))
				elif grep -q 'v_mfma_f32_32x32x' "$T/isa" && ! grep -q 'v_mfma_f32_16x16x' "$T/isa"; then
					n32=$((n32 + 1))
				else
					other=$((other + 1))
				fi
			done
			expect_eq "compile-5.$arch.5" "11 11 0" "$n16 $n32 $other"
		done
		# each dtype's instruction, by name, on gemm (the ISA of both targets)
		one="--algorithm gemm --world 1 -m 256 -n 256 -k 256 --BLK_M 64 --BLK_N 64 --BLK_K 32 --num_warps 4"
		for c in gfx942:fp16:16:v_mfma_f32_16x16x16_f16 gfx942:bf16:32:v_mfma_f32_32x32x8_bf16 \
			gfx942:fp32:16:v_mfma_f32_16x16x4_f32 gfx90a:bf16:16:v_mfma_f32_16x16x16bf16_1k \
			gfx90a:fp16:32:v_mfma_f32_32x32x8f16 gfx90a:fp32:32:v_mfma_f32_32x32x2f32; do
			arch=${c%%:*} rest=${c#*:}
			dt=${rest%%:*} rest=${rest#*:}
			mma=${rest%%:*} insn=${rest#*:}
			rm -rf "$T/one"
			# shellcheck disable=SC2086
			FGOBENCH_HIP_COMPILER="$CLANG_HIP" "$HFGO" compile sweeps/gpu_smoke.json $one --dtype $dt \
				--mma $mma --arch $arch --cache "$T/one" --format csv >/dev/null 2>&1
			for e in "$T/one"/*.bin; do tail -c +33 "$e" >"$T/co"; done
			check "compile-5.isa.$arch.$dt.$mma" "$insn in the code object" \
				sh -c "llvm-objdump-19 -d --mcpu=$arch '$T/co' | grep -q '$insn '"
		done
		# the LDS limit and the wavefront split are refused with the reason
		# shellcheck disable=SC2086
		expect_exit compile-5.6 0 "$HFGO" compile sweeps/gpu_smoke.json $one --dtype fp16 --BLK_M 128 \
			--BLK_N 128 --num_stages 4 --arch gfx942 --cache "$T/one" --format csv
		check compile-5.7 "4 stages of 128 x 128 exceed the LDS" grep -q 'invalid,.*a workgroup on gfx942 has at most 65536' "$T/out"
		# the traced kernels of the three traced families (kernels/trace.h's
		# hooks, s_memrealtime) on the MFMA core
		cat >"$T/trace-amd.json" <<'EOF2'
{ "name": "trace-amd", "dtype": "fp16", "world": 2, "shapes": [[256, 256, 256]],
  "BLK_M": 64, "BLK_N": 64, "BLK_K": 32, "num_warps": 4,
  "blocks": [ { "algorithm": ["all_scatter", "all_reduce_one_shot"] },
              { "algorithm": "sk_all_scatter", "gemm_sms": 4, "comm_sms": 1 } ] }
EOF2
		expect_exit compile-5.8 0 env FGOBENCH_HIP_COMPILER="$CLANG_HIP" "$HFGO" compile "$T/trace-amd.json" \
			--trace --arch gfx942 --cache "$T/amd-trace" --format csv -j 2
		expect_eq compile-5.9 "3 0 0 0" "$(csv_counts "$T/out")"
	fi
fi
