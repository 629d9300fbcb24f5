# What OneBayFrame.tcl and OneBayFrame_GenericTCP.tcl share: the frame
# (kip, in), its girder spring and its left column, an element
# genericClient served by rths-site (site.json "left-column", port 8090,
# which answers the force without C v: GenericClient adds C v and M a
# itself).  The right column is each script's own.
model BasicBuilder -ndm 2 -ndf 2

# node $tag $xCrd $yCrd <-mass $m $m>
node 1   0.0  0.0
node 2 100.0  0.0
node 3   0.0 54.0 -mass 0.04 0.04
node 4 100.0 54.0 -mass 0.02 0.02
fix 1 1 1
fix 2 1 1
fix 3 0 1
fix 4 0 1

# the girder: a truss spring of stiffness 200 kip/in
uniaxialMaterial Elastic 3 [expr 2.0*100.0/1.0]
element truss 3 3 4 1.0 3

element genericClient 1 -node 1 3 -dof 1 -dof 1 -server 8090 127.0.0.1
