/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rths private header: the core's internal structures.  Card modules use
 * rths_card.h only; the uapi header <linux/rths.h> is the only header
 * shared with userspace.
 *
 * Locking
 * =======
 *
 * Locks, outermost first:
 *
 *   rths_lock (mutex, core.c)  the registries of card types and devices,
 *	rd->list and rd->unlisted, the ids.  Held across a card's @new.
 *   rd->lock (mutex)           a device's configuration, region, owner,
 *	dead, rt.thread, and every state change made from netlink or the
 *	device node; manual-clock ticks run under it.
 *   rd->region_lock (spinlock)  swapping rd->region and counting its
 *	maps; taken under rd->lock, and by mmap() without it.
 *   rd->ev_lock (spinlock, irqsave)  the event queue; innermost, taken
 *	from the tick context too.
 *
 * mmap() runs under the mm's mmap_lock and must not take rd->lock: a
 * manual-clock tick holds rd->lock while a card's @write may take a
 * driver lock (comedi's dev->mutex) under which that driver faults user
 * memory (mmap_lock), and lockdep rightly calls that a cycle.  So mmap()
 * takes only rd->region_lock, to pin the region and count the map.
 *
 * No netlink handler holds rd->lock across a wait or for more than a
 * bounded piece of work: RUN_STOP and RUN_TICK take it themselves rather
 * than in pre_doit, and drop it to wait for a ramp or between pieces of
 * 1024 manual ticks, checking the device again each time they retake it
 * (netlink.c); no handler releases a lock that pre_doit took.
 *
 * rths_lock and rd->lock never nest: lookups take and drop rths_lock and
 * return a reference, then take rd->lock.  rd->lock may be taken before
 * rd->ev_lock, never after.  Card modules take none of them; a card's own
 * locks nest inside rths_lock (@new) or rd->lock (@del, @set, @fill,
 * @home) or the tick context (@write, @read).
 *
 * The tick context is the one context that runs ticks: the loop thread
 * (hrtimer clock, from RUN_START to the stop, without rd->lock) or a
 * RUN_TICK / RUN_STOP caller holding rd->lock (manual clock).  It alone
 * writes rd->loop and rd->stats.
 *
 * Who writes the state (rd->state, rd->reason, rd->fault, hdr->state):
 *  - no thread running (stopped, manual clock, before rths_rt_start(),
 *    after rths_rt_stop()): netlink and chardev handlers and manual ticks,
 *    all under rd->lock;
 *  - while the loop thread runs: that thread alone, without rd->lock
 *    (running to holding or faulted).  Others ask it through
 *    rd->loop.hold_request; RUN_STOP stops the thread before it writes
 *    the state itself.
 * Readers use READ_ONCE(rd->state) (userspace reads hdr->state); under
 * rd->lock a state other than running is stable, running may become
 * holding or faulted at any tick.  reason and fault are written after
 * the state, so a reader racing a change may pair the new state with the
 * old reason.
 *
 * CPU hotplug (timer.c): an hrtimer run is an instance of a dynamic
 * cpuhp state from rths_rt_start() to rths_rt_stop(), which add and
 * remove it under rd->lock; both take cpu_hotplug_lock (read) inside
 * rd->lock, and rths_rt_start() sets rd->rt.thread under it.  So the
 * teardown callback (cpu_hotplug_lock held for write) never takes
 * rd->lock or rths_lock.  Nor does it wait on a ramp: a ramp takes up to
 * 65535 ticks, and the hotplug lock would be held all along.  It asks the
 * loop thread through rd->rt.cpu_offline and waits only until the thread
 * has finished the tick it may be running and parked: the thread holds in
 * place (rths_loop_hold_in_place(): the outputs stay where the last tick
 * wrote them, the state becomes holding, reason cpu-offline, as always
 * written by the thread), stops the timer, and ticks no more.  The thread
 * needs no lock to get there, so a RUN_STOP waiting for cpu_hotplug_lock
 * under rd->lock cannot block it.  A parked thread stays parked until
 * rths_rt_stop() stops it, through any later offline and online of the
 * CPU, which then find it parked and return at once.
 *
 * Statistics and position: readers never touch rd->stats or rd->loop;
 * the tick context publishes a copy of the counters and of the loop's
 * tick, step and outputs at each tick boundary under rd->stats_seq, a
 * seqcount whose writers hold rd->stats_lock (stats.c), as do the
 * handlers that change the position of a stopped device (home).  The
 * state, reason and fault are read with READ_ONCE.
 */
#ifndef _RTHS_H
#define _RTHS_H

#include <linux/atomic.h>
#include <linux/cdev.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/netlink.h>
#include <linux/rths.h>

#define RTHS_MAX_DEVICES	64
#define RTHS_EVENT_QUEUE	256	/* events waiting to be sent, per device */

#include "rths_card.h"

/* ---- core internals below ---------------------------------------------- */

struct rths_limit {
	s64 pos_min, pos_max;	/* nm */
	u64 vel_max;		/* nm/s */
	u64 force_max;		/* uN */
};

struct rths_config {
	u32 clock;		/* enum rths_clock */
	u32 rate;		/* Hz */
	u32 step_ticks;		/* d */
	u32 late_policy;	/* enum rths_late_policy */
	u32 late_deadline;	/* ticks; 0: d / 2 */
	u32 ramp_ticks;
	u32 cpu;
	u32 priority;
	u32 cmd_entries, fb_entries, trace_entries;
	struct rths_limit limit[RTHS_MAX_CHANNELS];
	u32 lat_hist_us;	/* 1 us buckets (stats.c) */
	u32 lat_break_us;	/* 0: no break */
};

/* The kernel's view of one ring in the shared region (librths: rths_ring). */
struct rths_kring {
	u32 *producer;		/* in shared memory */
	u32 *consumer;		/* in shared memory */
	void *desc;		/* entry 0 */
	u32 entries;		/* 0: ring absent */
	u32 mask;
	u32 entry_size;
	u32 index;		/* the kernel's own copy of the index it owns */
	u64 off_producer, off_consumer, off_desc;
};

/* The mmap region; it outlives the device while userspace maps it. */
struct rths_region {
	struct kref ref;
	void *base;
	size_t size;
	atomic_t maps;		/* live VMAs */
	struct rths_kring cmd, fb, trace;
};

/*
 * Counters; written by the one context that runs ticks, read by others
 * only through the snapshot (stats.c).
 */
struct rths_stats_k {
	u64 periods, ticks, missed, steps, stretch_ticks, halt_ticks;
	u64 wait_ticks, late_steps;
	u64 late_extrapolated, late_held, late_decelerated, late_faulted;
	u64 fb_records, fb_overflows, trace_records, trace_overflows;
	u64 ring_faults, limit_trips, card_errors, events_dropped;
	u64 irq_min, irq_max, irq_sum;
	u64 thread_min, thread_max, thread_sum;
	u64 lat_samples;
	u64 step_ticks_now;	/* lp->step_tick, when published */
	u64 irq_over, thread_over;	/* beyond the 1 us buckets */
	u64 break_sample, break_ns;	/* RTHS_A_DEV_LAT_BREAK_US */
	u64 irq_hist[RTHS_LAT_HIST_BUCKETS];
	u64 thread_hist[RTHS_LAT_HIST_BUCKETS];
};

/* Where the loop is, as the tick context publishes it with the counters. */
struct rths_pos_k {
	u64 tick, step;
	s64 out[RTHS_MAX_CHANNELS];
};

/* How the output moves from one tick to the next. */
enum rths_motion {
	RTHS_MOTION_HOLD = 1,	/* stay at p0 */
	RTHS_MOTION_INTERP,	/* p0 + (p1 - p0) * i / len */
	RTHS_MOTION_EXTRAP,	/* p0 + v * i / den */
	RTHS_MOTION_DECEL,	/* from p0 at v / den per tick to rest in len */
};

struct rths_loop {
	u32 motion;			/* enum rths_motion */
	u32 i, len;			/* ticks into the motion, its length */
	s64 den;
	s64 p0[RTHS_MAX_CHANNELS];
	s64 p1[RTHS_MAX_CHANNELS];
	s64 v[RTHS_MAX_CHANNELS];	/* per den ticks */

	s64 out[RTHS_MAX_CHANNELS];	/* last output written */
	s64 out_prev[RTHS_MAX_CHANNELS];	/* the one before */
	s64 disp[RTHS_MAX_CHANNELS];	/* last inputs read */
	s64 force[RTHS_MAX_CHANNELS];
	s64 u_prev[RTHS_MAX_CHANNELS];	/* target of the last step, u_{n-1} */
	s64 u_prev2[RTHS_MAX_CHANNELS];	/* u_{n-2} */
	s64 target[RTHS_MAX_CHANNELS];	/* u_n, when have_target */

	bool have_target;
	bool gap;			/* feedback records were dropped */
	bool trace_full;		/* the trace ring is dropping */
	bool resting;			/* halted and the ramp is over; READ_ONCE */
	u32 step_tick;			/* ticks into the current step */
	u32 wait;			/* ticks the current command is late */
	u32 deadline;			/* effective event-driven deadline */
	u32 late_flags;			/* RTHS_FB_F_* for this step */
	u64 tick, step;
	atomic_t hold_request;		/* enum rths_reason, 0 if none */
	/* a feedback or trace record being built */
	u64 scratch[DIV_ROUND_UP(RTHS_TRACE_ENTRY_SIZE(RTHS_MAX_CHANNELS), 8)];
};

/*
 * Hard timer + thread of the hrtimer clock.  The timer callback writes
 * expiry, irq_lat, period_idx and skipped on the thread's CPU; the thread
 * reads them there with interrupts off.
 */
struct rths_rt {
	struct hrtimer timer;
	struct task_struct *thread;	/* under rd->lock */
	atomic_t pending;		/* timer periods not yet run */
	atomic_t stats_reset;		/* STATS_RESET asks the thread */
	struct completion reset_done;	/* and the thread answers */
	struct hlist_node cpuhp_node;	/* a run's hotplug instance */
	atomic_t cpu_offline;		/* the CPU goes down: hold, park */
	bool parked;			/* ticks no more; release/acquire */
	struct completion park_done;	/* the thread parked */
	s64 t0;				/* ns, grid point 0 */
	u64 period_idx;			/* grid index of the armed expiry */
	u64 skipped;			/* periods the timer skipped (irq) */
	u64 seen_periods, seen_skipped;	/* accounted so far (thread) */
	s64 expiry;			/* ns, of the last period fired */
	u64 irq_lat;			/* ns, of the last period fired */
};

struct rths_event_k {
	u32 type, state, reason, fault, channel, limit, late_action;
	u32 late_ticks, ring;
	u64 tick, step;
	s64 value;
};

struct rths_device {
	struct kref ref;
	u32 id;
	char name[RTHS_NAME_LEN];
	u32 channels;
	struct rths_card_type *card;	/* NULL once deleted */
	void *card_priv;
	struct list_head list;		/* in rths_devices, under rths_lock */
	bool unlisted;			/* taken out of it (under rths_lock) */

	struct mutex lock;		/* see Locking above */
	bool dead;
	struct file *owner;		/* the O_RDWR opener, under lock */
	/* written as Locking above says: under lock unless the loop thread
	 * runs, then by that thread alone
	 */
	u32 state;			/* enum rths_state; READ_ONCE */
	u32 reason;			/* enum rths_reason */
	u32 fault;			/* enum rths_fault */
	struct rths_config cfg;
	/* the limits an admin set last (under lock): an owner without
	 * CAP_NET_ADMIN may set its own within them, never wider
	 */
	struct rths_limit envelope[RTHS_MAX_CHANNELS];
	spinlock_t region_lock;		/* see Locking above */
	struct rths_region *region;	/* swapped under lock + region_lock */
	bool resizing;			/* mmap() waits: under region_lock */
	struct rths_loop loop;
	struct rths_rt rt;
	struct rths_stats_k stats;	/* see stats.c */
	spinlock_t stats_lock;		/* the publishers of stats_pub */
	seqcount_spinlock_t stats_seq;
	struct rths_stats_k stats_pub;
	struct rths_pos_k pos_pub;
	/*
	 * The 1 us histograms: irq then thread, lat_hist_n buckets each.
	 * Replaced under lock while stopped; the tick context writes the
	 * buckets (WRITE_ONCE), STATS_GET reads them under lock (READ_ONCE).
	 */
	u64 *lat_hist;
	u32 lat_hist_n;
	wait_queue_head_t wq;		/* poll: feedback and state */
	struct device *node;		/* /dev/rths/NAME */

	spinlock_t ev_lock;		/* the event queue */
	u32 ev_head, ev_tail;
	struct rths_event_k ev[RTHS_EVENT_QUEUE];
	struct work_struct ev_work;
};

/* core.c */
extern struct mutex rths_lock;
bool rths_name_valid(const char *name);
struct rths_device *rths_dev_get_by_name(const char *name);
struct rths_device *rths_dev_get_by_id(u32 id);
struct rths_device *rths_dev_get_next(u32 *id);
void rths_dev_put(struct rths_device *rd);
int rths_dev_create(const char *name, const char *card, u32 channels,
		    struct nlattr *params, struct netlink_ext_ack *extack);
int rths_dev_destroy(struct rths_device *rd);
int rths_card_params(struct rths_card_type *ct, struct nlattr *params,
		     struct nlattr ***tb, struct netlink_ext_ack *extack);
int rths_card_for_each(int (*fn)(struct rths_card_type *ct, void *arg),
		       void *arg, unsigned int skip);

/* chardev.c */
int rths_chardev_init(void);
void rths_chardev_exit(void);
int rths_chardev_add(struct rths_device *rd);
void rths_chardev_del(struct rths_device *rd);
u32 rths_chardev_encode(const struct rths_device *rd);
bool rths_chardev_owner_fd(struct rths_device *rd, int fd);

/* ring.c */
struct rths_region *rths_region_alloc(u32 channels,
				      const struct rths_config *cfg);
void rths_region_get(struct rths_region *rg);
void rths_region_put(struct rths_region *rg);
void rths_region_reset(struct rths_region *rg);
int rths_kring_pop_cmd(struct rths_kring *r, u32 channels, u64 step,
		       s64 *target);
int rths_kring_push(struct rths_kring *r, const void *entry, size_t len);
bool rths_kring_has_data(const struct rths_kring *r);

/* loop.c */
void rths_loop_reset(struct rths_device *rd);
void rths_loop_tick(struct rths_device *rd, u64 time_ns, u64 irq_lat,
		    u64 thread_lat);
void rths_loop_manual_tick(struct rths_device *rd);
int rths_loop_ramp_down(struct rths_device *rd, u32 max);
int rths_loop_wait_rest(struct rths_device *rd, unsigned long timeout,
			struct netlink_ext_ack *extack);
void rths_loop_request_hold(struct rths_device *rd, u32 reason);
void rths_loop_hold_in_place(struct rths_device *rd, u32 reason);
void rths_loop_set_state(struct rths_device *rd, u32 state, u32 reason);
int rths_loop_home(struct rths_device *rd);
unsigned long rths_loop_ramp_timeout(const struct rths_device *rd);

/* timer.c */
int rths_rt_init(void);
void rths_rt_exit(void);
int rths_rt_start(struct rths_device *rd);
void rths_rt_stop(struct rths_device *rd);
int rths_rt_reset_stats(struct rths_device *rd);
u64 rths_grid_ns(u64 n, u32 rate);

/* stats.c */
void rths_stats_init(struct rths_device *rd);
void rths_stats_publish(struct rths_device *rd);
void rths_stats_read(struct rths_device *rd, struct rths_stats_k *st);
void rths_stats_read_pos(struct rths_device *rd, struct rths_pos_k *pos);
void rths_stats_clear(struct rths_device *rd);
struct sk_buff;
void rths_stats_latency(struct rths_device *rd, u64 irq, u64 thread);
int rths_stats_hist_resize(struct rths_device *rd, u32 buckets);
void rths_stats_hist_free(struct rths_device *rd);
int rths_stats_put_hist(struct sk_buff *skb, struct rths_device *rd);

/* events.c */
void rths_event_init(struct rths_device *rd);
void rths_event_flush(struct rths_device *rd);
void rths_event_queue(struct rths_device *rd, const struct rths_event_k *ev);
void rths_event_send_now(struct rths_device *rd, const struct rths_event_k *ev);

/* netlink.c */
int rths_netlink_init(void);
void rths_netlink_exit(void);
int rths_netlink_event(struct rths_device *rd, const struct rths_event_k *ev,
		       gfp_t gfp);

#endif /* _RTHS_H */
