/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Work-precision benchmark of the rths integrators against SUNDIALS
 * (CVODE BDF and Adams, IDA) and GSL odeiv2 (rkf45, msadams, msbdf): the
 * problems, one adapter per library, and what a run reports.
 */
#ifndef RTHS_BENCH_ODE_H
#define RTHS_BENCH_ODE_H

#include <stddef.h>

#include <rths/ode.h>

#define BENCH_MAXDIM 16
/* the fixed-step methods' (CONSTANT_BDF, ROSENBROCK_W with a step)
 * control.fixed_err_max in the benchmark */
#define BENCH_FIXED_ERR_MAX 10

struct bench_problem {
	const char *name;
	size_t dim;
	double t0, tend;
	double y0[BENCH_MAXDIM], yp0[BENCH_MAXDIM];
	/* atol_i = tol * scale_i; error_i = |y - ref| / (scale_i + |ref|) */
	double scale[BENCH_MAXDIM];
	size_t n_err;		/* leading components the error measures */
	int stiff;
	/* explicit form y' = f (NULL for a DAE-only problem) */
	rths_ode_rhs_fn rhs;
	rths_ode_jac_fn jac;
	/* implicit form, set for DAE problems */
	const struct rths_ode_system *dae;
	const unsigned char *algebraic;	/* 1: algebraic component */
	double ref[BENCH_MAXDIM];	/* reference solution at tend */
};

struct bench_result {
	int ok;
	char status[24];	/* "ok" or the solver's failure */
	unsigned long steps, f_evals, jac_evals, lu;
	unsigned long rejected;	/* error-test and corrector failures */
	double y[BENCH_MAXDIM];
	double err;		/* scaled error at tend, NAN on failure */
	double seconds;		/* best wall time of the repeated runs */
};

struct bench_solver {
	const char *name;
	int explicit_only;	/* cannot solve DAEs */
	int dae;		/* can solve DAEs */
	int fixed_step;		/* runs at the step h_fixed */
	unsigned long jac_max_age; /* rths: control.jac_max_age */
	/* one run; h_fixed is for fixed-step methods */
	void (*run)(const struct bench_solver *s,
		    const struct bench_problem *p, double tol,
		    double h_fixed, unsigned long max_steps,
		    struct bench_result *r);
	int method;		/* adapter-specific */
};

/* adapters (each file one library) */
extern const struct bench_solver bench_rths_solvers[];
extern const size_t bench_rths_count;
extern const struct bench_solver bench_sundials_solvers[];
extern const size_t bench_sundials_count;
extern const struct bench_solver bench_gsl_solvers[];
extern const size_t bench_gsl_count;

/* Integrate the reduced pendulum with GSL's rk8pd (a reference that owes
 * nothing to rths). */
int bench_gsl_reference(const struct rths_ode_system *sys, double t0,
			double tend, double tol, double *y);

/* The problems (bench_problems.c); references are filled in by main. */
#define BENCH_NPROBLEMS 5
struct rths_ode_mech_dae;
struct bench_set {
	struct bench_problem p[BENCH_NPROBLEMS];
	struct rths_ode_mech_dae *pendulum;
	double pend_q0[3], pend_v0[3];
};
int bench_problems_init(struct bench_set *set);
void bench_problems_free(struct bench_set *set);
/* q, v of the pendulum on its constraints for angle th and rate om */
void bench_pendulum_state(double th, double om, double *Y);

void bench_result_fail(struct bench_result *r, const char *status);
/* A solver's failure code and the status the table prints for it. */
struct bench_status {
	int code;
	const char *name;
};
/*
 * @r is ok if @ok, else failed with the name of @rc in @tab (up to an
 * entry without a name), or with "@lib @rc" (NULL @lib: "error").
 */
void bench_result_status(struct bench_result *r, int ok, int rc,
			 const struct bench_status *tab, const char *lib);
double bench_error(const struct bench_problem *p, const double *y);

#endif /* RTHS_BENCH_ODE_H */
