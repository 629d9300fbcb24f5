// SPDX-License-Identifier: GPL-2.0
/*
 * An experiment file run offline through rths_hs_experiment_run(), its
 * history printed in full (%.17g: every double read back the same), one
 * line a step: t ag u... v... a... target... command... disp...
 * force... flags.  tests/octave/test_run.m compares rths_mex('run')'s
 * history with it bit for bit (the CSV of rths-run has nine digits).
 *
 * usage: run_history EXPERIMENT.json
 */
#include <stdio.h>
#include <rths/files.h>
#include <rths/hs_experiment.h>
#include <rths/hs_sim.h>

static void row(const double *v, size_t w, size_t r)
{
	for (size_t i = 0; i < w; i++)
		printf(" %.17g", v[r * w + i]);
}

int main(int argc, char **argv)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_hs_history h = { 0 };
	struct rths_hs_run_result res = { 0 };
	struct rths_error err = { 0 };
	char buf[1024];
	int e;

	if (argc != 2) {
		fprintf(stderr, "usage: %s EXPERIMENT.json\n", argv[0]);
		return 2;
	}
	e = rths_hs_experiment_load(argv[1], &x, &err);
	if (!e)
		e = rths_hs_experiment_run(x, RTHS_HS_RUN_OFFLINE, NULL, &h,
					   &res, &err);
	if (e) {
		fprintf(stderr, "run_history: %s\n",
			rths_error_str(&err, buf, sizeof(buf)));
		rths_hs_experiment_free(x);
		rths_hs_history_free(&h);
		return 1;
	}
	for (size_t r = 0; r < h.rows; r++) {
		printf("%.17g %.17g", h.t[r], h.ag[r]);
		row(h.u, h.n_dof, r);
		row(h.v, h.n_dof, r);
		row(h.a, h.n_dof, r);
		row(h.target, h.n_act, r);
		row(h.command, h.n_act, r);
		row(h.disp, h.n_act, r);
		row(h.force, h.n_act, r);
		printf(" %u\n", h.flags[r]);
	}
	rths_hs_experiment_free(x);
	rths_hs_history_free(&h);
	return 0;
}
