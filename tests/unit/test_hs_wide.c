// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's wide path: a backend with more channels than struct
 * rths_hs_feedback holds (rths-coord's sites, a channel an interface
 * coordinate), end to end against the all-numerical structure, and what
 * it refuses.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include <rths/hs.h>
#include <rths/hs_backend.h>
#include <rths/hs_sim.h>

#define NW 40	/* interface coordinates: over RTHS_HS_MAX_CHANNELS */

/* A linear spring on each coordinate behind a perfect actuator, the
 * specimen computed in-process: force i = k_i * command i. */
struct springs {
	size_t n;
	double k[NW], x[NW];
	uint64_t posted;
};

static int sp_start(void *priv, struct rths_error *err)
{
	return 0;
}

static int sp_post(void *priv, uint64_t step, const double *target,
		   struct rths_error *err)
{
	struct springs *s = priv;

	memcpy(s->x, target, s->n * sizeof(double));
	s->posted = step;
	return 0;
}

static int sp_wait(void *priv, uint64_t step,
		   struct rths_hs_feedback_wide *fb, struct rths_error *err)
{
	struct springs *s = priv;

	fb->step = s->posted;
	fb->tick = step;
	fb->time_ns = 0;
	fb->flags = 0;
	fb->late_ticks = 0;
	for (size_t i = 0; i < s->n; i++) {
		fb->command[i] = s->x[i];
		fb->disp[i] = s->x[i];
		fb->force[i] = s->k[i] * s->x[i];
	}
	return 0;
}

static int sp_narrow_wait(void *priv, uint64_t step,
			  struct rths_hs_feedback *fb, struct rths_error *err)
{
	return -EIO;	/* never reached: the engine refuses first */
}

static int sp_nop(void *priv, struct rths_error *err)
{
	return 0;
}

static const struct rths_hs_backend_wide_ops wide_ops = {
	.ops = { .name = "springs", .start = sp_start, .post = sp_post,
		 .hold = sp_nop, .stop = sp_nop },
	.wait_wide = sp_wait,
};

/* The same backend claiming its channels through the narrow record. */
static const struct rths_hs_backend_ops narrow_ops = {
	.name = "narrow", .start = sp_start, .post = sp_post,
	.wait = sp_narrow_wait, .hold = sp_nop, .stop = sp_nop,
};

/* A chain of NW floors, 1 MN/m between them, the springs to ground on
 * every floor the specimen (story drifts as the interface: T is not the
 * identity, F = T^T). */
struct chain {
	struct rths_hs_model num, full;
	struct rths_hs_substructure sub;
	struct rths_hs_setup setup;
	struct rths_hs_gm gm;
	struct springs sp;
	struct rths_hs_backend b;
	double k_if[NW * NW];
};

static int chain_init(struct chain *ch, size_t n)
{
	struct rths_hs_synth_params sp;
	double m[NW], k[NW];

	memset(ch, 0, sizeof(*ch));
	for (size_t i = 0; i < n; i++) {
		m[i] = 1000;
		k[i] = 0;	/* the stories are the specimen's */
		ch->sp.k[i] = 1.0e6 + 2.0e4 * (double)i;
		ch->k_if[i * n + i] = ch->sp.k[i];
	}
	ch->sp.n = n;
	if (rths_hs_model_shear_building(&ch->num, n, m, k, NULL) ||
	    rths_hs_substructure_init(&ch->sub, n, n, NULL))
		return -1;
	/* coordinate i: story i's drift u_i - u_{i-1} (cmd_map n x n,
	 * column-major) */
	for (size_t i = 0; i < n; i++) {
		ch->sub.cmd_map[i * n + i] = 1;
		if (i)
			ch->sub.cmd_map[(i - 1) * n + i] = -1;
	}
	rths_hs_substructure_force_map_transpose(&ch->sub);
	if (rths_hs_model_with_specimen(&ch->full, &ch->num, &ch->sub,
					ch->k_if, NULL, NULL))
		return -1;
	/* rths_hs_setup_direct() stops at 16: a direct setup is its size */
	ch->setup.kind = RTHS_HS_SETUP_DIRECT;
	ch->setup.dim = n;
	ch->setup.n_act = n;
	ch->b.ops = &wide_ops.ops;
	ch->b.priv = &ch->sp;
	ch->b.channels = (uint32_t)n;
	ch->b.rate = 1024;
	ch->b.step_ticks = 2;
	rths_hs_synth_defaults(&sp);
	sp.duration = 2.0;
	sp.t_rise = 0.3;
	sp.t_strong = 1.0;
	sp.dt = 0.01;
	return rths_hs_gm_synthetic(&ch->gm, &sp, NULL);
}

static void chain_free(struct chain *ch)
{
	rths_hs_model_free(&ch->num);
	rths_hs_model_free(&ch->full);
	rths_hs_substructure_free(&ch->sub);
	rths_hs_gm_free(&ch->gm);
}

static void chain_config(struct rths_hs_sim_config *c, struct chain *ch)
{
	memset(c, 0, sizeof(*c));
	c->model = &ch->num;
	c->sub = &ch->sub;
	c->setup = &ch->setup;
	c->backend = &ch->b;
	c->k_if = ch->k_if;
	c->gm = &ch->gm;
	rths_hs_stepper_defaults(&c->integrator, RTHS_HS_CR, 2.0 / 1024);
}

/*
 * 40 coordinates through the wide path give the all-numerical
 * structure's response to rounding (as a narrow linear specimen does in
 * test_hs_sim.c: the same arithmetic up to the order of the sums), and
 * every coordinate's measured force is its spring's.
 */
TEST(wide_backend_matches_all_numerical)
{
	struct rths_hs_sim_config c, cn;
	struct rths_hs_history h, hn;
	struct rths_hs_run_result res, resn;
	struct rths_error err = { 0 };
	struct chain ch;
	double worst = 0, peak = 0;

	ASSERT_EQ(0, chain_init(&ch, NW));
	chain_config(&c, &ch);
	ASSERT_EQ(0, rths_hs_sim_run(&c, &h, &res, &err)) TH_LOG("%s", err.msg);
	chain_config(&cn, &ch);
	cn.model = &ch.full;
	cn.sub = NULL;
	cn.setup = NULL;
	cn.backend = NULL;
	cn.k_if = NULL;
	ASSERT_EQ(0, rths_hs_sim_run(&cn, &hn, &resn, NULL));
	ASSERT_EQ(1024, res.steps_done);
	ASSERT_EQ(NW, h.n_act);
	ASSERT_EQ(h.rows, hn.rows);
	for (size_t i = 0; i < h.rows * h.n_dof; i++) {
		worst = fmax(worst, fabs(h.u[i] - hn.u[i]));
		peak = fmax(peak, fabs(hn.u[i]));
	}
	TH_LOG("%d coordinates: peak %.4g m, worst difference %.3g m", NW,
	       peak, worst);
	EXPECT_GT(peak, 1e-3);
	EXPECT_LT(worst, 1e-9 * peak);
	/* the last coordinate's force at step 500 is its spring's */
	EXPECT_EQ(ch.sp.k[NW - 1] * h.disp[500 * NW + NW - 1],
		  h.force[500 * NW + NW - 1]);
	EXPECT_NE(0, h.force[500 * NW + NW - 1]);
	rths_hs_history_free(&h);
	rths_hs_history_free(&hn);
	chain_free(&ch);
}

TEST(wide_path_refuses)
{
	struct rths_hs_feedback_wide fbw = { 0 };
	struct rths_hs_feedback fb;
	struct rths_hs_sim_config c;
	struct rths_hs_history h;
	struct rths_hs_run_result res;
	struct rths_error err = { 0 };
	double arr[3 * NW];
	struct chain ch;

	ASSERT_EQ(0, chain_init(&ch, NW));
	chain_config(&c, &ch);

	/* a backend whose feedback record holds 16 cannot have 40 */
	ch.b.ops = &narrow_ops;
	EXPECT_EQ(-RTHS_E_UNSUPPORTED, rths_hs_sim_run(&c, &h, &res, &err));
	EXPECT_STREQ("channels", err.path);
	EXPECT_NE(NULL, strstr(err.msg, "rths_hs_backend_wide_ops"))
		TH_LOG("%s", err.msg);
	ch.b.ops = &wide_ops.ops;

	/* more than 16 actuators only with a direct setup */
	ch.setup.kind = RTHS_HS_SETUP_ACTUATORS;
	EXPECT_EQ(-RTHS_E_UNSUPPORTED, rths_hs_sim_run(&c, &h, &res, &err));
	EXPECT_STREQ("setup", err.path);
	ch.setup.kind = RTHS_HS_SETUP_DIRECT;

	/* more than RTHS_HS_MAX_INTERFACE channels */
	ch.b.channels = RTHS_HS_MAX_INTERFACE + 1;
	ch.setup.n_act = ch.setup.dim = RTHS_HS_MAX_INTERFACE + 1;
	ch.sub.n_if = RTHS_HS_MAX_INTERFACE + 1;
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE, rths_hs_sim_run(&c, &h, &res, &err));
	EXPECT_STREQ("channels", err.path);
	ch.b.channels = ch.setup.n_act = ch.setup.dim = ch.sub.n_if = NW;

	/* the narrow wait on a wide backend; the wide one with short arrays */
	EXPECT_EQ(-RTHS_E_UNSUPPORTED, rths_hs_backend_wait(&ch.b, 1, &fb,
							    &err));
	fbw.channels = NW - 1;
	fbw.command = arr;
	fbw.disp = arr + NW;
	fbw.force = arr + 2 * NW;
	EXPECT_EQ(-EINVAL, rths_hs_backend_wait_wide(&ch.b, 1, &fbw, &err));
	EXPECT_STREQ("channels", err.path);
	chain_free(&ch);
}

/* rths_hs_backend_wait_wide() on a narrow backend copies its record. */
TEST(wide_wait_on_narrow_backend)
{
	struct rths_hs_offline_params op;
	struct rths_hs_feedback_wide fb;
	struct rths_hs_setup s;
	struct rths_hs_backend b;
	double k = 2.0e6, x[2] = { 0.01, -0.02 }, arr[3 * 2];

	ASSERT_EQ(0, rths_hs_setup_direct(&s, 2, NULL));
	rths_hs_offline_defaults(&op);
	op.setup = &s;
	op.k = (double[4]){ k, 0, 0, k };
	ASSERT_EQ(0, rths_hs_offline_open(&b, &op, NULL));
	ASSERT_EQ(0, rths_hs_backend_start(&b, NULL));
	ASSERT_EQ(0, rths_hs_backend_post(&b, 1, x, NULL));
	fb = (struct rths_hs_feedback_wide){ .channels = 2, .command = arr,
					     .disp = arr + 2,
					     .force = arr + 4 };
	ASSERT_EQ(0, rths_hs_backend_wait_wide(&b, 1, &fb, NULL));
	EXPECT_EQ(1, fb.step);
	EXPECT_EQ(2, fb.channels);
	EXPECT_EQ(x[1], fb.command[1]);
	EXPECT_EQ(x[1], fb.disp[1]);
	EXPECT_LT(fabs(k * x[1] - fb.force[1]), 1e-6 * k * fabs(x[1]));
	rths_hs_backend_stop(&b, NULL);
	rths_hs_backend_close(&b);
}

TEST_HARNESS_MAIN
