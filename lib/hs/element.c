// SPDX-License-Identifier: LGPL-2.1-or-later
/* Hysteretic springs: linear, bilinear (kinematic hardening), Bouc-Wen. */
#include <math.h>
#include <string.h>

#include <rths/hs_model.h>

void rths_hs_element_defaults(struct rths_hs_element_params *p,
			      enum rths_hs_element_kind kind, double k,
			      double fy)
{
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->k = k;
	p->fy = fy;
	p->alpha = 0.1;
	p->n = 2.0;
	p->beta = 0.5;
	p->gamma = 0.5;
}

int rths_hs_element_check(const struct rths_hs_element_params *p,
			  struct rths_error *err)
{
#define BAD(field, ...) \
	rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0, field, __VA_ARGS__)
	if (!(p->k > 0) || !isfinite(p->k))
		return BAD("stiffness", "expected a positive stiffness (N/m)");
	if (p->kind == RTHS_HS_ELEMENT_LINEAR)
		return 0;
	if (!(p->fy > 0) || !isfinite(p->fy))
		return BAD("yield_force", "expected a positive yield force (N)");
	if (!(p->alpha >= 0 && p->alpha < 1))
		return BAD("post_yield_ratio", "expected a ratio in [0, 1)");
	if (p->kind == RTHS_HS_ELEMENT_BOUC_WEN) {
		if (!(p->n >= 1 && p->n <= 20))
			return BAD("exponent", "expected n in [1, 20]");
		/* beta + gamma > 0 bounds z; beta >= |gamma| keeps unloading
		 * stiffer than loading (thermodynamically admissible). */
		if (!(p->beta + p->gamma > 0) || !(p->beta >= fabs(p->gamma)))
			return BAD("beta", "expected beta >= |gamma| and beta + gamma > 0");
	}
	return 0;
#undef BAD
}

void rths_hs_element_init(struct rths_hs_element *e,
			  const struct rths_hs_element_params *p, int dof_i,
			  int dof_j)
{
	memset(e, 0, sizeof(*e));
	e->p = *p;
	e->dof_i = dof_i;
	e->dof_j = dof_j;
	e->k_t = p->k;
}

static double bilinear(struct rths_hs_element *e, double d)
{
	const struct rths_hs_element_params *p = &e->p;
	double f = e->f + p->k * (d - e->d);
	double hi = p->alpha * p->k * d + (1 - p->alpha) * p->fy;
	double lo = p->alpha * p->k * d - (1 - p->alpha) * p->fy;

	e->k_t = p->k;
	if (f > hi) {
		f = hi;
		e->k_t = p->alpha * p->k;
	} else if (f < lo) {
		f = lo;
		e->k_t = p->alpha * p->k;
	}
	return f;
}

/* dz/dd of the normalized Bouc-Wen variable (z = 1 at saturation). */
static double bw_rate(const struct rths_hs_element_params *p, double z,
		      double dir, double uy)
{
	double s = (dir * z >= 0) ? 1.0 : -1.0;

	return (1.0 - pow(fabs(z), p->n) * (p->beta * s + p->gamma)) / uy;
}

static double bouc_wen(struct rths_hs_element *e, double d)
{
	const struct rths_hs_element_params *p = &e->p;
	double uy = p->fy / p->k, dd = d - e->d, z = e->z;
	double dir = dd >= 0 ? 1.0 : -1.0;
	/* RK4 on z(d) with substeps much smaller than the yield
	 * displacement: the rate changes on that scale. */
	unsigned int steps = (unsigned int)ceil(fabs(dd) / (uy / 50.0));
	double h;

	if (steps > 10000)
		steps = 10000;
	if (steps < 1)
		steps = 1;
	h = dd / steps;
	for (unsigned int i = 0; i < steps; i++) {
		double k1 = bw_rate(p, z, dir, uy);
		double k2 = bw_rate(p, z + 0.5 * h * k1, dir, uy);
		double k3 = bw_rate(p, z + 0.5 * h * k2, dir, uy);
		double k4 = bw_rate(p, z + h * k3, dir, uy);

		z += h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4);
	}
	e->z_t = z;
	e->k_t = p->alpha * p->k + (1 - p->alpha) * p->fy *
		 bw_rate(p, z, dir, uy);
	return p->alpha * p->k * d + (1 - p->alpha) * p->fy * z;
}

double rths_hs_element_trial(struct rths_hs_element *e, double d)
{
	double f;

	e->z_t = e->z;
	switch (e->p.kind) {
	case RTHS_HS_ELEMENT_BILINEAR:
		f = bilinear(e, d);
		break;
	case RTHS_HS_ELEMENT_BOUC_WEN:
		f = bouc_wen(e, d);
		break;
	default:
		e->k_t = e->p.k;
		f = e->p.k * d;
		break;
	}
	e->d_t = d;
	e->f_t = f;
	return f;
}

void rths_hs_element_commit(struct rths_hs_element *e)
{
	e->d = e->d_t;
	e->f = e->f_t;
	e->z = e->z_t;
}

void rths_hs_element_revert(struct rths_hs_element *e)
{
	e->d_t = e->d;
	e->f_t = e->f;
	e->z_t = e->z;
}
