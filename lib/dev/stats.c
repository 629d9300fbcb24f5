// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Loop statistics: get (one device or all), reset.
 */
#include <errno.h>
#include <string.h>

#include "dev/internal.h"

/* Where each u64 counter of the nest goes in struct rths_stats. */
static const struct {
	uint16_t attr;
	size_t off;
} stats_u64[] = {
#define S(attr, field) { attr, offsetof(struct rths_stats, field) }
	S(RTHS_STATS_A_PERIODS, periods),
	S(RTHS_STATS_A_TICKS, ticks),
	S(RTHS_STATS_A_MISSED, missed),
	S(RTHS_STATS_A_STEPS, steps),
	S(RTHS_STATS_A_STRETCH_TICKS, stretch_ticks),
	S(RTHS_STATS_A_STEP_TICKS_NOW, step_ticks_now),
	S(RTHS_STATS_A_HALT_TICKS, halt_ticks),
	S(RTHS_STATS_A_WAIT_TICKS, wait_ticks),
	S(RTHS_STATS_A_LATE_STEPS, late_steps),
	S(RTHS_STATS_A_LATE_EXTRAPOLATED, late_extrapolated),
	S(RTHS_STATS_A_LATE_HELD, late_held),
	S(RTHS_STATS_A_LATE_DECELERATED, late_decelerated),
	S(RTHS_STATS_A_LATE_FAULTED, late_faulted),
	S(RTHS_STATS_A_FB_RECORDS, fb_records),
	S(RTHS_STATS_A_FB_OVERFLOWS, fb_overflows),
	S(RTHS_STATS_A_TRACE_RECORDS, trace_records),
	S(RTHS_STATS_A_TRACE_OVERFLOWS, trace_overflows),
	S(RTHS_STATS_A_RING_FAULTS, ring_faults),
	S(RTHS_STATS_A_LIMIT_TRIPS, limit_trips),
	S(RTHS_STATS_A_CARD_ERRORS, card_errors),
	S(RTHS_STATS_A_EVENTS_DROPPED, events_dropped),
	S(RTHS_STATS_A_IRQ_LAT_MIN, irq_lat_min),
	S(RTHS_STATS_A_IRQ_LAT_AVG, irq_lat_avg),
	S(RTHS_STATS_A_IRQ_LAT_MAX, irq_lat_max),
	S(RTHS_STATS_A_THREAD_LAT_MIN, thread_lat_min),
	S(RTHS_STATS_A_THREAD_LAT_AVG, thread_lat_avg),
	S(RTHS_STATS_A_THREAD_LAT_MAX, thread_lat_max),
	S(RTHS_STATS_A_LAT_SAMPLES, lat_samples),
#undef S
};

int rths_stats_parse(const struct nlmsghdr *nlh, uint32_t *id,
		     char name[RTHS_NAME_LEN], struct rths_stats *st)
{
	const struct nlattr *tb[RTHS_A_MAX + 1] = { NULL };
	const struct nlattr *sb[RTHS_STATS_A_MAX + 1] = { NULL };
	unsigned int i;
	int ret;

	memset(st, 0, sizeof(*st));
	ret = rths_attr_parse_msg(nlh, &rths_space_dev, tb);
	if (ret)
		return ret;
	if (!tb[RTHS_A_STATS] || !tb[RTHS_A_DEV_NAME])
		return -EPROTO;
	ret = rths_attr_parse_nest(tb[RTHS_A_STATS], &rths_space_stats, sb);
	if (ret)
		return ret;
	*id = rths_attr_u32(tb[RTHS_A_DEV_ID]);
	rths_attr_name_copy(name, tb[RTHS_A_DEV_NAME]);
	for (i = 0; i < sizeof(stats_u64) / sizeof(stats_u64[0]); i++) {
		uint64_t v;

		if (!sb[stats_u64[i].attr])
			continue;
		v = mnl_attr_get_u64(sb[stats_u64[i].attr]);
		memcpy((char *)st + stats_u64[i].off, &v, sizeof(v));
	}
	/* The lengths were checked against the space's table. */
	if (sb[RTHS_STATS_A_IRQ_LAT_HIST])
		memcpy(st->irq_lat_hist,
		       mnl_attr_get_payload(sb[RTHS_STATS_A_IRQ_LAT_HIST]),
		       sizeof(st->irq_lat_hist));
	if (sb[RTHS_STATS_A_THREAD_LAT_HIST])
		memcpy(st->thread_lat_hist,
		       mnl_attr_get_payload(sb[RTHS_STATS_A_THREAD_LAT_HIST]),
		       sizeof(st->thread_lat_hist));
	return 0;
}

struct one_ctx {
	struct rths_stats *st;
	char name[RTHS_NAME_LEN];
	uint32_t id;
};

static int one_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct one_ctx *o = arg;

	return rths_stats_parse(nlh, &o->id, o->name, o->st);
}

int rths_stats_get(struct rths_ctl *ctl, const char *name,
		   struct rths_stats *st)
{
	struct one_ctx o = { .st = st };

	memset(st, 0, sizeof(*st));
	return rths_ctl_dev_cmd(ctl, RTHS_CMD_STATS_GET, name, one_cb, &o);
}

int rths_stats_reset(struct rths_ctl *ctl, const char *name)
{
	return rths_run_cmd(ctl, RTHS_CMD_STATS_RESET, name, RTHS_OWNER_BORROW);
}

struct list_ctx {
	int (*cb)(uint32_t id, const char *name, const struct rths_stats *st,
		  void *arg);
	void *arg;
	struct rths_stats st;
};

static int list_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct list_ctx *l = arg;
	char name[RTHS_NAME_LEN];
	uint32_t id;
	int ret = rths_stats_parse(nlh, &id, name, &l->st);

	if (ret)
		return ret;
	return l->cb(id, name, &l->st, l->arg);
}

int rths_stats_list(struct rths_ctl *ctl,
		    int (*cb)(uint32_t id, const char *name,
			      const struct rths_stats *st, void *arg),
		    void *arg)
{
	struct rths_msgbuf mb = rths_ctl_msg(ctl, RTHS_CMD_STATS_GET,
					     NLM_F_DUMP);
	struct list_ctx l = { .cb = cb, .arg = arg };

	return rths_nl_talk(&ctl->nl, mb.nlh, list_cb, &l);
}

/* One binary histogram attribute into @dst (@cap entries); what does not
 * fit goes to @over. */
static int hist_copy(const struct nlattr *a, uint64_t *dst, uint32_t cap,
		     uint64_t *over)
{
	uint32_t i, n;

	if (!a)
		return 0;
	if (mnl_attr_get_payload_len(a) % sizeof(uint64_t))
		return -EPROTO;
	n = mnl_attr_get_payload_len(a) / sizeof(uint64_t);
	for (i = 0; i < n; i++) {
		uint64_t v;

		memcpy(&v, (const char *)mnl_attr_get_payload(a) +
		       i * sizeof(v), sizeof(v));
		if (i < cap)
			dst[i] = v;
		else
			*over += v;
	}
	return 0;
}

struct hist_ctx {
	struct rths_stats *st;
	struct rths_lat_hist *h;
};

static int hist_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[RTHS_A_MAX + 1] = { NULL };
	const struct nlattr *sb[RTHS_STATS_A_MAX + 1] = { NULL };
	struct hist_ctx *c = arg;
	struct rths_lat_hist *h = c->h;
	char name[RTHS_NAME_LEN];
	uint32_t id;
	int ret;

	ret = rths_stats_parse(nlh, &id, name, c->st);
	if (!ret)
		ret = rths_attr_parse_msg(nlh, &rths_space_dev, tb);
	if (!ret)
		ret = rths_attr_parse_nest(tb[RTHS_A_STATS], &rths_space_stats,
					   sb);
	if (ret)
		return ret;
	h->buckets = rths_attr_u32(sb[RTHS_STATS_A_LAT_HIST_US]);
	h->irq_overflow = rths_attr_u64(sb[RTHS_STATS_A_IRQ_LAT_OVERFLOW]);
	h->thread_overflow =
		rths_attr_u64(sb[RTHS_STATS_A_THREAD_LAT_OVERFLOW]);
	h->break_sample = rths_attr_u64(sb[RTHS_STATS_A_LAT_BREAK_SAMPLE]);
	h->break_ns = rths_attr_u64(sb[RTHS_STATS_A_LAT_BREAK_NS]);
	return hist_copy(sb[RTHS_STATS_A_IRQ_LAT_HIST_US], h->irq, h->cap,
			 &h->irq_overflow) ?:
	       hist_copy(sb[RTHS_STATS_A_THREAD_LAT_HIST_US], h->thread,
			 h->cap, &h->thread_overflow);
}

int rths_stats_get_hist(struct rths_ctl *ctl, const char *name,
			struct rths_stats *st, struct rths_lat_hist *h)
{
	struct hist_ctx c = { .st = st, .h = h };

	rths_err_clear(&ctl->nl.err);
	if (!h || (h->cap && (!h->irq || !h->thread)))
		return rths_err_set(&ctl->nl.err, -EINVAL,
				    "rths_lat_hist: NULL arrays");
	memset(st, 0, sizeof(*st));
	if (h->cap) {
		memset(h->irq, 0, h->cap * sizeof(*h->irq));
		memset(h->thread, 0, h->cap * sizeof(*h->thread));
	}
	return rths_ctl_dev_cmd(ctl, RTHS_CMD_STATS_GET, name, hist_cb, &c);
}
