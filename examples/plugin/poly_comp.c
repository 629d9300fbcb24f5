// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Polynomial delay compensation as a compensator plug-in
 * (rths/hs_plugin.h, Documentation/plugins.rst): the command is the
 * order-p polynomial through the last p+1 targets, evaluated one delay
 * ahead (Horiuchi et al. 1999):
 *
 *	c_n = sum_j w_j u_{n-j},  w_j = prod_{m != j} (tau + m dt) / ((m - j) dt)
 *
 * It repeats the built-in "polynomial" (lib/hs/compensation.c) with the
 * same arithmetic in the same order, so that both give the same history
 * bit for bit.  Parameters: {"order": 1, 2 or 3} (default 2); the delay
 * is the experiment's "compensation.delay".
 *
 * Build:  cc -shared -fPIC -o poly_comp.so poly_comp.c
 * Use:    "compensation": {"plugin": "./poly_comp.so", "delay": 0.012,
 *                          "params": {"order": 2}}
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rths/hs_plugin.h>

#define MAX_ORDER 3

struct poly {
	unsigned int order;
	double w[MAX_ORDER + 1];	/* Lagrange weights */
	double hist[MAX_ORDER + 1];	/* targets, newest first */
};

/* "order" from the params' JSON text, a small object; 2 if absent. */
static int order_param(const char *params, unsigned int *order,
		       struct rths_error *err)
{
	const char *p = params ? strstr(params, "\"order\"") : NULL;
	char *end;
	unsigned long v;

	*order = 2;
	if (!p)
		return 0;
	p = strchr(p, ':');
	v = p ? strtoul(p + 1, &end, 10) : 0;
	if (!p || end == p + 1 || v < 1 || v > MAX_ORDER)
		return rths_hs_plugin_error(err, EINVAL,
					    "params.order: expected 1, 2 or 3 in %s",
					    params);
	*order = (unsigned int)v;
	return 0;
}

static int poly_alloc(void **state, const struct rths_hs_compensator_problem *q,
		      struct rths_error *err)
{
	struct poly *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return rths_hs_plugin_error(err, ENOMEM, "no memory");
	r = order_param(q->params, &s->order, err);
	if (r) {
		free(s);
		return r;
	}
	/* weights through t = 0, -dt, ..., -p dt, evaluated at tau */
	for (unsigned int j = 0; j <= s->order; j++) {
		double tj = -(double)j * q->dt;

		s->w[j] = 1;
		for (unsigned int m = 0; m <= s->order; m++)
			if (m != j)
				s->w[j] *= (q->delay + (double)m * q->dt) /
					   (tj + (double)m * q->dt);
	}
	*state = s;
	return 0;
}

static int poly_command(void *state, uint64_t n, double target,
			double *command, struct rths_error *err)
{
	struct poly *s = state;

	(void)n;
	(void)err;
	memmove(s->hist + 1, s->hist, MAX_ORDER * sizeof(double));
	s->hist[0] = target;
	*command = 0;
	for (unsigned int j = 0; j <= s->order; j++)
		*command += s->w[j] * s->hist[j];
	return 0;
}

static void poly_free(void *state)
{
	free(state);
}

const struct rths_hs_compensator_type rths_compensator_type = {
	.abi = RTHS_HS_PLUGIN_ABI,
	.name = "poly-plugin",
	.alloc = poly_alloc,
	.command = poly_command,
	.free = poly_free,
};
