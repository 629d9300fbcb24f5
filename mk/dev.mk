# SPDX-License-Identifier: GPL-2.0
# librths device layer (lib/dev), rthsctl, their unit tests and man page.

DEB_PKGS += libmnl-dev libjansson-dev

LIBRTHS_SRCS += $(sort $(wildcard lib/dev/*.c))

UNIT_TESTS += test_dev_units test_dev_names test_dev_netlink test_dev_ring \
	test_dev_ctl \
	test_dev_rthsctl

MAN_PAGES += Documentation/man/rthsctl.8

# rthsctl is tools/rthsctl.c plus tools/rthsctl/*.c.  It is not in TOOLS:
# the generic rule would link $(O)/plain/tools/rthsctl while the pattern
# rule puts the objects of tools/rthsctl/*.c into a directory of that very
# name.  So its parts are compiled into tools/rthsctl.parts/ instead, in
# every variant (the unit test links the parser from there).
RTHSCTL_SRCS := $(sort $(wildcard tools/rthsctl/*.c))
rthsctl_parts = $(patsubst tools/rthsctl/%.c,$(O)/$(1)/tools/rthsctl.parts/%.o,\
	$(RTHSCTL_SRCS))

define rthsctl_variant
$(O)/$(1)/tools/rthsctl.parts/%.o: tools/rthsctl/%.c | $(O)/.deps-ok
	@mkdir -p $$(@D)
	$$(CC) $$(CSTD) $$(WARN) $$(CPPFLAGS_COMMON) $$(CFLAGS_$(1)) \
		-fPIC -MMD -MP -c $$< -o $$@

# The parser and units need nothing from librths, so their place after
# librths.a on the test's link line does not matter.
$(O)/$(1)/tests/unit/test_dev_rthsctl: \
		$(O)/$(1)/tools/rthsctl.parts/parse.o \
		$(O)/$(1)/tools/rthsctl.parts/units.o
endef
$(foreach v,$(VARIANTS),$(eval $(call rthsctl_variant,$(v))))

$(O)/plain/tools/rthsctl: $(O)/plain/tools/rthsctl.o \
		$(call rthsctl_parts,plain) $(O)/plain/librths.a
	$(CC) -o $@ $^ $(LIBRTHS_LIBS)

tools: $(O)/plain/tools/rthsctl
