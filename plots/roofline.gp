# roofline.gp: the roofline template of `fgobench plot roofline`.
# fgobench fills the fields written in at-signs and runs gnuplot on the result; the
# filled script is kept beside the data, so a plot can be restyled by hand.
# fgobench runs gnuplot inside the plot's folder, so every file is named
# bare; to redraw by hand: cd FOLDER && gnuplot THIS.gp. Text from specs and
# stores is only ever inside single quotes, limited to safe characters.
if (!exists("fgo_png")) fgo_png = '@PNG@'
if (!exists("fgo_svg")) fgo_svg = '@SVG@'
set encoding utf8
set title '@TITLE@' noenhanced
set xlabel "problem size M·N·K (multiply-adds, log scale)"
set ylabel "throughput, all ranks together (TFLOP/s, log scale)"
set logscale xy
# factor-of-two ticks: a sweep rarely spans many decades, and every
# tick should carry a readable number
set xtics 2
set ytics 2
set format x "%.1t×10^{%T}"
set format y "%.3g"
set grid xtics ytics lc rgb "#d8d8d8"
set key outside right top vertical Left reverse noenhanced font ",8" spacing 0.9
set key title "algorithm dtype tile s(tages) w(arps) g(size) sm" noenhanced
set palette defined (0 "#1f77b4", 1 "#2ca02c", 2 "#bcbd22", 3 "#ff7f0e", 4 "#d62728", 5 "#9467bd", 6 "#8c564b")
unset colorbox
set pointsize 1.1
set autoscale fix
set offsets graph 0.08, graph 0.08, graph 0.25, graph 0.15
set terminal pngcairo size 1500,850 font "sans,11"
set output fgo_png
@PLOT@
set terminal svg size 1500,850 dynamic font "sans,11"
set output fgo_svg
replot
