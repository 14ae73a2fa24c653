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
# ranges and ticks come with the plot command: fgobench puts them on round numbers
# (1, 2, 5 x 10^n) and writes them as people do (0.002, 50, 2k TFLOP/s;
# 2×10^9 multiply-adds); gnuplot's own would read 4.1e+03
set grid xtics ytics mxtics mytics lt 1 lc rgb "#dddddd", lt 1 lc rgb "#f2f2f2"
# a colour per family and a mark per tile, each named once in a narrow
# legend beside the data; the peak lines are named by labels on them
set key outside right top vertical Left reverse noenhanced font ",9" spacing 1 samplen 1 width -2
set pointsize 1.1
set terminal pngcairo size 1500,850 font "sans,11"
set output fgo_png
@PLOT@
set terminal svg size 1500,850 dynamic font "sans,11"
set output fgo_svg
replot
