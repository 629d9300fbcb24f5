// SPDX-License-Identifier: GPL-2.0
/*
 * bench-ode: work-precision benchmark.  Every problem at tolerances 1e-3
 * .. 1e-8, every rths integrator next to CVODE (BDF, Adams), IDA and GSL
 * (rkf45, msadams, msbdf), in the same run: steps, f evaluations,
 * Jacobians, LU factorizations, error at the end against a reference, and
 * wall time (best of repeated runs).  Prints the table, then the chain and
 * Robertson at 1e-6 side by side, the fixed-step ROSENBROCK_W against
 * CONSTANT_BDF at equal accuracy (time per step) and the adaptive one
 * against GSTIFF, CVODE and GSL msbdf at equal error, and writes
 * results.csv, one wp-*.dat per problem and work-precision.png
 * (gnuplot).
 *
 *   bench-ode [-o DIR] [-p PROBLEM] [-t TOL]
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_errno.h>

#include <rths/ode_mech.h>

#include "bench.h"
#include "../../tests/ode/problems.h"

#define MAX_SOLVERS 16
#define NTOL 6
#define MAX_ROWS (BENCH_NPROBLEMS * NTOL * MAX_SOLVERS)
/* Explicit methods on stiff problems: enough to show the point. */
#define STIFF_EXPLICIT_MAX_STEPS 200000UL
#define MAX_STEPS 10000000UL
/* Repeat short runs until this much time has been measured. */
#define MIN_MEASURE 0.05
/*
 * CONSTANT_BDF starts from the interval over GSTIFF's step count at the
 * same tolerance and halves that step while it stops with "h too large"
 * (-RTHS_E_FIXEDSTEP, its local error estimate above 10 tolerances),
 * down to 1/64 of it: then the failure is the row.
 */
#define FIXED_STEP_HALVINGS 6
/*
 * ROSENBROCK_W's fixed step starts from 4 times CONSTANT_BDF's and is
 * halved while too large or less accurate than CONSTANT_BDF at the same
 * tolerance, at most this many times: the two are then compared at
 * equal accuracy (its error at most CONSTANT_BDF's).
 */
#define ROSW_STEP_HALVINGS 10

struct row {
	const struct bench_problem *p;
	double tol;
	const struct bench_solver *s;
	struct bench_result r;
	double h;		/* the fixed step, 0 for adaptive solvers */
};

struct bench {
	const struct bench_solver *solvers[MAX_SOLVERS];
	size_t nsolvers;
	struct bench_set set;
	struct row rows[MAX_ROWS];
	size_t nrows;
	const char *outdir;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void timed_run(const struct bench_solver *s,
		      const struct bench_problem *p, double tol, double h_fixed,
		      unsigned long max_steps, struct bench_result *r)
{
	double total = 0, best = INFINITY;

	for (int runs = 0; runs < 200 && total < MIN_MEASURE; runs++) {
		struct bench_result tmp = { 0 };
		double t0 = now(), dt;

		s->run(s, p, tol, h_fixed, max_steps, &tmp);
		dt = now() - t0;
		total += dt;
		if (dt < best)
			best = dt;
		if (runs == 0)
			*r = tmp;
	}
	r->seconds = best;
	r->err = r->ok ? bench_error(p, r->y) : NAN;
}

static const struct bench_solver *solver(const struct bench *b,
					 const char *name)
{
	for (size_t i = 0; i < b->nsolvers; i++)
		if (!strcmp(b->solvers[i]->name, name))
			return b->solvers[i];
	return NULL;
}

/*
 * References: closed forms where there are (chain, Kepler); otherwise two
 * different codes at rtol 1e-12 that must agree, rths DSTIFF and CVODE
 * BDF (Robertson, Van der Pol); the pendulum from its reduced ODE by rths
 * ABAM and GSL rk8pd.
 */
static int references(struct bench *b)
{
	for (int i = 0; i < BENCH_NPROBLEMS; i++) {
		struct bench_problem *p = &b->set.p[i];
		struct bench_result r1 = { 0 }, r2 = { 0 };

		if (p->dae) {
			struct rths_ode_system rs = ode_pendulum_reduced(&ode_pendulum);
			struct rths_ode_control c;
			struct rths_ode *s;
			double y1[2] = { b->set.pend_q0[2], b->set.pend_v0[2] };
			double y2[2] = { y1[0], y1[1] }, t, d;

			rths_ode_control_default(&c);
			c.rtol = c.atol = 1e-13;
			s = rths_ode_new(RTHS_ODE_ABAM, &rs, &c, NULL);
			if (!s || rths_ode_init(s, p->t0, y1, NULL) ||
			    rths_ode_evolve(s, p->tend, &t, y1) ||
			    bench_gsl_reference(&rs, p->t0, p->tend, 1e-13, y2)) {
				rths_ode_free(s);
				return -1;
			}
			rths_ode_free(s);
			d = fmax(fabs(y1[0] - y2[0]), fabs(y1[1] - y2[1]));
			printf("reference %-9s reduced ODE: rths abam vs gsl rk8pd at 1e-13 differ by %.1e\n",
			       p->name, d);
			bench_pendulum_state(y2[0], y2[1], p->ref);
			continue;
		}
		solver(b, "rths dstiff")->run(solver(b, "rths dstiff"), p,
					      1e-12, 0, MAX_STEPS, &r1);
		solver(b, "cvode bdf")->run(solver(b, "cvode bdf"), p, 1e-12, 0,
					    MAX_STEPS, &r2);
		if (!r1.ok || !r2.ok) {
			fprintf(stderr, "reference for %s failed\n", p->name);
			return -1;
		}
		if (ode_prob_finite(p->ref, p->dim) && p->ref[0] != 0) {
			/* closed form: the codes check it */
			printf("reference %-9s closed form; rths dstiff %.1e, cvode bdf %.1e from it at 1e-12\n",
			       p->name, bench_error(p, r1.y), bench_error(p, r2.y));
			continue;
		}
		for (size_t k = 0; k < p->dim; k++)
			p->ref[k] = r2.y[k];
		double d = bench_error(p, r1.y);

		for (size_t k = 0; k < p->dim; k++)
			p->ref[k] = 0.5 * (r1.y[k] + r2.y[k]);
		printf("reference %-9s rths dstiff vs cvode bdf at 1e-12 differ by %.1e (mean used)\n",
		       p->name, d);
	}
	return 0;
}

static int is_fixed_step(const struct bench_solver *s)
{
	return s->fixed_step;
}

static int is_rosw_fixed(const struct bench_solver *s)
{
	return s->fixed_step && !strncmp(s->name, "rths rosw fix", 13);
}

static int applies(const struct bench_solver *s, const struct bench_problem *p)
{
	return p->dae ? s->dae : 1;
}

/*
 * A fixed-step run at h, halved while the integrator reports h too large
 * for the tolerance, or (with a target error) while its error is above
 * the target, at most halvings times.
 */
static double fixed_search(const struct bench_solver *s,
			   const struct bench_problem *p, double tol, double h,
			   unsigned long max, double target, int halvings,
			   struct bench_result *r)
{
	timed_run(s, p, tol, h, max, r);
	for (int half = 0; half < halvings &&
	     (!strcmp(r->status, "h too large") ||
	      (r->ok && target > 0 && r->err > target)); half++) {
		h /= 2;
		timed_run(s, p, tol, h, max, r);
	}
	return h;
}

static void run_all(struct bench *b, const char *only, double only_tol)
{
	static const double tols[NTOL] = { 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8 };

	for (int i = 0; i < BENCH_NPROBLEMS; i++) {
		const struct bench_problem *p = &b->set.p[i];

		if (only && strcmp(only, p->name))
			continue;
		for (int k = 0; k < NTOL; k++) {
			unsigned long gstiff_steps = 0;
			const struct row *cbdf = NULL;

			if (only_tol > 0 && fabs(tols[k] / only_tol - 1) > 1e-6)
				continue;
			for (size_t j = 0; j < b->nsolvers; j++) {
				const struct bench_solver *s = b->solvers[j];
				struct row *w = &b->rows[b->nrows];
				unsigned long max = p->stiff && s->explicit_only ?
					STIFF_EXPLICIT_MAX_STEPS : MAX_STEPS;
				/* the fixed step: as many steps as GSTIFF took */
				double h = (p->tend - p->t0) /
					   (gstiff_steps ? gstiff_steps : 1000);

				if (!applies(s, p))
					continue;
				w->p = p;
				w->tol = tols[k];
				w->s = s;
				w->h = 0;
				if (!is_fixed_step(s)) {
					timed_run(s, p, tols[k], h, max, &w->r);
				} else if (is_rosw_fixed(s) && cbdf &&
					   cbdf->r.ok) {
					/* CONSTANT_BDF's accuracy, from 4 times
					 * its step down */
					w->h = fixed_search(s, p, tols[k],
							    4 * cbdf->h, max,
							    cbdf->r.err,
							    ROSW_STEP_HALVINGS,
							    &w->r);
				} else {
					/* ... halved while the integrator
					 * reports it too large */
					w->h = fixed_search(s, p, tols[k], h, max,
							    0, FIXED_STEP_HALVINGS,
							    &w->r);
				}
				if (!strcmp(s->name, "rths gstiff") && w->r.ok)
					gstiff_steps = w->r.steps;
				if (!strcmp(s->name, "rths constant_bdf"))
					cbdf = w;
				b->nrows++;
				fprintf(stderr, ".");
			}
		}
	}
	fprintf(stderr, "\n");
}

/* time of the SUNDIALS code for the same problem and tolerance */
static double base_time(const struct bench *b, const struct row *w)
{
	const char *base = w->p->dae ? "ida" : "cvode bdf";

	for (size_t i = 0; i < b->nrows; i++) {
		const struct row *o = &b->rows[i];

		if (o->p == w->p && o->tol == w->tol && !strcmp(o->s->name, base))
			return o->r.ok ? o->r.seconds : NAN;
	}
	return NAN;
}

static void print_row(const struct bench *b, const struct row *w, int md)
{
	const struct bench_result *r = &w->r;
	char err[16], ratio[16];

	if (r->ok)
		snprintf(err, sizeof(err), "%.2e", r->err);
	else
		snprintf(err, sizeof(err), "-");
	snprintf(ratio, sizeof(ratio), "%.2f", r->seconds / base_time(b, w));
	if (md)
		printf("| %-9s | %.0e | %-17s | %-14s | %7lu | %6lu | %8lu | %5lu | %5lu | %9s | %9.3f | %6s |\n",
		       w->p->name, w->tol, w->s->name, r->status, r->steps,
		       r->rejected, r->f_evals, r->jac_evals, r->lu, err,
		       1e3 * r->seconds, ratio);
	else
		printf("%-9s %.0e  %-17s %-14s %8lu %6lu %9lu %6lu %6lu %9s %10.3f %7s\n",
		       w->p->name, w->tol, w->s->name, r->status, r->steps,
		       r->rejected, r->f_evals, r->jac_evals, r->lu, err,
		       1e3 * r->seconds, ratio);
}

/* A Markdown table of the rows of some problems at one tolerance. */
static void print_md(const struct bench *b, const char *title,
		     const char *const *names, double tol)
{
	printf("\n%s:\n\n", title);
	printf("| problem   | tol   | solver            | status         |   steps | reject | f-evals  |  jacs |   LUs |     error |  time[ms] | t/sund |\n");
	printf("|-----------|-------|-------------------|----------------|---------|--------|----------|-------|-------|-----------|-----------|--------|\n");
	for (size_t i = 0; i < b->nrows; i++) {
		const struct row *w = &b->rows[i];

		if (fabs(w->tol / tol - 1) > 1e-6)
			continue;
		for (const char *const *n = names; *n; n++)
			if (!strcmp(w->p->name, *n))
				print_row(b, w, 1);
	}
}

static const struct row *find_row(const struct bench *b,
				  const struct row *w, const char *name)
{
	for (size_t i = 0; i < b->nrows; i++) {
		const struct row *o = &b->rows[i];

		if (o->p == w->p && o->tol == w->tol && !strcmp(o->s->name, name))
			return o;
	}
	return NULL;
}

/*
 * Fixed steps: ROSENBROCK_W at a step that makes its error at most
 * CONSTANT_BDF's against CONSTANT_BDF, time per step and in all.
 */
static void print_fixed_compare(const struct bench *b)
{
	printf("\nFixed steps at equal accuracy, rosenbrock_w (error at most "
	       "constant_bdf's; fixed: a\nJacobian and an LU every step, "
	       "fixJ20: every 20 steps) against constant_bdf:\n");
	printf("%-9s %-5s %-16s | %-9s %7s %9s %8s | %-9s %7s %9s %8s | %6s %6s\n",
	       "problem", "tol", "rosw", "bdf h", "steps", "error", "us/step",
	       "rosw h", "steps", "error", "us/step", "step/", "time/");
	for (size_t i = 0; i < b->nrows; i++) {
		const struct row *w = &b->rows[i], *c;
		double us_w, us_c;

		if (!is_rosw_fixed(w->s))
			continue;
		c = find_row(b, w, "rths constant_bdf");
		printf("%-9s %.0e %-16s | ", w->p->name, w->tol,
		       w->s->name + 5);
		if (!c || !c->r.ok) {
			printf("constant_bdf: %s\n",
			       c ? c->r.status : "not run");
			continue;
		}
		if (!w->r.ok || w->r.err > c->r.err) {
			printf("rosw: %s\n", w->r.ok ? "not as accurate" :
			       w->r.status);
			continue;
		}
		us_w = 1e6 * w->r.seconds / w->r.steps;
		us_c = 1e6 * c->r.seconds / c->r.steps;
		printf("%-9.3g %7lu %9.2e %8.2f | %-9.3g %7lu %9.2e %8.2f | %6.2f %6.2f\n",
		       c->h, c->r.steps, c->r.err, us_c,
		       w->h, w->r.steps, w->r.err, us_w, us_w / us_c,
		       w->r.seconds / c->r.seconds);
	}
	printf("step/: rosw's time per step over constant_bdf's; time/: the "
	       "same for the whole run.\n");
}

/*
 * The time a solver takes for an error e on a problem: log-log
 * interpolation between its runs whose errors bracket e, NAN outside.
 */
static double time_at_error(const struct bench *b,
			    const struct bench_problem *p, const char *name,
			    double e)
{
	double lo_e = 0, lo_t = 0, hi_e = INFINITY, hi_t = 0;

	for (size_t i = 0; i < b->nrows; i++) {
		const struct row *o = &b->rows[i];

		if (o->p != p || strcmp(o->s->name, name) || !o->r.ok ||
		    !(o->r.err > 0))
			continue;
		if (o->r.err <= e && o->r.err > lo_e) {
			lo_e = o->r.err;
			lo_t = o->r.seconds;
		}
		if (o->r.err >= e && o->r.err < hi_e) {
			hi_e = o->r.err;
			hi_t = o->r.seconds;
		}
	}
	if (!(lo_e > 0) || !isfinite(hi_e))
		return NAN;
	if (hi_e == lo_e)
		return fmin(lo_t, hi_t);
	return exp(log(lo_t) + (log(e) - log(lo_e)) /
		   (log(hi_e) - log(lo_e)) * (log(hi_t) - log(lo_t)));
}

/* Adaptive ROSENBROCK_W against the stiff codes at its own errors. */
static void print_equal_error(const struct bench *b)
{
	static const char *const others[] = {
		"rths gstiff", "cvode bdf", "gsl msbdf",
	};

	printf("\nWork-precision, adaptive rosenbrock_w: its time over the "
	       "others' at its error\n(log-log interpolation between their "
	       "runs; - where its error is outside their range):\n");
	printf("%-9s %-5s %9s %9s %8s", "problem", "tol", "error", "time[ms]",
	       "f-evals");
	for (size_t k = 0; k < 3; k++)
		printf(" %11s", others[k]);
	printf("\n");
	for (size_t i = 0; i < b->nrows; i++) {
		const struct row *w = &b->rows[i];

		if (strcmp(w->s->name, "rths rosenbrock_w"))
			continue;
		printf("%-9s %.0e ", w->p->name, w->tol);
		if (!w->r.ok) {
			printf("%s\n", w->r.status);
			continue;
		}
		printf("%9.2e %9.3f %8lu", w->r.err, 1e3 * w->r.seconds,
		       w->r.f_evals);
		for (size_t k = 0; k < 3; k++) {
			double tt = time_at_error(b, w->p, others[k], w->r.err);

			if (isfinite(tt))
				printf(" %11.2f", w->r.seconds / tt);
			else
				printf(" %11s", "-");
		}
		printf("\n");
	}
}

static void print_tables(const struct bench *b)
{
	static const char *const stiff[] = { "chain", "robertson", NULL };
	static const char *const pend[] = { "pendulum", NULL };
	const struct bench_problem *last = NULL;
	const struct bench_solver *lasts = NULL;

	printf("\n%-9s %-5s %-17s %-14s %8s %6s %9s %6s %6s %9s %10s %7s\n",
	       "problem", "tol", "solver", "status", "steps", "reject",
	       "f-evals", "jacs", "LUs", "error", "time[ms]", "t/sund");
	for (size_t i = 0; i < b->nrows; i++) {
		if (i && b->rows[i].tol != b->rows[i - 1].tol)
			printf("\n");
		print_row(b, &b->rows[i], 0);
	}
	printf("\nreject: attempts rejected by the error test or by the corrector "
	       "(GSL does not count the latter).\n"
	       "t/sund: wall time relative to CVODE BDF (IDA for the DAE) "
	       "in this run.\n");
	printf("\nThe fixed steps h at each tolerance: constant_bdf from the span "
	       "over GSTIFF's steps,\nhalved while \"h too large\", at most %d "
	       "times; rosw fixed from 4 times constant_bdf's,\nhalved while "
	       "too large or less accurate than constant_bdf, at most %d "
	       "times:\n", FIXED_STEP_HALVINGS, ROSW_STEP_HALVINGS);
	for (size_t i = 0; i < b->nrows; i++) {
		const struct row *w = &b->rows[i];

		if (w->h <= 0)
			continue;
		if (!last || last != w->p || lasts != w->s)
			printf("%s  %-9s %-17s", last ? "\n" : "", w->p->name,
			       w->s->name);
		last = w->p;
		lasts = w->s;
		printf("  %.0e %-9.3g %-9s", w->tol, w->h,
		       w->r.ok ? "ok" : "too large");
	}
	printf("\n\"h too large\": the local error estimate at the fixed step "
	       "exceeded 10 tolerances (-RTHS_E_FIXEDSTEP):\nthe step cannot "
	       "follow the solution there (Van der Pol's fast phases), even at "
	       "1/64 of an adaptive\ncode's average step; expected of a "
	       "fixed-step method, see Documentation/ode.rst.\n");
	print_fixed_compare(b);
	print_equal_error(b);

	print_md(b, "Stiff 2-DOF chain and Robertson at rtol 1e-6", stiff, 1e-6);
	print_md(b, "Pendulum (SI2 DAE) at rtol 1e-6", pend, 1e-6);
	print_md(b, "Pendulum (SI2 DAE) at rtol 1e-3", pend, 1e-3);
}

static FILE *open_out(const struct bench *b, const char *name, char *path,
		      size_t len)
{
	snprintf(path, len, "%s/%s", b->outdir, name);
	return fopen(path, "w");
}

static void write_csv(const struct bench *b)
{
	char path[512];
	FILE *f = open_out(b, "results.csv", path, sizeof(path));

	if (!f) {
		perror(path);
		return;
	}
	fprintf(f, "problem,tol,solver,status,steps,rejected,f_evals,jac_evals,lu,error,seconds,h_fixed\n");
	for (size_t i = 0; i < b->nrows; i++) {
		const struct row *w = &b->rows[i];

		fprintf(f, "%s,%g,%s,%s,%lu,%lu,%lu,%lu,%lu,%.6e,%.6e,%g\n",
			w->p->name, w->tol, w->s->name, w->r.status, w->r.steps,
			w->r.rejected, w->r.f_evals, w->r.jac_evals, w->r.lu,
			w->r.err, w->r.seconds, w->h);
	}
	fclose(f);
	printf("wrote %s\n", path);
}

/* One data file per problem, one gnuplot index block per solver. */
static void write_plot(const struct bench *b)
{
	char path[512], name[64];
	FILE *gp = open_out(b, "work-precision.gp", path, sizeof(path));
	int panel = 0;

	if (!gp) {
		perror(path);
		return;
	}
	fprintf(gp, "set terminal pngcairo size 1800,1100 font ',10'\n"
		    "set output '%s/work-precision.png'\n"
		    "set multiplot layout 2,3 title 'rths integrators vs SUNDIALS and GSL: wall time against error at the end'\n"
		    "set logscale xy\nset format x '10^{%%L}'\nset grid\n"
		    "set xlabel 'scaled error at t_{end}'\nset ylabel 'time [ms]'\n"
		    "set key left bottom font ',8'\n", b->outdir);
	for (int i = 0; i < BENCH_NPROBLEMS; i++) {
		const struct bench_problem *p = &b->set.p[i];
		int block = 0, first = 1;
		FILE *f;

		snprintf(name, sizeof(name), "wp-%s.dat", p->name);
		f = open_out(b, name, path, sizeof(path));
		if (!f)
			continue;
		fprintf(gp, "set title '%s'\nplot ", p->name);
		for (size_t j = 0; j < b->nsolvers; j++) {
			const struct bench_solver *s = b->solvers[j];
			int points = 0;

			fprintf(f, "# %s\n# error time_ms f_evals steps tol\n", s->name);
			for (size_t k = 0; k < b->nrows; k++) {
				const struct row *w = &b->rows[k];

				if (w->p != p || w->s != s || !w->r.ok)
					continue;
				fprintf(f, "%.6e %.6e %lu %lu %g\n",
					fmax(w->r.err, 1e-16), 1e3 * w->r.seconds,
					w->r.f_evals, w->r.steps, w->tol);
				points++;
			}
			/* gnuplot does not count a block without data */
			if (!points)
				fprintf(f, "NaN NaN 0 0 0\n");
			fprintf(f, "\n\n");
			if (points) {
				int dt = !strncmp(s->name, "rths", 4) ? 1 :
					 !strncmp(s->name, "gsl", 3) ? 3 : 2;

				/* one colour and point type per solver */
				fprintf(gp, "%s'%s' index %d using 1:2 with linespoints dt %d lc %zu pt %zu lw 1.5 title '%s' noenhanced",
					first ? "" : ", \\\n     ", path, block,
					dt, j + 1, j % 13 + 1, s->name);
				first = 0;
			}
			block++;
		}
		fprintf(gp, "\n");
		fclose(f);
		panel++;
	}
	fprintf(gp, "unset multiplot\n");
	fclose(gp);
	snprintf(name, sizeof(name), "work-precision.gp");
	snprintf(path, sizeof(path), "gnuplot '%s/%s'", b->outdir, name);
	if (panel && system(path) == 0)
		printf("wrote %s/work-precision.png\n", b->outdir);
	else
		fprintf(stderr, "gnuplot failed: %s\n", path);
}

int main(int argc, char **argv)
{
	static struct bench b;
	const char *only = NULL;
	double only_tol = 0;
	int opt;

	b.outdir = ".";
	while ((opt = getopt(argc, argv, "o:p:t:")) != -1) {
		switch (opt) {
		case 'o':
			b.outdir = optarg;
			break;
		case 'p':
			only = optarg;
			break;
		case 't':
			only_tol = atof(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-o DIR] [-p PROBLEM] [-t TOL]\n",
				argv[0]);
			return 2;
		}
	}
	gsl_set_error_handler_off();
	for (size_t i = 0; i < bench_rths_count; i++)
		b.solvers[b.nsolvers++] = &bench_rths_solvers[i];
	for (size_t i = 0; i < bench_sundials_count; i++)
		b.solvers[b.nsolvers++] = &bench_sundials_solvers[i];
	for (size_t i = 0; i < bench_gsl_count; i++)
		b.solvers[b.nsolvers++] = &bench_gsl_solvers[i];
	if (bench_problems_init(&b.set)) {
		fprintf(stderr, "problem setup failed\n");
		return 1;
	}
	if (references(&b))
		return 1;
	run_all(&b, only, only_tol);
	print_tables(&b);
	write_csv(&b);
	if (only_tol == 0)	/* a single tolerance makes no curve */
		write_plot(&b);
	bench_problems_free(&b.set);
	return 0;
}
