// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * SI doubles <-> the kernel's integer units (nm, nm/s, uN).
 *
 * Conversions round to the nearest integer, halves away from zero, so a
 * value read back from the kernel (rths_nm_to_m) converts to the same
 * integer again.
 */
#include <errno.h>
#include <math.h>

#include "dev/internal.h"

int rths_si_to_int(double v, double scale, int64_t lo, int64_t hi,
		   int64_t *out)
{
	double r;

	if (!isfinite(v))
		return -ERANGE;
	r = round(v * scale);
	/* lo and hi are exact doubles for every bound we use (<= 2^62);
	 * the comparisons also catch v * scale overflowing to inf. */
	if (!(r >= (double)lo && r <= (double)hi))
		return -ERANGE;
	*out = (int64_t)r;
	return 0;
}

int rths_m_to_nm(double m, int64_t *nm)
{
	return rths_si_to_int(m, 1e9, -RTHS_POS_MAX, RTHS_POS_MAX, nm);
}

int rths_n_to_un(double n, int64_t *un)
{
	return rths_si_to_int(n, 1e6, -RTHS_FORCE_MAX, RTHS_FORCE_MAX, un);
}

/* A velocity limit is any u64 (the kernel's default, U64_MAX, means none):
 * everything in [0, 2^64) converts. */
int rths_mps_to_nmps(double mps, uint64_t *nmps)
{
	double r;

	if (!isfinite(mps))
		return -ERANGE;
	r = round(mps * 1e9);
	if (!(r >= 0 && r < 0x1p64))
		return -ERANGE;
	*nmps = (uint64_t)r;
	return 0;
}

double rths_nm_to_m(int64_t nm)
{
	return (double)nm / 1e9;
}

double rths_un_to_n(int64_t un)
{
	return (double)un / 1e6;
}
