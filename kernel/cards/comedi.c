// SPDX-License-Identifier: GPL-2.0
/*
 * The "comedi" card: a Comedi board driven through kcomedilib.  Each rths
 * channel writes one AO channel and reads one AI channel for the
 * displacement and optionally one for the force, with an integer
 * calibration between counts and nm (uN):
 *
 *   read   v = round((c - offset) * num / den)
 *   write  c = clamp(offset + round(p * den / num), 0, maxdata)
 *
 * rounding halves away from zero.  The policy bounds |num| <= 2^30,
 * den <= 2^22, |offset| <= 2^32; with counts below 2^32 and positions
 * within +-RTHS_POS_MAX = 2^40 every product stays under 2^63 (the proofs
 * are next to the arithmetic).
 *
 * kcomedilib in 6.1 exports comedi_open(), comedi_close() and lookups, but
 * no analog read or write, so single samples go through the subdevice's
 * insn_read/insn_write under dev->mutex, as the core's parse_insn() does.
 * That sleeps: it runs in the loop thread (or the RUN_TICK caller).
 *
 * comedi_open() takes a reference on the comedi_device only, not on the
 * low-level driver's module; this card takes that one itself, so that
 * the driver (say comedi_test) cannot be unloaded under a device.  The
 * board may still be detached by other means (COMEDI_DEVCONFIG on a
 * legacy device, hot unplug): every I/O checks dev->detach_count under
 * dev->mutex and fails with -ENODEV, which faults the device.
 */
#include <linux/comedi.h>
#include <linux/comedi/comedidev.h>
#include <linux/comedi/comedilib.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../rths_card.h"

/* The samples the comedi core gives every instruction (MIN_SAMPLES). */
#define RTHS_COMEDI_DATA	16

/* counts <-> nm (uN): v = (c - offset) * num / den */
struct rths_comedi_cal {
	s64 num;
	u32 den;
	s64 offset;
};

struct rths_comedi_chcfg {
	u32 ao_chan, ao_range;
	u32 disp_chan, disp_range;
	bool has_force;
	u32 force_chan, force_range;
	u32 aref;
	struct rths_comedi_cal ao, disp, force;
};

struct rths_comedi_cfg {
	u32 minor, ao_subdev, ai_subdev;
	struct rths_comedi_chcfg ch[RTHS_MAX_CHANNELS];
};

/* An open board, and what validation learnt from it. */
struct rths_comedi_hw {
	struct comedi_device *dev;
	struct module *owner;		/* the low-level driver, referenced */
	unsigned int detach_count;	/* at open; changes on detach */
	char board[32], driver[32];
	u32 ao_aref;
	u32 ao_maxdata[RTHS_MAX_CHANNELS];
	u32 disp_maxdata[RTHS_MAX_CHANNELS];
	u32 force_maxdata[RTHS_MAX_CHANNELS];
};

struct rths_comedi {
	u32 channels;
	struct rths_comedi_cfg cfg;
	struct rths_comedi_hw hw;
	u64 clamps[RTHS_MAX_CHANNELS];	/* WRITE_ONCE by the tick */
};

/* Which attributes of a channel a request gave (for defaults, errors). */
struct rths_comedi_req {
	struct nlattr **tb;
	const struct nlattr *nest[RTHS_MAX_CHANNELS];
	u32 given[RTHS_MAX_CHANNELS];	/* BIT(RTHS_COMEDI_CH_A_*) */
	u32 had_force;			/* BIT(ch): a force input before */
};

static struct netlink_range_validation rths_comedi_chan_range = {
	.max = RTHS_COMEDI_CHAN_MAX,
};

static struct netlink_range_validation rths_comedi_den_range = {
	.min = 1,
	.max = RTHS_COMEDI_DEN_MAX,
};

static struct netlink_range_validation_signed rths_comedi_num_range = {
	.min = -RTHS_COMEDI_NUM_MAX,
	.max = RTHS_COMEDI_NUM_MAX,
};

static struct netlink_range_validation_signed rths_comedi_offset_range = {
	.min = -RTHS_COMEDI_OFFSET_MAX,
	.max = RTHS_COMEDI_OFFSET_MAX,
};

#define RTHS_COMEDI_CHAN_POLICY \
	NLA_POLICY_FULL_RANGE(NLA_U32, &rths_comedi_chan_range)
#define RTHS_COMEDI_RANGE_POLICY \
	NLA_POLICY_MAX(NLA_U32, RTHS_COMEDI_RANGE_MAX)
#define RTHS_COMEDI_NUM_POLICY \
	NLA_POLICY_FULL_RANGE_SIGNED(NLA_S64, &rths_comedi_num_range)
#define RTHS_COMEDI_DEN_POLICY \
	NLA_POLICY_FULL_RANGE(NLA_U32, &rths_comedi_den_range)
#define RTHS_COMEDI_OFFSET_POLICY \
	NLA_POLICY_FULL_RANGE_SIGNED(NLA_S64, &rths_comedi_offset_range)
#define RTHS_COMEDI_READ_ONLY \
	{ .type = NLA_REJECT, .reject_message = "read-only attribute" }

static const struct nla_policy
rths_comedi_chan_policy[RTHS_COMEDI_CH_A_MAX + 1] = {
	[RTHS_COMEDI_CH_A_INDEX] = NLA_POLICY_MAX(NLA_U32,
						  RTHS_MAX_CHANNELS - 1),
	[RTHS_COMEDI_CH_A_AO_CHAN] = RTHS_COMEDI_CHAN_POLICY,
	[RTHS_COMEDI_CH_A_AO_RANGE] = RTHS_COMEDI_RANGE_POLICY,
	[RTHS_COMEDI_CH_A_DISP_CHAN] = RTHS_COMEDI_CHAN_POLICY,
	[RTHS_COMEDI_CH_A_DISP_RANGE] = RTHS_COMEDI_RANGE_POLICY,
	[RTHS_COMEDI_CH_A_FORCE_CHAN] = RTHS_COMEDI_CHAN_POLICY,
	[RTHS_COMEDI_CH_A_FORCE_RANGE] = RTHS_COMEDI_RANGE_POLICY,
	[RTHS_COMEDI_CH_A_FORCE_NONE] = { .type = NLA_FLAG },
	[RTHS_COMEDI_CH_A_AREF] = NLA_POLICY_MAX(NLA_U32, RTHS_COMEDI_AREF_MAX),
	[RTHS_COMEDI_CH_A_AO_NUM] = RTHS_COMEDI_NUM_POLICY,
	[RTHS_COMEDI_CH_A_AO_DEN] = RTHS_COMEDI_DEN_POLICY,
	[RTHS_COMEDI_CH_A_AO_OFFSET] = RTHS_COMEDI_OFFSET_POLICY,
	[RTHS_COMEDI_CH_A_DISP_NUM] = RTHS_COMEDI_NUM_POLICY,
	[RTHS_COMEDI_CH_A_DISP_DEN] = RTHS_COMEDI_DEN_POLICY,
	[RTHS_COMEDI_CH_A_DISP_OFFSET] = RTHS_COMEDI_OFFSET_POLICY,
	[RTHS_COMEDI_CH_A_FORCE_NUM] = RTHS_COMEDI_NUM_POLICY,
	[RTHS_COMEDI_CH_A_FORCE_DEN] = RTHS_COMEDI_DEN_POLICY,
	[RTHS_COMEDI_CH_A_FORCE_OFFSET] = RTHS_COMEDI_OFFSET_POLICY,
	[RTHS_COMEDI_CH_A_AO_MAXDATA] = RTHS_COMEDI_READ_ONLY,
	[RTHS_COMEDI_CH_A_DISP_MAXDATA] = RTHS_COMEDI_READ_ONLY,
	[RTHS_COMEDI_CH_A_FORCE_MAXDATA] = RTHS_COMEDI_READ_ONLY,
	[RTHS_COMEDI_CH_A_CLAMPS] = RTHS_COMEDI_READ_ONLY,
};

static const struct nla_policy rths_comedi_chans_policy[RTHS_COMEDI_A_MAX + 1] = {
	[RTHS_COMEDI_A_CHANNEL] = NLA_POLICY_NESTED(rths_comedi_chan_policy),
};

static const struct nla_policy rths_comedi_policy[RTHS_COMEDI_A_MAX + 1] = {
	[RTHS_COMEDI_A_MINOR] = NLA_POLICY_MAX(NLA_U32, RTHS_COMEDI_MINOR_MAX),
	[RTHS_COMEDI_A_AO_SUBDEV] = NLA_POLICY_MAX(NLA_U32,
						   RTHS_COMEDI_SUBDEV_MAX),
	[RTHS_COMEDI_A_AI_SUBDEV] = NLA_POLICY_MAX(NLA_U32,
						   RTHS_COMEDI_SUBDEV_MAX),
	[RTHS_COMEDI_A_CHANNELS] = NLA_POLICY_NESTED(rths_comedi_chans_policy),
	[RTHS_COMEDI_A_CHANNEL] = { .type = NLA_REJECT,
				    .reject_message = "channel nests go inside the channels nest" },
	[RTHS_COMEDI_A_BOARD] = RTHS_COMEDI_READ_ONLY,
	[RTHS_COMEDI_A_DRIVER] = RTHS_COMEDI_READ_ONLY,
};

/* ---- arithmetic --------------------------------------------------------- */

/*
 * A count as nm (uN): round((c - offset) * num / den).
 * |c - offset| <= (2^32 - 1) + 2^32 < 2^33 and |num| <= 2^30, so
 * |p| < 2^63; |p| + den / 2 < 2^63 + 2^21 fits a u64.
 */
static s64 rths_comedi_from_counts(const struct rths_comedi_cal *cal,
				   unsigned int c)
{
	s64 p = ((s64)c - cal->offset) * cal->num;
	u64 a = p < 0 ? -(u64)p : (u64)p;
	u64 q = div_u64(a + cal->den / 2, cal->den);

	return p < 0 ? -(s64)q : (s64)q;
}

/*
 * nm as a count: offset + round(nm * den / num), clamped to 0..maxdata.
 * With |nm| <= 2^40 (clamped first) and den <= 2^22, |t| <= 2^62;
 * |t| + |num| / 2 <= 2^62 + 2^29 and the quotient is at most that, so
 * offset + q is within 2^62 + 2^33: no step overflows.
 */
static unsigned int rths_comedi_to_counts(const struct rths_comedi_cal *cal,
					  u32 maxdata, s64 nm, bool *clamped)
{
	s64 t, c;
	u64 a, n, q;

	*clamped = nm < -RTHS_POS_MAX || nm > RTHS_POS_MAX;
	nm = clamp_t(s64, nm, -RTHS_POS_MAX, RTHS_POS_MAX);
	t = nm * cal->den;
	a = t < 0 ? -(u64)t : (u64)t;
	n = cal->num < 0 ? -(u64)cal->num : (u64)cal->num;
	q = div_u64(a + n / 2, (u32)n);		/* n <= 2^30 */
	c = cal->offset + ((t < 0) != (cal->num < 0) ? -(s64)q : (s64)q);
	if (c < 0) {
		*clamped = true;
		return 0;
	}
	if (c > maxdata) {
		*clamped = true;
		return maxdata;
	}
	return c;
}

/* ---- the board ---------------------------------------------------------- */

static unsigned int rths_comedi_maxdata(const struct comedi_subdevice *s,
					unsigned int chan)
{
	return s->maxdata_list ? s->maxdata_list[chan] : s->maxdata;
}

static bool rths_comedi_range_ok(const struct comedi_subdevice *s,
				 unsigned int chan, unsigned int range)
{
	const struct comedi_lrange *lr = s->range_table_list ?
		s->range_table_list[chan] : s->range_table;

	return lr && range < lr->length;
}

/* AREF_GROUND.. in the order a default takes them: the lowest supported. */
static u32 rths_comedi_default_aref(const struct comedi_subdevice *s)
{
	u32 aref;

	for (aref = AREF_GROUND; aref <= AREF_OTHER; aref++)
		if (s->subdev_flags & (SDF_GROUND << aref))
			return aref;
	return AREF_GROUND;
}

/* Still the board we opened?  Caller holds dev->mutex. */
static bool rths_comedi_attached(const struct rths_comedi_hw *hw)
{
	lockdep_assert_held(&hw->dev->mutex);
	return hw->dev->attached && hw->dev->detach_count == hw->detach_count;
}

static int rths_comedi_open(u32 minor, struct rths_comedi_hw *hw,
			    struct nlattr *attr, struct netlink_ext_ack *extack)
{
	struct comedi_device *dev;
	char path[24];
	int err = 0;

	BUILD_BUG_ON(RTHS_COMEDI_MINOR_MAX >= COMEDI_NUM_BOARD_MINORS);
	snprintf(path, sizeof(path), "/dev/comedi%u", minor);
	dev = comedi_open(path);
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "no such comedi device, or it is not attached to a driver");
		return -ENODEV;
	}
	mutex_lock(&dev->mutex);
	if (!dev->attached) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "the comedi device was detached");
		err = -ENODEV;
	} else if (!try_module_get(dev->driver->module)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "the comedi device's driver is being unloaded");
		err = -ENODEV;
	} else {
		hw->dev = dev;
		hw->owner = dev->driver->module;
		hw->detach_count = dev->detach_count;
		strscpy(hw->board, dev->board_name ?: "", sizeof(hw->board));
		strscpy(hw->driver, dev->driver->driver_name ?: "",
			sizeof(hw->driver));
	}
	mutex_unlock(&dev->mutex);
	if (err)
		comedi_close(dev);
	return err;
}

static void rths_comedi_close(struct rths_comedi_hw *hw)
{
	if (!hw->dev)
		return;
	module_put(hw->owner);
	comedi_close(hw->dev);
	hw->dev = NULL;
}

/* ---- parameters ----------------------------------------------------------- */

/*
 * The attribute a complaint about field @type of channel @ch points at:
 * the field if the request gave it, else the channel's nest, else @dflt.
 */
static const struct nlattr *rths_comedi_where(const struct rths_comedi_req *rq,
					      u32 ch, int type,
					      const struct nlattr *dflt)
{
	const struct nlattr *a;

	if (!rq->nest[ch])
		return dflt;
	a = nla_find_nested(rq->nest[ch], type);
	return a ?: rq->nest[ch];
}

/*
 * NL_SET_ERR_MSG_ATTR() with a message that is not a literal (a static
 * string, as the core's own NLA_REJECT reject_message).
 */
static void rths_comedi_errmsg(struct netlink_ext_ack *extack,
			       const struct nlattr *attr, const char *msg)
{
	if (!extack)
		return;
	NL_SET_BAD_ATTR(extack, attr);
	extack->_msg = msg;
}

#define RTHS_COMEDI_ERR(extack, rq, ch, type, dflt, msg) \
	rths_comedi_errmsg(extack, rths_comedi_where(rq, ch, type, dflt), msg)

static void rths_comedi_get_cal(struct nlattr **ctb, int num, int den,
				int off, struct rths_comedi_cal *cal)
{
	if (ctb[num])
		cal->num = nla_get_s64(ctb[num]);
	if (ctb[den])
		cal->den = nla_get_u32(ctb[den]);
	if (ctb[off])
		cal->offset = nla_get_s64(ctb[off]);
}

static void rths_comedi_get_u32(struct nlattr **ctb, int type, u32 *dst)
{
	if (ctb[type])
		*dst = nla_get_u32(ctb[type]);
}

/* Applies the channel nests of @rq to @cfg; checks what needs no board. */
static int rths_comedi_parse_channels(struct rths_comedi_req *rq, u32 channels,
				      struct rths_comedi_cfg *cfg,
				      struct netlink_ext_ack *extack)
{
	struct nlattr *ctb[RTHS_COMEDI_CH_A_MAX + 1];
	struct rths_comedi_chcfg *c;
	struct nlattr *nest;
	int rem, err, type;
	u32 ch;

	if (!rq->tb[RTHS_COMEDI_A_CHANNELS])
		return 0;
	nla_for_each_nested(nest, rq->tb[RTHS_COMEDI_A_CHANNELS], rem) {
		err = nla_parse_nested(ctb, RTHS_COMEDI_CH_A_MAX, nest,
				       rths_comedi_chan_policy, extack);
		if (err)
			return err;
		if (!ctb[RTHS_COMEDI_CH_A_INDEX]) {
			NL_SET_ERR_MSG_ATTR(extack, nest,
					    "comedi channel without an index");
			NL_SET_ERR_ATTR_MISS(extack, nest, RTHS_COMEDI_CH_A_INDEX);
			return -EINVAL;
		}
		ch = nla_get_u32(ctb[RTHS_COMEDI_CH_A_INDEX]);
		if (ch >= channels) {
			NL_SET_ERR_MSG_ATTR(extack, ctb[RTHS_COMEDI_CH_A_INDEX],
					    "channel index beyond the device's channels");
			return -EINVAL;
		}
		if (rq->nest[ch]) {
			NL_SET_ERR_MSG_ATTR(extack, ctb[RTHS_COMEDI_CH_A_INDEX],
					    "channel given twice");
			return -EINVAL;
		}
		if (ctb[RTHS_COMEDI_CH_A_FORCE_NONE] &&
		    (ctb[RTHS_COMEDI_CH_A_FORCE_CHAN] ||
		     ctb[RTHS_COMEDI_CH_A_FORCE_RANGE])) {
			NL_SET_ERR_MSG_ATTR(extack, ctb[RTHS_COMEDI_CH_A_FORCE_NONE],
					    "no force input, yet a force channel or range");
			return -EINVAL;
		}
		rq->nest[ch] = nest;
		for (type = 0; type <= RTHS_COMEDI_CH_A_MAX; type++)
			if (ctb[type])
				rq->given[ch] |= BIT(type);

		c = &cfg->ch[ch];
		rths_comedi_get_u32(ctb, RTHS_COMEDI_CH_A_AO_CHAN, &c->ao_chan);
		rths_comedi_get_u32(ctb, RTHS_COMEDI_CH_A_AO_RANGE, &c->ao_range);
		rths_comedi_get_u32(ctb, RTHS_COMEDI_CH_A_DISP_CHAN,
				    &c->disp_chan);
		rths_comedi_get_u32(ctb, RTHS_COMEDI_CH_A_DISP_RANGE,
				    &c->disp_range);
		if (ctb[RTHS_COMEDI_CH_A_FORCE_CHAN])
			c->has_force = true;
		if (ctb[RTHS_COMEDI_CH_A_FORCE_NONE])
			c->has_force = false;
		rths_comedi_get_u32(ctb, RTHS_COMEDI_CH_A_FORCE_CHAN,
				    &c->force_chan);
		rths_comedi_get_u32(ctb, RTHS_COMEDI_CH_A_FORCE_RANGE,
				    &c->force_range);
		rths_comedi_get_u32(ctb, RTHS_COMEDI_CH_A_AREF, &c->aref);
		rths_comedi_get_cal(ctb, RTHS_COMEDI_CH_A_AO_NUM,
				    RTHS_COMEDI_CH_A_AO_DEN,
				    RTHS_COMEDI_CH_A_AO_OFFSET, &c->ao);
		rths_comedi_get_cal(ctb, RTHS_COMEDI_CH_A_DISP_NUM,
				    RTHS_COMEDI_CH_A_DISP_DEN,
				    RTHS_COMEDI_CH_A_DISP_OFFSET, &c->disp);
		rths_comedi_get_cal(ctb, RTHS_COMEDI_CH_A_FORCE_NUM,
				    RTHS_COMEDI_CH_A_FORCE_DEN,
				    RTHS_COMEDI_CH_A_FORCE_OFFSET, &c->force);
	}
	return 0;
}

static void rths_comedi_parse_top(struct nlattr **tb,
				  struct rths_comedi_cfg *cfg)
{
	rths_comedi_get_u32(tb, RTHS_COMEDI_A_MINOR, &cfg->minor);
	rths_comedi_get_u32(tb, RTHS_COMEDI_A_AO_SUBDEV, &cfg->ao_subdev);
	rths_comedi_get_u32(tb, RTHS_COMEDI_A_AI_SUBDEV, &cfg->ai_subdev);
}

/* The default offset: mid-scale. */
static s64 rths_comedi_mid(u32 maxdata)
{
	return ((u64)maxdata + 1) / 2;
}

/*
 * The subdevice of @type that *@idx names; with @dflt, the board's first
 * of that type (stored in *@idx).  Caller holds dev->mutex.
 */
static struct comedi_subdevice *
rths_comedi_pick(struct comedi_device *dev, int type, bool dflt, u32 *idx,
		 const struct nlattr *where, const char *none,
		 const char *wrong, struct netlink_ext_ack *extack)
{
	int r;

	if (dflt) {
		r = comedi_find_subdevice_by_type(dev, type, 0);
		if (r < 0) {
			rths_comedi_errmsg(extack, where, none);
			return NULL;
		}
		*idx = r;
	}
	if (*idx >= dev->n_subdevices || dev->subdevices[*idx].type != type) {
		rths_comedi_errmsg(extack, where, wrong);
		return NULL;
	}
	return &dev->subdevices[*idx];
}

/* One signal of a channel (AO, displacement, force): what to check. */
struct rths_comedi_sig {
	int chan_attr, range_attr, num_attr;
	s64 bound;		/* |reading| limit; 0: an output */
	const char *chan_msg, *range_msg, *zero_msg, *bound_msg;
};

static const struct rths_comedi_sig rths_comedi_sig_ao = {
	RTHS_COMEDI_CH_A_AO_CHAN, RTHS_COMEDI_CH_A_AO_RANGE,
	RTHS_COMEDI_CH_A_AO_NUM, 0,
	"AO channel beyond the AO subdevice's channels (default: the rths channel's index)",
	"AO range beyond the channel's range table",
	"AO scale must not be zero", NULL,
};

static const struct rths_comedi_sig rths_comedi_sig_disp = {
	RTHS_COMEDI_CH_A_DISP_CHAN, RTHS_COMEDI_CH_A_DISP_RANGE,
	RTHS_COMEDI_CH_A_DISP_NUM, RTHS_POS_MAX,
	"displacement AI channel beyond the AI subdevice's channels (default: the rths channel's index)",
	"displacement AI range beyond the channel's range table",
	"displacement scale must not be zero",
	"displacement calibration reads counts beyond +-RTHS_POS_MAX",
};

static const struct rths_comedi_sig rths_comedi_sig_force = {
	RTHS_COMEDI_CH_A_FORCE_CHAN, RTHS_COMEDI_CH_A_FORCE_RANGE,
	RTHS_COMEDI_CH_A_FORCE_NUM, RTHS_FORCE_MAX,
	"force AI channel beyond the AI subdevice's channels",
	"force AI range beyond the channel's range table",
	"force scale must not be zero",
	"force calibration reads counts beyond +-RTHS_FORCE_MAX",
};

/* Channel @ch's signal @sg: does its channel and range exist on @s? */
static int rths_comedi_check_io(const struct rths_comedi_req *rq, u32 ch,
				const struct rths_comedi_sig *sg,
				const struct comedi_subdevice *s, u32 chan,
				u32 range, const struct nlattr *dflt,
				struct netlink_ext_ack *extack)
{
	if (chan >= s->n_chan) {
		RTHS_COMEDI_ERR(extack, rq, ch, sg->chan_attr, dflt,
				sg->chan_msg);
		return -EINVAL;
	}
	if (!rths_comedi_range_ok(s, chan, range)) {
		RTHS_COMEDI_ERR(extack, rq, ch, sg->range_attr, dflt,
				sg->range_msg);
		return -EINVAL;
	}
	return 0;
}

/*
 * Channel @ch's signal @sg: a scale, and readings of the counts
 * 0..@maxdata within the bound.  A reading is linear in the count, so
 * the two ends bound it.
 */
static int rths_comedi_check_cal(const struct rths_comedi_req *rq, u32 ch,
				 const struct rths_comedi_sig *sg,
				 const struct rths_comedi_cal *cal, u32 maxdata,
				 const struct nlattr *dflt,
				 struct netlink_ext_ack *extack)
{
	s64 lo, hi;

	if (!cal->num) {
		RTHS_COMEDI_ERR(extack, rq, ch, sg->num_attr, dflt,
				sg->zero_msg);
		return -EINVAL;
	}
	if (!sg->bound)
		return 0;
	lo = rths_comedi_from_counts(cal, 0);
	hi = rths_comedi_from_counts(cal, maxdata);
	if (lo < -sg->bound || lo > sg->bound || hi < -sg->bound ||
	    hi > sg->bound) {
		RTHS_COMEDI_ERR(extack, rq, ch, sg->num_attr, dflt,
				sg->bound_msg);
		return -EINVAL;
	}
	return 0;
}

/* Defaults of channel @ch that depend on the board. */
static void rths_comedi_chan_defaults(const struct rths_comedi_req *rq,
				      u32 ch, bool creating,
				      const struct comedi_subdevice *ai,
				      const struct rths_comedi_hw *hw,
				      struct rths_comedi_chcfg *c)
{
	u32 given = rq->given[ch];

	if (creating) {
		if (!(given & BIT(RTHS_COMEDI_CH_A_AREF)))
			c->aref = rths_comedi_default_aref(ai);
		if (!(given & BIT(RTHS_COMEDI_CH_A_AO_OFFSET)))
			c->ao.offset = rths_comedi_mid(hw->ao_maxdata[ch]);
		if (!(given & BIT(RTHS_COMEDI_CH_A_DISP_OFFSET)))
			c->disp.offset = rths_comedi_mid(hw->disp_maxdata[ch]);
	}
	/* a force input new to the channel starts at mid-scale too */
	if (!(rq->had_force & BIT(ch)) &&
	    !(given & BIT(RTHS_COMEDI_CH_A_FORCE_OFFSET)))
		c->force.offset = rths_comedi_mid(hw->force_maxdata[ch]);
}

/*
 * Fills in the defaults that depend on the board (at creation), then
 * checks @cfg against it: subdevice types, channels, ranges, analog
 * references, calibrations.  Records the channels' maxdata in @hw.
 */
static int rths_comedi_check(struct rths_comedi_req *rq, u32 channels,
			     struct rths_comedi_cfg *cfg,
			     struct rths_comedi_hw *hw, bool creating,
			     struct netlink_ext_ack *extack)
{
	struct nlattr **tb = rq->tb;
	struct nlattr *chans = tb[RTHS_COMEDI_A_CHANNELS];
	struct comedi_device *dev = hw->dev;
	struct comedi_subdevice *ao, *ai;
	u32 ch, other;
	int err = -EINVAL;

	mutex_lock(&dev->mutex);
	if (!rths_comedi_attached(hw)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RTHS_COMEDI_A_MINOR],
				    "the comedi device was detached");
		err = -ENODEV;
		goto out;
	}
	ao = rths_comedi_pick(dev, COMEDI_SUBD_AO,
			      creating && !tb[RTHS_COMEDI_A_AO_SUBDEV],
			      &cfg->ao_subdev, tb[RTHS_COMEDI_A_AO_SUBDEV] ?:
			      tb[RTHS_COMEDI_A_MINOR],
			      "the comedi device has no analog output subdevice",
			      "not an analog output subdevice of the comedi device",
			      extack);
	ai = ao ? rths_comedi_pick(dev, COMEDI_SUBD_AI,
				   creating && !tb[RTHS_COMEDI_A_AI_SUBDEV],
				   &cfg->ai_subdev, tb[RTHS_COMEDI_A_AI_SUBDEV] ?:
				   tb[RTHS_COMEDI_A_MINOR],
				   "the comedi device has no analog input subdevice",
				   "not an analog input subdevice of the comedi device",
				   extack) : NULL;
	if (!ai)
		goto out;
	hw->ao_aref = rths_comedi_default_aref(ao);

	for (ch = 0; ch < channels; ch++) {
		struct rths_comedi_chcfg *c = &cfg->ch[ch];

		err = rths_comedi_check_io(rq, ch, &rths_comedi_sig_ao, ao,
					   c->ao_chan, c->ao_range, chans,
					   extack) ?:
		      rths_comedi_check_io(rq, ch, &rths_comedi_sig_disp, ai,
					   c->disp_chan, c->disp_range, chans,
					   extack);
		if (!err && c->has_force)
			err = rths_comedi_check_io(rq, ch,
						   &rths_comedi_sig_force, ai,
						   c->force_chan,
						   c->force_range, chans,
						   extack);
		if (err)
			goto out;
		hw->ao_maxdata[ch] = rths_comedi_maxdata(ao, c->ao_chan);
		hw->disp_maxdata[ch] = rths_comedi_maxdata(ai, c->disp_chan);
		hw->force_maxdata[ch] = c->has_force ?
			rths_comedi_maxdata(ai, c->force_chan) : 0;
		rths_comedi_chan_defaults(rq, ch, creating, ai, hw, c);
		err = rths_comedi_check_cal(rq, ch, &rths_comedi_sig_ao,
					    &c->ao, hw->ao_maxdata[ch], chans,
					    extack) ?:
		      rths_comedi_check_cal(rq, ch, &rths_comedi_sig_disp,
					    &c->disp, hw->disp_maxdata[ch],
					    chans, extack);
		if (!err && c->has_force)
			err = rths_comedi_check_cal(rq, ch,
						    &rths_comedi_sig_force,
						    &c->force,
						    hw->force_maxdata[ch],
						    chans, extack);
		if (err)
			goto out;
		err = -EINVAL;
		for (other = 0; other < ch; other++) {
			if (cfg->ch[other].ao_chan == c->ao_chan) {
				RTHS_COMEDI_ERR(extack, rq, ch,
						RTHS_COMEDI_CH_A_AO_CHAN, chans,
						"AO channel already driven by another rths channel");
				goto out;
			}
		}
		if (!(ai->subdev_flags & (SDF_GROUND << c->aref)) &&
		    (ai->subdev_flags & (SDF_GROUND | SDF_COMMON | SDF_DIFF |
					 SDF_OTHER))) {
			RTHS_COMEDI_ERR(extack, rq, ch, RTHS_COMEDI_CH_A_AREF,
					chans,
					"the AI subdevice does not support this analog reference");
			goto out;
		}
	}
	err = 0;
out:
	mutex_unlock(&dev->mutex);
	return err;
}

static void rths_comedi_default(struct rths_comedi_cfg *cfg)
{
	static const struct rths_comedi_cal unit = { .num = 1, .den = 1 };
	unsigned int ch;

	memset(cfg, 0, sizeof(*cfg));
	for (ch = 0; ch < RTHS_MAX_CHANNELS; ch++) {
		cfg->ch[ch].ao_chan = ch;
		cfg->ch[ch].disp_chan = ch;
		cfg->ch[ch].ao = unit;
		cfg->ch[ch].disp = unit;
		cfg->ch[ch].force = unit;
	}
}

/*
 * Parses @tb over @cfg (defaults or the current values), opens the board
 * if @cur is NULL or names another one, and checks everything; on success
 * @hw holds the board to use.  Changes nothing else.
 */
static int rths_comedi_configure(struct rths_device *rd, struct nlattr **tb,
				 const struct rths_comedi *cur,
				 struct rths_comedi_cfg *cfg,
				 struct rths_comedi_hw *hw,
				 struct netlink_ext_ack *extack)
{
	struct rths_comedi_req *rq;
	u32 channels = rths_card_channels(rd);
	bool creating = !cur, opened = false;
	int err;
	u32 ch;

	rq = kzalloc(sizeof(*rq), GFP_KERNEL);
	if (!rq)
		return -ENOMEM;
	rq->tb = tb;
	for (ch = 0; cur && ch < channels; ch++)
		if (cur->cfg.ch[ch].has_force)
			rq->had_force |= BIT(ch);
	rths_comedi_parse_top(tb, cfg);
	err = rths_comedi_parse_channels(rq, channels, cfg, extack);
	if (err)
		goto out;
	if (creating || cfg->minor != cur->cfg.minor) {
		err = rths_comedi_open(cfg->minor, hw, tb[RTHS_COMEDI_A_MINOR],
				       extack);
		if (err)
			goto out;
		opened = true;
	} else {
		*hw = cur->hw;
	}
	err = rths_comedi_check(rq, channels, cfg, hw, creating, extack);
	if (err && opened)
		rths_comedi_close(hw);
out:
	kfree(rq);
	return err;
}

static int rths_comedi_new(struct rths_device *rd, struct nlattr **tb,
			   struct netlink_ext_ack *extack)
{
	struct rths_comedi *cd;
	int err;

	if (!tb[RTHS_COMEDI_A_MINOR]) {
		/* no NL_SET_ERR_ATTR_MISS: the params nest is not at hand */
		NL_SET_ERR_MSG(extack,
			       "missing attribute: the comedi minor (/dev/comediN)");
		return -EINVAL;
	}
	cd = kzalloc(sizeof(*cd), GFP_KERNEL);
	if (!cd)
		return -ENOMEM;
	cd->channels = rths_card_channels(rd);
	rths_comedi_default(&cd->cfg);
	err = rths_comedi_configure(rd, tb, NULL, &cd->cfg, &cd->hw, extack);
	if (err) {
		kfree(cd);
		return err;
	}
	rths_set_card_priv(rd, cd);
	return 0;
}

static void rths_comedi_del(struct rths_device *rd)
{
	struct rths_comedi *cd = rths_card_priv(rd);

	rths_comedi_close(&cd->hw);
	kfree(cd);
	rths_set_card_priv(rd, NULL);
}

/* The device is stopped: no tick runs while the board may change. */
static int rths_comedi_set(struct rths_device *rd, struct nlattr **tb,
			   struct netlink_ext_ack *extack)
{
	struct rths_comedi *cd = rths_card_priv(rd);
	struct rths_comedi_cfg *cfg;
	struct rths_comedi_hw hw = {};
	int err;

	cfg = kmemdup(&cd->cfg, sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	err = rths_comedi_configure(rd, tb, cd, cfg, &hw, extack);
	if (!err) {
		if (hw.dev != cd->hw.dev)
			rths_comedi_close(&cd->hw);
		cd->hw = hw;
		cd->cfg = *cfg;
	}
	kfree(cfg);
	return err;
}

static bool rths_comedi_cal_eq(const struct rths_comedi_cal *a,
			       const struct rths_comedi_cal *b)
{
	return a->num == b->num && a->den == b->den && a->offset == b->offset;
}

static int rths_comedi_put_cal(struct sk_buff *skb, int num, int den, int off,
			       const struct rths_comedi_cal *cal)
{
	return nla_put_s64(skb, num, cal->num, RTHS_COMEDI_CH_A_PAD) ||
	       nla_put_u32(skb, den, cal->den) ||
	       nla_put_s64(skb, off, cal->offset, RTHS_COMEDI_CH_A_PAD);
}

static int rths_comedi_fill_chan(struct sk_buff *skb,
				 const struct rths_comedi *cd, u32 ch)
{
	const struct rths_comedi_chcfg *c = &cd->cfg.ch[ch];
	const struct rths_comedi_hw *hw = &cd->hw;
	struct nlattr *nest = nla_nest_start(skb, RTHS_COMEDI_A_CHANNEL);

	if (!nest ||
	    nla_put_u32(skb, RTHS_COMEDI_CH_A_INDEX, ch) ||
	    nla_put_u32(skb, RTHS_COMEDI_CH_A_AO_CHAN, c->ao_chan) ||
	    nla_put_u32(skb, RTHS_COMEDI_CH_A_AO_RANGE, c->ao_range) ||
	    nla_put_u32(skb, RTHS_COMEDI_CH_A_DISP_CHAN, c->disp_chan) ||
	    nla_put_u32(skb, RTHS_COMEDI_CH_A_DISP_RANGE, c->disp_range) ||
	    nla_put_u32(skb, RTHS_COMEDI_CH_A_AREF, c->aref) ||
	    rths_comedi_put_cal(skb, RTHS_COMEDI_CH_A_DISP_NUM,
				RTHS_COMEDI_CH_A_DISP_DEN,
				RTHS_COMEDI_CH_A_DISP_OFFSET, &c->disp) ||
	    (!rths_comedi_cal_eq(&c->ao, &c->disp) &&
	     rths_comedi_put_cal(skb, RTHS_COMEDI_CH_A_AO_NUM,
				 RTHS_COMEDI_CH_A_AO_DEN,
				 RTHS_COMEDI_CH_A_AO_OFFSET, &c->ao)) ||
	    nla_put_u32(skb, RTHS_COMEDI_CH_A_AO_MAXDATA, hw->ao_maxdata[ch]) ||
	    nla_put_u32(skb, RTHS_COMEDI_CH_A_DISP_MAXDATA,
			hw->disp_maxdata[ch]) ||
	    nla_put_u64_64bit(skb, RTHS_COMEDI_CH_A_CLAMPS,
			      READ_ONCE(cd->clamps[ch]), RTHS_COMEDI_CH_A_PAD))
		return -EMSGSIZE;
	if (c->has_force &&
	    (nla_put_u32(skb, RTHS_COMEDI_CH_A_FORCE_CHAN, c->force_chan) ||
	     nla_put_u32(skb, RTHS_COMEDI_CH_A_FORCE_RANGE, c->force_range) ||
	     rths_comedi_put_cal(skb, RTHS_COMEDI_CH_A_FORCE_NUM,
				 RTHS_COMEDI_CH_A_FORCE_DEN,
				 RTHS_COMEDI_CH_A_FORCE_OFFSET, &c->force) ||
	     nla_put_u32(skb, RTHS_COMEDI_CH_A_FORCE_MAXDATA,
			 hw->force_maxdata[ch])))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int rths_comedi_fill(struct rths_device *rd, struct sk_buff *skb)
{
	const struct rths_comedi *cd = rths_card_priv(rd);
	struct nlattr *nest;
	u32 ch;

	if (nla_put_u32(skb, RTHS_COMEDI_A_MINOR, cd->cfg.minor) ||
	    nla_put_u32(skb, RTHS_COMEDI_A_AO_SUBDEV, cd->cfg.ao_subdev) ||
	    nla_put_u32(skb, RTHS_COMEDI_A_AI_SUBDEV, cd->cfg.ai_subdev) ||
	    nla_put_string(skb, RTHS_COMEDI_A_BOARD, cd->hw.board) ||
	    nla_put_string(skb, RTHS_COMEDI_A_DRIVER, cd->hw.driver))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, RTHS_COMEDI_A_CHANNELS);
	if (!nest)
		return -EMSGSIZE;
	for (ch = 0; ch < cd->channels; ch++)
		if (rths_comedi_fill_chan(skb, cd, ch))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* ---- I/O ------------------------------------------------------------------ */

/*
 * One single-sample instruction, as parse_insn() runs it; caller holds
 * dev->mutex and has checked that the board is still attached.
 */
static int rths_comedi_insn(struct comedi_device *dev,
			    struct comedi_subdevice *s, unsigned int type,
			    unsigned int chanspec, unsigned int *val)
{
	unsigned int data[RTHS_COMEDI_DATA] = { *val };
	struct comedi_insn insn = {
		.insn = type,
		.n = 1,
		.subdev = s->index,
		.chanspec = chanspec,
	};
	int ret;

	if (s->lock)
		return -EACCES;		/* COMEDI_LOCK by someone else */
	if (s->busy)
		return -EBUSY;		/* a command is running */
	s->busy = rths_comedi_insn;
	if (type == INSN_WRITE)
		ret = s->insn_write(dev, s, &insn, data);
	else
		ret = s->insn_read(dev, s, &insn, data);
	s->busy = NULL;
	if (ret < 0)
		return ret;
	if (ret != 1)
		return -EIO;
	*val = data[0];
	return 0;
}

static int rths_comedi_write(struct rths_device *rd, const s64 *out)
{
	struct rths_comedi *cd = rths_card_priv(rd);
	struct comedi_device *dev = cd->hw.dev;
	unsigned int counts[RTHS_MAX_CHANNELS];
	struct comedi_subdevice *s;
	bool clamped;
	int err = 0;
	u32 ch;

	for (ch = 0; ch < cd->channels; ch++) {
		counts[ch] = rths_comedi_to_counts(&cd->cfg.ch[ch].ao,
						   cd->hw.ao_maxdata[ch], out[ch],
						   &clamped);
		if (clamped)
			WRITE_ONCE(cd->clamps[ch], cd->clamps[ch] + 1);
	}
	mutex_lock(&dev->mutex);
	if (!rths_comedi_attached(&cd->hw)) {
		err = -ENODEV;
		goto out;
	}
	s = &dev->subdevices[cd->cfg.ao_subdev];
	for (ch = 0; ch < cd->channels && !err; ch++) {
		const struct rths_comedi_chcfg *c = &cd->cfg.ch[ch];

		err = rths_comedi_insn(dev, s, INSN_WRITE,
				       CR_PACK(c->ao_chan, c->ao_range,
					       cd->hw.ao_aref), &counts[ch]);
	}
out:
	mutex_unlock(&dev->mutex);
	return err;
}

static int rths_comedi_read(struct rths_device *rd, s64 *disp, s64 *force)
{
	struct rths_comedi *cd = rths_card_priv(rd);
	struct comedi_device *dev = cd->hw.dev;
	struct comedi_subdevice *s;
	unsigned int v;
	int err = 0;
	u32 ch;

	mutex_lock(&dev->mutex);
	if (!rths_comedi_attached(&cd->hw)) {
		err = -ENODEV;
		goto out;
	}
	s = &dev->subdevices[cd->cfg.ai_subdev];
	for (ch = 0; ch < cd->channels && !err; ch++) {
		const struct rths_comedi_chcfg *c = &cd->cfg.ch[ch];

		v = 0;
		err = rths_comedi_insn(dev, s, INSN_READ,
				       CR_PACK(c->disp_chan, c->disp_range,
					       c->aref), &v);
		if (err)
			break;
		disp[ch] = rths_comedi_from_counts(&c->disp, v);
		force[ch] = 0;
		if (!c->has_force)
			continue;
		v = 0;
		err = rths_comedi_insn(dev, s, INSN_READ,
				       CR_PACK(c->force_chan, c->force_range,
					       c->aref), &v);
		if (!err)
			force[ch] = rths_comedi_from_counts(&c->force, v);
	}
out:
	mutex_unlock(&dev->mutex);
	return err;
}

/* The actuators are where the displacement inputs say: start there. */
static int rths_comedi_home(struct rths_device *rd, s64 *pos)
{
	s64 force[RTHS_MAX_CHANNELS];

	return rths_comedi_read(rd, pos, force);
}

static struct rths_card_type rths_comedi_type = {
	.name = "comedi",
	.owner = THIS_MODULE,
	.policy = rths_comedi_policy,
	.maxattr = RTHS_COMEDI_A_MAX,
	.io_may_sleep = true,
	.new = rths_comedi_new,
	.del = rths_comedi_del,
	.set = rths_comedi_set,
	.fill = rths_comedi_fill,
	.home = rths_comedi_home,
	.write = rths_comedi_write,
	.read = rths_comedi_read,
};

module_rths_card(rths_comedi_type);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rths comedi card: DAQ boards through kcomedilib");
MODULE_AUTHOR("rths developers");
MODULE_ALIAS("rths-card-comedi");
