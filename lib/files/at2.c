// SPDX-License-Identifier: LGPL-2.1-or-later
/* PEER NGA .AT2 acceleration records. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <rths/hs_groundmotion.h>
#include <rths/hs_model.h>

#include "files/gm_parse.h"

/* After "M/" of a unit: S/S, S^2, S2, S**2, SEC/SEC, SEC^2, ... (an
 * acceleration); false for anything else (M/S is a velocity). */
static bool per_second_squared(const char *p)
{
	for (int i = 0; i < 2; i++) {
		if (!strncmp(p, "SEC", 3))
			p += 3;
		else if (*p == 'S')
			p++;
		else
			return false;
		if (i == 0 && (!strncmp(p, "^2", 2) || !strncmp(p, "**2", 3) ||
			       *p == '2'))
			return true;
		if (i == 0 && *p != '/')
			return false;
		p++;
	}
	return true;
}

/*
 * Header line 3 names what the record holds and its units: only an
 * acceleration is read; *to_si is the factor to m/s^2.
 */
static int at2_kind(const char *path, const char *line, double *to_si,
		    struct rths_error *err)
{
	static const char *const others[] = { "VELOCITY", "DISPLACEMENT",
					      NULL };
	char up[512];
	const char *m;
	size_t i;

	for (i = 0; line[i] && line[i] != '\n' && line[i] != '\r' &&
	     i < sizeof(up) - 1; i++)
		up[i] = (char)toupper((unsigned char)line[i]);
	up[i] = '\0';
	for (const char *const *o = others; *o; o++)
		if (strstr(up, *o))
			return rths_error_set(err, RTHS_E_GM_HEADER, path, 3,
					      NULL,
					      "this is a %s record (\"%.80s\"), not an acceleration: a ground motion is read from the record's .AT2 file",
					      o == others ? "velocity" : "displacement",
					      up);
	m = strstr(up, "M/S");
	if (m) {
		bool cm = m > up && m[-1] == 'C';

		if ((m > up && !cm && isalpha((unsigned char)m[-1])) ||
		    (cm && m - 1 > up && isalpha((unsigned char)m[-2])))
			goto unknown;
		if (!per_second_squared(m + 2))
			return rths_error_set(err, RTHS_E_GM_HEADER, path, 3,
					      NULL,
					      "found units of velocity (\"%.80s\"); an AT2 file holds accelerations (G, CM/S/S or M/S/S)",
					      up);
		*to_si = cm ? 0.01 : 1.0;
		return 0;
	}
	/* "UNITS OF G", "IN G": a G that is a word by itself. */
	for (const char *g = strchr(up, 'G'); g; g = strchr(g + 1, 'G'))
		if ((g == up || !isalnum((unsigned char)g[-1])) &&
		    !isalnum((unsigned char)g[1]) &&
		    (strstr(up, "UNITS") || strstr(up, " IN G"))) {
			*to_si = RTHS_HS_G;
			return 0;
		}
unknown:
	return rths_error_set(err, RTHS_E_GM_HEADER, path, 3, NULL,
			      "expected the units, e.g. \"ACCELERATION TIME SERIES IN UNITS OF G\"");
}

bool rths_hs_gm_is_peer(const char *line)
{
	char up[64];
	size_t i;

	for (i = 0; line[i] && i < sizeof(up) - 1; i++)
		up[i] = (char)toupper((unsigned char)line[i]);
	up[i] = '\0';
	return strstr(up, "PEER") != NULL;
}

int rths_hs_gm_peer_not_two_column(FILE *f, const char *path,
				   struct rths_error *err)
{
	struct rths_error e;
	char *line = NULL;
	size_t len = 0;
	bool third = true;
	double to_si;
	int r = 0;

	/* line 1 is read; line 3 says what the record holds */
	for (int n = 2; n <= 3; n++)
		third = third && getline(&line, &len, f) >= 0;
	if (third)
		r = at2_kind(path, line, &to_si, &e);
	free(line);
	/* a velocity or displacement: say so; unknown units: not here */
	if (r < 0 && strncmp(e.msg, "expected", 8)) {
		if (err)
			*err = e;
		return r;
	}
	return rths_error_set(err, RTHS_E_GM_HEADER, path, 1, NULL,
			      "this is a PEER NGA acceleration record (an AT2 file), not two columns: use \"format\": \"at2\" or leave format out");
}

/* A decimal number (no hex, inf or nan): sign, digits with at most one
 * point, an optional E exponent.  Returns its end, or NULL. */
static const char *decimal(const char *p)
{
	int digits = 0;

	if (*p == '+' || *p == '-')
		p++;
	for (; isdigit((unsigned char)*p); p++)
		digits++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			digits++;
	if (!digits)
		return NULL;
	if (*p == 'E' || *p == 'e') {
		const char *q = p + 1;

		if (*q == '+' || *q == '-')
			q++;
		if (!isdigit((unsigned char)*q))
			return NULL;
		while (isdigit((unsigned char)*q))
			q++;
		p = q;
	}
	return p;
}

/* The text of one field starting at @p (spaces skipped), its end. */
static const char *field_end(const char *p)
{
	return p + strcspn(p, " \t\r\n,=");
}

/*
 * The text after "KEY=" (NGA-West2 style) in *val, *end; -1 if KEY is
 * absent.  The key and its value are blanked in @line so that what
 * remains can be checked.
 */
static int keyed(char *line, const char *key, char *val, size_t len)
{
	char *p = line;
	size_t kl = strlen(key);

	while ((p = strstr(p, key))) {
		char *q = p + kl, *e;

		while (*q == ' ')
			q++;
		if (*q == '=') {
			for (q++; *q == ' ' || *q == '\t'; q++)
				;
			e = (char *)field_end(q);
			snprintf(val, len, "%.*s", (int)(e - q), q);
			memset(p, ' ', (size_t)(e - p));
			return 0;
		}
		p += kl;
	}
	return -1;
}

/* NPTS: a decimal integer, overflow detected. */
static int parse_npts(const char *t, unsigned long long *n)
{
	char *end;

	if (!isdigit((unsigned char)t[0]))
		return -1;
	errno = 0;
	*n = strtoull(t, &end, 10);
	return errno == ERANGE || *end || *n < 1 ? -1 : 0;
}

/* DT: a decimal number of seconds in a sane range. */
#define AT2_DT_MIN 1e-5
#define AT2_DT_MAX 1.0
static int parse_dt(const char *t, double *d)
{
	const char *e = decimal(t);

	if (!e || *e)
		return -1;
	*d = strtod(t, NULL);
	return *d >= AT2_DT_MIN && *d <= AT2_DT_MAX ? 0 : -1;
}

static bool unit_word(const char *w)
{
	static const char *const ok[] = { "SEC", "SECS", "SECONDS", "S",
					  NULL };

	for (const char *const *o = ok; *o; o++)
		if (!strcasecmp(w, *o))
			return true;
	return false;
}

/* @max_npts: how many values the rest of the file can hold. */
static int parse_npts_dt(const char *path, const char *text, size_t max_npts,
			 size_t *npts, double *dt, struct rths_error *err)
{
	char line[512], nv[64] = "", dv[64] = "", *save = NULL;
	unsigned long long n = 0;
	bool keyed_style, units = false, nword = false, dword = false;
	double d = -1;

	snprintf(line, sizeof(line), "%s", text);
	keyed_style = keyed(line, "NPTS", nv, sizeof(nv)) == 0;
	keyed_style = (keyed(line, "DT", dv, sizeof(dv)) == 0) || keyed_style;
	if (!keyed_style) {
		/* Older files: "5590    .0050    NPTS, DT" */
		char *p = line + strspn(line, " \t"), *e = (char *)field_end(p);

		snprintf(nv, sizeof(nv), "%.*s", (int)(e - p), p);
		memset(p, ' ', (size_t)(e - p));
		p = e + strspn(e, " \t,");
		e = (char *)field_end(p);
		snprintf(dv, sizeof(dv), "%.*s", (int)(e - p), p);
		memset(p, ' ', (size_t)(e - p));
	}
	if (parse_npts(nv, &n) < 0)
		return rths_error_set(err, RTHS_E_GM_HEADER, path, 4, NULL,
				      "field NPTS: expected a positive whole decimal number of points (\"NPTS= 5590, DT= .0050 SEC\"), found '%.32s'",
				      nv);
	if (parse_dt(dv, &d) < 0)
		return rths_error_set(err, RTHS_E_GM_HEADER, path, 4, NULL,
				      "field DT: expected a decimal time step in seconds, %g <= DT <= %g, found '%.32s'",
				      AT2_DT_MIN, AT2_DT_MAX, dv);
	/* What remains: one unit word, and the older style's NPTS, DT. */
	for (char *w = strtok_r(line, " \t\r\n,=", &save); w;
	     w = strtok_r(NULL, " \t\r\n,=", &save)) {
		bool *seen = unit_word(w) ? &units :
			     !keyed_style && !strcasecmp(w, "NPTS") ? &nword :
			     !keyed_style && !strcasecmp(w, "DT") ? &dword : NULL;

		if (!seen || *seen)
			return rths_error_set(err, RTHS_E_GM_HEADER, path, 4,
					      NULL,
					      "expected only NPTS and DT, a unit once (\"NPTS= 5590, DT= .0050 SEC\"), found '%.32s'%s",
					      w, seen ? " again" : "");
		*seen = true;
	}
	/* Before any allocation: NPTS is the file's word, not its size. */
	if (n > max_npts)
		return rths_error_set(err, RTHS_E_GM_COUNT, path, 4, NULL,
				      "field NPTS: NPTS = %llu values cannot fit in the rest of the file (at most %zu)",
				      n, max_npts);
	*npts = (size_t)n;
	*dt = d;
	return 0;
}

int rths_hs_gm_read_at2(struct rths_hs_gm *gm, const char *path,
			struct rths_error *err)
{
	FILE *f = rths_hs_gm_open(gm, path, err);
	char *line = NULL;
	size_t len = 0, npts = 0, cap = 0;
	unsigned int lineno = 0;
	double to_si = 0, dt = 0;
	int r = 0;

	if (!f)
		return errno > 0 ? -errno : -EIO;
	while (getline(&line, &len, f) >= 0) {
		char *save = NULL;
		int field = 0;

		lineno++;
		if (lineno == 3) {
			r = at2_kind(path, line, &to_si, err);
			if (r < 0)
				goto out;
		}
		if (lineno == 4) {
			struct stat sb;
			long here = ftell(f);
			size_t left;

			if (fstat(fileno(f), &sb) < 0 || here < 0) {
				r = rths_error_set(err, EIO, path, 4,
						   NULL, "cannot size the file");
				goto out;
			}
			/* a value and a separator: two bytes at least */
			left = sb.st_size > here ? (size_t)(sb.st_size - here) : 0;
			r = parse_npts_dt(path, line, (left + 1) / 2, &npts,
					  &dt, err);
			if (r < 0)
				goto out;
			cap = npts;
			gm->acc = malloc(npts * sizeof(*gm->acc));
			if (!gm->acc) {
				r = rths_error_set(err, ENOMEM, path, 4,
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
				r = rths_error_set(err, RTHS_E_GM_VALUE, path,
						   lineno, NULL,
						   "field %d: expected a number, found '%.32s'",
						   field, tok);
				goto out;
			}
			if (gm->npts == npts) {
				r = rths_error_set(err, RTHS_E_GM_COUNT, path,
						   lineno, NULL,
						   "field %d: more values than NPTS = %zu",
						   field, npts);
				goto out;
			}
			r = rths_hs_gm_to_si(v, to_si, path, lineno, field,
					     &v, err);
			if (r >= 0)
				r = rths_hs_gm_append(gm, &cap, v, err);
			if (r < 0)
				goto out;
		}
	}
	if (lineno < 4) {
		r = rths_error_set(err, RTHS_E_GM_HEADER, path, lineno, NULL,
				   "expected four header lines, the file has %u",
				   lineno);
		goto out;
	}
	if (gm->npts != npts) {
		r = rths_error_set(err, RTHS_E_GM_COUNT, path, lineno, NULL,
				   "expected NPTS = %zu values, found %zu", npts,
				   gm->npts);
		goto out;
	}
	gm->dt = dt;
out:
	return rths_hs_gm_read_end(gm, path, f, line, r);
}
