/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the rths module selftests: a sim device per test, the
 * manual clock, raw access to the shared region, and a userspace replica of
 * the sim card's integer plant that predicts its samples to the count.
 */
#ifndef RTHS_SELFTEST_COMMON_H
#define RTHS_SELFTEST_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <rths/device.h>
#include <rths/sim_plant.h>

/* Generous: events travel through a work item; this is not a timing test. */
#define RT_EVENT_TIMEOUT_MS	10000

struct rt {
	struct rths_ctl *ctl;
	char name[RTHS_NAME_LEN];
	uint32_t channels;
	struct rths_dev *dev;		/* owner, after rt_open() */
	struct rths_mon *mon;		/* after rt_monitor() */
};

/* Sim parameters of a plant the tests can predict: a lag, a delay,
 * stiffness, damping and noise all switched on. */
void rt_sim_default(struct rths_sim_params *sim);

/*
 * Creates sim device "<tag><pid>" with @channels channels and applies
 * @cfg (NULL: manual clock, d = 8, trace ring of 8192); 0 or -errno.
 */
int rt_create(struct rt *t, const char *tag, uint32_t channels,
	      const struct rths_sim_params *sim,
	      const struct rths_dev_config *cfg);
/* A config with the manual clock, @d ticks a step and a trace ring. */
void rt_manual_config(struct rths_dev_config *cfg, uint32_t d);
int rt_open(struct rt *t);			/* as owner */
int rt_monitor(struct rt *t);
int rt_start(struct rt *t);			/* and resync the rings */
int rt_tick(struct rt *t, uint32_t n);
void rt_destroy(struct rt *t);

/* Post step @step with the same target @nm on every channel. */
int rt_post1(struct rt *t, uint64_t step, int64_t nm);

/* Drains up to @max trace records into @tr; returns how many. */
int rt_trace(struct rt *t, struct rths_trace *tr, int max);

/* Next event of @type for this device, skipping others: 1, 0 (timeout),
 * or -errno. */
int rt_event(struct rt *t, enum rths_event_type type, struct rths_event *ev);

int rt_state(struct rt *t, enum rths_state *state, enum rths_reason *reason,
	     enum rths_fault *fault);

/* system() of a command made from @fmt with one %s: @arg. */
int rt_sh(const char *fmt, const char *arg);

/* Raw mapping of the region, bypassing librths: for hostile writes. */
struct rt_raw {
	int fd;
	void *base;
	size_t size;
	struct rths_dev_info info;
};

int rt_raw_map(struct rt *t, struct rt_raw *raw, bool owner);
void rt_raw_unmap(struct rt_raw *raw);
uint32_t *rt_raw_index(struct rt_raw *raw, uint64_t off);

/* The sim card's plant, replicated (see kernel/cards/sim.c). */
struct sim_model {
	uint32_t channels, rate, len;
	uint64_t k, c, alpha, rng;
	uint32_t noise_disp, noise_force;
	uint64_t spring, yield, post;	/* the bilinear spring */
	int64_t c0;
	/* the plant in place of the lag (RTHS_SIM_PLANT), librths's copy
	 * of the card's recursion */
	struct rths_sim_params plant;
	struct sim_chan {
		int64_t y, force, yp;
		uint32_t head;
		int64_t line[RTHS_SIM_DELAY_MAX + 1];
		struct rths_sim_plant_state ps;
	} ch[RTHS_MAX_CHANNELS];
};

void sim_model_init(struct sim_model *m, uint32_t channels, uint32_t rate,
		    const struct rths_sim_params *sim);
/* One tick: the outputs written, the samples read. */
void sim_model_tick(struct sim_model *m, const int64_t *out, int64_t *disp,
		    int64_t *force);

/* The interpolation formula of step semantics. */
static inline int64_t rt_interp(int64_t from, int64_t to, int64_t k, int64_t d)
{
	return from + (to - from) * k / d;
}

/* The path of rthsctl next to the running test binary (build/plain/
 * tools/rthsctl): 0, or -errno if it is not there. */
int rthsctl_path(char *buf, size_t size);

#endif
