// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Synthetic ground motion: Gaussian white noise through a Kanai-Tajimi
 * soil filter and a Clough-Penzien high-pass (which removes the drift a
 * pure Kanai-Tajimi record has in velocity and displacement), shaped by a
 * Jennings envelope and scaled to the target peak.  The generator is
 * seeded and portable (xoshiro256**), so a seed names a record.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <rths/hs_groundmotion.h>
#include <rths/hs_model.h>

#include "hs/random.h"

void rths_hs_synth_defaults(struct rths_hs_synth_params *p)
{
	memset(p, 0, sizeof(*p));
	p->seed = 1;
	p->duration = 20.0;
	p->dt = 0.005;
	p->pga = 0.3 * RTHS_HS_G;
	p->omega_g = 5.0 * M_PI;
	p->zeta_g = 0.6;
	p->omega_f = 0.5 * M_PI;
	p->zeta_f = 0.6;
	p->t_rise = 2.0;
	p->t_strong = 6.0;
	p->decay = 0.35;
}

int rths_hs_synth_check(const struct rths_hs_synth_params *p,
			struct rths_error *err)
{
#define BAD(field, ...) \
	rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0, field, __VA_ARGS__)
	if (!(p->dt > 0 && p->dt <= 0.1))
		return BAD("dt", "expected a time step in (0, 0.1] s");
	if (!(p->duration >= 10 * p->dt && p->duration <= 3600))
		return BAD("duration", "expected at least 10 steps and at most 3600 s");
	if (!(p->pga > 0 && p->pga < 100))
		return BAD("pga", "expected a peak in (0, 100) m/s^2");
	if (!(p->omega_g > 0) || p->omega_g * p->dt > 1.0)
		return BAD("omega_g", "expected 0 < omega_g <= 1/dt rad/s");
	if (!(p->zeta_g > 0 && p->zeta_g < 5))
		return BAD("zeta_g", "expected 0 < zeta_g < 5");
	if (!(p->omega_f >= 0 && p->omega_f < p->omega_g))
		return BAD("omega_f", "expected 0 <= omega_f < omega_g (0: no high-pass)");
	if (p->omega_f > 0 && !(p->zeta_f > 0 && p->zeta_f < 5))
		return BAD("zeta_f", "expected 0 < zeta_f < 5");
	if (!(p->t_rise >= 0) || !(p->t_strong >= 0) || !(p->decay >= 0))
		return BAD("envelope", "expected t_rise, t_strong, decay >= 0");
	return 0;
#undef BAD
}

static double envelope(const struct rths_hs_synth_params *p, double t)
{
	if (t < p->t_rise)
		return (t / p->t_rise) * (t / p->t_rise);
	if (t <= p->t_rise + p->t_strong)
		return 1.0;
	return exp(-p->decay * (t - p->t_rise - p->t_strong));
}

/*
 * State s = (x, x', y, y'): Kanai-Tajimi oscillator x driven by the noise
 * w, Clough-Penzien oscillator y driven by the Kanai-Tajimi output.
 */
static void filters(const struct rths_hs_synth_params *p, const double *s,
		    double w, double *ds, double *out)
{
	double wg = p->omega_g, wf = p->omega_f;
	double akt = 2 * p->zeta_g * wg * s[1] + wg * wg * s[0];

	ds[0] = s[1];
	ds[1] = -w - akt;
	if (wf > 0) {
		ds[2] = s[3];
		ds[3] = -akt - 2 * p->zeta_f * wf * s[3] - wf * wf * s[2];
		*out = ds[3];
	} else {
		ds[2] = ds[3] = 0;
		*out = akt;
	}
}

int rths_hs_gm_synthetic(struct rths_hs_gm *gm,
			 const struct rths_hs_synth_params *p,
			 struct rths_error *err)
{
	struct rths_hs_rng rng;
	size_t n = (size_t)floor(p->duration / p->dt + 1e-9) + 1;
	double s[4] = { 0 }, peak;
	char src[64];
	int r = rths_hs_synth_check(p, err);

	if (r < 0)
		return r;
	snprintf(src, sizeof(src), "synthetic seed %llu",
		 (unsigned long long)p->seed);
	r = rths_hs_gm_from_array(gm, NULL, n, p->dt, src, err);
	if (r < 0)
		return r;
	rths_hs_rng_seed(&rng, p->seed);
	for (size_t i = 1; i < n; i++) {
		/* Noise held over the step; RK4 integrates the filters. */
		double w = rths_hs_rng_normal(&rng), h = p->dt, out;
		double k[4][4], t[4];

		filters(p, s, w, k[0], &out);
		for (int j = 0; j < 4; j++)
			t[j] = s[j] + 0.5 * h * k[0][j];
		filters(p, t, w, k[1], &out);
		for (int j = 0; j < 4; j++)
			t[j] = s[j] + 0.5 * h * k[1][j];
		filters(p, t, w, k[2], &out);
		for (int j = 0; j < 4; j++)
			t[j] = s[j] + h * k[2][j];
		filters(p, t, w, k[3], &out);
		for (int j = 0; j < 4; j++)
			s[j] += h / 6 * (k[0][j] + 2 * k[1][j] + 2 * k[2][j] +
					 k[3][j]);
		filters(p, s, 0.0, k[0], &out);
		gm->acc[i] = out * envelope(p, (double)i * p->dt);
	}
	peak = rths_hs_gm_pga(gm);
	if (peak > 0)
		rths_hs_gm_scale(gm, p->pga / peak);
	return 0;
}
