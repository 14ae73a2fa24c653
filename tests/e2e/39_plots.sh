# 39_plots.sh: plots read without the README (issue 50): the roofline's peak
# lines told apart per dtype and labelled on the line, no point above its
# dtype's drawn ceiling (a calibrated peak below the runs is raised to the
# best run, and the plot says so), a compact legend; heatmap labels in a
# colour that contrasts with their cell and empty cells drawn apart from 0;
# overlap bars on a log axis that holds every measurement.
. tests/e2e/lib.sh

cat >"$T/p.json" <<'SPEC'
{
	"name": "plots",
	"iterations": 3,
	"warmup": 0,
	"blocks": [
		{ "algorithm": "all_scatter", "dtype": ["fp32", "fp16", "bf16"], "world": 2,
		  "shapes": [[64, 64, 64], [128, 64, 128]], "BLK_M": 32, "BLK_N": 32, "BLK_K": 32 }
	]
}
SPEC
expect_exit plots-1.1 0 mpi 2 sweep "$T/p.json" --tag plots --quiet
# Ceilings planted beside the runs (what calibrate stores, per rank): fp32 and
# fp16 far below every run (as a CPU's calibrated peak can be), bf16 ten times
# above its best run.
host=$(sql "select host from sweeps order by id desc limit 1")
backend=$(sql "select backend from sweeps order by id desc limit 1")
bf16_peak=$(sql "select max(tflops_total) / 2 * 10 from runs where dtype = 'bf16'")
sql "insert into ceilings (machine, backend, what, dtype, value, unit, measured_at) values
	('$host', '$backend', 'matrix_peak', 'fp32', 1e-9, 'TFLOP/s', '2026-01-01T00:00:00Z'),
	('$host', '$backend', 'matrix_peak', 'fp16', 1e-9, 'TFLOP/s', '2026-01-01T00:00:00Z'),
	('$host', '$backend', 'matrix_peak', 'bf16', $bf16_peak, 'TFLOP/s', '2026-01-01T00:00:00Z')"

# ---- 1. roofline
P="$T/plots"
expect_exit plots-1.2 0 "$FGO" plot roofline --world 2 -o "$P"
gp="$P/roofline_w2.gp"
dat="$P/roofline_w2.dat"
# ceiling lines: the clauses "VALUE with lines dt D lw W lc rgb 'C' ..."
lines() { grep -E "^ *(plot )?[0-9.e+-]+ with lines dt " "$gp"; }
expect_eq plots-1.3 3 "$(lines | wc -l)"
expect_eq plots-1.4 "3 3" "$(lines | grep -o "lc rgb '#[0-9a-f]*'" | sort -u | wc -l) $(lines | grep -o 'dt [0-9]*' | sort -u | wc -l)"
# each line's label on the plot, at the line's own height: "set label N 'DTYPE ...' at graph X, first VALUE"
labels() { grep -E "^set label [0-9]+ '(fp32|fp16|bf16) " "$gp"; }
on_lines() {
	[ "$(labels | wc -l)" = 3 ] || return 1
	[ "$(labels | awk '{ print $4 }' | tr -d "'" | sort -u | tr '\n' ' ')" = "bf16 fp16 fp32 " ] || return 1
	labels | sed 's/.* first \([0-9.e+-]*\).*/\1/' | sort >"$T/label_y"
	lines | sed 's/^ *\(plot \)\{0,1\}\([0-9.e+-]*\) .*/\2/' | sort >"$T/line_y"
	cmp -s "$T/label_y" "$T/line_y"
}
check plots-1.5 "a label per ceiling at its line's height: $(labels | cut -c1-90 | tr '\n' '|')" on_lines
# no point above the drawn ceiling of its dtype (the .dat names each block
# "# algo dtype tile ..."); a ceiling's dtype is read from its label, or from
# its legend entry where it has one
ceilings() {
	labels | sed "s/^set label [0-9]* '\([a-z0-9]*\) .* first \([0-9.e+-]*\).*/\1 \2/"
	lines | grep "title '" | sed "s/^ *\(plot \)\{0,1\}\([0-9.e+-]*\) .* title '\([a-z0-9]*\) .*/\3 \2/"
}
above() {
	ceilings >"$T/ceil"
	awk 'FNR == NR { ceil[$1] = $2; next }
		/^# [a-z]/ { d = $3; next }
		/^[0-9]/ && (d in ceil) && $2 + 0 > ceil[d] + 0 { print d, $2, ">", ceil[d]; bad = 1 }
		END { exit !bad }' "$T/ceil" "$dat"
}
none_above() { [ "$(ceilings | wc -l)" = 3 ] && ! above >/dev/null; }
check plots-1.6 "no point above its dtype's ceiling: $(above | head -3 | tr '\n' ' ')" none_above
# a ceiling raised to the best run says so on its label and in the title; one
# above the runs stays the calibrated peak times the ranks
label_of() { labels | grep "^set label [0-9]* '$1 "; }
check plots-1.7 "fp32 and fp16 labels say 'best run', bf16's not: $(labels | cut -c1-100 | tr '\n' '|')" \
	sh -c "label_of() { grep \"^set label [0-9]* '\$1 \" '$gp'; }; label_of fp32 | grep -q 'best run' &&
		label_of fp16 | grep -q 'best run' && ! label_of bf16 | grep -q 'best run'"
expect_eq plots-1.8 "$(sql "select printf('%.6g', max(tflops_total)) from runs where dtype = 'fp32' and world = 2")" \
	"$(label_of fp32 | sed 's/.* first \([0-9.e+-]*\).*/\1/')"
expect_eq plots-1.9 "$(sqlite3 :memory: "select printf('%.6g', $bf16_peak * 2)")" \
	"$(label_of bf16 | sed 's/.* first \([0-9.e+-]*\).*/\1/')"
check plots-1.10 "the title says which ceilings were raised: $(grep '^set title' "$gp")" \
	grep -Eq "^set title '.*raised to the best run: (fp32, fp16|fp16, fp32)" "$gp"
# a compact legend: no peak line in it, no entry longer than 32 characters
expect_eq plots-1.11 0 "$(grep -E "with lines dt .* title '" "$gp" | wc -l)"
longest=$(grep -v '^set title' "$gp" | grep -o "title '[^']*'" | sed "s/^title '//; s/'\$//" |
	awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
check plots-1.12 "the longest legend entry is $longest characters" [ "$longest" -le 32 ]
check plots-1.13 "PNG drawn" sh -c "head -c 8 '$P/roofline_w2.png' | od -An -tx1 | grep -q '89 50 4e 47'"

# ---- 2. heatmap: fp16's two shapes (64, 64x64) and (128, 64x128) leave two
# cells of the 2x2 grid without a run
expect_exit plots-2.1 0 "$FGO" plot heatmap --world 2 --dtype fp16 -o "$P"
hd="$P/heatmap_w2_all_scatter_fp16.dat"
hg="$P/heatmap_w2_all_scatter_fp16.gp"
expect_eq plots-2.2 "2 2 0" "$(awk '/^[0-9]/ { if ($3 == "NaN") e++; else if ($3 + 0 > 0) f++; else z++ }
	END { print f + 0, e + 0, z + 0 }' "$hd")"
# the empty cells are drawn (hatched grey), never through the palette that gives 0 a colour
check plots-2.3 "empty cells drawn in their own style: $(grep -c pattern "$hg")" \
	grep -Eq "index 1 using .* with boxxy fc rgb '#[0-9a-f]+' fs pattern" "$hg"
check plots-2.4 "no NaN row in the palette's block" \
	sh -c "awk 'BEGIN { b = 0 } /^\$/ { blank++; next } { if (blank >= 2) b = 1; blank = 0 } /^[0-9]/ && b == 0 && \$3 == \"NaN\" { bad = 1 } END { exit bad }' '$hd'"
# labels: 12 points or more, each in the colour the .dat gives it: black on the
# light (high) end of the palette, white on the dark (low) end
check plots-2.5 "cell labels large and coloured per cell: $(grep 'with labels' "$hg" | head -1)" \
	grep -Eq "index 0 using 1:2:4:5 with labels font \",1[2-9]\" tc rgb variable" "$hg"
contrast() {
	awk '/^[0-9]/ && $3 != "NaN" { v[NR] = $3; c[NR] = $NF; if ($3 + 0 > max) max = $3 + 0 }
		END { for (i in v) { want = v[i] / max >= 0.55 ? "0x000000" : "0xffffff"
			if (c[i] != want) { print "cell " v[i] ": " c[i] " not " want; bad = 1 } }
			exit bad || max == 0 }' "$hd"
}
check plots-2.6 "label colour contrasts with its cell: $(contrast | head -2 | tr '\n' ' ')" contrast
check plots-2.7 "palette dark at 0, light at the top" \
	grep -Eq '^set palette defined \(0 "#440154".*1 "#fde725"\)' "$hg"

# ---- 3. overlap: GEMM-only times of 0.1 ms beside communication of 1 us: a
# log axis whose range holds every bar, bars outlined
expect_exit plots-3.1 0 "$FGO" plot overlap --world 2 -o "$P"
og="$P/overlap_w2.gp"
check plots-3.2 "log y axis" grep -q '^set logscale y' "$og"
in_range() {
	r=$(sed -n 's/^set yrange \[\([0-9.e+-]*\):\([0-9.e+-]*\)\]/\1 \2/p' "$og")
	[ -n "$r" ] && awk -v r="$r" 'BEGIN { split(r, a, " ") }
		/^"/ { sub(/^"[^"]*"/, ""); for (i = 1; i <= 4; i++) if ($i != "?" && ($i + 0 < a[1] || $i + 0 > a[2])) bad = 1 }
		END { exit bad }' "$P/overlap_w2.dat"
}
check plots-3.3 "every time within the y range: $(grep '^set yrange' "$og")" in_range
check plots-3.4 "bars outlined in a dark colour" grep -Eq '^set style fill solid [0-9.]+ border rgb "#[0-3][0-9a-f]{5}"' "$og"
check plots-3.5 "the key below the bars, not above the title" grep -Eq '^set key .*(below|bottom)' "$og"
