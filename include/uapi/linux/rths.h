/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * rths: real-time hybrid simulation devices.
 *
 * Control plane: generic netlink family RTHS_GENL_NAME.  Data plane: one
 * mmap region per device (char device /dev/rths/NAME) holding a header page
 * and three single-producer/single-consumer rings.
 *
 * Units, everywhere in this interface:
 *   position, displacement, stroke   __s64 nanometres (nm)
 *   velocity                         __s64 nanometres per second (nm/s)
 *   force                            __s64 micronewtons (uN)
 *   time                             __u64 nanoseconds, CLOCK_MONOTONIC
 *
 * Every enum starts at 1; 0 is never a valid value.  Device ids (and so
 * char device minors) are plain numbers from 0.
 */
#ifndef _UAPI_LINUX_RTHS_H
#define _UAPI_LINUX_RTHS_H

#include <linux/types.h>

#define RTHS_GENL_NAME		"rths"
#define RTHS_GENL_VERSION	1
#define RTHS_MCGRP_MONITOR	"monitor"

#define RTHS_NAME_LEN		16	/* device and card names, with NUL */
#define RTHS_MAX_CHANNELS	16
#define RTHS_RATE_MIN		100	/* Hz */
#define RTHS_RATE_MAX		20000	/* Hz */
#define RTHS_RATE_DEFAULT	1024	/* Hz */
#define RTHS_STEP_TICKS_MAX	65535
#define RTHS_RAMP_TICKS_MAX	65535
#define RTHS_RING_ENTRIES_MAX	(1U << 16)
/* |position| and |force| bounds: the kernel rejects anything larger. */
#define RTHS_POS_MAX		(1LL << 40)	/* about 1.1 km */
#define RTHS_FORCE_MAX		(1LL << 50)	/* about 1.1e9 N */
#define RTHS_LAT_HIST_BUCKETS	24	/* log2 buckets, see RTHS_STATS_A_* */
/* 1 us latency buckets at most (RTHS_A_DEV_LAT_HIST_US) */
#define RTHS_LAT_HIST_US_MAX	3000
#define RTHS_LAT_BREAK_US_MAX	1000000	/* RTHS_A_DEV_LAT_BREAK_US */

/* Device state. */
enum rths_state {
	RTHS_STATE_STOPPED = 1,	/* loop not running */
	RTHS_STATE_RUNNING,	/* stepping through commands */
	RTHS_STATE_HOLDING,	/* loop running, outputs ramped to a hold */
	RTHS_STATE_FAULTED,	/* as HOLDING, after a protocol fault */
};

/* Why the state last changed. */
enum rths_reason {
	RTHS_REASON_USER = 1,	/* start/stop requested over netlink */
	RTHS_REASON_OWNER_GONE,	/* the owning fd was closed during a run */
	RTHS_REASON_LIMIT,	/* a stroke, velocity or force limit tripped */
	RTHS_REASON_RING,	/* userspace corrupted a ring (see fault) */
	RTHS_REASON_LATE,	/* strict policy: a command was late */
	RTHS_REASON_CARD,	/* the card reported an I/O error */
	RTHS_REASON_REMOVED,	/* the device or its card type was removed */
	RTHS_REASON_CPU_OFFLINE,	/* the loop's CPU went offline mid-run */
};

/* Tick source. */
enum rths_clock {
	RTHS_CLOCK_HRTIMER = 1,	/* real time, f_ctrl from a hard hrtimer */
	RTHS_CLOCK_MANUAL,	/* ticks only on RTHS_CMD_RUN_TICK (tests) */
};

/* What the loop does when a step's command is not there at its first tick. */
enum rths_late_policy {
	RTHS_LATE_STRICT = 1,	/* fault */
	RTHS_LATE_HOLD,		/* hold at the previous target, then step */
	/* extrapolate, catch up; past the deadline decelerate and hold */
	RTHS_LATE_EVENT_DRIVEN,
};

/* What the loop did with one late step (event RTHS_EVENT_LATE). */
enum rths_late_action {
	/* arrived before the deadline; the step still ended on time */
	RTHS_LATE_EXTRAPOLATED = 1,
	RTHS_LATE_HELD,			/* hold policy: the step was stretched */
	/* past the deadline: decelerated, held, then stepped; stretched */
	RTHS_LATE_DECELERATED,
	RTHS_LATE_FAULTED,		/* strict policy */
};

enum rths_limit_kind {
	RTHS_LIMIT_STROKE = 1,
	RTHS_LIMIT_VELOCITY,
	RTHS_LIMIT_FORCE,
};

enum rths_ring_id {
	RTHS_RING_CMD = 1,
	RTHS_RING_FB,
	RTHS_RING_TRACE,
};

/* Protocol faults caused by what userspace wrote into shared memory. */
enum rths_fault {
	RTHS_FAULT_CMD_INDEX = 1,	/* command producer index out of range */
	RTHS_FAULT_CMD_STEP,		/* entry for the wrong step */
	RTHS_FAULT_CMD_ENTRY,		/* bad flags, channel count or target */
	RTHS_FAULT_FB_INDEX,		/* feedback consumer index out of range */
	RTHS_FAULT_TRACE_INDEX,		/* trace consumer index out of range */
	RTHS_FAULT_LATE,		/* strict policy: command late */
	RTHS_FAULT_CARD_IO,		/* card read or write failed */
};

enum rths_event_type {
	RTHS_EVENT_STATE = 1,	/* state change: STATE, REASON */
	RTHS_EVENT_FAULT,	/* FAULT (enum rths_fault), STEP */
	RTHS_EVENT_LIMIT,	/* CHANNEL, LIMIT, VALUE */
	RTHS_EVENT_LATE,	/* STEP, LATE_ACTION, LATE_TICKS */
	RTHS_EVENT_OVERFLOW,	/* RING, STEP: a record was dropped */
	RTHS_EVENT_DEV_NEW,
	RTHS_EVENT_DEV_DEL,
};

/* Generic netlink commands. */
enum rths_cmd {
	RTHS_CMD_UNSPEC,
	RTHS_CMD_DEV_GET,	/* doit by DEV_ID or DEV_NAME; dumpit: all */
	RTHS_CMD_DEV_NEW,	/* DEV_NAME, DEV_CARD, DEV_CHANNELS required */
	RTHS_CMD_DEV_DEL,
	RTHS_CMD_DEV_SET,	/* configuration; device must be stopped */
	RTHS_CMD_RUN_START,
	RTHS_CMD_RUN_STOP,
	RTHS_CMD_RUN_TICK,	/* manual clock: advance RUN_TICKS ticks */
	RTHS_CMD_STATS_GET,	/* doit by device; dumpit: all */
	RTHS_CMD_STATS_RESET,
	RTHS_CMD_CARD_GET,	/* dumpit: registered card types */
	RTHS_CMD_EVENT,		/* notification on RTHS_MCGRP_MONITOR */
	RTHS_CMD_RUN_HOLD,	/* running -> holding: ramp down and hold */
	__RTHS_CMD_MAX,
};

#define RTHS_CMD_MAX (__RTHS_CMD_MAX - 1)

/* Top-level attributes. */
enum rths_attr {
	RTHS_A_UNSPEC,
	RTHS_A_PAD,
	RTHS_A_DEV_ID,			/* u32 */
	RTHS_A_DEV_NAME,		/* string, [a-zA-Z0-9_-], < NAME_LEN */
	RTHS_A_DEV_CARD,		/* string: card type name */
	RTHS_A_DEV_CHANNELS,		/* u32, 1..RTHS_MAX_CHANNELS */
	RTHS_A_DEV_CARD_PARAMS,		/* nest: the card type's attributes */
	RTHS_A_DEV_STATE,		/* u32 enum rths_state (read only) */
	RTHS_A_DEV_REASON,		/* u32 enum rths_reason (read only) */
	RTHS_A_DEV_FAULT,		/* u32 enum rths_fault, last (read only) */
	RTHS_A_DEV_CLOCK,		/* u32 enum rths_clock */
	RTHS_A_DEV_RATE,		/* u32 Hz, RATE_MIN..RATE_MAX */
	RTHS_A_DEV_STEP_TICKS,		/* u32 d, 1..STEP_TICKS_MAX */
	RTHS_A_DEV_LATE_POLICY,		/* u32 enum rths_late_policy */
	/*
	 * u32 ticks, 0..d-1 (0, the default: d / 2).  Event-driven policy:
	 * decelerate when this many ticks of a step pass without its command.
	 */
	RTHS_A_DEV_LATE_DEADLINE,
	/* u32 ticks, 1..RAMP_TICKS_MAX: how long a hold decelerates */
	RTHS_A_DEV_RAMP_TICKS,
	RTHS_A_DEV_CPU,			/* u32 CPU of the timer and thread */
	RTHS_A_DEV_PRIORITY,		/* u32 SCHED_FIFO priority, 1..99 */
	RTHS_A_DEV_CMD_ENTRIES,		/* u32 power of two, 2..RING_ENTRIES_MAX */
	RTHS_A_DEV_FB_ENTRIES,		/* u32 power of two, 2..RING_ENTRIES_MAX */
	RTHS_A_DEV_TRACE_ENTRIES,	/* u32 0 (off) or a power of two */
	RTHS_A_DEV_LIMITS,		/* nest of RTHS_A_LIMIT_CHANNEL nests */
	RTHS_A_DEV_RINGS,		/* nest of RTHS_A_RING nests (read only) */
	RTHS_A_DEV_MMAP_SIZE,		/* u64 bytes to map (read only) */
	RTHS_A_DEV_CHRDEV,		/* u32 huge_encode_dev() (read only) */
	RTHS_A_DEV_IO_MAY_SLEEP,	/* flag: card I/O may sleep (read only) */
	RTHS_A_DEV_OWNED,		/* flag: an owner fd is open (read only) */
	RTHS_A_DEV_STEP,		/* u64 steps completed (read only) */
	RTHS_A_DEV_TICK,		/* u64 ticks run (read only) */
	RTHS_A_RUN_TICKS,		/* u32 ticks to advance, 1..1000000 */
	RTHS_A_STATS,			/* nest of RTHS_STATS_A_* */
	RTHS_A_EVENT,			/* nest of RTHS_EVENT_A_* */
	RTHS_A_LIMIT_CHANNEL,		/* nest of RTHS_LIMIT_A_* */
	RTHS_A_RING,			/* nest of RTHS_RING_A_* */
	/* binary __s64[channels], nm: where the outputs are (read only); a
	 * new run starts there
	 */
	RTHS_A_DEV_POSITION,
	/* flag on RUN_STOP: stop at once instead of ramping the outputs to
	 * rest first (a moving rig then stops dead)
	 */
	RTHS_A_RUN_NOW,
	/* s32 on RUN_* and DEV_SET: the caller's fd of /dev/rths/NAME that
	 * owns the device (opened O_RDWR); stands in for CAP_NET_ADMIN
	 */
	RTHS_A_DEV_FD,
	/*
	 * u32 0..LAT_HIST_US_MAX (default 0: none): how many 1 us latency
	 * buckets the device keeps, for the timer irq and the thread each
	 * ([i, i + 1) us for i below it; above, an overflow count), as
	 * cyclictest -h does.  The kernel allocates them when this is set.
	 */
	RTHS_A_DEV_LAT_HIST_US,
	/*
	 * u32 us, 0..LAT_BREAK_US_MAX (default 0: off): the first thread
	 * latency above this emits the rths_lat_break tracepoint and turns
	 * tracing off (tracing_off()), leaving the trace that led there, as
	 * cyclictest -b does; RTHS_STATS_A_LAT_BREAK_* say when.  The loop
	 * runs on.
	 */
	RTHS_A_DEV_LAT_BREAK_US,
	__RTHS_A_MAX,
};

#define RTHS_A_MAX (__RTHS_A_MAX - 1)

/* Per-channel limits; on DEV_SET, absent fields keep their value. */
enum rths_limit_attr {
	RTHS_LIMIT_A_UNSPEC,
	RTHS_LIMIT_A_PAD,
	RTHS_LIMIT_A_INDEX,		/* u32 channel, required */
	RTHS_LIMIT_A_POS_MIN,		/* s64 nm */
	RTHS_LIMIT_A_POS_MAX,		/* s64 nm */
	RTHS_LIMIT_A_VEL_MAX,		/* u64 nm/s, |velocity| */
	RTHS_LIMIT_A_FORCE_MAX,		/* u64 uN, |force| */
	__RTHS_LIMIT_A_MAX,
};

#define RTHS_LIMIT_A_MAX (__RTHS_LIMIT_A_MAX - 1)

/* Ring layout inside the mmap region (offsets from its start). */
enum rths_ring_attr {
	RTHS_RING_A_UNSPEC,
	RTHS_RING_A_PAD,
	RTHS_RING_A_ID,			/* u32 enum rths_ring_id */
	RTHS_RING_A_ENTRIES,		/* u32, power of two; 0: ring absent */
	RTHS_RING_A_ENTRY_SIZE,		/* u32 bytes */
	RTHS_RING_A_PRODUCER,		/* u64 offset of the __u32 producer */
	RTHS_RING_A_CONSUMER,		/* u64 offset of the __u32 consumer */
	RTHS_RING_A_DESC,		/* u64 offset of entry 0 */
	__RTHS_RING_A_MAX,
};

#define RTHS_RING_A_MAX (__RTHS_RING_A_MAX - 1)

/*
 * Statistics.  Latencies are in ns: "irq" is hrtimer expiry to the timer
 * callback, "thread" is expiry to the loop thread running.  Histogram
 * bucket 0 counts latencies below 1 us, bucket i (i >= 1) those in
 * [2^(i-1), 2^i) us; the last bucket also takes everything above.
 * The 1 us histograms (RTHS_A_DEV_LAT_HIST_US buckets) come on STATS_GET
 * by device only, not in dumps; bucket i counts latencies in [i, i + 1)
 * us, trailing empty buckets are left out, and the overflow counts take
 * the latencies of the buckets beyond.
 *
 * Invariants, exact whenever the device is stopped:
 *   PERIODS = TICKS + MISSED            (hrtimer clock)
 *   TICKS   = STEPS * d + STRETCH_TICKS + STEP_TICKS_NOW + HALT_TICKS
 *   LATE_STEPS = LATE_EXTRAPOLATED + LATE_HELD + LATE_DECELERATED
 *                + LATE_FAULTED
 *   STEPS   = FB_RECORDS + FB_OVERFLOWS
 *   LAT_SAMPLES = sum(IRQ_LAT_HIST_US) + IRQ_LAT_OVERFLOW
 *               = sum(THREAD_LAT_HIST_US) + THREAD_LAT_OVERFLOW
 *                                   (when LAT_HIST_US > 0)
 */
enum rths_stats_attr {
	RTHS_STATS_A_UNSPEC,
	RTHS_STATS_A_PAD,
	RTHS_STATS_A_PERIODS,		/* u64 timer periods since start */
	RTHS_STATS_A_TICKS,		/* u64 ticks run */
	RTHS_STATS_A_MISSED,		/* u64 periods with no tick run */
	RTHS_STATS_A_STEPS,		/* u64 steps completed */
	RTHS_STATS_A_STRETCH_TICKS,	/* u64 ticks steps ran beyond d */
	RTHS_STATS_A_STEP_TICKS_NOW,	/* u64 ticks into the current step */
	RTHS_STATS_A_HALT_TICKS,	/* u64 ticks in HOLDING or FAULTED */
	RTHS_STATS_A_WAIT_TICKS,	/* u64 ticks spent waiting for commands */
	RTHS_STATS_A_LATE_STEPS,	/* u64 */
	RTHS_STATS_A_LATE_EXTRAPOLATED,	/* u64 */
	RTHS_STATS_A_LATE_HELD,		/* u64 */
	RTHS_STATS_A_LATE_DECELERATED,	/* u64 */
	RTHS_STATS_A_LATE_FAULTED,	/* u64 */
	RTHS_STATS_A_FB_RECORDS,	/* u64 feedback records published */
	RTHS_STATS_A_FB_OVERFLOWS,	/* u64 records dropped: ring full */
	RTHS_STATS_A_TRACE_RECORDS,	/* u64 */
	RTHS_STATS_A_TRACE_OVERFLOWS,	/* u64 */
	RTHS_STATS_A_RING_FAULTS,	/* u64 */
	RTHS_STATS_A_LIMIT_TRIPS,	/* u64 */
	RTHS_STATS_A_CARD_ERRORS,	/* u64 */
	RTHS_STATS_A_EVENTS_DROPPED,	/* u64 events lost: queue full */
	RTHS_STATS_A_IRQ_LAT_MIN,	/* u64 ns */
	RTHS_STATS_A_IRQ_LAT_AVG,	/* u64 ns */
	RTHS_STATS_A_IRQ_LAT_MAX,	/* u64 ns */
	RTHS_STATS_A_IRQ_LAT_HIST,	/* binary: __u64[RTHS_LAT_HIST_BUCKETS] */
	RTHS_STATS_A_THREAD_LAT_MIN,	/* u64 ns */
	RTHS_STATS_A_THREAD_LAT_AVG,	/* u64 ns */
	RTHS_STATS_A_THREAD_LAT_MAX,	/* u64 ns */
	RTHS_STATS_A_THREAD_LAT_HIST,	/* binary: __u64[RTHS_LAT_HIST_BUCKETS] */
	RTHS_STATS_A_LAT_SAMPLES,	/* u64 ticks with latencies recorded */
	RTHS_STATS_A_LAT_HIST_US,	/* u32 1 us buckets kept (0: none) */
	RTHS_STATS_A_IRQ_LAT_HIST_US,	/* binary: __u64[] (see above) */
	RTHS_STATS_A_THREAD_LAT_HIST_US,	/* binary: __u64[] */
	RTHS_STATS_A_IRQ_LAT_OVERFLOW,	/* u64 samples >= LAT_HIST_US us */
	RTHS_STATS_A_THREAD_LAT_OVERFLOW,	/* u64 samples >= LAT_HIST_US us */
	/* u64: the sample (from 1) whose thread latency passed
	 * DEV_LAT_BREAK_US, 0 if none yet
	 */
	RTHS_STATS_A_LAT_BREAK_SAMPLE,
	RTHS_STATS_A_LAT_BREAK_NS,	/* u64: that latency, ns */
	__RTHS_STATS_A_MAX,
};

#define RTHS_STATS_A_MAX (__RTHS_STATS_A_MAX - 1)

enum rths_event_attr {
	RTHS_EVENT_A_UNSPEC,
	RTHS_EVENT_A_PAD,
	RTHS_EVENT_A_TYPE,		/* u32 enum rths_event_type */
	RTHS_EVENT_A_TICK,		/* u64 tick of the event */
	/* u64: STATE and OVERFLOW events give the steps completed; FAULT,
	 * LIMIT and LATE events the step in progress (completed + 1)
	 */
	RTHS_EVENT_A_STEP,
	RTHS_EVENT_A_STATE,		/* u32 enum rths_state */
	RTHS_EVENT_A_REASON,		/* u32 enum rths_reason */
	RTHS_EVENT_A_FAULT,		/* u32 enum rths_fault */
	RTHS_EVENT_A_CHANNEL,		/* u32 */
	RTHS_EVENT_A_LIMIT,		/* u32 enum rths_limit_kind */
	RTHS_EVENT_A_VALUE,		/* s64: offending value, limit's units */
	RTHS_EVENT_A_LATE_ACTION,	/* u32 enum rths_late_action */
	RTHS_EVENT_A_LATE_TICKS,	/* u32 ticks the command was late */
	RTHS_EVENT_A_RING,		/* u32 enum rths_ring_id */
	__RTHS_EVENT_A_MAX,
};

#define RTHS_EVENT_A_MAX (__RTHS_EVENT_A_MAX - 1)

/* Parameters of the "sim" card type (inside RTHS_A_DEV_CARD_PARAMS). */
enum rths_sim_attr {
	RTHS_SIM_A_UNSPEC,
	RTHS_SIM_A_PAD,
	RTHS_SIM_A_LAG_US,		/* u32 actuator lag time constant, us */
	RTHS_SIM_A_DELAY_TICKS,		/* u32 transport delay, ticks */
	RTHS_SIM_A_STIFFNESS,		/* u64 specimen stiffness, N/m */
	RTHS_SIM_A_DAMPING,		/* u64 specimen damping, N*s/m */
	RTHS_SIM_A_NOISE_DISP,		/* u32 noise half-width, nm */
	RTHS_SIM_A_NOISE_FORCE,		/* u32 noise half-width, uN */
	RTHS_SIM_A_SEED,		/* u64 noise generator seed */
	/* a bilinear (kinematic hardening) spring in parallel, off at 0 */
	RTHS_SIM_A_SPRING_STIFFNESS,	/* u64 initial stiffness, N/m */
	RTHS_SIM_A_YIELD_FORCE,		/* u64 yield force, uN */
	RTHS_SIM_A_POST_STIFFNESS,	/* u64 post-yield stiffness, N/m */
	/* binary: 1..RTHS_SIM_SECTIONS_MAX struct rths_sim_section, the
	 * actuator as a discrete-time plant in place of the lag; empty: none
	 */
	RTHS_SIM_A_PLANT,
	__RTHS_SIM_A_MAX,
};

#define RTHS_SIM_A_MAX (__RTHS_SIM_A_MAX - 1)
#define RTHS_SIM_DELAY_MAX	1024
#define RTHS_SIM_LAG_US_MAX	10000000	/* 10 s */
#define RTHS_SIM_STIFFNESS_MAX	(1ULL << 32)	/* N/m */
#define RTHS_SIM_DAMPING_MAX	(1ULL << 32)	/* N*s/m */

/*
 * One second-order section of the sim card's plant, coefficients in Q
 * RTHS_SIM_PLANT_Q (a = 1.0 is 1 << 40), each |c| <= RTHS_SIM_COEF_MAX,
 * a stable denominator (|a2| < 1, |a1| < 1 + a2).  With signals carrying
 * RTHS_SIM_PLANT_XQ fraction bits of a nm, per tick:
 *	y = (b0 x + b1 x1 + b2 x2 - a1 y1 - a2 y2 + 2^(Q-1)) >> Q
 * saturated to +-RTHS_SIM_SIGNAL_MAX; sections run in order, the first
 * takes the delayed command, the last gives the actuator position
 * (Documentation/sim-card.rst).
 */
struct rths_sim_section {
	__s64 b0, b1, b2, a1, a2;
};

#define RTHS_SIM_PLANT_Q	40
#define RTHS_SIM_PLANT_XQ	16
#define RTHS_SIM_SECTIONS_MAX	8
#define RTHS_SIM_COEF_MAX	(1LL << 48)
#define RTHS_SIM_SIGNAL_MAX	(1LL << 60)	/* Q16 nm */
#define RTHS_SIM_PLANT_LEN_MAX	320	/* 8 sections of 40 bytes */

/*
 * The mmap region of a device: the header page at offset 0, then the
 * rings at the offsets RTHS_A_DEV_RINGS reports.  Every ring is
 * single-producer/single-consumer with free-running __u32 indices, each
 * on its own cache line; entries = index & (entries - 1).  Userspace
 * produces the command ring and consumes the feedback and trace rings.
 * The kernel keeps its own copy of every index it owns and never trusts
 * one that userspace wrote.
 *
 * The ordering, written here only: each barrier is labelled where it
 * stands, "A: matches B", in kernel/ring.c, kernel/loop.c, lib/dev/ring.c
 * and lib/dev/io.c (tests/build/barriers.py checks the labels):
 *
 *   A (matches B) [kernel, lib]: the producer writes the entry, then
 *     store-releases the producer index.
 *   B (matches A) [kernel, lib]: the consumer load-acquires the producer
 *     index, then reads the entry.
 *   C (matches D) [kernel, lib]: the consumer has read the entry, then
 *     store-releases the consumer index.
 *   D (matches C) [kernel, lib]: the producer load-acquires the consumer
 *     index, then reuses the slot.
 *   E (matches C) [lib]: an observer (a reader that may not write the
 *     consumer index) load-acquires the owner's consumer index and reads
 *     only entries the owner has not freed.
 *   F (matches I) [lib]: the observer copies an entry, then an acquire
 *     fence, then re-reads the producer index: the copy is good while
 *     producer - index < entries, since the producer overwrites the slot
 *     only with entry index + entries, after publishing index + entries.
 *   I (matches F) [kernel]: the producer's last index store is ordered
 *     before it rewrites a slot: a release orders only what came before
 *     it, and the acquire of D does not order a store before it, so on a
 *     weak machine the new entry could otherwise show before its index.
 *   G (matches H) [kernel]: the kernel store-releases the header's state
 *     after the last feedback record of the run (A).
 *   H (matches G) [lib]: userspace load-acquires the state, then drains
 *     the feedback ring, which holds every record of the run.
 *   S (matches A, C) [lib]: a process that binds a ring load-acquires the
 *     index it will own, as the previous owner released it.
 *   P (matches none) [kernel]: poll() reads the consumer index once; it
 *     is a hint, nothing is read after it.
 */
#define RTHS_MMAP_MAGIC		0x52544853	/* "RTHS" */
#define RTHS_MMAP_VERSION	1

/* Page 0, written by the kernel only. */
struct rths_mmap_header {
	__u32 magic;
	__u32 version;
	__u32 channels;
	__u32 state;		/* enum rths_state */
	__u64 tick;		/* ticks run */
	__u64 step;		/* steps completed */
};

/* Command ring entry: the target of step @step for every channel. */
struct rths_cmd_entry {
	__u64 step;		/* first step is 1; must be the next one */
	__u32 flags;		/* must be 0 */
	__u32 channels;		/* must equal the device's channel count */
	__s64 target[];		/* nm, |target| <= RTHS_POS_MAX */
};

/* One channel's values in a feedback or trace record. */
struct rths_channel_sample {
	__s64 command;		/* nm, output at that tick */
	__s64 disp;		/* nm, measured */
	__s64 force;		/* uN, measured */
};

#define RTHS_FB_F_EXTRAPOLATED	(1U << 0)	/* late, extrapolated */
#define RTHS_FB_F_HELD		(1U << 1)	/* late, held (stretched) */
#define RTHS_FB_F_DECELERATED	(1U << 2)	/* late past the deadline */
#define RTHS_FB_F_GAP		(1U << 3)	/* records lost before this */

/* Feedback ring entry: one per step, sampled at the step's last tick. */
struct rths_fb_entry {
	__u64 step;
	__u64 tick;		/* device tick of the sample (first is 1) */
	__u64 time_ns;		/* when it was taken; virtual under manual */
	__u32 flags;		/* RTHS_FB_F_* */
	__u32 late_ticks;	/* ticks the step's command was late */
	struct rths_channel_sample ch[];
};

/* Trace ring entry: one per tick, when the trace ring is enabled. */
struct rths_trace_entry {
	__u64 tick;
	__u64 time_ns;
	__u64 step;		/* step this tick belongs to */
	__u32 irq_latency_ns;	/* saturates at 2^32 - 1 */
	__u32 thread_latency_ns;
	__u32 step_tick;	/* ticks into the step, 1 at its first tick */
	__u32 state;		/* enum rths_state */
	struct rths_channel_sample ch[];
};

/* Entry sizes for a device with @n channels. */
#define RTHS_CMD_ENTRY_SIZE(n) \
	(sizeof(struct rths_cmd_entry) + (n) * sizeof(__s64))
#define RTHS_FB_ENTRY_SIZE(n) \
	(sizeof(struct rths_fb_entry) + \
	 (n) * sizeof(struct rths_channel_sample))
#define RTHS_TRACE_ENTRY_SIZE(n) \
	(sizeof(struct rths_trace_entry) + \
	 (n) * sizeof(struct rths_channel_sample))

/*
 * Parameters of the "comedi" card type (inside RTHS_A_DEV_CARD_PARAMS):
 * a Comedi board driven through kcomedilib, one AO channel and one or two
 * AI channels per rths channel.  On DEV_SET, absent attributes keep their
 * value, channel by channel.  Integer calibration per channel and signal
 * (AO, displacement, force), counts c against kernel units (nm, uN):
 *
 *   read   value = round((c - OFFSET) * NUM / DEN)
 *   write  c = clamp(OFFSET + round(value * DEN / NUM), 0, maxdata)
 *
 * rounding halves away from zero; a clamped output is counted (CLAMPS).
 * The bounds below keep every intermediate product under 2^63.
 * Documentation/comedi-card.rst has the details.
 */
enum rths_comedi_attr {
	RTHS_COMEDI_A_UNSPEC,
	RTHS_COMEDI_A_PAD,
	/* u32 N of /dev/comediN, 0..RTHS_COMEDI_MINOR_MAX; required */
	RTHS_COMEDI_A_MINOR,
	/* u32 AO (AI) subdevice; default: the board's first of its type */
	RTHS_COMEDI_A_AO_SUBDEV,
	RTHS_COMEDI_A_AI_SUBDEV,
	RTHS_COMEDI_A_CHANNELS,		/* nest of RTHS_COMEDI_A_CHANNEL nests */
	RTHS_COMEDI_A_CHANNEL,		/* nest of RTHS_COMEDI_CH_A_* */
	RTHS_COMEDI_A_BOARD,		/* string: board name (read only) */
	RTHS_COMEDI_A_DRIVER,		/* string: driver name (read only) */
	__RTHS_COMEDI_A_MAX,
};

#define RTHS_COMEDI_A_MAX (__RTHS_COMEDI_A_MAX - 1)

/*
 * One rths channel of a comedi device.  Defaults at creation: AO channel
 * and displacement AI channel = INDEX, range 0, no force input, the first
 * analog reference the AI subdevice supports (ground first), NUM = DEN =
 * 1 and OFFSET = (maxdata + 1) / 2 for each signal.  In DEV_GET replies
 * the AO calibration is left out when it equals the displacement's, and
 * the force attributes when there is no force input.
 */
enum rths_comedi_chan_attr {
	RTHS_COMEDI_CH_A_UNSPEC,
	RTHS_COMEDI_CH_A_PAD,
	RTHS_COMEDI_CH_A_INDEX,		/* u32 rths channel, required */
	RTHS_COMEDI_CH_A_AO_CHAN,	/* u32 AO channel, 0..CHAN_MAX */
	RTHS_COMEDI_CH_A_AO_RANGE,	/* u32 its range, 0..RANGE_MAX */
	RTHS_COMEDI_CH_A_DISP_CHAN,	/* u32 AI channel of the displacement */
	RTHS_COMEDI_CH_A_DISP_RANGE,	/* u32 */
	RTHS_COMEDI_CH_A_FORCE_CHAN,	/* u32 AI channel of the force */
	RTHS_COMEDI_CH_A_FORCE_RANGE,	/* u32 */
	RTHS_COMEDI_CH_A_FORCE_NONE,	/* flag: no force input, force reads 0 */
	RTHS_COMEDI_CH_A_AREF,		/* u32 AREF_* of the AI inputs, 0..3 */
	RTHS_COMEDI_CH_A_AO_NUM,	/* s64 nm per count, numerator */
	RTHS_COMEDI_CH_A_AO_DEN,	/* u32 nm per count, denominator */
	RTHS_COMEDI_CH_A_AO_OFFSET,	/* s64 the count of 0 nm */
	RTHS_COMEDI_CH_A_DISP_NUM,	/* s64 nm per count */
	RTHS_COMEDI_CH_A_DISP_DEN,	/* u32 */
	RTHS_COMEDI_CH_A_DISP_OFFSET,	/* s64 counts */
	RTHS_COMEDI_CH_A_FORCE_NUM,	/* s64 uN per count */
	RTHS_COMEDI_CH_A_FORCE_DEN,	/* u32 */
	RTHS_COMEDI_CH_A_FORCE_OFFSET,	/* s64 counts */
	RTHS_COMEDI_CH_A_AO_MAXDATA,	/* u32 (read only) */
	RTHS_COMEDI_CH_A_DISP_MAXDATA,	/* u32 (read only) */
	RTHS_COMEDI_CH_A_FORCE_MAXDATA,	/* u32 (read only) */
	/* u64 outputs clamped to 0..maxdata since creation (read only) */
	RTHS_COMEDI_CH_A_CLAMPS,
	__RTHS_COMEDI_CH_A_MAX,
};

#define RTHS_COMEDI_CH_A_MAX (__RTHS_COMEDI_CH_A_MAX - 1)
#define RTHS_COMEDI_MINOR_MAX	47		/* COMEDI_NUM_BOARD_MINORS - 1 */
#define RTHS_COMEDI_SUBDEV_MAX	255
#define RTHS_COMEDI_CHAN_MAX	65535		/* CR_PACK(): 16 bits */
#define RTHS_COMEDI_RANGE_MAX	255		/* CR_PACK(): 8 bits */
#define RTHS_COMEDI_AREF_MAX	3		/* AREF_OTHER */
#define RTHS_COMEDI_NUM_MAX	(1LL << 30)	/* |NUM|, and NUM != 0 */
#define RTHS_COMEDI_DEN_MAX	(1U << 22)	/* DEN 1..DEN_MAX */
#define RTHS_COMEDI_OFFSET_MAX	(1LL << 32)	/* |OFFSET| */

#endif /* _UAPI_LINUX_RTHS_H */
