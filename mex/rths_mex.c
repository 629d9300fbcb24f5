// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rths_mex: librths for MATLAB and GNU Octave, one MEX file.
 *
 *   h = rths_mex('open', 'DEVICE')           an rths device: owned, started
 *   h = rths_mex('open', 'offline' [, opts]) librths's modelled actuator
 *   rths_mex('post', h, step, target)        step n's targets, m
 *   fb = rths_mex('wait', h [, timeout_ms])  step n's feedback (a struct)
 *   s = rths_mex('stats', h)                 the counters (a struct)
 *   rths_mex('close', h)
 *   [hist, res] = rths_mex('run', 'experiment.json' [, 'offline', true]
 *                          [, 'step_ticks', D] [, 'trace_dir', DIR])
 *
 * Only the MEX API (mex.h), so that MATLAB's mex and Octave's mkoctfile
 * --mex build it unchanged (Documentation/mex.rst).
 *
 * Errors are mexErrMsgIdAndTxt() with an id "rths:..." and the library's
 * message.  mexErrMsgIdAndTxt() never returns (it unwinds to the
 * interpreter, running no C cleanup), so every function here releases
 * what it holds before it raises one: fail() is always the last thing
 * a path does, with nothing of its own left to free.
 *
 * Handles are numbers that are never reused while the MEX file is
 * loaded, and start from a clock reading at load: a closed handle, or one
 * from before "clear rths_mex", names no open rig and is an error, never
 * a pointer followed.  mexAtExit() (clear rths_mex, exit) closes what is
 * still open.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* clock_gettime() under mex's -std=c11 */
#endif
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mex.h"

#include <rths/device.h>
#include <rths/files.h>
#include <rths/hs_backend.h>
#include <rths/hs_experiment.h>
#include <rths/hs_sim.h>

#define MAX_RIGS 32

enum rig_kind { RIG_FREE, RIG_DEVICE, RIG_OFFLINE };

struct rig {
	enum rig_kind kind;
	double id;
	uint32_t channels;
	char name[RTHS_NAME_LEN];
	/* a device */
	struct rths_ctl *ctl;
	struct rths_dev *dev;
	/* the offline backend: it answers for the last step posted */
	struct rths_hs_backend off;
	uint64_t posted;
};

static struct rig rigs[MAX_RIGS];
static double next_id;
static bool at_exit_set;

/* Formatted here, not on the stack of a frame the error unwinds. */
static char msg[1024];

static void fail(const char *id, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void fail(const char *id, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	mexErrMsgIdAndTxt(id, "%s", msg);
	abort();		/* not reached: the interpreter takes over */
}

/* Raise with a struct rths_error's "file:line: path: message [name]". */
static void fail_err(const char *id, const char *what,
		      const struct rths_error *err)
{
	char buf[900];

	fail(id, "%s: %s", what, rths_error_str(err, buf, sizeof(buf)));
}

/* ---- arguments ---------------------------------------------------------- */

static void get_string(const mxArray *a, const char *what, char *buf,
		       size_t len)
{
	if (!mxIsChar(a) || mxGetM(a) > 1)
		fail("rths:badArgument", "%s must be a string", what);
	if (mxGetString(a, buf, (mwSize)len))
		fail("rths:badArgument", "%s is longer than %zu characters",
		      what, len - 1);
}

static bool is_real_scalar(const mxArray *a)
{
	return (mxIsNumeric(a) || mxIsLogical(a)) && !mxIsComplex(a) &&
	       mxGetNumberOfElements(a) == 1 && !mxIsSparse(a);
}

static double get_scalar(const mxArray *a, const char *what)
{
	if (!is_real_scalar(a))
		fail("rths:badArgument", "%s must be a real scalar", what);
	return mxGetScalar(a);
}

/* A whole number from @lo to @hi. */
static double get_whole(const mxArray *a, const char *what, double lo,
			double hi)
{
	double v = get_scalar(a, what);

	if (!(v >= lo && v <= hi) || v != (double)(int64_t)v)
		fail("rths:badArgument", "%s must be a whole number from %.0f to %.0f",
		      what, lo, hi);
	return v;
}

static bool get_logical(const mxArray *a, const char *what)
{
	return get_scalar(a, what) != 0;
}

/* A real double array of @n elements. */
static const double *get_doubles(const mxArray *a, const char *what,
				 size_t n)
{
	if (!mxIsDouble(a) || mxIsComplex(a) || mxIsSparse(a))
		fail("rths:badArgument", "%s must be a real double array", what);
	if (mxGetNumberOfElements(a) != n)
		fail("rths:badArgument", "%s must have %zu elements, not %zu",
		      what, n, (size_t)mxGetNumberOfElements(a));
	return mxGetPr(a);
}

/* ---- handles -------------------------------------------------------------- */

static struct rig *rig_of(const mxArray *a)
{
	double id;

	if (!mxIsDouble(a) || !is_real_scalar(a))
		fail("rths:badHandle", "the handle must be the number rths_mex('open', ...) returned");
	id = mxGetScalar(a);
	for (size_t i = 0; i < MAX_RIGS; i++)
		if (rigs[i].kind != RIG_FREE && rigs[i].id == id)
			return &rigs[i];
	fail("rths:badHandle", "handle %.17g is not open (closed, or from before clear rths_mex)",
	      id);
}

static struct rig *rig_new(void)
{
	struct timespec ts;

	if (next_id == 0) {
		/* Handles of an earlier load are then unlikely to match. */
		clock_gettime(CLOCK_REALTIME, &ts);
		next_id = (double)(((uint64_t)ts.tv_sec % 100000) * 1000000 +
				   (uint64_t)ts.tv_nsec / 1000) * 16 + 1;
	}
	for (size_t i = 0; i < MAX_RIGS; i++)
		if (rigs[i].kind == RIG_FREE) {
			memset(&rigs[i], 0, sizeof(rigs[i]));
			return &rigs[i];
		}
	fail("rths:tooMany", "%d handles are open: close one first", MAX_RIGS);
}

/* Closes @g and frees its slot; errors are of no use here. */
static void rig_close(struct rig *g)
{
	struct rths_error err;

	if (g->kind == RIG_DEVICE) {
		/* as examples/c/own-loop.c: come to rest, then let go */
		rths_run_hold(g->ctl, g->name);
		rths_run_stop(g->ctl, g->name);
		rths_dev_close(g->dev);
		rths_ctl_close(g->ctl);
	} else if (g->kind == RIG_OFFLINE) {
		rths_hs_backend_stop(&g->off, &err);
		rths_hs_backend_close(&g->off);
	}
	memset(g, 0, sizeof(*g));
}

static void close_all(void)
{
	for (size_t i = 0; i < MAX_RIGS; i++)
		rig_close(&rigs[i]);
}

/* ---- open ----------------------------------------------------------------- */

static void open_device(struct rig *g, const char *name)
{
	char why[600];
	const char *step = "rths_ctl_open";
	int e;

	snprintf(g->name, sizeof(g->name), "%s", name);
	if (!*name)
		fail("rths:badArgument", "the device name is empty");
	if (strlen(name) >= sizeof(g->name))
		fail("rths:badArgument", "device name '%s' is longer than %zu characters",
		      name, sizeof(g->name) - 1);
	e = rths_ctl_open(&g->ctl);
	if (!e) {
		step = "rths_dev_open";
		e = rths_dev_open(g->ctl, name, RTHS_OPEN_OWNER, &g->dev);
	}
	if (!e) {
		step = "rths_run_start";
		e = rths_run_start(g->ctl, name);
	}
	if (e) {
		snprintf(why, sizeof(why), "%s", g->ctl && *rths_ctl_error(g->ctl) ?
			 rths_ctl_error(g->ctl) : rths_strerror(e));
		if (g->ctl && e == -ENOENT && !strcmp(step, "rths_dev_open") &&
		    !*rths_ctl_error(g->ctl))
			snprintf(why, sizeof(why), "no such device");
		rths_dev_close(g->dev);
		rths_ctl_close(g->ctl);
		memset(g, 0, sizeof(*g));
		if (!strcmp(step, "rths_ctl_open") && e == -ENOENT)
			snprintf(why, sizeof(why), "the rths module is not loaded");
		/* no module (rths_ctl_open), no such device (the kernel's
		 * DEV_GET in rths_dev_open) */
		fail(e == -ENOENT || e == -ENODEV ? "rths:noDevice" : "rths:open",
		      "open %s: %s (%s)", name, why, step);
	}
	rths_dev_sync(g->dev);
	g->channels = rths_dev_channels(g->dev);
	g->kind = RIG_DEVICE;
}

/* opts.stiffness / damping: a scalar (on every channel), a vector (the
 * diagonal) or a channels x channels matrix. */
static void get_matrix(const mxArray *a, const char *what, size_t n,
		       double *m)
{
	size_t k = mxGetNumberOfElements(a);
	const double *v;

	if (k != 1 && k != n && k != n * n)
		fail("rths:badOption", "%s must be a scalar, %zu values or a %zu x %zu matrix",
		      what, n, n, n);
	v = get_doubles(a, what, k);
	memset(m, 0, n * n * sizeof(*m));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (k == n * n)
				m[i + j * n] = v[i + j * n];
			else if (i == j)
				m[i + j * n] = v[k == 1 ? 0 : i];
}

static const char *const offline_fields[] = {
	"channels", "rate", "step_ticks", "stiffness", "damping", "lag",
	"delay_ticks", "noise_disp", "noise_force", "seed", "quantize",
};

/* The offline model, its options checked before anything is opened. */
static void open_offline(struct rig *g, const mxArray *opts)
{
	static double k[RTHS_HS_MAX_CHANNELS * RTHS_HS_MAX_CHANNELS];
	static double c[RTHS_HS_MAX_CHANNELS * RTHS_HS_MAX_CHANNELS];
	struct rths_hs_offline_params p;
	struct rths_hs_setup s;
	struct rths_error err = { 0 };
	const mxArray *f;
	size_t n = 1;
	int e;

	rths_hs_offline_defaults(&p);
	if (opts && !(mxIsStruct(opts) && mxGetNumberOfElements(opts) == 1))
		fail("rths:badArgument", "the offline options must be a 1x1 struct");
	for (int i = 0; opts && i < mxGetNumberOfFields(opts); i++) {
		const char *name = mxGetFieldNameByNumber(opts, i);
		size_t j = 0;

		while (j < sizeof(offline_fields) / sizeof(*offline_fields) &&
		       strcmp(name, offline_fields[j]))
			j++;
		if (j == sizeof(offline_fields) / sizeof(*offline_fields))
			fail("rths:badOption", "opts.%s: unknown option (channels, rate, step_ticks, stiffness, damping, lag, delay_ticks, noise_disp, noise_force, seed, quantize)",
			      name);
	}
#define OPT(name) (opts ? mxGetField(opts, 0, name) : NULL)
	if ((f = OPT("channels")))
		n = (size_t)get_whole(f, "opts.channels", 1,
				      RTHS_HS_MAX_CHANNELS);
	if ((f = OPT("rate")))
		p.rate = (uint32_t)get_whole(f, "opts.rate", 1, 1e6);
	if ((f = OPT("step_ticks")))
		p.step_ticks = (uint32_t)get_whole(f, "opts.step_ticks", 1,
						   1e6);
	if ((f = OPT("lag")))
		p.lag = get_scalar(f, "opts.lag");
	if ((f = OPT("delay_ticks")))
		p.delay_ticks = (uint32_t)get_whole(f, "opts.delay_ticks", 0,
						    1e6);
	if ((f = OPT("noise_disp")))
		p.noise_disp = get_scalar(f, "opts.noise_disp");
	if ((f = OPT("noise_force")))
		p.noise_force = get_scalar(f, "opts.noise_force");
	if ((f = OPT("seed")))
		p.seed = (uint64_t)get_whole(f, "opts.seed", 0, 9007199254740992.0);
	if ((f = OPT("quantize")))
		p.quantize = get_logical(f, "opts.quantize");
	if ((f = OPT("stiffness"))) {
		get_matrix(f, "opts.stiffness", n, k);
		p.k = k;
	}
	if ((f = OPT("damping"))) {
		get_matrix(f, "opts.damping", n, c);
		p.c = c;
	}
#undef OPT
	p.setup = &s;
	e = rths_hs_setup_direct(&s, n, &err);
	if (!e)
		e = rths_hs_offline_open(&g->off, &p, &err);
	if (!e) {
		e = rths_hs_backend_start(&g->off, &err);
		if (e)
			rths_hs_backend_close(&g->off);
	}
	if (e) {
		memset(g, 0, sizeof(*g));
		fail_err("rths:open", "open offline", &err);
	}
	snprintf(g->name, sizeof(g->name), "offline");
	g->channels = (uint32_t)n;
	g->kind = RIG_OFFLINE;
}

static void cmd_open(int nlhs, mxArray *plhs[], int nrhs,
		     const mxArray *prhs[])
{
	char name[RTHS_NAME_LEN + 1];
	struct rig *g;

	(void)nlhs;
	get_string(prhs[0], "the device name", name, sizeof(name));
	if (nrhs > 1 && strcmp(name, "offline"))
		fail("rths:nargin", "rths_mex('open', DEVICE) takes no options (only 'offline' does)");
	g = rig_new();
	if (!strcmp(name, "offline"))
		open_offline(g, nrhs > 1 ? prhs[1] : NULL);
	else
		open_device(g, name);
	g->id = next_id++;
	plhs[0] = mxCreateDoubleScalar(g->id);
}

/* ---- the step exchange ------------------------------------------------ */

static void cmd_post(int nlhs, mxArray *plhs[], int nrhs,
		     const mxArray *prhs[])
{
	struct rig *g = rig_of(prhs[0]);
	uint64_t step = (uint64_t)get_whole(prhs[1], "step", 1,
					     9007199254740992.0);
	const double *target = get_doubles(prhs[2], "target", g->channels);
	struct rths_error err = { 0 };
	int e;

	(void)nlhs, (void)plhs, (void)nrhs;
	if (g->kind == RIG_DEVICE) {
		e = rths_post(g->dev, step, target);
		if (e)
			fail("rths:post", "post step %llu on %s: %s%s",
			     (unsigned long long)step, g->name,
			     rths_strerror(e), e == -ERANGE ?
			     " (a target beyond the device's range)" : "");
		return;
	}
	e = rths_hs_backend_post(&g->off, step, target, &err);
	if (e)
		fail_err("rths:post", "post", &err);
	g->posted = step;
}

static const char *const fb_fields[] = {
	"step", "tick", "time", "flags", "late_ticks", "command", "disp",
	"force",
};

static mxArray *column(const double *v, size_t n)
{
	mxArray *a = mxCreateDoubleMatrix((mwSize)n, 1, mxREAL);

	memcpy(mxGetPr(a), v, n * sizeof(*v));
	return a;
}

static mxArray *feedback(uint64_t step, uint64_t tick, uint64_t time_ns,
			 uint32_t flags, uint32_t late, uint32_t n,
			 const double *command, const double *disp,
			 const double *force)
{
	mxArray *s = mxCreateStructMatrix(1, 1, sizeof(fb_fields) /
					  sizeof(*fb_fields), (const char **)fb_fields);

	mxSetFieldByNumber(s, 0, 0, mxCreateDoubleScalar((double)step));
	mxSetFieldByNumber(s, 0, 1, mxCreateDoubleScalar((double)tick));
	mxSetFieldByNumber(s, 0, 2, mxCreateDoubleScalar((double)time_ns * 1e-9));
	mxSetFieldByNumber(s, 0, 3, mxCreateDoubleScalar(flags));
	mxSetFieldByNumber(s, 0, 4, mxCreateDoubleScalar(late));
	mxSetFieldByNumber(s, 0, 5, column(command, n));
	mxSetFieldByNumber(s, 0, 6, column(disp, n));
	mxSetFieldByNumber(s, 0, 7, column(force, n));
	return s;
}

static void cmd_wait(int nlhs, mxArray *plhs[], int nrhs,
		     const mxArray *prhs[])
{
	struct rig *g = rig_of(prhs[0]);
	int timeout = nrhs > 1 ? (int)get_whole(prhs[1], "timeout_ms", -1,
						 INT32_MAX) : 1000;
	struct rths_error err = { 0 };
	int e;

	(void)nlhs;
	if (g->kind == RIG_DEVICE) {
		struct rths_feedback fb;

		e = rths_wait_feedback(g->dev, &fb, timeout, 0);
		if (e == -ETIMEDOUT)
			fail("rths:timeout", "wait on %s: no feedback within %d ms",
			     g->name, timeout);
		if (e)
			fail("rths:wait", "wait on %s: %s%s", g->name,
			     rths_strerror(e), e == -EPIPE ?
			     " (the device left running: rths_mex('stats', h).state)" : "");
		plhs[0] = feedback(fb.step, fb.tick, fb.time_ns, fb.flags,
				   fb.late_ticks, fb.channels, fb.command,
				   fb.disp, fb.force);
		return;
	}
	struct rths_hs_feedback hf;

	/* offline: the step was computed by its post; no waiting */
	e = rths_hs_backend_wait(&g->off, g->posted ? g->posted : 1, &hf,
				 &err);
	if (e)
		fail_err("rths:wait", "wait", &err);
	plhs[0] = feedback(hf.step, hf.tick, hf.time_ns, hf.flags,
			   hf.late_ticks, hf.channels, hf.command, hf.disp,
			   hf.force);
}

/* ---- stats ---------------------------------------------------------------- */

static void set_field(mxArray *s, const char *name, mxArray *v)
{
	int i = mxAddField(s, name);

	mxSetFieldByNumber(s, 0, i, v);
}

#define SET_NUM(s, name, v) set_field(s, name, mxCreateDoubleScalar((double)(v)))

/* A struct's members as fields, one table row each. */
struct field {
	const char *name;
	size_t off;
	enum { F_U64, F_DOUBLE, F_BOOL } type;
};

#define FIELD(type, m, t) { #m, offsetof(type, m), t }
#define NFIELDS(a) (sizeof(a) / sizeof((a)[0]))

static void set_fields(mxArray *s, const void *base, const struct field *f,
		       size_t n)
{
	for (; n--; f++) {
		const char *p = (const char *)base + f->off;

		switch (f->type) {
		case F_U64:
			SET_NUM(s, f->name, *(const uint64_t *)p);
			break;
		case F_DOUBLE:
			SET_NUM(s, f->name, *(const double *)p);
			break;
		case F_BOOL:
			set_field(s, f->name,
				  mxCreateLogicalScalar(*(const bool *)p));
			break;
		}
	}
}

#define STAT(m, t) FIELD(struct rths_hs_backend_stats, m, t)
static const struct field stat_counts[] = {
	STAT(steps, F_U64), STAT(ticks, F_U64), STAT(missed_ticks, F_U64),
	STAT(late_steps, F_U64), STAT(late_extrapolated, F_U64),
	STAT(late_held, F_U64), STAT(late_decelerated, F_U64),
	STAT(late_faulted, F_U64), STAT(limit_trips, F_U64),
	STAT(fb_overflows, F_U64), STAT(card_errors, F_U64),
}, stat_latency[] = {
	STAT(irq_lat_max_ns, F_DOUBLE), STAT(thread_lat_avg_ns, F_DOUBLE),
	STAT(thread_lat_max_ns, F_DOUBLE),
};

/* The counters both backends keep, as a struct; first "backend" and
 * "state" when they are given. */
static mxArray *stats_struct(const char *backend, const char *state,
			     const struct rths_hs_backend_stats *st)
{
	mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);

	if (backend)
		set_field(s, "backend", mxCreateString(backend));
	if (state)
		set_field(s, "state", mxCreateString(state));
	set_fields(s, st, stat_counts, NFIELDS(stat_counts));
	if (st->has_latency)
		set_fields(s, st, stat_latency, NFIELDS(stat_latency));
	return s;
}

/* A device's counters in the offline backend's struct. */
static void device_stats(struct rig *g, struct rths_hs_backend_stats *bs)
{
	struct rths_stats st;
	int e = rths_stats_get(g->ctl, g->name, &st);

	if (e)
		fail("rths:stats", "stats of %s: %s", g->name,
		     *rths_ctl_error(g->ctl) ? rths_ctl_error(g->ctl) :
		     rths_strerror(e));
	*bs = (struct rths_hs_backend_stats){
		.steps = st.steps, .ticks = st.ticks,
		.missed_ticks = st.missed, .late_steps = st.late_steps,
		.late_extrapolated = st.late_extrapolated,
		.late_held = st.late_held,
		.late_decelerated = st.late_decelerated,
		.late_faulted = st.late_faulted,
		.limit_trips = st.limit_trips,
		.fb_overflows = st.fb_overflows,
		.card_errors = st.card_errors, .has_latency = true,
		.irq_lat_max_ns = (double)st.irq_lat_max,
		.thread_lat_avg_ns = (double)st.thread_lat_avg,
		.thread_lat_max_ns = (double)st.thread_lat_max,
	};
}

static void cmd_stats(int nlhs, mxArray *plhs[], int nrhs,
		      const mxArray *prhs[])
{
	struct rig *g = rig_of(prhs[0]);
	struct rths_hs_backend_stats bs;
	const char *state = NULL;	/* the offline backend does not say */

	(void)nlhs, (void)nrhs;
	if (g->kind == RIG_DEVICE) {
		device_stats(g, &bs);
		state = rths_state_name((enum rths_state)
					rths_dev_header(g->dev)->state);
		if (!state)
			state = "?";
	} else if (rths_hs_backend_stats(&g->off, &bs)) {
		fail("rths:stats", "stats of offline: none kept");
	}
	plhs[0] = stats_struct(g->kind == RIG_DEVICE ? "device" : "offline",
			       state, &bs);
}

static void cmd_close(int nlhs, mxArray *plhs[], int nrhs,
		      const mxArray *prhs[])
{
	(void)nlhs, (void)plhs, (void)nrhs;
	rig_close(rig_of(prhs[0]));
}

/* ---- run an experiment file -------------------------------------------- */

/* A time series of @rows rows of @w values (row i at [i * w]) as a
 * rows x w matrix (column-major). */
static mxArray *table(const double *v, size_t rows, size_t w)
{
	mxArray *a = mxCreateDoubleMatrix((mwSize)rows, (mwSize)w, mxREAL);
	double *o = mxGetPr(a);

	for (size_t r = 0; v && r < rows; r++)
		for (size_t c = 0; c < w; c++)
			o[r + c * rows] = v[r * w + c];
	return a;
}

/* The history's time series, each rows x its width. */
static const struct {
	const char *name;
	size_t off;
	enum { W_ONE, W_DOF, W_IF, W_ACT } width;
} history_fields[] = {
#define SERIES(m, w) { #m, offsetof(struct rths_hs_history, m), w }
	SERIES(t, W_ONE), SERIES(ag, W_ONE), SERIES(u, W_DOF),
	SERIES(v, W_DOF), SERIES(a, W_DOF), SERIES(x_if, W_IF),
	SERIES(x_meas, W_IF), SERIES(f_meas, W_IF), SERIES(target, W_ACT),
	SERIES(command, W_ACT), SERIES(disp, W_ACT), SERIES(force, W_ACT),
	SERIES(compute, W_ONE),
#undef SERIES
};

static mxArray *history(const struct rths_hs_history *h)
{
	mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);
	mxArray *fl = mxCreateDoubleMatrix((mwSize)h->rows, 1, mxREAL);
	const size_t widths[] = { 1, h->n_dof, h->n_if, h->n_act };
	size_t r = h->rows;

	for (size_t i = 0; h->flags && i < r; i++)
		mxGetPr(fl)[i] = h->flags[i];
	SET_NUM(s, "dt", h->dt);
	for (size_t i = 0; i < NFIELDS(history_fields); i++)
		set_field(s, history_fields[i].name,
			  table(*(double *const *)((const char *)h +
						   history_fields[i].off),
				r, widths[history_fields[i].width]));
	set_field(s, "flags", fl);
	return s;
}

#define RESULT(m, t) FIELD(struct rths_hs_run_result, m, t)
static const struct field result_head[] = {
	RESULT(steps_planned, F_U64), RESULT(steps_done, F_U64),
	RESULT(interrupted, F_BOOL), RESULT(held, F_BOOL),
}, result_times[] = {
	RESULT(compute_min, F_DOUBLE), RESULT(compute_mean, F_DOUBLE),
	RESULT(compute_max, F_DOUBLE), RESULT(compute_p99, F_DOUBLE),
	RESULT(wall, F_DOUBLE), RESULT(late_steps, F_U64),
};

static mxArray *result(const struct rths_hs_run_result *res, int e)
{
	mxArray *s = mxCreateStructMatrix(1, 1, 0, NULL);
	char buf[900];

	set_fields(s, res, result_head, NFIELDS(result_head));
	SET_NUM(s, "error", e ? e : res->error);
	set_field(s, "message", mxCreateString(e || res->error ?
		  rths_error_str(&res->err, buf, sizeof(buf)) : ""));
	set_fields(s, res, result_times, NFIELDS(result_times));
	if (res->has_stats)
		set_field(s, "stats", stats_struct(NULL, NULL, &res->stats));
	return s;
}

static void cmd_run(int nlhs, mxArray *plhs[], int nrhs,
		    const mxArray *prhs[])
{
	static char path[4096], trace_dir[4096];
	char opt[32];
	unsigned int flags = 0;
	uint32_t step_ticks = 0;
	bool trace = false;
	struct rths_hs_experiment *x = NULL;
	struct rths_hs_history h = { 0 };
	struct rths_hs_run_result res;
	struct rths_error err = { 0 };
	int e;

	get_string(prhs[0], "the experiment file", path, sizeof(path));
	if ((nrhs - 1) % 2)
		fail("rths:nargin", "rths_mex('run', FILE, NAME, VALUE, ...): options come in pairs");
	for (int i = 1; i < nrhs; i += 2) {
		get_string(prhs[i], "an option name", opt, sizeof(opt));
		if (!strcmp(opt, "offline")) {
			if (get_logical(prhs[i + 1], "'offline'"))
				flags |= RTHS_HS_RUN_OFFLINE;
			else
				flags &= ~RTHS_HS_RUN_OFFLINE;
		} else if (!strcmp(opt, "step_ticks")) {
			step_ticks = (uint32_t)get_whole(prhs[i + 1],
							 "'step_ticks'", 1,
							 1e6);
		} else if (!strcmp(opt, "trace_dir")) {
			get_string(prhs[i + 1], "'trace_dir'", trace_dir,
				   sizeof(trace_dir));
			trace = true;
		} else {
			fail("rths:badOption", "run: unknown option '%s' (offline, step_ticks, trace_dir)",
			      opt);
		}
	}
	e = rths_hs_experiment_load(path, &x, &err);
	if (e)
		fail_err("rths:experiment", "run", &err);
	/* the step rths-run -d gives, or "auto" refused as such: the
	 * preview is rths-run's */
	if (step_ticks)
		e = rths_hs_experiment_set_step(x, step_ticks, &err);
	else if (!x->device.step_ticks)
		e = rths_error_set(&err, RTHS_E_UNSUPPORTED, path, 0,
				   "device.step_ticks",
				   "\"auto\" is for rths-run's preview: give rths_mex('run', FILE, 'step_ticks', D), or a number in the file");
	if (e) {
		rths_hs_experiment_free(x);
		fail_err("rths:experiment", "run", &err);
	}
	memset(&res, 0, sizeof(res));
	e = rths_hs_experiment_run(x, flags, trace ? trace_dir : NULL, &h,
				   &res, &err);
	rths_hs_experiment_free(x);
	/* Failed on the way: the steps done and why, if the caller asks
	 * for both; otherwise, and if it could not start, an error. */
	if (e && (h.rows == 0 || nlhs < 2)) {
		rths_hs_history_free(&h);
		if (!err.code)
			err = res.err;
		fail_err("rths:run", "run", &err);
	}
	if (e && !res.err.code)
		res.err = err;
	plhs[0] = history(&h);
	if (nlhs > 1)
		plhs[1] = result(&res, e);
	rths_hs_history_free(&h);
}

/* ---- dispatch ------------------------------------------------------------- */

struct command {
	const char *name, *usage;
	void (*fn)(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]);
	int min_in, max_in, max_out;	/* after the command's name */
};

static const struct command commands[] = {
	{ "open", "h = rths_mex('open', DEVICE) or rths_mex('open', 'offline', opts)",
	  cmd_open, 1, 2, 1 },
	{ "post", "rths_mex('post', h, step, target)", cmd_post, 3, 3, 0 },
	{ "wait", "fb = rths_mex('wait', h, timeout_ms)", cmd_wait, 1, 2, 1 },
	{ "stats", "s = rths_mex('stats', h)", cmd_stats, 1, 1, 1 },
	{ "close", "rths_mex('close', h)", cmd_close, 1, 1, 0 },
	{ "run", "[hist, res] = rths_mex('run', FILE, 'offline', true, 'step_ticks', D, 'trace_dir', DIR)",
	  cmd_run, 1, 7, 2 },
};

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
	char name[16];
	const struct command *c = NULL;

	if (!at_exit_set) {
		mexAtExit(close_all);
		at_exit_set = true;
	}
	if (nrhs < 1)
		fail("rths:nargin", "usage: rths_mex(COMMAND, ...), COMMAND one of open, post, wait, stats, close, run");
	get_string(prhs[0], "the command", name, sizeof(name));
	for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++)
		if (!strcmp(name, commands[i].name))
			c = &commands[i];
	if (!c)
		fail("rths:badCommand", "unknown command '%s' (open, post, wait, stats, close, run)",
		      name);
	if (nrhs - 1 < c->min_in || nrhs - 1 > c->max_in)
		fail("rths:nargin", "wrong number of arguments: %s", c->usage);
	if (nlhs > c->max_out)
		fail("rths:nargout", "too many outputs: %s", c->usage);
	c->fn(nlhs, plhs, nrhs - 1, prhs + 1);
}
