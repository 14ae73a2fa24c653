#!/bin/sh
# tests/gpu/mgpu.sh: the multi-GPU evidence on a machine of 2, 4 or 8 GPUs,
# with the build made elsewhere (build/cuda carried, or FGOBENCH_BUILD), one
# rank per GPU, everything under $OUT and packed into $OUT/mgpu.tgz. Steps
# (STEPS, default all but ab):
#   calibrate  the ceilings and the link, stored (sol, the roofline's lines)
#   compile    the kernels of sweeps/mgpu.json and sweeps/mgpu_decode.json
#              for this GPU, -j nproc (skipped when the carried cache has them)
#   sweep      sweeps/mgpu.json (every fused family, the standard shapes) at
#              every W the machine allows (2, 4, 8), tagged mgpu-wW
#   decode     sweeps/mgpu_decode.json (the seed's all_scatter, M = 1..1024)
#              at every W, tagged decode-wW
#   ab         the same two sweeps at W = 2 with the build in FGOBENCH_BASE
#              (tags base-mgpu, base-mgpu_decode, its own store $OUT/base.db),
#              just before this build's: the table sets the two side by
#              side, minutes apart
#   kill       sweeps/mgpu_decode.json at W = 2 (KILL_WORLD) into its own
#              store, one rank killed with SIGKILL mid-sweep, then `sweep --resume`: every
#              configuration stored once, one sweep, the store intact
#   trace      `run --trace` of every family at W = 2 on two shapes (decode
#              and prefill) with a winning tile: the timelines as JSON
#   torch      PyTorch's matmul + NCCL collective for each family on the
#              same GPUs (tests/gpu/torch_anchor.py under torchrun, W = 2):
#              $OUT/torch.csv, set beside fgobench's vendor sequence
#   table      $OUT/summary.md (python3's sqlite3 on the store): per family
#              and shape the best fused run against the vendor sequence of
#              the same problem, per world size; the targets of issue 31
# Plots need gnuplot, which the GPU machines lack: bring $OUT back and run
#   fgobench plot roofline --db DIR/mgpu.db --world 2 -o plots/out
#   fgobench plot timeline DIR/trace-*.json -o plots/out
# where gnuplot is (the README's "Multi-GPU" section).
#   OUT=/some/dir sh tests/gpu/mgpu.sh
set -u
here=$(dirname "$0")
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
steps=${STEPS:-calibrate compile sweep decode kill trace torch table}
step() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
log=$OUT/mgpu.log
say() { echo "== $* ($(date +%T))" | tee -a "$log"; }
build=${FGOBENCH_BUILD:-build/cuda}
export FGOBENCH_DB=${FGOBENCH_DB:-$OUT/mgpu.db}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$gpus" -ge 2 ] || { echo "mgpu.sh: needs 2 or more GPUs, this machine has $gpus" >&2; exit 2; }
worlds=2
[ "$gpus" -ge 4 ] && worlds="$worlds 4"
[ "$gpus" -ge 8 ] && worlds="$worlds 8"
rc=0
nvidia-smi topo -m >"$OUT/topo.txt" 2>&1

# fgo NP ARGS...: fgobench under mpirun on NP ranks, one per GPU (run.sh)
fgo() {
	n=$1
	shift
	NP=$n sh "$here/run.sh" "$@"
}

if step calibrate; then
	say "calibrate on $gpus GPUs"
	fgo "$gpus" calibrate >>"$log" 2>&1 || rc=1
	grep -E "link_bw|matrix_peak|memory_bw" "$OUT/calibrate.log" | tail -n 5
fi
if step compile; then
	for spec in sweeps/mgpu.json sweeps/mgpu_decode.json; do
		say "compile $spec"
		fgo 1 compile "$spec" -j "$(nproc)" --quiet --format csv >/dev/null 2>>"$log" || rc=1
		[ -n "${FGOBENCH_BASE:-}" ] && step ab &&
			{ FGOBENCH_BUILD=$FGOBENCH_BASE fgo 1 compile "$spec" -j "$(nproc)" --quiet --format csv \
				>/dev/null 2>>"$log" || rc=1; }
	done
fi
if step ab; then
	for spec in mgpu mgpu_decode; do
		say "A/B: $spec at W=2 with the base build ($FGOBENCH_BASE)"
		FGOBENCH_DB=$OUT/base.db FGOBENCH_BUILD=$FGOBENCH_BASE fgo 2 sweep "sweeps/$spec.json" \
			--world 2 --tag "base-$spec" --timeout 10 --quiet 2>&1 | tail -n 2 | tee -a "$log"
	done
fi
for w in $worlds; do
	if step sweep; then
		say "sweeps/mgpu.json at W=$w on $w GPUs"
		fgo "$w" sweep sweeps/mgpu.json --world "$w" --tag "mgpu-w$w" --timeout 10 --quiet 2>&1 |
			tail -n 2 | tee -a "$log"
	fi
	if step decode; then
		say "sweeps/mgpu_decode.json at W=$w on $w GPUs"
		fgo "$w" sweep sweeps/mgpu_decode.json --world "$w" --tag "decode-w$w" --timeout 10 --quiet 2>&1 |
			tail -n 2 | tee -a "$log"
	fi
done

if step kill; then
	kw=${KILL_WORLD:-2} # the world size of the killed sweep
	say "kill -9 of one rank mid-sweep at W=$kw, then --resume"
	kdb=$OUT/kill.db
	rm -f "$kdb"
	FGOBENCH_DB=$kdb fgo "$kw" sweep sweeps/mgpu_decode.json --world "$kw" --tag kill --timeout 10 --quiet \
		>"$OUT/kill-1.log" 2>&1 &
	sleep 5
	victim=$(pgrep -f "fgobench sweep sweeps/mgpu_decode.json" | sort -n | tail -n 1)
	echo "killing pid $victim" | tee -a "$log"
	[ -n "$victim" ] && kill -9 "$victim"
	wait
	echo "stored before the resume: $(python3 -c "import sqlite3,sys;print(sqlite3.connect(sys.argv[1]).execute(\"SELECT COUNT(*) FROM runs WHERE status != 'started'\").fetchone()[0])" "$kdb")" |
		tee -a "$log"
	FGOBENCH_DB=$kdb fgo "$kw" sweep sweeps/mgpu_decode.json --world "$kw" --tag kill --timeout 10 --resume \
		--quiet >"$OUT/kill-2.log" 2>&1
	echo "resume exit $?" | tee -a "$log"
	valid=$("$build/fgobench" sweep sweeps/mgpu_decode.json --world "$kw" --dry-run --format csv 2>/dev/null |
		grep -c ',yes,')
	python3 - "$kdb" "$valid" <<'EOF' 2>&1 | tee -a "$log" || rc=1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
want = int(sys.argv[2])
sweeps = db.execute("SELECT COUNT(*) FROM sweeps").fetchone()[0]
runs = db.execute("SELECT COUNT(*) FROM runs WHERE status != 'invalid'").fetchone()[0]
dup = db.execute("SELECT COUNT(*) FROM (SELECT config_key FROM runs GROUP BY config_key HAVING COUNT(*) > 1)").fetchone()[0]
left = db.execute("SELECT COUNT(*) FROM runs WHERE status = 'started'").fetchone()[0]
ok = db.execute("PRAGMA integrity_check").fetchone()[0]
print("kill: %d sweep(s), %d of %d valid configurations stored, %d duplicated, %d left started, integrity %s"
      % (sweeps, runs, want, dup, left, ok))
sys.exit(0 if sweeps == 1 and runs == want and dup == 0 and left == 0 and ok == "ok" else 1)
EOF
fi

if step trace; then
	tiles_big="--BLK_M 128 --BLK_N 256 --num_warps 12 --num_stages 3"
	tiles_small="--BLK_M 64 --BLK_N 128 --num_warps 8 --num_stages 4"
	for a in all_scatter all_reduce_one_shot all_reduce_two_shot reduce_scatter all_gather_gemm_pull \
		all_gather_gemm_push sk_all_scatter sk_all_reduce; do
		for shape in "4096 4096 14336 big" "1024 4096 14336 small"; do
			set -- $shape
			eval t=\$tiles_$4
			sk=
			case $a in sk_*) sk="--gemm_sms 124 --comm_sms 8"; t=$tiles_big ;; esac
			json=$OUT/trace-$a-m$1.json
			say "trace $a $1x$2x$3 W=2"
			# shellcheck disable=SC2086
			fgo 2 run --algorithm "$a" --world 2 -m "$1" -n "$2" -k "$3" --datatype bf16 --mma wgmma \
				--BLK_K 64 $t $sk --iterations 20 --warmup 3 --timeout 10 --tag "trace-$a" \
				--trace "$json" >"$OUT/trace-$a-m$1.txt" 2>&1 || rc=1
			grep -E "trace of run|GEMM-busy|error|^status |^t_fused_ms |^t_baseline_ms " \
				"$OUT/trace-$a-m$1.txt" | tee -a "$log"
		done
	done
fi

if step torch; then
	say "PyTorch's sequences on 2 GPUs"
	timeout 300 torchrun --nproc_per_node=2 "$here/torch_anchor.py" >"$OUT/torch.csv" 2>>"$log" || rc=1
	cat "$OUT/torch.csv"
fi
if step table; then
	TORCH_CSV=$OUT/torch.csv python3 "$here/mgpu_table.py" "$FGOBENCH_DB" ${FGOBENCH_BASE:+"$OUT/base.db"} >"$OUT/summary.md" 2>&1 || rc=1
	cat "$OUT/summary.md"
fi
# what comes back: the stores, the logs and the timelines in one archive
(cd "$OUT" && tar czf mgpu.tgz --exclude mgpu.tgz ./*.db ./*.log ./*.txt ./*.json ./*.md 2>/dev/null)
exit $rc
