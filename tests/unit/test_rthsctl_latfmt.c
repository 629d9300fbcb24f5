// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl latency's formats (tools/rthsctl/latfmt.c), read back the way
 * the tools of cyclictest's and rtla's users read them: OSADL's
 * latency-plot recipe (drop the "#" lines, split the rows on blanks, one
 * column per thread), rteval's "# Max Latencies:" summary lines, and
 * rtla timerlat hist's table; the percentiles; the duration units.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../../tools/rthsctl/latfmt.h"
#include "../../tools/rthsctl/parse.h"

/* Print with @fn into a string the test frees. */
#define CAPTURE(buf, call)						\
	do {								\
		size_t len_;						\
		FILE *f = open_memstream(&(buf), &len_);		\
		ASSERT_NE(NULL, f);					\
		call;							\
		fclose(f);						\
	} while (0)

static void col(struct lat_col *c, const uint64_t *h, uint32_t buckets,
		uint64_t over, uint64_t min, uint64_t max, uint32_t cpu)
{
	uint64_t n = over;
	uint32_t i;

	for (i = 0; i < buckets; i++)
		n += h[i];
	*c = (struct lat_col){ .count = n, .min_us = min, .avg_us = min,
			       .max_us = max, .hist = h, .buckets = buckets,
			       .overflow = over, .cpu = cpu };
}

TEST(cyclictest_rows_read_as_osadl_plots_do)
{
	uint64_t h0[8] = { 0, 3, 7, 0, 1, 0, 0, 2 };
	uint64_t h1[8] = { 4, 0, 0, 0, 0, 0, 0, 0 };
	struct lat_col c[2];
	unsigned long long row, got[8][2] = { { 0 } };
	char *out, *line, *save = NULL;
	int rows = 0;

	col(&c[0], h0, 8, 5, 1, 900, 0);
	col(&c[1], h1, 8, 0, 0, 0, 0);
	CAPTURE(out, lat_print_cyclictest(f, c, 2, 6));
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, b;

		if (line[0] == '#')
			continue;
		/* grep -v "^#" | tr " " "\t": row TAB thread0 TAB thread1 */
		ASSERT_NE(NULL, strchr(line, '\t'));
		ASSERT_EQ(3, sscanf(line, "%llu %llu\t%llu", &row, &a, &b)) {
			TH_LOG("row \"%s\"", line);
		}
		ASSERT_LT(row, 6);
		got[row][0] = a;
		got[row][1] = b;
		rows++;
	}
	free(out);
	EXPECT_EQ(6, rows);
	EXPECT_EQ(3, got[1][0]);
	EXPECT_EQ(7, got[2][0]);
	EXPECT_EQ(1, got[4][0]);
	EXPECT_EQ(4, got[0][1]);
	EXPECT_EQ(0, got[5][0]);
}

TEST(cyclictest_summary_lines_as_rteval_reads_them)
{
	uint64_t h0[8] = { 0, 3, 7, 0, 1, 0, 0, 2 };
	struct lat_col c;
	char *out, *p;
	unsigned long long total, over, max;

	col(&c, h0, 8, 5, 1, 900, 0);
	CAPTURE(out, lat_print_cyclictest(f, &c, 1, 6));
	/* rows 0..5 hold 11 samples; rows 6, 7 and the overflow 7 more */
	p = strstr(out, "# Total: ");
	ASSERT_NE(NULL, p);
	ASSERT_EQ(1, sscanf(p, "# Total: %llu", &total));
	EXPECT_EQ(11, total);
	p = strstr(out, "# Histogram Overflows: ");
	ASSERT_NE(NULL, p);
	ASSERT_EQ(1, sscanf(p, "# Histogram Overflows: %llu", &over));
	EXPECT_EQ(7, over);
	p = strstr(out, "# Max Latencies: ");
	ASSERT_NE(NULL, p);
	ASSERT_EQ(1, sscanf(p, "# Max Latencies: %llu", &max));
	EXPECT_EQ(900, max);
	EXPECT_NE(NULL, strstr(out, "# Max Latencies: 00900\n"));
	EXPECT_NE(NULL, strstr(out, "# Total: 000000011\n"));
	EXPECT_NE(NULL, strstr(out, "# Histogram Overflow at cycle number:\n# Thread 0:\n"));
	free(out);
}

TEST(rtla_table)
{
	uint64_t hi[4] = { 0, 2, 0, 1 }, ht[4] = { 0, 0, 3, 0 };
	struct lat_col irq, thr;
	char *out;

	col(&irq, hi, 4, 1, 1, 9, 3);
	col(&thr, ht, 4, 1, 2, 8, 3);
	CAPTURE(out, lat_print_rtla(f, &irq, &thr, 1, 4, 3725));
	EXPECT_NE(NULL, strstr(out, "# RTLA timerlat histogram\n"
			       "# Time unit is microseconds (us)\n"
			       "# Duration:    0 01:02:05\n"
			       "Index   IRQ-003   Thr-003\n"
			       "1             2         0\n"
			       "2             0         3\n"
			       "3             1         0\n"
			       "over:         1         1\n"
			       "count:        4         4\n")) {
		TH_LOG("%s", out);
	}
	/* the empty row 0 is left out, as rtla does without --with-zeros */
	EXPECT_EQ(NULL, strstr(out, "\n0 "));
	free(out);
}

TEST(percentiles_nearest_rank)
{
	uint64_t h[128] = { 0 };
	struct lat_col c;

	h[5] = 990;
	h[10] = 9;
	h[100] = 1;
	col(&c, h, 128, 0, 5, 100, 0);
	EXPECT_EQ(5, lat_percentile(&c, 50000));
	EXPECT_EQ(5, lat_percentile(&c, 99000));
	EXPECT_EQ(10, lat_percentile(&c, 99900));
	EXPECT_EQ(100, lat_percentile(&c, 100000));
	/* past the buckets: only "above" is known */
	col(&c, h, 128, 10, 5, 5000, 0);
	EXPECT_EQ(UINT64_MAX, lat_percentile(&c, 99900));
	c.count = 0;
	EXPECT_EQ(0, lat_percentile(&c, 99000));
}

TEST(durations_in_minutes_hours_days)
{
	struct rc_err e;
	double v;

	ASSERT_EQ(0, rc_parse_quantity("duration", "3m", RC_TIME, &v, &e));
	EXPECT_EQ(180, v);
	ASSERT_EQ(0, rc_parse_quantity("duration", "1.5h", RC_TIME, &v, &e));
	EXPECT_EQ(5400, v);
	ASSERT_EQ(0, rc_parse_quantity("duration", "2d", RC_TIME, &v, &e));
	EXPECT_EQ(172800, v);
	ASSERT_EQ(0, rc_parse_quantity("duration", "250ms", RC_TIME, &v, &e));
	EXPECT_EQ(0.25, v);
	EXPECT_NE(0, rc_parse_quantity("duration", "1w", RC_TIME, &v, &e));
	EXPECT_NE(NULL, strstr(e.msg, "s, ms, us, m, h, d"));
}

TEST_HARNESS_MAIN
