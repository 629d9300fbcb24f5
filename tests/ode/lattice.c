// SPDX-License-Identifier: GPL-2.0
/* The mass lattice of lattice.h: right-hand side, Jacobian and pattern. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "lattice.h"

struct ode_lattice ode_lattice_default(size_t nx, size_t ny)
{
	struct ode_lattice l = {
		.nx = nx, .ny = ny, .k_over_m = 1e4, .beta = 0.05,
		.ag_amp = 1.0, .ag_omega = 2 * M_PI,
	};
	return l;
}

/*
 * The neighbours of mass p in ascending order, -1 for the ground (the
 * left neighbour of the left column); returns how many (<= 4).
 */
static int neighbours(const struct ode_lattice *l, size_t p, long nb[4])
{
	size_t ix = p % l->nx, iy = p / l->nx;
	int c = 0;

	if (iy > 0)
		nb[c++] = (long)(p - l->nx);
	nb[c++] = ix > 0 ? (long)(p - 1) : -1;
	if (ix + 1 < l->nx)
		nb[c++] = (long)(p + 1);
	if (iy + 1 < l->ny)
		nb[c++] = (long)(p + l->nx);
	return c;
}

int ode_lattice_rhs(double t, const double *y, double *dydt, void *params)
{
	const struct ode_lattice *l = params;
	size_t np = l->nx * l->ny;
	double km = l->k_over_m, ag = l->ag_amp * sin(l->ag_omega * t);

	for (size_t p = 0; p < np; p++) {
		long nb[4];
		int c = neighbours(l, p, nb);
		double f = -ag;

		for (int q = 0; q < c; q++) {
			double x = nb[q] < 0 ? 0 : y[2 * nb[q]];
			double v = nb[q] < 0 ? 0 : y[2 * nb[q] + 1];

			f += km * (x - y[2 * p]) +
			     l->beta * km * (v - y[2 * p + 1]);
		}
		dydt[2 * p] = y[2 * p + 1];
		dydt[2 * p + 1] = f;
	}
	return 0;
}

/*
 * Column by column, the entries of the Jacobian in ascending rows: put
 * (i, j, value) for each.  Column 2p (x_p) has the rows 2q + 1 of p and
 * its neighbours q, and row 2p (a stored zero); column 2p + 1 (v_p) has
 * the same rows.
 */
static void entries(const struct ode_lattice *l,
		    void (*put)(void *ctx, size_t i, size_t j, double v),
		    void *ctx)
{
	size_t np = l->nx * l->ny;
	double km = l->k_over_m;

	for (size_t p = 0; p < np; p++) {
		long nb[4];
		int c = neighbours(l, p, nb);

		for (int vel = 0; vel <= 1; vel++) {
			size_t j = 2 * p + (size_t)vel;
			double s = vel ? l->beta * km : km;
			int self = 0;

			for (int q = 0; q <= c; q++) {
				long r = q < c ? nb[q] : (long)np;

				if (!self && r > (long)p) {
					/* x_p' = v_p; an explicit zero on
					 * the diagonal, for CVODE's
					 * I - gamma J in place */
					put(ctx, 2 * p, j, vel ? 1.0 : 0.0);
					put(ctx, 2 * p + 1, j, -s * c);
					self = 1;
				}
				if (q < c && r >= 0)
					put(ctx, 2 * (size_t)r + 1, j, s);
			}
		}
	}
}

static void put_dense(void *ctx, size_t i, size_t j, double v)
{
	struct rths_mat *J = ctx;

	RTHS_MAT(J, i, j) = v;
}

int ode_lattice_jac(double t, const double *y, struct rths_mat *J,
		    void *params)
{
	(void)t;
	(void)y;
	entries(params, put_dense, J);
	return 0;
}

/* The values in pattern order: entries() walks the pattern's order. */
struct fill {
	struct rths_csc *J;
	size_t k;
	int bad;
};

static void put_sparse(void *ctx, size_t i, size_t j, double v)
{
	struct fill *f = ctx;

	if (f->k >= RTHS_CSC_NNZ(f->J) || f->J->rowind[f->k] != i ||
	    f->k < f->J->colptr[j] || f->k >= f->J->colptr[j + 1]) {
		f->bad = 1;
		return;
	}
	f->J->values[f->k++] = v;
}

int ode_lattice_sparse_jac(double t, const double *y, struct rths_csc *J,
			   void *params)
{
	struct fill f = { .J = J };

	(void)t;
	(void)y;
	entries(params, put_sparse, &f);
	return f.bad || f.k != RTHS_CSC_NNZ(J);
}

struct count {
	size_t *colptr, *rowind;
	size_t k;
};

static void put_pattern(void *ctx, size_t i, size_t j, double v)
{
	struct count *c = ctx;

	(void)v;
	if (c->rowind)
		c->rowind[c->k] = i;
	c->k++;
	if (c->colptr)
		c->colptr[j + 1] = c->k;
}

size_t ode_lattice_pattern(const struct ode_lattice *l, size_t **colptr,
			   size_t **rowind)
{
	struct count c = { 0 };
	size_t n = ode_lattice_dim(l);

	entries(l, put_pattern, &c);	/* count */
	c.colptr = calloc(n + 1, sizeof(*c.colptr));
	c.rowind = malloc(c.k * sizeof(*c.rowind));
	if (!c.colptr || !c.rowind) {
		free(c.colptr);
		free(c.rowind);
		return 0;
	}
	c.k = 0;
	entries(l, put_pattern, &c);
	*colptr = c.colptr;
	*rowind = c.rowind;
	return c.k;
}

struct rths_ode_system ode_lattice_system(struct ode_lattice *l)
{
	struct rths_ode_system sys = {
		.dim = ode_lattice_dim(l),
		.rhs = ode_lattice_rhs,
		.jac = ode_lattice_jac,
		.params = l,
	};
	return sys;
}

int ode_lattice_solve(struct ode_lattice *l, enum rths_ode_method m,
		      int linear, double rtol, double atol, double tend,
		      double h_fixed, double *y, struct rths_ode_stats *st)
{
	struct rths_ode_system sys = ode_lattice_system(l);
	struct rths_ode_control c;
	size_t *cp = NULL, *ri = NULL;
	struct rths_ode *s;
	double t;
	int rc;

	rths_ode_control_default(&c);
	c.rtol = rtol;
	c.atol = atol;
	c.h_init = h_fixed;
	c.fixed_err_max = INFINITY;
	s = rths_ode_new(m, &sys, &c, &rc);
	if (!s)
		return rc;
	if (linear >= 0) {
		rc = ode_lattice_pattern(l, &cp, &ri) ? 0 : -ENOMEM;
		if (!rc)
			rc = rths_ode_set_sparse_jac(s, cp, ri,
						     ode_lattice_sparse_jac,
						     linear);
		free(cp);
		free(ri);
	}
	for (size_t i = 0; i < sys.dim; i++)
		y[i] = 0;
	if (!rc)
		rc = rths_ode_init(s, 0, y, NULL);
	if (!rc)
		rc = rths_ode_evolve(s, tend, &t, y);
	if (st)
		*st = *rths_ode_get_stats(s);
	rths_ode_free(s);
	return rc;
}
