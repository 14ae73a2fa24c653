#!/bin/sh
# world_heldout.sh [DB]: the multi-GPU terms (issue 33) on the CPU backend,
# judged on shapes they were not fitted to. On NP ranks (2):
#   calibrate    the ceilings and the MPI collective curve at W=2
#   fit          sweeps/world_cpu.json (all_scatter, all_reduce_one_shot at
#                W=2, 12 shapes x 2 tiles), then `calibrate --fit`: each
#                family's terms at W=2 and their error on those runs
#   held out     sweeps/world_cpu_heldout.json (3 other shapes) into a copy
#                of the store, the fitting runs at W=2 there marked failed
#                so only the new ones count (the gemm at W=1 stays: it names
#                the machine); `best --predict --world 2` then gives the
#                fitted model's error on them in its notes
# Prints the fits and both errors. About 10 s on the idle 2-core VM.
set -eu
DB=${1:-/tmp/world_heldout.db}
FGO=${FGO:-./fgobench}
NP=${NP:-2}
MPI="mpirun --oversubscribe -np $NP"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 # as make test does
rm -f "$DB" "$DB-wal" "$DB-shm" "$DB.heldout" "$DB.heldout-wal" "$DB.heldout-shm"
export FGOBENCH_DB="$DB"
$MPI "$FGO" calibrate --size 64 --no-floor | sed -n '/^vendor collective/,/^$/p'
$MPI "$FGO" sweep sweeps/world_cpu.json --quiet
echo "## fitted to sweeps/world_cpu.json (in-sample)"
"$FGO" calibrate --fit | grep '^world '
sqlite3 "$DB" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
cp "$DB" "$DB.heldout"
export FGOBENCH_DB="$DB.heldout"
$MPI "$FGO" sweep sweeps/world_cpu_heldout.json --quiet
sqlite3 "$DB.heldout" "UPDATE runs SET status = 'failed', reason = 'held out of the judgement:"\
" fitted on' WHERE world > 1 AND sweep_id IN (SELECT id FROM sweeps WHERE spec_name = 'world_cpu')"
echo "## the same fits on sweeps/world_cpu_heldout.json (held out)"
"$FGO" best --predict -m 256 -n 512 -k 512 --world 2 2>&1 >/dev/null |
	grep -E '^fgobench: (all_scatter|all_reduce_one_shot) at W=2'
