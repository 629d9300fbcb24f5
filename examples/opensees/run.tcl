# The analysis both Tcl scripts run: El Centro 1940 NS (elcentro.txt, as
# the README makes it from the AT2) at 0.02 s, one trial a step for the
# experimental column (AlphaOS, Linear), as a lab runs it; $out names the
# displacement record.
set dt 0.02
timeSeries Path 1 -filePath elcentro.txt -dt $dt -factor 386.1
pattern UniformExcitation 1 1 -accel 1
rayleigh 1.010017396536 0.0 0.0 0.0

system BandGeneral
numberer Plain
constraints Plain
test NormDispIncr 1.0e-12 25
integrator AlphaOS 1.0
algorithm Linear
analysis Transient
recorder Node -file $out -time -node 3 4 -dof 1 disp

for {set i 0} {$i < 1560} {incr i} {
    if {[analyze 1 $dt] != 0} {
        puts "analysis failed at step $i"
        break
    }
}
wipeExp
wipe
