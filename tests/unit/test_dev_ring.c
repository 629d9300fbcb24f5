// SPDX-License-Identifier: GPL-2.0
/*
 * Ring logic on a memfd mapping laid out as the kernel lays out a
 * device's region.  The test plays the kernel through a second mapping of
 * the same memory: it consumes the command ring and produces feedback and
 * trace records, and it can write hostile indices.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "dev/internal.h"

#define PAGE 4096u
#define CHANNELS 2u

static uint64_t page_align(uint64_t v)
{
	return (v + PAGE - 1) & ~(uint64_t)(PAGE - 1);
}

/* As kernel/ring.c: indices on their own cache lines, entries after
 * them, every ring page aligned. */
static uint64_t layout_ring(struct rths_ring_info *ri, uint64_t off,
			    uint32_t entries, uint32_t esize)
{
	ri->entries = entries;
	ri->entry_size = esize;
	if (!entries)
		return off;
	ri->producer = off;
	ri->consumer = off + 64;
	ri->desc = off + 128;
	return page_align(ri->desc + (uint64_t)entries * esize);
}

static void layout(struct rths_dev_info *info, uint32_t cmd, uint32_t fb,
		   uint32_t trace)
{
	uint64_t off = PAGE;

	memset(info, 0, sizeof(*info));
	strcpy(info->name, "t0");
	info->channels = CHANNELS;
	info->cmd_entries = cmd;
	info->fb_entries = fb;
	info->trace_entries = trace;
	off = layout_ring(&info->cmd, off, cmd, RTHS_CMD_ENTRY_SIZE(CHANNELS));
	off = layout_ring(&info->fb, off, fb, RTHS_FB_ENTRY_SIZE(CHANNELS));
	off = layout_ring(&info->trace, off, trace,
			  RTHS_TRACE_ENTRY_SIZE(CHANNELS));
	info->mmap_size = off;
}

/* The kernel's view of one device region. */
struct kview {
	int memfd;
	unsigned char *base;
	size_t size;
	struct rths_dev_info info;
	uint32_t fb_prod, trace_prod;	/* the kernel's own indices */
};

static int kview_init(struct kview *k, uint32_t cmd, uint32_t fb,
		      uint32_t trace)
{
	struct rths_mmap_header *h;

	memset(k, 0, sizeof(*k));
	layout(&k->info, cmd, fb, trace);
	k->size = k->info.mmap_size;
	k->memfd = memfd_create("rths-ring-test", MFD_CLOEXEC);
	if (k->memfd < 0 || ftruncate(k->memfd, (off_t)k->size))
		return -1;
	k->base = mmap(NULL, k->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       k->memfd, 0);
	if (k->base == MAP_FAILED)
		return -1;
	h = (void *)k->base;
	h->magic = RTHS_MMAP_MAGIC;
	h->version = RTHS_MMAP_VERSION;
	h->channels = CHANNELS;
	h->state = RTHS_STATE_RUNNING;
	return 0;
}

static void kview_fini(struct kview *k)
{
	if (k->base && k->base != MAP_FAILED)
		munmap(k->base, k->size);
	if (k->memfd >= 0)
		close(k->memfd);
}

static uint32_t *kidx(struct kview *k, uint64_t off)
{
	return (uint32_t *)(k->base + off);
}

/* A second mapping of the region, as a user process gets it. */
static int kview_attach(struct kview *k, bool owner, int fd,
			struct rths_dev **dev, struct rths_err *err)
{
	void *m = mmap(NULL, k->size,
		       owner ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED,
		       k->memfd, 0);
	int ret;

	if (m == MAP_FAILED)
		return -errno;
	ret = rths_dev_attach(m, k->size, fd, owner, &k->info, dev, err);
	if (ret)
		munmap(m, k->size);
	return ret;
}

static void set_state(struct kview *k, enum rths_state s)
{
	__atomic_store_n(&((struct rths_mmap_header *)k->base)->state, s,
			 __ATOMIC_RELEASE);
}

/* Kernel side: publish the feedback record of @step. */
static void kput_fb(struct kview *k, uint64_t step)
{
	const struct rths_ring_info *ri = &k->info.fb;
	struct rths_fb_entry *e = (void *)(k->base + ri->desc +
		(size_t)(k->fb_prod & (ri->entries - 1)) * ri->entry_size);
	unsigned int c;

	e->step = step;
	e->tick = step * 4;
	e->time_ns = step * 1000;
	e->flags = 0;
	e->late_ticks = 0;
	for (c = 0; c < CHANNELS; c++) {
		e->ch[c].command = (int64_t)step * 1000000 + c;	/* nm */
		e->ch[c].disp = -(int64_t)step * 1000;
		e->ch[c].force = (int64_t)step * 500000;	/* uN */
	}
	k->fb_prod++;
	__atomic_store_n(kidx(k, ri->producer), k->fb_prod, __ATOMIC_RELEASE);
}

/* Kernel side: the command entry in slot @idx. */
static const struct rths_cmd_entry *kcmd(struct kview *k, uint32_t idx)
{
	const struct rths_ring_info *ri = &k->info.cmd;

	return (const void *)(k->base + ri->desc +
			      (size_t)(idx & (ri->entries - 1)) * ri->entry_size);
}

/* Both ends of a ring at @v, as if that many entries had gone through. */
static void set_indices(struct kview *k, const struct rths_ring_info *ri,
			uint32_t v)
{
	*kidx(k, ri->producer) = v;
	*kidx(k, ri->consumer) = v;
}

/* ---- layout checks ------------------------------------------------------ */

TEST(attach_refuses_layouts_outside_the_mapping)
{
	struct kview k;
	struct rths_dev *dev = NULL;
	struct rths_err err;
	struct rths_dev_info good;

	ASSERT_EQ(0, kview_init(&k, 4, 8, 0));
	good = k.info;

	ASSERT_EQ(0, kview_attach(&k, true, -1, &dev, &err));
	rths_dev_close(dev);

#define REFUSED(mutate) do {						\
		k.info = good;						\
		mutate;							\
		EXPECT_EQ(-EPROTO, kview_attach(&k, true, -1, &dev, &err)); \
		EXPECT_EQ(NULL, dev);					\
	} while (0)
	REFUSED(k.info.fb.desc = k.size - k.info.fb.entry_size);
	REFUSED(k.info.fb.desc = UINT64_MAX - 8);
	REFUSED(k.info.cmd.producer = k.size);
	REFUSED(k.info.cmd.consumer = k.size - 2);
	REFUSED(k.info.cmd.producer = k.info.cmd.consumer);
	REFUSED(k.info.fb.producer += 1);	/* misaligned */
	REFUSED(k.info.fb.entries = 6);		/* not a power of two */
	REFUSED(k.info.cmd.entry_size = RTHS_CMD_ENTRY_SIZE(CHANNELS) - 8);
	REFUSED(k.info.fb.entries = 0);		/* feedback is mandatory */
	REFUSED(k.info.channels = CHANNELS + 1);	/* header disagrees */
	REFUSED(k.info.channels = 0);
	REFUSED(k.info.trace = k.info.fb);	/* sized for feedback */
	k.info = good;
	((struct rths_mmap_header *)k.base)->magic = 0;
	EXPECT_EQ(-EPROTO, kview_attach(&k, true, -1, &dev, &err));
	EXPECT_NE(NULL, strstr(err.msg, "magic"));
#undef REFUSED
	kview_fini(&k);
}

/* ---- command ring ---------------------------------------------------------- */

FIXTURE(ring) {
	struct kview k;
	struct rths_dev *dev;
	struct rths_err err;
};

FIXTURE_SETUP(ring)
{
	ASSERT_EQ(0, kview_init(&self->k, 4, 8, 4));
	ASSERT_EQ(0, kview_attach(&self->k, true, -1, &self->dev, &self->err));
}

FIXTURE_TEARDOWN(ring)
{
	rths_dev_close(self->dev);
	kview_fini(&self->k);
}

TEST_F(ring, post_fills_the_ring_then_waits_for_the_consumer)
{
	const struct rths_ring_info *ri = &self->k.info.cmd;
	int64_t nm[CHANNELS];
	uint32_t i;

	EXPECT_EQ(4U, rths_cmd_space(self->dev));
	for (i = 0; i < 4; i++) {
		nm[0] = 100 + i;
		nm[1] = -(int64_t)i;
		ASSERT_EQ(0, rths_post_raw(self->dev, i + 1, nm));
		EXPECT_EQ(3 - i, rths_cmd_space(self->dev));
		/* published only after the entry is complete */
		EXPECT_EQ(i + 1, __atomic_load_n(kidx(&self->k, ri->producer),
						 __ATOMIC_ACQUIRE));
	}
	EXPECT_EQ(-EAGAIN, rths_post_raw(self->dev, 5, nm));
	EXPECT_EQ(4U, *kidx(&self->k, ri->producer));
	for (i = 0; i < 4; i++) {
		const struct rths_cmd_entry *e = kcmd(&self->k, i);

		EXPECT_EQ(i + 1ULL, e->step);
		EXPECT_EQ(0U, e->flags);
		EXPECT_EQ(CHANNELS, e->channels);
		EXPECT_EQ(100 + (int64_t)i, e->target[0]);
		EXPECT_EQ(-(int64_t)i, e->target[1]);
	}
	/* the kernel consumes one */
	__atomic_store_n(kidx(&self->k, ri->consumer), 1, __ATOMIC_RELEASE);
	EXPECT_EQ(1U, rths_cmd_space(self->dev));
	EXPECT_EQ(0, rths_post_raw(self->dev, 5, nm));
	EXPECT_EQ(5ULL, kcmd(&self->k, 4)->step);	/* slot 0 again */
}

TEST_F(ring, command_indices_wrap_at_2_32)
{
	const struct rths_ring_info *ri = &self->k.info.cmd;
	int64_t nm[CHANNELS] = { 1, 2 };
	uint32_t i;

	set_indices(&self->k, ri, 0xfffffffeu);
	rths_dev_sync(self->dev);
	EXPECT_EQ(4U, rths_cmd_space(self->dev));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, rths_post_raw(self->dev, 10 + i, nm));
	EXPECT_EQ(2U, *kidx(&self->k, ri->producer));
	EXPECT_EQ(0U, rths_cmd_space(self->dev));
	EXPECT_EQ(-EAGAIN, rths_post_raw(self->dev, 14, nm));
	/* slots 2, 3, 0, 1 in order */
	EXPECT_EQ(10ULL, kcmd(&self->k, 0xfffffffeu)->step);
	EXPECT_EQ(11ULL, kcmd(&self->k, 0xffffffffu)->step);
	EXPECT_EQ(12ULL, kcmd(&self->k, 0)->step);
	EXPECT_EQ(13ULL, kcmd(&self->k, 1)->step);
	__atomic_store_n(kidx(&self->k, ri->consumer), 2, __ATOMIC_RELEASE);
	EXPECT_EQ(4U, rths_cmd_space(self->dev));
}

TEST_F(ring, impossible_consumer_index_stops_posting)
{
	const struct rths_ring_info *ri = &self->k.info.cmd;
	int64_t nm[CHANNELS] = { 0, 0 };

	ASSERT_EQ(0, rths_post_raw(self->dev, 1, nm));
	/* consumer ahead of what was produced */
	*kidx(&self->k, ri->consumer) = 6;
	EXPECT_EQ(-EIO, rths_post_raw(self->dev, 2, nm));
	EXPECT_EQ(0U, rths_cmd_space(self->dev));
	/* consumer more than a ring behind */
	*kidx(&self->k, ri->consumer) = (uint32_t)-4;
	EXPECT_EQ(-EIO, rths_post_raw(self->dev, 2, nm));
	EXPECT_EQ(1U, *kidx(&self->k, ri->producer));
	*kidx(&self->k, ri->consumer) = 1;
	EXPECT_EQ(0, rths_post_raw(self->dev, 2, nm));
}

TEST_F(ring, post_converts_metres_and_refuses_what_does_not_fit)
{
	const struct rths_ring_info *ri = &self->k.info.cmd;
	double t[CHANNELS] = { 0.001, -0.0000025 };

	ASSERT_EQ(0, rths_post(self->dev, 1, t));
	EXPECT_EQ(1000000LL, kcmd(&self->k, 0)->target[0]);
	EXPECT_EQ(-2500LL, kcmd(&self->k, 0)->target[1]);
	t[1] = NAN;
	EXPECT_EQ(-ERANGE, rths_post(self->dev, 2, t));
	t[1] = 2e3;	/* 2 km: beyond RTHS_POS_MAX */
	EXPECT_EQ(-ERANGE, rths_post(self->dev, 2, t));
	EXPECT_EQ(1U, *kidx(&self->k, ri->producer));
	EXPECT_EQ(-EINVAL, rths_post(self->dev, 2, NULL));
}

/* ---- feedback ring ---------------------------------------------------------- */

TEST_F(ring, feedback_in_order_with_si_values)
{
	const struct rths_ring_info *ri = &self->k.info.fb;
	struct rths_feedback fb;
	uint64_t s;

	EXPECT_EQ(-EAGAIN, rths_read_feedback(self->dev, &fb));
	for (s = 1; s <= 3; s++)
		kput_fb(&self->k, s);
	for (s = 1; s <= 3; s++) {
		ASSERT_EQ(0, rths_read_feedback(self->dev, &fb));
		EXPECT_EQ(s, fb.step);
		EXPECT_EQ(s * 4, fb.tick);
		EXPECT_EQ(s * 1000, fb.time_ns);
		EXPECT_EQ(CHANNELS, fb.channels);
		EXPECT_EQ(0U, fb.flags);
		EXPECT_EQ((int64_t)s * 1000000 + 1, fb.raw[1].command);
		EXPECT_EQ(rths_nm_to_m((int64_t)s * 1000000 + 1), fb.command[1]);
		EXPECT_EQ(-(double)s * 1e-6, fb.disp[0]);
		EXPECT_EQ((double)s * 0.5, fb.force[1]);
		/* the slot is handed back at once */
		EXPECT_EQ((uint32_t)s, __atomic_load_n(kidx(&self->k, ri->consumer),
						       __ATOMIC_ACQUIRE));
	}
	EXPECT_EQ(-EAGAIN, rths_read_feedback(self->dev, &fb));
}

TEST_F(ring, feedback_full_ring_and_wrap_at_2_32)
{
	const struct rths_ring_info *ri = &self->k.info.fb;
	struct rths_feedback fb;
	uint64_t s;

	set_indices(&self->k, ri, 0xfffffffdu);
	self->k.fb_prod = 0xfffffffdu;
	rths_dev_sync(self->dev);
	for (s = 1; s <= 8; s++)	/* exactly full, across the wrap */
		kput_fb(&self->k, s);
	EXPECT_EQ(5U, *kidx(&self->k, ri->producer));
	for (s = 1; s <= 8; s++) {
		ASSERT_EQ(0, rths_read_feedback(self->dev, &fb));
		EXPECT_EQ(s, fb.step);
	}
	EXPECT_EQ(-EAGAIN, rths_read_feedback(self->dev, &fb));
	EXPECT_EQ(5U, *kidx(&self->k, ri->consumer));
}

TEST_F(ring, hostile_producer_index_is_refused_not_read)
{
	const struct rths_ring_info *ri = &self->k.info.fb;
	struct rths_feedback fb;
	uint32_t bad[] = { 9, 100, 0x80000000u, 0xffffffffu };
	unsigned int i;

	kput_fb(&self->k, 1);
	ASSERT_EQ(0, rths_read_feedback(self->dev, &fb));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* claims more than 8 records past our consumer index 1 */
		*kidx(&self->k, ri->producer) = 1 + bad[i];
		memset(&fb, 0x5a, sizeof(fb));
		EXPECT_EQ(-EIO, rths_read_feedback(self->dev, &fb));
		EXPECT_EQ(0x5a5a5a5a5a5a5a5aULL, fb.step);	/* untouched */
		EXPECT_EQ(1U, *kidx(&self->k, ri->consumer));
	}
	/* a sane index again: reading resumes where it was */
	*kidx(&self->k, ri->producer) = 1;
	kput_fb(&self->k, 2);
	ASSERT_EQ(0, rths_read_feedback(self->dev, &fb));
	EXPECT_EQ(2ULL, fb.step);
}

TEST_F(ring, trace_records)
{
	const struct rths_ring_info *ri = &self->k.info.trace;
	struct rths_trace_entry *e = (void *)(self->k.base + ri->desc);
	struct rths_trace tr;

	EXPECT_EQ(-EAGAIN, rths_read_trace(self->dev, &tr));
	e->tick = 17;
	e->step = 5;
	e->irq_latency_ns = 1500;
	e->thread_latency_ns = 4000;
	e->step_tick = 1;
	e->state = RTHS_STATE_RUNNING;
	e->ch[1].force = -3000000;
	__atomic_store_n(kidx(&self->k, ri->producer), 1, __ATOMIC_RELEASE);
	ASSERT_EQ(0, rths_read_trace(self->dev, &tr));
	EXPECT_EQ(17ULL, tr.tick);
	EXPECT_EQ(5ULL, tr.step);
	EXPECT_EQ(1500U, tr.irq_latency_ns);
	EXPECT_EQ(4000U, tr.thread_latency_ns);
	EXPECT_EQ(RTHS_STATE_RUNNING, tr.state);
	EXPECT_EQ(-3.0, tr.force[1]);
	EXPECT_EQ(-EAGAIN, rths_read_trace(self->dev, &tr));
}

TEST(trace_ring_off)
{
	struct kview k;
	struct rths_dev *dev;
	struct rths_err err;
	struct rths_trace tr;

	ASSERT_EQ(0, kview_init(&k, 4, 8, 0));
	ASSERT_EQ(0, kview_attach(&k, true, -1, &dev, &err));
	EXPECT_EQ(-ENOENT, rths_read_trace(dev, &tr));
	rths_dev_close(dev);
	kview_fini(&k);
}

/* ---- waiting ------------------------------------------------------------------ */

TEST_F(ring, wait_times_out_while_running)
{
	struct rths_feedback fb;

	EXPECT_EQ(-ETIMEDOUT, rths_wait_feedback(self->dev, &fb, 0, 0));
	EXPECT_EQ(-ETIMEDOUT, rths_wait_feedback(self->dev, &fb, 0,
						 RTHS_WAIT_SPIN));
	EXPECT_EQ(-ETIMEDOUT, rths_wait_feedback(self->dev, &fb, 5,
						 RTHS_WAIT_SPIN));
}

TEST_F(ring, wait_drains_then_reports_the_stop)
{
	struct rths_feedback fb;
	unsigned int flags[] = { 0, RTHS_WAIT_SPIN }, i;

	for (i = 0; i < 2; i++) {
		kput_fb(&self->k, 2 * i + 1);
		kput_fb(&self->k, 2 * i + 2);
		set_state(&self->k, i ? RTHS_STATE_HOLDING : RTHS_STATE_STOPPED);
		ASSERT_EQ(0, rths_wait_feedback(self->dev, &fb, -1, flags[i]));
		EXPECT_EQ(2 * i + 1ULL, fb.step);
		ASSERT_EQ(0, rths_wait_feedback(self->dev, &fb, -1, flags[i]));
		EXPECT_EQ(2 * i + 2ULL, fb.step);
		EXPECT_EQ(-EPIPE, rths_wait_feedback(self->dev, &fb, -1,
						     flags[i]));
		set_state(&self->k, RTHS_STATE_RUNNING);
	}
}

struct producer {
	struct kview *k;
	int wake_fd;		/* written after the record, if >= 0 */
};

static void *produce_later(void *arg)
{
	struct producer *p = arg;
	char c = 1;

	usleep(10000);	/* let the waiter block; correctness does not depend on it */
	kput_fb(p->k, 1);
	if (p->wake_fd >= 0 && write(p->wake_fd, &c, 1) != 1)
		return (void *)1;
	return NULL;
}

TEST_F(ring, spinning_waiter_sees_a_record_published_by_another_thread)
{
	struct producer p = { &self->k, -1 };
	struct rths_feedback fb;
	pthread_t t;

	ASSERT_EQ(0, pthread_create(&t, NULL, produce_later, &p));
	ASSERT_EQ(0, rths_wait_feedback(self->dev, &fb, -1, RTHS_WAIT_SPIN));
	EXPECT_EQ(1ULL, fb.step);
	EXPECT_EQ(1000000LL, fb.raw[0].command);
	pthread_join(t, NULL);
}

/* A pipe stands in for the device node: POLLIN when the writer says so,
 * POLLHUP when the writer goes away, as when the device is deleted. */
TEST(polling_waiter_wakes_on_pollin_and_hangup)
{
	struct kview k;
	struct rths_dev *dev;
	struct rths_err err;
	struct rths_feedback fb;
	struct producer p;
	pthread_t t;
	int pfd[2];

	ASSERT_EQ(0, kview_init(&k, 4, 8, 0));
	ASSERT_EQ(0, pipe(pfd));
	ASSERT_EQ(0, kview_attach(&k, true, pfd[0], &dev, &err));
	EXPECT_EQ(pfd[0], rths_dev_fd(dev));
	p = (struct producer){ &k, pfd[1] };
	ASSERT_EQ(0, pthread_create(&t, NULL, produce_later, &p));
	ASSERT_EQ(0, rths_wait_feedback(dev, &fb, -1, 0));
	EXPECT_EQ(1ULL, fb.step);
	pthread_join(t, NULL);
	close(pfd[1]);
	EXPECT_EQ(-ENODEV, rths_wait_feedback(dev, &fb, -1, 0));
	rths_dev_close(dev);	/* closes pfd[0] */
	kview_fini(&k);
}

/* ---- observers ---------------------------------------------------------------- */

TEST(observer_follows_the_owner_without_writing)
{
	struct kview k;
	struct rths_dev *obs;
	struct rths_err err;
	struct rths_feedback fb;
	const struct rths_ring_info *ri;
	int64_t nm[CHANNELS] = { 0, 0 };
	uint64_t s;

	ASSERT_EQ(0, kview_init(&k, 4, 8, 0));
	ri = &k.info.fb;
	/* read-only mapping: any write through it would fault the test */
	ASSERT_EQ(0, kview_attach(&k, false, -1, &obs, &err));
	EXPECT_EQ(-EBADF, rths_post_raw(obs, 1, nm));
	EXPECT_EQ(0U, *kidx(&k, k.info.cmd.producer));

	for (s = 1; s <= 3; s++)
		kput_fb(&k, s);
	ASSERT_EQ(0, rths_read_feedback(obs, &fb));
	EXPECT_EQ(1ULL, fb.step);
	EXPECT_EQ(0U, fb.flags & RTHS_FB_F_GAP);
	EXPECT_EQ(0U, *kidx(&k, ri->consumer));	/* not consumed */

	/* the owner consumes past us: we skip ahead and say so */
	*kidx(&k, ri->consumer) = 3;
	kput_fb(&k, 4);
	ASSERT_EQ(0, rths_read_feedback(obs, &fb));
	EXPECT_EQ(4ULL, fb.step);
	EXPECT_TRUE(fb.flags & RTHS_FB_F_GAP);
	EXPECT_EQ(-EAGAIN, rths_read_feedback(obs, &fb));

	/* an impossible ring is refused as for the owner */
	*kidx(&k, ri->producer) = 3 + 9;
	EXPECT_EQ(-EIO, rths_read_feedback(obs, &fb));
	rths_dev_close(obs);
	kview_fini(&k);
}

/*
 * A full ring: the producer's next entry lands in the oldest slot as soon
 * as the owner frees it, which it may do while an observer copies that
 * slot, so the observer must not hand the oldest slot out.
 */
TEST(observer_refuses_the_slot_the_producer_may_be_rewriting)
{
	struct kview k;
	struct rths_dev *obs;
	struct rths_err err;
	struct rths_feedback fb;
	const struct rths_ring_info *ri;
	uint64_t s;

	ASSERT_EQ(0, kview_init(&k, 4, 8, 0));
	ri = &k.info.fb;
	ASSERT_EQ(0, kview_attach(&k, false, -1, &obs, &err));
	for (s = 1; s <= ri->entries; s++)
		kput_fb(&k, s);
	EXPECT_EQ(-EAGAIN, rths_read_feedback(obs, &fb));

	/* the owner frees slot 0; step 2 is the oldest one still safe */
	*kidx(&k, ri->consumer) = 1;
	ASSERT_EQ(0, rths_read_feedback(obs, &fb));
	EXPECT_EQ(2ULL, fb.step);
	EXPECT_TRUE(fb.flags & RTHS_FB_F_GAP);
	rths_dev_close(obs);
	kview_fini(&k);
}

TEST_HARNESS_MAIN
