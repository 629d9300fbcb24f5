# SPDX-License-Identifier: GPL-2.0
# What every tool shares (Documentation/tool-conventions.rst): its shape
# (a main file over its parts, tests/build/tool-layering.sh) and its
# conventions (--version, --help, exit statuses, file errors, -j,
# tests/build/tool-conventions.sh).
.PHONY: tools-check
tools-check: $(addprefix $(O)/plain/tools/,$(TOOLS))
	@mkdir -p $(O)/results
	@rc=0; \
	tests/build/tool-layering.sh $(TOP) > $(O)/results/tool-layering.tap \
		2>&1 || rc=1; cat $(O)/results/tool-layering.tap; \
	tests/build/tool-conventions.sh $(O)/plain/tools \
		> $(O)/results/tool-conventions.tap 2>&1 || rc=1; \
	cat $(O)/results/tool-conventions.tap; exit $$rc

# jq reads the JSON that rths-run -j prints.
DEB_PKGS += jq

CHECK_PARTS += tools-check

# git describe of the tree the tools are built from, for their outputs'
# provenance (tools/common/provenance.c); empty outside a git checkout
# (a source package).  The header is rewritten only when it changes.
RTHS_GIT_H := $(O)/gen/rths_git.h
.PHONY: rths-git-force
$(RTHS_GIT_H): rths-git-force
	@mkdir -p $(@D); \
	d=$$(git -C $(TOP) describe --always --dirty 2>/dev/null); \
	l="#define RTHS_GIT \"$$d\""; \
	[ "$$(cat $@ 2>/dev/null)" = "$$l" ] || echo "$$l" > $@
$(foreach v,$(VARIANTS),$(O)/$(v)/tools/common/provenance.o): $(RTHS_GIT_H)
$(foreach v,$(VARIANTS),$(O)/$(v)/tools/common/provenance.o): \
	CPPFLAGS_COMMON += -I$(O)/gen
