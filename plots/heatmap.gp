# heatmap.gp: the heatmap template of `fgobench plot heatmap`: for each shape
# (M against N×K) the best configuration's throughput as colour, its tile and
# TFLOP/s as text; a shape without a run is hatched grey and says "no run"
# (the .dat's second block, NaN), never a colour of the scale.
# The scale is viridis (dark at 0, light at the best cell); each label is
# black on the light half and white on the dark half (its colour is in the
# .dat), so it reads on every cell; the picture grows with the grid so that
# every cell holds its two lines at 13 points.
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
set palette defined (0 "#440154", 0.25 "#3b528b", 0.5 "#21918c", 0.75 "#5ec962", 1 "#fde725")
set tics scale 0
set xtics rotate by -30 left noenhanced
@TICS@
set terminal pngcairo size @WIDTH@,@HEIGHT@ font "sans,11"
set output fgo_png
plot '@DAT@' index 0 using 1:2:($1-0.5):($1+0.5):($2-0.5):($2+0.5):3 with boxxy fc palette fs solid 1.0 border lc rgb '#ffffff' notitle, \
     '' index 0 using 1:2:4:5 with labels font ",13" tc rgb variable notitle@EMPTY@
set terminal svg size @WIDTH@,@HEIGHT@ dynamic font "sans,11"
set output fgo_svg
replot
