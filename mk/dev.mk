# SPDX-License-Identifier: GPL-2.0
# librths device layer (lib/dev), rthsctl, their unit tests and man page.

DEB_PKGS_userspace += libmnl-dev libjansson-dev

LIBRTHS_SRCS += $(sort $(wildcard lib/dev/*.c))

UNIT_TESTS += test_dev_units test_dev_names test_dev_netlink test_dev_ring \
	test_dev_ctl test_dev_abi test_dev_plant \
	test_dev_rthsctl test_dev_comedi test_dev_rt test_dev_batch \
	test_rthsctl_print test_rthsctl_cmd

MAN_PAGES += Documentation/man/rthsctl.8

TOOLS += rthsctl

# The parser test links rthsctl's parser, units and plant; the tool rule builds them
# for the plain variant, this one for the sanitized variant.
$(O)/asan/tools/rthsctl.parts/%.o: tools/rthsctl/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(CPPFLAGS_COMMON) $(CFLAGS_asan) \
		-fPIC -MMD -MP -c $< -o $@
$(foreach v,$(VARIANTS),$(eval $(O)/$(v)/tests/unit/test_dev_rthsctl: \
	$(addprefix $(O)/$(v)/tools/rthsctl.parts/,parse.o units.o plant.o \
		print.o)))
$(foreach v,$(VARIANTS),$(eval $(O)/$(v)/tests/unit/test_dev_comedi: \
	$(O)/$(v)/tools/rthsctl.parts/parse.o \
	$(O)/$(v)/tools/rthsctl.parts/units.o))
# rthsctl -b (tools/rthsctl/batch.c), which runs each line as its
# command: the test links the commands too.
$(foreach v,$(VARIANTS),$(eval $(O)/$(v)/tests/unit/test_dev_batch: \
	$(addprefix $(O)/$(v)/tools/rthsctl.parts/,parse.o units.o plant.o \
		batch.o dev.o output.o print.o)))
$(foreach v,$(VARIANTS),$(eval $(O)/$(v)/tests/unit/test_rthsctl_cmd: \
	$(addprefix $(O)/$(v)/tools/rthsctl.parts/,parse.o units.o)))
# Every show command in text and JSON, from filled structs.
$(foreach v,$(VARIANTS),$(eval $(O)/$(v)/tests/unit/test_rthsctl_print: \
	$(addprefix $(O)/$(v)/tools/rthsctl.parts/,parse.o units.o plant.o \
		print.o dev.o stats.o card.o monitor.o output.o)))
