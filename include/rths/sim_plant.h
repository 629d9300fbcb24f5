/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sim card's discrete-time plant (RTHS_SIM_A_PLANT,
 * Documentation/sim-card.rst): designed here from a continuous transfer
 * function at the loop rate, checked as the card checks it, and run with
 * the card's own integer recursion, so that a program predicts the card
 * to the count.
 *
 * Transfer functions are num(s) / den(s), polynomial coefficients highest
 * power first (num[0] s^(nnum-1) + ... + num[nnum-1]), as MATLAB writes
 * them.
 *
 * Errors: a negative errno or -RTHS_E_xxx (rths/error.h); calls that take
 * a struct rths_error fill it with what went wrong.
 */
#ifndef RTHS_SIM_PLANT_H
#define RTHS_SIM_PLANT_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <stddef.h>
#include <stdint.h>

#include <rths/device.h>
#include <rths/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The highest order a plant may have: two poles a section. */
#define RTHS_SIM_PLANT_ORDER_MAX (2 * RTHS_SIM_SECTIONS_MAX)

/*
 * Discretise num(s) / den(s) at @rate Hz by the bilinear (Tustin)
 * transform, prewarped at @prewarp_hz (0: none; else below rate / 2, where
 * the discrete response then matches exactly), into second-order sections
 * in Q RTHS_SIM_PLANT_Q: the poles and zeros are mapped one by one (a zero
 * at infinity goes to z = -1), paired into sections least resonant first,
 * each section scaled to a unit gain at DC (at rate / 4 when it has a zero
 * at DC), the plant's gain in the first.  Fills @sim's plant_sections and
 * plant and sets RTHS_SIM_PLANT in @sim->set; nothing else changes.  The
 * plant must be proper and stable, of order RTHS_SIM_PLANT_ORDER_MAX at
 * most, with coefficients that fit RTHS_SIM_COEF_MAX.
 */
int rths_sim_plant_design(const double *num, size_t nnum, const double *den,
			  size_t nden, uint32_t rate, double prewarp_hz,
			  struct rths_sim_params *sim, struct rths_error *err);

/*
 * What the card checks of @sim's plant (if RTHS_SIM_PLANT is set): at most
 * RTHS_SIM_SECTIONS_MAX sections, every |coefficient| <= RTHS_SIM_COEF_MAX,
 * every section stable (|a2| < 1, |a1| < 1 + a2); the message names the
 * section.
 */
int rths_sim_plant_check(const struct rths_sim_params *sim,
			 struct rths_error *err);

/* The frequency response at @hz of @sim's plant at @rate Hz, from its
 * integer coefficients: magnitude and phase in degrees, (-180, 180]. */
void rths_sim_plant_response(const struct rths_sim_params *sim, uint32_t rate,
			     double hz, double *mag, double *phase_deg);

/* The same for the continuous num(s) / den(s). */
void rths_tf_response(const double *num, size_t nnum, const double *den,
		      size_t nden, double hz, double *mag, double *phase_deg);

/*
 * How far @sim's plant at @rate Hz is from num(s) / den(s) between @f_lo
 * and @f_hi Hz (every 0.01 Hz and at both ends): the largest magnitude
 * error in dB and phase error in degrees.
 */
void rths_sim_plant_fit(const struct rths_sim_params *sim, uint32_t rate,
			const double *num, size_t nnum, const double *den,
			size_t nden, double f_lo, double f_hi, double *db,
			double *deg);

/* The card's plant signals of one channel (Q16 nm). */
struct rths_sim_plant_state {
	int64_t w[RTHS_SIM_SECTIONS_MAX + 1][2];
};

/* At rest at @y nm, as the card starts a new plant (every signal at y). */
void rths_sim_plant_reset(struct rths_sim_plant_state *st, int64_t y);

/* One tick of @sim's plant for the (delayed) command @u, nm: the actuator
 * position in nm, exactly as the card computes it. */
int64_t rths_sim_plant_tick(const struct rths_sim_params *sim,
			    struct rths_sim_plant_state *st, int64_t u);

/*
 * The RTHS benchmark's plant (Silva, Dyke et al. 2020): servo-valve and
 * controller Gs = a1b0 / (s^2 + b1 s + b2), actuator Ga = 1 / (s + a3),
 * specimen Gest = 1 / (me s^2 + ce s + ke) with ce = 2 zeta sqrt(ke me),
 * G0 = Ga Gest / (1 + Ga Gest a2 s), and
 *	G = gain Gs G0 / (1 + Gs G0)
 * from the commanded to the measured displacement.
 */
struct rths_benchmark_plant {
	double gain, a1b0, a2, b1, b2, a3;
	double me;		/* kg */
	double ke;		/* N/m */
	double zeta;		/* the specimen's damping ratio */
};

/* The nominal parameters of the benchmark's released files. */
void rths_benchmark_plant_nominal(struct rths_benchmark_plant *p);

/*
 * G(s) of @p: num[0] (a constant) and den[0..5] (order 5).  -ERANGE (with
 * @err) if a parameter is not finite and positive (gain and zeta may be
 * any finite value >= 0 and > 0 respectively).
 */
int rths_benchmark_plant_tf(const struct rths_benchmark_plant *p,
			    double num[1], double den[6],
			    struct rths_error *err);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* RTHS_SIM_PLANT_H */
