// SPDX-License-Identifier: GPL-2.0
/*
 * rths-coord's outputs besides the CSV: the summary (text and JSON) with
 * each site's round-trip statistics, the per-step timing (steps.csv) and
 * the exact history (history-exact.txt) the tests compare byte for byte.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <rths/hs_criteria.h>

#include "coord.h"

#define MAX_LISTED 16

/* Statistics of a sample: min, mean, p99, max. */
struct dist {
	uint64_t n;
	double min, mean, p99, max;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void dist_of(double *v, uint64_t n, struct dist *d)
{
	double sum = 0;

	memset(d, 0, sizeof(*d));
	if (!n)
		return;
	qsort(v, n, sizeof(double), cmp_double);
	for (uint64_t i = 0; i < n; i++)
		sum += v[i];
	d->n = n;
	d->min = v[0];
	d->max = v[n - 1];
	d->mean = sum / (double)n;
	d->p99 = v[(uint64_t)ceil(0.99 * (double)n) - 1];
}

struct site_summary {
	struct dist rtt, compute;
	const struct site_stats *st;
};

struct summary {
	uint64_t live_steps;
	struct dist step;
	double wall;
	struct site_summary site[COORD_MAX_SITES];
	size_t n_listed;
	double peak_u[MAX_LISTED], peak_t[MAX_LISTED];
	bool has_ref;
	double ref_rms[MAX_LISTED], ref_peak[MAX_LISTED];
};

static void compute(const struct report *r, struct summary *S)
{
	const struct rths_hs_history *h = r->h;
	uint64_t done = coord_steps_done(r->b);
	double *v = malloc((done + 1) * sizeof(double));

	memset(S, 0, sizeof(*S));
	S->wall = r->res->wall;
	for (size_t s = 0; s < r->cc->n_sites; s++) {
		uint64_t n = 0;

		S->site[s].st = coord_site_stats(r->b, s);
		for (uint64_t k = 1; v && k <= done; k++) {
			const struct site_step *p = coord_site_step(r->b, s, k);

			if (p)
				v[n++] = p->rtt;
		}
		dist_of(v, n, &S->site[s].rtt);
		n = 0;
		for (uint64_t k = 1; v && k <= done; k++) {
			const struct site_step *p = coord_site_step(r->b, s, k);

			if (p)
				v[n++] = p->compute;
		}
		dist_of(v, n, &S->site[s].compute);
		S->live_steps = n;
	}
	if (v) {
		uint64_t n = 0;

		for (uint64_t k = coord_steps_journaled(r->b) + 1; k <= done; k++)
			v[n++] = coord_step_time(r->b, k);
		dist_of(v, n, &S->step);
	}
	free(v);
	S->n_listed = h->n_dof < MAX_LISTED ? h->n_dof : MAX_LISTED;
	for (size_t i = 0; i < S->n_listed; i++) {
		size_t at = 0;

		S->peak_u[i] = rths_hs_peak(h->u + i, h->rows, h->n_dof, &at);
		S->peak_t[i] = h->rows ? h->t[at] : 0;
	}
	if (r->ref && r->ref->rows >= h->rows && r->ref->n_dof == h->n_dof) {
		S->has_ref = true;
		for (size_t i = 0; i < S->n_listed; i++)
			rths_hs_error_ratios(h->u + i, r->ref->u + i, h->rows,
					     h->n_dof, &S->ref_rms[i],
					     &S->ref_peak[i]);
	}
}

void report_text(FILE *f, const struct report *r)
{
	const struct rths_hs_run_result *res = r->res;
	const struct rths_hs_experiment *x = r->cc->x;
	double dt = r->h->dt;
	struct summary S;

	compute(r, &S);
	fprintf(f, "rths-coord: %s, test 0x%016llx\n", x->name,
		(unsigned long long)r->test_id);
	fprintf(f, "  sites         %zu, driven %s%s\n", r->cc->n_sites,
		r->serial ? "one after another (--serial)" : "in parallel",
		r->resumed ? ", resumed from the journal" : "");
	fprintf(f, "  integrator    %s, dt = %u/%u s = %.4g ms\n",
		rths_hs_method_name(x->integrator.method),
		x->device.step_ticks, x->device.rate, dt * 1e3);
	fprintf(f, "  steps         %llu of %llu (%.3f s of %.3f s)%s\n",
		(unsigned long long)res->steps_done,
		(unsigned long long)res->steps_planned, res->steps_done * dt,
		res->steps_planned * dt,
		r->interrupted ? ", interrupted" : res->error ? ", failed" : "");
	if (S.step.n)
		fprintf(f, "  step time     min %.3f  mean %.3f  p99 %.3f  max %.3f ms over %llu live steps: %.1f steps/s\n",
			S.step.min * 1e3, S.step.mean * 1e3, S.step.p99 * 1e3,
			S.step.max * 1e3, (unsigned long long)S.step.n,
			S.step.mean > 0 ? 1 / S.step.mean : 0);
	if (coord_steps_journaled(r->b))
		fprintf(f, "  journal       %llu steps fed from the journal\n",
			(unsigned long long)coord_steps_journaled(r->b));
	fprintf(f, "  wall          %.3f s\n", S.wall);
	fprintf(f, "\n  site           round trip (ms): min     mean      p99      max   site compute (ms): mean    max   re-issues reconnects replays (steps) cached\n");
	for (size_t s = 0; s < r->cc->n_sites; s++) {
		const struct site_summary *p = &S.site[s];

		fprintf(f, "  %-14s %24.3f %8.3f %8.3f %8.3f %27.3f %6.3f %11llu %10llu %7llu (%llu) %6llu\n",
			r->cc->sites[s].name, p->rtt.min * 1e3,
			p->rtt.mean * 1e3, p->rtt.p99 * 1e3, p->rtt.max * 1e3,
			p->compute.mean * 1e3, p->compute.max * 1e3,
			(unsigned long long)p->st->reissues,
			(unsigned long long)p->st->reconnects,
			(unsigned long long)p->st->replays,
			(unsigned long long)p->st->replayed_steps,
			(unsigned long long)p->st->cached);
		if (p->st->slowest_reconnect > 0)
			fprintf(f, "  %-14s slowest reconnect %.3f s (a session lost to the next WELCOME)\n",
				r->cc->sites[s].name,
				p->st->slowest_reconnect);
		if (p->st->replay_mismatches)
			fprintf(f, "  %-14s %llu replayed steps answered other forces than the first time\n",
				r->cc->sites[s].name,
				(unsigned long long)p->st->replay_mismatches);
	}
	fprintf(f, "\n  DOF   peak displacement (mm)   at (s)%s\n",
		S.has_ref ? "   error against all-numerical: rms %   peak %" : "");
	for (size_t i = 0; i < S.n_listed; i++) {
		fprintf(f, "  %3zu %24.4f %8.3f", i + 1, S.peak_u[i] * 1e3,
			S.peak_t[i]);
		if (S.has_ref)
			fprintf(f, " %38.3f %7.3f", S.ref_rms[i], S.ref_peak[i]);
		fputc('\n', f);
	}
}

static json_t *dist_json(const struct dist *d)
{
	return json_pack("{s:I,s:f,s:f,s:f,s:f}", "n", (json_int_t)d->n,
			 "min_s", d->min, "mean_s", d->mean, "p99_s", d->p99,
			 "max_s", d->max);
}

int report_json(const char *path, const struct report *r)
{
	json_t *root, *sites, *dofs;
	struct summary S;
	char id[24];
	int ret;

	compute(r, &S);
	snprintf(id, sizeof(id), "0x%016llx", (unsigned long long)r->test_id);
	sites = json_array();
	for (size_t s = 0; s < r->cc->n_sites; s++) {
		const struct site_summary *p = &S.site[s];

		json_array_append_new(sites, json_pack(
			"{s:s,s:o,s:o,s:I,s:I,s:f,s:I,s:I,s:I,s:I}",
			"name", r->cc->sites[s].name,
			"round_trip", dist_json(&p->rtt),
			"site_compute", dist_json(&p->compute),
			"reissues", (json_int_t)p->st->reissues,
			"reconnects", (json_int_t)p->st->reconnects,
			"slowest_reconnect_s", p->st->slowest_reconnect,
			"replays", (json_int_t)p->st->replays,
			"replayed_steps", (json_int_t)p->st->replayed_steps,
			"replay_mismatches", (json_int_t)p->st->replay_mismatches,
			"cached", (json_int_t)p->st->cached));
	}
	dofs = json_array();
	for (size_t i = 0; i < S.n_listed; i++) {
		json_t *d = json_pack("{s:f,s:f}", "peak_m", S.peak_u[i],
				      "at_s", S.peak_t[i]);

		if (S.has_ref) {
			json_object_set_new(d, "ref_rms_pct", json_real(S.ref_rms[i]));
			json_object_set_new(d, "ref_peak_pct", json_real(S.ref_peak[i]));
		}
		json_array_append_new(dofs, d);
	}
	root = json_pack("{s:s,s:s,s:b,s:b,s:I,s:I,s:I,s:b,s:b,s:s,s:f,s:f,s:o,s:o,s:o}",
			 "name", r->cc->x->name,
			 "test_id", id, "serial", r->serial, "resumed", r->resumed,
			 "steps_planned", (json_int_t)r->res->steps_planned,
			 "steps_done", (json_int_t)r->res->steps_done,
			 "steps_journaled", (json_int_t)coord_steps_journaled(r->b),
			 "interrupted", r->interrupted,
			 "failed", r->res->error != 0 && !r->interrupted,
			 "fault", coord_fault_name(coord_fault(r->b)),
			 "wall_s", S.wall,
			 "steps_per_s", S.step.mean > 0 ? 1 / S.step.mean : 0.0,
			 "step_time", dist_json(&S.step),
			 "sites", sites, "dofs", dofs);
	if (!root)
		return -ENOMEM;
	ret = json_dump_file(root, path, JSON_INDENT(2)) ? -EIO : 0;
	json_decref(root);
	return ret;
}

int report_steps_csv(const char *path, const struct report *r)
{
	uint64_t done = coord_steps_done(r->b);
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "step,time_s,step_ms");
	for (size_t s = 0; s < r->cc->n_sites; s++) {
		const char *n = r->cc->sites[s].name;

		fprintf(f, ",%s_rtt_ms,%s_compute_ms,%s_flags,%s_reissues", n,
			n, n, n);
	}
	fputc('\n', f);
	for (uint64_t k = coord_steps_journaled(r->b) + 1; k <= done; k++) {
		fprintf(f, "%llu,%.9g,%.6f", (unsigned long long)k,
			(double)k * r->h->dt, coord_step_time(r->b, k) * 1e3);
		for (size_t s = 0; s < r->cc->n_sites; s++) {
			const struct site_step *p = coord_site_step(r->b, s, k);

			fprintf(f, ",%.6f,%.6f,%u,%u", p->rtt * 1e3,
				p->compute * 1e3, p->flags, p->reissues);
		}
		fputc('\n', f);
	}
	return fclose(f) ? -errno : 0;
}

static void put_row(FILE *f, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %a", v[i]);
}

int report_exact(const char *path, const struct rths_hs_history *h)
{
	size_t n = h->n_dof, q = h->n_if;
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "# step t u[%zu] v[%zu] a[%zu] x_if[%zu] f_meas[%zu], C99 hex floats\n",
		n, n, n, q, q);
	for (size_t k = 0; k < h->rows; k++) {
		fprintf(f, "%zu %a", k, h->t[k]);
		put_row(f, h->u + k * n, n);
		put_row(f, h->v + k * n, n);
		put_row(f, h->a + k * n, n);
		put_row(f, h->x_if + k * q, q);
		put_row(f, h->f_meas + k * q, q);
		fputc('\n', f);
	}
	return fclose(f) ? -errno : 0;
}
