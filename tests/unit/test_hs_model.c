// SPDX-License-Identifier: GPL-2.0
/* Structural models: assembly, modes, damping models, hysteresis. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <math.h>
#include <stdlib.h>

#include "kselftest_harness.h"

#include <rths/hs.h>

#define AT(A, n, i, j) ((A)[(j) * (n) + (i)])

/* Two-story shear building: omega^2 are the roots of a quadratic. */
TEST(shear_building_frequencies)
{
	double m[2] = { 1200, 900 }, k[2] = { 2.0e6, 1.5e6 }, w[2], phi[4];
	struct rths_hs_model mo;
	double tr, det, l1, l2;

	ASSERT_EQ(0, rths_hs_model_shear_building(&mo, 2, m, k, NULL));
	EXPECT_EQ(k[0] + k[1], AT(mo.k, 2, 0, 0));
	EXPECT_EQ(-k[1], AT(mo.k, 2, 0, 1));
	EXPECT_EQ(0, rths_hs_model_check(&mo, NULL));
	ASSERT_EQ(0, rths_hs_model_frequencies(&mo, NULL, w, phi, NULL));
	/* det(K - l M) = 0 */
	tr = (k[0] + k[1]) / m[0] + k[1] / m[1];
	det = k[0] * k[1] / (m[0] * m[1]);
	l1 = (tr - sqrt(tr * tr - 4 * det)) / 2;
	l2 = (tr + sqrt(tr * tr - 4 * det)) / 2;
	EXPECT_LT(fabs(w[0] - sqrt(l1)), 1e-9 * sqrt(l1));
	EXPECT_LT(fabs(w[1] - sqrt(l2)), 1e-9 * sqrt(l2));
	/* M-orthonormal modes. */
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++) {
			double s = 0;

			for (int i = 0; i < 2; i++)
				s += phi[a * 2 + i] * m[i] * phi[b * 2 + i];
			EXPECT_LT(fabs(s - (a == b)), 1e-12);
		}
	rths_hs_model_free(&mo);
}

/* zeta_i = phi_i^T C phi_i / (2 w_i) for M-orthonormal phi_i. */
static double modal_ratio(const struct rths_hs_model *mo, const double *phi,
			  const double *w, size_t a, size_t b)
{
	size_t n = mo->n;
	double s = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			s += phi[a * n + i] * AT(mo->c, n, i, j) * phi[b * n + j];
	return s / (2 * w[a]);
}

TEST(rayleigh_damping_hits_both_modes)
{
	double m[3] = { 1000, 1000, 1000 }, k[3] = { 3e6, 2.5e6, 2e6 };
	double w[3], phi[9], a0, a1;
	struct rths_hs_model mo;

	ASSERT_EQ(0, rths_hs_model_shear_building(&mo, 3, m, k, NULL));
	ASSERT_EQ(0, rths_hs_model_frequencies(&mo, NULL, w, phi, NULL));
	rths_hs_rayleigh_coefficients(w[0], w[2], 0.05, 0.03, &a0, &a1);
	rths_hs_model_set_rayleigh(&mo, a0, a1);
	EXPECT_LT(fabs(modal_ratio(&mo, phi, w, 0, 0) - 0.05), 1e-12);
	EXPECT_LT(fabs(modal_ratio(&mo, phi, w, 2, 2) - 0.03), 1e-12);
	/* Between the anchors Rayleigh damping dips below both. */
	EXPECT_LT(modal_ratio(&mo, phi, w, 1, 1), 0.05);
	/* Classical damping: no modal coupling. */
	EXPECT_LT(fabs(modal_ratio(&mo, phi, w, 0, 1)), 1e-12);
	EXPECT_EQ(0, rths_hs_model_check(&mo, NULL));
	rths_hs_model_free(&mo);
}

TEST(modal_damping_is_diagonal_in_modes)
{
	double m[3] = { 2000, 1500, 1000 }, k[3] = { 4e6, 3e6, 2e6 };
	double zeta[2] = { 0.02, 0.04 }, w[3], phi[9];
	struct rths_hs_model mo;

	ASSERT_EQ(0, rths_hs_model_shear_building(&mo, 3, m, k, NULL));
	ASSERT_EQ(0, rths_hs_model_set_modal_damping(&mo, zeta, 2, NULL,
						     NULL));
	ASSERT_EQ(0, rths_hs_model_frequencies(&mo, NULL, w, phi, NULL));
	for (size_t a = 0; a < 3; a++)
		for (size_t b = 0; b < 3; b++) {
			double want = a != b ? 0 : zeta[a < 2 ? a : 1];

			EXPECT_LT(fabs(modal_ratio(&mo, phi, w, a, b) - want),
				  1e-10);
		}
	rths_hs_model_free(&mo);
}

TEST(check_rejects_bad_matrices)
{
	struct rths_hs_model mo;
	struct rths_error err;

	ASSERT_EQ(0, rths_hs_model_init(&mo, 2, NULL));
	AT(mo.m, 2, 0, 0) = 1;
	AT(mo.m, 2, 1, 1) = 1;
	AT(mo.k, 2, 0, 1) = 5;
	EXPECT_EQ(-RTHS_E_NOT_SYMMETRIC, rths_hs_model_check(&mo, &err));
	EXPECT_STREQ("stiffness", err.path);
	AT(mo.k, 2, 1, 0) = 5;
	EXPECT_EQ(0, rths_hs_model_check(&mo, NULL));
	AT(mo.m, 2, 1, 1) = -1;
	EXPECT_EQ(-RTHS_E_NOT_POSITIVE_DEFINITE,
		  rths_hs_model_check(&mo, &err));
	EXPECT_STREQ("mass", err.path);
	EXPECT_EQ(-RTHS_E_BAD_DOF,
		  rths_hs_model_add_element(&mo, 2, -1, &(struct rths_hs_element_params){
			.kind = RTHS_HS_ELEMENT_LINEAR, .k = 1 }, &err));
	rths_hs_model_free(&mo);
}

/* Loop area of a symmetric cycle, by the trapezoid rule. */
static double cycle_energy(struct rths_hs_element *e, double dmax,
			   int cycles, double *peak)
{
	int per = 4000;
	double w = 0, d0 = 0, f0 = 0;

	*peak = 0;
	for (int i = 1; i <= cycles * per; i++) {
		double d = dmax * sin(2 * M_PI * i / per);
		double f = rths_hs_element_trial(e, d);

		rths_hs_element_commit(e);
		if (i > (cycles - 1) * per)	/* the last, settled cycle */
			w += 0.5 * (f + f0) * (d - d0);
		*peak = fmax(*peak, fabs(f));
		d0 = d;
		f0 = f;
	}
	return w;
}

/* Kinematic hardening loop: a parallelogram of area 4 (1-a) fy (d - uy). */
TEST(bilinear_loop_area)
{
	struct rths_hs_element_params p;
	struct rths_hs_element e;
	double k = 1e6, fy = 2e3, uy = fy / k, dmax = 5 * uy, fmx, w;

	rths_hs_element_defaults(&p, RTHS_HS_ELEMENT_BILINEAR, k, fy);
	p.alpha = 0.05;
	ASSERT_EQ(0, rths_hs_element_check(&p, NULL));
	rths_hs_element_init(&e, &p, 0, -1);
	w = cycle_energy(&e, dmax, 2, &fmx);
	EXPECT_LT(fabs(w - 4 * (1 - p.alpha) * fy * (dmax - uy)), 0.01 * w);
	EXPECT_LT(fabs(fmx - (p.alpha * k * dmax + (1 - p.alpha) * fy)),
		  1e-9 * fmx);
	/* Elastic below yield: no energy. */
	rths_hs_element_init(&e, &p, 0, -1);
	w = cycle_energy(&e, 0.5 * uy, 1, &fmx);
	EXPECT_LT(fabs(w), 1e-9 * fy * uy);
}

TEST(bouc_wen_saturates_and_dissipates)
{
	struct rths_hs_element_params p;
	struct rths_hs_element e;
	double k = 1e6, fy = 2e3, uy = fy / k, f, fmx, w;

	rths_hs_element_defaults(&p, RTHS_HS_ELEMENT_BOUC_WEN, k, fy);
	ASSERT_EQ(0, rths_hs_element_check(&p, NULL));
	rths_hs_element_init(&e, &p, 0, -1);
	/* Far past yield in one increment: z -> 1. */
	f = rths_hs_element_trial(&e, 20 * uy);
	EXPECT_LT(fabs(f - (p.alpha * k * 20 * uy + (1 - p.alpha) * fy)),
		  1e-3 * f);
	/* A trial does not move the committed state. */
	rths_hs_element_revert(&e);
	EXPECT_EQ(0, e.z);
	/* Initial slope k, a loop with positive area below the bilinear. */
	f = rths_hs_element_trial(&e, 1e-3 * uy);
	EXPECT_LT(fabs(f / (1e-3 * uy) - k), 1e-3 * k);
	rths_hs_element_init(&e, &p, 0, -1);
	w = cycle_energy(&e, 5 * uy, 2, &fmx);
	EXPECT_GT(w, 0);
	EXPECT_LT(w, 4 * (1 - p.alpha) * fy * (5 * uy - uy) * 1.2);
	EXPECT_LT(fmx, p.alpha * k * 5 * uy + (1 - p.alpha) * fy * 1.0001);
	p.beta = 0.1;
	p.gamma = 0.9;
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE, rths_hs_element_check(&p, NULL));
}

TEST(elements_enter_restoring_force_and_tangent)
{
	double m[2] = { 1, 1 }, k[2] = { 0, 100 }, u[2] = { 0.5, 0.2 };
	double r[2], kt[4], k0[4];
	struct rths_hs_element_params p;
	struct rths_hs_model mo;

	ASSERT_EQ(0, rths_hs_model_shear_building(&mo, 2, m, k, NULL));
	rths_hs_element_defaults(&p, RTHS_HS_ELEMENT_BILINEAR, 1000, 100);
	ASSERT_EQ(0, rths_hs_model_add_element(&mo, 0, -1, &p, NULL));
	rths_hs_model_initial_stiffness(&mo, k0);
	EXPECT_EQ(1100, k0[0]);
	rths_hs_model_restoring(&mo, u, r);
	/* The story spring yielded: f = 0.1*1000*0.5 + 0.9*100 = 140. */
	EXPECT_LT(fabs(r[0] - (140 + 100 * (0.5 - 0.2))), 1e-9);
	EXPECT_LT(fabs(r[1] - 100 * (0.2 - 0.5)), 1e-9);
	rths_hs_model_tangent(&mo, kt);
	EXPECT_LT(fabs(kt[0] - (100 + 100)), 1e-9);
	rths_hs_model_free(&mo);
}

/* Specimen replaced by its model: F k T added to K. */
TEST(substructure_maps_and_merge)
{
	double m[2] = { 1, 1 }, k[2] = { 0, 100 }, ks = 400, cs = 3;
	struct rths_hs_substructure s;
	struct rths_hs_model mo, full;
	double u[2] = { 0.3, 0.1 }, x, f = 10, rexp[2];

	ASSERT_EQ(0, rths_hs_model_shear_building(&mo, 2, m, k, NULL));
	ASSERT_EQ(0, rths_hs_substructure_init(&s, 2, 1, NULL));
	s.cmd_map[0] = 1;	/* first-story drift = u0 */
	rths_hs_substructure_force_map_transpose(&s);
	rths_hs_substructure_command(&s, u, &x);
	EXPECT_EQ(0.3, x);
	rths_hs_substructure_feedback(&s, &f, rexp);
	EXPECT_EQ(10, rexp[0]);
	EXPECT_EQ(0, rexp[1]);
	ASSERT_EQ(0, rths_hs_model_with_specimen(&full, &mo, &s, &ks, &cs,
						 NULL));
	EXPECT_EQ(500, AT(full.k, 2, 0, 0));
	EXPECT_EQ(3, AT(full.c, 2, 0, 0));
	EXPECT_EQ(-100, AT(full.k, 2, 0, 1));
	rths_hs_model_free(&full);
	rths_hs_substructure_free(&s);
	rths_hs_model_free(&mo);
}

TEST_HARNESS_MAIN
