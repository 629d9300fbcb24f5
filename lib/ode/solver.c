// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Solver object life cycle: the method table, creation (copying the
 * system and control so the caller's storage may go away), initial state,
 * accessors.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ode_impl.h"

static const struct ode_ops *const methods[RTHS_ODE_METHOD_COUNT] = {
	[RTHS_ODE_RKF45] = &ode_rkf45_ops,
	[RTHS_ODE_ABAM] = &ode_abam_ops,
	[RTHS_ODE_GSTIFF] = &ode_gstiff_ops,
	[RTHS_ODE_WSTIFF] = &ode_wstiff_ops,
	[RTHS_ODE_DSTIFF] = &ode_dstiff_ops,
	[RTHS_ODE_CONSTANT_BDF] = &ode_constant_bdf_ops,
	[RTHS_ODE_ROSENBROCK_W] = &ode_rosenbrock_w_ops,
};

const char *rths_ode_method_name(enum rths_ode_method m)
{
	if ((unsigned int)m >= RTHS_ODE_METHOD_COUNT)
		return "unknown";
	return methods[m]->name;
}

int rths_ode_method_from_name(const char *name)
{
	for (int m = 0; m < RTHS_ODE_METHOD_COUNT; m++)
		if (name && !strcmp(methods[m]->name, name))
			return m;
	return -EINVAL;
}

int rths_ode_method_is_implicit(enum rths_ode_method m)
{
	return (unsigned int)m < RTHS_ODE_METHOD_COUNT && methods[m]->implicit;
}

void rths_ode_free(struct rths_ode *s)
{
	if (!s)
		return;
	ode_newton_free(s);
	rths_owned_free(&s->mem);
	free(s);
}

static int check_system(const struct rths_ode_system *sys,
			const struct ode_ops *ops)
{
	if (!sys || sys->dim == 0)
		return -EINVAL;
	if (!sys->rhs && !sys->res)
		return -EINVAL;
	/* a Rosenbrock method can be given a DAE, not solve it */
	if (!sys->rhs && ops->linear_implicit)
		return -RTHS_E_UNSUPPORTED;
	if (!sys->rhs && !ops->implicit)
		return -RTHS_E_METHOD;
	return 0;
}

static int setup(struct rths_ode *s, const struct rths_ode_system *sys,
		 const struct rths_ode_control *ctl)
{
	size_t n = sys->dim;
	int rc;

	s->sys = *sys;
	s->n = n;
	s->dae = !sys->rhs;
	if (ctl)
		s->ctl = *ctl;
	else
		rths_ode_control_default(&s->ctl);
	rc = ode_control_check(&s->ctl, n);
	if (rc)
		return rc;
	if (s->ctl.max_order > s->ops->max_order)
		return -EINVAL;
	s->max_order = s->ctl.max_order ? s->ctl.max_order
					 : s->ops->default_order;
	s->h_max = s->ctl.h_max > 0 ? s->ctl.h_max : INFINITY;
	if (!s->ctl.max_steps)
		s->ctl.max_steps = 500000;
	if (!s->ctl.fixed_err_max)
		s->ctl.fixed_err_max = 10;

	s->fd_work = ode_vec(s, 4 * n);
	if (ODE_VECS(s, n, &s->atol, &s->ewt, &s->y, &s->yp, &s->ic_res))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		s->atol[i] = s->ctl.atol_v ? s->ctl.atol_v[i] : s->ctl.atol;
	s->ctl.atol_v = s->atol;

	s->n_tested = n;
	if (s->dae && sys->no_error_test) {
		s->no_err = rths_owned_zalloc(&s->mem, n, 1);
		if (!s->no_err)
			return -ENOMEM;
		memcpy(s->no_err, sys->no_error_test, n);
		s->n_tested = 0;
		for (size_t i = 0; i < n; i++)
			s->n_tested += !s->no_err[i];
		if (!s->n_tested)
			return -EINVAL;
	}
	s->sys.no_error_test = s->no_err;

	if (s->ops->implicit || s->ops->linear_implicit) {
		rc = ode_newton_new(s);
		if (rc)
			return rc;
	}
	return s->ops->create ? s->ops->create(s) : 0;
}

struct rths_ode *rths_ode_new(enum rths_ode_method method,
			      const struct rths_ode_system *sys,
			      const struct rths_ode_control *ctl, int *err)
{
	struct rths_ode *s = NULL;
	int rc;

	if ((unsigned int)method >= RTHS_ODE_METHOD_COUNT) {
		rc = -EINVAL;
		goto fail;
	}
	rc = check_system(sys, methods[method]);
	if (rc)
		goto fail;
	s = calloc(1, sizeof(*s));
	if (!s) {
		rc = -ENOMEM;
		goto fail;
	}
	s->method = method;
	s->ops = methods[method];
	rc = setup(s, sys, ctl);
	if (rc)
		goto fail;
	if (err)
		*err = 0;
	return s;
fail:
	rths_ode_free(s);
	if (err)
		*err = rc;
	return NULL;
}

int rths_ode_init(struct rths_ode *s, double t0, const double *y0,
		  const double *yp0)
{
	size_t n;
	int rc;

	if (!s || !y0 || (s->dae && !yp0))
		return -EINVAL;
	n = s->n;
	s->initialized = 0;
	if (!isfinite(t0) || !ode_all_finite(y0, n) ||
	    (s->dae && !ode_all_finite(yp0, n)))
		return -RTHS_E_NONFINITE;
	memset(&s->st, 0, sizeof(s->st));
	s->t = t0;
	ode_copy(s->y, y0, n);
	rc = ode_set_weights(s, s->y);
	if (rc)
		return rc;
	if (s->dae) {
		ode_copy(s->yp, yp0, n);
	} else {
		rc = ode_rhs(s, t0, s->y, s->yp);
		if (rc)
			return rc;
	}
	if (s->nw)
		ode_newton_reset(s);
	if (s->dae) {
		rc = ode_dae_check_ic(s);
		if (rc)
			return rc;
	}
	s->started = 0;
	s->initialized = 1;
	return 0;
}

double rths_ode_get_state(const struct rths_ode *s, double *y, double *yp)
{
	if (y)
		ode_copy(y, s->y, s->n);
	if (yp)
		ode_copy(yp, s->yp, s->n);
	return s->t;
}

const struct rths_ode_stats *rths_ode_get_stats(const struct rths_ode *s)
{
	return &s->st;
}

enum rths_ode_method rths_ode_get_method(const struct rths_ode *s)
{
	return s->method;
}
