// SPDX-License-Identifier: GPL-2.0
/* RTHS benchmark criteria J1..J3 on signals with known answers. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <errno.h>
#include <math.h>

#include "kselftest_harness.h"

#include <rths/hs_criteria.h>

#define N 4096
#define DT (1.0 / 1024)

static double sig(double t)
{
	return sin(2 * M_PI * 1.3 * t) + 0.5 * sin(2 * M_PI * 3.7 * t + 0.3);
}

/* The benchmark's J1 of a delay: the nearest whole lag, held to its
 * range (a lead reads the range's low end). */
static long benchmark_expected(double delay)
{
	long l = lround(delay);

	return l < RTHS_HS_BENCHMARK_LAG_MIN ? RTHS_HS_BENCHMARK_LAG_MIN :
	       l > RTHS_HS_BENCHMARK_LAG_MAX ? RTHS_HS_BENCHMARK_LAG_MAX : l;
}

TEST(j1_finds_whole_and_fractional_delays)
{
	static double c[N], x[N];
	double delays[] = { 0, 7, 7.4, 23.6, -3, -2.6, 41.8, 60.2 };

	for (int d = 0; d < 8; d++) {
		struct rths_hs_tracking tr;
		long bench;

		for (int k = 0; k < N; k++) {
			c[k] = sig(k * DT);
			x[k] = sig((k - delays[d]) * DT);
		}
		rths_hs_tracking(c, x, N, 1, DT, 70, &tr);
		bench = rths_hs_tracking_benchmark_lag(
			c, x, N, 1, RTHS_HS_BENCHMARK_LAG_MIN,
			RTHS_HS_BENCHMARK_LAG_MAX);
		TH_LOG("delay %.1f samples: J1 (refined) %.3f samples, %.3f ms; J1 (benchmark) %ld samples",
		       delays[d], tr.j1_samples, tr.j1_ms, bench);
		EXPECT_LT(fabs(tr.j1_samples - delays[d]), 0.05);
		EXPECT_LT(fabs(tr.j1_ms - delays[d] * DT * 1e3), 0.05);
		/* the refined one's peak sample: the nearest */
		EXPECT_EQ(lround(delays[d]),
			  rths_hs_tracking_whole_lag(c, x, N, 1, 70));
		/* the benchmark's: the nearest whole lag in its range */
		EXPECT_EQ(benchmark_expected(delays[d]), bench);
		/* on a whole delay in range both agree */
		if (delays[d] == floor(delays[d]) &&
		    delays[d] >= RTHS_HS_BENCHMARK_LAG_MIN &&
		    delays[d] <= RTHS_HS_BENCHMARK_LAG_MAX)
			EXPECT_LT(fabs(tr.j1_samples - (double)bench), 1e-3);
		/* a lead: the refined one sees it, the benchmark's reads
		 * the low end of its range */
		if (delays[d] < 0) {
			EXPECT_LT(tr.j1_samples, 0);
			EXPECT_EQ(RTHS_HS_BENCHMARK_LAG_MIN, bench);
		}
	}
}

/* The range is the caller's: 1..50 (the loop index) reads a lead as 1;
 * bad ranges are refused. */
TEST(benchmark_lag_range)
{
	static double c[N], x[N];

	for (int k = 0; k < N; k++) {
		c[k] = sig(k * DT);
		x[k] = sig((k + 2.6) * DT);
	}
	EXPECT_EQ(1, rths_hs_tracking_benchmark_lag(c, x, N, 1, 1, 50));
	EXPECT_EQ(-EINVAL, rths_hs_tracking_benchmark_lag(c, x, N, 1, 5, 4));
	EXPECT_EQ(-EINVAL, rths_hs_tracking_benchmark_lag(c, x, N, 1, -1, 4));
	EXPECT_EQ(-ERANGE, rths_hs_tracking_benchmark_lag(c, x, 10, 1, 9, 49));
	/* lags past the data are not searched: 10 samples, lags 0..8 */
	for (int k = 0; k < 10; k++) {
		c[k] = k == 0;
		x[k] = k == 8;
	}
	EXPECT_EQ(8, rths_hs_tracking_benchmark_lag(c, x, 10, 1, 0, 49));
	/* Pearson: an offset in the measurement changes nothing */
	for (int k = 0; k < N; k++) {
		c[k] = sig(k * DT);
		x[k] = 0.01 + sig((k - 12) * DT);
	}
	EXPECT_EQ(12, rths_hs_tracking_benchmark_lag(c, x, N, 1, 0, 49));
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
