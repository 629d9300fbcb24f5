// SPDX-License-Identifier: GPL-2.0
/*
 * The "sim" card: a deterministic plant in integer arithmetic, so that a
 * test can predict every sample to the count.  Per channel, each tick:
 *
 *   u_d    = the command written delay_ticks ticks ago
 *   y     += (u_d - y) * a,  a = dt / (tau + dt) in Q32, truncated toward 0
 *            (a first-order lag, backward Euler; tau = 0 gives y = u_d)
 *   v      = (y - y_prev) * rate                     nm/s
 *   F      = k * y / 1000 + c * v / 1000 + fs        uN (k N/m, c N*s/m)
 *   disp   = y + noise,  force = F + noise           uniform, seeded
 *
 * A plant (RTHS_SIM_A_PLANT) replaces the lag: u_d runs through a cascade
 * of second-order sections in fixed point (struct rths_sim_section), 128-bit
 * accumulators, rounding half up, saturation; y is its output in nm.
 *
 * fs is an optional bilinear spring with kinematic hardening: the elastic
 * trial ks * (y - yp) / 1000 is bounded by k2 * y / 1000 +- c0 with
 * c0 = fy - fy * k2 / ks; on a bound, yp = y - fs * 1000 / ks.
 *
 * Noise draws come from xorshift64* in channel order, displacement first,
 * and only for a non-zero width; Documentation/sim-card.rst has the exact
 * formulas.
 */
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include "../rths_card.h"

struct rths_sim_cfg {
	u32 lag_us;
	u32 delay_ticks;
	u64 stiffness;		/* N/m */
	u64 damping;		/* N*s/m */
	u32 noise_disp;		/* nm */
	u32 noise_force;	/* uN */
	u64 seed;
	u64 spring;		/* N/m, 0: no hysteretic spring */
	u64 yield;		/* uN */
	u64 post;		/* N/m */
	u32 sections;		/* 0: the lag */
	struct rths_sim_section plant[RTHS_SIM_SECTIONS_MAX];
};

struct rths_sim_chan {
	s64 y;			/* actuator position, nm */
	s64 force;		/* specimen force before noise, uN */
	s64 yp;			/* the spring's plastic offset, nm */
	u32 head;		/* delay line slot of the newest command */
	/* the plant's signals, Q16 nm: w[0] its input, w[i] section i's
	 * output; [0] the last tick's, [1] the one before
	 */
	s64 w[RTHS_SIM_SECTIONS_MAX + 1][2];
	s64 line[RTHS_SIM_DELAY_MAX + 1];
};

struct rths_sim {
	struct rths_sim_cfg cfg;
	u64 alpha;		/* Q32 lag coefficient for alpha_rate */
	s64 c0;			/* the spring's half band, uN */
	u32 alpha_rate;
	u64 rng;
	u32 channels;
	struct rths_sim_chan ch[];
};

static struct netlink_range_validation rths_sim_lag_range = {
	.max = RTHS_SIM_LAG_US_MAX,
};

static struct netlink_range_validation rths_sim_delay_range = {
	.max = RTHS_SIM_DELAY_MAX,
};

static struct netlink_range_validation rths_sim_coef_range = {
	.max = RTHS_SIM_STIFFNESS_MAX,
};

static struct netlink_range_validation rths_sim_force_range = {
	.max = RTHS_FORCE_MAX,
};

static const struct nla_policy rths_sim_policy[RTHS_SIM_A_MAX + 1] = {
	[RTHS_SIM_A_LAG_US] = NLA_POLICY_FULL_RANGE(NLA_U32,
						    &rths_sim_lag_range),
	[RTHS_SIM_A_DELAY_TICKS] = NLA_POLICY_FULL_RANGE(NLA_U32,
							 &rths_sim_delay_range),
	[RTHS_SIM_A_STIFFNESS] = NLA_POLICY_FULL_RANGE(NLA_U64,
						       &rths_sim_coef_range),
	[RTHS_SIM_A_DAMPING] = NLA_POLICY_FULL_RANGE(NLA_U64,
						     &rths_sim_coef_range),
	[RTHS_SIM_A_NOISE_DISP] = { .type = NLA_U32 },
	[RTHS_SIM_A_NOISE_FORCE] = { .type = NLA_U32 },
	[RTHS_SIM_A_SEED] = { .type = NLA_U64 },
	[RTHS_SIM_A_SPRING_STIFFNESS] = NLA_POLICY_FULL_RANGE(NLA_U64,
							      &rths_sim_coef_range),
	[RTHS_SIM_A_YIELD_FORCE] = NLA_POLICY_FULL_RANGE(NLA_U64,
							 &rths_sim_force_range),
	[RTHS_SIM_A_POST_STIFFNESS] = NLA_POLICY_FULL_RANGE(NLA_U64,
							    &rths_sim_coef_range),
	[RTHS_SIM_A_PLANT] = { .type = NLA_BINARY,
			       .len = RTHS_SIM_PLANT_LEN_MAX },
};

static u64 rths_sim_next(struct rths_sim *sim)
{
	u64 x = sim->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	sim->rng = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static s64 rths_sim_noise(struct rths_sim *sim, u32 width)
{
	if (!width)
		return 0;
	return (s64)(rths_sim_next(sim) % (2 * (u64)width + 1)) - width;
}

/* The generator must not start at 0, where xorshift stays. */
static void rths_sim_seed(struct rths_sim *sim)
{
	sim->rng = sim->cfg.seed ?: 0x9E3779B97F4A7C15ULL;
}

/* k * x / 1000 in uN for x in nm (or nm/s), saturated at the bound. */
static s64 rths_sim_coef(u64 k, s64 x)
{
	u64 ax = x < 0 ? -(u64)x : x;
	u64 p;
	s64 f;

	if (check_mul_overflow(k, ax, &p))
		f = RTHS_FORCE_MAX;
	else
		f = min_t(u64, div_u64(p, 1000), RTHS_FORCE_MAX);
	return x < 0 ? -f : f;
}

/*
 * A new plant starts at rest where the actuator is: every signal at y,
 * as if each section had a DC gain of 1 (the selftests' replica does the
 * same).
 */
static void rths_sim_plant_to_rest(struct rths_sim_chan *c)
{
	s64 x = c->y * (1LL << RTHS_SIM_PLANT_XQ);
	unsigned int i;

	for (i = 0; i <= RTHS_SIM_SECTIONS_MAX; i++) {
		c->w[i][0] = x;
		c->w[i][1] = x;
	}
}

/* (acc + 2^(Q-1)) >> Q, saturated to +-RTHS_SIM_SIGNAL_MAX */
static s64 rths_sim_round(__int128 acc)
{
	const __int128 lim = (__int128)RTHS_SIM_SIGNAL_MAX << RTHS_SIM_PLANT_Q;

	if (acc >= lim)
		return RTHS_SIM_SIGNAL_MAX;
	if (acc <= -lim)
		return -RTHS_SIM_SIGNAL_MAX;
	return (s64)((acc + ((__int128)1 << (RTHS_SIM_PLANT_Q - 1))) >>
		     RTHS_SIM_PLANT_Q);
}

/* One tick of the plant for the delayed command @u (nm); the new y, nm. */
static s64 rths_sim_plant(const struct rths_sim_cfg *cfg,
			  struct rths_sim_chan *c, s64 u)
{
	s64 x = u * (1LL << RTHS_SIM_PLANT_XQ);
	unsigned int i, n = cfg->sections;

	for (i = 0; i < n; i++) {
		const struct rths_sim_section *q = &cfg->plant[i];
		s64 *in = c->w[i], *out = c->w[i + 1];
		__int128 acc;

		acc = (__int128)q->b0 * x + (__int128)q->b1 * in[0] +
		      (__int128)q->b2 * in[1] - (__int128)q->a1 * out[0] -
		      (__int128)q->a2 * out[1];
		in[1] = in[0];
		in[0] = x;
		x = rths_sim_round(acc);
	}
	c->w[n][1] = c->w[n][0];
	c->w[n][0] = x;
	x = (x + (1LL << (RTHS_SIM_PLANT_XQ - 1))) >> RTHS_SIM_PLANT_XQ;
	return clamp_t(s64, x, -RTHS_POS_MAX, RTHS_POS_MAX);
}

static void rths_sim_fill_line(struct rths_sim_chan *c)
{
	unsigned int i;

	for (i = 0; i <= RTHS_SIM_DELAY_MAX; i++)
		c->line[i] = c->y;
	c->head = 0;
}

static void rths_sim_parse(struct rths_sim_cfg *cfg, struct nlattr **tb)
{
	if (tb[RTHS_SIM_A_LAG_US])
		cfg->lag_us = nla_get_u32(tb[RTHS_SIM_A_LAG_US]);
	if (tb[RTHS_SIM_A_DELAY_TICKS])
		cfg->delay_ticks = nla_get_u32(tb[RTHS_SIM_A_DELAY_TICKS]);
	if (tb[RTHS_SIM_A_STIFFNESS])
		cfg->stiffness = nla_get_u64(tb[RTHS_SIM_A_STIFFNESS]);
	if (tb[RTHS_SIM_A_DAMPING])
		cfg->damping = nla_get_u64(tb[RTHS_SIM_A_DAMPING]);
	if (tb[RTHS_SIM_A_NOISE_DISP])
		cfg->noise_disp = nla_get_u32(tb[RTHS_SIM_A_NOISE_DISP]);
	if (tb[RTHS_SIM_A_NOISE_FORCE])
		cfg->noise_force = nla_get_u32(tb[RTHS_SIM_A_NOISE_FORCE]);
	if (tb[RTHS_SIM_A_SEED])
		cfg->seed = nla_get_u64(tb[RTHS_SIM_A_SEED]);
	if (tb[RTHS_SIM_A_SPRING_STIFFNESS])
		cfg->spring = nla_get_u64(tb[RTHS_SIM_A_SPRING_STIFFNESS]);
	if (tb[RTHS_SIM_A_YIELD_FORCE])
		cfg->yield = nla_get_u64(tb[RTHS_SIM_A_YIELD_FORCE]);
	if (tb[RTHS_SIM_A_POST_STIFFNESS])
		cfg->post = nla_get_u64(tb[RTHS_SIM_A_POST_STIFFNESS]);
	if (tb[RTHS_SIM_A_PLANT]) {
		/* rths_sim_check() refuses a length that is not whole sections */
		cfg->sections = min_t(u32, nla_len(tb[RTHS_SIM_A_PLANT]) /
				      sizeof(struct rths_sim_section),
				      RTHS_SIM_SECTIONS_MAX);
		memset(cfg->plant, 0, sizeof(cfg->plant));
		memcpy(cfg->plant, nla_data(tb[RTHS_SIM_A_PLANT]),
		       cfg->sections * sizeof(struct rths_sim_section));
	}
}

static bool rths_sim_coef_ok(s64 c)
{
	return c >= -RTHS_SIM_COEF_MAX && c <= RTHS_SIM_COEF_MAX;
}

/*
 * Every coefficient within its bound and every section's poles inside the
 * unit circle (the stability triangle |a2| < 1, |a1| < 1 + a2), so that
 * the recursion stays bounded whatever userspace sent.
 */
static int rths_sim_check_plant(const struct rths_sim_cfg *cfg,
				const struct nlattr *attr,
				struct netlink_ext_ack *extack)
{
	const s64 one = 1LL << RTHS_SIM_PLANT_Q;
	unsigned int i;

	if (nla_len(attr) % sizeof(struct rths_sim_section)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "plant: length is not a whole number of 40-byte sections");
		return -EINVAL;
	}
	for (i = 0; i < cfg->sections; i++) {
		const struct rths_sim_section *q = &cfg->plant[i];

		if (!rths_sim_coef_ok(q->b0) || !rths_sim_coef_ok(q->b1) ||
		    !rths_sim_coef_ok(q->b2) || !rths_sim_coef_ok(q->a1) ||
		    !rths_sim_coef_ok(q->a2)) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "plant: a coefficient is beyond +-2^48 (256.0)");
			return -ERANGE;
		}
		if (q->a2 <= -one || q->a2 >= one ||
		    q->a1 >= one + q->a2 || q->a1 <= -(one + q->a2)) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "plant: a section is not stable (needs |a2| < 1 and |a1| < 1 + a2)");
			return -EDOM;
		}
	}
	return 0;
}

/* What the policy cannot say: a spring hardens no faster than it starts. */
static int rths_sim_check(const struct rths_sim_cfg *cfg, struct nlattr **tb,
			  struct netlink_ext_ack *extack)
{
	int err;

	if (tb[RTHS_SIM_A_PLANT]) {
		err = rths_sim_check_plant(cfg, tb[RTHS_SIM_A_PLANT], extack);
		if (err)
			return err;
	}
	if (cfg->spring && cfg->yield && cfg->post > cfg->spring) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RTHS_SIM_A_POST_STIFFNESS] ?:
				    tb[RTHS_SIM_A_SPRING_STIFFNESS],
				    "post-yield stiffness above the spring's initial stiffness");
		return -EINVAL;
	}
	return 0;
}

/* A new spring is a virgin specimen with its zero at 0 nm. */
static void rths_sim_spring_reset(struct rths_sim *sim)
{
	const struct rths_sim_cfg *c = &sim->cfg;
	unsigned int i;

	sim->c0 = c->spring && c->yield ?
		  c->yield - mul_u64_u64_div_u64(c->yield, c->post, c->spring) :
		  0;
	for (i = 0; i < sim->channels; i++)
		sim->ch[i].yp = 0;
}

/* The bilinear spring's force at @y (uN); |fs| <= k2 |y| / 1000 + c0. */
static s64 rths_sim_spring(const struct rths_sim *sim, struct rths_sim_chan *c,
			   s64 y)
{
	const struct rths_sim_cfg *cfg = &sim->cfg;
	s64 f, mid;

	if (!cfg->spring || !cfg->yield)
		return 0;
	f = rths_sim_coef(cfg->spring, y - c->yp);
	mid = rths_sim_coef(cfg->post, y);
	if (f > mid + sim->c0 || f < mid - sim->c0) {
		f = f > mid ? mid + sim->c0 : mid - sim->c0;
		/* |f| < 2^51, so f * 1000 fits */
		c->yp = y - div64_s64(f * 1000, cfg->spring);
	}
	return f;
}

static int rths_sim_new(struct rths_device *rd, struct nlattr **tb,
			struct netlink_ext_ack *extack)
{
	u32 n = rths_card_channels(rd);
	struct rths_sim *sim;
	unsigned int i;
	int err;

	sim = kvzalloc(struct_size(sim, ch, n), GFP_KERNEL);
	if (!sim)
		return -ENOMEM;
	sim->channels = n;
	sim->cfg.lag_us = 5000;
	sim->cfg.stiffness = 1000000;
	sim->cfg.seed = 1;
	rths_sim_parse(&sim->cfg, tb);
	err = rths_sim_check(&sim->cfg, tb, extack);
	if (err) {
		kvfree(sim);
		return err;
	}
	rths_sim_spring_reset(sim);
	rths_sim_seed(sim);
	for (i = 0; i < n; i++)
		rths_sim_fill_line(&sim->ch[i]);
	rths_set_card_priv(rd, sim);
	return 0;
}

static void rths_sim_del(struct rths_device *rd)
{
	kvfree(rths_card_priv(rd));
	rths_set_card_priv(rd, NULL);
}

/* Checks the new parameters as a whole before applying any. */
static int rths_sim_set(struct rths_device *rd, struct nlattr **tb,
			struct netlink_ext_ack *extack)
{
	struct rths_sim *sim = rths_card_priv(rd);
	struct rths_sim_cfg *cfg;
	unsigned int i;
	int err;

	/* the plant makes the configuration too big for the stack */
	cfg = kmemdup(&sim->cfg, sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	rths_sim_parse(cfg, tb);
	err = rths_sim_check(cfg, tb, extack);
	if (!err)
		sim->cfg = *cfg;
	kfree(cfg);
	if (err)
		return err;
	if (tb[RTHS_SIM_A_SPRING_STIFFNESS] || tb[RTHS_SIM_A_YIELD_FORCE] ||
	    tb[RTHS_SIM_A_POST_STIFFNESS])
		rths_sim_spring_reset(sim);
	if (tb[RTHS_SIM_A_SEED])
		rths_sim_seed(sim);
	if (tb[RTHS_SIM_A_DELAY_TICKS])
		for (i = 0; i < sim->channels; i++)
			rths_sim_fill_line(&sim->ch[i]);
	if (tb[RTHS_SIM_A_PLANT])
		for (i = 0; i < sim->channels; i++)
			rths_sim_plant_to_rest(&sim->ch[i]);
	sim->alpha_rate = 0;	/* recompute the lag coefficient */
	return 0;
}

static int rths_sim_fill(struct rths_device *rd, struct sk_buff *skb)
{
	const struct rths_sim_cfg *c = &((struct rths_sim *)rths_card_priv(rd))->cfg;

	if (nla_put_u32(skb, RTHS_SIM_A_LAG_US, c->lag_us) ||
	    nla_put_u32(skb, RTHS_SIM_A_DELAY_TICKS, c->delay_ticks) ||
	    nla_put_u64_64bit(skb, RTHS_SIM_A_STIFFNESS, c->stiffness,
			      RTHS_SIM_A_PAD) ||
	    nla_put_u64_64bit(skb, RTHS_SIM_A_DAMPING, c->damping,
			      RTHS_SIM_A_PAD) ||
	    nla_put_u32(skb, RTHS_SIM_A_NOISE_DISP, c->noise_disp) ||
	    nla_put_u32(skb, RTHS_SIM_A_NOISE_FORCE, c->noise_force) ||
	    nla_put_u64_64bit(skb, RTHS_SIM_A_SEED, c->seed, RTHS_SIM_A_PAD) ||
	    nla_put_u64_64bit(skb, RTHS_SIM_A_SPRING_STIFFNESS, c->spring,
			      RTHS_SIM_A_PAD) ||
	    nla_put_u64_64bit(skb, RTHS_SIM_A_YIELD_FORCE, c->yield,
			      RTHS_SIM_A_PAD) ||
	    nla_put_u64_64bit(skb, RTHS_SIM_A_POST_STIFFNESS, c->post,
			      RTHS_SIM_A_PAD))
		return -EMSGSIZE;
	if (c->sections &&
	    nla_put(skb, RTHS_SIM_A_PLANT,
		    c->sections * sizeof(struct rths_sim_section), c->plant))
		return -EMSGSIZE;
	return 0;
}

static int rths_sim_write(struct rths_device *rd, const s64 *out)
{
	struct rths_sim *sim = rths_card_priv(rd);
	u32 rate = rths_dev_rate(rd);
	u32 len = sim->cfg.delay_ticks + 1;
	unsigned int i;

	if (sim->alpha_rate != rate) {
		u64 dt = div_u64(NSEC_PER_SEC, rate);

		sim->alpha = div64_u64(dt << 32,
				       (u64)sim->cfg.lag_us * NSEC_PER_USEC + dt);
		sim->alpha_rate = rate;
	}
	for (i = 0; i < sim->channels; i++) {
		struct rths_sim_chan *c = &sim->ch[i];
		s64 ud, y;

		c->head = (c->head + 1) % len;
		c->line[c->head] = out[i];
		ud = c->line[(c->head + 1) % len];	/* oldest in the line */
		if (sim->cfg.sections)
			y = rths_sim_plant(&sim->cfg, c, ud);
		else
			y = c->y + mul_s64_u64_shr(ud - c->y, sim->alpha, 32);
		c->force = rths_sim_coef(sim->cfg.stiffness, y) +
			   rths_sim_coef(sim->cfg.damping, (y - c->y) * rate) +
			   rths_sim_spring(sim, c, y);
		c->force = clamp_t(s64, c->force, -RTHS_FORCE_MAX,
				   RTHS_FORCE_MAX);
		c->y = y;
	}
	return 0;
}

static int rths_sim_read(struct rths_device *rd, s64 *disp, s64 *force)
{
	struct rths_sim *sim = rths_card_priv(rd);
	unsigned int i;

	for (i = 0; i < sim->channels; i++) {
		disp[i] = sim->ch[i].y + rths_sim_noise(sim, sim->cfg.noise_disp);
		force[i] = sim->ch[i].force +
			   rths_sim_noise(sim, sim->cfg.noise_force);
	}
	return 0;
}

static struct rths_card_type rths_sim_type = {
	.name = "sim",
	.owner = THIS_MODULE,
	.policy = rths_sim_policy,
	.maxattr = RTHS_SIM_A_MAX,
	.io_may_sleep = false,
	.user_params = true,
	.new = rths_sim_new,
	.del = rths_sim_del,
	.set = rths_sim_set,
	.fill = rths_sim_fill,
	.write = rths_sim_write,
	.read = rths_sim_read,
};

module_rths_card(rths_sim_type);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rths sim card: a deterministic integer actuator and specimen");
MODULE_AUTHOR("rths developers");
MODULE_ALIAS("rths-card-sim");
