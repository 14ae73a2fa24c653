# 94_defaults.sh: the default configuration of a problem that gives no
# tile (issue 33): on the CPU backend the core's default is unchanged (the
# defaults table has no CPU rows); --config and the spec's "config" refuse
# unknown values (exit 2, with the position); config auto without a cost
# model exits 2 saying to run calibrate; with one (calibrate --fit after a
# small sweep) it runs best --predict's first where a measured shape is
# near, the default where none is, says which and why, and stores its
# full configuration in the key.
. tests/e2e/lib.sh

# the CPU's default tile, as before the table: 64x64x32 s2 w4, fitted to N/W
expect_exit defaults-1.1 0 mpi 2 run -m 64 -n 128 -k 64 --dtype bf16
expect_eq defaults-1.2 "all_scatter/bf16/w2/m64n128k64/b64x64x32/s2/wp4/mma16/g8/sm0+0/c0x0" \
	"$(sql "select config_key from runs order by id desc limit 1")"
check defaults-1.3 "no table note on the CPU (no rows)" sh -c "! grep -q 'default tile' '$T/err'"

# unknown values: the flag and the spec key
expect_exit defaults-2.1 2 "$FGO" run --config best
expect_err defaults-2.2 'unknown --config "best" (table: the defaults table, the default; auto:'
expect_exit defaults-2.3 2 "$FGO" sweep tests/e2e/tiny.json --config 1 --dry-run
printf '{"algorithm": "gemm", "world": 1, "M": 64, "N": 64, "K": 64,\n "config": "model"}\n' >"$T/bad.json"
expect_exit defaults-2.4 2 "$FGO" sweep "$T/bad.json" --dry-run
expect_err defaults-2.5 'bad.json:2:12: "config" expects "table" (the defaults table, the default) or "auto"'
sed 's/"model"/"table"/' "$T/bad.json" >"$T/table.json"
expect_exit defaults-2.6 0 "$FGO" sweep "$T/table.json" --dry-run

# config auto without a fit of the CPU's core: exit 2, nothing stored
runs=$(sql "select count(*) from runs")
expect_exit defaults-3.1 2 mpi 2 run -m 64 -n 128 -k 64 --dtype bf16 --config auto
expect_err defaults-3.2 'config auto: no cost model of the mma16 core for'
expect_err defaults-3.3 'run `fgobench calibrate` (or `fgobench calibrate --fit` after a sweep) first'
expect_eq defaults-3.4 "$runs" "$(sql "select count(*) from runs")"

# with a fit: where no measured shape is near (the fixture's all_scatter
# runs are 256 x 512 x 512, 4.12 away) the default stays and the note says
# why; at 256 x 512 x 256 (1.00 away) best --predict's ranking picks, the
# note says so, the key holds it
expect_exit defaults-4.1 0 mpi 2 sweep tests/e2e/model.json --quiet
expect_exit defaults-4.2 0 "$FGO" calibrate --fit
expect_exit defaults-4.3 0 mpi 2 run -m 64 -n 128 -k 64 --dtype bf16 --config auto
expect_err defaults-4.4 "config auto: all_scatter bf16 W=2 M=64 N=128 K=64: 64x64x32 s2 w4, the core's default tile: the defaults table has no row for it; not ranked (the runs of"
expect_err defaults-4.5 "the nearest measured shape, 256x512x512, is 4.12 away"
expect_eq defaults-4.6 "all_scatter/bf16/w2/m64n128k64/b64x64x32/s2/wp4/mma16/g8/sm0+0/c0x0" \
	"$(sql "select config_key from runs order by id desc limit 1")"
expect_exit defaults-4.7 0 mpi 2 run -m 256 -n 512 -k 256 --dtype bf16 --config auto
note=$(grep -o 'config auto: all_scatter bf16 W=2 M=256 N=512 K=256: [0-9x]* s[0-9]* w[0-9]*, ranked first of [0-9]* as `best --predict` ranks them' "$T/err")
check defaults-4.8 "the run says best --predict's ranking picked it ($(head -c 300 "$T/err"))" [ -n "$note" ]
tile=$(echo "$note" | sed 's/.*K=256: \([0-9]*\)x\([0-9]*\)x\([0-9]*\) s\([0-9]*\) w\([0-9]*\),.*/b\1x\2x\3\/s\4\/wp\5\//')
key=$(sql "select config_key from runs order by id desc limit 1")
check defaults-4.9 "the stored key ($key) holds the note's configuration ($tile)" \
	sh -c "echo '$key' | grep -q '$tile'"
expect_eq defaults-4.10 "ok" "$(sql "select status from runs order by id desc limit 1")"
# the spec key asks the same, and the same problem gets the same pick
printf '{"algorithm": "all_scatter", "dtype": "bf16", "world": 2, "M": 256, "N": 512, "K": 256,\n "config": "auto", "iterations": 2, "warmup": 0}\n' >"$T/auto.json"
expect_exit defaults-4.11 0 mpi 2 sweep "$T/auto.json" --quiet
expect_eq defaults-4.12 "$key" "$(sql "select config_key from runs order by id desc limit 1")"
# a given tile is kept under auto: only what was left out is picked
expect_exit defaults-4.13 0 mpi 2 run -m 256 -n 512 -k 256 --dtype bf16 --config auto --BLK_M 32 --BLK_N 32 --BLK_K 16 --num_stages 1 --num_warps 4
check defaults-4.14 "the given tile stays" sh -c "sqlite3 '$FGOBENCH_DB' 'select config_key from runs order by id desc limit 1' | grep -q '/b32x32x16/s1/wp4/'"
