# 70_gpu_compile.sh: the GPU kernels compile, no GPU needed.
#   compile-1  the CPU build: `compile --help`, its refusal (exit 2), bad usage
#   compile-2  with the CUDA toolkit (/usr/local/cuda): `make GPU=cuda`, then
#              `fgobench compile` for sm_90a (NVRTC) of CI's representative
#              set, sweeps/ci_compile.json (mma.sync and SIMT) and
#              sweeps/ci_compile_wgmma.json (Hopper), of sweeps/wgmma_check.json
#              and ci_compile_walk.json (the walk: split-K and Stream-K in
#              every family; sweeps/wgmma_splitk.json's 64 split kernels are
#              the GPU check's, tests/gpu/splitk.sh); a fresh cache, a bad spec,
#              a bad --arch;
#              a damaged cache entry (garbage, cut short, the old format, one
#              byte, a symbolic link) compiled again and replaced, one note
#              and traced kernels (compile --trace): their own entries
#   compile-3  with hipcc: every kernels/*.hip for AMD (gfx90a), each dtype,
#              and the traced all_scatter, all_reduce and sk_all_scatter
#   compile-4  with HIP's headers and library (libamdhip64-dev): `make GPU=hip`,
#              then `fgobench compile` of sweeps/smoke.json for gfx90a (hiprtc)
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

	# csv_counts FILE: "compiled+cached error invalid skipped" of a compile
	csv_counts() {
		echo "$(($(csv_status "$1" compiled) + $(csv_status "$1" cached))) $(csv_status "$1" error)" \
			"$(csv_status "$1" invalid) $(csv_status "$1" skipped)"
	}
	# csv_pairs FILE: the distinct algorithm,dtype pairs that have a kernel
	csv_pairs() { awk -F, 'NR > 1 && ($11 == "compiled" || $11 == "cached") {print $2 "," $3}' "$1" | sort -u | wc -l; }
	# csv_reason FILE TEXT: refused rows whose reason holds TEXT
	csv_reason() { grep -c "^[0-9]*,.*,invalid,.*$2" "$1"; }

	# CI's set on the mma.sync core (fp16, bf16) and the SIMT core (fp32):
	# every family (gemm on 1 rank, the others on 2, the Stream-K forms with
	# 7 GEMM + 3 comm CTAs) with every dtype, 27 pairs, on ragged shapes;
	# on 4 ranks all_scatter compiles with a 128 x 128 tile (8 warps) and
	# the 4 rows of reduce_scatter and all_gather_gemm_push with BLK_M=128,
	# taller than a rank's 200 / 4 = 50 rows, are refused with the reason
	expect_exit compile-2.ci.1 0 "$GFGO" compile sweeps/ci_compile.json --arch sm_90a \
		--cache build/kernel-cache --quiet --format csv
	cp "$T/out" "$T/ci.csv"
	expect_eq compile-2.ci.2 "29 0 4 0" "$(csv_counts "$T/ci.csv")"
	expect_eq compile-2.ci.3 33 "$(tail -n +2 "$T/ci.csv" | wc -l)"
	expect_eq compile-2.ci.4 27 "$(csv_pairs "$T/ci.csv")"
	check compile-2.ci.5 "the refused tiles say why" \
		[ "$(csv_reason "$T/ci.csv" 'BLK_M=128 exceeds M/W=50')" = 4 ]

	# the Hopper core (mma=wgmma): every configuration of its check compiles
	# for sm_90a, with no spill; a target without wgmma refuses it, as does
	# a tile the core has no form for
	expect_exit compile-2.wgmma.1 0 "$GFGO" compile sweeps/wgmma_check.json --arch sm_90a \
		--cache build/kernel-cache --quiet --format csv
	cp "$T/out" "$T/wgmma.csv"
	expect_eq compile-2.wgmma.2 "40 0 0" "$(($(csv_status "$T/wgmma.csv" compiled) + $(csv_status "$T/wgmma.csv" cached))) $(csv_status "$T/wgmma.csv" error) $(csv_status "$T/wgmma.csv" invalid)"
	# the walk on the core (kernels/wgmma_walk.h): every family with split-K
	# and with the hybrid Stream-K walk, the sk_* families on it: 16 compile
	expect_exit compile-2.walk.1 0 "$GFGO" compile sweeps/ci_compile_walk.json --arch sm_90a \
		--cache build/kernel-cache --quiet --format csv
	cp "$T/out" "$T/walk.csv"
	expect_eq compile-2.walk.2 "16 0 0 0" "$(csv_counts "$T/walk.csv")"
	expect_eq compile-2.walk.3 9 "$(awk -F, 'NR > 1 {print $2}' "$T/walk.csv" | sort -u | wc -l)"
	# CI's set on the core: every family with fp16 and bf16, 18 pairs, on 1,
	# 2 and 4 ranks, its three tile forms, Stream-K with 7 and 32 GEMM CTAs:
	# 25 compile; refused are fp32 (2), K=300 that TMA cannot load (2), and on
	# 4 ranks the 2 tiles of 256 columns wider than a rank's 352 / 4 = 88
	# (all_scatter, sk_all_scatter) and the 3 of 128 rows taller than its
	# 200 / 4 = 50 (reduce_scatter, all_gather_gemm pull and push)
	expect_exit compile-2.wgmma.ci.1 0 "$GFGO" compile sweeps/ci_compile_wgmma.json --arch sm_90a \
		--cache build/kernel-cache --quiet --format csv
	cp "$T/out" "$T/ci-wgmma.csv"
	expect_eq compile-2.wgmma.ci.2 "25 0 9 0" "$(csv_counts "$T/ci-wgmma.csv")"
	expect_eq compile-2.wgmma.ci.3 34 "$(tail -n +2 "$T/ci-wgmma.csv" | wc -l)"
	expect_eq compile-2.wgmma.ci.4 18 "$(csv_pairs "$T/ci-wgmma.csv")"
	expect_eq compile-2.wgmma.ci.5 "2 2 2 3" "$(csv_reason "$T/ci-wgmma.csv" 'takes fp16 or bf16') $(csv_reason "$T/ci-wgmma.csv" 'must be multiples of 8') $(csv_reason "$T/ci-wgmma.csv" 'BLK_N=256 exceeds N/W=88') $(csv_reason "$T/ci-wgmma.csv" 'BLK_M=128 exceeds M/W=50')"
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

# ---- the AMD path, hipcc ----
HIPCC=${HIPCC:-hipcc}
if ! command -v "$HIPCC" >/dev/null 2>&1; then
	missing compile-3 "no hipcc (apt-get install hipcc): the AMD compile of kernels/*.hip was not checked"
else
	mkdir -p "$T/k"
	cp kernels/* "$T/k/"
	# the -D options gpu_jit_defines writes for a typical configuration
	# (world 2, M=256, N=256 split in two, K=256, tile 64x64x32, 4 warps)
	defines="-DWORLD=2 -DM_=256L -DN_=128L -DK_=256L -DNFULL=256L -DMFULL=256L -DLDA=256L -DLDB=128L
		-DBLOCKS=1 -DBLK_M=64 -DBLK_N=64 -DBLK_K=32 -DNUM_STAGES=2 -DNUM_WARPS=4 -DMMA=16
		-DGSIZE_M=8 -DGEMM_SMS=4 -DCOMM_SMS=2 -DCOMM_BLK_M=0 -DCOMM_BLK_N=0
		-DXCHG_OFF=0ull -DXCHG_FLAG0=0L"
	# every kernel and dtype at once (a few seconds each), then the verdicts
	# in order; calibrate.hip and check.hip take only their thread counts
	# (src/gpu/gpu_calibrate.c, src/gpu/gpu_check.c; the dtype is a kernel argument);
	# the variants of shared sources (the algorithms' gpu_variant) once each
	cases=""
	for src in kernels/*.hip; do
		name=$(basename "$src" .hip)
		case $name in
		calibrate | check) cases="$cases $name:x:" ;;
		*) cases="$cases $name:0: $name:1: $name:2:" ;;
		esac
	done
	# and the traced kernels of the three traced families (kernels/trace.h)
	cases="$cases all_reduce:2:TWO_SHOT all_gather_gemm:1:PUSH all_scatter:1:FGO_TRACE"
	cases="$cases all_reduce:1:FGO_TRACE sk_all_scatter:1:FGO_TRACE"
	for c in $cases; do
		name=${c%%:*} rest=${c#*:}
		dtype=${rest%%:*} variant=${rest#*:}
		if [ "$dtype" = x ]; then d="-DCALIB_THREADS=256 -DCHECK_THREADS=256"; else d="-DDTYPE=$dtype $defines"; fi
		[ -z "$variant" ] || d="$d -D$variant=1"
		# shellcheck disable=SC2086
		("$HIPCC" --offload-arch=gfx90a -c -x hip $d -I"$T/k" "$T/k/$name.hip" \
			-o "$T/$name.$dtype$variant.o" >"$T/hip.$name.$dtype$variant.log" 2>&1
		 echo $? >"$T/hip.$name.$dtype$variant.rc") &
	done
	wait
	for c in $cases; do
		name=${c%%:*} rest=${c#*:}
		dtype=${rest%%:*} variant=${rest#*:}
		id="compile-3.$name"
		[ "$dtype" = x ] || id="$id.dtype$dtype"
		[ -z "$variant" ] || id="$id.$variant"
		if [ "$(cat "$T/hip.$name.$dtype$variant.rc")" = 0 ]; then
			pass "$id"
		else
			fail "$id" "hipcc --offload-arch=gfx90a failed: $(grep -m3 'error' "$T/hip.$name.$dtype$variant.log" | tr '\n' ' ' | head -c 600)"
		fi
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
	expect_exit compile-4.2 0 "$HFGO" compile sweeps/smoke.json --arch gfx90a \
		--cache build/kernel-cache --quiet --format csv
	cp "$T/out" "$T/hip-smoke.csv"
	expect_eq compile-4.3 0 "$(awk -F, 'NR > 1 && $11 !~ /^(compiled|cached)$/' "$T/hip-smoke.csv" | wc -l)"
	# one row per configuration the spec plans
	expect_eq compile-4.4 "$("$FGO" sweep sweeps/smoke.json --dry-run --format csv | tail -n +2 | wc -l)" \
		"$(tail -n +2 "$T/hip-smoke.csv" | wc -l)"
	expect_exit compile-4.5 2 "$HFGO" compile sweeps/smoke.json --arch sm_90a --cache "$T/cache"
fi
