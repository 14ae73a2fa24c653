# history.gp: the template of `fgobench history`: one problem's fused time
# night by night (box: quartiles of the samples, whiskers: the most extreme
# samples within 1.5 IQR of the box, dot: median), the fitted levels of the change-point fit as a line, and each
# listed step as a dashed line with its change.
# fgobench runs gnuplot inside the plot's folder, so every file is named
# bare; to redraw by hand: cd FOLDER && gnuplot THIS.gp. Text from specs and
# stores is only ever inside single quotes, limited to safe characters.
if (!exists("fgo_png")) fgo_png = '@PNG@'
if (!exists("fgo_svg")) fgo_svg = '@SVG@'
set encoding utf8
set title '@TITLE@' noenhanced
set ylabel "fused time per launch (ms)"
set grid ytics lc rgb "#d8d8d8"
# the key below the nights' names (above, it stood over the title); no
# x label beside it: the title says the nights run oldest left
set key below horizontal maxcols 3 maxrows 1 noenhanced
set xtics rotate by 35 right noenhanced font ",9"
@XTICS@
set style fill solid 0.35 border rgb "#1f77b4"
set boxwidth 0.5
@STEPS@
set terminal pngcairo size 1400,700 font "sans,11"
set output fgo_png
plot '@DAT@' index 0 using 1:3:5:6:4 with candlesticks whiskerbars lc rgb "#1f77b4" title "samples: quartiles, whiskers to 1.5 IQR", \
     "" index 0 using 1:2 with points pt 7 ps 0.8 lc rgb "#08306b" title "median", \
     "" index 1 using 1:2 with lines lw 2 lc rgb "#ff7f0e" title "fitted level (change-point fit)"
set terminal svg size 1400,700 dynamic font "sans,11"
set output fgo_svg
replot
