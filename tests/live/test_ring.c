// SPDX-License-Identifier: GPL-2.0
/*
 * The live view's frame ring (tools/live/ring.c): a writer that never
 * waits and readers that never see a torn frame.  A writer thread
 * publishes frames whose every field is a function of the step while
 * readers copy them out: every frame read must be whole and in order,
 * and read + lost must be every frame published.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "ring.h"

#define FRAMES 400000

static void fill(struct live_frame *f, uint64_t n)
{
	memset(f, 0, sizeof(*f));
	f->step = n;
	f->t = (double)n * 0.5;
	f->compute = (double)n * 2;
	f->flags = (uint32_t)n;
	f->channels = LIVE_MAX_CH;
	for (int i = 0; i < LIVE_MAX_CH; i++) {
		f->target[i] = (double)n + i;
		f->disp[i] = (double)n - i;
		f->force[i] = (double)n * i;
	}
}

/* Field by field: a struct copy need not copy padding. */
static bool whole(const struct live_frame *f)
{
	struct live_frame w;
	bool ok;

	fill(&w, f->step);
	ok = f->t == w.t && f->compute == w.compute && f->flags == w.flags &&
	     f->channels == w.channels;
	for (int i = 0; i < LIVE_MAX_CH; i++)
		ok = ok && f->target[i] == w.target[i] &&
		     f->disp[i] == w.disp[i] && f->force[i] == w.force[i];
	return ok;
}

static void *writer(void *arg)
{
	struct live_ring *r = arg;
	struct live_frame f;

	for (uint64_t n = 0; n < FRAMES; n++) {
		fill(&f, n);
		live_ring_publish(r, &f);
	}
	return NULL;
}

struct reader {
	struct live_ring *r;
	uint64_t got, lost, torn, disorder;
};

static void *reader(void *arg)
{
	struct reader *rd = arg;
	static __thread struct live_frame buf[256];
	uint64_t cursor = 0, next = 0;

	while (cursor < FRAMES) {
		size_t n = live_ring_read(rd->r, &cursor, buf, 256, &rd->lost);

		for (size_t i = 0; i < n; i++) {
			if (!whole(&buf[i]))
				rd->torn++;
			if (buf[i].step < next)
				rd->disorder++;
			next = buf[i].step + 1;
		}
		rd->got += n;
	}
	return NULL;
}

TEST(no_torn_frame_and_nothing_unaccounted)
{
	struct live_ring r;
	struct reader rd[2] = { { .r = &r }, { .r = &r } };
	pthread_t w, t[2];

	/* a small ring: the writer laps the readers often */
	ASSERT_EQ(0, live_ring_init(&r, 6));
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, reader, &rd[i]));
	ASSERT_EQ(0, pthread_create(&w, NULL, writer, &r));
	pthread_join(w, NULL);
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		TH_LOG("reader %d: %llu read, %llu lost", i,
		       (unsigned long long)rd[i].got,
		       (unsigned long long)rd[i].lost);
		EXPECT_EQ(0, rd[i].torn);
		EXPECT_EQ(0, rd[i].disorder);
		EXPECT_EQ(FRAMES, rd[i].got + rd[i].lost);
		EXPECT_LT(0, rd[i].got);
	}
	live_ring_free(&r);
}

/* A reader that keeps up loses nothing; one that falls a ring behind
 * goes on from the oldest frame still there. */
TEST(a_late_reader_skips_to_the_oldest)
{
	struct live_ring r;
	struct live_frame f, out[16];
	uint64_t cursor = 0, lost = 0;

	ASSERT_EQ(0, live_ring_init(&r, 4));	/* 16 slots */
	for (uint64_t n = 0; n < 10; n++) {
		fill(&f, n);
		live_ring_publish(&r, &f);
	}
	ASSERT_EQ(10, live_ring_read(&r, &cursor, out, 16, &lost));
	EXPECT_EQ(0, lost);
	EXPECT_EQ(9, out[9].step);
	for (uint64_t n = 10; n < 50; n++) {
		fill(&f, n);
		live_ring_publish(&r, &f);
	}
	ASSERT_EQ(16, live_ring_read(&r, &cursor, out, 16, &lost));
	EXPECT_EQ(24, lost);
	EXPECT_EQ(34, out[0].step);
	EXPECT_TRUE(whole(&out[15]));
	EXPECT_EQ(50, cursor);
	live_ring_free(&r);
}

TEST_HARNESS_MAIN
