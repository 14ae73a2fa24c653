# 50_datasets.sh: the field's dataset files run unchanged, with the rest of
# the configuration from flags.
. tests/e2e/lib.sh

# Each shipped dataset runs as shipped, with no --algorithm: a dataset for
# one algorithm names it (tiles.csv: an algorithm column), the others run
# with the default.
for f in sweeps/datasets/*.json sweeps/datasets/*.csv; do
	name=$(basename "$f")
	n=$("$FGO" sweep "$f" --world 2 --dry-run --format csv 2>/dev/null | tail -n +2 | grep -c ',yes,')
	check "dataset-$name-plan" "configurations planned from $f" [ "$n" -gt 0 ]
	expect_exit "dataset-$name-run" 0 mpi 2 sweep "$f" --world 2 --tag "$name" --quiet --iterations 2
	expect_eq "dataset-$name-rows" "$n" "$(sql "select count(*) from runs r join sweeps s on s.id = r.sweep_id where s.tag = '$name' and r.status = 'ok'")"
done
expect_eq dataset-tiles-algorithm sk_all_scatter \
	"$(sql "select distinct r.algorithm from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'tiles.csv'")"

# A sweep with no valid configuration is bad input, not an empty success:
# exit 2, every reason once with its count, nothing stored (tiles.csv's
# Stream-K rows forced onto all_scatter, which has no communication CTAs).
sweeps_before=$(sql "select count(*) from sweeps")
expect_exit dataset-none-valid-exit 2 mpi 2 sweep sweeps/datasets/tiles.csv --algorithm all_scatter
expect_err dataset-none-valid-says "none of its 3 configurations can run"
expect_err dataset-none-valid-grouped "2 x all_scatter has no communication CTAs (comm_sms=2 must be 0)"
expect_err dataset-none-valid-grouped-2 "1 x all_scatter has no communication CTAs (comm_sms=1 must be 0)"
expect_err dataset-none-valid-hint "--dry-run"
expect_eq dataset-none-valid-nothing-stored "$sweeps_before" "$(sql "select count(*) from sweeps")"
# one valid configuration among invalid ones still runs (exit 0, the invalid stored)
cat >"$T/mixed.json" <<'EOF'
{"algorithm": "all_scatter", "world": 2, "M": 128, "N": 128, "K": 128, "BLK_M": 32, "BLK_N": 32,
 "BLK_K": 32, "comm_sms": [0, 1]}
EOF
expect_exit dataset-some-valid-exit 0 mpi 2 sweep "$T/mixed.json" --tag some-valid --quiet --iterations 2
expect_eq dataset-some-valid-rows "invalid ok" \
	"$(sql "select group_concat(status, ' ') from (select r.status from runs r join sweeps s on s.id = r.sweep_id where s.tag = 'some-valid' order by r.status)")"

# The field's decode-to-prefill dataset (M = 1 .. 1024, N = 4096, K = 14336:
# too big to run on CI's CPUs, planned only): with default flags every
# shape is valid, the default tile fitted to the shape (kit_fit_tile)
n=$("$FGO" sweep sweeps/decode_prefill.json --dry-run --format csv 2>/dev/null | tail -n +2 | grep -c ',yes,')
expect_eq dataset-decode-prefill-valid 11 "$n"
n=$("$FGO" sweep sweeps/decode_prefill.json --mma wgmma --dtype bf16 --BLK_K 64 --num_warps 8 --dry-run --format csv 2>/dev/null |
	tail -n +2 | grep -c ',yes,')
expect_eq dataset-decode-prefill-valid-wgmma 11 "$n"
