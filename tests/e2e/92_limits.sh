# 92_limits.sh: resource limits.
#   - memory: a spec whose configuration would need more memory than the
#     machine has is refused before anything is allocated or stored, with
#     the number it needs; under the default heap limit (the node's
#     memory per rank) the same configuration is stored as invalid with its
#     size, and one of more than 1 GiB that fits runs; sizes are printed in
#     the unit that shows them (1 KiB, 372.6 GiB);
#   - --timeout: a launch that waits on nothing is not cut short by it;
#   - a full disk while the store is written (a small tmpfs; root only):
#     a clear error, the store intact with every run stored before, and
#     `--resume` completes the sweep once there is space again.
. tests/e2e/lib.sh

# ---- memory ----
printf '{"algorithm": "all_scatter", "dtype": "fp32", "world": 2, "M": 200000, "N": 200000, "K": 200000}\n' >"$T/huge.json"
t0=$(date +%s)
expect_exit limits-1.1 2 mpi 2 sweep "$T/huge.json" --heap-size 2000G
expect_err limits-1.2 "huge.json: configuration 1 (all_scatter fp32 W=2 M=200000 N=200000 K=200000) needs 1.31 TiB of memory on a node (2 ranks x 670.6 GiB), more than its"
# at once: no allocation tried (that would take minutes or the OOM killer);
# the bound leaves mpirun's start on a loaded machine room
check limits-1.3 "refused at once ($(($(date +%s) - t0)) s)" [ $(($(date +%s) - t0)) -le 30 ]
check limits-1.4 "nothing stored: no store made" [ ! -e "$FGOBENCH_DB" ]
# M = N = 2^32: the heap's byte count no longer fits in 64 bits; it must
# not wrap around to a small number that passes the limit
printf '{"algorithm": "all_scatter", "dtype": "fp32", "world": 2, "M": 33554432, "N": 33554432, "K": 16, "BLK_K": 16}\n' >"$T/wrap.json"
expect_exit limits-1.5 0 mpi 2 sweep "$T/wrap.json" --heap-size 900000G --quiet --db "$T/wrap.db"
check limits-1.6 "a 2^50-element C is refused by its heap size, not wrapped" sh -c \
	"sqlite3 '$T/wrap.db' 'select status, reason from runs' | grep -q '^invalid|needs [0-9.]* PiB of heap per rank, more than the limit of 878.9 TiB (raise --heap-size)$'"
# the largest dimensions a spec takes: the tile counts of their layout
# would overflow, so it is never laid out, just refused with the reason
# (the spec's one configuration: exit 2, nothing stored)
printf '{"algorithm": "all_scatter", "dtype": "fp32", "world": 2, "M": 1099511627776, "N": 1099511627776, "K": 1099511627776, "BLK_M": 16, "BLK_N": 16, "BLK_K": 16}\n' >"$T/max.json"
expect_exit limits-1.6.1 2 mpi 2 sweep "$T/max.json" --heap-size 900000G --quiet --db "$T/max.db"
expect_err limits-1.6.2 "1 x M=1099511627776 N=1099511627776 K=1099511627776: a matrix of more than 2^50 elements (M x N, M x K or K x N) is beyond any machine's memory"
check limits-1.6.3 "no arithmetic overflow reported" sh -c "! grep -q 'runtime error' '$T/err'"
# the default limit is the node's memory per rank (runner_heap_default:
# three quarters of MemAvailable over the ranks), not a fixed size; the
# reference counts too
expect_exit limits-1.7 0 mpi 2 sweep "$T/huge.json" --quiet
reason=$(sql "select reason from runs")
echo "$reason" >"$T/reason"
check limits-1.8 "stored invalid with its size ($reason)" grep -q \
	'^needs 372.6 GiB of heap and 298.0 GiB for its reference per rank, more than the [0-9.]* [MGT]iB this node.s memory gives a rank (the default --heap-size)$' "$T/reason"
avail=$(awk '/^MemAvailable:/ {print $2 * 1024}' /proc/meminfo)
expect_eq limits-1.9 "$(awk -v a="$avail" 'BEGIN {print int(a * 0.75 / 2 / 2^30)}')" \
	"$(echo "$reason" | sed -n 's/.*more than the \([0-9.]*\) GiB this node.*/\1/p' | cut -d. -f1)"
# the limit in the unit that shows it
expect_exit limits-1.10 0 mpi 2 sweep "$T/huge.json" --heap-size 1K --quiet --db "$T/k.db"
expect_eq limits-1.11 "invalid|needs 372.6 GiB of heap per rank, more than the limit of 1 KiB (raise --heap-size)" \
	"$(sql "select status, reason from runs" "$T/k.db")"
# a request larger than the node: refused (exit 2), the store untouched
expect_exit limits-1.12 2 mpi 2 sweep "$T/huge.json" --heap-size 1000G --quiet --db "$T/k.db"
expect_err limits-1.13 "needs 1.31 TiB of memory on a node"
expect_eq limits-1.14 "1 ok" "$(sql "select count(*) from runs" "$T/k.db") $(sql "pragma integrity_check" "$T/k.db")"
# more than 1 GiB of heap, fitting the node: valid and run by the default
# (4 GiB and up per rank, on one rank; a smaller node skips it)
printf '{"algorithm": "gemm", "dtype": "fp32", "world": 1, "M": 16384, "N": 16384, "K": 16, "BLK_K": 16, "iterations": 1, "warmup": 0}\n' >"$T/big.json"
if [ "$(awk -v a="$avail" 'BEGIN {print (a * 0.75 >= 4 * 2^30)}')" = 1 ]; then
	expect_exit limits-1.15 0 mpi 1 sweep "$T/big.json" --no-validate --quiet --db "$T/big.db"
	expect_eq limits-1.16 "ok|" "$(sql "select status, reason from runs" "$T/big.db")"
else
	echo "SKIP limits-1.15: under 4 GiB available: the big default heap was not run"
fi

# ---- --timeout bounds waiting, not computing ----
# a launch that waits on no flag (plain GEMM, one rank) runs to its end
# past --timeout and is stored ok (README "Timeouts")
printf '{"algorithm": "gemm", "dtype": "fp32", "world": 1, "M": 512, "N": 512, "K": 512, "iterations": 2, "warmup": 0}\n' >"$T/slow.json"
expect_exit limits-3.1 0 mpi 1 sweep "$T/slow.json" --timeout 0.001 --quiet --db "$T/slow.db"
expect_eq limits-3.2 ok "$(sql "select status from runs" "$T/slow.db")"
check limits-3.3 "its launches took longer than --timeout" \
	[ "$(sql "select min(ms) > 1 from samples where kind = 'fused'" "$T/slow.db")" = 1 ]

# ---- a full disk ----
small=$T/small
mkdir -p "$small"
if ! mount -t tmpfs -o size=300k tmpfs "$small" 2>/dev/null; then
	echo "SKIP limits-2: cannot mount a small tmpfs here (needs root); the full-disk path is not tested"
	exit 0
fi
trap 'umount "$small" 2>/dev/null; rm -rf "$T"' EXIT
export FGOBENCH_DB="$small/store.db"
planned=$("$FGO" sweep sweeps/smoke.json --dry-run --format csv 2>/dev/null | tail -n +2 | grep -c ',yes,')
expect_exit limits-2.1 1 mpi 2 sweep sweeps/smoke.json --tag full --quiet
expect_err limits-2.2 "the disk is full or a file size limit was reached (free some space, then rerun with --resume"
kept=$(sql "select count(*) from runs where status = 'ok'")
echo "full disk: $kept of $planned runs stored before the disk filled"
check limits-2.3 "some runs stored, not all ($kept of $planned)" [ "$kept" -ge 1 ] && [ "$kept" -lt "$planned" ]
expect_eq limits-2.4 ok "$(sql "pragma integrity_check")"
expect_eq limits-2.5 0 "$(sql "select count(*) from runs r where status = 'ok' and (select count(*)
	from samples s where s.run_id = r.id and s.kind = 'fused') != r.iterations")"
# reads work on the full disk
expect_exit limits-2.6 0 "$FGO" best --format csv
# space again: the sweep resumes and completes
mount -o remount,size=8m "$small"
expect_exit limits-2.7 0 mpi 2 sweep sweeps/smoke.json --tag full --resume --quiet
expect_eq limits-2.8 "$planned" "$(sql "select count(*) from runs where status = 'ok'")"
expect_eq limits-2.9 "1 done" "$(sql "select count(*), max(status) from sweeps" | tr '|' ' ')"
expect_eq limits-2.10 ok "$(sql "pragma integrity_check")"
