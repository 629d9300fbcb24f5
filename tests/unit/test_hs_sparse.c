// SPDX-License-Identifier: GPL-2.0
/*
 * The stepper's sparse path (lib/hs/stepper_sparse.c): every method on a
 * large sparse model (shear buildings of 300 stories with a consistent,
 * non-diagonal mass matrix, Rayleigh damping, a specimen estimate and a
 * yielding element) gives the dense path's response step by step; dense
 * and small models stay dense.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include <rths/hs.h>

#include "hs/integrator_impl.h"

#define N 300

/* Stories of 1000 kg and 2e6 .. 1e6 N/m, mass coupled to the floor
 * below (a banded, consistent M), Rayleigh damping, a bilinear spring
 * between the top two floors. */
static void building(struct __test_metadata *_metadata,
		     struct rths_hs_model *mo, int element)
{
	double mass[N], stiff[N];

	for (size_t i = 0; i < N; i++) {
		mass[i] = 1000;
		stiff[i] = 2e6 - 1e6 * (double)i / N;
	}
	ASSERT_EQ(0, rths_hs_model_shear_building(mo, N, mass, stiff, NULL));
	for (size_t i = 0; i + 1 < N; i++) {
		mo->m[i * N + i + 1] = 100;
		mo->m[(i + 1) * N + i] = 100;
	}
	rths_hs_model_set_rayleigh(mo, 0.3, 1e-3);
	if (element) {
		struct rths_hs_element_params ep;

		rths_hs_element_defaults(&ep, RTHS_HS_ELEMENT_BILINEAR, 5e5,
					 2e3);
		ASSERT_EQ(0, rths_hs_model_add_element(mo, N - 1, N - 2, &ep,
						       NULL));
	}
}

/* Run 300 steps of a 2 Hz ground shake; u (N x steps) gets the history. */
static void run(struct __test_metadata *_metadata, struct rths_hs_model *mo,
		enum rths_hs_method m, size_t min_dofs, int with_est,
		double *hist, int *sparse)
{
	struct rths_hs_specimen_estimate est = { 0 };
	double *kest = calloc(N * N, sizeof(double));
	double mr[N], f[N], dt = 1.0 / 256;
	struct rths_hs_stepper_params p;
	struct rths_hs_stepper *st;
	struct rths_error err;
	char buf[256];

	ASSERT_NE(NULL, kest);
	/* the specimen's stiffness estimate on the ground story */
	kest[0] = 1e5;
	est.k = kest;
	rths_hs_sparse_min_dofs = min_dofs;
	rths_hs_stepper_defaults(&p, m, dt);
	ASSERT_EQ(0, rths_hs_stepper_new(&st, mo, with_est ? &est : NULL, &p,
					 &err))
		TH_LOG("%s", rths_error_str(&err, buf, sizeof(buf)));
	*sparse = st->sp != NULL;
	ASSERT_EQ(0, rths_hs_stepper_start(st, NULL, NULL, NULL, NULL, NULL));
	rths_hs_model_ground_force(mo, -1.0, mr);
	for (int k = 0; k < 300; k++) {
		double ag = 3 * sin(2 * M_PI * 2 * (k + 1) * dt);
		const double *u;
		/* a measured force that tracks the command (stiffer) */
		double rx[N] = { 0 };

		for (size_t i = 0; i < N; i++)
			f[i] = -ag * mr[i];
		ASSERT_EQ(0, rths_hs_stepper_command(st, f, &u, NULL));
		if (with_est)
			rx[0] = 1.2e5 * u[0];
		ASSERT_EQ(0, rths_hs_stepper_accept(st, with_est ? rx : NULL,
						    NULL));
		for (size_t i = 0; i < N; i++)
			hist[(size_t)k * N + i] = rths_hs_stepper_u(st)[i];
	}
	rths_hs_stepper_free(st);
	free(kest);
	rths_hs_sparse_min_dofs = RTHS_HS_SPARSE_MIN_DOFS;
}

static void compare(struct __test_metadata *_metadata,
		    enum rths_hs_method m, int element, int with_est)
{
	double *hs = malloc(300 * N * sizeof(double));
	double *hd = malloc(300 * N * sizeof(double));
	struct rths_hs_model mo;
	double d = 0, peak = 0;
	int sparse, dense;

	ASSERT_TRUE(hs && hd);
	building(_metadata, &mo, element);
	run(_metadata, &mo, m, RTHS_HS_SPARSE_MIN_DOFS, with_est, hs, &sparse);
	rths_hs_model_free(&mo);
	building(_metadata, &mo, element);
	run(_metadata, &mo, m, SIZE_MAX, with_est, hd, &dense);
	rths_hs_model_free(&mo);
	EXPECT_TRUE(sparse);
	EXPECT_FALSE(dense);
	for (size_t i = 0; i < 300 * N; i++) {
		d = fmax(d, fabs(hs[i] - hd[i]));
		peak = fmax(peak, fabs(hd[i]));
	}
	EXPECT_GT(peak, 1e-4);
	EXPECT_TRUE(d <= 1e-9 * peak)
		TH_LOG("%s element %d est %d: %g of %g",
		       rths_hs_method_name(m), element, with_est, d, peak);
	free(hs);
	free(hd);
}

TEST(cr_sparse_matches_dense)
{
	compare(_metadata, RTHS_HS_CR, 0, 0);
	compare(_metadata, RTHS_HS_CR, 1, 1);
}

TEST(kr_alpha_sparse_matches_dense)
{
	compare(_metadata, RTHS_HS_KR_ALPHA, 0, 0);
	compare(_metadata, RTHS_HS_KR_ALPHA, 1, 1);
}

TEST(alpha_os_sparse_matches_dense)
{
	compare(_metadata, RTHS_HS_ALPHA_OS, 0, 0);
	compare(_metadata, RTHS_HS_ALPHA_OS, 1, 1);
}

/* The offline reference takes no measured force: no specimen estimate. */
TEST(newmark_implicit_sparse_matches_dense)
{
	compare(_metadata, RTHS_HS_NEWMARK_IMPLICIT, 0, 0);
	compare(_metadata, RTHS_HS_NEWMARK_IMPLICIT, 1, 0);
}

TEST(generalized_alpha_and_hht_sparse_match_dense)
{
	compare(_metadata, RTHS_HS_GENERALIZED_ALPHA, 0, 0);
	compare(_metadata, RTHS_HS_GENERALIZED_ALPHA, 1, 0);
	compare(_metadata, RTHS_HS_HHT_ALPHA, 1, 0);
}

/* dt omega_max is about 0.35 here, inside both explicit limits. */
TEST(newmark_explicit_sparse_matches_dense)
{
	compare(_metadata, RTHS_HS_NEWMARK_EXPLICIT, 0, 0);
	compare(_metadata, RTHS_HS_NEWMARK_EXPLICIT, 1, 1);
}

TEST(central_difference_sparse_matches_dense)
{
	compare(_metadata, RTHS_HS_CENTRAL_DIFFERENCE, 0, 0);
	compare(_metadata, RTHS_HS_CENTRAL_DIFFERENCE, 1, 1);
}

/* Dense matrices and small models stay dense, whatever the method. */
TEST(stays_dense)
{
	struct rths_hs_stepper_params p;
	struct rths_hs_stepper *st;
	struct rths_hs_model mo;

	building(_metadata, &mo, 0);
	rths_hs_stepper_defaults(&p, RTHS_HS_ALPHA_OS, 1.0 / 256);
	ASSERT_EQ(0, rths_hs_stepper_new(&st, &mo, NULL, &p, NULL));
	EXPECT_NE(NULL, st->sp);
	rths_hs_stepper_free(st);
	rths_hs_stepper_defaults(&p, RTHS_HS_CR, 1.0 / 256);
	ASSERT_EQ(0, rths_hs_stepper_new(&st, &mo, NULL, &p, NULL));
	EXPECT_NE(NULL, st->sp);
	rths_hs_stepper_free(st);
	/* a full damping matrix */
	for (size_t i = 0; i < N * N; i++)
		mo.c[i] += 1e-3;
	ASSERT_EQ(0, rths_hs_stepper_new(&st, &mo, NULL, &p, NULL));
	EXPECT_EQ(NULL, st->sp);
	rths_hs_stepper_free(st);
	rths_hs_model_free(&mo);

	ASSERT_EQ(0, rths_hs_model_shear_building(&mo, 3,
		  (double[]){ 1, 1, 1 }, (double[]){ 1e3, 1e3, 1e3 }, NULL));
	ASSERT_EQ(0, rths_hs_stepper_new(&st, &mo, NULL, &p, NULL));
	EXPECT_EQ(NULL, st->sp);
	rths_hs_stepper_free(st);
	rths_hs_model_free(&mo);
}

/* A singular mass matrix is named, on the sparse path too. */
TEST(singular_mass)
{
	struct rths_hs_stepper_params p;
	struct rths_hs_stepper *st;
	struct rths_hs_model mo;
	struct rths_error err;
	char buf[256];

	building(_metadata, &mo, 0);
	mo.m[5 * N + 5] = 0;
	mo.m[5 * N + 4] = mo.m[4 * N + 5] = 0;
	mo.m[5 * N + 6] = mo.m[6 * N + 5] = 0;
	rths_hs_stepper_defaults(&p, RTHS_HS_KR_ALPHA, 1.0 / 256);
	EXPECT_EQ(-RTHS_E_SINGULAR, rths_hs_stepper_new(&st, &mo, NULL, &p,
							&err));
	rths_error_str(&err, buf, sizeof(buf));
	EXPECT_NE(NULL, strstr(buf, "mass matrix")) TH_LOG("%s", buf);
	rths_hs_model_free(&mo);
}

TEST_HARNESS_MAIN
