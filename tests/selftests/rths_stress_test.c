// SPDX-License-Identifier: GPL-2.0
/*
 * Lifetime and locking under load: while a device runs on the hrtimer
 * clock with an owner exchanging steps, other threads dump devices and
 * statistics, open, map, poll and close observers, and finally the device
 * is deleted under all of them.  Every thread must end with the errors
 * the API promises (the device gone), and the kernel log stays clean
 * (guest-run.sh checks it after the tests).  All loops are bounded by
 * counts, not by time.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "common.h"

struct stress {
	struct rt t;
	atomic_bool gone;		/* the device was deleted */
	atomic_int unexpected;		/* errors the API does not allow */
	atomic_long work;		/* operations done, for the log */
	char path[64];
};

static bool gone_errno(int err)
{
	return err == -ENODEV || err == -ENOENT || err == -EPIPE;
}

static void bad(struct stress *s, const char *what, int err)
{
	fprintf(stderr, "# %s: %s\n", what, strerror(-err));
	atomic_fetch_add(&s->unexpected, 1);
}

/* The owner: one command per feedback record until the device goes. */
static void *owner(void *arg)
{
	struct stress *s = arg;
	struct rths_feedback fb;
	uint64_t n = 0;
	int err, i;

	for (i = 0; i < 2; i++) {
		n++;
		rt_post1(&s->t, n, (int64_t)(n % 50) * 1000);
	}
	for (i = 0; i < 100000; i++) {
		err = rths_wait_feedback(s->t.dev, &fb, 10000, 0);
		if (err) {
			if (!atomic_load(&s->gone) || !gone_errno(err))
				bad(s, "owner wait", err);
			break;
		}
		n++;
		err = rt_post1(&s->t, n, (int64_t)(n % 50) * 1000);
		if (err && err != -EAGAIN) {
			bad(s, "owner post", err);
			break;
		}
		atomic_fetch_add(&s->work, 1);
	}
	return NULL;
}

static int count_cb(const struct rths_dev_info *info,
		    const struct rths_card_params *card, void *arg)
{
	(void)info;
	(void)card;
	(*(int *)arg)++;
	return 0;
}

static int stats_cb(uint32_t id, const char *name, const struct rths_stats *st,
		    void *arg)
{
	(void)id;
	(void)name;
	(void)st;
	(*(int *)arg)++;
	return 0;
}

/* Dumps and gets on a socket of its own, racing the deletion. */
static void *dumper(void *arg)
{
	struct stress *s = arg;
	struct rths_dev_info info;
	struct rths_stats st;
	struct rths_ctl *ctl;
	int i, n, err;

	if (rths_ctl_open(&ctl)) {
		bad(s, "dumper ctl", -EIO);
		return NULL;
	}
	for (i = 0; i < 3000 && !atomic_load(&s->gone); i++) {
		n = 0;
		err = rths_dev_list(ctl, count_cb, &n);
		if (!err)
			err = rths_stats_list(ctl, stats_cb, &n);
		if (!err)
			err = rths_dev_get(ctl, s->t.name, &info, sizeof(info));
		if (!err)
			err = rths_stats_get(ctl, s->t.name, &st);
		if (err && !(atomic_load(&s->gone) && gone_errno(err)))
			bad(s, "dumper", err);
		atomic_fetch_add(&s->work, 1);
	}
	rths_ctl_close(ctl);
	return NULL;
}

/* Observers come and go: open, map, poll once, read the header, close. */
static void *observer(void *arg)
{
	struct stress *s = arg;
	struct rths_dev_info info;
	size_t size;
	struct rths_ctl *ctl;
	int i, fd, err;

	if (rths_ctl_open(&ctl)) {
		bad(s, "observer ctl", -EIO);
		return NULL;
	}
	err = rths_dev_get(ctl, s->t.name, &info, sizeof(info));
	rths_ctl_close(ctl);
	if (err) {
		bad(s, "observer get", err);
		return NULL;
	}
	size = info.mmap_size;
	for (i = 0; i < 3000; i++) {
		struct pollfd pfd;
		const struct rths_mmap_header *hdr;
		void *p;

		fd = open(s->path, O_RDONLY);
		if (fd < 0) {
			if (!(atomic_load(&s->gone) &&
			      (errno == ENOENT || errno == ENODEV)))
				bad(s, "observer open", -errno);
			break;
		}
		p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			if (!atomic_load(&s->gone))
				bad(s, "observer mmap", -errno);
			close(fd);
			continue;
		}
		hdr = p;
		if (hdr->magic != RTHS_MMAP_MAGIC)
			bad(s, "observer magic", -EPROTO);
		pfd = (struct pollfd){ .fd = fd, .events = POLLIN | POLLPRI };
		poll(&pfd, 1, 0);
		munmap(p, size);
		close(fd);
		atomic_fetch_add(&s->work, 1);
	}
	return NULL;
}

FIXTURE(stress) {
	struct stress s;
};

FIXTURE_SETUP(stress)
{
	memset(&self->s, 0, sizeof(self->s));
}

FIXTURE_TEARDOWN(stress)
{
	rt_destroy(&self->s.t);
}

TEST_F_TIMEOUT(stress, delete_under_load, 300)
{
	struct rths_dev_config cfg = {
		.set = RTHS_CFG_CLOCK | RTHS_CFG_STEP_TICKS |
		       RTHS_CFG_TRACE_ENTRIES,
		.clock = RTHS_CLOCK_HRTIMER,
		.step_ticks = 4,
		.trace_entries = 256,
	};
	struct stress *s = &self->s;
	pthread_t th[4];
	struct rths_stats st;
	int i;

	ASSERT_EQ(0, rt_create(&s->t, "st", 2, NULL, &cfg));
	ASSERT_EQ(0, rt_open(&s->t));
	ASSERT_EQ(0, rt_start(&s->t));
	snprintf(s->path, sizeof(s->path), "/dev/rths/%s", s->t.name);
	ASSERT_EQ(0, pthread_create(&th[0], NULL, owner, s));
	ASSERT_EQ(0, pthread_create(&th[1], NULL, dumper, s));
	ASSERT_EQ(0, pthread_create(&th[2], NULL, observer, s));
	ASSERT_EQ(0, pthread_create(&th[3], NULL, observer, s));

	/* Let the load build up, then delete the device under it. */
	for (i = 0; i < 200 && atomic_load(&s->work) < 2000; i++)
		usleep(10000);
	ASSERT_EQ(0, rths_stats_get(s->t.ctl, s->t.name, &st));
	TH_LOG("before the delete: %ld operations, %llu ticks, %llu steps",
	       atomic_load(&s->work), (unsigned long long)st.ticks,
	       (unsigned long long)st.steps);
	atomic_store(&s->gone, true);
	ASSERT_EQ(0, rths_dev_del(s->t.ctl, s->t.name));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pthread_join(th[i], NULL));
	EXPECT_EQ(0, atomic_load(&s->unexpected));
	EXPECT_GT(st.ticks, 0u);
	EXPECT_EQ(-ENODEV, rths_dev_get(s->t.ctl, s->t.name,
					&(struct rths_dev_info){ 0 },
					sizeof(struct rths_dev_info)));
	/* the owner's mapping outlives the device; closing it is clean */
	rths_dev_close(s->t.dev);
	s->t.dev = NULL;
}

TEST_HARNESS_MAIN
