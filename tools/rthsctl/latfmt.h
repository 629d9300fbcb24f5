/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rthsctl latency's text formats (latfmt.c): cyclictest's and rtla
 * timerlat's histograms, as their users read them.
 */
#ifndef RTHSCTL_LATFMT_H
#define RTHSCTL_LATFMT_H

#include <stdint.h>
#include <stdio.h>

/* One column of a latency histogram, in microseconds. */
struct lat_col {
	uint64_t count, min_us, avg_us, max_us;
	const uint64_t *hist;	/* 1 us buckets: [i, i + 1) us */
	uint32_t buckets;
	uint64_t overflow;	/* samples past the buckets */
	uint32_t cpu;
};

/* cyclictest -h: @rows rows of @ncols columns, then its summary lines. */
void lat_print_cyclictest(FILE *f, const struct lat_col *c, unsigned int ncols,
			  uint32_t rows);
/* rtla timerlat hist: an IRQ and a Thr column per CPU. */
void lat_print_rtla(FILE *f, const struct lat_col *irq,
		    const struct lat_col *thr, unsigned int n, uint32_t rows,
		    uint64_t seconds);
/* Nearest-rank percentile (@per100k of 100000) in us; UINT64_MAX when it
 * lies past the buckets. */
uint64_t lat_percentile(const struct lat_col *c, unsigned int per100k);

#endif /* RTHSCTL_LATFMT_H */
