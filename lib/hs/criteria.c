// SPDX-License-Identifier: LGPL-2.1-or-later
/* RTHS benchmark tracking criteria J1..J3 and reference error ratios. */
#include <errno.h>
#include <math.h>

#include <rths/hs_criteria.h>

#define V(a, i) ((a)[(size_t)(i) * stride])

static double stddev(const double *a, const double *b, size_t n,
		     size_t stride)
{
	double s = 0, s2 = 0;

	for (size_t i = 0; i < n; i++) {
		double d = V(a, i) - (b ? V(b, i) : 0);

		s += d;
		s2 += d * d;
	}
	if (n == 0)
		return 0;
	s /= (double)n;
	return sqrt(fmax(s2 / (double)n - s * s, 0));
}

double rths_hs_peak(const double *a, size_t n, size_t stride, size_t *at)
{
	double p = 0;

	if (at)
		*at = 0;
	for (size_t i = 0; i < n; i++)
		if (fabs(V(a, i)) > p) {
			p = fabs(V(a, i));
			if (at)
				*at = i;
		}
	return p;
}

void rths_hs_error_ratios(const double *a, const double *ref, size_t n,
			  size_t stride, double *rms_pct, double *peak_pct)
{
	double sr = stddev(ref, NULL, n, stride), pr = rths_hs_peak(ref, n, stride, NULL);
	double pe = 0;

	for (size_t i = 0; i < n; i++)
		pe = fmax(pe, fabs(V(a, i) - V(ref, i)));
	*rms_pct = sr > 0 ? 100 * stddev(a, ref, n, stride) / sr : 0;
	*peak_pct = pr > 0 ? 100 * pe / pr : 0;
}

/* Normalized correlation of x(k + lag) with c(k); a negative lag is a
 * measurement ahead of its command (over-compensation). */
static double correlation(const double *c, const double *x, size_t n,
			  size_t stride, long lag)
{
	size_t c0 = lag < 0 ? (size_t)-lag : 0, x0 = lag > 0 ? (size_t)lag : 0;
	size_t len = n > c0 + x0 ? n - c0 - x0 : 0;
	double sxy = 0, sxx = 0, syy = 0;

	for (size_t k = 0; k < len; k++) {
		double ck = V(c, c0 + k), xk = V(x, x0 + k);

		sxy += ck * xk;
		sxx += ck * ck;
		syy += xk * xk;
	}
	return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
}

/* The whole lag of the best correlation, searched from 0 outwards so
 * that a tie keeps the smaller delay; *@best its correlation. */
static long best_lag(const double *c, const double *x, size_t n,
		     size_t stride, long m, double *best)
{
	long at = 0;

	*best = -INFINITY;
	for (long l = 0; l <= m; l++) {
		for (int sgn = 1; sgn >= -1; sgn -= 2) {
			double r = correlation(c, x, n, stride, sgn * l);

			if (r > *best) {
				*best = r;
				at = sgn * l;
			}
			if (!l)
				break;
		}
	}
	return at;
}

static long max_lag_of(size_t n, unsigned int max_lag)
{
	return max_lag >= n ? (n ? (long)n - 1 : 0) : (long)max_lag;
}

long rths_hs_tracking_whole_lag(const double *c, const double *x, size_t n,
				size_t stride, unsigned int max_lag)
{
	double best;

	return best_lag(c, x, n, stride, max_lag_of(n, max_lag), &best);
}

/* Pearson's correlation of x(k + @lag) with c(k), @lag >= 0, over the
 * n - @lag samples both cover (MATLAB's corr); -inf if either is
 * constant there, so that it is never the best. */
static double pearson(const double *c, const double *x, size_t n,
		      size_t stride, size_t lag)
{
	size_t len = n - lag;
	double mc = 0, mx = 0, sxy = 0, sxx = 0, syy = 0;

	for (size_t k = 0; k < len; k++) {
		mc += V(c, k);
		mx += V(x, lag + k);
	}
	mc /= (double)len;
	mx /= (double)len;
	for (size_t k = 0; k < len; k++) {
		double ck = V(c, k) - mc, xk = V(x, lag + k) - mx;

		sxy += ck * xk;
		sxx += ck * ck;
		syy += xk * xk;
	}
	return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : -INFINITY;
}

long rths_hs_tracking_benchmark_lag(const double *c, const double *x,
				    size_t n, size_t stride, long lag_min,
				    long lag_max)
{
	double best = -INFINITY;
	long at = lag_min;

	if (lag_min < 0 || lag_min > lag_max)
		return -EINVAL;
	if (n < 2 || (size_t)lag_min > n - 2)
		return -ERANGE;
	if ((size_t)lag_max > n - 2)
		lag_max = (long)(n - 2);
	/* upwards with a strict >: a tie keeps the smaller lag, as
	 * MATLAB's max keeps the first */
	for (long l = lag_min; l <= lag_max; l++) {
		double r = pearson(c, x, n, stride, (size_t)l);

		if (r > best) {
			best = r;
			at = l;
		}
	}
	return at;
}

void rths_hs_tracking(const double *c, const double *x, size_t n,
		      size_t stride, double dt, unsigned int max_lag,
		      struct rths_hs_tracking *out)
{
	double best, lag;
	long m = max_lag_of(n, max_lag);
	long at = best_lag(c, x, n, stride, m, &best);

	lag = (double)at;
	if (at > -m && at < m) {
		/* Vertex of the parabola through the peak and its neighbours. */
		double rm = correlation(c, x, n, stride, at - 1);
		double rp = correlation(c, x, n, stride, at + 1);
		double den = rm - 2 * best + rp;

		if (den < 0)
			lag += 0.5 * (rm - rp) / den;
	}
	out->j1_samples = lag;
	out->j1_ms = lag * dt * 1e3;
	rths_hs_error_ratios(x, c, n, stride, &out->j2_pct, &out->j3_pct);
}
