# SPDX-License-Identifier: GPL-2.0
# The ABI of librths.so.2 (Documentation/abi.rst): it exports exactly the
# functions of lib/librths.map, all versioned and declared in
# include/rths/*.h, and abidiff finds no change against the committed
# baseline abi/librths.abi; every public header compiles alone as C11
# and as C++, and C++ links against it (tests/headers.sh); an ODE callback
# of the old row-major type does not compile, whatever the warning flags
# (tests/build/callback-types.sh); the diff fails on a copy of the library
# built with a public array size changed (tests/abi/array-size.sh).
# "make abi-baseline" rewrites the baseline, "scripts/abi.sh map" the
# map's symbol list.

DEB_PKGS += abigail-tools binutils g++

ABI_BASELINE := abi/librths.abi

.PHONY: abi-check abi-baseline
abi-check: $(LIBRTHS_SO)
	@mkdir -p $(O)/results
	@rc=0; \
	scripts/abi.sh symbols $(LIBRTHS_SO) > $(O)/results/abi-symbols.tap || rc=1; \
	scripts/abi.sh diff $(LIBRTHS_SO) $(ABI_BASELINE) > $(O)/results/abi-diff.tap || rc=1; \
	tests/headers.sh $(LIBRTHS_SO) > $(O)/results/headers.tap || rc=1; \
	tests/build/callback-types.sh > $(O)/results/callback-types.tap || rc=1; \
	LIBRTHS_SRCS='$(LIBRTHS_SRCS)' LIBRTHS_LIBS='$(LIBRTHS_LIBS)' \
		LIBRTHS_MAP='$(LIBRTHS_MAP)' LIBRTHS_OBJDIR='$(O)/plain' \
		ABI_CPPFLAGS='$(filter -I%,$(CPPFLAGS_COMMON))' \
		tests/abi/array-size.sh $(LIBRTHS_SO) $(ABI_BASELINE) \
		> $(O)/results/abi-array-size.tap || rc=1; \
	cat $(O)/results/abi-symbols.tap $(O)/results/abi-diff.tap \
		$(O)/results/headers.tap $(O)/results/callback-types.tap \
		$(O)/results/abi-array-size.tap; \
	exit $$rc

abi-baseline: $(LIBRTHS_SO)
	scripts/abi.sh baseline $(LIBRTHS_SO) $(ABI_BASELINE)

CHECK_PARTS += abi-check
