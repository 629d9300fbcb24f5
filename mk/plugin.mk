# SPDX-License-Identifier: GPL-2.0
# Compensator plug-ins (lib/hs/compensation_plugin.c, poly_comp.so below)
# and integrator plug-ins (include/rths/hs_plugin.h, lib/hs/integrator_plugin.c,
# lib/files/experiment_plugin.c) and examples/plugin: Chen-Ricles as a
# plug-in, a shared object built with librths' own flags (the same
# floating-point code as lib/hs/integrator_cr.c: test_hs_plugin finds the
# two histories equal bit for bit) and no librths symbol in it.

EXAMPLE_PLUGIN := $(O)/plain/examples/plugin/cr_plugin.so
$(EXAMPLE_PLUGIN): examples/plugin/cr_plugin.c include/rths/hs_plugin.h \
		include/rths/hs_integrator.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(CFLAGS_plain) -fPIC -shared \
		-I$(TOP)/include/uapi -I$(TOP)/include -o $@ $< \
		-llapacke -llapack -lblas

# The unit test loads it through an experiment file.
$(foreach v,$(VARIANTS),$(O)/$(v)/tests/unit/test_hs_plugin.o): \
	CPPFLAGS_COMMON += -DRTHS_HS_PLUGIN_SO='"$(EXAMPLE_PLUGIN)"' \
		-DRTHS_HS_PLUGIN_TEST_DIR='"$(O)/plain/tests/unit"'
$(foreach v,$(VARIANTS),$(O)/$(v)/tests/unit/test_hs_plugin): \
	| $(EXAMPLE_PLUGIN)

# The compensator example: polynomial compensation as a plug-in, the
# built-in "polynomial" bit for bit (test_hs_comp_plugin).
EXAMPLE_COMP_PLUGIN := $(O)/plain/examples/plugin/poly_comp.so
$(EXAMPLE_COMP_PLUGIN): examples/plugin/poly_comp.c include/rths/hs_plugin.h \
		include/rths/hs_compensation.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(CFLAGS_plain) -fPIC -shared \
		-I$(TOP)/include/uapi -I$(TOP)/include -o $@ $<

$(foreach v,$(VARIANTS),$(O)/$(v)/tests/unit/test_hs_comp_plugin.o): \
	CPPFLAGS_COMMON += -DRTHS_HS_COMP_PLUGIN_SO='"$(EXAMPLE_COMP_PLUGIN)"'
$(foreach v,$(VARIANTS),$(O)/$(v)/tests/unit/test_hs_comp_plugin): \
	| $(EXAMPLE_COMP_PLUGIN) $(EXAMPLE_PLUGIN)

examples-check: $(EXAMPLE_PLUGIN) $(EXAMPLE_COMP_PLUGIN)

# Two broken plug-ins for the test's loading errors: another interface
# version, and no callbacks.
PLUGIN_TEST_SOS := $(O)/plain/tests/unit/plugin_abi2.so \
	$(O)/plain/tests/unit/plugin_empty.so
$(O)/plain/tests/unit/plugin_abi2.so: PLUGIN_ABI := 2
$(O)/plain/tests/unit/plugin_empty.so: PLUGIN_ABI := RTHS_HS_PLUGIN_ABI
$(PLUGIN_TEST_SOS): include/rths/hs_plugin.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	printf '%s\n' '#include <rths/hs_plugin.h>' \
		'const struct rths_hs_integrator_type rths_integrator_type =' \
		'{ .abi = $(PLUGIN_ABI), .name = "$(basename $(@F))" };' | \
	$(CC) $(CSTD) $(WARN) -fPIC -shared -I$(TOP)/include/uapi \
		-I$(TOP)/include -o $@ -x c -
$(foreach v,$(VARIANTS),$(O)/$(v)/tests/unit/test_hs_plugin): \
	| $(PLUGIN_TEST_SOS)
