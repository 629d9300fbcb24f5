// SPDX-License-Identifier: GPL-2.0
/*
 * bench-hs, second part: one CR, KR-alpha, alpha-OS and implicit Newmark
 * step of a 2-D plane frame finite-element model (about 5,000 DOF by
 * default), given as a sparse model (triplets, rths_hs_stepper_new_sparse(),
 * so that no n x n array limits its size) on the sparse path (KLU,
 * lib/hs/stepper_sparse.c), and as a dense model on the dense path up to
 * a size, next to two floors of the sparse method measured in the
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

/* Where the frame's matrices go: a dense n x n array, or triplets. */
struct frame_sink {
	size_t n;
	double *dense;		/* NULL: triplets */
	size_t *row, *col;
	double *val;
	size_t nnz, cap;
};

static void sink_add(struct frame_sink *s, size_t i, size_t j, double x)
{
	if (s->dense) {
		s->dense[j * s->n + i] += x;
		return;
	}
	if (s->nnz == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->row = realloc(s->row, s->cap * sizeof(size_t));
		s->col = realloc(s->col, s->cap * sizeof(size_t));
		s->val = realloc(s->val, s->cap * sizeof(double));
		if (!s->row || !s->col || !s->val) {
			fprintf(stderr, "bench-hs: cannot allocate the frame\n");
			exit(1);
		}
	}
	s->row[s->nnz] = i;
	s->col[s->nnz] = j;
	s->val[s->nnz++] = x;
}

static struct rths_hs_triplets sink_triplets(const struct frame_sink *s)
{
	return (struct rths_hs_triplets){ s->nnz, s->row, s->col, s->val };
}

static void sink_free(struct frame_sink *s)
{
	free(s->row);
	free(s->col);
	free(s->val);
}

/*
 * Frame of @stories x @bays: (bays + 1) column lines, 3 DOF a node (ux,
 * uy, theta), nodes fixed at the ground; steel-like columns and beams
 * (Euler-Bernoulli, 3.5 m stories, 6 m bays), lumped masses of 2 t a
 * node with a small rotational inertia, the ground motion along x (r:
 * n values).  M into @m, K into @k, element by element.
 */
static void frame_assemble(struct frame_sink *m, struct frame_sink *k,
			   double *r, size_t stories, size_t bays)
{
	size_t cols = bays + 1;
	const double h = 3.5, w = 6.0, E = 2.1e11;
	const double Ac = 0.02, Ic = 4e-4, Ab = 0.01, Ib = 3e-4;

	/* DOF of node (story s >= 1, line c); s = 0 is the ground */
	for (size_t s = 1; s <= stories; s++)
		for (size_t c = 0; c < cols; c++) {
			size_t d = 3 * ((s - 1) * cols + c);

			sink_add(m, d, d, 2000);
			sink_add(m, d + 1, d + 1, 2000);
			sink_add(m, d + 2, d + 2, 20);
			r[d] = 1;
			r[d + 1] = 0;
			r[d + 2] = 0;
		}
	for (size_t s = 1; s <= stories; s++)
		for (size_t c = 0; c < cols; c++) {
			long top = (long)(3 * ((s - 1) * cols + c));
			long below = s > 1 ? (long)(3 * ((s - 2) * cols + c)) : -1;

			/* column from the node below (or the ground) */
			bench_frame_element(k, below, top, 0, h, E, Ac, Ic);
			if (c + 1 < cols)	/* beam to the right */
				bench_frame_element(k, top, top + 3, w, 0, E,
						    Ab, Ib);
		}
}

/* Rayleigh damping of 2 % at 1 and 10 Hz: C = a0 M + a1 K. */
static void frame_rayleigh(double *a0, double *a1)
{
	double w1 = 2 * M_PI, w2 = 20 * M_PI, z = 0.02;

	*a0 = 2 * z * w1 * w2 / (w1 + w2);
	*a1 = 2 * z / (w1 + w2);
}

/* The frame as a dense model (its dense path). */
static int frame_model(struct rths_hs_model *mo, size_t stories, size_t bays)
{
	size_t n = 3 * stories * (bays + 1);
	struct frame_sink m = { .n = n }, k = { .n = n };
	double a0, a1;

	if (rths_hs_model_init(mo, n, NULL) < 0)
		return -1;
	m.dense = mo->m;
	k.dense = mo->k;
	frame_assemble(&m, &k, mo->r, stories, bays);
	frame_rayleigh(&a0, &a1);
	rths_hs_model_set_rayleigh(mo, a0, a1);
	return 0;
}

/* The frame as a sparse model: triplets as the elements give them
 * (repeated at shared nodes, summed by the stepper), C's those of a0 M
 * and a1 K.  frame_sparse_free() frees them. */
struct frame_sparse {
	struct rths_hs_sparse_model sm;
	struct frame_sink m, k, c;
	double *r;
};

static void frame_sparse(struct frame_sparse *fr, size_t stories,
			 size_t bays)
{
	size_t n = 3 * stories * (bays + 1);
	double a0, a1;

	memset(fr, 0, sizeof(*fr));
	fr->r = calloc(n, sizeof(double));
	if (!fr->r) {
		fprintf(stderr, "bench-hs: cannot allocate the frame\n");
		exit(1);
	}
	fr->m.n = fr->k.n = fr->c.n = n;
	frame_assemble(&fr->m, &fr->k, fr->r, stories, bays);
	frame_rayleigh(&a0, &a1);
	for (size_t q = 0; q < fr->m.nnz; q++)
		sink_add(&fr->c, fr->m.row[q], fr->m.col[q], a0 * fr->m.val[q]);
	for (size_t q = 0; q < fr->k.nnz; q++)
		sink_add(&fr->c, fr->k.row[q], fr->k.col[q], a1 * fr->k.val[q]);
	fr->sm = (struct rths_hs_sparse_model){
		.n = n, .m = sink_triplets(&fr->m), .k = sink_triplets(&fr->k),
		.c = sink_triplets(&fr->c), .r = fr->r,
	};
}

static void frame_sparse_free(struct frame_sparse *fr)
{
	sink_free(&fr->m);
	sink_free(&fr->k);
	sink_free(&fr->c);
	free(fr->r);
}

/*
 * A 2-D frame element from DOF block @a (-1: a fixed node) to @b, with
 * direction (dx, dy): K += T^T k T at the 3 DOF of each end.
 */
void bench_frame_element(struct frame_sink *K, long a, long b, double dx,
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
			if (dof[i] >= 0 && dof[j] >= 0 && kg[i][j] != 0)
				sink_add(K, (size_t)dof[i], (size_t)dof[j],
					 kg[i][j]);
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
static void time_sparse(struct rths_hs_sparse_model *mo,
			enum rths_hs_method m,
			double *f, const double *mr, double *x, double *y,
			double *ts, double *tp, double *tf,
			struct floor_list *fl)
{
	double t[3][BENCH_HS_BATCHES];
	struct rths_hs_stepper *st = bench_hs_stepper_sparse(mo, m);
	long k = 0, reps = mo->n > 20000 ? 20 : 200;

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
 * sparse step and floor into @sparse and @floor (seconds), the DOF into
 * @n_out and the nonzeros of CR's KLU factors into @factor_nnz_out,
 * when they are not NULL.  The sparse runs step the frame
 * as a sparse model (no n x n array anywhere); the dense ones, up to
 * @dense_max DOF, as a dense model on the dense path. */
void bench_hs_frame(size_t dofs, size_t dense_max, double *sparse,
		    double *floor, size_t *n_out, size_t *factor_nnz_out)
{
	size_t bays = 9, stories = dofs / 3 / (bays + 1);
	struct frame_sparse fr;
	struct rths_hs_model mo;
	double *f, *mr, *x, *y, rss_sparse;
	size_t n, nnz_d = 0, nnz_lu = 0, nnz_k = 0, nnz_m, nnz_c, triplets;

	if (!stories)
		stories = 1;
	frame_sparse(&fr, stories, bays);
	n = fr.sm.n;
	f = calloc(4 * n, sizeof(double));
	if (!f)
		exit(1);
	mr = f + n;
	x = mr + n;
	y = x + n;
	for (size_t i = 0; i < n; i++)
		x[i] = sin((double)i);
	rths_hs_sparse_model_ground_force(&fr.sm, -1.0, mr);
	printf("\nbench-hs: one step of a 2-D plane frame, %zu stories x %zu bays, %zu DOF\n",
	       stories, bays, n);
	printf("  method             kernels   sparse (us)   products (us)   +solves (us)   sparse/products   sparse/(+solves)   dense (us)   dense/sparse\n");
	for (int m = 0; m < (int)(sizeof(meth) / sizeof(meth[0])); m++) {
		struct floor_list fl;
		double ts, tp, tf, td = NAN;

		time_sparse(&fr.sm, meth[m], f, mr, x, y, &ts, &tp, &tf, &fl);
		if (sparse)
			sparse[m] = ts;
		if (floor)
			floor[m] = tf;
		printf("  %-16s   %3d + %d   %11.1f   %13.1f   %12.1f   %15.2f   %16.2f   ",
		       rths_hs_method_name(meth[m]), fl.nprod, fl.nsolve,
		       ts * 1e6, tp * 1e6, tf * 1e6, ts / tp, ts / tf);
		if (n <= dense_max) {
			if (frame_model(&mo, stories, bays) < 0) {
				fprintf(stderr, "bench-hs: cannot allocate the dense frame\n");
				exit(1);
			}
			rths_hs_sparse_min_dofs = SIZE_MAX;
			td = bench_hs_time_steps(&mo, meth[m], f, mr,
						 n < 500 ? 200 : 20);
			rths_hs_sparse_min_dofs = RTHS_HS_SPARSE_MIN_DOFS;
			rths_hs_model_free(&mo);
		}
		printf("%10.1f   %12.1f\n", td * 1e6, td / ts);
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
	{
		double dt = 1.0 / 1024;
		struct rths_hs_stepper *st;
		struct la_lin lu;
		struct rths_hs_csc dd;

		st = bench_hs_stepper_sparse(&fr.sm, RTHS_HS_CR);
		if (rths_hs_csc_combine(st, 1.0, dt / 2, dt * dt / 4, &dd,
					NULL) < 0 ||
		    rths_hs_csc_factor(st, 1.0, dt / 2, dt * dt / 4, &lu, "D",
				       NULL) < 0)
			exit(1);
		nnz_d = la_csc_nnz(&dd.m);
		nnz_lu = la_klu_factor_nnz(&lu);
		nnz_k = la_csc_nnz(&st->sp->k.m);
		nnz_m = la_csc_nnz(&st->sp->m.m);
		nnz_c = la_csc_nnz(&st->sp->c.m);
		la_lin_free(&lu);
		rths_hs_csc_free(&dd);
		rths_hs_stepper_free(st);
	}
	printf("  nonzeros: M %zu, K %zu, C %zu, CR's D %zu, its KLU factors %zu (one solve reads them all)\n",
	       nnz_m, nnz_k, nnz_c, nnz_d, nnz_lu);
	{
		struct rusage ru;
		/* a CSC matrix: a value and a row index a nonzero, and the
		 * column pointers; M, K, C, K0, C0 and CR's D and its KLU
		 * factors, and the stepper's ten vectors */
		double need = 12.0 * (double)(nnz_m + 2 * nnz_k + 2 * nnz_c +
					       nnz_d + nnz_lu) +
			      (4.0 * 6 + 80) * (double)n;

		triplets = fr.m.nnz + fr.k.nnz + fr.c.nnz;
		getrusage(RUSAGE_SELF, &ru);
		rss_sparse = (double)ru.ru_maxrss / 1024;
		printf("  memory: peak resident %.1f MB (the process so far); the sparse model's triplets %.1f MB;\n"
		       "          a CR stepper's matrices, factors and vectors about %.1f MB; dense M, K, C would be %.1f MB\n",
		       rss_sparse, 24.0 * (double)triplets / 1048576,
		       need / 1048576,
		       3.0 * 8 * (double)n * (double)n / 1048576);
	}
	if (n_out)
		*n_out = n;
	if (factor_nnz_out)
		*factor_nnz_out = nnz_lu;
	frame_sparse_free(&fr);
	free(f);
}
