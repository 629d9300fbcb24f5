// SPDX-License-Identifier: GPL-2.0
/*
 * rths_splat: makes the debug kernel's checkers report, once each, so that
 * "make check-debug" sees its splat scanner fire on this very kernel's
 * output (tests/vm/debug-run.sh loads it after the selftests, and only
 * there).  Each report is harmless in itself:
 *
 *   UBSAN    a shift by more than the width of the type
 *   KASAN    a one-byte read past the end of a kmalloc()ed buffer
 *   atomic   might_sleep() under a spinlock
 *   kmemleak kmalloc()ed buffers nothing points to
 *   lockdep  two mutexes taken in both orders by one thread (first:
 *            lockdep turns itself off after any report that taints)
 *   KCSAN    two threads incrementing one plain int (KCSAN kernel)
 *
 * On the KCSAN kernel (no KASAN, UBSAN or kmemleak there) the reads,
 * shifts and leaks go unreported; the scan expects what each kernel has.
 *
 * Never load it anywhere else.
 */
#include <linux/compiler.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

static DEFINE_MUTEX(rths_splat_a);
static DEFINE_MUTEX(rths_splat_b);
static DEFINE_SPINLOCK(rths_splat_spin);

static noinline int rths_splat_ubsan(void)
{
	int one = 1, shift = 40;

	OPTIMIZER_HIDE_VAR(shift);
	return one << shift;
}

/*
 * Two buffers in a row: KFENCE samples one allocation an interval, and a
 * read past a KFENCE object is KFENCE's report, not KASAN's; the next
 * allocation is KASAN's (which reports once a boot: the second read is
 * silent when the first was reported).
 */
static noinline int rths_splat_kasan(void)
{
	size_t n = 16;
	int v = 0;

	for (int i = 0; i < 2; i++) {
		char *p = kmalloc(n, GFP_KERNEL);

		if (!p)
			return -ENOMEM;
		OPTIMIZER_HIDE_VAR(n);
		v += READ_ONCE(p[n]);
		kfree(p);
	}
	return v;
}

static noinline void rths_splat_atomic_sleep(void)
{
	spin_lock(&rths_splat_spin);
	might_sleep();
	spin_unlock(&rths_splat_spin);
}

/*
 * Sixteen buffers nothing points to: kmemleak scans conservatively, and a
 * stale copy of a pointer (in a cached task stack, say) hides its buffer;
 * one run missed a single leak that way.  Stale copies can hide the last
 * few, not all sixteen.
 */
static noinline void rths_splat_leak(void)
{
	for (int i = 0; i < 16; i++) {
		char *p = kmalloc(64, GFP_KERNEL);

		if (p)
			memset(p, 0x5a, 64);
	}
}

static noinline void rths_splat_lockdep(void)
{
	mutex_lock(&rths_splat_a);
	mutex_lock(&rths_splat_b);
	mutex_unlock(&rths_splat_b);
	mutex_unlock(&rths_splat_a);

	mutex_lock(&rths_splat_b);
	mutex_lock(&rths_splat_a);
	mutex_unlock(&rths_splat_a);
	mutex_unlock(&rths_splat_b);
}

#ifdef CONFIG_KCSAN
static int rths_splat_shared;

static int rths_splat_racer(void *arg)
{
	while (!kthread_should_stop()) {
		rths_splat_shared++;	/* the data race, on purpose */
		cpu_relax();
		cond_resched();
	}
	return 0;
}

/* Two racers on two CPUs for 3 s: KCSAN samples one access in thousands. */
static noinline void rths_splat_kcsan(void)
{
	struct task_struct *t[2];
	int i;

	for (i = 0; i < 2; i++) {
		t[i] = kthread_create(rths_splat_racer, NULL, "rths_splat/%d", i);
		if (IS_ERR(t[i])) {
			while (i--)
				kthread_stop(t[i]);
			return;
		}
		kthread_bind(t[i], i % num_online_cpus());
		wake_up_process(t[i]);
	}
	msleep(3000);
	/* they loop until told: kthread_stop() finds them alive */
	for (i = 0; i < 2; i++)
		kthread_stop(t[i]);
}
#else
static void rths_splat_kcsan(void)
{
}
#endif

static int __init rths_splat_init(void)
{
	/* first: a KASAN report taints the kernel LOCKDEP_NOW_UNRELIABLE,
	 * which turns lockdep off
	 */
	rths_splat_lockdep();
	pr_info("rths_splat: ubsan %d\n", rths_splat_ubsan());
	pr_info("rths_splat: kasan %d\n", rths_splat_kasan());
	rths_splat_atomic_sleep();
	rths_splat_leak();
	rths_splat_kcsan();
	pr_info("rths_splat: done\n");
	return 0;
}

static void __exit rths_splat_exit(void)
{
}

module_init(rths_splat_init);
module_exit(rths_splat_exit);
MODULE_DESCRIPTION("rths: make the debug kernel's checkers report (self-check)");
MODULE_LICENSE("GPL");
