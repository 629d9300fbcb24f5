// SPDX-License-Identifier: LGPL-2.1-or-later
/* xoshiro256** seeded through splitmix64 (Blackman and Vigna). */
#include <math.h>

#include "hs/random.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rths_hs_rng_seed(struct rths_hs_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rths_hs_rng_next(struct rths_hs_rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

double rths_hs_rng_uniform(struct rths_hs_rng *r)
{
	return (double)(rths_hs_rng_next(r) >> 11) * 0x1.0p-53;
}

double rths_hs_rng_normal(struct rths_hs_rng *r)
{
	double u1 = 1.0 - rths_hs_rng_uniform(r);	/* (0, 1] */
	double u2 = rths_hs_rng_uniform(r);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}
