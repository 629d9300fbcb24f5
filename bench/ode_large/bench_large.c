// SPDX-License-Identifier: GPL-2.0
/*
 * Large stiff problems for "make bench-ode": mass chains of 1,000 to
 * 20,000 masses and 2-D mass grids (tests/ode/lattice.h), integrated by
 * rths GSTIFF and DSTIFF with the sparse Jacobian through KLU, rths
 * GSTIFF with the dense Jacobian (dense LU; only up to -d equations: its
 * n^2 storage and n^3 factorizations), and CVODE BDF with the same sparse
 * Jacobian through its KLU solver and with a band Jacobian through its
 * band solver, all at the same rtol and atol.  The error is measured
 * against CVODE + KLU at tolerances 1e-4 times tighter.  Times are the
 * best of repeated runs, and each ratio is against CVODE + KLU timed in
 * the same run.  Then small chains, rths sparse against rths dense,
 * locate the size where sparse LU overtakes dense LU, and a work-precision
 * part compares the sparse solvers at equal error (work_precision()).
 * Nothing is asserted about speed.
 *
 * usage: bench-large [-o DIR] [-c "N ..."] [-g "NX ..."] [-d MAXDENSE]
 *   -c  chain lengths in masses (default "1000 2000 5000")
 *   -g  grid sides, NX x NX masses (default "20 40")
 *   -d  largest system the dense runs take, in equations (default 1000)
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include "../../tests/ode/lattice.h"

#define RTOL 1e-6
#define ATOL 1e-9
#define TEND 1.0
#define REF_TIGHTER 1e-4

enum solver {
	RTHS_GSTIFF_KLU,
	RTHS_DSTIFF_KLU,
	RTHS_GSTIFF_DENSE,
	CVODE_KLU,
	CVODE_BAND,
	N_SOLVERS,
	/* crossover only: the sparse Jacobian, dense LU */
	RTHS_GSTIFF_SPARSE_DENSE_LU = N_SOLVERS,
};

static const char *const solver_name[N_SOLVERS] = {
	"rths gstiff klu", "rths dstiff klu", "rths gstiff dense",
	"cvode bdf klu", "cvode bdf band",
};

struct result {
	int rc;
	unsigned long steps, f_evals, jac_evals, lu;
	double seconds;
	double err;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* --- CVODE with the lattice's sparse or band Jacobian */
struct cv_user {
	struct ode_lattice *l;
	size_t *cp, *ri;
	double *x;		/* nnz: values in the pattern's order */
};

static int cv_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *ud)
{
	struct cv_user *u = ud;

	return ode_lattice_rhs(t, N_VGetArrayPointer(y),
			       N_VGetArrayPointer(ydot), u->l);
}

static int cv_jac_klu(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J,
		      void *ud, N_Vector t1, N_Vector t2, N_Vector t3)
{
	struct cv_user *u = ud;
	size_t n = ode_lattice_dim(u->l), nnz = u->cp[n];
	sunindextype *ip = SM_INDEXPTRS_S(J), *iv = SM_INDEXVALS_S(J);
	struct rths_csc c = { n, n, u->cp, u->ri, SM_DATA_S(J) };

	(void)fy;
	(void)t1;
	(void)t2;
	(void)t3;
	for (size_t j = 0; j <= n; j++)
		ip[j] = (sunindextype)u->cp[j];
	for (size_t k = 0; k < nnz; k++)
		iv[k] = (sunindextype)u->ri[k];
	return ode_lattice_sparse_jac(t, N_VGetArrayPointer(y), &c, u->l);
}

static int cv_jac_band(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J,
		       void *ud, N_Vector t1, N_Vector t2, N_Vector t3)
{
	struct cv_user *u = ud;
	size_t n = ode_lattice_dim(u->l);
	struct rths_csc c = { n, n, u->cp, u->ri, u->x };

	(void)fy;
	(void)t1;
	(void)t2;
	(void)t3;
	if (ode_lattice_sparse_jac(t, N_VGetArrayPointer(y), &c, u->l))
		return -1;
	for (size_t j = 0; j < n; j++)
		for (size_t k = u->cp[j]; k < u->cp[j + 1]; k++)
			SM_ELEMENT_B(J, (sunindextype)u->ri[k],
				     (sunindextype)j) = u->x[k];
	return 0;
}

static int run_cvode(struct ode_lattice *l, int band, double rtol,
		     double atol, double *yout, struct result *r)
{
	size_t n = ode_lattice_dim(l);
	struct cv_user u = { .l = l };
	size_t nnz = ode_lattice_pattern(l, &u.cp, &u.ri);
	sunindextype bw = (sunindextype)ode_lattice_band(l);
	SUNContext ctx;
	N_Vector y;
	SUNMatrix A;
	SUNLinearSolver LS;
	void *mem;
	sunrealtype t;
	long v;
	int rc;

	u.x = malloc((nnz + 1) * sizeof(double));
	if (!nnz || !u.x || SUNContext_Create(NULL, &ctx)) {
		free(u.cp);
		free(u.ri);
		free(u.x);
		return -ENOMEM;
	}
	y = N_VNew_Serial((sunindextype)n, ctx);
	N_VConst(0, y);
	mem = CVodeCreate(CV_BDF, ctx);
	CVodeSetErrFile(mem, NULL);	/* failures are in the table */
	CVodeInit(mem, cv_rhs, 0, y);
	CVodeSStolerances(mem, rtol, atol);
	CVodeSetUserData(mem, &u);
	CVodeSetMaxNumSteps(mem, 500000);
	CVodeSetStopTime(mem, TEND);
	if (band) {
		A = SUNBandMatrix((sunindextype)n, bw, bw, ctx);
		LS = SUNLinSol_Band(y, A, ctx);
	} else {
		A = SUNSparseMatrix((sunindextype)n, (sunindextype)n,
				    (sunindextype)nnz, CSC_MAT, ctx);
		LS = SUNLinSol_KLU(y, A, ctx);
	}
	CVodeSetLinearSolver(mem, LS, A);
	CVodeSetJacFn(mem, band ? cv_jac_band : cv_jac_klu);
	rc = CVode(mem, TEND, y, &t, CV_NORMAL);
	memcpy(yout, N_VGetArrayPointer(y), n * sizeof(double));
	r->rc = rc < 0 ? rc : 0;
	CVodeGetNumSteps(mem, &v);
	r->steps = (unsigned long)v;
	CVodeGetNumRhsEvals(mem, &v);
	r->f_evals = (unsigned long)v;
	CVodeGetNumJacEvals(mem, &v);
	r->jac_evals = (unsigned long)v;
	CVodeGetNumLinSolvSetups(mem, &v);
	r->lu = (unsigned long)v;
	CVodeFree(&mem);
	SUNLinSolFree(LS);
	SUNMatDestroy(A);
	N_VDestroy(y);
	SUNContext_Free(&ctx);
	free(u.cp);
	free(u.ri);
	free(u.x);
	return r->rc;
}

static int run_once(struct ode_lattice *l, enum solver s, double rtol,
		    double atol, double *y, struct result *r)
{
	struct rths_ode_stats st;
	int rc;

	switch (s) {
	case CVODE_KLU:
	case CVODE_BAND:
		return run_cvode(l, s == CVODE_BAND, rtol, atol, y, r);
	default:
		break;
	}
	rc = ode_lattice_solve(l, s == RTHS_DSTIFF_KLU ? RTHS_ODE_DSTIFF :
			       RTHS_ODE_GSTIFF,
			       s == RTHS_GSTIFF_DENSE ? -1 :
			       s == RTHS_GSTIFF_SPARSE_DENSE_LU ?
			       RTHS_ODE_LINEAR_DENSE : RTHS_ODE_LINEAR_SPARSE,
			       rtol, atol, TEND, 0, y, &st);
	r->rc = rc;
	r->steps = st.steps;
	r->f_evals = st.f_evals;
	r->jac_evals = st.jac_evals;
	r->lu = st.lu_decomps;
	return rc;
}

/* Best time of runs repeated until they took 0.3 s (at most 5 runs). */
static void run(struct ode_lattice *l, enum solver s, const double *ref,
		double *y, struct result *r)
{
	size_t n = ode_lattice_dim(l);
	double total = 0, best = INFINITY;

	for (int i = 0; i < 5 && total < 0.3; i++) {
		double t0 = now(), dt;

		if (run_once(l, s, RTOL, ATOL, y, r))
			break;
		dt = now() - t0;
		total += dt;
		best = fmin(best, dt);
	}
	r->seconds = r->rc ? NAN : best;
	r->err = NAN;
	if (!r->rc && ref) {
		double d = 0, m = 1e-3;

		for (size_t i = 0; i < n; i++) {
			d = fmax(d, fabs(y[i] - ref[i]));
			m = fmax(m, fabs(ref[i]));
		}
		r->err = d / m;
	}
}

static void print_row(FILE *csv, const char *problem, size_t n,
		      enum solver s, const struct result *r, double base)
{
	if (r->rc) {
		printf("%-14s %6zu  %-18s failed (%d)\n", problem, n,
		       solver_name[s], r->rc);
	} else {
		printf("%-14s %6zu  %-18s %6lu %8lu %5lu %6lu  %8.2e %10.1f %7.2f\n",
		       problem, n, solver_name[s], r->steps, r->f_evals,
		       r->jac_evals, r->lu, r->err, 1e3 * r->seconds,
		       r->seconds / base);
	}
	if (csv)
		fprintf(csv, "%s,%zu,%s,%d,%lu,%lu,%lu,%lu,%.6e,%.6e\n",
			problem, n, solver_name[s], r->rc, r->steps,
			r->f_evals, r->jac_evals, r->lu, r->err, r->seconds);
}

static void header(void)
{
	printf("%-14s %6s  %-18s %6s %8s %5s %6s  %8s %10s %7s\n", "problem",
	       "n", "solver", "steps", "f-evals", "jac", "lu", "error", "ms",
	       "/klu");
}

/* One problem: the reference, then every solver. */
static void bench_problem(FILE *csv, struct ode_lattice *l,
			  const char *problem, size_t max_dense)
{
	size_t n = ode_lattice_dim(l);
	double *ref = malloc(n * sizeof(double));
	double *y = malloc(n * sizeof(double));
	struct result r[N_SOLVERS], rr;

	if (!ref || !y ||
	    run_cvode(l, 0, RTOL * REF_TIGHTER, ATOL * REF_TIGHTER, ref, &rr)) {
		printf("%-14s %6zu  reference failed\n", problem, n);
		free(ref);
		free(y);
		return;
	}
	/* the baseline first: CVODE + KLU */
	run(l, CVODE_KLU, ref, y, &r[CVODE_KLU]);
	for (int s = 0; s < N_SOLVERS; s++) {
		if (s == RTHS_GSTIFF_DENSE && n > max_dense) {
			printf("%-14s %6zu  %-18s skipped (n > %zu, -d)\n",
			       problem, n, solver_name[s], max_dense);
			continue;
		}
		if (s != CVODE_KLU)
			run(l, s, ref, y, &r[s]);
		print_row(csv, problem, n, s, &r[s],
			  r[CVODE_KLU].rc ? NAN : r[CVODE_KLU].seconds);
	}
	fflush(stdout);
	free(ref);
	free(y);
}

/*
 * Work against precision: every sparse solver over a ladder of
 * tolerances (rtol 1e-3 .. 1e-8, atol 1e-3 rtol), its error against a
 * reference at rtol 1e-12, and its time at given errors interpolated
 * log-log between the two ladder runs that bracket each: the time each
 * needs for the same accuracy, which equal tolerances do not give (the
 * methods' errors differ at one tolerance).  Ratios against CVODE + KLU.
 */
#define WP_RUNGS 6
#define WP_TARGETS 3
static const enum solver wp_solver[] = {
	RTHS_GSTIFF_KLU, RTHS_DSTIFF_KLU, CVODE_KLU,
};
#define WP_SOLVERS (sizeof(wp_solver) / sizeof(wp_solver[0]))
static const double wp_target[WP_TARGETS] = { 1e-4, 1e-5, 1e-6 };

/* log-log interpolation of the time at error @e; NAN if not bracketed */
static double time_at(const double *err, const double *t, double e)
{
	for (int k = 0; k + 1 < WP_RUNGS; k++) {
		double e0 = err[k], e1 = err[k + 1], f;

		if (!(e0 > 0 && e1 > 0) || isnan(t[k]) || isnan(t[k + 1]))
			continue;
		if ((e0 - e) * (e1 - e) > 0)
			continue;
		if (e0 == e1)
			return fmin(t[k], t[k + 1]);
		f = log(e / e0) / log(e1 / e0);
		return exp(log(t[k]) + f * (log(t[k + 1]) - log(t[k])));
	}
	return NAN;
}

static double wp_geo[WP_SOLVERS];
static int wp_geo_n[WP_SOLVERS];

static void work_precision(FILE *csv, struct ode_lattice *l,
			   const char *problem)
{
	size_t n = ode_lattice_dim(l);
	double *ref = malloc(n * sizeof(double));
	double *y = malloc(n * sizeof(double));
	double err[WP_SOLVERS][WP_RUNGS], t[WP_SOLVERS][WP_RUNGS];
	unsigned long fe[WP_SOLVERS][WP_RUNGS];
	struct result rr;

	if (!ref || !y || run_cvode(l, 0, 1e-12, 1e-15, ref, &rr)) {
		printf("%-14s %6zu  reference failed\n", problem, n);
		goto out;
	}
	for (size_t s = 0; s < WP_SOLVERS; s++)
		for (int k = 0; k < WP_RUNGS; k++) {
			double rtol = pow(10.0, -3 - k), best = INFINITY;
			double total = 0, d = 0, m = 1e-3;
			struct result r;

			for (int i = 0; i < 5 && total < 0.2; i++) {
				double t0 = now(), dt;

				if (run_once(l, wp_solver[s], rtol, rtol * 1e-3,
					     y, &r))
					break;
				dt = now() - t0;
				total += dt;
				best = fmin(best, dt);
			}
			for (size_t i = 0; !r.rc && i < n; i++) {
				d = fmax(d, fabs(y[i] - ref[i]));
				m = fmax(m, fabs(ref[i]));
			}
			err[s][k] = r.rc ? NAN : d / m;
			t[s][k] = r.rc ? NAN : best;
			fe[s][k] = r.f_evals;
			if (csv)
				fprintf(csv, "%s,%zu,%s,%g,%lu,%.6e,%.6e\n",
					problem, n, solver_name[wp_solver[s]],
					rtol, r.f_evals, err[s][k], t[s][k]);
		}
	for (int j = 0; j < WP_TARGETS; j++) {
		double tc = time_at(err[WP_SOLVERS - 1], t[WP_SOLVERS - 1],
				    wp_target[j]);

		printf("%-14s %6zu  %8.0e", problem, n, wp_target[j]);
		for (size_t s = 0; s < WP_SOLVERS; s++) {
			double ts = time_at(err[s], t[s], wp_target[j]);

			printf("  %9.2f", 1e3 * ts);
			if (s + 1 < WP_SOLVERS) {
				printf(" %5.2f", ts / tc);
				if (ts / tc > 0) {
					wp_geo[s] += log(ts / tc);
					wp_geo_n[s]++;
				}
			}
		}
		putchar('\n');
	}
	/* f-evals at rtol 1e-6 (rung 3), rths against CVODE */
	printf("%-14s %6zu  f-evals at rtol 1e-6: gstiff %lu, dstiff %lu, cvode %lu\n",
	       problem, n, fe[0][3], fe[1][3], fe[2][3]);
	fflush(stdout);
out:
	free(ref);
	free(y);
}

/*
 * Chains of 1 to 256 masses, rths GSTIFF with the sparse Jacobian through
 * KLU against the same through dense LU (the choice
 * RTHS_ODE_LINEAR_AUTO makes) and against the dense Jacobian: the first
 * size from which KLU is faster than dense LU at every size.
 */
static void crossover(FILE *csv, size_t max_dense)
{
	size_t cross = 0;

	printf("\n# crossover: rths gstiff on chains; sparse Jacobian with "
	       "KLU, the same with dense LU, dense Jacobian with dense LU\n");
	printf("%6s %10s %10s %10s %9s\n", "n", "klu ms", "sp+lu ms",
	       "dense ms", "klu/sp+lu");
	for (size_t m = 1; 2 * m <= max_dense && m <= 256; m *= 2) {
		struct ode_lattice l = ode_lattice_default(m, 1);
		size_t n = ode_lattice_dim(&l);
		double *y = malloc(n * sizeof(double));
		struct result rs, rl, rd;

		if (!y)
			break;
		run(&l, RTHS_GSTIFF_KLU, NULL, y, &rs);
		run(&l, RTHS_GSTIFF_SPARSE_DENSE_LU, NULL, y, &rl);
		run(&l, RTHS_GSTIFF_DENSE, NULL, y, &rd);
		free(y);
		if (rs.rc || rl.rc || rd.rc) {
			printf("%6zu failed (%d, %d, %d)\n", n, rs.rc, rl.rc,
			       rd.rc);
			continue;
		}
		printf("%6zu %10.3f %10.3f %10.3f %9.2f\n", n,
		       1e3 * rs.seconds, 1e3 * rl.seconds, 1e3 * rd.seconds,
		       rs.seconds / rl.seconds);
		if (csv)
			fprintf(csv, "crossover,%zu,%.6e,%.6e,%.6e\n", n,
				rs.seconds, rl.seconds, rd.seconds);
		if (rs.seconds < rl.seconds && !cross)
			cross = n;
		else if (rs.seconds >= rl.seconds)
			cross = 0;
	}
	if (cross)
		printf("KLU overtakes dense LU from n = %zu equations "
		       "(RTHS_ODE_SPARSE_MIN_DIM = %d)\n", cross,
		       RTHS_ODE_SPARSE_MIN_DIM);
	else
		printf("KLU did not overtake dense LU up to n = %zu\n",
		       max_dense);
}

/* A list of sizes "N N ..." */
static size_t parse_sizes(const char *s, size_t *v, size_t max)
{
	size_t c = 0;
	char *end;

	while (c < max) {
		unsigned long x = strtoul(s, &end, 10);

		if (end == s)
			break;
		v[c++] = x;
		s = end;
	}
	return c;
}

/* DIR/NAME, opened for writing with its @header row; exits on failure. */
static FILE *open_csv(const char *dir, const char *name, const char *header)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(1);
	}
	fprintf(f, "%s\n", header);
	return f;
}

static void work_precision_of(FILE *csv, struct ode_lattice *l,
			      const char *problem, size_t max_dense)
{
	(void)max_dense;
	work_precision(csv, l, problem);
}

/* @fn on each chain of @chains, then each grid of @grids (their sizes
 * as -c and -g give them), by name. */
static void each_lattice(const char *chains, const char *grids,
			 void (*fn)(FILE *, struct ode_lattice *, const char *,
				    size_t),
			 FILE *csv, size_t max_dense)
{
	for (int grid = 0; grid < 2; grid++) {
		size_t sizes[16], c = parse_sizes(grid ? grids : chains, sizes,
						  16);

		for (size_t i = 0; i < c; i++) {
			struct ode_lattice l = ode_lattice_default(sizes[i],
								   grid ? sizes[i] : 1);
			char name[32];

			if (grid)
				snprintf(name, sizeof(name), "grid %zux%zu",
					 sizes[i], sizes[i]);
			else
				snprintf(name, sizeof(name), "chain %zu",
					 sizes[i]);
			fn(csv, &l, name, max_dense);
		}
	}
}

int main(int argc, char **argv)
{
	const char *dir = NULL, *chains = "1000 2000 5000", *grids = "20 40";
	size_t max_dense = 1000;
	FILE *csv = NULL, *wp_csv = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "o:c:g:d:")) != -1) {
		switch (opt) {
		case 'o':
			dir = optarg;
			break;
		case 'c':
			chains = optarg;
			break;
		case 'g':
			grids = optarg;
			break;
		case 'd':
			max_dense = strtoul(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: %s [-o DIR] [-c \"N ...\"] "
				"[-g \"NX ...\"] [-d MAXDENSE]\n", argv[0]);
			return 2;
		}
	}
	if (dir)
		csv = open_csv(dir, "large.csv",
			       "problem,n,solver,status,steps,f_evals,jac_evals,lu,error,seconds");
	printf("# large stiff problems, t = 0..%g s, rtol %g, atol %g; error "
	       "against CVODE+KLU at x%g the tolerances; ratio = time / "
	       "CVODE+KLU's in this run\n", TEND, RTOL, ATOL, REF_TIGHTER);
	header();
	each_lattice(chains, grids, bench_problem, csv, max_dense);
	if (dir)
		wp_csv = open_csv(dir, "large_wp.csv",
				  "problem,n,solver,rtol,f_evals,error,seconds");
	printf("\n# work against precision: time (ms) each solver needs for the "
	       "error in the third column (log-log between its runs at rtol "
	       "1e-3 .. 1e-8), error against CVODE+KLU at rtol 1e-12; "
	       "ratio = time / CVODE+KLU's at that error\n");
	printf("%-14s %6s  %8s  %15s  %15s  %9s\n", "problem", "n", "error",
	       "gstiff ms  /klu", "dstiff ms  /klu", "cvode ms");
	each_lattice(chains, grids, work_precision_of, wp_csv, 0);
	for (size_t s = 0; s + 1 < WP_SOLVERS; s++)
		printf("# %s / cvode bdf klu at equal error: geometric mean %.2f over %d points\n",
		       solver_name[wp_solver[s]],
		       wp_geo_n[s] ? exp(wp_geo[s] / wp_geo_n[s]) : NAN,
		       wp_geo_n[s]);
	if (wp_csv)
		fclose(wp_csv);
	crossover(csv, max_dense);
	if (csv)
		fclose(csv);
	return 0;
}
