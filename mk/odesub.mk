# SPDX-License-Identifier: GPL-2.0
# ODE numerical substructures (lib/hs/odesub.c): their unit test checks
# the stiff chain against GSL's matrix exponential.  (The sources and the
# test come in through hs.mk's wildcards.)

DEB_PKGS += libgsl-dev

$(foreach v,$(VARIANTS),$(O)/$(v)/tests/unit/test_hs_odesub): \
	LIBRTHS_LIBS += -lgsl -lgslcblas
