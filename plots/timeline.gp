# timeline.gp: the template of 'fgobench plot timeline FILE': one row per CTA
# (and per lane of a CTA whose threads record side by side), ranks stacked
# top to bottom, one colour per event kind, time in microseconds from the
# launch's first event (every rank's zero is the barrier before the launch).
# fgobench runs gnuplot inside the plot's folder, so every file is named
# bare; to redraw by hand: cd FOLDER && gnuplot THIS.gp. The data file holds
# numbers only (row, begin, end, kind); the title is text from the trace,
# inside single quotes and limited to safe characters.
if (!exists("fgo_png")) fgo_png = '@PNG@'
if (!exists("fgo_svg")) fgo_svg = '@SVG@'
set encoding utf8
set title '@TITLE@' noenhanced
set xlabel "time since the launch's first event (µs; ranks aligned at the barrier before it)"
set ylabel "rank / CTA (one row per CTA and lane)"
set yrange [@YMAX@:-1]
set xrange [0:*]
@YTICS@
set grid xtics lc rgb "#e0e0e0"
# the key below the time axis (above, it stood over the title); height 1
# keeps it clear of the axis label
set key below horizontal maxrows 1 noenhanced height 1
set style fill solid 1.0 noborder
set lmargin 16
kinds = "kernel gemm handover takeover put wait reduce"
labels = "kernel(CTA-life) gemm(tile) hand-over take-over put wait(flag) reduce"
colours = "#d9d9d9 #1f77b4 #9467bd #8c564b #ff7f0e #d62728 #2ca02c"
H(k) = k == 0 ? 0.46 : 0.34
set terminal pngcairo size 1600,@HEIGHT@ font "sans,11"
set output fgo_png
plot for [k=0:6] '@DAT@' using (($2+$3)/2):($4 == k ? $1 : NaN):(($3-$2)/2):(H(k)) \
     with boxxyerror lc rgb word(colours, k+1) title word(labels, k+1)
set terminal svg size 1600,@HEIGHT@ dynamic font "sans,11"
set output fgo_svg
replot
