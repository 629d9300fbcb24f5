// SPDX-License-Identifier: LGPL-2.1-or-later
/* Ground motion records: storage, interpolation, two-column files. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rths/hs_groundmotion.h>

#include "hs/gm_parse.h"

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

int rths_hs_gm_append(struct rths_hs_gm *gm, size_t *cap, double v,
		      struct rths_error *err)
{
	if (gm->npts == *cap) {
		size_t nc = *cap ? *cap * 2 : 1024;
		double *p = realloc(gm->acc, nc * sizeof(*p));

		if (!p)
			return rths_error_set(err, ENOMEM, NULL, 0, NULL,
					      "cannot grow the record past %zu values",
					      gm->npts);
		gm->acc = p;
		*cap = nc;
	}
	gm->acc[gm->npts++] = v;
	return 0;
}

FILE *rths_hs_gm_open(struct rths_hs_gm *gm, const char *path,
		      struct rths_error *err)
{
	FILE *f = fopen(path, "r");
	struct stat sb;

	memset(gm, 0, sizeof(*gm));
	if (!f) {
		rths_error_set(err, errno, path, 0, NULL,
			       "cannot open: %s", rths_strerror(errno));
		return NULL;
	}
	/* fopen() opens a directory; reading it fails later, obscurely */
	if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
		fclose(f);
		rths_error_set(err, EISDIR, path, 0, NULL,
			       "is a directory, not a record file");
		errno = EISDIR;
		return NULL;
	}
	return f;
}

int rths_hs_gm_parse_number(const char *tok, double *v)
{
	char buf[64], *end;
	size_t n = strlen(tok);

	if (n == 0 || n >= sizeof(buf))
		return -1;
	/* Fortran writes double precision exponents with D. */
	for (size_t i = 0; i <= n; i++)
		buf[i] = (tok[i] == 'D' || tok[i] == 'd') ? 'E' : tok[i];
	errno = 0;
	*v = strtod(buf, &end);
	if (end == buf || *end != '\0' || errno == ERANGE || !isfinite(*v))
		return -1;
	return 0;
}

int rths_hs_gm_read_two_column(struct rths_hs_gm *gm, const char *path,
			       double to_si, unsigned int flags,
			       struct rths_error *err)
{
	FILE *f = rths_hs_gm_open(gm, path, err);
	char *line = NULL;
	size_t len = 0, cap = 0;
	unsigned int lineno = 0, first_line = 0;
	double t0 = 0, tprev = 0;
	int r = 0;

	if (!f)
		return errno > 0 ? -errno : -EIO;
	while (getline(&line, &len, f) >= 0) {
		char *save = NULL, *tok[3];
		double t, a;
		int nt = 0;

		lineno++;
		if (lineno == 1 && rths_hs_gm_is_peer(line)) {
			r = rths_hs_gm_peer_not_two_column(f, path, err);
			goto out;
		}
		line[strcspn(line, "#\r\n")] = '\0';
		for (char *s = strtok_r(line, " \t,;", &save); s && nt < 3;
		     s = strtok_r(NULL, " \t,;", &save))
			tok[nt++] = s;
		if (nt == 0)
			continue;
		if (nt != 2) {
			r = rths_error_set(err, RTHS_E_GM_VALUE, path, lineno,
					   NULL,
					   "expected two fields (time, acceleration), found %s",
					   nt < 2 ? "one" : "more");
			goto out;
		}
		if (rths_hs_gm_parse_number(tok[0], &t) < 0 ||
		    rths_hs_gm_parse_number(tok[1], &a) < 0) {
			int bad = rths_hs_gm_parse_number(tok[0], &t) < 0 ? 0 : 1;

			r = rths_error_set(err, RTHS_E_GM_VALUE, path, lineno,
					   NULL,
					   "field %d (%s): expected a number, found '%s'",
					   bad + 1, bad ? "acceleration" : "time",
					   tok[bad]);
			goto out;
		}
		if (gm->npts == 1) {
			gm->dt = t - t0;
			if (!(gm->dt > 0)) {
				r = rths_error_set(err, RTHS_E_GM_TIME_STEP,
						   path, lineno, NULL,
						   "field 1 (time): expected increasing times, %g follows %g",
						   t, t0);
				goto out;
			}
			/* The loop starts every record at t = 0: a later
			 * start moved there silently would shift the test. */
			if (!(flags & RTHS_HS_GM_SHIFT_TO_ZERO) &&
			    fabs(t0) > 1e-6 * gm->dt) {
				r = rths_error_set(err, RTHS_E_GM_TIME_STEP,
						   path, first_line, NULL,
						   "field 1 (time): the record starts at t = %g s, not 0; shift it explicitly (ground_motion.shift_to_zero) or start the file at 0",
						   t0);
				goto out;
			}
		} else if (gm->npts > 1 &&
			   fabs(t - tprev - gm->dt) > 1e-6 * gm->dt +
			   1e-9 * fabs(t)) {
			r = rths_error_set(err, RTHS_E_GM_TIME_STEP, path,
					   lineno, NULL,
					   "field 1 (time): expected equal steps of %g s, step is %g s",
					   gm->dt, t - tprev);
			goto out;
		}
		if (gm->npts == 0) {
			t0 = t;
			first_line = lineno;
		}
		tprev = t;
		r = rths_hs_gm_append(gm, &cap, a * to_si, err);
		if (r < 0)
			goto out;
	}
	if (gm->npts < 2)
		r = rths_error_set(err, RTHS_E_GM_COUNT, path, lineno, NULL,
				   "expected at least two samples, found %zu",
				   gm->npts);
	snprintf(gm->source, sizeof(gm->source), "%s", path);
out:
	free(line);
	fclose(f);
	if (r < 0)
		rths_hs_gm_free(gm);
	return r;
}
