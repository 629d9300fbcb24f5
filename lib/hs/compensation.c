// SPDX-License-Identifier: LGPL-2.1-or-later
/* Delay compensation: polynomial extrapolation, adaptive ATS, and the
 * calls into a compensator plug-in. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs/compensation_impl.h"
#include "hs/linalg.h"

/* Targets kept for differences and extrapolation (order 3 needs 4). */
#define HIST 4

struct rths_hs_comp {
	struct rths_hs_comp_params p;
	double hist[HIST];	/* targets, newest first */
	double lagrange[HIST];	/* polynomial weights */
	double a[3];		/* ATS coefficients */
	/*
	 * ATS: the window's least-squares problem as sliding normal
	 * equations, O(1) a step.  rows holds each sample's regressors
	 * [x, x', x''] and the command (4 numbers), so the sample leaving
	 * the window can be taken out again; every window samples the sums
	 * are rebuilt from the rows to drop accumulated rounding.
	 */
	double meas_hist[HIST];	/* measured, newest first */
	double *rows;
	size_t window, count, head, seen;
	double S[3][3], g[3], xx;
	unsigned int since;
	unsigned long updates;
	/* a plug-in: its type and this channel's state; the steps the
	 * public calls count for it */
	const struct rths_hs_compensator_type *plug;
	void *state;
	uint64_t commands, observed;
};

static const char *const comp_names[] = {
	[RTHS_HS_COMP_NONE] = "none",
	[RTHS_HS_COMP_POLYNOMIAL] = "polynomial",
	[RTHS_HS_COMP_ATS] = "ats",
};

const char *rths_hs_comp_name(enum rths_hs_comp_kind k)
{
	const struct rths_hs_compensator_type *t =
		rths_hs_comp_plugin_lookup(k, NULL);

	if (t)
		return t->name;
	if ((unsigned int)k > RTHS_HS_COMP_ATS || !comp_names[k])
		return "unknown";
	return comp_names[k];
}

enum rths_hs_comp_kind rths_hs_comp_from_name(const char *name)
{
	enum rths_hs_comp_kind k = 0;

	if (!name)
		return 0;
	for (unsigned int i = 1; i <= RTHS_HS_COMP_ATS; i++)
		if (!strcmp(comp_names[i], name))
			return (enum rths_hs_comp_kind)i;
	/* then the plug-ins registered under that name */
	rths_hs_comp_plugin_by_name(name, &k);
	return k;
}

void rths_hs_comp_defaults(struct rths_hs_comp_params *p,
			   enum rths_hs_comp_kind kind, double dt)
{
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->dt = dt;
	p->order = 2;
	p->window = dt > 0 ? (unsigned int)ceil(1.0 / dt) : 1024;
	if (p->window < 8)
		p->window = 8;
	p->update_every = 1;
	p->a0_min = 0.5;
	p->a0_max = 2.0;
	p->a1_min = 0.0;
	p->a1_max = 0.1;
	p->a2_min = 0.0;
	p->a2_max = 0.005;
	p->min_motion = 1e-6;
}

int rths_hs_comp_check(const struct rths_hs_comp_params *p,
		       struct rths_error *err)
{
#define BAD(field, ...) \
	rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0, field, __VA_ARGS__)
	bool plug = rths_hs_comp_is_plugin(p->kind);

	if (plug && !rths_hs_comp_plugin_lookup(p->kind, NULL))
		return rths_error_set(err, RTHS_E_BAD_CHOICE, NULL, 0,
				      "method",
				      "no compensator plug-in is registered as %d",
				      (int)p->kind);
	if (!plug && (p->kind < RTHS_HS_COMP_NONE ||
		      p->kind > RTHS_HS_COMP_ATS))
		return rths_error_set(err, RTHS_E_BAD_CHOICE, NULL, 0,
				      "method", "unknown compensation %d",
				      (int)p->kind);
	if (!(p->dt > 0))
		return BAD("dt", "expected a positive step");
	if (!(p->delay >= 0 && p->delay <= 1))
		return BAD("delay", "expected a delay in [0, 1] s");
	if (p->kind == RTHS_HS_COMP_POLYNOMIAL && (p->order < 1 || p->order > 3))
		return BAD("order", "expected an order of 1, 2 or 3");
	if (p->kind != RTHS_HS_COMP_ATS)
		return 0;
	if (p->window < 8 || p->window > 1000000)
		return BAD("window", "expected 8 to 1000000 samples");
	if (p->update_every < 1)
		return BAD("update_every", "expected at least 1 step");
	if (!(p->a0_min > 0 && p->a0_min <= 1 && p->a0_max >= 1))
		return BAD("a0_bounds", "expected 0 < a0_min <= 1 <= a0_max");
	if (!(p->a1_min <= p->delay && p->delay <= p->a1_max))
		return BAD("a1_bounds", "expected a1_min <= delay <= a1_max");
	if (!(p->a2_min <= p->delay * p->delay / 2 &&
	      p->delay * p->delay / 2 <= p->a2_max))
		return BAD("a2_bounds", "expected a2_min <= delay^2/2 <= a2_max");
	if (!(p->min_motion >= 0))
		return BAD("min_motion", "expected a displacement >= 0 m");
	return 0;
#undef BAD
}

/* Lagrange weights through t = 0, -dt, ..., -p dt, evaluated at tau. */
static void lagrange(double *w, unsigned int p, double dt, double tau)
{
	for (unsigned int j = 0; j <= p; j++) {
		double tj = -(double)j * dt;

		w[j] = 1;
		for (unsigned int m = 0; m <= p; m++)
			if (m != j)
				w[j] *= (tau + (double)m * dt) / (tj + (double)m * dt);
	}
}

/* This channel's state of a plug-in. */
static int plugin_alloc(struct rths_hs_comp *c, unsigned int channel,
			struct rths_error *err)
{
	struct rths_hs_compensator_problem q = {
		.dt = c->p.dt,
		.delay = c->p.delay,
		.channel = channel,
	};
	struct rths_error e = { 0 };
	int r;

	c->plug = rths_hs_comp_plugin_lookup(c->p.kind, &q.params);
	r = c->plug->alloc(&c->state, &q, &e);
	if (r) {
		r = rths_hs_comp_plugin_fail(c->plug, "alloc", 0, r, &e, err);
		c->plug = NULL;		/* nothing to free */
	}
	return r;
}

int rths_hs_comp_new(struct rths_hs_comp **out,
		     const struct rths_hs_comp_params *p,
		     struct rths_error *err)
{
	return rths_hs_comp_new_channel(out, p, 0, err);
}

int rths_hs_comp_new_channel(struct rths_hs_comp **out,
			     const struct rths_hs_comp_params *p,
			     unsigned int channel, struct rths_error *err)
{
	struct rths_hs_comp *c;
	int r = rths_hs_comp_check(p, err);

	*out = NULL;
	if (r < 0)
		return r;
	c = calloc(1, sizeof(*c));
	if (!c)
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "cannot allocate compensation");
	c->p = *p;
	c->a[0] = 1;
	if (rths_hs_comp_is_plugin(p->kind)) {
		r = plugin_alloc(c, channel, err);
		if (r < 0) {
			free(c);
			return r;
		}
	}
	if (p->kind == RTHS_HS_COMP_POLYNOMIAL) {
		lagrange(c->lagrange, p->order, p->dt, p->delay);
		c->a[1] = p->delay;
	}
	if (p->kind == RTHS_HS_COMP_ATS) {
		c->a[1] = p->delay;
		c->a[2] = p->delay * p->delay / 2;
		c->window = p->window;
		c->rows = rths_zalloc(4 * c->window, err);
		if (!c->rows) {
			rths_hs_comp_free(c);
			return -ENOMEM;
		}
	}
	*out = c;
	return 0;
}

void rths_hs_comp_free(struct rths_hs_comp *c)
{
	if (!c)
		return;
	if (c->plug)
		c->plug->free(c->state);
	free(c->rows);
	free(c);
}

/* Second-order backward differences of x[0] (newest), x[-1], ... */
static double d1(const double *h, double dt)
{
	return (3 * h[0] - 4 * h[1] + h[2]) / (2 * dt);
}

static double d2(const double *h, double dt)
{
	return (2 * h[0] - 5 * h[1] + 4 * h[2] - h[3]) / (dt * dt);
}

int rths_hs_comp_step(struct rths_hs_comp *c, uint64_t n, double target,
		      double *command, struct rths_error *err)
{
	struct rths_error e = { 0 };
	int r;

	if (!c->plug) {
		*command = rths_hs_comp_command(c, target);
		return 0;
	}
	c->commands++;
	r = c->plug->command(c->state, n, target, command, &e);
	if (r)
		return rths_hs_comp_plugin_fail(c->plug, "command", n, r, &e,
						err);
	if (!(*command - *command == 0))
		return rths_error_set(err, RTHS_E_NONFINITE, NULL, 0, NULL,
				      "compensator plug-in '%s': command gave a non-finite command (%g for the target %g) at step %llu",
				      c->plug->name, *command, target,
				      (unsigned long long)n);
	return 0;
}

int rths_hs_comp_learn(struct rths_hs_comp *c, uint64_t n, double command,
		       double measured, struct rths_error *err)
{
	struct rths_error e = { 0 };
	int r;

	if (!c->plug) {
		rths_hs_comp_observe(c, command, measured);
		return 0;
	}
	c->observed++;
	if (!c->plug->observe)
		return 0;
	r = c->plug->observe(c->state, n, command, measured, &e);
	return r ? rths_hs_comp_plugin_fail(c->plug, "observe", n, r, &e, err)
		 : 0;
}

double rths_hs_comp_command(struct rths_hs_comp *c, double target)
{
	double cmd = target;

	if (c->plug)
		return rths_hs_comp_step(c, c->commands, target, &cmd,
					 NULL) ? NAN : cmd;

	memmove(c->hist + 1, c->hist, (HIST - 1) * sizeof(double));
	c->hist[0] = target;
	switch (c->p.kind) {
	case RTHS_HS_COMP_POLYNOMIAL:
		cmd = 0;
		for (unsigned int j = 0; j <= c->p.order; j++)
			cmd += c->lagrange[j] * c->hist[j];
		break;
	case RTHS_HS_COMP_ATS:
		cmd = c->a[0] * target + c->a[1] * d1(c->hist, c->p.dt) +
		      c->a[2] * d2(c->hist, c->p.dt);
		break;
	default:
		break;
	}
	return cmd;
}

static double clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Least squares over n samples given newest-last arrays. */
static int fit(const double *cmd, const double *meas, size_t n, double dt,
	       double a[3], struct rths_error *err)
{
	size_t rows = n - 3;
	double *A = rths_zalloc(rows * 3 + rows, err), *b;
	int rank = 0, r;

	if (!A)
		return -ENOMEM;
	b = A + rows * 3;
	for (size_t i = 0; i < rows; i++) {
		size_t k = i + 3;
		double h[4] = { meas[k], meas[k - 1], meas[k - 2], meas[k - 3] };

		LA_AT(A, rows, i, 0) = h[0];
		LA_AT(A, rows, i, 1) = d1(h, dt);
		LA_AT(A, rows, i, 2) = d2(h, dt);
		b[i] = cmd[k];
	}
	r = rths_hs_la_lstsq(rows, 3, A, b, 1e-10, &rank, err);
	if (r == 0 && rank < 3)
		r = rths_error_set(err, RTHS_E_SINGULAR, NULL, 0, NULL,
				   "the window does not excite displacement, velocity and acceleration independently");
	if (r == 0)
		memcpy(a, b, 3 * sizeof(double));
	free(A);
	return r;
}

int rths_hs_ats_estimate(const double *cmd, const double *meas, size_t n,
			 double dt, double a[3], struct rths_error *err)
{
	if (n < 8 || !(dt > 0))
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "an ATS fit needs at least 8 samples");
	return fit(cmd, meas, n, dt, a, err);
}

/* Adds (sign 1) or removes (sign -1) one sample from the sums. */
static void accumulate(struct rths_hs_comp *c, const double *row, double sign)
{
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++)
			c->S[i][j] += sign * row[i] * row[j];
		c->g[i] += sign * row[i] * row[3];
	}
	c->xx += sign * row[0] * row[0];
}

static void rebuild(struct rths_hs_comp *c)
{
	memset(c->S, 0, sizeof(c->S));
	memset(c->g, 0, sizeof(c->g));
	c->xx = 0;
	for (size_t k = 0; k < c->count; k++)
		accumulate(c, c->rows + 4 * k, 1);
}

/* S a = g, equilibrated, by Cholesky; -1 if ill-conditioned. */
static int solve3(const struct rths_hs_comp *c, double a[3])
{
	double A[9], d[3];

	for (int i = 0; i < 3; i++) {
		if (!(c->S[i][i] > 0))
			return -1;
		d[i] = 1 / sqrt(c->S[i][i]);
	}
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++)
			LA_AT(A, 3, i, j) = d[i] * c->S[i][j] * d[j];
		a[i] = d[i] * c->g[i];
	}
	if (la_chol_factor(3, A, 1e-12, NULL) != 0)
		return -1;
	la_chol_solve(3, A, a, 1);
	for (int i = 0; i < 3; i++)
		a[i] *= d[i];
	return 0;
}

void rths_hs_comp_observe(struct rths_hs_comp *c, double command,
			  double measured)
{
	double *row, a[3];

	if (c->plug) {
		rths_hs_comp_learn(c, c->observed, command, measured, NULL);
		return;
	}
	if (c->p.kind != RTHS_HS_COMP_ATS)
		return;
	memmove(c->meas_hist + 1, c->meas_hist, (HIST - 1) * sizeof(double));
	c->meas_hist[0] = measured;
	/* The first samples only seed the differences, as in the fit. */
	if (++c->seen <= 3)
		return;
	row = c->rows + 4 * c->head;
	if (c->count == c->window)
		accumulate(c, row, -1);
	else
		c->count++;
	row[0] = measured;
	row[1] = d1(c->meas_hist, c->p.dt);
	row[2] = d2(c->meas_hist, c->p.dt);
	row[3] = command;
	accumulate(c, row, 1);
	c->head = (c->head + 1) % c->window;
	if (c->head == 0)
		rebuild(c);
	if (c->count < c->window || ++c->since < c->p.update_every)
		return;
	c->since = 0;
	/* Near rest the fit would chase sensor noise: keep what we have. */
	if (sqrt(fmax(c->xx, 0) / (double)c->count) < c->p.min_motion ||
	    solve3(c, a) < 0)
		return;
	c->a[0] = clamp(a[0], c->p.a0_min, c->p.a0_max);
	c->a[1] = clamp(a[1], c->p.a1_min, c->p.a1_max);
	c->a[2] = clamp(a[2], c->p.a2_min, c->p.a2_max);
	c->updates++;
}

void rths_hs_comp_coefficients(const struct rths_hs_comp *c, double a[3])
{
	memcpy(a, c->a, 3 * sizeof(double));
	if (c->plug && c->plug->coefficients)
		c->plug->coefficients(c->state, a);
}

unsigned long rths_hs_comp_updates(const struct rths_hs_comp *c)
{
	return c->updates;
}
