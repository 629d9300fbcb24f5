# The one-bay frame of OneBayFrame.tcl with its right column behind a
# controller: OpenFresco's expControl GenericTCP talks to rths-site's
# "controller" substructure (port 8092, "right-column-tcp") through a
# OneActuator setup and a LocalSite.
# Run: OpenSees OneBayFrame_GenericTCP.tcl
loadPackage OpenFresco
source frame.tcl

# displacement commands out; displacement and force measured back
expControl GenericTCP 1 "127.0.0.1" 8092 -ctrlModes 1 0 0 0 0 -daqModes 1 0 0 1 0
expSetup OneActuator 1 -control 1 1 -sizeTrialOut 1 1
expSite LocalSite 1 1
expElement twoNodeLink 2 2 4 -dir 2 -site 1 -initStif 5.6

set out Node_Dsp_TCP.out
source run.tcl
