// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl latency's output formats, apart from the device calls so that
 * tests/unit/test_rthsctl_latfmt.c can check them: cyclictest's -h
 * histogram (print_hist() of rt-tests' cyclictest.c) and rtla timerlat
 * hist's table (timerlat_hist.c), both from the kernel's 1 us buckets,
 * and the percentiles of a column.
 */
#include <inttypes.h>
#include <stdio.h>

#include "latfmt.h"

/* Count of row @us of @c: its 1 us bucket, 0 beyond them. */
static uint64_t row_count(const struct lat_col *c, uint64_t us)
{
	return us < c->buckets ? c->hist[us] : 0;
}

/* Samples in the rows below @rows; the rest are cyclictest's overflows. */
static uint64_t col_overflow(const struct lat_col *c, uint32_t rows)
{
	uint64_t n = c->overflow, i;

	for (i = rows; i < c->buckets; i++)
		n += c->hist[i];
	return n;
}

void lat_print_cyclictest(FILE *f, const struct lat_col *c, unsigned int ncols,
			  uint32_t rows)
{
	static const char *const labels[] = {
		"Total", "Min Latencies", "Avg Latencies", "Max Latencies",
		"Histogram Overflows",
	};
	unsigned int i, j;
	uint64_t r;

	fprintf(f, "# Histogram\n");
	for (r = 0; r < rows; r++) {
		fprintf(f, "%06" PRIu64 " ", r);
		for (j = 0; j < ncols; j++)
			fprintf(f, "%06" PRIu64 "%s", row_count(&c[j], r),
				j < ncols - 1 ? "\t" : "");
		fprintf(f, "\n");
	}
	for (i = 0; i < 5; i++) {
		fprintf(f, "# %s:", labels[i]);
		for (j = 0; j < ncols; j++) {
			uint64_t over = col_overflow(&c[j], rows);
			const uint64_t v[] = {
				c[j].count - over, c[j].min_us, c[j].avg_us,
				c[j].max_us, over,
			};

			fprintf(f, " %0*" PRIu64, i ? 5 : 9, v[i]);
		}
		fprintf(f, "\n");
	}
	fprintf(f, "# Histogram Overflow at cycle number:\n");
	for (j = 0; j < ncols; j++)
		fprintf(f, "# Thread %u:\n", j);
	fprintf(f, "\n");
}

/* rtla's summary rows, in print order. */
enum rtla_row { RTLA_OVER, RTLA_COUNT, RTLA_MIN, RTLA_AVG, RTLA_MAX };

static uint64_t rtla_value(const struct lat_col *c, enum rtla_row w,
			   uint32_t rows)
{
	switch (w) {
	case RTLA_OVER:  return col_overflow(c, rows);
	case RTLA_COUNT: return c->count;
	case RTLA_MIN:   return c->min_us;
	case RTLA_AVG:   return c->avg_us;
	default:         return c->max_us;
	}
}

/* One summary row: its label, then IRQ and Thr per CPU. */
static void rtla_row(FILE *f, enum rtla_row w, const struct lat_col *irq,
		     const struct lat_col *thr, unsigned int n, uint32_t rows)
{
	static const char *const label[] = {
		"over: ", "count:", "min:  ", "avg:  ", "max:  "
	};
	unsigned int j;

	fprintf(f, "%s", label[w]);
	for (j = 0; j < n; j++)
		fprintf(f, "%9" PRIu64 " %9" PRIu64, rtla_value(&irq[j], w, rows),
			rtla_value(&thr[j], w, rows));
	fprintf(f, "\n");
}

/*
 * rtla timerlat hist: "Index" then IRQ-CPU and Thr-CPU columns per CPU,
 * the rows with a sample, then over:, count:, min:, avg:, max:.
 */
void lat_print_rtla(FILE *f, const struct lat_col *irq,
		    const struct lat_col *thr, unsigned int n, uint32_t rows,
		    uint64_t seconds)
{
	enum rtla_row w;
	unsigned int j;
	uint64_t r;

	fprintf(f, "# RTLA timerlat histogram\n");
	fprintf(f, "# Time unit is microseconds (us)\n");
	fprintf(f, "# Duration: %4" PRIu64 " %02" PRIu64 ":%02" PRIu64
		":%02" PRIu64 "\n", seconds / 86400, seconds / 3600 % 24,
		seconds / 60 % 60, seconds % 60);
	fprintf(f, "Index");
	for (j = 0; j < n; j++)
		fprintf(f, "   IRQ-%03u   Thr-%03u", irq[j].cpu, thr[j].cpu);
	fprintf(f, "\n");
	for (r = 0; r < rows; r++) {
		uint64_t any = 0;

		for (j = 0; j < n; j++)
			any += row_count(&irq[j], r) + row_count(&thr[j], r);
		if (!any)
			continue;
		fprintf(f, "%-6" PRIu64, r);
		for (j = 0; j < n; j++)
			fprintf(f, "%9" PRIu64 " %9" PRIu64, row_count(&irq[j], r),
				row_count(&thr[j], r));
		fprintf(f, "\n");
	}
	for (w = RTLA_OVER; w <= RTLA_MAX; w++)
		rtla_row(f, w, irq, thr, n, rows);
}

/*
 * The @permille-th per-mille latency of @c in us: the lowest bucket at
 * which the samples so far reach that share (nearest rank).  Past the
 * buckets: UINT64_MAX (the overflows hold it; only "above" is known).
 */
uint64_t lat_percentile(const struct lat_col *c, unsigned int per100k)
{
	uint64_t need, seen = 0, i;

	if (!c->count)
		return 0;
	/* rank ceil(count * p), at least 1 */
	need = (c->count * per100k + 99999) / 100000;
	if (!need)
		need = 1;
	for (i = 0; i < c->buckets; i++) {
		seen += c->hist[i];
		if (seen >= need)
			return i;
	}
	return UINT64_MAX;
}
