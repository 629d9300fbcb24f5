// SPDX-License-Identifier: GPL-2.0
/*
 * The "sim" card: a deterministic plant in integer arithmetic, so that a
 * test can predict every sample to the count.  Per channel, each tick:
 *
 *   u_d    = the command written delay_ticks ticks ago
 *   y     += (u_d - y) * a,  a = dt / (tau + dt) in Q32, truncated toward 0
 *            (a first-order lag, backward Euler; tau = 0 gives y = u_d)
 *   v      = (y - y_prev) * rate                     nm/s
 *   F      = k * y / 1000 + c * v / 1000             uN (k N/m, c N*s/m)
 *   disp   = y + noise,  force = F + noise           uniform, seeded
 *
 * Noise draws come from xorshift64* in channel order, displacement first,
 * and only for a non-zero width; Documentation/sim-card.rst has the exact
 * formulas.
 */
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include "../rths.h"

struct rths_sim_cfg {
	u32 lag_us;
	u32 delay_ticks;
	u64 stiffness;		/* N/m */
	u64 damping;		/* N*s/m */
	u32 noise_disp;		/* nm */
	u32 noise_force;	/* uN */
	u64 seed;
};

struct rths_sim_chan {
	s64 y;			/* actuator position, nm */
	s64 force;		/* specimen force before noise, uN */
	u32 head;		/* delay line slot of the newest command */
	s64 line[RTHS_SIM_DELAY_MAX + 1];
};

struct rths_sim {
	struct rths_sim_cfg cfg;
	u64 alpha;		/* Q32 lag coefficient for alpha_rate */
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
}

static int rths_sim_new(struct rths_device *rd, struct nlattr **tb,
			struct netlink_ext_ack *extack)
{
	u32 n = rths_dev_channels(rd);
	struct rths_sim *sim;
	unsigned int i;

	sim = kvzalloc(struct_size(sim, ch, n), GFP_KERNEL);
	if (!sim)
		return -ENOMEM;
	sim->channels = n;
	sim->cfg.lag_us = 5000;
	sim->cfg.stiffness = 1000000;
	sim->cfg.seed = 1;
	rths_sim_parse(&sim->cfg, tb);
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

/* The policy has checked every value, so applying cannot fail. */
static int rths_sim_set(struct rths_device *rd, struct nlattr **tb,
			struct netlink_ext_ack *extack)
{
	struct rths_sim *sim = rths_card_priv(rd);
	unsigned int i;

	rths_sim_parse(&sim->cfg, tb);
	if (tb[RTHS_SIM_A_SEED])
		rths_sim_seed(sim);
	if (tb[RTHS_SIM_A_DELAY_TICKS])
		for (i = 0; i < sim->channels; i++)
			rths_sim_fill_line(&sim->ch[i]);
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
	    nla_put_u64_64bit(skb, RTHS_SIM_A_SEED, c->seed, RTHS_SIM_A_PAD))
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
		y = c->y + mul_s64_u64_shr(ud - c->y, sim->alpha, 32);
		c->force = rths_sim_coef(sim->cfg.stiffness, y) +
			   rths_sim_coef(sim->cfg.damping, (y - c->y) * rate);
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
	.new = rths_sim_new,
	.del = rths_sim_del,
	.set = rths_sim_set,
	.fill = rths_sim_fill,
	.write = rths_sim_write,
	.read = rths_sim_read,
};

static int __init rths_sim_init(void)
{
	return rths_card_register(&rths_sim_type);
}

static void __exit rths_sim_exit(void)
{
	rths_card_unregister(&rths_sim_type);
}

module_init(rths_sim_init);
module_exit(rths_sim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rths sim card: a deterministic integer actuator and specimen");
MODULE_AUTHOR("rths developers");
MODULE_ALIAS("rths-card-sim");
