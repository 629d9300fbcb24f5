// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark adapter: SUNDIALS 6 CVODE (BDF with dense Newton, Adams with
 * fixed-point iteration) and IDA (dense Newton), analytic Jacobians where
 * the problem has one, as the rths implicit methods get.
 */
#include <cvode/cvode.h>
#include <ida/ida.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "bench.h"

enum { CV_BDF_DENSE, CV_ADAMS_FP, IDA_DENSE };

static int cv_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *ud)
{
	const struct bench_problem *p = ud;

	return p->rhs(t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot),
		      NULL) ? -1 : 0;
}

/* J = @cj I + @sign df/dy (both column-major) */
static int dense_jac(const struct bench_problem *p, sunrealtype t,
		     N_Vector y, SUNMatrix J, double cj, double sign)
{
	double Jr[BENCH_MAXDIM * BENCH_MAXDIM] = { 0 };
	size_t n = p->dim;
	struct rths_mat v = { RTHS_MAT_DENSE, n, n, n, Jr };

	if (p->jac(t, N_VGetArrayPointer(y), &v, NULL))
		return -1;
	for (size_t j = 0; j < n; j++)
		for (size_t i = 0; i < n; i++)
			SM_ELEMENT_D(J, i, j) = (i == j ? cj : 0) +
						sign * RTHS_MAT(&v, i, j);
	return 0;
}

static int cv_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J,
		  void *ud, N_Vector t1, N_Vector t2, N_Vector t3)
{
	(void)fy;
	(void)t1;
	(void)t2;
	(void)t3;
	return dense_jac(ud, t, y, J, 0, 1);
}

/* explicit ODEs become F = y' - f(t, y) for IDA */
static int ida_res(sunrealtype t, N_Vector yy, N_Vector yp, N_Vector rr,
		   void *ud)
{
	const struct bench_problem *p = ud;
	double *r = N_VGetArrayPointer(rr), *y = N_VGetArrayPointer(yy);
	double *d = N_VGetArrayPointer(yp);

	if (p->dae)
		return p->dae->res(t, y, d, r, p->dae->params) ? -1 : 0;
	if (p->rhs(t, y, r, NULL))
		return -1;
	for (size_t i = 0; i < p->dim; i++)
		r[i] = d[i] - r[i];
	return 0;
}

/* dF/dy + cj dF/dy' = cj I - df/dy */
static int ida_jac(sunrealtype t, sunrealtype cj, N_Vector yy, N_Vector yp,
		   N_Vector rr, SUNMatrix J, void *ud, N_Vector t1,
		   N_Vector t2, N_Vector t3)
{
	(void)yp;
	(void)rr;
	(void)t1;
	(void)t2;
	(void)t3;
	return dense_jac(ud, t, yy, J, cj, -1);
}

static void silent(int code, const char *module, const char *fn, char *msg,
		   void *ud)
{
	(void)code;
	(void)module;
	(void)fn;
	(void)msg;
	(void)ud;
}

static const struct bench_status cvode_status[] = {
	{ CV_TOO_MUCH_WORK, "too many steps" },
	{ CV_CONV_FAILURE, "no convergence" },
	{ CV_ERR_FAILURE, "error test" },
	{ 0, NULL },
};

static const struct bench_status ida_status[] = {
	{ IDA_TOO_MUCH_WORK, "too many steps" },
	{ IDA_CONV_FAIL, "no convergence" },
	{ IDA_ERR_FAIL, "error test" },
	{ 0, NULL },
};

static void run_cvode(const struct bench_solver *sv,
		      const struct bench_problem *p, double tol,
		      double h_fixed, unsigned long max_steps,
		      struct bench_result *r)
{
	SUNContext ctx;
	N_Vector y, atol;
	SUNMatrix A = NULL;
	SUNLinearSolver LS = NULL;
	SUNNonlinearSolver NLS = NULL;
	void *mem;
	sunrealtype t;
	long v;
	int rc;

	(void)h_fixed;
	if (SUNContext_Create(NULL, &ctx)) {
		bench_result_fail(r, "context");
		return;
	}
	y = N_VNew_Serial((sunindextype)p->dim, ctx);
	atol = N_VNew_Serial((sunindextype)p->dim, ctx);
	for (size_t i = 0; i < p->dim; i++) {
		NV_Ith_S(y, i) = p->y0[i];
		NV_Ith_S(atol, i) = tol * p->scale[i];
	}
	mem = CVodeCreate(sv->method == CV_BDF_DENSE ? CV_BDF : CV_ADAMS, ctx);
	CVodeSetErrHandlerFn(mem, silent, NULL);
	CVodeInit(mem, cv_rhs, p->t0, y);
	CVodeSVtolerances(mem, tol, atol);
	CVodeSetUserData(mem, (void *)p);
	CVodeSetMaxNumSteps(mem, (long)max_steps);
	CVodeSetStopTime(mem, p->tend);
	if (sv->method == CV_BDF_DENSE) {
		A = SUNDenseMatrix((sunindextype)p->dim, (sunindextype)p->dim, ctx);
		LS = SUNLinSol_Dense(y, A, ctx);
		CVodeSetLinearSolver(mem, LS, A);
		CVodeSetJacFn(mem, cv_jac);
	} else {
		NLS = SUNNonlinSol_FixedPoint(y, 0, ctx);
		CVodeSetNonlinearSolver(mem, NLS);
	}
	rc = CVode(mem, p->tend, y, &t, CV_NORMAL);
	bench_result_status(r, rc >= 0, rc, cvode_status, "flag");
	for (size_t i = 0; i < p->dim; i++)
		r->y[i] = NV_Ith_S(y, i);
	CVodeGetNumSteps(mem, &v);
	r->steps = (unsigned long)v;
	CVodeGetNumRhsEvals(mem, &v);
	r->f_evals = (unsigned long)v;
	r->jac_evals = r->lu = 0;
	CVodeGetNumErrTestFails(mem, &v);
	r->rejected = (unsigned long)v;
	CVodeGetNumNonlinSolvConvFails(mem, &v);
	r->rejected += (unsigned long)v;
	if (sv->method == CV_BDF_DENSE) {
		CVodeGetNumJacEvals(mem, &v);
		r->jac_evals = (unsigned long)v;
		CVodeGetNumLinSolvSetups(mem, &v);
		r->lu = (unsigned long)v;
		CVodeGetNumLinRhsEvals(mem, &v);
		r->f_evals += (unsigned long)v;
	}
	CVodeFree(&mem);
	if (LS)
		SUNLinSolFree(LS);
	if (A)
		SUNMatDestroy(A);
	if (NLS)
		SUNNonlinSolFree(NLS);
	N_VDestroy(y);
	N_VDestroy(atol);
	SUNContext_Free(&ctx);
}

static void run_ida(const struct bench_solver *sv,
		    const struct bench_problem *p, double tol, double h_fixed,
		    unsigned long max_steps, struct bench_result *r)
{
	SUNContext ctx;
	N_Vector yy, yp, atol, id;
	SUNMatrix A;
	SUNLinearSolver LS;
	void *mem;
	sunrealtype t;
	long v;
	int rc;

	(void)sv;
	(void)h_fixed;
	if (SUNContext_Create(NULL, &ctx)) {
		bench_result_fail(r, "context");
		return;
	}
	yy = N_VNew_Serial((sunindextype)p->dim, ctx);
	yp = N_VNew_Serial((sunindextype)p->dim, ctx);
	atol = N_VNew_Serial((sunindextype)p->dim, ctx);
	id = N_VNew_Serial((sunindextype)p->dim, ctx);
	for (size_t i = 0; i < p->dim; i++) {
		NV_Ith_S(yy, i) = p->y0[i];
		NV_Ith_S(yp, i) = p->yp0[i];
		NV_Ith_S(atol, i) = tol * p->scale[i];
		NV_Ith_S(id, i) = p->algebraic && p->algebraic[i] ? 0.0 : 1.0;
	}
	mem = IDACreate(ctx);
	IDASetErrHandlerFn(mem, silent, NULL);
	IDAInit(mem, ida_res, p->t0, yy, yp);
	IDASVtolerances(mem, tol, atol);
	IDASetUserData(mem, (void *)p);
	IDASetMaxNumSteps(mem, (long)max_steps);
	IDASetStopTime(mem, p->tend);
	A = SUNDenseMatrix((sunindextype)p->dim, (sunindextype)p->dim, ctx);
	LS = SUNLinSol_Dense(yy, A, ctx);
	IDASetLinearSolver(mem, LS, A);
	if (p->dae) {
		/* index-2 multipliers stay out of the error test, as in rths */
		IDASetId(mem, id);
		IDASetSuppressAlg(mem, SUNTRUE);
	} else {
		IDASetJacFn(mem, ida_jac);
	}
	rc = IDASolve(mem, p->tend, &t, yy, yp, IDA_NORMAL);
	bench_result_status(r, rc >= 0, rc, ida_status, "flag");
	for (size_t i = 0; i < p->dim; i++)
		r->y[i] = NV_Ith_S(yy, i);
	IDAGetNumSteps(mem, &v);
	r->steps = (unsigned long)v;
	IDAGetNumResEvals(mem, &v);
	r->f_evals = (unsigned long)v;
	IDAGetNumLinResEvals(mem, &v);
	r->f_evals += (unsigned long)v;
	IDAGetNumJacEvals(mem, &v);
	r->jac_evals = (unsigned long)v;
	IDAGetNumLinSolvSetups(mem, &v);
	r->lu = (unsigned long)v;
	IDAGetNumErrTestFails(mem, &v);
	r->rejected = (unsigned long)v;
	IDAGetNumNonlinSolvConvFails(mem, &v);
	r->rejected += (unsigned long)v;
	IDAFree(&mem);
	SUNLinSolFree(LS);
	SUNMatDestroy(A);
	N_VDestroy(yy);
	N_VDestroy(yp);
	N_VDestroy(atol);
	N_VDestroy(id);
	SUNContext_Free(&ctx);
}

const struct bench_solver bench_sundials_solvers[] = {
	{ .name = "cvode bdf", .run = run_cvode, .method = CV_BDF_DENSE },
	{ .name = "cvode adams", .explicit_only = 1, .run = run_cvode,
	  .method = CV_ADAMS_FP },
	{ .name = "ida", .dae = 1, .run = run_ida, .method = IDA_DENSE },
};
const size_t bench_sundials_count =
	sizeof(bench_sundials_solvers) / sizeof(bench_sundials_solvers[0]);
