// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The step exchange: post a step's targets, take feedback and trace
 * records, wait for feedback by poll() or by spinning.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#include "dev/internal.h"

int rths_post_raw(struct rths_dev *dev, uint64_t step, const int64_t *nm)
{
	struct rths_cmd_entry *e;
	uint32_t i;
	int ret;

	if (!dev->owner)
		return -EBADF;
	if (!nm)
		return -EINVAL;
	e = rths_ring_prod_slot(&dev->cmd, &ret);
	if (!e)
		return ret;
	e->step = step;
	e->flags = 0;
	e->channels = dev->channels;
	for (i = 0; i < dev->channels; i++)
		e->target[i] = nm[i];
	rths_ring_prod_commit(&dev->cmd);
	return 0;
}

int rths_post(struct rths_dev *dev, uint64_t step, const double *target)
{
	int64_t nm[RTHS_MAX_CHANNELS];
	uint32_t i;

	if (!target)
		return -EINVAL;
	for (i = 0; i < dev->channels; i++)
		if (rths_m_to_nm(target[i], &nm[i]))
			return -ERANGE;
	return rths_post_raw(dev, step, nm);
}

uint32_t rths_cmd_space(const struct rths_dev *dev)
{
	return rths_ring_space(&dev->cmd);
}

static void samples_to_si(uint32_t n, const struct rths_channel_sample *raw,
			  struct rths_channel_sample *out, double *cmd,
			  double *disp, double *force)
{
	uint32_t i;

	memcpy(out, raw, n * sizeof(*raw));
	for (i = 0; i < n; i++) {
		cmd[i] = rths_nm_to_m(raw[i].command);
		disp[i] = rths_nm_to_m(raw[i].disp);
		force[i] = rths_un_to_n(raw[i].force);
	}
}

int rths_read_feedback(struct rths_dev *dev, struct rths_feedback *fb)
{
	const struct rths_fb_entry *e = (const void *)dev->fb_copy;
	bool gap;
	int ret;

	ret = rths_ring_consume(&dev->fb, dev->fb_copy, dev->owner, &gap);
	if (ret)
		return ret;
	memset(fb, 0, sizeof(*fb));
	fb->step = e->step;
	fb->tick = e->tick;
	fb->time_ns = e->time_ns;
	fb->flags = e->flags | (gap ? RTHS_FB_F_GAP : 0);
	fb->late_ticks = e->late_ticks;
	fb->channels = dev->channels;
	samples_to_si(dev->channels, e->ch, fb->raw, fb->command, fb->disp,
		      fb->force);
	return 0;
}

int rths_read_trace(struct rths_dev *dev, struct rths_trace *tr)
{
	const struct rths_trace_entry *e = (const void *)dev->trace_copy;
	bool gap;
	int ret;

	ret = rths_ring_consume(&dev->trace, dev->trace_copy, dev->owner,
				&gap);
	if (ret)
		return ret;
	memset(tr, 0, sizeof(*tr));
	tr->tick = e->tick;
	tr->time_ns = e->time_ns;
	tr->step = e->step;
	tr->irq_latency_ns = e->irq_latency_ns;
	tr->thread_latency_ns = e->thread_latency_ns;
	tr->step_tick = e->step_tick;
	tr->state = e->state;
	tr->channels = dev->channels;
	samples_to_si(dev->channels, e->ch, tr->raw, tr->command, tr->disp,
		      tr->force);
	return 0;
}

static uint32_t dev_state(const struct rths_dev *dev)
{
	/* H: matches G */
	return __atomic_load_n(&dev->hdr->state, __ATOMIC_ACQUIRE);
}

int64_t rths_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#else
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}

/* Nothing to read: tell whether the device stopped producing, or is
 * gone altogether (the kernel then reports POLLHUP on the fd). */
static int drained(struct rths_dev *dev, struct rths_feedback *fb, int why)
{
	struct pollfd pfd = { .fd = dev->fd, .events = POLLIN | POLLPRI };
	int ret = rths_read_feedback(dev, fb);

	if (ret != -EAGAIN)
		return ret;
	if (why == -EPIPE && poll(&pfd, 1, 0) == 1 &&
	    (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)))
		return -ENODEV;
	return why;
}

static int wait_spin(struct rths_dev *dev, struct rths_feedback *fb,
		     int64_t deadline)
{
	unsigned int n;
	int ret;

	for (n = 0;; n++) {
		ret = rths_read_feedback(dev, fb);
		if (ret != -EAGAIN)
			return ret;
		if (dev_state(dev) != RTHS_STATE_RUNNING)
			return drained(dev, fb, -EPIPE);
		/* The clock is read now and then, not on every spin. */
		if (deadline >= 0 && !(n & 1023) && rths_now_ms() >= deadline)
			return -ETIMEDOUT;
		cpu_relax();
	}
}

int rths_wait_feedback(struct rths_dev *dev, struct rths_feedback *fb,
		       int timeout_ms, unsigned int flags)
{
	int64_t deadline = timeout_ms < 0 ? -1 : rths_now_ms() + timeout_ms;
	struct pollfd pfd = { .fd = dev->fd, .events = POLLIN | POLLPRI };
	int ret;

	if (flags & RTHS_WAIT_SPIN)
		return wait_spin(dev, fb, deadline);
	for (;;) {
		int wait_ms = -1;

		ret = rths_read_feedback(dev, fb);
		if (ret != -EAGAIN)
			return ret;
		if (dev_state(dev) != RTHS_STATE_RUNNING)
			return drained(dev, fb, -EPIPE);
		if (deadline >= 0) {
			int64_t left = deadline - rths_now_ms();

			if (left <= 0)
				return -ETIMEDOUT;
			wait_ms = left > 1000000 ? 1000000 : (int)left;
		}
		ret = poll(&pfd, 1, wait_ms);
		if (ret < 0)
			return errno == EINTR ? -EINTR : -errno;
		if (!ret)
			continue;	/* the deadline check decides */
		if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))
			return drained(dev, fb, -ENODEV);
		if (pfd.revents & POLLPRI)
			return drained(dev, fb, -EPIPE);
	}
}
