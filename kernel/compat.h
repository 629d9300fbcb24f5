/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel APIs that differ between the series rths builds against
 * (Debian's 6.1 and 6.12, stock and PREEMPT_RT), in one place, so that
 * the code has no version #if.  kernel/compat-probe.sh finds what the
 * tree declares (RTHS_HAVE_*, passed by Kbuild); each shim is named
 * after, and behaves as, the newer API.
 */
#ifndef RTHS_COMPAT_H
#define RTHS_COMPAT_H

#include <linux/device.h>
#include <linux/mm.h>
#include <net/genetlink.h>

#ifndef RTHS_HAVE_VM_FLAGS_SET
/* 6.3 made vma->vm_flags read-only behind these helpers. */
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma,
				  vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

#ifdef RTHS_HAVE_CLASS_CREATE_NAME
#define rths_class_create(name) class_create(name)
#else
/* 6.4 dropped class_create()'s owner argument. */
#define rths_class_create(name) class_create(THIS_MODULE, name)
#endif

#ifdef RTHS_HAVE_DEVNODE_CONST
#define RTHS_DEVNODE_CONST const
#else
/* 6.2 made the device argument of class->devnode() const. */
#define RTHS_DEVNODE_CONST
#endif

#ifndef RTHS_HAVE_GENL_SPLIT_DOIT
/*
 * 6.2 hands pre_doit() and post_doit() the split operation; before, the
 * genl_ops, with the same internal_flags.
 */
#define genl_split_ops genl_ops
#endif

#endif /* RTHS_COMPAT_H */
