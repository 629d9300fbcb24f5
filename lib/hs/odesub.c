// SPDX-License-Identifier: LGPL-2.1-or-later
/* ODE numerical substructures: integrated by lib/ode between hybrid
 * steps, coupled at interface DOFs (rths/hs_odesub.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rths/hs_odesub.h>

#include "hs/linalg.h"
#include "hs/odesub_impl.h"

#define MAXM RTHS_HS_ODESUB_MAX_MASSES

static void defaults(struct rths_hs_odesub *s)
{
	s->method = RTHS_ODE_GSTIFF;
	rths_ode_control_default(&s->ctl);
	s->input = RTHS_HS_ODESUB_HOLD;
}

static int alloc(struct rths_hs_odesub **out, size_t dim,
		 struct rths_error *err)
{
	struct rths_hs_odesub *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "out of memory");
	s->dim = dim;
	s->y = rths_zalloc(2 * dim, err);
	if (!s->y) {
		free(s);
		return -ENOMEM;
	}
	s->y_try = s->y + dim;
	defaults(s);
	*out = s;
	return 0;
}

static bool finite_pos(double x)
{
	return isfinite(x) && x > 0;
}

int rths_hs_odesub_new_chain(struct rths_hs_odesub **out, int dof, size_t n,
			     const double *mass, const double *k,
			     const double *c, struct rths_error *err)
{
	int r;

	if (!out)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "no substructure");
	*out = NULL;
	if (dof < 0)
		return rths_error_set(err, RTHS_E_BAD_DOF, NULL, 0, "dof",
				      "a chain hangs from a DOF, not the ground");
	if (n < 1 || n > MAXM)
		return rths_error_set(err, RTHS_E_BAD_SHAPE, NULL, 0, "masses",
				      "a chain has 1 to %d masses, not %zu",
				      MAXM, n);
	for (size_t j = 0; j < n; j++) {
		if (!finite_pos(mass[j]))
			return rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0,
					      "masses",
					      "mass %zu is %g: it must be positive",
					      j, mass[j]);
		if (!(isfinite(k[j]) && k[j] >= 0) ||
		    !(isfinite(c[j]) && c[j] >= 0))
			return rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0,
					      "stiffness",
					      "link %zu: stiffness %g and damping %g must be finite and not negative",
					      j, k[j], c[j]);
	}
	r = alloc(out, 2 * n, err);
	if (r < 0)
		return r;
	(*out)->kind = RTHS_HS_ODESUB_CHAIN;
	(*out)->dof_i = dof;
	(*out)->dof_j = -1;
	(*out)->nm = n;
	memcpy((*out)->m, mass, n * sizeof(double));
	memcpy((*out)->k, k, n * sizeof(double));
	memcpy((*out)->c, c, n * sizeof(double));
	return 0;
}

int rths_hs_odesub_new_damper(struct rths_hs_odesub **out, int dof_i,
			      int dof_j, double c, double alpha, double k_b,
			      struct rths_error *err)
{
	int r;

	if (!out)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "no substructure");
	*out = NULL;
	if (dof_i < 0 || dof_j < -1 || dof_i == dof_j)
		return rths_error_set(err, RTHS_E_BAD_DOF, NULL, 0, "dofs",
				      "a damper joins DOF i >= 0 to another DOF or the ground (-1), not %d to %d",
				      dof_i, dof_j);
	if (!finite_pos(c))
		return rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0,
				      "damping", "%g: must be positive", c);
	if (!(alpha > 0 && alpha <= 1))
		return rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0,
				      "exponent", "%g: must be in (0, 1]",
				      alpha);
	if (!finite_pos(k_b))
		return rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0,
				      "brace_stiffness", "%g: must be positive",
				      k_b);
	r = alloc(out, 1, err);
	if (r < 0)
		return r;
	(*out)->kind = RTHS_HS_ODESUB_DAMPER;
	(*out)->dof_i = dof_i;
	(*out)->dof_j = dof_j;
	(*out)->cd = c;
	(*out)->alpha = alpha;
	(*out)->kb = k_b;
	return 0;
}

void rths_hs_odesub_free(struct rths_hs_odesub *s)
{
	if (!s)
		return;
	rths_ode_free(s->ode);
	rths_hs_mb_free(s->mb);
	RTHS_FREE_ALL(s->y, s->rec, s);
}

int rths_hs_odesub_set_method(struct rths_hs_odesub *s,
			      enum rths_ode_method method,
			      const struct rths_ode_control *ctl,
			      struct rths_error *err)
{
	if ((int)method < 0 || method >= RTHS_ODE_METHOD_COUNT)
		return rths_error_set(err, EINVAL, NULL, 0, "method",
				      "no ODE method %d", (int)method);
	if (method == RTHS_ODE_CONSTANT_BDF && !(ctl && ctl->h_init > 0))
		return rths_error_set(err, EINVAL, NULL, 0, "step",
				      "constant_bdf needs its fixed step");
	s->method = method;
	if (ctl)
		s->ctl = *ctl;
	else
		rths_ode_control_default(&s->ctl);
	s->ctl.atol_v = NULL;
	return 0;
}

void rths_hs_odesub_set_input(struct rths_hs_odesub *s,
			      enum rths_hs_odesub_input input)
{
	if (s->kind != RTHS_HS_ODESUB_MULTIBODY)
		s->input = input;
}

void rths_hs_odesub_set_cap(struct rths_hs_odesub *s, unsigned long max_steps,
			    unsigned long max_f_evals)
{
	s->max_steps = max_steps;
	s->max_f_evals = max_f_evals;
}

int rths_hs_odesub_bounded(const struct rths_hs_odesub *s)
{
	return s->method == RTHS_ODE_CONSTANT_BDF || s->max_steps ||
	       s->max_f_evals;
}

int rths_hs_odesub_check_dt(const struct rths_hs_odesub *s, double dt,
			    struct rths_error *err)
{
	double h = s->ctl.h_init, n;

	if (s->method != RTHS_ODE_CONSTANT_BDF || !(dt > 0))
		return 0;
	if (h > dt * (1 + 1e-9))
		return rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0, "step",
				      "constant_bdf's step %g s is longer than the hybrid step dt = %g s: give at most dt",
				      h, dt);
	n = ceil(dt / h * (1 - 1e-9));
	if (n > RTHS_HS_ODESUB_MAX_FIXED_STEPS)
		return rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0, "step",
				      "constant_bdf's step %g s makes %.0f steps a hybrid step of %g s, more than %d: give at least %g s",
				      h, n, dt, RTHS_HS_ODESUB_MAX_FIXED_STEPS,
				      dt / RTHS_HS_ODESUB_MAX_FIXED_STEPS);
	if (s->max_steps && n > (double)s->max_steps)
		return rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0, "step",
				      "constant_bdf's step %g s makes %.0f steps a hybrid step of %g s, over max_steps %lu",
				      h, n, dt, s->max_steps);
	return 0;
}

void rths_hs_odesub_compute(const struct rths_hs_odesub *s, double *total,
			    double *worst)
{
	*total = *worst = 0;
	for (uint64_t i = 1; s->rec && i <= s->n_rec; i++) {
		*total += s->rec[i].compute;
		if (s->rec[i].compute > *worst)
			*worst = s->rec[i].compute;
	}
}

enum rths_hs_odesub_kind rths_hs_odesub_kind(const struct rths_hs_odesub *s)
{
	return s->kind;
}

enum rths_ode_method rths_hs_odesub_method(const struct rths_hs_odesub *s)
{
	return s->method;
}

enum rths_hs_odesub_input rths_hs_odesub_input(const struct rths_hs_odesub *s)
{
	return s->input;
}

size_t rths_hs_odesub_dim(const struct rths_hs_odesub *s)
{
	return s->dim;
}

int rths_hs_odesub_max_dof(const struct rths_hs_odesub *s)
{
	return s->dof_i > s->dof_j ? s->dof_i : s->dof_j;
}

const double *rths_hs_odesub_state(const struct rths_hs_odesub *s)
{
	return s->y;
}

double rths_hs_odesub_force(const struct rths_hs_odesub *s)
{
	return s->force;
}

void rths_hs_odesub_input_at(const struct rths_hs_odesub *s, double t,
			     double *ub, double *ag)
{
	double tau, h = s->t1 - s->t0;

	if (s->input == RTHS_HS_ODESUB_HOLD || !(h > 0)) {
		*ub = s->ub1;
		*ag = s->ag1;
		return;
	}
	tau = (t - s->t0) / h;
	*ag = s->ag0 + tau * (s->ag1 - s->ag0);
	if (!s->hermite) {
		*ub = s->ub0 + tau * (s->ub1 - s->ub0);
		return;
	}
	/* The cubic Hermite of the step's ends: second order within it. */
	*ub = (1 + 2 * tau) * (1 - tau) * (1 - tau) * s->ub0 +
	      tau * (1 - tau) * (1 - tau) * h * s->vb0 +
	      tau * tau * (3 - 2 * tau) * s->ub1 +
	      tau * tau * (tau - 1) * h * s->vb1;
}

double rths_hs_odesub_vb_at(const struct rths_hs_odesub *s, double t)
{
	double tau, h = s->t1 - s->t0;

	if (!s->hermite || s->input == RTHS_HS_ODESUB_HOLD || !(h > 0))
		return s->vb;
	tau = (t - s->t0) / h;
	return 6 * tau * (1 - tau) * (s->ub1 - s->ub0) / h +
	       (1 - tau) * (1 - 3 * tau) * s->vb0 +
	       tau * (3 * tau - 2) * s->vb1;
}

static double damper_rate(const struct rths_hs_odesub *s, double f)
{
	double r = pow(fabs(f) / s->cd, 1.0 / s->alpha);

	return f < 0 ? -r : r;
}

/* The force on DOF i at (ub, vb) in state y. */
static double force_of(const struct rths_hs_odesub *s, const double *y,
		       double ub, double vb)
{
	if (s->kind == RTHS_HS_ODESUB_CHAIN)
		return s->k[0] * (y[0] - ub) + s->c[0] * (y[s->nm] - vb);
	return s->kb * (ub - y[0]);
}

static int rhs(double t, const double *y, double *dydt, void *params)
{
	const struct rths_hs_odesub *s = params;
	double ub, ag;

	rths_hs_odesub_input_at(s, t, &ub, &ag);
	if (s->kind == RTHS_HS_ODESUB_DAMPER) {
		dydt[0] = damper_rate(s, s->kb * (ub - y[0]));
		return 0;
	}
	for (size_t j = 0; j < s->nm; j++) {
		const double *x = y, *v = y + s->nm;
		double xl = j ? x[j - 1] : ub;
		double vl = j ? v[j - 1] : rths_hs_odesub_vb_at(s, t);
		double f = -s->k[j] * (x[j] - xl) - s->c[j] * (v[j] - vl) -
			   s->m[j] * ag;

		if (j + 1 < s->nm)
			f += s->k[j + 1] * (x[j + 1] - x[j]) +
			     s->c[j + 1] * (v[j + 1] - v[j]);
		dydt[j] = v[j];
		dydt[s->nm + j] = f / s->m[j];
	}
	return 0;
}

static int jac(double t, const double *y, struct rths_mat *J, void *params)
{
	const struct rths_hs_odesub *s = params;
	size_t n = s->nm;
	double ub, ag;

	rths_hs_odesub_input_at(s, t, &ub, &ag);
	if (s->kind == RTHS_HS_ODESUB_DAMPER) {
		double f = fabs(s->kb * (ub - y[0]));

		/* d/ds of sign(F) (|F|/c)^(1/alpha), F = k_b (u - s) */
		RTHS_MAT(J, 0, 0) = -s->kb / (s->alpha * s->cd) *
				    pow(f / s->cd, 1.0 / s->alpha - 1.0);
		return 0;
	}
	for (size_t j = 0; j < n; j++) {
		double kk = s->k[j], cc = s->c[j];

		RTHS_MAT(J, j, n + j) = 1.0;
		RTHS_MAT(J, n + j, j) -= kk / s->m[j];
		RTHS_MAT(J, n + j, n + j) -= cc / s->m[j];
		if (j) {
			RTHS_MAT(J, n + j, j - 1) += kk / s->m[j];
			RTHS_MAT(J, n + j, n + j - 1) += cc / s->m[j];
		}
		if (j + 1 < n) {
			kk = s->k[j + 1];
			cc = s->c[j + 1];
			RTHS_MAT(J, n + j, j) -= kk / s->m[j];
			RTHS_MAT(J, n + j, n + j) -= cc / s->m[j];
			RTHS_MAT(J, n + j, j + 1) += kk / s->m[j];
			RTHS_MAT(J, n + j, n + j + 1) += cc / s->m[j];
		}
	}
	return 0;
}

static double iface_disp(const struct rths_hs_odesub *s, const double *u)
{
	return u[s->dof_i] - (s->dof_j >= 0 ? u[s->dof_j] : 0.0);
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int rths_hs_odesub_start(struct rths_hs_odesub *s, double t0,
			 const double *u0, const double *v0, double ag0,
			 uint64_t steps, struct rths_error *err)
{
	struct rths_ode_system sys = {
		.dim = s->dim, .rhs = rhs, .jac = jac, .params = s,
	};
	struct rths_ode_control ctl = s->ctl;
	double ub = iface_disp(s, u0);
	double vb = v0 ? v0[s->dof_i] - (s->dof_j >= 0 ? v0[s->dof_j] : 0) : 0;
	int code = 0;

	if (s->kind == RTHS_HS_ODESUB_MULTIBODY) {
		if (!rths_ode_method_is_implicit(s->method))
			return rths_error_set(err, RTHS_E_METHOD, NULL, 0,
					      "method",
					      "%s solves explicit ODEs; a multibody DAE needs gstiff, wstiff, dstiff or constant_bdf",
					      rths_ode_method_name(s->method));
		sys = *rths_hs_mb_system(s->mb);
		ctl.atol_v = rths_hs_mb_atol(s->mb, ctl.atol);
	}
	rths_ode_free(s->ode);
	s->ode = rths_ode_new(s->method, &sys, &ctl, &code);
	if (!s->ode)
		return rths_error_set(err, code, NULL, 0, "method",
				      "cannot set up %s: %s",
				      rths_ode_method_name(s->method),
				      rths_strerror(code));
	free(s->rec);
	s->rec = calloc(steps + 1, sizeof(*s->rec));
	if (!s->rec)
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "cannot allocate the work records of %llu steps",
				      (unsigned long long)steps);
	/* Touch the pages now, not in the real-time loop. */
	memset(s->rec, 0, (steps + 1) * sizeof(*s->rec));
	s->cap_rec = steps + 1;
	s->n_rec = 0;
	s->budget = 0;
	if (s->kind == RTHS_HS_ODESUB_CHAIN) {
		for (size_t j = 0; j < s->nm; j++) {
			s->y[j] = ub;
			s->y[s->nm + j] = vb;
		}
	} else {
		s->y[0] = ub;
	}
	s->t0 = s->t1 = t0;
	s->ub0 = s->ub1 = ub;
	s->ag0 = s->ag1 = ag0;
	s->vb = s->vb0 = s->vb1 = vb;
	s->hermite = false;
	if (s->kind == RTHS_HS_ODESUB_MULTIBODY)
		return rths_hs_mb_start(s, err);
	s->force = force_of(s, s->y, ub, vb);
	return 0;
}

static void add_force(const struct rths_hs_odesub *s, double f, double *r)
{
	/* The force on DOF i pulls it (F > 0 towards +): a restoring -F. */
	if (s->kind != RTHS_HS_ODESUB_DAMPER) {
		r[s->dof_i] -= f;
		return;
	}
	r[s->dof_i] += f;
	if (s->dof_j >= 0)
		r[s->dof_j] -= f;
}

int rths_hs_odesub_integrate(struct rths_hs_odesub *s, double *y,
			     void (*after)(struct rths_hs_odesub *s, double t,
					   const double *y),
			     struct rths_error *err)
{
	const struct rths_ode_stats *st = rths_ode_get_stats(s->ode);
	double t = s->t0, t1 = s->t1;
	int rc = 0;

	while (rc == 0 && t < t1) {
		rc = rths_ode_step(s->ode, t1, &t, y);
		if (rc == 0 && after)
			after(s, t, y);
		if (rc == 0 && t < t1 &&
		    ((s->max_steps && st->steps >= s->max_steps) ||
		     (s->max_f_evals && st->f_evals >= s->max_f_evals)))
			return rths_error_set(err, RTHS_E_TOO_SLOW, NULL, 0,
					      s->max_steps &&
					      st->steps >= s->max_steps ?
					      "max_steps" : "max_f_evals",
					      "%s reached its cap (%lu steps, %lu f-evals) at t = %g s, %.3g s short of the hybrid step's end",
					      rths_ode_method_name(s->method),
					      st->steps, st->f_evals, t,
					      t1 - t);
	}
	if (rc < 0)
		return rths_error_set(err, rc, NULL, 0, "method",
				      "%s failed between t = %g and %g s: %s",
				      rths_ode_method_name(s->method), s->t0,
				      t1, rths_strerror(rc));
	return 0;
}

/*
 * One step; @vel: the interface velocities at the step's end, @vb1, and
 * start, *@vb0 (NULL: the last step's end), are given.
 */
static int step(struct rths_hs_odesub *s, double t1, const double *u1,
		bool vel, const double *pvb0, double vb1, double ag1,
		double *r, struct rths_error *err)
{
	const struct rths_ode_stats *st;
	struct work_rec *w;
	double t_start = mono_now(), h, ub1, vb0;
	int rc;

	if (!s->ode || !(t1 > s->t1))
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "ODE substructure: start it, then step forward in time");
	/* What every substructure is checked for, before anything moves;
	 * its one DOF is the interface displacement (the ground
	 * acceleration goes in as the acceleration). */
	ub1 = iface_disp(s, u1);
	vb0 = pvb0 ? *pvb0 : s->vb1;
	rc = rths_hs_substructure_check_input(1, 1, &ub1, vel ? &vb1 : NULL,
					      &ag1, &t1, err);
	if (rc == 0 && vel)
		rc = rths_hs_substructure_check_input(1, 1, &ub1, &vb0, NULL,
						      NULL, err);
	if (rc < 0)
		return rc;
	h = t1 - s->t1;
	s->t0 = s->t1;
	s->t1 = t1;
	s->ub0 = s->ub1;
	s->ag0 = s->ag1;
	s->ub1 = ub1;
	s->ag1 = ag1;
	s->vb = (s->ub1 - s->ub0) / h;
	s->hermite = vel && s->input == RTHS_HS_ODESUB_LINEAR;
	s->vb0 = s->hermite ? vb0 : s->vb;
	s->vb1 = s->hermite ? vb1 : s->vb;
	st = rths_ode_get_stats(s->ode);
	if (s->kind == RTHS_HS_ODESUB_MULTIBODY) {
		rc = rths_hs_mb_step(s, &s->force, err);
		if (rc < 0)
			return rc;
	} else {
		memcpy(s->y_try, s->y, s->dim * sizeof(double));
		rc = rths_ode_init(s->ode, s->t0, s->y_try, NULL);
		if (rc < 0)
			return rths_error_set(err, rc, NULL, 0, "method",
					      "%s cannot start at t = %g s: %s",
					      rths_ode_method_name(s->method),
					      s->t0, rths_strerror(rc));
		rc = rths_hs_odesub_integrate(s, s->y_try, NULL, err);
		if (rc < 0)
			return rc;
		memcpy(s->y, s->y_try, s->dim * sizeof(double));
		s->force = force_of(s, s->y, s->ub1,
				    rths_hs_odesub_vb_at(s, s->t1));
	}
	add_force(s, s->force, r);
	if (s->kind == RTHS_HS_ODESUB_MULTIBODY)
		rths_hs_mb_work_step(s);
	if (!s->budget)
		s->budget = h;
	if (s->n_rec + 1 < s->cap_rec) {
		w = &s->rec[++s->n_rec];
		w->ode_steps = (uint32_t)st->steps;
		w->f_evals = (uint32_t)st->f_evals;
		w->jac_evals = (uint32_t)st->jac_evals;
		w->newton_iters = (uint32_t)st->newton_iters;
		w->compute = mono_now() - t_start;
	}
	return 0;
}

int rths_hs_odesub_step(struct rths_hs_odesub *s, double t1,
			const double *u1, double ag1, double *r,
			struct rths_error *err)
{
	return step(s, t1, u1, false, NULL, 0, ag1, r, err);
}

static double iface_vel(const struct rths_hs_odesub *s, const double *v)
{
	return v[s->dof_i] - (s->dof_j >= 0 ? v[s->dof_j] : 0.0);
}

int rths_hs_odesub_step_vel(struct rths_hs_odesub *s, double t1,
			    const double *u1, const double *v0,
			    const double *v1, double ag1, double *r,
			    struct rths_error *err)
{
	double vb0 = v0 ? iface_vel(s, v0) : 0;

	if (!v1)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "ODE substructure: no end velocity");
	return step(s, t1, u1, true, v0 ? &vb0 : NULL, iface_vel(s, v1), ag1,
		    r, err);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void pct(double *v, size_t n, struct rths_hs_odesub_pct *p)
{
	qsort(v, n, sizeof(*v), cmp_double);
	p->p50 = v[(size_t)floor(0.5 * (double)(n - 1))];
	p->p99 = v[(size_t)floor(0.99 * (double)(n - 1))];
	p->max = v[n - 1];
}

int rths_hs_odesub_work(const struct rths_hs_odesub *s,
			struct rths_hs_odesub_work *w, struct rths_error *err)
{
	size_t n = s->n_rec;
	double *v;

	memset(w, 0, sizeof(*w));
	w->budget = s->budget;
	if (n == 0)
		return 0;
	v = rths_zalloc(n, err);
	if (!v)
		return -ENOMEM;
	w->hybrid_steps = n;
#define PCT(field, out)							\
	do {								\
		for (size_t i = 0; i < n; i++)				\
			v[i] = (double)s->rec[i + 1].field;		\
		pct(v, n, out);						\
	} while (0)
	PCT(ode_steps, &w->ode_steps);
	PCT(f_evals, &w->f_evals);
	PCT(jac_evals, &w->jac_evals);
	PCT(newton_iters, &w->newton_iters);
	PCT(compute, &w->compute);
#undef PCT
	if (s->kind == RTHS_HS_ODESUB_MULTIBODY)
		rths_hs_mb_work(s, w);
	for (size_t i = 1; i <= n; i++) {
		w->total_f_evals += s->rec[i].f_evals;
		if (s->rec[i].compute > s->budget)
			w->over_budget++;
	}
	free(v);
	return 0;
}
