// SPDX-License-Identifier: GPL-2.0
/*
 * rths-coord: the simulation coordinator of a distributed hybrid test.
 * It runs the engine's model and drives N rths-site substructures over
 * the native protocol, keeps a journal to resume from, and writes the
 * history, a summary and plots (Documentation/rths-coord.rst).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "rths-coord/coord.h"
#include "common/hsrun.h"
#include "common/cli.h"

/* The only global: set by SIGINT/SIGTERM, read by the step loop. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

struct options {
	const char *file, *output, *journal, *resume;
	bool serial, reset, quiet, json, plots, reference, journal_sync;
	uint64_t test_id;
	uint32_t step_ticks;
	long max_retries;	/* -1: the file's */
	double duration, step_timeout, give_up;
	struct coord_view_options view;
	const char *token_file;
	char token[257];
	double linger;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rths-coord [OPTIONS] EXPERIMENT.json\n"
		"       rths-coord [OPTIONS] --resume JOURNAL EXPERIMENT.json\n"
		"Run a distributed hybrid test: the experiment's model here, its\n"
		"substructures at the rths-site servers its \"sites\" section names.\n"
		"\n"
		"  -o, --output DIR      output directory (default: outputs.directory,\n"
		"                        else rths-coord-NAME)\n"
		"      --journal FILE    the journal (default: DIR/journal.txt)\n"
		"      --resume JOURNAL  resume the test this journal recorded\n"
		"      --no-journal-sync only fflush the journal each step, no\n"
		"                        fdatasync (default: --journal-sync)\n"
		"      --serial          one site after another each step\n"
		"      --test-id ID      the test id (not 0; default: random)\n"
		"      --reset           take the substructures even if they run\n"
		"                        another test (HELLO with RESET)\n"
		"  -d, --step-ticks D    integration step of D controller ticks\n"
		"  -t, --duration S      stop after S seconds of the record\n"
		"      --step-timeout S  every site's step_timeout\n"
		"      --give-up S       every site's give_up\n"
		"      --max-retries N   every site's max_retries\n"
		"      --no-plots        do not run gnuplot\n"
		"      --no-reference    skip the all-numerical reference run\n"
		"      --live ADDR:PORT  serve a live view of the test there (loopback;\n"
		"                        port 0: any free one; its URL goes to stderr)\n"
		"      --live-token FILE the token the view asks for (first line of FILE);\n"
		"                        needed, with HTTPS, off loopback\n"
		"      --live-cert FILE, --live-key FILE\n"
		"                        serve the view over HTTPS (PEM)\n"
		"      --live-linger S   keep serving S seconds after the test\n"
		"  -q, --quiet           no progress line, no summary on stdout\n"
		"  -j, --json            the summary as JSON on stdout, in place\n"
		"                        of its text\n"
		"  -v, --verbose         log handshakes and stale answers too\n"
		"  -h, --help            this help\n"
		"  -V, --version         print the version and exit\n"
		"\n"
		"Exit status: 0 done, 1 bad file or options, 3 a site unreachable or\n"
		"refusing the test, 4 a site's device refused a step (the test held),\n"
		"5 authentication failed, 6 a replay's forces differ, 130 interrupted.\n"
		"See rths-coord(1) and Documentation/distributed-testing.rst.\n");
}

static int seconds_arg(const char *name, double *out)
{
	char *end;

	*out = strtod(optarg, &end);
	if (*end || !(*out > 0) || !isfinite(*out)) {
		fprintf(stderr, "rths-coord: --%s: expected seconds > 0\n", name);
		return -1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "journal", required_argument, NULL, 'J' },
		{ "json", no_argument, NULL, 'j' },
		{ "resume", required_argument, NULL, 'R' },
		{ "serial", no_argument, NULL, 'S' },
		{ "test-id", required_argument, NULL, 'I' },
		{ "reset", no_argument, NULL, 'X' },
		{ "step-ticks", required_argument, NULL, 'd' },
		{ "duration", required_argument, NULL, 't' },
		{ "step-timeout", required_argument, NULL, 'T' },
		{ "give-up", required_argument, NULL, 'G' },
		{ "max-retries", required_argument, NULL, 'M' },
		{ "journal-sync", no_argument, NULL, 'Y' },
		{ "no-journal-sync", no_argument, NULL, 'y' },
		{ "no-plots", no_argument, NULL, 'N' },
		{ "no-reference", no_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "live", required_argument, NULL, 'L' },
		{ "live-token", required_argument, NULL, 'K' },
		{ "live-cert", required_argument, NULL, 'E' },
		{ "live-key", required_argument, NULL, 'P' },
		{ "live-linger", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->plots = o->reference = o->journal_sync = true;
	o->max_retries = -1;
	while ((c = getopt_long(argc, argv, "o:d:t:qjvhV", longs, NULL)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'J': o->journal = optarg; break;
		case 'j': o->json = true; break;
		case 'R': o->resume = optarg; break;
		case 'S': o->serial = true; break;
		case 'X': o->reset = true; break;
		case 'Y': o->journal_sync = true; break;
		case 'y': o->journal_sync = false; break;
		case 'N': o->plots = false; break;
		case 'F': o->reference = false; break;
		case 'q': o->quiet = true; break;
		case 'v': coord_verbose = 1; break;
		case 'L': o->view.listen = optarg; break;
		case 'K': o->token_file = optarg; break;
		case 'E': o->view.cert = optarg; break;
		case 'P': o->view.key = optarg; break;
		case 'g':
			if (seconds_arg("live-linger", &o->linger))
				return -1;
			break;
		case 'h': usage(stdout); exit(0);
		case 'V': exit(tool_version("rths-coord"));
		case 'I':
			errno = 0;
			o->test_id = strtoull(optarg, &end, 0);
			if (errno || *end || !o->test_id || optarg[0] == '-') {
				fprintf(stderr, "rths-coord: --test-id: expected a number other than 0\n");
				return -1;
			}
			break;
		case 'd':
			if (step_ticks_arg("rths-coord", optarg, &o->step_ticks))
				return -1;
			break;
		case 't':
			if (seconds_arg("duration", &o->duration))
				return -1;
			break;
		case 'T':
			if (seconds_arg("step-timeout", &o->step_timeout))
				return -1;
			break;
		case 'G':
			if (seconds_arg("give-up", &o->give_up))
				return -1;
			break;
		case 'M':
			errno = 0;
			o->max_retries = strtol(optarg, &end, 10);
			if (errno || *end || !optarg[0] || o->max_retries < 0 ||
			    o->max_retries > 1000000) {
				fprintf(stderr, "rths-coord: --max-retries: expected a count from 0 to 1000000\n");
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
		fprintf(stderr, "rths-coord: --live-token, --live-cert, --live-key and --live-linger go with --live\n");
		return -1;
	}
	if (o->token_file) {
		char err[512];

		if (live_token_read(o->token_file, o->token, sizeof(o->token),
				    err, sizeof(err)) < 0) {
			fprintf(stderr, "rths-coord: %s\n", err);
			return -1;
		}
		o->view.token = o->token;
	}
	return 0;
}

static int fail(const struct rths_error *err)
{
	return tool_error("rths-coord", err);
}

/* The step is fixed by the file or -d: a distributed test has no
 * preview (its compute time is the network's). */
static int fix_step(struct coord_config *cc, const struct options *o)
{
	struct rths_hs_experiment *x = cc->x;
	struct rths_error err;
	uint32_t d = o->step_ticks ? o->step_ticks : x->device.step_ticks;

	if (!d) {
		fprintf(stderr, "rths-coord: %s: the step is not fixed: set integrator.dt or device.step_ticks, or give -d\n",
			x->path);
		return -1;
	}
	if (o->duration > 0 && o->duration < x->duration)
		x->duration = o->duration;
	if (o->duration > 0 && !x->duration)
		x->duration = o->duration;
	if (rths_hs_experiment_set_step(x, d, &err) < 0)
		return -fail(&err);
	for (size_t i = 0; i < cc->n_sites; i++) {
		if (o->step_timeout > 0)
			cc->sites[i].step_timeout = o->step_timeout;
		if (o->give_up > 0)
			cc->sites[i].give_up = o->give_up;
		if (o->max_retries >= 0)
			cc->sites[i].max_retries = (uint32_t)o->max_retries;
	}
	return 0;
}

static uint64_t steps_of(const struct rths_hs_experiment *x)
{
	double duration = x->duration > 0 ? x->duration :
			  rths_hs_gm_duration(&x->gm);

	/* as rths_hs_sim_run() counts them */
	return (uint64_t)floor(duration / x->integrator.dt + 1e-9);
}

static uint64_t random_test_id(void)
{
	uint64_t id = 0;

	while (!id)
		if (getrandom(&id, sizeof(id), 0) != sizeof(id))
			id = (uint64_t)coord_now_ns();
	return id;
}

/* The journal: read back for --resume (then appended to), else new. */
static int open_journal(const struct options *o, const char *dir,
			const struct coord_config *cc, struct journal *j,
			char *path, size_t path_len)
{
	char msg[1024];
	int r;

	snprintf(path, path_len, "%s", o->resume ? o->resume :
		 o->journal ? o->journal : "");
	if (!path[0] &&
	    (size_t)snprintf(path, path_len, "%s/journal.txt", dir) >= path_len) {
		fprintf(stderr, "rths-coord: %s: the path is too long\n", dir);
		return -1;
	}
	if (o->resume) {
		r = journal_read(o->resume, cc, j, msg, sizeof(msg));
		if (r == 0 && o->test_id && o->test_id != j->test_id) {
			snprintf(msg, sizeof(msg), "%s: records test 0x%016" PRIx64 ", not --test-id 0x%016" PRIx64,
				 o->resume, j->test_id, o->test_id);
			r = -EINVAL;
		}
		if (r == 0 && j->ended) {
			snprintf(msg, sizeof(msg), "%s: the test ended; nothing to resume",
				 o->resume);
			r = -EINVAL;
		}
		if (r == 0)
			r = journal_open(path, cc, j, true, msg, sizeof(msg));
	} else {
		memset(j, 0, sizeof(*j));
		j->test_id = o->test_id ? o->test_id : random_test_id();
		r = journal_open(path, cc, j, false, msg, sizeof(msg));
	}
	if (r) {
		fprintf(stderr, "rths-coord: %s\n", msg);
		journal_close(j);
	}
	return r;
}

static const char auth_hint[] =
	"authentication failed: not retried; check the tls keys, identity and certificates of the site and of this file, and the site's allow list";

/* The fault policy's last word (Documentation/distributed-testing.rst):
 * what failed, what the sites were told, the exit status. */
static int failed(const struct rths_hs_backend *b,
		  const struct rths_hs_run_result *res, const char *jpath)
{
	unsigned long long done = res->steps_done, planned = res->steps_planned;

	fail(&res->err);
	switch (coord_fault(b)) {
	case COORD_FAULT_DEVICE:
		fprintf(stderr, "rths-coord: device fault: the test is held after step %llu of %llu; every site was told to end it (devices to rest). Once the device is fixed, --resume %s replays the history to every site\n",
			done, planned, jpath);
		return 4;
	case COORD_FAULT_AUTH:
		fprintf(stderr, "rths-coord: %s\n", auth_hint);
		return 5;
	case COORD_FAULT_REPLAY:
		fprintf(stderr, "rths-coord: replay mismatch: the test is stopped after step %llu of %llu; every site was told to end it\n",
			done, planned);
		return 6;
	default:
		fprintf(stderr, "rths-coord: stopped at step %llu of %llu; --resume %s goes on\n",
			done, planned, jpath);
		return 3;
	}
}

static int write_outputs(const struct coord_config *cc,
			 const struct options *o, const char *dir,
			 const struct report *rep)
{
	const struct rths_hs_experiment *x = cc->x;
	char path[PATH_MAX + 32];
	struct rths_error err;
	int bad = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/history.csv", dir);
	if (rths_hs_write_csv(path, rep->h, rep->ref, x->out.every, &err) < 0)
		bad |= fail(&err);
	snprintf(path, sizeof(path), "%s/history-exact.txt", dir);
	if (report_exact(path, rep->h) < 0)
		bad |= 1, fprintf(stderr, "rths-coord: %s: %s\n", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/steps.csv", dir);
	if (report_steps_csv(path, rep) < 0)
		bad |= 1, fprintf(stderr, "rths-coord: %s: %s\n", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	f = fopen(path, "w");
	if (f) {
		report_text(f, rep);
		fclose(f);
	} else {
		fprintf(stderr, "rths-coord: %s: %s\n", path, strerror(errno));
		bad = 1;
	}
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	if (report_json(path, rep) < 0) {
		fprintf(stderr, "rths-coord: %s: cannot write\n", path);
		bad = 1;
	} else if (o->json && tool_print_file("rths-coord", path)) {
		bad = 1;
	}
	if (!o->quiet && !o->json)
		report_text(stdout, rep);
	if (plot(dir, rep, o->plots, &err) < 0) {
		fail(&err);
		bad = 1;
	} else if (!o->quiet && !o->json && o->plots) {
		printf("plots: %s/response.png, loop-SITE.png, steptime.png, steptime-hist.png\n",
		       dir);
	}
	if (!o->quiet && !o->json)
		printf("outputs: %s/ (history.csv, history-exact.txt, steps.csv, summary.txt, summary.json, plots.gp)\n",
		       dir);
	return bad;
}

int main(int argc, char **argv)
{
	struct rths_hs_history h = { 0 }, ref = { 0 };
	struct coord_options co = { 0 };
	struct rths_hs_backend b = { 0 };
	struct rths_hs_run_result res = { 0 };
	struct rths_hs_sim_config cfg;
	struct coord_config cc;
	struct report rep = { 0 };
	struct journal j = { 0 };
	struct rths_error err;
	struct progress prog;
	struct coord_view view = { 0 };
	struct sigaction sa;
	struct options o;
	char msg[1024], dir_default[160], jpath[PATH_MAX];
	const char *dir;
	bool has_ref = false;
	int r, status = 0;

	if (parse_args(argc, argv, &o) < 0)
		return TOOL_USAGE;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (coord_config_load(o.file, &cc, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "%s\n", msg);
		return 1;
	}
	if (fix_step(&cc, &o) < 0) {
		coord_config_free(&cc);
		return 1;
	}
	snprintf(dir_default, sizeof(dir_default), "rths-coord-%s", cc.x->name);
	dir = o.output ? o.output :
	      cc.x->out.directory[0] ? cc.x->out.directory : dir_default;
	if (mkdir_p(dir) < 0) {
		fprintf(stderr, "rths-coord: %s: %s\n", dir, strerror(errno));
		coord_config_free(&cc);
		return 1;
	}
	if (open_journal(&o, dir, &cc, &j, jpath, sizeof(jpath)) < 0) {
		coord_config_free(&cc);
		return 1;
	}
	j.no_sync = !o.journal_sync;
	co.serial = o.serial;
	co.reset = o.reset && !o.resume;
	co.test_id = j.test_id;
	co.stop = &interrupted;
	if (coord_backend_open(&b, &cc, &co, &j, steps_of(cc.x), &err) < 0) {
		journal_close(&j);
		coord_config_free(&cc);
		return fail(&err);
	}
	if (!o.quiet)
		fprintf(stderr, "rths-coord: test 0x%016" PRIx64 ", %zu sites, journal %s%s\n",
			j.test_id, cc.n_sites, jpath,
			o.resume ? " (resumed)" : "");
	coord_sim_config(&cc, &cfg);
	cfg.backend = &b;
	progress_init(&prog, !o.quiet, cc.x->integrator.dt, &b, &cc);
	if (coord_view_start(&view, &cc, &o.view, &h, &b) < 0) {
		rths_hs_backend_close(&b);
		journal_close(&j);
		coord_config_free(&cc);
		return 1;
	}
	view.chain_ctx = &prog;
	cfg.stop = &interrupted;
	cfg.progress = coord_view_step;
	cfg.progress_ctx = &view;
	cfg.progress_every = 1;
	r = rths_hs_sim_run(&cfg, &h, &res, &err);
	progress_done(&prog);
	coord_view_finish(&view, r, &res, interrupted);
	if (r < 0 && h.rows == 0) {
		/* before the first step: nothing to write */
		status = coord_fault(&b) == COORD_FAULT_AUTH ? 5 : 3;
		coord_log_flush();
		fail(&err);
		if (status == 5)
			fprintf(stderr, "rths-coord: %s\n", auth_hint);
		coord_view_stop(&view, 0, NULL);
		rths_hs_backend_close(&b);
		journal_close(&j);
		coord_config_free(&cc);
		return status;
	}
	if (!res.error && !res.interrupted)
		journal_end(&j);
	if (cc.x->out.reference && o.reference) {
		if (coord_reference_run(&cc, &ref, &err) < 0)
			fail(&err);
		else
			has_ref = true;
	}
	rep.cc = &cc;
	rep.h = &h;
	rep.ref = has_ref ? &ref : NULL;
	rep.res = &res;
	rep.b = &b;
	rep.test_id = j.test_id;
	rep.serial = o.serial;
	rep.resumed = o.resume != NULL;
	rep.interrupted = interrupted || res.interrupted;
	if (write_outputs(&cc, &o, dir, &rep))
		status = 1;
	if (interrupted) {
		fprintf(stderr, "rths-coord: interrupted at step %llu of %llu; outputs written, --resume %s goes on\n",
			(unsigned long long)res.steps_done,
			(unsigned long long)res.steps_planned, jpath);
		status = 130;
	} else if (res.error) {
		status = failed(&b, &res, jpath);
	}
	coord_log_flush();
	coord_view_stop(&view, o.linger, &interrupted);
	rths_hs_backend_close(&b);
	journal_close(&j);
	rths_hs_history_free(&h);
	rths_hs_history_free(&ref);
	coord_config_free(&cc);
	return status;
}
