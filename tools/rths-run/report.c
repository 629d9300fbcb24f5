// SPDX-License-Identifier: GPL-2.0
/* rths-run: the run summary: peaks, tracking criteria, reference errors, timing. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <jansson.h>

#include <linux/rths.h>
#include <rths/hs_criteria.h>
#include <rths/hs_output.h>

#include "rths-run.h"

static struct peak peak_of(const double *a, size_t rows, size_t stride,
			   const double *t)
{
	size_t at;
	struct peak p;

	p.value = rths_hs_peak(a, rows, stride, &at);
	p.time = rows ? t[at] : 0;
	return p;
}

void report_compute(const struct report_input *in, struct report *R)
{
	const struct rths_hs_history *h = in->h;
	size_t rows = h->rows;

	memset(R, 0, sizeof(*R));
	R->n = h->n_dof;
	R->m = h->n_act;
	R->n_listed = R->n < REPORT_MAX_LISTED ? R->n : REPORT_MAX_LISTED;
	for (size_t i = 0; i < R->n_listed; i++) {
		double best = 0, when = 0;

		R->u[i] = peak_of(h->u + i, rows, R->n, h->t);
		/* Absolute acceleration: relative plus the ground's along
		 * the DOF (r_i ag). */
		for (size_t k = 0; k < rows; k++) {
			double aa = fabs(h->a[k * R->n + i] +
					 h->influence[i] * h->ag[k]);

			if (aa > best) {
				best = aa;
				when = h->t[k];
			}
		}
		R->a_abs[i].value = best;
		R->a_abs[i].time = when;
	}
	for (size_t j = 0; j < R->m; j++) {
		R->stroke[j] = peak_of(h->disp + j, rows, R->m, h->t);
		R->force[j] = peak_of(h->force + j, rows, R->m, h->t);
		/* Benchmark: commanded = the decoupled target, measured =
		 * the actuator's displacement; from step 1 on. */
		if (rows > 2)
			rths_hs_tracking(h->target + R->m + j,
					 h->disp + R->m + j, rows - 1, R->m,
					 h->dt, 50, &R->track[j]);
		R->j1_bench[j] = rows > 2 ? rths_hs_tracking_benchmark_lag(
			h->target + R->m + j, h->disp + R->m + j, rows - 1,
			R->m, RTHS_HS_BENCHMARK_LAG_MIN,
			RTHS_HS_BENCHMARK_LAG_MAX) : -1;
		R->j1_bench_ms[j] = R->j1_bench[j] >= 0 ?
			(double)R->j1_bench[j] * h->dt * 1e3 : NAN;
		/* the same in the frequency domain */
		if (rows > 2)
			tracking_fei(h->target + R->m + j, h->disp + R->m + j,
				     rows - 1, R->m, h->dt, &R->fei[j]);
	}
	if (in->ref && in->ref->rows >= rows && in->ref->n_dof == R->n) {
		R->has_ref = true;
		for (size_t i = 0; i < R->n_listed; i++) {
			rths_hs_error_ratios(h->u + i, in->ref->u + i, rows, R->n,
					     &R->ref_rms[i], &R->ref_peak[i]);
			R->ref_still[i] = rths_hs_peak(in->ref->u + i, rows,
						       R->n, NULL) == 0;
		}
	}
	R->over_budget = report_over_budget(h, &R->over_worst,
					    &R->over_worst_step);
}

uint64_t report_over_budget(const struct rths_hs_history *h, double *worst,
			    size_t *worst_step)
{
	uint64_t n = 0;

	*worst = 0;
	*worst_step = 0;
	for (size_t k = 1; k < h->rows; k++) {
		if (h->compute[k] > h->dt)
			n++;
		if (h->compute[k] > *worst) {
			*worst = h->compute[k];
			*worst_step = k;
		}
	}
	return n;
}

void report_over_budget_warning(FILE *f, const struct report_input *in)
{
	const struct rths_hs_history *h = in->h;
	size_t at;
	double worst;
	uint64_t n = report_over_budget(h, &worst, &at);

	if (n)
		fprintf(f, "rths-run: warning: %llu of %llu steps OVER BUDGET: compute longer than the %.1f us step, worst %.1f us at step %zu (t = %.4f s)\n",
			(unsigned long long)n,
			(unsigned long long)in->res->steps_done, h->dt * 1e6,
			worst * 1e6, at, h->t[at]);
}

static const char *const ode_kinds[] = { "", "chain", "viscous_damper",
					  "multibody" };

/* An ODE substructure's work per hybrid step against the step. */
static void ode_text(FILE *f, size_t i, const struct rths_hs_odesub *s,
		     const struct rths_hs_odesub_work *w)
{
	fprintf(f, "  ODE sub %zu     %s, %s, %s input: per step ODE steps p50 %.0f p99 %.0f max %.0f, f-evals p50 %.0f p99 %.0f max %.0f, Jacobians max %.0f, Newton iterations p99 %.0f max %.0f\n",
		i, ode_kinds[rths_hs_odesub_kind(s)],
		rths_ode_method_name(rths_hs_odesub_method(s)),
		rths_hs_odesub_input(s) == RTHS_HS_ODESUB_LINEAR ? "linear" :
		"held", w->ode_steps.p50, w->ode_steps.p99, w->ode_steps.max,
		w->f_evals.p50, w->f_evals.p99, w->f_evals.max,
		w->jac_evals.max, w->newton_iters.p99, w->newton_iters.max);
	fprintf(f, "                compute p50 %.1f  p99 %.1f  max %.1f us (budget %.1f us: p99 %.1f %%, %llu over)\n",
		w->compute.p50 * 1e6, w->compute.p99 * 1e6,
		w->compute.max * 1e6, w->budget * 1e6,
		w->budget > 0 ? 100 * w->compute.p99 / w->budget : 0,
		(unsigned long long)w->over_budget);
	if (rths_hs_odesub_kind(s) == RTHS_HS_ODESUB_MULTIBODY)
		fprintf(f, "                constraint drift max %.2e m, %.2e m/s; energy balance max %.3g J (%.2e of the largest energy, %.3g J)\n",
			w->drift_pos, w->drift_vel, w->energy_error,
			w->energy_max > 0 ? w->energy_error / w->energy_max : 0,
			w->energy_max);
}

static json_t *pct_json(const struct rths_hs_odesub_pct *p, double scale)
{
	return json_pack("{s:f,s:f,s:f}", "p50", p->p50 * scale, "p99",
			 p->p99 * scale, "max", p->max * scale);
}

static json_t *ode_json(const struct report_input *in)
{
	json_t *a = json_array();

	for (size_t i = 0; i < in->n_odesubs; i++) {
		const struct rths_hs_odesub *s = in->odesubs[i];
		const struct rths_hs_odesub_work *w = &in->ode_work[i];

		json_array_append_new(a, json_pack(
			"{s:s,s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:f,s:I,s:I}",
			"type", ode_kinds[rths_hs_odesub_kind(s)],
			"method", rths_ode_method_name(rths_hs_odesub_method(s)),
			"input", rths_hs_odesub_input(s) == RTHS_HS_ODESUB_LINEAR ?
			"linear" : "hold",
			"ode_steps", pct_json(&w->ode_steps, 1),
			"f_evals", pct_json(&w->f_evals, 1),
			"jacobians", pct_json(&w->jac_evals, 1),
			"newton_iters", pct_json(&w->newton_iters, 1),
			"compute_us", pct_json(&w->compute, 1e6),
			"budget_us", w->budget * 1e6,
			"over_budget", (json_int_t)w->over_budget,
			"f_evals_total", (json_int_t)w->total_f_evals));
		if (rths_hs_odesub_kind(s) == RTHS_HS_ODESUB_MULTIBODY)
			json_object_set_new(json_array_get(a, i), "multibody",
					    json_pack("{s:f,s:f,s:f,s:f}",
						      "drift_m", w->drift_pos,
						      "drift_mps", w->drift_vel,
						      "energy_error_J", w->energy_error,
						      "energy_max_J", w->energy_max));
	}
	return a;
}

static bool has_counters(const struct step_thread *t)
{
	return t && t->has_first && t->has_last;
}

#define DELTA(t, field) ((t)->last.field - (t)->first.field)

/* From the first to the last step. */
static void step_thread_text(FILE *f, const struct step_thread *t)
{
	const char *pol;

	if (!has_counters(t))
		return;
	pol = rths_rt_policy_name(t->last.sched_policy);
	fprintf(f, "  step thread   %s", pol ? pol : "?");
	if (t->last.sched_priority)
		fprintf(f, " %d", t->last.sched_priority);
	fprintf(f, " on CPU %d%s, memory %slocked\n", t->last.cpu,
		t->entered && t->st.cpu >= 0 ? " (pinned)" : "",
		t->entered && t->st.memory_locked ? "" : "not ");
	fprintf(f, "                after step 1: %llu minor, %llu major faults; %llu involuntary, %llu voluntary switches\n",
		(unsigned long long)DELTA(t, minor_faults),
		(unsigned long long)DELTA(t, major_faults),
		(unsigned long long)DELTA(t, involuntary_switches),
		(unsigned long long)DELTA(t, voluntary_switches));
}

static json_t *step_thread_json(const struct step_thread *t)
{
	const char *pol = rths_rt_policy_name(t->last.sched_policy);

	return json_pack("{s:s,s:i,s:i,s:b,s:I,s:I,s:I,s:I}",
			 "policy", pol ? pol : "unknown",
			 "priority", t->last.sched_priority,
			 "cpu", t->last.cpu,
			 "memory_locked", t->entered && t->st.memory_locked,
			 "minor_faults", (json_int_t)DELTA(t, minor_faults),
			 "major_faults", (json_int_t)DELTA(t, major_faults),
			 "involuntary_switches",
			 (json_int_t)DELTA(t, involuntary_switches),
			 "voluntary_switches",
			 (json_int_t)DELTA(t, voluntary_switches));
}

void report_text(FILE *f, const struct report_input *in)
{
	const struct rths_hs_run_result *res = in->res;
	const struct rths_hs_history *h = in->h;
	double dt = h->dt, dur = res->steps_done * dt;
	struct report R;

	report_compute(in, &R);
	fprintf(f, "rths-run: %s\n", in->name);
	if (in->prov)
		fprintf(f, "  run by        %s %s%s%s%s on %s (%s), %s to %s\n",
			in->prov->tool, in->prov->version,
			in->prov->git[0] ? " (" : "", in->prov->git,
			in->prov->git[0] ? ")" : "", in->prov->host,
			in->prov->kernel, in->prov->started,
			in->prov->ended);
	fprintf(f, "  backend       %s%s%s%s\n", in->backend,
		in->actuator ? " (" : "", in->actuator ? in->actuator : "",
		in->actuator ? ")" : "");
	fprintf(f, "  integrator    %s, dt = %u/%u s = %.4g ms",
		rths_hs_method_name(in->integrator->method), in->step_ticks,
		in->rate, dt * 1e3);
	if (in->integrator->method == RTHS_HS_KR_ALPHA ||
	    in->integrator->method == RTHS_HS_GENERALIZED_ALPHA)
		fprintf(f, ", rho_inf %.3g", in->integrator->rho_inf);
	if (in->integrator->method == RTHS_HS_ALPHA_OS ||
	    in->integrator->method == RTHS_HS_HHT_ALPHA)
		fprintf(f, ", alpha %.3g", in->integrator->alpha);
	/* tol 0: the real-time variant, a fixed number of iterations */
	if (in->integrator->method == RTHS_HS_GENERALIZED_ALPHA ||
	    in->integrator->method == RTHS_HS_HHT_ALPHA) {
		if (in->integrator->tol > 0)
			fprintf(f, ", Newton to %.3g (at most %u)",
				in->integrator->tol, in->integrator->max_iter);
		else
			fprintf(f, ", %u Newton iterations a step",
				in->integrator->max_iter);
	}
	fprintf(f, "\n  steps         %llu of %llu (%.3f s of %.3f s)%s\n",
		(unsigned long long)res->steps_done,
		(unsigned long long)res->steps_planned, dur,
		res->steps_planned * dt,
		res->interrupted ? ", interrupted" : "");
	if (in->preview && in->preview->chosen) {
		const struct rths_hs_preview_row *row =
			&in->preview->rows[in->preview->n_rows - 1];

		if (in->preview_fit) {
			char why[160];

			rths_hs_step_fit_str(in->preview_fit, why, sizeof(why));
			fprintf(f, "  step preview  %s (tried d = 1..%u)\n",
				why, in->preview->chosen);
		} else {
			fprintf(f, "  step preview  d = %u: compute %.3f s < record %.3f s (tried d = 1..%u)\n",
				in->preview->chosen, row->compute,
				in->preview->duration, in->preview->chosen);
		}
	}
	if (R.m) {
		fprintf(f, "  compensation  %s", in->compensation);
		if (in->compensation && !strcmp(in->compensation, "ats"))
			for (size_t j = 0; j < R.m; j++)
				fprintf(f, "%s a0 %.4f a1 %.3f ms a2 %.3g ms^2 (%lu fits)",
					j ? ";" : ":", res->comp_coeffs[j][0],
					res->comp_coeffs[j][1] * 1e3,
					res->comp_coeffs[j][2] * 1e6,
					res->comp_updates[j]);
		fputc('\n', f);
	}
	for (size_t i = 0; i < in->n_warnings; i++)
		fprintf(f, "  warning       %s: %s\n", in->warnings[i].path,
			in->warnings[i].msg);
	fprintf(f, "peaks                          value        at\n");
	for (size_t i = 0; i < R.n_listed; i++) {
		fprintf(f, "  DOF %-3zu displacement     %9.3f mm   %7.3f s\n",
			i + 1, R.u[i].value * 1e3, R.u[i].time);
		fprintf(f, "  DOF %-3zu abs. acceleration %8.3f m/s^2 %6.3f s\n",
			i + 1, R.a_abs[i].value, R.a_abs[i].time);
	}
	for (size_t j = 0; j < R.m; j++) {
		fprintf(f, "  actuator %-2zu stroke         %9.3f mm   %7.3f s\n",
			j + 1, R.stroke[j].value * 1e3, R.stroke[j].time);
		fprintf(f, "  actuator %-2zu force          %9.3f kN   %7.3f s\n",
			j + 1, R.force[j].value * 1e-3, R.force[j].time);
	}
	if (R.m) {
		fprintf(f, "tracking (RTHS benchmark)   J1 (refined)  J1 (benchmark)  J2 RMS     J3 peak\n");
		for (size_t j = 0; j < R.m; j++)
			fprintf(f, "  actuator %-2zu              %7.2f ms    %7.2f ms      %7.3f %%  %7.3f %%\n",
				j + 1, R.track[j].j1_ms, R.j1_bench_ms[j],
				R.track[j].j2_pct, R.track[j].j3_pct);
		fprintf(f, "  J1 (refined): the correlation's peak between steps, lags of both signs;\n"
			"  J1 (benchmark): whole steps %d..%d of %.3f ms, as its evaluation script\n",
			RTHS_HS_BENCHMARK_LAG_MIN, RTHS_HS_BENCHMARK_LAG_MAX,
			h->dt * 1e3);
		fprintf(f, "frequency evaluation index  amplitude   phase      delay at f_eq\n");
		for (size_t j = 0; j < R.m; j++)
			if (R.fei[j].ok)
				fprintf(f, "  actuator %-2zu              %6.4f   %7.2f deg  %6.2f ms at %.2f Hz\n",
					j + 1, R.fei[j].amplitude,
					R.fei[j].phase_deg, R.fei[j].delay_ms,
					R.fei[j].f_eq_hz);
	}
	if (R.has_ref) {
		fprintf(f, "against the all-numerical structure (same integrator and step)\n");
		for (size_t i = 0; i < R.n_listed; i++)
			if (R.ref_still[i])
				fprintf(f, "  DOF %-3zu displacement   (does not move in the reference)\n",
					i + 1);
			else if (i < 3)	/* the RTHS benchmark's floors */
				fprintf(f, "  DOF %-3zu displacement   RMS %7.3f %%  peak %7.3f %%  (J%zu, J%zu)\n",
					i + 1, R.ref_rms[i], R.ref_peak[i],
					4 + 2 * i, 5 + 2 * i);
			else
				fprintf(f, "  DOF %-3zu displacement   RMS %7.3f %%  peak %7.3f %%\n",
					i + 1, R.ref_rms[i], R.ref_peak[i]);
	}
	fprintf(f, "timing (%s)\n", R.m ? "compute from feedback to the next command" :
		"compute per step");
	fprintf(f, "  per step      min %.1f  mean %.1f  p99 %.1f  max %.1f us (budget %.1f us, %llu over)\n",
		res->compute_min * 1e6, res->compute_mean * 1e6,
		res->compute_p99 * 1e6, res->compute_max * 1e6, dt * 1e6,
		(unsigned long long)R.over_budget);
	if (R.over_budget)
		fprintf(f, "  OVER BUDGET   %llu of %llu steps computed longer than the step; worst %.1f us at step %zu (t = %.4f s)\n",
			(unsigned long long)R.over_budget,
			(unsigned long long)res->steps_done,
			R.over_worst * 1e6, R.over_worst_step,
			h->t[R.over_worst_step]);
	fprintf(f, "  wall          %.3f s for %.3f s of test (%.1fx real time)\n",
		res->wall, dur, res->wall > 0 ? dur / res->wall : 0);
	for (size_t i = 0; i < in->n_odesubs; i++)
		ode_text(f, i, in->odesubs[i], &in->ode_work[i]);
	step_thread_text(f, in->step_thread);
	fprintf(f, "events\n");
	if (res->has_stats)
		fprintf(f, "  backend       %llu steps, %llu ticks, %llu late (%llu extrapolated, %llu held, %llu decelerated), %llu limit trips, %llu lost records\n",
			(unsigned long long)res->stats.steps,
			(unsigned long long)res->stats.ticks,
			(unsigned long long)res->stats.late_steps,
			(unsigned long long)res->stats.late_extrapolated,
			(unsigned long long)res->stats.late_held,
			(unsigned long long)res->stats.late_decelerated,
			(unsigned long long)res->stats.limit_trips,
			(unsigned long long)res->stats.fb_overflows);
	if (res->has_stats && res->stats.has_latency)
		fprintf(f, "  latency       irq max %.1f us, thread avg %.1f max %.1f us\n",
			res->stats.irq_lat_max_ns * 1e-3,
			res->stats.thread_lat_avg_ns * 1e-3,
			res->stats.thread_lat_max_ns * 1e-3);
	fprintf(f, "  late feedback %llu step%s flagged late\n",
		(unsigned long long)res->late_steps,
		res->late_steps == 1 ? "" : "s");
	if (res->interrupted)
		fprintf(f, "  interrupted   at step %llu; backend %s\n",
			(unsigned long long)res->steps_done,
			res->held ? "held" : "not held");
	if (res->error) {
		char buf[768];

		fprintf(f, "  failed        at step %llu: %s\n",
			(unsigned long long)res->steps_done + 1,
			rths_error_str(&res->err, buf, sizeof(buf)));
	}
}

static json_t *peak_json(const struct peak *p, double scale)
{
	return json_pack("{s:f,s:f}", "value", p->value * scale, "time_s",
			 p->time);
}

int report_json(const char *path, const struct report_input *in,
		struct rths_error *err)
{
	const struct rths_hs_run_result *res = in->res;
	json_t *root, *dofs = json_array(), *acts = json_array();
	struct report R;
	int r = 0;

	report_compute(in, &R);
	for (size_t i = 0; i < R.n_listed; i++) {
		json_t *d = json_pack("{s:o,s:o}", "displacement_m",
				      peak_json(&R.u[i], 1), "abs_acceleration_mps2",
				      peak_json(&R.a_abs[i], 1));

		if (R.has_ref && !R.ref_still[i])
			json_object_set_new(d, "reference", json_pack(
				"{s:f,s:f}", "rms_pct", R.ref_rms[i],
				"peak_pct", R.ref_peak[i]));
		json_array_append_new(dofs, d);
	}
	for (size_t j = 0; j < R.m; j++) {
		json_t *a = json_pack(
			"{s:o,s:o,s:f,s:f,s:f,s:[f,f,f],s:I}",
			"stroke_m", peak_json(&R.stroke[j], 1),
			"force_N", peak_json(&R.force[j], 1),
			"J1_ms", R.track[j].j1_ms, "J2_pct", R.track[j].j2_pct,
			"J3_pct", R.track[j].j3_pct, "compensation",
			res->comp_coeffs[j][0], res->comp_coeffs[j][1],
			res->comp_coeffs[j][2], "compensation_fits",
			(json_int_t)res->comp_updates[j]);

		if (R.j1_bench[j] >= 0) {
			json_object_set_new(a, "J1_benchmark_ms",
					    json_real(R.j1_bench_ms[j]));
			json_object_set_new(a, "J1_benchmark_steps",
					    json_integer(R.j1_bench[j]));
		}
		if (R.fei[j].ok)
			json_object_set_new(a, "FEI", json_pack(
				"{s:f,s:f,s:f,s:f}", "amplitude",
				R.fei[j].amplitude, "phase_deg",
				R.fei[j].phase_deg, "delay_ms",
				R.fei[j].delay_ms, "f_eq_hz",
				R.fei[j].f_eq_hz));
		json_array_append_new(acts, a);
	}
	root = json_pack("{s:s,s:s,s:s,s:f,s:i,s:i,s:I,s:I,s:b,s:b,s:o,s:o,"
			 "s:{s:f,s:f,s:f,s:f,s:I},s:f,s:I}",
			 "name", in->name, "backend", in->backend,
			 "integrator", rths_hs_method_name(in->integrator->method),
			 "dt_s", in->h->dt, "rate_hz", (int)in->rate,
			 "step_ticks", (int)in->step_ticks,
			 "steps", (json_int_t)res->steps_done,
			 "steps_planned", (json_int_t)res->steps_planned,
			 "interrupted", res->interrupted, "failed", res->error != 0,
			 "dofs", dofs, "actuators", acts,
			 "compute_us", "min", res->compute_min * 1e6,
			 "mean", res->compute_mean * 1e6,
			 "p99", res->compute_p99 * 1e6,
			 "max", res->compute_max * 1e6,
			 "over_budget", (json_int_t)R.over_budget,
			 "wall_s", res->wall,
			 "late_steps", (json_int_t)res->late_steps);
	if (!root)
		return rths_error_set(err, ENOMEM, path, 0, NULL,
				      "cannot build the JSON summary");
	if (in->n_warnings) {
		json_t *w = json_array();

		for (size_t i = 0; i < in->n_warnings; i++)
			json_array_append_new(w, json_pack("{s:s,s:s}", "path",
				in->warnings[i].path, "message",
				in->warnings[i].msg));
		json_object_set_new(root, "warnings", w);
	}
	if (in->n_odesubs)
		json_object_set_new(root, "ode_substructures", ode_json(in));
	if (has_counters(in->step_thread))
		json_object_set_new(root, "step_thread",
				    step_thread_json(in->step_thread));
	if (in->preview && in->preview->chosen)
		json_object_set_new(root, "preview_step_ticks",
				    json_integer(in->preview->chosen));
	if (in->preview_fit)
		json_object_set_new(root, "preview", json_pack(
			"{s:i,s:s,s:f,s:I,s:f,s:f,s:f,s:f,s:f}",
			"step_ticks", (int)in->preview_fit->d, "statistic",
			in->preview_fit->figure_is_max ? "max" : "p99.9",
			"compute_us", in->preview_fit->figure * 1e6,
			"steps", (json_int_t)in->preview_fit->samples,
			"max_us", in->preview_fit->max * 1e6,
			"exchange_us", in->preview_fit->exchange * 1e6,
			"budget_us", in->preview_fit->budget * 1e6,
			"margin", in->preview_fit->margin,
			"limit_us", in->preview_fit->limit * 1e6));
	if (in->prov)
		json_object_set_new(root, "provenance",
				    provenance_json(in->prov));
	/* loud: a run whose steps went over their budget */
	json_object_set_new(root, "over_budget", json_pack(
		"{s:I,s:f,s:f,s:I}", "steps", (json_int_t)R.over_budget,
		"budget_us", in->h->dt * 1e6, "worst_us", R.over_worst * 1e6,
		"worst_step", (json_int_t)R.over_worst_step));
	if (json_dump_file(root, path, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) < 0)
		r = rths_error_set(err, errno, path, 0, NULL,
				   "cannot write: %s", strerror(errno));
	json_decref(root);
	return r;
}
