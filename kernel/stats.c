// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics snapshots.  The counters in rd->stats are written by the one
 * context that runs ticks (the loop thread, or a netlink handler holding
 * rd->lock when no thread runs) and are never read by anyone else: that
 * context publishes a copy, rd->stats_pub, at the end of every tick under
 * a seqcount, so that every STATS_GET sees the counters of one tick
 * boundary and the identities of step-semantics.rst hold in it.
 *
 * The 1 us latency histograms (rd->lat_hist, RTHS_A_DEV_LAT_HIST_US
 * buckets) are too large to copy at every tick: the tick context counts
 * into them directly, one WRITE_ONCE per sample, and STATS_GET reads
 * them bucket by bucket (READ_ONCE), so that while the loop runs they
 * can be a few samples ahead of the snapshot; they are exact once it
 * stops.
 */
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/preempt.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <net/netlink.h>

#include "rths.h"
#include "rths_trace.h"

void rths_stats_init(struct rths_device *rd)
{
	spin_lock_init(&rd->stats_lock);
	seqcount_spinlock_init(&rd->stats_seq, &rd->stats_lock);
}

/*
 * By the context that runs ticks, at a tick boundary.  Its contexts (the
 * loop thread, or a handler under rd->lock when no thread ticks) are kept
 * apart by the Locking rules of rths.h; stats_lock makes the seqcount's
 * writers one at a time where lockdep can see it.
 */
void rths_stats_publish(struct rths_device *rd)
{
	struct rths_loop *lp = &rd->loop;

	spin_lock(&rd->stats_lock);
	write_seqcount_begin(&rd->stats_seq);
	rd->stats.step_ticks_now = lp->step_tick;
	memcpy(&rd->stats_pub, &rd->stats, sizeof(rd->stats_pub));
	rd->pos_pub.tick = lp->tick;
	rd->pos_pub.step = lp->step;
	memcpy(rd->pos_pub.out, lp->out, sizeof(rd->pos_pub.out));
	write_seqcount_end(&rd->stats_seq);
	spin_unlock(&rd->stats_lock);
}

/* Any context: a consistent copy of @len bytes published at @pub. */
static void rths_stats_copy(struct rths_device *rd, void *dst,
			    const void *pub, size_t len)
{
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&rd->stats_seq);
		memcpy(dst, pub, len);
	} while (read_seqcount_retry(&rd->stats_seq, seq));
}

/* Any context: a consistent copy of the last published counters. */
void rths_stats_read(struct rths_device *rd, struct rths_stats_k *st)
{
	rths_stats_copy(rd, st, &rd->stats_pub, sizeof(*st));
}

/* Any context: the position, step and tick of one tick boundary. */
void rths_stats_read_pos(struct rths_device *rd, struct rths_pos_k *pos)
{
	rths_stats_copy(rd, pos, &rd->pos_pub, sizeof(*pos));
}

/*
 * By the context that runs ticks: zero everything.  The ticks already run
 * in the step in progress stay counted (in ticks and periods), so that
 * ticks = steps * d + stretch + step_ticks_now + halt still holds.
 */
void rths_stats_clear(struct rths_device *rd)
{
	u64 now = rd->loop.step_tick;
	u32 i;

	memset(&rd->stats, 0, sizeof(rd->stats));
	rd->stats.ticks = now;
	rd->stats.periods = now;
	for (i = 0; i < 2 * rd->lat_hist_n; i++)
		WRITE_ONCE(rd->lat_hist[i], 0);
}

/* Log2 bucket of @ns: [0, 1) us is 0, [2^(i-1), 2^i) us is i. */
static unsigned int rths_lat_bucket(u64 ns)
{
	u64 us = div_u64(ns, NSEC_PER_USEC);

	if (!us)
		return 0;
	return min_t(unsigned int, ilog2(us) + 1, RTHS_LAT_HIST_BUCKETS - 1);
}

/* One sample into the 1 us histogram @h of rd->lat_hist_n buckets. */
static void rths_lat_count(struct rths_device *rd, u64 *h, u64 *over, u64 ns)
{
	u64 us = div_u64(ns, NSEC_PER_USEC);

	if (us < rd->lat_hist_n)
		WRITE_ONCE(h[us], h[us] + 1);
	else
		(*over)++;
}

/* By the context that runs ticks: one tick's latencies, in ns. */
void rths_stats_latency(struct rths_device *rd, u64 irq, u64 thread)
{
	struct rths_stats_k *st = &rd->stats;
	u32 brk = rd->cfg.lat_break_us;

	if (!st->lat_samples || irq < st->irq_min)
		st->irq_min = irq;
	if (!st->lat_samples || thread < st->thread_min)
		st->thread_min = thread;
	st->irq_max = max(st->irq_max, irq);
	st->thread_max = max(st->thread_max, thread);
	st->irq_sum += irq;
	st->thread_sum += thread;
	st->irq_hist[rths_lat_bucket(irq)]++;
	st->thread_hist[rths_lat_bucket(thread)]++;
	st->lat_samples++;
	if (rd->lat_hist) {
		rths_lat_count(rd, rd->lat_hist, &st->irq_over, irq);
		rths_lat_count(rd, rd->lat_hist + rd->lat_hist_n,
			       &st->thread_over, thread);
	}
	/* cyclictest -b: the first one over the threshold stops the trace */
	if (brk && !st->break_sample && thread > (u64)brk * NSEC_PER_USEC) {
		st->break_sample = st->lat_samples;
		st->break_ns = thread;
		trace_rths_lat_break(rd, irq, thread, brk);
		tracing_off();
	}
}

/*
 * Under rd->lock, the device stopped (no tick runs): @buckets 1 us
 * buckets per histogram from now on, all zero; 0 frees them.
 */
int rths_stats_hist_resize(struct rths_device *rd, u32 buckets)
{
	u64 *h = NULL;

	if (buckets == rd->lat_hist_n)
		return 0;
	if (buckets) {
		h = kvcalloc(2 * buckets, sizeof(*h), GFP_KERNEL);
		if (!h)
			return -ENOMEM;
	}
	kvfree(rd->lat_hist);
	rd->lat_hist = h;
	rd->lat_hist_n = buckets;
	return 0;
}

void rths_stats_hist_free(struct rths_device *rd)
{
	kvfree(rd->lat_hist);
	rd->lat_hist = NULL;
	rd->lat_hist_n = 0;
}

/* Index past the last non-empty bucket of @h (n buckets). */
static u32 rths_hist_used(const u64 *h, u32 n)
{
	while (n && !READ_ONCE(h[n - 1]))
		n--;
	return n;
}

static int rths_put_hist_us(struct sk_buff *skb, int type, const u64 *h,
			    u32 n)
{
	struct nlattr *a;
	u64 *dst;
	u32 i;

	n = rths_hist_used(h, n);
	a = nla_reserve(skb, type, n * sizeof(u64));
	if (!a)
		return -EMSGSIZE;
	dst = nla_data(a);
	for (i = 0; i < n; i++)
		dst[i] = READ_ONCE(h[i]);
	return 0;
}

/* Under rd->lock: the 1 us histograms, for STATS_GET by device. */
int rths_stats_put_hist(struct sk_buff *skb, struct rths_device *rd)
{
	u32 n = rd->lat_hist_n;

	if (nla_put_u32(skb, RTHS_STATS_A_LAT_HIST_US, n))
		return -EMSGSIZE;
	if (!n)
		return 0;
	return rths_put_hist_us(skb, RTHS_STATS_A_IRQ_LAT_HIST_US,
				rd->lat_hist, n) ?:
	       rths_put_hist_us(skb, RTHS_STATS_A_THREAD_LAT_HIST_US,
				rd->lat_hist + n, n);
}
