#!/bin/sh
# tests/gpu/widths.sh: issue 49's tile widths between the powers of two on
# one Hopper GPU, each step under its own limit so that a device call (10
# minutes) brings back what finished. Carry build/cuda/fgobench,
# build/cuda/lib and build/cuda/kcache.tar.xz: the kernels of
# sweeps/wgmma_widths.json, heldout_widths.json and perrank_widths.json
# compiled here (`compile SPEC --cache build/cuda/kcache`) and packed
# (`tar cJf build/cuda/kcache.tar.xz -C build/cuda/kcache .`: cubins pack
# about 20 times, the carried tree is limited to 64 MiB); the grids'
# kernels (one a configuration and shape: about 3 500 and 4 450) compile
# there, -j 16. SET=swap runs the swapped tile heights instead (BLK_M 48,
# 80, 96, ... with A and B swapped: sweeps/wgmma_swap_rows.json, heldout_swap.json,
# perrank_swap.json, swap_probe.json); SET=pairs the swapped heights on
# two consumers, BLK_N 128 (wgmma_swap_pairs.json, heldout_swap_pairs.json,
# perrank_swap_pairs.json, swap_pairs_probe.json). STEPS picks (default "check heldout own"):
#   check    sweeps/wgmma_widths.json on two ranks sharing the GPU: every
#            width form (one and two consumers, BLK_K 128, C in halves,
#            split-K, clusters, Stream-K, the fused families at W=2)
#            validated against cuBLAS (correctness only: a shared GPU)
#   heldout  the held-out grid (sweeps/heldout_perrank.json), then its
#            widths (heldout_widths.json), one rank, cuBLAS in the same run;
#            the table by tests/gpu/widths_table.py
#   own      the same on the project's set (perrank.json, perrank_widths.json)
#   sizes    the held-out step's new sizes alone (no grid beside them)
#   trace    `run --trace` at 2194 x 1600 x 1968 and 3936 with 128x256
#            and the swapped 224x128 (3 stages), and at N 256 (a few
#            CTAs); 6091 x 1520 x 2416 with 128x256, data-parallel and
#            Stream-K: timelines, and where a CTA's time goes by
#            tests/gpu/trace_phases.py
#   exchange tests/gpu/sk_exchange.json: 6091 x 1520 x 2416 on the
#            Stream-K walk with the partials in one atomic sum or in
#            slots, beside data-parallel, two rounds and a timeline each
#   probe    sweeps/widths_probe.json: the four profiled losing
#            shapes, each width beside the powers of two in the same forms;
#            `best` of it (one rank, cuBLAS in the same run)
# LIMIT_CHECK, LIMIT_COMPILE, LIMIT_GRID and LIMIT_SIZES override a step's
# limit in seconds (a slower machine, a larger grid).
# The store and logs are written to $WORK (default /tmp/widths-work) and
# packed into $OUT/$SET.tgz (widths.tgz) after every step, the tables copied beside
# it: a call brings back at most 8 files, and a call stopped at its limit
# still brings back the steps that finished.
#   OUT=/some/dir STEPS="check heldout" sh tests/gpu/widths.sh
set -u
set=${SET:-widths}
case $set in
widths) check_spec=wgmma_widths probe_spec=widths_probe sizes=widths ;;
swap) check_spec=wgmma_swap_rows probe_spec=swap_probe sizes=swap ;;
pairs) check_spec=wgmma_swap_pairs probe_spec=swap_pairs_probe sizes=swap_pairs ;;
*)
	echo "widths.sh: unknown SET $set (widths, swap or pairs)" >&2
	exit 2
	;;
esac
# every spec the set names is here before any device time is spent
# (SPECS_ONLY=1: this check alone, for the CPU tests)
for f in "$check_spec" "$probe_spec" "heldout_$sizes" "perrank_$sizes"; do
	[ -f "sweeps/$f.json" ] || {
		echo "widths.sh: SET=$set needs sweeps/$f.json, which is missing" >&2
		exit 2
	}
done
[ "${SPECS_ONLY:-0}" = 1 ] && exit 0
final=${OUT:-$PWD/gpu-out}
OUT=${WORK:-/tmp/widths-work}
export OUT
mkdir -p "$OUT" "$final"
here=$(dirname "$0")
nvidia-smi -L
if [ -f build/cuda/kcache.tar.xz ] && [ ! -d build/cuda/kcache ]; then
	mkdir -p build/cuda/kcache
	tar xJf build/cuda/kcache.tar.xz -C build/cuda/kcache
	echo "kernels unpacked: $(find build/cuda/kcache -type f | wc -l)"
fi
step() { # NAME SECONDS NP ARGS...: run.sh ARGS under a limit, output to $OUT/NAME.txt
	name=$1 lim=$2 np=$3
	shift 3
	start=$(date +%s)
	NP=$np timeout "$lim" sh "$here/run.sh" "$@" >"$OUT/$name.txt" 2>&1
	echo "$name: exit $? in $(($(date +%s) - start)) s" | tee -a "$OUT/steps.txt"
	tail -n 3 "$OUT/$name.txt"
	tar czf "$final/$set.tgz.part" -C "$OUT" . && mv "$final/$set.tgz.part" "$final/$set.tgz"
}
# NAME GRID_SPEC SIZES_SPEC GRID_TAG SIZES_TAG COMPILE_S GRID_S SIZES_S: the grid
# and the new sizes (SET) at its shapes, compiled and swept, and their table
grid_and_widths() {
	step "compile_$1" "$6" 1 compile "$2" -j 16 --quiet --format csv
	step "compile_$1_$set" 120 1 compile "$3" -j 16 --quiet --format csv
	step "$1_grid" "$7" 1 sweep "$2" --tag "$4" --quiet --timeout 10
	step "$1_$set" "$8" 1 sweep "$3" --tag "$5" --quiet --timeout 10
	python3 "$here/widths_table.py" "$OUT/fgobench.db" "$4" "$5" >"$OUT/$1_${set}_table.txt" 2>&1
	cp "$OUT/$1_${set}_table.txt" "$final/"
	tail -n 2 "$OUT/$1_${set}_table.txt"
}
for s in ${STEPS:-check heldout own}; do
	case $s in
	check)
		step "compile_check_$set" 60 1 compile "sweeps/$check_spec.json" -j 16 --quiet --format csv
		step "check_$set" "${LIMIT_CHECK:-150}" 2 sweep "sweeps/$check_spec.json" --tag "$set-check" --timeout 10
		;;
	heldout)
		grid_and_widths heldout sweeps/heldout_perrank.json "sweeps/heldout_$sizes.json" \
			heldout-perrank "heldout-$set" "${LIMIT_COMPILE:-240}" "${LIMIT_GRID:-110}" "${LIMIT_SIZES:-100}"
		;;
	sizes)
		# the new sizes at the held-out shapes alone, when a call has no
		# time for the grid beside them: their best / cuBLAS in this call
		# against an earlier call's grid / its own cuBLAS (two machines,
		# so only by each one's ratio to the cuBLAS it ran beside)
		step "compile_heldout_$set" 120 1 compile "sweeps/heldout_$sizes.json" -j 16 --quiet --format csv
		step "heldout_$set" "${LIMIT_SIZES:-100}" 1 sweep "sweeps/heldout_$sizes.json" --tag "heldout-$set" --quiet --timeout 10
		;;
	trace)
		# a timeline of the held-out set's worst shape, the grid's tile
		# beside cuBLAS's (swapped 224 x 128): where a CTA's time goes
		# when K is short (31 steps) and one wave holds every tile; each
		# at K 1968 and twice that, so that trace_phases.py separates the
		# steady main loop from the ring's fill; then the same tiles with
		# N cut to one or two tile columns (18 and 20 CTAs): a slice as
		# fast there as at 126 CTAs is the SM's own pace, a faster one
		# says that what the SMs share (L2, its bandwidth) holds them
		step compile_trace 90 1 compile tests/gpu/trace_short_k.json -j 16 --quiet --format csv
		step compile_trace_traced 90 1 compile tests/gpu/trace_short_k.json --trace -j 16 --quiet --format csv
		names=""
		for t in "1600 128 256" "1600 224 128" "256 128 256" "256 224 128"; do
			# shellcheck disable=SC2086 # the words of the case
			set -- $t
			for k in 1968 3936; do
				name="trace_n$1_$2x$3_k$k"
				step "$name" 120 1 run --algorithm gemm --world 1 -m 2194 -n "$1" -k "$k" \
					--dtype bf16 --mma wgmma --BLK_M "$2" --BLK_N "$3" --BLK_K 64 --num_warps 12 \
					--num_stages 3 --iterations 20 --warmup 3 --trace "$OUT/$name.json"
				names="$names $OUT/$name.json"
			done
		done
		# 6091 x 1520 x 2416: 288 tiles of 128x256 on 132 CTAs, a third
		# round for 24; data-parallel, and the Stream-K walk over the 132
		# SMs that evens the rounds (measured slower: where its time goes)
		for t in "1 0" "1 132" "8 132"; do
			# shellcheck disable=SC2086 # the words of the case
			set -- $t
			name="trace_m6091_g$1_sm$2"
			step "$name" 120 1 run --algorithm gemm --world 1 -m 6091 -n 1520 -k 2416 \
				--dtype bf16 --mma wgmma --BLK_M 128 --BLK_N 256 --BLK_K 64 --num_warps 12 \
				--num_stages 3 --gsize_m "$1" --gemm_sms "$2" --iterations 20 --warmup 3 --trace "$OUT/$name.json"
		done
		# shellcheck disable=SC2086 # the files, in pairs of K
		python3 "$here/trace_phases.py" $names >"$OUT/trace_phases.txt" 2>&1
		python3 "$here/trace_phases.py" "$OUT"/trace_m6091_*.json >>"$OUT/trace_phases.txt" 2>&1
		cp "$OUT/trace_phases.txt" "$final/"
		cat "$OUT/trace_phases.txt"
		;;
	exchange)
		# 6091 x 1520 x 2416 on the Stream-K walk: the partials summed by
		# 16-byte atomics into one fp32 sum (deterministic 0), or stored in
		# slots and read in order (1), beside the data-parallel walk; two
		# rounds, then a timeline of each Stream-K form
		step compile_exchange 60 1 compile tests/gpu/sk_exchange.json -j 16 --quiet --format csv
		step compile_exchange_traced 60 1 compile tests/gpu/sk_exchange.json --trace -j 16 --quiet --format csv
		step exchange_1 60 1 sweep tests/gpu/sk_exchange.json --tag sk-exchange-1 --timeout 10
		step exchange_2 60 1 sweep tests/gpu/sk_exchange.json --tag sk-exchange-2 --timeout 10
		for d in 0 1; do
			step "trace_exchange_d$d" 120 1 run --algorithm gemm --world 1 -m 6091 -n 1520 -k 2416 \
				--dtype bf16 --mma wgmma --BLK_M 128 --BLK_N 256 --BLK_K 64 --num_warps 12 \
				--num_stages 3 --gsize_m 1 --gemm_sms 132 --deterministic "$d" --iterations 20 --warmup 3 \
				--trace "$OUT/trace_exchange_d$d.json"
		done
		python3 "$here/trace_phases.py" "$OUT"/trace_exchange_d0.json "$OUT"/trace_exchange_d1.json \
			>"$OUT/exchange_phases.txt" 2>&1
		cp "$OUT/exchange_phases.txt" "$final/"
		cat "$OUT/exchange_phases.txt"
		;;
	own)
		grid_and_widths own sweeps/perrank.json "sweeps/perrank_$sizes.json" \
			perrank "perrank-$set" "${LIMIT_COMPILE:-300}" "${LIMIT_GRID:-120}" "${LIMIT_SIZES:-100}"
		;;
	probe)
		step "compile_probe_$set" 60 1 compile "sweeps/$probe_spec.json" -j 16 --quiet --format csv
		step "probe_$set" 90 1 sweep "sweeps/$probe_spec.json" --tag "$set-probe" --quiet --timeout 10
		step "probe_best_$set" 20 1 best --tag "$set-probe" --top 8
		cp "$OUT/probe_best_$set.txt" "$final/"
		;;
	*)
		echo "widths.sh: unknown step $s (check, heldout, sizes, trace, exchange, own, probe)" >&2
		exit 2
		;;
	esac
done
