// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics snapshots.  The counters in rd->stats are written by the one
 * context that runs ticks (the loop thread, or a netlink handler holding
 * rd->lock when no thread runs) and are never read by anyone else: that
 * context publishes a copy, rd->stats_pub, at the end of every tick under
 * a seqcount, so that every STATS_GET sees the counters of one tick
 * boundary and the identities of step-semantics.rst hold in it.
 */
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "rths.h"

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

/* Any context: a consistent copy of the last published counters. */
void rths_stats_read(struct rths_device *rd, struct rths_stats_k *st)
{
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&rd->stats_seq);
		memcpy(st, &rd->stats_pub, sizeof(*st));
	} while (read_seqcount_retry(&rd->stats_seq, seq));
}

/* Any context: the position, step and tick of one tick boundary. */
void rths_stats_read_pos(struct rths_device *rd, struct rths_pos_k *pos)
{
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&rd->stats_seq);
		memcpy(pos, &rd->pos_pub, sizeof(*pos));
	} while (read_seqcount_retry(&rd->stats_seq, seq));
}

/*
 * By the context that runs ticks: zero everything.  The ticks already run
 * in the step in progress stay counted (in ticks and periods), so that
 * ticks = steps * d + stretch + step_ticks_now + halt still holds.
 */
void rths_stats_clear(struct rths_device *rd)
{
	u64 now = rd->loop.step_tick;

	memset(&rd->stats, 0, sizeof(rd->stats));
	rd->stats.ticks = now;
	rd->stats.periods = now;
}
