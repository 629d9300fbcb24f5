// SPDX-License-Identifier: GPL-2.0
/*
 * "make plant-response": the RTHS benchmark's plant as the sim card runs
 * it (Tustin at the loop rate, Q40 sections) against its continuous G(s)
 * over 0.5 to 30 Hz, nominal and in the uncertain cases, as TAP: the
 * largest magnitude (dB) and phase (degree) error of each, within a
 * discretisation tolerance of 0.05 dB and 0.5 degree.
 */
#include <stdio.h>

#include <rths/sim_plant.h>

int main(void)
{
	static const struct {
		const char *name;
		double b1, b2, a3, ke;
	} cases[] = {
		{ "nominal", 1, 1, 1, 1 },
		{ "b1 a3 ke +20 %, b2 -20 %", 1.2, 0.8, 1.2, 1.2 },
		{ "b1 a3 ke -20 %, b2 +20 %", 0.8, 1.2, 0.8, 0.8 },
		/* the benchmark's uncertainty, 2 sigma up (the example's) */
		{ "b1 b2 a3 ke +2 sigma", 431.6 / 425, 1.06576e5 / 9.9976e4,
		  5.9 / 3.3, 1.29e6 / 1.19e6 },
	};
	static const uint32_t rates[] = { 1024, 2048, 4096 };
	const double tol_db = 0.05, tol_deg = 0.5;
	int n = 0, bad = 0;

	printf("TAP version 13\n1..%zu\n",
	       sizeof(cases) / sizeof(cases[0]) * sizeof(rates) /
	       sizeof(rates[0]));
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
			struct rths_benchmark_plant bp;
			struct rths_sim_params sim = { 0 };
			struct rths_error err = { 0 };
			double num[1], den[6], db, deg, m, p;
			int ok;

			rths_benchmark_plant_nominal(&bp);
			bp.b1 *= cases[c].b1;
			bp.b2 *= cases[c].b2;
			bp.a3 *= cases[c].a3;
			bp.ke *= cases[c].ke;
			ok = !rths_benchmark_plant_tf(&bp, num, den, &err) &&
			     !rths_sim_plant_design(num, 1, den, 6, rates[r], 0,
						    &sim, &err);
			if (ok) {
				rths_sim_plant_fit(&sim, rates[r], num, 1, den,
						   6, 0.5, 30, &db, &deg);
				ok = db <= tol_db && deg <= tol_deg;
			}
			printf("%sok %d benchmark plant, %s, at %u Hz: ",
			       ok ? "" : "not ", ++n, cases[c].name,
			       rates[r]);
			if (*err.msg) {
				printf("%s\n", err.msg);
			} else {
				rths_sim_plant_response(&sim, rates[r], 4, &m,
							&p);
				printf("%u sections, max error %.4f dB, %.3f deg (0.5-30 Hz); |H(4 Hz)| %.3f, %.1f deg\n",
				       sim.plant_sections, db, deg, m, p);
			}
			bad += !ok;
		}
	printf("# %d passed, %d failed\n", n - bad, bad);
	return bad ? 1 : 0;
}
