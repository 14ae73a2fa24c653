# floor.gp: the read-floor panel of `fgobench plot roofline`: every
# memory-bound run's time against the bytes of its per-rank GEMM (A + B + C),
# beside the calibrated read floor (the fastest read of those bytes, timed as
# runs are). A point on the floor line reads its inputs and output once at
# the best speed a read reaches at that size; the dashed line is 1.1x.
# fgobench sets the ranges (the curve and the runs) and the time ticks.
# fgobench runs gnuplot inside the plot's folder, so every file is named
# bare; to redraw by hand: cd FOLDER && gnuplot THIS.gp. Text from specs and
# stores is only ever inside single quotes, limited to safe characters.
if (!exists("fgo_png")) fgo_png = '@PNG@'
if (!exists("fgo_svg")) fgo_svg = '@SVG@'
set encoding utf8
set title '@TITLE@' noenhanced
set xlabel "bytes of the per-rank GEMM: A + B + C (log scale)"
set ylabel "time per launch (µs, median; log scale)"
set logscale xy
set format x "%.0s %cB"
set format y "%g"
set grid xtics ytics mxtics mytics lc rgb "#d8d8d8", lc rgb "#f0f0f0"
set key outside right top vertical Left reverse noenhanced font ",9" spacing 0.9
set pointsize 1.1
set terminal pngcairo size 1500,850 font "sans,11"
set output fgo_png
@PLOT@
set terminal svg size 1500,850 dynamic font "sans,11"
set output fgo_svg
replot
