// SPDX-License-Identifier: GPL-2.0
/*
 * The sim card's benchmark plant as librths designs it, for the guest's
 * rths_plant_test.sh to compare with what the card reports:
 *	plant-sections RATE [B1 B2 A3 KE]
 * prints the sections' integer coefficients as JSON, [[b0,b1,b2,a1,a2],...],
 * the way "rthsctl -j dev show" gives sim.plant.coefficients.
 */
#include <stdio.h>
#include <stdlib.h>

#include <rths/error.h>
#include <rths/sim_plant.h>

int main(int argc, char **argv)
{
	struct rths_sim_params sim = { 0 };
	struct rths_benchmark_plant bp;
	struct rths_error err = { 0 };
	double num[1], den[6];
	long rate;

	if (argc != 2 && argc != 6) {
		fprintf(stderr, "usage: plant-sections RATE [B1 B2 A3 KE]\n");
		return 2;
	}
	rate = strtol(argv[1], NULL, 10);
	rths_benchmark_plant_nominal(&bp);
	if (argc == 6) {
		bp.b1 = strtod(argv[2], NULL);
		bp.b2 = strtod(argv[3], NULL);
		bp.a3 = strtod(argv[4], NULL);
		bp.ke = strtod(argv[5], NULL);
	}
	if (rate <= 0 || rths_benchmark_plant_tf(&bp, num, den, &err) ||
	    rths_sim_plant_design(num, 1, den, 6, (uint32_t)rate, 0, &sim,
				  &err)) {
		fprintf(stderr, "plant-sections: %s: %s\n", err.path, err.msg);
		return 1;
	}
	putchar('[');
	for (uint32_t i = 0; i < sim.plant_sections; i++) {
		const struct rths_sim_section *c = &sim.plant[i];

		printf("%s[%lld,%lld,%lld,%lld,%lld]", i ? "," : "",
		       (long long)c->b0, (long long)c->b1, (long long)c->b2,
		       (long long)c->a1, (long long)c->a2);
	}
	printf("]\n");
	return 0;
}
