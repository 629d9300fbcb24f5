# A one-bay frame in OpenSees with OpenFresco, its two columns served by
# rths-site (examples/opensees/site.json, started first):
#   left column   element genericClient (frame.tcl; port 8090)
#   right column  expElement twoNodeLink through expSite ShadowSite
#                 (port 8091, "right-column")
# Documentation/opensees.rst walks through it.
# Run: OpenSees OneBayFrame.tcl
loadPackage OpenFresco
source frame.tcl

# rths-site's "site" substructure, tag 1
expSite ShadowSite 1 "127.0.0.1" 8091
expElement twoNodeLink 2 2 4 -dir 2 -site 1 -initStif 5.6

set out Node_Dsp.out
source run.tcl
