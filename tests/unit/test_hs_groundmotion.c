// SPDX-License-Identifier: GPL-2.0
/* Ground motions: AT2 and two-column readers, the synthetic generator. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include <rths/hs.h>

/* Write @text to a new temporary file; its name goes to @path. */
static int write_temp(char *path, size_t len, const char *text)
{
	int fd;
	FILE *f;

	snprintf(path, len, "/tmp/rths-hs-gm-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

#define HEADER3 "PEER NGA\nTEST\nACCELERATION TIME SERIES IN UNITS OF G\n"

TEST(at2_nga_west2_header)
{
	struct rths_hs_gm gm;
	struct rths_error err;

	ASSERT_EQ(0, rths_hs_gm_read_at2(&gm, RTHS_HS_TESTDATA "/tiny.AT2",
					 &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(12, gm.npts);
	EXPECT_EQ(0.01, gm.dt);
	for (size_t i = 0; i < gm.npts; i++) {
		double g = (double)(i + 1) * 1e-3 *
			   ((i == 2 || i == 5 || i == 8 || i == 11) ? -1 : 1);

		EXPECT_LT(fabs(gm.acc[i] - g * RTHS_HS_G), 1e-12);
	}
	EXPECT_LT(fabs(rths_hs_gm_duration(&gm) - 0.11), 1e-12);
	EXPECT_LT(fabs(rths_hs_gm_pga(&gm) - 0.012 * RTHS_HS_G), 1e-12);
	rths_hs_gm_free(&gm);
}

TEST(at2_malformed_value_names_line_and_field)
{
	struct rths_hs_gm gm;
	struct rths_error err;
	char buf[1024];

	EXPECT_EQ(-RTHS_E_GM_VALUE,
		  rths_hs_gm_read_at2(&gm, RTHS_HS_TESTDATA "/bad-value.AT2",
				      &err));
	EXPECT_EQ(6, err.line);
	EXPECT_NE(NULL, strstr(err.file, "bad-value.AT2"));
	EXPECT_NE(NULL, strstr(err.msg, "field 2"));
	rths_error_str(&err, buf, sizeof(buf));
	EXPECT_NE(NULL, strstr(buf, "bad-value.AT2:6: field 2"));
	EXPECT_EQ(NULL, gm.acc);
}

TEST(at2_older_header_and_fortran_exponents)
{
	char path[64];
	struct rths_hs_gm gm;

	ASSERT_EQ(0, write_temp(path, sizeof(path), HEADER3
				"    5    0.0200    NPTS, DT\n"
				"1.0D-01 -2.0e-1\n\n3.0E-01,4,\n-5\n"));
	ASSERT_EQ(0, rths_hs_gm_read_at2(&gm, path, NULL));
	EXPECT_EQ(5, gm.npts);
	EXPECT_EQ(0.02, gm.dt);
	EXPECT_LT(fabs(gm.acc[0] - 0.1 * RTHS_HS_G), 1e-12);
	EXPECT_LT(fabs(gm.acc[4] + 5 * RTHS_HS_G), 1e-12);
	rths_hs_gm_free(&gm);
	unlink(path);
}

TEST(at2_header_and_count_errors)
{
	static const struct {
		const char *text;
		int code;
		unsigned int line;
		const char *word;
	} cases[] = {
		{ HEADER3 "NPTS= 3, DT= .01 SEC\n1 2 \n", RTHS_E_GM_COUNT, 5,
		  "NPTS = 3" },
		/* cannot fit: refused before the allocation */
		{ HEADER3 "NPTS= 3, DT= .01 SEC\n1 2\n", RTHS_E_GM_COUNT, 4,
		  "NPTS = 3" },
		{ HEADER3 "NPTS= 2, DT= .01 SEC\n1 2 3\n", RTHS_E_GM_COUNT,
		  5, "field 3" },
		{ HEADER3 "DT= .01 SEC\n1 2\n", RTHS_E_GM_HEADER, 4, "NPTS" },
		{ HEADER3 "NPTS= 2, DT= -1\n1 2\n", RTHS_E_GM_HEADER, 4,
		  "DT" },
		/* NPTS past 2^64 - 1 overflows: no wrap, no rounding */
		{ HEADER3 "NPTS= 18446744073709551616, DT= .01\n1 2\n",
		  RTHS_E_GM_HEADER, 4, "'18446744073709551616'" },
		{ HEADER3 "NPTS= 2, DT= 1.5 SEC\n1 2\n", RTHS_E_GM_HEADER, 4,
		  "DT <= 1" },
		{ HEADER3 "NPTS= 2, DT= nan\n1 2\n", RTHS_E_GM_HEADER, 4,
		  "'nan'" },
		{ HEADER3 "NPTS= 2, DT= .01 SEC SEC\n1 2\n", RTHS_E_GM_HEADER,
		  4, "'SEC' again" },
		/* the older style: each word once */
		{ HEADER3 "2 .01 NPTS, DT, DT\n1 2\n", RTHS_E_GM_HEADER, 4,
		  "'DT' again" },
		{ "A\nB\nACCELERATION IN FURLONGS\nNPTS= 1, DT= .01\n1\n",
		  RTHS_E_GM_HEADER, 3, "units" },
		{ "A\nB\n", RTHS_E_GM_HEADER, 2, "four header lines" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rths_error err;
		struct rths_hs_gm gm;
		char path[64];

		ASSERT_EQ(0, write_temp(path, sizeof(path), cases[i].text));
		EXPECT_EQ(-(int)cases[i].code,
			  rths_hs_gm_read_at2(&gm, path, &err));
		EXPECT_EQ(cases[i].line, err.line);
		EXPECT_NE(NULL, strstr(err.msg, cases[i].word))
			TH_LOG("case %zu: %s", i, err.msg);
		unlink(path);
	}
}

TEST(two_column_file)
{
	struct rths_error err;
	struct rths_hs_gm gm;
	char path[64];

	ASSERT_EQ(0, rths_hs_gm_read_two_column(&gm, RTHS_HS_TESTDATA
						"/two-column.txt", RTHS_HS_G, 0,
						&err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(4, gm.npts);
	EXPECT_LT(fabs(gm.dt - 0.02), 1e-12);
	EXPECT_LT(fabs(gm.acc[2] + 0.2 * RTHS_HS_G), 1e-12);
	/* Interpolation halfway between samples, zero past the end. */
	EXPECT_LT(fabs(rths_hs_gm_at(&gm, 0.03) - 0.5 * (gm.acc[1] + gm.acc[2])),
		  1e-12);
	EXPECT_EQ(0, rths_hs_gm_at(&gm, 1.0));
	rths_hs_gm_scale(&gm, 2);
	EXPECT_LT(fabs(gm.acc[2] + 0.4 * RTHS_HS_G), 1e-12);
	rths_hs_gm_free(&gm);

	ASSERT_EQ(0, write_temp(path, sizeof(path), "0 1\n0.1 2\n0.25 3\n"));
	EXPECT_EQ(-RTHS_E_GM_TIME_STEP,
		  rths_hs_gm_read_two_column(&gm, path, 1, 0, &err));
	EXPECT_EQ(3, err.line);
	unlink(path);
	ASSERT_EQ(0, write_temp(path, sizeof(path), "0 1\n0.1 x2\n"));
	EXPECT_EQ(-RTHS_E_GM_VALUE,
		  rths_hs_gm_read_two_column(&gm, path, 1, 0, &err));
	EXPECT_EQ(2, err.line);
	EXPECT_NE(NULL, strstr(err.msg, "field 2"));
	unlink(path);
	EXPECT_EQ(-ENOENT,
		  rths_hs_gm_read_two_column(&gm, "/nonexistent/x", 1, 0,
						     &err));
}

/*
 * Each kind of bad AT2 file (tests/data/hs) is refused at the line that
 * is wrong, saying what was found.
 */
TEST(at2_bad_files)
{
	static const struct {
		const char *file;
		int code;
		unsigned int line;
		const char *word;
	} cases[] = {
		/* a velocity or displacement record is not an acceleration */
		{ "bad-velocity.VT2", RTHS_E_GM_HEADER, 3, "velocity record" },
		{ "bad-displacement.DT2", RTHS_E_GM_HEADER, 3,
		  "displacement record" },
		{ "bad-velocity-units.AT2", RTHS_E_GM_HEADER, 3,
		  "units of velocity" },
		/* nothing but NPTS and DT on their line */
		{ "bad-junk-after-npts.AT2", RTHS_E_GM_HEADER, 4, "'12x'" },
		/* a unit once, after DT: not "S S S NPTS DT" */
		{ "bad-repeated-unit.AT2", RTHS_E_GM_HEADER, 4, "'S' again" },
		/* DT decimal and in 1e-5..1 s; NPTS a decimal integer */
		{ "bad-tiny-dt.AT2", RTHS_E_GM_HEADER, 4, "field DT" },
		{ "bad-hex-dt.AT2", RTHS_E_GM_HEADER, 4, "'0x1p-3'" },
		{ "bad-hex-npts.AT2", RTHS_E_GM_HEADER, 4, "'0x0c'" },
		/* echoed exactly, not rounded through a double (...616) */
		{ "bad-npts-max.AT2", RTHS_E_GM_COUNT, 4,
		  "NPTS = 18446744073709551615 values" },
		{ "bad-junk-after-dt.AT2", RTHS_E_GM_HEADER, 4, "'7'" },
		/* NPTS is bounded by the file before anything is allocated
		 * (1e14 values aborted under ASan) */
		{ "bad-huge-npts.AT2", RTHS_E_GM_COUNT, 4,
		  "NPTS = 100000000000000" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rths_error err;
		struct rths_hs_gm gm;
		char path[512];

		snprintf(path, sizeof(path), "%s/%s", RTHS_HS_TESTDATA,
			 cases[i].file);
		memset(&err, 0, sizeof(err));
		EXPECT_EQ(-(int)cases[i].code,
			  rths_hs_gm_read_at2(&gm, path, &err))
			TH_LOG("%s", cases[i].file);
		EXPECT_EQ(cases[i].line, err.line);
		EXPECT_STREQ(path, err.file);
		EXPECT_NE(NULL, strstr(err.msg, cases[i].word))
			TH_LOG("%s: %s", cases[i].file, err.msg);
		EXPECT_EQ(NULL, gm.acc);
	}
}

/*
 * 1e308 g is a number, but not in m/s^2: both readers refuse what is no
 * longer finite after the unit conversion, at its file:line, instead of
 * handing the run an inf that diverges at its first step.
 */
TEST(overflow_after_unit_conversion)
{
	struct rths_error err;
	struct rths_hs_gm gm;
	char buf[1024];

	memset(&err, 0, sizeof(err));
	EXPECT_EQ(-RTHS_E_GM_VALUE,
		  rths_hs_gm_read_at2(&gm, RTHS_HS_TESTDATA
				      "/bad-overflow.AT2", &err));
	rths_error_str(&err, buf, sizeof(buf));
	TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "bad-overflow.AT2:7: field 2"));
	EXPECT_NE(NULL, strstr(err.msg, "-1e+308 is -inf m/s^2"));
	EXPECT_EQ(NULL, gm.acc);

	memset(&err, 0, sizeof(err));
	EXPECT_EQ(-RTHS_E_GM_VALUE,
		  rths_hs_gm_read_two_column(&gm, RTHS_HS_TESTDATA
					     "/bad-overflow.txt", RTHS_HS_G,
					     0, &err));
	rths_error_str(&err, buf, sizeof(buf));
	TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "bad-overflow.txt:4: field 2"));
	EXPECT_NE(NULL, strstr(err.msg, "1e+308 is inf m/s^2"));
	EXPECT_EQ(NULL, gm.acc);

	/* the same value in m/s^2 needs no conversion and stays finite */
	ASSERT_EQ(0, rths_hs_gm_read_two_column(&gm, RTHS_HS_TESTDATA
						"/bad-overflow.txt", 1, 0,
						&err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(1e308, gm.acc[2]);
	rths_hs_gm_free(&gm);
}

/* Acceleration units in other spellings, and the older NPTS line. */
TEST(at2_acceleration_units)
{
	static const struct {
		const char *units;
		double to_si;
	} cases[] = {
		{ "ACCELERATION TIME SERIES IN UNITS OF G", RTHS_HS_G },
		{ "ACCELERATION IN CM/S/S", 0.01 },
		{ "ACCELERATION IN CM/SEC^2", 0.01 },
		{ "ACCELERATION IN M/S2", 1.0 },
		{ "ACCELERATION IN M/S**2", 1.0 },
	};
	struct rths_error err;
	struct rths_hs_gm gm;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[64], text[256];

		snprintf(text, sizeof(text),
			 "A\nB\n%s\nNPTS= 2, DT= .01 SEC,\n1 -2\n",
			 cases[i].units);
		ASSERT_EQ(0, write_temp(path, sizeof(path), text));
		ASSERT_EQ(0, rths_hs_gm_read_at2(&gm, path, &err))
			TH_LOG("%s: %s", cases[i].units, err.msg);
		EXPECT_EQ(-2 * cases[i].to_si, gm.acc[1]);
		rths_hs_gm_free(&gm);
		unlink(path);
	}
	ASSERT_EQ(0, rths_hs_gm_read_at2(&gm, RTHS_HS_TESTDATA
					 "/old-header-cms2.AT2", &err))
		TH_LOG("%s", err.msg);
	EXPECT_EQ(12, gm.npts);
	EXPECT_LT(fabs(gm.acc[0] - 0.1e-2 * 0.01), 1e-15);
	rths_hs_gm_free(&gm);
}

/* A two-column record starting at t = 1 s is not moved to t = 0 unless
 * asked: the shift is explicit. */
TEST(two_column_late_start)
{
	struct rths_error err;
	struct rths_hs_gm gm;

	EXPECT_EQ(-RTHS_E_GM_TIME_STEP,
		  rths_hs_gm_read_two_column(&gm, RTHS_HS_TESTDATA
					     "/late-start.txt", RTHS_HS_G, 0,
					     &err));
	EXPECT_EQ(2, err.line);
	EXPECT_NE(NULL, strstr(err.msg, "starts at t = 1 s"))
		TH_LOG("%s", err.msg);
	ASSERT_EQ(0, rths_hs_gm_read_two_column(&gm, RTHS_HS_TESTDATA
						"/late-start.txt", RTHS_HS_G,
						RTHS_HS_GM_SHIFT_TO_ZERO,
						&err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(4, gm.npts);
	/* its first sample is now t = 0 */
	EXPECT_LT(fabs(rths_hs_gm_at(&gm, 0.02) - 0.1 * RTHS_HS_G), 1e-12);
	rths_hs_gm_free(&gm);
}

TEST(synthetic_is_seeded_and_scaled)
{
	struct rths_hs_synth_params p;
	struct rths_hs_gm a, b, c;
	int same = 1, differ = 0;

	rths_hs_synth_defaults(&p);
	ASSERT_EQ(0, rths_hs_gm_synthetic(&a, &p, NULL));
	ASSERT_EQ(0, rths_hs_gm_synthetic(&b, &p, NULL));
	p.seed = 2;
	ASSERT_EQ(0, rths_hs_gm_synthetic(&c, &p, NULL));
	EXPECT_EQ(4001, a.npts);
	for (size_t i = 0; i < a.npts; i++) {
		same &= a.acc[i] == b.acc[i];
		differ |= a.acc[i] != c.acc[i];
	}
	EXPECT_TRUE(same);
	EXPECT_TRUE(differ);
	EXPECT_LT(fabs(rths_hs_gm_pga(&a) - 0.3 * RTHS_HS_G), 1e-12);
	EXPECT_EQ(0, a.acc[0]);
	rths_hs_gm_free(&a);
	rths_hs_gm_free(&b);
	rths_hs_gm_free(&c);
}

/* Mean periodogram of x[0..n) (step dt) over [f0, f1] Hz. */
static double band_power(const double *x, size_t n, double dt, double f0,
			 double f1)
{
	double sum = 0, df = 1.0 / (n * dt);
	int bins = 0;

	for (size_t k = (size_t)ceil(f0 / df); k * df <= f1; k++, bins++) {
		double re = 0, im = 0;

		for (size_t i = 0; i < n; i++) {
			re += x[i] * cos(2 * M_PI * k * i / n);
			im -= x[i] * sin(2 * M_PI * k * i / n);
		}
		sum += re * re + im * im;
	}
	return sum / bins;
}

/*
 * The envelope shapes the record (quiet start, strong phase, decay) and
 * the filters its spectrum: Kanai-Tajimi peaks near omega_g (2.5 Hz) and
 * falls off above (about 17 times lower at 4 omega_g), Clough-Penzien
 * removes the lowest (about 12 times lower at 0.15 Hz).
 */
TEST(synthetic_envelope_and_spectrum)
{
	struct rths_hs_synth_params p;
	struct rths_hs_gm gm;
	double rms_start = 0, rms_strong = 0, rms_end = 0, mid, high, low;
	size_t n0, n1;

	rths_hs_synth_defaults(&p);
	ASSERT_EQ(0, rths_hs_gm_synthetic(&gm, &p, NULL));
	n0 = (size_t)(p.t_rise / p.dt);
	n1 = (size_t)((p.t_rise + p.t_strong) / p.dt);
	for (size_t i = 0; i < gm.npts; i++) {
		double a2 = gm.acc[i] * gm.acc[i];

		if (i < n0 / 4)
			rms_start += a2;
		else if (i >= n0 && i < n1)
			rms_strong += a2;
		else if (i > gm.npts - n0 / 4)
			rms_end += a2;
	}
	rms_start = sqrt(rms_start / (n0 / 4));
	rms_strong = sqrt(rms_strong / (n1 - n0));
	rms_end = sqrt(rms_end / (n0 / 4));
	EXPECT_LT(rms_start, 0.05 * rms_strong);
	EXPECT_LT(rms_end, 0.1 * rms_strong);
	/* The whole record: 0.05 Hz bins. */
	low = band_power(gm.acc, gm.npts, p.dt, 0.05, 0.2);
	mid = band_power(gm.acc, gm.npts, p.dt, 2.0, 3.0);
	high = band_power(gm.acc, gm.npts, p.dt, 10.0, 12.0);
	TH_LOG("band power: 0.05-0.2 Hz %.3g, 2-3 Hz %.3g, 10-12 Hz %.3g",
	       low, mid, high);
	EXPECT_GT(mid, 5 * high);
	EXPECT_GT(mid, 4 * low);
	p.dt = 0;
	EXPECT_EQ(-RTHS_E_OUT_OF_RANGE, rths_hs_synth_check(&p, NULL));
	rths_hs_gm_free(&gm);
}

TEST_HARNESS_MAIN
