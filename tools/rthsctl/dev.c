// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl dev: show, add, del, set.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "print.h"

void rc_usage_dev(FILE *f)
{
	fputs("Usage: rthsctl dev show [NAME]\n"
	      "       rthsctl dev add NAME type CARD channels N [SIM_PARAMS | COMEDI_PARAMS]\n"
	      "       rthsctl dev del NAME\n"
	      "       rthsctl dev set NAME [clock { manual | hrtimer }] [rate HZ]\n"
	      "                  [step-ticks D] [late-policy { strict | hold | event-driven }]\n"
	      "                  [deadline TICKS] [ramp TICKS] [cpu N] [priority P]\n"
	      "                  [cmd-entries N] [fb-entries N] [trace-entries N]\n"
	      "                  [limit CH [stroke { MIN MAX | unlimited }]\n"
	      "                            [velocity { V | unlimited }]\n"
	      "                            [force { F | unlimited }]]...\n"
	      "                  [SIM_PARAMS | COMEDI_PARAMS]\n"
	      "SIM_PARAMS := [lag SEC] [delay TICKS] [stiffness N/m] [damping Ns/m]\n"
	      "              [noise-disp M] [noise-force N] [seed S]\n"
	      "              [spring-stiffness N/m yield-force N post-stiffness N/m]\n"
	      "              [plant { none | benchmark[:KEY=VALUE,...] }]\n"
	      "              (KEY: gain a1b0 a2 b1 b2 a3 me ke zeta prewarp; the plant\n"
	      "              is designed at the device's rate)\n"
	      "COMEDI_PARAMS := device /dev/comediN [ao-subdev S] [ai-subdev S]\n"
	      "                 [channel I [ao C [range R]] [disp C [range R]]\n"
	      "                            [force { C [range R] | none }]\n"
	      "                            [aref { ground | common | diff | other }]\n"
	      "                            [scale-disp M] [offset-disp COUNTS]\n"
	      "                            [scale-ao M] [offset-ao COUNTS]\n"
	      "                            [scale-force N] [offset-force COUNTS]]...\n"
	      "                 (scales per count; the AO follows the displacement's\n"
	      "                 calibration unless given)\n"
	      "Lengths take m (default), mm, um or nm; forces N (default), kN or MN;\n"
	      "velocities m/s or mm/s; times s, ms or us; stiffness N/m, kN/m, N/mm or\n"
	      "kN/mm; damping Ns/m, kNs/m, Ns/mm or kNs/mm.\n", f);
}

/* The limits a channel has set, as the kernel keeps them. */
static void show_limits(struct pr *p, const struct rths_dev_info *d)
{
	uint32_t i;

	pr_arr(p, "limits", "    limits");
	for (i = 0; i < d->channels && i < RTHS_MAX_CHANNELS; i++) {
		const struct rths_limits *l = &d->limits[i];

		if (!l->set)
			continue;
		pr_obj(p, NULL, "\n      ");
		pr_u64(p, "channel", "channel %" PRIu64, i);
		if (l->set & RTHS_LIM_POS_MIN)
			pr_qty(p, "pos_min", " pos_min %s", l->pos_min, RC_LENGTH);
		if (l->set & RTHS_LIM_POS_MAX)
			pr_qty(p, "pos_max", " pos_max %s", l->pos_max, RC_LENGTH);
		if (l->set & RTHS_LIM_VEL_MAX)
			pr_qty(p, "vel_max", " vel_max %s", l->vel_max,
			       RC_VELOCITY);
		if (l->set & RTHS_LIM_FORCE_MAX)
			pr_qty(p, "force_max", " force_max %s", l->force_max,
			       RC_FORCE);
		pr_close(p);
	}
	pr_close(p);
	pr_text(p, "\n");
}

static void show_sim(struct pr *p, const struct rths_sim_params *s)
{
	pr_obj(p, "sim", "    sim");
	if (s->set & RTHS_SIM_LAG)
		pr_qty(p, "lag", " lag %s", s->lag, RC_TIME);
	if (s->set & RTHS_SIM_DELAY)
		pr_u64(p, "delay_ticks", " delay_ticks %" PRIu64, s->delay_ticks);
	if (s->set & RTHS_SIM_STIFFNESS)
		pr_qty(p, "stiffness", " stiffness %s", s->stiffness,
		       RC_STIFFNESS);
	if (s->set & RTHS_SIM_DAMPING)
		pr_qty(p, "damping", " damping %s", s->damping, RC_DAMPING);
	if (s->set & RTHS_SIM_NOISE_DISP)
		pr_qty(p, "noise_disp", " noise_disp %s", s->noise_disp,
		       RC_LENGTH);
	if (s->set & RTHS_SIM_NOISE_FORCE)
		pr_qty(p, "noise_force", " noise_force %s", s->noise_force,
		       RC_FORCE);
	if (s->set & RTHS_SIM_SPRING_STIFFNESS)
		pr_qty(p, "spring_stiffness", " spring_stiffness %s",
		       s->spring_stiffness, RC_STIFFNESS);
	if (s->set & RTHS_SIM_YIELD_FORCE)
		pr_qty(p, "yield_force", " yield_force %s", s->yield_force,
		       RC_FORCE);
	if (s->set & RTHS_SIM_POST_STIFFNESS)
		pr_qty(p, "post_stiffness", " post_stiffness %s",
		       s->post_stiffness, RC_STIFFNESS);
	if (s->set & RTHS_SIM_SEED)
		pr_u64(p, "seed", " seed %" PRIu64, s->seed);
	pr_text(p, "\n");
	rc_show_plant(p, s);
	pr_close(p);
}

/* A calibration: "dev add"'s scale per count (nm, N) and offset; num and
 * den are the kernel's fraction of that scale (JSON only). */
static void show_cal(struct pr *p, const char *what,
		     const struct rths_comedi_cal *c, bool text, bool force)
{
	char fmt[2][32];

	snprintf(fmt[0], sizeof(fmt[0]), " scale-%s %%.15g%s", what,
		 force ? "N" : "nm");
	snprintf(fmt[1], sizeof(fmt[1]), " offset-%s %%" PRId64, what);
	pr_obj(p, what, NULL);
	pr_real(p, "scale", text ? fmt[0] : NULL, c->scale, force ? 1 : 1e9);
	pr_i64(p, "num", NULL, c->num);
	pr_u64(p, "den", NULL, c->den);
	pr_i64(p, "offset", text ? fmt[1] : NULL, c->offset);
	pr_close(p);
}

/*
 * The comedi card, in text as "dev add" takes it (so a line can be
 * given back; rths_comedi_test pins it): the JSON keys in that syntax's
 * words.
 */
static void show_comedi_chan(struct pr *p, uint32_t i,
			     const struct rths_comedi_chan *c)
{
	bool force = c->force_chan >= 0;
	bool ao = c->ao.num != c->disp.num || c->ao.den != c->disp.den ||
		  c->ao.offset != c->disp.offset;

	pr_obj(p, NULL, NULL);
	pr_u64(p, "channel", "    channel %" PRIu64, i);
	pr_u64(p, "ao_chan", " ao %" PRIu64, c->ao_chan);
	pr_u64(p, "ao_range", " range %" PRIu64, c->ao_range);
	pr_u64(p, "disp_chan", " disp %" PRIu64, c->disp_chan);
	pr_u64(p, "disp_range", " range %" PRIu64, c->disp_range);
	if (force) {
		pr_i64(p, "force_chan", " force %" PRId64, c->force_chan);
		pr_u64(p, "force_range", " range %" PRIu64, c->force_range);
	} else {
		pr_null(p, "force_chan", " force none");
	}
	if (c->aref < 4)
		pr_str(p, "aref", " aref %s", rc_aref_words[c->aref]);
	else
		pr_u64(p, "aref", " aref ?%" PRIu64, c->aref);
	show_cal(p, "disp", &c->disp, true, false);
	show_cal(p, "ao", &c->ao, ao, false);
	if (force)
		show_cal(p, "force", &c->force, true, true);
	pr_u64(p, "ao_maxdata", "\n        maxdata ao %" PRIu64, c->ao_maxdata);
	pr_u64(p, "disp_maxdata", " disp %" PRIu64, c->disp_maxdata);
	if (force)
		pr_u64(p, "force_maxdata", " force %" PRIu64, c->force_maxdata);
	pr_u64(p, "clamps", " clamps %" PRIu64 "\n", c->clamps);
	pr_close(p);
}

static void show_comedi(struct pr *p, const struct rths_comedi_params *c,
			uint32_t channels)
{
	char dev[32];
	uint32_t i;

	snprintf(dev, sizeof(dev), "/dev/comedi%u", c->minor);
	pr_obj(p, "comedi", "    comedi");
	pr_u64(p, "minor", NULL, c->minor);
	pr_str(p, "device", " device %s", dev);
	pr_u64(p, "ao_subdev", " ao-subdev %" PRIu64, c->ao_subdev);
	pr_u64(p, "ai_subdev", " ai-subdev %" PRIu64, c->ai_subdev);
	pr_str(p, "board", " (board %s", c->board);
	pr_str(p, "driver", ", driver %s)\n", c->driver);
	pr_arr(p, "channels", NULL);
	for (i = 0; i < channels && i < RTHS_MAX_CHANNELS; i++)
		if (c->chan[i].set)
			show_comedi_chan(p, i, &c->chan[i]);
	pr_close(p);
	pr_close(p);
}

static void show_ring(struct pr *p, const char *key, const char *text,
		      const struct rths_ring_info *r)
{
	pr_obj(p, key, text);
	pr_u64(p, "entries", " entries %" PRIu64, r->entries);
	pr_u64(p, "entry_size", " entry_size %" PRIu64, r->entry_size);
	pr_u64(p, "producer", " producer %" PRIu64, r->producer);
	pr_u64(p, "consumer", " consumer %" PRIu64, r->consumer);
	pr_u64(p, "desc", " desc %" PRIu64 "\n", r->desc);
	pr_close(p);
}

void rc_show_dev(struct pr *p, const struct rths_dev_info *d,
		 const struct rths_card_params *card)
{
	uint32_t ch;

	pr_obj(p, NULL, NULL);
	pr_u64(p, "id", "id %" PRIu64, d->id);
	pr_str(p, "name", " name %s", d->name);
	pr_str(p, "card", " card %s", d->card);
	pr_u64(p, "channels", " channels %" PRIu64, d->channels);
	pr_str(p, "state", " state %s", rths_state_name(d->state));
	pr_str(p, "reason", " reason %s", rths_reason_name(d->reason));
	pr_str(p, "fault", " fault %s", rths_fault_name(d->fault));
	pr_str(p, "clock", "\n    clock %s", rths_clock_name(d->clock));
	pr_u64(p, "rate", " rate %" PRIu64 "Hz", d->rate_hz);
	pr_u64(p, "step_ticks", " step_ticks %" PRIu64, d->step_ticks);
	pr_str(p, "late_policy", " late_policy %s",
	       rths_late_policy_name(d->late_policy));
	pr_u64(p, "deadline", " deadline %" PRIu64, d->late_deadline);
	pr_u64(p, "ramp", " ramp %" PRIu64, d->ramp_ticks);
	pr_u64(p, "cpu", "\n    cpu %" PRIu64, d->cpu);
	pr_u64(p, "priority", " priority %" PRIu64, d->priority);
	pr_u64(p, "cmd_entries", " cmd_entries %" PRIu64, d->cmd_entries);
	pr_u64(p, "fb_entries", " fb_entries %" PRIu64, d->fb_entries);
	pr_u64(p, "trace_entries", " trace_entries %" PRIu64 "\n",
	       d->trace_entries);
	show_limits(p, d);
	if (card->params && !strcmp(card->card, "sim"))
		show_sim(p, card->params);
	if (card->params && !strcmp(card->card, "comedi"))
		show_comedi(p, card->params, d->channels);
	pr_obj(p, "rings", "    rings");
	show_ring(p, "cmd", " cmd", &d->cmd);
	show_ring(p, "fb", "          fb", &d->fb);
	show_ring(p, "trace", "          trace", &d->trace);
	pr_close(p);
	pr_u64(p, "mmap_size", "    mmap_size %" PRIu64, d->mmap_size);
	pr_obj(p, "chrdev", " chrdev");
	pr_u64(p, "major", " major %" PRIu64, d->chrdev_major);
	pr_u64(p, "minor", " minor %" PRIu64, d->chrdev_minor);
	pr_close(p);
	pr_bool(p, "io_may_sleep", " io_may_sleep %s", d->io_may_sleep);
	pr_bool(p, "owned", " owned %s", d->owned);
	pr_u64(p, "step", "\n    step %" PRIu64, d->step);
	pr_u64(p, "tick", " tick %" PRIu64, d->tick);
	pr_arr(p, "position", "\n    position");
	for (ch = 0; ch < d->channels && ch < RTHS_MAX_CHANNELS; ch++)
		pr_qty(p, NULL, " %s", d->position[ch], RC_LENGTH);
	pr_close(p);
	pr_text(p, "\n");
	pr_close(p);
}

static int show_one(const struct rths_dev_info *d,
		    const struct rths_card_params *card, void *arg)
{
	rc_show_dev(arg, d, card);
	return 0;
}

/* One device: its core part, then its card's parameters. */
static int show_named(struct rths_ctl *ctl, const char *name,
		      struct pr *s)
{
	union {
		struct rths_sim_params sim;
		struct rths_comedi_params comedi;
	} u;
	struct rths_card_params card = { NULL, NULL, 0 };
	struct rths_dev_info d;
	int ret = rths_dev_get(ctl, name, &d, sizeof(d));

	if (ret)
		return ret;
	card.card = d.card;
	if (!strcmp(d.card, "sim"))
		card.size = sizeof(u.sim);
	if (!strcmp(d.card, "comedi"))
		card.size = sizeof(u.comedi);
	if (card.size) {
		ret = rths_dev_get_card(ctl, name, d.card, &u, card.size);
		if (ret)
			return ret;
		card.params = &u;
	}
	return show_one(&d, &card, s);
}

static int dev_show(struct rc *rc, int argc, char **argv)
{
	struct rths_ctl *ctl;
	struct pr s;
	int ret;

	if (argc > 1) {
		struct rc_err e;

		rc_err_set(&e, "dev show: unexpected \"%s\"", argv[1]);
		return rc_usage_error(&e, "dev");
	}
	ctl = rc_ctl(rc);
	if (!ctl)
		return RC_UNREACHABLE;
	pr_begin(&s, rc->opt.json, stdout);
	if (argc == 1) {
		ret = show_named(ctl, argv[0], &s);
	} else {
		ret = rths_dev_list(ctl, show_one, &s);
	}
	return rc_show_done(rc, &s, ret, argc ? argv[0] : "dev show");
}

static int dev_add(struct rc *rc, int argc, char **argv)
{
	struct rc_dev_add a;
	struct rc_err e;
	int ret;

	if (rc_parse_dev_add(argc, argv, &a, &e))
		return rc_usage_error(&e, "dev");
	/* a new device runs at the default rate until set otherwise */
	if (a.plant.given &&
	    rc_plant_design(&a.plant, RTHS_RATE_DEFAULT, &a.sim, &e))
		return rc_usage_error(&e, "dev");
	if (!rc_ctl(rc))
		return RC_UNREACHABLE;
	if (!strcmp(a.card, "comedi"))
		ret = rths_dev_new(rc->ctl, a.name, a.card, a.channels,
				   RTHS_COMEDI_PARAMS(&a.comedi));
	else
		ret = rths_dev_new(rc->ctl, a.name, a.card, a.channels,
				   a.sim.set ? RTHS_SIM_PARAMS(&a.sim) : NULL);
	return rc_result(rc, ret, "dev add %s", a.name);
}

static int dev_del(struct rc *rc, int argc, char **argv)
{
	int ret;

	if (argc != 1) {
		struct rc_err e;

		rc_err_set(&e, "dev del: %s",
			   argc ? "too many arguments" : "missing NAME");
		return rc_usage_error(&e, "dev");
	}
	if (!rc_ctl(rc))
		return RC_UNREACHABLE;
	ret = rths_dev_del(rc->ctl, argv[0]);
	return rc_result(rc, ret, "dev del %s", argv[0]);
}

/*
 * The plant is designed for one rate: give it at the device's rate (the
 * new one if this command sets it), only to a sim card; and a new rate
 * for a card that runs a plant needs the plant again (or "plant none"),
 * else the card would run the old coefficients at another rate: another
 * plant, without a word.
 */
static int plant_for_set(struct rc *rc, struct rc_dev_set *s)
{
	struct rths_sim_params cur;
	struct rths_dev_info d;
	struct rc_err e;
	uint32_t rate;
	int ret;

	if (!s->plant.given && !(s->cfg.set & RTHS_CFG_RATE))
		return RC_OK;
	ret = rths_dev_get(rc->ctl, s->name, &d, sizeof(d));
	if (ret)
		return rc_fail(rc, ret, s->name);
	if (strcmp(d.card, "sim")) {
		if (!s->plant.given)
			return RC_OK;
		/* the device's state, not the command line: status 1 */
		fprintf(stderr, "rthsctl: dev set %s: plant: only the sim card has one, this device's card is %s\n",
			s->name, d.card);
		return RC_ERROR;
	}
	rate = (s->cfg.set & RTHS_CFG_RATE) ? s->cfg.rate_hz : d.rate_hz;
	if (s->plant.given) {
		if (rc_plant_design(&s->plant, rate, &s->sim, &e))
			return rc_usage_error(&e, "dev");
		s->sim_given = true;
		return RC_OK;
	}
	if (rate == d.rate_hz)
		return RC_OK;
	ret = rths_dev_get_card(rc->ctl, s->name, "sim", &cur, sizeof(cur));
	if (ret)
		return rc_fail(rc, ret, s->name);
	if ((cur.set & RTHS_SIM_PLANT) && cur.plant_sections) {
		fprintf(stderr, "rthsctl: dev set %s: rate: the card runs a plant designed for %u Hz; give it again in this command (plant benchmark[:...]) or remove it (plant none)\n",
			s->name, d.rate_hz);
		return RC_ERROR;
	}
	return RC_OK;
}

static int dev_set(struct rc *rc, int argc, char **argv)
{
	struct rc_dev_set s;
	struct rc_err e;
	int ret;

	if (rc_parse_dev_set(argc, argv, &s, &e))
		return rc_usage_error(&e, "dev");
	if (!rc_ctl(rc))
		return RC_UNREACHABLE;
	ret = plant_for_set(rc, &s);
	if (ret != RC_OK)
		return ret;
	ret = rths_dev_set(rc->ctl, s.name, &s.cfg, sizeof(s.cfg),
			   s.sim_given ? RTHS_SIM_PARAMS(&s.sim) :
			   s.comedi_given ? RTHS_COMEDI_PARAMS(&s.comedi) :
			   NULL);
	return rc_result(rc, ret, "dev set %s", s.name);
}

int rc_cmd_dev(struct rc *rc, int argc, char **argv)
{
	static const struct rc_cmd cmds[] = {
		{ "show", dev_show }, { "add", dev_add }, { "del", dev_del },
		{ "set", dev_set }, { "help", NULL }, { NULL, NULL }
	};

	return rc_dispatch(rc, cmds, "dev", rc_usage_dev, argc, argv);
}
