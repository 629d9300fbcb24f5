// SPDX-License-Identifier: GPL-2.0
/*
 * SI <-> kernel unit conversions: rounding, bounds, non-finite values and
 * round trips.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "kselftest_harness.h"
#include "rths/device.h"

TEST(m_to_nm_rounds_to_nearest)
{
	int64_t nm = 0;

	/* 0.4 and 0.6 nm away from an integer: no doubt about the result. */
	ASSERT_EQ(0, rths_m_to_nm(1.0000000004, &nm));
	EXPECT_EQ(1000000000LL, nm);
	ASSERT_EQ(0, rths_m_to_nm(1.0000000006, &nm));
	EXPECT_EQ(1000000001LL, nm);
	ASSERT_EQ(0, rths_m_to_nm(-1.0000000006, &nm));
	EXPECT_EQ(-1000000001LL, nm);
	ASSERT_EQ(0, rths_m_to_nm(0.4e-9, &nm));
	EXPECT_EQ(0, nm);
	ASSERT_EQ(0, rths_m_to_nm(-0.0, &nm));
	EXPECT_EQ(0, nm);
	ASSERT_EQ(0, rths_m_to_nm(1e-300, &nm));
	EXPECT_EQ(0, nm);
	ASSERT_EQ(0, rths_m_to_nm(0.001, &nm));
	EXPECT_EQ(1000000LL, nm);
}

TEST(m_to_nm_bounds)
{
	const double max_m = (double)RTHS_POS_MAX / 1e9;
	int64_t nm = 0;

	ASSERT_EQ(0, rths_m_to_nm(max_m, &nm));
	EXPECT_EQ(RTHS_POS_MAX, nm);
	ASSERT_EQ(0, rths_m_to_nm(-max_m, &nm));
	EXPECT_EQ(-RTHS_POS_MAX, nm);
	/* one nanometre past the bound, either side */
	EXPECT_EQ(-ERANGE, rths_m_to_nm((double)(RTHS_POS_MAX + 1) / 1e9, &nm));
	EXPECT_EQ(-ERANGE, rths_m_to_nm(-(double)(RTHS_POS_MAX + 1) / 1e9, &nm));
	/* overflow of the multiplication itself */
	EXPECT_EQ(-ERANGE, rths_m_to_nm(DBL_MAX, &nm));
	EXPECT_EQ(-ERANGE, rths_m_to_nm(-1e300, &nm));
}

TEST(non_finite_values_are_refused_and_leave_output_alone)
{
	int64_t v = 12345;
	uint64_t u = 777;

	EXPECT_EQ(-ERANGE, rths_m_to_nm(NAN, &v));
	EXPECT_EQ(-ERANGE, rths_m_to_nm(INFINITY, &v));
	EXPECT_EQ(-ERANGE, rths_m_to_nm(-INFINITY, &v));
	EXPECT_EQ(-ERANGE, rths_n_to_un(NAN, &v));
	EXPECT_EQ(-ERANGE, rths_n_to_un(-INFINITY, &v));
	EXPECT_EQ(-ERANGE, rths_mps_to_nmps(NAN, &u));
	EXPECT_EQ(-ERANGE, rths_mps_to_nmps(INFINITY, &u));
	EXPECT_EQ(12345, v);
	EXPECT_EQ(777U, u);
}

TEST(n_to_un)
{
	const double max_n = (double)RTHS_FORCE_MAX / 1e6;
	int64_t un = 0;

	ASSERT_EQ(0, rths_n_to_un(1.0, &un));
	EXPECT_EQ(1000000LL, un);
	ASSERT_EQ(0, rths_n_to_un(-2.5e3, &un));
	EXPECT_EQ(-2500000000LL, un);
	ASSERT_EQ(0, rths_n_to_un(1.0000004, &un));
	EXPECT_EQ(1000000LL, un);
	ASSERT_EQ(0, rths_n_to_un(1.0000006, &un));
	EXPECT_EQ(1000001LL, un);
	ASSERT_EQ(0, rths_n_to_un(max_n, &un));
	EXPECT_EQ(RTHS_FORCE_MAX, un);
	EXPECT_EQ(-ERANGE, rths_n_to_un((double)(RTHS_FORCE_MAX + 1) / 1e6, &un));
	EXPECT_EQ(-ERANGE, rths_n_to_un(-(double)(RTHS_FORCE_MAX + 1) / 1e6, &un));
}

TEST(mps_to_nmps_is_a_magnitude)
{
	uint64_t v = 1;

	ASSERT_EQ(0, rths_mps_to_nmps(0.25, &v));
	EXPECT_EQ(250000000ULL, v);
	ASSERT_EQ(0, rths_mps_to_nmps(-0.0, &v));
	EXPECT_EQ(0ULL, v);
	EXPECT_EQ(-ERANGE, rths_mps_to_nmps(-1e-9, &v));
	EXPECT_EQ(-ERANGE, rths_mps_to_nmps(1e300, &v));
	/* the whole u64 range, beyond INT64_MAX (the kernel's "none" is
	 * U64_MAX), and not one past it */
	ASSERT_EQ(0, rths_mps_to_nmps(1.8e10, &v));
	EXPECT_EQ(18000000000000000000ULL, v);
	EXPECT_EQ(-ERANGE, rths_mps_to_nmps(0x1p64 / 1e9, &v));
}

/* Whatever the kernel reports converts back to the same integer. */
TEST(round_trip_is_exact)
{
	const int64_t fixed[] = {
		0, 1, -1, 999999999, 1000000001, RTHS_POS_MAX, -RTHS_POS_MAX,
		RTHS_POS_MAX - 1, -(RTHS_POS_MAX - 1),
	};
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	unsigned int i;
	int64_t back;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		ASSERT_EQ(0, rths_m_to_nm(rths_nm_to_m(fixed[i]), &back));
		ASSERT_EQ(fixed[i], back);
	}
	for (i = 0; i < 100000; i++) {
		int64_t nm, un;

		/* xorshift64: deterministic spread over the whole range */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		nm = (int64_t)(x % (2 * (uint64_t)RTHS_POS_MAX + 1)) - RTHS_POS_MAX;
		un = (int64_t)(x % (2 * (uint64_t)RTHS_FORCE_MAX + 1)) -
		     RTHS_FORCE_MAX;
		ASSERT_EQ(0, rths_m_to_nm(rths_nm_to_m(nm), &back));
		ASSERT_EQ(nm, back);
		ASSERT_EQ(0, rths_n_to_un(rths_un_to_n(un), &back));
		ASSERT_EQ(un, back);
	}
}

TEST(kernel_to_si)
{
	EXPECT_EQ(0.001, rths_nm_to_m(1000000));
	EXPECT_EQ(-1.5, rths_un_to_n(-1500000));
	EXPECT_EQ(0.0, rths_nm_to_m(0));
}

TEST_HARNESS_MAIN
