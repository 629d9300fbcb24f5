# SPDX-License-Identifier: GPL-2.0
# The netlink family as a YNL spec (Documentation/netlink/specs/rths.yaml,
# see Documentation/netlink.rst): the kernel's YNL tooling from Debian's
# linux-source-6.12, a host check of the spec against the uAPI header,
# and the guest selftests that drive the family with the YNL CLI and with
# libnl-genl-3 (listed in SELFTESTS, mk/selftests.mk).

DEB_PKGS += linux-source-6.12 python3-yaml python3-jsonschema \
	libnl-genl-3-dev

YNL_DIR := $(O)/ynl
YNL_STAMP := $(YNL_DIR)/.stamp
YNL_SPEC := Documentation/netlink/specs/rths.yaml

$(YNL_STAMP): scripts/extract-linux-source.sh | $(DEPS_STAMP)
	scripts/extract-linux-source.sh 6.12 $(YNL_DIR) tools/net/ynl \
		Documentation/netlink

.PHONY: ynl ynl-check
ynl: $(YNL_STAMP)

# The spec against the uAPI header; then ynl-gen-c generates every mode
# from it, and the family's hand-written policies must be the generated
# ones (the card parameters' nest is left to the card).
ynl-check: $(YNL_STAMP)
	@mkdir -p $(O)/results
	@tests/selftests/ynl_uapi_check.py $(YNL_DIR) $(YNL_SPEC) \
		include/uapi/linux/rths.h $(CC) > $(O)/results/ynl-uapi.tap; \
		rc=$$?; cat $(O)/results/ynl-uapi.tap; \
	tests/selftests/ynl_kpolicy_check.py $(YNL_DIR) $(YNL_SPEC) \
		kernel/netlink.c include/uapi/linux/rths.h $(CC) \
		RTHS_A_DEV_CARD_PARAMS > $(O)/results/ynl-kpolicy.tap || rc=1; \
		cat $(O)/results/ynl-kpolicy.tap; exit $$rc
CHECK_PARTS += ynl-check

# The libnl client is not a librths program: its own rule, libnl's
# headers as system headers (they are not -Wstrict-prototypes clean).
LIBNL_CFLAGS = $(patsubst -I%,-isystem %,$(shell pkg-config --cflags \
	libnl-genl-3.0))
LIBNL_LIBS = $(shell pkg-config --libs libnl-genl-3.0)
$(SELFTEST_DIR)/rths_libnl_test: tests/selftests/rths_libnl_test.c \
		$(HARNESS) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -Wno-missing-prototypes $(HARNESS_FLAGS) \
		$(CPPFLAGS_COMMON) $(LIBNL_CFLAGS) $(CFLAGS_plain) -o $@ $< \
		$(LIBNL_LIBS)

# The guest suite runs the YNL CLI from the extracted tree.
vm-check: $(YNL_STAMP)
