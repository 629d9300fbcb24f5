# SPDX-License-Identifier: GPL-2.0
# The QEMU test guest: Debian's own kernels of the two LTS series, 6.1
# and 6.12, stock and PREEMPT_RT (the flavours of mk/kmod.mk), booted
# under TCG with the host's root over 9p.  See
# Documentation/testing.rst.
#
# For other fragments:
#   $(VM_RUN) [--timeout S] [--stdout FILE] FLAVOUR RWDIR -- CMD [ARGS...]
#       runs CMD in the guest, exits with its status (125: no status)
#   $(VM_KREL_FLAVOUR)   the guest's uname -r, e.g. $(VM_KREL_rt-6.12)

# qemu-system-x86: the emulator; busybox-static, cpio: the initramfs;
# kmod: depmod and modinfo on the host; xz-utils, zstd: unpacking vmlinux.
DEB_PKGS += qemu-system-x86 busybox-static kmod cpio xz-utils zstd

VM_RUN := $(TOP)/tests/vm/run-vm.sh
# The same ABI as the module build (mk/kmod.mk), resolved as late: these
# are recursive variables, expanded only in recipes.
VM_KVER = $(KVER)
VM_KREL_stock = $(VM_KVER)-amd64
VM_KREL_rt = $(VM_KVER)-rt-amd64
VM_KREL_stock-6.12 = $(KVER612)-amd64
VM_KREL_rt-6.12 = $(KVER612)-rt-amd64
VM_FLAVOURS := stock rt stock-6.12 rt-6.12
# What the scripts need to agree with make on paths and the ABIs.
VM_ENV = O='$(O)' KVER='$(VM_KVER)' KVER612='$(KVER612)'

.PHONY: vm-kernels vm-smoke

vm-kernels: deps
	@for f in $(VM_FLAVOURS); do \
		$(VM_ENV) scripts/vm-kernels.sh $$f $(O)/vm/$$f || exit 1; \
	done

# One boot per flavour.  TAP goes to results/vm-smoke-FLAVOUR.tap and the
# guest console to results/vm-smoke-FLAVOUR.log (its tail is printed on
# failure).  A guest that reports nothing still leaves a "not ok".
vm-smoke: vm-kernels
	@mkdir -p $(O)/results
	@rc=0; for f in $(VM_FLAVOURS); do \
		tap=$(O)/results/vm-smoke-$$f.tap; \
		echo "== vm-smoke-$$f"; \
		rm -f $$tap; st=0; \
		$(VM_ENV) $(VM_RUN) --timeout 300 \
			--log $(O)/results/vm-smoke-$$f.log --stdout $$tap \
			$$f $(O)/results -- tests/vm/smoke.sh || st=$$?; \
		touch $$tap; cat $$tap; \
		if [ $$st -ne 0 ] && ! grep -q '^not ok' $$tap; then \
			echo "not ok - vm-smoke-$$f: run-vm.sh exited with status $$st" \
				| tee -a $$tap; \
		fi; \
		[ $$st -eq 0 ] || rc=1; \
	done; exit $$rc

CHECK_PARTS += vm-smoke
