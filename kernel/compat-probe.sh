#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the -D flags kernel/compat.h needs for the kernel tree $1
# ($(srctree)): each names a kernel API that changed between the series
# rths supports (6.1 and 6.12), found by what the headers declare rather
# than by version number, so that backports are honoured too.
inc=$1/include
has() {
	grep -Eq "$2" "$inc/$1" 2>/dev/null && printf ' -D%s' "$3"
}
has linux/mm.h 'static inline void vm_flags_set\(' RTHS_HAVE_VM_FLAGS_SET
has linux/device/class.h 'class_create\(const char \*name\)' \
	RTHS_HAVE_CLASS_CREATE_NAME
has linux/device/class.h '\(\*devnode\)\(const struct device' \
	RTHS_HAVE_DEVNODE_CONST
has net/genetlink.h 'pre_doit\)\(const struct genl_split_ops' \
	RTHS_HAVE_GENL_SPLIT_DOIT
echo
