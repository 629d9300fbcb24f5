// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl's one printer: every show command rendered from filled structs
 * in both modes.  The JSON keys are today's (the stable interface the
 * guest selftests and scripts read), and the text carries every one of
 * them under the same name.  The comedi card's text is "dev add" syntax,
 * kept so that a shown line can be given back (rths_comedi_test pins it):
 * its keys are checked in JSON only.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../../tools/rthsctl/print.h"

typedef void (*render_fn)(struct pr *p, const void *arg);

struct both {
	char *text;
	json_t *json;		/* the one element rendered */
};

static void render(render_fn fn, const void *arg, struct both *b)
{
	struct pr p;
	size_t len;
	FILE *f = open_memstream(&b->text, &len);
	json_t *arr;

	pr_begin(&p, false, f);
	fn(&p, arg);
	if (pr_finish(&p))
		abort();
	fclose(f);
	pr_begin(&p, true, NULL);
	fn(&p, arg);
	arr = pr_finish(&p);
	b->json = json_incref(json_array_get(arr, 0));
	json_decref(arr);
}

/* @key as a whole word of @text. */
static bool has_word(const char *text, const char *key)
{
	size_t n = strlen(key);
	const char *s;

	for (s = strstr(text, key); s; s = strstr(s + 1, key)) {
		bool before = s == text || !(isalnum((unsigned char)s[-1]) ||
					     s[-1] == '_');
		bool after = !(isalnum((unsigned char)s[n]) || s[n] == '_');

		if (before && after)
			return true;
	}
	return false;
}

/* Every key of @j (at any depth, but not below @skip) in @text; the
 * first missing one, or NULL. */
static const char *missing_key(json_t *j, const char *text, const char *skip)
{
	const char *key, *m;
	json_t *v;
	size_t i;

	if (json_is_object(j)) {
		json_object_foreach(j, key, v) {
			if (skip && !strcmp(key, skip))
				continue;
			if (!has_word(text, key))
				return key;
			m = missing_key(v, text, skip);
			if (m)
				return m;
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v) {
			m = missing_key(v, text, skip);
			if (m)
				return m;
		}
	}
	return NULL;
}

/* "all there", or the first key the text lacks. */
static const char *missing(json_t *j, const char *text, const char *skip)
{
	const char *m = missing_key(j, text, skip);

	return m ? m : "all there";
}

/* The keys of object @j, space separated, in order. */
static void keys_of(json_t *j, char *buf, size_t len)
{
	const char *key;
	json_t *v;
	size_t o = 0;

	buf[0] = '\0';
	json_object_foreach(j, key, v)
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s",
				      o ? " " : "", key);
}

static struct rths_sim_params sim;
static struct rths_comedi_params comedi;

static void fill_dev(struct rths_dev_info *d, const char *card)
{
	memset(d, 0, sizeof(*d));
	d->id = 3;
	snprintf(d->name, sizeof(d->name), "pier0");
	snprintf(d->card, sizeof(d->card), "%s", card);
	d->channels = 2;
	d->state = RTHS_STATE_RUNNING;
	d->clock = RTHS_CLOCK_HRTIMER;
	d->rate_hz = 1024;
	d->step_ticks = 8;
	d->limits[0].set = RTHS_LIM_POS_MIN | RTHS_LIM_POS_MAX |
			   RTHS_LIM_VEL_MAX | RTHS_LIM_FORCE_MAX;
	d->limits[0].pos_min = -0.05;
	d->limits[0].pos_max = 0.05;
	d->limits[0].vel_max = 0.5;
	d->limits[0].force_max = 1000;
	d->cmd.entries = 64;
	d->mmap_size = 1 << 16;
	d->owned = true;
	d->position[1] = 0.001;
}

static void dev_sim(struct pr *p, const void *arg)
{
	struct rths_card_params card = { "sim", &sim, sizeof(sim) };

	rc_show_dev(p, arg, &card);
}

static void dev_comedi(struct pr *p, const void *arg)
{
	struct rths_card_params card = { "comedi", &comedi, sizeof(comedi) };

	rc_show_dev(p, arg, &card);
}

static void stats(struct pr *p, const void *arg)
{
	rc_show_stats(p, 3, "pier0", arg);
}

static void card(struct pr *p, const void *arg)
{
	rc_show_card(p, arg);
}

static void event(struct pr *p, const void *arg)
{
	rc_show_event(p, arg);
}

TEST(dev_sim_text_carries_every_json_key)
{
	struct rths_dev_info d;
	struct both b;
	char keys[1024];

	fill_dev(&d, "sim");
	memset(&sim, 0, sizeof(sim));
	sim.set = ~0u;
	sim.lag = 0.005;
	sim.seed = UINT64_MAX;	/* past jansson's integers: text in JSON */
	sim.plant_sections = 2;
	sim.plant[0].b0 = 1LL << RTHS_SIM_PLANT_Q;
	render(dev_sim, &d, &b);
	keys_of(b.json, keys, sizeof(keys));
	/* today's keys, in today's order but for the limits (JSON only
	 * promises the names) */
	EXPECT_STREQ("id name card channels state reason fault clock rate step_ticks late_policy deadline ramp cpu priority cmd_entries fb_entries trace_entries limits sim rings mmap_size chrdev io_may_sleep owned step tick position",
		     keys);
	keys_of(json_object_get(b.json, "sim"), keys, sizeof(keys));
	EXPECT_STREQ("lag delay_ticks stiffness damping noise_disp noise_force spring_stiffness yield_force post_stiffness seed plant",
		     keys);
	keys_of(json_object_get(json_object_get(b.json, "sim"), "plant"), keys,
		sizeof(keys));
	EXPECT_STREQ("sections q coefficients", keys);
	EXPECT_TRUE(json_is_string(json_object_get(json_object_get(b.json,
							 "sim"), "seed")));
	EXPECT_STREQ("all there", missing(b.json, b.text, NULL));
	EXPECT_TRUE(strstr(b.text, "    plant 2 sections") != NULL);
	EXPECT_TRUE(strstr(b.text, "mmap_size 65536") != NULL);
	EXPECT_TRUE(strstr(b.text, "step_ticks 8") != NULL);
	json_decref(b.json);
	free(b.text);
}

TEST(dev_comedi_text_is_dev_add_syntax)
{
	struct rths_comedi_chan *c = &comedi.chan[0];
	struct rths_dev_info d;
	struct both b;
	char keys[1024];

	fill_dev(&d, "comedi");
	memset(&comedi, 0, sizeof(comedi));
	snprintf(comedi.board, sizeof(comedi.board), "comedi_test");
	snprintf(comedi.driver, sizeof(comedi.driver), "comedi_test");
	comedi.ao_subdev = 1;
	c->set = 1;
	c->force_chan = 1;
	c->force_range = 1;
	c->disp.scale = 7.62939453125e-6;
	c->disp.num = 1953125;
	c->disp.den = 256;
	c->disp.offset = 30000;
	c->ao = c->disp;
	c->force.scale = 0.5;
	c->force.offset = 32768;
	render(dev_comedi, &d, &b);
	keys_of(json_object_get(b.json, "comedi"), keys, sizeof(keys));
	EXPECT_STREQ("minor device ao_subdev ai_subdev board driver channels",
		     keys);
	keys_of(json_array_get(json_object_get(json_object_get(b.json,
				"comedi"), "channels"), 0), keys, sizeof(keys));
	EXPECT_STREQ("channel ao_chan ao_range disp_chan disp_range force_chan force_range aref disp ao force ao_maxdata disp_maxdata force_maxdata clamps",
		     keys);
	EXPECT_TRUE(strstr(b.text, "comedi device /dev/comedi0 ao-subdev 1 ai-subdev 0 (board comedi_test, driver comedi_test)") != NULL);
	EXPECT_TRUE(strstr(b.text, "channel 0 ao 0 range 0 disp 0 range 0 force 1 range 1 aref ground scale-disp 7629.39453125nm offset-disp 30000 scale-force 0.5N offset-force 32768") != NULL);
	EXPECT_STREQ("all there", missing(b.json, b.text, "comedi"));
	json_decref(b.json);
	free(b.text);
}

TEST(stats_text_carries_every_json_key)
{
	struct rths_stats st;
	struct both b;

	memset(&st, 0, sizeof(st));
	st.periods = 10;
	st.lat_samples = 5;
	st.irq_lat_max = 2500;
	st.irq_lat_hist[2] = 5;
	render(stats, &st, &b);
	EXPECT_EQ(26u, json_object_size(b.json));
	EXPECT_EQ(RTHS_LAT_HIST_BUCKETS,
		  json_array_size(json_object_get(json_object_get(b.json,
					"irq_latency"), "hist")));
	EXPECT_STREQ("all there", missing(b.json, b.text, NULL));
	EXPECT_TRUE(strstr(b.text, "max 2.500us") != NULL);
	json_decref(b.json);
	free(b.text);
}

TEST(card_and_events_text_carry_every_json_key)
{
	struct rths_event ev;
	struct both b;

	render(card, "sim", &b);
	EXPECT_STREQ("card sim\n", b.text);
	EXPECT_STREQ("all there", missing(b.json, b.text, NULL));
	json_decref(b.json);
	free(b.text);

	memset(&ev, 0, sizeof(ev));
	ev.type = RTHS_EVENT_LIMIT;
	ev.dev_id = 3;
	snprintf(ev.dev_name, sizeof(ev.dev_name), "pier0");
	ev.state = RTHS_STATE_HOLDING;
	ev.reason = RTHS_REASON_LIMIT;
	ev.fault = 1;
	ev.limit = RTHS_LIMIT_FORCE;
	ev.value = 1200;
	ev.late_action = RTHS_LATE_HELD;
	ev.late_ticks = 2;
	ev.ring = RTHS_RING_FB;
	ev.step = 7;
	render(event, &ev, &b);
	EXPECT_EQ(14u, json_object_size(b.json));
	EXPECT_STREQ("all there", missing(b.json, b.text, NULL));
	json_decref(b.json);
	free(b.text);
}

TEST_HARNESS_MAIN
