# 50_datasets.sh: the field's dataset files run unchanged, with the rest of
# the configuration from flags.
. tests/e2e/lib.sh

for f in sweeps/datasets/*.json sweeps/datasets/*.csv; do
	name=$(basename "$f")
	# a dataset that sets comm_sms is for a form with communication CTAs
	algo=all_scatter
	grep -q comm_sms "$f" && algo=sk_all_scatter
	n=$("$FGO" sweep "$f" --algorithm $algo --world 2 --dry-run --format csv 2>/dev/null | tail -n +2 | grep -c ',yes,')
	check "dataset-$name-plan" "configurations planned from $f" [ "$n" -gt 0 ]
	expect_exit "dataset-$name-run" 0 mpi 2 sweep "$f" --algorithm $algo --world 2 --tag "$name" --quiet --iterations 2
	expect_eq "dataset-$name-rows" "$n" "$(sql "select count(*) from runs r join sweeps s on s.id = r.sweep_id where s.tag = '$name' and r.status = 'ok'")"
done

# The field's decode-to-prefill dataset (M = 1 .. 1024, N = 4096, K = 14336:
# too big to run on CI's CPUs, planned only): with default flags every
# shape is valid, the default tile fitted to the shape (kit_fit_tile)
n=$("$FGO" sweep sweeps/decode_prefill.json --dry-run --format csv 2>/dev/null | tail -n +2 | grep -c ',yes,')
expect_eq dataset-decode-prefill-valid 11 "$n"
n=$("$FGO" sweep sweeps/decode_prefill.json --mma wgmma --dtype bf16 --BLK_K 64 --num_warps 8 --dry-run --format csv 2>/dev/null |
	tail -n +2 | grep -c ',yes,')
expect_eq dataset-decode-prefill-valid-wgmma 11 "$n"
