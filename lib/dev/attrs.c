// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Encoding requests (device configuration, sim parameters, limits) and
 * decoding the DEV_GET reply, including its nests.  Values are converted
 * between SI doubles and kernel units here, so that a value that does not
 * fit is reported by its name before anything is sent.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <rths/sim_plant.h>

#include "dev/internal.h"

struct nlmsghdr *rths_msg_init(void *buf, size_t size, uint16_t family,
			       uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;

	if (size < MNL_NLMSG_HDRLEN + GENL_HDRLEN)
		return NULL;
	memset(buf, 0, MNL_NLMSG_HDRLEN + GENL_HDRLEN);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = RTHS_GENL_VERSION;
	return nlh;
}

static int too_big(struct rths_msgbuf *mb)
{
	return rths_err_set(mb->err, -EMSGSIZE, "request too large");
}

int rths_put_u32(struct rths_msgbuf *mb, uint16_t type, uint32_t v)
{
	return mnl_attr_put_u32_check(mb->nlh, mb->size, type, v) ?
	       0 : too_big(mb);
}

static int put_u64(struct rths_msgbuf *mb, uint16_t type, uint64_t v)
{
	return mnl_attr_put_u64_check(mb->nlh, mb->size, type, v) ?
	       0 : too_big(mb);
}

static struct nlattr *nest_start(struct rths_msgbuf *mb, uint16_t type)
{
	struct nlattr *n = mnl_attr_nest_start_check(mb->nlh, mb->size, type);

	/* Strict kernel validation insists on the flag; libmnl 1.0.4 sets
	 * it, older versions do not. */
	if (n)
		n->nla_type |= NLA_F_NESTED;
	return n;
}

int rths_put_u64(struct rths_msgbuf *mb, uint16_t type, uint64_t v)
{
	return put_u64(mb, type, v);
}

struct nlattr *rths_nest_start(struct rths_msgbuf *mb, uint16_t type)
{
	return nest_start(mb, type);
}

int rths_put_name(struct rths_msgbuf *mb, uint16_t type, const char *field,
		  const char *name)
{
	size_t i, n = name ? strlen(name) : 0;

	mb->err->attr = type;
	if (!n || n >= RTHS_NAME_LEN)
		return rths_err_set(mb->err, -EINVAL,
				    "%s: must be 1 to %d characters", field,
				    RTHS_NAME_LEN - 1);
	/* The name becomes a path under /dev/rths: never let '/' or '.'
	 * through, whatever the kernel would say. */
	for (i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return rths_err_set(mb->err, -EINVAL,
					    "%s: \"%s\" may only hold letters, digits, '_' and '-'",
					    field, name);
	}
	mb->err->attr = 0;
	return mnl_attr_put_strz_check(mb->nlh, mb->size, type, name) ?
	       0 : too_big(mb);
}

/* round(v * scale) into [lo, hi] as a u64 attribute of the message. */
static int put_si(struct rths_msgbuf *mb, uint16_t type, bool u32,
		  const char *field, double v, double scale, int64_t lo,
		  int64_t hi, const char *unit)
{
	int64_t k;

	if (!isfinite(v)) {
		mb->err->attr = type;
		return rths_err_set(mb->err, -ERANGE,
				    "%s: not a finite number", field);
	}
	if (rths_si_to_int(v, scale, lo, hi, &k)) {
		mb->err->attr = type;
		return rths_err_set(mb->err, -ERANGE,
				    "%s: %g is out of range (%g to %g %s)",
				    field, v, (double)lo / scale,
				    (double)hi / scale, unit);
	}
	return u32 ? rths_put_u32(mb, type, (uint32_t)k) :
		     put_u64(mb, type, (uint64_t)k);
}

/* The plant as the card takes it, checked as the card checks it. */
static int put_plant(struct rths_msgbuf *mb, const struct rths_sim_params *sim)
{
	struct rths_error e;
	int ret = rths_sim_plant_check(sim, &e);

	if (ret) {
		mb->err->attr = RTHS_SIM_A_PLANT;
		return rths_err_set(mb->err, ret, "%s: %s", e.path, e.msg);
	}
	return mnl_attr_put_check(mb->nlh, mb->size, RTHS_SIM_A_PLANT,
				  sim->plant_sections *
				  sizeof(struct rths_sim_section),
				  sim->plant) ? 0 : too_big(mb);
}

int rths_put_sim(struct rths_msgbuf *mb, const struct rths_sim_params *sim)
{
	struct nlattr *nest = nest_start(mb, RTHS_A_DEV_CARD_PARAMS);
	int ret = 0;

	if (!nest)
		return too_big(mb);
	if (!ret && (sim->set & RTHS_SIM_LAG))
		ret = put_si(mb, RTHS_SIM_A_LAG_US, true, "lag", sim->lag, 1e6,
			     0, RTHS_SIM_LAG_US_MAX, "s");
	if (!ret && (sim->set & RTHS_SIM_DELAY))
		ret = rths_put_u32(mb, RTHS_SIM_A_DELAY_TICKS,
				   sim->delay_ticks);
	if (!ret && (sim->set & RTHS_SIM_STIFFNESS))
		ret = put_si(mb, RTHS_SIM_A_STIFFNESS, false, "stiffness",
			     sim->stiffness, 1, 0, RTHS_SIM_STIFFNESS_MAX,
			     "N/m");
	if (!ret && (sim->set & RTHS_SIM_DAMPING))
		ret = put_si(mb, RTHS_SIM_A_DAMPING, false, "damping",
			     sim->damping, 1, 0, RTHS_SIM_DAMPING_MAX,
			     "N*s/m");
	if (!ret && (sim->set & RTHS_SIM_NOISE_DISP))
		ret = put_si(mb, RTHS_SIM_A_NOISE_DISP, true, "noise-disp",
			     sim->noise_disp, 1e9, 0, UINT32_MAX, "m");
	if (!ret && (sim->set & RTHS_SIM_NOISE_FORCE))
		ret = put_si(mb, RTHS_SIM_A_NOISE_FORCE, true, "noise-force",
			     sim->noise_force, 1e6, 0, UINT32_MAX, "N");
	if (!ret && (sim->set & RTHS_SIM_SEED))
		ret = put_u64(mb, RTHS_SIM_A_SEED, sim->seed);
	if (!ret && (sim->set & RTHS_SIM_SPRING_STIFFNESS))
		ret = put_si(mb, RTHS_SIM_A_SPRING_STIFFNESS, false,
			     "spring-stiffness", sim->spring_stiffness, 1, 0,
			     RTHS_SIM_STIFFNESS_MAX, "N/m");
	if (!ret && (sim->set & RTHS_SIM_YIELD_FORCE))
		ret = put_si(mb, RTHS_SIM_A_YIELD_FORCE, false, "yield-force",
			     sim->yield_force, 1e6, 0, RTHS_FORCE_MAX, "N");
	if (!ret && (sim->set & RTHS_SIM_POST_STIFFNESS))
		ret = put_si(mb, RTHS_SIM_A_POST_STIFFNESS, false,
			     "post-stiffness", sim->post_stiffness, 1, 0,
			     RTHS_SIM_STIFFNESS_MAX, "N/m");
	if (!ret && (sim->set & RTHS_SIM_PLANT))
		ret = put_plant(mb, sim);
	if (ret)
		return ret;
	mnl_attr_nest_end(mb->nlh, nest);
	return 0;
}

static const struct {
	unsigned int bit;
	uint16_t attr;
	const char *name;
	size_t off;
	double scale;
	int64_t lo, hi;
	const char *unit;
} limit_fields[] = {
#define F(bit, attr, name, field, scale, lo, hi, unit) \
	{ bit, attr, name, offsetof(struct rths_limits, field), scale, lo, hi, unit }
	F(RTHS_LIM_POS_MIN, RTHS_LIMIT_A_POS_MIN, "pos-min", pos_min, 1e9,
	  -RTHS_POS_MAX, RTHS_POS_MAX, "m"),
	F(RTHS_LIM_POS_MAX, RTHS_LIMIT_A_POS_MAX, "pos-max", pos_max, 1e9,
	  -RTHS_POS_MAX, RTHS_POS_MAX, "m"),
	F(RTHS_LIM_FORCE_MAX, RTHS_LIMIT_A_FORCE_MAX, "force-max", force_max,
	  1e6, 0, RTHS_FORCE_MAX, "N"),
#undef F
};

static int put_limit(struct rths_msgbuf *mb, unsigned int ch,
		     const struct rths_limits *l)
{
	unsigned int i, set = l->set ? l->set : RTHS_LIM_ALL;
	struct nlattr *nest = nest_start(mb, RTHS_A_LIMIT_CHANNEL);
	char field[32];
	int ret;

	if (!nest)
		return too_big(mb);
	ret = rths_put_u32(mb, RTHS_LIMIT_A_INDEX, ch);
	for (i = 0; !ret && i < sizeof(limit_fields) / sizeof(limit_fields[0]);
	     i++) {
		double v;

		if (!(set & limit_fields[i].bit))
			continue;
		memcpy(&v, (const char *)l + limit_fields[i].off, sizeof(v));
		snprintf(field, sizeof(field), "limit %u %s", ch,
			 limit_fields[i].name);
		ret = put_si(mb, limit_fields[i].attr, false, field, v,
			     limit_fields[i].scale, limit_fields[i].lo,
			     limit_fields[i].hi, limit_fields[i].unit);
	}
	/* The velocity limit is a full u64, beyond put_si()'s s64. */
	if (!ret && (set & RTHS_LIM_VEL_MAX)) {
		uint64_t nmps;

		if (rths_mps_to_nmps(l->vel_max, &nmps)) {
			mb->err->attr = RTHS_LIMIT_A_VEL_MAX;
			return rths_err_set(mb->err, -ERANGE,
					    "limit %u vel-max: %g is not a velocity limit (0 to %g m/s)",
					    ch, l->vel_max, 0x1p64 / 1e9);
		}
		ret = put_u64(mb, RTHS_LIMIT_A_VEL_MAX, nmps);
	}
	if (ret)
		return ret;
	mnl_attr_nest_end(mb->nlh, nest);
	return 0;
}

int rths_put_config(struct rths_msgbuf *mb, const struct rths_dev_config *cfg)
{
	static const struct {
		unsigned int bit;
		uint16_t attr;
		size_t off;
	} u32s[] = {
#define F(bit, attr, field) { bit, attr, offsetof(struct rths_dev_config, field) }
		F(RTHS_CFG_RATE, RTHS_A_DEV_RATE, rate_hz),
		F(RTHS_CFG_STEP_TICKS, RTHS_A_DEV_STEP_TICKS, step_ticks),
		F(RTHS_CFG_LATE_DEADLINE, RTHS_A_DEV_LATE_DEADLINE,
		  late_deadline),
		F(RTHS_CFG_RAMP_TICKS, RTHS_A_DEV_RAMP_TICKS, ramp_ticks),
		F(RTHS_CFG_CPU, RTHS_A_DEV_CPU, cpu),
		F(RTHS_CFG_PRIORITY, RTHS_A_DEV_PRIORITY, priority),
		F(RTHS_CFG_CMD_ENTRIES, RTHS_A_DEV_CMD_ENTRIES, cmd_entries),
		F(RTHS_CFG_FB_ENTRIES, RTHS_A_DEV_FB_ENTRIES, fb_entries),
		F(RTHS_CFG_TRACE_ENTRIES, RTHS_A_DEV_TRACE_ENTRIES,
		  trace_entries),
		F(RTHS_CFG_LAT_HIST_US, RTHS_A_DEV_LAT_HIST_US, lat_hist_us),
		F(RTHS_CFG_LAT_BREAK_US, RTHS_A_DEV_LAT_BREAK_US,
		  lat_break_us),
#undef F
	};
	unsigned int i;
	int ret = 0;

	if (cfg->set & RTHS_CFG_CLOCK)
		ret = rths_put_u32(mb, RTHS_A_DEV_CLOCK, cfg->clock);
	if (!ret && (cfg->set & RTHS_CFG_LATE_POLICY))
		ret = rths_put_u32(mb, RTHS_A_DEV_LATE_POLICY,
				   cfg->late_policy);
	for (i = 0; !ret && i < sizeof(u32s) / sizeof(u32s[0]); i++) {
		uint32_t v;

		if (!(cfg->set & u32s[i].bit))
			continue;
		memcpy(&v, (const char *)cfg + u32s[i].off, sizeof(v));
		ret = rths_put_u32(mb, u32s[i].attr, v);
	}
	if (!ret && (cfg->set & RTHS_CFG_LIMITS) && cfg->limits_set) {
		struct nlattr *nest = nest_start(mb, RTHS_A_DEV_LIMITS);

		if (!nest)
			return too_big(mb);
		for (i = 0; !ret && i < RTHS_MAX_CHANNELS; i++)
			if (cfg->limits_set & (1u << i))
				ret = put_limit(mb, i, &cfg->limits[i]);
		if (!ret)
			mnl_attr_nest_end(mb->nlh, nest);
	}
	return ret;
}

/* ---- DEV_GET reply ------------------------------------------------------ */

static int parse_sim(const struct nlattr *nest, struct rths_sim_params *sim)
{
	const struct nlattr *tb[RTHS_SIM_A_MAX + 1] = { NULL };
	int ret = rths_attr_parse_nest(nest, &rths_space_sim, tb);

	if (ret)
		return ret;
	memset(sim, 0, sizeof(*sim));
#define HAVE(attr, bit) (tb[attr] ? (sim->set |= (bit), 1) : 0)
	if (HAVE(RTHS_SIM_A_LAG_US, RTHS_SIM_LAG))
		sim->lag = rths_attr_u32(tb[RTHS_SIM_A_LAG_US]) / 1e6;
	if (HAVE(RTHS_SIM_A_DELAY_TICKS, RTHS_SIM_DELAY))
		sim->delay_ticks = rths_attr_u32(tb[RTHS_SIM_A_DELAY_TICKS]);
	if (HAVE(RTHS_SIM_A_STIFFNESS, RTHS_SIM_STIFFNESS))
		sim->stiffness = (double)rths_attr_u64(tb[RTHS_SIM_A_STIFFNESS]);
	if (HAVE(RTHS_SIM_A_DAMPING, RTHS_SIM_DAMPING))
		sim->damping = (double)rths_attr_u64(tb[RTHS_SIM_A_DAMPING]);
	if (HAVE(RTHS_SIM_A_NOISE_DISP, RTHS_SIM_NOISE_DISP))
		sim->noise_disp = rths_attr_u32(tb[RTHS_SIM_A_NOISE_DISP]) / 1e9;
	if (HAVE(RTHS_SIM_A_NOISE_FORCE, RTHS_SIM_NOISE_FORCE))
		sim->noise_force = rths_attr_u32(tb[RTHS_SIM_A_NOISE_FORCE]) / 1e6;
	if (HAVE(RTHS_SIM_A_SEED, RTHS_SIM_SEED))
		sim->seed = rths_attr_u64(tb[RTHS_SIM_A_SEED]);
	if (HAVE(RTHS_SIM_A_SPRING_STIFFNESS, RTHS_SIM_SPRING_STIFFNESS))
		sim->spring_stiffness =
			(double)rths_attr_u64(tb[RTHS_SIM_A_SPRING_STIFFNESS]);
	if (HAVE(RTHS_SIM_A_YIELD_FORCE, RTHS_SIM_YIELD_FORCE))
		sim->yield_force =
			rths_attr_u64(tb[RTHS_SIM_A_YIELD_FORCE]) / 1e6;
	if (HAVE(RTHS_SIM_A_POST_STIFFNESS, RTHS_SIM_POST_STIFFNESS))
		sim->post_stiffness =
			(double)rths_attr_u64(tb[RTHS_SIM_A_POST_STIFFNESS]);
	if (tb[RTHS_SIM_A_PLANT]) {
		size_t len = mnl_attr_get_payload_len(tb[RTHS_SIM_A_PLANT]);

		if (len % sizeof(struct rths_sim_section) ||
		    len > sizeof(sim->plant))
			return -EPROTO;
		sim->set |= RTHS_SIM_PLANT;
		sim->plant_sections =
			(uint32_t)(len / sizeof(struct rths_sim_section));
		memcpy(sim->plant, mnl_attr_get_payload(tb[RTHS_SIM_A_PLANT]),
		       len);
	}
#undef HAVE
	return 0;
}

static int parse_limits(const struct nlattr *nest,
			struct rths_limits limits[RTHS_MAX_CHANNELS])
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest) {
		const struct nlattr *tb[RTHS_LIMIT_A_MAX + 1] = { NULL };
		struct rths_limits *l;
		uint32_t ch;

		if (mnl_attr_get_type(a) != RTHS_A_LIMIT_CHANNEL)
			continue;
		if (rths_attr_parse_nest(a, &rths_space_limit, tb) ||
		    !tb[RTHS_LIMIT_A_INDEX])
			return -EPROTO;
		ch = rths_attr_u32(tb[RTHS_LIMIT_A_INDEX]);
		if (ch >= RTHS_MAX_CHANNELS)
			continue;
		l = &limits[ch];
		if (tb[RTHS_LIMIT_A_POS_MIN]) {
			l->pos_min = rths_nm_to_m((int64_t)rths_attr_u64(tb[RTHS_LIMIT_A_POS_MIN]));
			l->set |= RTHS_LIM_POS_MIN;
		}
		if (tb[RTHS_LIMIT_A_POS_MAX]) {
			l->pos_max = rths_nm_to_m((int64_t)rths_attr_u64(tb[RTHS_LIMIT_A_POS_MAX]));
			l->set |= RTHS_LIM_POS_MAX;
		}
		if (tb[RTHS_LIMIT_A_VEL_MAX]) {
			l->vel_max = (double)rths_attr_u64(tb[RTHS_LIMIT_A_VEL_MAX]) / 1e9;
			l->set |= RTHS_LIM_VEL_MAX;
		}
		if (tb[RTHS_LIMIT_A_FORCE_MAX]) {
			l->force_max = (double)rths_attr_u64(tb[RTHS_LIMIT_A_FORCE_MAX]) / 1e6;
			l->set |= RTHS_LIM_FORCE_MAX;
		}
	}
	return 0;
}

static int parse_rings(const struct nlattr *nest, struct rths_dev_info *info)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest) {
		const struct nlattr *tb[RTHS_RING_A_MAX + 1] = { NULL };
		struct rths_ring_info *ri;

		if (mnl_attr_get_type(a) != RTHS_A_RING)
			continue;
		if (rths_attr_parse_nest(a, &rths_space_ring, tb) ||
		    !tb[RTHS_RING_A_ID])
			return -EPROTO;
		switch (rths_attr_u32(tb[RTHS_RING_A_ID])) {
		case RTHS_RING_CMD:
			ri = &info->cmd;
			break;
		case RTHS_RING_FB:
			ri = &info->fb;
			break;
		case RTHS_RING_TRACE:
			ri = &info->trace;
			break;
		default:
			continue;
		}
		ri->entries = rths_attr_u32(tb[RTHS_RING_A_ENTRIES]);
		ri->entry_size = rths_attr_u32(tb[RTHS_RING_A_ENTRY_SIZE]);
		ri->producer = rths_attr_u64(tb[RTHS_RING_A_PRODUCER]);
		ri->consumer = rths_attr_u64(tb[RTHS_RING_A_CONSUMER]);
		ri->desc = rths_attr_u64(tb[RTHS_RING_A_DESC]);
	}
	return 0;
}

int rths_dev_info_parse(const struct nlmsghdr *nlh, struct rths_dev_reply *r)
{
	const struct nlattr *tb[RTHS_A_MAX + 1] = { NULL };
	struct rths_dev_info *info = &r->info;
	uint32_t dev;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = rths_attr_parse_msg(nlh, &rths_space_dev, tb);
	if (ret)
		return ret;
	if (!tb[RTHS_A_DEV_ID] || !tb[RTHS_A_DEV_NAME])
		return -EPROTO;
	info->id = rths_attr_u32(tb[RTHS_A_DEV_ID]);
	rths_attr_name_copy(info->name, tb[RTHS_A_DEV_NAME]);
	rths_attr_name_copy(info->card, tb[RTHS_A_DEV_CARD]);
	info->channels = rths_attr_u32(tb[RTHS_A_DEV_CHANNELS]);
	info->state = rths_attr_u32(tb[RTHS_A_DEV_STATE]);
	info->reason = rths_attr_u32(tb[RTHS_A_DEV_REASON]);
	info->fault = rths_attr_u32(tb[RTHS_A_DEV_FAULT]);
	info->clock = rths_attr_u32(tb[RTHS_A_DEV_CLOCK]);
	info->rate_hz = rths_attr_u32(tb[RTHS_A_DEV_RATE]);
	info->step_ticks = rths_attr_u32(tb[RTHS_A_DEV_STEP_TICKS]);
	info->late_policy = rths_attr_u32(tb[RTHS_A_DEV_LATE_POLICY]);
	info->late_deadline = rths_attr_u32(tb[RTHS_A_DEV_LATE_DEADLINE]);
	info->ramp_ticks = rths_attr_u32(tb[RTHS_A_DEV_RAMP_TICKS]);
	info->cpu = rths_attr_u32(tb[RTHS_A_DEV_CPU]);
	info->priority = rths_attr_u32(tb[RTHS_A_DEV_PRIORITY]);
	info->cmd_entries = rths_attr_u32(tb[RTHS_A_DEV_CMD_ENTRIES]);
	info->fb_entries = rths_attr_u32(tb[RTHS_A_DEV_FB_ENTRIES]);
	info->trace_entries = rths_attr_u32(tb[RTHS_A_DEV_TRACE_ENTRIES]);
	info->lat_hist_us = rths_attr_u32(tb[RTHS_A_DEV_LAT_HIST_US]);
	info->lat_break_us = rths_attr_u32(tb[RTHS_A_DEV_LAT_BREAK_US]);
	info->mmap_size = rths_attr_u64(tb[RTHS_A_DEV_MMAP_SIZE]);
	/* new_encode_dev() format */
	dev = rths_attr_u32(tb[RTHS_A_DEV_CHRDEV]);
	info->chrdev_major = (dev & 0xfff00) >> 8;
	info->chrdev_minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);
	info->io_may_sleep = tb[RTHS_A_DEV_IO_MAY_SLEEP] != NULL;
	info->owned = tb[RTHS_A_DEV_OWNED] != NULL;
	info->step = rths_attr_u64(tb[RTHS_A_DEV_STEP]);
	info->tick = rths_attr_u64(tb[RTHS_A_DEV_TICK]);
	if (tb[RTHS_A_DEV_POSITION]) {
		const struct nlattr *a = tb[RTHS_A_DEV_POSITION];
		uint32_t i, n = mnl_attr_get_payload_len(a) / sizeof(int64_t);

		if (mnl_attr_get_payload_len(a) % sizeof(int64_t) ||
		    n > RTHS_MAX_CHANNELS)
			return -EPROTO;
		memcpy(info->position_raw, mnl_attr_get_payload(a),
		       n * sizeof(int64_t));
		for (i = 0; i < n; i++)
			info->position[i] = rths_nm_to_m(info->position_raw[i]);
	}
	if (tb[RTHS_A_DEV_LIMITS] &&
	    parse_limits(tb[RTHS_A_DEV_LIMITS], info->limits))
		return -EPROTO;
	if (tb[RTHS_A_DEV_RINGS] && parse_rings(tb[RTHS_A_DEV_RINGS], info))
		return -EPROTO;
	if (tb[RTHS_A_DEV_CARD_PARAMS] && !strcmp(info->card, "sim") &&
	    parse_sim(tb[RTHS_A_DEV_CARD_PARAMS], &r->card.sim))
		return -EPROTO;
	if (tb[RTHS_A_DEV_CARD_PARAMS] && !strcmp(info->card, "comedi") &&
	    rths_comedi_parse(tb[RTHS_A_DEV_CARD_PARAMS], &r->card.comedi))
		return -EPROTO;
	return 0;
}
