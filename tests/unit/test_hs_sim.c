// SPDX-License-Identifier: GPL-2.0
/*
 * The hybrid loop end to end with the offline backend: RTHS against the
 * all-numerical structure, actuator dynamics, compensation, interrupts,
 * and the step-size preview.
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

#include "hs/preview_impl.h"

/* Two-story shear frame; the first-story column is the specimen. */
struct frame {
	struct rths_hs_model num;	/* numerical part (story 2) */
	struct rths_hs_model full;	/* all-numerical structure */
	struct rths_hs_substructure sub;
	struct rths_hs_setup setup;
	struct rths_hs_gm gm;
	double ks, cs;
};

static int frame_init(struct frame *fr, double cs, double duration)
{
	double m[2] = { 1000, 1000 }, k[2] = { 0, 1.0e6 }, kfull[2];
	struct rths_hs_synth_params sp;
	double w[2], a0, a1;

	memset(fr, 0, sizeof(*fr));
	fr->ks = 1.19e6;
	fr->cs = cs;
	kfull[0] = fr->ks;
	kfull[1] = k[1];
	/* Rayleigh 5 % on the whole structure's first two modes. */
	if (rths_hs_model_shear_building(&fr->num, 2, m, k, NULL) ||
	    rths_hs_model_shear_building(&fr->full, 2, m, kfull, NULL) ||
	    rths_hs_model_frequencies(&fr->full, NULL, w, NULL, NULL))
		return -1;
	rths_hs_rayleigh_coefficients(w[0], w[1], 0.05, 0.05, &a0, &a1);
	rths_hs_model_set_rayleigh(&fr->num, a0, a1);
	if (rths_hs_substructure_init(&fr->sub, 2, 1, NULL))
		return -1;
	fr->sub.cmd_map[0] = 1;	/* first-story drift = u_1 */
	rths_hs_substructure_force_map_transpose(&fr->sub);
	/* Same numerical damping; the specimen brings its own. */
	rths_hs_model_free(&fr->full);
	if (rths_hs_model_with_specimen(&fr->full, &fr->num, &fr->sub,
					&fr->ks, &fr->cs, NULL) ||
	    rths_hs_setup_direct(&fr->setup, 1, NULL))
		return -1;
	rths_hs_synth_defaults(&sp);
	sp.duration = duration;
	sp.t_rise = 0.5;
	sp.t_strong = 1.5;
	sp.dt = 0.01;
	return rths_hs_gm_synthetic(&fr->gm, &sp, NULL);
}

static void frame_free(struct frame *fr)
{
	rths_hs_model_free(&fr->num);
	rths_hs_model_free(&fr->full);
	rths_hs_substructure_free(&fr->sub);
	rths_hs_gm_free(&fr->gm);
}

static void config(struct rths_hs_sim_config *c, struct frame *fr,
		   struct rths_hs_backend *b, enum rths_hs_method meth,
		   double dt)
{
	memset(c, 0, sizeof(*c));
	c->model = &fr->num;
	c->sub = &fr->sub;
	c->setup = &fr->setup;
	c->backend = b;
	c->k_if = &fr->ks;
	c->gm = &fr->gm;
	rths_hs_stepper_defaults(&c->integrator, meth, dt);
}

static int offline(struct rths_hs_backend *b, const struct rths_hs_setup *s,
		   const double *k, const double *c, uint32_t ticks,
		   double lag, uint32_t delay)
{
	struct rths_hs_offline_params op;

	rths_hs_offline_defaults(&op);
	op.setup = s;
	op.k = k;
	op.c = c;
	op.step_ticks = ticks;
	op.lag = lag;
	op.delay_ticks = delay;
	return rths_hs_offline_open(b, &op, NULL);
}

/* Worst |u_rths - u_num| over all floors and steps, and the peak. */
static double compare(const struct rths_hs_history *a,
		      const struct rths_hs_history *b, double *peak)
{
	double worst = 0;

	*peak = 0;
	for (size_t i = 0; i < a->rows * a->n_dof; i++) {
		worst = fmax(worst, fabs(a->u[i] - b->u[i]));
		*peak = fmax(*peak, fabs(b->u[i]));
	}
	return worst;
}

/*
 * A linear spring specimen behind a perfect actuator: the integrator
 * gets k * (its own command) back, which is what the all-numerical model
 * computes inside K u.  The two runs do the same arithmetic up to the
 * order of the sums, so they differ by rounding only: about 1e-16 of
 * the response per step, growing at most linearly over the 2048 steps of
 * a stable, dissipative recurrence, so below 1e-12 of the peak; 1e-9
 * leaves room for the ground motion interpolation at shifted times.
 */
TEST(linear_specimen_matches_all_numerical)
{
	enum rths_hs_method m[] = { RTHS_HS_CR, RTHS_HS_KR_ALPHA,
				    RTHS_HS_ALPHA_OS };
	struct frame fr;

	ASSERT_EQ(0, frame_init(&fr, 0, 4.0));
	for (int i = 0; i < 3; i++) {
		struct rths_hs_sim_config c, cn;
		struct rths_hs_history h, hn;
		struct rths_hs_run_result res, resn;
		struct rths_hs_backend b;
		double worst, peak;

		ASSERT_EQ(0, offline(&b, &fr.setup, &fr.ks, NULL, 2, 0, 0));
		config(&c, &fr, &b, m[i], 2.0 / 1024);
		ASSERT_EQ(0, rths_hs_sim_run(&c, &h, &res, NULL));
		config(&cn, &fr, NULL, m[i], 2.0 / 1024);
		cn.model = &fr.full;
		cn.sub = NULL;
		cn.setup = NULL;
		ASSERT_EQ(0, rths_hs_sim_run(&cn, &hn, &resn, NULL));
		ASSERT_EQ(2048, res.steps_done);
		ASSERT_EQ(h.rows, hn.rows);
		worst = compare(&h, &hn, &peak);
		TH_LOG("%s: peak %.4g m, worst difference %.3g m",
		       rths_hs_method_name(m[i]), peak, worst);
		EXPECT_GT(peak, 1e-3);
		EXPECT_LT(worst, 1e-9 * peak);
		/* The specimen's measured force is k times its stroke. */
		EXPECT_LT(fabs(h.force[1000] - fr.ks * h.disp[1000]),
			  1e-9 * fr.ks * peak);
		rths_hs_history_free(&h);
		rths_hs_history_free(&hn);
		rths_hs_backend_close(&b);
	}
	frame_free(&fr);
}

/*
 * A specimen damper sees the actuator's ramp velocity (u_{n+1} - u_n)/dt
 * where the all-numerical model uses the integrator's v_{n+1}.  For CR
 * they are the same number (u_{n+1} = u_n + dt v_{n+1}), so a damped
 * specimen still matches to rounding.  KR-alpha with rho_inf < 1 puts
 * (gamma - 1/2) dt alpha1 a_n between them: a mismatch of first order in
 * dt, which halves with the step.
 */
TEST(damped_specimen_cr_exact_kr_alpha_first_order)
{
	enum rths_hs_method m[] = { RTHS_HS_CR, RTHS_HS_KR_ALPHA };
	struct frame fr;

	ASSERT_EQ(0, frame_init(&fr, 2e3, 4.0));
	for (int k = 0; k < 2; k++) {
		double err[2], peak = 0;

		for (int i = 0; i < 2; i++) {
			struct rths_hs_sim_config c, cn;
			struct rths_hs_history h, hn;
			struct rths_hs_run_result res;
			struct rths_hs_backend b;
			uint32_t ticks = i ? 2 : 4;

			ASSERT_EQ(0, offline(&b, &fr.setup, &fr.ks, &fr.cs,
					     ticks, 0, 0));
			config(&c, &fr, &b, m[k], ticks / 1024.0);
			c.integrator.rho_inf = 0.6;
			c.c_if = &fr.cs;
			ASSERT_EQ(0, rths_hs_sim_run(&c, &h, &res, NULL));
			cn = c;
			cn.model = &fr.full;
			cn.sub = NULL;
			cn.setup = NULL;
			cn.backend = NULL;
			ASSERT_EQ(0, rths_hs_sim_run(&cn, &hn, &res, NULL));
			err[i] = compare(&h, &hn, &peak);
			rths_hs_history_free(&h);
			rths_hs_history_free(&hn);
			rths_hs_backend_close(&b);
		}
		TH_LOG("%s: mismatch %.3g -> %.3g m (peak %.3g m)",
		       rths_hs_method_name(m[k]), err[0], err[1], peak);
		if (m[k] == RTHS_HS_CR) {
			EXPECT_LT(err[0], 1e-9 * peak);
		} else {
			EXPECT_LT(err[0], 0.02 * peak);
			EXPECT_GT(err[0] / err[1], 1.6);
			EXPECT_LT(err[0] / err[1], 2.4);
		}
	}
	frame_free(&fr);
}

/* dt must be d / f_ctrl of the backend. */
TEST(step_must_match_backend)
{
	struct rths_hs_sim_config c;
	struct rths_hs_history h;
	struct rths_hs_run_result res;
	struct rths_hs_backend b;
	struct rths_error err;
	struct frame fr;

	ASSERT_EQ(0, frame_init(&fr, 0, 1.0));
	ASSERT_EQ(0, offline(&b, &fr.setup, &fr.ks, NULL, 4, 0, 0));
	config(&c, &fr, &b, RTHS_HS_CR, 2.0 / 1024);
	EXPECT_EQ(-EINVAL, rths_hs_sim_run(&c, &h, &res, &err));
	TH_LOG("%s", err.msg);
	rths_hs_backend_close(&b);
	frame_free(&fr);
}

/*
 * The patent's decoupling in the loop: a mass moving in x and y on a
 * specimen loaded by two actuators at an angle.  The backend turns
 * strokes into the point (Gauss-Newton) and the specimen force into
 * actuator forces; the loop inverts both.  Newton stops at 1e-12 m, far
 * below the 1e-9 relative tolerance of the rounding argument above.
 */
TEST(planar_two_actuators_match_all_numerical)
{
	static const double ends[2][3] = { { -1.2, -0.4, 0 }, { 0.3, -1.5, 0 } };
	double kif[4] = { 2.0e6, 0.3e6, 0.3e6, 1.5e6 }, kx = 0.8e6;
	struct rths_hs_model num, full;
	struct rths_hs_substructure sub;
	struct rths_hs_synth_params sp;
	struct rths_hs_sim_config c, cn;
	struct rths_hs_history h, hn;
	struct rths_hs_run_result res;
	struct rths_hs_backend b;
	struct rths_hs_setup s;
	struct rths_hs_gm gm;
	double worst, peak;

	ASSERT_EQ(0, rths_hs_model_init(&num, 2, NULL));
	num.m[0] = num.m[3] = 800;
	num.k[0] = kx;		/* a numerical brace in x only */
	num.r[1] = 0.6;		/* shaking at an angle */
	rths_hs_model_set_rayleigh(&num, 0.5, 0.002);
	ASSERT_EQ(0, rths_hs_substructure_init(&sub, 2, 2, NULL));
	sub.cmd_map[0] = sub.cmd_map[3] = 1;
	rths_hs_substructure_force_map_transpose(&sub);
	ASSERT_EQ(0, rths_hs_model_with_specimen(&full, &num, &sub, kif, NULL,
						 NULL));
	ASSERT_EQ(0, rths_hs_setup_actuators(&s, 2, 2, ends, NULL, NULL, NULL));
	rths_hs_synth_defaults(&sp);
	sp.duration = 3;
	sp.dt = 0.01;
	ASSERT_EQ(0, rths_hs_gm_synthetic(&gm, &sp, NULL));
	ASSERT_EQ(0, offline(&b, &s, kif, NULL, 1, 0, 0));
	memset(&c, 0, sizeof(c));
	c.model = &num;
	c.sub = &sub;
	c.setup = &s;
	c.backend = &b;
	c.k_if = kif;
	c.gm = &gm;
	rths_hs_stepper_defaults(&c.integrator, RTHS_HS_KR_ALPHA, 1.0 / 1024);
	ASSERT_EQ(0, rths_hs_sim_run(&c, &h, &res, NULL));
	cn = c;
	cn.model = &full;
	cn.sub = NULL;
	cn.setup = NULL;
	cn.backend = NULL;
	ASSERT_EQ(0, rths_hs_sim_run(&cn, &hn, &res, NULL));
	worst = compare(&h, &hn, &peak);
	TH_LOG("peak %.4g m, worst difference %.3g m", peak, worst);
	EXPECT_GT(peak, 1e-3);
	EXPECT_LT(worst, 1e-9 * peak);
	/* Both actuators did work: the geometry couples x and y. */
	EXPECT_GT(fabs(h.force[2 * 1500]), 1.0);
	EXPECT_GT(fabs(h.force[2 * 1500 + 1]), 1.0);
	rths_hs_history_free(&h);
	rths_hs_history_free(&hn);
	rths_hs_backend_close(&b);
	rths_hs_model_free(&num);
	rths_hs_model_free(&full);
	rths_hs_substructure_free(&sub);
	rths_hs_gm_free(&gm);
}

struct stopper {
	volatile sig_atomic_t flag;
	uint64_t at;
};

static void stop_at(void *ctx, uint64_t step, uint64_t steps)
{
	struct stopper *s = ctx;

	(void)steps;
	if (step == s->at)
		s->flag = 1;
}

TEST(stop_flag_holds_and_keeps_history)
{
	struct stopper sp = { .at = 300 };
	struct rths_hs_sim_config c;
	struct rths_hs_history h;
	struct rths_hs_run_result res;
	struct rths_hs_backend b;
	struct rths_error err;
	struct frame fr;
	double x = 0;

	ASSERT_EQ(0, frame_init(&fr, 0, 2.0));
	ASSERT_EQ(0, offline(&b, &fr.setup, &fr.ks, NULL, 1, 0, 0));
	config(&c, &fr, &b, RTHS_HS_CR, 1.0 / 1024);
	c.stop = &sp.flag;
	c.progress = stop_at;
	c.progress_ctx = &sp;
	c.progress_every = 1;
	ASSERT_EQ(0, rths_hs_sim_run(&c, &h, &res, NULL));
	EXPECT_TRUE(res.interrupted);
	EXPECT_TRUE(res.held);
	EXPECT_EQ(300, res.steps_done);
	EXPECT_EQ(301, h.rows);
	EXPECT_EQ(2048, res.steps_planned);
	/* A held backend takes no more commands. */
	EXPECT_EQ(-RTHS_E_BACKEND, rths_hs_backend_post(&b, 301, &x, &err));
	rths_hs_history_free(&h);
	rths_hs_backend_close(&b);
	frame_free(&fr);
}

/* J2 of actuator 0 with an actuator that lags ~12 ms. */
static double run_j2(struct frame *fr, enum rths_hs_comp_kind kind,
		     double *j1)
{
	struct rths_hs_comp_params cp;
	struct rths_hs_sim_config c;
	struct rths_hs_history h;
	struct rths_hs_run_result res;
	struct rths_hs_tracking tr;
	struct rths_hs_backend b;

	if (offline(&b, &fr->setup, &fr->ks, NULL, 1, 0.004, 8) < 0)
		return INFINITY;
	config(&c, fr, &b, RTHS_HS_CR, 1.0 / 1024);
	rths_hs_comp_defaults(&cp, kind, c.integrator.dt);
	cp.delay = 0.008;
	cp.order = 2;
	c.comp = &cp;
	if (rths_hs_sim_run(&c, &h, &res, NULL) < 0)
		return INFINITY;
	rths_hs_tracking(h.target, h.disp, h.rows, 1, h.dt, 50, &tr);
	*j1 = tr.j1_ms;
	rths_hs_history_free(&h);
	rths_hs_backend_close(&b);
	return tr.j2_pct;
}

TEST(compensation_lowers_tracking_error)
{
	double j2_none, j2_poly, j2_ats, d_none, d_poly, d_ats;
	struct frame fr;

	ASSERT_EQ(0, frame_init(&fr, 0, 6.0));
	j2_none = run_j2(&fr, RTHS_HS_COMP_NONE, &d_none);
	j2_poly = run_j2(&fr, RTHS_HS_COMP_POLYNOMIAL, &d_poly);
	j2_ats = run_j2(&fr, RTHS_HS_COMP_ATS, &d_ats);
	TH_LOG("J2 (J1): none %.2f %% (%.1f ms), polynomial %.2f %% (%.1f ms), ATS %.2f %% (%.1f ms)",
	       j2_none, d_none, j2_poly, d_poly, j2_ats, d_ats);
	/* 8 ticks of delay + 4 ms lag: about 12 ms. */
	EXPECT_GT(d_none, 9);
	EXPECT_LT(d_none, 15);
	EXPECT_LT(j2_poly, j2_none / 2);
	EXPECT_LT(j2_ats, j2_none / 2);
	EXPECT_LT(fabs(d_ats), 2);
	frame_free(&fr);
}

TEST(offline_actuator_delay_and_lag)
{
	struct rths_hs_offline_params op;
	struct rths_hs_feedback fb;
	struct rths_hs_backend b;
	struct rths_hs_setup s;
	double x = 1e-3, k = 1e5;

	ASSERT_EQ(0, rths_hs_setup_direct(&s, 1, NULL));
	rths_hs_offline_defaults(&op);
	op.rate = 1000;
	op.setup = &s;
	op.k = &k;
	op.delay_ticks = 5;
	ASSERT_EQ(0, rths_hs_offline_open(&b, &op, NULL));
	ASSERT_EQ(0, rths_hs_backend_start(&b, NULL));
	for (uint64_t n = 1; n <= 6; n++) {
		ASSERT_EQ(0, rths_hs_backend_post(&b, n, &x, NULL));
		ASSERT_EQ(0, rths_hs_backend_wait(&b, n, &fb, NULL));
		EXPECT_EQ(n <= 5 ? 0 : x, fb.disp[0]);
		EXPECT_EQ(k * fb.disp[0], fb.force[0]);
		EXPECT_EQ(x, fb.command[0]);
	}
	EXPECT_EQ(6000000, fb.time_ns);
	EXPECT_EQ(-RTHS_E_BACKEND, rths_hs_backend_post(&b, 8, &x, NULL));
	EXPECT_EQ(-RTHS_E_BACKEND, rths_hs_backend_wait(&b, 7, &fb, NULL));
	rths_hs_backend_close(&b);

	/*
	 * First-order lag, discretized exactly per tick: once the target
	 * stays put, the remaining error shrinks by exp(-h / tau) a tick,
	 * exp(-4 h / tau) a step of 4 ticks.
	 */
	op.delay_ticks = 0;
	op.lag = 0.01;
	op.step_ticks = 4;
	ASSERT_EQ(0, rths_hs_offline_open(&b, &op, NULL));
	ASSERT_EQ(0, rths_hs_backend_start(&b, NULL));
	for (uint64_t n = 1; n <= 10; n++) {
		double before = x - fb.disp[0];

		ASSERT_EQ(0, rths_hs_backend_post(&b, n, &x, NULL));
		ASSERT_EQ(0, rths_hs_backend_wait(&b, n, &fb, NULL));
		if (n >= 3)
			EXPECT_LT(fabs((x - fb.disp[0]) / before -
				       exp(-4e-3 / 0.01)), 1e-9);
	}
	rths_hs_backend_close(&b);
}

TEST(offline_noise_is_seeded_and_bounded)
{
	struct rths_hs_offline_params op;
	struct rths_hs_feedback fa, fb;
	struct rths_hs_backend a, b;
	struct rths_hs_setup s;
	double x = 2e-3, k = 1e6;
	int same = 1;

	ASSERT_EQ(0, rths_hs_setup_direct(&s, 1, NULL));
	rths_hs_offline_defaults(&op);
	op.setup = &s;
	op.k = &k;
	op.noise_disp = 1e-6;
	op.noise_force = 0.5;
	op.seed = 42;
	op.quantize = true;
	ASSERT_EQ(0, rths_hs_offline_open(&a, &op, NULL));
	ASSERT_EQ(0, rths_hs_offline_open(&b, &op, NULL));
	rths_hs_backend_start(&a, NULL);
	rths_hs_backend_start(&b, NULL);
	for (uint64_t n = 1; n <= 200; n++) {
		rths_hs_backend_post(&a, n, &x, NULL);
		rths_hs_backend_post(&b, n, &x, NULL);
		rths_hs_backend_wait(&a, n, &fa, NULL);
		rths_hs_backend_wait(&b, n, &fb, NULL);
		same &= fa.disp[0] == fb.disp[0] && fa.force[0] == fb.force[0];
		EXPECT_LE(fabs(fa.disp[0] - x), 1e-6 + 1e-9);
		EXPECT_LE(fabs(fa.force[0] - k * x), 0.5 + 1e-6);
		/* Quantized like the device: whole nanometres. */
		EXPECT_LT(fabs(fa.disp[0] * 1e9 - nearbyint(fa.disp[0] * 1e9)),
			  1e-3);
	}
	EXPECT_TRUE(same);
	rths_hs_backend_close(&a);
	rths_hs_backend_close(&b);
}

/*
 * The device's limits on the offline backend, as the kernel applies them
 * (kernel/loop.c): the command interpolated over a step of 10 ticks from
 * 0 to 3 mm passes 2 mm at tick 7 (2.1 mm); the backend holds there, the
 * step's wait and every later post say "holding (reason limit", and the
 * stats count one trip.  A velocity limit trips on the first tick whose
 * command moves faster; a force limit on the specimen's force.
 */
static int limited(struct rths_hs_backend *b, const struct rths_hs_setup *s,
		   const double *k, const struct rths_hs_channel_limits *l)
{
	struct rths_hs_offline_params op;

	rths_hs_offline_defaults(&op);
	op.rate = 1000;
	op.step_ticks = 10;
	op.setup = s;
	op.k = k;
	if (rths_hs_offline_open(b, &op, NULL))
		return -1;
	if (rths_hs_offline_set_limits(b, l, 1, NULL))
		return -1;
	return rths_hs_backend_start(b, NULL);
}

/* Steps to @x, @n of them; the error of the first that fails, in @err. */
static int steps_to(struct rths_hs_backend *b, double x, int n,
		    struct rths_error *err)
{
	struct rths_hs_feedback fb;

	for (int i = 1; i <= n; i++) {
		int r = rths_hs_backend_post(b, (uint64_t)i, &x, err);

		if (r == 0)
			r = rths_hs_backend_wait(b, (uint64_t)i, &fb, err);
		if (r)
			return i;
	}
	return 0;
}

TEST(offline_limits_hold_as_the_kernel)
{
	struct rths_hs_channel_limits l = { 0 };
	struct rths_hs_backend_stats st;
	struct rths_hs_backend b;
	struct rths_hs_setup s;
	struct rths_error err = { 0 };
	double k = 1e6, x = 3e-3;

	ASSERT_EQ(0, rths_hs_setup_direct(&s, 1, NULL));
	/* No limits: 3 mm is reached. */
	ASSERT_EQ(0, limited(&b, &s, &k, &l));
	EXPECT_EQ(0, steps_to(&b, x, 3, &err));
	rths_hs_backend_close(&b);

	/* Stroke: +-2 mm. */
	l.set = RTHS_HS_LIM_STROKE_MIN | RTHS_HS_LIM_STROKE_MAX;
	l.stroke_min = -2e-3;
	l.stroke_max = 2e-3;
	ASSERT_EQ(0, limited(&b, &s, &k, &l));
	EXPECT_EQ(0, steps_to(&b, 1.9e-3, 2, &err));
	rths_hs_backend_stop(&b, NULL);
	rths_hs_backend_start(&b, NULL);
	EXPECT_EQ(1, steps_to(&b, x, 3, &err));
	TH_LOG("%s", err.msg);
	EXPECT_EQ(-RTHS_E_BACKEND, err.code);
	EXPECT_NE(NULL, strstr(err.msg, "holding (reason limit"));
	EXPECT_NE(NULL, strstr(err.msg, "channel 0 stroke 0.0021 m"));
	EXPECT_NE(NULL, strstr(err.msg, "tick 7 of step 1"));
	/* Held: nothing more moves. */
	EXPECT_EQ(-RTHS_E_BACKEND, rths_hs_backend_post(&b, 2, &x, &err));
	EXPECT_NE(NULL, strstr(err.msg, "holding (reason limit"));
	ASSERT_EQ(0, rths_hs_backend_stats(&b, &st));
	EXPECT_EQ(1, st.limit_trips);
	EXPECT_EQ(0, st.steps);
	EXPECT_EQ(0, rths_hs_backend_hold(&b, NULL));
	rths_hs_backend_close(&b);

	/* The negative side too. */
	ASSERT_EQ(0, limited(&b, &s, &k, &l));
	EXPECT_EQ(1, steps_to(&b, -x, 3, &err));
	EXPECT_NE(NULL, strstr(err.msg, "stroke -0.0021 m"));
	rths_hs_backend_close(&b);

	/* Velocity: 0.25 mm a tick is 0.25 m/s; 0.2 m/s is the limit. */
	l.set = RTHS_HS_LIM_VELOCITY_MAX;
	l.velocity_max = 0.2;
	ASSERT_EQ(0, limited(&b, &s, &k, &l));
	EXPECT_EQ(0, steps_to(&b, 1.5e-3, 1, &err));	/* 0.15 m/s */
	rths_hs_backend_close(&b);
	ASSERT_EQ(0, limited(&b, &s, &k, &l));
	EXPECT_EQ(1, steps_to(&b, 2.5e-3, 1, &err));
	EXPECT_NE(NULL, strstr(err.msg, "velocity 0.25 m/s"));
	EXPECT_NE(NULL, strstr(err.msg, "tick 1 of step 1"));
	rths_hs_backend_close(&b);

	/* Force: 1e6 N/m at 2.1 mm is 2.1 kN, past 2 kN. */
	l.set = RTHS_HS_LIM_FORCE_MAX;
	l.force_max = 2000;
	ASSERT_EQ(0, limited(&b, &s, &k, &l));
	EXPECT_EQ(1, steps_to(&b, x, 3, &err));
	EXPECT_NE(NULL, strstr(err.msg, "force 2100 N"));
	EXPECT_NE(NULL, strstr(err.msg, "tick 7 of step 1"));
	rths_hs_backend_close(&b);

	/* Only the offline backend takes them; only before start. */
	ASSERT_EQ(0, limited(&b, &s, &k, NULL));
	EXPECT_EQ(-EBUSY, rths_hs_offline_set_limits(&b, &l, 1, NULL));
	rths_hs_backend_close(&b);
}

/* The frame for 2 s under an injected clock, for the previews. */
static int preview_config(struct rths_hs_sim_config *c, struct frame *fr,
			  double (*clock)(void *), void *ctx)
{
	if (frame_init(fr, 0, 2.0))
		return -1;
	config(c, fr, NULL, RTHS_HS_CR, 1.0);
	c->duration = 2.0;
	c->clock = clock;
	c->clock_ctx = ctx;
	return 0;
}

/* A clock that advances 2.5 ms a reading: every step "computes" 2.5 ms. */
static double fake_clock(void *ctx)
{
	double *t = ctx;

	return *t += 2.5e-3;
}

/*
 * Patent claim 2 with a known compute cost: 2 s of record at 1024 Hz,
 * 2.5 ms a step.  d = 1: 2048 steps, 5.12 s; d = 2: 2.56 s; d = 3: 682
 * steps, 1.705 s < 2 s.  The preview picks d = 3, dt = 3/1024 s.
 */
TEST(preview_picks_smallest_fitting_step)
{
	struct rths_hs_preview_params pp;
	struct rths_hs_preview_result pr;
	struct rths_hs_sim_config c;
	struct frame fr;
	double t = 0;

	ASSERT_EQ(0, preview_config(&c, &fr, fake_clock, &t));
	rths_hs_preview_defaults(&pp);
	ASSERT_EQ(0, rths_hs_preview(&c, &pp, &pr, NULL));
	EXPECT_EQ(3, pr.chosen);
	EXPECT_EQ(3.0 / 1024, pr.dt);
	ASSERT_EQ(3, pr.n_rows);
	EXPECT_FALSE(pr.rows[1].fits);
	EXPECT_EQ(682, pr.rows[2].steps);
	EXPECT_LT(fabs(pr.rows[2].compute - 682 * 2.5e-3), 1e-9);
	/* Nothing fits if no d does. */
	pp.max_ticks = 2;
	EXPECT_EQ(-RTHS_E_TOO_SLOW, rths_hs_preview(&c, &pp, &pr, NULL));
	frame_free(&fr);
}

/*
 * The budget decision alone, on synthetic step times: p99.9 (nearest
 * rank) from 1000 steps on, the worst step below that; exchange added;
 * (1 - margin) of the step.
 */
TEST(step_fit_p999_or_max)
{
	static double t[2000];
	struct rths_hs_step_fit f;
	char buf[160];

	/* 999 steps of 100 us and one of 5 ms: too few for p99.9 */
	for (size_t i = 0; i < 999; i++)
		t[i] = 100e-6;
	t[500] = 5e-3;
	ASSERT_EQ(0, rths_hs_step_fit(t, 999, 0, 4.0 / 1024, 0.2, 4, &f,
				      NULL));
	EXPECT_TRUE(f.figure_is_max);
	EXPECT_EQ(5e-3, f.figure);
	EXPECT_EQ(5e-3, f.max);
	EXPECT_FALSE(f.fits);		/* 5000 us > 0.8 x 3906.25 us */
	rths_hs_step_fit_str(&f, buf, sizeof(buf));
	EXPECT_STREQ("d = 4: max 5000.0 us + exchange 0.0 us > 0.8 x 3906.2 us budget",
		     buf);
	/* 2000 steps, two outliers: rank ceil(1998) is a 500 us step */
	for (size_t i = 0; i < 2000; i++)
		t[i] = 500e-6;
	t[7] = t[1500] = 5e-3;
	ASSERT_EQ(0, rths_hs_step_fit(t, 2000, 21e-6, 4.0 / 1024, 0.2, 4, &f,
				      NULL));
	EXPECT_FALSE(f.figure_is_max);
	EXPECT_EQ(500e-6, f.figure);
	EXPECT_EQ(5e-3, f.max);
	EXPECT_EQ(2000, f.samples);
	EXPECT_EQ(0.8 * 4.0 / 1024, f.limit);
	EXPECT_TRUE(f.fits);
	rths_hs_step_fit_str(&f, buf, sizeof(buf));
	EXPECT_STREQ("d = 4: p99.9 500.0 us + exchange 21.0 us <= 0.8 x 3906.2 us budget",
		     buf);
	EXPECT_EQ(500e-6, t[0]);	/* the samples are not reordered */
	EXPECT_EQ(5e-3, t[7]);
	/* a third outlier is more than 0.1 %: it is the p99.9 */
	t[9] = 5e-3;
	ASSERT_EQ(0, rths_hs_step_fit(t, 2000, 21e-6, 4.0 / 1024, 0.2, 4, &f,
				      NULL));
	EXPECT_EQ(5e-3, f.figure);
	EXPECT_FALSE(f.fits);
	/* the exchange alone can tip it; margin 0 uses the whole step */
	t[7] = t[1500] = t[9] = 500e-6;
	ASSERT_EQ(0, rths_hs_step_fit(t, 2000, 2.9e-3, 4.0 / 1024, 0.2, 4,
				      &f, NULL));
	EXPECT_FALSE(f.fits);
	ASSERT_EQ(0, rths_hs_step_fit(t, 2000, 2.9e-3, 4.0 / 1024, 0, 4, &f,
				      NULL));
	EXPECT_TRUE(f.fits);
	/* bad arguments */
	EXPECT_EQ(-EINVAL, rths_hs_step_fit(t, 0, 0, 1e-3, 0.2, 1, &f, NULL));
	EXPECT_EQ(-EINVAL, rths_hs_step_fit(t, 10, 0, 1e-3, 1, 1, &f, NULL));
	EXPECT_EQ(-EINVAL, rths_hs_step_fit(t, 10, -1e-6, 1e-3, 0.2, 1, &f,
					    NULL));
	t[3] = NAN;
	EXPECT_EQ(-EINVAL, rths_hs_step_fit(t, 10, 0, 1e-3, 0.2, 1, &f, NULL));
}

/*
 * A deliberately slow model: an injected clock that makes every step's
 * compute (with a backend, from the feedback to the command: the odd
 * readings) 900 us, and every 1024th step 14,646 us.  The readings run on
 * across the preview's runs (each an even number of them).
 */
struct slow_clock {
	uint64_t reads, posts;
	double t;
};

static double slow_clock(void *ctx)
{
	struct slow_clock *c = ctx;

	if (c->reads++ % 2 == 1)
		c->t += ++c->posts % 1024 ? 900e-6 : 14646e-6;
	return c->t;
}

/*
 * The measured case: 2 s of record at 1024 Hz.  The patent's total
 * criterion takes d = 1 (2048 steps, 1.87 s < 2 s) though a step is 900 us
 * against 0.8 x 977 us.  The budget takes d = 2: 1024 steps, one of
 * 14,646 us, p99.9 900 us <= 0.8 x 1953 us.  With an exchange of 700 us a
 * step d = 2 no longer fits (1600 > 1562.5 us); d = 3 has 682 steps, too
 * few for p99.9, and its worst (900 us: no 1024th step in this run) with
 * the exchange fits 0.8 x 2930 us.
 */
TEST(preview_budget_slow_model)
{
	struct rths_hs_budget_preview bp;
	struct rths_hs_preview_params pp;
	struct rths_hs_preview_result pr;
	struct rths_hs_sim_config c;
	struct slow_clock sc = { 0 };
	struct rths_error err;
	struct frame fr;

	ASSERT_EQ(0, preview_config(&c, &fr, slow_clock, &sc));
	rths_hs_preview_defaults(&pp);
	ASSERT_EQ(0, rths_hs_preview(&c, &pp, &pr, NULL));
	EXPECT_EQ(1, pr.chosen);	/* the patent's criterion */
	EXPECT_LT(fabs(pr.rows[0].compute_max - 14646e-6), 1e-9);

	sc = (struct slow_clock){ 0 };
	ASSERT_EQ(0, rths_hs_preview_budget(&c, NULL, 0, &pp,
					    RTHS_HS_PREVIEW_MARGIN_DEFAULT, 0,
					    &bp, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(2, bp.pr.chosen);
	EXPECT_EQ(2.0 / 1024, bp.pr.dt);
	ASSERT_EQ(2, bp.pr.n_rows);
	EXPECT_FALSE(bp.pr.rows[0].fits);
	EXPECT_EQ(2048, bp.fit[0].samples);
	EXPECT_FALSE(bp.fit[0].figure_is_max);
	EXPECT_LT(fabs(bp.fit[0].figure - 900e-6), 1e-9);
	EXPECT_TRUE(bp.pr.rows[1].fits);
	EXPECT_EQ(1024, bp.fit[1].samples);
	EXPECT_FALSE(bp.fit[1].figure_is_max);	/* p99.9 decided */
	EXPECT_LT(fabs(bp.fit[1].figure - 900e-6), 1e-9);
	EXPECT_LT(fabs(bp.fit[1].max - 14646e-6), 1e-9);
	EXPECT_EQ(0.2, bp.fit[1].margin);

	sc = (struct slow_clock){ 0 };
	ASSERT_EQ(0, rths_hs_preview_budget(&c, NULL, 0, &pp, 0.2, 700e-6,
					    &bp, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(3, bp.pr.chosen);
	ASSERT_EQ(3, bp.pr.n_rows);
	EXPECT_FALSE(bp.fit[1].fits);
	EXPECT_EQ(682, bp.fit[2].samples);
	EXPECT_TRUE(bp.fit[2].figure_is_max);	/* the worst step decided */
	EXPECT_LT(fabs(bp.fit[2].figure - 900e-6), 1e-9);
	EXPECT_EQ(700e-6, bp.fit[2].exchange);

	/* no d up to 2 fits: too slow, the rows tried kept */
	sc = (struct slow_clock){ 0 };
	pp.max_ticks = 2;
	EXPECT_EQ(-RTHS_E_TOO_SLOW,
		  rths_hs_preview_budget(&c, NULL, 0, &pp, 0.2, 700e-6, &bp,
					 NULL));
	EXPECT_EQ(2, bp.pr.n_rows);
	EXPECT_EQ(0, bp.pr.chosen);
	/* a margin of 1 leaves nothing */
	EXPECT_EQ(-EINVAL, rths_hs_preview_budget(&c, NULL, 0, &pp, 1, 0, &bp,
						  NULL));
	frame_free(&fr);
}

TEST_HARNESS_MAIN
