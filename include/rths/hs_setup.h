/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rths hybrid simulation: experimental setups.
 *
 * A setup turns the interface displacement x (what the integrator
 * commands at the specimen, n_if coordinates) into actuator strokes, and
 * the measured strokes and actuator forces back into the interface
 * displacement and force.
 *
 *   DIRECT	one actuator per interface coordinate, stroke = x; with one
 *		coordinate this is the one-actuator setup.
 *   ACTUATORS	the patent's decoupling: actuators with fixed ends A_i and
 *		initial lengths l_i load one point whose rest position is
 *		X0; the stroke of actuator i for X = X0 + x is
 *		dl_i = |A_i X| - l_i.  dim is 2 (planar; two actuators make
 *		the two-actuator setup) or 3 (spatial, three or more).  The
 *		inverse takes measured strokes to X by Gauss-Newton, and
 *		actuator forces f_i (positive pushing X away from A_i) to the
 *		force on the point, sum f_i e_i with e_i = (X - A_i)/|X - A_i|.
 *
 * Errors: a negative errno or -RTHS_E_xxx (rths/error.h); calls that take
 * a struct rths_error fill it with what went wrong and where.
 */
#ifndef RTHS_HS_SETUP_H
#define RTHS_HS_SETUP_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <stddef.h>

#include <rths/hs_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Same as RTHS_MAX_CHANNELS in <linux/rths.h>: one channel an actuator. */
#define RTHS_HS_MAX_CHANNELS 16

enum rths_hs_setup_kind {
	RTHS_HS_SETUP_DIRECT = 1,
	RTHS_HS_SETUP_ACTUATORS,
};

struct rths_hs_setup {
	enum rths_hs_setup_kind kind;
	size_t dim;		/* interface coordinates */
	size_t n_act;		/* actuators (device channels) */
	double origin[3];	/* X0 */
	double end[RTHS_HS_MAX_CHANNELS][3];	/* A_i */
	double length[RTHS_HS_MAX_CHANNELS];	/* l_i */
	double tol;		/* Gauss-Newton: |dX| below this ends, m */
	unsigned int max_iter;
};

/* @n actuators, one per coordinate (n = 1: the one-actuator setup). */
int rths_hs_setup_direct(struct rths_hs_setup *s, size_t n,
			 struct rths_error *err);
/*
 * @dim 2 or 3, @n_act >= dim actuators with fixed ends @ends (only the
 * first @dim coordinates are used) around the loading point @origin
 * (NULL: 0).  @lengths NULL: l_i = |A_i X0|; given, they must agree with
 * that to 1e-6 (the patent puts X0 where all strokes are zero).  Fails
 * with RTHS_E_BAD_GEOMETRY if the actuators cannot move the point in
 * every direction.
 */
int rths_hs_setup_actuators(struct rths_hs_setup *s, size_t dim,
			    size_t n_act, const double (*ends)[3],
			    const double *lengths, const double *origin,
			    struct rths_error *err);

/* Strokes for the interface displacement @x. */
int rths_hs_setup_strokes(const struct rths_hs_setup *s, const double *x,
			  double *strokes, struct rths_error *err);
/* Interface displacement from measured strokes; @guess may be NULL. */
int rths_hs_setup_position(const struct rths_hs_setup *s,
			   const double *strokes, const double *guess,
			   double *x, struct rths_error *err);
/* Force on the loading point at @x from the actuator forces. */
int rths_hs_setup_force(const struct rths_hs_setup *s, const double *x,
			const double *f_act, double *f_if,
			struct rths_error *err);
/* Actuator forces (least norm if redundant) that make @f_if at @x. */
int rths_hs_setup_actuator_forces(const struct rths_hs_setup *s,
				  const double *x, const double *f_if,
				  double *f_act, struct rths_error *err);
/* Unit vectors e_i (n_act x dim, row i = e_i) at @x. */
int rths_hs_setup_directions(const struct rths_hs_setup *s, const double *x,
			     double *E, struct rths_error *err);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* RTHS_HS_SETUP_H */
