// SPDX-License-Identifier: GPL-2.0
/*
 * Experimental setups: the patent's multi-actuator decoupling, its
 * inverses (strokes -> point, forces -> force) and force mapping.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <math.h>
#include <stdlib.h>

#include "kselftest_harness.h"

#include <rths/hs.h>
#include <rths/hs_setup.h>

/* Three actuators on a column top (patent Fig.): two horizontal, one
 * vertical, ends 2 m, 2 m and 2.5 m away from the loading point. */
static const double patent_ends[3][3] = {
	{ -2.0, 0.0, 0.0 }, { 0.0, -2.0, 0.0 }, { 0.0, 0.0, 2.5 },
};

/* Deterministic points in a +-50 mm box. */
static void point(unsigned int i, size_t dim, double *x)
{
	for (size_t k = 0; k < dim; k++)
		x[k] = 0.05 * sin(1.7 * i + 2.3 * k + 0.4 * i * k);
}

static void round_trip(struct __test_metadata *_metadata,
		       const struct rths_hs_setup *s)
{
	double worst = 0;

	for (unsigned int i = 0; i < 200; i++) {
		double x[3], y[3], dl[RTHS_HS_MAX_CHANNELS];

		point(i, s->dim, x);
		ASSERT_EQ(0, rths_hs_setup_strokes(s, x, dl, NULL));
		ASSERT_EQ(0, rths_hs_setup_position(s, dl, NULL, y, NULL));
		for (size_t k = 0; k < s->dim; k++)
			worst = fmax(worst, fabs(x[k] - y[k]));
	}
	TH_LOG("%zu actuators in %zuD: worst round trip %.3g m", s->n_act,
	       s->dim, worst);
	EXPECT_LT(worst, 1e-11);
}

TEST(patent_strokes_are_distances_minus_lengths)
{
	struct rths_hs_setup s;
	double x[3] = { 0.01, -0.02, 0.005 }, dl[3];

	ASSERT_EQ(0, rths_hs_setup_actuators(&s, 3, 3, patent_ends, NULL,
					     NULL, NULL));
	EXPECT_EQ(2.0, s.length[0]);
	EXPECT_EQ(2.5, s.length[2]);
	ASSERT_EQ(0, rths_hs_setup_strokes(&s, x, dl, NULL));
	/* dl_i = |A_i X| - l_i */
	EXPECT_LT(fabs(dl[0] - (sqrt(2.01 * 2.01 + 0.02 * 0.02 +
				      0.005 * 0.005) - 2.0)), 1e-15);
	EXPECT_LT(fabs(dl[2] - (sqrt(0.01 * 0.01 + 0.02 * 0.02 +
				      2.495 * 2.495) - 2.5)), 1e-15);
}

TEST(round_trip_three_actuators_3d)
{
	struct rths_hs_setup s;
	double lengths[3] = { 2.0, 2.0, 2.5 };

	ASSERT_EQ(0, rths_hs_setup_actuators(&s, 3, 3, patent_ends, lengths,
					     NULL, NULL));
	round_trip(_metadata, &s);
}

TEST(round_trip_redundant_four_actuators)
{
	static const double ends[4][3] = {
		{ -2, 0, 0 }, { 0, -2, 0 }, { 0, 0, 2.5 }, { 1.5, 1.5, 0 },
	};
	double origin[3] = { 0.3, -0.1, 1.2 }, ends2[4][3];
	struct rths_hs_setup s;

	/* Shift the frame: only relative positions matter. */
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 3; k++)
			ends2[i][k] = ends[i][k] + origin[k];
	ASSERT_EQ(0, rths_hs_setup_actuators(&s, 3, 4, ends2, NULL, origin,
					     NULL));
	round_trip(_metadata, &s);
}

TEST(round_trip_two_actuators_planar)
{
	static const double ends[2][3] = { { -1.5, 0, 0 }, { 0, -1.8, 0 } };
	struct rths_hs_setup s;

	ASSERT_EQ(0, rths_hs_setup_actuators(&s, 2, 2, ends, NULL, NULL,
					     NULL));
	round_trip(_metadata, &s);
}

/*
 * The force map is the transpose of the kinematics: for a small motion
 * dx the actuators' work sum f_i d(dl_i) equals F . dx.
 */
TEST(force_inverse_and_virtual_work)
{
	struct rths_hs_setup s;
	double x[3] = { 0.02, 0.01, -0.015 }, F[3] = { 1200, -800, 5000 };
	double f[3], G[3], dl0[3], dl1[3], dx[3] = { 1e-7, -2e-7, 1.5e-7 };
	double x1[3], w_act = 0, w_pt = 0;

	ASSERT_EQ(0, rths_hs_setup_actuators(&s, 3, 3, patent_ends, NULL,
					     NULL, NULL));
	ASSERT_EQ(0, rths_hs_setup_actuator_forces(&s, x, F, f, NULL));
	ASSERT_EQ(0, rths_hs_setup_force(&s, x, f, G, NULL));
	for (int k = 0; k < 3; k++)
		EXPECT_LT(fabs(G[k] - F[k]), 1e-9 * 5000);
	for (int k = 0; k < 3; k++)
		x1[k] = x[k] + dx[k];
	rths_hs_setup_strokes(&s, x, dl0, NULL);
	rths_hs_setup_strokes(&s, x1, dl1, NULL);
	for (int i = 0; i < 3; i++) {
		w_act += f[i] * (dl1[i] - dl0[i]);
		w_pt += F[i] * dx[i];
	}
	EXPECT_LT(fabs(w_act - w_pt), 1e-6 * fabs(w_pt));
}

TEST(bad_geometry_is_named)
{
	static const double line[3][3] = {
		{ -2, 0, 0 }, { 2, 0, 0 }, { -3, 0, 0 },
	};
	static const double at_point[2][3] = { { 0, 0, 0 }, { 0, -1, 0 } };
	double wrong[3] = { 2.0, 2.1, 2.5 };
	struct rths_hs_setup s;
	struct rths_error err;

	EXPECT_EQ(-RTHS_E_BAD_GEOMETRY,
		  rths_hs_setup_actuators(&s, 3, 3, line, NULL, NULL, &err));
	EXPECT_EQ(-RTHS_E_BAD_GEOMETRY,
		  rths_hs_setup_actuators(&s, 3, 3, patent_ends, wrong, NULL,
					  &err));
	EXPECT_EQ(-RTHS_E_BAD_GEOMETRY,
		  rths_hs_setup_actuators(&s, 2, 2, at_point, NULL, NULL,
					  &err));
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE,
		  rths_hs_setup_actuators(&s, 3, 2, patent_ends, NULL, NULL,
					  &err));
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE, rths_hs_setup_direct(&s, 17, &err));
}

TEST(direct_setup_is_identity)
{
	struct rths_hs_setup s;
	double x[2] = { 0.01, -0.02 }, dl[2], y[2], f[2] = { 3, 4 }, F[2];

	ASSERT_EQ(0, rths_hs_setup_direct(&s, 2, NULL));
	rths_hs_setup_strokes(&s, x, dl, NULL);
	rths_hs_setup_position(&s, dl, NULL, y, NULL);
	rths_hs_setup_force(&s, y, f, F, NULL);
	EXPECT_EQ(x[0], dl[0]);
	EXPECT_EQ(x[1], y[1]);
	EXPECT_EQ(4, F[1]);
}

/* Every channel direct (16: a test with 16 sites): forces pass through
 * both ways, which overflowed a 16 x 3 direction buffer before. */
TEST(direct_setup_sixteen_channels)
{
	struct rths_hs_setup s;
	double x[16] = { 0 }, f[16], F[16], g[16];

	for (int i = 0; i < 16; i++)
		f[i] = i - 7.5;
	ASSERT_EQ(0, rths_hs_setup_direct(&s, 16, NULL));
	ASSERT_EQ(0, rths_hs_setup_force(&s, x, f, F, NULL));
	ASSERT_EQ(0, rths_hs_setup_actuator_forces(&s, x, F, g, NULL));
	for (int i = 0; i < 16; i++) {
		EXPECT_EQ(f[i], F[i]);
		EXPECT_EQ(f[i], g[i]);
	}
}

/* Patent: a column loaded at its top sends base moment = F L and base
 * shear = -F to the numerical DOFs (rotation, translation) at its base. */
TEST(patent_column_force_mapping)
{
	struct rths_hs_substructure sub;
	double L = 1.6, F = 2500, r[2];

	ASSERT_EQ(0, rths_hs_substructure_init(&sub, 2, 1, NULL));
	sub.force_map[0] = L;	/* DOF 0: base rotation */
	sub.force_map[1] = -1;	/* DOF 1: base translation */
	rths_hs_substructure_feedback(&sub, &F, r);
	EXPECT_EQ(F * L, r[0]);
	EXPECT_EQ(-F, r[1]);
	rths_hs_substructure_free(&sub);
}

TEST_HARNESS_MAIN
