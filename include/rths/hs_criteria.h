/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rths hybrid simulation: evaluation criteria of the RTHS benchmark
 * (Silva, Dyke et al. 2020), with c the commanded (numerical) and x the
 * measured displacement of one actuator:
 *   J1  delay: the lag maximizing the correlation of x(k + lag) with c(k),
 *       in ms; rths_hs_tracking() refines it between samples by a
 *       parabola through the peak, over lags of both signs ("J1
 *       (refined)"); rths_hs_tracking_benchmark_lag() is the benchmark's
 *       own, whole samples 0..49 ("J1 (benchmark)");
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
 * The refined J1 rounded to its peak sample: the whole lag in
 * -@max_lag..@max_lag of rths_hs_tracking()'s correlation peak (ties keep
 * the smaller delay).  Not the benchmark's J1: see
 * rths_hs_tracking_benchmark_lag().
 */
long rths_hs_tracking_whole_lag(const double *c, const double *x, size_t n,
				size_t stride, unsigned int max_lag);

/* The lags the benchmark's released evaluation script searches. */
#define RTHS_HS_BENCHMARK_LAG_MIN 0
#define RTHS_HS_BENCHMARK_LAG_MAX 49

/*
 * J1 as the RTHS benchmark's released evaluation script computes it: the
 * whole lag l in @lag_min..@lag_max (the script: 0..49, its loop index
 * 1..50 less one; RTHS_HS_BENCHMARK_LAG_MIN/_MAX) maximizing the Pearson
 * correlation (means removed, MATLAB's corr) of x(k + l) with c(k) over
 * the samples both cover; ties keep the smaller lag.  J1 in ms is the lag
 * times the sample period (the script rounds it to 0.1 ms).  A
 * measurement that leads its command reads @lag_min: the definition
 * cannot see a lead.
 *
 * Returns the lag (>= 0), or -EINVAL when @lag_min > @lag_max or
 * @lag_min < 0, -ERANGE when fewer than 2 samples overlap at @lag_min.
 * Lags past n - 2 are not searched.
 */
long rths_hs_tracking_benchmark_lag(const double *c, const double *x,
				    size_t n, size_t stride, long lag_min,
				    long lag_max);

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
