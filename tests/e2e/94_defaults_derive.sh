# 94_defaults_derive.sh: the defaults table derived from a store (issue 49):
# `best --defaults` maps each problem of the store's ok, validated wgmma
# runs to the row a run without a tile takes and judges the row's pick
# against each problem's best; the derived pick covers the most problems,
# then has the lowest geomean; --write replaces only a row whose derived
# pick is measured on 2 or more of its problems and more than 1%
# faster, gives the committed src/spec/defaults_rows.inc back byte for
# byte when no row changes, and never writes through a symbolic link; bad
# flags exit 2. The CPU backend has no rows (its runs are mma.sync), so
# the wgmma runs are written into a store the tool made, with known times.
. tests/e2e/lib.sh

DB=$T/derive.db
ROWS=src/spec/defaults_rows.inc

# a store made by the tool: its schema and one CPU run (mma.sync: no row)
expect_exit derive-1.1 0 mpi 2 run -m 64 -n 128 -k 64 --dtype bf16 --db "$DB" --iterations 2 --warmup 0
expect_exit derive-1.2 0 "$FGO" best --defaults --db "$DB" --format csv
expect_err derive-1.3 "no ok, validated run of the Hopper core (wgmma) in $DB: every row kept as it is"
expect_eq derive-1.4 "26" "$(grep -c ',kept: no problem$' "$T/out")"
# a store that covers no row gives the committed rows back, byte for byte
expect_exit derive-1.5 0 "$FGO" best --defaults --db "$DB" --write "$T/same.inc"
check derive-1.6 "--write without a covered row is the committed $ROWS" cmp -s "$ROWS" "$T/same.inc"
expect_err derive-1.7 "wrote $T/same.inc: no row replaced (the table as it is)"

# ins SWEEP M N K BLK_M BLK_N STAGES GSIZE_M SPLIT MMA VALIDATED MS: an ok
# gemm run at W=1 in bf16 (BLK_K 64, 8 warps)
sql "INSERT INTO sweeps(tag, host, backend, started_at, status) VALUES ('derive', 'h100', 'gpu', '2026-12-07T00:00:00Z', 'done')" "$DB"
ins() {
	sql "INSERT INTO runs(sweep_id, config_key, config_hash, algorithm, dtype, world, m, n, k,
		blk_m, blk_n, blk_k, num_stages, num_warps, mma, gsize_m, gemm_sms, comm_sms, comm_blk_m,
		comm_blk_n, status, validated, t_fused_ms, split_k, started_at)
		VALUES ($1, 'gemm/bf16/w1/m$2n$3k$4/b$5x$6x64/s$7/wp8/mma${10}/g$8/sk$9', 'x', 'gemm', 'bf16', 1,
		$2, $3, $4, $5, $6, 64, $7, 8, ${10}, $8, 0, 0, 0, 0, 'ok', ${11}, ${12}, $9,
		'2026-12-07T00:00:00Z')" "$DB"
}
# row 20 (any family, C <= 512K, any K: 64x64x64 s6 w8, no split), three
# problems: P1 128x4096x4096, P2 128x4096x2048, P3 256x2048x2048.
#        pick A (the row's)   B 128x128 s4   best
#   P1   1.0  (2.0x)          0.8 (1.6x)     0.5, 64x128 s4 (on P1 only)
#   P2   0.4  (1.6x)          0.32 (1.28x)   0.25, B's tile at gsize_m 4 (not a pick)
#   P3   0.5  (1.25x)         0.4 (1x)       B
# A: geomean 4^(1/3) = 1.587, worst 2 (P1). B covers 3 (64x128's 1), geomean
# 2.048^(1/3) = 1.270, worst 1.6, 0.8x A's time on all three: replaced.
ins 2 128 4096 4096 64 64 6 8 1 64 1 1.0
ins 2 128 4096 4096 128 128 4 8 1 64 1 0.8
ins 2 128 4096 4096 64 128 4 8 1 64 1 0.5
ins 2 128 4096 4096 64 64 6 8 1 16 1 0.1     # mma.sync: another core
ins 2 128 4096 2048 64 64 6 8 1 64 1 0.4
ins 2 128 4096 2048 128 128 4 8 1 64 1 0.32
ins 2 128 4096 2048 128 128 4 4 1 64 1 0.25
ins 1 256 2048 2048 64 64 6 8 1 64 1 0.3     # older run of A's key: the newest counts
ins 2 256 2048 2048 64 64 6 8 1 64 1 0.5
ins 2 256 2048 2048 128 128 4 8 1 64 1 0.4
ins 2 256 2048 2048 64 128 4 8 1 64 0 0.1    # not validated
# row 26 (any, the largest: 128x256x64 s3 w12): 128x128 s5 0.995x the
# pick's time on both problems: not 1% faster, kept
ins 2 4096 4096 4096 128 256 3 8 1 64 1 1.0
ins 2 4096 4096 4096 128 128 5 8 1 64 1 0.995
ins 2 4096 4096 8192 128 256 3 8 1 64 1 2.0
ins 2 4096 4096 8192 128 128 5 8 1 64 1 1.99
# row 19 (any, C <= 256K, K >= 4096: 64x64x64 s6 w8 split 4), two problems:
# 64x4096x4096 has the pick (0.2) and 32x64 s8 split 8 (0.1); 128x2048x4096
# only a gsize_m 4 run: the derived pick is measured on 1 of 2, kept
ins 2 64 4096 4096 64 64 6 8 4 64 1 0.2
ins 2 64 4096 4096 32 64 8 8 8 64 1 0.1
ins 2 128 2048 4096 64 64 6 4 4 64 1 0.3
# the warps column: 12 for row 26's pick and its rival
sql "UPDATE runs SET num_warps = 12, config_key = config_key || '/w12' WHERE m = 4096" "$DB"

expect_exit derive-2.1 0 "$FGO" best --defaults --db "$DB" --format csv
expect_eq derive-2.2 "row,family,pick,problems,pick_measured,pick_geomean,pick_worst,pick_worst_at,derived,derived_measured,derived_geomean,derived_worst,derived_vs_pick,verdict" \
	"$(head -1 "$T/out")"
expect_eq derive-2.3 "20,any,64x64x64 s6 w8,3,3,1.587,2.000,gemm bf16 W=1 128x4096x4096,128x128x64 s4 w8,3,1.270,1.600,0.800,replace: 0.800x on 3" \
	"$(grep '^20,' "$T/out")"
expect_eq derive-2.4 "26,any,128x256x64 s3 w12,2,2,1.005,1.005,gemm bf16 W=1 4096x4096x4096,128x128x64 s5 w12,2,1.000,1.000,0.995,kept: 0.995x on 2" \
	"$(grep '^26,' "$T/out")"
expect_eq derive-2.5 "19,any,64x64x64 s6 w8 split 4,2,1,2.000,2.000,gemm bf16 W=1 64x4096x4096,32x64x64 s8 w8 split 8,1,1.000,1.000,0.500,kept: derived on 1 of 2" \
	"$(grep '^19,' "$T/out")"
expect_eq derive-2.6 "23" "$(grep -c ',kept: no problem$' "$T/out")"
expect_err derive-2.7 "7 problems of the Hopper core (wgmma) in $DB, 15 runs"
# json: the same columns, numbers as numbers
expect_exit derive-2.8 0 "$FGO" best --defaults --db "$DB" --format json
check derive-2.9 "json row 20 ($(head -c 300 "$T/out"))" \
	grep -q '"row": 20, "family": "any", "pick": "64x64x64 s6 w8", "problems": 3' "$T/out"
# the filters: --world 2 keeps no wgmma problem (the CPU run is W=2), so every row stays
expect_exit derive-2.10 0 "$FGO" best --defaults --db "$DB" --world 2 --format csv
expect_eq derive-2.11 "26" "$(grep -c ',kept: no problem$' "$T/out")"

# --write: only row 20 changes, to the derived pick and its evidence
expect_exit derive-3.1 0 "$FGO" best --defaults --db "$DB" --write "$T/rows.inc"
expect_err derive-3.2 "wrote $T/rows.inc: row 20 replaced by the derived pick, the other 25 as they were"
cat >"$T/want.diff" <<'EOF'
< { "wgmma", NULL, 0, 0, 0, 512 * K_, 0, 64, 64, 64, 6, 8, 1, 0,
< "W=1 gemm 128 x 4096 x 4096: best; W=2 all_scatter M=256 unsplit 1.09x the split" },
> { "wgmma", NULL, 0, 0, 0, 512 * K_, 0, 128, 128, 64, 4, 8, 1, 0,
> "derived from derive.db by best --defaults: within 60.0% of the best on 3 of 3 problems,"
> " geomean 1.270" },
EOF
diff "$ROWS" "$T/rows.inc" | grep '^[<>]' | sed 's/^\([<>]\) */\1 /' >"$T/got.diff"
check derive-3.3 "the written rows differ from $ROWS in row 20 only: $(cat "$T/got.diff")" \
	cmp -s "$T/want.diff" "$T/got.diff"
check derive-3.4 "the replaced row is row 20" sh -c "grep -B2 'derived from derive.db' '$T/rows.inc' | grep -q '^/\* row 20 \*/'"
# with a tag the evidence names it
expect_exit derive-3.5 0 "$FGO" best --defaults --db "$DB" --tag derive --write "$T/tagged.inc"
check derive-3.6 "the evidence names the tag" grep -q '"derived from derive.db (tag derive) by best --defaults' "$T/tagged.inc"

# never through a symbolic link: refused, the link and its target as they were
echo keep >"$T/target"
ln -s "$T/target" "$T/link"
expect_exit derive-4.1 2 "$FGO" best --defaults --db "$DB" --write "$T/link"
expect_err derive-4.2 "--write $T/link: a symbolic link; --write never writes through a link"
check derive-4.3 "the link's target untouched" sh -c "[ -L '$T/link' ] && [ \"\$(cat '$T/target')\" = keep ]"
expect_exit derive-4.4 2 "$FGO" best --defaults --db "$DB" --write "$T/no/such/folder/rows.inc"
expect_err derive-4.5 "cannot write $T/no/such/folder/rows.inc"

# bad usage: exit 2 naming the option
expect_exit derive-5.1 2 "$FGO" best --db "$DB" --write "$T/x.inc"
expect_err derive-5.2 "fgobench best: --write goes with --defaults"
expect_exit derive-5.3 2 "$FGO" best --defaults --db "$DB" --m 128
expect_err derive-5.4 "fgobench best: --m does not go with --defaults"
expect_exit derive-5.5 2 "$FGO" best --defaults --db "$DB" --top 3
expect_err derive-5.6 "--top does not go with --defaults"
expect_exit derive-5.7 2 "$FGO" best --defaults --db "$DB" --write
expect_err derive-5.8 "missing value for --write"
expect_exit derive-5.9 2 "$FGO" best --defaults --db "$DB" --tag nosuch
expect_err derive-5.10 'no ok runs tagged "nosuch"'
expect_exit derive-5.11 2 "$FGO" best --defaults --db "$DB" --format xml
expect_err derive-5.12 '--format expects table, md, csv or json, got "xml"'
check derive-5.13 "no file written by a refused command" sh -c "[ ! -e '$T/x.inc' ]"
