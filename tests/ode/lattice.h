/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Large sparse test problems shared by the ODE unit tests and "make
 * bench-ode": a lattice of nx x ny equal masses, each tied to its four
 * neighbours by springs and stiffness-proportional dampers (Rayleigh
 * beta), the left column tied to the ground, all shaken by a ground
 * acceleration ag(t) = amp sin(omega t).  ny = 1 is a chain of nx masses
 * fixed at one end; ny > 1 a 2-D grid (a membrane).
 *
 * State, interleaved per mass p = iy * nx + ix: y[2p] its displacement
 * relative to the ground, y[2p + 1] its velocity.  The Jacobian has at
 * most 12 entries per mass (its pattern stores the zero diagonal entries
 * of the x rows too), and its bandwidth is 2 nx + 1.
 * With the default parameters the chain is stiff: the highest modes are
 * overdamped with eigenvalues near -beta 4 k/m (-2000/s for 4 neighbours
 * -4000/s), the lowest oscillate at pi/(2 nx) sqrt(k/m).
 */
#ifndef RTHS_TESTS_ODE_LATTICE_H
#define RTHS_TESTS_ODE_LATTICE_H

#include <stddef.h>

#include <rths/ode.h>

struct ode_lattice {
	size_t nx, ny;
	double k_over_m;	/* 1/s^2 */
	double beta;		/* s: damper = beta * spring */
	double ag_amp;		/* m/s^2 */
	double ag_omega;	/* rad/s */
};

/* nx x ny with the default parameters above (k/m = 1e4, beta = 0.05,
 * ag = 1 m/s^2 at 1 Hz). */
struct ode_lattice ode_lattice_default(size_t nx, size_t ny);

static inline size_t ode_lattice_dim(const struct ode_lattice *l)
{
	return 2 * l->nx * l->ny;
}

/* Upper (= lower) bandwidth of the Jacobian. */
static inline size_t ode_lattice_band(const struct ode_lattice *l)
{
	return l->ny > 1 ? 2 * l->nx + 1 : 3;
}

/* params: a struct ode_lattice */
int ode_lattice_rhs(double t, const double *y, double *dydt, void *params);
int ode_lattice_jac(double t, const double *y, struct rths_mat *J,
		    void *params);
int ode_lattice_sparse_jac(double t, const double *y, struct rths_csc *J,
			   void *params);

/*
 * The Jacobian's pattern: *colptr (dim + 1) and *rowind (nnz), malloc'ed,
 * rows ascending.  Returns nnz, 0 when out of memory.
 */
size_t ode_lattice_pattern(const struct ode_lattice *l, size_t **colptr,
			   size_t **rowind);

/* The system (rhs and dense jac) with l as params. */
struct rths_ode_system ode_lattice_system(struct ode_lattice *l);

/*
 * Integrate from rest at t = 0 to tend with method m: linear < 0 with the
 * dense Jacobian (dense LU), else with the sparse one and that enum
 * rths_ode_linear_solver.  h_fixed is CONSTANT_BDF's step (it runs with
 * fixed_err_max = INFINITY).  y (dim) gets the end state, st (may be
 * NULL) the counters; returns the solver's status.
 */
int ode_lattice_solve(struct ode_lattice *l, enum rths_ode_method m,
		      int linear, double rtol, double atol, double tend,
		      double h_fixed, double *y, struct rths_ode_stats *st);

#endif /* RTHS_TESTS_ODE_LATTICE_H */
