/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librths device layer: control an rths device over generic netlink, map its
 * rings, post step commands and wait for feedback.
 *
 * Values cross this API as doubles in SI units (m, m/s, N, s); the library
 * converts to and from the kernel's integer units (nm, nm/s, uN, ns, see
 * <linux/rths.h>) and rejects values that are not finite or do not fit.
 *
 * Errors (rths/error.h): functions return 0 (or a count) on success and a
 * negative errno on failure; rths_strerror() gives its text.  After a
 * failed request rths_ctl_error() tells why, in words:
 * the kernel's extack message and the attribute it points at, or the
 * library's own message for errors it caught before sending.
 *
 * Thread safety: one struct rths_ctl per thread; a struct rths_dev may be
 * used by one producer thread and one consumer thread at a time.
 */
#ifndef RTHS_DEVICE_H
#define RTHS_DEVICE_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <rths/error.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/rths.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- control socket ---------------------------------------------------- */

struct rths_ctl;

/* Open a generic netlink socket and resolve the "rths" family.
 * -ENOENT: the module is not loaded. */
int rths_ctl_open(struct rths_ctl **ctl);
void rths_ctl_close(struct rths_ctl *ctl);

/* Why the last failed request on @ctl failed (never NULL, "" if none). */
const char *rths_ctl_error(const struct rths_ctl *ctl);

/* Type of the attribute the kernel's last extack pointed at (found by
 * walking the request that was sent), innermost for nested attributes;
 * 0 if the kernel pointed at none. */
int rths_ctl_error_attr(const struct rths_ctl *ctl);

/* ---- device configuration ---------------------------------------------- */

/* Sim card parameters (RTHS_SIM_A_*); a field is sent only if its bit is
 * set in @set. */
enum rths_sim_field {
	RTHS_SIM_LAG = 1u << 0,
	RTHS_SIM_DELAY = 1u << 1,
	RTHS_SIM_STIFFNESS = 1u << 2,
	RTHS_SIM_DAMPING = 1u << 3,
	RTHS_SIM_NOISE_DISP = 1u << 4,
	RTHS_SIM_NOISE_FORCE = 1u << 5,
	RTHS_SIM_SEED = 1u << 6,
	RTHS_SIM_SPRING_STIFFNESS = 1u << 7,
	RTHS_SIM_YIELD_FORCE = 1u << 8,
	RTHS_SIM_POST_STIFFNESS = 1u << 9,
	/* plant_sections and plant (0 sections: back to the lag) */
	RTHS_SIM_PLANT = 1u << 10,
	RTHS_SIM_SPRING = RTHS_SIM_SPRING_STIFFNESS | RTHS_SIM_YIELD_FORCE |
			  RTHS_SIM_POST_STIFFNESS,
};

struct rths_sim_params {
	unsigned int set;		/* RTHS_SIM_* bits */
	double lag;			/* s, actuator lag time constant */
	uint32_t delay_ticks;		/* transport delay */
	double stiffness;		/* N/m */
	double damping;			/* N*s/m */
	double noise_disp;		/* m, uniform noise half-width */
	double noise_force;		/* N */
	uint64_t seed;
	/* a bilinear spring in parallel (RTHS_SIM_SPRING_* bits); off when
	 * its stiffness or yield force is 0 */
	double spring_stiffness;	/* N/m, initial */
	double yield_force;		/* N */
	double post_stiffness;		/* N/m, after yield, <= initial */
	/* since VER1: the actuator as a discrete-time plant in place of the
	 * lag (RTHS_SIM_PLANT; Documentation/sim-card.rst); rths_sim_plant_
	 * design() fills these from a continuous transfer function */
	uint32_t plant_sections;	/* 0 .. RTHS_SIM_SECTIONS_MAX */
	struct rths_sim_section plant[RTHS_SIM_SECTIONS_MAX];
};

/*
 * Comedi card parameters (RTHS_COMEDI_A_*, Documentation/comedi-card.rst).
 * Only fields whose bit is set are sent; DEV_GET sets the bits of what the
 * kernel reported.  Channel i is sent when chan[i].set is not 0.
 */
enum rths_comedi_field {
	RTHS_COMEDI_MINOR = 1u << 0,		/* required by dev_new */
	RTHS_COMEDI_AO_SUBDEV = 1u << 1,
	RTHS_COMEDI_AI_SUBDEV = 1u << 2,
};

enum rths_comedi_chan_field {
	RTHS_COMEDI_CH_AO_CHAN = 1u << 0,
	RTHS_COMEDI_CH_AO_RANGE = 1u << 1,
	RTHS_COMEDI_CH_DISP_CHAN = 1u << 2,
	RTHS_COMEDI_CH_DISP_RANGE = 1u << 3,
	RTHS_COMEDI_CH_FORCE_CHAN = 1u << 4,	/* force_chan < 0: none */
	RTHS_COMEDI_CH_FORCE_RANGE = 1u << 5,
	RTHS_COMEDI_CH_AREF = 1u << 6,
	RTHS_COMEDI_CH_SCALE_AO = 1u << 7,
	RTHS_COMEDI_CH_OFFSET_AO = 1u << 8,
	RTHS_COMEDI_CH_SCALE_DISP = 1u << 9,
	RTHS_COMEDI_CH_OFFSET_DISP = 1u << 10,
	RTHS_COMEDI_CH_SCALE_FORCE = 1u << 11,
	RTHS_COMEDI_CH_OFFSET_FORCE = 1u << 12,
};

/*
 * One signal's calibration: the count @offset reads as 0, each count more
 * as @scale more.  The kernel keeps the scale as the fraction @num / @den
 * nm (or uN) per count, |num| <= 2^30, 1 <= den <= 2^22; the library
 * sends the nearest such fraction (rths_comedi_ratio()), exact when there
 * is one equal to scale * 10^9 (10^6 for forces).
 */
struct rths_comedi_cal {
	double scale;			/* m (N) per count, not 0 */
	int64_t offset;			/* counts, |offset| <= 2^32 */
	int64_t num;			/* from DEV_GET: the kernel's fraction */
	uint32_t den;
};

struct rths_comedi_chan {
	unsigned int set;		/* RTHS_COMEDI_CH_* bits */
	uint32_t ao_chan, ao_range;
	uint32_t disp_chan, disp_range;
	int32_t force_chan;		/* AI channel; -1: no force input */
	uint32_t force_range;
	uint32_t aref;			/* AREF_GROUND .. AREF_OTHER */
	/* Sending: an AO calibration left out (SCALE_AO, OFFSET_AO) follows
	 * the displacement's given in the same request. */
	struct rths_comedi_cal ao, disp, force;
	/* DEV_GET only */
	uint32_t ao_maxdata, disp_maxdata, force_maxdata;
	uint64_t clamps;		/* outputs clamped to 0..maxdata */
};

struct rths_comedi_params {
	unsigned int set;		/* RTHS_COMEDI_* bits */
	uint32_t minor;			/* /dev/comediN */
	uint32_t ao_subdev, ai_subdev;
	struct rths_comedi_chan chan[RTHS_MAX_CHANNELS];
	char board[32], driver[32];	/* DEV_GET only */
};

/* The fraction num / den nearest to @per_count (nm or uN per count) with
 * 1 <= |num| <= RTHS_COMEDI_NUM_MAX, 1 <= den <= RTHS_COMEDI_DEN_MAX
 * (continued fractions, exact arithmetic on the double); -ERANGE if
 * @per_count is not finite or its magnitude is not within 2^-23..2^30. */
int rths_comedi_ratio(double per_count, int64_t *num, uint32_t *den);

/* Fields of struct rths_limits (extension: lets DEV_SET change one limit
 * and keep the others, as the kernel allows). */
enum rths_limit_field {
	RTHS_LIM_POS_MIN = 1u << 0,
	RTHS_LIM_POS_MAX = 1u << 1,
	RTHS_LIM_VEL_MAX = 1u << 2,
	RTHS_LIM_FORCE_MAX = 1u << 3,
	RTHS_LIM_ALL = 0xfu,
};

struct rths_limits {
	double pos_min, pos_max;	/* m */
	double vel_max;			/* m/s, |velocity| */
	double force_max;		/* N, |force| */
	/* RTHS_LIM_* bits: on DEV_SET the fields to send, 0 meaning all
	 * four; from DEV_GET the fields the kernel reported. */
	unsigned int set;
};

/* Fields of struct rths_dev_config; only those in @set are sent. */
enum rths_config_field {
	RTHS_CFG_CLOCK = 1u << 0,
	RTHS_CFG_RATE = 1u << 1,
	RTHS_CFG_STEP_TICKS = 1u << 2,
	RTHS_CFG_LATE_POLICY = 1u << 3,
	RTHS_CFG_LATE_DEADLINE = 1u << 4,
	RTHS_CFG_RAMP_TICKS = 1u << 5,
	RTHS_CFG_CPU = 1u << 6,
	RTHS_CFG_PRIORITY = 1u << 7,
	RTHS_CFG_CMD_ENTRIES = 1u << 8,
	RTHS_CFG_FB_ENTRIES = 1u << 9,
	RTHS_CFG_TRACE_ENTRIES = 1u << 10,
	RTHS_CFG_LIMITS = 1u << 11,	/* channels whose bit is in limits_set */
	RTHS_CFG_LAT_HIST_US = 1u << 14,
	RTHS_CFG_LAT_BREAK_US = 1u << 15,
	/* 1u << 12 and 1u << 13 were the sim and comedi parameters of
	 * librths.so.1: card parameters now travel in their own struct
	 * (struct rths_card_params) */
};

struct rths_dev_config {
	unsigned int set;		/* RTHS_CFG_* bits */
	enum rths_clock clock;
	uint32_t rate_hz;
	uint32_t step_ticks;
	enum rths_late_policy late_policy;
	uint32_t late_deadline;		/* ticks */
	uint32_t ramp_ticks;
	uint32_t cpu;
	uint32_t priority;
	uint32_t cmd_entries, fb_entries, trace_entries;
	uint32_t limits_set;		/* bit i: send limits[i] */
	struct rths_limits limits[RTHS_MAX_CHANNELS];
	/* new fields go here, each with its RTHS_CFG_* bit */
	/* 1 us latency buckets, 0..RTHS_LAT_HIST_US_MAX (0: none) */
	uint32_t lat_hist_us;
	/* the first thread latency above this (us) stops the trace; 0: off */
	uint32_t lat_break_us;
};

struct rths_ring_info {
	uint32_t entries;		/* 0: ring absent */
	uint32_t entry_size;
	uint64_t producer, consumer, desc;	/* offsets in the mapping */
};

/* What RTHS_CMD_DEV_GET reports about one device. */
struct rths_dev_info {
	uint32_t id;
	char name[RTHS_NAME_LEN];
	char card[RTHS_NAME_LEN];
	uint32_t channels;
	enum rths_state state;
	enum rths_reason reason;	/* 0 if none yet */
	enum rths_fault fault;		/* 0 if none */
	enum rths_clock clock;
	uint32_t rate_hz, step_ticks;
	enum rths_late_policy late_policy;
	uint32_t late_deadline, ramp_ticks, cpu, priority;
	uint32_t cmd_entries, fb_entries, trace_entries;
	struct rths_limits limits[RTHS_MAX_CHANNELS];
	struct rths_ring_info cmd, fb, trace;
	uint64_t mmap_size;
	uint32_t chrdev_major, chrdev_minor;
	bool io_may_sleep, owned;
	uint64_t step, tick;
	/* where the outputs are; a new run starts there (the card may take
	 * it from the actuators at creation: bumpless) */
	double position[RTHS_MAX_CHANNELS];	/* m */
	int64_t position_raw[RTHS_MAX_CHANNELS];	/* nm */
	/* new fields go here */
	uint32_t lat_hist_us, lat_break_us;	/* as in rths_dev_config */
};

/*
 * Size-tagged structs (Documentation/librths.rst, "ABI policy").  The
 * calls below take the size of the struct the caller was compiled with,
 * as clone3() does, so that a struct can grow at its end without a new
 * soname: the library accepts any size from the first published one
 * (RTHS_*_SIZE_VER0) up; a shorter struct's missing tail reads as 0 (not
 * set), bytes the library does not know must be 0 (else -E2BIG), and a
 * struct the library fills gets 0 in whatever it does not know.  Clear a
 * struct (= { 0 } or memset) before filling it in.
 */
#define RTHS_END_OF(type, member) \
	(offsetof(type, member) + sizeof(((type *)0)->member))
#define RTHS_DEV_CONFIG_SIZE_VER0 RTHS_END_OF(struct rths_dev_config, limits)
#define RTHS_DEV_CONFIG_SIZE_VER1 \
	RTHS_END_OF(struct rths_dev_config, lat_break_us)
#define RTHS_DEV_INFO_SIZE_VER0 \
	RTHS_END_OF(struct rths_dev_info, position_raw)
#define RTHS_DEV_INFO_SIZE_VER1 RTHS_END_OF(struct rths_dev_info, lat_break_us)
#define RTHS_SIM_PARAMS_SIZE_VER0 \
	RTHS_END_OF(struct rths_sim_params, post_stiffness)
#define RTHS_SIM_PARAMS_SIZE_VER1 RTHS_END_OF(struct rths_sim_params, plant)
#define RTHS_COMEDI_PARAMS_SIZE_VER0 \
	RTHS_END_OF(struct rths_comedi_params, driver)

/*
 * A card's parameters: @params points at the struct of card @card
 * ("sim": struct rths_sim_params, "comedi": struct rths_comedi_params)
 * and @size is its size.  RTHS_SIM_PARAMS(&sim) and
 * RTHS_COMEDI_PARAMS(&comedi) build one (C only).
 */
struct rths_card_params {
	const char *card;
	const void *params;
	size_t size;
};

#ifndef __cplusplus
#define RTHS_SIM_PARAMS(p) \
	(&(const struct rths_card_params){ "sim", \
	 _Generic((p), struct rths_sim_params *: (p), \
		  const struct rths_sim_params *: (p)), sizeof(*(p)) })
#define RTHS_COMEDI_PARAMS(p) \
	(&(const struct rths_card_params){ "comedi", \
	 _Generic((p), struct rths_comedi_params *: (p), \
		  const struct rths_comedi_params *: (p)), sizeof(*(p)) })
#endif

/* Create a device of card @card with @channels channels.  @card_params
 * may be NULL (the card's defaults) and must be for @card; they go in the
 * same request (a comedi device needs its board, RTHS_COMEDI_MINOR). */
int rths_dev_new(struct rths_ctl *ctl, const char *name, const char *card,
		 uint32_t channels,
		 const struct rths_card_params *card_params);
int rths_dev_del(struct rths_ctl *ctl, const char *name);
/* Configure a device: the fields of @cfg (@cfg_size bytes, may be NULL)
 * whose bit is set, and @card_params (may be NULL; for the device's card,
 * which the kernel checks), in one request. */
int rths_dev_set(struct rths_ctl *ctl, const char *name,
		 const struct rths_dev_config *cfg, size_t cfg_size,
		 const struct rths_card_params *card_params);
/* What the kernel reports about a device: @info_size bytes of @info. */
int rths_dev_get(struct rths_ctl *ctl, const char *name,
		 struct rths_dev_info *info, size_t info_size);
/* The card parameters of a device of card @card (struct rths_sim_params
 * for "sim", ...): @size bytes at @params.  -EMEDIUMTYPE if the device's
 * card is another one, -EOPNOTSUPP for a card the library does not know. */
int rths_dev_get_card(struct rths_ctl *ctl, const char *name,
		      const char *card, void *params, size_t size);

/* Call @cb for every device, with its card parameters (@card->params is
 * NULL for a card the library does not know; @card->size is the
 * library's size of the struct, at least the caller's); stops early and
 * returns @cb's value if it returns non-zero.  @cb must not use @ctl (the
 * dump is still being read). */
int rths_dev_list(struct rths_ctl *ctl,
		  int (*cb)(const struct rths_dev_info *info,
			    const struct rths_card_params *card, void *arg),
		  void *arg);

/* Card types the kernel has registered. */
int rths_card_list(struct rths_ctl *ctl,
		   int (*cb)(const char *card, void *arg), void *arg);

/* ---- running --------------------------------------------------------------- */

int rths_run_start(struct rths_ctl *ctl, const char *name);
/* Any state to stopped.  A moving rig first ramps its outputs to rest
 * over the ramp ticks, as a hold does (manual clock: the call runs those
 * ticks); returns once stopped. */
int rths_run_stop(struct rths_ctl *ctl, const char *name);
/* Stop at once: the outputs stay where they are, a moving rig stops dead
 * (a velocity jump).  For emergencies and tests. */
int rths_run_stop_now(struct rths_ctl *ctl, const char *name);
/* Running -> holding: the outputs ramp down from their velocity and hold
 * (reason "user"); only a stop ends it.  No-op unless running. */
int rths_run_hold(struct rths_ctl *ctl, const char *name);
/* Manual clock only: advance @ticks ticks (1..1000000) synchronously. */
int rths_run_tick(struct rths_ctl *ctl, const char *name, uint32_t ticks);

struct rths_stats {
	uint64_t periods, ticks, missed, steps, stretch_ticks, step_ticks_now;
	uint64_t halt_ticks, wait_ticks;
	uint64_t late_steps, late_extrapolated, late_held, late_decelerated;
	uint64_t late_faulted;
	uint64_t fb_records, fb_overflows, trace_records, trace_overflows;
	uint64_t ring_faults, limit_trips, card_errors, events_dropped;
	uint64_t irq_lat_min, irq_lat_avg, irq_lat_max;		/* ns */
	uint64_t thread_lat_min, thread_lat_avg, thread_lat_max;	/* ns */
	uint64_t irq_lat_hist[RTHS_LAT_HIST_BUCKETS];
	uint64_t thread_lat_hist[RTHS_LAT_HIST_BUCKETS];
	uint64_t lat_samples;
};

int rths_stats_get(struct rths_ctl *ctl, const char *name,
		   struct rths_stats *st);
int rths_stats_reset(struct rths_ctl *ctl, const char *name);

/*
 * The 1 us latency histograms of a device (RTHS_CFG_LAT_HIST_US), as
 * cyclictest -h keeps them: irq[i] and thread[i] count the latencies in
 * [i, i + 1) us for i below @buckets, the overflow counts the rest.
 */
struct rths_lat_hist {
	uint32_t cap;			/* in: entries of irq[] and thread[] */
	uint32_t buckets;		/* out: the device keeps (0: none) */
	uint64_t *irq, *thread;		/* in: the caller's arrays */
	uint64_t irq_overflow, thread_overflow;
	/* RTHS_CFG_LAT_BREAK_US: the sample (from 1) that passed it, 0 if
	 * none, and its thread latency (ns) */
	uint64_t break_sample, break_ns;
};

/* Extension: the statistics and the 1 us histograms of one device, from
 * one snapshot.  Buckets beyond @h->cap are added to the overflows (and
 * are -E2BIG's concern of nobody: the counts stay whole). */
int rths_stats_get_hist(struct rths_ctl *ctl, const char *name,
			struct rths_stats *st, struct rths_lat_hist *h);
/* Extension: the statistics of every device (one dump); @cb as for
 * rths_dev_list. */
int rths_stats_list(struct rths_ctl *ctl,
		    int (*cb)(uint32_t id, const char *name,
			      const struct rths_stats *st, void *arg),
		    void *arg);

/* ---- data path ------------------------------------------------------------ */

struct rths_dev;

enum rths_open_flags {
	RTHS_OPEN_OWNER = 1u << 0,	/* read-write, owns the run: closing
					 * during a run makes it hold */
	RTHS_OPEN_NONBLOCK = 1u << 1,
};

/* Open /dev/rths/NAME and map its region (read-only without OWNER).
 * Fetches the layout over @ctl.  With OWNER, @ctl remembers the handle
 * until either is closed: its run control and rths_dev_set for this
 * device send the open node (RTHS_A_DEV_FD), which stands in for
 * CAP_NET_ADMIN.  Use the two from one thread at a time. */
int rths_dev_open(struct rths_ctl *ctl, const char *name, unsigned int flags,
		  struct rths_dev **dev);
void rths_dev_close(struct rths_dev *dev);

int rths_dev_fd(const struct rths_dev *dev);		/* for poll() */
uint32_t rths_dev_channels(const struct rths_dev *dev);
/* The live header page (state, tick, step), written by the kernel. */
const volatile struct rths_mmap_header *
rths_dev_header(const struct rths_dev *dev);

/* Rings and indices are reset by every RTHS_CMD_RUN_START: call this after
 * a start (rths_dev_open does it too) before posting or reading. */
void rths_dev_sync(struct rths_dev *dev);

/* Post the targets of step @step (metres, one per channel).
 * -EAGAIN: command ring full; -ERANGE/-EINVAL: value does not fit;
 * -EBADF: @dev was not opened with RTHS_OPEN_OWNER; -EIO: the ring's
 * consumer index is impossible (nothing is written). */
int rths_post(struct rths_dev *dev, uint64_t step, const double *target);
/* The same in the kernel's units (nm). */
int rths_post_raw(struct rths_dev *dev, uint64_t step, const int64_t *nm);
/* Free slots in the command ring. */
uint32_t rths_cmd_space(const struct rths_dev *dev);

struct rths_feedback {
	uint64_t step, tick, time_ns;
	uint32_t flags;			/* RTHS_FB_F_* */
	uint32_t late_ticks;
	uint32_t channels;
	double command[RTHS_MAX_CHANNELS];	/* m */
	double disp[RTHS_MAX_CHANNELS];		/* m */
	double force[RTHS_MAX_CHANNELS];	/* N */
	struct rths_channel_sample raw[RTHS_MAX_CHANNELS];	/* nm, uN */
};

/* Take the next feedback record without waiting: 0, or -EAGAIN if none;
 * -EIO if the ring's producer index is impossible (nothing is read).
 * An observer (opened without OWNER) follows the owner's consumer index
 * without writing it and sets RTHS_FB_F_GAP when records went by unseen. */
int rths_read_feedback(struct rths_dev *dev, struct rths_feedback *fb);

enum rths_wait_flags {
	RTHS_WAIT_SPIN = 1u << 0,	/* busy-poll the ring, no syscall */
};

/* Wait up to @timeout_ms (-1: forever) for the next feedback record.
 * -ETIMEDOUT; -EPIPE if the device left RUNNING with nothing left to read
 * (see rths_dev_header()->state); -ENODEV if the device was deleted;
 * -EINTR if a signal interrupted the wait (not with RTHS_WAIT_SPIN). */
int rths_wait_feedback(struct rths_dev *dev, struct rths_feedback *fb,
		       int timeout_ms, unsigned int flags);

struct rths_trace {
	uint64_t tick, time_ns, step;
	uint32_t irq_latency_ns, thread_latency_ns, step_tick;
	enum rths_state state;
	uint32_t channels;
	double command[RTHS_MAX_CHANNELS];	/* m */
	double disp[RTHS_MAX_CHANNELS];		/* m */
	double force[RTHS_MAX_CHANNELS];	/* N */
	struct rths_channel_sample raw[RTHS_MAX_CHANNELS];
};

/* Take the next trace record without waiting: 0, or -EAGAIN;
 * -ENOENT if the trace ring is off (trace-entries 0); -EIO as above. */
int rths_read_trace(struct rths_dev *dev, struct rths_trace *tr);

/* ---- monitor ----------------------------------------------------------------- */

struct rths_mon;

struct rths_event {
	enum rths_event_type type;
	uint32_t dev_id;
	char dev_name[RTHS_NAME_LEN];
	uint64_t tick, step;
	enum rths_state state;		/* 0 when absent, likewise below */
	enum rths_reason reason;
	enum rths_fault fault;
	uint32_t channel;
	enum rths_limit_kind limit;
	int64_t value_raw;		/* kernel units */
	double value;			/* SI (m, m/s, N) */
	enum rths_late_action late_action;
	uint32_t late_ticks;
	enum rths_ring_id ring;
};

/* Subscribe to the "monitor" multicast group. */
int rths_mon_open(struct rths_mon **mon);
void rths_mon_close(struct rths_mon *mon);
int rths_mon_fd(const struct rths_mon *mon);
/* Wait up to @timeout_ms (-1: forever, 0: poll) for one event: 1 if one
 * was stored in @ev, 0 on timeout, negative errno on error (-ENOBUFS:
 * the socket overflowed and events were lost). */
int rths_mon_read(struct rths_mon *mon, struct rths_event *ev, int timeout_ms);

/* ---- names ------------------------------------------------------------------- */

/* Lower-case names as rthsctl prints and parses them ("running",
 * "event-driven", ...); NULL / negative for an unknown value. */
const char *rths_state_name(enum rths_state s);
const char *rths_reason_name(enum rths_reason r);
const char *rths_fault_name(enum rths_fault f);
const char *rths_clock_name(enum rths_clock c);
const char *rths_late_policy_name(enum rths_late_policy p);
const char *rths_late_action_name(enum rths_late_action a);
const char *rths_limit_name(enum rths_limit_kind k);
const char *rths_event_name(enum rths_event_type t);
const char *rths_ring_name(enum rths_ring_id r);
int rths_late_policy_parse(const char *s);	/* enum value or -EINVAL */
int rths_clock_parse(const char *s);

/* ---- units ------------------------------------------------------------------- */

/* SI <-> kernel units; the to_* functions return -ERANGE for values that
 * are not finite or do not fit the kernel's bounds (RTHS_POS_MAX ...).
 * They round to the nearest integer, halves away from zero.  A velocity
 * (limit) is a magnitude: 0 to 2^64 nm/s exclusive. */
int rths_m_to_nm(double m, int64_t *nm);
int rths_n_to_un(double n, int64_t *un);
int rths_mps_to_nmps(double mps, uint64_t *nmps);
double rths_nm_to_m(int64_t nm);
double rths_un_to_n(int64_t un);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* RTHS_DEVICE_H */
