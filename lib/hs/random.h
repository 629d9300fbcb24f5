/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Seeded, portable random numbers (xoshiro256**), private. */
#ifndef RTHS_HS_RANDOM_H
#define RTHS_HS_RANDOM_H

#include <stdint.h>

struct rths_hs_rng {
	uint64_t s[4];
};

void rths_hs_rng_seed(struct rths_hs_rng *r, uint64_t seed);
uint64_t rths_hs_rng_next(struct rths_hs_rng *r);
/* Uniform in [0, 1). */
double rths_hs_rng_uniform(struct rths_hs_rng *r);
/* Standard normal (Box-Muller, one value per call). */
double rths_hs_rng_normal(struct rths_hs_rng *r);

#endif /* RTHS_HS_RANDOM_H */
