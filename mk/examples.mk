# SPDX-License-Identifier: GPL-2.0
# examples/c: a researcher's own loop built against the installed library
# (tests/build/examples.sh stages "make install" and builds it with
# pkg-config), and a copy linked like a tool for the guest selftest
# tests/selftests/own_loop_test.sh.

EXAMPLE_LOOP := $(O)/plain/examples/c/own-loop
$(EXAMPLE_LOOP): $(O)/plain/examples/c/own-loop.o $(O)/plain/librths.a
	$(CC) -o $@ $^ $(LIBRTHS_LIBS)
selftests: $(EXAMPLE_LOOP)

.PHONY: examples-check
examples-check: lib tools
	@mkdir -p $(O)/results
	@O='$(O)' tests/build/examples.sh $(O)/results \
		> $(O)/results/examples.tap; st=$$?; \
		cat $(O)/results/examples.tap; exit $$st

CHECK_PARTS += examples-check
