// SPDX-License-Identifier: GPL-2.0
/*
 * bench-hs, second part: one CR, KR-alpha, alpha-OS and implicit Newmark
 * step of a 2-D plane frame finite-element model (about 5,000 DOF by
 * default) on the sparse path (KLU, lib/hs/stepper_sparse.c) and on the
 * dense path, next to two floors of the sparse method measured in the
 * same run: the sparse matrix-vector products one step does, and those
 * with its triangular solves (KLU, one right-hand side each) on the
 * stepper's own factors (floor_list() gives them: CR D and M, KR-alpha
 * D, M and D - N, alpha-OS its effective mass, the implicit methods
 * their effective stiffness an iteration).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <rths/hs.h>

#include "hs/integrator_impl.h"
#include "bench_hs.h"

/*
 * Frame of @stories x @bays: (bays + 1) column lines, 3 DOF a node (ux,
 * uy, theta), nodes fixed at the ground; steel-like columns and beams
 * (Euler-Bernoulli, 3.5 m stories, 6 m bays), lumped masses of 2 t a
 * node with a small rotational inertia, Rayleigh damping of 2 % at
 * about 1 and 10 Hz, the ground motion along x.
 */
static int frame_model(struct rths_hs_model *mo, size_t stories, size_t bays)
{
	size_t cols = bays + 1, n = 3 * stories * cols;
	const double h = 3.5, w = 6.0, E = 2.1e11;
	const double Ac = 0.02, Ic = 4e-4, Ab = 0.01, Ib = 3e-4;

	if (rths_hs_model_init(mo, n, NULL) < 0)
		return -1;
	/* DOF of node (story s >= 1, line c); s = 0 is the ground */
	for (size_t s = 1; s <= stories; s++)
		for (size_t c = 0; c < cols; c++) {
			size_t d = 3 * ((s - 1) * cols + c);

			mo->m[d * n + d] = 2000;
			mo->m[(d + 1) * n + d + 1] = 2000;
			mo->m[(d + 2) * n + d + 2] = 20;
			mo->r[d] = 1;
			mo->r[d + 1] = 0;
			mo->r[d + 2] = 0;
		}
	for (size_t s = 1; s <= stories; s++)
		for (size_t c = 0; c < cols; c++) {
			long top = (long)(3 * ((s - 1) * cols + c));
			long below = s > 1 ? (long)(3 * ((s - 2) * cols + c)) : -1;

			/* column from the node below (or the ground) */
			bench_frame_element(mo->k, n, below, top, 0, h, E, Ac,
					    Ic);
			if (c + 1 < cols)	/* beam to the right */
				bench_frame_element(mo->k, n, top, top + 3, w, 0,
						    E, Ab, Ib);
		}
	/* 2 % at 1 and 10 Hz */
	{
		double w1 = 2 * M_PI, w2 = 20 * M_PI, z = 0.02;

		rths_hs_model_set_rayleigh(mo, 2 * z * w1 * w2 / (w1 + w2),
					   2 * z / (w1 + w2));
	}
	return 0;
}

/*
 * A 2-D frame element from DOF block @a (-1: a fixed node) to @b, with
 * direction (dx, dy): K += T^T k T at the 3 DOF of each end.
 */
void bench_frame_element(double *K, size_t n, long a, long b, double dx,
			 double dy, double E, double A, double I)
{
	double L = hypot(dx, dy), c = dx / L, s = dy / L;
	double ea = E * A / L, k1 = 12 * E * I / (L * L * L);
	double k2 = 6 * E * I / (L * L), k3 = 4 * E * I / L, k4 = 2 * E * I / L;
	/* local stiffness, (u1, v1, th1, u2, v2, th2) */
	double kl[6][6] = {
		{ ea, 0, 0, -ea, 0, 0 },
		{ 0, k1, k2, 0, -k1, k2 },
		{ 0, k2, k3, 0, -k2, k4 },
		{ -ea, 0, 0, ea, 0, 0 },
		{ 0, -k1, -k2, 0, k1, -k2 },
		{ 0, k2, k4, 0, -k2, k3 },
	};
	double T[6][6] = { { 0 } }, kg[6][6];
	long dof[6];

	for (int e = 0; e < 2; e++) {
		T[3 * e][3 * e] = c;
		T[3 * e][3 * e + 1] = s;
		T[3 * e + 1][3 * e] = -s;
		T[3 * e + 1][3 * e + 1] = c;
		T[3 * e + 2][3 * e + 2] = 1;
	}
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 6; j++) {
			double x = 0;

			for (int p = 0; p < 6; p++)
				for (int q = 0; q < 6; q++)
					x += T[p][i] * kl[p][q] * T[q][j];
			kg[i][j] = x;
		}
	for (int i = 0; i < 3; i++) {
		dof[i] = a < 0 ? -1 : a + i;
		dof[3 + i] = b + i;
	}
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 6; j++)
			if (dof[i] >= 0 && dof[j] >= 0)
				K[(size_t)dof[j] * n + (size_t)dof[i]] +=
					kg[i][j];
}

/* A step's sparse products and solves, as many as it does. */
#define FLOOR_MAX 32
#define FLOOR_STEPS 200
struct floor_list {
	const struct la_csc *prod[FLOOR_MAX];
	const struct la_lin *solve[FLOOR_MAX];
	int nprod, nsolve;
};

/*
 * What one sparse step of @st's method does, on its own matrices and
 * factors: the method's list (its ops' kernels; the implicit methods'
 * for the iterations of their last step).
 */
static void floor_list(const struct rths_hs_stepper *st,
		       enum rths_hs_method m, struct floor_list *fl)
{
	struct rths_hs_step_kernels k;

	if (!st->ops->kernels) {
		fprintf(stderr, "bench-hs: %s lists no step kernels\n",
			rths_hs_method_name(m));
		exit(1);
	}
	st->ops->kernels(st, &k);
	memset(fl, 0, sizeof(*fl));
	memcpy(fl->prod, k.prod, (size_t)k.nprod * sizeof(k.prod[0]));
	memcpy(fl->solve, k.solve, (size_t)k.nsolve * sizeof(k.solve[0]));
	fl->nprod = k.nprod;
	fl->nsolve = k.nsolve;
}

/*
 * The floor: the step's products, in turn, into y (the first one
 * overwrites it), then, if @solves, its solves with one right-hand side
 * each, in place on y (klu_solve); time of one round over @reps.
 */
static double floor_batch(const struct floor_list *fl, bool solves,
			  const double *x, double *y, long reps)
{
	double t0 = bench_hs_now();

	for (long i = 0; i < reps; i++) {
		for (int k = 0; k < fl->nprod; k++)
			la_csc_gemv(fl->prod[k], 1.0, x, k ? 0.5 : 0.0, y);
		for (int k = 0; solves && k < fl->nsolve; k++)
			la_lin_solve(fl->solve[k], y, 1);
	}
	return (bench_hs_now() - t0) / (double)reps;
}

/* The fastest of BENCH_HS_BATCHES batches: the least disturbed. */
static double fastest(const double *t)
{
	double m = t[0];

	for (int b = 1; b < BENCH_HS_BATCHES; b++)
		m = fmin(m, t[b]);
	return m;
}

/*
 * One sparse stepper of method @m on @mo: after FLOOR_STEPS untimed
 * steps (the implicit methods' floor counts the last one's iterations),
 * batches of steps and of each
 * floor in turn, so that a shared machine's load weighs on all three
 * alike; the fastest batch of each (the least disturbed by the others
 * on the machine) into @ts, @tp (products) and @tf (+ solves).
 */
static void time_sparse(struct rths_hs_model *mo, enum rths_hs_method m,
			double *f, const double *mr, double *x, double *y,
			double *ts, double *tp, double *tf,
			struct floor_list *fl)
{
	double t[3][BENCH_HS_BATCHES];
	struct rths_hs_stepper *st = bench_hs_stepper(mo, m);
	long k = 0, reps = mo->n > 20000 ? 20 : 200;

	if (!st->sp) {
		fprintf(stderr, "bench-hs: the frame is not sparse\n");
		exit(1);
	}
	bench_hs_step_batch(st, f, mr, FLOOR_STEPS, &k);
	floor_list(st, m, fl);
	for (int b = 0; b < BENCH_HS_BATCHES; b++) {
		t[0][b] = bench_hs_step_batch(st, f, mr, reps, &k);
		t[1][b] = floor_batch(fl, false, x, y, 10 * reps);
		t[2][b] = floor_batch(fl, true, x, y, reps);
	}
	*ts = fastest(t[0]);
	*tp = fastest(t[1]);
	*tf = fastest(t[2]);
	rths_hs_stepper_free(st);
}

const enum rths_hs_method bench_hs_frame_methods[BENCH_HS_FRAME_METHODS] = {
	RTHS_HS_CR, RTHS_HS_KR_ALPHA, RTHS_HS_ALPHA_OS,
	RTHS_HS_NEWMARK_IMPLICIT, RTHS_HS_GENERALIZED_ALPHA,
	RTHS_HS_HHT_ALPHA,
};
#define meth bench_hs_frame_methods

/* Sparse and dense steps of one frame, and the floor; each method's
 * sparse step and floor into @sparse and @floor (seconds), and the DOF
 * into @n_out, when they are not NULL. */
void bench_hs_frame(size_t dofs, size_t dense_max, double *sparse,
		    double *floor, size_t *n_out)
{
	size_t bays = 9, stories = dofs / 3 / (bays + 1);
	struct rths_hs_model mo;
	double *f, *mr, *x, *y;
	size_t n, nnz_d = 0, nnz_lu = 0, nnz_k = 0;

	if (!stories)
		stories = 1;
	if (frame_model(&mo, stories, bays) < 0) {
		fprintf(stderr, "bench-hs: cannot allocate the frame\n");
		exit(1);
	}
	n = mo.n;
	f = calloc(4 * n, sizeof(double));
	if (!f)
		exit(1);
	mr = f + n;
	x = mr + n;
	y = x + n;
	for (size_t i = 0; i < n; i++)
		x[i] = sin((double)i);
	rths_hs_model_ground_force(&mo, -1.0, mr);
	printf("\nbench-hs: one step of a 2-D plane frame, %zu stories x %zu bays, %zu DOF\n",
	       stories, bays, n);
	printf("  method             kernels   sparse (us)   products (us)   +solves (us)   sparse/products   sparse/(+solves)   dense (us)   dense/sparse\n");
	for (int m = 0; m < (int)(sizeof(meth) / sizeof(meth[0])); m++) {
		struct rths_hs_stepper *st;
		struct floor_list fl;
		double ts, tp, tf, td = NAN;
		double dt = 1.0 / 1024;
		size_t keep = rths_hs_sparse_min_dofs;

		/* sparse whatever the size, to find where it pays */
		rths_hs_sparse_min_dofs = 1;
		time_sparse(&mo, meth[m], f, mr, x, y, &ts, &tp, &tf, &fl);
		if (!m) {
			struct la_lin lu;
			struct rths_hs_csc dd;

			st = bench_hs_stepper(&mo, RTHS_HS_CR);
			if (rths_hs_csc_combine(st, 1.0, dt / 2, dt * dt / 4,
						&dd, NULL) < 0 ||
			    rths_hs_csc_factor(st, 1.0, dt / 2, dt * dt / 4,
					       &lu, "D", NULL) < 0)
				exit(1);
			nnz_d = la_csc_nnz(&dd.m);
			nnz_lu = la_klu_factor_nnz(&lu);
			nnz_k = la_csc_nnz(&st->sp->k.m);
			la_lin_free(&lu);
			rths_hs_csc_free(&dd);
			rths_hs_stepper_free(st);
		}
		if (n <= dense_max) {
			rths_hs_sparse_min_dofs = SIZE_MAX;
			td = bench_hs_time_steps(&mo, meth[m], f, mr,
						 n < 500 ? 200 : 20);
		}
		rths_hs_sparse_min_dofs = keep;
		if (sparse)
			sparse[m] = ts;
		if (floor)
			floor[m] = tf;
		printf("  %-16s   %3d + %d   %11.1f   %13.1f   %12.1f   %15.2f   %16.2f   %10.1f   %12.1f\n",
		       rths_hs_method_name(meth[m]), fl.nprod, fl.nsolve,
		       ts * 1e6, tp * 1e6,
		       tf * 1e6, ts / tp, ts / tf, td * 1e6, td / ts);
		fflush(stdout);
	}
	if (n > dense_max)
		printf("  dense skipped: %zu DOF > %zu (HS_FRAME_DENSE_MAX; its setup factors and inverts n x n matrices)\n",
		       n, dense_max);
	printf("  kernels: the step's sparse products + its solves; products: the products alone; +solves: and the solves,\n"
	       "  by KLU with one right-hand side each, on the stepper's own matrices and factors (CR: M a, K u,\n"
	       "  C v; D, M.  KR-alpha: M a, K u, C v, D x; D, M, D - N.  alpha-OS: K u, C v~, K0 a, C v; its effective mass.\n"
	       "  newmark_implicit, generalized_alpha, hht_alpha: M a, K u, C v an iteration and one more, the\n"
	       "  effective stiffness an iteration (the last untimed step's count), and M a, C v a step)\n");
	printf("  nonzeros: K %zu, CR's D %zu, its KLU factors %zu (one solve reads them all)\n",
	       nnz_k, nnz_d, nnz_lu);
	{
		struct rusage ru;
		/* a CSC matrix: a value and a row index a nonzero, and
		 * the column pointers; M, K, C, K0 and D, and D's factors */
		double csc = 12.0 * (double)(4 * nnz_k + nnz_d + nnz_lu) +
			     40.0 * (double)n;

		getrusage(RUSAGE_SELF, &ru);
		printf("  memory: peak resident %.1f MB; the model's dense M, K, C (struct rths_hs_model) %.1f MB;\n"
		       "          the sparse stepper's matrices and factors about %.1f MB\n",
		       (double)ru.ru_maxrss / 1024,
		       3.0 * 8 * (double)n * (double)n / 1048576,
		       csc / 1048576);
	}
	if (n_out)
		*n_out = n;
	rths_hs_model_free(&mo);
	free(f);
}
