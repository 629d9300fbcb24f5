# SPDX-License-Identifier: GPL-2.0
# rths-site's device substructures (tools/rths-site/device.c) on the
# offline backend: a GenericClient and a ShadowExpSite client get the
# offline model's answer to the bit, against the plain and the ASan/UBSan
# build of the tool (mk/site.mk builds both).  The guest test is
# vm-site-device (mk/vm.mk).

# In both variants: the step function (device.c) is linked in and runs
# in the test itself, under ASan/UBSan and LeakSanitizer in the asan one.
SITE_DEV_TEST = $(O)/$(1)/tests/site/test_site_device
# device.c and what it calls: the step thread's real-time entry and the
# site's (rate-limited) log.
SITE_DEV_SRCS := tools/rths-site/device.c tools/rths-site/realtime.c \
	tools/rths-site/log.c tools/common/steprt.c tools/net/ratelimit.c \
	tools/common/cli.c
# The Makefile's UNIT_EXTRA_asan (after the fragments): LeakSanitizer's
# check before the harness's _exit().
SITE_DEV_EXTRA_asan := $(O)/asan/tests/unit/lsan_exit.o
define site_dev_test_rule
$(call SITE_DEV_TEST,$(1)): tests/site/test_site_device.c \
		$(SITE_TEST_COMMON) $(SITE_DEV_SRCS) \
		tools/rths-site/site.h $(NET_SRCS) $(HARNESS) \
		$(SITE_DEV_EXTRA_$(1)) \
		$(O)/$(1)/librths.a | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	$$(CC) $$(CSTD) $$(WARN) -Wno-missing-prototypes $$(HARNESS_FLAGS) \
		$$(CPPFLAGS_COMMON) -Itools/rths-site -Itools/net \
		$$(CFLAGS_$(1)) \
		$$(LDFLAGS_$(1)) $$(UNIT_LDFLAGS_$(1)) -o $$@ \
		$$< tests/site/site_proc.c $(SITE_DEV_SRCS) tools/net/wire.c \
		$(SITE_DEV_EXTRA_$(1)) $(O)/$(1)/librths.a $$(LIBRTHS_LIBS)
endef
$(eval $(call site_dev_test_rule,plain))
$(eval $(call site_dev_test_rule,asan))

.PHONY: site-device-check
site-device-check: $(O)/plain/tools/rths-site $(SITE_ASAN) \
		$(call SITE_DEV_TEST,plain) $(call SITE_DEV_TEST,asan)
	@mkdir -p $(O)/results
	@rc=0; for v in plain asan; do \
		RTHS_SITE=$(O)/$$v/tools/rths-site timeout 300 \
			$(O)/$$v/tests/site/test_site_device \
			> $(O)/results/site-device-$$v.tap \
			2>&1 || rc=1; \
		cat $(O)/results/site-device-$$v.tap; \
	done; exit $$rc
CHECK_PARTS += site-device-check

# The guest test: two rths-site processes in the test guest serve a
# sim-card device each; the host drives them through QEMU's forwards
# (tests/vm/run-vm.sh --hostfwd).  One boot per flavour; TAP in
# results/vm-site-device-FLAVOUR{,-guest}.tap, the guest console in
# results/vm-site-device-FLAVOUR/console.log.
SITE_VM_CLIENT := $(O)/plain/tests/vm/site_client
$(SITE_VM_CLIENT): tests/vm/site_client.c $(SITE_TEST_COMMON) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(CFLAGS_plain) -o $@ $< tests/site/site_proc.c -lm

SITE_VM_FLAVOURS = $(VM_FLAVOURS)
.PHONY: vm-site-device
vm-site-device: module tools vm-kernels $(SITE_VM_CLIENT)
	@mkdir -p $(O)/results
	@rc=0; for f in $(SITE_VM_FLAVOURS); do \
		tap=$(O)/results/vm-site-device-$$f.tap; \
		echo "== vm-site-device-$$f"; st=0; \
		$(VM_ENV) tests/vm/site-device.sh $$f $(O)/results \
			$(O)/kmod-$$f $(O)/plain/tools/rths-site \
			$(SITE_VM_CLIENT) > $$tap 2>&1 || st=$$?; \
		cat $$tap $(O)/results/vm-site-device-$$f-guest.tap \
			2>/dev/null; \
		[ $$st -eq 0 ] || rc=1; \
	done; exit $$rc
CHECK_PARTS += vm-site-device
