// SPDX-License-Identifier: LGPL-2.1-or-later
/* PEER NGA .AT2 acceleration records. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rths/hs_groundmotion.h>
#include <rths/hs_model.h>

#include "hs/gm_parse.h"

/* Units named on header line 3, as a factor to m/s^2; 0 if none. */
static double at2_units(const char *line)
{
	char up[512];
	size_t i;

	for (i = 0; line[i] && i < sizeof(up) - 1; i++)
		up[i] = (char)toupper((unsigned char)line[i]);
	up[i] = '\0';
	if (strstr(up, "CM/S"))
		return 0.01;
	if (strstr(up, "M/S"))
		return 1.0;
	/* "UNITS OF G", "IN G": a G that is a word by itself. */
	for (const char *g = strchr(up, 'G'); g; g = strchr(g + 1, 'G'))
		if ((g == up || !isalnum((unsigned char)g[-1])) &&
		    !isalnum((unsigned char)g[1]) &&
		    (strstr(up, "UNITS") || strstr(up, " IN G")))
			return RTHS_HS_G;
	return 0.0;
}

/* The number after "KEY=" (NGA-West2 style); -1 if KEY is absent. */
static int keyed_value(const char *line, const char *key, double *v)
{
	const char *p = line;
	size_t kl = strlen(key);

	while ((p = strstr(p, key))) {
		const char *q = p + kl;
		char *end;

		while (*q == ' ')
			q++;
		if (*q == '=') {
			*v = strtod(q + 1, &end);
			return end == q + 1 ? -2 : 0;
		}
		p += kl;
	}
	return -1;
}

static int parse_npts_dt(const char *path, const char *line, size_t *npts,
			 double *dt, struct rths_hs_error *err)
{
	double n = -1, d = -1;
	int rn = keyed_value(line, "NPTS", &n);
	int rd = keyed_value(line, "DT", &d);

	if (rn == -1 && rd == -1) {
		/* Older files: "5590    .0050    NPTS, DT" */
		char *end;

		n = strtod(line, &end);
		if (end == line)
			rn = -2;
		else {
			const char *q = end;

			d = strtod(q, &end);
			rn = 0;
			rd = end == q ? -2 : 0;
		}
	}
	if (rn != 0 || !(n >= 1) || n != (double)(size_t)n)
		return rths_hs_fail(err, RTHS_HS_E_GM_HEADER, path, 4, NULL,
				    "field NPTS: expected a positive whole number of points (\"NPTS= 5590, DT= .0050 SEC\")");
	if (rd != 0 || !(d > 0) || d > 10)
		return rths_hs_fail(err, RTHS_HS_E_GM_HEADER, path, 4, NULL,
				    "field DT: expected a time step in seconds, 0 < DT <= 10");
	*npts = (size_t)n;
	*dt = d;
	return 0;
}

int rths_hs_gm_read_at2(struct rths_hs_gm *gm, const char *path,
			struct rths_hs_error *err)
{
	FILE *f = rths_hs_gm_open(gm, path, err);
	char *line = NULL;
	size_t len = 0, npts = 0, cap = 0;
	unsigned int lineno = 0;
	double to_si = 0, dt = 0;
	int r = 0;

	if (!f)
		return -RTHS_HS_E_IO;
	while (getline(&line, &len, f) >= 0) {
		char *save = NULL;
		int field = 0;

		lineno++;
		if (lineno == 3) {
			to_si = at2_units(line);
			if (to_si == 0) {
				r = rths_hs_fail(err, RTHS_HS_E_GM_HEADER, path,
						 3, NULL,
						 "expected the units, e.g. \"ACCELERATION TIME SERIES IN UNITS OF G\"");
				goto out;
			}
		}
		if (lineno == 4) {
			r = parse_npts_dt(path, line, &npts, &dt, err);
			if (r < 0)
				goto out;
			cap = npts;
			gm->acc = malloc(npts * sizeof(*gm->acc));
			if (!gm->acc) {
				r = rths_hs_fail(err, RTHS_HS_E_NOMEM, path, 4,
						 NULL, "cannot allocate %zu values",
						 npts);
				goto out;
			}
		}
		if (lineno <= 4)
			continue;
		for (char *tok = strtok_r(line, " \t\r\n,", &save); tok;
		     tok = strtok_r(NULL, " \t\r\n,", &save)) {
			double v;

			field++;
			if (rths_hs_gm_parse_number(tok, &v) < 0) {
				r = rths_hs_fail(err, RTHS_HS_E_GM_VALUE, path,
						 lineno, NULL,
						 "field %d: expected a number, found '%.32s'",
						 field, tok);
				goto out;
			}
			if (gm->npts == npts) {
				r = rths_hs_fail(err, RTHS_HS_E_GM_COUNT, path,
						 lineno, NULL,
						 "field %d: more values than NPTS = %zu",
						 field, npts);
				goto out;
			}
			r = rths_hs_gm_append(gm, &cap, v * to_si, err);
			if (r < 0)
				goto out;
		}
	}
	if (lineno < 4) {
		r = rths_hs_fail(err, RTHS_HS_E_GM_HEADER, path, lineno, NULL,
				 "expected four header lines, the file has %u",
				 lineno);
		goto out;
	}
	if (gm->npts != npts) {
		r = rths_hs_fail(err, RTHS_HS_E_GM_COUNT, path, lineno, NULL,
				 "expected NPTS = %zu values, found %zu", npts,
				 gm->npts);
		goto out;
	}
	gm->dt = dt;
	snprintf(gm->source, sizeof(gm->source), "%s", path);
out:
	free(line);
	fclose(f);
	if (r < 0)
		rths_hs_gm_free(gm);
	return r;
}
