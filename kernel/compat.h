/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel APIs that differ between the series rths builds against
 * (Debian's 6.1 and 6.12, stock and PREEMPT_RT, and the next ones), in
 * one place, so that the rest of the code has no version #if.  Each
 * difference is a wrapper with a name of its own (rths_*), chosen by
 * the version (RTHS_KERNEL_SINCE()) of the release of the upstream change
 * it follows, named by its commit subject.
 */
#ifndef RTHS_COMPAT_H
#define RTHS_COMPAT_H

#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/version.h>
#include <net/genetlink.h>

/*
 * The one test of the version (checkpatch's LINUX_VERSION_CODE warning is
 * for code merged upstream; scripts/kcheck.sh lets this file have it).
 */
#define RTHS_KERNEL_SINCE(major, minor) \
	(KERNEL_VERSION(major, minor, 0) <= LINUX_VERSION_CODE)

/*
 * 6.3, "mm: introduce vma->vm_flags wrapper functions": vma->vm_flags is
 * read-only, changed through vm_flags_set() and vm_flags_clear().
 */
static inline void rths_vm_flags_set(struct vm_area_struct *vma,
				     vm_flags_t flags)
{
#if RTHS_KERNEL_SINCE(6, 3)
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void rths_vm_flags_clear(struct vm_area_struct *vma,
				       vm_flags_t flags)
{
#if RTHS_KERNEL_SINCE(6, 3)
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/*
 * 6.4, "driver core: class: remove module * from class_create()".
 */
#if RTHS_KERNEL_SINCE(6, 4)
#define rths_class_create(name) class_create(name)
#else
#define rths_class_create(name) class_create(THIS_MODULE, name)
#endif

/*
 * 6.2, "driver core: make struct class.devnode() take a const *".
 */
#if RTHS_KERNEL_SINCE(6, 2)
#define RTHS_DEVNODE_CONST const
#else
#define RTHS_DEVNODE_CONST
#endif

/*
 * 6.2, "genetlink: introduce split op representation": pre_doit() and
 * post_doit() get the split operation, before the genl_ops; both carry
 * the internal_flags rths uses.
 */
#if RTHS_KERNEL_SINCE(6, 2)
#define RTHS_GENL_DOIT_OPS struct genl_split_ops
#else
#define RTHS_GENL_DOIT_OPS struct genl_ops
#endif

/*
 * 6.13, "hrtimers: Introduce hrtimer_setup() to replace hrtimer_init()":
 * the callback is given with the clock and mode, and hrtimer_init() goes
 * away later.
 */
static inline void
rths_hrtimer_setup(struct hrtimer *timer,
		   enum hrtimer_restart (*function)(struct hrtimer *),
		   clockid_t clock_id, enum hrtimer_mode mode)
{
#if RTHS_KERNEL_SINCE(6, 13)
	hrtimer_setup(timer, function, clock_id, mode);
#else
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
#endif
}

#endif /* RTHS_COMPAT_H */
