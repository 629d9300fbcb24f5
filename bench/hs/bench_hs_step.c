// SPDX-License-Identifier: GPL-2.0
/*
 * bench-hs: the cost of one hybrid step of CR and KR-alpha against the
 * problem size, next to the cost of one BLAS dgemv of the same size
 * measured in the same run.  A step needs a few matrix-vector products
 * (CR: A a, K u, C v and the mass solve by scaling, three dgemv;
 * KR-alpha five), its floor, so the ratio to that floor says how close
 * the step is to what the BLAS allows.  Timings here are medians of
 * batches (the frames' sparse ones the fastest batch); only the ratios
 * mean anything on a shared machine.  Then 2-D plane frame models,
 * sparse against their two floors and against dense (frame.c).
 *
 * usage: bench-hs-step [-f "DOFS ..."] [-d DENSE_MAX] [-g "DOFS ..."]
 *		       [-p GROWTH.dat] [-s]
 *   -f  the frames' sizes in DOF (default "2000 5000", "": no frame)
 *   -d  the largest frame also stepped dense (default 2000)
 *   -g  frames of these sizes as sparse models (to 100,000 DOF and
 *       more), then each method's growth exponent of time against DOF
 *       (default "": none)
 *   -p  the growth's points into this file, for bench/hs/growth.gp
 *   -s  the frame only, not the shear buildings
 */
#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rths/hs.h>

#include "bench_hs.h"
#include "hs/integrator_impl.h"

#define BATCHES BENCH_HS_BATCHES

double bench_hs_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bench_hs_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return v[n / 2];
}

/* Repetitions for about 20 ms a batch at 1 ns a multiply-add. */
static long reps_for(size_t n)
{
	long r = (long)(2e7 / ((double)n * (double)n));

	return r < 20 ? 20 : r;
}

/*
 * One dgemv, taken in turn over as many different matrices as a step
 * reads (five), so that the bound sees the same caches as the step.
 */
#define SET 5
/* The dense step's products: each reads one n x n matrix once. */
#define CR_DGEMV 3
#define KR_DGEMV 5

static double time_dgemv(size_t n, double *const *A, const double *x,
			 double *y)
{
	double t[BATCHES];
	long reps = reps_for(n);

	for (int b = 0; b < BATCHES; b++) {
		double t0 = bench_hs_now();

		for (long i = 0; i < reps; i++)
			cblas_dgemv(CblasColMajor, CblasNoTrans, (int)n, (int)n,
				    1.0, A[i % SET], (int)n, x, 1, 0.5, y, 1);
		t[b] = (bench_hs_now() - t0) / (double)reps;
	}
	return bench_hs_median(t, BATCHES);
}

double bench_hs_step_batch(struct rths_hs_stepper *st, double *f,
			   const double *mr, long reps, long *k)
{
	size_t n = rths_hs_stepper_dofs(st);
	double t0 = bench_hs_now();

	for (long i = 0; i < reps; i++, (*k)++) {
		const double *u;
		/* As the loop does: f = -ag M r, M r computed once. */
		double ag = sin(0.01 * (double)*k);

		for (size_t j = 0; j < n; j++)
			f[j] = -ag * mr[j];
		rths_hs_stepper_command(st, f, &u, NULL);
		rths_hs_stepper_accept(st, NULL, NULL);
	}
	return (bench_hs_now() - t0) / (double)reps;
}

/* A stepper of @dense, or of @sparse if @dense is NULL, started at rest;
 * exits on a failure. */
static struct rths_hs_stepper *started(struct rths_hs_model *dense,
				       struct rths_hs_sparse_model *sparse,
				       enum rths_hs_method m)
{
	struct rths_hs_stepper_params p;
	struct rths_hs_stepper *st;
	struct rths_error err;
	char buf[512];
	int r;

	rths_hs_stepper_defaults(&p, m, 1.0 / 1024);
	if (dense)
		r = rths_hs_stepper_new(&st, dense, NULL, &p, &err);
	else
		r = rths_hs_stepper_new_sparse(&st, sparse, NULL, &p, &err);
	if (r < 0 ||
	    rths_hs_stepper_start(st, NULL, NULL, NULL, NULL, &err) < 0) {
		fprintf(stderr, "bench-hs: %s\n",
			rths_error_str(&err, buf, sizeof(buf)));
		exit(1);
	}
	return st;
}

struct rths_hs_stepper *bench_hs_stepper(struct rths_hs_model *mo,
					 enum rths_hs_method m)
{
	return started(mo, NULL, m);
}

struct rths_hs_stepper *bench_hs_stepper_sparse(struct rths_hs_sparse_model *mo,
						enum rths_hs_method m)
{
	return started(NULL, mo, m);
}

double bench_hs_time_steps(struct rths_hs_model *mo, enum rths_hs_method m,
			   double *f, const double *mr, long reps)
{
	struct rths_hs_stepper *st = bench_hs_stepper(mo, m);
	double t[BATCHES];
	long k = 0;

	for (int b = 0; b < BATCHES; b++)
		t[b] = bench_hs_step_batch(st, f, mr, reps, &k);
	rths_hs_stepper_free(st);
	return bench_hs_median(t, BATCHES);
}

/* The slope of log @t against log @n over @k points, least squares. */
static double growth_exponent(const double *n, const double *t, int k)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;

	for (int i = 0; i < k; i++) {
		double x = log(n[i]), y = log(t[i]);

		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
	}
	return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}

#define GROWTH_MAX 16

/* The growth's points for bench/hs/growth.gp: a row a size, DOF then
 * each method's step and floor in us, a method's name over its pair. */
static void growth_data(const char *path, const double *dofs,
			double ts[][GROWTH_MAX], double tf[][GROWTH_MAX],
			int k)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "bench-hs: %s: %s\n", path, strerror(errno));
		return;
	}
	fprintf(f, "dof");
	for (int m = 0; m < BENCH_HS_FRAME_METHODS; m++) {
		const char *name = rths_hs_method_name(bench_hs_frame_methods[m]);

		fprintf(f, " %s %s_floor", name, name);
	}
	fprintf(f, "\n");
	for (int i = 0; i < k; i++) {
		fprintf(f, "%.0f", dofs[i]);
		for (int m = 0; m < BENCH_HS_FRAME_METHODS; m++)
			fprintf(f, " %.3f %.3f", ts[m][i] * 1e6, tf[m][i] * 1e6);
		fprintf(f, "\n");
	}
	if (fclose(f))
		fprintf(stderr, "bench-hs: %s: %s\n", path, strerror(errno));
	else
		printf("  the points: %s\n", path);
}

/*
 * Frames of the sizes in @sizes on the sparse path (frame.c prints each
 * one's table), then how each method's step and its floor grow with the
 * DOF: the fitted exponent over every size, and over those of 1,000 DOF
 * and more, where the per-step overhead no longer counts.
 */
static void growth(const char *sizes, size_t dense_max, const char *plot)
{
	double ts[BENCH_HS_FRAME_METHODS][GROWTH_MAX];
	double tf[BENCH_HS_FRAME_METHODS][GROWTH_MAX];
	double dofs[GROWTH_MAX], factors[GROWTH_MAX];
	int k = 0, big = 0;

	while (k < GROWTH_MAX) {
		double sp[BENCH_HS_FRAME_METHODS], fl[BENCH_HS_FRAME_METHODS];
		char *end;
		size_t d = strtoul(sizes, &end, 10), n, lu;

		if (end == sizes)
			break;
		sizes = end;
		bench_hs_frame(d, dense_max, sp, fl, &n, &lu);
		dofs[k] = (double)n;
		factors[k] = (double)lu;
		for (int m = 0; m < BENCH_HS_FRAME_METHODS; m++) {
			ts[m][k] = sp[m];
			tf[m][k] = fl[m];
		}
		k++;
	}
	if (k < 2)
		return;
	for (int i = 0; i < k; i++)
		big += dofs[i] >= 1000;
	printf("\nbench-hs: growth of one sparse step with the frame's DOF (%.0f to %.0f DOF, %d sizes)\n",
	       dofs[0], dofs[k - 1], k);
	printf("  method             us/DOF at %6.0f   us/DOF at %6.0f   exponent   >=1000 DOF   last two   floor's exponent\n",
	       dofs[0], dofs[k - 1]);
	for (int m = 0; m < BENCH_HS_FRAME_METHODS; m++) {
		double e_big = NAN;

		if (big >= 2)
			e_big = growth_exponent(dofs + k - big, ts[m] + k - big,
						big);
		printf("  %-17s  %16.4f   %16.4f   %8.2f   %10.2f   %8.2f   %16.2f\n",
		       rths_hs_method_name(bench_hs_frame_methods[m]),
		       ts[m][0] * 1e6 / dofs[0],
		       ts[m][k - 1] * 1e6 / dofs[k - 1],
		       growth_exponent(dofs, ts[m], k), e_big,
		       growth_exponent(dofs + k - 2, ts[m] + k - 2, 2),
		       growth_exponent(dofs, tf[m], k));
	}
	printf("  exponent: the slope of log(time per step) against log(DOF), least squares; 1 is linear;\n"
	       "  last two: between the two largest frames only\n");
	/* the work: what a solve reads grows as the factors do */
	printf("  CR's KLU factors: %.0f nonzeros at %.0f DOF, %.0f at %.0f; exponent %.2f (the work's growth)\n",
	       factors[0], dofs[0], factors[k - 1], dofs[k - 1],
	       growth_exponent(dofs, factors, k));
	if (plot)
		growth_data(plot, dofs, ts, tf, k);
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 10, 20, 50, 100, 200, 500, 1000, 2000 };
	const char *frames = "2000 5000", *grow = "", *plot = NULL;
	size_t dense_max = 2000;
	int opt, sizes_off = 0;

	while ((opt = getopt(argc, argv, "f:d:g:p:s")) != -1) {
		if (opt == 'p') {
			plot = optarg;
		} else if (opt == 's') {
			sizes_off = 1;
		} else if (opt == 'f') {
			frames = optarg;
		} else if (opt == 'd') {
			dense_max = strtoul(optarg, NULL, 10);
		} else if (opt == 'g') {
			grow = optarg;
		} else {
			fprintf(stderr, "usage: %s [-f \"DOFS ...\"] [-d DENSE_MAX] [-g \"DOFS ...\"] [-p GROWTH.dat] [-s]\n",
				argv[0]);
			return 2;
		}
	}

	printf("bench-hs: one hybrid step (command + accept, the dense path) against its dgemv floor\n");
	printf("  n DOF   dgemv (us)   CR (us)   KR-alpha (us)   CR/dgemv   KR/dgemv   CR/floor   KR/floor\n");
	/* this table is the dense path against its dgemv bound (the sparse
	 * path would take these tridiagonal models from 32 DOF on) */
	rths_hs_sparse_min_dofs = SIZE_MAX;
	for (size_t s = 0; !sizes_off && s < sizeof(sizes) / sizeof(sizes[0]);
	     s++) {
		size_t n = sizes[s];
		double *mass = malloc(n * sizeof(double));
		double *stiff = malloc(n * sizeof(double));
		double *x, *y, *f, *mr, *set[SET], tg, tcr, tkr;
		struct rths_hs_model mo;

		if (!mass || !stiff)
			return 1;
		for (size_t i = 0; i < n; i++) {
			mass[i] = 1000;
			stiff[i] = 2e6 - 1e6 * (double)i / (double)n;
		}
		if (rths_hs_model_shear_building(&mo, n, mass, stiff, NULL) < 0)
			return 1;
		/* Dense C: the step's products are dense whatever K is. */
		rths_hs_model_set_rayleigh(&mo, 0.3, 1e-3);
		x = calloc(4 * n, sizeof(double));
		if (!x)
			return 1;
		y = x + n;
		f = y + n;
		mr = f + n;
		for (size_t i = 0; i < n; i++)
			x[i] = sin((double)i);
		for (int i = 0; i < SET; i++) {
			set[i] = malloc(n * n * sizeof(double));
			if (!set[i])
				return 1;
			memcpy(set[i], i % 2 ? mo.c : mo.k, n * n * sizeof(double));
		}
		tg = time_dgemv(n, set, x, y);
		for (int i = 0; i < SET; i++)
			free(set[i]);
		rths_hs_model_ground_force(&mo, -1.0, mr);
		tcr = bench_hs_time_steps(&mo, RTHS_HS_CR, f, mr,
					  reps_for(n));
		tkr = bench_hs_time_steps(&mo, RTHS_HS_KR_ALPHA, f, mr,
					  reps_for(n));
		printf("  %5zu   %10.3f   %7.3f   %13.3f   %8.2f   %8.2f   %8.2f   %8.2f\n",
		       n, tg * 1e6, tcr * 1e6, tkr * 1e6, tcr / tg, tkr / tg,
		       tcr / (CR_DGEMV * tg), tkr / (KR_DGEMV * tg));
		fflush(stdout);
		rths_hs_model_free(&mo);
		free(x);
		free(mass);
		free(stiff);
	}
	printf("  dgemv: one product, cycling over %d matrices of the size (a step's working set)\n"
	       "  floor: the step's products, %d and %d dgemv:\n"
	       "    CR  A a, K u, C v (lumped M: solve by scaling)\n"
	       "    KR  alpha1 a, K u, C v, M alpha3 a, Mhat^-1 r\n",
	       SET, CR_DGEMV, KR_DGEMV);
	rths_hs_sparse_min_dofs = RTHS_HS_SPARSE_MIN_DOFS;
	for (;;) {
		char *end;
		size_t dofs = strtoul(frames, &end, 10);

		if (end == frames)
			break;
		bench_hs_frame(dofs, dense_max, NULL, NULL, NULL, NULL);
		frames = end;
	}
	growth(grow, dense_max, plot);
	return 0;
}
