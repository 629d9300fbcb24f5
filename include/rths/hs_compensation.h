/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rths hybrid simulation: actuator delay compensation, one channel each.
 *
 * Step n+1's target u (after decoupling) becomes the command c sent to
 * the actuator:
 *   NONE	c = u.
 *   POLYNOMIAL	c = the order-p polynomial through the last p+1 targets,
 *		evaluated one delay ahead (p = 1..3).
 *   ATS	adaptive time series (Chae, Kazemibidokhti and Ricles 2013):
 *		c = a0 u + a1 u' + a2 u'' (backward differences).  The
 *		coefficients are re-estimated by least squares from the
 *		commands c and the measured displacements x over a moving
 *		window, fitting c = a0 x + a1 x' + a2 x'' (the actuator's
 *		inverse), and clamped to bounds.  A pure delay tau with gain
 *		g gives a0 = 1/g, a1 = tau/g, a2 = tau^2/(2g).
 *   a plug-in	a program's own (rths/hs_plugin.h), with the params'
 *		dt and delay.
 *
 * Errors: a negative errno or -RTHS_E_xxx (rths/error.h); calls that take
 * a struct rths_error fill it with what went wrong and where.
 */
#ifndef RTHS_HS_COMPENSATION_H
#define RTHS_HS_COMPENSATION_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <rths/hs_error.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rths_hs_comp_kind {
	RTHS_HS_COMP_NONE = 1,
	RTHS_HS_COMP_POLYNOMIAL,
	RTHS_HS_COMP_ATS,
	/* Plug-ins (rths/hs_plugin.h): the kinds that
	 * rths_hs_compensator_register() gives, RTHS_HS_MAX_PLUGINS of
	 * them. */
	RTHS_HS_COMP_PLUGIN_FIRST = 0x100,
	RTHS_HS_COMP_PLUGIN_LAST = 0x10f,
};

struct rths_hs_comp_params {
	enum rths_hs_comp_kind kind;
	double dt;		/* integration step, s */
	double delay;		/* s: polynomial horizon; ATS start */
	unsigned int order;	/* polynomial, 1..3 */
	unsigned int window;	/* ATS: samples fitted, >= 8 */
	unsigned int update_every; /* ATS: steps between estimates */
	double a0_min, a0_max;	/* ATS bounds */
	double a1_min, a1_max;	/* s */
	double a2_min, a2_max;	/* s^2 */
	double min_motion;	/* ATS: no estimate while the window's RMS
				 * measured displacement is below this, m */
};

/* Polynomial order 2; ATS window 1 s, update every step, a0 in
 * [0.5, 2], a1 in [0, 0.1] s, a2 in [0, 0.005] s^2; delay 0. */
void rths_hs_comp_defaults(struct rths_hs_comp_params *p,
			   enum rths_hs_comp_kind kind, double dt);
int rths_hs_comp_check(const struct rths_hs_comp_params *p,
		       struct rths_error *err);
/* "none", "polynomial", "ats", or a registered plug-in's name. */
const char *rths_hs_comp_name(enum rths_hs_comp_kind k);
/* The kind by name; 0 (no kind: the enum starts at 1) if @name is
 * unknown or NULL.  Not an error code, not negative. */
enum rths_hs_comp_kind rths_hs_comp_from_name(const char *name);

struct rths_hs_comp;

int rths_hs_comp_new(struct rths_hs_comp **out,
		     const struct rths_hs_comp_params *p,
		     struct rths_error *err);
/* Like free(), NULL is accepted and does nothing. */
void rths_hs_comp_free(struct rths_hs_comp *c);
/* The command for the next target (call once per step).  A plug-in that
 * fails gives NaN; rths_hs_sim_run() fails the step with its error. */
double rths_hs_comp_command(struct rths_hs_comp *c, double target);
/* What was sent and what was measured for that step (ATS and plug-ins
 * learn). */
void rths_hs_comp_observe(struct rths_hs_comp *c, double command,
			  double measured);
/* Current a0, a1, a2 (polynomial/none: 1, delay, 0 / 1, 0, 0). */
void rths_hs_comp_coefficients(const struct rths_hs_comp *c, double a[3]);
/* ATS estimates accepted so far. */
unsigned long rths_hs_comp_updates(const struct rths_hs_comp *c);

/*
 * One least-squares fit c = a0 x + a1 x' + a2 x'' over @n samples (step
 * @dt), unbounded; the first three samples only seed the differences.
 */
int rths_hs_ats_estimate(const double *cmd, const double *meas, size_t n,
			 double dt, double a[3], struct rths_error *err);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* RTHS_HS_COMPENSATION_H */
