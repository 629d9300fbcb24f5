// SPDX-License-Identifier: GPL-2.0
/*
 * Quantities on rthsctl's command line and in its output: SI values with
 * optional unit suffixes in, millimetres and kilonewtons out.  Output uses
 * the same suffixes, so what "dev show" prints can be typed back.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

struct unit {
	const char *suffix;
	double factor;
};

static const struct unit length_units[] = {
	{ "m", 1 }, { "mm", 1e-3 }, { "um", 1e-6 }, { "nm", 1e-9 }, { NULL, 0 }
};
static const struct unit force_units[] = {
	{ "N", 1 }, { "kN", 1e3 }, { "MN", 1e6 }, { NULL, 0 }
};
static const struct unit velocity_units[] = {
	{ "m/s", 1 }, { "mm/s", 1e-3 }, { NULL, 0 }
};
static const struct unit time_units[] = {
	{ "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "m", 60 }, { "h", 3600 },
	{ "d", 86400 }, { NULL, 0 }
};
static const struct unit stiffness_units[] = {
	{ "N/m", 1 }, { "kN/m", 1e3 }, { "N/mm", 1e3 }, { "kN/mm", 1e6 },
	{ "MN/m", 1e6 }, { NULL, 0 }
};
static const struct unit damping_units[] = {
	{ "Ns/m", 1 }, { "N*s/m", 1 }, { "kNs/m", 1e3 }, { "Ns/mm", 1e3 },
	{ "kNs/mm", 1e6 }, { NULL, 0 }
};

static const struct unit *const units_of[] = {
	[RC_LENGTH] = length_units,
	[RC_FORCE] = force_units,
	[RC_VELOCITY] = velocity_units,
	[RC_TIME] = time_units,
	[RC_STIFFNESS] = stiffness_units,
	[RC_DAMPING] = damping_units,
};

int rc_parse_quantity(const char *field, const char *s, enum rc_quantity q,
		      double *v, struct rc_err *e)
{
	const struct unit *u = units_of[q];
	char list[96] = "";
	size_t used = 0;
	char *end;
	double x;
	int i;

	if (!s || !*s)
		return rc_err_set(e, "%s: missing value", field);
	/* strtod would also take "inf", "nan" and leading blanks */
	if (!((*s >= '0' && *s <= '9') || *s == '-' || *s == '+' || *s == '.'))
		return rc_err_set(e, "%s: \"%s\" is not a number", field, s);
	errno = 0;
	x = strtod(s, &end);
	if (end == s)
		return rc_err_set(e, "%s: \"%s\" is not a number", field, s);
	if (!isfinite(x) || (errno == ERANGE && fabs(x) > 1))
		return rc_err_set(e, "%s: %s is out of range", field, s);
	if (!*end) {
		*v = x;
		return 0;
	}
	for (i = 0; u[i].suffix; i++) {
		if (!strcmp(end, u[i].suffix)) {
			*v = x * u[i].factor;
			return 0;
		}
		used += (size_t)snprintf(list + used, sizeof(list) - used,
					 "%s%s", i ? ", " : "", u[i].suffix);
	}
	return rc_err_set(e, "%s: unknown unit \"%s\" in \"%s\" (use %s)", field, end,
		    s, list);
}

/* Display unit of each quantity and its size in SI base units. */
static const struct {
	const char *unit;
	double scale;
	int decimals;	/* down to the kernel's resolution */
} display[] = {
	[RC_LENGTH] = { "mm", 1e-3, 6 },	/* nm */
	[RC_FORCE] = { "kN", 1e3, 9 },		/* uN */
	[RC_VELOCITY] = { "mm/s", 1e-3, 6 },	/* nm/s */
	[RC_TIME] = { "ms", 1e-3, 3 },		/* us */
	[RC_STIFFNESS] = { "N/m", 1, 0 },
	[RC_DAMPING] = { "Ns/m", 1, 0 },
};

bool rc_unlimited(double v, enum rc_quantity q)
{
	switch (q) {
	case RC_LENGTH:
		return fabs(v) >= RC_UNLIMITED_POS;
	case RC_VELOCITY:	/* at least 2^63 nm/s */
		return v >= 0x1p63 / 1e9;
	case RC_FORCE:
		return v >= RC_UNLIMITED_FORCE;
	default:
		return false;
	}
}

const char *rc_fmt(char *buf, double v, enum rc_quantity q)
{
	char *p;
	int n;

	n = snprintf(buf, 48, "%.*f", display[q].decimals, v / display[q].scale);
	if (n < 0 || n >= 40) {		/* absurdly large: fall back */
		snprintf(buf, 48, "%g%s", v / display[q].scale, display[q].unit);
		return buf;
	}
	if (strchr(buf, '.')) {
		for (p = buf + n - 1; *p == '0'; p--)
			*p = '\0';
		if (*p == '.')
			*p = '\0';
	}
	if (!strcmp(buf, "-0"))
		strcpy(buf, "0");
	strcat(buf, display[q].unit);
	return buf;
}

