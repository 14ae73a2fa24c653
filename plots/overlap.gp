# overlap.gp: the overlap template of `fgobench plot overlap`: per problem,
# the best configuration's four measurements as clustered bars, outlined, on
# a log axis (fgobench's round ticks): communication can take a microsecond
# where the GEMM takes a millisecond, and both must show. A missing time
# (no communication for gemm) is no bar. The picture widens with the
# problems (36 px each) so that their names, at 60 degrees, stay apart.
# fgobench runs gnuplot inside the plot's folder, so every file is named
# bare; to redraw by hand: cd FOLDER && gnuplot THIS.gp. Text from specs and
# stores is only ever inside single quotes, limited to safe characters.
if (!exists("fgo_png")) fgo_png = '@PNG@'
if (!exists("fgo_svg")) fgo_svg = '@SVG@'
set encoding utf8
set title '@TITLE@' noenhanced
set ylabel "time per launch (ms, median over iterations, slowest rank; log scale)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 1.0 border rgb "#202020"
set boxwidth 0.9
set datafile missing "?"
@AXIS@
set grid ytics lc rgb "#d8d8d8"
set xtics rotate by 60 right noenhanced font ",9"
set key below horizontal maxcols 4 maxrows 1 noenhanced
set lmargin 24
set terminal pngcairo size @WIDTH@,900 font "sans,11"
set output fgo_png
plot '@DAT@' using 2:xtic(1) title "GEMM only" lc rgb "#1f77b4", \
     "" using 3 title "communication only" lc rgb "#ff7f0e", \
     "" using 4 title "fused (overlapped)" lc rgb "#2ca02c", \
     "" using 5 title "baseline: GEMM, then MPI collective" lc rgb "#bdbdbd"
set terminal svg size @WIDTH@,900 dynamic font "sans,11"
set output fgo_svg
replot
