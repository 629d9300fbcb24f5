# SPDX-License-Identifier: GPL-2.0
# make bench-hs's growth plot: time per sparse step of each method against
# the frame's DOF, beside its floor (the step's sparse products and
# triangular solves, timed on the same matrices), log-log, beside a
# line of slope 1 (linear growth).
#   gnuplot -e "data='growth.dat'; out='growth.png'" bench/hs/growth.gp
# data: bench-hs-step -p's file (a row a size: DOF, then each method's
# step and floor in us).
set terminal pngcairo noenhanced size 900,600 font ",10"
set output out
set logscale xy
set grid
set key top left
set xlabel "frame DOF"
set ylabel "time per step (us)"
set title "One sparse step (solid) against its floor (dashed), as the frame grows"
cols = system("head -1 '" . data . "' | wc -w")
methods = (cols - 1) / 2
# a line of slope 1 (linear growth) from the first method's fastest step
# at the smallest frame
stats data using 1 nooutput
x0 = STATS_min
stats data using 2 nooutput
y0 = STATS_min
set xrange [x0 / 1.5:*]
plot for [m = 1:methods] data using 1:(column(2 * m)) with linespoints \
		lw 2 lc m title columnheader(2 * m), \
     for [m = 1:methods] data using 1:(column(2 * m + 1)) with lines \
		dt 2 lc m title columnheader(2 * m + 1), \
     y0 * x / x0 with lines dt 3 lw 2 lc "gray40" title "linear"
