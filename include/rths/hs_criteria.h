/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rths hybrid simulation: evaluation criteria of the RTHS benchmark
 * (Silva, Dyke et al. 2020), with c the commanded (numerical) and x the
 * measured displacement of one actuator:
 *   J1  delay: the lag maximizing the correlation of x(k + lag) with c(k),
 *       refined between samples by a parabola through the peak, in ms;
 *   J2  sigma(x - c) / sigma(c), in %  (normalized RMS tracking error);
 *   J3  max|x - c| / max|c|, in %      (normalized peak tracking error).
 * The same two ratios against an all-numerical reference give the
 * benchmark's J4..J9 for floor responses.
 *
 * Errors: a negative errno or -RTHS_E_xxx (rths/error.h); calls that take
 * a struct rths_error fill it with what went wrong and where.
 */
#ifndef RTHS_HS_CRITERIA_H
#define RTHS_HS_CRITERIA_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rths_hs_tracking {
	double j1_ms;		/* delay estimate; < 0: the measurement leads */
	double j1_samples;	/* the same in samples (fractional) */
	double j2_pct;
	double j3_pct;
};

/*
 * @c and @x hold @n samples @stride apart (stride 1: plain arrays), @dt
 * apart in time; lags -@max_lag..@max_lag are searched (the benchmark
 * uses up to 50).  Lag 0 is included so that perfect tracking reads 0 ms,
 * and a negative J1 is a measurement that leads its command: the
 * compensation over-predicts.
 */
void rths_hs_tracking(const double *c, const double *x, size_t n,
		      size_t stride, double dt, unsigned int max_lag,
		      struct rths_hs_tracking *out);

/*
 * J1 with whole lags, as the RTHS benchmark defines it: the lag (in samples)
 * of the best correlation, without rths_hs_tracking()'s refinement
 * between samples; the same search, so it is the refined J1 rounded to
 * its peak sample.
 */
long rths_hs_tracking_whole_lag(const double *c, const double *x, size_t n,
				size_t stride, unsigned int max_lag);
/* sigma(a - ref) / sigma(ref) and max|a - ref| / max|ref|, in %. */
void rths_hs_error_ratios(const double *a, const double *ref, size_t n,
			  size_t stride, double *rms_pct, double *peak_pct);

/* Largest |a| and where it is. */
double rths_hs_peak(const double *a, size_t n, size_t stride, size_t *at);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* RTHS_HS_CRITERIA_H */
