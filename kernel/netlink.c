// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "rths": device configuration, run control,
 * statistics, and the "monitor" multicast group.
 *
 * Every operation has its own strict policy, so attributes that an
 * operation does not take are rejected with an extack that points at
 * them.  Requests are validated completely before anything changes.
 */
#include <linux/cpumask.h>
#include <linux/log2.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "compat.h"
#include "rths.h"

static struct genl_family rths_family;

enum { RTHS_MCGRP_MONITOR_IDX };

static const struct genl_multicast_group rths_mcgrps[] = {
	[RTHS_MCGRP_MONITOR_IDX] = { .name = RTHS_MCGRP_MONITOR },
};

static struct netlink_range_validation_signed rths_pos_range = {
	.min = -RTHS_POS_MAX,
	.max = RTHS_POS_MAX,
};

static struct netlink_range_validation rths_force_range = {
	.max = RTHS_FORCE_MAX,
};

static struct netlink_range_validation rths_ticks_range = {
	.min = 1,
	.max = RTHS_STEP_TICKS_MAX,
};

static struct netlink_range_validation rths_deadline_range = {
	.max = RTHS_STEP_TICKS_MAX - 1,
};

static struct netlink_range_validation rths_ring_range = {
	.min = 2,
	.max = RTHS_RING_ENTRIES_MAX,
};

static struct netlink_range_validation rths_trace_range = {
	.max = RTHS_RING_ENTRIES_MAX,
};

static struct netlink_range_validation rths_run_ticks_range = {
	.min = 1,
	.max = 1000000,
};

/* NLA_POLICY_MAX keeps its bound in an s16: too small for these */
static struct netlink_range_validation rths_lat_hist_range = {
	.max = RTHS_LAT_HIST_US_MAX,
};

static struct netlink_range_validation rths_lat_break_range = {
	.max = RTHS_LAT_BREAK_US_MAX,
};

static const struct nla_policy rths_limit_policy[RTHS_LIMIT_A_MAX + 1] = {
	[RTHS_LIMIT_A_INDEX] = NLA_POLICY_MAX(NLA_U32, RTHS_MAX_CHANNELS - 1),
	[RTHS_LIMIT_A_POS_MIN] = NLA_POLICY_FULL_RANGE_SIGNED(NLA_S64,
							      &rths_pos_range),
	[RTHS_LIMIT_A_POS_MAX] = NLA_POLICY_FULL_RANGE_SIGNED(NLA_S64,
							      &rths_pos_range),
	[RTHS_LIMIT_A_VEL_MAX] = { .type = NLA_U64 },
	[RTHS_LIMIT_A_FORCE_MAX] = NLA_POLICY_FULL_RANGE(NLA_U64,
							 &rths_force_range),
};

static const struct nla_policy rths_limits_policy[RTHS_A_MAX + 1] = {
	[RTHS_A_LIMIT_CHANNEL] = NLA_POLICY_NESTED(rths_limit_policy),
};

#define RTHS_SELECT_POLICY						\
	[RTHS_A_DEV_ID] = NLA_POLICY_MAX(NLA_U32, RTHS_MAX_DEVICES - 1),	\
	[RTHS_A_DEV_NAME] = { .type = NLA_NUL_STRING,			\
			      .len = RTHS_NAME_LEN - 1 }

static const struct nla_policy rths_select_policy[RTHS_A_MAX + 1] = {
	RTHS_SELECT_POLICY,
};

/* An fd number; rths_pre_doit() checks what it refers to. */
#define RTHS_FD_POLICY							\
	[RTHS_A_DEV_FD] = NLA_POLICY_MIN(NLA_S32, 0)

static const struct nla_policy rths_run_policy[RTHS_A_MAX + 1] = {
	RTHS_SELECT_POLICY,
	RTHS_FD_POLICY,
};

static const struct nla_policy rths_dump_policy[RTHS_A_MAX + 1] = {
};

static const struct nla_policy rths_new_policy[RTHS_A_MAX + 1] = {
	[RTHS_A_DEV_NAME] = { .type = NLA_NUL_STRING,
			      .len = RTHS_NAME_LEN - 1 },
	[RTHS_A_DEV_CARD] = { .type = NLA_NUL_STRING,
			      .len = RTHS_NAME_LEN - 1 },
	[RTHS_A_DEV_CHANNELS] = NLA_POLICY_RANGE(NLA_U32, 1,
						 RTHS_MAX_CHANNELS),
	[RTHS_A_DEV_CARD_PARAMS] = { .type = NLA_NESTED },
};

static const struct nla_policy rths_set_policy[RTHS_A_MAX + 1] = {
	RTHS_SELECT_POLICY,
	RTHS_FD_POLICY,
	[RTHS_A_DEV_CARD] = { .type = NLA_NUL_STRING,
			      .len = RTHS_NAME_LEN - 1 },
	[RTHS_A_DEV_CARD_PARAMS] = { .type = NLA_NESTED },
	[RTHS_A_DEV_CLOCK] = NLA_POLICY_RANGE(NLA_U32, RTHS_CLOCK_HRTIMER,
					      RTHS_CLOCK_MANUAL),
	[RTHS_A_DEV_RATE] = NLA_POLICY_RANGE(NLA_U32, RTHS_RATE_MIN,
					     RTHS_RATE_MAX),
	[RTHS_A_DEV_STEP_TICKS] = NLA_POLICY_FULL_RANGE(NLA_U32,
							&rths_ticks_range),
	[RTHS_A_DEV_LATE_POLICY] = NLA_POLICY_RANGE(NLA_U32, RTHS_LATE_STRICT,
						    RTHS_LATE_EVENT_DRIVEN),
	[RTHS_A_DEV_LATE_DEADLINE] = NLA_POLICY_FULL_RANGE(NLA_U32,
							   &rths_deadline_range),
	[RTHS_A_DEV_RAMP_TICKS] = NLA_POLICY_FULL_RANGE(NLA_U32,
							&rths_ticks_range),
	[RTHS_A_DEV_CPU] = { .type = NLA_U32 },
	[RTHS_A_DEV_PRIORITY] = NLA_POLICY_RANGE(NLA_U32, 1, 99),
	[RTHS_A_DEV_CMD_ENTRIES] = NLA_POLICY_FULL_RANGE(NLA_U32,
							 &rths_ring_range),
	[RTHS_A_DEV_FB_ENTRIES] = NLA_POLICY_FULL_RANGE(NLA_U32,
							&rths_ring_range),
	[RTHS_A_DEV_TRACE_ENTRIES] = NLA_POLICY_FULL_RANGE(NLA_U32,
							   &rths_trace_range),
	[RTHS_A_DEV_LIMITS] = NLA_POLICY_NESTED(rths_limits_policy),
	[RTHS_A_DEV_LAT_HIST_US] = NLA_POLICY_FULL_RANGE(NLA_U32,
							 &rths_lat_hist_range),
	[RTHS_A_DEV_LAT_BREAK_US] = NLA_POLICY_FULL_RANGE(NLA_U32,
							  &rths_lat_break_range),
};

static const struct nla_policy rths_stop_policy[RTHS_A_MAX + 1] = {
	RTHS_SELECT_POLICY,
	RTHS_FD_POLICY,
	[RTHS_A_RUN_NOW] = { .type = NLA_FLAG },
};

static const struct nla_policy rths_tick_policy[RTHS_A_MAX + 1] = {
	RTHS_SELECT_POLICY,
	RTHS_FD_POLICY,
	[RTHS_A_RUN_TICKS] = NLA_POLICY_FULL_RANGE(NLA_U32,
						   &rths_run_ticks_range),
};

/* -EINVAL, saying what is missing, unless the request has @type. */
#define rths_require(info, type, msg) ({				\
	struct genl_info *__info = (info);				\
	int __err = 0;							\
									\
	if (!__info->attrs[type]) {					\
		NL_SET_ERR_MSG(__info->extack, msg);			\
		NL_SET_ERR_ATTR_MISS(__info->extack, NULL, type);	\
		__err = -EINVAL;					\
	}								\
	__err;								\
})

/* The device a request names by RTHS_A_DEV_NAME or RTHS_A_DEV_ID. */
static struct rths_device *rths_nl_device(struct genl_info *info)
{
	struct nlattr *name = info->attrs[RTHS_A_DEV_NAME];
	struct nlattr *id = info->attrs[RTHS_A_DEV_ID];
	struct rths_device *rd;

	if (!name && !id) {
		NL_SET_ERR_MSG(info->extack,
			       "name the device (RTHS_A_DEV_NAME or RTHS_A_DEV_ID)");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, RTHS_A_DEV_NAME);
		return ERR_PTR(-EINVAL);
	}
	rd = name ? rths_dev_get_by_name(nla_data(name)) :
		    rths_dev_get_by_id(nla_get_u32(id));
	if (!rd) {
		NL_SET_ERR_MSG_ATTR(info->extack, name ?: id, "no such device");
		return ERR_PTR(-ENODEV);
	}
	if (name && id && rd->id != nla_get_u32(id)) {
		NL_SET_ERR_MSG_ATTR(info->extack, id,
				    "device id and name do not match");
		rths_dev_put(rd);
		return ERR_PTR(-EINVAL);
	}
	return rd;
}

/*
 * What rths_pre_doit() does before an operation (genl_ops.internal_flags).
 * An operation that must wait (RUN_STOP) or may run long (RUN_TICK) has
 * no RTHS_NL_LOCK: it takes rd->lock itself, with rths_nl_lock(), and
 * drops it where it waits or between bounded pieces of its work, checking
 * the device again each time it takes it.  No handler releases a lock
 * that pre_doit took.  RTHS_NL_OWNER is checked under rd->lock in
 * pre_doit either way; without RTHS_NL_LOCK, pre_doit drops the lock
 * after the check.
 */
#define RTHS_NL_DEV	BIT(0)	/* look up the device the request names */
#define RTHS_NL_LOCK	BIT(1)	/* and hold its lock, checked alive */
#define RTHS_NL_OWNER	BIT(2)	/* admin or the device's owner */

/*
 * The device's node is the key to it: CAP_NET_ADMIN (checked as
 * GENL_ADMIN_PERM would) or the fd of the node that owns the device,
 * open in the sender's file table (a doit runs in the sending task).
 * Caller holds rd->lock.
 */
static int rths_nl_authorize(struct sk_buff *skb, struct genl_info *info,
			     struct rths_device *rd)
{
	struct nlattr *fd = info->attrs[RTHS_A_DEV_FD];

	if (netlink_capable(skb, CAP_NET_ADMIN))
		return 0;
	if (!fd) {
		NL_SET_ERR_MSG(info->extack,
			       "this needs CAP_NET_ADMIN or the device's node open for writing (RTHS_A_DEV_FD)");
		return -EPERM;
	}
	if (!rths_chardev_owner_fd(rd, nla_get_s32(fd))) {
		NL_SET_ERR_MSG_ATTR(info->extack, fd,
				    "not an fd of the device's node open for writing (its owner)");
		return -EPERM;
	}
	return 0;
}

/* Ticks run under one hold of rd->lock (RUN_TICK, a manual stop's ramp). */
#define RTHS_NL_TICKS_PER_LOCK	1024

/* Takes rd->lock of a live device: 0, or -ENODEV without it. */
static int rths_nl_lock(struct rths_device *rd, struct genl_info *info)
{
	mutex_lock(&rd->lock);
	if (!rd->dead)
		return 0;
	mutex_unlock(&rd->lock);
	NL_SET_ERR_MSG(info->extack, "device is being removed");
	return -ENODEV;
}

static int rths_pre_doit(const RTHS_GENL_DOIT_OPS *ops,
			 struct sk_buff *skb, struct genl_info *info)
{
	struct rths_device *rd;
	int err;

	if (!(ops->internal_flags & RTHS_NL_DEV))
		return 0;
	rd = rths_nl_device(info);
	if (IS_ERR(rd))
		return PTR_ERR(rd);
	if (ops->internal_flags & (RTHS_NL_LOCK | RTHS_NL_OWNER)) {
		err = rths_nl_lock(rd, info);
		if (err) {
			rths_dev_put(rd);
			return err;
		}
		err = ops->internal_flags & RTHS_NL_OWNER ?
		      rths_nl_authorize(skb, info, rd) : 0;
		/* an operation that locks for itself was only checked */
		if (err || !(ops->internal_flags & RTHS_NL_LOCK))
			mutex_unlock(&rd->lock);
		if (err) {
			rths_dev_put(rd);
			return err;
		}
	}
	info->user_ptr[0] = rd;
	return 0;
}

static void rths_post_doit(const RTHS_GENL_DOIT_OPS *ops,
			   struct sk_buff *skb, struct genl_info *info)
{
	struct rths_device *rd = info->user_ptr[0];

	if (!rd)
		return;
	if (ops->internal_flags & RTHS_NL_LOCK)
		mutex_unlock(&rd->lock);
	rths_dev_put(rd);
}

static int rths_put_limits(struct sk_buff *skb, const struct rths_device *rd)
{
	struct nlattr *all, *one;
	unsigned int ch;

	all = nla_nest_start(skb, RTHS_A_DEV_LIMITS);
	if (!all)
		return -EMSGSIZE;
	for (ch = 0; ch < rd->channels; ch++) {
		const struct rths_limit *l = &rd->cfg.limit[ch];

		one = nla_nest_start(skb, RTHS_A_LIMIT_CHANNEL);
		if (!one ||
		    nla_put_u32(skb, RTHS_LIMIT_A_INDEX, ch) ||
		    nla_put_s64(skb, RTHS_LIMIT_A_POS_MIN, l->pos_min,
				RTHS_LIMIT_A_PAD) ||
		    nla_put_s64(skb, RTHS_LIMIT_A_POS_MAX, l->pos_max,
				RTHS_LIMIT_A_PAD) ||
		    nla_put_u64_64bit(skb, RTHS_LIMIT_A_VEL_MAX, l->vel_max,
				      RTHS_LIMIT_A_PAD) ||
		    nla_put_u64_64bit(skb, RTHS_LIMIT_A_FORCE_MAX, l->force_max,
				      RTHS_LIMIT_A_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, one);
	}
	nla_nest_end(skb, all);
	return 0;
}

static int rths_put_ring(struct sk_buff *skb, u32 id,
			 const struct rths_kring *r)
{
	struct nlattr *nest = nla_nest_start(skb, RTHS_A_RING);

	if (!nest ||
	    nla_put_u32(skb, RTHS_RING_A_ID, id) ||
	    nla_put_u32(skb, RTHS_RING_A_ENTRIES, r->entries) ||
	    nla_put_u32(skb, RTHS_RING_A_ENTRY_SIZE, r->entry_size) ||
	    nla_put_u64_64bit(skb, RTHS_RING_A_PRODUCER, r->off_producer,
			      RTHS_RING_A_PAD) ||
	    nla_put_u64_64bit(skb, RTHS_RING_A_CONSUMER, r->off_consumer,
			      RTHS_RING_A_PAD) ||
	    nla_put_u64_64bit(skb, RTHS_RING_A_DESC, r->off_desc,
			      RTHS_RING_A_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int rths_put_rings(struct sk_buff *skb, const struct rths_region *rg)
{
	struct nlattr *nest = nla_nest_start(skb, RTHS_A_DEV_RINGS);

	if (!nest ||
	    rths_put_ring(skb, RTHS_RING_CMD, &rg->cmd) ||
	    rths_put_ring(skb, RTHS_RING_FB, &rg->fb) ||
	    rths_put_ring(skb, RTHS_RING_TRACE, &rg->trace))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return nla_put_u64_64bit(skb, RTHS_A_DEV_MMAP_SIZE, rg->size,
				 RTHS_A_PAD);
}

static int rths_put_card_params(struct sk_buff *skb, struct rths_device *rd)
{
	struct nlattr *nest;

	if (!rd->card || !rd->card->fill)
		return 0;
	nest = nla_nest_start(skb, RTHS_A_DEV_CARD_PARAMS);
	if (!nest || rd->card->fill(rd, skb))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * Caller holds rd->lock.  The loop thread may change the state, reason
 * and fault meanwhile (read once each) and runs the ticks: the position,
 * step and tick are the ones it published together at a tick boundary.
 */
static int rths_fill_dev(struct sk_buff *skb, struct rths_device *rd,
			 u32 portid, u32 seq, int flags, u8 cmd)
{
	const struct rths_config *c = &rd->cfg;
	u32 reason = READ_ONCE(rd->reason);
	u32 fault = READ_ONCE(rd->fault);
	struct rths_pos_k pos;
	void *hdr;

	rths_stats_read_pos(rd, &pos);

	hdr = genlmsg_put(skb, portid, seq, &rths_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, RTHS_A_DEV_ID, rd->id) ||
	    nla_put_string(skb, RTHS_A_DEV_NAME, rd->name) ||
	    (rd->card && nla_put_string(skb, RTHS_A_DEV_CARD, rd->card->name)) ||
	    nla_put_u32(skb, RTHS_A_DEV_CHANNELS, rd->channels) ||
	    rths_put_card_params(skb, rd) ||
	    nla_put_u32(skb, RTHS_A_DEV_STATE, READ_ONCE(rd->state)) ||
	    (reason && nla_put_u32(skb, RTHS_A_DEV_REASON, reason)) ||
	    (fault && nla_put_u32(skb, RTHS_A_DEV_FAULT, fault)) ||
	    nla_put_u32(skb, RTHS_A_DEV_CLOCK, c->clock) ||
	    nla_put_u32(skb, RTHS_A_DEV_RATE, c->rate) ||
	    nla_put_u32(skb, RTHS_A_DEV_STEP_TICKS, c->step_ticks) ||
	    nla_put_u32(skb, RTHS_A_DEV_LATE_POLICY, c->late_policy) ||
	    nla_put_u32(skb, RTHS_A_DEV_LATE_DEADLINE, c->late_deadline) ||
	    nla_put_u32(skb, RTHS_A_DEV_RAMP_TICKS, c->ramp_ticks) ||
	    nla_put_u32(skb, RTHS_A_DEV_CPU, c->cpu) ||
	    nla_put_u32(skb, RTHS_A_DEV_PRIORITY, c->priority) ||
	    nla_put_u32(skb, RTHS_A_DEV_CMD_ENTRIES, c->cmd_entries) ||
	    nla_put_u32(skb, RTHS_A_DEV_FB_ENTRIES, c->fb_entries) ||
	    nla_put_u32(skb, RTHS_A_DEV_TRACE_ENTRIES, c->trace_entries) ||
	    nla_put_u32(skb, RTHS_A_DEV_LAT_HIST_US, c->lat_hist_us) ||
	    nla_put_u32(skb, RTHS_A_DEV_LAT_BREAK_US, c->lat_break_us) ||
	    rths_put_limits(skb, rd) ||
	    rths_put_rings(skb, rd->region) ||
	    nla_put_u32(skb, RTHS_A_DEV_CHRDEV, rths_chardev_encode(rd)) ||
	    (rd->card && rd->card->io_may_sleep &&
	     nla_put_flag(skb, RTHS_A_DEV_IO_MAY_SLEEP)) ||
	    (rd->owner && nla_put_flag(skb, RTHS_A_DEV_OWNED)) ||
	    nla_put(skb, RTHS_A_DEV_POSITION, rd->channels * sizeof(s64),
		    pos.out) ||
	    nla_put_u64_64bit(skb, RTHS_A_DEV_STEP, pos.step, RTHS_A_PAD) ||
	    nla_put_u64_64bit(skb, RTHS_A_DEV_TICK, pos.tick, RTHS_A_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

typedef int (*rths_fill_fn)(struct sk_buff *skb, struct rths_device *rd,
			    u32 portid, u32 seq, int flags, u8 cmd);

/*
 * Replies to a doit with what @fill puts for the device it names.  A wide
 * device with a card that says a lot does not fit a page: retry larger.
 */
static int rths_reply_dev(struct genl_info *info, rths_fill_fn fill, u8 cmd)
{
	size_t size = NLMSG_GOODSIZE;
	struct sk_buff *msg;
	int err;

	for (;;) {
		msg = genlmsg_new(size, GFP_KERNEL);
		if (!msg)
			return -ENOMEM;
		err = fill(msg, info->user_ptr[0], info->snd_portid,
			   info->snd_seq, 0, cmd);
		if (!err)
			return genlmsg_reply(msg, info);
		nlmsg_free(msg);
		if (err != -EMSGSIZE || size >= 16 * NLMSG_GOODSIZE)
			return err;
		size *= 4;
	}
}

static int rths_nl_dev_get(struct sk_buff *skb, struct genl_info *info)
{
	return rths_reply_dev(info, rths_fill_dev, RTHS_CMD_DEV_GET);
}

/* Dumps every device, resuming at the id kept in cb->args[0]. */
static int rths_dump_devs(struct sk_buff *skb, struct netlink_callback *cb,
			  rths_fill_fn fill, u8 cmd)
{
	u32 id = cb->args[0];
	struct rths_device *rd;
	int err = 0;

	while ((rd = rths_dev_get_next(&id))) {
		mutex_lock(&rd->lock);
		err = fill(skb, rd, NETLINK_CB(cb->skb).portid,
			   cb->nlh->nlmsg_seq, NLM_F_MULTI, cmd);
		mutex_unlock(&rd->lock);
		rths_dev_put(rd);
		if (err)
			break;
		cb->args[0] = id;
	}
	/* A full skb ends this part of the dump; the next one resumes. */
	if (err == -EMSGSIZE && skb->len)
		err = 0;
	return err ?: skb->len;
}

static int rths_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return rths_dump_devs(skb, cb, rths_fill_dev, RTHS_CMD_DEV_GET);
}

static int rths_nl_dev_new(struct sk_buff *skb, struct genl_info *info)
{
	int err;

	err = rths_require(info, RTHS_A_DEV_NAME,
			   "missing attribute: the device name") ?:
	      rths_require(info, RTHS_A_DEV_CARD,
			   "missing attribute: the card type") ?:
	      rths_require(info, RTHS_A_DEV_CHANNELS,
			   "missing attribute: the channel count");
	if (err)
		return err;
	if (!rths_name_valid(nla_data(info->attrs[RTHS_A_DEV_NAME]))) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[RTHS_A_DEV_NAME],
				    "device name: use letters, digits, '_' and '-'");
		return -EINVAL;
	}
	return rths_dev_create(nla_data(info->attrs[RTHS_A_DEV_NAME]),
			       nla_data(info->attrs[RTHS_A_DEV_CARD]),
			       nla_get_u32(info->attrs[RTHS_A_DEV_CHANNELS]),
			       info->attrs[RTHS_A_DEV_CARD_PARAMS],
			       info->extack);
}

static int rths_nl_dev_del(struct sk_buff *skb, struct genl_info *info)
{
	int err = rths_dev_destroy(info->user_ptr[0]);

	if (err)
		NL_SET_ERR_MSG(info->extack, "device is being removed");
	return err;
}

static void rths_get_u32(struct nlattr **tb, int type, u32 *dst)
{
	if (tb[type])
		*dst = nla_get_u32(tb[type]);
}

/* Applies the limit nests to @cfg (a copy), checking each. */
static int rths_parse_limits(struct rths_device *rd, struct nlattr *limits,
			     struct rths_config *cfg,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RTHS_LIMIT_A_MAX + 1];
	struct nlattr *nest;
	struct rths_limit *l;
	int rem, err;
	u32 ch;

	nla_for_each_nested(nest, limits, rem) {
		err = nla_parse_nested(tb, RTHS_LIMIT_A_MAX, nest,
				       rths_limit_policy, extack);
		if (err)
			return err;
		if (!tb[RTHS_LIMIT_A_INDEX]) {
			NL_SET_ERR_MSG_ATTR(extack, nest,
					    "limit without a channel index");
			NL_SET_ERR_ATTR_MISS(extack, nest, RTHS_LIMIT_A_INDEX);
			return -EINVAL;
		}
		ch = nla_get_u32(tb[RTHS_LIMIT_A_INDEX]);
		if (ch >= rd->channels) {
			NL_SET_ERR_MSG_ATTR(extack, tb[RTHS_LIMIT_A_INDEX],
					    "channel index beyond the device's channels");
			return -EINVAL;
		}
		l = &cfg->limit[ch];
		if (tb[RTHS_LIMIT_A_POS_MIN])
			l->pos_min = nla_get_s64(tb[RTHS_LIMIT_A_POS_MIN]);
		if (tb[RTHS_LIMIT_A_POS_MAX])
			l->pos_max = nla_get_s64(tb[RTHS_LIMIT_A_POS_MAX]);
		if (tb[RTHS_LIMIT_A_VEL_MAX])
			l->vel_max = nla_get_u64(tb[RTHS_LIMIT_A_VEL_MAX]);
		if (tb[RTHS_LIMIT_A_FORCE_MAX])
			l->force_max = nla_get_u64(tb[RTHS_LIMIT_A_FORCE_MAX]);
		if (l->pos_min >= l->pos_max) {
			NL_SET_ERR_MSG_ATTR(extack, nest,
					    "stroke minimum must be below its maximum");
			return -EINVAL;
		}
	}
	return 0;
}

static int rths_check_ring_size(struct nlattr *attr,
				struct netlink_ext_ack *extack)
{
	u32 n;

	if (!attr)
		return 0;
	n = nla_get_u32(attr);
	if (n && !is_power_of_2(n)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "ring entries must be a power of two");
		return -EINVAL;
	}
	return 0;
}

/*
 * What a device's owner may set without CAP_NET_ADMIN: the run's own
 * settings and the parameters of a card that drives no hardware.  The
 * cpu and priority of the loop thread and the latency break (which
 * turns the system's tracing off) stay as the admin set them, and
 * the limits stay within the last ones an admin set (the rig's safe
 * envelope): a run may narrow them, and the next widen them back.
 */
static int rths_owner_may_set(struct rths_device *rd,
			      const struct rths_config *cfg,
			      struct nlattr **tb, struct netlink_ext_ack *extack)
{
	unsigned int ch;

	if (cfg->cpu != rd->cfg.cpu) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RTHS_A_DEV_CPU],
				    "changing the cpu needs CAP_NET_ADMIN");
		return -EPERM;
	}
	if (cfg->priority != rd->cfg.priority) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RTHS_A_DEV_PRIORITY],
				    "changing the priority needs CAP_NET_ADMIN");
		return -EPERM;
	}
	/* the break turns the whole system's tracing off */
	if (cfg->lat_break_us != rd->cfg.lat_break_us) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RTHS_A_DEV_LAT_BREAK_US],
				    "a latency break needs CAP_NET_ADMIN: it turns tracing off");
		return -EPERM;
	}
	if (tb[RTHS_A_DEV_CARD_PARAMS] && !rd->card->user_params) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RTHS_A_DEV_CARD_PARAMS],
				    "this card's parameters need CAP_NET_ADMIN");
		return -EPERM;
	}
	for (ch = 0; ch < rd->channels; ch++) {
		const struct rths_limit *l = &cfg->limit[ch];
		const struct rths_limit *o = &rd->envelope[ch];

		if (l->pos_min < o->pos_min || l->pos_max > o->pos_max ||
		    l->vel_max > o->vel_max || l->force_max > o->force_max) {
			NL_SET_ERR_MSG_ATTR(extack, tb[RTHS_A_DEV_LIMITS],
					    "limits beyond the admin's need CAP_NET_ADMIN; the owner may narrow them");
			return -EPERM;
		}
	}
	return 0;
}

static int rths_nl_dev_set(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *params = info->attrs[RTHS_A_DEV_CARD_PARAMS];
	struct nlattr **tb = info->attrs;
	struct rths_region *rg = NULL;
	struct nlattr **ctb = NULL;
	struct rths_device *rd = info->user_ptr[0];
	bool admin = netlink_capable(skb, CAP_NET_ADMIN);
	struct rths_config *cfg;
	int err, mapped;

	if (rd->state != RTHS_STATE_STOPPED) {
		NL_SET_ERR_MSG(extack, "device is running; stop it first");
		return -EBUSY;
	}
	cfg = kmalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	*cfg = rd->cfg;
	rths_get_u32(tb, RTHS_A_DEV_CLOCK, &cfg->clock);
	rths_get_u32(tb, RTHS_A_DEV_RATE, &cfg->rate);
	rths_get_u32(tb, RTHS_A_DEV_STEP_TICKS, &cfg->step_ticks);
	rths_get_u32(tb, RTHS_A_DEV_LATE_POLICY, &cfg->late_policy);
	rths_get_u32(tb, RTHS_A_DEV_LATE_DEADLINE, &cfg->late_deadline);
	rths_get_u32(tb, RTHS_A_DEV_RAMP_TICKS, &cfg->ramp_ticks);
	rths_get_u32(tb, RTHS_A_DEV_CPU, &cfg->cpu);
	rths_get_u32(tb, RTHS_A_DEV_PRIORITY, &cfg->priority);
	rths_get_u32(tb, RTHS_A_DEV_CMD_ENTRIES, &cfg->cmd_entries);
	rths_get_u32(tb, RTHS_A_DEV_FB_ENTRIES, &cfg->fb_entries);
	rths_get_u32(tb, RTHS_A_DEV_TRACE_ENTRIES, &cfg->trace_entries);
	rths_get_u32(tb, RTHS_A_DEV_LAT_HIST_US, &cfg->lat_hist_us);
	rths_get_u32(tb, RTHS_A_DEV_LAT_BREAK_US, &cfg->lat_break_us);

	err = -EINVAL;
	if (cfg->cpu >= nr_cpu_ids || !cpu_online(cfg->cpu)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RTHS_A_DEV_CPU],
				    "cpu is not online");
		goto unlock;
	}
	if (cfg->late_deadline && cfg->late_deadline >= cfg->step_ticks) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RTHS_A_DEV_LATE_DEADLINE] ?:
				    tb[RTHS_A_DEV_STEP_TICKS],
				    "late deadline must be below the step ticks (0: half a step)");
		goto unlock;
	}
	err = rths_check_ring_size(tb[RTHS_A_DEV_CMD_ENTRIES], extack) ?:
	      rths_check_ring_size(tb[RTHS_A_DEV_FB_ENTRIES], extack) ?:
	      rths_check_ring_size(tb[RTHS_A_DEV_TRACE_ENTRIES], extack);
	if (err)
		goto unlock;
	if (tb[RTHS_A_DEV_LIMITS]) {
		err = rths_parse_limits(rd, tb[RTHS_A_DEV_LIMITS], cfg, extack);
		if (err)
			goto unlock;
	}
	/*
	 * Every card numbers its parameters from 1: another card's would be
	 * read as this one's (the sim card's lag as a comedi minor).  Card
	 * parameters come with the card they are for, the device's.
	 */
	err = params ? rths_require(info, RTHS_A_DEV_CARD,
				    "missing attribute: the card the parameters are for") : 0;
	if (err)
		goto unlock;
	if (tb[RTHS_A_DEV_CARD] &&
	    strcmp(nla_data(tb[RTHS_A_DEV_CARD]), rd->card->name)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RTHS_A_DEV_CARD],
				    "not this device's card");
		err = -EINVAL;
		goto unlock;
	}
	/* rths_pre_doit() let in an admin or the owner */
	if (!admin) {
		err = rths_owner_may_set(rd, cfg, tb, extack);
		if (err)
			goto unlock;
	}
	if (params) {
		if (!rd->card->set) {
			NL_SET_ERR_MSG_ATTR(extack, params,
					    "this card's parameters cannot change");
			err = -EOPNOTSUPP;
			goto unlock;
		}
		err = rths_card_params(rd->card, params, &ctb, extack);
		if (err)
			goto unlock;
	}
	if (cfg->cmd_entries != rd->cfg.cmd_entries ||
	    cfg->fb_entries != rd->cfg.fb_entries ||
	    cfg->trace_entries != rd->cfg.trace_entries) {
		err = -ENOMEM;
		rg = rths_region_alloc(rd->channels, cfg);
		if (!rg)
			goto unlock;
		/* mmap() runs without rd->lock: hold it off while we resize */
		spin_lock(&rd->region_lock);
		mapped = atomic_read(&rd->region->maps);
		rd->resizing = !mapped;
		spin_unlock(&rd->region_lock);
		if (mapped) {
			NL_SET_ERR_MSG(extack,
				       "the rings are mapped; unmap them before resizing");
			rths_region_put(rg);
			err = -EBUSY;
			goto unlock;
		}
	}
	/* The card validates all of its parameters before applying any. */
	err = ctb ? rd->card->set(rd, ctb, extack) : 0;
	if (rg) {
		spin_lock(&rd->region_lock);
		if (!err)
			swap(rd->region, rg);
		rd->resizing = false;
		spin_unlock(&rd->region_lock);
		rths_region_put(rg);	/* the old one, or the unused new one */
	}
	if (err)
		goto unlock;
	/* the card took its parameters: only an allocation is left */
	err = rths_stats_hist_resize(rd, cfg->lat_hist_us);
	if (err) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RTHS_A_DEV_LAT_HIST_US],
				    "no memory for the latency histograms");
		cfg->lat_hist_us = rd->cfg.lat_hist_us;
	}
	rd->cfg = *cfg;
	if (admin)
		memcpy(rd->envelope, cfg->limit, sizeof(rd->envelope));
	/* new card parameters may move the zero: start from where it is */
	if (ctb && rths_loop_home(rd)) {
		NL_SET_ERR_MSG(extack,
			       "parameters set, but where the actuators are cannot be read");
		err = -EIO;
	}
unlock:
	kfree(ctb);
	kfree(cfg);
	return err;
}

static int rths_nl_run_start(struct sk_buff *skb, struct genl_info *info)
{
	struct rths_device *rd = info->user_ptr[0];
	int err = 0;

	if (rd->state != RTHS_STATE_STOPPED) {
		NL_SET_ERR_MSG(info->extack,
			       "device is not stopped; stop it before a new run");
		return -EBUSY;
	}
	memset(&rd->stats, 0, sizeof(rd->stats));
	WRITE_ONCE(rd->fault, 0);
	rths_region_reset(rd->region);
	rths_loop_reset(rd);
	rths_stats_clear(rd);	/* and the 1 us histograms */
	/* before the thread starts publishing its own */
	rths_stats_publish(rd);
	rths_loop_set_state(rd, RTHS_STATE_RUNNING, RTHS_REASON_USER);
	if (rd->cfg.clock == RTHS_CLOCK_HRTIMER) {
		err = rths_rt_start(rd);
		if (err) {
			if (err == -ENXIO)
				NL_SET_ERR_MSG(info->extack,
					       "the device's cpu is offline");
			else
				NL_SET_ERR_MSG(info->extack,
					       "cannot start the loop thread");
			rths_loop_set_state(rd, RTHS_STATE_STOPPED,
					    RTHS_REASON_USER);
		}
	}
	return err;
}

/*
 * Ramps the outputs to rest first (as a hold does), unless RTHS_A_RUN_NOW
 * asks for an immediate stop.  Takes rd->lock itself (no RTHS_NL_LOCK):
 * it drops it to wait for the loop thread's ramp, and between pieces of a
 * manual-clock ramp, and finds out again each time where the device is.
 */
static int rths_nl_run_stop(struct sk_buff *skb, struct genl_info *info)
{
	bool now = nla_get_flag(info->attrs[RTHS_A_RUN_NOW]);
	struct rths_device *rd = info->user_ptr[0];
	unsigned long timeout;
	bool again = false;
	int err;

	for (;;) {
		err = rths_nl_lock(rd, info);
		if (err)
			return err;
		if (rd->state == RTHS_STATE_STOPPED || now)
			break;
		/* we held it: running again means stopped and restarted */
		if (again && rd->state == RTHS_STATE_RUNNING) {
			NL_SET_ERR_MSG(info->extack,
				       "stopped by another request and started again meanwhile");
			err = -EBUSY;
			goto unlock;
		}
		err = rths_loop_ramp_down(rd, RTHS_NL_TICKS_PER_LOCK);
		if (err != -EAGAIN)
			break;
		timeout = rths_loop_ramp_timeout(rd);
		again = true;
		if (rd->cfg.clock == RTHS_CLOCK_MANUAL) {
			mutex_unlock(&rd->lock);
			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
			continue;
		}
		mutex_unlock(&rd->lock);
		err = rths_loop_wait_rest(rd, timeout, info->extack);
		if (err)
			return err;
	}
	if (!err && rd->state != RTHS_STATE_STOPPED) {
		if (rd->cfg.clock == RTHS_CLOCK_HRTIMER)
			rths_rt_stop(rd);
		rths_loop_set_state(rd, RTHS_STATE_STOPPED, RTHS_REASON_USER);
	}
unlock:
	mutex_unlock(&rd->lock);
	return err;
}

/* Ramps the outputs down and holds, as a limit trip would; a new run
 * needs a stop first.
 */
static int rths_nl_run_hold(struct sk_buff *skb, struct genl_info *info)
{
	struct rths_device *rd = info->user_ptr[0];

	if (rd->state == RTHS_STATE_STOPPED) {
		NL_SET_ERR_MSG(info->extack, "device is stopped; nothing to hold");
		return -EINVAL;
	}
	if (rd->state == RTHS_STATE_RUNNING)
		rths_loop_request_hold(rd, RTHS_REASON_USER);
	return 0;
}

/* Whether manual ticks may run, under rd->lock; @done of them have. */
static int rths_nl_can_tick(struct rths_device *rd, struct genl_info *info,
			    u32 done)
{
	if (rd->cfg.clock != RTHS_CLOCK_MANUAL) {
		NL_SET_ERR_MSG(info->extack,
			       "device clock is not manual; ticks come from its timer");
		return -EINVAL;
	}
	if (rd->state != RTHS_STATE_STOPPED)
		return 0;
	if (done) {
		NL_SET_ERR_MSG(info->extack,
			       "device was stopped by another request before all the ticks ran");
		return -EBUSY;
	}
	NL_SET_ERR_MSG(info->extack, "device is stopped; start it first");
	return -EINVAL;
}

/*
 * Runs the ticks RTHS_A_RUN_TICKS asks for, RTHS_NL_TICKS_PER_LOCK at a
 * time under rd->lock, which it takes itself (no RTHS_NL_LOCK).
 */
static int rths_nl_run_tick(struct sk_buff *skb, struct genl_info *info)
{
	struct rths_device *rd = info->user_ptr[0];
	u32 n, done = 0, i;
	int err;

	err = rths_require(info, RTHS_A_RUN_TICKS,
			   "missing attribute: how many ticks to run");
	if (err)
		return err;
	n = nla_get_u32(info->attrs[RTHS_A_RUN_TICKS]);
	do {
		err = rths_nl_lock(rd, info);
		if (err)
			return err;
		err = rths_nl_can_tick(rd, info, done);
		if (!err) {
			for (i = 0; i < RTHS_NL_TICKS_PER_LOCK && done < n;
			     i++, done++)
				rths_loop_manual_tick(rd);
			rths_stats_publish(rd);
		}
		mutex_unlock(&rd->lock);
		if (err)
			return err;
		if (done < n && fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	} while (done < n);
	return 0;
}

static int rths_put_hist(struct sk_buff *skb, int type, const u64 *hist)
{
	return nla_put(skb, type, RTHS_LAT_HIST_BUCKETS * sizeof(u64), hist);
}

/* @rd: with the 1 us histograms of that device (not in dumps) */
static int __rths_put_stats(struct sk_buff *skb, const struct rths_stats_k *s,
			    struct rths_device *rd)
{
	u64 n = s->lat_samples ?: 1;
	const struct {
		int type;
		u64 v;
	} v[] = {
		{ RTHS_STATS_A_PERIODS, s->periods },
		{ RTHS_STATS_A_TICKS, s->ticks },
		{ RTHS_STATS_A_MISSED, s->missed },
		{ RTHS_STATS_A_STEPS, s->steps },
		{ RTHS_STATS_A_STRETCH_TICKS, s->stretch_ticks },
		{ RTHS_STATS_A_STEP_TICKS_NOW, s->step_ticks_now },
		{ RTHS_STATS_A_HALT_TICKS, s->halt_ticks },
		{ RTHS_STATS_A_WAIT_TICKS, s->wait_ticks },
		{ RTHS_STATS_A_LATE_STEPS, s->late_steps },
		{ RTHS_STATS_A_LATE_EXTRAPOLATED, s->late_extrapolated },
		{ RTHS_STATS_A_LATE_HELD, s->late_held },
		{ RTHS_STATS_A_LATE_DECELERATED, s->late_decelerated },
		{ RTHS_STATS_A_LATE_FAULTED, s->late_faulted },
		{ RTHS_STATS_A_FB_RECORDS, s->fb_records },
		{ RTHS_STATS_A_FB_OVERFLOWS, s->fb_overflows },
		{ RTHS_STATS_A_TRACE_RECORDS, s->trace_records },
		{ RTHS_STATS_A_TRACE_OVERFLOWS, s->trace_overflows },
		{ RTHS_STATS_A_RING_FAULTS, s->ring_faults },
		{ RTHS_STATS_A_LIMIT_TRIPS, s->limit_trips },
		{ RTHS_STATS_A_CARD_ERRORS, s->card_errors },
		{ RTHS_STATS_A_EVENTS_DROPPED, s->events_dropped },
		{ RTHS_STATS_A_IRQ_LAT_MIN, s->irq_min },
		{ RTHS_STATS_A_IRQ_LAT_AVG, div64_u64(s->irq_sum, n) },
		{ RTHS_STATS_A_IRQ_LAT_MAX, s->irq_max },
		{ RTHS_STATS_A_THREAD_LAT_MIN, s->thread_min },
		{ RTHS_STATS_A_THREAD_LAT_AVG, div64_u64(s->thread_sum, n) },
		{ RTHS_STATS_A_THREAD_LAT_MAX, s->thread_max },
		{ RTHS_STATS_A_LAT_SAMPLES, s->lat_samples },
		{ RTHS_STATS_A_IRQ_LAT_OVERFLOW, s->irq_over },
		{ RTHS_STATS_A_THREAD_LAT_OVERFLOW, s->thread_over },
		{ RTHS_STATS_A_LAT_BREAK_SAMPLE, s->break_sample },
		{ RTHS_STATS_A_LAT_BREAK_NS, s->break_ns },
	};
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(skb, RTHS_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(v); i++)
		if (nla_put_u64_64bit(skb, v[i].type, v[i].v, RTHS_STATS_A_PAD))
			return -EMSGSIZE;
	if (rths_put_hist(skb, RTHS_STATS_A_IRQ_LAT_HIST, s->irq_hist) ||
	    rths_put_hist(skb, RTHS_STATS_A_THREAD_LAT_HIST, s->thread_hist) ||
	    (rd && rths_stats_put_hist(skb, rd)))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* Caller holds rd->lock; the loop thread may be running. */
static int rths_put_stats(struct sk_buff *skb, struct rths_device *rd,
			  bool hist)
{
	struct rths_stats_k *s;
	int err;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	/* no thread runs ticks: publish what the last one left */
	if (!rd->rt.thread)
		rths_stats_publish(rd);
	rths_stats_read(rd, s);
	err = __rths_put_stats(skb, s, hist ? rd : NULL);
	kfree(s);
	return err;
}

static int rths_fill_stats(struct sk_buff *skb, struct rths_device *rd,
			   u32 portid, u32 seq, int flags, u8 cmd)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &rths_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, RTHS_A_DEV_ID, rd->id) ||
	    nla_put_string(skb, RTHS_A_DEV_NAME, rd->name) ||
	    rths_put_stats(skb, rd, !(flags & NLM_F_MULTI))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int rths_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	return rths_reply_dev(info, rths_fill_stats, RTHS_CMD_STATS_GET);
}

static int rths_nl_stats_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return rths_dump_devs(skb, cb, rths_fill_stats, RTHS_CMD_STATS_GET);
}

static int rths_nl_stats_reset(struct sk_buff *skb, struct genl_info *info)
{
	int err = rths_rt_reset_stats(info->user_ptr[0]);

	if (err)
		NL_SET_ERR_MSG(info->extack,
			       "the loop did not take the reset in time; nothing was cleared");
	return err;
}

struct rths_card_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	unsigned int done;
};

static int rths_fill_card(struct rths_card_type *ct, void *arg)
{
	struct rths_card_dump *d = arg;
	void *hdr;

	hdr = genlmsg_put(d->skb, NETLINK_CB(d->cb->skb).portid,
			  d->cb->nlh->nlmsg_seq, &rths_family, NLM_F_MULTI,
			  RTHS_CMD_CARD_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(d->skb, RTHS_A_DEV_CARD, ct->name) ||
	    (ct->io_may_sleep &&
	     nla_put_flag(d->skb, RTHS_A_DEV_IO_MAY_SLEEP))) {
		genlmsg_cancel(d->skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(d->skb, hdr);
	d->done++;
	return 0;
}

static int rths_nl_card_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct rths_card_dump d = { .skb = skb, .cb = cb };
	int err;

	err = rths_card_for_each(rths_fill_card, &d, cb->args[0]);
	cb->args[0] += d.done;
	if (err && !(err == -EMSGSIZE && skb->len))
		return err;
	return skb->len;
}

static const struct genl_ops rths_ops[] = {
	{
		.cmd = RTHS_CMD_DEV_GET,
		.internal_flags = RTHS_NL_DEV | RTHS_NL_LOCK,
		.doit = rths_nl_dev_get,
		.dumpit = rths_nl_dev_dump,
		.policy = rths_select_policy,
		.maxattr = RTHS_A_MAX,
	}, {
		.cmd = RTHS_CMD_DEV_NEW,
		.doit = rths_nl_dev_new,
		.policy = rths_new_policy,
		.maxattr = RTHS_A_MAX,
		.flags = GENL_ADMIN_PERM,
	}, {
		.cmd = RTHS_CMD_DEV_DEL,
		.internal_flags = RTHS_NL_DEV,
		.doit = rths_nl_dev_del,
		.policy = rths_select_policy,
		.maxattr = RTHS_A_MAX,
		.flags = GENL_ADMIN_PERM,
	}, {
		.cmd = RTHS_CMD_DEV_SET,
		.internal_flags = RTHS_NL_DEV | RTHS_NL_LOCK |
				  RTHS_NL_OWNER,
		.doit = rths_nl_dev_set,
		.policy = rths_set_policy,
		.maxattr = RTHS_A_MAX,
	}, {
		.cmd = RTHS_CMD_RUN_START,
		.internal_flags = RTHS_NL_DEV | RTHS_NL_LOCK |
				  RTHS_NL_OWNER,
		.doit = rths_nl_run_start,
		.policy = rths_run_policy,
		.maxattr = RTHS_A_MAX,
	}, {
		.cmd = RTHS_CMD_RUN_STOP,
		.internal_flags = RTHS_NL_DEV | RTHS_NL_OWNER,
		.doit = rths_nl_run_stop,
		.policy = rths_stop_policy,
		.maxattr = RTHS_A_MAX,
	}, {
		.cmd = RTHS_CMD_RUN_HOLD,
		.internal_flags = RTHS_NL_DEV | RTHS_NL_LOCK |
				  RTHS_NL_OWNER,
		.doit = rths_nl_run_hold,
		.policy = rths_run_policy,
		.maxattr = RTHS_A_MAX,
	}, {
		.cmd = RTHS_CMD_RUN_TICK,
		.internal_flags = RTHS_NL_DEV | RTHS_NL_OWNER,
		.doit = rths_nl_run_tick,
		.policy = rths_tick_policy,
		.maxattr = RTHS_A_MAX,
	}, {
		.cmd = RTHS_CMD_STATS_GET,
		.internal_flags = RTHS_NL_DEV | RTHS_NL_LOCK,
		.doit = rths_nl_stats_get,
		.dumpit = rths_nl_stats_dump,
		.policy = rths_select_policy,
		.maxattr = RTHS_A_MAX,
	}, {
		.cmd = RTHS_CMD_STATS_RESET,
		.internal_flags = RTHS_NL_DEV | RTHS_NL_LOCK |
				  RTHS_NL_OWNER,
		.doit = rths_nl_stats_reset,
		.policy = rths_run_policy,
		.maxattr = RTHS_A_MAX,
	}, {
		.cmd = RTHS_CMD_CARD_GET,
		.dumpit = rths_nl_card_dump,
		.policy = rths_dump_policy,
		.maxattr = RTHS_A_MAX,
	},
};

static struct genl_family rths_family __ro_after_init = {
	.name = RTHS_GENL_NAME,
	.version = RTHS_GENL_VERSION,
	.maxattr = RTHS_A_MAX,
	.module = THIS_MODULE,
	.ops = rths_ops,
	.n_ops = ARRAY_SIZE(rths_ops),
	.mcgrps = rths_mcgrps,
	.n_mcgrps = ARRAY_SIZE(rths_mcgrps),
	.pre_doit = rths_pre_doit,
	.post_doit = rths_post_doit,
	/* handlers take their own locks; long manual ticks block nobody */
	.parallel_ops = true,
};

static int rths_put_event(struct sk_buff *skb, const struct rths_event_k *ev)
{
	struct nlattr *nest = nla_nest_start(skb, RTHS_A_EVENT);

	if (!nest ||
	    nla_put_u32(skb, RTHS_EVENT_A_TYPE, ev->type) ||
	    nla_put_u64_64bit(skb, RTHS_EVENT_A_TICK, ev->tick,
			      RTHS_EVENT_A_PAD) ||
	    nla_put_u64_64bit(skb, RTHS_EVENT_A_STEP, ev->step,
			      RTHS_EVENT_A_PAD))
		return -EMSGSIZE;
	switch (ev->type) {
	case RTHS_EVENT_STATE:
		if (nla_put_u32(skb, RTHS_EVENT_A_STATE, ev->state) ||
		    nla_put_u32(skb, RTHS_EVENT_A_REASON, ev->reason))
			return -EMSGSIZE;
		break;
	case RTHS_EVENT_FAULT:
		if (nla_put_u32(skb, RTHS_EVENT_A_FAULT, ev->fault))
			return -EMSGSIZE;
		break;
	case RTHS_EVENT_LIMIT:
		if (nla_put_u32(skb, RTHS_EVENT_A_CHANNEL, ev->channel) ||
		    nla_put_u32(skb, RTHS_EVENT_A_LIMIT, ev->limit) ||
		    nla_put_s64(skb, RTHS_EVENT_A_VALUE, ev->value,
				RTHS_EVENT_A_PAD))
			return -EMSGSIZE;
		break;
	case RTHS_EVENT_LATE:
		if (nla_put_u32(skb, RTHS_EVENT_A_LATE_ACTION,
				ev->late_action) ||
		    nla_put_u32(skb, RTHS_EVENT_A_LATE_TICKS, ev->late_ticks))
			return -EMSGSIZE;
		break;
	case RTHS_EVENT_OVERFLOW:
		if (nla_put_u32(skb, RTHS_EVENT_A_RING, ev->ring))
			return -EMSGSIZE;
		break;
	}
	nla_nest_end(skb, nest);
	return 0;
}

int rths_netlink_event(struct rths_device *rd, const struct rths_event_k *ev,
		       gfp_t gfp)
{
	struct sk_buff *skb;
	void *hdr;

	if (!genl_has_listeners(&rths_family, &init_net,
				RTHS_MCGRP_MONITOR_IDX))
		return 0;
	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, gfp);
	if (!skb)
		return -ENOMEM;
	hdr = genlmsg_put(skb, 0, 0, &rths_family, 0, RTHS_CMD_EVENT);
	if (!hdr ||
	    nla_put_u32(skb, RTHS_A_DEV_ID, rd->id) ||
	    nla_put_string(skb, RTHS_A_DEV_NAME, rd->name) ||
	    rths_put_event(skb, ev)) {
		nlmsg_free(skb);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return genlmsg_multicast(&rths_family, skb, 0, RTHS_MCGRP_MONITOR_IDX,
				 gfp);
}

int __init rths_netlink_init(void)
{
	return genl_register_family(&rths_family);
}

void rths_netlink_exit(void)
{
	genl_unregister_family(&rths_family);
}
