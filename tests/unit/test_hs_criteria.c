// SPDX-License-Identifier: GPL-2.0
/* RTHS benchmark criteria J1..J3 on signals with known answers. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <math.h>

#include "kselftest_harness.h"

#include <rths/hs_criteria.h>

#define N 4096
#define DT (1.0 / 1024)

static double sig(double t)
{
	return sin(2 * M_PI * 1.3 * t) + 0.5 * sin(2 * M_PI * 3.7 * t + 0.3);
}

TEST(j1_finds_whole_and_fractional_delays)
{
	static double c[N], x[N];
	double delays[] = { 0, 7, 7.4, 23.6, -3, -2.6 };

	for (int d = 0; d < 6; d++) {
		struct rths_hs_tracking tr;

		for (int k = 0; k < N; k++) {
			c[k] = sig(k * DT);
			x[k] = sig((k - delays[d]) * DT);
		}
		rths_hs_tracking(c, x, N, 1, DT, 50, &tr);
		TH_LOG("delay %.1f samples: J1 %.3f samples, %.3f ms",
		       delays[d], tr.j1_samples, tr.j1_ms);
		EXPECT_LT(fabs(tr.j1_samples - delays[d]), 0.05);
		EXPECT_LT(fabs(tr.j1_ms - delays[d] * DT * 1e3), 0.05);
		/* the benchmark's J1 in whole steps: the nearest one */
		EXPECT_EQ(lround(delays[d]),
			  rths_hs_tracking_whole_lag(c, x, N, 1, 50));
	}
}

TEST(j2_j3_of_a_gain_error)
{
	static double c[N], x[N];
	struct rths_hs_tracking tr;

	for (int k = 0; k < N; k++) {
		c[k] = sig(k * DT);
		x[k] = 1.03 * c[k];
	}
	rths_hs_tracking(c, x, N, 1, DT, 50, &tr);
	EXPECT_LT(fabs(tr.j2_pct - 3.0), 1e-9);
	EXPECT_LT(fabs(tr.j3_pct - 3.0), 1e-9);
	EXPECT_EQ(0, tr.j1_samples);
}

/* Interleaved channels: stride picks one. */
TEST(stride_selects_a_channel)
{
	static double c[2 * N], x[2 * N];
	struct rths_hs_tracking tr;
	size_t at;

	for (int k = 0; k < N; k++) {
		c[2 * k] = sig(k * DT);
		x[2 * k] = c[2 * k];
		c[2 * k + 1] = 2 * sig(k * DT);
		x[2 * k + 1] = 1.1 * c[2 * k + 1];
	}
	rths_hs_tracking(c, x, N, 2, DT, 50, &tr);
	EXPECT_EQ(0, tr.j2_pct);
	rths_hs_tracking(c + 1, x + 1, N, 2, DT, 50, &tr);
	EXPECT_LT(fabs(tr.j3_pct - 10.0), 1e-9);
	EXPECT_LT(fabs(rths_hs_peak(c + 1, N, 2, &at) - 2 * fabs(sig(at * DT))),
		  1e-12);
}

TEST_HARNESS_MAIN
