# heatmap.gp: the heatmap template of `fgobench plot heatmap`: for each shape
# (M against N×K) the best configuration's throughput as colour, its tile as text.
# fgobench runs gnuplot inside the plot's folder, so every file is named
# bare; to redraw by hand: cd FOLDER && gnuplot THIS.gp. Text from specs and
# stores is only ever inside single quotes, limited to safe characters.
if (!exists("fgo_png")) fgo_png = '@PNG@'
if (!exists("fgo_svg")) fgo_svg = '@SVG@'
set encoding utf8
set title '@TITLE@' noenhanced
set xlabel "N×K"
set ylabel "M"
set cblabel "TFLOP/s of the best configuration (all ranks)"
set palette defined (0 "#f7fbff", 0.5 "#6baed6", 1 "#08306b")
set datafile missing "?"
set cbrange [0:*]
set tics scale 0
set xtics rotate by -30 left noenhanced
@TICS@
set terminal pngcairo size 1400,900 font "sans,11"
set output fgo_png
plot '@DAT@' using 1:2:($1-0.5):($1+0.5):($2-0.5):($2+0.5):3 with boxxy fc palette fs solid 1.0 noborder notitle, \
     "" using 1:2:4 with labels font ",8" textcolor rgb "#d62728" notitle
set terminal svg size 1400,900 dynamic font "sans,11"
set output fgo_svg
replot
