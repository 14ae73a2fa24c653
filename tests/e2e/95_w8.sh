# 95_w8.sh: every fused family at W=8 (issue 51) on the CPU backend, eight
# ranks on this machine's cores: tests/e2e/w8_cpu.json (fp16, split-K, the
# sk forms with and without communication CTAs, a ragged shape) runs, every
# run ok and validated on its whole output; sweeps/w8_check.json (the GPU
# form: both cores, both dtypes) plans every configuration valid.
. tests/e2e/lib.sh

want=$("$FGO" sweep tests/e2e/w8_cpu.json --dry-run --backend cpu --format csv | awk -F, 'NR > 1 && $15 == "yes"' | wc -l)
check w8-1.1 "the fixture plans at least 25 valid runs ($want)" [ "$want" -ge 25 ]
expect_exit w8-1.2 0 mpi 8 sweep tests/e2e/w8_cpu.json --backend cpu --quiet
expect_eq w8-1.3 "$want" "$(sql "select count(*) from runs where status = 'ok' and world = 8")"
expect_eq w8-1.4 0 "$(sql "select count(*) from runs where status != 'ok' or world != 8")"
expect_eq w8-1.5 "all_gather_gemm_pull all_gather_gemm_push all_reduce_one_shot all_reduce_two_shot all_scatter reduce_scatter sk_all_reduce sk_all_scatter" \
	"$(sql "select group_concat(a, ' ') from (select distinct algorithm a from runs where status = 'ok' order by 1)")"
expect_eq w8-1.6 "$want" "$(sql "select count(*) from runs where validated = 1")"

expect_exit w8-2.1 0 "$FGO" sweep sweeps/w8_check.json --dry-run --format csv
expect_eq w8-2.2 "8" "$(awk -F, 'NR > 1 { print $4 }' "$T/out" | sort -u | tr '\n' ' ' | sed 's/ $//')"
expect_eq w8-2.3 "" "$(awk -F, 'NR > 1 && $15 != "yes"' "$T/out" | head -n 3)"
expect_eq w8-2.4 "all_gather_gemm_pull all_gather_gemm_push all_reduce_one_shot all_reduce_two_shot all_scatter reduce_scatter sk_all_reduce sk_all_scatter; bf16 fp16; 16 wgmma" \
	"$(awk -F, 'NR > 1 { print $2 }' "$T/out" | sort -u | tr '\n' ' ' | sed 's/ $//'); $(awk -F, 'NR > 1 { print $3 }' "$T/out" | sort -u | tr '\n' ' ' | sed 's/ $//'); $(awk -F, 'NR > 1 { print $11 }' "$T/out" | sort -u | tr '\n' ' ' | sed 's/ $//')"
