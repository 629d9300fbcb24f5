# SPDX-License-Identifier: GPL-2.0
# The Makefile's own dependency graph, from a fresh clone of HEAD: nothing
# that needs a package runs before the install (tests/build/graph.sh).
.PHONY: build-check
build-check: | $(DEPS_STAMP)
	@mkdir -p $(O)/results
	@tests/build/graph.sh > $(O)/results/build.tap; st=$$?; \
		cat $(O)/results/build.tap; exit $$st

CHECK_PARTS += build-check
