# overlap.gp: the overlap template of `fgobench plot overlap`: per problem,
# the best configuration's four measurements as clustered bars.
# fgobench runs gnuplot inside the plot's folder, so every file is named
# bare; to redraw by hand: cd FOLDER && gnuplot THIS.gp. Text from specs and
# stores is only ever inside single quotes, limited to safe characters.
if (!exists("fgo_png")) fgo_png = '@PNG@'
if (!exists("fgo_svg")) fgo_svg = '@SVG@'
set encoding utf8
set title '@TITLE@' noenhanced
set ylabel "time per launch (ms, median over iterations, slowest rank)"
set style data histograms
set style histogram clustered gap 1.5
set style fill solid 0.85 border rgb "#404040"
set boxwidth 0.9
set datafile missing "?"
set yrange [0:*]
set grid ytics lc rgb "#d8d8d8"
set xtics rotate by 35 right noenhanced font ",9"
set key outside top center horizontal noenhanced
set bmargin 11
set lmargin 24
set terminal pngcairo size 1500,850 font "sans,11"
set output fgo_png
plot '@DAT@' using 2:xtic(1) title "GEMM only" lc rgb "#1f77b4", \
     "" using 3 title "communication only" lc rgb "#ff7f0e", \
     "" using 4 title "fused (overlapped)" lc rgb "#2ca02c", \
     "" using 5 title "baseline: GEMM, then MPI collective" lc rgb "#7f7f7f"
set terminal svg size 1500,850 dynamic font "sans,11"
set output fgo_svg
replot
