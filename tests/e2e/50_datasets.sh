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
