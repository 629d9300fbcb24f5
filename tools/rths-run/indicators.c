// SPDX-License-Identifier: GPL-2.0
/*
 * rths-run: tracking indicators beyond J1-J3, for the summary and the
 * plots.
 *
 * The frequency evaluation index (Guo, Chen, Xu and Sanchez 2014,
 * Documentation/references.rst): with C and X the spectra of the
 * commanded and the measured displacement,
 *
 *	FEI = sum_k X_k conj(C_k) / sum_k |C_k|^2,   k = 1 .. n/2,
 *
 * the measured over the commanded motion weighted by the command's
 * power: |FEI| is the amplitude ratio (1: no gain error) and its phase,
 * at the command's power-weighted mean frequency f_eq, a delay,
 * -arg(FEI) / (2 pi f_eq).  The spectra are GSL's real FFT.
 *
 * The delay over time: J1 (refined, rths_hs_tracking()) and J1
 * (benchmark, rths_hs_tracking_benchmark_lag()) over sliding windows,
 * written as delay.csv for the plot.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fft_real.h>

#include <rths/hs_criteria.h>

#include "rths-run.h"

/* The real FFT of @n samples of @a (@stride apart) into @out. */
static int spectrum(const double *a, size_t n, size_t stride, double *out,
		    gsl_fft_real_wavetable *wt, gsl_fft_real_workspace *ws)
{
	for (size_t i = 0; i < n; i++)
		out[i] = a[i * stride];
	return gsl_fft_real_transform(out, 1, n, wt, ws);
}

int tracking_fei(const double *c, const double *x, size_t n, size_t stride,
		 double dt, struct fei *out)
{
	gsl_fft_real_wavetable *wt = NULL;
	gsl_fft_real_workspace *ws = NULL;
	double *C = NULL, *X = NULL, re = 0, im = 0, pw = 0, fw = 0;
	gsl_error_handler_t *old;
	int r = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (n < 16)
		return -EINVAL;
	/* GSL aborts on errors by default: a tool reports them */
	old = gsl_set_error_handler_off();
	wt = gsl_fft_real_wavetable_alloc(n);
	ws = gsl_fft_real_workspace_alloc(n);
	C = malloc(n * sizeof(double));
	X = malloc(n * sizeof(double));
	if (!wt || !ws || !C || !X)
		goto out;
	r = -EIO;
	if (spectrum(c, n, stride, C, wt, ws) ||
	    spectrum(x, n, stride, X, wt, ws))
		goto out;
	/* halfcomplex: [2k-1] real, [2k] imaginary of bin k */
	for (size_t k = 1; 2 * k < n; k++) {
		double cr = C[2 * k - 1], ci = C[2 * k];
		double xr = X[2 * k - 1], xi = X[2 * k];
		double p = cr * cr + ci * ci;

		re += xr * cr + xi * ci;
		im += xi * cr - xr * ci;
		pw += p;
		fw += p * (double)k / ((double)n * dt);
	}
	if (!(pw > 0))
		goto out;
	out->amplitude = hypot(re, im) / pw;
	out->phase_deg = atan2(im, re) * 180 / M_PI;
	out->f_eq_hz = fw / pw;
	out->delay_ms = -atan2(im, re) / (2 * M_PI * out->f_eq_hz) * 1e3;
	out->ok = true;
	r = 0;
out:
	free(C);
	free(X);
	if (ws)
		gsl_fft_real_workspace_free(ws);
	if (wt)
		gsl_fft_real_wavetable_free(wt);
	gsl_set_error_handler(old);
	return r;
}

int delay_csv(const char *path, const struct rths_hs_history *h,
	      double window, double hop, struct rths_error *err)
{
	size_t m = h->n_act, w = (size_t)(window / h->dt + 0.5);
	size_t step = (size_t)(hop / h->dt + 0.5);
	FILE *f;

	if (!m || h->rows < w + 1 || !w || !step)
		return 0;
	f = fopen(path, "w");
	if (!f)
		return rths_error_set(err, errno, path, 0, NULL,
				      "cannot write: %s", strerror(errno));
	fprintf(f, "time_s");
	for (size_t j = 0; j < m; j++)
		fprintf(f, ",j1_%zu_ms", j + 1);
	for (size_t j = 0; j < m; j++)
		fprintf(f, ",j1_benchmark_%zu_ms", j + 1);
	fputc('\n', f);
	/* from step 1, as the summary's J1; each window ends at its time */
	for (size_t end = 1 + w; end <= h->rows; end += step) {
		fprintf(f, "%.6f", h->t[end - 1]);
		for (size_t j = 0; j < m; j++) {
			struct rths_hs_tracking tr;

			rths_hs_tracking(h->target + (end - w) * m + j,
					 h->disp + (end - w) * m + j, w, m,
					 h->dt, 50, &tr);
			fprintf(f, ",%.6g", tr.j1_ms);
		}
		for (size_t j = 0; j < m; j++) {
			long l = rths_hs_tracking_benchmark_lag(
				h->target + (end - w) * m + j,
				h->disp + (end - w) * m + j, w, m,
				RTHS_HS_BENCHMARK_LAG_MIN,
				RTHS_HS_BENCHMARK_LAG_MAX);

			fprintf(f, ",%.6g", l >= 0 ? (double)l * h->dt * 1e3 : NAN);
		}
		fputc('\n', f);
	}
	if (fclose(f))
		return rths_error_set(err, errno, path, 0, NULL,
				      "cannot write: %s", strerror(errno));
	return 1;
}
