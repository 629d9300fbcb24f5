// SPDX-License-Identifier: LGPL-2.1-or-later
/* The hybrid simulation step loop. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/rths.h>
#include <rths/hs_odesub.h>
#include <rths/hs_sim.h>

#include "hs/backend_impl.h"
#include "hs/compensation_impl.h"
#include "hs/linalg.h"
#include "hs/odesub_impl.h"

void rths_hs_history_free(struct rths_hs_history *h)
{
	if (!h)
		return;
	free(h->t);
	free(h->flags);
	memset(h, 0, sizeof(*h));
}

/* All columns in one block: fewer failure paths. */
static int history_alloc(struct rths_hs_history *h, size_t rows, size_t n,
			 size_t q, size_t m, double dt,
			 struct rths_error *err)
{
	size_t per = 3 + 3 * n + 3 * q + 4 * m;
	double *p;

	/* One block; the influence vector (n) goes at its end. */

	memset(h, 0, sizeof(*h));
	p = rths_zalloc(rows * per + n, err);
	h->flags = calloc(rows, sizeof(*h->flags));
	if (!p || !h->flags) {
		free(p);
		free(h->flags);
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "cannot allocate the history of %zu steps",
				      rows);
	}
	/* Touch every page now, not during the real-time loop. */
	memset(p, 0, (rows * per + n) * sizeof(*p));
	memset(h->flags, 0, rows * sizeof(*h->flags));
	h->n_dof = n;
	h->n_if = q;
	h->n_act = m;
	h->cap = rows;
	h->dt = dt;
	h->t = p;
	h->ag = h->t + rows;
	h->compute = h->ag + rows;
	h->u = h->compute + rows;
	h->v = h->u + rows * n;
	h->a = h->v + rows * n;
	h->x_if = h->a + rows * n;
	h->x_meas = h->x_if + rows * q;
	h->f_meas = h->x_meas + rows * q;
	h->target = h->f_meas + rows * q;
	h->command = h->target + rows * m;
	h->disp = h->command + rows * m;
	h->force = h->disp + rows * m;
	h->influence = h->force + rows * m;
	return 0;
}

static double mono_clock(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void timing_stats(const struct rths_hs_history *h,
			 struct rths_hs_run_result *res)
{
	size_t n = res->steps_done;
	double *s, sum = 0;

	if (n == 0)
		return;
	s = malloc(n * sizeof(*s));
	if (!s)
		return;
	memcpy(s, h->compute + 1, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += s[i];
	res->compute_min = s[0];
	res->compute_max = s[n - 1];
	res->compute_mean = sum / (double)n;
	res->compute_p99 = s[(size_t)floor(0.99 * (double)(n - 1))];
	free(s);
}

struct loop {
	const struct rths_hs_sim_config *cfg;
	struct rths_hs_model model;
	struct rths_hs_stepper *st;
	struct rths_hs_comp **comp;	/* m, allocated at setup */
	struct rths_hs_odesub *const *ode;	/* ODE substructures */
	size_t n_ode;
	size_t n, q, m;
	double *f, *r_exp;
	double *r_num;		/* r_exp plus the ODE substructures' */
	double *mr;		/* M r: the ground force is -ag M r */
	/* for the ODE substructures: the interface velocity at n+1, the
	 * commands of steps n, n-1, n-2 and how many of them there are */
	double *v1, *uc[3];
	int n_uc;
	double *fb_cmd;		/* m: the feedback's commands, not kept */
	double (*now)(void *ctx);
};

static void loop_free(struct loop *L)
{
	rths_hs_stepper_free(L->st);
	for (size_t i = 0; L->comp && i < L->m; i++)
		rths_hs_comp_free(L->comp[i]);
	free(L->comp);
	rths_hs_model_free(&L->model);
	free(L->f);
	free(L->fb_cmd);
}

/* More channels than an actuator device has: only a direct setup, one
 * channel an interface coordinate (rths_hs_backend_wait_wide()). */
static int check_wide(const struct rths_hs_sim_config *cfg,
		      struct rths_error *err)
{
	const struct rths_hs_backend *b = cfg->backend;

	if (b->channels > RTHS_HS_MAX_INTERFACE)
		return rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0,
				      "channels",
				      "%s backend: %u channels, at most %d",
				      b->ops->name, b->channels,
				      RTHS_HS_MAX_INTERFACE);
	if (b->channels <= RTHS_HS_MAX_CHANNELS)
		return 0;
	if (cfg->setup->kind != RTHS_HS_SETUP_DIRECT)
		return rths_error_set(err, RTHS_E_UNSUPPORTED, NULL, 0,
				      "setup",
				      "%u channels: more than %d only with a direct setup (a channel per interface coordinate)",
				      b->channels, RTHS_HS_MAX_CHANNELS);
	if (b->ops->wait)
		return rths_error_set(err, RTHS_E_UNSUPPORTED, NULL, 0,
				      "channels",
				      "%s backend: %u channels, but its feedback record holds %d (not a struct rths_hs_backend_wide_ops)",
				      b->ops->name, b->channels,
				      RTHS_HS_MAX_CHANNELS);
	return 0;
}

static int loop_init(struct loop *L, const struct rths_hs_sim_config *cfg,
		     struct rths_error *err)
{
	const struct rths_hs_substructure *sub = cfg->sub;
	struct rths_hs_specimen_estimate est = { 0 };
	double *kd = NULL, *cd = NULL;
	int r;

	memset(L, 0, sizeof(*L));
	L->cfg = cfg;
	L->now = cfg->clock ? cfg->clock : mono_clock;
	L->n = cfg->model->n;
	if (sub) {
		if (!cfg->setup || !cfg->backend || sub->n_dof != L->n ||
		    cfg->setup->dim != sub->n_if ||
		    cfg->backend->channels != cfg->setup->n_act)
			return rths_error_set(err, EINVAL, NULL, 0,
					      NULL,
					      "substructure, setup and backend do not fit together (DOFs %zu/%zu, interface %zu/%zu, channels %zu/%u)",
					      sub->n_dof, L->n, sub->n_if,
					      cfg->setup ? cfg->setup->dim : 0,
					      cfg->setup ? cfg->setup->n_act : 0,
					      cfg->backend ? cfg->backend->channels : 0);
		r = check_wide(cfg, err);
		if (r < 0)
			return r;
		L->q = sub->n_if;
		L->m = cfg->setup->n_act;
		/* the feedback's arrays, the steps' out of the history */
		L->fb_cmd = rths_zalloc(L->m, err);
		if (!L->fb_cmd)
			return -ENOMEM;
		/* The backend ramps over d ticks: that is the step. */
		if (fabs((double)cfg->backend->step_ticks / cfg->backend->rate -
			 cfg->integrator.dt) > 1e-9 * cfg->integrator.dt)
			return rths_error_set(err, EINVAL, NULL, 0,
					      "integrator.dt",
					      "the step %g s is not the backend's %u ticks at %u Hz (%g s)",
					      cfg->integrator.dt,
					      cfg->backend->step_ticks,
					      cfg->backend->rate,
					      (double)cfg->backend->step_ticks /
					      cfg->backend->rate);
	}
	r = rths_hs_model_copy(&L->model, cfg->model, err);
	if (r < 0)
		return r;
	L->f = rths_zalloc(8 * L->n, err);
	if (!L->f)
		return -ENOMEM;
	L->r_exp = L->f + L->n;
	L->mr = L->r_exp + L->n;
	L->r_num = L->mr + L->n;
	L->v1 = L->r_num + L->n;
	for (int i = 0; i < 3; i++)
		L->uc[i] = L->v1 + (size_t)(i + 1) * L->n;
	rths_hs_model_ground_force(&L->model, -1.0, L->mr);
	if (sub && (cfg->k_if || cfg->c_if)) {
		kd = rths_zalloc(2 * L->n * L->n, err);
		if (!kd)
			return -ENOMEM;
		cd = kd + L->n * L->n;
		if (cfg->k_if)
			r = rths_hs_substructure_to_dofs(sub, cfg->k_if, kd, err);
		if (r == 0 && cfg->c_if)
			r = rths_hs_substructure_to_dofs(sub, cfg->c_if, cd, err);
		est.k = kd;
		est.c = cd;
	} else if (sub) {
		est.k = NULL;
	}
	if (r == 0)
		r = rths_hs_stepper_new(&L->st, &L->model, sub ? &est : NULL,
					&cfg->integrator, err);
	free(kd);
	if (r == 0 && L->m) {
		L->comp = calloc(L->m, sizeof(*L->comp));
		if (!L->comp)
			r = rths_error_set(err, ENOMEM, NULL, 0, NULL,
					   "cannot allocate %zu channels' compensators",
					   L->m);
	}
	for (size_t i = 0; r == 0 && i < L->m; i++) {
		struct rths_hs_comp_params cp;

		if (cfg->comp)
			cp = *cfg->comp;
		else
			rths_hs_comp_defaults(&cp, RTHS_HS_COMP_NONE, 1);
		cp.dt = cfg->integrator.dt;
		r = rths_hs_comp_new_channel(&L->comp[i], &cp,
					     (unsigned int)i, err);
	}
	return r;
}

/*
 * The experimental half of step n: out to the backend (post) and back
 * (wait).  The compute time of a step runs from the previous step's
 * feedback (*t_fb) to this step's command: the real-time critical path.
 * The ODE substructures are integrated in between, while the actuators
 * move.
 */
static int exchange_post(struct loop *L, uint64_t n, const double *u1,
			 struct rths_hs_history *h, double t_fb,
			 struct rths_error *err)
{
	const struct rths_hs_sim_config *cfg = L->cfg;
	size_t q = L->q, m = L->m;
	double *x = h->x_if + n * q, *tgt = h->target + n * m;
	double *cmd = h->command + n * m;
	int r;

	rths_hs_substructure_command(cfg->sub, u1, x);
	r = rths_hs_setup_strokes(cfg->setup, x, tgt, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < m; i++) {
		r = rths_hs_comp_step(L->comp[i], n, tgt[i], &cmd[i], err);
		if (r < 0)
			return r;
	}
	h->compute[n] = L->now(cfg->clock_ctx) - t_fb;
	return rths_hs_backend_post(cfg->backend, n, cmd, err);
}

static int exchange_wait(struct loop *L, uint64_t n,
			 struct rths_hs_history *h, double *t_fb,
			 struct rths_error *err)
{
	const struct rths_hs_sim_config *cfg = L->cfg;
	size_t q = L->q, m = L->m;
	double *x = h->x_if + n * q, *cmd = h->command + n * m;
	double *xm = h->x_meas + n * q;
	struct rths_hs_feedback_wide fb = {
		.channels = (uint32_t)m, .command = L->fb_cmd,
		.disp = h->disp + n * m, .force = h->force + n * m,
	};
	int r;

	r = rths_hs_backend_wait_wide(cfg->backend, n, &fb, err);
	if (r < 0)
		return r;
	*t_fb = L->now(cfg->clock_ctx);
	h->flags[n] = fb.flags;
	for (size_t i = 0; i < m; i++) {
		r = rths_hs_comp_learn(L->comp[i], n, cmd[i], fb.disp[i], err);
		if (r < 0)
			return r;
	}
	r = rths_hs_setup_position(cfg->setup, fb.disp, x, xm, err);
	if (r == 0)
		r = rths_hs_setup_force(cfg->setup, xm, fb.force,
					h->f_meas + n * q, err);
	if (r < 0)
		return r;
	rths_hs_substructure_feedback(cfg->sub, h->f_meas + n * q, L->r_exp);
	return 0;
}

static void record_state(struct loop *L, struct rths_hs_history *h,
			 uint64_t n, double t, double ag)
{
	size_t k = L->n;

	h->t[n] = t;
	h->ag[n] = ag;
	memcpy(h->u + n * k, rths_hs_stepper_u(L->st), k * sizeof(double));
	memcpy(h->v + n * k, rths_hs_stepper_v(L->st), k * sizeof(double));
	memcpy(h->a + n * k, rths_hs_stepper_a(L->st), k * sizeof(double));
	h->rows = n + 1;
}

/*
 * The velocity at step n+1 from the commands, by the backward difference
 * of third order (second and first on the first steps).  Not the
 * integrator's v_{n+1}: CR's, for one, is the step's mean velocity,
 * v(t_{n+1/2}) to second order, so that a cubic through it would bend
 * the wrong way.  Differences of the commands keep their smooth error
 * (the integrator's) and add O(dt^3): the cubic over the step then has
 * the interface's acceleration at t_{n+1} to second order, which the
 * reaction of a mass joined rigidly to the DOF needs.
 */
static void ode_velocity(struct loop *L, const double *u1)
{
	double dt = L->cfg->integrator.dt;
	double *u0 = L->uc[0], *um = L->uc[1], *umm = L->uc[2];

	for (size_t i = 0; i < L->n; i++) {
		if (L->n_uc >= 3)
			L->v1[i] = (11 * u1[i] - 18 * u0[i] + 9 * um[i] -
				    2 * umm[i]) / (6 * dt);
		else if (L->n_uc == 2)
			L->v1[i] = (3 * u1[i] - 4 * u0[i] + um[i]) / (2 * dt);
		else
			L->v1[i] = (u1[i] - u0[i]) / dt;
	}
	/* the oldest buffer takes u1; the others move back a place */
	L->uc[2] = um;
	L->uc[1] = u0;
	L->uc[0] = umm;
	memcpy(umm, u1, L->n * sizeof(double));
	if (L->n_uc < 3)
		L->n_uc++;
}

/*
 * The ODE substructures' step: their force joins the measured one.  They
 * are given the interface velocity at the step's end (its start: the
 * last step's end, the model's at the first), so that the interface
 * moves over the step at second order, not at its mean velocity
 * (first).
 */
static int ode_step(struct loop *L, double t, const double *u1, double ag,
		    struct rths_error *err)
{
	const double *v0 = L->n_uc == 1 ? rths_hs_stepper_v(L->st) : NULL;
	int r = 0;

	ode_velocity(L, u1);
	memset(L->r_num, 0, L->n * sizeof(double));
	for (size_t i = 0; r == 0 && i < L->n_ode; i++) {
		struct rths_error e = { 0 };

		char path[sizeof(e.path) + 48];

		r = rths_hs_odesub_step_vel(L->ode[i], t, u1, v0, L->v1, ag,
					    L->r_num, &e);
		if (r < 0) {
			/* the experiment file's path of what gave out */
			snprintf(path, sizeof(path), "ode_substructures[%zu]%s%s",
				 i, e.path[0] ? "." : "", e.path);
			return rths_error_set(err, r, NULL, 0, path,
					      "at t = %g s: %s", t, e.msg);
		}
	}
	return r;
}

static int odesubs_start(struct loop *L, double ag0, uint64_t steps,
			 struct rths_error *err)
{
	int r = 0;

	memcpy(L->uc[0], rths_hs_stepper_u(L->st), L->n * sizeof(double));
	L->n_uc = 1;
	for (size_t i = 0; r == 0 && i < L->n_ode; i++) {
		struct rths_error e = { 0 };
		char path[sizeof(e.path) + 48];

		if (rths_hs_odesub_max_dof(L->ode[i]) >= (int)L->n)
			return rths_error_set(err, RTHS_E_BAD_DOF, NULL, 0, NULL,
					      "ODE substructure %zu: DOF %d, the model has %zu",
					      i, rths_hs_odesub_max_dof(L->ode[i]),
					      L->n);
		/* Real time: the offline backend waits, the others do not. */
		if (L->cfg->sub && strcmp(L->cfg->backend->ops->name, "offline") &&
		    !rths_hs_odesub_bounded(L->ode[i]))
			return rths_error_set(err, RTHS_E_UNSUPPORTED, NULL, 0,
					      "method",
					      "ODE substructure %zu: %s adapts its step, so its work per hybrid step has no bound; on the %s backend cap it (max_steps, max_f_evals) or use constant_bdf",
					      i,
					      rths_ode_method_name(rths_hs_odesub_method(L->ode[i])),
					      L->cfg->backend->ops->name);
		r = rths_hs_odesub_check_dt(L->ode[i], L->cfg->integrator.dt,
					    &e);
		if (r < 0) {
			snprintf(path, sizeof(path), "ode_substructures[%zu].%s",
				 i, e.path);
			return rths_error_set(err, r, NULL, 0, path, "%s",
					      e.msg);
		}
		r = rths_hs_odesub_start(L->ode[i], 0.0,
					 rths_hs_stepper_u(L->st),
					 rths_hs_stepper_v(L->st), ag0, steps,
					 err);
	}
	return r;
}

int rths_hs_sim_run(const struct rths_hs_sim_config *cfg,
		    struct rths_hs_history *h, struct rths_hs_run_result *res,
		    struct rths_error *err)
{
	return rths_hs_sim_run_odesubs(cfg, NULL, 0, h, res, err);
}

int rths_hs_sim_run_odesubs(const struct rths_hs_sim_config *cfg,
			    struct rths_hs_odesub *const *odesubs,
			    size_t n_odesubs, struct rths_hs_history *h,
			    struct rths_hs_run_result *res,
			    struct rths_error *err)
{
	struct rths_error run_err = { 0 };
	double dt = cfg->integrator.dt, duration, t0, t_mark;
	uint64_t steps;
	struct loop L;
	int r;

	memset(res, 0, sizeof(*res));
	memset(h, 0, sizeof(*h));
	if (!cfg->gm || !(dt > 0))
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "a run needs a ground motion and a time step");
	if (n_odesubs && !odesubs)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "no ODE substructures");
	duration = cfg->duration > 0 ? cfg->duration :
		   rths_hs_gm_duration(cfg->gm);
	steps = (uint64_t)floor(duration / dt + 1e-9);
	r = loop_init(&L, cfg, err);
	L.ode = odesubs;
	L.n_ode = n_odesubs;
	if (r == 0)
		r = history_alloc(h, steps + 1, L.n, L.q, L.m, dt, err);
	if (r == 0) {
		rths_hs_model_ground_force(&L.model, rths_hs_gm_at(cfg->gm, 0),
					   L.f);
		r = rths_hs_stepper_start(L.st, NULL, NULL, L.f, NULL, err);
	}
	if (r == 0)
		r = odesubs_start(&L, rths_hs_gm_at(cfg->gm, 0), steps, err);
	if (r == 0 && cfg->sub)
		r = rths_hs_device_reserve(cfg->backend, steps) < 0 ?
		    rths_error_set(err, ENOMEM, NULL, 0, NULL,
				   "out of memory for the trace") : 0;
	if (r == 0 && cfg->sub)
		r = rths_hs_backend_start(cfg->backend, err);
	if (r < 0) {
		loop_free(&L);
		rths_hs_history_free(h);
		return r;
	}
	res->steps_planned = steps;
	memcpy(h->influence, L.model.r, L.n * sizeof(double));
	record_state(&L, h, 0, 0, rths_hs_gm_at(cfg->gm, 0));
	/* One clock reading a step all-numerical, two with a backend (at
	 * the command and at the feedback), so that an injected clock
	 * sees exactly the compute path. */
	t0 = t_mark = L.now(cfg->clock_ctx);
	for (uint64_t n = 1; n <= steps; n++) {
		double t = (double)n * dt, ag = rths_hs_gm_at(cfg->gm, t);
		const double *u1;

		if (cfg->stop && *cfg->stop) {
			res->interrupted = true;
			break;
		}
		for (size_t i = 0; i < L.n; i++)
			L.f[i] = -ag * L.mr[i];
		r = rths_hs_stepper_command(L.st, L.f, &u1, &run_err);
		if (r == 0 && cfg->sub)
			r = exchange_post(&L, n, u1, h, t_mark, &run_err);
		/* While the actuators move: the ODE substructures. */
		if (r == 0 && L.n_ode)
			r = ode_step(&L, t, u1, ag, &run_err);
		if (r == 0 && cfg->sub)
			r = exchange_wait(&L, n, h, &t_mark, &run_err);
		if (r == 0 && L.n_ode && cfg->sub)
			for (size_t i = 0; i < L.n; i++)
				L.r_num[i] += L.r_exp[i];
		if (r == 0)
			r = rths_hs_stepper_accept(L.st, L.n_ode ? L.r_num :
						   cfg->sub ? L.r_exp : NULL,
						   &run_err);
		if (r < 0)
			break;
		if (!cfg->sub) {
			/* All-numerical: the whole step is compute. */
			double t_now = L.now(cfg->clock_ctx);

			h->compute[n] = t_now - t_mark;
			t_mark = t_now;
		}
		record_state(&L, h, n, t, ag);
		res->steps_done = n;
		if (h->flags[n] & (RTHS_FB_F_EXTRAPOLATED | RTHS_FB_F_HELD |
				   RTHS_FB_F_DECELERATED))
			res->late_steps++;
		if (cfg->progress && cfg->progress_every &&
		    (n % cfg->progress_every == 0 || n == steps))
			cfg->progress(cfg->progress_ctx, n, steps);
	}
	res->wall = L.now(cfg->clock_ctx) - t0;
	if (r < 0) {
		res->error = r;
		res->err = run_err;
	}
	if (cfg->sub) {
		if (r < 0 || res->interrupted)
			res->held = rths_hs_backend_hold(cfg->backend, NULL) == 0;
		else
			rths_hs_backend_stop(cfg->backend, NULL);
		res->has_stats = rths_hs_backend_stats(cfg->backend,
						       &res->stats) == 0;
	}
	for (size_t i = 0; i < L.m && i < RTHS_HS_MAX_CHANNELS; i++) {
		rths_hs_comp_coefficients(L.comp[i], res->comp_coeffs[i]);
		res->comp_updates[i] = rths_hs_comp_updates(L.comp[i]);
	}
	timing_stats(h, res);
	loop_free(&L);
	if (r < 0 && err)
		*err = run_err;
	return r;
}
