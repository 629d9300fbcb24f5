// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The family's attribute spaces: a name for every attribute (for error
 * messages), the type a reply must carry (for validation) and what each
 * nest holds (for walking requests and replies).
 */
#include <errno.h>
#include <string.h>

#include "dev/internal.h"

#define U32(n)		{ .name = (n), .type = MNL_TYPE_U32 }
#define U64(n)		{ .name = (n), .type = MNL_TYPE_U64 }
#define STR(n)		{ .name = (n), .type = MNL_TYPE_NUL_STRING }
#define FLAG(n)		{ .name = (n), .type = MNL_TYPE_FLAG }
#define NEST(n, sp)	{ .name = (n), .type = MNL_TYPE_NESTED, .nest = (sp) }
#define PAD		{ .name = "pad", .type = MNL_TYPE_UNSPEC }

static const struct rths_attr_space space_limit_list;
static const struct rths_attr_space space_ring_list;

static const struct rths_attr_desc dev_attrs[RTHS_A_MAX + 1] = {
	[RTHS_A_PAD] = PAD,
	[RTHS_A_DEV_ID] = U32("id"),
	[RTHS_A_DEV_NAME] = STR("name"),
	[RTHS_A_DEV_CARD] = STR("card"),
	[RTHS_A_DEV_CHANNELS] = U32("channels"),
	/* the only card parameters this library knows are sim's */
	[RTHS_A_DEV_CARD_PARAMS] = NEST("card-params", &rths_space_sim),
	[RTHS_A_DEV_STATE] = U32("state"),
	[RTHS_A_DEV_REASON] = U32("reason"),
	[RTHS_A_DEV_FAULT] = U32("fault"),
	[RTHS_A_DEV_CLOCK] = U32("clock"),
	[RTHS_A_DEV_RATE] = U32("rate"),
	[RTHS_A_DEV_STEP_TICKS] = U32("step-ticks"),
	[RTHS_A_DEV_LATE_POLICY] = U32("late-policy"),
	[RTHS_A_DEV_LATE_DEADLINE] = U32("deadline"),
	[RTHS_A_DEV_RAMP_TICKS] = U32("ramp"),
	[RTHS_A_DEV_CPU] = U32("cpu"),
	[RTHS_A_DEV_PRIORITY] = U32("priority"),
	[RTHS_A_DEV_CMD_ENTRIES] = U32("cmd-entries"),
	[RTHS_A_DEV_FB_ENTRIES] = U32("fb-entries"),
	[RTHS_A_DEV_TRACE_ENTRIES] = U32("trace-entries"),
	[RTHS_A_DEV_LIMITS] = NEST("limits", &space_limit_list),
	[RTHS_A_DEV_RINGS] = NEST("rings", &space_ring_list),
	[RTHS_A_DEV_MMAP_SIZE] = U64("mmap-size"),
	[RTHS_A_DEV_CHRDEV] = U32("chrdev"),
	[RTHS_A_DEV_IO_MAY_SLEEP] = FLAG("io-may-sleep"),
	[RTHS_A_DEV_OWNED] = FLAG("owned"),
	[RTHS_A_DEV_STEP] = U64("step"),
	[RTHS_A_DEV_TICK] = U64("tick"),
	[RTHS_A_DEV_POSITION] = { .name = "position", .type = MNL_TYPE_BINARY },
	[RTHS_A_RUN_TICKS] = U32("ticks"),
	[RTHS_A_STATS] = NEST("stats", &rths_space_stats),
	[RTHS_A_EVENT] = NEST("event", &rths_space_event),
	[RTHS_A_LIMIT_CHANNEL] = NEST("channel", &rths_space_limit),
	[RTHS_A_RING] = NEST("ring", &rths_space_ring),
	[RTHS_A_RUN_NOW] = FLAG("run-now"),
	[RTHS_A_DEV_LAT_HIST_US] = U32("lat-hist-us"),
	[RTHS_A_DEV_LAT_BREAK_US] = U32("lat-break-us"),
};

const struct rths_attr_space rths_space_dev = {
	.max = RTHS_A_MAX,
	.attrs = dev_attrs,
};

/* RTHS_A_DEV_LIMITS and RTHS_A_DEV_RINGS hold top-level attributes. */
static const struct rths_attr_desc limit_list_attrs[RTHS_A_MAX + 1] = {
	[RTHS_A_LIMIT_CHANNEL] = NEST("channel", &rths_space_limit),
};

static const struct rths_attr_space space_limit_list = {
	.max = RTHS_A_MAX,
	.attrs = limit_list_attrs,
};

static const struct rths_attr_desc ring_list_attrs[RTHS_A_MAX + 1] = {
	[RTHS_A_RING] = NEST("ring", &rths_space_ring),
};

static const struct rths_attr_space space_ring_list = {
	.max = RTHS_A_MAX,
	.attrs = ring_list_attrs,
};

static const struct rths_attr_desc limit_attrs[RTHS_LIMIT_A_MAX + 1] = {
	[RTHS_LIMIT_A_PAD] = PAD,
	[RTHS_LIMIT_A_INDEX] = U32("index"),
	[RTHS_LIMIT_A_POS_MIN] = U64("pos-min"),
	[RTHS_LIMIT_A_POS_MAX] = U64("pos-max"),
	[RTHS_LIMIT_A_VEL_MAX] = U64("vel-max"),
	[RTHS_LIMIT_A_FORCE_MAX] = U64("force-max"),
};

const struct rths_attr_space rths_space_limit = {
	.max = RTHS_LIMIT_A_MAX,
	.label_attr = RTHS_LIMIT_A_INDEX,
	.attrs = limit_attrs,
};

static const struct rths_attr_desc ring_attrs[RTHS_RING_A_MAX + 1] = {
	[RTHS_RING_A_PAD] = PAD,
	[RTHS_RING_A_ID] = U32("id"),
	[RTHS_RING_A_ENTRIES] = U32("entries"),
	[RTHS_RING_A_ENTRY_SIZE] = U32("entry-size"),
	[RTHS_RING_A_PRODUCER] = U64("producer"),
	[RTHS_RING_A_CONSUMER] = U64("consumer"),
	[RTHS_RING_A_DESC] = U64("desc"),
};

const struct rths_attr_space rths_space_ring = {
	.max = RTHS_RING_A_MAX,
	.label_attr = RTHS_RING_A_ID,
	.attrs = ring_attrs,
};

#define HIST(n) { .name = (n), .type = MNL_TYPE_BINARY, \
		  .len = RTHS_LAT_HIST_BUCKETS * sizeof(uint64_t) }

static const struct rths_attr_desc stats_attrs[RTHS_STATS_A_MAX + 1] = {
	[RTHS_STATS_A_PAD] = PAD,
	[RTHS_STATS_A_PERIODS] = U64("periods"),
	[RTHS_STATS_A_TICKS] = U64("ticks"),
	[RTHS_STATS_A_MISSED] = U64("missed"),
	[RTHS_STATS_A_STEPS] = U64("steps"),
	[RTHS_STATS_A_STRETCH_TICKS] = U64("stretch-ticks"),
	[RTHS_STATS_A_STEP_TICKS_NOW] = U64("step-ticks-now"),
	[RTHS_STATS_A_HALT_TICKS] = U64("halt-ticks"),
	[RTHS_STATS_A_WAIT_TICKS] = U64("wait-ticks"),
	[RTHS_STATS_A_LATE_STEPS] = U64("late-steps"),
	[RTHS_STATS_A_LATE_EXTRAPOLATED] = U64("late-extrapolated"),
	[RTHS_STATS_A_LATE_HELD] = U64("late-held"),
	[RTHS_STATS_A_LATE_DECELERATED] = U64("late-decelerated"),
	[RTHS_STATS_A_LATE_FAULTED] = U64("late-faulted"),
	[RTHS_STATS_A_FB_RECORDS] = U64("fb-records"),
	[RTHS_STATS_A_FB_OVERFLOWS] = U64("fb-overflows"),
	[RTHS_STATS_A_TRACE_RECORDS] = U64("trace-records"),
	[RTHS_STATS_A_TRACE_OVERFLOWS] = U64("trace-overflows"),
	[RTHS_STATS_A_RING_FAULTS] = U64("ring-faults"),
	[RTHS_STATS_A_LIMIT_TRIPS] = U64("limit-trips"),
	[RTHS_STATS_A_CARD_ERRORS] = U64("card-errors"),
	[RTHS_STATS_A_EVENTS_DROPPED] = U64("events-dropped"),
	[RTHS_STATS_A_IRQ_LAT_MIN] = U64("irq-lat-min"),
	[RTHS_STATS_A_IRQ_LAT_AVG] = U64("irq-lat-avg"),
	[RTHS_STATS_A_IRQ_LAT_MAX] = U64("irq-lat-max"),
	[RTHS_STATS_A_IRQ_LAT_HIST] = HIST("irq-lat-hist"),
	[RTHS_STATS_A_THREAD_LAT_MIN] = U64("thread-lat-min"),
	[RTHS_STATS_A_THREAD_LAT_AVG] = U64("thread-lat-avg"),
	[RTHS_STATS_A_THREAD_LAT_MAX] = U64("thread-lat-max"),
	[RTHS_STATS_A_THREAD_LAT_HIST] = HIST("thread-lat-hist"),
	[RTHS_STATS_A_LAT_SAMPLES] = U64("lat-samples"),
	[RTHS_STATS_A_LAT_HIST_US] = U32("lat-hist-us"),
	[RTHS_STATS_A_IRQ_LAT_HIST_US] = { .name = "irq-lat-hist-us",
					   .type = MNL_TYPE_BINARY },
	[RTHS_STATS_A_THREAD_LAT_HIST_US] = { .name = "thread-lat-hist-us",
					      .type = MNL_TYPE_BINARY },
	[RTHS_STATS_A_IRQ_LAT_OVERFLOW] = U64("irq-lat-overflow"),
	[RTHS_STATS_A_THREAD_LAT_OVERFLOW] = U64("thread-lat-overflow"),
	[RTHS_STATS_A_LAT_BREAK_SAMPLE] = U64("lat-break-sample"),
	[RTHS_STATS_A_LAT_BREAK_NS] = U64("lat-break-ns"),
};

const struct rths_attr_space rths_space_stats = {
	.max = RTHS_STATS_A_MAX,
	.attrs = stats_attrs,
};

static const struct rths_attr_desc event_attrs[RTHS_EVENT_A_MAX + 1] = {
	[RTHS_EVENT_A_PAD] = PAD,
	[RTHS_EVENT_A_TYPE] = U32("type"),
	[RTHS_EVENT_A_TICK] = U64("tick"),
	[RTHS_EVENT_A_STEP] = U64("step"),
	[RTHS_EVENT_A_STATE] = U32("state"),
	[RTHS_EVENT_A_REASON] = U32("reason"),
	[RTHS_EVENT_A_FAULT] = U32("fault"),
	[RTHS_EVENT_A_CHANNEL] = U32("channel"),
	[RTHS_EVENT_A_LIMIT] = U32("limit"),
	[RTHS_EVENT_A_VALUE] = U64("value"),
	[RTHS_EVENT_A_LATE_ACTION] = U32("late-action"),
	[RTHS_EVENT_A_LATE_TICKS] = U32("late-ticks"),
	[RTHS_EVENT_A_RING] = U32("ring"),
};

const struct rths_attr_space rths_space_event = {
	.max = RTHS_EVENT_A_MAX,
	.attrs = event_attrs,
};

static const struct rths_attr_desc sim_attrs[RTHS_SIM_A_MAX + 1] = {
	[RTHS_SIM_A_PAD] = PAD,
	[RTHS_SIM_A_LAG_US] = U32("lag"),
	[RTHS_SIM_A_DELAY_TICKS] = U32("delay"),
	[RTHS_SIM_A_STIFFNESS] = U64("stiffness"),
	[RTHS_SIM_A_DAMPING] = U64("damping"),
	[RTHS_SIM_A_NOISE_DISP] = U32("noise-disp"),
	[RTHS_SIM_A_NOISE_FORCE] = U32("noise-force"),
	[RTHS_SIM_A_SEED] = U64("seed"),
	[RTHS_SIM_A_SPRING_STIFFNESS] = U64("spring-stiffness"),
	[RTHS_SIM_A_YIELD_FORCE] = U64("yield-force"),
	[RTHS_SIM_A_POST_STIFFNESS] = U64("post-stiffness"),
	/* whole sections, checked by parse_sim() */
	[RTHS_SIM_A_PLANT] = { .name = "plant", .type = MNL_TYPE_BINARY },
};

const struct rths_attr_space rths_space_sim = {
	.max = RTHS_SIM_A_MAX,
	.attrs = sim_attrs,
};

const char *rths_attr_name(const struct rths_attr_space *sp,
			   unsigned int type)
{
	if (!sp || type > sp->max)
		return NULL;
	return sp->attrs[type].name;
}

uint32_t rths_attr_u32(const struct nlattr *a)
{
	return a ? mnl_attr_get_u32(a) : 0;
}

uint64_t rths_attr_u64(const struct nlattr *a)
{
	return a ? mnl_attr_get_u64(a) : 0;
}

void rths_attr_name_copy(char dst[RTHS_NAME_LEN], const struct nlattr *a)
{
	size_t n = 0;

	if (a) {
		const char *s = mnl_attr_get_str(a);

		n = strnlen(s, RTHS_NAME_LEN - 1);
		memcpy(dst, s, n);
	}
	dst[n] = '\0';
}

struct parse_ctx {
	const struct rths_attr_space *sp;
	const struct nlattr **tb;
};

static int parse_cb(const struct nlattr *a, void *data)
{
	const struct parse_ctx *ctx = data;
	unsigned int type = mnl_attr_get_type(a);
	const struct rths_attr_desc *d;

	if (type > ctx->sp->max || !ctx->sp->attrs[type].name)
		return MNL_CB_OK;
	d = &ctx->sp->attrs[type];
	if (d->type == MNL_TYPE_BINARY && d->len) {
		if (mnl_attr_validate2(a, d->type, d->len) < 0)
			return MNL_CB_ERROR;
	} else if (d->type != MNL_TYPE_UNSPEC &&
		   mnl_attr_validate(a, d->type) < 0) {
		return MNL_CB_ERROR;
	}
	ctx->tb[type] = a;
	return MNL_CB_OK;
}

int rths_attr_parse_msg(const struct nlmsghdr *nlh,
			const struct rths_attr_space *sp,
			const struct nlattr **tb)
{
	struct parse_ctx ctx = { sp, tb };

	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return -EPROTO;
	if (mnl_attr_parse(nlh, GENL_HDRLEN, parse_cb, &ctx) < 0)
		return -EPROTO;
	return 0;
}

int rths_attr_parse_nest(const struct nlattr *nest,
			 const struct rths_attr_space *sp,
			 const struct nlattr **tb)
{
	struct parse_ctx ctx = { sp, tb };

	if (mnl_attr_parse_nested(nest, parse_cb, &ctx) < 0)
		return -EPROTO;
	return 0;
}
