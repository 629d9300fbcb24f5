// SPDX-License-Identifier: LGPL-2.1-or-later
/* Experimental setups: the patent's multi-actuator decoupling and inverse. */
#include <assert.h>
#include <math.h>
#include <string.h>

#include <linux/rths.h>
#include <rths/hs_setup.h>

#include "hs/linalg.h"

static_assert(RTHS_HS_MAX_CHANNELS == RTHS_MAX_CHANNELS,
	      "one actuator per device channel");

int rths_hs_setup_direct(struct rths_hs_setup *s, size_t n,
			 struct rths_error *err)
{
	memset(s, 0, sizeof(*s));
	if (n < 1 || n > RTHS_HS_MAX_CHANNELS)
		return rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0,
				      "actuators",
				      "expected 1 to %d actuators, got %zu",
				      RTHS_HS_MAX_CHANNELS, n);
	s->kind = RTHS_HS_SETUP_DIRECT;
	s->dim = n;
	s->n_act = n;
	return 0;
}

/* Vector from A_i to X0 + x and its length. */
static double arm(const struct rths_hs_setup *s, size_t i, const double *x,
		  double *d)
{
	double l2 = 0;

	for (size_t k = 0; k < s->dim; k++) {
		d[k] = s->origin[k] + x[k] - s->end[i][k];
		l2 += d[k] * d[k];
	}
	return sqrt(l2);
}

int rths_hs_setup_directions(const struct rths_hs_setup *s, const double *x,
			     double *E, struct rths_error *err)
{
	if (s->kind == RTHS_HS_SETUP_DIRECT) {
		memset(E, 0, s->n_act * s->dim * sizeof(*E));
		for (size_t i = 0; i < s->n_act; i++)
			E[i * s->dim + i] = 1.0;
		return 0;
	}
	for (size_t i = 0; i < s->n_act; i++) {
		double d[3], l = arm(s, i, x, d);

		if (!(l > 0))
			return rths_error_set(err, RTHS_E_BAD_GEOMETRY, NULL, 0,
					      NULL,
					      "the loading point reached the fixed end of actuator %zu",
					      i);
		for (size_t k = 0; k < s->dim; k++)
			E[i * s->dim + k] = d[k] / l;
	}
	return 0;
}

/* E in column-major form for LAPACK (n_act x dim), optionally E^T. */
static void to_colmajor(const struct rths_hs_setup *s, const double *E,
			double *A, int transpose)
{
	for (size_t i = 0; i < s->n_act; i++)
		for (size_t k = 0; k < s->dim; k++) {
			if (transpose)
				A[i * s->dim + k] = E[i * s->dim + k];
			else
				A[k * s->n_act + i] = E[i * s->dim + k];
		}
}

int rths_hs_setup_actuators(struct rths_hs_setup *s, size_t dim,
			    size_t n_act, const double (*ends)[3],
			    const double *lengths, const double *origin,
			    struct rths_error *err)
{
	double zero[3] = { 0 }, E[RTHS_HS_MAX_CHANNELS * 3];
	double A[RTHS_HS_MAX_CHANNELS * 3], b[RTHS_HS_MAX_CHANNELS] = { 0 };
	double scale = 0;
	int rank = 0, r;

	memset(s, 0, sizeof(*s));
	if (dim < 2 || dim > 3)
		return rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0,
				      "dimension", "expected 2 or 3, got %zu", dim);
	if (n_act < dim || n_act > RTHS_HS_MAX_CHANNELS)
		return rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0,
				      "actuators",
				      "expected %zu to %d actuators in %zu dimensions, got %zu",
				      dim, RTHS_HS_MAX_CHANNELS, dim, n_act);
	s->kind = RTHS_HS_SETUP_ACTUATORS;
	s->dim = dim;
	s->n_act = n_act;
	if (origin)
		memcpy(s->origin, origin, dim * sizeof(double));
	for (size_t i = 0; i < n_act; i++) {
		double d[3];

		memcpy(s->end[i], ends[i], dim * sizeof(double));
		s->length[i] = arm(s, i, zero, d);
		if (!(s->length[i] > 0))
			return rths_error_set(err, RTHS_E_BAD_GEOMETRY, NULL, 0,
					      "actuators",
					      "actuator %zu: its fixed end is the loading point",
					      i);
		if (lengths && fabs(lengths[i] - s->length[i]) >
			       1e-6 * s->length[i])
			return rths_error_set(err, RTHS_E_BAD_GEOMETRY, NULL, 0,
					      "actuators",
					      "actuator %zu: initial length %g m, but its end is %g m from the loading point",
					      i, lengths[i], s->length[i]);
		scale = fmax(scale, s->length[i]);
	}
	s->tol = 1e-12 * fmax(scale, 1.0);
	s->max_iter = 50;
	/* The directions must span the plane or space. */
	r = rths_hs_setup_directions(s, zero, E, err);
	if (r < 0)
		return r;
	to_colmajor(s, E, A, 0);
	r = rths_hs_la_lstsq(n_act, dim, A, b, 1e-6, &rank, err);
	if (r < 0)
		return r;
	if ((size_t)rank < dim)
		return rths_error_set(err, RTHS_E_BAD_GEOMETRY, NULL, 0,
				      "actuators",
				      "the actuators act along only %d independent direction%s; %zu are needed",
				      rank, rank == 1 ? "" : "s", dim);
	return 0;
}

int rths_hs_setup_strokes(const struct rths_hs_setup *s, const double *x,
			  double *strokes, struct rths_error *err)
{
	(void)err;
	if (s->kind == RTHS_HS_SETUP_DIRECT) {
		memcpy(strokes, x, s->n_act * sizeof(double));
		return 0;
	}
	for (size_t i = 0; i < s->n_act; i++) {
		double d[3];

		strokes[i] = arm(s, i, x, d) - s->length[i];
	}
	return 0;
}

int rths_hs_setup_position(const struct rths_hs_setup *s,
			   const double *strokes, const double *guess,
			   double *x, struct rths_error *err)
{
	double E[RTHS_HS_MAX_CHANNELS * 3], A[RTHS_HS_MAX_CHANNELS * 3];
	double g[RTHS_HS_MAX_CHANNELS];

	if (s->kind == RTHS_HS_SETUP_DIRECT) {
		memcpy(x, strokes, s->n_act * sizeof(double));
		return 0;
	}
	if (guess)
		memcpy(x, guess, s->dim * sizeof(double));
	else
		memset(x, 0, s->dim * sizeof(double));
	/* Gauss-Newton on |A_i X| - l_i - dl_i = 0; the Jacobian rows are
	 * the unit vectors e_i, so it converges quadratically near X0. */
	for (unsigned int it = 0; it < s->max_iter; it++) {
		double step = 0;
		int r = rths_hs_setup_directions(s, x, E, err);

		if (r < 0)
			return r;
		for (size_t i = 0; i < s->n_act; i++) {
			double d[3];

			g[i] = -(arm(s, i, x, d) - s->length[i] - strokes[i]);
		}
		to_colmajor(s, E, A, 0);
		r = rths_hs_la_lstsq(s->n_act, s->dim, A, g, 1e-12, NULL, err);
		if (r < 0)
			return r;
		for (size_t k = 0; k < s->dim; k++) {
			x[k] += g[k];
			step = fmax(step, fabs(g[k]));
		}
		if (step <= s->tol)
			return 0;
	}
	return rths_error_set(err, RTHS_E_NO_CONVERGENCE, NULL, 0, NULL,
			      "the loading point did not converge from the strokes in %u iterations",
			      s->max_iter);
}

/*
 * What a force conversion at x needs: a direct setup maps in to out one
 * to one (1: done; its up to 16 x 16 directions are more than E holds),
 * any other the directions E at x (0), or an error.
 */
static int force_directions(const struct rths_hs_setup *s, const double *x,
			    const double *in, double *out, double *E,
			    struct rths_error *err)
{
	if (s->kind == RTHS_HS_SETUP_DIRECT) {
		memcpy(out, in, s->n_act * sizeof(double));
		return 1;
	}
	return rths_hs_setup_directions(s, x, E, err);
}

int rths_hs_setup_force(const struct rths_hs_setup *s, const double *x,
			const double *f_act, double *f_if,
			struct rths_error *err)
{
	double E[RTHS_HS_MAX_CHANNELS * 3];
	int r = force_directions(s, x, f_act, f_if, E, err);

	if (r)
		return r < 0 ? r : 0;
	for (size_t k = 0; k < s->dim; k++) {
		f_if[k] = 0;
		for (size_t i = 0; i < s->n_act; i++)
			f_if[k] += f_act[i] * E[i * s->dim + k];
	}
	return 0;
}

int rths_hs_setup_actuator_forces(const struct rths_hs_setup *s,
				  const double *x, const double *f_if,
				  double *f_act, struct rths_error *err)
{
	double E[RTHS_HS_MAX_CHANNELS * 3], A[RTHS_HS_MAX_CHANNELS * 3];
	double b[RTHS_HS_MAX_CHANNELS] = { 0 };
	int r = force_directions(s, x, f_if, f_act, E, err);

	if (r)
		return r < 0 ? r : 0;
	/* E^T f = F: dim equations, n_act unknowns; least norm. */
	to_colmajor(s, E, A, 1);
	memcpy(b, f_if, s->dim * sizeof(double));
	r = rths_hs_la_lstsq(s->dim, s->n_act, A, b, 1e-12, NULL, err);
	if (r < 0)
		return r;
	memcpy(f_act, b, s->n_act * sizeof(double));
	return 0;
}
