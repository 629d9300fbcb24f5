/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rths hybrid simulation: ground motions.
 *
 * A ground motion is an equally spaced acceleration history in m/s^2.
 * Sources: PEER NGA .AT2 files, plain two-column files (time, accel) and a
 * seeded synthetic generator (Kanai-Tajimi filtered white noise, optionally
 * Clough-Penzien high-passed, under a Jennings envelope).
 *
 * Errors: a negative errno or -RTHS_E_xxx (rths/error.h); calls that take
 * a struct rths_error fill it with what went wrong and where.
 */
#ifndef RTHS_HS_GROUNDMOTION_H
#define RTHS_HS_GROUNDMOTION_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <stddef.h>
#include <stdint.h>

#include <rths/hs_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rths_hs_gm {
	size_t npts;
	double dt;		/* s */
	double *acc;		/* m/s^2, npts values, acc[0] at t = 0 */
	char source[256];	/* file name or "synthetic seed N" */
};

struct rths_hs_synth_params {
	uint64_t seed;
	double duration;	/* s */
	double dt;		/* s */
	double pga;		/* target peak ground acceleration, m/s^2 */
	double omega_g;		/* Kanai-Tajimi ground frequency, rad/s */
	double zeta_g;		/* Kanai-Tajimi ground damping */
	double omega_f;		/* Clough-Penzien high-pass, rad/s; 0: off */
	double zeta_f;
	double t_rise;		/* envelope: (t / t_rise)^2 up to t_rise, */
	double t_strong;	/* 1 up to t_rise + t_strong, */
	double decay;		/* then exp(-decay (t - t_rise - t_strong)) */
};

/* A firm-soil motion: 2.5 Hz, zeta 0.6, 20 s, 0.3 g, seed 1. */
void rths_hs_synth_defaults(struct rths_hs_synth_params *p);
int rths_hs_synth_check(const struct rths_hs_synth_params *p,
			struct rths_error *err);
/* Same seed and parameters, same record, on every machine. */
int rths_hs_gm_synthetic(struct rths_hs_gm *gm,
			 const struct rths_hs_synth_params *p,
			 struct rths_error *err);

/* A copy of @n values at step @dt (for tests and tools). */
int rths_hs_gm_from_array(struct rths_hs_gm *gm, const double *acc,
			  size_t n, double dt, const char *source,
			  struct rths_error *err);
/* Like free(), NULL is accepted and does nothing. */
void rths_hs_gm_free(struct rths_hs_gm *gm);
void rths_hs_gm_scale(struct rths_hs_gm *gm, double factor);
/* Linear interpolation; 0 before the start and after the end. */
double rths_hs_gm_at(const struct rths_hs_gm *gm, double t);
double rths_hs_gm_duration(const struct rths_hs_gm *gm);
double rths_hs_gm_pga(const struct rths_hs_gm *gm);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

/* Source compatibility: the file readers and writers are in
 * <rths/files.h> (lib/files). */
#include <rths/files.h>

#endif /* RTHS_HS_GROUNDMOTION_H */
