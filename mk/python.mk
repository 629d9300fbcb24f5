# SPDX-License-Identifier: GPL-2.0
# The Python package rths (python/, Documentation/python.rst): cffi in API
# mode over librths.so.2, its cdef made from the public headers at build
# time (python/cdef.py, kept in $(O)/python/rths_cdef.h), assembled in
# $(O)/python (the .py files copied next to the extension; cffi's
# temporary files in $(O)/python/.tmp), so that PYTHONPATH=$(O)/python
# imports it.  Debian's python3 only (the first python3 on PATH may be
# another without numpy).
DEB_PKGS += python3-cffi python3-numpy python3-pytest python3-dev

PYTHON3 := /usr/bin/python3
PY_DIR := $(O)/python
PY_SRCS := $(wildcard python/rths/*.py)
PY_STAMP := $(PY_DIR)/.built
# bytecode of the package, the tests and the examples under $(O)
PY_ENV = PYTHONPATH='$(PY_DIR)' PYTHONPYCACHEPREFIX='$(PY_DIR)/pycache' \
	PYTHONDONTWRITEBYTECODE=
PY_HEADERS := $(wildcard include/rths/*.h include/uapi/linux/rths.h)

$(PY_STAMP): python/build_ffi.py python/cdef.py $(PY_SRCS) $(PY_HEADERS) \
		$(LIBRTHS_SO) | $(DEPS_STAMP)
	@mkdir -p $(PY_DIR)/rths
	$(PY_ENV) $(PYTHON3) python/build_ffi.py $(TOP) $(O)/plain $(PY_DIR)
	cp $(PY_SRCS) $(PY_DIR)/rths/
	@touch $@

.PHONY: python python-check bench-python vm-python
python: $(PY_STAMP)

# bench-python's C loop, linked like a program of the package's users:
# against librths.so.2
PY_BENCH_C := $(O)/plain/tests/python/bench_loop
$(PY_BENCH_C): tests/common/bench_loop.c $(LIBRTHS_SO) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(CPPFLAGS_COMMON) $(CFLAGS_plain) -o $@ $< \
		-L$(O)/plain -l:$(LIBRTHS_SONAME) -Wl,-rpath,$(O)/plain -lm

# pytest on the host (the device tests skip without RTHS_DEVICE, the cdef's
# without RTHS_LIBDIR); one TAP line a test in results/python-check.tap.  The own-loop example is
# compared with examples/c/own-loop's output.
python-check: $(PY_STAMP) $(EXAMPLE_LOOP)
	@mkdir -p $(O)/results
	@cd $(TOP) && $(PY_ENV) RTHS_OWN_LOOP='$(EXAMPLE_LOOP)' \
		RTHS_LIBDIR='$(O)/plain' \
		RTHS_TAP='$(O)/results/python-check.tap' \
		timeout 600 $(PYTHON3) -m pytest -q -p no:cacheprovider \
		tests/python; st=$$?; \
		f=$(O)/results/python-check.tap; \
		ok=$$(grep -c '^ok' $$f); sk=$$(grep -c '^ok .*# SKIP' $$f); \
		echo "python-check: $$((ok - sk)) passed, $$(grep -c '^not ok' $$f) failed, $$sk skipped"; \
		exit $$st
CHECK_PARTS += python-check

# The guest test: one boot of the stock flavour; the guest makes a sim
# device, runs the package's device tests and bench-python's device half.
# TAP in results/vm-python.tap (host) and vm-python-guest.tap.
PY_VM_FLAVOUR := stock
PY_VM_KMOD := $(O)/kmod-$(PY_VM_FLAVOUR)/kernel/rths.ko
vm-python: $(PY_VM_KMOD) $(PY_STAMP) $(PY_BENCH_C) tools | $(DEPS_STAMP)
	@mkdir -p $(O)/results
	@$(VM_ENV) scripts/vm-kernels.sh $(PY_VM_FLAVOUR) \
		$(O)/vm/$(PY_VM_FLAVOUR)
	@$(VM_ENV) tests/vm/python-guest.sh test $(PY_VM_FLAVOUR) \
		$(O)/results $(O)/kmod-$(PY_VM_FLAVOUR) $(O)/plain/tools \
		$(PY_DIR) $(PY_BENCH_C) > $(O)/results/vm-python.tap 2>&1; \
		st=$$?; cat $(O)/results/vm-python.tap \
		$(O)/results/vm-python-guest.tap 2>/dev/null; exit $$st
CHECK_PARTS += vm-python

# The overhead of a Python loop against the same loop in C: offline on
# the host, then on the sim card in a stock guest (BENCH_PYTHON_VM=0
# leaves the guest out).  Prints per-step costs, Python/C and the step
# rate Python keeps up to; asserts nothing about time.
BENCH_PYTHON_STEPS ?= 20000
BENCH_PYTHON_VM ?= 1
BENCHES += bench-python
bench-python: $(PY_STAMP) $(PY_BENCH_C)
	@$(PY_ENV) tests/python/bench.sh $(PY_BENCH_C) \
		$(BENCH_PYTHON_STEPS) -o
	@if [ '$(BENCH_PYTHON_VM)' != 0 ]; then \
		$(MAKE) --no-print-directory $(PY_VM_KMOD) tools && \
		$(VM_ENV) scripts/vm-kernels.sh $(PY_VM_FLAVOUR) \
			$(O)/vm/$(PY_VM_FLAVOUR) && \
		$(VM_ENV) tests/vm/python-guest.sh bench $(PY_VM_FLAVOUR) \
			$(O)/results $(O)/kmod-$(PY_VM_FLAVOUR) \
			$(O)/plain/tools $(PY_DIR) $(PY_BENCH_C); fi
