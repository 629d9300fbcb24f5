// SPDX-License-Identifier: LGPL-2.1-or-later
/* Ground motion records: storage and interpolation (read: lib/files). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rths/hs_groundmotion.h>

int rths_hs_gm_from_array(struct rths_hs_gm *gm, const double *acc,
			  size_t n, double dt, const char *source,
			  struct rths_error *err)
{
	memset(gm, 0, sizeof(*gm));
	if (n == 0 || !(dt > 0))
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "a record needs values and a positive time step");
	gm->acc = malloc(n * sizeof(*gm->acc));
	if (!gm->acc)
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "cannot allocate %zu values", n);
	if (acc)
		memcpy(gm->acc, acc, n * sizeof(*acc));
	else
		memset(gm->acc, 0, n * sizeof(*gm->acc));
	gm->npts = n;
	gm->dt = dt;
	snprintf(gm->source, sizeof(gm->source), "%s", source ? source : "");
	return 0;
}

void rths_hs_gm_free(struct rths_hs_gm *gm)
{
	if (!gm)
		return;
	free(gm->acc);
	memset(gm, 0, sizeof(*gm));
}

void rths_hs_gm_scale(struct rths_hs_gm *gm, double factor)
{
	for (size_t i = 0; i < gm->npts; i++)
		gm->acc[i] *= factor;
}

double rths_hs_gm_at(const struct rths_hs_gm *gm, double t)
{
	double x;
	size_t i;

	if (!gm->npts || t < 0)
		return 0.0;
	x = t / gm->dt;
	/* Snap times within rounding of a sample onto it. */
	if (fabs(x - nearbyint(x)) < 1e-9)
		x = nearbyint(x);
	if (x > (double)(gm->npts - 1))
		return 0.0;
	i = (size_t)x;
	if (i + 1 >= gm->npts)
		return gm->acc[gm->npts - 1];
	return gm->acc[i] + (gm->acc[i + 1] - gm->acc[i]) * (x - (double)i);
}

double rths_hs_gm_duration(const struct rths_hs_gm *gm)
{
	return gm->npts ? (double)(gm->npts - 1) * gm->dt : 0.0;
}

double rths_hs_gm_pga(const struct rths_hs_gm *gm)
{
	double p = 0.0;

	for (size_t i = 0; i < gm->npts; i++)
		if (fabs(gm->acc[i]) > p)
			p = fabs(gm->acc[i]);
	return p;
}
