// SPDX-License-Identifier: LGPL-2.1-or-later
/* Ground motion records: two-column files and what the AT2 reader shares. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rths/hs_groundmotion.h>

#include "files/gm_parse.h"

int rths_hs_gm_read_end(struct rths_hs_gm *gm, const char *path, FILE *f,
			char *line, int r)
{
	snprintf(gm->source, sizeof(gm->source), "%s", path);
	free(line);
	fclose(f);
	if (r < 0)
		rths_hs_gm_free(gm);
	return r;
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

int rths_hs_gm_to_si(double v, double to_si, const char *path,
		     unsigned int line, int field, double *si,
		     struct rths_error *err)
{
	*si = v * to_si;
	if (isfinite(*si))
		return 0;
	return rths_error_set(err, RTHS_E_GM_VALUE, path, line, NULL,
			      "field %d: the acceleration %g is %g m/s^2 after unit conversion (x %g): expected a finite value",
			      field, v, *si, to_si);
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
		r = rths_hs_gm_to_si(a, to_si, path, lineno, 2, &a, err);
		if (r >= 0)
			r = rths_hs_gm_append(gm, &cap, a, err);
		if (r < 0)
			goto out;
	}
	if (gm->npts < 2)
		r = rths_error_set(err, RTHS_E_GM_COUNT, path, lineno, NULL,
				   "expected at least two samples, found %zu",
				   gm->npts);
out:
	return rths_hs_gm_read_end(gm, path, f, line, r);
}
