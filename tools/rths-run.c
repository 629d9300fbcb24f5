// SPDX-License-Identifier: GPL-2.0
/*
 * rths-run: run a real-time hybrid simulation described by an experiment
 * file, on a device or offline, and write its history, summary and plots.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rths-run/rths-run.h"
#include "common/cli.h"
#include "common/hsrun.h"

/* rths-run's own status (Documentation/tool-conventions.rst): the device,
 * or the offline model of it, held or failed the run. */
enum { RUN_HELD = 4 };

/* The only global: set by SIGINT, read by the step loop. */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
	/* A second Ctrl-C ends the program the usual way. */
	signal(SIGINT, SIG_DFL);
}

struct options {
	const char *file, *output;
	bool offline, quiet, json, preview_only, plots, reference;
	int progress;		/* -1: auto */
	/* the "realtime" section overridden: -1 as the file says */
	int realtime, rt_priority, rt_required;
	bool rt_cpu_set;
	int rt_cpu;
	uint32_t step_ticks;
	double duration;
	struct run_view_options view;
	const char *token_file;
	char token[257];
	double linger;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rths-run [OPTIONS] EXPERIMENT.json\n"
		"Run the real-time hybrid simulation an experiment file describes and\n"
		"write the step history (CSV), a summary and PNG plots.\n"
		"\n"
		"  -o, --output DIR      output directory (default: outputs.directory,\n"
		"                        else rths-run-NAME)\n"
		"      --offline         model the specimen and actuator in userspace,\n"
		"                        whatever the device section says\n"
		"  -d, --step-ticks D    integration step of D controller ticks (no preview)\n"
		"      --preview         only run the step-size preview and print it\n"
		"  -t, --duration S      stop after S seconds of the record\n"
		"      --no-plots        do not run gnuplot\n"
		"      --no-reference    skip the all-numerical reference run\n"
		"      --progress        progress bar even if stderr is not a terminal\n"
		"      --no-progress     no progress bar\n"
		"      --realtime        make the step thread real-time even offline\n"
		"      --no-realtime     leave the step thread as it is (realtime.enabled)\n"
		"      --rt-priority N   its SCHED_FIFO priority, 1..99, below the\n"
		"                        kernel loop's (realtime.priority, default 70)\n"
		"      --rt-cpu N|auto   its CPU; auto: not the kernel loop's (realtime.cpu)\n"
		"      --rt-required     fail if memory lock or priority are refused\n"
		"      --live ADDR:PORT  serve a live view of the run there (loopback;\n"
		"                        port 0: any free one; its URL goes to stderr)\n"
		"      --live-token FILE the token the view asks for (first line of FILE);\n"
		"                        needed, with HTTPS, off loopback\n"
		"      --live-cert FILE, --live-key FILE\n"
		"                        serve the view over HTTPS (PEM)\n"
		"      --live-linger S   keep serving S seconds after the run\n"
		"      --pace            offline: run the steps at the record's pace\n"
		"  -q, --quiet           no progress bar, no summary on stdout\n"
		"  -j, --json            the summary as JSON on stdout, in place\n"
		"                        of its text (summary.json is written too)\n"
		"  -h, --help            this help\n"
		"  -V, --version         print the version\n"
		"\n"
		"Ctrl-C holds the actuators and still writes everything collected.\n"
		"Exit status: 0 done, 1 a bad file or a failed write, 2 a wrong command\n"
		"line, 3 the backend could not be opened or held the run, 130\n"
		"interrupted (Documentation/tool-conventions.rst).\n"
		"See rths-run(1) and Documentation/experiment-file.rst.\n");
}

/* A whole number from @lo to @hi, else a message and -1. */
static int uint_arg(const char *opt, const char *arg, long lo, long hi,
		    int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < lo || v > hi) {
		fprintf(stderr, "rths-run: %s: expected %ld to %ld%s\n", opt, lo,
			hi, !strcmp(opt, "--rt-cpu") ? " or auto" : "");
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* The options over the file's "realtime" section. */
static void realtime_options(const struct options *o,
			     struct rths_hs_realtime_config *rt)
{
	if (o->realtime >= 0)
		rt->enabled = o->realtime;
	if (o->rt_priority >= 0)
		rt->priority = o->rt_priority;
	if (o->rt_cpu_set)
		rt->cpu = o->rt_cpu;
	if (o->rt_required >= 0)
		rt->required = o->rt_required;
}

static int loop_priority(const struct rths_hs_experiment *x)
{
	return x->device.set & RTHS_HS_DEV_PRIORITY ? (int)x->device.priority :
	       RTHS_HS_LOOP_PRIORITY_DEFAULT;
}

static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "offline", no_argument, NULL, 'O' },
		{ "step-ticks", required_argument, NULL, 'd' },
		{ "preview", no_argument, NULL, 'P' },
		{ "duration", required_argument, NULL, 't' },
		{ "no-plots", no_argument, NULL, 'N' },
		{ "no-reference", no_argument, NULL, 'R' },
		{ "progress", no_argument, NULL, 'p' },
		{ "no-progress", no_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "realtime", no_argument, NULL, 'T' },
		{ "no-realtime", no_argument, NULL, 'X' },
		{ "rt-priority", required_argument, NULL, 'Y' },
		{ "rt-cpu", required_argument, NULL, 'C' },
		{ "rt-required", no_argument, NULL, 'Q' },
		{ "live", required_argument, NULL, 'L' },
		{ "live-token", required_argument, NULL, 'K' },
		{ "live-cert", required_argument, NULL, 'E' },
		{ "live-key", required_argument, NULL, 'F' },
		{ "live-linger", required_argument, NULL, 'G' },
		{ "pace", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->plots = o->reference = true;
	o->progress = -1;
	o->realtime = o->rt_priority = o->rt_required = -1;
	while ((c = getopt_long(argc, argv, "o:d:t:qjhV", longs, NULL)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'O': o->offline = true; break;
		case 'P': o->preview_only = true; break;
		case 'N': o->plots = false; break;
		case 'R': o->reference = false; break;
		case 'p': o->progress = 1; break;
		case 'n': o->progress = 0; break;
		case 'q': o->quiet = true; break;
		case 'j': o->json = true; break;
		case 'L': o->view.listen = optarg; break;
		case 'K': o->token_file = optarg; break;
		case 'E': o->view.cert = optarg; break;
		case 'F': o->view.key = optarg; break;
		case 'A': o->view.pace = true; break;
		case 'G':
			o->linger = strtod(optarg, &end);
			if (*end || !(o->linger >= 0 && o->linger <= 3600)) {
				fprintf(stderr, "rths-run: --live-linger: expected 0 to 3600 s\n");
				return -1;
			}
			break;
		case 'h': usage(stdout); exit(TOOL_OK);
		case 'V': exit(tool_version("rths-run"));
		case 'T': o->realtime = 1; break;
		case 'X': o->realtime = 0; break;
		case 'Q': o->rt_required = 1; break;
		case 'Y':
			if (uint_arg("--rt-priority", optarg, 1, 99,
				     &o->rt_priority))
				return -1;
			break;
		case 'C':
			o->rt_cpu_set = true;
			if (!strcmp(optarg, "auto"))
				o->rt_cpu = RTHS_RT_CPU_AUTO;
			else if (uint_arg("--rt-cpu", optarg, 0, 4095,
					  &o->rt_cpu))
				return -1;
			break;
		case 'd':
			if (step_ticks_arg("rths-run", optarg, &o->step_ticks))
				return -1;
			break;
		case 't':
			o->duration = strtod(optarg, &end);
			if (*end || !(o->duration > 0)) {
				fprintf(stderr, "rths-run: --duration: expected seconds > 0\n");
				return -1;
			}
			break;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return -1;
	}
	o->file = argv[optind];
	if (!o->view.listen && (o->token_file || o->view.cert ||
				o->view.key || o->linger > 0)) {
		fprintf(stderr, "rths-run: --live-token, --live-cert, --live-key and --live-linger go with --live\n");
		return -1;
	}
	if (o->token_file) {
		if (run_view_token(o->token_file, o->token, sizeof(o->token)))
			return -1;
		o->view.token = o->token;
	}
	return 0;
}

static int fail(const struct rths_error *err)
{
	return tool_file_error("rths-run", err);
}

/*
 * The experiment as this run sees it: with --offline, the file with
 * "device.backend": "offline", so that what the file says only of a
 * device backend (an uncapped adaptive ODE substructure is refused
 * there) does not refuse an offline run; with -d D, the file with
 * "device.step_ticks": D in place of its step (integrator.dt too), so
 * that the loader checks D as if the file said it, and a synthetic
 * record without a dt of its own follows it as it follows the file's.
 * A file jansson cannot read goes to the library as it is, for its
 * error with line and column.
 */
static int load_experiment(const struct options *o,
			   struct rths_hs_experiment **x,
			   struct rths_error *err)
{
	json_t *j, *dev, *integ;
	char dir[PATH_MAX], *text = NULL;
	bool ok;
	int r;

	if (!o->offline && !o->step_ticks)
		return rths_hs_experiment_load(o->file, x, err);
	j = json_load_file(o->file, JSON_REJECT_DUPLICATES, NULL);
	dev = json_object_get(j, "device");
	integ = json_object_get(j, "integrator");
	ok = json_is_object(dev);
	if (ok && o->offline)
		ok = !json_object_set_new(dev, "backend",
					  json_string("offline"));
	if (ok && o->step_ticks) {
		ok = !json_object_set_new(dev, "step_ticks",
					  json_integer(o->step_ticks));
		if (ok && json_is_object(integ))
			json_object_del(integ, "dt");
	}
	if (ok)
		text = json_dumps(j, JSON_REAL_PRECISION(17));
	json_decref(j);
	if (!text)
		return rths_hs_experiment_load(o->file, x, err);
	snprintf(dir, sizeof(dir), "%s", o->file);
	r = rths_hs_experiment_parse(text, o->file, dirname(dir), x, err);
	free(text);
	return r;
}

/* The library returns warnings; showing them is the tool's job. */
static void print_warnings(const struct rths_hs_experiment *x)
{
	size_t n = x->n_warnings < RTHS_HS_MAX_WARNINGS ? x->n_warnings :
		   RTHS_HS_MAX_WARNINGS;

	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "rths-run: warning: %s: %s: %s\n", x->path,
			x->warnings[i].path, x->warnings[i].msg);
}

static void print_preview(const struct rths_hs_budget_preview *bp,
			  const double exchange[2])
{
	const struct rths_hs_preview_result *pr = &bp->pr;
	char why[160];

	printf("step preview: the whole test with a numerical specimen, each step against its budget\n");
	printf("  exchange with the backend: %.1f us a step (worst %.1f us), counted in every step\n",
	       exchange[0] * 1e6, exchange[1] * 1e6);
	printf("      d    dt (ms)    steps   compute (s)   p99.9 (us)   worst (us)   fits\n");
	for (size_t i = 0; i < pr->n_rows; i++) {
		const struct rths_hs_preview_row *r = &pr->rows[i];
		const struct rths_hs_step_fit *f = &bp->fit[i];
		char p999[24];

		if (f->figure_is_max)
			snprintf(p999, sizeof(p999), "n/a");
		else
			snprintf(p999, sizeof(p999), "%.1f", f->figure * 1e6);
		printf("  %5u  %9.4f  %7llu  %12.4f  %11s  %11.1f   %s\n", r->d,
		       r->dt * 1e3, (unsigned long long)r->steps, r->compute,
		       p999, f->max * 1e6, r->fits ? "yes" : "no");
	}
	if (pr->chosen) {
		rths_hs_step_fit_str(&bp->fit[pr->n_rows - 1], why,
				     sizeof(why));
		printf("  chosen: d = %u, dt = %u/%u s (%s)\n", pr->chosen,
		       pr->chosen, (unsigned int)(pr->chosen / pr->dt + 0.5),
		       why);
	}
	if (pr->n_rows && bp->fit[0].figure_is_max)
		printf("  (p99.9 n/a: fewer than %d steps; the worst step decides)\n",
		       RTHS_HS_P999_MIN_SAMPLES);
}

static unsigned int run_flags(const struct options *o)
{
	return o->offline ? RTHS_HS_RUN_OFFLINE : 0;
}

/*
 * What a step's exchange with the backend the run will use costs: that
 * backend opened at d = 1 for EXCHANGE_STEPS round trips at rest (no
 * trace written), then closed.  @ex: mean and max, s.
 */
#define EXCHANGE_STEPS 256
static int exchange_cost(struct rths_hs_experiment *x, const struct options *o,
			 double ex[2], struct rths_error *err)
{
	uint32_t d = x->device.step_ticks;
	bool csv = x->out.csv;
	struct rths_hs_backend b;
	int r;

	x->device.step_ticks = 1;
	x->out.csv = false;
	r = rths_hs_experiment_open_backend(x, run_flags(o), NULL, &b, NULL,
					    err);
	x->device.step_ticks = d;
	x->out.csv = csv;
	if (r < 0)
		return r;
	r = rths_hs_backend_round_trip(&b, EXCHANGE_STEPS, &ex[0], &ex[1],
				       err);
	rths_hs_backend_close(&b);
	return r;
}

/* The step: given, from the file, or by the preview. */
static int choose_step(struct rths_hs_experiment *x, const struct options *o,
		       struct rths_hs_budget_preview *bp, double exchange[2],
		       bool *previewed, bool *backend_failed,
		       struct rths_error *err)
{
	struct rths_hs_preview_params pp;
	struct rths_hs_sim_config cfg;
	int r;

	*previewed = false;
	*backend_failed = false;
	/* -d went in as device.step_ticks unless the file had no device
	 * section to put it in */
	if (o->step_ticks && x->device.step_ticks != o->step_ticks)
		return rths_hs_experiment_set_step(x, o->step_ticks, err);
	if (o->step_ticks)
		return 0;
	if (x->device.step_ticks && !o->preview_only)
		return 0;
	if (x->has_specimen && (r = exchange_cost(x, o, exchange, err)) < 0) {
		*backend_failed = true;
		return r;
	}
	rths_hs_experiment_sim_config(x, &cfg);
	cfg.stop = &interrupted;
	rths_hs_preview_defaults(&pp);
	pp.rate = x->device.rate;
	/* a step's mean exchange: its p99.9 compute is the tail */
	r = rths_hs_preview_budget(&cfg, x->odesubs, x->n_odesubs, &pp,
				   x->preview_margin, exchange[0], bp, err);
	if (r < 0) {
		if (bp->pr.n_rows && !o->quiet && !o->json)
			print_preview(bp, exchange);
		return r;
	}
	*previewed = true;
	return rths_hs_experiment_set_step(x, bp->pr.chosen, err);
}

static int write_outputs(const struct rths_hs_experiment *x,
			 const struct options *o, const char *dir,
			 const struct report_input *in)
{
	char path[PATH_MAX + 32];
	struct rths_error err;
	int bad = 0;
	FILE *f;

	/* where it came from: the file itself, and beside each CSV */
	if (in->prov && provenance_copy_experiment(in->prov, dir) < 0)
		bad = 1;
	if (x->out.csv) {
		snprintf(path, sizeof(path), "%s/history.csv", dir);
		if (rths_hs_write_csv(path, in->h, in->ref, x->out.every, &err) < 0)
			bad |= fail(&err);
		else if (in->prov &&
			 provenance_csv_metadata(in->prov, path, in->h,
						 in->ref != NULL, NULL) < 0)
			bad = 1;
		snprintf(path, sizeof(path), "%s/trace.csv", dir);
		if (in->prov && !access(path, F_OK) &&
		    provenance_csv_metadata(in->prov, path, NULL, false,
					    NULL) < 0)
			bad = 1;
	}
	if (x->out.summary || o->json) {
		snprintf(path, sizeof(path), "%s/summary.txt", dir);
		f = fopen(path, "w");
		if (f) {
			report_text(f, in);
			fclose(f);
		} else {
			fprintf(stderr, "rths-run: %s: %s\n", path, strerror(errno));
			bad = 1;
		}
		snprintf(path, sizeof(path), "%s/summary.json", dir);
		if (report_json(path, in, &err) < 0)
			bad |= fail(&err);
		else if (o->json)
			bad |= tool_print_file("rths-run", path);
	}
	if (!o->quiet && !o->json)
		report_text(stdout, in);
	if (x->out.csv && x->out.plots && o->plots) {
		struct report R;
		int r;

		report_compute(in, &R);
		r = plot(dir, "history.csv", in->h, &R, in->ref != NULL, true,
			 &err);

		if (r < 0)
			bad |= fail(&err);
		else if (!o->quiet && !o->json)
			printf("plots: %s/response.png%s\n", dir,
			       in->h->n_act ? ", tracking.png, hysteresis.png, steptime.png, delay.png" : "");
	}
	if (!o->quiet && !o->json)
		printf("outputs: %s/ (history.csv, summary.txt, summary.json, experiment.json%s)\n",
		       dir, x->out.plots && o->plots ? ", plots.gp" : "");
	return bad;
}

int main(int argc, char **argv)
{
	struct rths_hs_history h = { 0 }, ref = { 0 };
	struct report_input in = { 0 };
	struct rths_hs_budget_preview pr;
	struct rths_hs_backend b = { 0 };
	struct rths_hs_odesub_work ode_work[RTHS_HS_MAX_ODESUBS] = { 0 };
	struct rths_hs_run_result res = { 0 };
	struct rths_hs_sim_config cfg;
	struct rths_hs_experiment *x;
	struct rths_error err;
	struct rths_hs_backend_desc desc = {
		.backend = "none (all-numerical)",
	};
	struct progress prog;
	struct step_thread thread;
	struct run_view view = { 0 };
	struct provenance prov;
	struct sigaction sa;
	struct options o;
	bool previewed, backend_failed, has_ref = false, device;
	double exchange[2] = { 0, 0 };
	char dir_default[sizeof(x->name) + 16];
	const char *dir;
	int r, status = 0;

	if (parse_args(argc, argv, &o) < 0)
		return TOOL_USAGE;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, NULL);
	if (load_experiment(&o, &x, &err) < 0)
		return fail(&err);
	if (o.duration > 0 && o.duration < x->duration)
		x->duration = o.duration;
	realtime_options(&o, &x->realtime);
	/* an option that cannot act is said, not dropped */
	if (!x->realtime.enabled &&
	    (o.rt_priority >= 0 || o.rt_cpu_set || o.rt_required > 0))
		fprintf(stderr, "rths-run: warning: --rt-priority, --rt-cpu and --rt-required have no effect: the step thread is not made real-time (%s)\n",
			o.realtime == 0 ? "--no-realtime" :
			"realtime.enabled is false; an offline run needs --realtime");
	if (x->realtime.enabled && x->realtime.priority >= loop_priority(x)) {
		fprintf(stderr, "rths-run: --rt-priority %d is not below the kernel loop's %d (device.priority)\n",
			x->realtime.priority, loop_priority(x));
		rths_hs_experiment_free(x);
		return 1;
	}
	if (choose_step(x, &o, &pr, exchange, &previewed, &backend_failed,
			&err) < 0) {
		rths_hs_experiment_free(x);
		fail(&err);
		return backend_failed ? TOOL_UNREACHABLE : TOOL_FAILED;
	}
	if (previewed && !o.quiet && !o.json)
		print_preview(&pr, exchange);
	print_warnings(x);
	if (o.preview_only) {
		rths_hs_experiment_free(x);
		return 0;
	}
	snprintf(dir_default, sizeof(dir_default), "rths-run-%s", x->name);
	dir = o.output ? o.output :
	      x->out.directory[0] ? x->out.directory : dir_default;
	if (mkdir_p(dir) < 0) {
		fprintf(stderr, "rths-run: %s: %s\n", dir, strerror(errno));
		rths_hs_experiment_free(x);
		return 1;
	}
	rths_hs_experiment_sim_config(x, &cfg);
	if (x->has_specimen) {
		r = rths_hs_experiment_open_backend(x, run_flags(&o),
						    x->out.csv ? dir : NULL,
						    &b, &desc, &err);
		if (r < 0) {
			/* no module, no device, a card that refuses */
			rths_hs_experiment_free(x);
			fail(&err);
			return TOOL_UNREACHABLE;
		}
		cfg.backend = &b;
	}
	/* the view's threads before the step thread is made real-time:
	 * they must not inherit its priority */
	if (o.view.pace && x->has_specimen && !o.offline &&
	    x->device.backend == RTHS_HS_BACKEND_DEVICE) {
		fprintf(stderr, "rths-run: --pace is for offline runs: a device keeps its own pace\n");
		rths_hs_backend_close(&b);
		rths_hs_experiment_free(x);
		return TOOL_USAGE;
	}
	if (run_view_start(&view, x, &o.view, &h) < 0) {
		if (x->has_specimen)
			rths_hs_backend_close(&b);
		rths_hs_experiment_free(x);
		return TOOL_FAILED;
	}
	/* the step thread, as the run allocates its history: locked memory
	 * is resident from the allocation on */
	device = x->has_specimen && !o.offline &&
		 x->device.backend == RTHS_HS_BACKEND_DEVICE;
	r = step_thread_enter(x, device, &thread, &err);
	if (r < 0) {
		if (x->has_specimen)
			rths_hs_backend_close(&b);
		rths_hs_experiment_free(x);
		fail(&err);
		return TOOL_FAILED;
	}
	step_thread_warn(&thread);
	/* the view's threads, made before, off the step thread's CPU */
	run_view_place(&view, &thread, x, device);
	progress_init(&prog, !o.quiet && o.progress != 0, x->integrator.dt);
	if (o.progress == 1 && !o.quiet)
		prog.on = true;
	cfg.stop = &interrupted;
	thread.chain = run_view_step;
	thread.chain_ctx = &view;
	view.chain = progress_update;
	view.chain_ctx = &prog;
	cfg.progress = step_thread_progress;
	cfg.progress_ctx = &thread;
	cfg.progress_every = 1;
	if (o.view.pace) {
		cfg.clock = run_view_clock;
		cfg.clock_ctx = &view;
	}
	provenance_start(&prov, "rths-run", !x->has_specimen ? NULL :
			 o.offline || x->device.backend !=
			 RTHS_HS_BACKEND_DEVICE ? "offline" : x->device.card,
			 o.file);
	r = rths_hs_sim_run_odesubs(&cfg, x->odesubs, x->n_odesubs, &h, &res,
				    &err);
	provenance_end(&prov);
	step_thread_leave(&thread);
	progress_done(&prog);
	run_view_finish(&view, r, &res);
	/* before the reference run starts them again */
	for (size_t i = 0; h.rows > 1 && i < x->n_odesubs; i++)
		rths_hs_odesub_work(x->odesubs[i], &ode_work[i], NULL);
	if (x->has_specimen)
		rths_hs_backend_close(&b);
	if (r < 0 && h.rows == 0) {
		run_view_stop(&view, 0, NULL);
		rths_hs_experiment_free(x);
		return fail(&err);
	}
	if (x->has_specimen && x->out.reference && o.reference) {
		if (reference_run(x, &ref, &err) < 0)
			fail(&err);
		else
			has_ref = true;
	}
	in.name = x->name;
	in.backend = desc.backend;
	in.actuator = desc.actuator[0] ? desc.actuator : NULL;
	in.integrator = &x->integrator;
	in.rate = x->device.rate;
	in.step_ticks = x->device.step_ticks;
	in.compensation = rths_hs_comp_name(x->comp.kind);
	in.h = &h;
	in.res = &res;
	in.ref = has_ref ? &ref : NULL;
	in.preview = previewed ? &pr.pr : NULL;
	in.preview_fit = previewed ? &pr.fit[pr.pr.n_rows - 1] : NULL;
	in.warnings = x->warnings;
	in.n_warnings = x->n_warnings < RTHS_HS_MAX_WARNINGS ? x->n_warnings :
			RTHS_HS_MAX_WARNINGS;
	in.odesubs = x->odesubs;
	in.ode_work = ode_work;
	in.n_odesubs = h.rows > 1 ? x->n_odesubs : 0;
	in.step_thread = &thread;
	in.prov = &prov;
	if (write_outputs(x, &o, dir, &in))
		status = 1;
	/* on stderr even with -q */
	report_over_budget_warning(stderr, &in);
	if (res.error) {
		fail(&res.err);
		/* the device (or the offline model) held or failed: the
		 * operator's case, apart from a response that diverged */
		status = res.err.code == -RTHS_E_BACKEND ? RUN_HELD : TOOL_FAILED;
	} else if (res.interrupted) {
		fprintf(stderr, "rths-run: interrupted at step %llu of %llu; outputs written\n",
			(unsigned long long)res.steps_done,
			(unsigned long long)res.steps_planned);
		status = TOOL_INTERRUPTED;
	}
	run_view_stop(&view, o.linger, &interrupted);
	rths_hs_history_free(&h);
	rths_hs_history_free(&ref);
	rths_hs_experiment_free(x);
	return status;
}
