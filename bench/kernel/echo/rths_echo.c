// SPDX-License-Identifier: GPL-2.0
/*
 * rths_echo: the floor of one command-to-feedback exchange, for
 * "make bench-kernel".  One page shared with userspace (rths_echo.h) and a
 * kernel thread woken by a hard, pinned hrtimer at "rate" Hz the way the
 * rths loop is (kernel/timer.c): SCHED_FIFO 80 on the last CPU.  Each tick
 * it copies the command back if a new one came.  No rings, no
 * interpolation, no card, no stats: what is left is the exchange itself.
 * One opener at a time; the timer runs while the device is open.
 */
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>
#include <uapi/linux/sched/types.h>

#include "rths_echo.h"

static unsigned int rate = 1024;
module_param(rate, uint, 0444);
MODULE_PARM_DESC(rate, "ticks per second (default 1024)");

static struct rths_echo {
	struct rths_echo_page *pg;
	struct hrtimer timer;
	struct task_struct *thread;
	wait_queue_head_t wq;
	atomic_t pending;
	u64 t0, period_idx, expiry;
	unsigned long busy;
} echo;

static u64 echo_grid_ns(u64 n)
{
	return mul_u64_u32_div(n, NSEC_PER_SEC, rate);
}

static enum hrtimer_restart echo_timer_fn(struct hrtimer *t)
{
	u64 now = ktime_to_ns(ktime_get());

	echo.expiry = hrtimer_get_expires_ns(t);
	atomic_inc(&echo.pending);
	wake_up_process(echo.thread);
	/* the next grid point after now, as the rths loop does */
	echo.period_idx++;
	if (echo.t0 + echo_grid_ns(echo.period_idx) <= now)
		echo.period_idx = mul_u64_u32_div(now - echo.t0, rate,
						  NSEC_PER_SEC) + 1;
	hrtimer_set_expires(t, ns_to_ktime(echo.t0 +
					   echo_grid_ns(echo.period_idx)));
	return HRTIMER_RESTART;
}

static int echo_thread_fn(void *data)
{
	struct rths_echo_page *pg = echo.pg;
	u64 last = 0, seq;

	echo.t0 = ktime_to_ns(ktime_get());
	echo.period_idx = 1;
	hrtimer_start(&echo.timer, ns_to_ktime(echo.t0 + echo_grid_ns(1)),
		      HRTIMER_MODE_ABS_PINNED_HARD);
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop()) {
			__set_current_state(TASK_RUNNING);
			break;
		}
		if (!atomic_xchg(&echo.pending, 0)) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		/* pairs with the user's release store of cmd_seq */
		seq = smp_load_acquire(&pg->cmd_seq);
		if (seq == last)
			continue;
		last = seq;
		WRITE_ONCE(pg->fb_val, READ_ONCE(pg->cmd_val));
		WRITE_ONCE(pg->fb_time_ns, echo.expiry);
		/* the user's acquire load of fb_seq pairs with this */
		smp_store_release(&pg->fb_seq, seq);
		wake_up_interruptible(&echo.wq);
	}
	hrtimer_cancel(&echo.timer);
	return 0;
}

static int echo_open(struct inode *inode, struct file *f)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = 80,
	};
	int err;

	if (test_and_set_bit(0, &echo.busy))
		return -EBUSY;
	echo.pg = vmalloc_user(PAGE_SIZE);
	if (!echo.pg) {
		err = -ENOMEM;
		goto busy;
	}
	atomic_set(&echo.pending, 0);
	echo.thread = kthread_create(echo_thread_fn, NULL, "rths_echo");
	if (IS_ERR(echo.thread)) {
		err = PTR_ERR(echo.thread);
		goto free;
	}
	err = sched_setattr_nocheck(echo.thread, &attr);
	if (err) {
		kthread_stop(echo.thread);
		goto free;
	}
	kthread_bind(echo.thread, cpumask_last(cpu_online_mask));
	wake_up_process(echo.thread);
	return 0;
free:
	vfree(echo.pg);
busy:
	clear_bit(0, &echo.busy);
	return err;
}

static int echo_release(struct inode *inode, struct file *f)
{
	kthread_stop(echo.thread);
	vfree(echo.pg);
	clear_bit(0, &echo.busy);
	return 0;
}

static int echo_mmap(struct file *f, struct vm_area_struct *vma)
{
	return remap_vmalloc_range(vma, echo.pg, vma->vm_pgoff);
}

static __poll_t echo_poll(struct file *f, poll_table *wait)
{
	poll_wait(f, &echo.wq, wait);
	/* seen is the user's to write: it only decides this mask */
	return smp_load_acquire(&echo.pg->fb_seq) != READ_ONCE(echo.pg->seen) ?
	       EPOLLIN | EPOLLRDNORM : 0;
}

static const struct file_operations echo_fops = {
	.owner = THIS_MODULE,
	.open = echo_open,
	.release = echo_release,
	.mmap = echo_mmap,
	.poll = echo_poll,
	.llseek = noop_llseek,
};

static struct miscdevice echo_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "rths_echo",
	.fops = &echo_fops,
};

static int __init echo_init(void)
{
	if (!rate || rate > 100000)
		return -EINVAL;
	init_waitqueue_head(&echo.wq);
	hrtimer_init(&echo.timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_HARD);
	echo.timer.function = echo_timer_fn;
	return misc_register(&echo_dev);
}

static void __exit echo_exit(void)
{
	misc_deregister(&echo_dev);
}

module_init(echo_init);
module_exit(echo_exit);
MODULE_DESCRIPTION("rths bench: a bare shared-memory echo, the exchange floor");
MODULE_LICENSE("GPL");
