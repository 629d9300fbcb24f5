// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The sim card's discrete-time plant designed in userspace: the Tustin
 * design of second-order sections from a continuous transfer function,
 * their frequency response, and the RTHS benchmark's plant.  The card's
 * checks and integer recursion are the device layer's (lib/dev/sim_plant.c).
 */
#include <complex.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <rths/sim_plant.h>

#include "la/la.h"

#define ONE_Q ((double)(1LL << RTHS_SIM_PLANT_Q))

/* ---- frequency responses ---------------------------------------------- */

static double complex polyval(const double *p, size_t n, double complex s)
{
	double complex v = 0;

	for (size_t i = 0; i < n; i++)
		v = v * s + p[i];
	return v;
}

static void mag_phase(double complex h, double *mag, double *phase_deg)
{
	*mag = cabs(h);
	*phase_deg = carg(h) * 180 / M_PI;
	if (*phase_deg <= -180)
		*phase_deg += 360;
}

void rths_tf_response(const double *num, size_t nnum, const double *den,
		      size_t nden, double hz, double *mag, double *phase_deg)
{
	double complex s = I * 2 * M_PI * hz;

	mag_phase(polyval(num, nnum, s) / polyval(den, nden, s), mag,
		  phase_deg);
}

void rths_sim_plant_response(const struct rths_sim_params *sim, uint32_t rate,
			     double hz, double *mag, double *phase_deg)
{
	double complex zi = cexp(-I * 2 * M_PI * hz / rate), h = 1;

	for (uint32_t i = 0; i < sim->plant_sections &&
	     i < RTHS_SIM_SECTIONS_MAX; i++) {
		const struct rths_sim_section *q = &sim->plant[i];

		h *= (q->b0 + (q->b1 + q->b2 * zi) * zi) /
		     (ONE_Q + (q->a1 + q->a2 * zi) * zi);
	}
	mag_phase(h, mag, phase_deg);
}

void rths_sim_plant_fit(const struct rths_sim_params *sim, uint32_t rate,
			const double *num, size_t nnum, const double *den,
			size_t nden, double f_lo, double f_hi, double *db,
			double *deg)
{
	size_t n = f_hi > f_lo ? (size_t)ceil((f_hi - f_lo) / 0.01) : 0;

	*db = *deg = 0;
	for (size_t i = 0; i <= n; i++) {
		double f = i == n ? f_hi : f_lo + 0.01 * (double)i;
		double mc, pc, md, pd;

		rths_tf_response(num, nnum, den, nden, f, &mc, &pc);
		rths_sim_plant_response(sim, rate, f, &md, &pd);
		*db = fmax(*db, fabs(20 * log10(md / mc)));
		*deg = fmax(*deg, fabs(remainder(pd - pc, 360)));
	}
}

/* ---- design ------------------------------------------------------------ */

/*
 * The n roots of p (n + 1 coefficients, p[0] != 0): eigenvalues of the
 * companion matrix (la_eig: LAPACK's dgeev balances it first), each
 * polished by a few Newton steps on the polynomial.  The matrix is built
 * row by row, so la_eig sees its transpose: the same eigenvalues.
 */
static int roots(const double *p, size_t n, double complex *r)
{
	double a[RTHS_SIM_PLANT_ORDER_MAX * RTHS_SIM_PLANT_ORDER_MAX];
	double wr[RTHS_SIM_PLANT_ORDER_MAX], wi[RTHS_SIM_PLANT_ORDER_MAX];
	double dp[RTHS_SIM_PLANT_ORDER_MAX];

	if (!n)
		return 0;
	memset(a, 0, n * n * sizeof(double));
	for (size_t j = 0; j < n; j++)
		a[j] = -p[j + 1] / p[0];
	for (size_t i = 1; i < n; i++)
		a[i * n + i - 1] = 1;
	if (la_eig(n, a, wr, wi))
		return -RTHS_E_NO_CONVERGENCE;
	for (size_t i = 0; i < n; i++)
		dp[i] = p[i] * (double)(n - i);
	for (size_t i = 0; i < n; i++) {
		double complex z = wr[i] + I * wi[i];

		for (int k = 0; k < 3; k++) {
			double complex d = polyval(dp, n, z);

			if (cabs(d) == 0)
				break;
			z -= polyval(p, n + 1, z) / d;
		}
		if (wi[i] == 0)	/* a real root stays real */
			z = creal(z);
		r[i] = z;
	}
	return 0;
}

/* Leading zeros dropped; the count of what is left. */
static size_t strip(const double **p, size_t n)
{
	while (n && (*p)[0] == 0) {
		(*p)++;
		n--;
	}
	return n;
}

/* A root or a conjugate pair, as a factor of a section. */
struct pair {
	double complex r[2];
	int n;			/* 1 or 2 */
	bool used;
};

/*
 * Pairs from roots: complex ones with their conjugates, real ones two by
 * two in ascending order; with @single, the largest real root (the
 * pole that settles slowest) alone at the end.  Returns the pair count.
 */
static size_t make_pairs(const double complex *r, size_t n, bool single,
			 struct pair *out)
{
	double re[RTHS_SIM_PLANT_ORDER_MAX];
	size_t nre = 0, np = 0;
	bool taken[RTHS_SIM_PLANT_ORDER_MAX] = { false };

	for (size_t i = 0; i < n; i++) {
		if (taken[i])
			continue;
		if (cimag(r[i]) == 0) {
			re[nre++] = creal(r[i]);
			continue;
		}
		taken[i] = true;
		/* its conjugate: the nearest unpaired one */
		size_t best = i;
		double bd = INFINITY;

		for (size_t j = i + 1; j < n; j++) {
			double d = cabs(r[j] - conj(r[i]));

			if (!taken[j] && cimag(r[j]) != 0 && d < bd) {
				bd = d;
				best = j;
			}
		}
		taken[best] = true;
		out[np++] = (struct pair){ { r[i], conj(r[i]) }, 2, false };
	}
	/* ascending, insertion sort */
	for (size_t i = 1; i < nre; i++)
		for (size_t j = i; j > 0 && re[j - 1] > re[j]; j--) {
			double t = re[j];

			re[j] = re[j - 1];
			re[j - 1] = t;
		}
	if (single && nre)
		nre--;		/* re[nre], the largest, goes alone */
	for (size_t i = 0; i + 1 < nre; i += 2)
		out[np++] = (struct pair){ { re[i], re[i + 1] }, 2, false };
	if (single)
		out[np++] = (struct pair){ { re[nre], 0 }, 1, false };
	return np;
}

static double pair_radius(const struct pair *p)
{
	double a = cabs(p->r[0]);

	return p->n == 2 && cabs(p->r[1]) > a ? cabs(p->r[1]) : a;
}

static void pair_poly(const struct pair *p, double c[3])
{
	if (p->n == 1) {
		c[0] = 1;
		c[1] = -creal(p->r[0]);
		c[2] = 0;
		return;
	}
	c[0] = 1;
	c[1] = -creal(p->r[0] + p->r[1]);
	c[2] = creal(p->r[0] * p->r[1]);
}

/* b(z^-1) / a(z^-1) at z */
static double complex section_at(const double b[3], const double a[3],
				 double complex z)
{
	double complex zi = 1 / z;

	return (b[0] + (b[1] + b[2] * zi) * zi) /
	       (a[0] + (a[1] + a[2] * zi) * zi);
}

int rths_sim_plant_design(const double *num, size_t nnum, const double *den,
			  size_t nden, uint32_t rate, double prewarp_hz,
			  struct rths_sim_params *sim, struct rths_error *err)
{
	double complex p[RTHS_SIM_PLANT_ORDER_MAX], z[RTHS_SIM_PLANT_ORDER_MAX];
	struct pair pp[RTHS_SIM_PLANT_ORDER_MAX], zp[RTHS_SIM_PLANT_ORDER_MAX];
	double b[RTHS_SIM_SECTIONS_MAX][3], a[RTHS_SIM_SECTIONS_MAX][3];
	struct rths_sim_params out;
	double complex s0, z0, hc, hd = 1;
	size_t n, m, ns, nz;
	double K;
	int r;

	if (!num || !den || !sim || !rate)
		return rths_error_set(err, -EINVAL, NULL, 0, NULL,
				      "plant design: no transfer function, parameters or rate");
	for (size_t i = 0; i < nnum; i++)
		if (!isfinite(num[i]))
			return rths_error_set(err, -RTHS_E_NONFINITE, NULL, 0,
					      "num", "coefficient %zu is not finite", i);
	for (size_t i = 0; i < nden; i++)
		if (!isfinite(den[i]))
			return rths_error_set(err, -RTHS_E_NONFINITE, NULL, 0,
					      "den", "coefficient %zu is not finite", i);
	nnum = strip(&num, nnum);
	nden = strip(&den, nden);
	if (!nden)
		return rths_error_set(err, -EDOM, NULL, 0, "den",
				      "the denominator is zero");
	if (!nnum)
		return rths_error_set(err, -EDOM, NULL, 0, "num",
				      "the numerator is zero: no plant");
	n = nden - 1;
	m = nnum - 1;
	if (m > n)
		return rths_error_set(err, -EDOM, NULL, 0, "num",
				      "not proper: numerator order %zu above the denominator's %zu",
				      m, n);
	if (n > RTHS_SIM_PLANT_ORDER_MAX)
		return rths_error_set(err, -ERANGE, NULL, 0, "den",
				      "order %zu, the card runs %d at most", n,
				      RTHS_SIM_PLANT_ORDER_MAX);
	if (prewarp_hz < 0 || !(prewarp_hz < rate / 2.0))
		return rths_error_set(err, -ERANGE, NULL, 0, "prewarp",
				      "%g Hz is not in [0, %g) (half the rate)",
				      prewarp_hz, rate / 2.0);
	if (prewarp_hz > 0) {
		double w0 = 2 * M_PI * prewarp_hz;

		K = w0 / tan(w0 / (2.0 * rate));
	} else {
		K = 2.0 * rate;
	}
	r = roots(den, n, p);
	if (!r)
		r = roots(num, m, z);
	if (r)
		return rths_error_set(err, r, NULL, 0, NULL,
				      "plant design: LAPACK found no roots");
	for (size_t i = 0; i < n; i++) {
		if (!(creal(p[i]) < 0))
			return rths_error_set(err, -EDOM, NULL, 0, "den",
					      "a pole at %g%+gi rad/s: the card runs only stable plants",
					      creal(p[i]), cimag(p[i]));
		p[i] = (K + p[i]) / (K - p[i]);
	}
	for (size_t i = 0; i < m; i++) {
		if (cabs(K - z[i]) == 0)
			return rths_error_set(err, -EDOM, NULL, 0, "num",
					      "a zero at %g rad/s maps to infinity",
					      creal(z[i]));
		z[i] = (K + z[i]) / (K - z[i]);
	}
	for (size_t i = m; i < n; i++)
		z[i] = -1;
	ns = make_pairs(p, n, n % 2, pp);
	/* a lone real zero for the first-order section: there is one, as
	 * complex zeros come in pairs */
	nz = make_pairs(z, n, n % 2, zp);
	/* least resonant first */
	for (size_t i = 1; i < ns; i++)
		for (size_t j = i; j > 0 && pair_radius(&pp[j - 1]) >
		     pair_radius(&pp[j]); j--) {
			struct pair t = pp[j];

			pp[j] = pp[j - 1];
			pp[j - 1] = t;
		}
	/* each section, most resonant first, takes the nearest zeros of
	 * its own order */
	memset(&out, 0, sizeof(out));
	for (size_t k = ns; k-- > 0;) {
		size_t best = nz;
		double bd = INFINITY;

		for (size_t j = 0; j < nz; j++) {
			double d = cabs(zp[j].r[0] - pp[k].r[0]);

			if (!zp[j].used && zp[j].n == pp[k].n && d < bd) {
				bd = d;
				best = j;
			}
		}
		if (best == nz)	/* cannot happen: the counts agree */
			return rths_error_set(err, -EDOM, NULL, 0, NULL,
					      "plant design: cannot pair the zeros");
		zp[best].used = true;
		pair_poly(&pp[k], a[k]);
		pair_poly(&zp[best], b[k]);
	}
	if (!n) {	/* a pure gain */
		ns = 1;
		a[0][0] = b[0][0] = 1;
		a[0][1] = a[0][2] = b[0][1] = b[0][2] = 0;
	}
	/* unit gain per section at DC, or at rate / 4 over a zero at DC */
	for (size_t k = 0; k < ns; k++) {
		double complex h = section_at(b[k], a[k], 1);

		if (!(cabs(h) > 1e-9) || !isfinite(cabs(h)))
			h = section_at(b[k], a[k], I);
		for (int i = 0; i < 3; i++)
			b[k][i] /= cabs(h);
	}
	/* the gain: G(s0) against the sections at z0 = (K + s0) / (K - s0) */
	s0 = 0;
	z0 = 1;
	hc = polyval(num, nnum, s0) / polyval(den, nden, s0);
	if (!(cabs(hc) > 0) || !isfinite(cabs(hc))) {
		z0 = I;
		s0 = K * (z0 - 1) / (z0 + 1);
		hc = polyval(num, nnum, s0) / polyval(den, nden, s0);
	}
	for (size_t k = 0; k < ns; k++)
		hd *= section_at(b[k], a[k], z0);
	for (int i = 0; i < 3; i++)
		b[0][i] *= creal(hc / hd);
	for (size_t k = 0; k < ns; k++) {
		double c[5] = { b[k][0], b[k][1], b[k][2], a[k][1], a[k][2] };
		int64_t q[5];

		for (int i = 0; i < 5; i++) {
			double v = nearbyint(c[i] * ONE_Q);

			if (!(fabs(v) <= (double)RTHS_SIM_COEF_MAX))
				return rths_error_set(err, -ERANGE, NULL, 0,
						      "plant",
						      "section %zu: coefficient %g is beyond +-256",
						      k, c[i]);
			q[i] = (int64_t)v;
		}
		out.plant[k] = (struct rths_sim_section){ q[0], q[1], q[2],
							  q[3], q[4] };
	}
	out.plant_sections = (uint32_t)ns;
	out.set = RTHS_SIM_PLANT;
	r = rths_sim_plant_check(&out, err);
	if (r)
		return r;
	sim->set |= RTHS_SIM_PLANT;
	sim->plant_sections = out.plant_sections;
	memcpy(sim->plant, out.plant, sizeof(sim->plant));
	return 0;
}

/* ---- the benchmark ------------------------------------------------------ */

void rths_benchmark_plant_nominal(struct rths_benchmark_plant *p)
{
	*p = (struct rths_benchmark_plant){
		.gain = 1.0261, .a1b0 = 2.1283e13, .a2 = 4.2297e6,
		.b1 = 425, .b2 = 9.9976e4, .a3 = 3.3,
		.me = 29.13, .ke = 1.19e6, .zeta = 0.0097,
	};
}

/* c = a * b, degrees na - 1 and nb - 1 */
static void polymul(const double *pa, size_t na, const double *pb, size_t nb,
		    double *c)
{
	memset(c, 0, (na + nb - 1) * sizeof(double));
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			c[i + j] += pa[i] * pb[j];
}

int rths_benchmark_plant_tf(const struct rths_benchmark_plant *p,
			    double num[1], double den[6],
			    struct rths_error *err)
{
	const struct { const char *name; double v; } f[] = {
		{ "a1b0", p->a1b0 }, { "a2", p->a2 }, { "b1", p->b1 },
		{ "b2", p->b2 }, { "a3", p->a3 }, { "me", p->me },
		{ "ke", p->ke }, { "zeta", p->zeta },
	};
	double ce, ga[2], gest[3], p3[4], q2[3];

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!(f[i].v > 0) || !isfinite(f[i].v))
			return rths_error_set(err, -ERANGE, NULL, 0, f[i].name,
					      "%g: the benchmark plant needs a finite value above 0",
					      f[i].v);
	if (!(p->gain >= 0) || !isfinite(p->gain))
		return rths_error_set(err, -ERANGE, NULL, 0, "gain",
				      "%g: needs a finite value >= 0", p->gain);
	ce = 2 * p->zeta * sqrt(p->ke * p->me);
	ga[0] = 1;
	ga[1] = p->a3;
	gest[0] = p->me;
	gest[1] = ce;
	gest[2] = p->ke;
	q2[0] = 1;
	q2[1] = p->b1;
	q2[2] = p->b2;
	/* G0 = 1 / ((s + a3) Gest^-1 + a2 s); G = gain a1b0 / (Q2 / G0 + a1b0) */
	polymul(ga, 2, gest, 3, p3);
	p3[2] += p->a2;
	polymul(q2, 3, p3, 4, den);
	den[5] += p->a1b0;
	num[0] = p->gain * p->a1b0;
	return 0;
}
