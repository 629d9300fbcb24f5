// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl dev: show, add, del, set.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rthsctl.h"

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

static json_t *json_limits(const struct rths_dev_info *d)
{
	json_t *arr = json_array();
	uint32_t i;

	for (i = 0; i < d->channels && i < RTHS_MAX_CHANNELS; i++) {
		const struct rths_limits *l = &d->limits[i];
		json_t *o;

		if (!l->set)
			continue;
		o = json_pack("{s:I}", "channel", (json_int_t)i);
		if (l->set & RTHS_LIM_POS_MIN)
			json_object_set_new(o, "pos_min", json_real(l->pos_min));
		if (l->set & RTHS_LIM_POS_MAX)
			json_object_set_new(o, "pos_max", json_real(l->pos_max));
		if (l->set & RTHS_LIM_VEL_MAX)
			json_object_set_new(o, "vel_max", json_real(l->vel_max));
		if (l->set & RTHS_LIM_FORCE_MAX)
			json_object_set_new(o, "force_max",
					    json_real(l->force_max));
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *json_sim(const struct rths_sim_params *s)
{
	json_t *o = json_object();

	if (s->set & RTHS_SIM_LAG)
		json_object_set_new(o, "lag", json_real(s->lag));
	if (s->set & RTHS_SIM_DELAY)
		json_object_set_new(o, "delay_ticks",
				    json_integer(s->delay_ticks));
	if (s->set & RTHS_SIM_STIFFNESS)
		json_object_set_new(o, "stiffness", json_real(s->stiffness));
	if (s->set & RTHS_SIM_DAMPING)
		json_object_set_new(o, "damping", json_real(s->damping));
	if (s->set & RTHS_SIM_NOISE_DISP)
		json_object_set_new(o, "noise_disp", json_real(s->noise_disp));
	if (s->set & RTHS_SIM_NOISE_FORCE)
		json_object_set_new(o, "noise_force",
				    json_real(s->noise_force));
	if (s->set & RTHS_SIM_SPRING_STIFFNESS)
		json_object_set_new(o, "spring_stiffness",
				    json_real(s->spring_stiffness));
	if (s->set & RTHS_SIM_YIELD_FORCE)
		json_object_set_new(o, "yield_force", json_real(s->yield_force));
	if (s->set & RTHS_SIM_POST_STIFFNESS)
		json_object_set_new(o, "post_stiffness",
				    json_real(s->post_stiffness));
	/* jansson integers are signed: a seed beyond that goes as text */
	if ((s->set & RTHS_SIM_SEED) && s->seed <= INT64_MAX)
		json_object_set_new(o, "seed", json_integer((json_int_t)s->seed));
	else if (s->set & RTHS_SIM_SEED)
		json_object_set_new(o, "seed", json_sprintf("%llu",
				    (unsigned long long)s->seed));
	json_object_set_new(o, "plant", rc_plant_json(s));
	return o;
}

static json_t *json_cal(const struct rths_comedi_cal *c)
{
	return json_pack("{s:f,s:I,s:I,s:I}", "scale", c->scale,
			 "num", (json_int_t)c->num, "den", (json_int_t)c->den,
			 "offset", (json_int_t)c->offset);
}

static json_t *json_comedi(const struct rths_comedi_params *p,
			   uint32_t channels)
{
	json_t *o = json_pack("{s:I,s:o,s:I,s:I,s:s,s:s}",
			      "minor", (json_int_t)p->minor,
			      "device", json_sprintf("/dev/comedi%u", p->minor),
			      "ao_subdev", (json_int_t)p->ao_subdev,
			      "ai_subdev", (json_int_t)p->ai_subdev,
			      "board", p->board, "driver", p->driver);
	json_t *arr = json_array();
	uint32_t i;

	for (i = 0; i < channels && i < RTHS_MAX_CHANNELS; i++) {
		const struct rths_comedi_chan *c = &p->chan[i];
		json_t *ch;

		if (!c->set)
			continue;
		ch = json_pack("{s:I,s:I,s:I,s:I,s:I,s:o,s:o,s:o,s:I,s:I,s:I}",
			       "channel", (json_int_t)i,
			       "ao_chan", (json_int_t)c->ao_chan,
			       "ao_range", (json_int_t)c->ao_range,
			       "disp_chan", (json_int_t)c->disp_chan,
			       "disp_range", (json_int_t)c->disp_range,
			       "aref", c->aref < 4 ?
					json_string(rc_aref_words[c->aref]) :
					json_integer(c->aref),
			       "ao", json_cal(&c->ao),
			       "disp", json_cal(&c->disp),
			       "ao_maxdata", (json_int_t)c->ao_maxdata,
			       "disp_maxdata", (json_int_t)c->disp_maxdata,
			       "clamps", (json_int_t)c->clamps);
		if (c->force_chan >= 0) {
			json_object_set_new(ch, "force_chan",
					    json_integer(c->force_chan));
			json_object_set_new(ch, "force_range",
					    json_integer(c->force_range));
			json_object_set_new(ch, "force", json_cal(&c->force));
			json_object_set_new(ch, "force_maxdata",
					    json_integer(c->force_maxdata));
		} else {
			json_object_set_new(ch, "force_chan", json_null());
		}
		json_array_append_new(arr, ch);
	}
	json_object_set_new(o, "channels", arr);
	return o;
}

static json_t *json_ring(const struct rths_ring_info *r)
{
	return json_pack("{s:I,s:I,s:I,s:I,s:I}",
			 "entries", (json_int_t)r->entries,
			 "entry_size", (json_int_t)r->entry_size,
			 "producer", (json_int_t)r->producer,
			 "consumer", (json_int_t)r->consumer,
			 "desc", (json_int_t)r->desc);
}

static json_t *json_dev(const struct rths_dev_info *d,
			const struct rths_card_params *card)
{
	json_t *o = json_pack("{s:I,s:s,s:s,s:I}",
			      "id", (json_int_t)d->id, "name", d->name,
			      "card", d->card,
			      "channels", (json_int_t)d->channels);
	json_t *pos;
	uint32_t ch;

	rc_json_set_str(o, "state", rths_state_name(d->state));
	rc_json_set_str(o, "reason", rths_reason_name(d->reason));
	rc_json_set_str(o, "fault", rths_fault_name(d->fault));
	rc_json_set_str(o, "clock", rths_clock_name(d->clock));
	json_object_set_new(o, "rate", json_integer(d->rate_hz));
	json_object_set_new(o, "step_ticks", json_integer(d->step_ticks));
	rc_json_set_str(o, "late_policy", rths_late_policy_name(d->late_policy));
	json_object_set_new(o, "deadline", json_integer(d->late_deadline));
	json_object_set_new(o, "ramp", json_integer(d->ramp_ticks));
	json_object_set_new(o, "cpu", json_integer(d->cpu));
	json_object_set_new(o, "priority", json_integer(d->priority));
	json_object_set_new(o, "cmd_entries", json_integer(d->cmd_entries));
	json_object_set_new(o, "fb_entries", json_integer(d->fb_entries));
	json_object_set_new(o, "trace_entries", json_integer(d->trace_entries));
	json_object_set_new(o, "limits", json_limits(d));
	if (card->params && !strcmp(card->card, "sim"))
		json_object_set_new(o, "sim", json_sim(card->params));
	if (card->params && !strcmp(card->card, "comedi"))
		json_object_set_new(o, "comedi",
				    json_comedi(card->params, d->channels));
	json_object_set_new(o, "rings",
			    json_pack("{s:o,s:o,s:o}", "cmd", json_ring(&d->cmd),
				      "fb", json_ring(&d->fb),
				      "trace", json_ring(&d->trace)));
	json_object_set_new(o, "mmap_size", json_integer((json_int_t)d->mmap_size));
	json_object_set_new(o, "chrdev",
			    json_pack("{s:I,s:I}", "major",
				      (json_int_t)d->chrdev_major, "minor",
				      (json_int_t)d->chrdev_minor));
	json_object_set_new(o, "io_may_sleep", json_boolean(d->io_may_sleep));
	json_object_set_new(o, "owned", json_boolean(d->owned));
	json_object_set_new(o, "step", json_integer((json_int_t)d->step));
	json_object_set_new(o, "tick", json_integer((json_int_t)d->tick));
	pos = json_array();
	for (ch = 0; ch < d->channels && ch < RTHS_MAX_CHANNELS; ch++)
		json_array_append_new(pos, json_real(d->position[ch]));
	json_object_set_new(o, "position", pos);
	return o;
}

static const char *or_unknown(const char *s)
{
	return s ? s : "unknown";
}

/* A calibration as "dev add" takes it: scale per count (nm, N), offset. */
static void print_cal(const char *what, const struct rths_comedi_cal *c,
		      bool force)
{
	if (force)
		printf(" scale-%s %.15gN", what, c->scale);
	else
		printf(" scale-%s %.15gnm", what, c->scale * 1e9);
	printf(" offset-%s %lld", what, (long long)c->offset);
}

static void print_comedi(const struct rths_comedi_params *p, uint32_t channels)
{
	uint32_t i;

	printf("    comedi device /dev/comedi%u ao-subdev %u ai-subdev %u (board %s, driver %s)\n",
	       p->minor, p->ao_subdev, p->ai_subdev, p->board, p->driver);
	for (i = 0; i < channels && i < RTHS_MAX_CHANNELS; i++) {
		const struct rths_comedi_chan *c = &p->chan[i];

		if (!c->set)
			continue;
		printf("    channel %u ao %u range %u disp %u range %u", i,
		       c->ao_chan, c->ao_range, c->disp_chan, c->disp_range);
		if (c->force_chan >= 0)
			printf(" force %d range %u", c->force_chan,
			       c->force_range);
		else
			printf(" force none");
		printf(" aref %s", c->aref < 4 ? rc_aref_words[c->aref] : "?");
		print_cal("disp", &c->disp, false);
		if (c->ao.num != c->disp.num || c->ao.den != c->disp.den ||
		    c->ao.offset != c->disp.offset)
			print_cal("ao", &c->ao, false);
		if (c->force_chan >= 0)
			print_cal("force", &c->force, true);
		printf("\n        maxdata ao %u disp %u", c->ao_maxdata,
		       c->disp_maxdata);
		if (c->force_chan >= 0)
			printf(" force %u", c->force_maxdata);
		printf(" clamps %llu\n", (unsigned long long)c->clamps);
	}
}

static void print_sim(const struct rths_sim_params *s)
{
	char a[48], b[48], a2[48];

	if (!s->set)
		return;
	printf("    sim");
	if (s->set & RTHS_SIM_LAG)
		printf(" lag %s", rc_fmt(a, s->lag, RC_TIME));
	if (s->set & RTHS_SIM_DELAY)
		printf(" delay %u", s->delay_ticks);
	if (s->set & RTHS_SIM_STIFFNESS)
		printf(" stiffness %s", rc_fmt(a, s->stiffness, RC_STIFFNESS));
	if (s->set & RTHS_SIM_DAMPING)
		printf(" damping %s", rc_fmt(a, s->damping, RC_DAMPING));
	if (s->set & RTHS_SIM_NOISE_DISP)
		printf(" noise-disp %s", rc_fmt(a, s->noise_disp, RC_LENGTH));
	if (s->set & RTHS_SIM_NOISE_FORCE)
		printf(" noise-force %s", rc_fmt(a, s->noise_force, RC_FORCE));
	if (s->set & RTHS_SIM_SEED)
		printf(" seed %llu", (unsigned long long)s->seed);
	/* the spring only when there is one */
	if (s->spring_stiffness > 0 && s->yield_force > 0)
		printf("\n    spring %s yield %s post %s",
		       rc_fmt(a, s->spring_stiffness, RC_STIFFNESS),
		       rc_fmt(b, s->yield_force, RC_FORCE),
		       rc_fmt(a2, s->post_stiffness, RC_STIFFNESS));
	putchar('\n');
	rc_plant_print(s);
}

static void print_dev(const struct rths_dev_info *d,
		      const struct rths_card_params *card)
{
	char a[48], b[48];
	uint32_t i;

	printf("%u: %s: card %s channels %u state %s", d->id, d->name, d->card,
	       d->channels, or_unknown(rths_state_name(d->state)));
	if (d->reason)
		printf(" reason %s", or_unknown(rths_reason_name(d->reason)));
	if (d->fault)
		printf(" fault %s", or_unknown(rths_fault_name(d->fault)));
	if (d->owned)
		printf(" owned");
	if (d->io_may_sleep)
		printf(" io-may-sleep");
	printf("\n    clock %s rate %uHz step-ticks %u late-policy %s deadline %u ramp %u\n",
	       or_unknown(rths_clock_name(d->clock)), d->rate_hz,
	       d->step_ticks, or_unknown(rths_late_policy_name(d->late_policy)),
	       d->late_deadline, d->ramp_ticks);
	printf("    cpu %u priority %u cmd-entries %u fb-entries %u trace-entries %u\n",
	       d->cpu, d->priority, d->cmd_entries, d->fb_entries,
	       d->trace_entries);
	printf("    step %llu tick %llu mmap %llu chrdev %u:%u\n",
	       (unsigned long long)d->step, (unsigned long long)d->tick,
	       (unsigned long long)d->mmap_size, d->chrdev_major,
	       d->chrdev_minor);
	printf("    position");
	for (i = 0; i < d->channels && i < RTHS_MAX_CHANNELS; i++)
		printf(" %s", rc_fmt(a, d->position[i], RC_LENGTH));
	putchar('\n');
	if (card->params && !strcmp(card->card, "sim"))
		print_sim(card->params);
	if (card->params && !strcmp(card->card, "comedi"))
		print_comedi(card->params, d->channels);
	/* Only the limits that limit something: the kernel's defaults are
	 * the largest values it takes. */
	for (i = 0; i < d->channels && i < RTHS_MAX_CHANNELS; i++) {
		const struct rths_limits *l = &d->limits[i];
		bool stroke = (l->set & RTHS_LIM_POS_MIN) &&
			      (l->set & RTHS_LIM_POS_MAX) &&
			      !(rc_unlimited(l->pos_min, RC_LENGTH) &&
				rc_unlimited(l->pos_max, RC_LENGTH));
		bool vel = (l->set & RTHS_LIM_VEL_MAX) &&
			   !rc_unlimited(l->vel_max, RC_VELOCITY);
		bool force = (l->set & RTHS_LIM_FORCE_MAX) &&
			     !rc_unlimited(l->force_max, RC_FORCE);

		if (!stroke && !vel && !force)
			continue;
		printf("    limit %u", i);
		if (stroke)
			printf(" stroke %s %s", rc_fmt(a, l->pos_min, RC_LENGTH),
			       rc_fmt(b, l->pos_max, RC_LENGTH));
		if (vel)
			printf(" velocity %s", rc_fmt(a, l->vel_max, RC_VELOCITY));
		if (force)
			printf(" force %s", rc_fmt(a, l->force_max, RC_FORCE));
		putchar('\n');
	}
}

struct show_ctx {
	const struct rc *rc;
	json_t *arr;
};

static int show_one(const struct rths_dev_info *d,
		    const struct rths_card_params *card, void *arg)
{
	struct show_ctx *s = arg;

	if (s->arr)
		json_array_append_new(s->arr, json_dev(d, card));
	else
		print_dev(d, card);
	return 0;
}

/* One device: its core part, then its card's parameters. */
static int show_named(struct rths_ctl *ctl, const char *name,
		      struct show_ctx *s)
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
	struct show_ctx s = { rc, rc->opt.json ? json_array() : NULL };
	struct rths_ctl *ctl;
	int ret;

	if (argc > 1) {
		struct rc_err e;

		json_decref(s.arr);
		rc_err_set(&e, "dev show: unexpected \"%s\"", argv[1]);
		return rc_usage_error(&e, "dev");
	}
	ctl = rc_ctl(rc);
	if (!ctl) {
		json_decref(s.arr);
		return RC_UNREACHABLE;
	}
	if (argc == 1) {
		ret = show_named(ctl, argv[0], &s);
	} else {
		ret = rths_dev_list(ctl, show_one, &s);
	}
	if (ret < 0) {
		json_decref(s.arr);
		return rc_fail(rc, ret, argc ? argv[0] : "dev show");
	}
	if (s.arr)
		rc_json_print(rc, s.arr);
	return RC_OK;
}

static int dev_add(struct rc *rc, int argc, char **argv)
{
	struct rc_dev_add a;
	struct rc_err e;
	char what[64];
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
	snprintf(what, sizeof(what), "dev add %s", a.name);
	return ret ? rc_fail(rc, ret, what) : RC_OK;
}

static int dev_del(struct rc *rc, int argc, char **argv)
{
	char what[64];
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
	snprintf(what, sizeof(what), "dev del %s", argv[0]);
	return ret ? rc_fail(rc, ret, what) : RC_OK;
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
	char what[64];
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
	snprintf(what, sizeof(what), "dev set %s", s.name);
	return ret ? rc_fail(rc, ret, what) : RC_OK;
}

int rc_cmd_dev(struct rc *rc, int argc, char **argv)
{
	static const struct rc_cmd cmds[] = {
		{ "show", dev_show }, { "add", dev_add }, { "del", dev_del },
		{ "set", dev_set }, { "help", NULL }, { NULL, NULL }
	};

	return rc_dispatch(rc, cmds, "dev", rc_usage_dev, argc, argv);
}
