// SPDX-License-Identifier: GPL-2.0
/*
 * The comedi card on comedi_test, whose AI channel N reads back the count
 * AO channel N last wrote: every output and every reading is predicted to
 * the count from the kernel's own calibration fractions.  Then clamping,
 * parameters that fail with an extack naming them and change nothing, the
 * reference on comedi_test, a real-time run, rmmod during a run, and a
 * board detached under a device (a legacy comedi_test device).
 *
 * Loads comedi_test, kcomedilib and $RTHS_KMOD_DIR/kernel/cards/
 * rths_comedi.ko as needed, and leaves all three unloaded (the last test
 * to run does; rths_rmmod_test, later, needs rths_comedi gone).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/comedi.h>

#include "kselftest_harness.h"
#include "common.h"

#define MM 1000000LL	/* nm */

static struct rths_trace trace[8192];

/* ---- modules ---------------------------------------------------------- */

static bool loaded(const char *module)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s/refcnt", module);
	return access(path, F_OK) == 0;
}

/* A module's reference count, -1 if it is not loaded. */
static int refcnt(const char *module)
{
	char path[128];
	int n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/%s/refcnt", module);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

/* comedi_test (auto-configured: /dev/comedi0), kcomedilib, rths_comedi. */
static void unload_all(void);

static int load_modules(void)
{
	const char *kdir = getenv("RTHS_KMOD_DIR");
	FILE *f = fopen("/sys/module/comedi/parameters/comedi_num_legacy_minors",
			"r");
	int legacy = 0;

	if (!kdir)
		return -ENOENT;
	/* left over from a failed detach.board_faults_the_device */
	if (f) {
		if (fscanf(f, "%d", &legacy) != 1)
			legacy = 0;
		fclose(f);
	}
	if (legacy)
		unload_all();
	if (!loaded("comedi_test") && rt_sh("modprobe comedi_test", NULL))
		return -EIO;
	if (!loaded("kcomedilib") && rt_sh("modprobe kcomedilib", NULL))
		return -EIO;
	if (!loaded("rths_comedi") &&
	    rt_sh("insmod %s/kernel/cards/rths_comedi.ko", kdir))
		return -EIO;
	return 0;
}

/* ---- the card's arithmetic, replicated (kernel/cards/comedi.c) -------- */

static int64_t from_counts(const struct rths_comedi_cal *c, uint32_t cnt)
{
	int64_t p = ((int64_t)cnt - c->offset) * c->num;
	uint64_t a = p < 0 ? -(uint64_t)p : (uint64_t)p;
	uint64_t q = (a + c->den / 2) / c->den;

	return p < 0 ? -(int64_t)q : (int64_t)q;
}

static uint32_t to_counts(const struct rths_comedi_cal *c, uint32_t maxdata,
			  int64_t nm, bool *clamped)
{
	int64_t t, v;
	uint64_t a, n, q;

	*clamped = nm < -RTHS_POS_MAX || nm > RTHS_POS_MAX;
	if (nm < -RTHS_POS_MAX)
		nm = -RTHS_POS_MAX;
	if (nm > RTHS_POS_MAX)
		nm = RTHS_POS_MAX;
	t = nm * (int64_t)c->den;
	a = t < 0 ? -(uint64_t)t : (uint64_t)t;
	n = c->num < 0 ? -(uint64_t)c->num : (uint64_t)c->num;
	q = (a + n / 2) / n;
	v = c->offset + ((t < 0) != (c->num < 0) ? -(int64_t)q : (int64_t)q);
	if (v < 0 || v > maxdata) {
		*clamped = true;
		return v < 0 ? 0 : maxdata;
	}
	return (uint32_t)v;
}

/* What comedi_test holds: the count each AO channel last wrote. */
struct board {
	uint32_t ao[8];
};

/* One tick of a device on comedi_test: outputs written, inputs read. */
static void predict(const struct rths_comedi_params *p, uint32_t channels,
		    struct board *b, const int64_t *out, int64_t *disp,
		    int64_t *force, uint64_t *clamps)
{
	uint32_t i;
	bool cl;

	for (i = 0; i < channels; i++) {
		const struct rths_comedi_chan *c = &p->chan[i];

		b->ao[c->ao_chan] = to_counts(&c->ao, c->ao_maxdata, out[i], &cl);
		clamps[i] += cl;
	}
	for (i = 0; i < channels; i++) {
		const struct rths_comedi_chan *c = &p->chan[i];

		disp[i] = from_counts(&c->disp, b->ao[c->disp_chan]);
		force[i] = c->force_chan < 0 ? 0 :
			   from_counts(&c->force, b->ao[c->force_chan]);
	}
}

/* ---- devices -------------------------------------------------------------- */

static void params_init(struct rths_comedi_params *p)
{
	memset(p, 0, sizeof(*p));
	p->set = RTHS_COMEDI_MINOR;
	p->minor = 0;
}

/* comedi device "<tag><pid>" with @cfg (NULL: manual clock, d = 8). */
static int cm_create(struct rt *t, const char *tag, uint32_t channels,
		     const struct rths_comedi_params *p,
		     const struct rths_dev_config *cfg)
{
	struct rths_dev_config def;
	int err;

	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s%d", tag, (int)getpid());
	t->channels = channels;
	err = rths_ctl_open(&t->ctl);
	if (err)
		return err;
	err = rths_dev_new(t->ctl, t->name, "comedi", channels,
			   p ? RTHS_COMEDI_PARAMS(p) : NULL);
	if (err)
		return err;
	if (!cfg) {
		rt_manual_config(&def, 8);
		cfg = &def;
	}
	return rths_dev_set(t->ctl, t->name, cfg, sizeof(*cfg), NULL);
}

/* DEV_GET: the core part and the comedi parameters. */
static int cm_get(struct rths_ctl *ctl, const char *name,
		  struct rths_dev_info *info, struct rths_comedi_params *p)
{
	int err = rths_dev_get(ctl, name, info, sizeof(*info));

	return err ? err : rths_dev_get_card(ctl, name, "comedi", p,
					     sizeof(*p));
}

FIXTURE(comedi) {
	struct rt t;
	struct rths_dev_info info;
	struct rths_comedi_params comedi;
	int base;		/* comedi_test's references without us */
};

FIXTURE_SETUP(comedi)
{
	memset(&self->t, 0, sizeof(self->t));
	ASSERT_EQ(0, load_modules()) TH_LOG("RTHS_KMOD_DIR or modprobe");
	self->base = refcnt("comedi_test");
	ASSERT_GE(self->base, 0);
}

FIXTURE_TEARDOWN(comedi)
{
	rt_destroy(&self->t);
}

static void create(struct __test_metadata *_metadata, struct rt *t,
		   uint32_t channels, const struct rths_comedi_params *p,
		   const struct rths_dev_config *cfg,
		   struct rths_dev_info *info, struct rths_comedi_params *got)
{
	ASSERT_EQ(0, cm_create(t, "cm", channels, p, cfg)) {
		TH_LOG("create: %s", t->ctl ? rths_ctl_error(t->ctl) : "");
	}
	ASSERT_EQ(0, cm_get(t->ctl, t->name, info, got));
	ASSERT_STREQ("comedi", info->card);
	ASSERT_EQ(0, rt_open(t));
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* The defaults: AO and displacement AI = the channel index, range 0, no
 * force, ground, 1 nm per count with mid-scale at 0 nm. */
TEST_F(comedi, defaults_are_reported)
{
	struct rths_comedi_params p;
	const struct rths_comedi_chan *c;
	uint32_t i;

	params_init(&p);
	create(_metadata, &self->t, 3, &p, NULL, &self->info,
	       &self->comedi);
	EXPECT_TRUE(self->info.io_may_sleep);
	EXPECT_EQ(RTHS_COMEDI_MINOR | RTHS_COMEDI_AO_SUBDEV |
		  RTHS_COMEDI_AI_SUBDEV, self->comedi.set);
	EXPECT_EQ(0u, self->comedi.minor);
	EXPECT_EQ(1u, self->comedi.ao_subdev);	/* comedi_test's */
	EXPECT_EQ(0u, self->comedi.ai_subdev);
	EXPECT_STREQ("comedi_test", self->comedi.board);
	EXPECT_STREQ("comedi_test", self->comedi.driver);
	for (i = 0; i < 3; i++) {
		c = &self->comedi.chan[i];
		EXPECT_EQ(i, c->ao_chan);
		EXPECT_EQ(i, c->disp_chan);
		EXPECT_EQ(0u, c->ao_range);
		EXPECT_EQ(0u, c->disp_range);
		EXPECT_EQ(-1, c->force_chan);
		EXPECT_EQ((uint32_t)AREF_GROUND, c->aref);
		EXPECT_EQ(1, c->disp.num);
		EXPECT_EQ(1u, c->disp.den);
		EXPECT_EQ(32768, c->disp.offset);
		EXPECT_EQ(1, c->ao.num);
		EXPECT_EQ(32768, c->ao.offset);
		EXPECT_EQ(65535u, c->ao_maxdata);
		EXPECT_EQ(65535u, c->disp_maxdata);
		EXPECT_EQ(0u, c->clamps);
	}
	EXPECT_EQ(0u, self->comedi.chan[3].set);
	EXPECT_EQ(self->base + 1, refcnt("comedi_test"));
}

/*
 * Two channels cross-wired on comedi_test: each reads its displacement
 * from its own AO and its force from the other's.  Every output is the
 * interpolation to the nanometre, every reading the output quantized by
 * the calibrations, to the count.
 */
TEST_F(comedi, loopback_predicted_to_the_count)
{
	enum { D = 5, STEPS = 60, CH = 2 };
	int64_t u[STEPS + 1][CH], out[CH], disp[CH], force[CH];
	const struct rths_comedi_params *k = &self->comedi;
	uint64_t clamps[CH] = { 0 }, seed = 7;
	struct rths_comedi_params p;
	struct rths_dev_config cfg;
	struct rths_feedback fb;
	struct board b = { { 0 } };
	int n, ch, i;

	params_init(&p);
	p.chan[0] = (struct rths_comedi_chan){
		.set = RTHS_COMEDI_CH_FORCE_CHAN | RTHS_COMEDI_CH_FORCE_RANGE |
		       RTHS_COMEDI_CH_SCALE_DISP | RTHS_COMEDI_CH_OFFSET_DISP |
		       RTHS_COMEDI_CH_SCALE_FORCE | RTHS_COMEDI_CH_OFFSET_FORCE,
		.force_chan = 1, .force_range = 1,
		.disp = { .scale = 7.62939453125e-6, .offset = 32768 },
		.force = { .scale = 0.25, .offset = 32000 },
	};
	p.chan[1] = (struct rths_comedi_chan){
		.set = RTHS_COMEDI_CH_FORCE_CHAN | RTHS_COMEDI_CH_DISP_RANGE |
		       RTHS_COMEDI_CH_SCALE_DISP | RTHS_COMEDI_CH_OFFSET_DISP |
		       RTHS_COMEDI_CH_SCALE_AO | RTHS_COMEDI_CH_OFFSET_AO |
		       RTHS_COMEDI_CH_SCALE_FORCE | RTHS_COMEDI_CH_OFFSET_FORCE,
		.force_chan = 0, .disp_range = 1,
		.disp = { .scale = 1e-6, .offset = 30000 },
		.ao = { .scale = 3e-6 / 7, .offset = 2000 },
		.force = { .scale = 3e-6 / 7, .offset = -100 },
	};
	rt_manual_config(&cfg, D);
	create(_metadata, &self->t, CH, &p, &cfg, &self->info,
	       &self->comedi);

	/* the library's fractions, as the kernel holds them */
	EXPECT_EQ(1953125, k->chan[0].disp.num);
	EXPECT_EQ(256u, k->chan[0].disp.den);
	EXPECT_EQ(1953125, k->chan[0].ao.num);	/* follows disp */
	EXPECT_EQ(256u, k->chan[0].ao.den);
	EXPECT_EQ(32768, k->chan[0].ao.offset);
	EXPECT_EQ(250000, k->chan[0].force.num);
	EXPECT_EQ(1u, k->chan[0].force.den);
	EXPECT_EQ(1u, k->chan[0].force_range);
	EXPECT_EQ(1000, k->chan[1].disp.num);
	EXPECT_EQ(1u, k->chan[1].disp.den);
	EXPECT_EQ(1u, k->chan[1].disp_range);
	EXPECT_EQ(3000, k->chan[1].ao.num);
	EXPECT_EQ(7u, k->chan[1].ao.den);
	EXPECT_EQ(2000, k->chan[1].ao.offset);
	EXPECT_EQ(3, k->chan[1].force.num);
	EXPECT_EQ(7u, k->chan[1].force.den);
	EXPECT_EQ(-100, k->chan[1].force.offset);

	ASSERT_EQ(0, rt_start(&self->t));
	/* a run starts where the displacement inputs put the actuators */
	for (ch = 0; ch < CH; ch++)
		u[0][ch] = self->info.position_raw[ch];
	for (n = 1; n <= STEPS; n++) {
		/* channel 0 within +-200 mm, channel 1 within 0..25 mm */
		u[n][0] = (int64_t)(lcg(&seed) % (400 * MM)) - 200 * MM +
			  (int64_t)(lcg(&seed) % 13);
		u[n][1] = (int64_t)(lcg(&seed) % (25 * MM));
		ASSERT_EQ(0, rths_post_raw(self->t.dev, n, u[n]));
	}
	ASSERT_EQ(0, rt_tick(&self->t, STEPS * D));
	ASSERT_EQ(STEPS * D, rt_trace(&self->t, trace, 8192));
	for (i = 0; i < STEPS * D; i++) {
		n = i / D + 1;
		for (ch = 0; ch < CH; ch++) {
			out[ch] = rt_interp(u[n - 1][ch], u[n][ch], i % D + 1, D);
			ASSERT_EQ(out[ch], trace[i].raw[ch].command) {
				TH_LOG("tick %d channel %d", i + 1, ch);
			}
		}
		predict(k, CH, &b, out, disp, force, clamps);
		for (ch = 0; ch < CH; ch++) {
			ASSERT_EQ(disp[ch], trace[i].raw[ch].disp) {
				TH_LOG("tick %d channel %d", i + 1, ch);
			}
			ASSERT_EQ(force[ch], trace[i].raw[ch].force) {
				TH_LOG("tick %d channel %d", i + 1, ch);
			}
		}
		/* the quantization is real: a reading is not the output */
		if (i == STEPS * D - 1)
			EXPECT_NE(out[0], disp[0]);
	}
	for (n = 1; n <= STEPS; n++) {
		ASSERT_EQ(0, rths_read_feedback(self->t.dev, &fb));
		ASSERT_EQ((uint64_t)n, fb.step);
		for (ch = 0; ch < CH; ch++) {
			EXPECT_EQ(u[n][ch], fb.raw[ch].command);
			EXPECT_EQ(trace[n * D - 1].raw[ch].disp, fb.raw[ch].disp);
			EXPECT_EQ(trace[n * D - 1].raw[ch].force,
				  fb.raw[ch].force);
		}
	}
	EXPECT_EQ(0u, clamps[0]);
	EXPECT_EQ(0u, clamps[1]);
	ASSERT_EQ(0, cm_get(self->t.ctl, self->t.name, &self->info,
			    &self->comedi));
	EXPECT_EQ(0u, self->comedi.chan[0].clamps);
	EXPECT_EQ(0u, self->comedi.chan[1].clamps);
	EXPECT_EQ(RTHS_STATE_RUNNING, self->info.state);
}

/* Outputs beyond 0..maxdata clamp, read back clamped, and are counted. */
TEST_F(comedi, out_of_range_outputs_clamp_and_count)
{
	enum { D = 4, STEPS = 6 };
	int64_t target[STEPS + 1] = {
		0, 30000, 45000, -20000, -50000, 1000, 0,
	};
	const struct rths_comedi_params *k = &self->comedi;
	struct rths_comedi_params p;
	struct rths_dev_config cfg;
	struct rths_stats st;
	struct board b = { { 0 } };
	uint64_t clamps[1] = { 0 }, high = 0, low = 0;
	int64_t out[1], disp[1], force[1];
	int n, i;

	params_init(&p);
	rt_manual_config(&cfg, D);
	create(_metadata, &self->t, 1, &p, &cfg, &self->info,
	       &self->comedi);
	target[0] = self->info.position_raw[0];	/* where it starts */
	ASSERT_EQ(0, rt_start(&self->t));
	for (n = 1; n <= STEPS; n++)
		ASSERT_EQ(0, rt_post1(&self->t, n, target[n]));
	ASSERT_EQ(0, rt_tick(&self->t, STEPS * D));
	ASSERT_EQ(STEPS * D, rt_trace(&self->t, trace, 8192));
	for (i = 0; i < STEPS * D; i++) {
		n = i / D + 1;
		out[0] = rt_interp(target[n - 1], target[n], i % D + 1, D);
		ASSERT_EQ(out[0], trace[i].raw[0].command);
		predict(k, 1, &b, out, disp, force, clamps);
		ASSERT_EQ(disp[0], trace[i].raw[0].disp) TH_LOG("tick %d", i + 1);
		EXPECT_EQ(0, trace[i].raw[0].force);
		high += disp[0] == 32767;	/* count 65535 */
		low += disp[0] == -32768;	/* count 0 */
	}
	EXPECT_GT(high, 0u);
	EXPECT_GT(low, 0u);
	EXPECT_EQ(high + low, clamps[0]);
	ASSERT_EQ(0, cm_get(self->t.ctl, self->t.name, &self->info,
			    &self->comedi));
	EXPECT_EQ(clamps[0], self->comedi.chan[0].clamps);
	/* clamping is not an error: the run goes on */
	EXPECT_EQ(RTHS_STATE_RUNNING, self->info.state);
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ(0u, st.card_errors);
	EXPECT_EQ((uint64_t)STEPS, st.steps);
}

/*
 * A new device starts where the actuators are: drive channel 0 to 20 um,
 * remove the device, make a new one on the same board; it reports that
 * position and its first run moves away from there, not from 0.
 */
TEST_F(comedi, a_new_device_starts_where_the_actuator_is)
{
	enum { D = 4 };
	const int64_t there = 20000, next = 25000;	/* nm */
	struct rths_comedi_params p;
	struct rths_dev_config cfg;
	struct rths_dev_info info;
	int i;

	params_init(&p);
	rt_manual_config(&cfg, D);
	create(_metadata, &self->t, 1, &p, &cfg, &info, &self->comedi);
	ASSERT_EQ(0, rt_start(&self->t));
	ASSERT_EQ(0, rt_post1(&self->t, 1, there));
	ASSERT_EQ(0, rt_tick(&self->t, D));
	/* dead, at "there" (a plain stop would ramp on past it) */
	ASSERT_EQ(0, rths_run_stop_now(self->t.ctl, self->t.name));
	rt_destroy(&self->t);

	/* 1 nm a count, so the board holds 20 um to the count */
	create(_metadata, &self->t, 1, &p, &cfg, &info, &self->comedi);
	EXPECT_EQ(there, info.position_raw[0]);
	ASSERT_EQ(0, rt_start(&self->t));
	ASSERT_EQ(0, rt_post1(&self->t, 1, next));
	ASSERT_EQ(0, rt_tick(&self->t, D));
	ASSERT_EQ(D, rt_trace(&self->t, trace, 8192));
	for (i = 0; i < D; i++)
		EXPECT_EQ(rt_interp(there, next, i + 1, D),
			  trace[i].raw[0].command);
}

/* ---- bad parameters -------------------------------------------------------- */

struct bad {
	const char *what;
	uint32_t channels;
	int err;
	int attr;		/* the attribute the extack names; 0: none */
	const char *msg;	/* in rths_ctl_error() */
	void (*edit)(struct rths_comedi_params *p);
	bool on_set;		/* as wrong on an existing device */
};

static void no_board(struct rths_comedi_params *p) { p->minor = 9; }
static void minor_too_big(struct rths_comedi_params *p) { p->minor = 48; }
static void ao_is_ai(struct rths_comedi_params *p)
{
	p->set |= RTHS_COMEDI_AO_SUBDEV;
	p->ao_subdev = 0;
}
static void ai_is_ao(struct rths_comedi_params *p)
{
	p->set |= RTHS_COMEDI_AI_SUBDEV;
	p->ai_subdev = 1;
}
static void ai_missing(struct rths_comedi_params *p)
{
	p->set |= RTHS_COMEDI_AI_SUBDEV;
	p->ai_subdev = 7;
}
static void ao_chan_8(struct rths_comedi_params *p)
{
	p->chan[0].set |= RTHS_COMEDI_CH_AO_CHAN;
	p->chan[0].ao_chan = 8;
}
static void disp_range_2(struct rths_comedi_params *p)
{
	p->chan[1].set |= RTHS_COMEDI_CH_DISP_RANGE;
	p->chan[1].disp_range = 2;
}
static void force_chan_9(struct rths_comedi_params *p)
{
	p->chan[0].set |= RTHS_COMEDI_CH_FORCE_CHAN;
	p->chan[0].force_chan = 9;
}
static void force_range_5(struct rths_comedi_params *p)
{
	p->chan[0].set |= RTHS_COMEDI_CH_FORCE_CHAN | RTHS_COMEDI_CH_FORCE_RANGE;
	p->chan[0].force_chan = 1;
	p->chan[0].force_range = 5;
}
static void aref_diff(struct rths_comedi_params *p)
{
	p->chan[1].set |= RTHS_COMEDI_CH_AREF;
	p->chan[1].aref = AREF_DIFF;
}
static void ao_twice(struct rths_comedi_params *p)
{
	p->chan[1].set |= RTHS_COMEDI_CH_AO_CHAN;
	p->chan[1].ao_chan = 0;
}
static void disp_scale_huge(struct rths_comedi_params *p)
{
	/* 2^30 nm per count: 32768 counts from the offset are 2^45 nm */
	p->chan[0].set |= RTHS_COMEDI_CH_SCALE_DISP;
	p->chan[0].disp.scale = 1.073741824;
}
static void offset_huge(struct rths_comedi_params *p)
{
	/* an AO offset of its own, or the AO's (sent first) would follow */
	p->chan[1].set |= RTHS_COMEDI_CH_OFFSET_DISP | RTHS_COMEDI_CH_OFFSET_AO;
	p->chan[1].disp.offset = 1LL << 33;
	p->chan[1].ao.offset = 100;
}
static void no_minor(struct rths_comedi_params *p) { p->set = 0; }
static void nothing(struct rths_comedi_params *p) { (void)p; }

static const struct bad bad_new[] = {
	{ "no /dev/comedi9", 2, -ENODEV, RTHS_COMEDI_A_MINOR,
	  "card-params.minor: no such comedi device", no_board, true },
	{ "minor 48", 2, -ERANGE, RTHS_COMEDI_A_MINOR,
	  "card-params.minor: integer out of range (allowed 0..47)",
	  minor_too_big, true },
	{ "AO subdevice is the AI", 2, -EINVAL, RTHS_COMEDI_A_AO_SUBDEV,
	  "card-params.ao-subdev: not an analog output subdevice", ao_is_ai, true },
	{ "AI subdevice is the AO", 2, -EINVAL, RTHS_COMEDI_A_AI_SUBDEV,
	  "card-params.ai-subdev: not an analog input subdevice", ai_is_ao, true },
	{ "no subdevice 7", 2, -EINVAL, RTHS_COMEDI_A_AI_SUBDEV,
	  "card-params.ai-subdev: not an analog input subdevice", ai_missing, true },
	{ "AO channel 8", 2, -EINVAL, RTHS_COMEDI_CH_A_AO_CHAN,
	  "card-params.channels.channel[0].ao-chan: AO channel beyond",
	  ao_chan_8, true },
	{ "displacement range 2", 2, -EINVAL, RTHS_COMEDI_CH_A_DISP_RANGE,
	  "card-params.channels.channel[1].disp-range: displacement AI range beyond",
	  disp_range_2, true },
	{ "force channel 9", 2, -EINVAL, RTHS_COMEDI_CH_A_FORCE_CHAN,
	  "card-params.channels.channel[0].force-chan: force AI channel beyond",
	  force_chan_9, true },
	{ "force range 5", 2, -EINVAL, RTHS_COMEDI_CH_A_FORCE_RANGE,
	  "card-params.channels.channel[0].force-range: force AI range beyond",
	  force_range_5, true },
	{ "differential reference", 2, -EINVAL, RTHS_COMEDI_CH_A_AREF,
	  "card-params.channels.channel[1].aref: the AI subdevice does not support",
	  aref_diff, true },
	{ "one AO channel twice", 2, -EINVAL, RTHS_COMEDI_CH_A_AO_CHAN,
	  "card-params.channels.channel[1].ao-chan: AO channel already driven",
	  ao_twice, true },
	{ "readings beyond RTHS_POS_MAX", 2, -EINVAL, RTHS_COMEDI_CH_A_DISP_NUM,
	  "card-params.channels.channel[0].disp-num: displacement calibration reads counts beyond",
	  disp_scale_huge, true },
	{ "offset 2^33", 2, -ERANGE, RTHS_COMEDI_CH_A_DISP_OFFSET,
	  "card-params.channels.channel[1].disp-offset: integer out of range (allowed -4294967296..4294967296)",
	  offset_huge, true },
	{ "no minor", 2, -EINVAL, 0, "missing attribute: the comedi minor",
	  no_minor, false },
	{ "9 channels, 8 AO channels", 9, -EINVAL, 0,
	  "AO channel beyond the AO subdevice's channels (default: the rths channel's index)",
	  nothing, false },
};

static bool has(const char *s, const char *part)
{
	return strstr(s, part) != NULL;
}

TEST_F(comedi, bad_parameters_fail_with_an_extack_and_create_nothing)
{
	struct rths_ctl *ctl;
	struct rths_dev_info info;
	unsigned int i;

	ASSERT_EQ(0, rths_ctl_open(&ctl));
	for (i = 0; i < sizeof(bad_new) / sizeof(bad_new[0]); i++) {
		const struct bad *b = &bad_new[i];
		struct rths_comedi_params p;
		char name[RTHS_NAME_LEN];

		snprintf(name, sizeof(name), "cb%d", (int)getpid());
		params_init(&p);
		b->edit(&p);
		EXPECT_EQ(b->err, rths_dev_new(ctl, name, "comedi", b->channels,
					       RTHS_COMEDI_PARAMS(&p))) {
			TH_LOG("%s: %s", b->what, rths_ctl_error(ctl));
		}
		EXPECT_EQ(b->attr, rths_ctl_error_attr(ctl)) TH_LOG("%s", b->what);
		EXPECT_TRUE(has(rths_ctl_error(ctl), b->msg)) {
			TH_LOG("%s: \"%s\"", b->what, rths_ctl_error(ctl));
		}
		EXPECT_EQ(-ENODEV, rths_dev_get(ctl, name, &info,
						sizeof(info)));
		/* no reference left behind */
		EXPECT_EQ(self->base, refcnt("comedi_test")) TH_LOG("%s", b->what);
	}
	rths_ctl_close(ctl);
}


/* On a device, a bad DEV_SET changes nothing (and a good one changes
 * what it names, and only that). */
TEST_F(comedi, bad_set_changes_nothing)
{
	struct rths_comedi_params p, *before = calloc(1, sizeof(*before));
	struct rths_dev_config *cfg = calloc(1, sizeof(*cfg));
	struct rths_comedi_params *cp = calloc(1, sizeof(*cp));
	struct rths_comedi_params *got = calloc(1, sizeof(*got));
	struct rths_dev_info *info = calloc(1, sizeof(*info));
	unsigned int i;

	ASSERT_NE(NULL, before);
	ASSERT_NE(NULL, cfg);
	ASSERT_NE(NULL, info);
	ASSERT_NE(NULL, cp);
	ASSERT_NE(NULL, got);
	params_init(&p);
	p.chan[1].set = RTHS_COMEDI_CH_SCALE_DISP;
	p.chan[1].disp.scale = 2e-9;
	create(_metadata, &self->t, 2, &p, NULL, &self->info,
	       &self->comedi);
	*before = self->comedi;
	for (i = 0; i < sizeof(bad_new) / sizeof(bad_new[0]); i++) {
		const struct bad *b = &bad_new[i];

		if (!b->on_set)
			continue;
		memset(cfg, 0, sizeof(*cfg));
		cfg->set = RTHS_CFG_RATE;
		cfg->rate_hz = 2048;
		params_init(cp);
		b->edit(cp);
		if (!cp->minor)	/* the board stays */
			cp->set &= ~RTHS_COMEDI_MINOR;
		EXPECT_EQ(b->err, rths_dev_set(self->t.ctl, self->t.name, cfg,
					       sizeof(*cfg),
					       RTHS_COMEDI_PARAMS(cp))) {
			TH_LOG("%s: %s", b->what, rths_ctl_error(self->t.ctl));
		}
		EXPECT_EQ(b->attr, rths_ctl_error_attr(self->t.ctl)) {
			TH_LOG("%s", b->what);
		}
		EXPECT_TRUE(has(rths_ctl_error(self->t.ctl), b->msg)) {
			TH_LOG("%s: \"%s\"", b->what, rths_ctl_error(self->t.ctl));
		}
		ASSERT_EQ(0, cm_get(self->t.ctl, self->t.name, info, got));
		EXPECT_EQ(0, memcmp(before, got, sizeof(*before))) {
			TH_LOG("%s changed the parameters", b->what);
		}
		EXPECT_EQ(self->info.rate_hz, info->rate_hz);
		EXPECT_EQ(self->base + 1, refcnt("comedi_test"));
	}

	/* a good one: a force input on channel 1 starts at mid-scale */
	memset(cfg, 0, sizeof(*cfg));
	memset(cp, 0, sizeof(*cp));
	cp->chan[1].set = RTHS_COMEDI_CH_FORCE_CHAN |
			  RTHS_COMEDI_CH_SCALE_FORCE;
	cp->chan[1].force_chan = 0;
	cp->chan[1].force.scale = 1e-3;
	ASSERT_EQ(0, rths_dev_set(self->t.ctl, self->t.name, cfg, sizeof(*cfg),
				  RTHS_COMEDI_PARAMS(cp))) {
		TH_LOG("%s", rths_ctl_error(self->t.ctl));
	}
	ASSERT_EQ(0, cm_get(self->t.ctl, self->t.name, info, got));
	EXPECT_EQ(0, got->chan[1].force_chan);
	EXPECT_EQ(1000, got->chan[1].force.num);
	EXPECT_EQ(32768, got->chan[1].force.offset);
	EXPECT_EQ(65535u, got->chan[1].force_maxdata);
	/* the rest as it was */
	EXPECT_EQ(2, got->chan[1].disp.num);
	EXPECT_EQ(0, memcmp(&before->chan[0], &got->chan[0],
			    sizeof(before->chan[0])));
	/* and off again */
	cp->chan[1].set = RTHS_COMEDI_CH_FORCE_CHAN;
	cp->chan[1].force_chan = -1;
	ASSERT_EQ(0, rths_dev_set(self->t.ctl, self->t.name, cfg, sizeof(*cfg),
				  RTHS_COMEDI_PARAMS(cp)));
	ASSERT_EQ(0, cm_get(self->t.ctl, self->t.name, info, got));
	EXPECT_EQ(-1, got->chan[1].force_chan);

	/* only while stopped */
	ASSERT_EQ(0, rt_start(&self->t));
	EXPECT_EQ(-EBUSY, rths_dev_set(self->t.ctl, self->t.name, cfg,
				       sizeof(*cfg), RTHS_COMEDI_PARAMS(cp)));
	free(before);
	free(cfg);
	free(info);
	free(got);
	free(cp);
}

/* The device holds comedi_test: rmmod fails and the device keeps working;
 * deleting the device lets go. */
TEST_F(comedi, the_device_holds_its_driver)
{
	struct rths_comedi_params p;
	struct rths_stats st;
	enum rths_state state;

	params_init(&p);
	create(_metadata, &self->t, 1, &p, NULL, &self->info,
	       &self->comedi);
	EXPECT_EQ(self->base + 1, refcnt("comedi_test"));
	EXPECT_NE(0, rt_sh("rmmod comedi_test 2>/dev/null", NULL));
	EXPECT_TRUE(loaded("comedi_test"));
	ASSERT_EQ(0, rt_start(&self->t));
	ASSERT_EQ(0, rt_post1(&self->t, 1, 1000));
	ASSERT_EQ(0, rt_tick(&self->t, 8));
	ASSERT_EQ(0, rt_state(&self->t, &state, NULL, NULL));
	EXPECT_EQ(RTHS_STATE_RUNNING, state);
	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	EXPECT_EQ(0u, st.card_errors);
	EXPECT_EQ(1u, st.steps);
	rt_destroy(&self->t);
	EXPECT_EQ(self->base, refcnt("comedi_test"));
}

/* ---- real time ------------------------------------------------------------ */

/*
 * A few thousand ticks on the hrtimer clock: the counters add up as on
 * the sim card, no card error, and each record's readings are its
 * command quantized, whatever the timing did to the command.
 */
TEST_F_TIMEOUT(comedi, hrtimer_run_counters_add_up, 300)
{
	enum { CH = 2, D = 8, STEPS = 400 };
	const struct rths_comedi_params *k = &self->comedi;
	struct rths_dev_config cfg = {
		.set = RTHS_CFG_CLOCK | RTHS_CFG_STEP_TICKS |
		       RTHS_CFG_LATE_POLICY,
		.clock = RTHS_CLOCK_HRTIMER,
		.step_ticks = D,
		.late_policy = RTHS_LATE_EVENT_DRIVEN,
	};
	struct rths_comedi_params p;
	struct rths_feedback fb;
	struct rths_stats st;
	uint64_t posted = 0, seen = 0, clamps[CH] = { 0 };
	int64_t out[CH], disp[CH], force[CH];
	struct board b = { { 0 } };
	int ch, err;

	params_init(&p);
	p.chan[0].set = RTHS_COMEDI_CH_FORCE_CHAN | RTHS_COMEDI_CH_SCALE_DISP;
	p.chan[0].force_chan = 1;
	p.chan[0].disp.scale = 3.0517578125e-7;		/* 20 V / 2^16 in um */
	p.chan[1].set = RTHS_COMEDI_CH_SCALE_DISP;
	p.chan[1].disp.scale = 1e-7;
	create(_metadata, &self->t, CH, &p, &cfg, &self->info,
	       &self->comedi);
	ASSERT_EQ(0, rt_start(&self->t));
	while (posted < 2) {
		posted++;
		ASSERT_EQ(0, rt_post1(&self->t, posted,
				      (int64_t)(posted % 50) * 50000));
	}
	while (seen < STEPS) {
		err = rths_wait_feedback(self->t.dev, &fb, 10000, 0);
		ASSERT_EQ(0, err) TH_LOG("waiting for step %llu",
					 (unsigned long long)seen + 1);
		ASSERT_EQ(seen + 1, fb.step);
		seen = fb.step;
		for (ch = 0; ch < CH; ch++)
			out[ch] = fb.raw[ch].command;
		predict(k, CH, &b, out, disp, force, clamps);
		for (ch = 0; ch < CH; ch++) {
			ASSERT_EQ(disp[ch], fb.raw[ch].disp) {
				TH_LOG("step %llu channel %d",
				       (unsigned long long)seen, ch);
			}
			ASSERT_EQ(force[ch], fb.raw[ch].force);
		}
		posted++;
		ASSERT_EQ(0, rt_post1(&self->t, posted,
				      (int64_t)(posted % 50) * 50000));
	}
	ASSERT_EQ(0, rths_run_stop(self->t.ctl, self->t.name));
	while (rths_read_feedback(self->t.dev, &fb) == 0)
		seen = fb.step;

	ASSERT_EQ(0, rths_stats_get(self->t.ctl, self->t.name, &st));
	TH_LOG("periods %llu ticks %llu missed %llu steps %llu late %llu",
	       (unsigned long long)st.periods, (unsigned long long)st.ticks,
	       (unsigned long long)st.missed, (unsigned long long)st.steps,
	       (unsigned long long)st.late_steps);
	EXPECT_GE(st.ticks, (uint64_t)STEPS * D);
	EXPECT_EQ(st.periods, st.ticks + st.missed);
	EXPECT_EQ(st.ticks, st.steps * D + st.stretch_ticks +
		  st.step_ticks_now + st.halt_ticks);
	/* the stop ramped to rest first: a whole ramp (32 ticks) */
	EXPECT_GE(st.halt_ticks, 32u);
	EXPECT_EQ(st.late_steps, st.late_extrapolated + st.late_held +
		  st.late_decelerated + st.late_faulted);
	EXPECT_EQ(st.steps, st.fb_records + st.fb_overflows);
	EXPECT_EQ(0u, st.fb_overflows);
	EXPECT_EQ(seen, st.steps);
	EXPECT_EQ(0u, st.card_errors);
	EXPECT_EQ(st.ticks, st.lat_samples);
	ASSERT_EQ(0, cm_get(self->t.ctl, self->t.name, &self->info,
			    &self->comedi));
	EXPECT_EQ(0u, self->info.fault);
	EXPECT_EQ(0u, self->comedi.chan[0].clamps);
}

/* A file's text into @buf (NUL-terminated, truncated to @size - 1). */
static int slurp(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

/* The command line end to end: what "dev add" says is what the kernel
 * holds, "dev show" prints it so that it can be typed back, errors name
 * the parameter. */
TEST_F(comedi, rthsctl_add_show_set)
{
	char ctl[256], cmd[1024], out[4096], name[RTHS_NAME_LEN];
	const struct rths_comedi_chan *c;

	ASSERT_EQ(0, rthsctl_path(ctl, sizeof(ctl)));
	ASSERT_EQ(0, rths_ctl_open(&self->t.ctl));
	snprintf(name, sizeof(name), "cc%d", (int)getpid());
	snprintf(self->t.name, sizeof(self->t.name), "%s", name);
	snprintf(cmd, sizeof(cmd),
		 "%s dev add %s type comedi channels 2 device /dev/comedi0 "
		 "channel 0 force 1 range 1 scale-disp 7.62939453125um/count "
		 "offset-disp 30000 scale-force 0.5N "
		 "channel 1 ao 2 disp 2 range 1 aref ground scale-ao 3nm", ctl,
		 name);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, cm_get(self->t.ctl, name, &self->info, &self->comedi));
	c = &self->comedi.chan[0];
	EXPECT_EQ(1, c->force_chan);
	EXPECT_EQ(1u, c->force_range);
	EXPECT_EQ(1953125, c->disp.num);
	EXPECT_EQ(256u, c->disp.den);
	EXPECT_EQ(30000, c->disp.offset);
	EXPECT_EQ(30000, c->ao.offset);
	EXPECT_EQ(500000, c->force.num);
	c = &self->comedi.chan[1];
	EXPECT_EQ(2u, c->ao_chan);
	EXPECT_EQ(2u, c->disp_chan);
	EXPECT_EQ(1u, c->disp_range);
	EXPECT_EQ(3, c->ao.num);
	EXPECT_EQ(1, c->disp.num);

	snprintf(cmd, sizeof(cmd), "%s dev show %s > /tmp/cm-show.txt", ctl,
		 name);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, slurp("/tmp/cm-show.txt", out, sizeof(out)));
	EXPECT_TRUE(has(out, "comedi device /dev/comedi0 ao-subdev 1 ai-subdev 0 (board comedi_test, driver comedi_test)"))
		TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "channel 0 ao 0 range 0 disp 0 range 0 force 1 range 1 aref ground scale-disp 7629.39453125nm offset-disp 30000 scale-force 0.5N offset-force 32768"))
		TH_LOG("%s", out);
	EXPECT_TRUE(has(out, "channel 1 ao 2 range 0 disp 2 range 1 force none aref ground scale-disp 1nm offset-disp 32768 scale-ao 3nm offset-ao 32768"))
		TH_LOG("%s", out);

	/* set, and errors that name the parameter */
	snprintf(cmd, sizeof(cmd), "%s dev set %s channel 1 force 3 limit 0 force 10kN",
		 ctl, name);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, cm_get(self->t.ctl, name, &self->info, &self->comedi));
	EXPECT_EQ(3, self->comedi.chan[1].force_chan);
	EXPECT_EQ(10000.0, self->info.limits[0].force_max);
	snprintf(cmd, sizeof(cmd),
		 "%s dev set %s channel 1 disp 2 range 7 2> /tmp/cm-err.txt",
		 ctl, name);
	EXPECT_EQ(1, WEXITSTATUS(system(cmd)));
	ASSERT_EQ(0, slurp("/tmp/cm-err.txt", out, sizeof(out)));
	EXPECT_TRUE(has(out, "card-params.channels.channel[1].disp-range: displacement AI range beyond the channel's range table"))
		TH_LOG("%s", out);
}

/* rmmod rths_comedi mid-run stops and deletes the device and lets go of
 * comedi_test, which then unloads too. */
TEST_F_TIMEOUT(comedi, rmmod_during_a_run, 120)
{
	struct rths_dev_config cfg = {
		.set = RTHS_CFG_CLOCK | RTHS_CFG_STEP_TICKS,
		.clock = RTHS_CLOCK_HRTIMER,
		.step_ticks = 8,
	};
	struct rths_comedi_params p;
	struct rths_feedback fb;
	struct rths_dev_info info;
	uint64_t n;
	int err;

	params_init(&p);
	create(_metadata, &self->t, 2, &p, &cfg, &self->info,
	       &self->comedi);
	ASSERT_EQ(0, rt_start(&self->t));
	for (n = 1; n <= 20; n++)
		ASSERT_EQ(0, rt_post1(&self->t, n, (int64_t)n * 1000));
	ASSERT_EQ(0, rths_wait_feedback(self->t.dev, &fb, 10000, 0));
	EXPECT_EQ(self->base + 1, refcnt("comedi_test"));

	ASSERT_EQ(0, rt_sh("rmmod rths_comedi", NULL));
	EXPECT_FALSE(loaded("rths_comedi"));
	EXPECT_EQ(-ENODEV, rths_dev_get(self->t.ctl, self->t.name, &info,
					sizeof(info)));
	do {
		err = rths_wait_feedback(self->t.dev, &fb, 10000, 0);
	} while (err == 0);
	EXPECT_EQ(-ENODEV, err);
	EXPECT_EQ(self->base, refcnt("comedi_test"));
	rths_dev_close(self->t.dev);
	self->t.dev = NULL;
	EXPECT_EQ(0, rt_sh("rmmod comedi_test", NULL));
	EXPECT_FALSE(loaded("comedi_test"));
	EXPECT_EQ(0, rt_sh("rmmod kcomedilib", NULL));
}

/* ---- a board detached under a device --------------------------------------- */

static int devconfig(const char *node, const char *board)
{
	struct comedi_devconfig it;
	int fd = open(node, O_RDWR), ret;

	if (fd < 0)
		return -errno;
	memset(&it, 0, sizeof(it));
	if (board)
		snprintf(it.board_name, sizeof(it.board_name), "%s", board);
	ret = ioctl(fd, COMEDI_DEVCONFIG, board ? &it : NULL);
	ret = ret < 0 ? -errno : 0;
	close(fd);
	return ret;
}

static void unload_all(void)
{
	rt_sh("rmmod rths_comedi 2>/dev/null", NULL);
	rt_sh("rmmod comedi_test 2>/dev/null", NULL);
	rt_sh("rmmod kcomedilib 2>/dev/null", NULL);
	rt_sh("rmmod comedi 2>/dev/null", NULL);
}

/*
 * A legacy comedi_test device (configured with COMEDI_DEVCONFIG, so it
 * can be detached the same way while the device uses it): no board until
 * it is attached; once detached under the device, the next tick fails
 * with -ENODEV and the device faults, without touching freed memory.
 * Its fixture is empty: it loads and unloads comedi itself.  Four module
 * loads and as many unloads take longer than the harness's default 30 s
 * on a KASAN and lockdep kernel under emulation (make check-debug).
 */
FIXTURE(detach) {};
FIXTURE_SETUP(detach) {}
FIXTURE_TEARDOWN(detach) {}

TEST_F_TIMEOUT(detach, board_faults_the_device, 180)
{
	const char *kdir = getenv("RTHS_KMOD_DIR");
	struct rths_comedi_params p;
	struct rths_stats st;
	enum rths_state state;
	enum rths_reason reason;
	enum rths_fault fault;
	struct rt t;

	ASSERT_NE(NULL, kdir);
	unload_all();
	ASSERT_FALSE(loaded("comedi"));
	ASSERT_EQ(0, rt_sh("modprobe comedi comedi_num_legacy_minors=1", NULL));
	ASSERT_EQ(0, rt_sh("modprobe comedi_test noauto=1", NULL));
	ASSERT_EQ(0, rt_sh("modprobe kcomedilib", NULL));
	ASSERT_EQ(0, rt_sh("insmod %s/kernel/cards/rths_comedi.ko", kdir));

	/* not attached yet */
	params_init(&p);
	ASSERT_EQ(-ENODEV, cm_create(&t, "cd", 1, &p, NULL));
	EXPECT_TRUE(has(rths_ctl_error(t.ctl), "card-params.minor: no such comedi device, or it is not attached"));
	rths_ctl_close(t.ctl);

	ASSERT_EQ(0, devconfig("/dev/comedi0", "comedi_test"));
	ASSERT_EQ(0, cm_create(&t, "cd", 1, &p, NULL)) {
		TH_LOG("%s", rths_ctl_error(t.ctl));
	}
	ASSERT_EQ(0, rt_open(&t));
	ASSERT_EQ(0, rt_start(&t));
	ASSERT_EQ(0, rt_post1(&t, 1, 500));
	ASSERT_EQ(0, rt_tick(&t, 4));
	ASSERT_EQ(0, rt_state(&t, &state, NULL, NULL));
	EXPECT_EQ(RTHS_STATE_RUNNING, state);

	/* detach the board under the running device */
	ASSERT_EQ(0, devconfig("/dev/comedi0", NULL));
	ASSERT_EQ(0, rt_tick(&t, 4));
	ASSERT_EQ(0, rt_state(&t, &state, &reason, &fault));
	EXPECT_EQ(RTHS_STATE_FAULTED, state);
	EXPECT_EQ(RTHS_REASON_CARD, reason);
	EXPECT_EQ(RTHS_FAULT_CARD_IO, fault);
	ASSERT_EQ(0, rths_stats_get(t.ctl, t.name, &st));
	EXPECT_GE(st.card_errors, 1u);
	/* still held by the device; free once it is deleted */
	EXPECT_NE(0, rt_sh("rmmod comedi_test 2>/dev/null", NULL));
	rt_destroy(&t);
	EXPECT_EQ(0, rt_sh("rmmod rths_comedi", NULL));
	EXPECT_EQ(0, rt_sh("rmmod comedi_test", NULL));
	unload_all();
	EXPECT_FALSE(loaded("comedi"));
}

TEST_HARNESS_MAIN
